// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: events and the per-CPU kernel counters behind them.
 *
 * task-clock, context-switches and cpu-migrations are computed by the
 * switch hooks themselves.  Every other event is one perf kernel counter
 * per CPU and session (perf_event_create_kernel_counter(), task == NULL),
 * read at each context switch and attributed to the outgoing task as a
 * delta since it came in (the bperf approach: no per-task perf_event).
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/smp.h>

#include "arch.h"
#include "counters.h"
#include "evdesc.h"
#include "params.h"
#include "selftest.h"
#include "session_types.h"

struct pmuctx_event_def {
	u32 type;	/* perf type, or ~0 for module-native */
	u64 config;
};

#define PMUCTX_NATIVE	(~0U)
#define PMUCTX_RAWDESC	(~1U)	/* type and config in the slot's desc */

static const struct pmuctx_event_def pmuctx_events[PMUCTX_EV_MAX + 1] = {
	[PMUCTX_EV_TASK_CLOCK] = { PMUCTX_NATIVE, 0 },
	[PMUCTX_EV_CONTEXT_SWITCHES] = { PMUCTX_NATIVE, 0 },
	[PMUCTX_EV_CPU_MIGRATIONS] = { PMUCTX_NATIVE, 0 },
	[PMUCTX_EV_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE,
				    PERF_COUNT_SW_PAGE_FAULTS },
	[PMUCTX_EV_CPU_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	[PMUCTX_EV_CYCLES] = { PERF_TYPE_HARDWARE,
			       PERF_COUNT_HW_CPU_CYCLES },
	[PMUCTX_EV_INSTRUCTIONS] = { PERF_TYPE_HARDWARE,
				     PERF_COUNT_HW_INSTRUCTIONS },
	[PMUCTX_EV_BRANCHES] = { PERF_TYPE_HARDWARE,
				 PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	[PMUCTX_EV_BRANCH_MISSES] = { PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_BRANCH_MISSES },
	[PMUCTX_EV_CACHE_REFERENCES] = { PERF_TYPE_HARDWARE,
					 PERF_COUNT_HW_CACHE_REFERENCES },
	[PMUCTX_EV_CACHE_MISSES] = { PERF_TYPE_HARDWARE,
				     PERF_COUNT_HW_CACHE_MISSES },
	[PMUCTX_EV_RAW] = { PMUCTX_RAWDESC, 0 },
};

bool pmuctx_hw_pmu;

/*
 * Module load: is there a hardware CPU PMU (PMUCTX_FEAT_HW_PMU)?  A
 * disabled cycles counter on the loading task is created and released:
 * perf finds no PMU for PERF_TYPE_HARDWARE without one (bare metal and
 * VMs with a virtual PMU have one; QEMU TCG and many clouds do not).
 */
void pmuctx_detect_hw_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_event *ev;
	unsigned int n = 0;

	ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	pmuctx_hw_pmu = !IS_ERR(ev);
	if (!IS_ERR(ev)) {
		perf_event_release_kernel(ev);
		n = pmuctx_arch_pmu_counters();
	} else {
		pr_info("no hardware PMU (cycles: %ld): software events only\n",
			PTR_ERR(ev));
	}
	/*
	 * Sessions without CAP_PERFMON have flexible counters on every CPU,
	 * which perf schedules before the running task's own: all of them
	 * together leave two of the PMU's counters to everyone else's
	 * (half of them on a PMU of 4 or fewer; docs/SECURITY.md).
	 */
	pmuctx_unpriv_pmu_default = n > 4 ? n - 2 : n / 2;
	if (pmuctx_max_unpriv_pmu_counters < 0)
		pmuctx_max_unpriv_pmu_counters = pmuctx_unpriv_pmu_default;
	if (pmuctx_hw_pmu)
		pr_info("PMU: %u general-purpose counters, %d for sessions without CAP_PERFMON (max_unprivileged_pmu_counters)\n",
			n, pmuctx_max_unpriv_pmu_counters);
}

/*
 * Does event @id take a counter of the CPU's PMU (hardware and raw
 * events), or is it perf's software event (page faults, cpu-clock)?
 */
bool pmuctx_event_on_pmu(u32 id)
{
	return pmuctx_events[id].type == PERF_TYPE_HARDWARE ||
	       id == PMUCTX_EV_RAW;
}

/*
 * The PMU counters session @s holds on each CPU (perm.c charges them to
 * max_unprivileged_pmu_counters): one per hardware event, and none of
 * them without a hardware PMU (their creation fails); one or two per raw
 * event, as its PMU schedules it (pmuctx_arch_raw_counters()), whether
 * or not the cycles event was found at load (a raw event passed
 * pmuctx_raw_probe(): a CPU PMU took it).  None in a switchless session
 * (it has no counter).  A sample event needs CAP_PERFMON, so it is never
 * charged.
 */
unsigned int pmuctx_sess_pmu_counters(const struct pmuctx_session *s)
{
	unsigned int i, n = 0;

	if (s->switchless)
		return 0;
	for (i = 0; i < s->nr_events; i++) {
		if (s->events[i] == PMUCTX_EV_RAW)
			n += pmuctx_arch_raw_counters(&s->ev_desc[i]);
		else if (pmuctx_hw_pmu && pmuctx_event_on_pmu(s->events[i]))
			n++;
	}
	return n;
}

int pmuctx_event_validate(u32 id)
{
	if (id < 1 || id > PMUCTX_EV_MAX)
		return -EINVAL;
	return 0;
}

bool pmuctx_event_is_native(u32 id)
{
	return pmuctx_events[id].type == PMUCTX_NATIVE;
}

/*
 * The perf attr of event @id described by @d (its modes, and for
 * PMUCTX_EV_RAW its type and config) in @s.
 */
static void pmuctx_counter_attr(const struct pmuctx_session *s, u32 id,
				const struct pmuctx_event_desc *d,
				struct perf_event_attr *attr)
{
	const struct pmuctx_event_def *def = &pmuctx_events[id];
	struct pmuctx_excl x;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (id == PMUCTX_EV_RAW) {
		attr->type = d->type;
		attr->config = d->config;
		attr->config1 = d->config1;
		attr->config2 = d->config2;
	} else {
		attr->type = def->type;
		attr->config = def->config;
	}
	pmuctx_evdesc_excl(d->flags, s->exclude_kernel, &x);
	attr->exclude_user = x.user;
	attr->exclude_kernel = x.kernel;
	attr->exclude_hv = x.hv;
}

/*
 * A CPU-bound kernel counter of event @id, described by @d, for @s.  With
 * @fn, a sampling counter (sample.c): perf's frequency mode aiming at
 * s->sample_freq, created disabled (ENABLE/DISABLE switch it), overflows
 * going to @fn with @s as context.
 */
struct perf_event *
pmuctx_counter_create(struct pmuctx_session *s, u32 id,
		      const struct pmuctx_event_desc *d, int cpu,
		      perf_overflow_handler_t fn)
{
	struct perf_event_attr attr;

	pmuctx_counter_attr(s, id, d, &attr);
	/*
	 * A session of a user without CAP_PERFMON gets flexible counters:
	 * its own take turns (short by the time each was out, which READ
	 * reports as time_running) and pinned events, perf's or root's,
	 * go first (issue 29 item 4).  But perf schedules a CPU's flexible
	 * events before a task's, so enough of them still leave other
	 * users' task counters without a slot: an open defect, the "PMU
	 * counters" row of docs/SECURITY.md (93-pmu-share).
	 */
	attr.pinned = s->owner_perfmon;
	if (fn) {
		attr.freq = 1;
		attr.sample_freq = s->sample_freq;
		attr.disabled = 1;
	}
	return perf_event_create_kernel_counter(&attr, cpu, NULL, fn, s);
}

/*
 * SESSION_CREATE, before any counter: does the PMU take raw event @d of
 * @s, from this caller?  A disabled counter on the calling task is
 * created with the caller's own credentials, so that the PMU's own
 * checks see the caller as perf_event_open() would show it to them (x86's
 * AnyThread bit wants perf_allow_cpu(), a PMU may refuse a filter), then
 * released; the session's CPU-wide counters are made later with kernel
 * credentials (pmuctx_counters_create()).  Only a CPU PMU, one that
 * counts per task (perf_hw_context), is accepted: uncore and software
 * PMUs (kprobe, uprobe, tracepoint types) are not per-task events.
 * Process context.  0, -EINVAL (no such PMU, a config it refuses, not a
 * CPU PMU), -EACCES (the PMU refused the caller), -EOPNOTSUPP (a mode it
 * cannot filter), or another creation error.
 */
int pmuctx_raw_probe(const struct pmuctx_session *s,
		     const struct pmuctx_event_desc *d)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	bool cpu_pmu;
	long ret;

	pmuctx_counter_attr(s, PMUCTX_EV_RAW, d, &attr);
	attr.disabled = 1;
	ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		if (ret == -ENOENT || ret == -ENODEV)
			return -EINVAL;
		if (ret == -EPERM)
			return -EACCES;
		return ret;
	}
	cpu_pmu = ev->pmu->task_ctx_nr == perf_hw_context;
	perf_event_release_kernel(ev);
	return cpu_pmu ? 0 : -EINVAL;
}

