// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: the names of the tasks that were there before recording,
 * read from /proc as perf synthesizes its COMM events (issue 16 item 6).
 *
 * The kernel names each task it adopts or attaches with one COMM record,
 * written at SESSION_CREATE.  A flight recorder whose buffer wraps before
 * its first window has lost those records, and a busy system-wide
 * recording (13 of 49 tasks under -a) then showed tasks by number only.
 * So between SESSION_CREATE (the tasks are the session's) and ENABLE the
 * recorder reads the name of each of them, and puts the names in the
 * first window it writes as COMM records of its own (PMF_COMM_M_RECORDER,
 * c.cpu 0, c.time when read).  A name set later comes with the kernel's
 * EXEC record, or with the first sample of the thread (maps.c).
 *
 * A task started during a flight recording is named by the kernel's FORK
 * (its parent's name), EXEC or COMM record, which the buffer overwrites
 * while the task lives on: a window taken later holds its switches and
 * samples, and nothing that names it (reports showed ":142"; issue 30
 * item 9).  So the recorder notes every record it writes, and when a
 * window's records are in, it reads the name of each task of the window
 * that no record of the file names yet, and adds it to the window as a
 * COMM record of its own.  (A task gone by then stays unnamed.)
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmfile.h"
#include "record/names.h"
#include "record/session.h"
#include "record/writer.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* /proc/@pid/task/@tid/comm into @out (NUL-padded); false if gone */
static bool read_comm(const char *pid, const char *tid,
		      char out[PMUCTX_COMM_LEN])
{
	char p[600], buf[PMUCTX_COMM_LEN + 2];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%s/task/%s/comm", pid, tid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	memset(out, 0, PMUCTX_COMM_LEN);
	memcpy(out, buf, strnlen(buf, PMUCTX_COMM_LEN - 1));
	return true;
}

static int add_name(struct recorder *R, const char *pid, const char *tid)
{
	struct pmuctx_rec_comm *c;

	if (R->nr_names == R->cap_names) {
		size_t cap = R->cap_names ? R->cap_names * 2 : 256;

		c = realloc(R->names, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		R->names = c;
		R->cap_names = cap;
	}
	c = &R->names[R->nr_names];
	memset(c, 0, sizeof(*c));
	/*
	 * Stamped when read, not when the scan began: a pid reused during
	 * the scan must not name the old task's records before its exit.
	 * Still before ENABLE, so before any sample.
	 */
	c->c.time = now_ns();
	if (!read_comm(pid, tid, c->comm))
		return 0;	/* gone meanwhile: nothing to name */
	c->hdr.type = PMUCTX_REC_COMM;
	c->hdr.size = sizeof(*c);
	c->hdr.misc = PMF_COMM_M_RECORDER;
	c->c.pid = (__s32)strtol(pid, NULL, 10);
	c->c.tid = (__s32)strtol(tid, NULL, 10);
	R->nr_names++;
	return 0;
}

/* the threads of process @pid */
static int add_process(struct recorder *R, const char *pid)
{
	struct dirent *d;
	char p[300];
	DIR *dir;
	int err = 0;

	snprintf(p, sizeof(p), "/proc/%s/task", pid);
	dir = opendir(p);
	if (!dir)
		return 0;	/* gone */
	while (!err && (d = readdir(dir)))
		if (all_digits(d->d_name))
			err = add_name(R, pid, d->d_name);
	closedir(dir);
	return err;
}

int record_read_names(struct recorder *R)
{
	const struct record_opts *o = R->o;
	struct dirent *d;
	char pid[16];
	DIR *dir;
	int err = 0;

	if (!(record_ring_records(o, R->info.features) & PMUCTX_REC_MASK_COMM))
		return 0;
	if (o->t.pid) {
		/* a command's only task is named by its EXEC record */
		snprintf(pid, sizeof(pid), "%d", (int)o->t.pid);
		return add_process(R, pid);
	}
	if (!o->t.system_wide)
		return 0;
	dir = opendir("/proc");
	if (!dir)
		return 0;	/* no /proc: the kernel's records only */
	while (!err && (d = readdir(dir)))
		if (all_digits(d->d_name))
			err = add_process(R, d->d_name);
	closedir(dir);
	return err;
}

int record_put_names(struct recorder *R)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < R->nr_names; i++) {
		if (pmf_add_record(R->w, &R->names[i], sizeof(R->names[i])))
			err = record_file_error(R);
		else
			record_note_name(R, &R->names[i].hdr);
	}
	record_free_names(R);
	return err;
}

/* a task of the file's records */
struct task_name {
	__s32 tid;		/* 0: a free slot */
	__s32 pid;
	bool named;		/* a COMM, EXEC or FORK record names it */
	bool seen;		/* in the window being written */
};

static struct task_name *task_slot(struct recorder *R, __s32 tid)
{
	size_t i, mask;

	if ((R->nr_tasks + 1) * 2 > R->cap_tasks) {
		size_t cap = R->cap_tasks ? R->cap_tasks * 2 : 256, j;
		struct task_name *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (j = 0; j < R->cap_tasks; j++) {
			if (!R->tasks[j].tid)
				continue;
			for (i = (size_t)(__u32)R->tasks[j].tid * 2654435761U &
				 (cap - 1); v[i].tid; i = (i + 1) & (cap - 1))
				;
			v[i] = R->tasks[j];
		}
		free(R->tasks);
		R->tasks = v;
		R->cap_tasks = cap;
	}
	mask = R->cap_tasks - 1;
	for (i = (size_t)(__u32)tid * 2654435761U & mask; R->tasks[i].tid;
	     i = (i + 1) & mask)
		if (R->tasks[i].tid == tid)
			return &R->tasks[i];
	R->tasks[i].tid = tid;
	R->nr_tasks++;
	return &R->tasks[i];
}

/*
 * @tid of process @pid: named, or seen in this window (out of memory, it
 * stays unnamed: a name is not worth failing the recording)
 */
static void note(struct recorder *R, __s32 pid, __s32 tid, bool named)
{
	struct task_name *t;

	if (tid <= 0)
		return;		/* the idle task, or not visible */
	t = task_slot(R, tid);
	if (!t)
		return;
	t->pid = pid;
	if (named)
		t->named = true;
	else
		t->seen = true;
}

void record_note_name(struct recorder *R, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = (const void *)(h + 1);

	switch (h->type) {
	case PMUCTX_REC_PAD:
		break;
	case PMUCTX_REC_COMM:
	case PMUCTX_REC_EXEC:
		note(R, c->pid, c->tid, true);
		break;
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *f = (const void *)h;

		/* the child has its parent's name (the report's as perf's) */
		note(R, c->pid, c->tid, false);
		note(R, f->child_pid, f->child_tid, true);
		break;
	}
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)h;

		note(R, c->pid, c->tid, false);
		note(R, s->next_pid, s->next_tid, false);
		break;
	}
	default:
		note(R, c->pid, c->tid, false);
	}
}

