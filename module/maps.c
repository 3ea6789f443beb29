// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: MMAP records, the file mappings of sampled processes.
 *
 * A profile names a user address through the process's memory map.  User
 * space can read /proc/PID/maps only while the process lives, so a short
 * command's samples used to stay unnamed.  Sessions that sample user
 * stacks and ask for PMUCTX_REC_MASK_MMAP get the map from the kernel
 * instead: a snapshot of every file mapping, written by the sampled task
 * itself in process context (task_work at its next return to user space,
 * or the deferred-callchain work that runs there anyway), where it may
 * take mmap_read_lock() and d_path().
 *
 * When: the sampling interrupt (or the deferred walk) checks a sample's
 * user addresses against the executable ranges the entry has described
 * since its task's last exec (struct pmuctx_maps, at s->maps_offset in
 * the entry); one outside all of them, or none described yet, asks for a
 * snapshot.  After PMUCTX_MAPS_FREE snapshots, one per
 * PMUCTX_MAPS_INTERVAL_NS at most, then ever fewer (pmuctx_maps_due()): an
 * address no file maps (JIT code, the vDSO) would otherwise ask at every
 * sample.
 *
 * Contexts: pmuctx_maps_wanted() in the sampling interrupt (hardirq, the
 * sampled task current) and in task context; pmuctx_maps_queue() in the
 * interrupt; pmuctx_maps_scan() and pmuctx_maps_fn() in task context.
 * The ranges are written only by the task itself (the work, the exec
 * probe) and read by interrupts on its CPU: each range is complete before
 * @nr covers it.
 *
 * Lifetimes: as the deferred-callchain work (sample.c): a queued work holds
 * a reference on its entry and on the module.
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "budget.h"
#include "maps.h"
#include "perm.h"
#include "records.h"
#include "ring.h"
#include "sample.h"
#include "session_types.h"
#include "store.h"

#define PMUCTX_MAPS_FREE		8
#define PMUCTX_MAPS_INTERVAL_NS		(100 * NSEC_PER_MSEC)

/* Is @ip in an executable range described since the task's last exec? */
static bool pmuctx_maps_covered(const struct pmuctx_maps *m, u64 ip)
{
	unsigned int i, nr = READ_ONCE(m->nr);

	for (i = 0; i < nr; i++)
		if (ip >= m->start[i] && ip < m->end[i])
			return true;
	return false;
}

/*
 * After PMUCTX_MAPS_FREE snapshots, the interval doubles with each one, to
 * PMUCTX_MAPS_INTERVAL_NS << 7 (12.8 s): a process with more executable
 * mappings than PMUCTX_MAPS_RANGES, or one running JIT code, is never
 * fully covered and would otherwise snapshot every interval for good.
 * Signed: local_clock() of another CPU may be a little behind.
 */
static bool pmuctx_maps_due(struct pmuctx_maps *m)
{
	unsigned int scans = READ_ONCE(m->scans);

	if (scans < PMUCTX_MAPS_FREE)
		return true;
	return (s64)(local_clock() - READ_ONCE(m->last_ns)) >=
	       (s64)(PMUCTX_MAPS_INTERVAL_NS << min(scans - PMUCTX_MAPS_FREE, 7U));
}

/*
 * Any of @ips (user addresses) not described yet?  The innermost
 * PMUCTX_MAPS_CHECK frames only: this runs in every sample.
 */
#define PMUCTX_MAPS_CHECK	32
bool pmuctx_maps_wanted(struct pmuctx_entry *e, const u64 *ips,
			unsigned int n)
{
	struct pmuctx_maps *m = pmuctx_maps(e);
	unsigned int i;

	if (!m || READ_ONCE(m->pending))
		return false;
	n = min(n, PMUCTX_MAPS_CHECK);
	if (!READ_ONCE(m->nr))
		return pmuctx_maps_due(m);
	for (i = 0; i < n; i++)
		if (!pmuctx_maps_covered(m, ips[i]))
			return pmuctx_maps_due(m);
	return false;
}

static void pmuctx_maps_emit(struct pmuctx_session *s,
			     struct vm_area_struct *vma, char *buf, u16 misc)
{
	struct inode *inode = file_inode(vma->vm_file);
	struct pmuctx_mmap_info mi = {
		.start = vma->vm_start,
		.len = vma->vm_end - vma->vm_start,
		.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT,
		.ino = inode->i_ino,
		.dev_major = MAJOR(inode->i_sb->s_dev),
		.dev_minor = MINOR(inode->i_sb->s_dev),
		.prot = (vma->vm_flags & VM_READ ? PROT_READ : 0) |
			(vma->vm_flags & VM_WRITE ? PROT_WRITE : 0) |
			(vma->vm_flags & VM_EXEC ? PROT_EXEC : 0),
		.flags = vma->vm_flags & VM_MAYSHARE ? MAP_SHARED : MAP_PRIVATE,
		.misc = misc,
	};
	char *path = file_path(vma->vm_file, buf, PATH_MAX);

