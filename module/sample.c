// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: sampling with kernel and (deferred) user callchains.
 *
 * Sources (sample_event):
 *  - 0: one hrtimer per CPU and session (works everywhere, including a VM
 *    without a PMU), armed only while a task of the session runs on that
 *    CPU, as perf's per-task cpu-clock: started at its switch-in with the
 *    period it had left, cancelled at its switch-out (sched_switch, IRQs
 *    off: the hard hrtimer API, raw locks only), and not re-armed by a
 *    tick that finds no such task (exit, a task parked out of the
 *    cgroup).  Idle CPUs and CPUs running other tasks take no interrupt
 *    from the session (sampling issue item 1).  The callback runs in
 *    hardirq context on its CPU and writes a SAMPLE record to this CPU's
 *    ring; kernel mode in an exclude_kernel session writes nothing (as
 *    perf's exclude_kernel: no sample at all, not one with hidden
 *    addresses).
 *  - a perf-backed event: one kernel counter per online CPU in perf's
 *    frequency mode, sampling on overflow.  A hardware PMU overflows in
 *    NMI context, where neither the ring (its reservation masks IRQs) nor
 *    task_work_add() (KASAN's aux stack, locks) may be used.  So the
 *    overflow handler only *captures*, whatever its context: it looks the
 *    task up in the store (not in the CPU cache the switch probe may be
 *    rewriting), takes an entry reference, walks the kernel stack and
 *    the non-faulting user stack into the session's per-CPU stage, and
 *    queues the stage's irq_work.  The irq_work (hardirq, same CPU, as
 *    soon as IRQs are on) writes the SAMPLE and, for deferred user
 *    callchains, queues the task_work if the sampled task is still
 *    current (else the sample says USER_TRUNC: no user part).  An
 *    overflow while the stage is still full is counted as lost.  The
 *    budget (budget.c) is asked after the look-up, read-only; a refusal
 *    walks no stack, and one that the budget must still count (its
 *    first in a window, PMUCTX_BUDGET_ASK) queues the irq_work with no
 *    sample, which only tells the budget (pmuctx_budget_note()).  Software
 *    events (cpu-clock: hrtimer context) take the same path, which is how
 *    the VM, with no hardware PMU, tests it.  CPUs that come online after
 *    session creation have no counter.
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
 * work function is module code.  The work drops the module reference
 * first, then the entry's: what runs after the module_put() is module
 * code, which module removal waits for with RCU Tasks; see
 * pmuctx_sample_work_end().
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/ptrace.h>
#include <linux/rhashtable.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/sysfs.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <asm/irq_regs.h>

#include "arch.h"
#include "budget.h"
#include "compat.h"
#include "counters.h"
#include "maps.h"
#include "params.h"
#include "records.h"
#include "ring.h"
#include "sample.h"
#include "selftest.h"
#include "evdesc.h"
#include "session_types.h"
#include "store.h"
#include "testhooks.h"

unsigned int pmuctx_max_sample_freq = 10000;
module_param_named(max_sample_freq, pmuctx_max_sample_freq, uint, 0644);
MODULE_PARM_DESC(max_sample_freq,
		 "Highest sampling frequency a session may ask for, per CPU, in Hz (default 10000)");

static DEFINE_PER_CPU(u64, pmuctx_cookie_seq);

/* A sample's callchains, captured in the interrupt. */
struct pmuctx_sample_buf {
	unsigned long	kst[PMUCTX_MAX_STACK + 16];
	u64		ubuf[PMUCTX_MAX_STACK];
	u64		ip;
	unsigned int	nk, nu;
	u16		misc;
};

/* Scratch of the hrtimer source (IRQs off: one user per CPU). */
static DEFINE_PER_CPU(struct pmuctx_sample_buf, pmuctx_scratch);

/*
 * Per session and CPU, overflow source: one captured sample waiting for
 * its irq_work.  @busy is set by the overflow handler (any context, this
 * CPU) and cleared by the irq_work when it is done with the rest.
 */
struct pmuctx_sample_stage {
	struct irq_work		work;
	struct pmuctx_session	*s;
	struct pmuctx_entry	*e;	/* reference held while busy */
	const struct task_struct *task;	/* compared, never dereferenced */
	u64			weight;
	u64			took;	/* the capture's cost, ns */
	atomic_t		busy;
	atomic64_t		missed;	/* overflows while busy */
	atomic64_t		budget_missed;	/* refused before capture */
	atomic64_t		perf_throttled;	/* times perf stopped it */
	struct pmuctx_sample_buf b;
};

/*
 * The user stack dump (PMUCTX_SAMPLE_USER_DUMP): a multiple of 8 bytes,
 * bounded by what one record may hold and by half a CPU's data area (a
 * record the ring could never take is refused here, not lost later).
 */
static int pmuctx_udump_validate(const struct pmuctx_session_attr *a)
{
	u32 dump = a->sample_user_dump;

	if (a->__reserved4)
		return -EINVAL;
	if (!(a->sample_flags & PMUCTX_SAMPLE_USER_DUMP))
		return dump ? -EINVAL : 0;
	if (!(a->sample_flags & PMUCTX_SAMPLE_DEFER_USER))
		return -EINVAL;
	if (!dump)
		dump = PMUCTX_USER_DUMP_DEFAULT;
	if (dump % 8 || dump > PMUCTX_USER_DUMP_MAX ||
	    !pmuctx_rec_user_stack_fits(pmuctx_arch_regs_nr(), dump,
					(u64)a->ring_pages * PAGE_SIZE))
		return -EINVAL;
	return 0;
}

int pmuctx_sample_attr_validate(const struct pmuctx_session_attr *a)
{
	if (!a->sample_freq) {
		if (a->sample_flags || a->sample_max_stack || a->sample_event ||
		    a->sample_user_dump || a->__reserved4)
			return -EINVAL;
		return 0;
	}
	if (a->sample_event && (pmuctx_event_validate(a->sample_event) ||
				pmuctx_event_is_native(a->sample_event)))
		return -EINVAL;
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
	return pmuctx_udump_validate(a);
}

/* ---- user stacks ---------------------------------------------------------- */

struct pmuctx_frame {
	unsigned long next_fp;
	unsigned long ret;
};

/*
 * Frame-pointer walk of the user stack described by @regs.  @nofault: in
 * the interrupt (pmuctx_arch_copy_user_nofault(), stops at a page that is
 * not resident); otherwise task context (copy_from_user(), may fault in).
 * Returns the number of frames; *@trunc when the walk was cut short.
 */
