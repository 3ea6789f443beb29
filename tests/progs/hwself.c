// SPDX-License-Identifier: GPL-2.0
/*
 * hwself: workers that count their own user-mode instructions, the
 * reference of the scheduling tests on a hardware PMU (92-pmu-sched).
 *
 *   hwself pingpong A_ITERS B_ITERS ROUNDS
 *	two processes pinned to CPU 0 take turns through a pair of pipes:
 *	A runs A_ITERS iterations of a fixed loop, then B runs B_ITERS,
 *	ROUNDS times; they switch on one CPU at every turn
 *   hwself migrate ITERS HOPS
 *	one process moves between CPU 0 and CPU 1 HOPS times
 *	(sched_setaffinity), running ITERS iterations on each
 *   hwself solo ITERS
 *	one process, not pinned, runs ITERS iterations
 *   hwself hot ITERS REPS DIR
 *	one process runs REPS times ITERS iterations, each time on CPU 1
 *	while the file DIR/cpu1 exists, else on CPU 0 (the hotplug case
 *	removes it before it takes CPU 1 offline, and creates it again once
 *	CPU 1 is back and pmuctx had the time to revive its counters
 *	there); prints "after N": how many loops ran on CPU 1 once DIR/back
 *	existed (created with the second DIR/cpu1)
 *
 * Each worker opens perf_event_open(PERF_COUNT_HW_INSTRUCTIONS,
 * exclude_kernel) on itself first, and prints
 *	self TID ROLE instructions COUNT
 * to standard output before it exits (ROLE: a, b, migrate or solo).  A
 * counter that did not run the whole time (time_running below
 * time_enabled: multiplexed) prints "multiplexed" instead and makes the
 * worker exit 3: the tests want exact counts.  Exits 0, or 1 on an error
 * (said on standard error), or 2 on bad usage.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

/* the same loop as tests/progs/spin: fixed instructions per iteration */
static __attribute__((noinline)) void work(unsigned long n)
{
	unsigned long i, x = 1;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

static int self_counter(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "hwself: perf_event_open(instructions): %s\n",
			strerror(errno));
		exit(1);
	}
	return fd;
}

/* read @fd, print the line, exit */
static void report(int fd, const char *role)
{
	uint64_t v[3];

	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
		fprintf(stderr, "hwself: read of the counter: %s\n",
			strerror(errno));
		exit(1);
	}
	if (v[2] < v[1]) {
		printf("self %ld %s multiplexed enabled %llu running %llu\n",
		       (long)syscall(SYS_gettid), role,
		       (unsigned long long)v[1], (unsigned long long)v[2]);
		fflush(stdout);
		exit(3);
	}
	printf("self %ld %s instructions %llu\n", (long)syscall(SYS_gettid),
	       role, (unsigned long long)v[0]);
	fflush(stdout);
	exit(0);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "hwself: sched_setaffinity(cpu %d): %s\n", cpu,
			strerror(errno));
		exit(1);
	}
}

/* one side of the ping-pong: wait for the token on @in, work, pass it on */
static void player(const char *role, int in, int out, unsigned long iters,
		   unsigned long rounds, int first)
{
	int fd = self_counter();
	unsigned long r;
	char t = 't';

	pin(0);
	for (r = 0; r < rounds; r++) {
		if ((!first || r) && read(in, &t, 1) != 1)
			exit(1);
		work(iters);
		if (write(out, &t, 1) != 1)
			exit(1);
	}
	report(fd, role);
}

static int reap(void)
{
	int st, rc = 0;

	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	return rc;
}

static int pingpong(unsigned long a, unsigned long b, unsigned long rounds)
{
	int ab[2], ba[2];
	pid_t p;

	if (pipe(ab) || pipe(ba))
		return 1;
	p = fork();
	if (p < 0)
		return 1;
	if (!p)
		player("a", ba[0], ab[1], a, rounds, 1);
	p = fork();
	if (p < 0)
		return 1;
	if (!p)
		player("b", ab[0], ba[1], b, rounds, 0);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	return reap();
}

static int migrate(unsigned long iters, unsigned long hops)
{
	pid_t p = fork();
	unsigned long h;
	int fd;

	if (p < 0)
		return 1;
	if (!p) {
		fd = self_counter();
		for (h = 0; h < hops; h++) {
			pin(h & 1);
			work(iters);
		}
		report(fd, "migrate");
	}
	return reap();
}

static int hot(unsigned long iters, unsigned long reps, const char *dir)
{
	int fd = self_counter();
	unsigned long r, after = 0;
	char cpu1[4096], back[4096];
	cpu_set_t set;

	snprintf(cpu1, sizeof(cpu1), "%s/cpu1", dir);
	snprintf(back, sizeof(back), "%s/back", dir);
	for (r = 0; r < reps; r++) {
		CPU_ZERO(&set);
		CPU_SET(access(cpu1, F_OK) ? 0 : 1, &set);
		/* fails for CPU 1 if it went offline just now: stays put */
		(void)sched_setaffinity(0, sizeof(set), &set);
		work(iters);
		if (!access(back, F_OK) && sched_getcpu() == 1)
			after++;
	}
	printf("after %lu\n", after);
	report(fd, "hot");
	return 0;
}

static int solo(unsigned long iters)
{
	int fd = self_counter();

	work(iters);
	report(fd, "solo");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "pingpong"))
		return pingpong(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "migrate"))
		return migrate(strtoul(argv[2], NULL, 0),
			       strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "solo"))
		return solo(strtoul(argv[2], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "hot"))
		return hot(strtoul(argv[2], NULL, 0),
			   strtoul(argv[3], NULL, 0), argv[4]);
	fprintf(stderr,
		"usage: hwself pingpong A_ITERS B_ITERS ROUNDS | migrate ITERS HOPS | solo ITERS | hot ITERS REPS DIR\n");
	return 2;
}
