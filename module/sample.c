// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: sampling with kernel and (deferred) user callchains.
 *
 * Source: one hrtimer per CPU and session (works everywhere, including a
 * VM without a PMU).  The callback runs in hardirq context on its CPU: if
 * the current task has an entry in the session it writes a SAMPLE record
 * to this CPU's ring; idle and other tasks write nothing.
 *
 * Callchains are frame-pointer walks (sframe/DWARF are out of scope):
 *  - kernel: stack_trace_save() from the interrupt, cut at the
 *    interrupted instruction (stack_trace_save_regs() is not exported);
 *  - user, immediate: walked in the interrupt with copy_from_user_nmi(),
 *    which never faults: a frame on a non-resident page ends the walk
 *    (misc USER_TRUNC);
 *  - user, deferred (seed 001): the first sample since the task entered
 *    the kernel queues one task_work (TWA_RESUME) and takes a cookie;
 *    every sample until the task returns to user space shares it; at
 *    return the work walks the user stack once with copy_from_user (which
 *    may fault pages in) and writes one USER_CALLCHAIN record into the
 *    ring of the CPU it runs on.  A task that exits, is killed or execs
 *    first writes nothing (the cookie stays unresolved); kernel threads
 *    never queue work.
 *
 * Lifetimes: a pending task_work holds a reference on its entry, the entry
 * on its session (struct memory only; the ring is checked live under RCU
 * before writing), and the work on the module, because task_work cannot
 * be cancelled from a module (task_work_cancel is not exported) and the
 * work function is module code.  The module reference is dropped last;
 * see pmuctx_defer_fn().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <asm/irq_regs.h>

#include "pmuctx.h"

unsigned int pmuctx_max_sample_freq = 10000;

static DEFINE_PER_CPU(u64, pmuctx_cookie_seq);

/* Callchain scratch of the sampling interrupt (IRQs off: one user). */
struct pmuctx_sample_scratch {
	unsigned long	kst[PMUCTX_MAX_STACK + 16];
	u64		ubuf[PMUCTX_MAX_STACK];
};

static DEFINE_PER_CPU(struct pmuctx_sample_scratch, pmuctx_scratch);

int pmuctx_sample_attr_validate(const struct pmuctx_session_attr *a)
{
	if (a->__reserved3)
		return -EINVAL;
	if (!a->sample_freq) {
		if (a->sample_flags || a->sample_max_stack)
			return -EINVAL;
		return 0;
	}
	if (!a->ring_pages)
		return -EINVAL;
	if (a->sample_freq > READ_ONCE(pmuctx_max_sample_freq))
		return -EINVAL;
	if (a->sample_flags & ~PMUCTX_SAMPLE_FLAGS_ALL)
		return -EINVAL;
	if ((a->sample_flags & PMUCTX_SAMPLE_DEFER_USER) &&
	    !(a->sample_flags & PMUCTX_SAMPLE_USER_STACK))
		return -EINVAL;
	if (a->sample_max_stack > PMUCTX_MAX_STACK)
		return -EINVAL;
	return 0;
}

/* ---- user stacks ---------------------------------------------------------- */

struct pmuctx_frame {
	unsigned long next_fp;
	unsigned long ret;
};

/*
 * Frame-pointer walk of the user stack described by @regs.  @nofault: in
 * the interrupt (copy_from_user_nmi(), stops at a page that is not
 * resident); otherwise task context (copy_from_user(), may fault in).
 * Returns the number of frames; *@trunc when the walk was cut short.
 */
