/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: per-CPU ring buffers of a session (ring.c): their memory, freezing,
 * reading and mapping.  One CPU's writer is rb.c; the records, records.c.
 */
#ifndef _PMUCTX_RING_H
#define _PMUCTX_RING_H

#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

#include "rb.h"

struct file;
struct pmuctx_session;
struct poll_table_struct;
struct vm_area_struct;

int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a);
void pmuctx_ring_init(struct pmuctx_session *s);
int pmuctx_ring_create(struct pmuctx_session *s, u32 pages, u32 mode,
		       u32 records, u32 wakeup);
void pmuctx_ring_destroy(struct pmuctx_session *s);
void pmuctx_ring_trigger(struct pmuctx_session *s);
int pmuctx_ring_snapshot(struct pmuctx_session *s);
int pmuctx_ring_resume(struct pmuctx_session *s);
__poll_t pmuctx_ring_poll(struct pmuctx_session *s, struct file *file,
			  struct poll_table_struct *pt);
int pmuctx_ring_consume(struct pmuctx_session *s,
			const struct pmuctx_ring_consume *c);
ssize_t pmuctx_ring_read(struct pmuctx_session *s, struct file *file,
			 char __user *buf, size_t len);
int pmuctx_ring_mmap(struct pmuctx_session *s, struct vm_area_struct *vma);

#endif /* _PMUCTX_RING_H */