/* What a failed counter creation returns: no hardware PMU is EOPNOTSUPP. */
static int pmuctx_counter_err(u32 id, int ret)
{
	if (pmuctx_events[id].type == PERF_TYPE_HARDWARE &&
	    (ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV ||
	     ret == -EINVAL))
		return -EOPNOTSUPP;
	return ret;
}

/*
 * Switch to kernel credentials for creating counters (see
 * pmuctx_counters_create()).  NULL if out of memory; else pair with
 * pmuctx_kcred_put().  Process context.
 */
const struct cred *pmuctx_kcred_get(const struct cred **old)
{
	const struct cred *kcred = prepare_kernel_cred(&init_task);

	if (kcred)
		*old = override_creds(kcred);
	return kcred;
}

void pmuctx_kcred_put(const struct cred *kcred, const struct cred *old)
{
	revert_creds(old);
	put_cred(kcred);
}

/*
 * Create every perf-backed counter of @s on every online CPU.  Hardware
 * events fail with -EOPNOTSUPP where there is no hardware PMU (a VM).
 *
 * No cpus_read_lock() here: perf takes it itself (static_key_slow_inc()
 * in the event's init), and a recursive read lock can deadlock against a
 * waiting hotplug writer.  A CPU that goes offline meanwhile makes its
 * counter fail with -ENODEV: that CPU is skipped (its slices count 0).
 */
