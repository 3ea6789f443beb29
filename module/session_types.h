/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: what a session is: struct pmuctx_session and its per-CPU data,
 * read by every layer that works for a session, and the map of the
 * contexts and locks of the whole module (the other files point here).
 * Types only: the session's code is session.c (session.h).
 *
 * Contexts and locks (outermost first; nothing nests the other way):
 *
 *  sess->lock (mutex, process context): serializes the ioctls of one
 *	session, SESSION_CREATE included.
 *  sess->ring.lock (mutex, process context; ring.c): the reader's side
 *	of the ring, read(2), RING_CONSUME, SNAPSHOT and RESUME; inside
 *	sess->lock for the ioctls, alone for read(2).  Nothing of the
 *	module nests inside it (copy_to_user() may take mmap_lock).
 *  target->signal->exec_update_lock (rw_semaphore, read, process context):
 *	SESSION_CREATE of a pid target holds it from the permission check of
 *	every thread to the hashing of their entries (session.c,
 *	pmuctx_check_targets()), around pmuctx_mutex: never take it under
 *	pmuctx_mutex.
 *  pmuctx_mutex (mutex, process context): the adopters and counting
 *	session lists, probe (un)registration (tracepoint, cpu-hotplug and
 *	jump-label locks inside; also taken by the deferred unhook work,
 *	hooks.c, which is therefore never flushed under it), store
 *	creation and destruction (hooks.c tells store.c, with the lifecycle
 *	probes), the CPU-online work that replaces counters (perf's locks
 *	inside), and ENABLE/DISABLE of sampling counters (under sess->lock).
 *	Never taken in a hotplug callback: they hold the hotplug lock for
 *	write, which is taken for read inside this mutex.
 *  pmuctx_users_lock (spinlock, irqsave): unprivileged users' session
 *	counts and references; taken in SESSION_CREATE, release and the
 *	RCU callback that frees the last reference of a session.
 *  (sess->exited takes no lock: an llist, see struct pmuctx_session.)
 *  sess->entries_lock (raw spinlock): the session's list of hashed
 *	entries (sess->entries: added under it, removed with list_del_rcu()
 *	under it, walked under RCU), and the decision to hash an entry for a
 *	task of an adopting session: the create walk, the fork probe and the
 *	join worker may see one task at once, and whoever holds the lock
 *	checks the task still belongs to the session and has no entry there
 *	before hashing one.  In a switchless session also every open, close
 *	and read of an entry's totals (tasksrc.c: ioctls, the free work,
 *	the fork and exec probes, the cgroup-attach probe).  Taken with
 *	IRQs on where it inserts (process context, the fork probe: see the
 *	bucket locks) and with IRQs off in the cgroup-attach probe, which
 *	only parks and unparks; never in sched_switch or any interrupt.
 *	Only the rhashtable bucket locks nest inside.
 *  rhashtable bucket locks: internal to the rhashtable.  In 6.1 they end
 *	with local_bh_enable(), which must not run with IRQs off, so the
 *	table is never *modified* with IRQs off: sched_switch only reads it
 *	(RCU), and the cgroup-attach probe (IRQs off) hands joining tasks to
 *	a worker.  Inserts happen at create (pid targets; every thread of a
 *	system-wide or cgroup session), in the fork probe and in the join
 *	worker; removals in the free work (a freed task's entries), in
 *	the exec probe and at teardown.  Whoever removes an entry from
 *	the table (rhltable_remove() returns 0 once) owns its retirement.
 *
 * Per-CPU caches of the running task's entries (hooks.c, pmuctx_cur):
 *	written by their own CPU with IRQs off only, in sched_switch and in
 *	the IPIs pmuctx_cpu_sync() (ENABLE, DISABLE, READ, the cgroup join
 *	worker) and pmuctx_cpu_forget*(); no lock.  Neither caches an entry
 *	of a session that is not live.  Release marks the session dead,
 *	waits a grace period (IRQs-off sections that saw it live are over),
 *	cancels the join work, and only then forgets the caches: no entry
 *	of the session is cached after that, before its unhash and free.
 *
 * The sched_switch probe runs with the rq lock held and IRQs off: it takes
 * no sleeping lock, allocates nothing (entries come from a per-CPU pool that
 * an irq_work refills), never wakes anything up (irq_work only), never
 * prints, and never touches user memory.
 *
 * PREEMPT_RT: tracepoint probes still run with preemption off, where a
 * spinlock_t and any allocation may sleep.  So no probe takes a spinlock_t
 * or a mutex (only raw spinlocks and the rhashtable's bit locks), and the
 * fork and cgroup-attach probes take their entries from the pool instead
 * of the allocator.  An irq_work without IRQ_WORK_HARD_IRQ runs in the
 * per-CPU irq_work thread: the pool refill (it allocates, so it must stay
 * a thread there) therefore fills with IRQs on and stores each entry with
 * IRQs off; the sampling stage is a hard irq_work (it must run in the
 * sampled task's context); the ring wakeup stays a thread (wake_up()
 * takes a spinlock_t).  An rhashtable insert allocates a bucket table
 * itself (GFP_ATOMIC) when it finds the table above 100 %: on RT the
 * store is created with room for max_tasks entries and an insert under a
 * raw lock or in a probe is refused (a dropped task) rather than let it
 * allocate (pmuctx_store_room(), docs/DESIGN.md "PREEMPT_RT").
 *
 * The sampling counters' overflow handler (sample.c) may run in NMI
 * context: it takes no lock at all (an atomic busy flag guards the
 * per-CPU stage), reads the store under RCU, walks user memory only with
 * copy_from_user_nmi(), and leaves the ring and task_work_add() to the
 * stage's irq_work (hardirq, same CPU).
 */
#ifndef _PMUCTX_SESSION_TYPES_H
#define _PMUCTX_SESSION_TYPES_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/pmuctx.h>

#include "budget.h"
#include "ring.h"

#define PMUCTX_POOL_MAX		64

struct cgroup;
struct mem_cgroup;
struct page;
struct perf_event;
struct pid_namespace;
struct pmuctx_entry;
struct pmuctx_sample_stage;
struct pmuctx_user;
struct task_struct;
struct user_struct;

/*
 * Per-CPU state of a session.  What the sched_switch probe touches comes
 * first (the counters, the shared read, READ's running time), so that a
 * switch of a session's tasks stays within the first lines of it.
 */
struct pmuctx_sess_cpu {
	struct perf_event	*ev[PMUCTX_MAX_EVENTS];
	/*
	 * The counter values the probe read at this CPU's last switch-out
	 * of a task of the session, by snapshot slot, and that probe call's
	 * number (pmuctx_cpu_cache.gen): the switch-in of the next task in
	 * the same call takes them as its snapshots instead of reading the
	 * counters again (one read per event per switch).  IRQs off, this
	 * CPU only.
	 */
	u64			shr_gen;
	u64			shr[PMUCTX_MAX_EVENTS];
	/*
	 * perf's enabled and running times of each counter, by snapshot
	 * slot, when the slice open on this CPU began (one task of the
	 * session is in on a CPU at a time; pmuctx_counter_times()): what
	 * a flexible counter missed while perf rotated it off a full PMU.
	 * Written with the snapshots, IRQs off, this CPU only.
	 */
	u64			ena0[PMUCTX_MAX_EVENTS];
	u64			run0[PMUCTX_MAX_EVENTS];
	/*
	 * READ's running time (pmuctx_entry_stop()), written by this CPU
	 * with IRQs off: ns of the slices that ended here, and per event the
	 * part of them its counter was not on the PMU.
	 */
	u64			slice_ns;
	u64			lost_ns[PMUCTX_MAX_EVENTS];
	/*
	 * The session's reset_gen that slice_ns and lost_ns are of: this
	 * CPU zeroes them at its first slice after a RESET (READ takes
	 * them as zero until then); RESET never writes them.
	 */
	u32			time_gen;
	struct pmuctx_rb	ring;		/* this CPU's writer of sess->ring */
	/*
	 * Exited tasks' totals, added by the folds on this CPU; RESET
	 * zeroes them from another: atomic, so neither undoes the other.
	 */
	atomic64_t		folded[PMUCTX_MAX_EVENTS];
	unsigned int		pool_nr;
	struct pmuctx_entry	*pool[PMUCTX_POOL_MAX];
	struct irq_work		refill;
	struct pmuctx_session	*sess;
	int			cpu;		/* whose this is */
	u64			dropped;
	struct hrtimer		timer;		/* sampling */
	u64			last_tick;	/* local_clock() of the last tick */
	u64			cur_period;	/* throttled period, ns */
	u64			avg_took;	/* interrupt cost, ns (EWMA) */
	struct pmuctx_budget_share budget;	/* budget.c */
	/* samples the global budget refused, not in a BUDGET record yet */
	u64			budget_dropped;
	u64			budget_window;	/* of the last refusal */
	/* sampling on counter overflow (sample_event != 0) */
	struct perf_event	*sample_ev;
	struct pmuctx_sample_stage *stage;
};

enum pmuctx_sess_state {
	PMUCTX_SS_NEW = 0,	/* fd open, no SESSION_CREATE yet */
	PMUCTX_SS_LIVE,
	PMUCTX_SS_DEAD,		/* being torn down: probes ignore it */
};

struct pmuctx_session {
	/*
	 * The fd holds one reference, every entry one: the struct outlives
	 * close() while a deferred unwind still holds an entry.
	 */
	refcount_t		ref;
	struct mutex		lock;		/* its ioctls */
	struct mem_cgroup	*memcg;		/* creator's: pays for entries */
	int			state;		/* enum pmuctx_sess_state */
	bool			enabled;
	bool			owner_perfmon;	/* creator had CAP_PERFMON */
	bool			exclude_kernel;
	/* no per-switch work: counted from per-task sources (tasksrc.c) */
	bool			switchless;
	u32			flags;		/* PMUCTX_SESSION_* */
	u32			target;
	u32			backend;
	u32			data_size;
	u32			nr_events;
	u32			events[PMUCTX_MAX_EVENTS];
	/* each event's modes, raw type and config (evdesc.c) */
	struct pmuctx_event_desc ev_desc[PMUCTX_MAX_EVENTS];
	/*
	 * Counter-backed events keep a snapshot at switch-in: snap_slot[i]
	 * is event i's slot among nr_snap (pmuctx_entry_size()); the
	 * module's own (task-clock, context-switches, cpu-migrations) have
	 * none.
	 */
	u32			nr_snap;
	u8			snap_slot[PMUCTX_MAX_EVENTS];
	/*
	 * The same layout as the switch path walks it, without a per-event
	 * switch: snap_ev[k] is the event of snapshot slot k, and bit i of
	 * clock_mask, cs_mask and migr_mask says event i is task-clock,
	 * context-switches or cpu-migrations (pmuctx_entry_size()).
	 */
	u8			snap_ev[PMUCTX_MAX_EVENTS];
	u8			clock_mask;
	u8			cs_mask;
	u8			migr_mask;
	/*
	 * snapshot slots (bit k) whose counters perf may rotate off a full
	 * PMU: hardware and raw events of a session without CAP_PERFMON
	 * (flexible).  Only these take perf's times at each slice
	 * (pmuctx_slice_count()); a pinned or software counter is on its
	 * PMU for good or not at all, and its state stands for the slice.
	 */
	u8			rot_mask;
	/*
	 * perm.c's (with @user below), in a hole: counted in user->sessions,
	 * in ->counter_sessions, and @user_pmu counters in the PMU's share
	 * of unprivileged users (written by create and release only)
	 */
	u8			user_charged:1;
	u8			user_counters:1;
	u8			user_pmu;	/* PMU counters charged */
	u32			entry_size;	/* pmuctx_entry_size() */
	u32			defer_offset;	/* 0: no struct pmuctx_defer */
	u32			maps_offset;	/* 0: no struct pmuctx_maps */
	u32			slice_offset;	/* 0: no slice accumulators */
	u32			max_exited;
	struct pid_namespace	*pid_ns;
	struct cgroup		*cgrp;
	struct pmuctx_user	*user;		/* unprivileged owner's share */
	const struct cred	*owner_cred;	/* perm.c: MMAP of wide sessions */
	struct pmuctx_sess_cpu __percpu *cpu;

	u64			enabled_at;
	u64			time_enabled;
	/*
	 * RESETs so far (pmuctx_session_reset(), s->lock held): counts of
	 * an earlier generation read as zero (pmuctx_entry.tot_gen,
	 * pmuctx_sess_cpu.time_gen), so RESET writes no count that the
	 * switch path or a fold adds to.
	 */
	u32			reset_gen;
	u32			ch_gen;		/* RESET's zeroing done */
	atomic64_t		tasks_seen;
	atomic64_t		tasks_exited;
	atomic64_t		priv_exec;
	atomic64_t		unlisted;
	/*
	 * Retirements (an entry leaves the store and its totals move to
	 * sc->folded) in progress and done: READ retries a walk that one
	 * overlapped, which could see an entry in both places or in
	 * neither (pmuctx_session_read()).  Retirement mostly happens in
	 * the free work, when tasks are reaped, around the READ that
	 * follows a workload's end.
	 */
	atomic_t		retiring;
	atomic_t		retired;

	/*
	 * Exited tasks kept for per-task reads (KEEP_EXITED): pushed by
	 * retire (probes) with llist_add(), which takes no
	 * lock, so the exit probe complies with PREEMPT_RT; walked by the
	 * session's ioctls (never removed while they run) and emptied by
	 * teardown with llist_del_all().  Newest first.
	 */
	struct llist_head	exited;
	atomic_t		nr_exited;	/* at most max_exited */

	raw_spinlock_t		entries_lock;	/* entries; see the top */
	struct list_head	entries;	/* hashed entries (RCU) */
	/*
	 * Entries of tasks that joined the cgroup, made by the attach probe
	 * (IRQs off: no insert there) and hashed by join_work.  Linked by
	 * exit_node (never on the exited list at the same time).
	 */
	struct llist_head	joining;
	struct work_struct	join_work;

	struct list_head	node;		/* pmuctx_counting */
	struct list_head	adopt_node;	/* pmuctx_adopters (RCU) */

	/*
	 * What goes to the ring (records.c, hooks.c), set with it at
	 * create: the record types and the kernel trigger.
	 */
	u64			trigger_threshold;
	u32			ring_records;	/* PMUCTX_REC_MASK_* */
	u32			trigger_idx;	/* 1 + event index; 0: none */
	/* charged for the ring's locked_vm (perm.c), NULL: no ring */
	struct user_struct	*ring_user;
	/*
	 * ring buffers (ring.c), ring.area NULL: none; each CPU's writer
	 * is in the per-CPU data (pmuctx_sess_cpu.ring, ring.rb)
	 */
	struct pmuctx_ring	ring;

	/* sampling (sample.c); sample_freq 0: none */
	u64			sample_period_ns;
	u32			sample_freq;
	u32			sample_flags;
	u32			sample_max_stack;
	u32			sample_event;	/* 0: hrtimer; else PMUCTX_EV_* */
	struct pmuctx_event_desc sample_desc;	/* its modes, raw config */
	bool			sample_excl_kernel; /* no kernel-mode samples */
	u32			sample_user_dump; /* USER_DUMP: bytes; else 0 */
	bool			show_kaddr;	/* kallsyms_show_value() rules */
};

static inline bool pmuctx_rec_on(const struct pmuctx_session *s, u32 mask)
{
	return s->ring.area && (s->ring_records & mask);
}

static inline bool pmuctx_sess_live(const struct pmuctx_session *s)
{
	return READ_ONCE(s->state) == PMUCTX_SS_LIVE;
}

/*
 * System-wide and cgroup sessions adopt tasks: every thread at create, then
 * forked children and (cgroup) threads moved into the cgroup.
 */
static inline bool pmuctx_sess_adopts(const struct pmuctx_session *s)
{
	return s->target == PMUCTX_TARGET_SYSTEM ||
	       s->target == PMUCTX_TARGET_CGROUP;
}

#endif /* _PMUCTX_SESSION_TYPES_H */
