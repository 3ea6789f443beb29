// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the records of the ring buffers, the only module file that knows
 * their layouts (include/uapi/linux/pmuctx.h): each builder reserves a
 * record on this CPU's byte ring (rb.c), fills it and commits it.  The
 * reader's side of the same layouts is lib/ring.c.
 *
 * Writers and their contexts: the sched_switch probe (IRQs off), the
 * fork/exec/exit probes (preemption off), write(2), the sampling
 * interrupt and the deferred work of the sampled task (sample.c,
 * maps.c).  See rb.c for how writers nest.
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "rb.h"
#include "records.h"
#include "session_types.h"
#include "store.h"

/* Publish the record reserved last (rb.c), and wake the reader if due. */
static void pmuctx_rec_commit(struct pmuctx_session *s, struct pmuctx_rb *r)
{
	if (pmuctx_rb_commit(r))
		irq_work_queue(&s->ring.wake);
}

/* The common part but its time (set by pmuctx_ring_reserve()). */
static void pmuctx_rec_common(struct pmuctx_session *s,
			      struct pmuctx_rec_common *c,
			       struct task_struct *t)
{
	c->cpu = smp_processor_id();
	c->pid = t ? task_tgid_nr_ns(t, s->pid_ns) : 0;
	c->tid = t ? task_pid_nr_ns(t, s->pid_ns) : 0;
	c->__pad = 0;
}

static struct pmuctx_rb *pmuctx_rec_rb(struct pmuctx_session *s)
{
	return &this_cpu_ptr(s->cpu)->ring;
}

/* SWITCH record for @e's task switched out (sched_switch, IRQs off). */
void pmuctx_rec_switch(struct pmuctx_session *s, struct task_struct *prev,
		       struct task_struct *next, unsigned int prev_state,
			bool preempt, const u64 *delta)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);
	struct pmuctx_rec_switch *w;
	u32 size = ALIGN(sizeof(*w) + s->nr_events * sizeof(u64), 8);

	w = pmuctx_rb_reserve(r, PMUCTX_REC_SWITCH, size);
	if (!w)
		return;
	w->hdr.misc = preempt ? PMUCTX_SWITCH_PREEMPT : 0;
	pmuctx_rec_common(s, &w->c, prev);
	w->next_pid = is_idle_task(next) ? 0 : task_tgid_nr_ns(next, s->pid_ns);
	w->next_tid = is_idle_task(next) ? 0 : task_pid_nr_ns(next, s->pid_ns);
	w->prev_state = prev_state;
	w->nr = s->nr_events;
	memcpy(w->delta, delta, s->nr_events * sizeof(u64));
	pmuctx_rec_commit(s, r);
}

/* FORK record (fork probe, preemption off). */
void pmuctx_rec_fork(struct pmuctx_session *s, struct task_struct *parent,
		     struct task_struct *child)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);
	struct pmuctx_rec_fork *w;

	w = pmuctx_rb_reserve(r, PMUCTX_REC_FORK, sizeof(*w));
	if (!w)
		return;
	pmuctx_rec_common(s, &w->c, parent);
	w->child_pid = task_tgid_nr_ns(child, s->pid_ns);
	w->child_tid = task_pid_nr_ns(child, s->pid_ns);
	pmuctx_rec_commit(s, r);
}

/* EXEC record (exec probe, preemption off). */
void pmuctx_rec_exec(struct pmuctx_session *s, struct task_struct *p,
		     const char *filename)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);
	size_t len = strnlen(filename, PATH_MAX - 1) + 1;
	struct pmuctx_rec_exec *w;
	u32 size;

	len = min_t(size_t, len, 1024);
	size = ALIGN(sizeof(*w) + len, 8);
	w = pmuctx_rb_reserve(r, PMUCTX_REC_EXEC, size);
	if (!w)
		return;
	pmuctx_rec_common(s, &w->c, p);
	strscpy_pad(w->comm, p->comm, sizeof(w->comm));
	memset(w->filename, 0, size - sizeof(*w));
	memcpy(w->filename, filename, len - 1);
	pmuctx_rec_commit(s, r);
}

/* EXIT record with the task's totals (exit probe, preemption off). */
void pmuctx_rec_exit(struct pmuctx_session *s, struct task_struct *p,
		     const u64 *values)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);
	u32 size = ALIGN(sizeof(struct pmuctx_rec_exit) +
			 s->nr_events * sizeof(u64), 8);
	struct pmuctx_rec_exit *w;

	w = pmuctx_rb_reserve(r, PMUCTX_REC_EXIT, size);
	if (!w)
		return;
	pmuctx_rec_common(s, &w->c, p);
	w->nr = s->nr_events;
	w->__pad = 0;
	memcpy(w->values, values, s->nr_events * sizeof(u64));
	pmuctx_rec_commit(s, r);
}

