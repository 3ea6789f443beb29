/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: every kernel-version difference, in one place.
 *
 * Supported: Linux 5.18 and newer (tested: Debian 6.1).  What differs is
 * tracepoint prototypes; module/Kbuild detects them from the target
 * kernel's include/trace/events/sched.h and defines:
 *  PMUCTX_SWITCH_HAS_PREV_STATE	sched_switch passes prev_state (5.18+)
 */
#ifndef _PMUCTX_COMPAT_H
#define _PMUCTX_COMPAT_H

#ifndef PMUCTX_SWITCH_HAS_PREV_STATE
#error "pmuctx needs a kernel whose sched_switch tracepoint has prev_state (5.18+)"
#endif

#define PMUCTX_SWITCH_ARGS	bool preempt, struct task_struct *prev, \
				struct task_struct *next, \
				unsigned int prev_state
#define PMUCTX_FORK_ARGS	struct task_struct *parent, \
				struct task_struct *child
#define PMUCTX_EXEC_ARGS	struct task_struct *p, pid_t old_pid, \
				struct linux_binprm *bprm
#define PMUCTX_EXIT_ARGS	struct task_struct *p

#endif /* _PMUCTX_COMPAT_H */
