// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: per-CPU ring buffers of a session (normal and overwrite mode).
 *
 * Memory: one vmalloc_user() area per session, for each CPU id a control
 * page (struct pmuctx_ring_ctl) followed by the data pages, mapped into
 * user space read-only by one mmap().  The protocol is documented in
 * include/uapi/linux/pmuctx.h.
 *
 * Each CPU's buffer is a byte ring (rb.c: reservation, eviction in
 * overwrite mode, publication); this file makes the buffers, builds the
 * records, freezes, reads and maps them.
 *
 * Freezing (SNAPSHOT, trigger) sets s->ring_frozen; writers test it after
 * reserving nothing yet and count the record as lost.  SNAPSHOT then waits
 * with synchronize_rcu() for writers in flight (they run with preemption
 * off).  The trigger runs in sched_switch: it only sets the flag and
 * queues an irq_work that wakes the reader.
 *
 * Locks and contexts of the whole module: the map at the top of session.h.
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
#include "main.h"
#include "perm.h"
#include "rb.h"
#include "ring.h"
#include "session.h"

int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a)
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
	if (a->ring_pages > READ_ONCE(pmuctx_max_ring_pages))
		return -ENOMEM;
	return 0;
}

static unsigned long pmuctx_ring_total_pages(struct pmuctx_session *s)
{
	return (unsigned long)nr_cpu_ids * (1 + s->ring_pages);
}

static void pmuctx_ring_wake_fn(struct irq_work *work)
{
	struct pmuctx_session *s = container_of(work, struct pmuctx_session,
						ring_wake);

	wake_up_all(&s->ring_wq);
}

/* At session allocation: what release needs even without a ring. */
void pmuctx_ring_init(struct pmuctx_session *s)
{
	init_waitqueue_head(&s->ring_wq);
	init_irq_work(&s->ring_wake, pmuctx_ring_wake_fn);
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
 * Allocate and charge the buffers of @s (process context, session not
 * live yet).  Over RLIMIT_MEMLOCK (all rings of the user together)
 * without CAP_IPC_LOCK is EPERM.  Nothing of @s changes on error.
 */
int pmuctx_ring_create(struct pmuctx_session *s, u32 pages, u32 mode,
		       u32 records, u32 wakeup)
{
	struct user_struct *user;
	unsigned long total, i;
	struct page **pg;
	void *area;
	int cpu, ret;

	if (!pages)
		return 0;
	total = (unsigned long)nr_cpu_ids * (1 + pages);

	user = get_current_user();
	ret = pmuctx_user_lock_pages(s, user, total);
	if (ret)
		goto err_user;
	ret = -ENOMEM;
	pg = kvcalloc(total, sizeof(*pg), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pg)
		goto err_uncharge;
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
	s->ring_area = area;
	s->ring_page = pg;
	s->ring_user = user;
	s->ring_pages = pages;
	s->ring_mode = mode;
	s->ring_records = records;
	s->ring_size = (u64)pages * PAGE_SIZE;
	s->wakeup_bytes = wakeup ? wakeup : 1;
	for_each_possible_cpu(cpu) {
		struct pmuctx_ring_ctl *ctl;

		ctl = s->ring_area + ((size_t)cpu * (1 + pages) << PAGE_SHIFT);
		pmuctx_rb_init(&per_cpu_ptr(s->cpu, cpu)->ring, ctl,
			       (u8 *)ctl + PAGE_SIZE, s->ring_size, mode,
			       s->wakeup_bytes, cpu, &s->ring_frozen);
	}
	return 0;

err_pages:
	pmuctx_ring_free_pages(pg, total);
err_uncharge:
	pmuctx_user_unlock_pages(s, user, total);
err_user:
	free_uid(user);
	return ret;
}

/*
 * Teardown: no writer can run any more (session dead, RCU synced) and no
 * VMA maps the pages (a mapping holds the file, so release runs after the
 * last munmap).
 */
void pmuctx_ring_destroy(struct pmuctx_session *s)
{
	unsigned long total;

	irq_work_sync(&s->ring_wake);
	if (!s->ring_area)
		return;
	total = pmuctx_ring_total_pages(s);
	vunmap(s->ring_area);
	s->ring_area = NULL;
	pmuctx_ring_free_pages(s->ring_page, total);
	s->ring_page = NULL;
	pmuctx_user_unlock_pages(s, s->ring_user, total);
	free_uid(s->ring_user);
	s->ring_user = NULL;
	/* a create that failed after the ring may be retried on this file */
	s->ring_pages = 0;
	s->ring_mode = 0;
	s->ring_records = 0;
	s->ring_size = 0;
	s->wakeup_bytes = 0;
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

static void pmuctx_ring_set_flags(struct pmuctx_session *s, u32 set, u32 clear)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_ring_ctl *ctl = per_cpu_ptr(s->cpu, cpu)->ring.ctl;

		pmuctx_rb_seq_begin(ctl);
		WRITE_ONCE(ctl->flags, (ctl->flags & ~clear) | set);
		pmuctx_rb_seq_end(ctl);
	}
}

