// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: per-CPU ring buffers (normal and overwrite mode), one struct
 * pmuctx_ring, embedded in its owner (a session).
 *
 * Memory: one vmap() area per ring, for each CPU id a control
 * page (struct pmuctx_ring_ctl) followed by the data pages, mapped into
 * user space read-only by one mmap().  The protocol is documented in
 * include/uapi/linux/pmuctx.h.
 *
 * Each CPU's buffer is a byte ring (rb.c: reservation, eviction in
 * overwrite mode, publication; its struct pmuctx_rb is the owner's
 * storage, r->rb); this file makes the buffers, freezes, reads and maps
 * them.  It knows nothing of sessions, records (records.c) or the
 * locked-memory charge (the owner's, around create and destroy, as
 * perf_mmap() does): only compat.h, rb.h, the UAPI and the kernel.
 *
 * What it owns and how it is reached:
 *  - r->lock (mutex, process context) serializes the reader's side:
 *    read(2)'s copy, RING_CONSUME, SNAPSHOT and RESUME.  The ioctls hold
 *    sess->lock outside it; nothing is taken inside it but mmap_lock
 *    (copy_to_user() may fault).  poll() and mmap() take no lock.
 *  - create and destroy run before the owner is published and after it
 *    is gone (no writer, reader or mapping left); in between area, page,
 *    size, pages, mode and wakeup_bytes are constant.
 *  - r->frozen: freezing (SNAPSHOT, trigger) sets it; writers test it
 *    after reserving nothing yet and count the record as lost.  SNAPSHOT
 *    then waits with synchronize_rcu() for writers in flight (they run
 *    with preemption off).  The trigger runs in sched_switch: it only
 *    sets the flag and queues the irq_work that wakes the reader.
 *  - r->mapped: the one mapping (mmap(), VMA open and close).
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "rb.h"
#include "ring.h"

/* The ring's part of SESSION_CREATE's struct; @max_pages: max_ring_pages. */
int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a,
			      unsigned int max_pages)
{
	if (!a->ring_pages) {
		if (a->ring_mode || a->ring_records || a->wakeup_bytes ||
		    a->trigger_event || a->trigger_threshold)
			return -EINVAL;
		return 0;
	}
	if (!is_power_of_2(a->ring_pages))
		return -EINVAL;
	if (a->ring_mode != PMUCTX_RING_NORMAL &&
	    a->ring_mode != PMUCTX_RING_OVERWRITE)
		return -EINVAL;
	if (a->ring_records & ~PMUCTX_REC_MASK_ALL)
		return -EINVAL;
	if ((u64)a->wakeup_bytes > (u64)a->ring_pages * PAGE_SIZE)
		return -EINVAL;
	if (a->trigger_event) {
		if (a->ring_mode != PMUCTX_RING_OVERWRITE ||
		    a->trigger_event > a->nr_events || !a->trigger_threshold)
			return -EINVAL;
	} else if (a->trigger_threshold) {
		return -EINVAL;
	}
	/* Checked last: the only error that depends on a module parameter. */
	if (a->ring_pages > max_pages)
		return -ENOMEM;
	return 0;
}

static void pmuctx_ring_wake_fn(struct irq_work *work)
{
	struct pmuctx_ring *r = container_of(work, struct pmuctx_ring, wake);

	wake_up_all(&r->wq);
}

/* At the owner's allocation: what its release needs even without a ring. */
void pmuctx_ring_init(struct pmuctx_ring *r)
{
	mutex_init(&r->lock);
	init_waitqueue_head(&r->wq);
	init_irq_work(&r->wake, pmuctx_ring_wake_fn);
}

static void pmuctx_ring_free_pages(struct page **pg, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (!pg[i])
			break;
		pg[i]->mapping = NULL;	/* set by pmuctx_vm_fault() */
		__free_page(pg[i]);
	}
	kvfree(pg);
}

/*
 * Allocate the buffers of @r, @pages data pages per CPU (a power of 2),
 * and set up each CPU's writer in @rb (process context, @r not published
 * yet; the owner charged pmuctx_ring_total_pages(@pages) before).
 * Nothing of @r changes on error.
 */
