// SPDX-License-Identifier: GPL-2.0
/*
 * chain N FLIP [DEPTH]: the sampling workload, main -> f1 -> f2 -> f3, where f3
 * reads N blocks of 4 MiB from /dev/zero with an inline syscall
 * instruction (the user ip of every kernel entry is in f3) and calls
 * touch() in its loop, so that gcc keeps its frame (it drops the frame
 * pointer of leaf functions even with -fno-omit-frame-pointer).  FLIP 1
 * moves the task between CPU 0 and 1 before every read.  N 0 loops until
 * killed; N < 0 loops until the thread has used -N ms of CPU time, so a
 * test gets about as many samples on a fast kernel as on a slow one
 * (6.12 reads /dev/zero about 4x faster than 6.1 in the test VM).  DEPTH (default 0) puts that many frames of deeper() between
 * f1 and f2, for deep callchains (bench/sample.sh).  With CHAIN_TIME=1 in
 * the environment it prints "chain: NS ns" on stderr at the end: the
 * time of the loop alone, without start-up and exit.
 *
 * Prints the addresses "f3 f2 f1 main end" on stdout, then waits for one
 * byte on stdin before starting (so the session exists first).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLOCK	(4 << 20)
static char *blk;
static volatile long sink;
static int zero_fd, flip;

__attribute__((noinline)) void touch(long v)
{
	sink += v;
}

/* A system call with the instruction inlined into the caller. */
static inline __attribute__((always_inline)) long sys3(long nr, long a,
							 long b, long c)
{
#if defined(__x86_64__)
	long r;

	asm volatile("syscall"
		     : "=a"(r)
		     : "0"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;

	asm volatile("svc #0"
		     : "+r"(x0)
		     : "r"(x8), "r"(x1), "r"(x2)
		     : "memory");
	return x0;
#else
#error "chain.c: no inline system call for this architecture"
#endif
}

/* CPU time of this thread, ns; an inline syscall too (the user ip in f3) */
static inline __attribute__((always_inline)) long long cpu_ns(void)
{
	struct timespec ts;
	long r;

	r = sys3(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&ts, 0);
	return r ? 0 : ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long deadline;	/* N < 0: stop at this cpu_ns() */

__attribute__((noinline)) void f3(long n)
{
	cpu_set_t cs;
	long i, r;

	for (i = 0; !n || n < 0 || i < n; i++) {
		if (n < 0 && cpu_ns() >= deadline)
			break;
		if (flip) {
			/* inline too: libc's wrapper would hide f3 */
			CPU_ZERO(&cs);
			CPU_SET(i & 1, &cs);
			r = sys3(SYS_sched_setaffinity, 0, sizeof(cs),
				 (long)&cs);
		}
		r = sys3(SYS_read, zero_fd, (long)blk, BLOCK);
		touch(r);
	}
	/*
	 * Unmap the buffer here, in a system call that returns to f3: left to
	 * exit_group(), whose kernel entry never returns to user space, its
	 * teardown would be samples without a user stack, a quarter of a
	 * 700 ms run on a KASAN kernel.
	 */
	r = sys3(SYS_munmap, (long)blk, BLOCK, 0);
	touch(r);
}

__attribute__((noinline)) void f2(long n)
{
	f3(n);
	touch(2);
}

static int depth;

/* not a tail call (touch after it): one frame per level */
__attribute__((noinline)) void deeper(long n, int d)
{
	if (d > 0)
		deeper(n, d - 1);
	else
		f2(n);
	touch(d);
}

__attribute__((noinline)) void f1(long n)
{
	if (depth)
		deeper(n, depth - 1);
	else
		f2(n);
	touch(1);
}

void chain_end(void);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	char c;

	struct timespec t0, t1;
	const char *tm = getenv("CHAIN_TIME");

	flip = argc > 2 ? atoi(argv[2]) : 0;
	depth = argc > 3 ? atoi(argv[3]) : 0;
	zero_fd = open("/dev/zero", 0);
	blk = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (zero_fd < 0 || blk == MAP_FAILED)
		return 2;
	printf("%lx %lx %lx %lx %lx\n", (unsigned long)f3, (unsigned long)f2,
	       (unsigned long)f1, (unsigned long)main,
	       (unsigned long)chain_end);
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 3;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (n < 0)
		deadline = cpu_ns() - n * 1000000LL;
	f1(n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (tm && *tm == '1')
		fprintf(stderr, "chain: %lld ns\n",
			(long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
			(t1.tv_nsec - t0.tv_nsec));
	return 0;
}

__attribute__((noinline)) void chain_end(void)
{
	touch(3);
}
