// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: module init and exit: the one file that sees every other
 * (parameters and statistics: params.c).
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>

#include "chrdev.h"
#include "counters.h"
#include "hookreg.h"
#include "hooks.h"
#include "hotplug.h"
#include "params.h"
#include "perm.h"
#include "probebench.h"
#include "ringbench.h"
#include "sample.h"
#include "selftest.h"
#include "session.h"
#include "store.h"

static int __init pmuctx_init(void)
{
	int ret;

	if (pmuctx_pool_size < 1 || pmuctx_pool_size > PMUCTX_POOL_MAX) {
		pr_err("pool_size must be 1..%d\n", PMUCTX_POOL_MAX);
		return -EINVAL;
	}

	pmuctx_detect_hw_pmu();
	ret = pmuctx_entry_caches_init(pmuctx_session_put);
	if (ret) {
		pr_err("cannot create the entry slab caches: %d\n", ret);
		return ret;
	}
	ret = pmuctx_sysctl_init();
	if (ret) {
		pr_err("cannot mount a private procfs for sysctls: %d\n", ret);
		goto err_caches;
	}
	ret = pmuctx_hotplug_init();
	if (ret) {
		pr_err("cannot register a CPU hotplug callback: %d\n", ret);
		goto err_hotplug;
	}
	ret = pmuctx_chrdev_init();
	if (ret)
		goto err_chrdev;
	pmuctx_ringbench_init();	/* debugfs only; cannot fail */

	pr_info("version %s loaded (ABI %d)%s\n", PMUCTX_VERSION,
		PMUCTX_ABI_VERSION, PMUCTX_BUILD_NOTE);
	return 0;

err_chrdev:
	pmuctx_hotplug_exit();
err_hotplug:
	pmuctx_sysctl_exit();
err_caches:
	pmuctx_entry_caches_destroy();
	return ret;
}

static void __exit pmuctx_exit(void)
{
	int i;

	pmuctx_ringbench_exit();
	pmuctx_chrdev_exit();
	/*
	 * No session is left: the probes and the store a deferred unhook
	 * still keeps go now, before anything they touch is freed.
	 */
	pmuctx_hooks_exit();
	pmuctx_hotplug_exit();
	/*
	 * A task_work (deferred callchain, MMAP snapshot) drops its module
	 * reference near its end, and the rest of it still runs module code
	 * (its sampling mark, its entry's put, the return:
	 * pmuctx_sample_work_end()): preempted there (PREEMPT_RCU,
	 * preempt=full), a task passes a normal RCU grace period, and
	 * free_module() would unmap the text it returns to.  RCU Tasks waits
	 * until every task has switched voluntarily or run in user mode
	 * since, so past any such return (lifetimes item 3); an entry put
	 * there queued its free callback before, for the loop below.
	 */
	synchronize_rcu_tasks();
	/*
	 * Entries are freed by call_rcu(), and an entry's callback may drop
	 * its parent's last reference and queue another: rcu_barrier() waits
	 * only for callbacks queued before it, so repeat until every entry
	 * is gone (a chain is as long as an inheritance line).
	 */
	for (i = 0; i < 1000; i++) {
		rcu_barrier();
		if (!atomic64_read(&pmuctx_stats.bytes))
			break;
	}
	/*
	 * The callback that freed the last entry may still be running, on
	 * another CPU, queued during the last barrier: after the bytes
	 * reach 0 it still drops its session's and user's references, in
	 * module code.  A callback being invoked still counts on its CPU's
	 * list, so one more barrier waits for it.
	 */
	rcu_barrier();
	WARN_ON_ONCE(atomic64_read(&pmuctx_stats.bytes));
	pmuctx_entry_caches_destroy();
	pmuctx_sysctl_exit();
	pmuctx_probebench_report();	/* debug build only */
	pr_info("unloaded\n");
}

module_init(pmuctx_init);
module_exit(pmuctx_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("pmuctx developers");
MODULE_DESCRIPTION("Per-task PMU context store, counting and tracing (/dev/pmuctx)");
MODULE_VERSION(PMUCTX_VERSION);
