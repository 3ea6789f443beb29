// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the global sample budget (sampling issue item 1).
 *
 * max_sample_freq bounds one session; a group member may open up to
 * max_sessions_per_user of them on one task.  The budget bounds them all:
 * before a sampling interrupt writes a sample it asks
 * pmuctx_budget_take(), which counts the samples of every session on
 * this CPU in windows of PMUCTX_BUDGET_WINDOW_NS (10 ms) and allows
 *
 *   min(sample_budget / online CPUs,
 *       sample_cpu_percent % of a second / this CPU's average sample cost)
 *
 * per second, rounded down to whole samples per window and at least one.
 * The first term is perf's kernel.perf_event_max_sample_rate (100000 by
 * default, here split across the CPUs); the second lowers it
 * automatically when sampling costs too much CPU, as perf's
 * perf_sample_event_took() lowers the sysctl (25 % like
 * perf_cpu_time_max_percent; here per CPU, and it rises again when
 * samples get cheaper).  A refused sample is the session's to report
 * (sample.c: THROTTLE records with PMUCTX_THROTTLE_BUDGET).
 *
 * A sample's cost is what its interrupt took (pmuctx_budget_cost(),
 * avg_ns: an EWMA over samples) plus its share of the deferred work the
 * samples cause in the sampled tasks (pmuctx_budget_deferred(): the
 * task_works of the user callchain walk, the USER_STACK dumps and the
 * MMAP snapshots, the time they ran (not waited: preempted, asleep)
 * charged to the CPU they end on; def_ns: an EWMA over windows of that
 * work / the samples the window took).  So sample_cpu_percent bounds
 *
 *   samples per window * (avg_ns + def_ns) <= sample_cpu_percent % of it
 *
 * on average: the interrupts and the work they queue together.  Not in
 * it: the sched_switch probe and the ring's reader (the session owner's
 * own CPU time).  The averages follow the cost: a window's allowance uses
 * the cost measured up to its start.
 *
 * The allowance is shared fairly between the users that sample on a CPU
 * (pmuctx_budget_take()): an unprivileged user's sessions together get one
 * share, so one group member's many sessions take no more from another
 * user's session than one user's share.
 *
 * Context: the per-CPU state is used only on its own CPU with IRQs off,
 * in hardirq context (the sampling hrtimer callback, HARD on PREEMPT_RT
 * too; the overflow stage's irq_work, IRQ_WORK_INIT_HARD) and in the
 * sched_switch probe; and in a task_work with IRQs disabled around it
 * (pmuctx_budget_deferred()): one writer at a time, no lock, no atomic,
 * no allocation (the users of a window are a fixed table).  The
 * overflow handler (NMI) only reads it (pmuctx_budget_may(), before it
 * walks any stack); the writes it may see half-way are WRITE_ONCE.  The
 * read-only parameters sample_budget_now and sample_budget_dropped read
 * other CPUs' fields racily (statistics).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/string.h>

#include "budget.h"

/*
 * The users that asked in a window (pmuctx_budget_take()): an
 * unprivileged user's sessions together, by their struct pmuctx_user
 * (a key, compared and never dereferenced: it may be freed and reused,
 * which merges two users' counts for a window at worst).
 */
#define PMUCTX_BUDGET_USERS	16

struct pmuctx_budget_user {
	const void	*key;
	u32		credit;		/* its sessions' samples, in 1/1024 */
};

struct pmuctx_budget_cpu {
	u64	start;		/* local_clock() at the current window's start */
	u64	window;		/* windows started on this CPU */
	u32	used;		/* samples taken in the current window */
	u32	allow;		/* samples allowed in it */
	u32	share;		/* one user's share of it, PMUCTX_CREDIT units */
	u32	nr_users;	/* in users[] (the current window's) */
	u32	solo;		/* sessions that asked as users of their own */
	u32	nr_prev;	/* in prev[] (the previous window's users) */
	u64	avg_ns;		/* a sample's cost here, all sessions (EWMA) */
	u64	def_ns;		/* its deferred work's, per sample (EWMA) */
	u64	deferred_ns;	/* deferred work in the current window */
	u64	dropped;	/* samples refused, ever */
	struct pmuctx_budget_user users[PMUCTX_BUDGET_USERS];
	struct pmuctx_budget_user prev[PMUCTX_BUDGET_USERS];
};

/* Credits are counted in 1/1024 of a sample. */
#define PMUCTX_CREDIT	1024U

static DEFINE_PER_CPU(struct pmuctx_budget_cpu, pmuctx_budget);

unsigned int pmuctx_sample_budget = 100000;
unsigned int pmuctx_sample_cpu_percent = 25;

#define PMUCTX_BUDGET_MIN	100U
#define PMUCTX_BUDGET_MAX	10000000U

/* A parameter with a range (struct pmuctx_param_range at kp->arg). */
struct pmuctx_param_range {
	unsigned int	*val;
	unsigned int	min, max;
};

static int pmuctx_param_range_set(const char *val,
				  const struct kernel_param *kp)
{
	const struct pmuctx_param_range *r = kp->arg;
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < r->min || v > r->max)
		return -EINVAL;
	WRITE_ONCE(*r->val, v);
	return 0;
}

