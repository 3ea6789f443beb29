/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: a session's members (members.c): the tasks SESSION_CREATE
 * attaches, and the cgroup join worker.
 */
#ifndef _PMUCTX_MEMBERS_H
#define _PMUCTX_MEMBERS_H

#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

struct pmuctx_entry;
struct pmuctx_session;
struct rw_semaphore;
struct task_struct;
struct work_struct;

/*
 * What SESSION_CREATE gathers before the session goes live: a pid
 * target's tasks (referenced) and an entry for each, or the entries an
 * adopting session takes every thread with; the target's
 * exec_update_lock once checked.  Zeroed by the caller; emptied by
 * pmuctx_members_attach() or pmuctx_members_release().
 */
struct pmuctx_members {
	struct task_struct	**tasks;
	int			ntasks;
	struct pmuctx_entry	**entries;
	int			nent;
	struct rw_semaphore	*exec_lock;	/* held for read, or NULL */
};

int pmuctx_members_resolve(const struct pmuctx_session_attr *a,
			   struct pmuctx_members *m);
bool pmuctx_members_on_cpu(const struct pmuctx_members *m, int cpu);
int pmuctx_members_alloc(struct pmuctx_session *s, struct pmuctx_members *m);
int pmuctx_members_lock(struct pmuctx_members *m);
void pmuctx_members_attach(struct pmuctx_session *s, struct pmuctx_members *m);
void pmuctx_members_release(struct pmuctx_members *m);
void pmuctx_join_work_fn(struct work_struct *work);

#endif /* _PMUCTX_MEMBERS_H */
