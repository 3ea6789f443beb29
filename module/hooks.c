// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: scheduler tracepoint hooks and per-task slice accounting, and
 * the entries' membership in the store and their session (publishing,
 * retiring: "membership" below; the store itself only hashes).
 *
 * The probes are hooked and unhooked by hookreg.c, with the store's
 * table.
 *
 * Per CPU we remember the entries of the task that is on the CPU
 * (pmuctx_cur): sched_switch then accounts the outgoing task without a
 * lookup.  sched_switch never creates an entry: every entry is hashed
 * before its task needs it (session create, the fork probe, the
 * cgroup-attach probe).  The cache only holds entries of the current
 * task; whoever retires
 * an entry removes it from the cache first (the task itself in the exit/exec
 * probes, or an IPI from session teardown).
 *
 * Probe contexts:
 *  sched_switch	rq lock held, IRQs off.  No allocation, no lock:
 *			store lookups only; entries of switchless sessions
 *			are skipped (never cached).  A SWITCH record names the next
 *			task only to a session that may see it
 *			(pmuctx_switch_next()).
 *  sched_process_fork	parent's context, preemption off, IRQs on.
 *			Takes sess->entries_lock to hash the child.
 *  sched_process_exec	task's context, preemption off, IRQs on.
 *  sched_process_exit	task's context, preemption off, IRQs on.  Marks
 *			the entries exited; they count on to the final
 *			switch-out, and fold when the task is freed.
 *			Exec takes sess->entries_lock to unlist.
 *  sched_process_free	RCU callback (softirq; a thread on RT): queues the
 *			freed task's entries to pmuctx_free_work, which
 *			unhashes and retires them in process context.
 *  cgroup_attach_task	the writer of cgroup.procs/threads, cgroup_mutex
 *			held, under trace_cgroup_path_lock (IRQs off; on
 *			RT a sleeping lock, preemption off in the probe).
 *			Takes sess->entries_lock to park/unpark; never
 *			inserts (6.1's table needs IRQs on): joining tasks go
 *			to the session's join worker.  Hooked only while a
 *			cgroup session exists.
 *  pmuctx_cpu_sync/forget  IPI (hardirq) on each CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/cgroup.h>
#include <linux/rculist.h>
#include <linux/rhashtable.h>
#include <linux/sched/clock.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "counters.h"
#include "hooks.h"
#include "maps.h"
#include "params.h"
#include "probebench.h"
#include "records.h"
#include "ring.h"
#include "sample.h"
#include "selftest.h"
#include "session_types.h"
#include "store.h"
#include "tasksrc.h"
#include "testhooks.h"

/* Sessions that adopt new tasks in the fork probe (system-wide, cgroup). */
LIST_HEAD(pmuctx_adopters);

/* Entries of one task collected by the fork/exec/exit probes. */
#define PMUCTX_BATCH	16

/* ---- slices ------------------------------------------------------------ */

/*
 * The scheduler's run time of task @t: se.sum_exec_runtime, what
 * getrusage() and /proc/PID/schedstat report.  At a switch it is exact:
 * the scheduler has just brought the outgoing task's sum up to date
 * (put_prev_task()), and the incoming one has not run since its own.
 * A fold of a running task (READ, ENABLE/DISABLE, an EXIT record, a
 * counter swap) takes the sum as of the task's last scheduler update (its
 * last tick, at most a tick ago): the rest is counted at its switch-out,
 * nothing is lost.  (Adding the time since se.exec_start, as
 * task_sched_runtime() does, would need the rq's clock_task, which lags
 * local_clock() by all IRQ and steal time where those are accounted.)
 * task-clock is the difference of two such values, so it counts exactly
 * what the scheduler charges the task, not the part of __schedule()
 * between the scheduler's own update and the tracepoint (1-2 % of a
 * fork-heavy run on a debug kernel, and more when a PREEMPT_RT guest's
 * vCPUs are starved by the host).
 */
static u64 pmuctx_task_runtime(struct task_struct *t)
{
	return READ_ONCE(t->se.sum_exec_runtime);
}

/*
 * Add @v to a task's total of event @i.  A plain read-modify-write: only
 * the CPU the task runs on writes its totals (the switch path, READ's
 * IPI; the fold once it is gone).  The debug build can widen the window
 * (t_store reset-race).
 */
static __always_inline void pmuctx_total_add(u64 *tot, unsigned int i, u64 v)
{
	u64 t = READ_ONCE(tot[i]);

	pmuctx_testhook_total_delay();
	WRITE_ONCE(tot[i], t + v);
}

/*
 * @e's totals, to add to: zeroed first when they are of a RESET before
 * the session's @rgen (pmuctx_session_reset() writes no count; READ and
 * the fold take totals of an older generation as zero meanwhile).  This
 * CPU's slice times the same way.
 */
static __always_inline u64 *pmuctx_total_now(struct pmuctx_entry *e, u32 rgen)
{
	u64 *tot = pmuctx_total(e);
	unsigned int i;

	if (unlikely(e->tot_gen != rgen)) {
		for (i = 0; i < e->sess->nr_events; i++)
			WRITE_ONCE(tot[i], 0);
		/* pairs with pmuctx_total_get() */
		smp_wmb();
		WRITE_ONCE(e->tot_gen, rgen);
	}
	return tot;
}

static __always_inline void pmuctx_time_now(struct pmuctx_sess_cpu *sc,
					    unsigned int nr_events, u32 rgen)
{
	unsigned int i;

	if (unlikely(sc->time_gen != rgen)) {
		WRITE_ONCE(sc->slice_ns, 0);
		for (i = 0; i < nr_events; i++)
			WRITE_ONCE(sc->lost_ns[i], 0);
		/* pairs with pmuctx_sum_cpus() */
		smp_wmb();
		WRITE_ONCE(sc->time_gen, rgen);
	}
}

/* Add @v to the totals of the events in @mask (bit i: event i). */
static __always_inline void pmuctx_add_events(u64 *tot, unsigned long mask,
					      u64 v)
{
	unsigned int i;

	while (mask) {
		i = __ffs(mask);
		pmuctx_total_add(tot, i, v);
		mask &= mask - 1;
	}
}

/*
 * Open a slice: snapshot the counters of this CPU for @e.  Called on the
 * CPU the task runs on, with IRQs off.  Does nothing unless the session is
 * live and enabled.  @gen: the sched_switch probe call's number, whose
 * switch-out of another task of the session may have read the counters
 * already (pmuctx_sess_cpu.shr); 0 elsewhere.
 */
static void pmuctx_entry_start(struct pmuctx_entry *e, int cpu, u64 gen)
{
	struct pmuctx_session *s = e->sess;
	struct pmuctx_sess_cpu *sc;
	unsigned int k;
	u64 *snap;

	/*
	 * parked: the task left the session's cgroup (perf cgroup rule);
	 * or it is in a privilege-raising exec past commit_creds(), where
	 * perf stops its events: no slice opens (switch-in, READ's IPI) until
	 * the exec probe stops the entry (issue 29 item 7).
	 */
	if (!pmuctx_sess_live(s) || !READ_ONCE(s->enabled) ||
	    READ_ONCE(e->parked) || pmuctx_cred_gone(e, e->task)) {
		e->last_cpu = cpu;
		return;
	}
	if (s->defer_offset && !READ_ONCE(pmuctx_defer(e)->exec_id))
		pmuctx_exec_seen(e, e->task);
	sc = per_cpu_ptr(s->cpu, cpu);
	if (s->migr_mask && e->last_cpu >= 0 && e->last_cpu != cpu)
		pmuctx_add_events(pmuctx_total_now(e,
						   READ_ONCE(s->reset_gen)),
				  s->migr_mask, 1);
	snap = pmuctx_snap(e);
	if (gen && sc->shr_gen == gen) {
		/* and ena0/run0 are that switch-out's (pmuctx_slice_count) */
		for (k = 0; k < s->nr_snap; k++)
			snap[k] = sc->shr[k];
	} else {
		u64 now = s->rot_mask ? local_clock() : 0;

		for (k = 0; k < s->nr_snap; k++) {
			struct perf_event *ev = sc->ev[s->snap_ev[k]];

			snap[k] = pmuctx_counter_read(ev, NULL);
			if (ev && (s->rot_mask & BIT(k)))
				pmuctx_counter_times(ev, now, &sc->ena0[k],
						     &sc->run0[k]);
		}
	}
	pmuctx_selftest_switch_in(e, cpu);
	e->in_ns = pmuctx_task_runtime(e->task);
	e->last_cpu = cpu;
	WRITE_ONCE(e->in, true);
}

/*
 * A new slice at switch-in: nothing folded yet.  (A slice that ended at
 * a fold without a restart, a DISABLE, left its part in the accumulators;
 * it never reaches a SWITCH record.)
 */
static void pmuctx_slice_begin(struct pmuctx_entry *e)
{
	u64 *acc = pmuctx_slice_acc(e);

	if (acc)
		memset(acc, 0, sizeof(*acc) * e->sess->nr_events);
}

/*
 * The count of counter-backed event @i (snapshot slot @k) in the slice
 * that ends now (@now, local_clock()) on this CPU.  Its counter's value
 * and times stay in sc->shr, ena0 and run0 for the next switch-in when
 * @gen (pmuctx_entry_stop()).
 *
 * What the counter missed of the slice is lost, and READ says so
 * (time_running): the part of the slice perf did not have it on the PMU,
 * from perf's own enabled and running times since the slice began.  A
 * pinned CPU counter only leaves the PMU for good (error, CPU offline);
 * a flexible one (a session without CAP_PERFMON on a full PMU) is
 * rotated off and on every few ms, so its state at the slice's end says
 * nothing of the slice: counting it as all there (before 93-pmu-share)
 * showed a value 11 % short as counted all the time.  A counter in
 * error or off has no enabled time either: its state stands for the
 * slice.  Only the counters perf may rotate (@rot: s->rot_mask) pay for
 * the times; for the others @now is 0 and their state decides.
 */
static __always_inline u64 pmuctx_slice_count(struct pmuctx_sess_cpu *sc,
					      const u64 *snap, unsigned int i,
					      unsigned int k, u64 slice,
					      u64 gen, u64 now, bool rot)
{
	struct perf_event *ev = sc->ev[i];
	u64 v, ena = 0, run = 0, de = 0, dr = 0, lost;
	bool active;

	v = pmuctx_counter_read(ev, &active);
	if (rot && ev) {
		pmuctx_counter_times(ev, now, &ena, &run);
		de = ena - sc->ena0[k];
		dr = run - sc->run0[k];
	}
	if (gen) {
		sc->shr[k] = v;
		sc->ena0[k] = ena;
		sc->run0[k] = run;
	}
	if (likely(de && dr >= de))
		lost = 0;
	else if (de)
		lost = min(slice, de - dr);
	else
		lost = active ? 0 : slice;
	if (unlikely(lost))
		WRITE_ONCE(sc->lost_ns[i], sc->lost_ns[i] + lost);
	return v - snap[k];
}

/* How a slice ends (pmuctx_entry_stop). */
enum pmuctx_stop {
	PMUCTX_STOP_FOLD,	/* IPI fold or privilege-raising exec */
	PMUCTX_STOP_SWITCH,	/* context switch: count it, save PMU state */
};

/*
 * Close a slice opened on this CPU and add it to the task's totals.
 *
 * Every switch-out is counted (PMUCTX_STOP_SWITCH), the task's final one
 * in do_task_dead() included: the entry stays hashed until the task is
 * freed (pmuctx_probe_free()), so context-switches match the scheduler's
 * own nvcsw + nivcsw.  @gen (the sched_switch probe's call number, else
 * 0): leave the counter values read here for the switch-in of the next
 * task of the session in the same call (pmuctx_entry_start()).
 */
static bool pmuctx_entry_stop(struct pmuctx_entry *e, int cpu,
			      enum pmuctx_stop how, u64 gen, u64 *delta)
{
	struct pmuctx_session *s = e->sess;
	struct pmuctx_sess_cpu *sc;
	u64 *snap, *tot, *acc, slice, d, now = 0;
	unsigned int i, k;
	u32 rgen;
	bool cs;

	if (!e->in)
		return false;
	WRITE_ONCE(e->in, false);
	if (!pmuctx_sess_live(s))
		return false;
	sc = per_cpu_ptr(s->cpu, cpu);
	snap = pmuctx_snap(e);
	rgen = READ_ONCE(s->reset_gen);
	tot = pmuctx_total_now(e, rgen);
	pmuctx_time_now(sc, s->nr_events, rgen);
	acc = pmuctx_slice_acc(e);
	slice = pmuctx_task_runtime(e->task);
	slice = slice > e->in_ns ? slice - e->in_ns : 0;
	WRITE_ONCE(sc->slice_ns, sc->slice_ns + slice);
	cs = how != PMUCTX_STOP_FOLD;
	if (s->rot_mask)
		now = local_clock();
	if (!acc && !delta) {
		/* no SWITCH record or trigger: only the totals */
		pmuctx_add_events(tot, s->clock_mask, slice);
		pmuctx_add_events(tot, s->cs_mask, cs);
		for (k = 0; k < s->nr_snap; k++) {
			i = s->snap_ev[k];
			d = pmuctx_slice_count(sc, snap, i, k, slice, gen,
					       now, s->rot_mask & BIT(k));
			pmuctx_total_add(tot, i, d);
		}
		goto out;
	}
	for (i = 0; i < s->nr_events; i++) {
		if (BIT(i) & s->clock_mask)
			d = slice;
		else if (BIT(i) & s->cs_mask)
			d = cs;
		else if (BIT(i) & s->migr_mask)
			d = 0;
		else
			d = pmuctx_slice_count(sc, snap, i, s->snap_slot[i],
					       slice, gen, now,
					       s->rot_mask & BIT(s->snap_slot[i]));
		pmuctx_total_add(tot, i, d);
		/*
		 * A fold keeps the slice going: its part waits in acc for
		 * the SWITCH record and the trigger (sampling issue item 5).
		 */
		if (acc && how == PMUCTX_STOP_FOLD) {
			acc[i] += d;
			continue;
		}
		if (acc) {
			d += acc[i];
			acc[i] = 0;
		}
		if (delta)
			delta[i] = d;
	}
out:
	if (gen)
		sc->shr_gen = gen;
	if (how == PMUCTX_STOP_SWITCH)
		pmuctx_selftest_switch_out(e, cpu);
	return true;
}

/*
 * The next task a SWITCH record of @s may name: @next itself when the
 * session may see any task on the CPU (system-wide and cgroup sessions,
 * or an owner with CAP_PERFMON) or watches @next (@next_list: @next's
 * entries), else the idle task, which the record shows as next_pid and
 * next_tid 0.  perf gives a per-task event no next task at all; only
 * CPU-wide events, which need those rights, learn who runs next.
 */
static struct task_struct *pmuctx_switch_next(struct pmuctx_session *s,
					      struct task_struct *next,
					      struct rhlist_head *next_list)
{
	struct rhlist_head *pos;
	struct pmuctx_entry *e;

	if (s->target != PMUCTX_TARGET_PID || s->owner_perfmon)
		return next;
	rhl_for_each_entry_rcu(e, pos, next_list, node)
		if (e->sess == s && !READ_ONCE(e->dead))
			return next;
	return &init_task;
}

/*
 * The sched_switch probe's clock: read once, and only for a sampling
 * session (its period accounting).  The debug build's probe timer reads
 * its own, so the tests run this lazy read as the release build does.
 */
static __always_inline u64 pmuctx_probe_clock(u64 *now)
{
	if (!*now)
		*now = local_clock();
	return *now;
}

/*
 * A slice of @e ended at a context switch: SWITCH record, kernel trigger.
 * sched_switch, IRQs off, inside rcu_read_lock().  @now: the probe's
 * clock (pmuctx_probe_clock()).
 */
static void pmuctx_switch_out(struct pmuctx_entry *e, u64 *now, int cpu,
			      u64 gen, struct task_struct *prev,
			      struct task_struct *next,
			      struct rhlist_head *next_list,
			      unsigned int prev_state, bool preempt)
{
	struct pmuctx_session *s = e->sess;
	u64 delta[PMUCTX_MAX_EVENTS];
	bool rec, trig;

	if (s->sample_freq)	/* sampling sessions have a ring */
		pmuctx_sample_sched_out(e, pmuctx_probe_clock(now));
	rec = s->ring.area && (s->ring_records & PMUCTX_REC_MASK_SWITCH);
	trig = s->ring.area && s->trigger_idx;
	/*
	 * Past sched_process_exit (the final switch-out in do_task_dead(),
	 * or a preemption of the exit tail, frequent on PREEMPT_RT): the
	 * slice counts, and at the final one the totals are complete; they
	 * move to the session and the parent when the task is freed
	 * (pmuctx_probe_free(), the free work), never here: the fold walks
	 * up ancestors, which IRQs-off work must not.  No SWITCH record:
	 * its EXIT record is out, and once exit_notify() reaped a thread it
	 * has no pid (the record would name pid 0; 68-ring-nested on 6.1 and
	 * 6.12-rt).  The trigger still tests the slice: a task that runs
	 * over the threshold up to its exit is what a "ran X ms without
	 * yielding" watchdog is for (issue 29 item 8; the trigger names no
	 * task).  EXITED is written by the task itself.
	 */
	if (unlikely(READ_ONCE(e->flags) & PMUCTX_EF_EXITED))
		rec = false;
	/*
	 * A privilege-raising exec past commit_creds() (pmuctx_cred_gone()):
	 * the slice counts, as it did up to the exec probe before, but
	 * neither a record nor the trigger tells of the setuid program; the
	 * slice does not reopen (pmuctx_entry_start()).
	 */
	if ((rec || trig) && pmuctx_cred_gone(e, prev)) {
		rec = false;
		trig = false;
	}
	/* the per-event deltas only for a SWITCH record or the trigger */
	if (!rec && !trig) {
		pmuctx_entry_stop(e, cpu, PMUCTX_STOP_SWITCH, gen, NULL);
		return;
	}
	if (!pmuctx_entry_stop(e, cpu, PMUCTX_STOP_SWITCH, gen, delta))
		return;
	if (rec)
		pmuctx_rec_switch(s, prev,
				  pmuctx_switch_next(s, next, next_list),
				   prev_state, preempt, delta);
	if (trig && delta[s->trigger_idx - 1] > s->trigger_threshold)
		pmuctx_ring_trigger(&s->ring);
}

/* ---- new entries in probes ------------------------------------------- */

static void pmuctx_count_drop(struct pmuctx_session *s)
{
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_ptr(s->cpu)->dropped++;
	local_irq_restore(flags);
	atomic64_inc(&pmuctx_stats.dropped);
}

/*
 * A fresh entry for @s in a probe (preemption off).  On PREEMPT_RT the
 * allocator may sleep there, so the entry comes from the session's pool
 * (refilled by the irq_work thread); elsewhere from the allocator with
 * the pool as the fallback, then GFP_ATOMIC: an empty pool and a failed
 * GFP_NOWAIT typically mean the creator's memory cgroup is at its limit
 * (the charge cannot reclaim), and __GFP_HIGH forces the charge, as the
 * pool refill does; the entry caps bound what that can take.
 */
static struct pmuctx_entry *pmuctx_probe_entry(struct pmuctx_session *s)
{
	struct pmuctx_entry *c = NULL;
	unsigned long flags;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		c = pmuctx_entry_alloc(s, GFP_NOWAIT | __GFP_NOWARN);
		if (!c)
			atomic64_inc(&pmuctx_stats.alloc_failures);
	}
	if (!c) {
		local_irq_save(flags);
		c = pmuctx_pool_pop(s);
		local_irq_restore(flags);
	}
	if (!c && !IS_ENABLED(CONFIG_PREEMPT_RT))
		c = pmuctx_entry_alloc(s, GFP_ATOMIC | __GFP_NOWARN);
	return c;
}

