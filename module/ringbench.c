// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: in-kernel microbenchmark of the ring writer, debugfs only.
 *
 * A write(2) cannot show what the ring itself costs (the system call
 * dominates), so this measures the writer in the kernel, next to a bare
 * per-CPU memcpy of the same bytes.  /sys/kernel/debug/pmuctx/ring_bench
 * (root only):
 *
 *   echo "SIZE COUNT [MODE [PAGES]]" > ring_bench; cat ring_bench
 *
 * SIZE: bytes per record, a multiple of 8, 48..PMUCTX_USER_MAX + 40 and
 * at most half the buffer; COUNT: records per variant, 1000..10^7 (a
 * multiple of 1000); MODE: overwrite (default) or normal; PAGES: data
 * pages per CPU of the buffers, a power of two up to max_ring_pages
 * (default 64).  The write runs the benchmark in the writer's context; the
 * read gives, per variant, the minimum and the median of the ns per record
 * over batches of 1000 records, the variants interleaved batch by batch so
 * that noise (other guests, the host) hits them alike:
 *
 *   memcpy	the floor: SIZE bytes copied into a per-CPU buffer of the
 *		ring's data size (vmalloc, like the ring), wrapping at its
 *		end, preemption off around each record
 *   memcpy_irq	the same with IRQs off around the copy: the least a
 *		per-CPU buffer needs against writers nested from interrupts
 *   clock	ktime_get_mono_fast_ns() alone: the time every record holds
 *		(in the TCG test VM an emulated HPET read, dearer than a
 *		short memcpy)
 *   memcpy_clock  memcpy with that time stored into the copy: a bare
 *		per-CPU buffer of records that carry a time
 *   ring	the byte ring's writer alone (rb.c): reserve (IRQs off,
 *		header and time), copy the SIZE - 16 bytes after them
 *		(preemption off, IRQs on), commit (IRQs off), into a bare
 *		struct pmuctx_ring in MODE (ring.c, no session)
 *   user	the USER record path of write(2) once the payload is in the
 *		kernel: pmuctx_rec_user() with SIZE - 40 bytes of payload
 *		(adds the pid/tid lookups and the zero padding)
 *
 * Normal mode: the benchmark frees the space itself once half the buffer
 * is used (a reader that keeps up); overwrite mode: the writer evicts.
 * `user` goes through the records layer, which writes a session's ring:
 * a private session with a ring and nothing else (no target, no events,
 * not on the session list, invisible to the probes).  Both rings are
 * charged to the caller's locked_vm, as a session's ring.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "params.h"
#include "perm.h"
#include "records.h"
#include "ring.h"
#include "ringbench.h"
#include "session.h"

#define RB_BATCH	1000
#define RB_MAX_COUNT	10000000
#define RB_OUT_SIZE	2048
#define RB_MIN_SIZE	(sizeof(struct pmuctx_rec_user) + 8)
#define RB_MAX_SIZE	(sizeof(struct pmuctx_rec_user) + PMUCTX_USER_MAX)

enum rb_variant {
	RB_MEMCPY,
	RB_MEMCPY_IRQ,
	RB_MEMCPY_CLOCK,
	RB_CLOCK,
	RB_RING,
	RB_USER,
	RB_NR,
};

static const char *const rb_name[RB_NR] = {
	[RB_MEMCPY]	= "memcpy",
	[RB_MEMCPY_IRQ]	= "memcpy_irq",
	[RB_MEMCPY_CLOCK] = "memcpy_clock",
	[RB_CLOCK]	= "clock",
	[RB_RING]	= "ring",
	[RB_USER]	= "user",
};

struct rb_ctx {
	struct pmuctx_session	*s;	/* user: private, a ring only */
	struct pmuctx_ring	ring;	/* ring: bare, no session */
	struct pmuctx_rb __percpu *rb;	/* its writers */
	struct user_struct	*ring_user;	/* locked_vm of ring */
	u8			*area;	/* memcpy: nr_cpu_ids buffers */
	u64			*pos;	/* memcpy: write position per CPU */
	u64			bytes;	/* data bytes per CPU */
	u8			*src;	/* SIZE bytes to write */
	u32			size;
	bool			normal;
	u64			drops;
	u64			sink;	/* clock readings, kept */
};

