// SPDX-License-Identifier: GPL-2.0
/*
 * threads MS: the multi-threaded workload of the perf-script comparison
 * (tests/vm/cases/67-profile.sh).  Two threads name themselves
 * "worker-1" and "worker-2" with pthread_setname_np() (prctl(PR_SET_NAME):
 * no record from the kernel), then each runs work() -> spin() until it has
 * used MS ms of CPU time; main waits for them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms;
static volatile unsigned long sink;

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void spin(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) void work(void)
{
	long long end = thread_cpu_ns() + ms * 1000000LL;

	while (thread_cpu_ns() < end)
		spin();
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long i;

	ms = argc > 1 ? atol(argv[1]) : 300;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
