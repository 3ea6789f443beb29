// SPDX-License-Identifier: GPL-2.0
/*
 * opts structs: libbpf-style "sz" validation, old and new callers.
 */
#include <errno.h>
#include <stdlib.h>

#include <pmuctx.h>

#include "../../lib/internal.h"
#include "fake_kernel.h"
#include "test.h"

static char msg[4096];

/* a caller built against a newer header: our struct plus a tail */
struct open_opts_v2 {
	struct pmuctx_open_opts base;
	long new_field;
};

struct session_opts_v2 {
	struct pmuctx_session_opts base;
	long new_field;
};

void test_opts(void)
{
	struct pmuctx *h = NULL;
	struct pmuctx_counts c;
	struct open_opts_v2 o2;
	struct session_opts_v2 s2;
	int err;

	fake_install();

	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		CHECK_EQ(o.sz, sizeof(struct pmuctx_open_opts),
			 "LIBPMUCTX_OPTS sets sz");
		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, 0, "open with valid opts");
		pmuctx_close(h);
		h = NULL;

		o.sz = 0;
		err = pmuctx_open(&h, &o);
		CHECK(err == -EINVAL && !h, "open opts sz 0 -> -EINVAL");
		pmuctx_errmsg(NULL, err, msg, sizeof(msg));
		CHECK_HAS(msg, "pmuctx_open_opts: sz is 0",
			  "message names the struct and sz");
		o.sz = 4;
		CHECK_EQ(pmuctx_open(&h, &o), -EINVAL,
			 "open opts sz < sizeof(size_t) -> -EINVAL");

		/* older caller: knows only sz and path */
		o.sz = offsetofend(struct pmuctx_open_opts, path);
		o.flags = 0xdead;	/* beyond its sz: must be ignored */
		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, 0, "older caller's smaller sz works, the "
			 "fields past it are ignored");
		pmuctx_close(h);
		h = NULL;

		o.sz = sizeof(o);
		o.flags = 0x80;
		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, -EINVAL, "unknown open flags -> -EINVAL");
		pmuctx_errmsg(NULL, err, msg, sizeof(msg));
		CHECK_HAS(msg, "unknown flags 0x80", "message names them");
	}

	/* newer caller */
	memset(&o2, 0, sizeof(o2));
	o2.base.sz = sizeof(o2);
	o2.base.path = FAKE_PATH;
	err = pmuctx_open(&h, &o2.base);
	CHECK_EQ(err, 0, "newer caller with a zero tail works");
	pmuctx_close(h);
	h = NULL;
	o2.new_field = 1;
	err = pmuctx_open(&h, &o2.base);
	CHECK_EQ(err, -EINVAL, "newer caller with a non-zero tail -> -EINVAL");
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	CHECK_HAS(msg, "is non-zero", "message says a field is unknown");
	CHECK_HAS(msg, "upgrade libpmuctx", "message says what to do");

	CHECK_EQ(pmuctx_open(NULL, NULL), -EINVAL, "open(NULL out) -> -EINVAL");

	/* session opts */
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, 0, "open for session opts tests");
	}
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .events = "cs");

		so.sz = 3;
		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "session opts bad sz -> -EINVAL");
		pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
		CHECK_HAS(msg, "pmuctx_session_opts: sz is 3",
			  "handle records the opts error");
		CHECK_EQ(fake.nr_creates, 0, "no ioctl for bad opts");
	}
	memset(&s2, 0, sizeof(s2));
	s2.base.sz = sizeof(s2);
	s2.new_field = 7;
	CHECK_EQ(pmuctx_session_create(h, &s2.base), -EINVAL,
		 "session opts non-zero tail -> -EINVAL");
	{
		int ids[2] = { 1, 2 };
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .events = "cs",
			       .event_ids = ids, .nr_event_ids = 2);

		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "both events and event_ids -> -EINVAL");
		so.events = NULL;
		so.nr_event_ids = 9;
		CHECK_EQ(pmuctx_session_create(h, &so), -E2BIG,
			 "nr_event_ids 9 -> -E2BIG");
		so.nr_event_ids = 0;
		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "event_ids with nr 0 -> -EINVAL");
		so.event_ids = NULL;
		so.nr_event_ids = 2;
		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "nr_event_ids without event_ids -> -EINVAL");
	}
	{
		/* sample_event (libpmuctx 0.3.1): checked before any ioctl */
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .events = "cs",
			       .ring_pages = 8,
			       .sample_event = PMUCTX_EV_CYCLES);
		int before = fake.nr_creates;

		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "sample_event without sample_freq -> -EINVAL");
		pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
		CHECK_HAS(msg, "sample_event 6 without sample_freq",
			  "message names sample_event and sample_freq");
		so.sample_freq = 999;
		so.sample_event = PMUCTX_EV_TASK_CLOCK;
		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "module-native sample_event -> -EINVAL");
		pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
		CHECK_HAS(msg, "never overflows",
			  "message says why task-clock cannot sample");
		so.sample_event = 99;
		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "unknown sample_event -> -EINVAL");
		pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
		CHECK_HAS(msg, "not an event id", "message says so");
		CHECK_EQ(fake.nr_creates, before,
			 "no ioctl for a bad sample_event");
	}
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .target = PMUCTX_TARGET_CGROUP);

		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "cgroup target without path or fd -> -EINVAL");
		so.cgroup_path = "/nonexistent/cgroup/dir";
		err = pmuctx_session_create(h, &so);
		CHECK_EQ(err, -ENOENT, "missing cgroup dir -> -ENOENT");
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		CHECK_HAS(msg, "cannot open cgroup directory "
			  "/nonexistent/cgroup/dir", "message names the path");
		CHECK_LACKS(msg, "modprobe", "a missing cgroup is not a "
			    "missing module");
		so.target = PMUCTX_TARGET_SYSTEM;
		CHECK_EQ(pmuctx_session_create(h, &so), -EINVAL,
			 "cgroup path with a system target -> -EINVAL");
	}
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .events = "cs,nope");

		err = pmuctx_session_create(h, &so);
		CHECK_EQ(err, -EINVAL, "unknown event in opts -> -EINVAL");
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		CHECK_HAS(msg, "unknown event 'nope'",
			  "handle message names the event");
	}
	CHECK_EQ(pmuctx_session_create(NULL, NULL), -EINVAL,
		 "session_create(NULL) -> -EINVAL");

	/* read opts */
	CHECK_EQ(pmuctx_session_create(h, NULL), 0,
		 "NULL session opts: defaults");
	CHECK(fake.last_attr.nr_events == 4 &&
	      fake.last_attr.events[0] == PMUCTX_EV_TASK_CLOCK &&
	      fake.last_attr.events[1] == PMUCTX_EV_CONTEXT_SWITCHES &&
	      fake.last_attr.events[2] == PMUCTX_EV_CPU_MIGRATIONS &&
	      fake.last_attr.events[3] == PMUCTX_EV_PAGE_FAULTS &&
	      fake.last_attr.target == PMUCTX_TARGET_PID &&
	      fake.last_attr.pid == 0 && fake.last_attr.cgroup_fd == -1 &&
	      fake.last_attr.size == sizeof(struct pmuctx_session_attr),
	      "defaults: 4 software events on the caller, cgroup_fd -1");
	{
		LIBPMUCTX_OPTS(pmuctx_read_opts, ro);

		ro.sz = 1;
		CHECK_EQ(pmuctx_read(h, &c, &ro), -EINVAL,
			 "read opts bad sz -> -EINVAL");
		ro.sz = sizeof(ro);
		CHECK_EQ(pmuctx_read(h, &c, &ro), 0, "read with opts");
		CHECK_EQ(pmuctx_read(h, &c, NULL), 0, "read with NULL opts");
		CHECK_EQ(pmuctx_read(h, NULL, NULL), -EINVAL,
			 "read NULL out -> -EINVAL");
		CHECK_EQ(pmuctx_read(NULL, &c, NULL), -EINVAL,
			 "read NULL handle -> -EINVAL");
	}
	pmuctx_close(h);
	fake_remove();
}