/*
 * Kernel trigger: called from sched_switch (rq lock held) when a slice's
 * delta crossed the session's threshold.  Freezes and wakes the reader
 * through irq_work; the flags in the control pages are set by the
 * reader's SNAPSHOT (which also waits for writers in flight).
 */
void pmuctx_ring_trigger(struct pmuctx_session *s)
{
	if (READ_ONCE(s->ring_frozen))
		return;
	WRITE_ONCE(s->ring_frozen, true);
	WRITE_ONCE(s->ring_triggered, true);
	irq_work_queue(&s->ring_wake);
}

/* PMUCTX_IOC_SNAPSHOT, process context, s->lock held. */
int pmuctx_ring_snapshot(struct pmuctx_session *s)
{
	if (!s->ring_area)
		return -EINVAL;
	WRITE_ONCE(s->ring_frozen, true);
	/* Writers run with preemption off: wait for the ones in flight. */
	synchronize_rcu();
	pmuctx_ring_set_flags(s, PMUCTX_RING_F_FROZEN |
			      (READ_ONCE(s->ring_triggered) ?
			       PMUCTX_RING_F_TRIGGERED : 0), 0);
	return 0;
}

/* PMUCTX_IOC_RESUME, process context, s->lock held. */
int pmuctx_ring_resume(struct pmuctx_session *s)
{
	if (!s->ring_area)
		return -EINVAL;
	pmuctx_ring_set_flags(s, 0, PMUCTX_RING_F_FROZEN |
			      PMUCTX_RING_F_TRIGGERED);
	WRITE_ONCE(s->ring_triggered, false);
	smp_wmb();	/* flags cleared before writers may write again */
	WRITE_ONCE(s->ring_frozen, false);
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

static bool pmuctx_ring_readable(struct pmuctx_session *s, int cpu)
{
	struct pmuctx_ring_ctl *ctl = per_cpu_ptr(s->cpu, cpu)->ring.ctl;

	return pmuctx_ring_head(ctl) - READ_ONCE(ctl->data_tail) >=
	       s->wakeup_bytes;
}

/* Re-arm the edge-triggered wakeup of every CPU (poll, blocking read). */
static void pmuctx_ring_rearm(struct pmuctx_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(s->cpu, cpu)->ring.wake_sent, false);
	/* cleared before the caller checks for data (pairs with commit) */
	smp_mb();
}

__poll_t pmuctx_ring_poll(struct pmuctx_session *s, struct file *file,
			  struct poll_table_struct *pt)
{
	int cpu;