static unsigned int pmuctx_user_walk(struct pt_regs *regs, u64 *ips,
				     unsigned int max, bool nofault,
				     bool *trunc)
{
	unsigned long fp = pmuctx_arch_user_fp(regs), prev = 0;
	struct pmuctx_frame f;
	unsigned int n = 0;
	unsigned long left;

	*trunc = false;
	if (!max)
		return 0;
	ips[n++] = pmuctx_arch_user_ip(regs);
	while (n < max) {
		if (!fp || fp & (sizeof(long) - 1) || fp <= prev)
			return n;
		/*
		 * The nofault copy checks the range itself; access_ok()
		 * must not be used in interrupt context (it warns there).
		 */
		if (!nofault && !access_ok((void __user *)fp, sizeof(f)))
			return n;
		if (nofault)
			left = pmuctx_arch_copy_user_nofault(&f,
							     (void __user *)fp,
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
 * kernel entry.  NULL for kernel threads and io_uring workers (threads of
 * a user process that never run in user mode: their saved registers are
 * zero).
 */
static struct pt_regs *pmuctx_user_regs(struct pt_regs *regs)
{
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER))
		return NULL;
	if (regs && user_mode(regs))
		return regs;
	return task_pt_regs(current);
}

/* ---- task works (deferred callchains, MMAP snapshots) ---------------------- */

/*
 * The entries whose task has a work of ours queued, for the administrator
 * whose rmmod fails with EBUSY: a task blocked in a system call keeps its
 * work, and with it a module reference, until it returns to user space
 * (SECURITY.md, "module unload").  The read-only parameter pending_works
 * names them.  A fixed table, since works are queued from interrupts and
 * NMIs (no lock, no allocation): a slot is taken and given back with
 * cmpxchg(); works beyond PMUCTX_PENDING_SLOTS are counted, not named.
 * The entry stays allocated while its work is queued (the work's
 * reference), and is freed after a grace period: the reader looks under
 * rcu_read_lock().
 */
#define PMUCTX_PENDING_SLOTS	64

static struct pmuctx_entry *pmuctx_pending[PMUCTX_PENDING_SLOTS];
static atomic_t pmuctx_pending_works = ATOMIC_INIT(0);

static void pmuctx_pending_add(struct pmuctx_entry *e)
{
	unsigned int i, k = hash_ptr(e, ilog2(PMUCTX_PENDING_SLOTS));

	atomic_inc(&pmuctx_pending_works);
	for (i = 0; i < PMUCTX_PENDING_SLOTS; i++, k++) {
		k %= PMUCTX_PENDING_SLOTS;
		if (!READ_ONCE(pmuctx_pending[k]) &&
		    !cmpxchg(&pmuctx_pending[k], NULL, e))
			return;
	}
}

static void pmuctx_pending_del(struct pmuctx_entry *e)
{
	unsigned int i, k = hash_ptr(e, ilog2(PMUCTX_PENDING_SLOTS));

	for (i = 0; i < PMUCTX_PENDING_SLOTS; i++, k++) {
		k %= PMUCTX_PENDING_SLOTS;
		if (READ_ONCE(pmuctx_pending[k]) == e &&
		    cmpxchg(&pmuctx_pending[k], e, NULL) == e)
			break;
	}
	atomic_dec(&pmuctx_pending_works);
}

/* "N" and then one "PID COMM" line per named task (pids of the init ns) */
static int pmuctx_param_pending_get(char *buf, const struct kernel_param *kp)
{
	int n = atomic_read(&pmuctx_pending_works), len, named = 0;
	struct pmuctx_entry *e;
	unsigned int i;

	len = sysfs_emit(buf, "%d\n", n);
	rcu_read_lock();
	for (i = 0; i < PMUCTX_PENDING_SLOTS; i++) {
		e = READ_ONCE(pmuctx_pending[i]);
		if (!e)
			continue;
		len += sysfs_emit_at(buf, len, "%d %.*s\n",
				     task_pid_nr(READ_ONCE(e->task)),
				     (int)sizeof(e->comm), e->comm);
		named++;
	}
	rcu_read_unlock();
	if (n > named && named == PMUCTX_PENDING_SLOTS)
		len += sysfs_emit_at(buf, len, "(%d more not named)\n",
				     n - named);
	return len;
}

static const struct kernel_param_ops pmuctx_pending_ops = {
	.get = pmuctx_param_pending_get,
};

module_param_cb(pending_works, &pmuctx_pending_ops, NULL, 0444);
MODULE_PARM_DESC(pending_works,
		 "Read only: the deferred works (user callchains, MMAP snapshots) queued in tasks, each holding a module reference until its task returns to user space; then the tasks (pid, comm; the first 64)");

/*
 * Queue @fn on the current task, @e's (TWA_RESUME: at its return to user
 * space), holding a reference on @e and on the module until the work
 * drops them (pmuctx_sample_work_end()): task_work cannot be cancelled
 * from a module.  *@pending is true while it is queued.
 * Interrupt or task context.  False if nothing was queued.
 */
bool pmuctx_entry_task_work(struct pmuctx_entry *e, struct callback_head *cb,
			    task_work_func_t fn, bool *pending)
{
	if (!refcount_inc_not_zero(&e->ref))
		return false;
	__module_get(THIS_MODULE);
	WRITE_ONCE(*pending, true);
	init_task_work(cb, fn);
	pmuctx_pending_add(e);
	if (task_work_add(current, cb, TWA_RESUME)) {
		pmuctx_pending_del(e);
		WRITE_ONCE(*pending, false);
		module_put(THIS_MODULE);
		pmuctx_entry_put(e);
		return false;
	}
	return true;
}

/*
 * The end of a work queued by pmuctx_entry_task_work(): drop its module
 * reference.  What follows (the mark, the entry's put, the return) is
 * module code that pmuctx_exit() waits for with synchronize_rcu_tasks().
 * The test hook busy-waits here (no voluntary switch, so RCU Tasks must
 * wait for it) to make that window wide; the work's mark is still on
 * (pmuctx_sample_work_end()), so no tick samples the wait.
 */
void pmuctx_task_work_done(struct pmuctx_entry *e)
{
	unsigned int ms = pmuctx_testhook_tail_ms();

	pmuctx_pending_del(e);
	module_put(THIS_MODULE);
	if (unlikely(ms))
		mdelay(min(ms, 2000U));
}

/* ---- deferred user callchains ------------------------------------------- */

/*
 * The user registers and the readable part of the user stack of one
 * kernel entry (PMUCTX_SAMPLE_USER_DUMP), taken once for every session
 * that wants them.  On the owner work's stack: no allocation.
 */
struct pmuctx_udump {
	u64			regs[PMUCTX_ARCH_REGS_MAX];
	const void __user	*sp;
	u32			avail;	/* bytes from sp found readable */
	bool			ok;
};

/*
 * How much of @len bytes from the user stack pointer @sp the dump may
 * take: no further than the end of the mapping @sp is in, and nothing
 * from device (VM_IO, VM_PFNMAP) memory, so fault_in_readable() neither
 * reads on into a neighbouring mapping (another thread's stack, a file,
 * vvar) nor touches a device.  Task context: takes the mmap lock.
 */
static unsigned long pmuctx_udump_len(unsigned long sp, unsigned long len)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	if (!mm || sp >= TASK_SIZE)
		return 0;
	mmap_read_lock(mm);
	vma = find_vma(mm, sp);
	if (!vma || vma->vm_start > sp ||
	    vma->vm_flags & (VM_IO | VM_PFNMAP))
		len = 0;
	else
		len = min(len, vma->vm_end - sp);
	mmap_read_unlock(mm);
	return len;
}

