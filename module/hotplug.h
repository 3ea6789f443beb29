/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: CPU hotplug (hotplug.c): a CPU that comes back online gets new
 * counters for every counting session.
 */
#ifndef _PMUCTX_HOTPLUG_H
#define _PMUCTX_HOTPLUG_H

#include <linux/list.h>

/* sessions with perf counters (pmuctx_sess_uses_perf()), pmuctx_mutex */
extern struct list_head pmuctx_counting;

int pmuctx_hotplug_init(void);
void pmuctx_hotplug_exit(void);

#endif /* _PMUCTX_HOTPLUG_H */
