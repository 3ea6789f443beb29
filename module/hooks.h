/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the scheduler tracepoint probes and per-CPU slice accounting,
 * and publishing and retiring entries (hooks.c).  Their registration:
 * hookreg.h.
 */
#ifndef _PMUCTX_HOOKS_H
#define _PMUCTX_HOOKS_H

#include <linux/list.h>
#include <linux/types.h>

struct pmuctx_entry;
struct pmuctx_session;
struct task_struct;

/* the probes of hooks.c, by tracepoint: hookreg.c hooks them */
enum {
	PMUCTX_PROBE_FORK,
	PMUCTX_PROBE_EXEC,
	PMUCTX_PROBE_EXIT,
	PMUCTX_PROBE_FREE,
	PMUCTX_PROBE_SWITCH,
	PMUCTX_PROBE_ATTACH,
	PMUCTX_PROBE_NR
};

struct pmuctx_probe_def {
	const char	*name;		/* the tracepoint's */
	void		*probe;
};

extern const struct pmuctx_probe_def pmuctx_probe_defs[PMUCTX_PROBE_NR];

void pmuctx_cpu_sync(void *info);
void pmuctx_cpu_forget(void *info);
void pmuctx_cpu_forget_entry(void *info);
void pmuctx_hooks_flush_free(void);
void pmuctx_cpu_swap_counters(void *info);
void pmuctx_adopt(struct pmuctx_session *s, struct task_struct *t,
		  struct task_struct *parent);
extern struct list_head pmuctx_adopters;
bool pmuctx_session_matches(struct pmuctx_session *s, struct task_struct *t);
int pmuctx_entry_publish(struct pmuctx_entry *e, bool adopt);
bool pmuctx_entry_unpublish(struct pmuctx_entry *e);

#endif /* _PMUCTX_HOOKS_H */
