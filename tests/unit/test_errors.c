// SPDX-License-Identifier: GPL-2.0
/*
 * The library's own error reporting: pmuctx_strerror(), the one-line
 * pmuctx_errmsg() and the record pmuctx_errinfo() gives out.  The
 * multi-line diagnosis of the pmuctx command is test_diagnose.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include <pmuctx.h>

#include "../../lib/internal.h"
#include "fake_kernel.h"
#include "test.h"

static char msg[8192];

static struct pmuctx *open_fake(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
	struct pmuctx *h = NULL;

	if (pmuctx_open(&h, &o))
		return NULL;
	return h;
}

/* pmuctx_errmsg() of @h/@err into msg: one line, no newline, no tail */
static void check_one_line(struct pmuctx *h, int err, const char *what)
{
	int n = pmuctx_errmsg(h, err, msg, sizeof(msg));

	CHECK(n > 0 && (size_t)n == strlen(msg) && !strchr(msg, '\n'),
	      "%s: one line (%d chars): %s", what, n, msg);
}

static void test_missing_module(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = "/nonexistent/pmuctx");
	struct pmuctx *h = (struct pmuctx *)1;
	int err;

	err = pmuctx_open(&h, &o);
	CHECK(err == -ENOENT && !h, "open of a missing device -> -ENOENT, "
	      "*out = NULL");
	check_one_line(NULL, err, "ENOENT");
	CHECK_HAS(msg, "cannot open /nonexistent/pmuctx: No such file",
		  "ENOENT: what failed and the errno");
	CHECK_HAS(msg, "sudo modprobe pmuctx", "ENOENT: the module hint");
	CHECK_LACKS(msg, "insmod", "ENOENT: no multi-line advice");
	CHECK_HAS(pmuctx_strerror(err), "module",
		  "strerror(ENOENT) mentions the module");

	fake_install();
	fake.open_err = -ENODEV;
	o.path = FAKE_PATH;
	err = pmuctx_open(&h, &o);
	CHECK_EQ(err, -ENODEV, "ENODEV from open is returned");
	check_one_line(NULL, err, "ENODEV");
	CHECK_HAS(msg, "no driver", "ENODEV: device without driver");
	fake_remove();

	/* no record for this errno: a generic line */
	pmuctx__tls_err()->err = 0;
	check_one_line(NULL, -ENOENT, "no record");
	CHECK_HAS(msg, "pmuctx: No such file", "no record: the errno");
	CHECK_HAS(msg, "sudo modprobe pmuctx", "no record: the hint");
}

/*
 * The library alone (no tools/diagnose.c) explains every failure in one
 * line naming what failed; it does not look at users, groups or
 * capabilities.
 */
