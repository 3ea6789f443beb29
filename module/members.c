// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: a session's members, the tasks it watches from its start
 * (members.h): a pid target's thread or threads, resolved and checked
 * under the target's exec_update_lock; every thread of a system-wide or
 * cgroup session (adoption); and the tasks that join a cgroup session
 * later (the join worker).  SESSION_CREATE gathers them into a struct
 * pmuctx_members before the session is live and attaches them after;
 * the fork, exec, exit and cgroup-attach probes (hooks.c) keep the
 * membership from then on, through pmuctx_entry_publish() and retire.
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "hooks.h"
#include "members.h"
#include "params.h"
#include "perm.h"
#include "records.h"
#include "session_types.h"
#include "store.h"
#include "testhooks.h"

/*
 * Resolve a pid target to referenced tasks: the thread, or every thread of
 * its process.  Returns the number of tasks in *@out (kfree it and put the
 * tasks when done).
 */
static int pmuctx_get_targets(const struct pmuctx_session_attr *a,
			      struct task_struct ***out)
{
	struct task_struct *task, *t, **arr;
	unsigned int n, cap;
	int ret;

	rcu_read_lock();
	task = a->pid ? pid_task(find_vpid(a->pid), PIDTYPE_PID) : current;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	ret = pmuctx_may_monitor(task);
	if (ret)
		goto out_put;
	if (task->flags & PF_EXITING) {
		ret = -ESRCH;
		goto out_put;
	}

	for (cap = 1;;) {
		if (!(a->flags & PMUCTX_SESSION_THREAD))
			cap = get_nr_threads(task) + 16;
		arr = kvmalloc_array(cap, sizeof(*arr), GFP_KERNEL);
		if (!arr) {
			ret = -ENOMEM;
			goto out_put;
		}
		n = 0;
		if (a->flags & PMUCTX_SESSION_THREAD) {
			get_task_struct(task);
			arr[n++] = task;
			break;
		}
		rcu_read_lock();
		for_each_thread(task, t) {
			if (n == cap)
				break;
			if (t->flags & PF_EXITING)
				continue;
			get_task_struct(t);
			arr[n++] = t;
		}
		rcu_read_unlock();
		if (n < cap)
			break;
		while (n)
			put_task_struct(arr[--n]);
		kvfree(arr);
	}
	*out = arr;
	ret = n;
out_put:
	put_task_struct(task);
	return ret;
}

/*
 * The permission check that counts (security items 2 and 3): every thread
 * to be attached, not only the one named (credentials are per thread; a
 * process with one thread the caller may not watch is refused, EACCES),
 * under the target's exec_update_lock, which stays held (read) until the
 * entries are hashed, as perf_event_open() holds it from its check to
 * installing the event.  An exec that changes credentials takes it for
 * write around the switch: it either completes first, and the check sees
 * the new credentials, or waits until the entries are hashed, and the exec
 * probe finds and stops them.  The check in pmuctx_get_targets() only
 * fails early, before the allocations.
 *
 * Context: process, may sleep.  Returns 0 with *@lock held for read, or
 * -EACCES, -ESRCH, -EINTR without it.
 */
static int pmuctx_check_targets(struct rw_semaphore *lock,
				struct task_struct **tasks, int n)
{
	int i, ret;

	ret = down_read_interruptible(lock);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = pmuctx_may_monitor(tasks[i]);
		if (ret) {
			up_read(lock);
			return ret;
		}
	}
	return 0;
}

/*
 * After hashing an entry for a task that may be exiting right now (create:
 * pid targets, the adoption walk; the join worker).  Pairs with the
 * barriers between PF_EXITING and the exit probe's lookup: a task that
 * exits concurrently either finds the entry or we see PF_EXITING, and
 * then whoever unhashes it first drops it.  Process context (an IPI: a
 * switch-in may have cached it meanwhile), inside rcu_read_lock(): the
 * exit probe may retire and put @e.
 */
static void pmuctx_publish_exit_race(struct pmuctx_session *s,
				     struct pmuctx_entry *e)
{
	if (pmuctx_rec_on(s, PMUCTX_REC_MASK_COMM)) {
		local_irq_disable();
		pmuctx_rec_comm(s, e->task);
		local_irq_enable();
	}
	/* hashed before we look at PF_EXITING; see above */
	smp_mb();
	if (e->task->flags & PF_EXITING && pmuctx_entry_unpublish(e)) {
		WRITE_ONCE(e->dead, true);
		on_each_cpu(pmuctx_cpu_forget_entry, e, 1);
		pmuctx_entry_put(e);
	}
}

/* Bind pre-allocated entries to the target tasks and hash them. */
static void pmuctx_attach(struct pmuctx_session *s, struct task_struct **tasks,
			  struct pmuctx_entry **entries, unsigned int n)
{
	struct pmuctx_entry *e;
	unsigned int i;