/*
 * Task context (the task_work): the registers, and how much of the @max
 * bytes above the user stack pointer can be read, faulting the pages in
 * now (pmuctx_rec_user_stack() copies them without faulting, preemption
 * off).  Nothing for a 32-bit task.
 */
static void pmuctx_udump_take(struct pt_regs *regs, u32 max,
			      struct pmuctx_udump *ud)
{
	unsigned long sp, len = max;

	ud->ok = false;
	if (!pmuctx_arch_user_regs(regs, ud->regs, &sp))
		return;
	len = pmuctx_udump_len(sp, len);
	/* the prefix up to the first page that cannot be read */
	len -= fault_in_readable((const char __user *)sp, len);
	ud->sp = (const void __user *)sp;
	ud->avail = len & ~7UL;
	ud->ok = true;
}

/*
 * Deliver the user callchain @ips (@n frames, @trunc) of cookie @cookie to
 * @x's session, cut to its depth, after its USER_STACK record if it wants
 * one (@ud).  Task context, inside rcu_read_lock() (the ring is freed
 * after a grace period).
 */
static void pmuctx_defer_write(struct pmuctx_entry *x, u64 cookie,
			       const u64 *ips, unsigned int n, bool trunc,
			       const struct pmuctx_udump *ud)
{
	struct pmuctx_session *s = x->sess;
	unsigned int max = s->sample_max_stack;

	if (ud->ok && (s->sample_flags & PMUCTX_SAMPLE_USER_DUMP))
		pmuctx_rec_user_stack(s, cookie, ud->regs,
				      pmuctx_arch_regs_nr(), ud->sp,
				       min(ud->avail, s->sample_user_dump));
	pmuctx_rec_user_callchain(s, cookie, ips, min(n, max),
				  trunc || n > max);
}

/* Bytes of user stack @x's session dumps (0: none). */
static u32 pmuctx_udump_size(const struct pmuctx_entry *x)
{
	const struct pmuctx_session *s = x->sess;

	return s->sample_flags & PMUCTX_SAMPLE_USER_DUMP ?
	       s->sample_user_dump : 0;
}

/*
 * Does @x's session still want the walk?  Inside rcu_read_lock(), in the
 * task.  Not in a privilege-raising exec (pmuctx_cred_gone(); a task_work
 * runs there only if the exec fails past its point of no return, on the
 * way to the task's death, but the walk must not depend on that).
 */
static bool pmuctx_defer_wants(struct pmuctx_entry *x)
{
	return !READ_ONCE(pmuctx_defer(x)->stale) && !READ_ONCE(x->dead) &&
	       pmuctx_sess_live(x->sess) && !pmuctx_cred_gone(x, current);
}

/*
 * The owner's work, the task returning to user space: walk the user stack
 * once, as deep as the deepest session wants it, into this frame (no
 * allocation), and write it to the owner's session and to every session
 * that joined.  The joined entries are on the owner's list, each with a
 * reference the join took: released here, whatever happens.
 */
static noinline void pmuctx_defer_deliver(struct pmuctx_entry *e,
					  struct pmuctx_entry *joined,
					  u64 cookie, bool walk)
{
	unsigned int max = e->sess->sample_max_stack, n = 0;
	u32 dump = pmuctx_udump_size(e);
	struct pmuctx_entry *x, *next;
	u64 ips[PMUCTX_MAX_STACK];
	struct pmuctx_udump ud;
	struct pt_regs *regs;
	bool trunc = false, want;

	/* who still wants it, how deep, how much of the stack */
	rcu_read_lock();
	want = pmuctx_defer_wants(e);
	if (!want)
		dump = 0;
	for (x = joined; x; x = pmuctx_defer(x)->join_next) {
		if (!pmuctx_defer_wants(x))
			continue;
		want = true;
		max = max(max, x->sess->sample_max_stack);
		dump = max(dump, pmuctx_udump_size(x));
	}
	rcu_read_unlock();

	ud.ok = false;
	regs = walk && want ? pmuctx_user_regs(NULL) : NULL;
	if (regs) {
		n = pmuctx_user_walk(regs, ips, min_t(unsigned int, max,
						      PMUCTX_MAX_STACK),
				     false, &trunc);
		if (dump)
			pmuctx_udump_take(regs, dump, &ud);
	}

	for (x = joined; x; x = next) {
		struct pmuctx_defer *dx = pmuctx_defer(x);

		next = dx->join_next;
		rcu_read_lock();
		if (regs && pmuctx_defer_wants(x)) {
			unsigned int nx = min(n, x->sess->sample_max_stack);

			pmuctx_defer_write(x, cookie, ips, n, trunc, &ud);
			/*
			 * Its MMAP records by a work of its own, next (IRQs
			 * off: a sample's pmuctx_maps_queue() could race).
			 */
			if (pmuctx_maps_wanted(x, ips, nx)) {
				unsigned long flags;

				local_irq_save(flags);
				pmuctx_maps_queue(x);
				local_irq_restore(flags);
			}
		}
		rcu_read_unlock();
		/* before pending: a join right after it links x anew */
		WRITE_ONCE(dx->join_next, NULL);
		WRITE_ONCE(dx->stale, false);
		WRITE_ONCE(dx->in_work, false);
		barrier();
		WRITE_ONCE(dx->pending, false);
		pmuctx_entry_put(x);
	}
	if (!regs)
		return;
	rcu_read_lock();
	want = pmuctx_defer_wants(e);
	if (want)
		pmuctx_defer_write(e, cookie, ips, n, trunc, &ud);
	rcu_read_unlock();
	/* an address no MMAP record described yet */
	if (want && pmuctx_maps_wanted(e, ips,
				       min(n, e->sess->sample_max_stack)))
		pmuctx_maps_scan(e);
}