/*
 * pmuctx_probe_entry() bound to task @t (inherited from @parent, or NULL),
 * or NULL when there is none or a cap refuses it: the caller counts a
 * drop.  A refused entry goes back to the pool: no kfree() in a probe (it
 * may sleep on RT).
 */
static struct pmuctx_entry *pmuctx_probe_entry_init(struct pmuctx_session *s,
						    struct task_struct *t,
						    struct pmuctx_entry *parent)
{
	struct pmuctx_entry *c = pmuctx_probe_entry(s);

	if (c && !pmuctx_entry_init(c, s, t, parent)) {
		pmuctx_pool_push(s, c);
		c = NULL;
	}
	return c;
}

/*
 * Adopting session @s (system-wide, cgroup) takes task @t: forked by
 * @parent (the fork probe), or moved into the cgroup (@parent NULL, the
 * cgroup-attach probe).  Probe context, preemption off.  Another path
 * that hashed @t first wins (pmuctx_entry_publish()).
 */
void pmuctx_adopt(struct pmuctx_session *s, struct task_struct *t,
		  struct task_struct *parent)
{
	struct pmuctx_entry *c;
	int ret;

	if (pmuctx_sess_entry(s, t))
		return;
	c = pmuctx_probe_entry_init(s, t, NULL);
	if (!c)
		goto drop;
	if (parent)
		c->ppid = task_pid_nr_ns(parent, s->pid_ns);
	ret = pmuctx_entry_publish(c, true);
	if (!ret) {
		if (pmuctx_rec_on(s, PMUCTX_REC_MASK_COMM))
			pmuctx_rec_comm(s, t);
		return;
	}
	atomic64_dec(&s->tasks_seen);
	pmuctx_entry_put(c);
	/* not a drop: hashed by another path, or not ours any more */
	if (ret == -EEXIST || ret == -ESRCH)
		return;
drop:
	pmuctx_count_drop(s);
}