	if (!s->ring_area)
		return EPOLLERR;
	poll_wait(file, &s->ring_wq, pt);
	if (s->ring_mode == PMUCTX_RING_OVERWRITE)
		return READ_ONCE(s->ring_frozen) ? EPOLLIN | EPOLLRDNORM : 0;
	pmuctx_ring_rearm(s);
	for_each_possible_cpu(cpu)
		if (pmuctx_ring_readable(s, cpu))
			return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/*
 * PMUCTX_IOC_RING_CONSUME, s->lock held.  @c is the caller's struct, read
 * in by the ioctl (ioctl.c).
 */
int pmuctx_ring_consume(struct pmuctx_session *s,
			const struct pmuctx_ring_consume *c)
{
	struct pmuctx_ring_ctl *ctl;

	if (!s->ring_area || s->ring_mode != PMUCTX_RING_NORMAL)
		return -EINVAL;
	if (c->cpu >= nr_cpu_ids || !cpu_possible(c->cpu))
		return -EINVAL;
	/* records start 8-byte aligned; see also pmuctx_ring_copy() */
	if (c->tail & 7)
		return -EINVAL;
	ctl = per_cpu_ptr(s->cpu, c->cpu)->ring.ctl;
	if (c->tail - ctl->data_tail > pmuctx_ring_head(ctl) - ctl->data_tail)
		return -EINVAL;
	pmuctx_ring_release_tail(ctl, c->tail);
	return 0;
}

/*
 * read(2): copy whole records of every CPU, oldest CPU first, consuming
 * them.  PAD records are skipped.  s->lock held by the caller.
 */
static ssize_t pmuctx_ring_copy(struct pmuctx_session *s, char __user *buf,
				size_t len)
{
	size_t done = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_rb *r = &per_cpu_ptr(s->cpu, cpu)->ring;
		struct pmuctx_ring_ctl *ctl = r->ctl;
		u64 head = pmuctx_ring_head(ctl);
		u64 tail = ctl->data_tail;

		while (tail != head) {
			struct pmuctx_rec_header *h = pmuctx_ring_at(r, tail);
			u64 off = tail & (ctl->data_size - 1);
			u16 sz = READ_ONCE(h->size);
			u32 type = READ_ONCE(h->type);

			/*
			 * RING_CONSUME can leave the tail inside a record: never
			 * trust a header found there.  Size 0 would loop forever
			 * (with s->lock held), a large size would copy past the
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

static bool pmuctx_ring_any_readable(struct pmuctx_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_ring_ctl *ctl = per_cpu_ptr(s->cpu, cpu)->ring.ctl;

		if (pmuctx_ring_head(ctl) != READ_ONCE(ctl->data_tail))
			return true;
	}
	return false;
}

ssize_t pmuctx_ring_read(struct pmuctx_session *s, struct file *file,
			 char __user *buf, size_t len)
{
	ssize_t ret;

	if (!s->ring_area || s->ring_mode != PMUCTX_RING_NORMAL)
		return -EINVAL;
	for (;;) {
		mutex_lock(&s->lock);
		ret = pmuctx_ring_copy(s, buf, len);
		mutex_unlock(&s->lock);
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
		pmuctx_ring_rearm(s);
		ret = wait_event_interruptible(s->ring_wq,
					       pmuctx_ring_any_readable(s));
		if (ret)
			return ret;
	}
}

/* ---- mmap ----------------------------------------------------------------- */

static void pmuctx_vm_open(struct vm_area_struct *vma)
{
	struct pmuctx_session *s = vma->vm_file->private_data;

	atomic_inc(&s->ring_mapped);
}

static void pmuctx_vm_close(struct vm_area_struct *vma)
{
	struct pmuctx_session *s = vma->vm_file->private_data;

	atomic_dec(&s->ring_mapped);
}

/*
 * Pages are mapped at first touch, and again after MADV_DONTNEED or
 * MADV_PAGEOUT dropped them from the page tables (the mapping stays valid,
 * as perf's does).  The mapping is read-only (VM_MAYWRITE cleared at mmap).
 */
static vm_fault_t pmuctx_vm_fault(struct vm_fault *vmf)
{
	struct pmuctx_session *s = vmf->vma->vm_file->private_data;
	struct page *page;

	if (vmf->flags & FAULT_FLAG_WRITE ||
	    vmf->pgoff >= pmuctx_ring_total_pages(s))
		return VM_FAULT_SIGBUS;
	page = s->ring_page[vmf->pgoff];
	get_page(page);
	page->mapping = vmf->vma->vm_file->f_mapping;
	page->index = vmf->pgoff;
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct pmuctx_vm_ops = {
	.open	= pmuctx_vm_open,
	.close	= pmuctx_vm_close,
	.fault	= pmuctx_vm_fault,
};

/*
 * mmap() runs with mmap_lock held, and the ioctls fault on user memory
 * (mmap_lock) under s->lock: taking s->lock here would invert that order.
 * It is not needed: a live session's ring never changes, and release
 * cannot run while the file is in use.  ring_mapped arbitrates the one
 * mapping.
 */
int pmuctx_ring_mmap(struct pmuctx_session *s, struct vm_area_struct *vma)
{
	/* pairs with the store-release that makes the session live */
	if (smp_load_acquire(&s->state) != PMUCTX_SS_LIVE || !s->ring_area)
		return -ENODEV;
	if (vma->vm_pgoff || vma_pages(vma) != pmuctx_ring_total_pages(s))
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) ||
	    (vma->vm_flags & (VM_WRITE | VM_EXEC)))
		return -EINVAL;
	if (atomic_cmpxchg(&s->ring_mapped, 0, 1))
		return -EBUSY;
	pmuctx_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	pmuctx_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &pmuctx_vm_ops;
	return 0;
}
