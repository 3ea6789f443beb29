// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the ioctl dispatcher and PMUCTX_IOC_INFO.
 *
 * Commands (all documented in include/uapi/linux/pmuctx.h):
 *  PMUCTX_IOC_INFO		module identity and store statistics, any fd
 *  PMUCTX_IOC_SESSION_CREATE	make this fd a counting session
 *  PMUCTX_IOC_ENABLE		start counting
 *  PMUCTX_IOC_DISABLE		stop counting
 *  PMUCTX_IOC_RESET		zero the counts
 *  PMUCTX_IOC_READ		totals and per-task values
 *  PMUCTX_IOC_SNAPSHOT		freeze the ring buffers
 *  PMUCTX_IOC_RESUME		unfreeze them
 *  PMUCTX_IOC_RING_CONSUME	normal mode: free space up to a tail
 *
 * Dispatch is by type, number and direction.  The size bits of the command
 * are ignored: structs carry their own size (copy_struct_from_user()).
 *
 * This is the only code that copies an ioctl's struct in from user space
 * or out to it (pmuctx_copy_in(), READ's answer and per-task array): the
 * session and ring code get and fill kernel structs.  (read(2) of the
 * ring copies its records out in ring.c; write(2)'s payload is copied in
 * by chrdev.c.)
 *
 * Context: process, may fault.  Every command but INFO runs under the
 * session's sess->lock (SESSION_CREATE included), taken here; the locks
 * are mapped at the top of session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "counters.h"
#include "hookreg.h"
#include "hooks.h"
#include "ioctl.h"
#include "params.h"
#include "ring.h"
#include "selftest.h"
#include "session.h"
#include "store.h"

struct pmuctx_cmd {
	unsigned int	dir;	/* _IOC_NONE, _IOC_WRITE, _IOC_READ|_IOC_WRITE */
	bool		session; /* handled by the session code */
};

static const struct pmuctx_cmd pmuctx_cmds[] = {
	[_IOC_NR(PMUCTX_IOC_INFO)] = { _IOC_READ | _IOC_WRITE, false },
	[_IOC_NR(PMUCTX_IOC_SESSION_CREATE)] = { _IOC_WRITE, true },
	[_IOC_NR(PMUCTX_IOC_ENABLE)] = { _IOC_NONE, true },
	[_IOC_NR(PMUCTX_IOC_DISABLE)] = { _IOC_NONE, true },
	[_IOC_NR(PMUCTX_IOC_RESET)] = { _IOC_NONE, true },
	[_IOC_NR(PMUCTX_IOC_READ)] = { _IOC_READ | _IOC_WRITE, true },
	[_IOC_NR(PMUCTX_IOC_SNAPSHOT)] = { _IOC_NONE, true },
	[_IOC_NR(PMUCTX_IOC_RESUME)] = { _IOC_NONE, true },
	[_IOC_NR(PMUCTX_IOC_RING_CONSUME)] = { _IOC_WRITE, true },
};

static u64 pmuctx_features(void)
{
	u64 f = PMUCTX_FEAT_COUNTING | PMUCTX_FEAT_INHERIT |
		PMUCTX_FEAT_SYSTEM_WIDE | PMUCTX_FEAT_CGROUP |
		PMUCTX_FEAT_RING | PMUCTX_FEAT_SAMPLING | PMUCTX_FEAT_MMAP |
		PMUCTX_FEAT_SWITCHLESS | PMUCTX_FEAT_EVENT_DESC |
		PMUCTX_FEAT_PERF_THROTTLE | PMUCTX_FEAT_DEBUG_ONLY;

	f |= PMUCTX_FEAT_USER_DUMP;
	if (pmuctx_hw_pmu)
		f |= PMUCTX_FEAT_HW_PMU;
	return f;
}

/**
 * pmuctx_copy_in() - copy in a size-first struct of the ABI
 * @dst:	kernel struct, @ksize bytes
 * @ksize:	the kernel's size of it
 * @uarg:	user pointer; its first u32 is the caller's size
 * @min:	the first published size (..._SIZE_VER0)
 * @usizep:	the caller's size, on success
 *
 * The one copy-in rule of every ioctl: a size below @min is EINVAL; above
 * PAGE_SIZE, or with non-zero bytes past @ksize, E2BIG with @ksize written
 * back to the caller's size field (as perf_event_open() and sched_setattr()
 * do: the cap keeps the kernel from scanning up to 4 GiB of user memory for
 * a zero tail); shorter than @ksize, the rest is zero.
 *
 * Context: process, may fault.
 * Return: 0, -EFAULT, -EINVAL or -E2BIG.
 */
static int pmuctx_copy_in(void *dst, size_t ksize, void __user *uarg,
			  size_t min, u32 *usizep)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < min)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		ret = -E2BIG;
	else
		ret = copy_struct_from_user(dst, ksize, uarg, usize);
	if (ret == -E2BIG && put_user((u32)ksize, (u32 __user *)uarg))
		return -EFAULT;
	if (ret)
		return ret;
	*usizep = usize;
	return 0;
}