bool pmuctx_session_matches(struct pmuctx_session *s, struct task_struct *t)
{
	if (t->flags & PF_EXITING)
		return false;
	switch (s->target) {
	case PMUCTX_TARGET_SYSTEM:
		return true;
	case PMUCTX_TARGET_CGROUP:
		return cgroup_is_descendant(task_dfl_cgroup(t), s->cgrp);
	default:
		return false;
	}
}

/* ---- membership: publishing and retiring entries ------------------------ */

/*
 * An entry's life in the store and its session: hashed and listed on its
 * session (publish: the create walk and attach in session.c, the fork
 * probe, the join worker), unhashed by whoever wins rhltable_remove()
 * (unpublish: the exec probe and the free work here, teardown in
 * session.c), and then retired: its counts folded into the session and
 * its parent, and kept on the exited list or put.  The store does the
 * hashing (pmuctx_store_insert(), pmuctx_store_remove()); what an entry
 * means to its session is decided here.
 */

/*
 * Hash @e, initialized for session @s = e->sess and task t = e->task, and
 * list it on @s.  For an adopting session (@adopt) the create walk, the
 * fork probe and the cgroup-attach probe may race for one task: under
 * s->entries_lock, t must still belong to @s (its cgroup; not exiting)
 * and have no entry there yet.  Process context or the fork probe, IRQs
 * on: in 6.1 the bucket locks end with local_bh_enable(), which must not
 * run with IRQs off (so s->entries_lock is taken without disabling
 * them; no interrupt takes it).  Returns 0; -EEXIST (another path hashed
 * t first) or -ESRCH (t left) with @adopt; -EBUSY (RT, no room:
 * pmuctx_store_room()); or the table's error.  On error @e was not
 * published and the caller drops it.
 */