#ifdef PMUCTX_DEBUG
static unsigned int pmuctx_selftest_work_stall_ms;
module_param_named(selftest_work_stall_ms, pmuctx_selftest_work_stall_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_work_stall_ms,
		 "Test hook: the deferred user callchain work sleeps this long (at most 2000 ms) inside the time the sample budget charges, as a work its task's owner stalls does (0: off)");

/* Debug build: a stall of the deferred work (t_sample budget-stall). */
static void pmuctx_sample_debug_stall(void)
{
	unsigned int ms = READ_ONCE(pmuctx_selftest_work_stall_ms);

	if (ms)
		msleep(min(ms, 2000U));
}
#else
static inline void pmuctx_sample_debug_stall(void) { }
#endif

/*
 * A tick in pmuctx's own code: one of its task_works (this file's unwind,
 * maps.c's scan) marks the entries it holds references to while it runs
 * (in_work), and a tick of any session of the task, found through the
 * store, sees the mark; or the interrupted ip is in the module (a probe,
 * a work before it marked or after it unmarked).  The time is the
 * profiler's, not the program's: perf walks user stacks in the interrupt,
 * where no sample can land.  The works touch no store themselves: they
 * may run after the last session is closed and the store is gone.
 * Interrupt (NMI included), inside rcu_read_lock(), @e's session live (so
 * the store is too).
 */
static bool pmuctx_sample_ours(struct pmuctx_entry *e, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct rhlist_head *list, *pos;
	struct pmuctx_entry *x;

	if (regs && user_mode(regs))
		return false;
	if (regs && within_module(instruction_pointer(regs), THIS_MODULE))
		return true;
	if (READ_ONCE(pmuctx_defer(e)->in_work))
		return true;
	list = pmuctx_store_lookup(t);
	rhl_for_each_entry_rcu(x, pos, list, node) {
		struct pmuctx_defer *dx = x == e ? NULL : pmuctx_defer(x);

		if (dx && READ_ONCE(dx->in_work))
			return true;
	}
	return false;
}

static void pmuctx_defer_fn(struct callback_head *cb)
{
	struct pmuctx_defer *d = container_of(cb, struct pmuctx_defer, work);
	struct pmuctx_entry *e = d->e, *joined, *x;
	struct pmuctx_budget_mark bm;
	u64 cookie = READ_ONCE(d->cookie);

	/*
	 * From here on no sample joins this unwind (they queue their own).
	 * Joins happen in the sampling interrupt of this task, on the CPU
	 * it runs on: one sees this store or came before it, and then it is
	 * on the list taken below.
	 */
	WRITE_ONCE(d->delivering, true);
	barrier();
	joined = d->joined;
	d->joined = NULL;
	/* no sample of this work, in any session that shares it */
	pmuctx_sample_mark_work(e, true);
	for (x = joined; x; x = pmuctx_defer(x)->join_next)
		pmuctx_sample_mark_work(x, true);
	/* the work's cost (the budget's), from here: marked, no sample */
	pmuctx_budget_work_start(&bm);
	pmuctx_sample_debug_stall();
	/*
	 * A task that will not return to user space writes nothing: run by
	 * exit_task_work() (PF_EXITING), or by get_signal() for a task that
	 * is being killed (it runs task_work before dying).  Neither does one
	 * that exec'd since the sample: its stack is another program's (the
	 * exec probe marks every pending entry of the task stale).  Nor one
	 * whose entry a setuid exec dropped: a sample between the exec
	 * probe's stale check and the drop queues a fresh work, which would
	 * walk the setuid program's stack (an ASLR leak).  The joined
	 * sessions are released all the same.
	 */
	pmuctx_defer_deliver(e, joined, cookie,
			     !(current->flags & PF_EXITING) &&
			     !fatal_signal_pending(current));
	WRITE_ONCE(d->stale, false);
	WRITE_ONCE(d->owner, false);
	WRITE_ONCE(d->delivering, false);
	WRITE_ONCE(d->pending, false);
	/* the walk, the dumps, a snapshot: sampling's cost too */
	pmuctx_budget_deferred(&bm);
	/*
	 * Last: drop the module reference this work held, then the mark
	 * and the entry's reference.  Module removal waits for the rest
	 * with RCU Tasks (pmuctx_exit()): an RCU grace period alone does
	 * not, a task preempted here under PREEMPT_RCU is already quiescent
	 * for it.
	 */
	pmuctx_sample_work_end(e);
}

/*
 * In the sampling interrupt (inside rcu_read_lock()): join an unwind of
 * the current task that another session queued in this kernel entry and
 * has not started, taking its cookie.  0 if there is none.
 */
static u64 pmuctx_defer_join(struct pmuctx_entry *e, struct pmuctx_defer *d)
{
	struct task_struct *t = current;
	struct rhlist_head *list, *pos;
	struct pmuctx_entry *x;

	list = pmuctx_store_lookup(t);
	rhl_for_each_entry_rcu(x, pos, list, node) {
		struct pmuctx_defer *dx = x == e ? NULL : pmuctx_defer(x);
		u64 cookie;

		if (!dx || !READ_ONCE(dx->owner) || READ_ONCE(dx->delivering) ||
		    !READ_ONCE(dx->pending) || READ_ONCE(dx->stale))
			continue;
		/* for the owner's work, which may run after a close() */
		if (!refcount_inc_not_zero(&e->ref))
			return 0;
		cookie = READ_ONCE(dx->cookie);
		d->join_next = dx->joined;
		dx->joined = e;
		WRITE_ONCE(d->cookie, cookie);
		WRITE_ONCE(d->owner, false);
		WRITE_ONCE(d->pending, true);
		return cookie;
	}
	return 0;
}

/*
 * In the sampling interrupt: the cookie the task's next return to user
 * space will resolve, joining another session's unwind of this kernel
 * entry or queuing one if this is the first sample of any session since
 * the task entered the kernel.  0 if no work could be queued.
 */
static u64 pmuctx_defer_cookie(struct pmuctx_session *s,
			       struct pmuctx_entry *e)
{
	struct pmuctx_defer *d = pmuctx_defer(e);
	u64 cookie;

