// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the SELFTEST save-area backend of the debug build (PMUCTX_DEBUG=1
 * only; selftest.h).
 *
 * The SELFTEST save-area backend: a per-task signature written into the
 * entry's save area at switch-out and verified at switch-in, wherever the
 * task lands (proves the data follows the task across CPUs; t_store), and
 * the module parameters that corrupt save areas to prove a mismatch is
 * seen.  The other test hooks are testhooks.c's.  None of it is in the
 * release module (docs/BUILDING.md, "Release and debug builds").
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "params.h"
#include "selftest.h"
#include "session_types.h"
#include "store.h"

/* ---- corrupting save areas (module parameters) ------------------------- */

static atomic_t pmuctx_selftest_inject = ATOMIC_INIT(0);
static int pmuctx_param_inject_set(const char *val,
				   const struct kernel_param *kp)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret)
		return ret;
	if (n < 0 || n > 1000)
		return -EINVAL;
	atomic_set(&pmuctx_selftest_inject, n);
	return 0;
}

static int pmuctx_param_inject_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&pmuctx_selftest_inject));
}

static const struct kernel_param_ops pmuctx_inject_ops = {
	.set = pmuctx_param_inject_set,
	.get = pmuctx_param_inject_get,
};
module_param_cb(selftest_inject, &pmuctx_inject_ops, NULL, 0600);
MODULE_PARM_DESC(selftest_inject,
		 "Test hook: corrupt the selftest save area of the next N switch-outs, to prove mismatches are detected (0..1000)");

static int pmuctx_selftest_inject_pid;
module_param_named(selftest_inject_pid, pmuctx_selftest_inject_pid, int, 0600);
MODULE_PARM_DESC(selftest_inject_pid,
		 "Test hook: only corrupt save areas of this pid (global pid namespace; 0: any task)");

/* ---- the SELFTEST backend --------------------------------------------- */

static atomic64_t pmuctx_selftest_checks;
static atomic64_t pmuctx_selftest_mismatches;
static atomic64_t pmuctx_selftest_migrations;

/* after the save area (pmuctx_selftest_entry_extra()) */
static struct pmuctx_selftest_state *pmuctx_st(struct pmuctx_entry *e)
{
	return (void *)((u8 *)pmuctx_save(e) +
			ALIGN(e->sess->data_size, sizeof(u64)));
}

static u64 pmuctx_sig(struct pmuctx_entry *e, u32 i)
{
	u64 v = (u64)(unsigned long)e->task ^
		(pmuctx_st(e)->seq * 0x9E3779B97F4A7C15ULL);

	return v + (u64)i * 0x100000001B3ULL;
}

/*
 * The save area is data_size bytes (seed 000: 788 for LBR call stacks):
 * whole words of signature, then the low bytes of one more for the tail.
 */
void pmuctx_selftest_save(struct pmuctx_entry *e, int cpu)
{
	u32 i, size = e->sess->data_size, n = size / sizeof(u64);
	u64 *w = pmuctx_save(e);
	u64 tail;

	pmuctx_st(e)->seq++;
	for (i = 0; i < n; i++)
		w[i] = pmuctx_sig(e, i);
	if (size % sizeof(u64)) {
		tail = pmuctx_sig(e, n);
		memcpy(&w[n], &tail, size % sizeof(u64));
	}
	if (unlikely(atomic_read(&pmuctx_selftest_inject) > 0)) {
		pid_t want = READ_ONCE(pmuctx_selftest_inject_pid);

		if ((!want || want == task_pid_nr(e->task)) &&
		    atomic_dec_if_positive(&pmuctx_selftest_inject) >= 0)
			((u8 *)w)[size - 1] ^= 0x5a;
	}
	pmuctx_st(e)->cpu = cpu;
	e->flags |= PMUCTX_EF_SAVE_VALID;
}

void pmuctx_selftest_verify(struct pmuctx_entry *e, int cpu)
{
	u32 i, size = e->sess->data_size, n = size / sizeof(u64);
	const u64 *w = pmuctx_save(e);
	bool bad = false;
	u64 tail;

	atomic64_inc(&pmuctx_selftest_checks);
	if (pmuctx_st(e)->cpu != cpu)
		atomic64_inc(&pmuctx_selftest_migrations);
	for (i = 0; i < n && !bad; i++)
		bad = w[i] != pmuctx_sig(e, i);
	if (!bad && size % sizeof(u64)) {
		tail = pmuctx_sig(e, n);
		bad = memcmp(&w[n], &tail, size % sizeof(u64));
	}
	if (bad)
		atomic64_inc(&pmuctx_selftest_mismatches);
}

/* INFO: the backend's statistics (a release module reports 0) */
void pmuctx_selftest_info(struct pmuctx_info *info)
{
	info->selftest_checks = atomic64_read(&pmuctx_selftest_checks);
	info->selftest_mismatches = atomic64_read(&pmuctx_selftest_mismatches);
	info->selftest_migrations = atomic64_read(&pmuctx_selftest_migrations);
}
