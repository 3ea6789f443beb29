// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the debug build's test hooks (PMUCTX_DEBUG=1 only; testhooks.h).
 *
 * Module parameters that widen race windows for the VM suite (delays in
 * the create, join, exec, revive and fold paths, a task_work's tail) and
 * read-only counters the suite checks (probe flips, dead cached entries).
 * The hooks are called from every layer, so this file knows nothing of
 * the module: it takes and returns plain values.  None of it is in the
 * release module (docs/BUILDING.md, "Release and debug builds").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "testhooks.h"

static unsigned int pmuctx_testhook_attach_delay_ms;
module_param_named(selftest_attach_delay_ms, pmuctx_testhook_attach_delay_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_attach_delay_ms,
		 "Test hook: SESSION_CREATE sleeps this long (at most 2000 ms) between resolving its target and attaching, to widen exec races (0: off)");

unsigned int pmuctx_testhook_tail_ms_param;
module_param_named(selftest_task_work_tail_ms,
		   pmuctx_testhook_tail_ms_param, uint, 0600);
MODULE_PARM_DESC(selftest_task_work_tail_ms,
		 "Test hook: a task_work busy-waits this long (at most 2000 ms) after dropping its module reference, to widen the unload race (0: off)");

static unsigned int pmuctx_testhook_revive_delay_ms;
module_param_named(selftest_revive_delay_ms,
		   pmuctx_testhook_revive_delay_ms, uint, 0600);
MODULE_PARM_DESC(selftest_revive_delay_ms,
		 "Test hook: the counters of a CPU that came back online are replaced this long (at most 5000 ms) later, to widen the window where they do not count (0: off)");

static unsigned int pmuctx_testhook_exec_delay_ms;
module_param_named(selftest_exec_delay_ms, pmuctx_testhook_exec_delay_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_exec_delay_ms,
		 "Test hook: the exec probe busy-waits this long (at most 500 ms, interrupts on) before it handles a privilege-raising exec, to widen the window between commit_creds() and the sched_process_exec tracepoint (0: off)");
static unsigned int pmuctx_testhook_total_delay_us;
module_param_named(selftest_total_delay_us, pmuctx_testhook_total_delay_us,
		   uint, 0600);
MODULE_PARM_DESC(selftest_total_delay_us,
		 "Test hook: busy-wait this long (us, <= 2000) between reading and writing a task's or a CPU's totals (t_store reset-race)");
static unsigned int pmuctx_testhook_join_delay_ms;
module_param_named(selftest_join_delay_ms, pmuctx_testhook_join_delay_ms,
		   uint, 0600);
MODULE_PARM_DESC(selftest_join_delay_ms,
		 "Test hook: the cgroup join worker sleeps this long (at most 2000 ms) before it hashes the tasks that joined and opens their slices, to widen its race with the session's release (0: off)");

/*
 * Entries pmuctx_cpu_sync() cached for a session that was not live: each
 * one may be read by a switch-out after release freed it (t_store cgclose
 * reads the count; nothing resets it).
 */
static atomic_t pmuctx_testhook_dead_cached_nr = ATOMIC_INIT(0);
static int pmuctx_param_dead_cached_get(char *buf,
					const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n",
			  atomic_read(&pmuctx_testhook_dead_cached_nr));
}

static const struct kernel_param_ops pmuctx_dead_cached_ops = {
	.get = pmuctx_param_dead_cached_get,
};
module_param_cb(selftest_dead_cached, &pmuctx_dead_cached_ops, NULL, 0400);
MODULE_PARM_DESC(selftest_dead_cached,
		 "Test counter (read only): entries a CPU cached at a session sync while their session was being torn down (must stay 0)");

/* pmuctx_cpu_sync() (IPI) cached an entry of a session that is not live */
void pmuctx_testhook_dead_cached(void)
{
	atomic_inc(&pmuctx_testhook_dead_cached_nr);
}

/*
 * Tracepoint probes (un)hooked since load: each tracepoint_probe_register()
 * or _unregister() of the module patches kernel text (a static key and a
 * static call: text_poke_bp(), IPIs to every CPU).  75-unhook counts them
 * across a create/close loop (issue 29 item 8).
 */
static atomic_t pmuctx_testhook_flips = ATOMIC_INIT(0);
static int pmuctx_param_flips_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&pmuctx_testhook_flips));
}

static const struct kernel_param_ops pmuctx_flips_ops = {
	.get = pmuctx_param_flips_get,
};
module_param_cb(selftest_probe_flips, &pmuctx_flips_ops, NULL, 0400);
MODULE_PARM_DESC(selftest_probe_flips,
		 "Test counter (read only): tracepoint probes registered or unregistered since load");

/* hooks.c registered or unregistered one tracepoint probe */
void pmuctx_testhook_probe_flip(void)
{
	atomic_inc(&pmuctx_testhook_flips);
}

/* Sleep for the parameter *@ms, at most @max ms (0: not at all). */
static void pmuctx_testhook_msleep(const unsigned int *ms, unsigned int max)
{
	unsigned int v = READ_ONCE(*ms);

	if (v)
		msleep(min(v, max));
}

/* SESSION_CREATE of a PID target: widen the window an exec can race into */
void pmuctx_testhook_attach_delay(void)
{
	pmuctx_testhook_msleep(&pmuctx_testhook_attach_delay_ms, 2000);
}

/* t_store hotplug-gap: a revived CPU's counters stay off meanwhile */
void pmuctx_testhook_revive_delay(void)
{
	pmuctx_testhook_msleep(&pmuctx_testhook_revive_delay_ms, 5000);
}

/*
 * The exec probe of a privilege-raising exec (preemption off, interrupts
 * on): the task is past commit_creds() and start_thread(), its user
 * registers are the setuid program's; sampling ticks land here
 * (pmuctx-sec execwindow, 73-security).  A busy wait in the kernel's delay
 * loop, not in the module: a tick at an ip of the module is not sampled.
 */
void pmuctx_testhook_exec_delay(void)
{
	unsigned int ms = READ_ONCE(pmuctx_testhook_exec_delay_ms);

	if (ms)
		mdelay(min(ms, 500U));
}

/*
 * t_store reset-race: the switch path (IRQs off) and the fold (preemption
 * off) wait here between the read and the write of the totals they add
 * to, so that a RESET on another CPU lands inside.
 */
void pmuctx_testhook_total_delay(void)
{
	unsigned int us = READ_ONCE(pmuctx_testhook_total_delay_us);

	if (us)
		udelay(min(us, 2000U));
}

/* t_store cgclose: the join worker starts this much later */
void pmuctx_testhook_join_delay(void)
{
	pmuctx_testhook_msleep(&pmuctx_testhook_join_delay_ms, 2000);
}
