// SPDX-License-Identifier: GPL-2.0
/*
 * nofp MS [SHIFT]: a program built as Debian builds its binaries, without frame
 * pointers (-O2 -fomit-frame-pointer; tests/sample/Makefile checks that
 * no function of the chain sets one up), for `--call-graph dwarf`
 * (tests/vm/cases/67-dwarf.sh): main -> a -> b -> c -> d, d burning CPU
 * in user space until the process has used MS ms of CPU time (default
 * 2000).  Each function does work after its call (no tail call), is
 * noipa (no inlining, cloning or IPA register tricks), and keeps values
 * in callee-saved registers, %rbp among them, so a frame-pointer walk
 * follows garbage.  The clock is read every 2^SHIFT iterations (default
 * 20: samples in the vDSO stay rare).  SHIFT 0 puts most of them there:
 * every iteration reads CLOCK_MONOTONIC (vDSO code in user mode) and
 * every 64th the CPU time (a system call the vDSO makes), so the stack's
 * innermost frame is the vDSO's, which only its own CFI unwinds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noipa))

static volatile unsigned long sink;
static unsigned int shift = 20;

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOIPA unsigned long d(unsigned long x, long long until)
{
	unsigned long v = x, i, n = 0;
	struct timespec ts;

	for (;;) {
		for (i = 0; i < (1UL << shift); i++)
			v = v * 6364136223846793005UL + 1442695040888963407UL;
		if (!shift) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			v += (unsigned long)ts.tv_nsec;
			if (++n % 64)
				continue;
		}
		if (cpu_ns() >= until)
			return v;
	}
}

NOIPA unsigned long c(unsigned long x, long long until)
{
	unsigned long r0 = x * 3, r1 = x ^ 0x55, r2 = x + 7, r3 = x - 1;
	unsigned long r = d(x + 1, until);

	return r + r0 + r1 * r2 + r3;
}

NOIPA unsigned long b(unsigned long x, long long until)
{
	unsigned long r0 = x * 5, r1 = x ^ 0x33, r2 = x + 11, r3 = x - 3;
	unsigned long r = c(x + 2, until);

	return r ^ (r0 + r1 * r2 + r3);
}

NOIPA unsigned long a(unsigned long x, long long until)
{
	unsigned long r0 = x * 7, r1 = x ^ 0x77, r2 = x + 13, r3 = x - 5;
	unsigned long r = b(x + 3, until);

	return r - (r0 + r1 * r2 + r3);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 2000;

	if (argc > 2)
		shift = (unsigned int)atoi(argv[2]) & 31;

	sink = a((unsigned long)argc, cpu_ns() + ms * 1000000LL);
	printf("%lu\n", (unsigned long)sink & 1);
	return 0;
}
