/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: switchless counting from the kernel's per-task counters
 * (tasksrc.c).
 */
#ifndef _PMUCTX_TASKSRC_H
#define _PMUCTX_TASKSRC_H

#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

struct pmuctx_entry;
struct pmuctx_session;

bool pmuctx_event_task_sourced(u32 id);
bool pmuctx_attr_switchless(const struct pmuctx_session_attr *a);
void pmuctx_tsrc_open_locked(struct pmuctx_entry *e);
void pmuctx_tsrc_close_locked(struct pmuctx_entry *e);
void pmuctx_tsrc_open(struct pmuctx_entry *e);
void pmuctx_tsrc_close(struct pmuctx_entry *e);
void pmuctx_tsrc_values(struct pmuctx_entry *e, u64 *val);
void pmuctx_tsrc_reset(struct pmuctx_entry *e, u32 gen);
void pmuctx_tsrc_running(const struct pmuctx_session *s,
			 struct pmuctx_read *r);

#endif /* _PMUCTX_TASKSRC_H */