static unsigned int pmuctx_user_walk(struct pt_regs *regs, u64 *ips,
				     unsigned int max, bool nofault,
				     bool *trunc)
{
	unsigned long fp = regs->bp, prev = 0;
	struct pmuctx_frame f;
	unsigned int n = 0;
	unsigned long left;

	*trunc = false;
	if (!max)
		return 0;
	ips[n++] = regs->ip;
	while (n < max) {
		if (!fp || fp & (sizeof(long) - 1) || fp <= prev)
			return n;
		/*
		 * copy_from_user_nmi() checks the range itself; access_ok()
		 * must not be used in interrupt context (it warns there).
		 */
		if (!nofault && !access_ok((void __user *)fp, sizeof(f)))
			return n;
		if (nofault)
			left = copy_from_user_nmi(&f, (void __user *)fp,
						  sizeof(f));
		else
			left = copy_from_user(&f, (void __user *)fp, sizeof(f));
		if (left) {
			*trunc = true;
			return n;
		}
		if (!f.ret)
			return n;
		ips[n++] = f.ret;
		prev = fp;
		fp = f.next_fp;
	}
	*trunc = fp != 0;
	return n;
}

/* The user registers of current: the interrupted ones, or those saved at
 * kernel entry.  NULL for kernel threads.
 */
static struct pt_regs *pmuctx_user_regs(struct pt_regs *regs)
{
	if (current->flags & PF_KTHREAD)
		return NULL;
	if (regs && user_mode(regs))
		return regs;
	return task_pt_regs(current);
}

/* ---- deferred user callchains ------------------------------------------- */

static void pmuctx_defer_fn(struct callback_head *cb)
{
	struct pmuctx_entry *e = container_of(cb, struct pmuctx_entry,
					      defer_work);
	struct pmuctx_session *s = e->sess;
	u64 cookie = READ_ONCE(e->defer_cookie);
	unsigned int max = s->sample_max_stack, n = 0;
	struct pt_regs *regs;
	bool trunc = false;
	u64 *ips = NULL;

	/*
	 * A task that will not return to user space writes nothing: run by
	 * exit_task_work() (PF_EXITING), or by get_signal() for a task that
	 * is being killed (it runs task_work before dying).  Neither does one
	 * that exec'd since the sample: its stack is another program's.
	 */
	if (!(current->flags & PF_EXITING) && !fatal_signal_pending(current) &&
	    !READ_ONCE(e->defer_stale) && pmuctx_sess_live(s)) {
		regs = pmuctx_user_regs(NULL);
		ips = kmalloc_array(max, sizeof(*ips), GFP_KERNEL);
		if (regs && ips)
			n = pmuctx_user_walk(regs, ips, max, false, &trunc);
		if (ips) {
			rcu_read_lock();
			/* The ring is freed after an RCU grace period. */
			if (pmuctx_sess_live(s))
				pmuctx_ring_user_callchain(s, cookie, ips, n,
							   trunc);
			rcu_read_unlock();
		}
		kfree(ips);
	}
	WRITE_ONCE(e->defer_stale, false);
	WRITE_ONCE(e->defer_pending, false);
	atomic_dec(&s->defer_inflight);
	pmuctx_entry_put(e);
	/*
	 * Last: drop the module reference this work held.  Nothing but the
	 * return follows; module removal also waits for an RCU grace period
	 * (free_module()), which this CPU only passes after returning.
	 */
	module_put(THIS_MODULE);
}

/*
 * In the sampling interrupt: the cookie the task's next return to user
 * space will resolve, queuing the work if this is the first sample since
 * the task entered the kernel.  0 if no work could be queued.
 */
static u64 pmuctx_defer_cookie(struct pmuctx_session *s,
			       struct pmuctx_entry *e)
{
	u64 cookie;

	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return 0;
	if (READ_ONCE(e->defer_pending))
		return READ_ONCE(e->defer_cookie);
	cookie = ((u64)(smp_processor_id() + 1) << 48) |
		 (this_cpu_inc_return(pmuctx_cookie_seq) & GENMASK_ULL(47, 0));
	WRITE_ONCE(e->defer_cookie, cookie);
	if (!refcount_inc_not_zero(&e->ref))
		return 0;
	__module_get(THIS_MODULE);
	atomic_inc(&s->defer_inflight);
	WRITE_ONCE(e->defer_pending, true);
	init_task_work(&e->defer_work, pmuctx_defer_fn);
	if (task_work_add(current, &e->defer_work, TWA_RESUME)) {
		WRITE_ONCE(e->defer_pending, false);
		atomic_dec(&s->defer_inflight);
		module_put(THIS_MODULE);
		pmuctx_entry_put(e);
		return 0;
	}
	return cookie;
}

