/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: MMAP records of sampled tasks (maps.c).
 */
#ifndef _PMUCTX_MAPS_H
#define _PMUCTX_MAPS_H

#include <linux/types.h>

#include "store.h"

/*
 * MMAP records of an entry's task (maps.c), in entries of sessions that
 * sample user stacks with PMUCTX_REC_MASK_MMAP.  The executable ranges
 * described since the task's last exec: written by the task (its
 * task_work, the exec probe), read by sampling interrupts on its CPU.
 */
#define PMUCTX_MAPS_RANGES	16
struct pmuctx_maps {
	struct callback_head	work;
	struct pmuctx_entry	*e;		/* set when work is queued */
	u64			last_ns;	/* local_clock() of the last scan */
	unsigned int		scans;		/* since the last exec */
	unsigned int		nr;
	bool			pending;
	u64			start[PMUCTX_MAPS_RANGES];
	u64			end[PMUCTX_MAPS_RANGES];
};

/* The entry's MMAP-record state (maps.c), or NULL. */
static inline struct pmuctx_maps *pmuctx_maps(struct pmuctx_entry *e)
{
	u32 off = e->sess->maps_offset;

	return off ? (struct pmuctx_maps *)((u8 *)e + off) : NULL;
}

bool pmuctx_maps_wanted(struct pmuctx_entry *e, const u64 *ips,
			unsigned int n);
void pmuctx_maps_scan(struct pmuctx_entry *e);
void pmuctx_maps_queue(struct pmuctx_entry *e);
void pmuctx_maps_exec(struct pmuctx_entry *e);

#endif /* _PMUCTX_MAPS_H */
