// SPDX-License-Identifier: GPL-2.0
/*
 * t_release: close() of a sampling session must not wait on user space
 * (lifetimes item 1).  Run as root in the VM (66-sample).
 *
 *  blocked	A watched child is sampled in the kernel (a deferred user
 *		callchain is queued for its return to user space) and then
 *		blocks in that same system call forever: poll() of a million
 *		entries, all one empty pipe, timeout -1 (the first scan of the
 *		array is long kernel work; then it sleeps).  The recorder's
 *		close() of the session must return at once; it used to wait
 *		for the child's entry (pinned through its parent's) until
 *		the child returned to user space: unkillable D state.
 *  lifo	The last reference to the session fd is held by a watched
 *		child, which closes it in the same system call in which it is
 *		sampled: close_range() over a million /dev/null fds with the
 *		session fd last.  The fput's task_work is queued after the
 *		deferred unwind and runs first (task_work is LIFO); release
 *		used to wait for the unwind queued behind it: a deadlock.
 *
 *  exitrace	Threads exit while their session is closed (lifetimes item
 *		2): the debug kernel's KASAN sees a use after free.
 *
 * Each case is bounded: a hang is reported after 20 s, then the children
 * are killed (SIGKILL lets the child's task_work run and frees the hang).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

#include "tap.h"

#define NFDS	(1U << 19)
#define HANG_S	20

static int sampling_session(void)
{
	struct pmuctx_session_attr a;
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.target = PMUCTX_TARGET_PID;
	a.flags = PMUCTX_SESSION_INHERIT;
	a.cgroup_fd = -1;
	a.nr_events = 1;
	a.events[0] = PMUCTX_EV_TASK_CLOCK;
	a.ring_pages = 64;
	a.ring_mode = PMUCTX_RING_OVERWRITE;
	a.ring_records = PMUCTX_REC_MASK_ALL;
	a.sample_freq = 10000;
	a.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK |
			 PMUCTX_SAMPLE_DEFER_USER;
	a.sample_max_stack = 64;
	if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) ||
	    ioctl(fd, PMUCTX_IOC_ENABLE, 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait up to HANG_S for @pid; true if it exited by itself. */
static bool wait_bounded(pid_t pid, int *status)
{
	double end = now_s() + HANG_S;

	while (now_s() < end) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		usleep(20000);
	}
	return false;
}

static void raise_nofile(void)
{
	struct rlimit rl = { 2 * NFDS, 2 * NFDS };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		diag("setrlimit(RLIMIT_NOFILE, %u): %s", 2 * NFDS,
		     strerror(errno));
}

/* the blocked child: a long first scan of poll(), then sleep forever */
static void poll_forever(int rfd)
{
	struct pollfd *p = calloc(NFDS, sizeof(*p));
	unsigned int i;

	if (!p)
		_exit(2);
	for (i = 0; i < NFDS; i++) {
		p[i].fd = rfd;
		p[i].events = POLLIN;
	}
	for (;;)
		poll(p, NFDS, -1);
}

static void test_blocked(void)
{
	int fd, pfd[2], st = 0;
	pid_t child, closer;
	bool done;

	fd = sampling_session();
	if (fd < 0) {
		result(0, "blocked: sampling session on self: %s",
		       strerror(-fd));
		return;
	}
	if (pipe(pfd)) {
		close(fd);
		return;
	}
	child = fork();
	if (child == 0) {
		/* watched (INHERIT), but holding no reference to the file */
		close(fd);
		close(pfd[1]);
		poll_forever(pfd[0]);
	}
	close(pfd[0]);
	sleep(8);	/* into poll(): samples during the scan, then asleep */
	/* close() in a process of its own, so a hang can be bounded */
	closer = fork();
	if (closer == 0) {
		close(fd);
		_exit(0);
	}
	close(fd);
	done = wait_bounded(closer, &st);
	result(done, "blocked: close() of the session returns while a sampled child sleeps in poll() (%s)",
	       done ? "returned" : "still in close() after 20 s");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (!done) {
		done = wait_bounded(closer, &st);
		diag("after SIGKILL of the child the close() %s",
		     done ? "returned" : "still hangs");
	}
	close(pfd[1]);
}