static int pmuctx_ioctl_info(void __user *uarg)
{
	struct pmuctx_info info;
	u32 usize;
	int ret;

	ret = pmuctx_copy_in(&info, sizeof(info), uarg, PMUCTX_INFO_SIZE_VER0,
			     &usize);
	if (ret)
		return ret;
	if (info.flags)
		return -EINVAL;

	memset(&info, 0, sizeof(info));
	info.size = min_t(u32, usize, sizeof(info));
	info.abi_version = PMUCTX_ABI_VERSION;
	info.nr_cpus = nr_cpu_ids;
	info.features = pmuctx_features();
	strscpy(info.version, PMUCTX_VERSION, sizeof(info.version));
	info.tasks_tracked = atomic_read(&pmuctx_stats.entries);
	info.store_bytes = atomic64_read(&pmuctx_stats.bytes);
	info.sessions = atomic_read(&pmuctx_stats.sessions);
	info.probes_registered = pmuctx_hooks_registered();
	info.entry_bytes = sizeof(struct pmuctx_entry);
	info.max_tasks = READ_ONCE(pmuctx_max_tasks);
	info.entries_created = atomic64_read(&pmuctx_stats.created);
	info.entries_freed = atomic64_read(&pmuctx_stats.freed);
	info.alloc_failures = atomic64_read(&pmuctx_stats.alloc_failures);
	info.pool_entries = atomic64_read(&pmuctx_stats.pool_entries);
	info.dropped = atomic64_read(&pmuctx_stats.dropped);
	pmuctx_selftest_info(&info);

	if (copy_to_user(uarg, &info, info.size))
		return -EFAULT;
	return 0;
}

/* Upper bound on a per-task read, to refuse absurd buffers early. */
#define PMUCTX_READ_MAX_TASKS	BIT(20)

/* SESSION_CREATE: EBUSY, then the attr is read in (docs/ABI.md's order). */
static int pmuctx_ioctl_create(struct pmuctx_session *s, void __user *uarg)
{
	struct pmuctx_session_attr a;
	u32 usize;
	int ret;

	if (READ_ONCE(s->state) != PMUCTX_SS_NEW)
		return -EBUSY;
	ret = pmuctx_copy_in(&a, sizeof(a), uarg,
			     PMUCTX_SESSION_ATTR_SIZE_VER0, &usize);
	if (ret)
		return ret;
	return pmuctx_session_create(s, &a);
}

/*
 * READ: the request is read in and checked here, pmuctx_session_read()
 * answers it in kernel memory, and the answer is copied out: the per-task
 * array first (min(task_size, ours) bytes of each element, the rest of
 * the element zeroed; nothing of it on ENOSPC), then the struct (the
 * caller's size of it; not after a fault in the array).
 */