	for (i = 0; i < n; i++) {
		e = entries[i];
		entries[i] = NULL;
		if (!pmuctx_entry_init(e, s, tasks[i], NULL)) {
			pmuctx_entry_free_unused(e);
			atomic64_inc(&pmuctx_stats.dropped);
			this_cpu_inc(s->cpu->dropped);
			continue;
		}
		if (pmuctx_entry_publish(e, false)) {
			atomic64_dec(&s->tasks_seen);
			pmuctx_entry_put(e);
			atomic64_inc(&pmuctx_stats.dropped);
			this_cpu_inc(s->cpu->dropped);
			continue;
		}
		/* the task may exit and free @e at once: RCU keeps it */
		rcu_read_lock();
		pmuctx_publish_exit_race(s, e);
		rcu_read_unlock();
	}
}

/*
 * Hash an initialized entry of adopting session @s (the create walk, the
 * join worker), process context inside rcu_read_lock(); on failure drop
 * it: a drop, or nothing when another path hashed the task first or it
 * left.  Either way it was not seen.
 */
static void pmuctx_adopt_publish(struct pmuctx_session *s,
				 struct pmuctx_entry *e)
{
	int ret = pmuctx_entry_publish(e, true);

	if (!ret) {
		pmuctx_publish_exit_race(s, e);
		return;
	}
	atomic64_dec(&s->tasks_seen);
	pmuctx_entry_put(e);
	if (ret != -EEXIST && ret != -ESRCH) {
		atomic64_inc(&pmuctx_stats.dropped);
		this_cpu_inc(s->cpu->dropped);
	}
}

/*
 * A system-wide or cgroup session takes every thread there is when it is
 * created, in process context; the fork and cgroup-attach probes take the
 * ones that come later (the session is on pmuctx_adopters before this
 * walk starts), and pmuctx_entry_publish() settles a thread two of them
 * see.  Entries are allocated first, charged to the creator, for the
 * threads counted by a first pass (plus slack for forks meanwhile);
 * threads beyond that are dropped, and counted so.  Adoption used to
 * happen at a task's first switch-in, which made sched_switch take a
 * lock and scan a pending list (lifetimes item 4).
 */
static int pmuctx_adopt_alloc(struct pmuctx_session *s,
			      struct pmuctx_entry ***arrp, int *np)
{
	struct pmuctx_entry **arr;
	struct task_struct *p, *t;
	unsigned int n = 0, i;
	int room;

	rcu_read_lock();
	for_each_process_thread(p, t)
		n += pmuctx_session_matches(s, t);
	rcu_read_unlock();
	/*
	 * No more than the store and the user's share can take: entries
	 * beyond them would be refused by pmuctx_entry_init() anyway, and
	 * allocating them first would let one create hold (threads x entry
	 * size) at once per session.
	 */
	room = (int)READ_ONCE(pmuctx_max_tasks) -
	       atomic_read(&pmuctx_stats.entries);
	if (s->user)
		room = min(room, (int)READ_ONCE(pmuctx_max_tasks_per_user) -
				 atomic_read(&s->user->entries));
	n = min_t(int, n + 64, max(room, 0));
	arr = kvcalloc(n, sizeof(*arr), GFP_KERNEL);
	if (!arr)
		return -ENOMEM;
	*arrp = arr;
	*np = n;
	for (i = 0; i < n; i++) {
		arr[i] = pmuctx_entry_alloc(s, GFP_KERNEL);
		if (!arr[i])
			return -ENOMEM;	/* the caller frees arr[] */
	}
	return 0;
}

/* The walk itself: the session is live and on pmuctx_adopters. */
static void pmuctx_adopt_existing(struct pmuctx_session *s,
				  struct pmuctx_entry **arr, unsigned int n)
{
	struct task_struct *p, *t;
	struct pmuctx_entry *e;
	unsigned int used = 0;

	/*
	 * The session is on pmuctx_adopters (list_add_rcu() under
	 * pmuctx_mutex): a fork probe that runs after this barrier sees it,
	 * and a child linked into the task list before it is seen below.
	 */
	smp_mb();
	rcu_read_lock();
	for_each_process_thread(p, t) {
		/* threads forked since the session went live: the fork probe */
		if (!pmuctx_session_matches(s, t) || pmuctx_sess_entry(s, t))
			continue;
		if (used == n || !pmuctx_entry_init(arr[used], s, t, NULL)) {
			atomic64_inc(&pmuctx_stats.dropped);
			this_cpu_inc(s->cpu->dropped);
			continue;
		}
		e = arr[used];
		arr[used++] = NULL;
		pmuctx_adopt_publish(s, e);
	}
	rcu_read_unlock();
}

