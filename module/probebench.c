// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the probe-internal timer of the benchmarks, debug build only.
 *
 * Each CPU sums the local_clock() time from the sched_switch probe's entry
 * (the "now" it reads anyway) to its exit, the number of calls, and the
 * calls that left entries in the CPU cache (a watched task switched in).
 * The totals are printed at module removal:
 *
 *	pmuctx: probe time: n=CALLS hit=CALLS_WITH_ENTRIES ns=TOTAL
 *
 * which bench/probe-ab.sh reads after each rmmod.  This replaces a patch
 * that had to be applied to the tree by hand (issue 17 item 2).
 *
 * Context: pmuctx_probebench_end() runs in sched_switch, IRQs off, on its
 * CPU (this_cpu ops, no lock); the report at module exit, after the
 * probes are unregistered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>

#include "probebench.h"

struct pmuctx_probebench {
	u64	ns;
	u64	n;
	u64	hit;
};

static DEFINE_PER_CPU(struct pmuctx_probebench, pmuctx_probebench);

void pmuctx_probebench_end(u64 start, bool hit)
{
	this_cpu_add(pmuctx_probebench.ns, local_clock() - start);
	this_cpu_inc(pmuctx_probebench.n);
	if (hit)
		this_cpu_inc(pmuctx_probebench.hit);
}

void pmuctx_probebench_report(void)
{
	u64 ns = 0, n = 0, hit = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct pmuctx_probebench *p =
			per_cpu_ptr(&pmuctx_probebench, cpu);

		ns += p->ns;
		n += p->n;
		hit += p->hit;
	}
	pr_info("probe time: n=%llu hit=%llu ns=%llu\n", n, hit, ns);
}