static DEFINE_MUTEX(rb_lock);		/* one run at a time; rb_out */
static char rb_out[RB_OUT_SIZE];
static size_t rb_out_len;
static struct dentry *rb_dir;

/* ---- the variants (not inlined: one call per record, like the ring) ---- */

static noinline void rb_memcpy(struct rb_ctx *c)
{
	u64 pos;
	int cpu;

	preempt_disable();
	cpu = smp_processor_id();
	pos = c->pos[cpu];
	if (pos + c->size > c->bytes)
		pos = 0;
	memcpy(c->area + (size_t)cpu * c->bytes + pos, c->src, c->size);
	c->pos[cpu] = pos + c->size;
	preempt_enable();
}

static noinline void rb_memcpy_irq(struct rb_ctx *c)
{
	unsigned long flags;
	u64 pos;
	int cpu;

	preempt_disable();
	cpu = smp_processor_id();
	local_irq_save(flags);
	pos = c->pos[cpu];
	if (pos + c->size > c->bytes)
		pos = 0;
	memcpy(c->area + (size_t)cpu * c->bytes + pos, c->src, c->size);
	c->pos[cpu] = pos + c->size;
	local_irq_restore(flags);
	preempt_enable();
}

static noinline void rb_memcpy_clock(struct rb_ctx *c)
{
	u8 *dst;
	u64 pos;
	int cpu;

	preempt_disable();
	cpu = smp_processor_id();
	pos = c->pos[cpu];
	if (pos + c->size > c->bytes)
		pos = 0;
	dst = c->area + (size_t)cpu * c->bytes + pos;
	memcpy(dst, c->src, c->size);
	/* where a record's time is */
	*(u64 *)(dst + sizeof(struct pmuctx_rec_header)) =
		ktime_get_mono_fast_ns();
	c->pos[cpu] = pos + c->size;
	preempt_enable();
}

static noinline void rb_clock(struct rb_ctx *c)
{
	c->sink += ktime_get_mono_fast_ns();
}

/* Normal mode: free this CPU's buffer of @rb once half of it is used. */
static void rb_consume(struct rb_ctx *c, struct pmuctx_rb __percpu *rb)
{
	struct pmuctx_ring_ctl *ctl;
	u64 head;

	preempt_disable();
	ctl = this_cpu_ptr(rb)->ctl;
	/* pairs with the commit's store-release */
	head = smp_load_acquire(&ctl->data_head);
	if (head - READ_ONCE(ctl->data_tail) > c->bytes / 2)
		/* pairs with the writer's load-acquire of the tail */
		smp_store_release(&ctl->data_tail, head);
	preempt_enable();
}

/*
 * As write(2) runs the writer: the record filled with preemption off,
 * IRQs on, between reserve and commit; the bytes after the header and
 * the time copied from c->src.  No reader waits: no wakeup.
 */
static noinline void rb_ring(struct rb_ctx *c)
{
	const u32 fixed = sizeof(struct pmuctx_rec_header) + sizeof(u64);
	u8 *w;

	preempt_disable();
	w = pmuctx_rb_reserve(this_cpu_ptr(c->rb), PMUCTX_REC_USER, c->size);
	if (w) {
		memcpy(w + fixed, c->src + fixed, c->size - fixed);
		pmuctx_rb_commit(this_cpu_ptr(c->rb));
	} else {
		c->drops++;
	}
	preempt_enable();
	if (c->normal)
		rb_consume(c, c->rb);
}

static noinline void rb_user(struct rb_ctx *c)
{
	if (pmuctx_rec_user(c->s, c->src,
			    c->size - sizeof(struct pmuctx_rec_user)))
		c->drops++;
	if (c->normal)
		rb_consume(c, &c->s->cpu->ring);
}

/* RB_BATCH records of variant @v; returns the ns they took. */
static u64 rb_batch(struct rb_ctx *c, enum rb_variant v)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;

	switch (v) {
	case RB_MEMCPY:
		for (i = 0; i < RB_BATCH; i++)
			rb_memcpy(c);
		break;
	case RB_MEMCPY_IRQ:
		for (i = 0; i < RB_BATCH; i++)
			rb_memcpy_irq(c);
		break;
	case RB_MEMCPY_CLOCK:
		for (i = 0; i < RB_BATCH; i++)
			rb_memcpy_clock(c);
		break;
	case RB_CLOCK:
		for (i = 0; i < RB_BATCH; i++)
			rb_clock(c);
		break;
	case RB_RING:
		for (i = 0; i < RB_BATCH; i++)
			rb_ring(c);
		break;
	default:
		for (i = 0; i < RB_BATCH; i++)
			rb_user(c);
		break;
	}
	return ktime_get_ns() - t0;
}

