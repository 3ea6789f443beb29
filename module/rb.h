/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: one CPU's byte ring, the writer's side (rb.c).
 *
 * rb.c knows the ring protocol of <linux/pmuctx.h> (control page, header,
 * PAD and LOST records) and nothing else of the module: no session, no
 * task, no record layout but those two.  It is compiled as is into the
 * host test tests/unit/test_rb.c, which runs every combination of buffer
 * size, offset, record size, pending LOST record, nesting and mode that
 * matters against the same source.
 */
#ifndef _PMUCTX_RB_H
#define _PMUCTX_RB_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <uapi/linux/pmuctx.h>

/* The largest record: its size is a u16, a multiple of 8. */
#define PMUCTX_REC_MAX_SIZE	(U16_MAX & ~7U)
/*
 * The largest record pmuctx_rb_reserve() takes (65488): the PAD it may
 * write in front of a pending LOST record and the record is shorter than
 * both together, and is a record too, so both must leave it a u16 size.
 */
#define PMUCTX_RB_MAX_RECORD	PMUCTX_REC_SIZE_MAX	/* 65528 - 40: test_abi */

/*
 * One CPU's ring.  Only written on its CPU, with IRQs off around
 * reservation (pmuctx_rb_reserve()); see rb.c for the protocol.
 */
struct pmuctx_rb {
	struct pmuctx_ring_ctl	*ctl;		/* control page (mapped) */
	u8			*data;		/* data area (mapped) */
	const bool		*frozen;	/* all CPUs' freeze flag */
	u64			size;		/* data bytes, a power of 2 */
	u64			head;		/* reserved up to here */
	u64			tail;		/* overwrite mode: oldest kept */
	u64			busy_start;	/* outermost reservation in flight */
	u64			lost_pending;	/* for the next LOST record */
	u32			mode;		/* PMUCTX_RING_NORMAL, _OVERWRITE */
	u32			wakeup_bytes;	/* normal mode: wake at this fill */
	unsigned int		nest;		/* writers in flight */
	bool			wake_sent;	/* edge-triggered reader wakeup */
};

/*
 * seq is a seqcount for readers of data_tail/flags/overwritten; only the
 * buffer's own CPU (writer) or the reader (ring.c, under the ring's
 * lock; flags with the writers frozen) change those fields.
 */
static inline void pmuctx_rb_seq_begin(struct pmuctx_ring_ctl *ctl)
{
	WRITE_ONCE(ctl->seq, ctl->seq + 1);
	smp_wmb();	/* odd seq visible before the fields change */
}

static inline void pmuctx_rb_seq_end(struct pmuctx_ring_ctl *ctl)
{
	smp_wmb();	/* fields visible before the even seq */
	WRITE_ONCE(ctl->seq, ctl->seq + 1);
}

void pmuctx_rb_init(struct pmuctx_rb *r, struct pmuctx_ring_ctl *ctl,
		    void *data, u64 size, u32 mode, u32 wakeup_bytes,
		    unsigned int cpu, const bool *frozen);
void *pmuctx_rb_reserve(struct pmuctx_rb *r, u32 type, u32 size);
bool pmuctx_rb_commit(struct pmuctx_rb *r);
void pmuctx_rb_add_lost(struct pmuctx_rb *r, u64 n);

#endif /* _PMUCTX_RB_H */
