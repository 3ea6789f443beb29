/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: every kernel-version difference, in one place.
 *
 * Supported: Linux 5.18 and newer (built for: Debian 6.1, 6.12, 6.12-rt
 * and sid's newest, 7.2 today; docs/BUILDING.md, "Kernels").  One wrapper
 * per change.  What a version number cannot tell (a backport, or a
 * change whose release we cannot check here) module/Kbuild detects from
 * the target kernel's headers and defines:
 *  PMUCTX_SWITCH_HAS_PREV_STATE	sched_switch passes prev_state (5.18+)
 *  PMUCTX_HAVE_VM_FLAGS_CLEAR	vm_flags_clear() exists (6.3+)
 *  PMUCTX_PAGE_HAS_FOLIO_INDEX	page->index is page->__folio_index (6.16+)
 *  PMUCTX_HAVE_TASK_EXEC_STATE	dumpability and the exec's user namespace
 *				are task->exec_state's, not the mm's (7.2)
 *  PMUCTX_PERF_TIME_CTX		a perf context's time is a struct
 *				perf_time_ctx (time, stamp, offset), beside
 *				the guest's (7.x; before: time, timestamp,
 *				timeoffset)
 */
#ifndef _PMUCTX_COMPAT_H
#define _PMUCTX_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/version.h>
#ifdef PMUCTX_HAVE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>
#endif

#ifndef PMUCTX_SWITCH_HAS_PREV_STATE
#error "pmuctx needs a kernel whose sched_switch tracepoint has prev_state (5.18+)"
#endif

/*
 * Module unload waits for task_works past their module_put() with
 * synchronize_rcu_tasks() (main.c).  Under PREEMPT_RCU without Tasks RCU
 * that is a plain synchronize_rcu(), for which a task preempted there is
 * already quiescent: unloading could free the text it returns to.
 */
#if defined(CONFIG_PREEMPT_RCU) && !defined(CONFIG_TASKS_RCU)
#error "pmuctx: PREEMPT_RCU without TASKS_RCU: unload cannot wait for task_works"
#endif

#define PMUCTX_SWITCH_ARGS	bool preempt, struct task_struct *prev, \
				struct task_struct *next, \
				unsigned int prev_state
#define PMUCTX_FORK_ARGS	struct task_struct *parent, \
				struct task_struct *child
#define PMUCTX_EXEC_ARGS	struct task_struct *p, pid_t old_pid, \
				struct linux_binprm *bprm
#define PMUCTX_EXIT_ARGS	struct task_struct *p

/* vm_flags became read-only with accessors in 6.3. */
#ifdef PMUCTX_HAVE_VM_FLAGS_CLEAR
#define pmuctx_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#define pmuctx_vm_flags_set(vma, flags)		vm_flags_set(vma, flags)
#else
static inline void pmuctx_vm_flags_clear(struct vm_area_struct *vma,
					 unsigned long flags)
{
	vma->vm_flags &= ~flags;
}

