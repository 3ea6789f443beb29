// SPDX-License-Identifier: GPL-2.0
/*
 * bench/pingpong - two threads hand a token back and forth through one
 * futex word; every hand-over is a context switch.  Prints the wall time
 * per switch.
 *
 *   pingpong [-l LOOPS] [-c CPU | -C] [-i IDLE] [-r REPS] [-w WARMUP]
 *
 *   -l LOOPS   round trips per measurement (default 20000)
 *   -c CPU     pin both threads to CPU (default 0): a pure switch path,
 *              no IPI, no idle in between
 *   -C         do not pin (cross-CPU wake-ups: IPIs and idle)
 *   -i IDLE    first create IDLE extra threads that sleep on a futex until
 *              the end (16 KiB stacks carved from one mapping); they are in
 *              the same process, so an inheriting monitor tracks them
 *   -r REPS    measurements (default 1), each printed on its own line
 *   -x CMD     run CMD (system(3)) once the idle threads exist, before the
 *              first measurement (e.g. record `pmuctx info`)
 *   -w WARMUP  round trips before the first measurement (default LOOPS/10)
 *   -h         help
 *
 * Output, one line per measurement:
 *   pingpong loops=N switches=S ns=T ns_per_switch=X idle=I cpu=C
 * switches are counted with getrusage(RUSAGE_THREAD) in both threads
 * (voluntary + involuntary), so ns_per_switch does not depend on the
 * scheduler's wake-up preemption choices.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define IDLE_STACK	(16 * 1024)

static _Atomic int turn;		/* 0: A's turn, 1: B's turn */
static _Atomic int idle_release;	/* idle threads sleep while 0 */
static _Atomic int idle_ready;
static long loops = 20000;
static int cpu = 0;

/* per measurement: both threads meet at a barrier, then ping-pong */
static pthread_barrier_t start_bar, stop_bar;
static long cur_loops;
static _Atomic int quit;
static long sw_b;

static long futex(_Atomic int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static long thread_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void pin_self(void)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("pingpong: sched_setaffinity");
		exit(1);
	}
}

static void *thread_b(void *arg)
{
	long i, s0;

	(void)arg;
	pin_self();
	for (;;) {
		pthread_barrier_wait(&start_bar);
		if (atomic_load(&quit))
			return NULL;
		s0 = thread_switches();
		for (i = 0; i < cur_loops; i++) {
			while (atomic_load(&turn) != 1)
				futex(&turn, FUTEX_WAIT_PRIVATE, 0);
			atomic_store(&turn, 0);
			futex(&turn, FUTEX_WAKE_PRIVATE, 1);
		}
		sw_b = thread_switches() - s0;
		pthread_barrier_wait(&stop_bar);
	}
}

static void *idle_fn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&idle_ready, 1);
	while (!atomic_load(&idle_release))
		futex(&idle_release, FUTEX_WAIT_PRIVATE, 0);
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* one measurement of @n round trips; returns switches, *ns the time */
static long run(long n, double *ns)
{
	long i, s0, sa;
	double t0;

	cur_loops = n;
	atomic_store(&turn, 0);
	pthread_barrier_wait(&start_bar);
	s0 = thread_switches();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		while (atomic_load(&turn) != 0)
			futex(&turn, FUTEX_WAIT_PRIVATE, 1);
		atomic_store(&turn, 1);
		futex(&turn, FUTEX_WAKE_PRIVATE, 1);
	}
	/* wait for B's last hand-back */
	while (atomic_load(&turn) != 0)
		futex(&turn, FUTEX_WAIT_PRIVATE, 1);
	*ns = now_ns() - t0;
	sa = thread_switches() - s0;
	pthread_barrier_wait(&stop_bar);
	return sa + sw_b;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pingpong [-l LOOPS] [-c CPU | -C] [-i IDLE] "
		"[-r REPS] [-w WARMUP] [-x CMD]\n");
}

int main(int argc, char **argv)
{
	long idle = 0, reps = 1, warm = -1, i;
	pthread_t tb, *idle_t = NULL;
	pthread_attr_t attr;
	char *stacks = NULL, *xcmd = NULL;
	int opt, r;

	while ((opt = getopt(argc, argv, "l:c:Ci:r:w:x:h")) != -1) {
		switch (opt) {
		case 'l': loops = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'C': cpu = -1; break;
		case 'i': idle = atol(optarg); break;
		case 'r': reps = atol(optarg); break;
		case 'w': warm = atol(optarg); break;
		case 'x': xcmd = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (loops <= 0 || reps <= 0 || idle < 0) {
		usage(stderr);
		return 2;
	}
	if (warm < 0)
		warm = loops / 10;

	if (idle) {
		size_t len = (size_t)idle * IDLE_STACK;

		stacks = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			      -1, 0);
		if (stacks == MAP_FAILED) {
			perror("pingpong: mmap idle stacks");
			return 1;
		}
		idle_t = calloc(idle, sizeof(*idle_t));
		if (!idle_t)
			return 1;
		for (i = 0; i < idle; i++) {
			pthread_attr_init(&attr);
			pthread_attr_setstack(&attr, stacks + i * IDLE_STACK,
					      IDLE_STACK);
			r = pthread_create(&idle_t[i], &attr, idle_fn, NULL);
			pthread_attr_destroy(&attr);
			if (r) {
				fprintf(stderr, "pingpong: idle thread %ld: %s\n",
					i, strerror(r));
				return 1;
			}
		}
		while (atomic_load(&idle_ready) < idle)
			usleep(1000);
	}

	if (xcmd) {
		fflush(stdout);
		if (system(xcmd))
			fprintf(stderr, "pingpong: '%s' failed\n", xcmd);
	}
	pin_self();
	pthread_barrier_init(&start_bar, NULL, 2);
	pthread_barrier_init(&stop_bar, NULL, 2);
	r = pthread_create(&tb, NULL, thread_b, NULL);
	if (r) {
		fprintf(stderr, "pingpong: %s\n", strerror(r));
		return 1;
	}
	if (warm) {
		double ns;

		run(warm, &ns);
	}
	for (i = 0; i < reps; i++) {
		double ns;
		long sw = run(loops, &ns);

		printf("pingpong loops=%ld switches=%ld ns=%.0f "
		       "ns_per_switch=%.1f idle=%ld cpu=%d\n",
		       loops, sw, ns, sw ? ns / sw : 0.0, idle, cpu);
		fflush(stdout);
	}
	atomic_store(&quit, 1);
	pthread_barrier_wait(&start_bar);
	pthread_join(tb, NULL);

	if (idle) {
		atomic_store(&idle_release, 1);
		futex(&idle_release, FUTEX_WAKE_PRIVATE, 0x7fffffff);
		for (i = 0; i < idle; i++)
			pthread_join(idle_t[i], NULL);
		free(idle_t);
		munmap(stacks, (size_t)idle * IDLE_STACK);
	}
	return 0;
}