/* COMM record: a task the session sees for the first time. */
void pmuctx_rec_comm(struct pmuctx_session *s, struct task_struct *t)
{
	struct pmuctx_rb *r;
	struct pmuctx_rec_comm *w;
	unsigned long flags;

	/* Callers run with preemption or IRQs off, except the attach path. */
	local_irq_save(flags);
	r = pmuctx_rec_rb(s);
	w = pmuctx_rb_reserve(r, PMUCTX_REC_COMM, sizeof(*w));
	if (w) {
		pmuctx_rec_common(s, &w->c, t);
		strscpy_pad(w->comm, t->comm, sizeof(w->comm));
		pmuctx_rec_commit(s, r);
	}
	local_irq_restore(flags);
}

/* write(2): one USER record with @len bytes of @buf (a kernel copy). */
int pmuctx_rec_user(struct pmuctx_session *s, const void *buf, u32 len)
{
	u32 size = ALIGN(sizeof(struct pmuctx_rec_user) + len, 8);
	struct pmuctx_rec_user *w;
	struct pmuctx_rb *r;
	int ret = 0;

	if (size > s->ring.size / 2)
		return -EMSGSIZE;
	preempt_disable();
	r = pmuctx_rec_rb(s);
	w = pmuctx_rb_reserve(r, PMUCTX_REC_USER, size);
	if (w) {
		pmuctx_rec_common(s, &w->c, current);
		w->len = len;
		w->__pad = 0;
		memcpy(w->data, buf, len);
		memset(w->data + len, 0, size - sizeof(*w) - len);
		pmuctx_rec_commit(s, r);
	} else {
		ret = -ENOSPC;
	}
	preempt_enable();
	return ret;
}

/*
 * SAMPLE record of @e's task (hardirq: the sampling hrtimer, or the stage
 * irq_work after an overflow).  The pid and tid are the entry's: the task
 * the sample was taken in, whatever runs when the record is written.
 */
void pmuctx_rec_sample(struct pmuctx_session *s,
		       const struct pmuctx_entry *e, u16 misc, u64 ip,
			u64 period, u64 cookie, const unsigned long *kst,
			unsigned int nk, const u64 *ust, unsigned int nu)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);
	u32 size = sizeof(struct pmuctx_rec_sample) + (nk + nu) * sizeof(u64);
	struct pmuctx_rec_sample *w;
	unsigned int i;

	w = pmuctx_rb_reserve(r, PMUCTX_REC_SAMPLE, size);
	if (!w)
		return;
	w->hdr.misc = misc;
	pmuctx_rec_common(s, &w->c, NULL);
	w->c.pid = e->pid;
	w->c.tid = e->tid;
	w->ip = ip;
	w->period = period;
	w->cookie = cookie;
	w->nr_kernel = nk;
	w->nr_user = nu;
	w->__pad = 0;
	for (i = 0; i < nk; i++)
		w->ips[i] = kst[i];
	memcpy(w->ips + nk, ust, nu * sizeof(u64));
	pmuctx_rec_commit(s, r);
}

/* USER_CALLCHAIN record: the deferred unwind, in task context. */
void pmuctx_rec_user_callchain(struct pmuctx_session *s, u64 cookie,
			       const u64 *ips, unsigned int n, bool trunc)
{
	u32 size = sizeof(struct pmuctx_rec_user_callchain) + n * sizeof(u64);
	struct pmuctx_rec_user_callchain *w;
	struct pmuctx_rb *r;

	preempt_disable();
	r = pmuctx_rec_rb(s);
	w = pmuctx_rb_reserve(r, PMUCTX_REC_USER_CALLCHAIN, size);
	if (w) {
		w->hdr.misc = trunc ? PMUCTX_SAMPLE_M_USER_TRUNC : 0;
		pmuctx_rec_common(s, &w->c, current);
		w->cookie = cookie;
		w->nr = n;
		w->__pad = 0;
		memcpy(w->ips, ips, n * sizeof(u64));
		pmuctx_rec_commit(s, r);
	}
	preempt_enable();
}

/*
 * USER_STACK record (sample.c's deferred work): task context, the task
 * itself.  @len bytes from the user stack pointer @sp, which the caller
 * found readable (faulted in) just before: copied here without faulting,
 * preemption off, straight into the ring (no buffer of its own).  Pages
 * lost since are not read: the rest of the data is zeroed, dyn_size says
 * how much was copied and misc USER_TRUNC that it is short.
 */
