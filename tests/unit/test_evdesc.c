// SPDX-License-Identifier: GPL-2.0
/*
 * module/evdesc.c on the host: the SESSION_CREATE checks of per-event
 * modes (:u/:k/:h) and raw events, compiled as the module compiles them
 * (against kshim/), and the perf exclude bits they give.
 */
#include <stdio.h>
#include <string.h>

#include <errno.h>
#include <linux/perf_event.h>

#include "evdesc.h"
#include "test.h"

static void attr_init(struct pmuctx_session_attr *a, unsigned int n,
		      const __u32 *ids)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->target = PMUCTX_TARGET_PID;
	a->cgroup_fd = -1;
	a->nr_events = n;
	for (i = 0; i < n; i++)
		a->events[i] = ids[i];
}

static void test_shape(void)
{
	static const __u32 two[] = { PMUCTX_EV_CYCLES, PMUCTX_EV_CYCLES };
	static const __u32 tc[] = { PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CYCLES };
	static const __u32 raw[] = { PMUCTX_EV_RAW, PMUCTX_EV_RAW };
	struct pmuctx_session_attr a;

	attr_init(&a, 1, tc);
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "all zero: the old meaning");
	CHECK(!pmuctx_evdesc_any(&a) && !pmuctx_evdesc_wants_kernel(&a),
	      "all zero: no modes, no kernel asked");

	attr_init(&a, 2, two);
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "cycles twice in the same modes: EINVAL");
	a.event_desc[0].flags = PMUCTX_EVF_USER;
	a.event_desc[1].flags = PMUCTX_EVF_KERNEL;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "cycles:u with cycles:k: ok");
	CHECK(pmuctx_evdesc_any(&a) && pmuctx_evdesc_wants_kernel(&a),
	      "cycles:k asks for kernel mode");
	a.event_desc[1].flags = PMUCTX_EVF_USER;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "cycles:u twice: EINVAL");
	a.event_desc[1].flags = 8;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL, "unknown flag: EINVAL");
	a.event_desc[1].flags = PMUCTX_EVF_USER | PMUCTX_EVF_KERNEL;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "cycles:uk: ok");
	a.event_desc[1].config = 1;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "a config on a named event: EINVAL");
	a.event_desc[1].config = 0;
	a.event_desc[1].type = PERF_TYPE_RAW;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "a type on a named event: EINVAL");
	a.event_desc[1].type = 0;
	a.event_desc[2].flags = PMUCTX_EVF_USER;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "an unused slot not zero: EINVAL");
	a.event_desc[2].flags = 0;
	a.event_desc[PMUCTX_MAX_EVENTS - 1].config2 = 1;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "the last unused slot not zero: EINVAL");

	attr_init(&a, 2, tc);
	a.event_desc[0].flags = PMUCTX_EVF_USER;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "task-clock:u (module-native): EINVAL");
	a.event_desc[0].flags = 0;
	a.event_desc[1].flags = PMUCTX_EVF_HV;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "cycles:h: ok");
	CHECK(pmuctx_evdesc_wants_kernel(&a),
	      "hypervisor mode is policed as kernel mode");

	attr_init(&a, 2, raw);
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "raw with type 0 (hardware): EINVAL");
	a.event_desc[0].type = PERF_TYPE_RAW;
	a.event_desc[0].config = 0x3c;
	a.event_desc[1].type = PERF_TYPE_RAW;
	a.event_desc[1].config = 0x3c;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "the same raw event twice: EINVAL");
	a.event_desc[1].config = 0xc0;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "two raw events: ok");
	a.event_desc[1].type = PERF_TYPE_MAX + 3;
	a.event_desc[1].config1 = 5;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0,
		 "a dynamic PMU type with config1: ok (the probe decides)");
	a.event_desc[1].type = PERF_TYPE_SOFTWARE;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "raw of the software type: EINVAL");
	a.event_desc[1].type = PERF_TYPE_TRACEPOINT;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "raw of the tracepoint type: EINVAL");
	a.event_desc[1].type = PERF_TYPE_BREAKPOINT;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "raw of the breakpoint type: EINVAL");
	a.event_desc[1].type = PERF_TYPE_HW_CACHE;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "raw of the hardware-cache type: EINVAL");
}

static void test_sample(void)
{
	static const __u32 tc[] = { PMUCTX_EV_TASK_CLOCK };
	struct pmuctx_session_attr a;

	attr_init(&a, 1, tc);
	a.sample_desc.flags = PMUCTX_EVF_USER;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "sample_desc with the hrtimer: EINVAL");
	a.sample_event = PMUCTX_EV_CYCLES;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "sample on cycles:u: ok");
	CHECK(!pmuctx_evdesc_wants_kernel(&a), "cycles:u: no kernel");
	a.sample_desc.flags = PMUCTX_EVF_KERNEL;
	CHECK(pmuctx_evdesc_wants_kernel(&a), "sample on cycles:k: kernel");
	a.sample_event = PMUCTX_EV_RAW;
	CHECK_EQ(pmuctx_evdesc_validate(&a), -EINVAL,
		 "sample on a raw event without a type: EINVAL");
	a.sample_desc.type = PERF_TYPE_RAW;
	a.sample_desc.config = 0x11;
	CHECK_EQ(pmuctx_evdesc_validate(&a), 0, "sample on r11:k: ok");
}

static void test_excl(void)
{
	struct pmuctx_excl x;

	pmuctx_evdesc_excl(0, false, &x);
	CHECK(!x.user && !x.kernel && !x.hv, "default, privileged: all modes");
	pmuctx_evdesc_excl(0, true, &x);
	CHECK(!x.user && x.kernel && x.hv,
	      "default, restricted: user mode only (perf's :u fallback)");
	pmuctx_evdesc_excl(PMUCTX_EVF_USER, false, &x);
	CHECK(!x.user && x.kernel && x.hv, ":u: exclude_kernel, exclude_hv");
	pmuctx_evdesc_excl(PMUCTX_EVF_KERNEL, true, &x);
	CHECK(x.user && !x.kernel && x.hv, ":k: exclude_user, exclude_hv");
	pmuctx_evdesc_excl(PMUCTX_EVF_USER | PMUCTX_EVF_KERNEL, false, &x);
	CHECK(!x.user && !x.kernel && x.hv, ":uk: exclude_hv only");
	pmuctx_evdesc_excl(PMUCTX_EVF_HV, false, &x);
	CHECK(x.user && x.kernel && !x.hv, ":h: hypervisor only");
}

static const struct t_group groups[] = {
	{ "shape", test_shape },
	{ "sample", test_sample },
	{ "excl", test_excl },
};

int main(int argc, char **argv)
{
	return t_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
