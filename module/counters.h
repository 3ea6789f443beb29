/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: events and the per-CPU kernel counters behind them (counters.c).
 */
#ifndef _PMUCTX_COUNTERS_H
#define _PMUCTX_COUNTERS_H

#include <linux/list.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

struct pmuctx_session;

extern bool pmuctx_hw_pmu;
extern struct list_head pmuctx_counting;
int pmuctx_hotplug_init(void);
void pmuctx_hotplug_exit(void);
bool pmuctx_sess_uses_perf(const struct pmuctx_session *s);

/* New counters of a session for one CPU, swapped in on that CPU. */
struct pmuctx_swap {
	struct pmuctx_session	*s;
	struct perf_event	*ev[PMUCTX_MAX_EVENTS];	/* NULL: keep */
};

void pmuctx_detect_hw_pmu(void);
int pmuctx_counters_create(struct pmuctx_session *s);
void pmuctx_counters_destroy(struct pmuctx_session *s);
int pmuctx_event_validate(u32 id);
bool pmuctx_event_is_native(u32 id);
u64 pmuctx_counter_read(struct perf_event *ev, bool *active);
int pmuctx_sample_counters_create(struct pmuctx_session *s,
				  perf_overflow_handler_t fn);

#endif /* _PMUCTX_COUNTERS_H */