static int pmuctx_param_range_get(char *buf, const struct kernel_param *kp)
{
	const struct pmuctx_param_range *r = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*r->val));
}

static const struct kernel_param_ops pmuctx_range_ops = {
	.set = pmuctx_param_range_set,
	.get = pmuctx_param_range_get,
};

static struct pmuctx_param_range pmuctx_budget_range = {
	&pmuctx_sample_budget, PMUCTX_BUDGET_MIN, PMUCTX_BUDGET_MAX,
};

static struct pmuctx_param_range pmuctx_percent_range = {
	&pmuctx_sample_cpu_percent, 1, 100,
};

module_param_cb(sample_budget, &pmuctx_range_ops, &pmuctx_budget_range,
		0644);
MODULE_PARM_DESC(sample_budget,
		 "Samples per second all sampling sessions together may take, split evenly across the online CPUs (100..10000000, default 100000 like kernel.perf_event_max_sample_rate)");

module_param_cb(sample_cpu_percent, &pmuctx_range_ops,
		&pmuctx_percent_range, 0644);
MODULE_PARM_DESC(sample_cpu_percent,
		 "Share of each CPU's time sampling may take: the budget in force is lowered when samples cost more (1..100, default 25 like kernel.perf_cpu_time_max_percent; 100: no lowering)");

/* Samples one CPU may take per window, given its average sample cost. */
static u32 pmuctx_budget_allow(u64 avg_ns)
{
	u64 rate = READ_ONCE(pmuctx_sample_budget) /
		   max(num_online_cpus(), 1U);
	u64 allow = div_u64(rate * PMUCTX_BUDGET_WINDOW_NS, NSEC_PER_SEC);
	unsigned int pct = READ_ONCE(pmuctx_sample_cpu_percent);

	if (avg_ns && pct < 100)
		allow = min(allow, div64_u64(PMUCTX_BUDGET_WINDOW_NS * pct / 100,
					     avg_ns));
	return max_t(u64, allow, 1);
}

/*
 * At the end of a window: the deferred work that ran in it (task_works of
 * the sampled tasks, pmuctx_budget_deferred()), per sample the window
 * took, into def_ns.  Work that ran in a window that took no sample is
 * dropped, not charged to the next one that does: that may take only
 * another user's samples.  IRQs off.
 */
static void pmuctx_budget_fold(struct pmuctx_budget_cpu *b)
{
	u64 per;

	if (!b->used) {
		/* no backlog for a later window's samples to pay */
		b->deferred_ns = 0;
		return;
	}
	/* at most a window per sample: a backlog is not charged at once */
	per = min_t(u64, div_u64(b->deferred_ns, b->used),
		    PMUCTX_BUDGET_WINDOW_NS);
	WRITE_ONCE(b->def_ns, b->def_ns ? (b->def_ns * 3 + per) / 4 : per);
	b->deferred_ns = 0;
}

/*
 * Credit after a window's income: @share more, kept up to one window's
 * worth (or one sample).  Not more: credit kept beyond a window let the
 * users that ask first in a window spend more than a window's share.  The
 * price: a share below a sample is rounded down to one sample every few
 * windows (5 users of 4 samples a window take one every 2 windows each,
 * 2.5 of the 4: budget-tests timer; a remainder kept over let the first
 * users take 4 of every 5 windows and the last one 1, the same test).
 */
