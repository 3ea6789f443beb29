// SPDX-License-Identifier: GPL-2.0
/*
 * bench/adopt - the cost of starting and ending a system-wide session over
 * N existing threads (issue 13: adoption and teardown no slower than
 * before the create walk replaced adoption at switch-in).
 *
 *   adopt -n N [-r REPS] [-p PERIOD_US]
 *
 * Starts N threads that each sleep PERIOD_US (default 5000) in a loop, so
 * every thread runs now and then: a module that adopts at switch-in sees
 * each of them within a period, one that walks the threads at create sees
 * them at once.  Then, REPS times: SESSION_CREATE of a system-wide
 * task-clock session, ENABLE, wait until the session has seen N tasks
 * (READ tasks_seen), close(), wait until the module's store is empty
 * (INFO tasks_tracked 0; entries go after an RCU grace period).  One line
 * per repetition:
 *   adopt n=N create_ns=X enable_ns=X seen_ns=X close_ns=X empty_ns=X
 * create_ns: the SESSION_CREATE ioctl; seen_ns: from before SESSION_CREATE
 * until tasks_seen >= N; close_ns: close() of the session fd; empty_ns:
 * from before close() until the store is empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

static long period_us = 5000;
static volatile int stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, period_us * 1000 };

	(void)arg;
	while (!stop)
		nanosleep(&ts, NULL);
	return NULL;
}

static int info(struct pmuctx_info *in)
{
	int fd = open(PMUCTX_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
	ret = ioctl(fd, PMUCTX_IOC_INFO, in);
	close(fd);
	return ret;
}

static void usage(void)
{
	fprintf(stderr, "usage: adopt -n N [-r REPS] [-p PERIOD_US]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long n = 0, reps = 5, i, r;
	pthread_attr_t pa;
	pthread_t *th;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:p:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'r': reps = atol(optarg); break;
		case 'p': period_us = atol(optarg); break;
		default: usage();
		}
	}
	if (n <= 0 || reps <= 0 || period_us <= 0)
		usage();
	th = calloc((size_t)n, sizeof(*th));
	if (!th)
		return 1;
	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], &pa, sleeper, NULL)) {
			fprintf(stderr, "adopt: thread %ld: %s\n", i,
				strerror(errno));
			return 1;
		}
	for (r = 0; r < reps; r++) {
		struct pmuctx_session_attr a = {
			.size = sizeof(a), .target = PMUCTX_TARGET_SYSTEM,
			.cgroup_fd = -1, .nr_events = 1,
			.events = { PMUCTX_EV_TASK_CLOCK },
		};
		struct pmuctx_read rd;
		struct pmuctx_info in;
		uint64_t t0, t1, t2, t3, t4, t5;
		int fd;

		fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			perror("adopt: open");
			return 1;
		}
		t0 = now_ns();
		if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a)) {
			perror("adopt: SESSION_CREATE");
			return 1;
		}
		t1 = now_ns();
		if (ioctl(fd, PMUCTX_IOC_ENABLE, 0)) {
			perror("adopt: ENABLE");
			return 1;
		}
		t2 = now_ns();
		for (;;) {
			memset(&rd, 0, sizeof(rd));
			rd.size = PMUCTX_READ_SIZE_VER0;
			if (ioctl(fd, PMUCTX_IOC_READ, &rd)) {
				perror("adopt: READ");
				return 1;
			}
			if (rd.tasks_seen >= (uint64_t)n)
				break;
			if (now_ns() - t0 > 60000000000ULL) {
				fprintf(stderr, "adopt: %llu of %ld tasks seen after 60 s\n",
					(unsigned long long)rd.tasks_seen, n);
				return 1;
			}
			usleep(200);
		}
		t3 = now_ns();
		close(fd);
		t4 = now_ns();
		for (;;) {
			if (info(&in)) {
				perror("adopt: INFO");
				return 1;
			}
			if (!in.tasks_tracked && !in.sessions)
				break;
			usleep(200);
		}
		t5 = now_ns();
		printf("adopt n=%ld create_ns=%llu enable_ns=%llu seen_ns=%llu close_ns=%llu empty_ns=%llu\n",
		       n, (unsigned long long)(t1 - t0),
		       (unsigned long long)(t2 - t1),
		       (unsigned long long)(t3 - t0),
		       (unsigned long long)(t4 - t3),
		       (unsigned long long)(t5 - t3));
		fflush(stdout);
	}
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
