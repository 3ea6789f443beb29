/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: module parameters, global statistics and pmuctx_mutex (params.c).
 * pmuctx_mutex is in the map of locks at the top of session_types.h.
 */
#ifndef _PMUCTX_PARAMS_H
#define _PMUCTX_PARAMS_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>

#define PMUCTX_VERSION		"0.1.0"

/* Module parameters (params.c; max_sample_freq is sample.c's). */
extern unsigned int pmuctx_max_tasks;
extern unsigned int pmuctx_pool_size;
extern unsigned int pmuctx_max_exited_default;
extern unsigned int pmuctx_max_sessions_per_user;
extern unsigned int pmuctx_max_user_syncs;
extern unsigned int pmuctx_max_counter_sessions_per_user;
extern unsigned int pmuctx_max_tasks_per_user;
extern unsigned int pmuctx_max_ring_pages;
extern int pmuctx_max_unpriv_pmu_counters;
extern unsigned int pmuctx_unpriv_pmu_default;

struct pmuctx_stats {
	atomic_t	entries;	/* alive entries (not pool) */
	atomic64_t	bytes;		/* entry + pool memory */
	atomic64_t	created;
	atomic64_t	freed;
	atomic64_t	alloc_failures;
	atomic64_t	pool_entries;
	atomic64_t	dropped;
	atomic_t	sessions;
};

extern struct pmuctx_stats pmuctx_stats;
extern struct mutex pmuctx_mutex;

#endif /* _PMUCTX_PARAMS_H */
