// SPDX-License-Identifier: GPL-2.0
/*
 * suidburn MS [maps]: burn MS milliseconds of CPU.  Installed setuid root
 * by the setuid test; exits 0 only if it really runs with euid 0.  With
 * "maps", first copy its own /proc/self/maps to stdout and close it (the
 * addresses a watcher must not learn: pmuctx-sec execwindow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long end, ms = argc > 1 ? strtoull(argv[1], NULL, 0) : 100;
	struct timespec ts;

	if (argc > 2 && !strcmp(argv[2], "maps")) {
		FILE *f = fopen("/proc/self/maps", "r");
		char line[512];

		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (f)
			fclose(f);
		fclose(stdout);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	end = ts.tv_sec * 1000000000ULL + ts.tv_nsec + ms * 1000000ULL;
	do {
		/*
		 * Mostly in user mode: the clock is a system call, and an
		 * unprivileged session (paranoid 2) samples no kernel mode;
		 * a bare clock loop left 0-7 samples of 31 (73-security
		 * privexec's MMAP check failed with 0 on 6.12).
		 */
		for (volatile unsigned int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000000000ULL + ts.tv_nsec < end);
	return geteuid() == 0 ? 0 : 5;
}
