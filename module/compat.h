/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: every kernel-version difference, in one place.
 *
 * Supported: Linux 5.18 and newer (tested: Debian 6.1).  What differs is
 * tracepoint prototypes; module/Kbuild detects them from the target
 * kernel's include/trace/events/sched.h and defines:
 *  PMUCTX_SWITCH_HAS_PREV_STATE	sched_switch passes prev_state (5.18+)
 *  PMUCTX_HAVE_VM_FLAGS_CLEAR	vm_flags_clear() exists (6.3+)
 */
#ifndef _PMUCTX_COMPAT_H
#define _PMUCTX_COMPAT_H

#include <linux/mm.h>

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

#endif /* _PMUCTX_COMPAT_H */