static u32 pmuctx_budget_refill(u32 credit, u32 share)
{
	return min(credit + share, max(share, PMUCTX_CREDIT));
}

/*
 * The slot of @user (an unprivileged user's struct pmuctx_user) in this
 * CPU's current window, added with its credit if it had none: what it
 * kept from the previous window plus a user's share
 * (pmuctx_budget_refill()).  NULL when the table is full: the session
 * then asks as a user of its own.
 */
static struct pmuctx_budget_user *
pmuctx_budget_slot(struct pmuctx_budget_cpu *b, const void *user)
{
	u32 i, credit = 0;

	for (i = 0; i < b->nr_users; i++)
		if (b->users[i].key == user)
			return &b->users[i];
	if (i == PMUCTX_BUDGET_USERS)
		return NULL;
	for (i = 0; i < b->nr_prev; i++)
		if (b->prev[i].key == user)
			credit = b->prev[i].credit;
	i = b->nr_users++;
	b->users[i].key = user;
	b->users[i].credit = pmuctx_budget_refill(credit, b->share);
	return &b->users[i];
}

/*
 * Start a new window on this CPU if @now is past the current one, and
 * count @sh's session (of @user, NULL for a privileged one) among those
 * that asked in it: the users of a window set the next one's share.
 * Returns its user's slot, whose credit its sessions take from, or NULL:
 * the session takes from its own (@sh->credit).
 */
static struct pmuctx_budget_user *
pmuctx_budget_enter(struct pmuctx_budget_cpu *b, u64 now,
		    struct pmuctx_budget_share *sh, const void *user)
{
	struct pmuctx_budget_user *u;

	if (!b->window || now - b->start >= PMUCTX_BUDGET_WINDOW_NS) {
		u32 users = b->nr_users + b->solo;
		u32 allow;

		pmuctx_budget_fold(b);
		allow = pmuctx_budget_allow(b->avg_ns + b->def_ns);

		WRITE_ONCE(b->start, now);
		WRITE_ONCE(b->window, b->window + 1);
		WRITE_ONCE(b->used, 0);
		/* at least 1: never a stall with 1024+ users asking */
		b->share = max(allow * PMUCTX_CREDIT / max(users, 1U), 1U);
		memcpy(b->prev, b->users, b->nr_users * sizeof(b->users[0]));
		b->nr_prev = b->nr_users;
		b->nr_users = 0;
		b->solo = 0;
		WRITE_ONCE(b->allow, allow);
	}
	u = user ? pmuctx_budget_slot(b, user) : NULL;
	if (!u && sh->window != b->window) {
		b->solo++;
		WRITE_ONCE(sh->credit, pmuctx_budget_refill(sh->credit,
							    b->share));
	}
	WRITE_ONCE(sh->window, b->window);
	return u;
}

/*
 * May a session of @user (its struct pmuctx_user, NULL for a privileged
 * one) take one more sample on this CPU at @now (local_clock()), @sh
 * being its part of this CPU's budget?  Counts it if so.  IRQs off, see
 * the top of the file.
 *
 * Fair between users: each user that asks in a window gets a share of
 * it, allow / the users that asked in the previous window, as credit in
 * the window's table of users, kept up to one window's worth (or one
 * sample, pmuctx_budget_refill()); its sessions take from that one
 * credit, first come (t_sample budget-user, budget-user-migrate).
 * Credit per session (its part of the user's share, kept by each
 * session) let a user with many sessions bank many samples where one
 * with a single session banked two: the many drained their banks into
 * each window's room first, and a single session's income overflowed its
 * cap.  Credit kept for two windows did
 * the same on a smaller scale: the user whose sessions asked first in a
 * window spent two windows' worth of the room.  A sample needs one
 * sample of credit and room in the window.  A privileged session (root,
 * CAP_PERFMON: trusted, as with perf, and they can change sample_budget)
 * counts as a user of its own with its own credit in @sh, as does every
 * session of an unprivileged user that finds the CPU's table of
 * PMUCTX_BUDGET_USERS users for the window full (then the sharing is per
 * session, as it was before users counted).  A user cannot be starved
 * by sessions whose timers happen to fire first: when there are more
 * users than samples in a window, each takes one every few windows; nor
 * by sessions whose counters overflow first (pmuctx_budget_note()).
 * @sh->credit of a session of a user in the table is a copy of the
 * user's credit after the session's last take, for pmuctx_budget_may().
 */