int pmuctx_entry_publish(struct pmuctx_entry *e, bool adopt)
{
	struct pmuctx_session *s = e->sess;
	int ret;

	lockdep_assert_irqs_enabled();
	raw_spin_lock(&s->entries_lock);
	rcu_read_lock();
	if (adopt && pmuctx_sess_entry(s, e->task))
		ret = -EEXIST;
	else if (adopt && !pmuctx_session_matches(s, e->task))
		ret = -ESRCH;
	else
		ret = pmuctx_store_insert(e);
	if (!ret) {
		list_add_tail_rcu(&e->sess_node, &s->entries);
		e->listed = true;
		/*
		 * A switchless entry counts from now if the session is
		 * enabled.  ENABLE sets s->enabled, then walks the list
		 * opening every entry (pmuctx_session_enable()): the barrier
		 * pairs with its own, so one of the two opens this one.
		 */
		if (s->switchless) {
			smp_mb(); /* list_add before s->enabled; see above */
			pmuctx_tsrc_open_locked(e);
		}
	}
	rcu_read_unlock();
	raw_spin_unlock(&s->entries_lock);
	return ret;
}

/*
 * Take @e out of the store and off its session's list.  True for the one
 * caller that removed it (pmuctx_store_remove()): that caller
 * retires or drops it.  Process context or the exec probe, IRQs on
 * (see pmuctx_entry_publish()).
 */
bool pmuctx_entry_unpublish(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;

	if (!pmuctx_store_remove(e))
		return false;
	raw_spin_lock(&s->entries_lock);
	if (e->listed) {
		list_del_rcu(&e->sess_node);
		e->listed = false;
	}
	raw_spin_unlock(&s->entries_lock);
	return true;
}

/*
 * The entry's task exited or stopped being counted, and the entry is out of
 * the store and of every CPU cache.  Fold its counts into the session and
 * into the parent's children totals, then keep it on the session's exited
 * list (KEEP_EXITED) or drop the store's reference.
 */
/*
 * Move @e's totals into the session's (this CPU's sc->folded) and its own
 * with its children's into its parent's children totals, once: the task
 * was freed, or stopped at a privilege-raising exec (retire).  READ sees
 * it bracketed by sess->retiring and sess->retired, and skips a folded
 * entry's own totals.  Nothing adds to @e's totals afterwards: its task
 * is dead, or the entry is.  The free work or the exec probe, IRQs on,
 * on the RCU read side.  The walk up the ancestors is short (it stops at
 * the first that has not folded, and folds compress the path), but not
 * bounded by anything but the entry caps: never in sched_switch or an
 * interrupt.
 */
/*
 * Point @e at @np instead of its parent (NULL: no parent).  Teardown may
 * unparent @e meanwhile: both exchange the pointer, each puts what it
 * took out, and what is left is put when @e is freed.
 */
static void pmuctx_entry_reparent(struct pmuctx_entry *e,
				  struct pmuctx_entry *np)
{
	struct pmuctx_entry *old;

	if (np && !refcount_inc_not_zero(&np->ref))
		np = NULL;
	old = xchg(&e->parent, np);
	if (old)
		pmuctx_entry_put(old);
}

