/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: time spent in the sched_switch probe (probebench.c), in the
 * debug build only: the benchmarks' probe-internal timer
 * (bench/probe-ab.sh, bench/notes/8-probe-time.md).  The release build
 * has empty stubs and reads no clock for it.
 */
#ifndef _PMUCTX_PROBEBENCH_H
#define _PMUCTX_PROBEBENCH_H

#include <linux/sched/clock.h>
#include <linux/types.h>

#ifdef PMUCTX_DEBUG
static inline u64 pmuctx_probebench_start(void)
{
	return local_clock();
}

void pmuctx_probebench_end(u64 start, bool hit);
void pmuctx_probebench_report(void);
#else
static inline u64 pmuctx_probebench_start(void) { return 0; }
static inline void pmuctx_probebench_end(u64 start, bool hit) { }
static inline void pmuctx_probebench_report(void) { }
#endif

#endif /* _PMUCTX_PROBEBENCH_H */