bool pmuctx_budget_take(u64 now, struct pmuctx_budget_share *sh,
			const void *user)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);
	struct pmuctx_budget_user *u = pmuctx_budget_enter(b, now, sh, user);
	u32 *credit = u ? &u->credit : &sh->credit;
	bool ok;

	ok = b->used < b->allow && *credit >= PMUCTX_CREDIT;
	if (ok) {
		*credit -= PMUCTX_CREDIT;
		WRITE_ONCE(b->used, b->used + 1);
	} else {
		WRITE_ONCE(b->dropped, b->dropped + 1);
	}
	if (u)
		WRITE_ONCE(sh->credit, u->credit);
	return ok;
}

/*
 * A sample of @sh's session that pmuctx_budget_may() refused with
 * PMUCTX_BUDGET_ASK: the window had no room left when the session first
 * asked in it.  Count the session among the window's users all the same
 * (its user's share of the next window, and its credit's income), and
 * the refused sample.  Without it a session whose counter overflows after
 * the window's room is gone never counts: the others' shares grow by its
 * share and it is starved for good (budget-tests overflow).  IRQs off,
 * like take().
 */
void pmuctx_budget_note(u64 now, struct pmuctx_budget_share *sh,
			const void *user)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);
	struct pmuctx_budget_user *u = pmuctx_budget_enter(b, now, sh, user);

	WRITE_ONCE(b->dropped, b->dropped + 1);
	if (u)
		WRITE_ONCE(sh->credit, u->credit);
}

/*
 * @n samples refused on this CPU without asking take() (the overflow
 * handler's PMUCTX_BUDGET_NO, counted when they are reported): in
 * sample_budget_dropped.  IRQs off.
 */
void pmuctx_budget_refused(u64 n)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);

	WRITE_ONCE(b->dropped, b->dropped + n);
}

/*
 * Would pmuctx_budget_take() say yes now?  A read-only look for the
 * overflow handler, which may run in NMI: racy reads of this CPU's state,
 * changed only by take() and note() in hardirq.  PMUCTX_BUDGET_YES can
 * still be a no in take().  PMUCTX_BUDGET_ASK is a no that take() has not
 * seen: the session's first ask in this window, with no room left; the
 * caller has pmuctx_budget_note() count it from hardirq (at most once a
 * window per session and CPU: after it, the session's window is this one).
 */
enum pmuctx_budget_answer pmuctx_budget_may(u64 now,
					    const struct pmuctx_budget_share *sh)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);
	u64 window = READ_ONCE(b->window);
	bool room;

	if (!window || now - READ_ONCE(b->start) >= PMUCTX_BUDGET_WINDOW_NS)
		return PMUCTX_BUDGET_YES;	/* a new window */
	room = READ_ONCE(b->used) < READ_ONCE(b->allow);
	if (READ_ONCE(sh->window) != window)
		return room ? PMUCTX_BUDGET_YES : PMUCTX_BUDGET_ASK;
	return room && READ_ONCE(sh->credit) >= PMUCTX_CREDIT ?
	       PMUCTX_BUDGET_YES : PMUCTX_BUDGET_NO;
}

/* Nanoseconds from @now to this CPU's next budget window.  IRQs off. */
u64 pmuctx_budget_next_ns(u64 now)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);
	u64 end = b->start + PMUCTX_BUDGET_WINDOW_NS;

	return end > now ? end - now : 0;
}

/* A taken sample cost @ns on this CPU.  IRQs off. */
void pmuctx_budget_cost(u64 ns)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);

	WRITE_ONCE(b->avg_ns, b->avg_ns ? (b->avg_ns * 7 + ns) / 8 : ns);
}

/* current's voluntary and involuntary context switches so far */
static unsigned long pmuctx_budget_csw(void)
{
	return READ_ONCE(current->nvcsw) + READ_ONCE(current->nivcsw);
}