static void pmuctx_entry_fold(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;
	u64 tot[PMUCTX_MAX_EVENTS], sum[PMUCTX_MAX_EVENTS];
	struct pmuctx_entry *parent, *top;
	struct pmuctx_sess_cpu *sc;
	unsigned int i;
	u32 gen;

	lockdep_assert_irqs_enabled();
	if (e->flags & PMUCTX_EF_FOLDED)
		return;
	/*
	 * Only counts of the current RESET generation move: RESET waits a
	 * grace period (we are on the RCU read side) after it moves to the
	 * next one before it zeroes the sums we add to, so a fold that read
	 * an older one has added before the zeroing.
	 */
	gen = READ_ONCE(s->reset_gen);
	/* the task's counts to now are its final ones (tasksrc.c) */
	if (s->switchless)
		pmuctx_tsrc_close(e);
	atomic_inc(&s->retiring);
	/* READ sees retiring before any total moves (pmuctx_read_walk()) */
	smp_mb__after_atomic();
	pmuctx_total_get(e, gen, tot);
	pmuctx_children_get(e, gen, sum);
	sc = get_cpu_ptr(s->cpu);
	for (i = 0; i < s->nr_events; i++) {
		pmuctx_testhook_total_delay();	/* t_store reset-race */
		atomic64_add(tot[i], &sc->folded[i]);
		sum[i] += tot[i];
	}
	put_cpu_ptr(s->cpu);
	/*
	 * Into the parent's children totals, and on up past every ancestor
	 * that has folded already: a task is freed a grace period after it
	 * was reaped and switched out for the last time, and its parent
	 * may have been freed, or stopped at a privilege-raising exec, and
	 * folded its own children totals (without ours) first.  The first
	 * ancestor that has not folded carries ours up when it does.  The
	 * free work folds one entry at a time; a fold in the exec probe at
	 * the same instant as its child's in the work can still miss (the
	 * parent read its children totals before ours arrived and had not
	 * yet marked itself folded).  Each link holds a reference on its
	 * parent entry until the entry is freed, or teardown unparents it: either
	 * way the entry is freed after a grace period, and we are on the
	 * RCU read side.
	 */
	for (parent = READ_ONCE(e->parent), top = NULL; parent;
	     top = parent, parent = READ_ONCE(parent->parent)) {
		atomic64_t *pch = pmuctx_children(parent);

		for (i = 0; i < s->nr_events; i++)
			atomic64_add(sum[i], &pch[i]);
		/* our additions before we look at its flag */
		smp_mb();
		if (!(READ_ONCE(parent->flags) & PMUCTX_EF_FOLDED))
			break;
	}
	/*
	 * Path compression: a descendant that folds later goes from us
	 * straight to the first ancestor that had not folded (@parent), or
	 * when all had, to the topmost (@top: the session's target, whose
	 * children totals are the tree's), not through the folded ones in
	 * between, which it would pin and walk at every fold: a process
	 * forking a child and exiting, generation after generation, made the
	 * chain as long as the user's entry cap (and its frees one grace
	 * period per link).  The folded ancestors skipped miss those later
	 * totals in their own children totals (the per-task READ of a kept
	 * exited task in the middle of a tree); the session's, the target's
	 * and the live ancestors' are whole.
	 */
	if (!parent)
		parent = top;
	if (parent != READ_ONCE(e->parent))
		pmuctx_entry_reparent(e, parent);
	e->flags |= PMUCTX_EF_FOLDED;
	/* the moved totals before retired; pairs with READ's smp_mb() */
	smp_mb__before_atomic();
	atomic_inc(&s->retired);
	atomic_dec(&s->retiring);
}

static void pmuctx_entry_retire(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;

	WRITE_ONCE(e->dead, true);
	pmuctx_entry_fold(e);
	/*
	 * The parent link stays until the entry is freed (or teardown):
	 * a child freed after us still walks through us to the ancestors
	 * (pmuctx_entry_fold()), its reference keeping us.  Unparented
	 * here, its totals stopped at us: the root's children totals
	 * missed every grandchild freed after its parent (t_store forktree).
	 */

	/* The task's memory is not ours to keep while it sits on a list. */
	put_task_struct(e->task);
	e->flags |= PMUCTX_EF_TASK_PUT;

	if (!(s->flags & PMUCTX_SESSION_KEEP_EXITED)) {
		pmuctx_entry_put(e);
		return;
	}
	/*
	 * No lock: this runs in the exec probe (preemption off, where a
	 * spinlock_t sleeps on PREEMPT_RT) and in the free work, both on
	 * the RCU read side.  Teardown marks the session dead and waits a
	 * grace period (these) before it empties the list, so nothing is
	 * added after.
	 */
	if (pmuctx_sess_live(s) &&
	    atomic_add_unless(&s->nr_exited, 1, s->max_exited)) {
		llist_add(&e->exit_node, &s->exited);
		return;
	}
	atomic64_inc(&s->unlisted);
	pmuctx_entry_put(e);
}

/*
 * Take @e out of the store and retire it, unless someone else (teardown,
 * the create walk that found the task exiting) took it out first.  READ
 * sees the retirement bracketed by sess->retiring and sess->retired.
 * The exec probe or the free work, on the RCU read side, IRQs on.
 */
static void pmuctx_entry_take_retire(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;

	atomic_inc(&s->retiring);
	/* as in pmuctx_entry_fold(): READ sees retiring first */
	smp_mb__after_atomic();
	if (pmuctx_entry_unpublish(e))
		pmuctx_entry_retire(e);
	/* and retired last */
	smp_mb__before_atomic();
	atomic_inc(&s->retired);
	atomic_dec(&s->retiring);
}

/* ---- sched_switch ----------------------------------------------------- */

static void pmuctx_probe_switch(void *data, PMUCTX_SWITCH_ARGS)
{
	struct pmuctx_cpu_cache *cc = this_cpu_ptr(&pmuctx_cur);
	struct rhlist_head *list = NULL, *plist, *pos;
	int cpu = smp_processor_id();
	struct pmuctx_entry *e;
	u64 start = pmuctx_probebench_start();	/* debug build only */
	u64 gen = ++cc->gen;
	u64 now = 0;	/* pmuctx_probe_clock() */
	unsigned int i;

	rcu_read_lock();
	/* next's entries: for the SWITCH records of prev, then switch-in */
	if (!is_idle_task(next))
		list = pmuctx_store_lookup(next);
	if (cc->task == prev && cc->nr <= PMUCTX_CUR_MAX) {
		for (i = 0; i < cc->nr; i++)
			pmuctx_switch_out(cc->e[i], &now, cpu, gen, prev, next,
					  list, prev_state, preempt);
	} else {
		plist = pmuctx_store_lookup(prev);
		rhl_for_each_entry_rcu(e, pos, plist, node)
			if (!e->sess->switchless)
				pmuctx_switch_out(e, &now, cpu, gen, prev,
						  next, list, prev_state,
						  preempt);
	}

	cc->task = next;
	cc->nr = 0;
	if (is_idle_task(next))
		goto out;

	rhl_for_each_entry_rcu(e, pos, list, node) {
		/*
		 * Never cache an entry of a session being torn down: its
		 * teardown forgets the caches (IPI) before it unhashes the
		 * entries, so one cached after that IPI would be used by the
		 * next switch-out after the entry was freed.  A switchless
		 * session's entries count without this probe (tasksrc.c).
		 */
		if (READ_ONCE(e->dead) || !pmuctx_sess_live(e->sess) ||
		    e->sess->switchless)
			continue;
		pmuctx_slice_begin(e);
		pmuctx_entry_start(e, cpu, gen);
		if (e->sess->sample_freq)
			pmuctx_sample_sched_in(e, pmuctx_probe_clock(&now));
		pmuctx_cache_add(cc, e);
	}
out:
	rcu_read_unlock();
	pmuctx_probebench_end(start, cc->nr);	/* debug build only */
}

/* ---- IPIs --------------------------------------------------------------- */

/*
 * Fold the running slice of the current task into its totals and reopen it
 * (or open it, if the session was just enabled and the entry is not
 * counting yet; or only close it, if the session was just disabled).
 * @info: the session, on each CPU, from ENABLE/DISABLE/READ and the
 * cgroup join worker.
 */
