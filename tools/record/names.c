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

	for (i = 0; !err && i < R->nr_names; i++)
		if (pmf_add_record(R->w, &R->names[i], sizeof(R->names[i])))
			err = record_file_error(R);
	record_free_names(R);
	return err;
}

void record_free_names(struct recorder *R)
{
	free(R->names);
	R->names = NULL;
	R->nr_names = 0;
	R->cap_names = 0;
}