/*
 * A task_work of sampling (the deferred user callchain and its dumps,
 * sample.c; an MMAP snapshot, maps.c) starts in current.  Task context.
 */
void pmuctx_budget_work_start(struct pmuctx_budget_mark *m)
{
	m->csw = pmuctx_budget_csw();
	m->run0 = READ_ONCE(current->se.sum_exec_runtime);
	m->t0 = local_clock();
}

/*
 * The task_work started at @m ends on this CPU: what it ran is
 * sampling's cost too, charged to this CPU's budget
 * (pmuctx_budget_fold()).  Task context, preemptible.
 *
 * Not its wall time: the task's owner decides how long a work waits
 * (a SCHED_IDLE task behind a busy one, a stack page on a slow FUSE
 * file, mmap_lock held by another of its threads), and a charge of
 * hundreds of milliseconds would shrink every user's sampling on the
 * CPU it ends on to the floor.  If the task never left the CPU in
 * between (no context switch: no preemption, no sleep, no migration),
 * the wall time is its run time plus interrupts; otherwise the
 * scheduler's account of its run time (sum_exec_runtime, brought up to
 * date at each switch), at most the wall time.
 */
void pmuctx_budget_deferred(const struct pmuctx_budget_mark *m)
{
	struct pmuctx_budget_cpu *b;
	unsigned long flags;
	u64 now, ns, ran;

	local_irq_save(flags);
	now = local_clock();
	ns = now > m->t0 ? now - m->t0 : 0;
	if (pmuctx_budget_csw() != m->csw) {
		ran = READ_ONCE(current->se.sum_exec_runtime) - m->run0;
		ns = min(ns, ran);
	}
	b = this_cpu_ptr(&pmuctx_budget);
	b->deferred_ns += ns;
	local_irq_restore(flags);
}

/* This CPU's current window (0: none yet).  IRQs off. */
u64 pmuctx_budget_window(void)
{
	return this_cpu_ptr(&pmuctx_budget)->window;
}

/* The sampling period this CPU's budget allows now.  IRQs off. */
u64 pmuctx_budget_period_ns(void)
{
	u32 allow = this_cpu_ptr(&pmuctx_budget)->allow;

	return div_u64(PMUCTX_BUDGET_WINDOW_NS, max(allow, 1U));
}

/* This CPU's average sample cost, its deferred work's included.  IRQs off. */
u64 pmuctx_budget_avg_ns(void)
{
	struct pmuctx_budget_cpu *b = this_cpu_ptr(&pmuctx_budget);

	return b->avg_ns + b->def_ns;
}

/*
 * sample_budget_now: samples per second the online CPUs allow now, each
 * with its own cost as measured so far (racy over hotplug: statistics).
 */
static int pmuctx_param_now_get(char *buf, const struct kernel_param *kp)
{
	u64 sum = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		struct pmuctx_budget_cpu *b = per_cpu_ptr(&pmuctx_budget, cpu);

		sum += pmuctx_budget_allow(READ_ONCE(b->avg_ns) +
					   READ_ONCE(b->def_ns));
	}
	return sysfs_emit(buf, "%llu\n",
			  div_u64(sum * NSEC_PER_SEC, PMUCTX_BUDGET_WINDOW_NS));
}

static const struct kernel_param_ops pmuctx_now_ops = {
	.get = pmuctx_param_now_get,
};

module_param_cb(sample_budget_now, &pmuctx_now_ops, NULL, 0444);
MODULE_PARM_DESC(sample_budget_now,
		 "Read only: samples per second the online CPUs allow now, sample_budget lowered by each CPU's measured sample cost (sample_cpu_percent)");

static int pmuctx_param_dropped_get(char *buf, const struct kernel_param *kp)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&pmuctx_budget, cpu)->dropped);
	return sysfs_emit(buf, "%llu\n", sum);
}

static const struct kernel_param_ops pmuctx_dropped_ops = {
	.get = pmuctx_param_dropped_get,
};

module_param_cb(sample_budget_dropped, &pmuctx_dropped_ops, NULL, 0444);
MODULE_PARM_DESC(sample_budget_dropped,
		 "Read only: samples the budget refused since the module was loaded, all sessions");
