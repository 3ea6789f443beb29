// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: CPU hotplug, the counters of a CPU that comes back online
 * (hotplug.h).
 *
 * perf takes the per-CPU counters off a CPU that goes offline
 * (__perf_event_exit_context(): removed from the context, state OFF) and
 * does not put them back when it returns: a session's counts for tasks on
 * that CPU froze from then on, silently (lifetimes item 5; t_store
 * hotplug).  When a CPU comes online, a work item gives every counting
 * session new counters there, where its counters are off, in error or
 * missing (the CPU was offline at create), and swaps them in on that CPU;
 * a sample_event session gets a new sampling counter there too.  Until
 * then the CPU's counters count nothing, and READ says so (time_running,
 * pmuctx_entry_stop()).  The callback itself cannot create counters: it
 * runs with the hotplug lock held for write, which perf takes for read
 * (static keys).
 *
 * pmuctx_counting: sessions with perf-backed counting events or sampling
 * counters, under pmuctx_mutex; a session leaves it at release before its
 * counters are destroyed, so the work below never sees freed counters.
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "counters.h"
#include "hooks.h"
#include "hotplug.h"
#include "params.h"
#include "sample.h"
#include "session_types.h"
#include "testhooks.h"

LIST_HEAD(pmuctx_counting);
static enum cpuhp_state pmuctx_hp_state;

static bool pmuctx_counter_broken(struct perf_event *ev)
{
	return !ev || READ_ONCE(ev->state) < PERF_EVENT_STATE_INACTIVE;
}

/*
 * The sampling counter of @s on @cpu (sample_event sessions), where the
 * old one went off with the CPU: perf would leave the session without
 * samples there from then on.  Enabled if the session is: ENABLE and
 * DISABLE switch the sampling counters under pmuctx_mutex too
 * (pmuctx_sample_start/stop()), so each sees the other's doing.  The old
 * counter is off: no overflow of it runs any more.
 * pmuctx_mutex and kernel credentials held, process context.
 */
static void pmuctx_sample_counter_revive(struct pmuctx_session *s, int cpu)
{
	struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);
	struct perf_event *ev, *old;

	if (!pmuctx_counter_broken(sc->sample_ev))
		return;
	ev = pmuctx_counter_create(s, s->sample_event, &s->sample_desc, cpu,
				   pmuctx_sample_overflow);
	if (IS_ERR(ev)) {
		pr_debug("cpu %d: sampling counter: %ld\n", cpu, PTR_ERR(ev));
		return;
	}
	if (READ_ONCE(s->enabled))
		perf_event_enable(ev);
	old = sc->sample_ev;
	WRITE_ONCE(sc->sample_ev, ev);
	if (old)
		perf_event_release_kernel(old);
}

/* pmuctx_mutex and kernel credentials held, process context. */
static void pmuctx_counters_revive(struct pmuctx_session *s, int cpu)
{
	struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);
	struct pmuctx_swap sw = { .s = s };
	struct perf_event *ev;
	bool any = false;
	unsigned int i;

	if (s->sample_event)
		pmuctx_sample_counter_revive(s, cpu);
	for (i = 0; i < s->nr_events; i++) {
		if (pmuctx_event_is_native(s->events[i]) ||
		    !pmuctx_counter_broken(sc->ev[i]))
			continue;
		ev = pmuctx_counter_create(s, s->events[i], &s->ev_desc[i], cpu,
					   NULL);
		if (IS_ERR(ev)) {
			pr_debug("cpu %d: counter %u: %ld\n", cpu, s->events[i],
				 PTR_ERR(ev));
			continue;
		}
		sw.ev[i] = ev;
		any = true;
	}
	if (!any)
		return;
	/* offline again meanwhile: the new ones are released below */
	smp_call_function_single(cpu, pmuctx_cpu_swap_counters, &sw, 1);
	for (i = 0; i < s->nr_events; i++)
		if (sw.ev[i])
			perf_event_release_kernel(sw.ev[i]);
}

static void pmuctx_hotplug_work_fn(struct work_struct *work)
{
	const struct cred *kcred, *old;
	struct pmuctx_session *s;
	int cpu;

	/* test hook (t_store hotplug-gap): counters stay off meanwhile */
	pmuctx_testhook_revive_delay();
	kcred = pmuctx_kcred_get(&old);
	if (!kcred)
		return;
	mutex_lock(&pmuctx_mutex);
	list_for_each_entry(s, &pmuctx_counting, node)
		for_each_online_cpu(cpu)
			pmuctx_counters_revive(s, cpu);
	mutex_unlock(&pmuctx_mutex);
	pmuctx_kcred_put(kcred, old);
}

static DECLARE_WORK(pmuctx_hotplug_work, pmuctx_hotplug_work_fn);

static int pmuctx_cpu_online(unsigned int cpu)
{
	schedule_work(&pmuctx_hotplug_work);
	return 0;
}

int pmuctx_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "pmuctx:online",
					pmuctx_cpu_online, NULL);
	if (ret < 0)
		return ret;
	pmuctx_hp_state = ret;
	return 0;
}

void pmuctx_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(pmuctx_hp_state);
	flush_work(&pmuctx_hotplug_work);
}
