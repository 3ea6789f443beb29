// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: per-event modes (perf's ":u", ":k", ":h") and raw PMU events,
 * struct pmuctx_event_desc of a session attr.
 *
 * What is checked here is the shape of the attr alone (SESSION_CREATE's
 * field step, EINVAL); the policy (kernel or hypervisor modes asked for
 * where perf_event_paranoid forbids them: EACCES) is perm.c's, with
 * pmuctx_evdesc_wants_kernel(); whether the PMU takes a raw event, with
 * the caller's credentials, is counters.c's (pmuctx_raw_probe()).  Only
 * consulted at SESSION_CREATE: the switch path never looks at it.
 *
 * No kernel primitive beyond types: tests/unit compiles this file on the
 * host (test_evdesc.c).
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/perf_event.h>

#include "evdesc.h"

/* the module computes these itself: they have no modes */
static bool pmuctx_evdesc_native(u32 id)
{
	return id == PMUCTX_EV_TASK_CLOCK ||
	       id == PMUCTX_EV_CONTEXT_SWITCHES ||
	       id == PMUCTX_EV_CPU_MIGRATIONS;
}

static bool pmuctx_evdesc_zero(const struct pmuctx_event_desc *d)
{
	return !d->flags && !d->type && !d->config && !d->config1 &&
	       !d->config2;
}

/*
 * One used slot: event @id (already a valid id) described by @d.  Raw
 * events: PERF_TYPE_RAW, or a dynamic PMU type (>= PERF_TYPE_MAX) that
 * pmuctx_raw_probe() then checks is a CPU PMU; the fixed types
 * (hardware, software, tracepoint, hardware cache, breakpoint) are not
 * raw events: the named ids cover the first two, the others are refused.
 */
static int pmuctx_evdesc_check(u32 id, const struct pmuctx_event_desc *d)
{
	if (d->flags & ~PMUCTX_EVF_FLAGS_ALL)
		return -EINVAL;
	if (pmuctx_evdesc_native(id) && d->flags)
		return -EINVAL;
	if (id != PMUCTX_EV_RAW)
		return d->type || d->config || d->config1 || d->config2 ?
		       -EINVAL : 0;
	if (d->type != PERF_TYPE_RAW && d->type < PERF_TYPE_MAX)
		return -EINVAL;
	return 0;
}

/*
 * The event_desc[] and sample_desc fields of @a, the ids already checked
 * (session.c, sample.c): each used slot as above, unused slots all zero,
 * no two slots the same event in the same modes (cycles:u and cycles:k
 * may share a session; cycles twice may not), sample_desc zero with the
 * hrtimer.  Returns 0 or -EINVAL.
 */
int pmuctx_evdesc_validate(const struct pmuctx_session_attr *a)
{
	unsigned int i, j;
	int ret;

	for (i = 0; i < PMUCTX_MAX_EVENTS; i++) {
		const struct pmuctx_event_desc *d = &a->event_desc[i];

		if (i >= a->nr_events) {
			if (!pmuctx_evdesc_zero(d))
				return -EINVAL;
			continue;
		}
		ret = pmuctx_evdesc_check(a->events[i], d);
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (a->events[j] == a->events[i] &&
			    !memcmp(&a->event_desc[j], d, sizeof(*d)))
				return -EINVAL;
	}
	if (!a->sample_event)
		return pmuctx_evdesc_zero(&a->sample_desc) ? 0 : -EINVAL;
	return pmuctx_evdesc_check(a->sample_event, &a->sample_desc);
}

/* Does any event of @a (or its sample event) ask for kernel or hv mode? */
bool pmuctx_evdesc_wants_kernel(const struct pmuctx_session_attr *a)
{
	unsigned int i;

	for (i = 0; i < a->nr_events && i < PMUCTX_MAX_EVENTS; i++)
		if (a->event_desc[i].flags &
		    (PMUCTX_EVF_KERNEL | PMUCTX_EVF_HV))
			return true;
	return a->sample_event &&
	       (a->sample_desc.flags & (PMUCTX_EVF_KERNEL | PMUCTX_EVF_HV));
}

/* Does any event of @a carry modes: they need perf, not the task's sums. */
bool pmuctx_evdesc_any(const struct pmuctx_session_attr *a)
{
	unsigned int i;

	for (i = 0; i < a->nr_events && i < PMUCTX_MAX_EVENTS; i++)
		if (a->event_desc[i].flags)
			return true;
	return false;
}

/*
 * The perf exclude bits of an event with modes @flags in a session whose
 * default leaves kernel mode out (@dflt_excl_kernel: the caller may not
 * count it).  0: the default, user mode and, where allowed, kernel and
 * hypervisor modes; else exactly the modes asked for (perf's ":u" sets
 * exclude_kernel and exclude_hv, ":k" exclude_user and exclude_hv).
 */
void pmuctx_evdesc_excl(u32 flags, bool dflt_excl_kernel,
			struct pmuctx_excl *x)
{
	if (!flags) {
		x->user = false;
		x->kernel = dflt_excl_kernel;
		x->hv = dflt_excl_kernel;
		return;
	}
	x->user = !(flags & PMUCTX_EVF_USER);
	x->kernel = !(flags & PMUCTX_EVF_KERNEL);
	x->hv = !(flags & PMUCTX_EVF_HV);
}