	if (!d || current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING))
		return 0;
	if (READ_ONCE(d->pending))
		return READ_ONCE(d->cookie);
	cookie = pmuctx_defer_join(e, d);
	if (cookie)
		return cookie;
	cookie = ((u64)(smp_processor_id() + 1) << 48) |
		 (this_cpu_inc_return(pmuctx_cookie_seq) & GENMASK_ULL(47, 0));
	WRITE_ONCE(d->cookie, cookie);
	WRITE_ONCE(d->owner, true);
	d->e = e;
	if (!pmuctx_entry_task_work(e, &d->work, pmuctx_defer_fn, &d->pending)) {
		WRITE_ONCE(d->owner, false);
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
 * What the task ran on this CPU since the session's previous sample here
 * (a tick taken, not one the budget refused) or since it was switched in,
 * whichever is later.
 */
static u64 pmuctx_sample_ran(struct pmuctx_sess_cpu *sc,
			     struct pmuctx_entry *e, u64 now)
{
	u64 from = sc->last_tick, in = pmuctx_defer(e)->in_ns;

	/* not e->in_ns: READ and ENABLE restart slices, not the period */
	if (in > from)
		from = in;
	return from && now > from ? now - from : 0;
}

/*
 * The CPU time the sample stands for: what the task ran since the
 * session's previous sample of it, here and before its last switch-outs
 * (carry_ns).  Not the nominal period: ticks can be late or missed (TCG,
 * long IRQ-off sections), the budget can refuse some, and a task that
 * came in mid-period did not use all of it.
 */
static u64 pmuctx_sample_weight(struct pmuctx_sess_cpu *sc,
				struct pmuctx_entry *e, u64 now)
{
	struct pmuctx_defer *d = pmuctx_defer(e);
	u64 w = pmuctx_sample_ran(sc, e, now);

	if (d) {
		w += d->carry_ns;
		d->carry_ns = 0;
	}
	return w ? w : e->sess->sample_period_ns;
}

/*
 * Capture the sample of the interrupted context @regs into @b: ip, kernel
 * callchain, immediate user callchain (non-faulting).  Any context,
 * NMI included; preemption off.
 */
static void pmuctx_sample_capture(struct pmuctx_session *s,
				  struct pt_regs *regs,
				  struct pmuctx_sample_buf *b)
{
	unsigned int max = s->sample_max_stack, cut;
	unsigned long *kst = b->kst;
	struct pt_regs *uregs;
	bool trunc;

	b->nk = 0;
	b->nu = 0;
	b->misc = 0;
	b->ip = regs ? instruction_pointer(regs) : 0;
	if (regs && user_mode(regs))
		b->misc |= PMUCTX_SAMPLE_M_USER;
	if (!(b->misc & PMUCTX_SAMPLE_M_USER) && !s->show_kaddr) {
		b->misc |= PMUCTX_SAMPLE_M_KADDR_HIDDEN;
		b->ip = 0;
	}
	if ((s->sample_flags & PMUCTX_SAMPLE_KERNEL_STACK) && regs &&
	    !(b->misc & (PMUCTX_SAMPLE_M_USER | PMUCTX_SAMPLE_M_KADDR_HIDDEN))) {
		b->nk = stack_trace_save(kst, ARRAY_SIZE(b->kst), 0);
		cut = pmuctx_cut_irq_frames(kst, b->nk,
					    instruction_pointer(regs));
		if (cut < b->nk) {
			memmove(kst, kst + cut, (b->nk - cut) * sizeof(kst[0]));
			b->nk -= cut;
		} else {
			kst[0] = instruction_pointer(regs);
			b->nk = 1;
		}
		if (b->nk > max) {
			b->nk = max;
			b->misc |= PMUCTX_SAMPLE_M_KERNEL_TRUNC;
		}
	}
	if ((s->sample_flags & PMUCTX_SAMPLE_USER_STACK) &&
	    !(s->sample_flags & PMUCTX_SAMPLE_DEFER_USER)) {
		uregs = pmuctx_user_regs(regs);
		if (uregs)
			b->nu = pmuctx_user_walk(uregs, b->ubuf, max, true,
						 &trunc);
		if (uregs && trunc)
			b->misc |= PMUCTX_SAMPLE_M_USER_TRUNC;
	}
}

/*
 * Write the SAMPLE captured in @b for @e's task, taking the deferred user
 * callchain's cookie if the session wants one and @current_task (the
 * sampled task is current: the task_work goes to it).  Hardirq context.
 */
static void pmuctx_sample_emit(struct pmuctx_session *s,
			       struct pmuctx_entry *e,
			       struct pmuctx_sample_buf *b, u64 weight,
			       bool current_task)
{
	u64 cookie = 0;

	if ((s->sample_flags & PMUCTX_SAMPLE_DEFER_USER) &&
	    (s->sample_flags & PMUCTX_SAMPLE_USER_STACK)) {
		if (current_task)
			cookie = pmuctx_defer_cookie(s, e);
		else
			b->misc |= PMUCTX_SAMPLE_M_USER_TRUNC;
		if (cookie)
			b->misc |= PMUCTX_SAMPLE_M_USER_DEFERRED;
	}
	pmuctx_rec_sample(s, e, b->misc, b->ip, weight, cookie, b->kst, b->nk,
			  b->ubuf, b->nu);
	/* MMAP records (maps.c): written by the task, at its return */
	if (current_task && s->maps_offset) {
		const u64 *ips = b->ubuf;
		unsigned int n = b->nu;

		if (!n && (b->misc & PMUCTX_SAMPLE_M_USER)) {
			ips = &b->ip;
			n = 1;
		}
		if (pmuctx_maps_wanted(e, ips, n))
			pmuctx_maps_queue(e);
	}
}

/*
 * A session with exclude_kernel (no CAP_PERFMON at perf_event_paranoid
 * >= 2) gets no sample of an interrupted kernel context at all, as perf
 * drops every sample of an exclude_kernel event there: hiding the
 * addresses alone would still tell when and how long the task ran in the
 * kernel.  So does a sample event without kernel mode (cycles:u,
 * sample_excl_kernel).  No regs (not from an interrupt): kernel.
 */
static bool pmuctx_sample_excluded(const struct pmuctx_session *s,
				   struct pt_regs *regs)
{
	return s->sample_excl_kernel && !(regs && user_mode(regs));
}

static void pmuctx_sample(struct pmuctx_session *s, struct pmuctx_entry *e,
			  struct pt_regs *regs, u64 weight)
{
	struct pmuctx_sample_buf *b = this_cpu_ptr(&pmuctx_scratch);

	pmuctx_sample_capture(s, regs, b);
	pmuctx_sample_emit(s, e, b, weight, true);
}

/* Shortest sampling period, whatever the frequency (perf's floor). */
#define PMUCTX_MIN_PERIOD_NS	(10 * NSEC_PER_USEC)

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
		pmuctx_rec_throttle(s, PMUCTX_THROTTLE_ON, sc->cur_period,
				    sc->avg_took, 0);
	} else if (p > s->sample_period_ns && sc->avg_took < p / 16) {
		sc->cur_period = max_t(u64, p / 2, s->sample_period_ns);
		pmuctx_rec_throttle(s, 0, sc->cur_period, sc->avg_took, 0);
	}
}

