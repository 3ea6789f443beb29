/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: events and the per-CPU kernel counters behind them (counters.c).
 */
#ifndef _PMUCTX_COUNTERS_H
#define _PMUCTX_COUNTERS_H

#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

#include "compat.h"

struct pmuctx_session;

extern bool pmuctx_hw_pmu;
bool pmuctx_sess_uses_perf(const struct pmuctx_session *s);
bool pmuctx_event_on_pmu(u32 id);
unsigned int pmuctx_sess_pmu_counters(const struct pmuctx_session *s);

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

/*
 * Read a CPU-bound kernel counter on its own CPU.  Called from the
 * sched_switch probe and from IPIs: IRQs are off and the counter cannot be
 * scheduled in or out under us.  This is what perf_event_read_local() (not
 * exported) does for a CPU event: let the PMU update the count if the event
 * is active here, then read it.  *@active (if given) says whether it was:
 * a missing, off or error counter counts nothing (READ's running time).
 * Inline: the switch path reads each counter-backed event once per
 * switch.
 */
static inline u64 pmuctx_counter_read(struct perf_event *ev, bool *active)
{
	bool on;

	if (!ev) {
		if (active)
			*active = false;
		return 0;
	}
	on = READ_ONCE(ev->oncpu) == smp_processor_id() &&
	     READ_ONCE(ev->state) == PERF_EVENT_STATE_ACTIVE;
	if (on)
		ev->pmu->read(ev);
	if (active)
		*active = on;
	return local64_read(&ev->count);
}

/*
 * perf's enabled and running times of CPU counter @ev at @now
 * (local_clock()), as perf_event_read_local() (not exported) computes
 * them: the totals perf wrote at the counter's last state change, plus the
 * context time since, to enabled while the counter is scheduled (active
 * or waiting for a PMU slot), to running while it is on the PMU.  IRQs
 * off, on @ev's CPU, as pmuctx_counter_read().
 */
static __always_inline void pmuctx_counter_times(struct perf_event *ev,
						 u64 now, u64 *enabled,
						 u64 *running)
{
	int state = READ_ONCE(ev->state);
	u64 d = pmuctx_perf_ctx_time(ev->ctx, now) - READ_ONCE(ev->tstamp);

	*enabled = READ_ONCE(ev->total_time_enabled);
	*running = READ_ONCE(ev->total_time_running);
	if (state >= PERF_EVENT_STATE_INACTIVE)
		*enabled += d;
	if (state >= PERF_EVENT_STATE_ACTIVE)
		*running += d;
}

int pmuctx_sample_counters_create(struct pmuctx_session *s,
				  perf_overflow_handler_t fn);

/* one counter of @s on @cpu (hotplug.c revives them) */
struct perf_event *
pmuctx_counter_create(struct pmuctx_session *s, u32 id,
		      const struct pmuctx_event_desc *d, int cpu,
		      perf_overflow_handler_t fn);
/* SESSION_CREATE: a raw event's PMU takes it from this caller */
int pmuctx_raw_probe(const struct pmuctx_session *s,
		     const struct pmuctx_event_desc *d);
/* kernel credentials for perf around counter creation; NULL: -ENOMEM */
const struct cred *pmuctx_kcred_get(const struct cred **old);
void pmuctx_kcred_put(const struct cred *kcred, const struct cred *old);

#endif /* _PMUCTX_COUNTERS_H */