void pmuctx_cpu_sync(void *info)
{
	struct pmuctx_cpu_cache *cc = this_cpu_ptr(&pmuctx_cur);
	struct pmuctx_session *s = info;
	struct task_struct *t = current;
	int cpu = smp_processor_id();
	struct rhlist_head *list, *pos;
	struct pmuctx_entry *e;
	unsigned int i;

	/*
	 * Never cache an entry of a session being torn down (the rule of
	 * pmuctx_probe_switch()).  Release marks the session dead, waits a
	 * grace period, then forgets the caches; an IPI runs with IRQs off,
	 * an RCU read-side section: one that saw the session live ends
	 * before that forget, and a later one sees it dead here.  The join
	 * worker syncs a cgroup session while its release may have begun.
	 */
	if (is_idle_task(t) || !pmuctx_sess_live(s))
		return;
	/*
	 * Not this task's cache (forgotten by a teardown, or an overflowed
	 * one reset): it cannot be rebuilt here with only @s's entries, or
	 * the next switch-out would stop those alone and leave the other
	 * sessions' slices open (their time lost at the next switch-in).
	 * Overflow: that switch-out looks every entry up.
	 */
	if (cc->task != t) {
		cc->task = t;
		cc->nr = PMUCTX_CUR_MAX + 1;
	}
	rcu_read_lock();
	/* Overflowed: the store lookup below finds every hashed entry. */
	for (i = 0; cc->nr <= PMUCTX_CUR_MAX && i < cc->nr; i++) {
		e = cc->e[i];
		if (e->sess != s)
			continue;
		pmuctx_entry_stop(e, cpu, PMUCTX_STOP_FOLD, 0, NULL);
		pmuctx_entry_start(e, cpu, 0);
	}
	list = pmuctx_store_lookup(t);
	rhl_for_each_entry_rcu(e, pos, list, node) {
		if (e->sess != s || READ_ONCE(e->dead) ||
		    pmuctx_cache_has(cc, e))
			continue;
		pmuctx_entry_stop(e, cpu, PMUCTX_STOP_FOLD, 0, NULL);
		pmuctx_entry_start(e, cpu, 0);
		/* debug build: must stay 0 (t_store cgclose) */
		if (PMUCTX_TESTHOOKS && !pmuctx_sess_live(e->sess))
			pmuctx_testhook_dead_cached();
		pmuctx_cache_add(cc, e);
	}
	rcu_read_unlock();
}

/*
 * Put new counters (@info, struct pmuctx_swap) in place on this CPU: the
 * current task's slice of the session is closed on the old counters and
 * reopened on the new ones, so no delta mixes the two.  The old ones are
 * left in @info for the caller to release.  IPI (hardirq).
 */
void pmuctx_cpu_swap_counters(void *info)
{
	struct pmuctx_swap *sw = info;
	struct pmuctx_session *s = sw->s;
	struct pmuctx_sess_cpu *sc = this_cpu_ptr(s->cpu);
	struct task_struct *t = current;
	int cpu = smp_processor_id();
	struct pmuctx_entry *e = NULL;
	bool was_in = false;
	unsigned int i;

	rcu_read_lock();
	if (!is_idle_task(t))
		e = pmuctx_sess_entry(s, t);
	if (e)
		was_in = pmuctx_entry_stop(e, cpu, PMUCTX_STOP_FOLD, 0, NULL);
	for (i = 0; i < s->nr_events; i++)
		if (sw->ev[i])
			swap(sc->ev[i], sw->ev[i]);
	if (was_in)
		pmuctx_entry_start(e, cpu, 0);
	rcu_read_unlock();
}

/* Drop the cached entries of session @info (NULL: all) on this CPU. */
void pmuctx_cpu_forget(void *info)
{
	struct pmuctx_cpu_cache *cc = this_cpu_ptr(&pmuctx_cur);
	unsigned int i;

	if (!info || cc->nr > PMUCTX_CUR_MAX) {
		cc->task = NULL;
		cc->nr = 0;
		return;
	}
	for (i = 0; i < cc->nr; ) {
		if (cc->e[i]->sess == info)
			cc->e[i] = cc->e[--cc->nr];
		else
			i++;
	}
}

/* Drop one entry (@info) from this CPU's cache. */
void pmuctx_cpu_forget_entry(void *info)
{
	struct pmuctx_cpu_cache *cc = this_cpu_ptr(&pmuctx_cur);

	if (cc->nr <= PMUCTX_CUR_MAX)
		pmuctx_cache_del(cc, info);
}

/* ---- fork, exec, exit -------------------------------------------------- */

/*
 * Add @e to the batch @arr (@n entries, ascending addresses) if its address
 * is above @after: the batch keeps the PMUCTX_BATCH lowest such entries,
 * each once.  *@more is set when an entry above @after is left out.
 */
static void pmuctx_batch_add(struct pmuctx_entry **arr, unsigned int *n,
			     struct pmuctx_entry *e,
			     const struct pmuctx_entry *after, bool *more)
{
	unsigned int i = *n;

	if ((unsigned long)e <= (unsigned long)after)
		return;
	while (i > 0 && (unsigned long)arr[i - 1] > (unsigned long)e)
		i--;
	if (i > 0 && arr[i - 1] == e)
		return;
	if (*n == PMUCTX_BATCH) {
		*more = true;
		if (i == PMUCTX_BATCH)
			return;
		(*n)--;		/* the highest one waits for the next batch */
	}
	memmove(&arr[i + 1], &arr[i], (*n - i) * sizeof(*arr));
	arr[i] = e;
	(*n)++;
}

/*
 * Collect live entries of the current task from the store, in batches: the
 * PMUCTX_BATCH
 * entries with the lowest addresses above @after (NULL: from the start),
 * ascending.  *@more says whether entries above the batch remain; the
 * caller then asks again with @after = the last entry of this batch.  So
 * every entry is handled exactly once however many sessions watch the
 * task, whether the caller retires the entries of a batch (exit) or
 * leaves most of them live (exec).
 * Preemption is off (probe), inside rcu_read_lock(): a retired entry is
 * not freed, so its address is not reused, before the caller is done.
 */
static unsigned int pmuctx_collect_current(struct pmuctx_entry **arr,
					   const struct pmuctx_entry *after,
					   bool *more)
{
	struct task_struct *t = current;
	struct rhlist_head *list, *pos;
	struct pmuctx_entry *e;
	unsigned int n = 0;

	*more = false;
	list = pmuctx_store_lookup(t);
	rhl_for_each_entry_rcu(e, pos, list, node) {
		if (!READ_ONCE(e->dead))
			pmuctx_batch_add(arr, &n, e, after, more);
	}
	return n;
}

/*
 * Stop tracking @e for the current task, stopped at a privilege-raising
 * exec.  The slice is folded first.
 */
