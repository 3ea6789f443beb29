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

/* Wait up to @secs for @pid; true if it exited by itself. */
static bool wait_for_s(pid_t pid, int *status, double secs)
{
	double end = now_s() + secs;

	while (now_s() < end) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		usleep(20000);
	}
	return false;
}

/* Wait up to HANG_S for @pid; true if it exited by itself. */
static bool wait_bounded(pid_t pid, int *status)
{
	return wait_for_s(pid, status, HANG_S);
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

/*
 * Whether the module's pending_works lists @pid (issue 29 item 8: the
 * administrator whose rmmod fails learns which task holds the module).
 * The first line is the number of works queued; @n gets it.
 */
static bool pending_lists(pid_t pid, int *n)
{
	char buf[4096], want[32], *p;

	*n = -1;
	if (read_text("/sys/module/pmuctx/parameters/pending_works", buf,
		      sizeof(buf)) < 0)
		return false;
	*n = atoi(buf);
	snprintf(want, sizeof(want), "\n%d ", (int)pid);
	p = strstr(buf, want);
	return p != NULL;
}

static void test_blocked(void)
{
	int fd, pfd[2], st = 0, n;
	pid_t child, closer;
	bool done, listed;

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
	listed = pending_lists(child, &n);
	result(listed, "blocked: pending_works names the sleeping child %d (%d works queued)",
	       (int)child, n);
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
	listed = pending_lists(child, &n);
	result(listed, "blocked: after close() pending_works still names the child (%d works queued): its work holds the module",
	       n);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (!done) {
		done = wait_bounded(closer, &st);
		diag("after SIGKILL of the child the close() %s",
		     done ? "returned" : "still hangs");
	}
	/* its work ran in do_exit() (exit_task_work()) */
	listed = pending_lists(child, &n);
	result(!listed && n >= 0,
	       "blocked: once the child is gone pending_works no longer names it (%d works queued)",
	       n);
	close(pfd[1]);
}

/*
 * The child's set-up (half a million dup2() under 10 kHz sampling) takes
 * most of a minute in the arm64 emulator, and its close_range() of them
 * 15-25 s: the close_range() that can hang is bounded by LIFO_CLOSE_S,
 * after the child says its set-up is done.  The deadlock it guards
 * against is for good (unkillable).
 */
#define LIFO_SETUP_S	150
#define LIFO_CLOSE_S	90

static void test_lifo(void)
{
	int fd, st = 0, nullfd, ready[2];
	unsigned int i, n = 0;
	double t0, t1;
	pid_t child;
	bool done;
	char c = 0;

	fd = sampling_session(0, PMUCTX_SESSION_INHERIT, 10000);
	if (fd < 0) {
		result(0, "lifo: sampling session on self: %s", strerror(-fd));
		return;
	}
	if (pipe(ready)) {
		result(0, "lifo: pipe: %s", strerror(errno));
		close(fd);
		return;
	}
	t0 = now_s();
	child = fork();
	if (child == 0) {
		close(ready[0]);
		/* the pipe above the /dev/null fds, the session fd last */
		if (dup2(ready[1], NFDS + 16) < 0 || dup2(fd, NFDS + 32) < 0)
			_exit(2);
		close(ready[1]);
		ready[1] = NFDS + 16;
		close(fd);
		nullfd = open("/dev/null", O_RDONLY);
		for (i = nullfd + 1; i < NFDS; i++)
			if (dup2(nullfd, i) == (int)i)
				n++;
		if (n < NFDS / 2 || write(ready[1], &c, 1) != 1)
			_exit(3);
		/* samples land in this long close, then the session's fput */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		_exit(0);
	}
	close(fd);	/* the child's copy is the last one */
	close(ready[1]);
	{
		struct pollfd p = { .fd = ready[0], .events = POLLIN };

		/* set up, or gone (EOF): either way the close is bounded next */
		if (poll(&p, 1, LIFO_SETUP_S * 1000) <= 0)
			diag("lifo: the child's set-up took over %d s",
			     LIFO_SETUP_S);
		else if (read(ready[0], &c, 1) != 1)
			diag("lifo: the child exited before its close_range()");
	}
	close(ready[0]);
	t1 = now_s();
	done = wait_for_s(child, &st, LIFO_CLOSE_S);
	diag("lifo: set-up %.1f s, close_range() and exit %.1f s%s", t1 - t0,
	     now_s() - t1, done ? "" : " (not done)");
	result(done && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "lifo: a sampled child's close_range() of the last session fd returns (%s)",
	       !done ? "still in it after 90 s" :
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
 * busy-wait in module code after it dropped its module reference.  The
 * window is forced, not waited for: a child is sampled during the long
 * scan of a poll() (a deferred unwind is queued for its return to user
 * space) and then sleeps in it; the session is closed while it sleeps, so
 * the pending work holds the module's only reference (its refcount is not
 * 0).  The child is woken; when the refcount is 0 while the child is not
 * back in user space, the work is in its tail, and the module is removed
 * then.  The removal must not finish before the child is back: before
 * (no synchronize_rcu_tasks() in the module's exit), it did, and the child
 * returned into freed text (an oops).  Each step is checked without
 * removing the module, so a missed window (no sample in the scan; this
 * process not scheduled during the tail, on a busy host) is tried again,
 * up to RMMOD_ATTEMPTS times, and reported as a SKIP with its reason if it
 * never comes.  Leaves the module unloaded.
 *
 * Closing during a stall of a spinning child, as this test first did,
 * needed close() to return inside the tail; but close() waits for a grace
 * period, which the busy-waiting CPU can delay until the tail is over: on
 * a busy host it missed the window and failed (issue 32 item 6).
 */
struct rm_log {
	volatile double back;	/* the child is back in user space */
	volatile int go;	/* the session is there: scan */
	volatile int stop;
};

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

/* the state letter of /proc/PID/stat, or 0 */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* the child's /proc stat (state, utime, stime in ticks) and syscall */
static void proc_diag(pid_t pid)
{
	char path[64], buf[512], sc[128] = "", *p;
	unsigned long ut = 0, stime = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		       &ut, &stime);
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, sc, sizeof(sc) - 1) : -1;
	if (fd >= 0)
		close(fd);
	sc[n > 0 ? n : 0] = 0;
	p = strchr(sc, '\n');
	if (p)
		*p = 0;
	diag("rmmod:   the child: utime %lu stime %lu ticks, syscall %s", ut,
	     stime, sc);
}

/* delete_module without waiting: 0, or the errno */
static int try_rmmod(void)
{
	return syscall(SYS_delete_module, "pmuctx", O_NONBLOCK) ? errno : 0;
}

/* /sys/module/pmuctx/refcnt, or -1 */
static int mod_refcnt(void)
{
	char buf[32];
	ssize_t n;
	int fd = open("/sys/module/pmuctx/refcnt", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atoi(buf);
}

#define RMMOD_ATTEMPTS 4
/* a scan of seconds in TCG (2^19 entries took over 20 s on a busy host) */
#define RMMOD_NFDS (NFDS >> 3)

/*
 * One attempt at the window: a child on CPU 1 scans a poll() of NFDS
 * entries (one pipe) under a 1 kHz sampling session, then sleeps in it;
 * the session is closed.  True when a work queued in the scan then holds
 * the module (its refcount is not 0), with *kid asleep in poll() and *wfd
 * the pipe's write end that wakes it; else the child is gone.
 */
static bool rmmod_window(struct rm_log *l, pid_t *kid, int *wfd, int attempt)
{
	cpu_set_t cpus;
	int fd, pfd[2], ref = -1, st;
	double end;
	char state = 0;

	memset((void *)l, 0, sizeof(*l));
	if (pipe(pfd))
		return false;
	*kid = fork();
	if (*kid == 0) {
		struct pollfd *p = calloc(RMMOD_NFDS, sizeof(*p));
		unsigned int i;

		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		close(pfd[1]);
		if (!p)
			_exit(2);
		for (i = 0; i < RMMOD_NFDS; i++) {
			p[i].fd = pfd[0];
			p[i].events = POLLIN;
		}
		while (!l->go)
			;
		/* one long scan in the kernel (sampled), then asleep */
		if (poll(p, RMMOD_NFDS, -1) <= 0)
			_exit(3);
		l->back = now_s();
		while (!l->stop)
			;	/* in user mode: RCU Tasks sees it there */
		_exit(0);
	}
	close(pfd[0]);
	*wfd = pfd[1];
	fd = sampling_session(*kid, 0, 1000);
	if (fd < 0) {
		diag("rmmod: attempt %d: sampling session on the child: %s",
		     attempt, strerror(-fd));
	} else {
		l->go = 1;
		/* the scan is over when the child sleeps */
		end = now_s() + HANG_S;
		while (now_s() < end && state != 'S') {
			usleep(50000);
			state = proc_state(*kid);
		}
		close(fd);
		/* only a work queued in the scan can still hold the module */
		ref = mod_refcnt();
		if (ref > 0)
			return true;
		diag("rmmod: attempt %d: after close() the module's refcount is %d (the child's state %c): no work pending",
		     attempt, ref, state ? state : '?');
		proc_diag(*kid);
	}
	kill(*kid, SIGKILL);
	waitpid(*kid, &st, 0);
	close(pfd[1]);
	return false;
}

/*
 * Wake the child of a window (rmmod_window()): its work runs, drops the
 * module reference and busy-waits.  The module's refcount is watched (it
 * does not disturb the module); once it is 0 while the child is not back
 * in user space, the work is in its tail: delete_module() then, which must
 * wait for the tail.  *t_try and *t_rm: when that call began and returned
 * (0: not made).  True if the call was made in the tail; else the child
 * came back first (this process got no CPU in the tail): the module is
 * still loaded and the caller can try again.
 */
static bool rmmod_in_tail(struct rm_log *l, pid_t kid, int wfd, double *t_wake,
			  double *t_try, double *t_rm, int *st)
{
	double end;
	bool in_tail = false;
	int err;

	*t_try = *t_rm = 0;
	*t_wake = now_s();
	if (write(wfd, "x", 1) != 1)
		diag("rmmod: write to the child's pipe: %s", strerror(errno));
	end = *t_wake + HANG_S;
	while (now_s() < end && !l->back) {
		if (mod_refcnt() == 0) {
			*t_try = now_s();
			if (l->back)
				break;
			in_tail = true;
			err = try_rmmod();
			if (!err)
				*t_rm = now_s();
			else
				diag("rmmod: delete_module: %s", strerror(err));
			break;
		}
		usleep(1000);
	}
	/* the child is back in user space by now, or hangs */
	end = now_s() + HANG_S;
	while (now_s() < end && !l->back)
		usleep(10000);
	l->stop = 1;
	if (!wait_bounded(kid, st)) {
		kill(kid, SIGKILL);
		waitpid(kid, st, 0);
	}
	close(wfd);
	diag("rmmod: child woken at 0, back in user space at %.3f s",
	     l->back ? l->back - *t_wake : -1.0);
	if (!in_tail)
		diag("rmmod:   no rmmod: the child was back before this process saw the refcount at 0");
	else
		diag("rmmod:   rmmod in the tail: began at %.3f s, %s at %.3f s",
		     *t_try - *t_wake, *t_rm ? "returned" : "failed",
		     (*t_rm ? *t_rm : now_s()) - *t_wake);
	return in_tail;
}

static void test_rmmod(void)
{
	struct rm_log *l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t_wake = 0, t_rm = 0, t_try = 0;
	int st = 0, wfd = -1, attempt, ref, err;
	bool held = false, in_tail = false;
	cpu_set_t cpus;
	pid_t kid = -1;

	/* the tail is mdelay(): calibrated TSC cycles, not wall time, in TCG */
	if (l == MAP_FAILED || write_param("selftest_task_work_tail_ms", "2000")) {
		result(0, "rmmod: the module's selftest_task_work_tail_ms hook");
		return;
	}
	ref = mod_refcnt();
	if (ref != 0) {
		/* someone else holds the module: the refcount cannot tell */
		result(0, "rmmod: the module is not in use before the test (refcount %d)", ref);
		write_param("selftest_task_work_tail_ms", "0");
		return;
	}
	/*
	 * The child on CPU 1, this process on CPU 0: a busy-waiting work is
	 * not preempted (voluntary preemption), and its CPU would hold this
	 * process back until the tail is over.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (attempt = 1; attempt <= RMMOD_ATTEMPTS && !in_tail; attempt++) {
		if (!rmmod_window(l, &kid, &wfd, attempt))
			continue;
		held = true;
		in_tail = rmmod_in_tail(l, kid, wfd, &t_wake, &t_try, &t_rm, &st);
	}
	if (!in_tail) {
		/* the test leaves the module unloaded */
		err = try_rmmod();
		t_rm = err ? 0 : now_s();
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	CPU_SET(1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	if (!held) {
		/* no window to test: cannot judge; not a pass */
		skip("no deferred unwind was pending after close() in 4 attempts (the child's poll() was never sampled in the kernel): the window was not there",
		     "rmmod: a task_work queued before close() holds the module (the window is there)");
	} else {
		result(1, "rmmod: a task_work queued before close() holds the module (the window is there)");
	}
	if (!in_tail) {
		skip(held ? "in 4 attempts the child was back in user space before this process saw the module's refcount at 0: it got no CPU during the work's tail" :
			    "the window was not there",
		     "rmmod: not while a task_work that dropped its reference is still in module code");
	} else {
		diag("rmmod: in the tail at attempt %d", attempt - 1);
		/* began in the tail: it must wait for the child's return */
		result(t_rm > 0 && l->back && t_rm > l->back,
		       "rmmod: not while a task_work that dropped its reference is still in module code%s",
		       t_rm > 0 && l->back && t_rm <= l->back ? " (removed before the child was back in user space)" : "");
		result(WIFEXITED(st) && !WEXITSTATUS(st),
		       "rmmod: the sampled child survives and exits normally (status %#x)", st);
	}
	result(t_rm > 0, "rmmod: the module can be removed after its works are done");
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
