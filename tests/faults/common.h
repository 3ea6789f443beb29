/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the tests/faults programs (raw UAPI, no libpmuctx):
 * the device, INFO snapshots and session creation; the TAP-ish output
 * ("ok - ..." / "not ok - ..." / "# ...") comes from tests/common/tap.h.
 */
#ifndef PMUCTX_TESTS_FAULTS_COMMON_H
#define PMUCTX_TESTS_FAULTS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <linux/pmuctx.h>

#include "tap.h"

/* every program uses a different subset of the helpers */
#pragma GCC diagnostic ignored "-Wunused-function"

static int dev_open(void)
{
	return open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

static int get_info(struct pmuctx_info *in)
{
	int fd = dev_open(), ret;

	memset(in, 0, sizeof(*in));
	if (fd < 0)
		return -errno;
	in->size = sizeof(*in);
	ret = ioctl(fd, PMUCTX_IOC_INFO, in) ? -errno : 0;
	close(fd);
	return ret;
}

/* The counters that describe state (not history). */
struct state {
	uint64_t tasks, bytes, pool, live;	/* live: created - freed */
	uint32_t sessions, probes;
};

static struct state get_state(void)
{
	struct pmuctx_info in;
	struct state s;

	get_info(&in);
	s.tasks = in.tasks_tracked;
	s.bytes = in.store_bytes;
	s.pool = in.pool_entries;
	s.live = in.entries_created - in.entries_freed;
	s.sessions = in.sessions;
	s.probes = in.probes_registered;
	return s;
}

/*
 * probes is not compared: a probe stays hooked for a second after its
 * last session (issue 29 item 8), so it lags the rest by up to that.
 * store_empty() waits for it to be 0.
 */
static bool state_eq(const struct state *a, const struct state *b)
{
	return a->tasks == b->tasks && a->bytes == b->bytes &&
	       a->pool == b->pool && a->live == b->live &&
	       a->sessions == b->sessions;
}

static const char *state_str(const struct state *s)
{
	static char buf[4][160];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]),
		 "tasks %llu bytes %llu pool %llu live %llu sessions %u probes %u",
		 (unsigned long long)s->tasks, (unsigned long long)s->bytes,
		 (unsigned long long)s->pool, (unsigned long long)s->live,
		 s->sessions, s->probes);
	return buf[k];
}

/* Entries are freed after an RCU grace period: poll up to @ms. */
static bool wait_state(const struct state *want, struct state *got, int ms)
{
	for (;;) {
		*got = get_state();
		if (state_eq(want, got) || ms <= 0)
			return state_eq(want, got);
		usleep(10000);
		ms -= 10;
	}
}

/* Nothing left, the deferred unhook of the probes included: poll up to @ms. */
static __attribute__((unused)) bool store_empty(int ms)
{
	struct state zero = { 0 }, got;

	for (;;) {
		got = get_state();
		if ((state_eq(&zero, &got) && !got.probes) || ms <= 0)
			return state_eq(&zero, &got) && !got.probes;
		usleep(10000);
		ms -= 10;
	}
}

static void attr_init(struct pmuctx_session_attr *a, unsigned int target,
		      pid_t pid, unsigned int flags)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->target = target;
	a->pid = pid;
	a->flags = flags;
	a->cgroup_fd = -1;
	a->nr_events = 3;
	a->events[0] = PMUCTX_EV_TASK_CLOCK;
	a->events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
	a->events[2] = PMUCTX_EV_CPU_MIGRATIONS;
}

/* A session fd (enabled unless @noenable), or -errno. */
static int session_attr(const struct pmuctx_session_attr *a, bool enable)
{
	int fd = dev_open(), err;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, a) ||
	    (enable && ioctl(fd, PMUCTX_IOC_ENABLE, 0))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static __attribute__((unused)) int session(unsigned int target, pid_t pid, unsigned int flags)
{
	struct pmuctx_session_attr a;

	attr_init(&a, target, pid, flags);
	return session_attr(&a, true);
}

static __attribute__((unused)) int sread(int fd, struct pmuctx_read *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	return ioctl(fd, PMUCTX_IOC_READ, r) ? -errno : 0;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -EIO;
}

static __attribute__((unused)) int write_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/pmuctx/parameters/%s", name);
	return write_file(path, val);
}

static __attribute__((unused)) uint64_t now_ns(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

#endif /* PMUCTX_TESTS_FAULTS_COMMON_H */