static void pmuctx_drop_current(struct pmuctx_entry *e)
{
	struct pmuctx_cpu_cache *cc;
	unsigned long flags;

	local_irq_save(flags);
	cc = this_cpu_ptr(&pmuctx_cur);
	/* a switchless entry is closed by the fold in retire */
	if (!e->sess->switchless)
		pmuctx_entry_stop(e, smp_processor_id(), PMUCTX_STOP_FOLD, 0,
				  NULL);
	WRITE_ONCE(e->dead, true);
	pmuctx_cache_del(cc, e);
	local_irq_restore(flags);

	e->flags |= PMUCTX_EF_PRIV_EXEC;
	strscpy_pad(e->comm, current->comm, sizeof(e->comm));
	/*
	 * Session teardown, or the create walk that found the task exiting,
	 * may have taken it out first: then it is theirs to drop.
	 */
	pmuctx_entry_take_retire(e);
}

/*
 * The current task passed sched_process_exit: mark @e exited and leave it
 * hashed and counting.  The rest of do_exit() (closing files, exit task
 * works, notifying the parent, blocking on any of them) and the final
 * switch-out in do_task_dead() are the task's too, and getrusage()
 * counts them: the entry is retired only when the task is freed
 * (pmuctx_probe_free()), after that switch-out.  Sampling stops here, as
 * before (pmuctx_task_entry()).  An EXIT record gives the totals so far.
 */
static void pmuctx_exit_entry(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;
	u64 tot[PMUCTX_MAX_EVENTS];
	unsigned long flags;
	int cpu;

	strscpy_pad(e->comm, current->comm, sizeof(e->comm));
	e->flags |= PMUCTX_EF_EXITED;
	atomic64_inc(&s->tasks_exited);
	if (!pmuctx_rec_on(s, PMUCTX_REC_MASK_EXIT) || !pmuctx_sess_live(s))
		return;
	/* the slice so far into the totals the record shows, and go on */
	local_irq_save(flags);
	cpu = smp_processor_id();
	if (pmuctx_entry_stop(e, cpu, PMUCTX_STOP_FOLD, 0, NULL))
		pmuctx_entry_start(e, cpu, 0);
	local_irq_restore(flags);
	pmuctx_total_get(e, READ_ONCE(s->reset_gen), tot);
	pmuctx_rec_exit(s, current, tot);
}

static void pmuctx_probe_exit(void *data, PMUCTX_EXIT_ARGS)
{
	struct pmuctx_entry *arr[PMUCTX_BATCH], *after = NULL;
	unsigned int i, n;
	bool more;

	if (p != current)
		return;
	rcu_read_lock();
	do {
		n = pmuctx_collect_current(arr, after, &more);
		for (i = 0; i < n; i++)
			if (!(arr[i]->flags & PMUCTX_EF_EXITED))
				pmuctx_exit_entry(arr[i]);
		if (n)
			after = arr[n - 1];
	} while (more);
	rcu_read_unlock();
}

/*
 * Entries of freed tasks, retired by pmuctx_free_work in process context.
 * Each holds a reference for the list; linked by exit_node, which an
 * entry uses only before it is hashed (joining) and after it is retired
 * (the exited list).
 */
static LLIST_HEAD(pmuctx_freed);

static void pmuctx_free_work_fn(struct work_struct *work)
{
	struct pmuctx_entry *e, *tmp;

	llist_for_each_entry_safe(e, tmp, llist_del_all(&pmuctx_freed),
				  exit_node) {
		/*
		 * Teardown may unhash the entry first; then it is theirs.
		 * The read side covers the retirement: teardown waits a
		 * grace period before it frees what retire writes to.
		 */
		rcu_read_lock();
		pmuctx_entry_take_retire(e);
		rcu_read_unlock();
		pmuctx_entry_put(e);
	}
}

static DECLARE_WORK(pmuctx_free_work, pmuctx_free_work_fn);

/* No queued retirement is left (session teardown, unregistration). */
void pmuctx_hooks_flush_free(void)
{
	flush_work(&pmuctx_free_work);
}

/*
 * sched_process_free: the task was reaped and its final switch-out is
 * over (delayed_put_task_struct() runs once release_task() and
 * finish_task_switch() have both dropped their rcu_users references), so
 * its run time and switches are final.  An RCU callback (softirq, or a
 * thread): the store cannot be changed here without making every
 * sess->entries_lock holder disable bottom halves, so the entries go to
 * a work.  Our task reference keeps @p's memory, and its address, ours.
 */
static void pmuctx_probe_free(void *data, PMUCTX_EXIT_ARGS)
{
	struct rhlist_head *list, *pos;
	struct pmuctx_entry *e;
	bool any = false;

	rcu_read_lock();
	list = pmuctx_store_lookup(p);
	rhl_for_each_entry_rcu(e, pos, list, node) {
		/*
		 * The task is dead: nothing else writes e->flags until the
		 * work retires the entry.  One entry once, whatever the
		 * lookup does during a table resize.
		 */
		if (READ_ONCE(e->dead) || e->flags & PMUCTX_EF_FREEING ||
		    !refcount_inc_not_zero(&e->ref))
			continue;
		e->flags |= PMUCTX_EF_FREEING;
		llist_add(&e->exit_node, &pmuctx_freed);
		any = true;
	}
	rcu_read_unlock();
	if (any)
		queue_work(system_unbound_wq, &pmuctx_free_work);
}

static bool pmuctx_exec_raises_privilege(struct task_struct *p,
					 struct linux_binprm *bprm)
{
	/* begin_new_exec() made the mm non-dumpable for setuid, setgid and
	 * file-capability executables (and unreadable ones).
	 */
	return bprm->secureexec ||
	       (p->mm && !pmuctx_dumpable_owner(p, p->mm));
}

/* One entry of the task at its exec (see pmuctx_probe_exec()). */
static void pmuctx_exec_entry(struct pmuctx_entry *e, struct task_struct *p,
			      struct linux_binprm *bprm, bool raised)
{
	struct pmuctx_session *s = e->sess;
	struct pmuctx_defer *d;

	strscpy_pad(e->comm, p->comm, sizeof(e->comm));
	e->tid = task_pid_nr_ns(p, s->pid_ns);
	e->pid = task_tgid_nr_ns(p, s->pid_ns);
	if (pmuctx_rec_on(s, PMUCTX_REC_MASK_EXEC) && pmuctx_sess_live(s))
		pmuctx_rec_exec(s, p, bprm->filename);
	/*
	 * A deferred unwind queued before the exec would walk the new
	 * program's stack: its cookie stays unresolved instead.
	 */
	d = pmuctx_defer(e);
	if (d && READ_ONCE(d->pending))
		WRITE_ONCE(d->stale, true);
	/* the new program's mappings are described at its first sample */
	pmuctx_maps_exec(e);
	/*
	 * perf's rule (security item 6): per-task counting stops at a
	 * privilege-raising exec whoever owns the session, CAP_PERFMON
	 * included (begin_new_exec() calls perf_event_exit_task() for a
	 * non-dumpable mm).  System-wide and cgroup sessions watch CPUs, not
	 * tasks, and go on, as perf's CPU-wide events do.
	 */
	if (raised && s->target == PMUCTX_TARGET_PID && pmuctx_sess_live(s)) {
		atomic64_inc(&s->priv_exec);
		pmuctx_drop_current(e);
		return;
	}
	/* the exec the entry has seen (pmuctx_cred_gone()) */
	pmuctx_exec_seen(e, p);
}

