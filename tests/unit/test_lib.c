// SPDX-License-Identifier: GPL-2.0
/*
 * The library against a fake module: info sizes, session attributes,
 * reads and the per-task buffer growth.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmuctx.h>

#include "../../lib/internal.h"
#include "fake_kernel.h"
#include "test.h"

static struct pmuctx *open_fake(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
	struct pmuctx *h = NULL;
	int err = pmuctx_open(&h, &o);

	if (err)
		t_diag("open_fake: %d", err);
	return h;
}

static bool all_zero(const void *p, size_t from, size_t to)
{
	const unsigned char *c = p;

	for (; from < to; from++)
		if (c[from])
			return false;
	return true;
}

static void test_info(void)
{
	struct pmuctx_info info;
	struct pmuctx *h;
	char msg[2048];
	int err;

	fake_install();
	h = open_fake();
	memset(&info, 0xa5, sizeof(info));
	err = pmuctx_info(h, &info);
	CHECK_EQ(err, 0, "info works");
	CHECK_EQ(info.size, sizeof(info), "info.size = full size");
	CHECK(info.abi_version == PMUCTX_ABI_VERSION &&
	      !strcmp(info.version, "0.1.0-fake") && info.max_tasks == 65536 &&
	      info.selftest_migrations == 12, "info fields are filled");
	CHECK_EQ(fake.nr_open, 1, "one open");
	pmuctx_close(h);

	/* an older module that knows only VER0 */
	fake_install();
	fake.info_size = PMUCTX_INFO_SIZE_VER0;
	h = open_fake();
	memset(&info, 0xa5, sizeof(info));
	err = pmuctx_info(h, &info);
	CHECK_EQ(err, 0, "older module: info works");
	CHECK_EQ(info.size, PMUCTX_INFO_SIZE_VER0,
		 "older module: info.size = VER0");
	CHECK(all_zero(&info, PMUCTX_INFO_SIZE_VER0, sizeof(info)),
	      "older module: fields past VER0 are zero, not garbage");
	CHECK(info.tasks_tracked == 3 && info.store_bytes == 1536,
	      "older module: VER0 fields are filled");
	pmuctx_close(h);

	/* a module that (wrongly) rejects any larger size */
	fake_install();
	fake.info_size = PMUCTX_INFO_SIZE_VER0;
	fake.info_strict = true;
	h = open_fake();
	CHECK(h != NULL, "strict older module: open (probe) works");
	err = h ? pmuctx_info(h, &info) : -1;
	CHECK(err == 0 && info.size == PMUCTX_INFO_SIZE_VER0,
	      "strict older module: retried at the module's size");
	pmuctx_close(h);

	/* a broken module */
	fake_install();
	fake.info_size = 16;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		err = pmuctx_open(&h, &o);
	}
	CHECK_EQ(err, -EPROTO, "module filling less than VER0: open fails");
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	CHECK_HAS(msg, "does not answer the pmuctx INFO request",
		  "probe failure is explained");
	CHECK_HAS(msg, "below the first ABI version",
		  "probe failure says what was wrong");
	CHECK_EQ(pmuctx_info(NULL, &info), -EINVAL, "info(NULL)");
	fake_remove();
}

