// SPDX-License-Identifier: GPL-2.0
/*
 * spin: a deterministic workload for the hardware-event tests.
 *
 *   spin N [CHILDREN]
 *
 * Runs N iterations of a fixed loop, after forking CHILDREN (default 0)
 * processes that each run the same N iterations, and waits for them:
 * the same user-mode instruction count on every run (static binary, no
 * clock read, no allocation after start-up).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void work(unsigned long n)
{
	unsigned long i, x = 1;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	int kids = argc > 2 ? atoi(argv[2]) : 0, i, st, rc = 0;

	for (i = 0; i < kids; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (!p) {
			work(n);
			_exit(0);
		}
	}
	work(n);
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	return rc;
}
