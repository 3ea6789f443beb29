// SPDX-License-Identifier: GPL-2.0
/*
 * bench/churn - task creation and exit: create T threads and join them, or
 * fork P processes that exit at once and reap them.  Prints the wall time
 * per created task.
 *
 *   churn -t T [-r REPS] [-b BATCH]      threads
 *   churn -f P [-r REPS] [-b BATCH]      processes (fork + _exit + waitpid)
 *   churn -W MIB                         touch MIB of fresh memory and free
 *                                        it (warms the guest's RAM up: the
 *                                        host backs it on first touch)
 *   churn -H N [-s SEC]                  hold: create N sleeping threads,
 *                                        print "ready", sleep until SIGTERM,
 *                                        SIGINT or SEC seconds, then join
 *
 * -b BATCH: at most BATCH tasks alive at once (default: all T at once for
 * threads, 64 for processes).  Threads get 64 KiB stacks.  One line per
 * repetition:
 *   churn kind=threads n=T ns=T ns_per_task=X
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREAD_STACK	(64 * 1024)
#define HOLD_STACK	(16 * 1024)

static _Atomic int hold_release;
static _Atomic int hold_ready;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *nop_fn(void *arg)
{
	return arg;
}

static void *hold_fn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&hold_ready, 1);
	while (!atomic_load(&hold_release))
		syscall(SYS_futex, &hold_release, FUTEX_WAIT_PRIVATE, 0,
			NULL, NULL, 0);
	return NULL;
}

static int threads(long n, long batch, pthread_t *t, pthread_attr_t *attr)
{
	long i, j, k;
	int r;

	for (i = 0; i < n; i += batch) {
		k = n - i < batch ? n - i : batch;
		for (j = 0; j < k; j++) {
			r = pthread_create(&t[j], attr, nop_fn, NULL);
			if (r) {
				fprintf(stderr, "churn: pthread_create: %s\n",
					strerror(r));
				return 1;
			}
		}
		for (j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
	return 0;
}

static int forks(long n, long batch)
{
	long i, j, k;
	pid_t p;

	for (i = 0; i < n; i += batch) {
		k = n - i < batch ? n - i : batch;
		for (j = 0; j < k; j++) {
			p = fork();
			if (p < 0) {
				perror("churn: fork");
				return 1;
			}
			if (!p)
				_exit(0);
		}
		for (j = 0; j < k; j++)
			if (wait(NULL) < 0) {
				perror("churn: wait");
				return 1;
			}
	}
	return 0;
}

static void on_sig(int sig)
{
	(void)sig;
}

static int hold(long n, double sec)
{
	size_t len = (size_t)n * HOLD_STACK;
	pthread_attr_t attr;
	pthread_t *t;
	sigset_t set;
	char *stacks;
	double t0;
	long i;
	int r;

	stacks = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	t = calloc(n ? n : 1, sizeof(*t));
	if (stacks == MAP_FAILED || !t) {
		perror("churn: hold");
		return 1;
	}
	/* the threads must not take the signals meant for the main thread */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, stacks + i * HOLD_STACK,
				      HOLD_STACK);
		r = pthread_create(&t[i], &attr, hold_fn, NULL);
		pthread_attr_destroy(&attr);
		if (r) {
			fprintf(stderr, "churn: hold thread %ld: %s\n", i,
				strerror(r));
			return 1;
		}
	}
	while (atomic_load(&hold_ready) < n)
		usleep(1000);
	printf("ready n=%ld pid=%d create_ns=%.0f\n", n, (int)getpid(),
	       now_ns() - t0);
	fflush(stdout);
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	signal(SIGALRM, on_sig);
	if (sec > 0)
		alarm((unsigned int)(sec + 0.999));
	r = 0;
	sigwait(&set, &r);
	t0 = now_ns();
	atomic_store(&hold_release, 1);
	syscall(SYS_futex, &hold_release, FUTEX_WAKE_PRIVATE, 0x7fffffff,
		NULL, NULL, 0);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("released n=%ld exit_ns=%.0f\n", n, now_ns() - t0);
	return 0;
}

static int warm(long mib)
{
	size_t len = (size_t)mib << 20, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("churn: warm");
		return 1;
	}
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: churn -t THREADS | -f PROCS | -H N [-s SEC] | -W MIB  "
		"[-r REPS] [-b BATCH]\n");
}

int main(int argc, char **argv)
{
	long nt = 0, nf = 0, nh = -1, reps = 1, batch = 0, i;
	double sec = 0;
	pthread_attr_t attr;
	pthread_t *t = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "t:f:H:W:s:r:b:h")) != -1) {
		switch (opt) {
		case 't': nt = atol(optarg); break;
		case 'f': nf = atol(optarg); break;
		case 'H': nh = atol(optarg); break;
		case 'W': return warm(atol(optarg));
		case 's': sec = atof(optarg); break;
		case 'r': reps = atol(optarg); break;
		case 'b': batch = atol(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (nh >= 0)
		return hold(nh, sec);
	if ((!nt == !nf) || nt < 0 || nf < 0 || reps <= 0 || batch < 0) {
		usage(stderr);
		return 2;
	}
	if (nt) {
		if (!batch || batch > nt)
			batch = nt;
		t = calloc(batch, sizeof(*t));
		if (!t)
			return 1;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, THREAD_STACK);
	} else if (!batch) {
		batch = 64;
	}
	for (i = 0; i < reps; i++) {
		double t0 = now_ns(), ns;
		long n = nt ? nt : nf;
		int r = nt ? threads(nt, batch, t, &attr) : forks(nf, batch);

		if (r)
			return 1;
		ns = now_ns() - t0;
		printf("churn kind=%s n=%ld ns=%.0f ns_per_task=%.1f\n",
		       nt ? "threads" : "procs", n, ns, ns / n);
		fflush(stdout);
	}
	return 0;
}