/*
 * The global budget (budget.c) refused a sample of @s on this CPU: count
 * it, and at the session's first refusal in a budget window write a
 * BUDGET record of what it has counted.  IRQs off.
 */
static void pmuctx_sample_budget_report(struct pmuctx_session *s,
					struct pmuctx_sess_cpu *sc)
{
	struct pmuctx_sample_stage *st = sc->stage;

	/* refusals the overflow handler counted before capturing */
	if (st && atomic64_read(&st->budget_missed)) {
		u64 n = atomic64_xchg(&st->budget_missed, 0);

		sc->budget_dropped += n;
		pmuctx_budget_refused(n);
	}
	if (!sc->budget_dropped)
		return;
	/* a full ring keeps the count for the next record */
	if (pmuctx_rec_throttle(s, PMUCTX_THROTTLE_ON |
				 PMUCTX_THROTTLE_BUDGET,
				 pmuctx_budget_period_ns(),
				 pmuctx_budget_avg_ns(), sc->budget_dropped))
		sc->budget_dropped = 0;
}

/*
 * perf throttled the session's sampling counter on this CPU (the
 * overflow handler counted it): a THROTTLE PERF record of the times since
 * the last one.  IRQs off, on the stage's CPU.  A full ring keeps the
 * count for the next record.
 */
static void pmuctx_sample_perf_report(struct pmuctx_session *s,
				      struct pmuctx_sess_cpu *sc)
{
	struct pmuctx_sample_stage *st = sc->stage;
	u64 n;

	if (!st || !atomic64_read(&st->perf_throttled))
		return;
	n = atomic64_xchg(&st->perf_throttled, 0);
	if (!pmuctx_rec_throttle(s, PMUCTX_THROTTLE_ON | PMUCTX_THROTTLE_PERF,
				 TICK_NSEC, 0, n))
		atomic64_add(n, &st->perf_throttled);
}

/* Both of this CPU's pending reports (switch-out, DISABLE).  IRQs off. */
static void pmuctx_sample_report(struct pmuctx_session *s,
				 struct pmuctx_sess_cpu *sc)
{
	pmuctx_sample_budget_report(s, sc);
	pmuctx_sample_perf_report(s, sc);
}

static void pmuctx_sample_budget_drop(struct pmuctx_session *s,
				      struct pmuctx_sess_cpu *sc)
{
	u64 window = pmuctx_budget_window();

	sc->budget_dropped++;
	if (sc->budget_window != window) {
		sc->budget_window = window;
		pmuctx_sample_budget_report(s, sc);
	}
}

/*
 * The next tick a full @ns after this one ends, not on the timer's grid
 * (hrtimer_forward_now()): a tick that came late (interrupts off, an
 * emulator) would otherwise be followed by one less than a period later,
 * two samples standing for one period of the task's time.
 */
static void pmuctx_sample_rearm(struct hrtimer *t, u64 ns)
{
	hrtimer_set_expires(t, ktime_add_ns(hrtimer_cb_get_time(t), ns));
}

static enum hrtimer_restart pmuctx_sample_tick(struct hrtimer *t)
{
	struct pmuctx_sess_cpu *sc = container_of(t, struct pmuctx_sess_cpu,
						  timer);
	struct pmuctx_session *s = sc->sess;
	struct pt_regs *regs = get_irq_regs();
	struct pmuctx_entry *e;
	u64 now, took, wait;

	/*
	 * A CPU going offline hands its hrtimers to a live CPU: a timer that
	 * is not on its own CPU stops, rather than sample that CPU twice.
	 * (A CPU that comes back samples again from the next ENABLE.)
	 */
	if (!pmuctx_sess_live(s) || !READ_ONCE(s->enabled) ||
	    sc != this_cpu_ptr(s->cpu))
		return HRTIMER_NORESTART;
	now = local_clock();
	rcu_read_lock();
	e = is_idle_task(current) ? NULL : pmuctx_current_entry(s);
	if (!e || !READ_ONCE(e->in)) {
		/* no task of the session here: the next switch-in re-arms */
		rcu_read_unlock();
		sc->last_tick = now;
		return HRTIMER_NORESTART;
	}
	/*
	 * An excluded kernel-mode tick is skipped, but still ends the period:
	 * the next sample's weight does not include the kernel time.  So is
	 * a tick in pmuctx's own task_work: the profiler's time.  And a tick
	 * of a task in a privilege-raising exec past commit_creds(): its
	 * user registers may be the setuid program's already (its ld.so
	 * entry: an ASLR leak, issue 29 item 7).  The exec probe stops the
	 * entry; until then the slice does not reopen (pmuctx_entry_start()),
	 * and the ticks of this one take nothing.
	 */
	if (pmuctx_sample_excluded(s, regs) || pmuctx_cred_gone(e, current) ||
	    pmuctx_sample_ours(e, regs)) {
		pmuctx_defer(e)->carry_ns = 0;
	} else {
		if (!pmuctx_budget_take(now, &sc->budget, s->user)) {
			/*
			 * The next sample's period covers this tick's time.
			 * No chance before the next budget window: wait for
			 * it, so refused sessions cost no interrupts.
			 */
			pmuctx_sample_budget_drop(s, sc);
			rcu_read_unlock();
			wait = max(sc->cur_period, pmuctx_budget_next_ns(now));
			pmuctx_sample_rearm(t, wait);
			return HRTIMER_RESTART;
		}
		pmuctx_sample_budget_report(s, sc);
		pmuctx_sample(s, e, regs, pmuctx_sample_weight(sc, e, now));
		took = local_clock() - now;
		pmuctx_budget_cost(took);
		pmuctx_sample_throttle(s, sc, took);
	}
	rcu_read_unlock();
	sc->last_tick = now;
	pmuctx_sample_rearm(t, sc->cur_period);
	return HRTIMER_RESTART;
}

/* ---- the overflow source ------------------------------------------------ */