void pmuctx_rec_user_stack(struct pmuctx_session *s, u64 cookie,
			   const u64 *regs, unsigned int nr_regs,
			    const void __user *sp, u32 len)
{
	struct pmuctx_rec_user_stack *w;
	unsigned long left;
	struct pmuctx_rb *r;
	u8 *data;
	u32 size;

	len &= ~7U;
	left = len;
	size = sizeof(*w) + nr_regs * sizeof(u64) + len;
	if (WARN_ON_ONCE(size > PMUCTX_RB_MAX_RECORD))
		return;
	preempt_disable();
	r = pmuctx_rec_rb(s);
	w = pmuctx_rb_reserve(r, PMUCTX_REC_USER_STACK, size);
	if (w) {
		pmuctx_rec_common(s, &w->c, current);
		w->cookie = cookie;
		w->abi = pmuctx_arch_regs_abi();
		w->nr_regs = nr_regs;
		w->size = len;
		w->__pad = 0;
		memcpy(w->regs, regs, nr_regs * sizeof(u64));
		data = (u8 *)(w->regs + nr_regs);
		if (len && access_ok(sp, len)) {
			pagefault_disable();
			left = __copy_from_user_inatomic(data, sp, len);
			pagefault_enable();
		}
		/* never a byte of the ring's previous contents */
		if (left)
			memset(data + len - left, 0, left);
		w->dyn_size = len - left;
		w->hdr.misc = left ? PMUCTX_SAMPLE_M_USER_TRUNC : 0;
		pmuctx_rec_commit(s, r);
	}
	preempt_enable();
}

/*
 * Whether a USER_STACK record of @nr_regs registers and a @dump-byte copy
 * can be written to a ring of @ring_bytes data: no larger than the ring
 * takes (PMUCTX_RB_MAX_RECORD: arm64's 33 registers and the largest
 * sample_user_dump are not) nor than half the ring.  SESSION_CREATE asks
 * (sample.c), so that pmuctx_rec_user_stack() never meets a copy it
 * cannot write.
 */
bool pmuctx_rec_user_stack_fits(unsigned int nr_regs, u32 dump,
				u64 ring_bytes)
{
	u64 size = PMUCTX_REC_USER_STACK_SIZE_NR((u64)nr_regs, (u64)dump);

	return size <= PMUCTX_RB_MAX_RECORD && size <= ring_bytes / 2;
}

/*
 * MMAP record (maps.c): task context, the sampled task.  The path is cut
 * to what half the buffer can hold.
 */
void pmuctx_rec_mmap(struct pmuctx_session *s,
		     const struct pmuctx_mmap_info *mi)
{
	size_t len = strnlen(mi->path, PATH_MAX - 1) + 1;
	struct pmuctx_rec_mmap *w;
	struct pmuctx_rb *r;
	u32 size;

	len = min_t(size_t, len, min_t(u64, s->ring.size / 2, PMUCTX_RB_MAX_RECORD) -
				 sizeof(*w));
	size = ALIGN(sizeof(*w) + len, 8);
	preempt_disable();
	r = pmuctx_rec_rb(s);
	w = pmuctx_rb_reserve(r, PMUCTX_REC_MMAP, size);
	if (w) {
		w->hdr.misc = mi->misc;
		pmuctx_rec_common(s, &w->c, current);
		w->start = mi->start;
		w->len = mi->len;
		w->pgoff = mi->pgoff;
		w->ino = mi->ino;
		w->dev_major = mi->dev_major;
		w->dev_minor = mi->dev_minor;
		w->prot = mi->prot;
		w->flags = mi->flags;
		memset(w->path, 0, size - sizeof(*w));
		memcpy(w->path, mi->path, len - 1);
		pmuctx_rec_commit(s, r);
	}
	preempt_enable();
}

/*
 * THROTTLE record (sampling interrupt, sched_switch or an IPI: IRQs off),
 * @misc PMUCTX_THROTTLE_*.  False if it was dropped (ring full, frozen).
 */
bool pmuctx_rec_throttle(struct pmuctx_session *s, u16 misc, u64 period,
			 u64 avg, u64 dropped)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);
	struct pmuctx_rec_throttle *w;

	w = pmuctx_rb_reserve(r, PMUCTX_REC_THROTTLE, sizeof(*w));
	if (!w)
		return false;
	w->hdr.misc = misc;
	pmuctx_rec_common(s, &w->c, NULL);
	w->period_ns = period;
	w->avg_ns = avg;
	w->dropped = dropped;
	pmuctx_rec_commit(s, r);
	return true;
}

/*
 * Count @n records lost before they reached this CPU's ring (samples an
 * NMI could not stage, sample.c): in lost now, in the next LOST record.
 * IRQs off, the session's ring live.
 */
void pmuctx_rec_lost(struct pmuctx_session *s, u64 n)
{
	struct pmuctx_rb *r = pmuctx_rec_rb(s);

	if (!s->ring.area || !r->ctl)
		return;
	pmuctx_rb_add_lost(r, n);
}