/* ---- the sampling timer --------------------------------------------------- */

/* Index of the interrupted ip in a stack_trace_save() taken in the IRQ. */
static unsigned int pmuctx_cut_irq_frames(unsigned long *st, unsigned int n,
					  unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (st[i] == ip)
			return i;
	return n;
}

/*
 * The CPU time the sample stands for: what the task ran on this CPU since
 * the previous tick or since it was switched in, whichever is later.  Not
 * the nominal period: ticks can be late or missed (TCG, long IRQ-off
 * sections), and a task that came in mid-period did not use all of it.
 */
static u64 pmuctx_sample_weight(struct pmuctx_sess_cpu *sc,
				struct pmuctx_entry *e, u64 now)
{
	u64 from = sc->last_tick;

	if (READ_ONCE(e->in) && e->in_ns > from)
		from = e->in_ns;
	if (!from || now <= from)
		return e->sess->sample_period_ns;
	return now - from;
}

static void pmuctx_sample(struct pmuctx_session *s, struct pmuctx_entry *e,
			  struct pt_regs *regs, u64 weight)
{
	struct pmuctx_sample_scratch *sb = this_cpu_ptr(&pmuctx_scratch);
	unsigned int max = s->sample_max_stack, nk = 0, nu = 0, cut;
	unsigned long *kst = sb->kst;
	u64 *ubuf = sb->ubuf;
	struct pt_regs *uregs;
	u16 misc = 0;
	bool trunc;
	u64 cookie = 0, ip = regs ? instruction_pointer(regs) : 0;

	if (regs && user_mode(regs))
		misc |= PMUCTX_SAMPLE_M_USER;
	if (!(misc & PMUCTX_SAMPLE_M_USER) && !s->show_kaddr) {
		misc |= PMUCTX_SAMPLE_M_KADDR_HIDDEN;
		ip = 0;
	}
	if ((s->sample_flags & PMUCTX_SAMPLE_KERNEL_STACK) && regs &&
	    !(misc & (PMUCTX_SAMPLE_M_USER | PMUCTX_SAMPLE_M_KADDR_HIDDEN))) {
		nk = stack_trace_save(kst, ARRAY_SIZE(sb->kst), 0);
		cut = pmuctx_cut_irq_frames(kst, nk, instruction_pointer(regs));
		if (cut < nk) {
			memmove(kst, kst + cut, (nk - cut) * sizeof(kst[0]));
			nk -= cut;
		} else {
			kst[0] = instruction_pointer(regs);
			nk = 1;
		}
		if (nk > max) {
			nk = max;
			misc |= PMUCTX_SAMPLE_M_KERNEL_TRUNC;
		}
	}
	if (s->sample_flags & PMUCTX_SAMPLE_USER_STACK) {
		if (s->sample_flags & PMUCTX_SAMPLE_DEFER_USER) {
			cookie = pmuctx_defer_cookie(s, e);
			if (cookie)
				misc |= PMUCTX_SAMPLE_M_USER_DEFERRED;
		} else {
			uregs = pmuctx_user_regs(regs);
			if (uregs)
				nu = pmuctx_user_walk(uregs, ubuf, max, true,
						      &trunc);
			if (uregs && trunc)
				misc |= PMUCTX_SAMPLE_M_USER_TRUNC;
		}
	}
	pmuctx_ring_sample(s, misc, ip, weight, cookie, kst, nk, ubuf, nu);
}

/* Longest period throttling may stretch a CPU's sampling to (10 Hz). */
#define PMUCTX_THROTTLE_MAX_NS	(NSEC_PER_SEC / 10)