int record_name_window(struct recorder *R)
{
	char pid[16], tid[16];
	struct pmuctx_rec_comm rec;
	size_t i;

	if (!(record_ring_records(R->o, R->info.features) &
	      PMUCTX_REC_MASK_COMM))
		return 0;
	for (i = 0; i < R->cap_tasks; i++) {
		struct task_name *t = &R->tasks[i];

		if (!t->tid || !t->seen)
			continue;
		t->seen = false;
		if (t->named)
			continue;
		memset(&rec, 0, sizeof(rec));
		snprintf(pid, sizeof(pid), "%d", (int)t->pid);
		snprintf(tid, sizeof(tid), "%d", (int)t->tid);
		if (!read_comm(pid, tid, rec.comm))
			continue;	/* gone: nothing to name */
		rec.hdr.type = PMUCTX_REC_COMM;
		rec.hdr.size = sizeof(rec);
		rec.hdr.misc = PMF_COMM_M_RECORDER;
		rec.c.time = now_ns();
		rec.c.pid = t->pid;
		rec.c.tid = t->tid;
		if (pmf_add_record(R->w, &rec, sizeof(rec)))
			return record_file_error(R);
		t->named = true;
	}
	return 0;
}

void record_free_tasks(struct recorder *R)
{
	free(R->tasks);
	R->tasks = NULL;
	R->nr_tasks = 0;
	R->cap_tasks = 0;
}

void record_free_names(struct recorder *R)
{
	free(R->names);
	R->names = NULL;
	R->nr_names = 0;
	R->cap_names = 0;
}