/* irq_work of a stage (hardirq, the stage's CPU): write the sample. */
static void pmuctx_sample_stage_fn(struct irq_work *w)
{
	struct pmuctx_sample_stage *st = container_of(w, struct pmuctx_sample_stage,
						      work);
	struct pmuctx_session *s = st->s;
	struct pmuctx_entry *e = st->e;
	u64 missed;

	if (!atomic_read(&st->busy))
		return;
	rcu_read_lock();
	if (!e) {
		/* an ask (PMUCTX_BUDGET_ASK): no sample, the session counted */
		if (pmuctx_sess_live(s) && READ_ONCE(s->enabled)) {
			struct pmuctx_sess_cpu *sc = this_cpu_ptr(s->cpu);

			pmuctx_budget_note(local_clock(), &sc->budget,
					   s->user);
			pmuctx_sample_budget_drop(s, sc);
		}
		rcu_read_unlock();
		atomic_set_release(&st->busy, 0);
		return;
	}
	if (pmuctx_sess_live(s) && READ_ONCE(s->enabled)) {
		struct pmuctx_sess_cpu *sc = this_cpu_ptr(s->cpu);
		u64 now = local_clock();

		missed = atomic64_xchg(&st->missed, 0);
		if (missed)
			pmuctx_rec_lost(s, missed);
		pmuctx_sample_perf_report(s, sc);
		if (pmuctx_budget_take(now, &sc->budget, s->user)) {
			pmuctx_sample_budget_report(s, sc);
			pmuctx_sample_emit(s, e, &st->b, st->weight,
					   st->task == current);
			pmuctx_budget_cost(st->took + local_clock() - now);
		} else {
			pmuctx_sample_budget_drop(s, sc);
		}
	}
	rcu_read_unlock();
	st->e = NULL;
	atomic_set_release(&st->busy, 0);
	pmuctx_entry_put(e);
}

/*
 * Overflow of a session's sampling counter on this CPU: NMI for a
 * hardware PMU, hrtimer (hardirq) for cpu-clock.  Capture only; see the
 * top of the file.
 */
void pmuctx_sample_overflow(struct perf_event *ev,
			    struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	struct pmuctx_session *s = ev->overflow_handler_context;
	struct pmuctx_sample_stage *st;
	struct pmuctx_entry *e;

	/*
	 * The counter excludes kernel mode already, but a hardware PMU's
	 * overflow can land in the kernel after the user instruction (skid).
	 */
	if (!pmuctx_sess_live(s) || !READ_ONCE(s->enabled))
		return;
	st = this_cpu_ptr(s->cpu)->stage;
	if (!st)
		return;
	/*
	 * perf stops the counter after this overflow until its next tick,
	 * whoever it interrupted: say so (THROTTLE PERF), whether or not
	 * this overflow makes a sample.
	 */
	if (unlikely(pmuctx_perf_throttled(ev)))
		atomic64_inc(&st->perf_throttled);
	if (is_idle_task(current) || pmuctx_sample_excluded(s, regs))
		return;
	rcu_read_lock();
	e = pmuctx_task_entry(s, current);
	/*
	 * Only a task of the session asks the budget (its counters are per
	 * CPU: one may overflow in whatever task runs there); not in
	 * pmuctx's own task_work, nor in a privilege-raising exec past
	 * commit_creds() (see the hrtimer's tick).
	 */
	if (!e || pmuctx_sample_ours(e, regs) || pmuctx_cred_gone(e, current))
		goto out;
	/*
	 * Then the budget (a read-only look, NMI-safe): a refused sample
	 * costs no stack walk.  The stage's irq_work takes it for real, or
	 * for an ask only counts the session among the window's users
	 * (pmuctx_budget_note(): a session whose counter overflows after
	 * the window's room is gone is not starved).
	 */
	switch (pmuctx_budget_may(local_clock(),
				  &this_cpu_ptr(s->cpu)->budget)) {
	case PMUCTX_BUDGET_YES:
		break;
	case PMUCTX_BUDGET_ASK:
		if (!atomic_read(&st->busy)) {
			atomic_set(&st->busy, 1);
			st->e = NULL;
			irq_work_queue(&st->work);
			goto out;
		}
		/* a sample waits in the stage: its take() counts the session */
		fallthrough;
	default:
		atomic64_inc(&st->budget_missed);
		goto out;
	}
	if (atomic_read(&st->busy) || !refcount_inc_not_zero(&e->ref)) {
		atomic64_inc(&st->missed);
	} else {
		u64 t0 = local_clock();

		atomic_set(&st->busy, 1);
		pmuctx_sample_capture(s, regs, &st->b);
		st->took = local_clock() - t0;
		st->e = e;
		st->task = current;
		st->weight = data->period;
		irq_work_queue(&st->work);
	}
out:
	rcu_read_unlock();
}

/*
 * Session creation (process context): the sampling parameters, and the
 * source: hrtimers, or the overflow counters and their stages.  Undone by
 * pmuctx_sample_destroy(), also after a failure here.
 */
int pmuctx_sample_init(struct pmuctx_session *s,
		       const struct pmuctx_session_attr *a, bool show_kaddr)
{
	struct pmuctx_sample_stage *st;
	struct pmuctx_excl x;
	int cpu;

	s->sample_freq = a->sample_freq;
	s->sample_flags = a->sample_flags;
	s->sample_max_stack = a->sample_max_stack ? a->sample_max_stack : 64;
	s->sample_event = a->sample_event;
	s->sample_desc = a->sample_desc;
	/* the hrtimer: the session's default; an event: its own modes */
	pmuctx_evdesc_excl(a->sample_desc.flags, s->exclude_kernel, &x);
	s->sample_excl_kernel = a->sample_event ? x.kernel : s->exclude_kernel;
	s->sample_user_dump = 0;
	if (a->sample_flags & PMUCTX_SAMPLE_USER_DUMP)
		s->sample_user_dump = a->sample_user_dump ?:
				      PMUCTX_USER_DUMP_DEFAULT;
	s->show_kaddr = show_kaddr;
	if (!s->sample_freq)
		return 0;
	/*
	 * At least 10 us, as perf's hrtimer events: max_sample_freq has no
	 * ceiling, and a period of 0 would re-arm the timer for now.
	 */
	s->sample_period_ns = max_t(u64, div_u64(NSEC_PER_SEC, s->sample_freq),
				    PMUCTX_MIN_PERIOD_NS);
	if (!s->sample_event) {
		for_each_possible_cpu(cpu) {
			struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

			pmuctx_hrtimer_setup(&sc->timer, pmuctx_sample_tick,
					     CLOCK_MONOTONIC,
					     HRTIMER_MODE_REL_PINNED_HARD);
			/* a switch-in may arm it before ENABLE's IPI */
			sc->cur_period = s->sample_period_ns;
		}
		return 0;
	}
	for_each_possible_cpu(cpu) {
		st = kzalloc_node(sizeof(*st), GFP_KERNEL_ACCOUNT,
				  cpu_to_node(cpu));
		if (!st)
			return -ENOMEM;
		/*
		 * Hard: on PREEMPT_RT a plain irq_work runs in the irq_work
		 * thread, where current is not the sampled task (it could not
		 * take the deferred callchain's task_work).
		 */
		st->work = IRQ_WORK_INIT_HARD(pmuctx_sample_stage_fn);
		st->s = s;
		per_cpu_ptr(s->cpu, cpu)->stage = st;
	}
	return pmuctx_sample_counters_create(s, pmuctx_sample_overflow);
}