static int pmuctx_ioctl_read(struct pmuctx_session *s, void __user *uarg)
{
	struct pmuctx_task_values *tv;
	struct pmuctx_read r;
	u32 usize, i;
	size_t tsz;
	int ret;

	ret = pmuctx_copy_in(&r, sizeof(r), uarg, PMUCTX_READ_SIZE_VER0,
			     &usize);
	if (ret)
		return ret;
	if (r.flags & ~PMUCTX_READ_FLAGS_ALL || r.__pad)
		return -EINVAL;
	if (r.flags & PMUCTX_READ_PER_TASK) {
		if (r.task_size < PMUCTX_TASK_VALUES_SIZE_VER0 ||
		    r.task_size > PAGE_SIZE)
			return -EINVAL;
		if (r.nr_tasks > PMUCTX_READ_MAX_TASKS)
			return -EINVAL;
		if (r.nr_tasks && !r.tasks_ptr)
			return -EFAULT;
	}

	ret = pmuctx_session_read(s, &r, &tv);
	if (ret && ret != -ENOSPC)
		return ret;
	if (tv) {
		tsz = min_t(size_t, r.task_size, sizeof(*tv));
		for (i = 0; i < r.nr_tasks; i++) {
			void __user *dst = u64_to_user_ptr(r.tasks_ptr) +
					   (size_t)i * r.task_size;

			if (copy_to_user(dst, &tv[i], tsz) ||
			    (r.task_size > tsz &&
			     clear_user(dst + tsz, r.task_size - tsz))) {
				ret = -EFAULT;
				goto out;
			}
		}
	}
	if (copy_to_user(uarg, &r, min_t(u32, usize, sizeof(r))))
		ret = -EFAULT;
out:
	kvfree(tv);
	return ret;
}

/* RING_CONSUME: the struct is read in, ring.c checks and applies it. */
static int pmuctx_ioctl_consume(struct pmuctx_session *s, void __user *uarg)
{
	struct pmuctx_ring_consume c;
	u32 usize;
	int ret;

	ret = pmuctx_copy_in(&c, sizeof(c), uarg,
			     PMUCTX_RING_CONSUME_SIZE_VER0, &usize);
	if (ret)
		return ret;
	return pmuctx_ring_consume(&s->ring, &c);
}

/*
 * The commands of a session, serialized by its sess->lock.  Every command
 * but SESSION_CREATE needs a live session, checked before its argument is
 * looked at (EINVAL).
 */
static long pmuctx_session_ioctl(struct pmuctx_session *s, unsigned int nr,
				 void __user *uarg, unsigned long arg)
{
	long ret;

	mutex_lock(&s->lock);
	if (nr == _IOC_NR(PMUCTX_IOC_SESSION_CREATE)) {
		ret = pmuctx_ioctl_create(s, uarg);
		goto out;
	}
	/* then the argument of the argument-less commands: must be 0 */
	if (READ_ONCE(s->state) != PMUCTX_SS_LIVE ||
	    (pmuctx_cmds[nr].dir == _IOC_NONE && arg)) {
		ret = -EINVAL;
		goto out;
	}
	ret = 0;
	switch (nr) {
	case _IOC_NR(PMUCTX_IOC_ENABLE):
		pmuctx_session_enable(s);
		break;
	case _IOC_NR(PMUCTX_IOC_DISABLE):
		pmuctx_session_disable(s);
		break;
	case _IOC_NR(PMUCTX_IOC_RESET):
		pmuctx_session_reset(s);
		break;
	case _IOC_NR(PMUCTX_IOC_READ):
		ret = pmuctx_ioctl_read(s, uarg);
		break;
	case _IOC_NR(PMUCTX_IOC_SNAPSHOT):
		ret = pmuctx_ring_snapshot(&s->ring);
		break;
	case _IOC_NR(PMUCTX_IOC_RESUME):
		ret = pmuctx_ring_resume(&s->ring);
		break;
	case _IOC_NR(PMUCTX_IOC_RING_CONSUME):
		ret = pmuctx_ioctl_consume(s, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
out:
	mutex_unlock(&s->lock);
	return ret;
}

long pmuctx_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) != PMUCTX_IOC_MAGIC || nr >= ARRAY_SIZE(pmuctx_cmds))
		return -ENOTTY;
	/* Holes in the table have dir 0 and session false: reject them. */
	if (nr != _IOC_NR(PMUCTX_IOC_INFO) && !pmuctx_cmds[nr].session)
		return -ENOTTY;
	if (_IOC_DIR(cmd) != pmuctx_cmds[nr].dir)
		return -ENOTTY;

	if (nr == _IOC_NR(PMUCTX_IOC_INFO))
		return pmuctx_ioctl_info(uarg);
	return pmuctx_session_ioctl(file->private_data, nr, uarg, arg);
}
