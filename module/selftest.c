// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the debug build's test code (PMUCTX_DEBUG=1 only; selftest.h).
 *
 * The SELFTEST save-area backend: a per-task signature written into the
 * entry's save area at switch-out and verified at switch-in, wherever the
 * task lands (proves the data follows the task across CPUs; t_store).
 * The test hooks: module parameters that corrupt save areas or widen race
 * windows for the VM suite (tests/vm/cases/60, 61, 74).  None of it is in
 * the release module (docs/BUILDING.md, "Release and debug builds").
 *
 * Locks and contexts of the whole module: the map at the top of session.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "main.h"
#include "selftest.h"
#include "session.h"
#include "store.h"

/* ---- test hooks (module parameters) ----------------------------------- */

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

static unsigned int pmuctx_selftest_attach_delay_ms;
module_param_named(selftest_attach_delay_ms, pmuctx_selftest_attach_delay_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_attach_delay_ms,
		 "Test hook: SESSION_CREATE sleeps this long (at most 2000 ms) between resolving its target and attaching, to widen exec races (0: off)");

unsigned int pmuctx_selftest_tail_ms_param;
module_param_named(selftest_task_work_tail_ms,
		   pmuctx_selftest_tail_ms_param, uint, 0600);
MODULE_PARM_DESC(selftest_task_work_tail_ms,
		 "Test hook: a task_work busy-waits this long (at most 2000 ms) after dropping its module reference, to widen the unload race (0: off)");

static unsigned int pmuctx_selftest_revive_delay_ms;
module_param_named(selftest_revive_delay_ms,
		   pmuctx_selftest_revive_delay_ms, uint, 0600);
MODULE_PARM_DESC(selftest_revive_delay_ms,
		 "Test hook: the counters of a CPU that came back online are replaced this long (at most 5000 ms) later, to widen the window where they do not count (0: off)");

static unsigned int pmuctx_selftest_exec_delay_ms;
module_param_named(selftest_exec_delay_ms, pmuctx_selftest_exec_delay_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_exec_delay_ms,
		 "Test hook: the exec probe busy-waits this long (at most 500 ms, interrupts on) before it handles a privilege-raising exec, to widen the window between commit_creds() and the sched_process_exec tracepoint (0: off)");
static unsigned int pmuctx_selftest_total_delay_us;
module_param_named(selftest_total_delay_us, pmuctx_selftest_total_delay_us,
		   uint, 0600);
MODULE_PARM_DESC(selftest_total_delay_us,
		 "Test hook: busy-wait this long (us, <= 2000) between reading and writing a task's or a CPU's totals (t_store reset-race)");
static unsigned int pmuctx_selftest_join_delay_ms;
module_param_named(selftest_join_delay_ms, pmuctx_selftest_join_delay_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_join_delay_ms,
		 "Test hook: the cgroup join worker sleeps this long (at most 2000 ms) before it hashes the tasks that joined and opens their slices, to widen its race with the session's release (0: off)");

/*
 * Entries pmuctx_cpu_sync() cached for a session that was not live: each
 * one may be read by a switch-out after release freed it (t_store cgclose
 * reads the count; nothing resets it).
 */
static atomic_t pmuctx_selftest_dead_cached = ATOMIC_INIT(0);
static int pmuctx_param_dead_cached_get(char *buf,
					const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n",
			  atomic_read(&pmuctx_selftest_dead_cached));
}

static const struct kernel_param_ops pmuctx_dead_cached_ops = {
	.get = pmuctx_param_dead_cached_get,
};
module_param_cb(selftest_dead_cached, &pmuctx_dead_cached_ops, NULL, 0400);
MODULE_PARM_DESC(selftest_dead_cached,
		 "Test counter (read only): entries a CPU cached at a session sync while their session was being torn down (must stay 0)");

/* pmuctx_cpu_sync() (IPI) caches @e: its session must be live */
void pmuctx_selftest_cache_check(struct pmuctx_entry *e)
{
	if (!pmuctx_sess_live(e->sess))
		atomic_inc(&pmuctx_selftest_dead_cached);
}

/*
 * Tracepoint probes (un)hooked since load: each tracepoint_probe_register()
 * or _unregister() of the module patches kernel text (a static key and a
 * static call: text_poke_bp(), IPIs to every CPU).  75-unhook counts them
 * across a create/close loop (issue 29 item 8).
 */
static atomic_t pmuctx_selftest_flips = ATOMIC_INIT(0);
static int pmuctx_param_flips_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&pmuctx_selftest_flips));
}

static const struct kernel_param_ops pmuctx_flips_ops = {
	.get = pmuctx_param_flips_get,
};
module_param_cb(selftest_probe_flips, &pmuctx_flips_ops, NULL, 0400);
MODULE_PARM_DESC(selftest_probe_flips,
		 "Test counter (read only): tracepoint probes registered or unregistered since load");

/* hooks.c registered or unregistered one tracepoint probe */
void pmuctx_selftest_probe_flip(void)
{
	atomic_inc(&pmuctx_selftest_flips);
}

/* SESSION_CREATE of a PID target: widen the window an exec can race into */
void pmuctx_selftest_attach_delay(void)
{
	unsigned int ms = READ_ONCE(pmuctx_selftest_attach_delay_ms);

	if (ms)
		msleep(min(ms, 2000U));
}

/* t_store hotplug-gap: a revived CPU's counters stay off meanwhile */
void pmuctx_selftest_revive_delay(void)
{
	unsigned int ms = READ_ONCE(pmuctx_selftest_revive_delay_ms);

	if (ms)
		msleep(min(ms, 5000U));
}

/*
 * The exec probe of a privilege-raising exec (preemption off, interrupts
 * on): the task is past commit_creds() and start_thread(), its user
 * registers are the setuid program's; sampling ticks land here
 * (pmuctx-sec execwindow, 73-security).  A busy wait in the kernel's delay
 * loop, not in the module: a tick at an ip of the module is not sampled.
 */
void pmuctx_selftest_exec_delay(void)
{
	unsigned int ms = READ_ONCE(pmuctx_selftest_exec_delay_ms);

	if (ms)
		mdelay(min(ms, 500U));
}

/*
 * t_store reset-race: the switch path (IRQs off) and the fold (preemption
 * off) wait here between the read and the write of the totals they add
 * to, so that a RESET on another CPU lands inside.
 */
void pmuctx_selftest_total_delay(void)
{
	unsigned int us = READ_ONCE(pmuctx_selftest_total_delay_us);

	if (us)
		udelay(min(us, 2000U));
}

/* t_store cgclose: the join worker starts this much later */
void pmuctx_selftest_join_delay(void)
{
	unsigned int ms = READ_ONCE(pmuctx_selftest_join_delay_ms);

	if (ms)
		msleep(min(ms, 2000U));
}

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