static void test_lifo(void)
{
	int fd, st = 0, nullfd;
	unsigned int i, n = 0;
	pid_t child;
	bool done;

	fd = sampling_session();
	if (fd < 0) {
		result(0, "lifo: sampling session on self: %s", strerror(-fd));
		return;
	}
	child = fork();
	if (child == 0) {
		/* the session fd last, above a million /dev/null fds */
		if (dup2(fd, NFDS + 32) < 0)
			_exit(2);
		close(fd);
		nullfd = open("/dev/null", O_RDONLY);
		for (i = nullfd + 1; i < NFDS; i++)
			if (dup2(nullfd, i) == (int)i)
				n++;
		if (n < NFDS / 2)
			_exit(3);
		/* samples land in this long close, then the session's fput */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		_exit(0);
	}
	close(fd);	/* the child's copy is the last one */
	done = wait_bounded(child, &st);
	result(done && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "lifo: a sampled child's close_range() of the last session fd returns (%s)",
	       !done ? "still in it after 20 s" :
	       WIFEXITED(st) ? (WEXITSTATUS(st) ? "setup failed" : "returned") :
	       "killed");
	if (!done) {
		kill(child, SIGKILL);
		done = wait_bounded(child, &st);
		diag("after SIGKILL the child %s", done ? "exited" :
		     "is still stuck (unkillable)");
	}
}

/*
 * exitrace (lifetimes item 2): threads exit while their session is closed.
 * The exit probe can take an entry out of the store just before release
 * unhashes the rest, and retires it into the session's per-CPU data; the
 * release must not free that data under it (a grace period after the
 * unhash).  The check is KASAN's, on the debug kernel: here, only that
 * every round completes and the store is empty after it.
 */
static void *exit_fn(void *arg)
{
	(void)arg;
	return NULL;
}

static void test_exitrace(void)
{
	struct pmuctx_session_attr a;
	struct pmuctx_info in;
	pthread_t t[8];
	int round, i, fd, bad = 0, n;

	for (round = 0; round < 200; round++) {
		fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.target = PMUCTX_TARGET_PID;
		a.flags = PMUCTX_SESSION_INHERIT |
			  (round & 1 ? PMUCTX_SESSION_KEEP_EXITED : 0);
		a.cgroup_fd = -1;
		a.nr_events = 2;
		a.events[0] = PMUCTX_EV_TASK_CLOCK;
		a.events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
		if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) ||
		    ioctl(fd, PMUCTX_IOC_ENABLE, 0)) {
			bad++;
			close(fd);
			continue;
		}
		for (n = 0; n < 8; n++)
			if (pthread_create(&t[n], NULL, exit_fn, NULL))
				break;
		/* close while they exit */
		if (round & 2)
			usleep(round % 7 * 50);
		close(fd);
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	result(round == 200 && !bad,
	       "exitrace: 200 rounds of 8 exiting threads racing close() (%d rounds, %d failed creates)",
	       round, bad);
	for (i = 0; i < 100; i++) {
		fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		memset(&in, 0, sizeof(in));
		in.size = sizeof(in);
		n = fd >= 0 ? ioctl(fd, PMUCTX_IOC_INFO, &in) : -1;
		if (fd >= 0)
			close(fd);
		if (!n && !in.sessions && !in.tasks_tracked)
			break;
		usleep(20000);
	}
	result(!n && !in.sessions && !in.tasks_tracked,
	       "exitrace: nothing left afterwards (sessions %u, tasks %llu)",
	       in.sessions, (unsigned long long)in.tasks_tracked);
}

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	raise_nofile();
	for (i = 1; i < argc || argc == 1; i++) {
		const char *t = argc == 1 ? "all" : argv[i];

		if (!strcmp(t, "blocked") || !strcmp(t, "all"))
			test_blocked();
		if (!strcmp(t, "lifo") || !strcmp(t, "all"))
			test_lifo();
		if (!strcmp(t, "exitrace") || !strcmp(t, "all"))
			test_exitrace();
		if (argc == 1)
			break;
	}
	return failures ? 1 : 0;
}