int pmuctx_ring_create(struct pmuctx_ring *r, struct pmuctx_rb __percpu *rb,
		       u32 pages, u32 mode, u32 wakeup)
{
	unsigned long total, i;
	struct page **pg;
	void *area;
	int cpu;

	if (!pages)
		return 0;
	total = pmuctx_ring_total_pages(pages);

	pg = kvcalloc(total, sizeof(*pg), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pg)
		return -ENOMEM;
	for (i = 0; i < total; i++) {
		pg[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				   __GFP_NOWARN);
		if (!pg[i])
			goto err_pages;
	}
	area = vmap(pg, total, VM_MAP, PAGE_KERNEL);
	if (!area)
		goto err_pages;

	/* only now, on success: a failed create leaves no ring state behind */
	r->area = area;
	r->rb = rb;
	r->page = pg;
	r->pages = pages;
	r->mode = mode;
	r->size = (u64)pages * PAGE_SIZE;
	r->wakeup_bytes = wakeup ? wakeup : 1;
	for_each_possible_cpu(cpu) {
		struct pmuctx_ring_ctl *ctl;

		ctl = r->area + ((size_t)cpu * (1 + pages) << PAGE_SHIFT);
		pmuctx_rb_init(per_cpu_ptr(rb, cpu), ctl,
			       (u8 *)ctl + PAGE_SIZE, r->size, mode,
			       r->wakeup_bytes, cpu, &r->frozen);
	}
	return 0;

err_pages:
	pmuctx_ring_free_pages(pg, total);
	return -ENOMEM;
}

/*
 * Teardown: no writer can run any more (owner dead, RCU synced) and no
 * VMA maps the pages (a mapping holds the file, so release runs after the
 * last munmap).  The owner uncharges the pages after.
 */
void pmuctx_ring_destroy(struct pmuctx_ring *r)
{
	irq_work_sync(&r->wake);
	if (!r->area)
		return;
	vunmap(r->area);
	r->area = NULL;
	pmuctx_ring_free_pages(r->page, pmuctx_ring_total_pages(r->pages));
	r->page = NULL;
	r->rb = NULL;
	/* a create that failed after the ring may be retried on this file */
	r->pages = 0;
	r->mode = 0;
	r->size = 0;
	r->wakeup_bytes = 0;
}

/* ---- writing ----------------------------------------------------------- */

/* Free ring space up to @tail; pairs with the writer's load-acquire. */
static void pmuctx_ring_release_tail(struct pmuctx_ring_ctl *ctl, u64 tail)
{
	/* the reader's loads of the records happen before the space is reused */
	smp_store_release(&ctl->data_tail, tail);
}

/* Published head; pairs with the writer's store-release in commit. */
static u64 pmuctx_ring_head(struct pmuctx_ring_ctl *ctl)
{
	/* records up to the head are fully written before we read them */
	return smp_load_acquire(&ctl->data_head);
}

static struct pmuctx_rec_header *pmuctx_ring_at(struct pmuctx_rb *r,
						u64 pos)
{
	return (struct pmuctx_rec_header *)(r->data + (pos & (r->size - 1)));
}

/* ---- freezing ------------------------------------------------------------ */

static void pmuctx_ring_set_flags(struct pmuctx_ring *r, u32 set, u32 clear)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_ring_ctl *ctl = per_cpu_ptr(r->rb, cpu)->ctl;

		pmuctx_rb_seq_begin(ctl);
		WRITE_ONCE(ctl->flags, (ctl->flags & ~clear) | set);
		pmuctx_rb_seq_end(ctl);
	}
}

/*
 * Kernel trigger: called from sched_switch (rq lock held) when a slice's
 * delta crossed the owner's threshold.  Freezes and wakes the reader
 * through irq_work; the flags in the control pages are set by the
 * reader's SNAPSHOT (which also waits for writers in flight).
 */
void pmuctx_ring_trigger(struct pmuctx_ring *r)
{
	if (READ_ONCE(r->frozen))
		return;
	WRITE_ONCE(r->frozen, true);
	WRITE_ONCE(r->triggered, true);
	irq_work_queue(&r->wake);
}

/* PMUCTX_IOC_SNAPSHOT, process context. */
int pmuctx_ring_snapshot(struct pmuctx_ring *r)
{
	if (!r->area)
		return -EINVAL;
	mutex_lock(&r->lock);
	WRITE_ONCE(r->frozen, true);
	/* Writers run with preemption off: wait for the ones in flight. */
	synchronize_rcu();
	pmuctx_ring_set_flags(r, PMUCTX_RING_F_FROZEN |
			      (READ_ONCE(r->triggered) ?
			       PMUCTX_RING_F_TRIGGERED : 0), 0);
	mutex_unlock(&r->lock);
	return 0;
}

