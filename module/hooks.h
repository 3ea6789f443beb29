/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the scheduler tracepoint hooks and per-CPU slice accounting,
 * the lifecycle probes' and the store table's lifetime, and publishing
 * and retiring entries (hooks.c).
 */
#ifndef _PMUCTX_HOOKS_H
#define _PMUCTX_HOOKS_H

#include <linux/list.h>
#include <linux/types.h>

struct pmuctx_entry;
struct pmuctx_session;
struct task_struct;

int pmuctx_hooks_lifecycle_get(void);
void pmuctx_hooks_lifecycle_put(void);
void pmuctx_cpu_sync(void *info);
void pmuctx_cpu_forget(void *info);
void pmuctx_cpu_forget_entry(void *info);
void pmuctx_hooks_flush_free(void);
int pmuctx_hooks_switch_get(void);
void pmuctx_hooks_switch_put(void);
u32 pmuctx_hooks_registered(void);
void pmuctx_cpu_swap_counters(void *info);
struct pmuctx_entry *pmuctx_current_entry(struct pmuctx_session *s);
void pmuctx_adopt(struct pmuctx_session *s, struct task_struct *t,
		  struct task_struct *parent);
int pmuctx_hooks_cgroup_get(void);
void pmuctx_hooks_cgroup_put(void);
void pmuctx_hooks_unhook_later(void);
void pmuctx_hooks_exit(void);
extern struct list_head pmuctx_adopters;
bool pmuctx_session_matches(struct pmuctx_session *s, struct task_struct *t);
int pmuctx_entry_publish(struct pmuctx_entry *e, bool adopt);
bool pmuctx_entry_unpublish(struct pmuctx_entry *e);

#endif /* _PMUCTX_HOOKS_H */
