// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: the tasks of a recording.  Their names along the walk
 * in time order (COMM and EXEC records; a forked child is named as its
 * parent until it has its own, as perf names it), the slices and sums of
 * their SWITCH records and the totals of their EXIT record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/records.h"
#include "report/tasks.h"

static struct task *task_get(struct report *R, __s32 tid, bool create)
{
	size_t i, mask;

	if (R->used * 2 >= R->cap && create) {
		size_t ncap = R->cap ? R->cap * 2 : 256, j;
		struct task *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < R->cap; j++) {
			struct task *t = &R->tasks[j];

			if (!t->used)
				continue;
			for (i = (size_t)(__u32)t->tid * 2654435761U &
				 (ncap - 1);
			     n[i].used; i = (i + 1) & (ncap - 1))
				;
			n[i] = *t;
		}
		free(R->tasks);
		R->tasks = n;
		R->cap = ncap;
	}
	if (!R->cap)
		return NULL;
	mask = R->cap - 1;
	for (i = (size_t)(__u32)tid * 2654435761U & mask; R->tasks[i].used;
	     i = (i + 1) & mask)
		if (R->tasks[i].tid == tid)
			return &R->tasks[i];
	if (!create)
		return NULL;
	memset(&R->tasks[i], 0, sizeof(R->tasks[i]));
	R->tasks[i].used = true;
	R->tasks[i].tid = tid;
	R->used++;
	return &R->tasks[i];
}

static void set_comm(char *dst, const char *src)
{
	memcpy(dst, src, PMUCTX_COMM_LEN);
	dst[PMUCTX_COMM_LEN] = '\0';
}

/* the name of @tid at this point of the time-ordered walk */
const char *report_comm_of(struct report *R, __s32 pid, __s32 tid, __u32 cpu,
			   char *buf, size_t len)
{
	struct task *t;

	if (!tid && !pid) {
		snprintf(buf, len, "swapper/%u", cpu);
		return buf;
	}
	t = task_get(R, tid, false);
	if (t && t->have_comm)
		return t->comm;
	if (t && t->have_first)
		return t->first;
	snprintf(buf, len, ":%d", (int)tid);	/* as perf does */
	return buf;
}

/* the first name of every task in the file (for records before a COMM) */
int report_first_comms(struct report *R, const struct pmuctx_rec_header **a,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pmuctx_rec_header *h = a[i];
		const char *comm = NULL;
		struct task *t;

		if (h->type == PMUCTX_REC_COMM)
			comm = ((const struct pmuctx_rec_comm *)h)->comm;
		else if (h->type == PMUCTX_REC_EXEC)
			comm = ((const struct pmuctx_rec_exec *)h)->comm;
		else
			continue;
		t = task_get(R, rec_common(h)->tid, true);
		if (!t)
			return -ENOMEM;
		if (!t->have_first) {
			set_comm(t->first, comm);
			t->have_first = true;
		}
		t->pid = rec_common(h)->pid;
	}
	return 0;
}

/*
 * FORK: the child is named as its parent until a COMM or EXEC record
 * (the kernel copies the name; perf names it so too)
 */
static int fork_comm(struct report *R, __s32 parent, __s32 child)
{
	struct task *p = task_get(R, parent, false), *t;
	const char *name = p && p->have_comm ? p->comm :
			   p && p->have_first ? p->first : NULL;
	char buf[PMUCTX_COMM_LEN + 1];

	if (!name || child == parent)
		return 0;
	memcpy(buf, name, sizeof(buf));		/* task_get() may move p */
	t = task_get(R, child, true);
	if (!t)
		return -ENOMEM;
	set_comm(t->comm, buf);
	t->have_comm = true;
	return 0;
}

/* the walk in time order: names, slices, exit values */
int report_account(struct report *R, const struct pmuctx_rec_header *h,
		   bool sums)
{
	const struct pmuctx_rec_common *c = rec_common(h);
	struct task *t;
	__u32 i, nr;

	switch (h->type) {
	case PMUCTX_REC_COMM:
	case PMUCTX_REC_EXEC:
		t = task_get(R, c->tid, true);
		if (!t)
			return -ENOMEM;
		set_comm(t->comm, h->type == PMUCTX_REC_COMM ?
			 ((const struct pmuctx_rec_comm *)h)->comm :
			 ((const struct pmuctx_rec_exec *)h)->comm);
		t->have_comm = true;
		t->pid = c->pid;
		break;
	case PMUCTX_REC_FORK:
		return fork_comm(R, c->tid,
				 ((const struct pmuctx_rec_fork *)h)->child_tid);
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)h;

		if (!sums || (!c->tid && !c->pid))
			break;
		t = task_get(R, c->tid, true);
		if (!t)
			return -ENOMEM;
		t->pid = c->pid;
		t->slices++;
		nr = s->nr < PMUCTX_MAX_EVENTS ? s->nr : PMUCTX_MAX_EVENTS;
		for (i = 0; i < nr; i++)
			t->sum[i] += s->delta[i];
		break;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *e = (const void *)h;

		if (!sums)
			break;
		t = task_get(R, c->tid, true);
		if (!t)
			return -ENOMEM;
		t->pid = c->pid;
		t->exited = true;
		t->exit_nr = e->nr < PMUCTX_MAX_EVENTS ? e->nr :
			     PMUCTX_MAX_EVENTS;
		for (i = 0; i < t->exit_nr; i++)
			t->exitv[i] = e->values[i];
		break;
	}
	case PMUCTX_REC_LOST:
		if (sums)
			R->lost_records +=
				((const struct pmuctx_rec_lost *)h)->lost;
		break;
	default:
		break;
	}
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task *x = *(const struct task *const *)a;
	const struct task *y = *(const struct task *const *)b;
	__u64 vx = x->sum[0] ? x->sum[0] : x->exitv[0];
	__u64 vy = y->sum[0] ? y->sum[0] : y->exitv[0];

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct task **report_sorted_tasks(struct report *R, size_t *n)
{
	struct task **v;
	size_t i, k = 0;

	*n = 0;
	v = malloc((R->used ? R->used : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < R->cap; i++)
		if (R->tasks[i].used && (R->tasks[i].slices ||
					 R->tasks[i].exited))
			v[k++] = &R->tasks[i];
	qsort(v, k, sizeof(*v), cmp_task);
	*n = k;
	return v;
}
