// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: one CPU's byte ring, the writer's side: reserve, make room,
 * commit.  The protocol is documented in include/uapi/linux/pmuctx.h.
 *
 * Writers run on the CPU whose buffer they write: the sched_switch probe
 * (IRQs off), the fork/exec/exit probes (preemption off) and write(2)
 * (preemption off around the record).  Reservation happens with IRQs off
 * on that CPU, so writers nest (an IRQ writer interrupting a probe or a
 * write(2) between reserve and commit) but never interleave inside a
 * reservation.  The header and the time of a record are written at
 * reservation time, so the overwrite writer can always walk the tail
 * record by record, and each CPU's records are in time order.  data_head
 * is published only when the outermost writer commits (with IRQs on, see
 * pmuctx_rb_commit()): readers never see a reserved but unwritten record.
 * NMI writers are not supported (counted as lost).
 *
 * Overwrite mode moves the tail record by record: the buffer always keeps
 * everything but the space the next record needs.  (Seed 003 jumps to a
 * next_tail candidate taken at half the buffer, which keeps between half
 * and all of it; walking headers costs one header read per evicted record,
 * amortized O(1) per record written.)
 *
 * Freezing (SNAPSHOT, trigger) sets the flag *r->frozen points to; a
 * writer tests it before reserving anything and counts the record as lost.
 *
 * This file includes nothing of the module but rb.h: the host test
 * tests/unit/test_rb.c compiles it as it is.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/stddef.h>
#include <linux/ktime.h>
#include <asm/barrier.h>

#include "rb.h"

/*
 * @r writes @ctl and the @size bytes at @data (@size a power of two) of
 * CPU @cpu in @mode; @frozen is the flag that freezes it.
 */
void pmuctx_rb_init(struct pmuctx_rb *r, struct pmuctx_ring_ctl *ctl,
		    void *data, u64 size, u32 mode, u32 wakeup_bytes,
		    unsigned int cpu, const bool *frozen)
{
	*r = (struct pmuctx_rb){
		.ctl		= ctl,
		.data		= data,
		.frozen		= frozen,
		.size		= size,
		.mode		= mode,
		.wakeup_bytes	= wakeup_bytes ? wakeup_bytes : 1,
	};
	ctl->version = PMUCTX_RING_VERSION;
	ctl->cpu = cpu;
	ctl->mode = mode;
	ctl->data_offset = (u8 *)data - (u8 *)ctl;
	ctl->data_size = size;
}

static struct pmuctx_rec_header *pmuctx_rb_at(struct pmuctx_rb *r, u64 pos)
{
	return (struct pmuctx_rec_header *)(r->data + (pos & (r->size - 1)));
}

/*
 * Make room for @need bytes at r->head: normal mode checks the reader's
 * tail, overwrite mode evicts whole records from the tail.  IRQs off.
 *
 * The eviction loop is bounded: @need is at most the buffer, so it stops
 * at r->head at the latest, and every header it steps over is checked
 * first.  Only this CPU's writers wrote those headers (the mapping is
 * read-only), but a header that is not a record between tail and head
 * would otherwise send it round the buffer forever with IRQs off (issue
 * 29 item 1: a PAD and a LOST record before a record of half the buffer
 * asked for more than the whole buffer, and the loop walked past the
 * head through stale bytes).
 */
static bool pmuctx_rb_room(struct pmuctx_rb *r, u64 need)
{
	u64 size = r->size, tail, moved = 0;

	if (need > size)
		return false;
	if (r->mode == PMUCTX_RING_NORMAL) {
		/* pairs with the reader's store-release of data_tail */
		tail = smp_load_acquire(&r->ctl->data_tail);
		return r->head + need - tail <= size;
	}
	tail = r->tail;
	while (r->head + need - tail > size) {
		struct pmuctx_rec_header *h = pmuctx_rb_at(r, tail);
		u64 off = tail & (size - 1);

		/* Never evict a record a nested writer is still filling. */
		if (r->nest && tail >= r->busy_start)
			return false;
		if (WARN_ON_ONCE(h->size < sizeof(*h) || h->size & 7 ||
				 h->size > r->head - tail ||
				 off + h->size > size))
			return false;
		if (h->type != PMUCTX_REC_PAD)
			moved++;
		tail += h->size;
	}
	if (tail != r->tail) {
		pmuctx_rb_seq_begin(r->ctl);
		r->tail = tail;
		WRITE_ONCE(r->ctl->data_tail, tail);
		WRITE_ONCE(r->ctl->overwritten, r->ctl->overwritten + moved);
		pmuctx_rb_seq_end(r->ctl);
	}
	return true;
}

/*
 * Reserve @size bytes (a multiple of 8) on @r, this CPU's ring.  Writes
 * the header (type, size) and the time of the common part, and, when the
 * end of the data area is too close, a PAD record first.  Returns NULL
 * when the record is dropped (counted in lost).  Preemption must be off;
 * pair with pmuctx_rb_commit().
 */
