// SPDX-License-Identifier: GPL-2.0
/*
 * pltloop MS: call strlen() through this program's PLT in a loop for MS
 * ms of CPU time (67-profile.sh: samples in the stub are named
 * strlen@plt, as perf names them).  Built with -fplt -fno-builtin so
 * that every call goes through the stub.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long end = cpu_ns() + (argc > 1 ? atoll(argv[1]) : 500) *
			1000000LL;
	static const char *const s[] = { "", "a", "ab" };
	volatile size_t sum = 0;
	unsigned long i = 0;

	do {
		for (; ++i & 4095;)
			sum += strlen(s[i % 3]);
	} while (cpu_ns() < end);
	printf("%zu\n", (size_t)sum);
	return 0;
}
