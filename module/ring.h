/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: per-CPU ring buffers of a session and their records (ring.c).
 */
#ifndef _PMUCTX_RING_H
#define _PMUCTX_RING_H

#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

#include "rb.h"

struct file;
struct pmuctx_entry;
struct pmuctx_session;
struct poll_table_struct;
struct task_struct;
struct vm_area_struct;

/* One MMAP record's fields (ring.c writes it). */
struct pmuctx_mmap_info {
	u64		start, len, pgoff, ino;
	u32		dev_major, dev_minor, prot, flags;
	u16		misc;
	const char	*path;
};

int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a);
void pmuctx_ring_init(struct pmuctx_session *s);
int pmuctx_ring_create(struct pmuctx_session *s, u32 pages, u32 mode,
		       u32 records, u32 wakeup);
void pmuctx_ring_destroy(struct pmuctx_session *s);
void pmuctx_ring_switch(struct pmuctx_session *s, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state,
			bool preempt, const u64 *delta);
void pmuctx_ring_fork(struct pmuctx_session *s, struct task_struct *parent,
		      struct task_struct *child);
void pmuctx_ring_exec(struct pmuctx_session *s, struct task_struct *p,
		      const char *filename);
void pmuctx_ring_exit(struct pmuctx_session *s, struct task_struct *p,
		      const u64 *values);
void pmuctx_ring_comm(struct pmuctx_session *s, struct task_struct *t);
int pmuctx_ring_user(struct pmuctx_session *s, const void *buf, u32 len);
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
void pmuctx_ring_add_lost(struct pmuctx_session *s, u64 n);
void pmuctx_ring_sample(struct pmuctx_session *s,
			const struct pmuctx_entry *e, u16 misc, u64 ip,
			u64 period, u64 cookie, const unsigned long *kst,
			unsigned int nk, const u64 *ust, unsigned int nu);
void pmuctx_ring_user_callchain(struct pmuctx_session *s, u64 cookie,
				const u64 *ips, unsigned int n, bool trunc);
void pmuctx_ring_user_stack(struct pmuctx_session *s, u64 cookie,
			    const u64 *regs, unsigned int nr_regs,
			    const void __user *sp, u32 len);
bool pmuctx_ring_throttle(struct pmuctx_session *s, u16 misc, u64 period,
			  u64 avg, u64 dropped);
void pmuctx_ring_mmap_rec(struct pmuctx_session *s,
			  const struct pmuctx_mmap_info *mi);

#endif /* _PMUCTX_RING_H */