/* ---- setup ------------------------------------------------------------ */

static void rb_teardown(struct rb_ctx *c)
{
	struct pmuctx_session *s = c->s;

	kfree(c->src);
	kfree(c->pos);
	vfree(c->area);
	if (c->ring_user) {
		/* the charge as made: destroy zeroes c->ring.pages */
		unsigned long total = pmuctx_ring_total_pages(c->ring.pages);

		pmuctx_ring_destroy(&c->ring);
		pmuctx_user_unlock_pages(s, c->ring_user, total);
		free_uid(c->ring_user);
	}
	free_percpu(c->rb);
	if (!s)
		return;
	pmuctx_session_ring_destroy(s);
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	free_percpu(s->cpu);
	pmuctx_session_put(s);
}

/* The bare ring of variant ring, charged as a session's (through @c->s). */
static int rb_setup_ring(struct rb_ctx *c, u32 pages, u32 mode)
{
	unsigned long total = pmuctx_ring_total_pages(pages);
	struct user_struct *user;
	int ret;

	c->rb = alloc_percpu(struct pmuctx_rb);
	if (!c->rb)
		return -ENOMEM;
	pmuctx_ring_init(&c->ring);
	user = get_current_user();
	ret = pmuctx_user_lock_pages(c->s, user, total);
	if (ret)
		goto err_user;
	ret = pmuctx_ring_create(&c->ring, c->rb, pages, mode, 0);
	if (ret)
		goto err_uncharge;
	c->ring_user = user;
	return 0;

err_uncharge:
	pmuctx_user_unlock_pages(c->s, user, total);
err_user:
	free_uid(user);
	return ret;
}

static int rb_setup(struct rb_ctx *c, u32 size, u32 pages, u32 mode)
{
	struct pmuctx_session *s;
	u32 i;
	int ret;

	c->size = size;
	c->normal = mode == PMUCTX_RING_NORMAL;
	c->bytes = (u64)pages << PAGE_SHIFT;
	c->src = kmalloc(size, GFP_KERNEL);
	c->pos = kcalloc(nr_cpu_ids, sizeof(*c->pos), GFP_KERNEL);
	c->area = vzalloc(array_size(nr_cpu_ids, c->bytes));
	if (!c->src || !c->pos || !c->area)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		c->src[i] = (u8)(i * 7 + 1);

	s = pmuctx_session_alloc();
	if (!s)
		return -ENOMEM;
	c->s = s;
	s->cpu = alloc_percpu(struct pmuctx_sess_cpu);
	if (!s->cpu)
		return -ENOMEM;
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	/* charged to the caller's locked_vm like a session's ring */
	ret = pmuctx_session_ring_create(s, pages, mode, 0, 0);
	if (ret)
		return ret;
	return rb_setup_ring(c, pages, mode);
}

/* ---- running and reporting ------------------------------------------------ */

static int rb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* "N.N": @t ns for RB_BATCH records as ns per record */
static int rb_put_ns(char *buf, size_t len, u64 t)
{
	u64 tenths = div_u64(t, RB_BATCH / 10);

	return scnprintf(buf, len, "%llu.%llu", div_u64(tenths, 10),
			 tenths % 10);
}