static bool pmuctx_sample_timed(const struct pmuctx_session *s)
{
	return s->sample_freq && !s->sample_event;
}

/*
 * sched_switch (IRQs off), after pmuctx_entry_start(): @e's task runs on
 * this CPU now.  Arm the session's timer here with what was left of the
 * task's period (a task of short slices is still sampled).  A timer still
 * armed belongs to a task that left without a switch-out of its entry
 * (retired at exit): it is restarted for this one, whose previous sample
 * may be recent.  Nothing if the slice did not open (disabled, parked).
 */
void pmuctx_sample_sched_in(struct pmuctx_entry *e, u64 now)
{
	struct pmuctx_session *s = e->sess;
	struct pmuctx_sess_cpu *sc;
	struct pmuctx_defer *d;
	u64 left;

	if (!pmuctx_sample_timed(s) || !READ_ONCE(e->in))
		return;
	sc = this_cpu_ptr(s->cpu);
	d = pmuctx_defer(e);
	d->in_ns = now;
	left = d->left_ns;
	if (!left || left > sc->cur_period)
		left = sc->cur_period;
	d->left_ns = 0;
	sc->last_tick = now;
	hrtimer_start(&sc->timer, ns_to_ktime(left),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * sched_switch (IRQs off): @e's task leaves this CPU at @now.  Keep what
 * it ran since the session's last sample of it (for the next sample's
 * period) and what is left of its period, and stop the timer.  Its
 * callback cannot be running: it runs in hardirq context on this CPU (a
 * timer handed to another CPU by hotplug stops itself).
 */
void pmuctx_sample_sched_out(struct pmuctx_entry *e, u64 now)
{
	struct pmuctx_session *s = e->sess;
	struct pmuctx_sess_cpu *sc;
	s64 left;

	if (!s->sample_freq)
		return;
	sc = this_cpu_ptr(s->cpu);
	if (pmuctx_sess_live(s))
		pmuctx_sample_report(s, sc);
	if (!pmuctx_sample_timed(s) || !READ_ONCE(e->in))
		return;
	pmuctx_defer(e)->carry_ns += pmuctx_sample_ran(sc, e, now);
	if (!hrtimer_is_queued(&sc->timer))
		return;
	left = ktime_to_ns(hrtimer_get_remaining(&sc->timer));
	pmuctx_defer(e)->left_ns = left > 0 ? left : 0;
	hrtimer_try_to_cancel(&sc->timer);
}

/*
 * IPI on each CPU (ENABLE): reset this CPU's period and start its timer
 * if a task of the session runs here now (its slice was opened by the
 * pmuctx_cpu_sync() before).
 */
static void pmuctx_sample_start_cpu(void *info)
{
	struct pmuctx_session *s = info;
	struct pmuctx_sess_cpu *sc = this_cpu_ptr(s->cpu);
	struct pmuctx_entry *e;

	if (hrtimer_active(&sc->timer))
		return;
	sc->last_tick = local_clock();
	sc->cur_period = s->sample_period_ns;
	sc->avg_took = 0;
	rcu_read_lock();
	e = is_idle_task(current) ? NULL : pmuctx_current_entry(s);
	if (e && READ_ONCE(e->in))
		hrtimer_start(&sc->timer, ns_to_ktime(sc->cur_period),
			      HRTIMER_MODE_REL_PINNED_HARD);
	rcu_read_unlock();
}

/* Process context (ENABLE, s->enabled already set). */
void pmuctx_sample_start(struct pmuctx_session *s)
{
	int cpu;

	if (!s->sample_freq)
		return;
	if (!s->sample_event) {
		on_each_cpu(pmuctx_sample_start_cpu, s, 1);
		return;
	}
	/* against the hotplug work replacing a counter (counters.c) */
	mutex_lock(&pmuctx_mutex);
	for_each_possible_cpu(cpu) {
		struct perf_event *ev = per_cpu_ptr(s->cpu, cpu)->sample_ev;

		if (ev)
			perf_event_enable(ev);
	}
	mutex_unlock(&pmuctx_mutex);
}

/*
 * Process context (DISABLE, teardown): stop every timer or counter, wait
 * for any callback or staged sample still running, then write the BUDGET
 * record of each CPU's refusals and the THROTTLE PERF record of perf's
 * stops not reported yet (DISABLE only: a dead session's ring has no
 * reader).
 */
static void pmuctx_sample_report_cpu(void *info)
{
	struct pmuctx_session *s = info;

	if (pmuctx_sess_live(s))
		pmuctx_sample_report(s, this_cpu_ptr(s->cpu));
}

void pmuctx_sample_stop(struct pmuctx_session *s)
{
	int cpu;

	if (!s->sample_freq || !s->cpu)
		return;
	if (!s->sample_event) {
		for_each_possible_cpu(cpu)
			hrtimer_cancel(&per_cpu_ptr(s->cpu, cpu)->timer);
		goto report;
	}
	/* against the hotplug work replacing a counter (counters.c) */
	mutex_lock(&pmuctx_mutex);
	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		/*
		 * perf_event_disable() stops the counter on its CPU, by IPI:
		 * an overflow NMI there has returned by then.
		 */
		if (sc->sample_ev)
			perf_event_disable(sc->sample_ev);
		if (sc->stage)
			irq_work_sync(&sc->stage->work);
	}
	mutex_unlock(&pmuctx_mutex);
report:
	/* what the budget refused since each CPU's last BUDGET record */
	on_each_cpu(pmuctx_sample_report_cpu, s, 1);
}

/* Session freeing (process context), after pmuctx_sample_stop(). */
void pmuctx_sample_destroy(struct pmuctx_session *s)
{
	struct pmuctx_sample_stage *st;
	int cpu;

	if (!s->cpu || !s->sample_event)
		return;
	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		if (sc->sample_ev) {
			perf_event_release_kernel(sc->sample_ev);
			sc->sample_ev = NULL;
		}
		st = sc->stage;
		if (!st)
			continue;
		irq_work_sync(&st->work);
		/* A stage filled before the counter stopped, never run. */
		if (atomic_read(&st->busy) && st->e)
			pmuctx_entry_put(st->e);
		sc->stage = NULL;
		kfree(st);
	}
}
