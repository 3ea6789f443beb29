/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: hooking the probes of hooks.c, and the store table's lifetime
 * with the lifecycle probes (hookreg.c).  Process context, pmuctx_mutex
 * held, but pmuctx_hooks_registered() (any) and pmuctx_hooks_exit().
 */
#ifndef _PMUCTX_HOOKREG_H
#define _PMUCTX_HOOKREG_H

#include <linux/types.h>

int pmuctx_hooks_lifecycle_get(void);
void pmuctx_hooks_lifecycle_put(void);
int pmuctx_hooks_switch_get(void);
void pmuctx_hooks_switch_put(void);
int pmuctx_hooks_cgroup_get(void);
void pmuctx_hooks_cgroup_put(void);
u32 pmuctx_hooks_registered(void);
void pmuctx_hooks_exit(void);

#endif /* _PMUCTX_HOOKREG_H */
