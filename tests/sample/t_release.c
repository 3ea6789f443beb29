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
 *  rmmod	The module is removed while a task_work that dropped its
 *		module reference still runs module code (lifetimes item 3,
 *		widened by the selftest_task_work_tail_ms hook).  Not part
 *		of the default run: it leaves the module unloaded.
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
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

#include "tap.h"

#define NFDS	(1U << 19)
#define HANG_S	20

/* An enabled sampling session on @pid (0: this process) with deferred
 * user callchains, or -errno.
 */
static int sampling_session(pid_t pid, unsigned int flags, unsigned int freq)
{
	struct pmuctx_session_attr a;
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.target = PMUCTX_TARGET_PID;
	a.pid = pid;
	a.flags = flags;
	a.cgroup_fd = -1;
	a.nr_events = 1;
	a.events[0] = PMUCTX_EV_TASK_CLOCK;
	a.ring_pages = 64;
	a.ring_mode = PMUCTX_RING_OVERWRITE;
	a.ring_records = PMUCTX_REC_MASK_ALL;
	a.sample_freq = freq;
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

	fd = sampling_session(0, PMUCTX_SESSION_INHERIT, 10000);
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

	fd = sampling_session(0, PMUCTX_SESSION_INHERIT, 10000);
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

/*
 * rmmod (lifetimes item 3): the module's test hook
 * selftest_task_work_tail_ms makes every deferred-unwind task_work
 * busy-wait 800 ms in module code after it dropped its module reference.
 * A child spins in user mode (sampled, so it runs such works back to back)
 * and notes every stall of its loop; the session is closed during a stall
 * and the module removed as soon as the kernel lets it.  The removal must
 * not finish while the child is still inside a stall (still running the
 * module's code): before, it did, and the child returned into freed text.
 * Leaves the module unloaded.
 */
struct spin_log {
	volatile double hb;
	volatile int stop;
	volatile int ngaps;
	volatile double gap[64][2];
};

static void spin_logged(struct spin_log *l)
{
	double last = now_s(), now;

	while (!l->stop) {
		now = now_s();
		if (now - last > 0.3 && l->ngaps < 64) {
			l->gap[l->ngaps][0] = last;
			l->gap[l->ngaps][1] = now;
			__atomic_store_n(&l->ngaps, l->ngaps + 1, __ATOMIC_RELEASE);
		}
		last = now;
		l->hb = now;
	}
	_exit(0);
}

static int write_param(const char *name, const char *val)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/module/pmuctx/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -EIO;
}

static void test_rmmod(void)
{
	struct spin_log *l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t_close, t_rm = 0, end;
	int fd, st, i, inside = -1, closed_in = -1, tries = 0;
	cpu_set_t cpus;
	pid_t kid;

	if (l == MAP_FAILED || write_param("selftest_task_work_tail_ms", "800")) {
		result(0, "rmmod: the module's selftest_task_work_tail_ms hook");
		return;
	}
	memset((void *)l, 0, sizeof(*l));
	/*
	 * The child on CPU 1, this process on CPU 0: a busy-waiting work is
	 * not preempted (voluntary preemption), and its CPU would hold this
	 * process back until the stall is over.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	kid = fork();
	if (kid == 0) {
		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		spin_logged(l);
	}
	fd = sampling_session(kid, 0, 100);
	if (fd < 0) {
		result(0, "rmmod: sampling session on the spinner: %s", strerror(-fd));
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
		write_param("selftest_task_work_tail_ms", "0");
		return;
	}
	/* close while the child is inside a tail (its loop stalled) */
	end = now_s() + HANG_S;
	while (now_s() < end && (l->hb == 0 || now_s() - l->hb < 0.2))
		usleep(5000);
	close(fd);
	t_close = now_s();
	/* remove as soon as the last work dropped its reference */
	while (now_s() < end) {
		tries++;
		if (!syscall(SYS_delete_module, "pmuctx", O_NONBLOCK)) {
			t_rm = now_s();
			break;
		}
		if (errno != EWOULDBLOCK && errno != EAGAIN && errno != EBUSY) {
			diag("rmmod: delete_module: %s", strerror(errno));
			break;
		}
		usleep(2000);
	}
	usleep(1500000);	/* let a stall in progress end */
	l->stop = 1;
	if (!wait_bounded(kid, &st)) {
		kill(kid, SIGKILL);
		waitpid(kid, &st, 0);
	}
	for (i = 0; i < l->ngaps; i++) {
		diag("rmmod: child stalled %.3f..%.3f s", l->gap[i][0] - t_close,
		     l->gap[i][1] - t_close);
		if (t_rm > l->gap[i][0] && t_rm < l->gap[i][1])
			inside = i;
		if (t_close > l->gap[i][0] && t_close < l->gap[i][1])
			closed_in = i;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	CPU_SET(1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	result(closed_in >= 0,
	       "rmmod: the session was closed while a work ran its tail (the window is hit)");
	diag("rmmod: session closed at 0, module removed at %.3f s (%d tries)",
	     t_rm ? t_rm - t_close : -1.0, tries);
	result(t_rm > 0 && l->ngaps > 0,
	       "rmmod: the module can be removed after its works are done (%d stalls seen)",
	       l->ngaps);
	result(t_rm > 0 && inside < 0,
	       "rmmod: not while a task_work that dropped its reference is still in module code%s",
	       inside < 0 ? "" : " (removed during a stall)");
	result(WIFEXITED(st) && !WEXITSTATUS(st),
	       "rmmod: the sampled child survives and exits normally (status %#x)", st);
	munmap((void *)l, sizeof(*l));
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
		/* not in "all": it leaves the module unloaded */
		if (!strcmp(t, "rmmod"))
			test_rmmod();
		if (argc == 1)
			break;
	}
	return failures ? 1 : 0;
}