void *pmuctx_rb_reserve(struct pmuctx_rb *r, u32 type, u32 size)
{
	u64 size_data = r->size, off, pad, need, lost_size = 0, now;
	struct pmuctx_rec_header *h;
	unsigned long flags;

	/* No NMI writer exists; one would need a lock-free reservation. */
	if (WARN_ON_ONCE(in_nmi()))
		return NULL;

	local_irq_save(flags);
	/*
	 * At most half the buffer: with the PAD before it (less than the
	 * record) it fits in the whole.  A LOST record in front may not:
	 * pmuctx_rb_room() refuses more than the buffer, and the record
	 * goes without it (the LOST one waits for the next).  At most
	 * PMUCTX_RB_MAX_RECORD: a PAD in front of a LOST record and the
	 * record keeps a u16 size.
	 */
	if (READ_ONCE(*r->frozen) || size > size_data / 2 ||
	    size > PMUCTX_RB_MAX_RECORD)
		goto drop;
	if (WARN_ON_ONCE(size < sizeof(*h) + sizeof(u64) || size & 7))
		goto drop;
	if (r->lost_pending)
		lost_size = sizeof(struct pmuctx_rec_lost);
again:
	need = lost_size + size;
	off = r->head & (size_data - 1);
	pad = off + need > size_data ? size_data - off : 0;
	if (!pmuctx_rb_room(r, pad + need)) {
		if (lost_size) {
			/* No room for the LOST record too: try without. */
			lost_size = 0;
			goto again;
		}
		goto drop;
	}
	if (!r->nest)
		r->busy_start = r->head;
	r->nest++;
	/* counted at reservation: every reserved record is committed */
	WRITE_ONCE(r->ctl->records, r->ctl->records + 1);
	/*
	 * The time is taken here, IRQs off, not when the record is filled:
	 * a writer nested between this reservation and the fill gets a later
	 * place in the buffer, and must get a later time too, so each CPU's
	 * records are in time order (readers merge the CPUs by time).
	 */
	now = ktime_get_mono_fast_ns();
	if (pad) {
		h = pmuctx_rb_at(r, r->head);
		h->type = PMUCTX_REC_PAD;
		h->size = pad;
		h->misc = 0;
		r->head += pad;
	}
	if (lost_size) {
		struct pmuctx_rec_lost *l = (void *)pmuctx_rb_at(r, r->head);

		l->hdr.type = PMUCTX_REC_LOST;
		l->hdr.size = sizeof(*l);
		l->hdr.misc = 0;
		l->c.time = now;
		l->c.cpu = smp_processor_id();
		l->c.pid = 0;
		l->c.tid = 0;
		l->c.__pad = 0;
		l->lost = r->lost_pending;
		r->lost_pending = 0;
		r->head += lost_size;
	}
	h = pmuctx_rb_at(r, r->head);
	h->type = type;
	h->size = size;
	h->misc = 0;
	((struct pmuctx_rec_common *)(h + 1))->time = now;
	r->head += size;
	local_irq_restore(flags);
	return h;

drop:
	r->lost_pending++;
	WRITE_ONCE(r->ctl->lost, r->ctl->lost + 1);
	local_irq_restore(flags);
	return NULL;
}

/*
 * Publish the record reserved last.  IRQs stay on (the scheme of perf's
 * perf_output_put_handle()): only the outermost writer publishes, and
 * after dropping nest to 0 it checks r->head again.  An interrupt writer
 * that reserved before that saw nest > 0 and left the publishing to us:
 * the loop covers its record.  One that came after published itself, and
 * its head includes ours.  So data_head never moves back, and no record
 * is published before it is complete.  Interrupt writers leave r->nest as
 * they found it, so the plain read-modify-write of r->nest is safe.
 *
 * True when the caller must wake the reader (normal mode, wakeup_bytes
 * reached, no wakeup sent since the reader re-armed r->wake_sent).
 */
bool pmuctx_rb_commit(struct pmuctx_rb *r)
{
	u64 head;

	if (r->nest > 1) {
		/* The outermost writer publishes for everyone. */
		WRITE_ONCE(r->nest, r->nest - 1);
		return false;
	}
again:
	head = READ_ONCE(r->head);
	/* record bytes before the head that covers them (= smp_wmb) */
	smp_store_release(&r->ctl->data_head, head);
	barrier();
	WRITE_ONCE(r->nest, 0);
	barrier();
	if (unlikely(READ_ONCE(r->head) != head)) {
		WRITE_ONCE(r->nest, 1);
		barrier();
		goto again;
	}
	if (r->mode != PMUCTX_RING_NORMAL ||
	    head - READ_ONCE(r->ctl->data_tail) < r->wakeup_bytes)
		return false;
	/*
	 * data_head stored before wake_sent is read, against a reader that
	 * clears wake_sent and then reads data_head (pmuctx_ring_rearm()):
	 * one of the two sees the other, never neither.
	 */
	smp_mb();
	if (READ_ONCE(r->wake_sent))
		return false;
	/* a nested writer may queue it too: irq_work_queue() is idempotent */
	WRITE_ONCE(r->wake_sent, true);
	return true;
}

/*
 * Count @n records lost before they reached this ring (samples an NMI
 * could not stage): in lost now, in the next LOST record.  IRQs off.
 */
void pmuctx_rb_add_lost(struct pmuctx_rb *r, u64 n)
{
	r->lost_pending += n;
	WRITE_ONCE(r->ctl->lost, r->ctl->lost + n);
}