int pmuctx_counters_create(struct pmuctx_session *s)
{
	const struct cred *kcred, *old;
	struct perf_event *ev;
	unsigned int i;
	int cpu, ret;

	/*
	 * perf checks CPU-wide events against the creating task
	 * (perf_allow_cpu() in find_get_context()), kernel counters too.
	 * These counters are internal: a session only ever sees the deltas
	 * of tasks it was allowed to monitor (perm.c), and kernel mode is
	 * excluded for callers perf would restrict.  So they are created
	 * with kernel credentials, after the session's own checks.
	 */
	/* switchless: every event is read from the tasks (tasksrc.c) */
	if (s->switchless)
		return 0;
	kcred = pmuctx_kcred_get(&old);
	if (!kcred)
		return -ENOMEM;

	for_each_online_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		for (i = 0; i < s->nr_events; i++) {
			u32 id = s->events[i];

			if (pmuctx_event_is_native(id))
				continue;
			ev = pmuctx_counter_create(s, id, &s->ev_desc[i], cpu,
						   NULL);
			if (IS_ERR(ev)) {
				ret = PTR_ERR(ev);
				if (ret == -ENODEV && !cpu_online(cpu))
					continue;
				/* a hybrid CPU's other PMU: counts 0 here */
				if (ret == -ENOENT && id == PMUCTX_EV_RAW)
					continue;
				ret = pmuctx_counter_err(id, ret);
				goto err_destroy;
			}
			sc->ev[i] = ev;
		}
	}
	pmuctx_kcred_put(kcred, old);
	return 0;

err_destroy:
	pmuctx_kcred_put(kcred, old);
	pmuctx_counters_destroy(s);
	return ret;
}

/*
 * The sampling counters of @s (sample.c): event s->sample_event on every
 * online CPU (pmuctx_counter_create() with @fn).  Same credentials and
 * error mapping as the counters above; pmuctx_sample_destroy() releases
 * them.
 */
int pmuctx_sample_counters_create(struct pmuctx_session *s,
				  perf_overflow_handler_t fn)
{
	const struct cred *kcred, *old;
	struct perf_event *ev;
	int cpu, ret = 0;

	kcred = pmuctx_kcred_get(&old);
	if (!kcred)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		ev = pmuctx_counter_create(s, s->sample_event, &s->sample_desc,
					   cpu, fn);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			if (ret == -ENODEV && !cpu_online(cpu)) {
				ret = 0;
				continue;
			}
			ret = pmuctx_counter_err(s->sample_event, ret);
			break;
		}
		per_cpu_ptr(s->cpu, cpu)->sample_ev = ev;
	}
	pmuctx_kcred_put(kcred, old);
	return ret;
}

/* Does @s need perf counters (CPU hotplug revives them: hotplug.c)? */
bool pmuctx_sess_uses_perf(const struct pmuctx_session *s)
{
	unsigned int i;

	if (s->sample_event)
		return true;
	if (s->switchless)
		return false;
	for (i = 0; i < s->nr_events; i++)
		if (!pmuctx_event_is_native(s->events[i]))
			return true;
	return false;
}

void pmuctx_counters_destroy(struct pmuctx_session *s)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		for (i = 0; i < PMUCTX_MAX_EVENTS; i++) {
			if (sc->ev[i]) {
				perf_event_release_kernel(sc->ev[i]);
				sc->ev[i] = NULL;
			}
		}
	}
}
