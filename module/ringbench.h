/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: in-kernel microbenchmark of the ring writer (ringbench.c),
 * reachable through debugfs only, in the debug build only (selftest.h).
 */
#ifndef _PMUCTX_RINGBENCH_H
#define _PMUCTX_RINGBENCH_H

#include <linux/types.h>

#if defined(PMUCTX_DEBUG) && defined(CONFIG_DEBUG_FS)
void pmuctx_ringbench_init(void);
void pmuctx_ringbench_exit(void);
#else
static inline void pmuctx_ringbench_init(void) { }
static inline void pmuctx_ringbench_exit(void) { }
#endif

#endif /* _PMUCTX_RINGBENCH_H */