static void test_one_line(void)
{
	struct pmuctx *h;
	int err;

	fake_install();
	fake.open_err = -EACCES;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		err = pmuctx_open(&h, &o);
	}
	CHECK_EQ(err, -EACCES, "open EACCES is returned");
	check_one_line(NULL, err, "open EACCES");
	CHECK_HAS(msg, "cannot open " FAKE_PATH ": Permission denied (need "
		  "group pmuctx membership or CAP_PERFMON)",
		  "open EACCES: path, errno and what is needed");
	CHECK_LACKS(msg, "usermod", "open EACCES: no advice from the library");
	CHECK_LACKS(msg, "this process runs as", "open EACCES: no user lookup");
	fake.open_err = 0;

	h = open_fake();
	fake.create_err = -EPERM;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .target = PMUCTX_TARGET_SYSTEM);

		err = pmuctx_session_create(h, &so);
	}
	check_one_line(h, err, "session EPERM");
	CHECK_HAS(msg, "cannot create a system-wide pmuctx session: "
		  "Operation not permitted", "session EPERM: what failed");
	CHECK_LACKS(msg, "perf_event_paranoid is", "session EPERM: no sysctl "
		    "read by the library");
	fake.create_err = 0;
	pmuctx_close(h);

	fake_install();
	h = open_fake();
	fake.hw_unsupported = true;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "task-clock,cycles,instructions");

		err = pmuctx_session_create(h, &so);
	}
	check_one_line(h, err, "session EOPNOTSUPP");
	CHECK_HAS(msg, "not supported: cycles, instructions",
		  "EOPNOTSUPP: the refused events");
	CHECK_HAS(msg, "the module reports no hardware PMU",
		  "EOPNOTSUPP: what the module reported");
	pmuctx_close(h);

	fake_install();
	fake.abi_version = 2;
	strcpy(fake.version, "9.9.9");
	fake.attr_size = 64;
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .max_exited = 5);

		err = pmuctx_session_create(h, &so);
	}
	check_one_line(h, err, "session E2BIG");
	CHECK_HAS(msg, "struct pmuctx_session_attr of 416 bytes",
		  "E2BIG: the library's size");
	CHECK_HAS(msg, "module 9.9.9 speaks ABI 2 (it knows 64 bytes)",
		  "E2BIG: the module's version and size");
	pmuctx_close(h);

	fake_install();
	h = open_fake();
	err = pmuctx_enable(h);
	check_one_line(h, err, "enable without a session");
	CHECK_HAS(msg, "cannot enable the session: Invalid argument: this "
		  "handle has no session", "enable EINVAL: says why");
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .flags = 0x100);

		err = pmuctx_session_create(h, &so);
	}
	check_one_line(h, err, "session EINVAL");
	CHECK(strstr(msg, "flags 0x100") &&
	      strstr(msg, "task-clock, context-switches"),
	      "session EINVAL: flags and events");
	pmuctx_close(h);
	fake_remove();
}

static void test_errinfo(void)
{
	struct pmuctx_errinfo ei = { .sz = sizeof(ei) };
	unsigned char raw[sizeof(struct pmuctx_errinfo) + 16];
	struct pmuctx *h;
	int err;

	fake_install();
	h = open_fake();
	fake.hw_unsupported = true;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .pid = 77,
			       .events = "cs,cycles");

		fake.check_pid = false;
		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(pmuctx_errinfo(h, err, &ei), 0, "errinfo: a record");
	CHECK(ei.err == EOPNOTSUPP && ei.op == PMUCTX_ERR_OP_SESSION &&
	      ei.target == PMUCTX_TARGET_PID && ei.pid == 77,
	      "errinfo: errno, op, target and pid");
	CHECK(ei.nr_events == 2 && ei.events[0] == PMUCTX_EV_CONTEXT_SWITCHES &&
	      ei.events[1] == PMUCTX_EV_CYCLES, "errinfo: the events");
	CHECK(ei.nr_culprits == 1 && ei.culprits[0] == PMUCTX_EV_CYCLES,
	      "errinfo: the refused event");
	CHECK(ei.hw_pmu == 0 && ei.module_abi == PMUCTX_ABI_VERSION &&
	      ei.path && ei.detail && ei.module_version,
	      "errinfo: what the module reported; strings never NULL");

	/* a smaller (older) struct: not a byte past its sz */
	memset(raw, 0xa5, sizeof(raw));
	((struct pmuctx_errinfo *)raw)->sz =
		offsetof(struct pmuctx_errinfo, target);
	CHECK_EQ(pmuctx_errinfo(h, err, (struct pmuctx_errinfo *)raw), 0,
		 "errinfo: a short struct is filled");
	CHECK(((struct pmuctx_errinfo *)raw)->op == PMUCTX_ERR_OP_SESSION &&
	      raw[offsetof(struct pmuctx_errinfo, target)] == 0xa5,
	      "errinfo: the short struct's fields, nothing past them");
	/* a larger (newer) one: the unknown tail is zeroed */
	memset(raw, 0xa5, sizeof(raw));
	((struct pmuctx_errinfo *)raw)->sz = sizeof(raw);
	pmuctx_errinfo(h, err, (struct pmuctx_errinfo *)raw);
	CHECK(raw[sizeof(raw) - 1] == 0 &&
	      raw[sizeof(struct pmuctx_errinfo)] == 0 &&
	      ((struct pmuctx_errinfo *)raw)->sz == sizeof(raw),
	      "errinfo: a larger struct's tail is zeroed, sz kept");

	CHECK_EQ(pmuctx_errinfo(h, -ESRCH, &ei), -ENOENT,
		 "errinfo: no record of another errno");
	CHECK(ei.err == ESRCH && ei.op == PMUCTX_ERR_OP_NONE &&
	      ei.hw_pmu == -1 && ei.path && !ei.path[0],
	      "errinfo: no record: errno and 'unknown' values");
	CHECK_EQ(pmuctx_errinfo(h, err, NULL), -EINVAL, "errinfo(NULL)");
	ei.sz = 2;
	CHECK_EQ(pmuctx_errinfo(h, err, &ei), -EINVAL, "errinfo: sz 2");
	/* asking does not replace the record asked about */
	ei.sz = sizeof(ei);
	CHECK_EQ(pmuctx_errinfo(NULL, err, &ei), 0,
		 "errinfo: the thread's record is still there");
	pmuctx_close(h);
	fake_remove();
}

