/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP-ish output and small helpers shared by the VM test programs
 * (tests/store, tests/ring, tests/sample, tests/faults): "ok - ..." /
 * "not ok - ..." lines (the VM suite numbers them), "# ..." diagnostics,
 * and the count of failures for the exit status.
 *
 * Header-only and static: each program uses its own subset.  The Makefiles
 * put tests/common on the include path.
 */
#ifndef PMUCTX_TESTS_COMMON_TAP_H
#define PMUCTX_TESTS_COMMON_TAP_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>

/* the "not ok" lines so far */
static int failures __attribute__((unused));

static inline void __attribute__((format(printf, 2, 3)))
result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* a check that could not run here: "ok - ... # SKIP why" */
static inline void __attribute__((format(printf, 2, 3)))
skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	printf("ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

static inline uint64_t ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Can cpu1 go offline here (CPU hotplug tests)? */
static inline int cpu1_hotpluggable(void)
{
	return access("/sys/devices/system/cpu/cpu1/online", W_OK) == 0 &&
	       sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* cpu1 offline ("0") or online ("1"); 0 or -1 */
static inline int cpu1_online(const char *v)
{
	int fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, v, 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * cpu1 offline and back once, each step announced, so a hang of the
 * emulator shows where (the case's timeout bounds it).
 */
static inline void cpu1_cycle(const char *name, const char *note)
{
	diag("%s: taking cpu1 offline", name);
	result(cpu1_online("0") == 0, "%s: cpu1 offline", name);
	diag("%s: bringing cpu1 back%s", name, note);
	result(cpu1_online("1") == 0, "%s: cpu1 online again", name);
	diag("%s: cpu1 is back", name);
}

/* spin for @ms of this thread's CPU time */
/*
 * The text of a small file (/proc, /sys) in @buf, NUL-terminated: its
 * length, or -1 when it cannot be opened or read, or is empty.
 */
static inline ssize_t read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

static inline void burn_ms(unsigned int ms)
{
	uint64_t end = ns_of(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000ULL;

	while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

/* A child blocked on a pipe until gate_open(); then runs fn(arg). */
struct gated {
	pid_t pid;
	int wfd;
};

/* Whether task @pid is asleep ('S' in /proc/PID/stat). */
static inline int gated_asleep(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/*
 * The child is at its gate when this returns: it said so on a second
 * pipe, and sleeps (in the gate's read(), up to 2 s of waiting), so that
 * sessions made on it before gate_open() all start from the same point
 * and it runs nothing meanwhile (issue 31: on the arm64 tier a child
 * still starting up ran while two sessions were made on it, and one
 * counted 4 ms more than the other).
 */
static inline struct gated gated_child(void (*fn)(void *), void *arg)
{
	struct gated g;
	int p[2], r[2], i;
	char c;

	if (pipe(p) || pipe(r))
		exit(2);
	g.pid = fork();
	if (!g.pid) {
		close(p[1]);
		close(r[0]);
		if (write(r[1], "r", 1) != 1)
			_exit(3);
		close(r[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(3);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	close(r[1]);
	if (read(r[0], &c, 1) != 1)
		exit(2);
	close(r[0]);
	for (i = 0; i < 10000 && !gated_asleep(g.pid); i++)
		usleep(200);
	g.wfd = p[1];
	return g;
}

static inline void gate_open(struct gated *g)
{
	if (write(g->wfd, "x", 1) != 1)
		exit(2);
	close(g->wfd);
}

#endif /* PMUCTX_TESTS_COMMON_TAP_H */
