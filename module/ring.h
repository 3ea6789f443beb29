/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the per-CPU ring buffers of one owner (ring.c): their memory,
 * freezing, reading and mapping.  One CPU's writer is rb.c; the records,
 * records.c.  A session embeds one (sess->ring) and charges its pages to
 * the caller's locked memory around create and destroy (session.c).
 */
#ifndef _PMUCTX_RING_H
#define _PMUCTX_RING_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <uapi/linux/pmuctx.h>

#include "rb.h"

struct file;
struct page;
struct poll_table_struct;
struct vm_area_struct;

/*
 * area NULL: no ring (create not called, or it failed); everything but
 * lock, wq, wake and mapped is then 0.  Set by create before the owner
 * publishes itself (a session: before it goes live), then constant until
 * destroy.
 */
struct pmuctx_ring {
	void			*area;		/* vmap() of page[] */
	/*
	 * Each CPU's writer, storage of the owner's (a session's per-CPU
	 * data): the writers reach it without loading this pointer.
	 */
	struct pmuctx_rb __percpu *rb;
	struct page		**page;		/* memcg-charged pages */
	u64			size;		/* data bytes per CPU */
	u32			pages;		/* data pages per CPU */
	u32			mode;		/* PMUCTX_RING_NORMAL, _OVERWRITE */
	u32			wakeup_bytes;
	bool			frozen;		/* SNAPSHOT, trigger: writers stop */
	bool			triggered;
	atomic_t		mapped;		/* VMAs mapping the buffers */
	/*
	 * The reader's side: read(2)'s copy, RING_CONSUME, SNAPSHOT and
	 * RESUME (process context; the ioctls hold sess->lock around it).
	 */
	struct mutex		lock;
	wait_queue_head_t	wq;		/* read(2), poll() */
	struct irq_work		wake;		/* wakes wq from the writers */
};

/* Pages of a ring of @pages data pages per CPU: a control page each. */
static inline unsigned long pmuctx_ring_total_pages(u32 pages)
{
	return (unsigned long)nr_cpu_ids * (1 + pages);
}

int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a,
			      unsigned int max_pages);
void pmuctx_ring_init(struct pmuctx_ring *r);
int pmuctx_ring_create(struct pmuctx_ring *r, struct pmuctx_rb __percpu *rb,
		       u32 pages, u32 mode, u32 wakeup);
void pmuctx_ring_destroy(struct pmuctx_ring *r);
void pmuctx_ring_trigger(struct pmuctx_ring *r);
int pmuctx_ring_snapshot(struct pmuctx_ring *r);
int pmuctx_ring_resume(struct pmuctx_ring *r);
__poll_t pmuctx_ring_poll(struct pmuctx_ring *r, struct file *file,
			  struct poll_table_struct *pt);
int pmuctx_ring_consume(struct pmuctx_ring *r,
			const struct pmuctx_ring_consume *c);
ssize_t pmuctx_ring_read(struct pmuctx_ring *r, struct file *file,
			 char __user *buf, size_t len);
int pmuctx_ring_mmap(struct pmuctx_ring *r, struct vm_area_struct *vma);

#endif /* _PMUCTX_RING_H */