/*
 * Every entry of the task, however many sessions watch it: a setuid exec
 * must stop them all (counting, sampling, user stack walks).  The batches
 * go by address (pmuctx_collect_current()) because most entries stay live.
 */
static void pmuctx_probe_exec(void *data, PMUCTX_EXEC_ARGS)
{
	struct pmuctx_entry *arr[PMUCTX_BATCH], *after = NULL;
	unsigned int i, n;
	bool raised, more;

	if (p != current)
		return;
	raised = pmuctx_exec_raises_privilege(p, bprm);
	if (raised)	/* debug build: the window before this probe, wide */
		pmuctx_testhook_exec_delay();
	rcu_read_lock();
	do {
		n = pmuctx_collect_current(arr, after, &more);
		for (i = 0; i < n; i++)
			pmuctx_exec_entry(arr[i], p, bprm, raised);
		if (n)
			after = arr[n - 1];
	} while (more);
	rcu_read_unlock();
}

/*
 * Inheritance: every INHERIT session that tracks the parent gets an entry
 * for the child, linked to the parent's entry; every adopting session the
 * child belongs to (system-wide; cgroup: its cgroup, which may differ from
 * the parent's with CLONE_INTO_CGROUP) gets one too.  The child is not
 * running yet (wake_up_new_task() comes after this tracepoint), so its
 * entries are hashed before its first switch-in.
 */
static void pmuctx_probe_fork(void *data, PMUCTX_FORK_ARGS)
{
	struct task_struct *t = current;
	struct rhlist_head *list, *pos;
	struct pmuctx_session *s;
	struct pmuctx_entry *e, *c;

	if (parent != t)
		return;
	rcu_read_lock();
	list = pmuctx_store_lookup(t);
	rhl_for_each_entry_rcu(e, pos, list, node) {
		s = e->sess;
		if (READ_ONCE(e->dead) || !pmuctx_sess_live(s))
			continue;
		if (pmuctx_rec_on(s, PMUCTX_REC_MASK_FORK))
			pmuctx_rec_fork(s, t, child);
		if (!(s->flags & PMUCTX_SESSION_INHERIT) ||
		    s->target != PMUCTX_TARGET_PID)
			continue;
		c = pmuctx_probe_entry_init(s, child, e);
		if (!c)
			goto drop;
		c->flags |= PMUCTX_EF_INHERITED;
		if (pmuctx_entry_publish(c, false)) {
			atomic64_dec(&s->tasks_seen);
			/* the parent now, not from c's RCU callback */
			pmuctx_entry_unparent(c);
			pmuctx_entry_put(c);
			goto drop;
		}
		continue;
drop:
		pmuctx_count_drop(s);
	}
	list_for_each_entry_rcu(s, &pmuctx_adopters, adopt_node)
		if (pmuctx_sess_live(s) && pmuctx_session_matches(s, child))
			pmuctx_adopt(s, child, t);
	rcu_read_unlock();
}

/*
 * Task @t joined cgroup session @s and has no entry there.  The attach
 * probe runs with IRQs off (trace_cgroup_path_lock), where 6.1's table
 * cannot be modified: the entry is made here (charged, counted as seen)
 * and hashed by the session's join worker in process context
 * (pmuctx_join_work_fn(), which also settles a race with the task's
 * exit).  Until then the task runs uncounted.
 */
static void pmuctx_join(struct pmuctx_session *s, struct task_struct *t)
{
	struct pmuctx_entry *c = pmuctx_probe_entry_init(s, t, NULL);

	if (!c) {
		pmuctx_count_drop(s);
		return;
	}
	llist_add(&c->exit_node, &s->joining);
	queue_work(system_unbound_wq, &s->join_work);
}

/*
 * Task @t changed cgroups: in each cgroup session, an entry of a task
 * that left is parked (it stops counting and being sampled from its next
 * switch-in; at once when it moved itself, the common case of a shell
 * writing its own pid) and one that came back is unparked; a task that
 * joined without an entry gets one (pmuctx_join()).  The decision is
 * taken under s->entries_lock, against the create walk and the fork
 * probe.  A task running elsewhere when it is moved out finishes its time
 * slice counted.
 */
static void pmuctx_cgroup_moved(struct pmuctx_session *s,
				struct task_struct *t)
{
	struct pmuctx_entry *e;
	unsigned long flags;
	bool in;

	/* cgroup_migrate_add_task() does not move exiting tasks */
	if (t->flags & PF_EXITING)
		return;
	/* IRQs off for the slice (they are already, but not on RT) */
	raw_spin_lock_irqsave(&s->entries_lock, flags);
	in = pmuctx_session_matches(s, t);
	e = pmuctx_sess_entry(s, t);
	if (e && READ_ONCE(e->parked) == in && s->switchless) {
		/* the task's counts up to the move, wherever it runs */
		pmuctx_tsrc_close_locked(e);
		WRITE_ONCE(e->parked, !in);
		pmuctx_tsrc_open_locked(e);
	} else if (e && READ_ONCE(e->parked) == in) {
		int cpu = smp_processor_id();

		/* a slice opened before it was parked elsewhere counts */
		if (t == current)
			pmuctx_entry_stop(e, cpu, PMUCTX_STOP_FOLD, 0, NULL);
		WRITE_ONCE(e->parked, !in);
		if (t == current && in)
			pmuctx_entry_start(e, cpu, 0);
	}
	raw_spin_unlock_irqrestore(&s->entries_lock, flags);
	if (!e && in)
		pmuctx_join(s, t);
}

static void pmuctx_probe_attach(void *data, struct cgroup *dst,
				const char *path, struct task_struct *task,
				bool threadgroup)
{
	struct pmuctx_session *s;
	struct task_struct *t;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &pmuctx_adopters, adopt_node) {
		if (s->target != PMUCTX_TARGET_CGROUP || !pmuctx_sess_live(s))
			continue;
		if (!threadgroup) {
			pmuctx_cgroup_moved(s, task);
			continue;
		}
		for_each_thread(task, t)
			pmuctx_cgroup_moved(s, t);
	}
	rcu_read_unlock();
}

/* ---- the probes, by tracepoint ---------------------------------------- */

const struct pmuctx_probe_def pmuctx_probe_defs[PMUCTX_PROBE_NR] = {
	[PMUCTX_PROBE_FORK] = { "sched_process_fork", pmuctx_probe_fork },
	[PMUCTX_PROBE_EXEC] = { "sched_process_exec", pmuctx_probe_exec },
	[PMUCTX_PROBE_EXIT] = { "sched_process_exit", pmuctx_probe_exit },
	[PMUCTX_PROBE_FREE] = { "sched_process_free", pmuctx_probe_free },
	[PMUCTX_PROBE_SWITCH] = { "sched_switch", pmuctx_probe_switch },
	[PMUCTX_PROBE_ATTACH] = { "cgroup_attach_task", pmuctx_probe_attach },
};