/* PMUCTX_IOC_RESUME, process context. */
int pmuctx_ring_resume(struct pmuctx_ring *r)
{
	if (!r->area)
		return -EINVAL;
	mutex_lock(&r->lock);
	pmuctx_ring_set_flags(r, 0, PMUCTX_RING_F_FROZEN |
			      PMUCTX_RING_F_TRIGGERED);
	WRITE_ONCE(r->triggered, false);
	smp_wmb();	/* flags cleared before writers may write again */
	WRITE_ONCE(r->frozen, false);
	mutex_unlock(&r->lock);
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

static bool pmuctx_ring_readable(struct pmuctx_ring *r, int cpu)
{
	struct pmuctx_ring_ctl *ctl = per_cpu_ptr(r->rb, cpu)->ctl;

	return pmuctx_ring_head(ctl) - READ_ONCE(ctl->data_tail) >=
	       r->wakeup_bytes;
}

/* Re-arm the edge-triggered wakeup of every CPU (poll, blocking read). */
static void pmuctx_ring_rearm(struct pmuctx_ring *r)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(r->rb, cpu)->wake_sent, false);
	/* cleared before the caller checks for data (pairs with commit) */
	smp_mb();
}

__poll_t pmuctx_ring_poll(struct pmuctx_ring *r, struct file *file,
			  struct poll_table_struct *pt)
{
	int cpu;

	if (!r->area)
		return EPOLLERR;
	poll_wait(file, &r->wq, pt);
	if (r->mode == PMUCTX_RING_OVERWRITE)
		return READ_ONCE(r->frozen) ? EPOLLIN | EPOLLRDNORM : 0;
	pmuctx_ring_rearm(r);
	for_each_possible_cpu(cpu)
		if (pmuctx_ring_readable(r, cpu))
			return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/*
 * PMUCTX_IOC_RING_CONSUME, process context.  @c is the caller's struct,
 * read in by the ioctl (ioctl.c).
 */
int pmuctx_ring_consume(struct pmuctx_ring *r,
			const struct pmuctx_ring_consume *c)
{
	struct pmuctx_ring_ctl *ctl;
	int ret = -EINVAL;

	if (!r->area || r->mode != PMUCTX_RING_NORMAL)
		return -EINVAL;
	if (c->cpu >= nr_cpu_ids || !cpu_possible(c->cpu))
		return -EINVAL;
	/* records start 8-byte aligned; see also pmuctx_ring_copy() */
	if (c->tail & 7)
		return -EINVAL;
	ctl = per_cpu_ptr(r->rb, c->cpu)->ctl;
	mutex_lock(&r->lock);
	if (c->tail - ctl->data_tail <= pmuctx_ring_head(ctl) - ctl->data_tail) {
		pmuctx_ring_release_tail(ctl, c->tail);
		ret = 0;
	}
	mutex_unlock(&r->lock);
	return ret;
}

/*
 * read(2): copy whole records of every CPU, oldest CPU first, consuming
 * them.  PAD records are skipped.  r->lock held.
 */
static ssize_t pmuctx_ring_copy(struct pmuctx_ring *r, char __user *buf,
				size_t len)
{
	size_t done = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_rb *b = per_cpu_ptr(r->rb, cpu);
		struct pmuctx_ring_ctl *ctl = b->ctl;
		u64 head = pmuctx_ring_head(ctl);
		u64 tail = ctl->data_tail;

		while (tail != head) {
			struct pmuctx_rec_header *h = pmuctx_ring_at(b, tail);
			u64 off = tail & (ctl->data_size - 1);
			u16 sz = READ_ONCE(h->size);
			u32 type = READ_ONCE(h->type);

			/*
			 * RING_CONSUME can leave the tail inside a record: never
			 * trust a header found there.  Size 0 would loop forever
			 * (with r->lock held), a large size would copy past the
			 * data area.  Drop what is left of this buffer.
			 */
			if (sz < sizeof(*h) || sz & 7 || sz > head - tail ||
			    off + sz > ctl->data_size || !type ||
			    type > PMUCTX_REC_MAX) {
				pmuctx_ring_release_tail(ctl, head);
				return done ? done : -EIO;
			}
			if (type != PMUCTX_REC_PAD) {
				if (sz > len - done) {
					pmuctx_ring_release_tail(ctl, tail);
					return done ? done : -EINVAL;
				}
				if (copy_to_user(buf + done, h, sz)) {
					pmuctx_ring_release_tail(ctl, tail);
					return done ? done : -EFAULT;
				}
				done += sz;
			}
			tail += sz;
		}
		pmuctx_ring_release_tail(ctl, tail);
	}
	return done;
}