static inline void pmuctx_vm_flags_set(struct vm_area_struct *vma,
				       unsigned long flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * hrtimer_setup() (6.13) sets the callback with the rest; hrtimer_init()
 * is gone (7.2 has none).
 */
static inline void pmuctx_hrtimer_setup(struct hrtimer *timer,
					enum hrtimer_restart (*fn)(struct hrtimer *),
					clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * The ring's pages are mapped with the file's mapping and index, as
 * perf's were (ring.c).  6.16 renamed page->index to __folio_index: the
 * folio's index, which an order-0 page is.
 */
static inline void pmuctx_page_set_index(struct page *page, pgoff_t index)
{
#ifdef PMUCTX_PAGE_HAS_FOLIO_INDEX
	page_folio(page)->index = index;
#else
	page->index = index;
#endif
}

/*
 * Dumpability (SUID_DUMP_USER: the owner may dump and ptrace) and the
 * user namespace of the last exec (whose CAP_SYS_PTRACE overrides a
 * non-dumpable task) were the mm's until 7.2: get_dumpable(mm) and
 * mm->user_ns.  7.2 moved both to task->exec_state (struct
 * task_exec_state, shared by the threads that share the mm), whose
 * accessors task_exec_state_rcu() and task_exec_state_get_dumpable() are
 * not exported: it is read here as they do, rcu_dereference() under RCU
 * or task_lock() (it is replaced holding task_lock() and freed, with its
 * reference on the user namespace, after a grace period).
 *
 * pmuctx_dumpable_owner(@t, @mm): is @t (whose mm is @mm, not NULL) dumpable
 * by its owner?  Any context, NMI included.
 * pmuctx_exec_user_ns(@t, @mm): that user namespace; under task_lock(@t)
 * (@mm is @t->mm: before 7.2 the lock keeps it) and rcu_read_lock() (7.2),
 * the namespace used inside both.
 */
#ifdef PMUCTX_HAVE_TASK_EXEC_STATE
static __always_inline bool pmuctx_dumpable_owner(struct task_struct *t,
						  struct mm_struct *mm)
{
	const struct task_exec_state *es;
	bool owner;

	rcu_read_lock();
	es = rcu_dereference(t->exec_state);
	/* never NULL (the kernel WARNs); refused if it were */
	owner = es && READ_ONCE(es->dumpable) == TASK_DUMPABLE_OWNER;
	rcu_read_unlock();
	return owner;
}

static inline struct user_namespace *pmuctx_exec_user_ns(struct task_struct *t,
							 struct mm_struct *mm)
{
	const struct task_exec_state *es;

	es = rcu_dereference_check(t->exec_state, lockdep_is_held(&t->alloc_lock));
	return es ? es->user_ns : &init_user_ns;
}
#else
static __always_inline bool pmuctx_dumpable_owner(struct task_struct *t,
						  struct mm_struct *mm)
{
	return get_dumpable(mm) == SUID_DUMP_USER;
}

static inline struct user_namespace *pmuctx_exec_user_ns(struct task_struct *t,
							 struct mm_struct *mm)
{
	return mm->user_ns;
}
#endif

/*
 * A perf context's time now, as perf_event_time_now() in
 * kernel/events/core.c computes it (static there): ctx->time while the
 * context's time is stopped, else @now (local_clock(), perf_clock()) plus
 * the offset that perf writes whenever it updates the context's time (a
 * single value, read without its lock, as perf reads it in NMIs).  For
 * the CPU counters of counters.c: no cgroup events, no exclude_guest.
 * PMUCTX_PERF_EVENT_TIME is core.c's EVENT_TIME (0x4 from 4.17 to 7.2).
 */
#define PMUCTX_PERF_EVENT_TIME	0x4

static __always_inline u64 pmuctx_perf_ctx_time(struct perf_event_context *ctx,
						u64 now)
{
	/*
	 * Acquire: pairs with the release perf's ctx_sched_in() does
	 * before it sets EVENT_TIME, after it wrote the offset (its
	 * __load_acquire() in perf_event_time_now()).
	 */
	int active = smp_load_acquire(&ctx->is_active);

#ifdef PMUCTX_PERF_TIME_CTX
	if (!(active & PMUCTX_PERF_EVENT_TIME))
		return READ_ONCE(ctx->time.time);
	return now + READ_ONCE(ctx->time.offset);
#else
	if (!(active & PMUCTX_PERF_EVENT_TIME))
		return READ_ONCE(ctx->time);
	return now + READ_ONCE(ctx->timeoffset);
#endif
}

/*
 * Whether perf has just throttled @ev: its overflows on this CPU exceeded
 * max_samples_per_tick (kernel.perf_event_max_sample_rate / HZ), and perf
 * stopped the counter until its next tick.  perf marks that with
 * hw.interrupts = MAX_INTERRUPTS (~0ULL; kernel/events/core.c's, not in a
 * header) before it calls the overflow handler of the same overflow:
 * __perf_event_account_interrupt() in every kernel we build for (6.1,
 * 6.12; perf_event_throttle_group() since 6.16 sets the same).  Read only
 * in that handler, on the counter's CPU, right after perf wrote it.
 */
static inline bool pmuctx_perf_throttled(const struct perf_event *ev)
{
	return READ_ONCE(ev->hw.interrupts) == ~0ULL;
}

#endif /* _PMUCTX_COMPAT_H */