static void test_session(void)
{
	struct pmuctx *h;
	int ids[3] = { PMUCTX_EV_PAGE_FAULTS, PMUCTX_EV_TASK_CLOCK, 42 };
	int err, dirfd_before;

	fake_install();
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			.pid = getpid(),
			.events = "faults,task-clock",
			.flags = PMUCTX_SESSION_INHERIT |
				 PMUCTX_SESSION_KEEP_EXITED,
			.backend = PMUCTX_BACKEND_SELFTEST,
			.data_size = 64,
			.max_exited = 100);

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, 0, "session with every option");
	CHECK(fake.last_attr.size == sizeof(struct pmuctx_session_attr) &&
	      fake.last_attr.flags == (PMUCTX_SESSION_INHERIT |
				       PMUCTX_SESSION_KEEP_EXITED) &&
	      fake.last_attr.target == PMUCTX_TARGET_PID &&
	      fake.last_attr.pid == getpid() &&
	      fake.last_attr.cgroup_fd == -1 &&
	      fake.last_attr.nr_events == 2 &&
	      fake.last_attr.events[0] == PMUCTX_EV_PAGE_FAULTS &&
	      fake.last_attr.events[1] == PMUCTX_EV_TASK_CLOCK &&
	      fake.last_attr.events[2] == 0 &&
	      fake.last_attr.backend == PMUCTX_BACKEND_SELFTEST &&
	      fake.last_attr.data_size == 64 &&
	      fake.last_attr.max_exited == 100 &&
	      fake.last_attr.__reserved == 0,
	      "session attr carries every option, unused slots 0");
	CHECK_EQ(pmuctx_enable(h), 0, "enable");
	CHECK_EQ(pmuctx_disable(h), 0, "disable");
	CHECK_EQ(pmuctx_reset(h), 0, "reset");
	CHECK_EQ(pmuctx_enable(NULL), -EINVAL, "enable(NULL)");
	pmuctx_close(h);

	/* event ids are passed through unchecked (newer modules) */
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .event_ids = ids,
			       .nr_event_ids = 3);

		err = pmuctx_session_create(h, &so);
	}
	CHECK(err == -EINVAL && fake.last_attr.events[2] == 42,
	      "unknown ids reach the module, which decides");
	pmuctx_close(h);

	/* cgroup by path: the library opens and closes the directory */
	h = open_fake();
	dirfd_before = open("/dev/null", O_RDONLY);
	close(dirfd_before);
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .target = PMUCTX_TARGET_CGROUP,
			       .cgroup_path = "/tmp");

		err = pmuctx_session_create(h, &so);
	}
	CHECK(err == 0 && fake.last_attr.target == PMUCTX_TARGET_CGROUP &&
	      fake.last_attr.cgroup_fd > 0 && fake.last_attr.pid == 0,
	      "cgroup path: an fd is passed");
	{
		int probe = open("/dev/null", O_RDONLY);

		CHECK_EQ(probe, dirfd_before, "the cgroup fd was closed");
		close(probe);
	}
	pmuctx_close(h);

	/* cgroup by fd */
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .target = PMUCTX_TARGET_CGROUP,
			       .cgroup_fd = 77);

		err = pmuctx_session_create(h, &so);
	}
	CHECK(err == 0 && fake.last_attr.cgroup_fd == 77,
	      "cgroup fd is passed as given");
	pmuctx_close(h);
	fake_remove();
}