/*
 * Keep the interrupt under a quarter of the period (perf's default
 * perf_cpu_time_max_percent): under load, or emulated, a 1 kHz sampler
 * with two stack walks can otherwise eat a whole CPU.  Doubles this CPU's
 * period while the average cost is above 25 % of it, halves it back while
 * below 1/16, and says so in a THROTTLE record.
 */
static void pmuctx_sample_throttle(struct pmuctx_session *s,
				   struct pmuctx_sess_cpu *sc, u64 took)
{
	u64 p = sc->cur_period;

	sc->avg_took = sc->avg_took ? (sc->avg_took * 7 + took) / 8 : took;
	if (sc->avg_took > p / 4 && p < PMUCTX_THROTTLE_MAX_NS) {
		sc->cur_period = min_t(u64, p * 2, PMUCTX_THROTTLE_MAX_NS);
		pmuctx_ring_throttle(s, true, sc->cur_period, sc->avg_took);
	} else if (p > s->sample_period_ns && sc->avg_took < p / 16) {
		sc->cur_period = max_t(u64, p / 2, s->sample_period_ns);
		pmuctx_ring_throttle(s, false, sc->cur_period, sc->avg_took);
	}
}

static enum hrtimer_restart pmuctx_sample_tick(struct hrtimer *t)
{
	struct pmuctx_sess_cpu *sc = container_of(t, struct pmuctx_sess_cpu,
						  timer);
	struct pmuctx_session *s = sc->sess;
	struct pmuctx_entry *e;
	u64 now;

	/*
	 * A CPU going offline hands its hrtimers to a live CPU: a timer that
	 * is not on its own CPU stops, rather than sample that CPU twice.
	 * (A CPU that comes back samples again from the next ENABLE.)
	 */
	if (!pmuctx_sess_live(s) || !READ_ONCE(s->enabled) ||
	    sc != this_cpu_ptr(s->cpu))
		return HRTIMER_NORESTART;
	now = local_clock();
	if (!is_idle_task(current)) {
		rcu_read_lock();
		e = pmuctx_current_entry(s);
		if (e) {
			pmuctx_sample(s, e, get_irq_regs(),
				      pmuctx_sample_weight(sc, e, now));
			pmuctx_sample_throttle(s, sc, local_clock() - now);
		}
		rcu_read_unlock();
	}
	sc->last_tick = now;
	hrtimer_forward_now(t, ns_to_ktime(sc->cur_period));
	return HRTIMER_RESTART;
}

void pmuctx_sample_init(struct pmuctx_session *s, u32 freq, u32 flags,
			u32 max_stack, bool show_kaddr)
{
	int cpu;

	s->sample_freq = freq;
	s->sample_flags = flags;
	s->sample_max_stack = max_stack ? max_stack : 64;
	s->show_kaddr = show_kaddr;
	if (freq)
		s->sample_period_ns = div_u64(NSEC_PER_SEC, freq);
	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		hrtimer_init(&sc->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		sc->timer.function = pmuctx_sample_tick;
	}
}

/* IPI on each CPU (ENABLE): start this CPU's timer. */
void pmuctx_sample_start_cpu(void *info)
{
	struct pmuctx_session *s = info;
	struct pmuctx_sess_cpu *sc = this_cpu_ptr(s->cpu);

	if (s->sample_freq && !hrtimer_active(&sc->timer)) {
		sc->last_tick = local_clock();
		sc->cur_period = s->sample_period_ns;
		sc->avg_took = 0;
		hrtimer_start(&sc->timer, ns_to_ktime(sc->cur_period),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
}

/* Process context (DISABLE, teardown): stop every timer, waiting for any
 * callback running.
 */
void pmuctx_sample_stop(struct pmuctx_session *s)
{
	int cpu;

	if (!s->sample_freq || !s->cpu)
		return;
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(s->cpu, cpu)->timer);
}