static void test_notdev(void)
{
	char path[] = "/tmp/pmuctx-notdev-XXXXXX";
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = path);
	struct pmuctx *h;
	int fd, err;

	fd = mkstemp(path);
	close(fd);
	err = pmuctx_open(&h, &o);
	CHECK_EQ(err, -ENOTTY, "regular file as device -> -ENOTTY");
	check_one_line(NULL, err, "ENOTTY");
	CHECK_HAS(msg, "not a pmuctx device", "ENOTTY: explained");
	o.flags = PMUCTX_OPEN_NO_PROBE;
	err = pmuctx_open(&h, &o);
	CHECK_EQ(err, 0, "PMUCTX_OPEN_NO_PROBE skips the INFO query");
	CHECK(pmuctx_fd(h) >= 0, "pmuctx_fd returns the fd");
	CHECK_EQ(pmuctx_fd(NULL), -EINVAL, "pmuctx_fd(NULL)");
	pmuctx_close(h);
	unlink(path);
}

static void test_strerror_errmsg(void)
{
	int n;

	CHECK(!strcmp(pmuctx_strerror(0), "success"), "strerror(0)");
	CHECK(pmuctx_strerror(-EACCES) == pmuctx_strerror(EACCES),
	      "strerror takes negative and positive errnos");
	CHECK_HAS(pmuctx_strerror(-EOPNOTSUPP), "PMU", "strerror EOPNOTSUPP");
	CHECK_LACKS(pmuctx_strerror(-EOPNOTSUPP), "virtual machine",
		    "strerror EOPNOTSUPP does not guess a VM");
	CHECK_HAS(pmuctx_strerror(-EACCES), "pmuctx", "strerror EACCES");
	CHECK_HAS(pmuctx_strerror(-EPERM), "CAP_PERFMON", "strerror EPERM");
	CHECK_HAS(pmuctx_strerror(-EBUSY), "session", "strerror EBUSY");
	CHECK_HAS(pmuctx_strerror(-E2BIG), "ABI", "strerror E2BIG says ABI");
	CHECK_HAS(pmuctx_strerror(-EDOM), "argument",
		  "strerror of another errno falls back to libc");

	pmuctx_event_parse("xyzzy");
	n = pmuctx_errmsg(NULL, -EINVAL, NULL, 0);
	CHECK(n > 20, "errmsg(NULL, 0) returns the needed length");
	{
		char small[8];
		int m = pmuctx_errmsg(NULL, -EINVAL, small, sizeof(small));

		CHECK(m == n && strlen(small) == 7,
		      "errmsg truncates and NUL-terminates");
	}
	CHECK_EQ(pmuctx_errmsg(NULL, -EINVAL, NULL, 5), -EINVAL,
		 "errmsg(NULL buf, len 5) -> -EINVAL");
}

void test_errors(void)
{
	test_missing_module();
	test_one_line();
	test_errinfo();
	test_notdev();
	test_strerror_errmsg();
}