/*
 * Hash the entries the cgroup-attach probe made for tasks that joined the
 * cgroup (it cannot insert: IRQs off).  Teardown cancels this work once
 * no probe can queue more, before it forgets the per-CPU caches, then
 * drops what is left on the list.  Release may have begun while this
 * runs: the entries hashed then are unhashed by teardown, and the sync
 * below does nothing for a session that is not live.
 */
void pmuctx_join_work_fn(struct work_struct *work)
{
	struct pmuctx_session *s = container_of(work, struct pmuctx_session,
						join_work);
	struct pmuctx_entry *e, *tmp;
	bool any = false;

	pmuctx_testhook_join_delay();	/* debug build only */
	rcu_read_lock();
	llist_for_each_entry_safe(e, tmp, llist_del_all(&s->joining),
				  exit_node) {
		pmuctx_adopt_publish(s, e);
		any = true;
	}
	rcu_read_unlock();
	/*
	 * A joiner that is running now (it moved itself, and burns CPU)
	 * would only be counted from its next switch-in: open the slices of
	 * the tasks running now, as ENABLE does.  (A DISABLE racing this
	 * closes them again: pmuctx_entry_start() checks s->enabled.)
	 */
	if (any && READ_ONCE(s->enabled) && !s->switchless)
		on_each_cpu(pmuctx_cpu_sync, s, 1);
}

/*
 * SESSION_CREATE, before anything is allocated: a pid target's tasks,
 * referenced, in @m (none for other targets).  Process context.
 */
int pmuctx_members_resolve(const struct pmuctx_session_attr *a,
			   struct pmuctx_members *m)
{
	int n;

	if (a->target != PMUCTX_TARGET_PID)
		return 0;
	n = pmuctx_get_targets(a, &m->tasks);
	if (n < 0)
		return n;
	m->ntasks = n;
	/* test hook: widen the window an exec can race into */
	pmuctx_testhook_attach_delay();
	return 0;
}

/* Is one of @m's tasks on @cpu now (the pools filled at create)? */
bool pmuctx_members_on_cpu(const struct pmuctx_members *m, int cpu)
{
	int i;

	for (i = 0; i < m->ntasks; i++)
		if (task_cpu(m->tasks[i]) == cpu)
			return true;
	return false;
}

/*
 * The entries of @m's tasks, or of every thread an adopting session takes
 * at create (pmuctx_adopt_alloc()), charged to the creator.  Process
 * context, @s's layout known.  On error what was allocated stays in @m
 * for pmuctx_members_release().
 */
int pmuctx_members_alloc(struct pmuctx_session *s, struct pmuctx_members *m)
{
	int i;

	if (m->ntasks) {
		m->entries = kvcalloc(m->ntasks, sizeof(*m->entries),
				      GFP_KERNEL);
		if (!m->entries)
			return -ENOMEM;
		m->nent = m->ntasks;
		for (i = 0; i < m->ntasks; i++) {
			m->entries[i] = pmuctx_entry_alloc(s, GFP_KERNEL);
			if (!m->entries[i])
				return -ENOMEM;
		}
	}
	/* every thread's entry of a system-wide or cgroup session, up front */
	if (pmuctx_sess_adopts(s))
		return pmuctx_adopt_alloc(s, &m->entries, &m->nent);
	return 0;
}

/*
 * The permission check that counts, for a pid target
 * (pmuctx_check_targets()): 0 with the target's exec_update_lock held
 * for read until pmuctx_members_release(), or an error without it.
 */
int pmuctx_members_lock(struct pmuctx_members *m)
{
	struct rw_semaphore *lock;
	int ret;

	if (!m->ntasks)
		return 0;
	lock = &m->tasks[0]->signal->exec_update_lock;
	ret = pmuctx_check_targets(lock, m->tasks, m->ntasks);
	if (!ret)
		m->exec_lock = lock;
	return ret;
}

/*
 * The session is live (and on pmuctx_adopters if it adopts): hash the
 * entries of its members, then release @m.  Process context.
 */
void pmuctx_members_attach(struct pmuctx_session *s, struct pmuctx_members *m)
{
	if (pmuctx_sess_adopts(s))
		pmuctx_adopt_existing(s, m->entries, m->nent);
	else
		pmuctx_attach(s, m->tasks, m->entries, m->ntasks);
	pmuctx_members_release(m);
}

/*
 * Drop what @m holds: the exec_update_lock, the entries no task took
 * (never initialized), the task references.  Process context.
 */
void pmuctx_members_release(struct pmuctx_members *m)
{
	int i;

	if (m->exec_lock) {
		up_read(m->exec_lock);
		m->exec_lock = NULL;
	}
	for (i = 0; m->entries && i < m->nent; i++)
		if (m->entries[i])
			pmuctx_entry_free_unused(m->entries[i]);
	kvfree(m->entries);
	m->entries = NULL;
	m->nent = 0;
	while (m->ntasks > 0)
		put_task_struct(m->tasks[--m->ntasks]);
	kvfree(m->tasks);
	m->tasks = NULL;
}