static bool pmuctx_ring_any_readable(struct pmuctx_ring *r)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_ring_ctl *ctl = per_cpu_ptr(r->rb, cpu)->ctl;

		if (pmuctx_ring_head(ctl) != READ_ONCE(ctl->data_tail))
			return true;
	}
	return false;
}

ssize_t pmuctx_ring_read(struct pmuctx_ring *r, struct file *file,
			 char __user *buf, size_t len)
{
	ssize_t ret;

	if (!r->area || r->mode != PMUCTX_RING_NORMAL)
		return -EINVAL;
	for (;;) {
		mutex_lock(&r->lock);
		ret = pmuctx_ring_copy(r, buf, len);
		mutex_unlock(&r->lock);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * Re-arm every CPU's edge-triggered wakeup, as poll() does:
		 * a writer that commits after this queues the wake-up, and
		 * one that committed before is seen by the condition, which
		 * wait_event checks after queueing us.  Without it a reader
		 * that never polls slept forever after each CPU's first
		 * wakeup (sampling issue, item 2).
		 */
		pmuctx_ring_rearm(r);
		ret = wait_event_interruptible(r->wq,
					       pmuctx_ring_any_readable(r));
		if (ret)
			return ret;
	}
}

/* ---- mmap ----------------------------------------------------------------- */

static void pmuctx_vm_open(struct vm_area_struct *vma)
{
	struct pmuctx_ring *r = vma->vm_private_data;

	atomic_inc(&r->mapped);
}

static void pmuctx_vm_close(struct vm_area_struct *vma)
{
	struct pmuctx_ring *r = vma->vm_private_data;

	atomic_dec(&r->mapped);
}

/*
 * Pages are mapped at first touch, and again after MADV_DONTNEED or
 * MADV_PAGEOUT dropped them from the page tables (the mapping stays valid,
 * as perf's does).  The mapping is read-only (VM_MAYWRITE cleared at mmap).
 */
static vm_fault_t pmuctx_vm_fault(struct vm_fault *vmf)
{
	struct pmuctx_ring *r = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->flags & FAULT_FLAG_WRITE ||
	    vmf->pgoff >= pmuctx_ring_total_pages(r->pages))
		return VM_FAULT_SIGBUS;
	page = r->page[vmf->pgoff];
	get_page(page);
	page->mapping = vmf->vma->vm_file->f_mapping;
	pmuctx_page_set_index(page, vmf->pgoff);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct pmuctx_vm_ops = {
	.open	= pmuctx_vm_open,
	.close	= pmuctx_vm_close,
	.fault	= pmuctx_vm_fault,
};

/*
 * mmap() runs with mmap_lock held, and read(2) and the ioctls fault on
 * user memory (mmap_lock) under r->lock and sess->lock: taking either
 * here would invert that order.  It is not needed: a published ring
 * never changes (the caller checked it is, chrdev.c), and release cannot
 * run while the file is in use.  r->mapped arbitrates the one mapping;
 * the VMA reaches the ring through vm_private_data.
 */
int pmuctx_ring_mmap(struct pmuctx_ring *r, struct vm_area_struct *vma)
{
	if (!r->area)
		return -ENODEV;
	if (vma->vm_pgoff || vma_pages(vma) != pmuctx_ring_total_pages(r->pages))
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) ||
	    (vma->vm_flags & (VM_WRITE | VM_EXEC)))
		return -EINVAL;
	if (atomic_cmpxchg(&r->mapped, 0, 1))
		return -EBUSY;
	pmuctx_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	pmuctx_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = r;
	vma->vm_ops = &pmuctx_vm_ops;
	return 0;
}
