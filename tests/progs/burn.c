// SPDX-License-Identifier: GPL-2.0
/*
 * burn: a workload for the pmuctx tests.
 *
 *   burn [--ms N] [--threads N] [--fork-tree D,W] [--sleep-ms N]
 *        [--pages N] [--exit N]
 *
 * Every task burns N ms of its own CPU time (measured with
 * CLOCK_THREAD_CPUTIME_ID, default 100), then sleeps --sleep-ms.
 * --threads N runs the work in N threads per process (the main thread
 * and N-1 more).  --fork-tree D,W builds a process tree of depth D and
 * width W: every process forks W children until depth D, so there are
 * 1 + W + ... + W^D processes, each doing the work and waiting for its
 * children.  --pages N touches N fresh pages (page faults) in each
 * process.  At the end the root prints on stderr
 *   rusage_ns=N      user+sys time of RUSAGE_SELF + RUSAGE_CHILDREN
 *   rusage_csw=N     voluntary + involuntary context switches, same scope
 *   tasks=N          threads that did the work
 * and exits with --exit N (default 0; 1 if a child failed).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define MAX_PROCS 4096

static long opt_ms = 100, opt_sleep_ms, opt_pages;
static int opt_threads = 1, opt_depth, opt_width, opt_exit;

static void usage(FILE *f)
{
	fprintf(f,
"usage: burn [--ms N] [--threads N] [--fork-tree D,W] [--sleep-ms N]\n"
"            [--pages N] [--exit N]\n"
"  --ms N           CPU time each task burns, in ms (default 100)\n"
"  --threads N      threads per process doing the work (default 1)\n"
"  --fork-tree D,W  process tree of depth D and width W\n"
"  --sleep-ms N     sleep N ms after burning\n"
"  --pages N        touch N new pages per process (page faults)\n"
"  --exit N         exit status of the root (default 0)\n"
"prints rusage_ns=N (self + children user+sys), rusage_csw=N (context\n"
"switches, self + children) and tasks=N on stderr\n");
}

static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "burn: %s: bad value '%s' (%ld..%ld)\n", opt,
			s, min, max);
		exit(2);
	}
	return v;
}

static void burn_cpu(long ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;
	long long target = ms * 1000000LL, done;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		done = (b.tv_sec - a.tv_sec) * 1000000000LL +
		       (b.tv_nsec - a.tv_nsec);
	} while (done < target);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *worker(void *arg)
{
	(void)arg;
	burn_cpu(opt_ms);
	if (opt_sleep_ms)
		sleep_ms(opt_sleep_ms);
	return NULL;
}

static void touch_pages(long n)
{
	long pg = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("burn: mmap");
		return;
	}
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
	munmap(p, (size_t)(n * pg));
}

/* the work of one process; returns 0 or 1 */
static int work(void)
{
	pthread_t th[256];
	int i, n = 0, rc = 0;

	touch_pages(opt_pages);
	for (i = 1; i < opt_threads; i++) {
		if (pthread_create(&th[n], NULL, worker, NULL)) {
			fprintf(stderr, "burn: pthread_create failed\n");
			rc = 1;
			break;
		}
		n++;
	}
	worker(NULL);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return rc;
}

static int node(int level)
{
	pid_t kids[64];
	int i, n = 0, rc = 0, st;

	if (level < opt_depth) {
		for (i = 0; i < opt_width; i++) {
			pid_t p;

			fflush(NULL);
			p = fork();
			if (p < 0) {
				perror("burn: fork");
				rc = 1;
				break;
			}
			if (p == 0)
				_exit(node(level + 1));
			kids[n++] = p;
		}
	}
	if (work())
		rc = 1;
	for (i = 0; i < n; i++) {
		while (waitpid(kids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	return rc;
}

static unsigned long long tv_ns(struct timeval tv)
{
	return (unsigned long long)tv.tv_sec * 1000000000ULL +
	       (unsigned long long)tv.tv_usec * 1000ULL;
}

int main(int argc, char **argv)
{
	struct rusage self, kids;
	long procs = 1, level = 1;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, "burn: unknown option or missing "
				"value: %s\n", a);
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(a, "--ms")) {
			opt_ms = parse_long(a, v, 0, 3600000);
		} else if (!strcmp(a, "--threads")) {
			opt_threads = (int)parse_long(a, v, 1, 256);
		} else if (!strcmp(a, "--sleep-ms")) {
			opt_sleep_ms = parse_long(a, v, 0, 3600000);
		} else if (!strcmp(a, "--pages")) {
			opt_pages = parse_long(a, v, 0, 1L << 20);
		} else if (!strcmp(a, "--exit")) {
			opt_exit = (int)parse_long(a, v, 0, 255);
		} else if (!strcmp(a, "--fork-tree")) {
			char *comma = strchr(v, ',');
			char d[32];

			if (!comma || comma - v >= (long)sizeof(d)) {
				fprintf(stderr, "burn: --fork-tree D,W\n");
				return 2;
			}
			snprintf(d, sizeof(d), "%.*s", (int)(comma - v), v);
			opt_depth = (int)parse_long(a, d, 0, 32);
			opt_width = (int)parse_long(a, comma + 1, 0, 64);
		} else {
			fprintf(stderr, "burn: unknown option %s\n", a);
			usage(stderr);
			return 2;
		}
	}
	for (i = 0; i < opt_depth; i++) {
		level *= opt_width;
		procs += level;
		if (procs > MAX_PROCS) {
			fprintf(stderr, "burn: --fork-tree %d,%d makes more "
				"than %d processes\n", opt_depth, opt_width,
				MAX_PROCS);
			return 2;
		}
	}

	rc = node(0);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	fprintf(stderr, "rusage_ns=%llu\n",
		tv_ns(self.ru_utime) + tv_ns(self.ru_stime) +
		tv_ns(kids.ru_utime) + tv_ns(kids.ru_stime));
	fprintf(stderr, "rusage_csw=%ld\n", self.ru_nvcsw + self.ru_nivcsw +
		kids.ru_nvcsw + kids.ru_nivcsw);
	fprintf(stderr, "tasks=%ld\n", procs * opt_threads);
	return rc ? 1 : opt_exit;
}