static size_t rb_report(char *out, size_t len, u64 *t, unsigned int nb,
			const char *head)
{
	u64 min[RB_NR], med[RB_NR];
	size_t n;
	int v;

	n = scnprintf(out, len, "%s", head);
	for (v = 0; v < RB_NR; v++) {
		u64 *tv = t + (size_t)v * nb;

		sort(tv, nb, sizeof(*tv), rb_cmp, NULL);
		min[v] = tv[0];
		med[v] = tv[nb / 2];
		n += scnprintf(out + n, len - n, "variant=%s min_ns=",
			       rb_name[v]);
		n += rb_put_ns(out + n, len - n, min[v]);
		n += scnprintf(out + n, len - n, " median_ns=");
		n += rb_put_ns(out + n, len - n, med[v]);
		n += scnprintf(out + n, len - n, "\n");
	}
	/* x100, integer: "ratio=ring/memcpy min=1.23 median=1.31" */
	for (v = RB_MEMCPY; v <= RB_MEMCPY_CLOCK; v++) {
		int w;

		for (w = RB_RING; w <= RB_USER; w++) {
			u64 rmin = div64_u64(min[w] * 100, max(min[v], 1ULL));
			u64 rmed = div64_u64(med[w] * 100, max(med[v], 1ULL));

			n += scnprintf(out + n, len - n,
				       "ratio=%s/%s min=%llu.%02llu median=%llu.%02llu\n",
				       rb_name[w], rb_name[v], rmin / 100,
				       rmin % 100, rmed / 100, rmed % 100);
		}
	}
	return n;
}

static int rb_run(u32 size, u32 count, u32 mode, u32 pages)
{
	unsigned int nb = count / RB_BATCH, b;
	struct rb_ctx c = { };
	char head[192];
	u64 lost = 0, *t;
	int cpu, ret, v;

	t = kvmalloc_array((size_t)nb * RB_NR, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	ret = rb_setup(&c, size, pages, mode);
	if (ret)
		goto out;
	/* warm up: touch both buffers, fill the ring once */
	for (v = 0; v < RB_NR; v++)
		rb_batch(&c, v);
	for (b = 0; b < nb; b++) {
		for (v = 0; v < RB_NR; v++)
			t[(size_t)v * nb + b] = rb_batch(&c, v);
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
	}
	/* both rings: the bare one (ring) and the session's (user) */
	for_each_possible_cpu(cpu)
		lost += READ_ONCE(per_cpu_ptr(c.rb, cpu)->ctl->lost) +
			READ_ONCE(per_cpu_ptr(c.s->cpu, cpu)->ring.ctl->lost);
	scnprintf(head, sizeof(head),
		  "size=%u count=%u mode=%s pages=%u batch=%u lost=%llu\n",
		  size, nb * RB_BATCH, c.normal ? "normal" : "overwrite",
		  pages, RB_BATCH, lost);
	rb_out_len = rb_report(rb_out, sizeof(rb_out), t, nb, head);
out:
	rb_teardown(&c);
	kvfree(t);
	return ret;
}

static ssize_t rb_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	u32 size, count, pages = 64, mode = PMUCTX_RING_OVERWRITE;
	char buf[64], mname[16] = "overwrite";
	int n, ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%u %u %15s %u", &size, &count, mname, &pages);
	if (n < 2)
		return -EINVAL;
	if (!strcmp(mname, "normal"))
		mode = PMUCTX_RING_NORMAL;
	else if (strcmp(mname, "overwrite"))
		return -EINVAL;
	if (!pages || !is_power_of_2(pages) ||
	    pages > READ_ONCE(pmuctx_max_ring_pages))
		return -EINVAL;
	if (size & 7 || size < RB_MIN_SIZE || size > RB_MAX_SIZE ||
	    size > ((u64)pages << PAGE_SHIFT) / 2)
		return -EINVAL;
	if (count < RB_BATCH || count > RB_MAX_COUNT)
		return -EINVAL;

	mutex_lock(&rb_lock);
	rb_out_len = 0;
	ret = rb_run(size, count, mode, pages);
	mutex_unlock(&rb_lock);
	return ret ? ret : len;
}

static ssize_t rb_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&rb_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, rb_out, rb_out_len);
	mutex_unlock(&rb_lock);
	return ret;
}

static const struct file_operations rb_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= rb_read,
	.write	= rb_write,
	.llseek	= default_llseek,
};

/*
 * Module init: /sys/kernel/debug/pmuctx/ring_bench.  Without debugfs
 * (disabled on the command line, lockdown) nothing is created and nothing
 * fails.
 */
void pmuctx_ringbench_init(void)
{
	struct dentry *d;

	d = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(d))
		return;
	rb_dir = d;
	debugfs_create_file("ring_bench", 0600, rb_dir, NULL, &rb_fops);
}

void pmuctx_ringbench_exit(void)
{
	debugfs_remove(rb_dir);
	rb_dir = NULL;
}
