/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the records of the ring buffers (records.c).
 */
#ifndef _PMUCTX_RECORDS_H
#define _PMUCTX_RECORDS_H

#include <linux/types.h>

struct pmuctx_entry;
struct pmuctx_session;
struct task_struct;

/* One MMAP record's fields (records.c writes it). */
struct pmuctx_mmap_info {
	u64		start, len, pgoff, ino;
	u32		dev_major, dev_minor, prot, flags;
	u16		misc;
	const char	*path;
};

void pmuctx_rec_switch(struct pmuctx_session *s, struct task_struct *prev,
		       struct task_struct *next, unsigned int prev_state,
			bool preempt, const u64 *delta);
void pmuctx_rec_fork(struct pmuctx_session *s, struct task_struct *parent,
		     struct task_struct *child);
void pmuctx_rec_exec(struct pmuctx_session *s, struct task_struct *p,
		     const char *filename);
void pmuctx_rec_exit(struct pmuctx_session *s, struct task_struct *p,
		     const u64 *values);
void pmuctx_rec_comm(struct pmuctx_session *s, struct task_struct *t);
int pmuctx_rec_user(struct pmuctx_session *s, const void *buf, u32 len);
void pmuctx_rec_sample(struct pmuctx_session *s,
		       const struct pmuctx_entry *e, u16 misc, u64 ip,
			u64 period, u64 cookie, const unsigned long *kst,
			unsigned int nk, const u64 *ust, unsigned int nu);
void pmuctx_rec_user_callchain(struct pmuctx_session *s, u64 cookie,
			       const u64 *ips, unsigned int n, bool trunc);
void pmuctx_rec_user_stack(struct pmuctx_session *s, u64 cookie,
			   const u64 *regs, unsigned int nr_regs,
			    const void __user *sp, u32 len);
bool pmuctx_rec_user_stack_fits(unsigned int nr_regs, u32 dump,
				u64 ring_bytes);
void pmuctx_rec_mmap(struct pmuctx_session *s,
		     const struct pmuctx_mmap_info *mi);
bool pmuctx_rec_throttle(struct pmuctx_session *s, u16 misc, u64 period,
			 u64 avg, u64 dropped);
void pmuctx_rec_lost(struct pmuctx_session *s, u64 n);

#endif /* _PMUCTX_RECORDS_H */