	mi.path = IS_ERR(path) ? "//unknown" : path;
	rcu_read_lock();
	/* The ring is freed after an RCU grace period. */
	if (pmuctx_sess_live(s))
		pmuctx_rec_mmap(s, &mi);
	rcu_read_unlock();
}

/*
 * Snapshot the current task's file mappings into @e's session.  Task
 * context, current is @e's task.  The last record is written one step
 * late so that it can carry PMUCTX_MMAP_M_LAST.
 */
void pmuctx_maps_scan(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;
	struct pmuctx_maps *m = pmuctx_maps(e);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma, *prev = NULL;
	unsigned int n = 0, nr = 0;
	u16 misc = PMUCTX_MMAP_M_FIRST;
	char *buf;

	if (!m || !mm || READ_ONCE(e->dead) ||
	    current->flags & (PF_KTHREAD | PF_EXITING | PF_IO_WORKER))
		return;
	/*
	 * A system-wide or cgroup session's creator sees only the maps of
	 * tasks it may ptrace-read (perm.c).  A refused snapshot counts as
	 * one for pmuctx_maps_due(): the task is asked ever less often.
	 */
	if (!pmuctx_owner_may_read(s, current)) {
		WRITE_ONCE(m->last_ns, local_clock());
		WRITE_ONCE(m->scans, m->scans + 1);
		return;
	}
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return;
	if (mmap_read_lock_killable(mm)) {
		kfree(buf);
		return;
	}
	WRITE_ONCE(m->last_ns, local_clock());
	WRITE_ONCE(m->scans, m->scans + 1);
	WRITE_ONCE(m->nr, 0);
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (!vma->vm_file)
				continue;
			if (n == PMUCTX_MMAP_MAX)
				break;
			if (vma->vm_flags & VM_EXEC && nr < PMUCTX_MAPS_RANGES) {
				m->start[nr] = vma->vm_start;
				m->end[nr] = vma->vm_end;
				/* the range is complete before nr covers it */
				barrier();
				WRITE_ONCE(m->nr, ++nr);
			}
			if (prev) {
				pmuctx_maps_emit(s, prev, buf, misc);
				misc = 0;
			}
			prev = vma;
			n++;
		}
	}
	if (prev)
		pmuctx_maps_emit(s, prev, buf, misc | PMUCTX_MMAP_M_LAST |
				 (n == PMUCTX_MMAP_MAX ? PMUCTX_MMAP_M_TRUNC : 0));
	mmap_read_unlock(mm);
	kfree(buf);
}

static void pmuctx_maps_fn(struct callback_head *cb)
{
	struct pmuctx_maps *m = container_of(cb, struct pmuctx_maps, work);
	struct pmuctx_entry *e = m->e;
	struct pmuctx_budget_mark bm;

	/*
	 * Not for a task that dies (exit_task_work(), a fatal signal), nor
	 * one whose entry was dropped since the sample: a work queued before
	 * a setuid exec runs after it, and the new program's layout is not
	 * the session's to see (security item 1's rule).
	 */
	pmuctx_sample_mark_work(e, true);	/* no sample of the scan */
	pmuctx_budget_work_start(&bm);	/* marked first: no sample of this either */
	if (!(current->flags & PF_EXITING) && !fatal_signal_pending(current) &&
	    !READ_ONCE(e->dead) && pmuctx_sess_live(e->sess))
		pmuctx_maps_scan(e);
	WRITE_ONCE(m->pending, false);
	pmuctx_budget_deferred(&bm);	/* the scan is sampling's cost too */
	pmuctx_sample_work_end(e);	/* last: only the return follows */
}

/*
 * In the sampling interrupt, @e's task current: queue a snapshot for its
 * next return to user space.
 */
void pmuctx_maps_queue(struct pmuctx_entry *e)
{
	struct pmuctx_maps *m = pmuctx_maps(e);

	if (!m || READ_ONCE(m->pending) ||
	    current->flags & (PF_KTHREAD | PF_EXITING | PF_IO_WORKER))
		return;
	m->e = e;
	pmuctx_entry_task_work(e, &m->work, pmuctx_maps_fn, &m->pending);
}

/* The exec probe (the task itself): the old program's ranges are gone. */
void pmuctx_maps_exec(struct pmuctx_entry *e)
{
	struct pmuctx_maps *m = pmuctx_maps(e);

	if (!m)
		return;
	WRITE_ONCE(m->nr, 0);
	WRITE_ONCE(m->scans, 0);
}
