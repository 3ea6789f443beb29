/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: a session's life (session.c): create, enable, disable, reset,
 * read, release.  What a session is: session_types.h.
 */
#ifndef _PMUCTX_SESSION_H
#define _PMUCTX_SESSION_H

#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

#include "session_types.h"

struct work_struct;

struct pmuctx_session *pmuctx_session_alloc(void);
void pmuctx_session_put(struct pmuctx_session *s);
void pmuctx_session_release(struct pmuctx_session *s);
int pmuctx_session_create(struct pmuctx_session *s,
			  const struct pmuctx_session_attr *a);
int pmuctx_session_ring_create(struct pmuctx_session *s, u32 pages, u32 mode,
			       u32 records, u32 wakeup);
void pmuctx_session_ring_destroy(struct pmuctx_session *s);
void pmuctx_session_enable(struct pmuctx_session *s);
void pmuctx_session_disable(struct pmuctx_session *s);
void pmuctx_session_reset(struct pmuctx_session *s);
int pmuctx_session_read(struct pmuctx_session *s, struct pmuctx_read *r,
			struct pmuctx_task_values **tvp);
void pmuctx_join_work_fn(struct work_struct *work);

#endif /* _PMUCTX_SESSION_H */
