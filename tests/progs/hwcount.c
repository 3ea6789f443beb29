// SPDX-License-Identifier: GPL-2.0
/*
 * hwcount: the reference count of the hardware-event tests (perf stat
 * without perf, which the arm64 guest does not have).
 *
 *   hwcount [-u] [-o FILE] -- CMD [ARGS...]
 *
 * Counts cycles and instructions of CMD and every task it forks (inherit),
 * from its exec (enable_on_exec) to its exit, with perf_event_open() on
 * the child, as `perf stat -e cycles,instructions` does; -u counts user
 * mode only (exclude_kernel, exclude_hv: `-e cycles:u,instructions:u`).
 * Prints "cycles N" and "instructions N" (to FILE with -o), and
 * "enabled N running N" for each, on stderr; exits with CMD's status.
 * A counter that did not run the whole time (multiplexed) makes it exit
 * 3: the test wants exact counts.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_counter(pid_t pid, __u64 config, int user)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_kernel = user;
	a.exclude_hv = user;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	return syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	static const char *const name[2] = { "cycles", "instructions" };
	static const __u64 config[2] = { PERF_COUNT_HW_CPU_CYCLES,
					  PERF_COUNT_HW_INSTRUCTIONS };
	int user = 0, go[2], fd[2], i, st, rc = 0, c;
	const char *out = NULL;
	FILE *o = stdout;
	pid_t pid;
	char b;

	while ((c = getopt(argc, argv, "+uo:")) != -1) {
		if (c == 'u')
			user = 1;
		else if (c == 'o')
			out = optarg;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: hwcount [-u] [-o FILE] -- CMD [ARGS...]\n");
		return 2;
	}
	if (pipe(go))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(go[0]);
	for (i = 0; i < 2; i++) {
		fd[i] = open_counter(pid, config[i], user);
		if (fd[i] < 0) {
			fprintf(stderr, "hwcount: perf_event_open(%s): %s\n",
				name[i], strerror(errno));
			kill(pid, SIGKILL);
			return 4;
		}
	}
	if (write(go[1], "g", 1) != 1)
		return 2;
	close(go[1]);
	if (waitpid(pid, &st, 0) != pid)
		return 2;
	if (out) {
		o = fopen(out, "w");
		if (!o)
			return 2;
	}
	for (i = 0; i < 2; i++) {
		__u64 v[3];

		if (read(fd[i], v, sizeof(v)) != sizeof(v))
			return 2;
		fprintf(o, "%s %llu\n", name[i], (unsigned long long)v[0]);
		fprintf(stderr, "hwcount: %s enabled %llu running %llu\n",
			name[i], (unsigned long long)v[1],
			(unsigned long long)v[2]);
		if (v[1] != v[2])
			rc = 3;
	}
	if (out)
		fclose(o);
	if (rc)
		return rc;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