static void test_read(void)
{
	LIBPMUCTX_OPTS(pmuctx_read_opts, per_task,
		       .flags = PMUCTX_READ_PER_TASK);
	const struct pmuctx_task_values *first;
	struct pmuctx_counts c;
	struct pmuctx *h;
	unsigned int t;
	bool ok;
	int err;

	fake_install();
	fake.priv_exec_stopped = 1;
	fake.tasks_dropped = 2;
	fake.tasks_unlisted = 5;
	fake.time_slices = 3000000;
	fake.time_running[0] = 3000000;
	fake.time_running[1] = 3000000;
	fake.time_running[2] = 1000000;
	h = open_fake();
	CHECK_EQ(pmuctx_read(h, &c, NULL), -EINVAL, "read without session");
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "cs,task-clock,faults");

		pmuctx_session_create(h, &so);
	}
	memset(&c, 0xa5, sizeof(c));
	err = pmuctx_read(h, &c, NULL);
	CHECK_EQ(err, 0, "totals read");
	CHECK(c.nr_events == 3 && c.events[0] == PMUCTX_EV_CONTEXT_SWITCHES &&
	      c.events[1] == PMUCTX_EV_TASK_CLOCK &&
	      c.events[2] == PMUCTX_EV_PAGE_FAULTS &&
	      c.values[0] == 1234567890 && c.values[1] == 42 &&
	      c.values[2] == 3, "events in session order with their values");
	CHECK(c.time_enabled == 2000000000 && c.tasks_seen == 4 &&
	      c.tasks_exited == 3 && c.tasks_dropped == 2 &&
	      c.priv_exec_stopped == 1 && c.tasks_unlisted == 5,
	      "session statistics are copied");
	CHECK(c.nr_tasks == 0 && c.tasks == NULL, "no tasks without "
	      "PMUCTX_READ_PER_TASK");
	CHECK(c.time_slices == 3000000 && c.time_running[0] == 3000000 &&
	      c.time_running[1] == 3000000 && c.time_running[2] == 1000000,
	      "running times are copied (libpmuctx 0.4)");
	{
		/* pmuctx_read@LIBPMUCTX_0.1: the struct as it was then */
		size_t old_size = offsetof(struct pmuctx_counts, time_slices);
		unsigned char b[sizeof(c)];
		size_t k;

		memset(b, 0xa5, sizeof(b));
		err = pmuctx_read_0_1(h, (struct pmuctx_counts *)b, NULL);
		for (k = old_size; k < sizeof(b) && b[k] == 0xa5; k++)
			;
		CHECK(err == 0 && k == sizeof(b) &&
		      ((struct pmuctx_counts *)b)->values[2] == 3,
		      "pmuctx_read@LIBPMUCTX_0.1 fills the old struct, not a "
		      "byte more");
	}
	fake.read_ver0 = true;
	memset(&c, 0xa5, sizeof(c));
	CHECK(pmuctx_read(h, &c, NULL) == 0 && c.time_slices == 0 &&
	      c.time_running[0] == 0 && c.time_running[2] == 0,
	      "an older module (READ VER0): running times are 0");
	fake.read_ver0 = false;

	err = pmuctx_read(h, &c, &per_task);
	CHECK(err == 0 && c.nr_tasks == 3 && c.tasks, "per-task read");
	CHECK(c.tasks[1].tid == 1001 && c.tasks[1].values[2] == 22 &&
	      c.tasks[1].children[0] == 1 &&
	      (c.tasks[1].flags & PMUCTX_TASK_EXITED),
	      "per-task values are in place");
	CHECK_EQ(fake.nr_enospc, 0, "no ENOSPC with few tasks");
	first = c.tasks;
	err = pmuctx_read(h, &c, &per_task);
	CHECK(err == 0 && c.tasks == first, "the buffer is reused "
	      "(owned by the handle)");

	/* many tasks: ENOSPC, grow, retry */
	fake.nr_tasks = 300;
	fake.nr_enospc = 0;
	err = pmuctx_read(h, &c, &per_task);
	CHECK(err == 0 && c.nr_tasks == 300, "300 tasks after growing");
	CHECK_EQ(fake.nr_enospc, 1, "one ENOSPC round trip");
	for (t = 0, ok = true; t < c.nr_tasks; t++)
		if (c.tasks[t].tid != 1000 + (int)t ||
		    c.tasks[t].values[0] != (t + 1) * 10)
			ok = false;
	CHECK(ok, "all 300 tasks hold their own values");

	/* tasks keep appearing faster than the buffer grows */
	fake.nr_tasks = 1000;
	fake.grow_per_read = 1000000;
	fake.nr_enospc = 0;
	err = pmuctx_read(h, &c, &per_task);
	CHECK_EQ(err, -ENOSPC, "unbounded growth gives up with -ENOSPC");
	CHECK(fake.nr_enospc >= 2 && fake.nr_enospc <= 9,
	      "a bounded number of retries");
	{
		char msg[1024];

		pmuctx_errmsg(h, err, msg, sizeof(msg));
		CHECK_HAS(msg, "kept growing", "ENOSPC is explained");
	}
	/* a moderately growing population converges */
	fake.nr_tasks = 500;
	fake.grow_per_read = 10;
	err = pmuctx_read(h, &c, &per_task);
	CHECK(err == 0 && c.nr_tasks >= 500, "slack absorbs new tasks");
	pmuctx_close(h);
	fake_remove();
}

void test_lib(void)
{
	CHECK(!strcmp(pmuctx_version(), "0.7.0"), "pmuctx_version() 0.7.0");
	CHECK_EQ(pmuctx_abi_version(), PMUCTX_ABI_VERSION,
		 "pmuctx_abi_version() == PMUCTX_ABI_VERSION");
	test_info();
	test_session();
	test_read();
}
