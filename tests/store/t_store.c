// SPDX-License-Identifier: GPL-2.0
/*
 * t_store: VM tests of the per-task store, counting and inheritance.
 *
 * Uses only <linux/pmuctx.h> and raw ioctls, so it tests the kernel side
 * independently of libpmuctx.  Prints "ok - ..." / "not ok - ..." lines
 * (the VM suite numbers them) and exits non-zero if any check failed.
 *
 *   t_store [TEST...]	run the named tests (default: all root tests)
 *   t_store unpriv	run as an unprivileged user, paranoid <= 2
 *   t_store paranoid3	run as an unprivileged user, paranoid == 3
 *   t_store setuid PATH	run as an unprivileged user; PATH is setuid root
 *   t_store sesscap	run as an unprivileged user, max_sessions_per_user 5
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

#include "tap.h"

static uint64_t rusage_children_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/*
 * What task @pid ran and its context switches so far (/proc/PID/schedstat,
 * /proc/PID/status): a gated child's start-up up to its gate, which its
 * parent's rusage will hold and a session made after it does not count.
 */
static void task_so_far(pid_t pid, uint64_t *ns, uint64_t *cs)
{
	char path[64], line[256];
	unsigned long long v;
	FILE *f;

	*ns = *cs = 0;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu", &v) == 1)
			*ns = v;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1)
			*cs += v;
	fclose(f);
}

/*
 * a within frac of the interval [min(r1, r2), max(r1, r2)]: for per-thread
 * checks against two references that can each be off under TCG (see
 * struct mig).
 */
static int within_refs(uint64_t a, uint64_t r1, uint64_t r2, double frac)
{
	double lo = r1 < r2 ? r1 : r2, hi = r1 < r2 ? r2 : r1;

	return a >= lo * (1 - frac) && a <= hi * (1 + frac);
}

static int within(uint64_t a, uint64_t b, double frac)
{
	double d = (double)a - (double)b;

	if (d < 0)
		d = -d;
	return d <= frac * (double)(a > b ? a : b);
}

static int dev_open(void)
{
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror(PMUCTX_DEVICE_PATH);
		exit(2);
	}
	return fd;
}

static int get_info(struct pmuctx_info *info)
{
	int fd = dev_open(), ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ret = ioctl(fd, PMUCTX_IOC_INFO, info);
	close(fd);
	return ret;
}

/* Create a session; returns the fd or -errno. */
static int session(unsigned int target, pid_t pid, unsigned int flags,
		   const unsigned int *ev, unsigned int nev,
		   unsigned int backend, unsigned int data_size)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .flags = flags, .target = target,
		.pid = pid, .cgroup_fd = -1, .nr_events = nev,
		.backend = backend, .data_size = data_size,
	};
	int fd = dev_open(), err;

	memcpy(a.events, ev, nev * sizeof(*ev));
	if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (ioctl(fd, PMUCTX_IOC_ENABLE, 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

#define MAXT 4096
static struct pmuctx_task_values tv[MAXT];

static int sread(int fd, struct pmuctx_read *r, int per_task)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	if (per_task) {
		r->flags = PMUCTX_READ_PER_TASK;
		r->nr_tasks = MAXT;
		r->task_size = sizeof(tv[0]);
		r->tasks_ptr = (uintptr_t)tv;
	}
	return ioctl(fd, PMUCTX_IOC_READ, r) ? -errno : 0;
}

static void check_store_empty(const char *after)
{
	struct pmuctx_info i;
	int tries;

	/*
	 * Entries are freed by RCU callbacks; close() waits for those of
	 * its session (rcu_barrier(): a synchronize_rcu() that returns does
	 * not mean they ran, rcutree.rcu_normal_wake_from_gp).  A
	 * task's last entries go with its free (RCU, the free work), which a
	 * busy host can hold back by seconds: up to 15 s, ended as soon as
	 * the store is empty (a leak still fails, issue 32 item 6).  The
	 * probes go a second after the last close (issue 29 item 8).
	 */
	for (tries = 0; tries < 750; tries++) {
		if (get_info(&i) == 0 && !i.tasks_tracked && !i.store_bytes &&
		    !i.sessions && !i.probes_registered)
			break;
		usleep(20000);
	}
	result(!i.tasks_tracked && !i.store_bytes && !i.sessions &&
	       !i.probes_registered,
	       "store empty after %s (entries %llu, bytes %llu, sessions %u, probes %#x)",
	       after, (unsigned long long)i.tasks_tracked,
	       (unsigned long long)i.store_bytes, i.sessions,
	       i.probes_registered);
}

static int wait_all(void)
{
	int st, bad = 0;

	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	return bad;
}

static const unsigned int ev3[] = {
	PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CONTEXT_SWITCHES,
	PMUCTX_EV_CPU_MIGRATIONS,
};

/* ---- fork tree: parent + 8 children + 8 grandchildren ------------------ */

static void tree_fn(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 8; i++) {
		if (!fork()) {
			if (!fork()) {
				burn_ms(25);
				_exit(0);
			}
			burn_ms(25);
			wait(NULL);
			_exit(0);
		}
	}
	burn_ms(25);
	while (wait(NULL) > 0)
		;
}

/*
 * A gated child running @fn(@arg) and an inheriting session on it
 * (@flags too, the three events of ev3), checked as "@desc (fd)"; the gate
 * opens once the session is there.  Returns the session fd, or < 0 with
 * the child still held at its gate.
 */
static int gated_session(struct gated *g, void (*fn)(void *), void *arg,
			 unsigned int flags, const char *desc)
{
	int fd;

	*g = gated_child(fn, arg);
	fd = session(PMUCTX_TARGET_PID, g->pid,
		     PMUCTX_SESSION_INHERIT | flags, ev3, 3, 0, 0);
	result(fd >= 0, "%s (%d)", desc, fd);
	if (fd >= 0)
		gate_open(g);
	return fd;
}

static void test_forktree(void)
{
	struct pmuctx_read r;
	struct gated g;
	uint64_t ru0, ru;
	int fd, bad;

	ru0 = rusage_children_ns();
	fd = gated_session(&g, tree_fn, NULL, PMUCTX_SESSION_KEEP_EXITED,
			   "forktree: session on a gated child");
	if (fd < 0)
		return;
	bad = wait_all();
	ru = rusage_children_ns() - ru0;
	result(sread(fd, &r, 1) == 0, "forktree: read per-task");
	diag("task-clock %llu ns, rusage %llu ns, cs %llu, seen %llu, exited %llu",
	     (unsigned long long)r.values[0], (unsigned long long)ru,
	     (unsigned long long)r.values[1],
	     (unsigned long long)r.tasks_seen,
	     (unsigned long long)r.tasks_exited);
	result(!bad, "forktree: workload exited cleanly");
	result(within(r.values[0], ru, 0.10),
	       "forktree: task-clock within 10%% of rusage");
	result(r.tasks_seen == 17 && r.tasks_exited == 17 && !r.tasks_dropped,
	       "forktree: 17 tasks seen and exited, none dropped");
	result(r.nr_tasks == 17, "forktree: 17 exited tasks listed (%u)",
	       r.nr_tasks);
	{
		uint64_t sum = 0, children = 0, own = 0;
		unsigned int i, inherited = 0, root = 0;

		for (i = 0; i < r.nr_tasks; i++) {
			sum += tv[i].values[0];
			if (tv[i].flags & PMUCTX_TASK_INHERITED)
				inherited++;
			if (tv[i].tid == g.pid) {
				root++;
				own = tv[i].values[0];
				children = tv[i].children[0];
			}
		}
		result(sum == r.values[0],
		       "forktree: per-task task-clock adds up to the total");
		result(inherited == 16 && root == 1,
		       "forktree: 16 inherited tasks under one root");
		result(own + children == r.values[0],
		       "forktree: root's own + children totals equal the tree's (%llu + %llu)",
		       (unsigned long long)own, (unsigned long long)children);
	}
	close(fd);
	check_store_empty("forktree");
}

/* ---- parent exits before its children ------------------------------------ */

static void orphan_fn(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 4; i++) {
		if (!fork()) {
			usleep(50000);
			burn_ms(40);
			_exit(0);
		}
	}
	/* exit at once: the children outlive their parent */
}

static void test_parent_first(void)
{
	struct pmuctx_read r;
	struct gated g;
	uint64_t ru0, ru;
	int fd;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	ru0 = rusage_children_ns();
	fd = gated_session(&g, orphan_fn, NULL, 0, "parent-first: session");
	if (fd < 0)
		return;
	wait_all();
	ru = rusage_children_ns() - ru0;
	result(sread(fd, &r, 0) == 0, "parent-first: read");
	result(r.tasks_seen == 5 && r.tasks_exited == 5,
	       "parent-first: 5 seen, 5 exited (%llu, %llu)",
	       (unsigned long long)r.tasks_seen,
	       (unsigned long long)r.tasks_exited);
	result(within(r.values[0], ru, 0.10),
	       "parent-first: task-clock %llu within 10%% of rusage %llu",
	       (unsigned long long)r.values[0], (unsigned long long)ru);
	close(fd);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	check_store_empty("parent-first");
}

/* ---- session closed while the children still run ------------------------ */

static void longrun_fn(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 4; i++) {
		if (!fork()) {
			burn_ms(300);
			_exit(0);
		}
	}
	burn_ms(300);
	while (wait(NULL) > 0)
		;
}

static void test_close_early(void)
{
	struct pmuctx_info i;
	struct gated g;
	int fd;

	fd = gated_session(&g, longrun_fn, NULL, PMUCTX_SESSION_KEEP_EXITED,
			   "close-early: session");
	if (fd < 0)
		return;
	/* The children fork at once; give slow (debug) kernels time. */
	for (int tries = 0; tries < 100; tries++) {
		get_info(&i);
		if (i.tasks_tracked >= 5)
			break;
		usleep(20000);
	}
	result(i.tasks_tracked == 5, "close-early: 5 tasks tracked while running (%llu)",
	       (unsigned long long)i.tasks_tracked);
	close(fd);
	get_info(&i);
	result(!i.tasks_tracked && !i.store_bytes,
	       "close-early: store empty right after close, children running");
	result(wait_all() == 0, "close-early: children finished normally");
	check_store_empty("close-early");
}

/* ---- 1000 short-lived threads ------------------------------------------- */

static void *noop_thread(void *arg)
{
	return arg;
}

/* @n short threads, one after the other (a gated child's body). */
static void run_threads(int n)
{
	pthread_t t;
	int i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, noop_thread, NULL))
			_exit(4);
		pthread_join(t, NULL);
	}
}

static void threads_fn(void *arg)
{
	(void)arg;
	run_threads(1000);
}

static void test_threads(void)
{
	struct pmuctx_read r;
	struct gated g;
	int fd;

	fd = gated_session(&g, threads_fn, NULL, 0, "threads: session");
	if (fd < 0)
		return;
	result(wait_all() == 0, "threads: 1000 threads created and joined");
	result(sread(fd, &r, 0) == 0, "threads: read");
	result(r.tasks_seen == 1001 && r.tasks_exited == 1001 &&
	       !r.tasks_dropped,
	       "threads: 1001 tasks seen and exited, none dropped (%llu/%llu/%llu)",
	       (unsigned long long)r.tasks_seen,
	       (unsigned long long)r.tasks_exited,
	       (unsigned long long)r.tasks_dropped);
	close(fd);
	check_store_empty("threads");
}

/* ---- two sessions on one workload ---------------------------------------- */

static void test_two_sessions(void)
{
	struct pmuctx_read r1, r2;
	uint64_t ru0, ru = 0;
	struct gated g;
	int a, b, attempt, ok = 0;

	/*
	 * Under host load TCG inflates the workload's rusage (IRQ time,
	 * migrations): a miss against it gets one more run, logged.  The two
	 * sessions must agree with each other every time.
	 */
	for (attempt = 1; attempt <= 2 && !ok; attempt++) {
		ru0 = rusage_children_ns();
		g = gated_child(tree_fn, NULL);
		a = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT,
			    ev3, 3, 0, 0);
		b = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT,
			    ev3, 1, 0, 0);
		result(a >= 0 && b >= 0, "two-sessions: both created (%d, %d)",
		       a, b);
		if (a < 0 || b < 0)
			return;
		gate_open(&g);
		wait_all();
		ru = rusage_children_ns() - ru0;
		result(sread(a, &r1, 0) == 0 && sread(b, &r2, 0) == 0,
		       "two-sessions: both read");
		result(r1.nr_events == 3 && r2.nr_events == 1,
		       "two-sessions: each has its own events");
		result(within(r1.values[0], r2.values[0], 0.02),
		       "two-sessions: they agree with each other (%llu, %llu)",
		       (unsigned long long)r1.values[0],
		       (unsigned long long)r2.values[0]);
		ok = within(r1.values[0], ru, 0.10) &&
		     within(r2.values[0], ru, 0.10);
		if (!ok)
			diag("two-sessions: attempt %d: task-clock %llu vs rusage %llu",
			     attempt, (unsigned long long)r1.values[0],
			     (unsigned long long)ru);
		close(a);
		close(b);
	}
	result(ok, "two-sessions: both task-clocks within 10%% of rusage (%llu, %llu, %llu)",
	       (unsigned long long)r1.values[0],
	       (unsigned long long)r2.values[0], (unsigned long long)ru);
	check_store_empty("two-sessions");
}

/* ---- migrations, per-task system-wide, selftest save area --------------- */

/*
 * References for per-thread task-clock under QEMU TCG, each wrong in its
 * own way: the thread's rusage excludes IRQ time (rq_clock_task) and grows
 * at every migration (perf's task-clock differs from it exactly as
 * pmuctx's does), and the wall time it spends busy-waiting on
 * CLOCK_MONOTONIC while alone on its CPU overstates CPU time when the host
 * deschedules the vCPU.  task-clock must lie within 10 % of the interval
 * the two span.  Both are taken while the thread is parked after its
 * loop (asleep in read(2), so its run time stands still), not after it
 * exited: its exit is in task-clock and in neither reference, and under
 * TCG it took 6 to 67 ms (60-store failed on cloud twice at 349 and 360
 * ms of 309 and 293).  Parked, the thread's scheduler run time
 * (/proc/self/task/TID/schedstat) is what pmuctx must report exactly:
 * the entry is hashed at the fork, before the thread first runs, and
 * every slice ends in a switch-out that brings the sum up to date.
 */
struct mig {
	volatile int stop;
	uint64_t cpu_ns;
	uint64_t busy_ns;
	pid_t tid;
	long flips;
	int mode;	/* 0: pinned, 1: migrate every 10 ms, 2: flip fast */
	int park[2];	/* modes 0, 1: a pipe the thread sleeps on when done */
	int done;	/* set before it parks */
};

static void set_cpu(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void set_cpu_any(void)
{
	cpu_set_t s;
	int i;

	CPU_ZERO(&s);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *mig_thread(void *arg)
{
	struct mig *m = arg;
	uint64_t end;
	int cpu = 0, i;

	m->tid = syscall(SYS_gettid);
	switch (m->mode) {
	case 0:
		set_cpu(0);
		m->busy_ns = ns_of(CLOCK_MONOTONIC);
		end = m->busy_ns + 300000000ULL;
		while (ns_of(CLOCK_MONOTONIC) < end)
			;
		m->busy_ns = ns_of(CLOCK_MONOTONIC) - m->busy_ns;
		break;
	case 1:
		for (i = 0; i < 30; i++) {
			uint64_t t0;

			cpu ^= 1;
			set_cpu(cpu);
			m->flips++;
			t0 = ns_of(CLOCK_MONOTONIC);
			end = t0 + 10000000ULL;
			while (ns_of(CLOCK_MONOTONIC) < end)
				;
			m->busy_ns += ns_of(CLOCK_MONOTONIC) - t0;
		}
		break;
	default:
		while (!m->stop) {
			cpu ^= 1;
			set_cpu(cpu);
			m->flips++;
		}
		break;
	}
	m->cpu_ns = ns_of(CLOCK_THREAD_CPUTIME_ID);
	if (m->mode != 2) {
		char c;

		/* parked until test_migrate() has read it */
		__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
		while (read(m->park[0], &c, 1) < 0 && errno == EINTR)
			;
	}
	return NULL;
}

/*
 * Wait until thread @tid sleeps (state S in /proc) and return its
 * scheduler run time (schedstat's first field), 0 on a timeout.
 */
static uint64_t parked_runtime(pid_t tid)
{
	char path[64], buf[512], *p;
	unsigned long long rt = 0;
	int tries;
	FILE *f;

	for (tries = 0; tries < 1000; tries++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		f = fopen(path, "r");
		if (!f)
			return 0;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			break;
		usleep(10000);
	}
	if (tries == 1000)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &rt) != 1)
		rt = 0;
	fclose(f);
	return rt;
}

/*
 * Run @m's thread to its parking, then READ the system-wide session @fd:
 * @m's entry, its scheduler run time in *@rt (read before and after the
 * READ: equal, or the thread was not asleep throughout, *@rt 0).
 * Returns the entry's index in tv[], or -1.
 */
static int mig_parked(int fd, struct mig *m, pthread_t *th, uint64_t *rt)
{
	struct pmuctx_read r;
	uint64_t rt2;
	unsigned int k;
	int idx = -1;

	*rt = 0;
	if (pipe(m->park))
		return -1;
	pthread_create(th, NULL, mig_thread, m);
	/* not asleep in a migration: done, then asleep on the pipe */
	while (!__atomic_load_n(&m->done, __ATOMIC_ACQUIRE))
		usleep(1000);
	*rt = parked_runtime(m->tid);
	if (*rt && sread(fd, &r, 1) == 0) {
		for (k = 0; k < r.nr_tasks; k++)
			if (tv[k].tid == m->tid)
				idx = idx == -1 ? (int)k : -2;	/* twice */
	}
	rt2 = parked_runtime(m->tid);
	if (rt2 != *rt)
		*rt = 0;
	return idx;
}

static void mig_release(struct mig *m, pthread_t th)
{
	if (write(m->park[1], "x", 1) != 1)
		pthread_cancel(th);
	pthread_join(th, NULL);
	close(m->park[0]);
	close(m->park[1]);
}

/*
 * @m's thread (pinned or migrating) read parked in the system-wide
 * session @fd: its task-clock against its run time and the references,
 * its migrations.  Returns 1 if its entry was found once, read parked.
 */
static int mig_check(int fd, struct mig *m, const char *name)
{
	pthread_t th;
	uint64_t rt;
	__u64 *v;
	int idx = mig_parked(fd, m, &th, &rt);

	if (idx >= 0 && rt) {
		v = tv[idx].values;
		diag("%s: task-clock %llu, run time %llu, busy %llu, rusage %llu",
		     name, (unsigned long long)v[0], (unsigned long long)rt,
		     (unsigned long long)m->busy_ns,
		     (unsigned long long)m->cpu_ns);
		result(within_refs(v[0], m->busy_ns, m->cpu_ns, 0.10),
		       "migrate: %s task-clock within 10%% of its on-CPU time",
		       name);
		result(v[0] == rt,
		       "migrate: %s task-clock is the parked thread's scheduler run time",
		       name);
		if (m->mode == 0)
			result(v[1] <= 2, "migrate: pinned task barely migrated (%llu)",
			       (unsigned long long)v[1]);
		else
			result(v[1] >= (uint64_t)m->flips - 1,
			       "migrate: migrations %llu for %ld affinity flips",
			       (unsigned long long)v[1], m->flips);
	}
	mig_release(m, th);
	return idx >= 0 && rt;
}

static void test_migrate(void)
{
	static const unsigned int ev[] = {
		PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CPU_MIGRATIONS,
	};
	struct mig pin = { .mode = 0 }, mov = { .mode = 1 }, fast = { .mode = 2 };
	struct pmuctx_info i0, i1;
	struct pmuctx_read r;
	pthread_t b;
	unsigned int k;
	int fd, found;
	FILE *f;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		result(0, "migrate: needs 2 CPUs");
		return;
	}
	get_info(&i0);
	fd = session(PMUCTX_TARGET_SYSTEM, 0, PMUCTX_SESSION_KEEP_EXITED, ev, 2,
		     PMUCTX_BACKEND_SELFTEST, 788);
	result(fd >= 0, "migrate: system-wide session, selftest 788 B (%d)",
	       fd);
	if (fd < 0)
		return;

	/*
	 * Per-task attribution: pinned, then migrating every 10 ms, each
	 * read while the thread is parked (see struct mig).
	 */
	found = mig_check(fd, &pin, "pinned") + mig_check(fd, &mov, "migrating");
	k = sread(fd, &r, 1);
	result(k == 0, "migrate: per-task read after both exited (%u tasks)",
	       r.nr_tasks);
	for (k = 0; k < r.nr_tasks; k++)
		if (tv[k].tid == pin.tid || tv[k].tid == mov.tid ||
		    tv[k].pid == getpid())
			diag("entry tid %d pid %d flags %#x tc %llu mig %llu",
			     tv[k].tid, tv[k].pid, tv[k].flags,
			     (unsigned long long)tv[k].values[0],
			     (unsigned long long)tv[k].values[1]);
	result(found == 2, "migrate: both threads parked, read, listed once each (%d)",
	       found);

	/* The save area follows the task: >= 10000 cross-CPU checks. */
	pthread_create(&b, NULL, mig_thread, &fast);
	for (;;) {
		get_info(&i1);
		if (i1.selftest_migrations - i0.selftest_migrations >= 10000 ||
		    fast.flips > 200000)
			break;
		usleep(50000);
	}
	fast.stop = 1;
	pthread_join(b, NULL);
	get_info(&i1);
	diag("selftest: %llu checks, %llu migrations, %llu mismatches; %ld flips",
	     (unsigned long long)(i1.selftest_checks - i0.selftest_checks),
	     (unsigned long long)(i1.selftest_migrations -
				  i0.selftest_migrations),
	     (unsigned long long)(i1.selftest_mismatches -
				  i0.selftest_mismatches), fast.flips);
	result(i1.selftest_migrations - i0.selftest_migrations >= 10000,
	       "migrate: >= 10000 save areas verified on another CPU");
	result(i1.selftest_mismatches == i0.selftest_mismatches,
	       "migrate: zero save-area mismatches");

	/* Prove the detector: corrupt one save area of a known task. */
	fast.stop = 0;
	fast.flips = 0;
	fast.tid = 0;
	pthread_create(&b, NULL, mig_thread, &fast);
	while (!fast.tid || !fast.flips)
		usleep(1000);
	f = fopen("/sys/module/pmuctx/parameters/selftest_inject_pid", "w");
	if (f) {
		fprintf(f, "%d\n", fast.tid);
		fclose(f);
	}
	f = fopen("/sys/module/pmuctx/parameters/selftest_inject", "w");
	if (f) {
		fprintf(f, "1\n");
		fclose(f);
	}
	for (k = 0; k < 100; k++) {
		get_info(&i0);
		if (i0.selftest_mismatches > i1.selftest_mismatches)
			break;
		usleep(20000);
	}
	fast.stop = 1;
	pthread_join(b, NULL);
	result(i0.selftest_mismatches == i1.selftest_mismatches + 1,
	       "migrate: an injected corruption is detected exactly once");
	f = fopen("/sys/module/pmuctx/parameters/selftest_inject_pid", "w");
	if (f) {
		fprintf(f, "0\n");
		fclose(f);
	}
	close(fd);
	check_store_empty("migrate");
}

/* ---- switchless counting: no sched_switch probe, the same totals -------- */

static const unsigned int ev4[] = {
	PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CONTEXT_SWITCHES,
	PMUCTX_EV_CPU_MIGRATIONS, PMUCTX_EV_PAGE_FAULTS,
};

static unsigned int probes_now(void)
{
	struct pmuctx_info i;

	return get_info(&i) ? ~0U : i.probes_registered;
}

/* Every source moves: page faults, sleeps, CPU changes, forks, an exec. */
static void mixed_fn(void *arg)
{
	size_t len = 2 << 20, off;
	int i, j;

	(void)arg;
	for (i = 0; i < 4; i++) {
		char *p;

		if (fork())
			continue;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (off = 0; p != MAP_FAILED && off < len; off += 4096)
			p[off] = 1;
		for (j = 0; j < 20; j++) {
			set_cpu(j & 1);
			usleep(500);
			burn_ms(1);
		}
		if (i == 0)
			execl("/bin/true", "true", (char *)NULL);
		_exit(0);
	}
	burn_ms(30);
	while (wait(NULL) > 0)
		;
}

static void burn400_fn(void *arg)
{
	(void)arg;
	burn_ms(400);
}

static int near(uint64_t a, uint64_t b, double frac, uint64_t slack)
{
	uint64_t d = a > b ? a - b : b - a;

	return d <= slack || within(a, b, frac);
}

/*
 * Two sessions on one workload, the default events, one switchless and
 * one PMUCTX_SESSION_PER_SWITCH: the switch probe is registered only for
 * the second, and the two agree (tasksrc.c describes each source's
 * rounding) and match the workload's rusage.
 */
static int switchless_pair(int attempt, int last)
{
	struct pmuctx_read a, b;
	uint64_t ru_t0, ru_t, ru_cs, ru_pf, pre_t, pre_cs;
	struct rusage ru0, ru1;
	struct gated g;
	int fa, fb, tries = 0, ru_ok = 1;
	unsigned int p;

	/* an earlier session's sched_switch probe goes a second after it */
	for (p = probes_now(); p && p != ~0U && tries++ < 300; p = probes_now())
		usleep(10000);
	result(!p, "switchless: no probes are left from earlier sessions after %d ms (%#x)",
	       tries * 10, p);
	getrusage(RUSAGE_CHILDREN, &ru0);
	ru_t0 = rusage_children_ns();
	g = gated_child(mixed_fn, NULL);
	/* the child's start-up, before the sessions: in the rusage only */
	task_so_far(g.pid, &pre_t, &pre_cs);
	fa = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT, ev4, 4,
		     0, 0);
	p = probes_now();
	result(fa >= 0 && p == PMUCTX_PROBES_LIFECYCLE,
	       "switchless: a session of the default events hooks no sched_switch (session %d, probes %#x)",
	       fa, p);
	fb = session(PMUCTX_TARGET_PID, g.pid,
		     PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_PER_SWITCH, ev4,
		     4, 0, 0);
	p = probes_now();
	result(fb >= 0 && p == (PMUCTX_PROBES_LIFECYCLE | PMUCTX_PROBES_SWITCH),
	       "switchless: a PER_SWITCH session hooks sched_switch (session %d, probes %#x)",
	       fb, p);
	gate_open(&g);
	result(!wait_all(), "switchless: workload exited cleanly");
	ru_t = rusage_children_ns() - ru_t0;
	getrusage(RUSAGE_CHILDREN, &ru1);
	ru_cs = (uint64_t)(ru1.ru_nvcsw - ru0.ru_nvcsw) +
		(uint64_t)(ru1.ru_nivcsw - ru0.ru_nivcsw);
	diag("switchless: the child's start-up before the sessions: %llu ns, %llu context switches (taken from the rusage)",
	     (unsigned long long)pre_t, (unsigned long long)pre_cs);
	ru_t -= pre_t < ru_t ? pre_t : ru_t;
	ru_cs -= pre_cs < ru_cs ? pre_cs : ru_cs;
	ru_pf = (uint64_t)(ru1.ru_minflt - ru0.ru_minflt) +
		(uint64_t)(ru1.ru_majflt - ru0.ru_majflt);
	if (fa < 0 || fb < 0 || sread(fa, &a, 0) || sread(fb, &b, 0)) {
		result(0, "switchless: both sessions read");
		goto out;
	}
	diag("switchless: task-clock %llu / %llu (rusage %llu), cs %llu / %llu (rusage %llu), migrations %llu / %llu, faults %llu / %llu (rusage %llu)",
	     (unsigned long long)a.values[0], (unsigned long long)b.values[0],
	     (unsigned long long)ru_t,
	     (unsigned long long)a.values[1], (unsigned long long)b.values[1],
	     (unsigned long long)ru_cs,
	     (unsigned long long)a.values[2], (unsigned long long)b.values[2],
	     (unsigned long long)a.values[3], (unsigned long long)b.values[3],
	     (unsigned long long)ru_pf);
	result(a.tasks_seen == 5 && b.tasks_seen == 5 && a.tasks_exited == 5 &&
	       !a.tasks_dropped && !b.tasks_dropped,
	       "switchless: 5 tasks seen and exited in each, none dropped");
	result(within(a.values[0], b.values[0], 0.01),
	       "switchless: task-clock agrees with the per-switch count within 1%%");
	result(near(a.values[1], b.values[1], 0.005, 2),
	       "switchless: context-switches agree (within 0.5%% or 2)");
	result(near(a.values[2], b.values[2], 0.25, 4),
	       "switchless: cpu-migrations agree (within 25%% or 4)");
	result(near(a.values[3], b.values[3], 0.03, 16),
	       "switchless: page-faults agree (within 3%% or 16)");
	/*
	 * context-switches may exceed the rusage by one per task: a parent
	 * can reap a child (wait_task_zombie() adds its nvcsw to the
	 * rusage) between the child's exit_notify() and its final switch
	 * in do_task_dead(), which the session still counts.  (More than
	 * one per task would be switches of some other task.)  Seen on the
	 * debug kernel: 302 against a rusage of 301.
	 */
	ru_ok = within(a.values[0], ru_t, 0.02) &&
		a.values[1] <= ru_cs + a.tasks_exited &&
		near(a.values[1], ru_cs, 0.02, 4) &&
		near(a.values[3], ru_pf, 0.03, 64);
	/*
	 * The rusage also has what each task ran after its exit hook (the
	 * rest of do_exit()), normally 0.3-0.6 ms in all.  A host stall of
	 * the vCPU there reaches the task's run time at the next tick (see
	 * cpu_run_ns()): the CI run of bf4f134 counted 177.9 ms against a
	 * rusage of 186.2 ms, the two sessions agreeing.  Only a task-clock
	 * below the rusage gets one more run, logged; a count above it, or
	 * any other miss, fails at once.
	 */
	if (!ru_ok && !last && a.values[0] < ru_t &&
	    a.values[1] <= ru_cs + a.tasks_exited &&
	    near(a.values[1], ru_cs, 0.02, 4) &&
	    near(a.values[3], ru_pf, 0.03, 64)) {
		diag("switchless: attempt %d: task-clock %.1f%% below the rusage, one more run",
		     attempt, 100.0 * (double)(ru_t - a.values[0]) / (double)ru_t);
		goto out;
	}
	result(ru_ok,
	       "switchless: task-clock, context-switches and page-faults match the rusage");
	ru_ok = 1;
	result(a.time_slices == a.values[0] &&
	       a.time_running[3] == a.time_slices,
	       "switchless: time_slices is the task-clock total, every event counted all of it");
out:
	if (fa >= 0)
		close(fa);
	p = probes_now();
	result(fb < 0 || (p & PMUCTX_PROBES_SWITCH),
	       "switchless: sched_switch stays hooked while the PER_SWITCH session is open (%#x)",
	       p);
	if (fb >= 0)
		close(fb);
	return ru_ok;
}

/* DISABLE stops a switchless session's counts, ENABLE resumes, RESET zeroes */
static void switchless_toggle(void)
{
	struct pmuctx_read r1, r2, r3;
	struct gated g;
	int fd, ok;

	g = gated_child(burn400_fn, NULL);
	fd = session(PMUCTX_TARGET_PID, g.pid, 0, ev4, 4, 0, 0);
	result(fd >= 0, "switchless: toggle session (%d)", fd);
	if (fd < 0) {
		gate_open(&g);
		wait_all();
		return;
	}
	gate_open(&g);
	usleep(100000);
	ok = !ioctl(fd, PMUCTX_IOC_DISABLE, 0) && !sread(fd, &r1, 0);
	usleep(100000);
	ok = ok && !sread(fd, &r2, 0);
	result(ok && r1.values[0] > 0 && r2.values[0] == r1.values[0] &&
	       r2.values[3] == r1.values[3],
	       "switchless: nothing counts while disabled (%llu, then %llu)",
	       (unsigned long long)r1.values[0],
	       (unsigned long long)r2.values[0]);
	ok = !ioctl(fd, PMUCTX_IOC_ENABLE, 0);
	wait_all();
	ok = ok && !sread(fd, &r3, 0);
	result(ok && r3.values[0] > r2.values[0],
	       "switchless: counting resumes after ENABLE (%llu)",
	       (unsigned long long)r3.values[0]);
	ok = !ioctl(fd, PMUCTX_IOC_RESET, 0) && !sread(fd, &r3, 0);
	result(ok && !r3.values[0] && !r3.values[1] && !r3.values[3],
	       "switchless: RESET zeroes the totals");
	close(fd);
}

static void test_switchless(void)
{
	struct pmuctx_info i;

	result(get_info(&i) == 0 && (i.features & PMUCTX_FEAT_SWITCHLESS),
	       "switchless: the module has the switchless feature");
	if (!switchless_pair(1, 0))
		switchless_pair(2, 1);
	switchless_toggle();
	check_store_empty("switchless");
}

/* ---- the per-CPU cache of a task with more entries than it holds ------- */

static void burn_cpu1_fn(void *arg)
{
	(void)arg;
	set_cpu(1);
	burn_ms(400);
}

/*
 * A task watched by more sessions than the per-CPU cache holds (8) runs
 * on cpu1 with its cache in overflow.  Closing one session forgets that
 * cache (an IPI); a READ of another, before the task switches out again,
 * must not leave the cache holding that session's entry alone: the next
 * switch-out would stop that slice only, and the other sessions would
 * lose theirs.  All sessions must count the same run time.
 */
static void test_cache_overflow(void)
{
	static const unsigned int ev[] = {
		PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CPU_CLOCK,
	};
	struct pmuctx_read r0, r;
	int fd[10], i, n = 0, bad = 0;
	struct gated g;

	set_cpu(0);
	g = gated_child(burn_cpu1_fn, NULL);
	for (i = 0; i < 10; i++) {
		fd[i] = session(PMUCTX_TARGET_PID, g.pid, 0, ev, 2, 0, 0);
		n += fd[i] >= 0;
	}
	result(n == 10, "cache-overflow: 10 sessions on one task (%d)", n);
	gate_open(&g);
	usleep(100000);		/* it runs on cpu1, its cache overflowed */
	if (fd[9] >= 0)
		close(fd[9]);
	if (fd[0] >= 0)
		sread(fd[0], &r0, 0);
	wait_all();
	if (fd[0] < 0 || sread(fd[0], &r0, 0)) {
		result(0, "cache-overflow: read");
		goto out;
	}
	for (i = 1; i < 9; i++) {
		if (fd[i] < 0 || sread(fd[i], &r, 0) ||
		    !within(r.values[0], r0.values[0], 0.02)) {
			diag("cache-overflow: session %d: task-clock %llu, session 0: %llu",
			     i, fd[i] < 0 ? 0ULL : (unsigned long long)r.values[0],
			     (unsigned long long)r0.values[0]);
			bad++;
		}
	}
	result(!bad && r0.values[0] > 200000000ULL,
	       "cache-overflow: every session counts the task's run time (%llu ns; %d differ)",
	       (unsigned long long)r0.values[0], bad);
out:
	for (i = 0; i < 9; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	set_cpu_any();
	check_store_empty("cache-overflow");
}

/* ---- a chain of generations: dead entries are not pinned ---------------- */

#define CHAIN_GEN	1000

static int chain_up[2], chain_go[2];

/*
 * The gated child reaps (a subreaper); below it every generation forks
 * the next and exits at once; the last one reports and waits.
 */
static void chain_fn(void *arg)
{
	char c = 0;
	int i;

	(void)arg;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!fork()) {
		for (i = 0; i < CHAIN_GEN; i++)
			if (fork() > 0)
				_exit(0);
		if (write(chain_up[1], &c, 1) != 1 ||
		    read(chain_go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
}

/*
 * Every generation is freed before the last one exits; its entry must be
 * too (the fold compresses the parent links), or the live last
 * generation pins every dead one through its parent link: 1000 entries
 * kept, and every later fold walked them.
 */
static void test_chain(void)
{
	struct pmuctx_info i;
	struct pmuctx_read r;
	unsigned long long kept = ~0ULL;
	struct gated g;
	int fd, tries;
	char c;

	if (pipe(chain_up) || pipe(chain_go)) {
		result(0, "chain: pipes");
		return;
	}
	fd = gated_session(&g, chain_fn, NULL, 0,
			   "chain: inheriting session on a reaper");
	if (fd < 0)
		return;
	result(read(chain_up[0], &c, 1) == 1,
	       "chain: %d generations forked and exited", CHAIN_GEN);
	/*
	 * a per-task READ waits for the frees of what was reaped; up to
	 * 20 s on a busy host (249 entries were left after 5 s with other
	 * VMs on the host's two cores)
	 */
	for (tries = 0; tries < 200; tries++) {
		sread(fd, &r, 1);
		if (!get_info(&i) && i.tasks_tracked < 16)
			break;
		usleep(100000);
	}
	kept = get_info(&i) ? kept : i.tasks_tracked;
	if (kept >= 16) {
		/* which ones: generations of the chain, or others? */
		diag("chain: %llu entries after the wait; the session's tasks:",
		     kept);
		for (tries = 0; tries < (int)r.nr_tasks && tries < 40; tries++)
			diag("chain:   pid %d tid %d ppid %d flags 0x%x",
			     tv[tries].pid, tv[tries].tid, tv[tries].ppid,
			     tv[tries].flags);
	}
	/*
	 * Pinned, the chain kept all CHAIN_GEN entries.  What is left
	 * otherwise is frees still in flight: 4 to 13 in quiet CI runs, 17
	 * on 6.12-rt with the host's two cores busy besides the VM (the RCU
	 * callbacks and the free work are threads there): judged against
	 * a tenth of the chain.
	 */
	result(kept < CHAIN_GEN / 10,
	       "chain: the dead generations' entries are freed while the last one lives (%llu entries, fewer than %d)",
	       kept, CHAIN_GEN / 10);
	result(r.tasks_seen == CHAIN_GEN + 2 && !r.tasks_dropped,
	       "chain: %d tasks seen, none dropped (%llu, %llu)",
	       CHAIN_GEN + 2, (unsigned long long)r.tasks_seen,
	       (unsigned long long)r.tasks_dropped);
	if (write(chain_go[1], &c, 1) != 1)
		result(0, "chain: release the last generation");
	wait_all();
	close(fd);
	close(chain_up[0]);
	close(chain_up[1]);
	close(chain_go[0]);
	close(chain_go[1]);
	check_store_empty("chain");
}

/* ---- max_tasks cap: tasks beyond it are counted as dropped --------------- */

static int write_param(const char *name, const char *val)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/module/pmuctx/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * The cap's workload: 8 children forked back to back by a SCHED_FIFO
 * parent pinned to one CPU, so nothing else runs on that CPU until the
 * last fork is done: not the children (same priority, queued behind it),
 * and not the rhashtable's grow worker, which an insert past 75 % queues
 * on the local CPU's system workqueue.  On PREEMPT_RT the store refuses
 * an insert into a table more than 7/8 full (pmuctx_store_room()), so a
 * table sized below max_tasks drops tasks under the cap unless the worker
 * happened to grow it in time: a 4-bucket table for max_tasks 5 tracked
 * 4 (CI of 0afeef5, by chance; here every time).
 */
static void cap_fn(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	int i, go[2];
	cpu_set_t s;
	char c = 0;

	(void)arg;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	if (pipe(go) || sched_setaffinity(0, sizeof(s), &s) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	for (i = 0; i < 8; i++) {
		if (!fork()) {
			close(go[1]);
			_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
		}
	}
	close(go[1]);
	while (wait(NULL) > 0)
		;
}

static void test_cap(void)
{
	struct pmuctx_info i0, i1;
	struct pmuctx_read r;
	struct gated g;
	int fd, bad;

	get_info(&i0);
	result(write_param("max_tasks", "5") == 0, "cap: max_tasks set to 5");
	fd = gated_session(&g, cap_fn, NULL, PMUCTX_SESSION_KEEP_EXITED,
			   "cap: session");
	if (fd < 0)
		goto out;
	bad = wait_all();
	result(!bad, "cap: the workload is unaffected");
	result(sread(fd, &r, 0) == 0, "cap: read");
	get_info(&i1);
	diag("seen %llu dropped %llu (global dropped +%llu)",
	     (unsigned long long)r.tasks_seen,
	     (unsigned long long)r.tasks_dropped,
	     (unsigned long long)(i1.dropped - i0.dropped));
	result(r.tasks_seen == 5, "cap: exactly 5 tasks tracked (KEEP_EXITED keeps them)");
	result(r.tasks_dropped >= 1 && i1.dropped - i0.dropped == r.tasks_dropped,
	       "cap: the tasks beyond the cap are counted as dropped, in the session and globally");
	close(fd);
out:
	write_param("max_tasks", "65536");
	/*
	 * At once, max_tasks raised again: the same burst, all 9 tracked.
	 * The store's table may outlive its last session by a second (the
	 * deferred unhook); on PREEMPT_RT one made for max_tasks 5 has 8
	 * buckets, and pmuctx_store_room() refuses past 7/8 of it.  So no
	 * check_store_empty() in between: it waits for the probes to go.
	 */
	fd = gated_session(&g, cap_fn, NULL, PMUCTX_SESSION_KEEP_EXITED,
			   "cap-raised: session");
	if (fd < 0) {
		check_store_empty("cap");
		return;
	}
	bad = wait_all();
	result(!bad, "cap-raised: the workload is unaffected");
	result(sread(fd, &r, 0) == 0, "cap-raised: read");
	result(r.tasks_seen == 9 && !r.tasks_dropped,
	       "cap-raised: max_tasks raised, a session within a second of the last tracks all 9 tasks (seen %llu, dropped %llu)",
	       (unsigned long long)r.tasks_seen,
	       (unsigned long long)r.tasks_dropped);
	close(fd);
	check_store_empty("cap and cap-raised");
}

/*
 * Counting across CPU hotplug (lifetimes item 5): a session counts page
 * faults of a child; cpu1 goes offline and comes back; then the child,
 * pinned to cpu1, faults in 2000 fresh pages.  perf takes the per-CPU
 * counters off a CPU that goes offline (list_del_event(): state OFF) and
 * never puts them back, so before the fix every fault on cpu1 after the
 * cycle was lost: the count stayed frozen.  One cycle only (cycling cpu1
 * under load can hang QEMU TCG, docs/TESTING.md): each step is announced,
 * and the case's timeout bounds a hang.
 */
#define HOT_PAGES 2000

/* faults of the child on cpu1, from its own rusage (shared page) */
static long *hot_faults;

static void hot_fault_fn(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct rusage r0, r1;
	char *p;
	int i;

	(void)arg;
	set_cpu(1);
	p = mmap(NULL, HOT_PAGES * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	madvise(p, HOT_PAGES * pg, MADV_NOHUGEPAGE);
	getrusage(RUSAGE_SELF, &r0);
	for (i = 0; i < HOT_PAGES; i++)
		p[(long)i * pg] = 1;
	getrusage(RUSAGE_SELF, &r1);
	*hot_faults = (r1.ru_minflt - r0.ru_minflt) +
		      (r1.ru_majflt - r0.ru_majflt);
	_exit(sched_getcpu() == 1 ? 0 : 3);
}

/*
 * The start of both hotplug tests: the shared fault count, a gated child
 * that will fault on cpu1, a task-clock + page-faults session on it,
 * PER_SWITCH: page-faults from the per-CPU perf counters these tests are
 * about (a switchless session reads the task's own count and has none).
 * The session fd, or -1 (reported; hot_faults unmapped).
 */
static int hot_session(const char *name, struct gated *g)
{
	static const unsigned int ev[] = {
		PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_PAGE_FAULTS,
	};
	int fd;

	hot_faults = mmap(NULL, sizeof(*hot_faults), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (hot_faults == MAP_FAILED) {
		result(0, "%s: mmap: %s", name, strerror(errno));
		return -1;
	}
	*g = gated_child(hot_fault_fn, NULL);
	fd = session(PMUCTX_TARGET_PID, g->pid, PMUCTX_SESSION_PER_SWITCH, ev,
		     2, 0, 0);
	result(fd >= 0, "%s: page-faults session on a child (%d)", name, fd);
	if (fd < 0) {
		gate_open(g);
		wait_all();
		munmap(hot_faults, sizeof(*hot_faults));
	}
	return fd;
}

static void test_hotplug(void)
{
	struct pmuctx_read r;
	struct gated g;
	int fd, st = 0;

	if (!cpu1_hotpluggable()) {
		skip("cpu1 cannot be taken offline here",
		     "hotplug: counting continues on a CPU that went offline and came back");
		return;
	}
	fd = hot_session("hotplug", &g);
	if (fd < 0)
		return;
	cpu1_cycle("hotplug", "");
	usleep(200000);
	gate_open(&g);
	waitpid(g.pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "hotplug: the child faulted its pages on cpu1 (status %#x)", st);
	result(sread(fd, &r, 0) == 0, "hotplug: READ");
	result(*hot_faults >= HOT_PAGES / 2 &&
	       r.values[1] >= (uint64_t)*hot_faults,
	       "hotplug: counting continues on a CPU that went offline and came back (%llu page faults, >= the %ld the child counted on cpu1)",
	       (unsigned long long)r.values[1], *hot_faults);
	munmap(hot_faults, sizeof(*hot_faults));
	close(fd);
	check_store_empty("hotplug");
}

/*
 * Counters that stop are reported, not silent (lifetimes item 5, second
 * half).  The hook selftest_revive_delay_ms holds the revival of cpu1's
 * counters off for 3 s after cpu1 comes back; the child faults its pages
 * on cpu1 meanwhile, where the session has no page-fault counter.  Those
 * faults are lost (a gap cannot be filled afterwards), and READ must say
 * so: time_running of page-faults below time_slices, task-clock (counted
 * by the module itself) running for every slice.  Before, READ had no
 * running time and the totals looked complete.
 */
#define GAP_HOLD_MS "3000"

static void test_hotplug_gap(void)
{
	struct pmuctx_read r;
	struct gated g;
	int fd, st = 0;

	if (!cpu1_hotpluggable()) {
		skip("cpu1 cannot be taken offline here",
		     "hotplug-gap: slices not counted are reported");
		return;
	}
	if (write_param("selftest_revive_delay_ms", GAP_HOLD_MS)) {
		result(0, "hotplug-gap: hook selftest_revive_delay_ms: %s",
		       strerror(errno));
		return;
	}
	fd = hot_session("hotplug-gap", &g);
	if (fd < 0)
		goto out_param;
	cpu1_cycle("hotplug-gap", " (counters held off " GAP_HOLD_MS " ms)");
	gate_open(&g);
	waitpid(g.pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "hotplug-gap: the child faulted its pages on cpu1 (status %#x)",
	       st);
	result(sread(fd, &r, 0) == 0, "hotplug-gap: READ");
	result(r.values[1] < (uint64_t)*hot_faults,
	       "hotplug-gap: faults were lost while cpu1 had no counter (%llu counted, the child had %ld on cpu1)",
	       (unsigned long long)r.values[1], *hot_faults);
	result(r.time_slices > 0 && r.time_running[0] == r.time_slices,
	       "hotplug-gap: task-clock (module-native) ran for every slice (%llu of %llu ns)",
	       (unsigned long long)r.time_running[0],
	       (unsigned long long)r.time_slices);
	result(r.time_running[1] < r.time_slices,
	       "hotplug-gap: READ reports the page-fault counter as not running for part of the slices (%llu of %llu ns)",
	       (unsigned long long)r.time_running[1],
	       (unsigned long long)r.time_slices);
	result(r.time_running[1] <= r.time_slices / 2,
	       "hotplug-gap: most of the child's time, on cpu1 in the gap, is reported as not counted (running %llu of %llu ns)",
	       (unsigned long long)r.time_running[1],
	       (unsigned long long)r.time_slices);
	close(fd);
	munmap(hot_faults, sizeof(*hot_faults));
out_param:
	write_param("selftest_revive_delay_ms", "0");
	/*
	 * The held-off work is still asleep: a CPU that comes online before
	 * it ends (the next test's) would wait for it too.  Let it finish.
	 */
	usleep((atoi(GAP_HOLD_MS) + 500) * 1000);
	check_store_empty("hotplug-gap");
}

/* ---- cgroup v2 target ---------------------------------------------------- */

static void cg_burn_fn(void *arg)
{
	(void)arg;
	burn_ms(150);
}

static void test_cgroup(void)
{
	const char *dir = "/sys/fs/cgroup/pmuctx-t_store";
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_CGROUP,
		.nr_events = 1, .events = { PMUCTX_EV_TASK_CLOCK },
		.flags = PMUCTX_SESSION_KEEP_EXITED,
	};
	struct gated in, out;
	struct pmuctx_read r;
	unsigned int k, n_in = 0, n_out = 0;
	uint64_t tc_in = 0;
	char path[160], buf[32];
	int fd, cfd, pfd;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		result(0, "cgroup: mkdir %s: %s", dir, strerror(errno));
		return;
	}
	in = gated_child(cg_burn_fn, NULL);
	out = gated_child(cg_burn_fn, NULL);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	pfd = open(path, O_WRONLY);
	snprintf(buf, sizeof(buf), "%d\n", in.pid);
	result(pfd >= 0 && write(pfd, buf, strlen(buf)) > 0,
	       "cgroup: child moved into %s", dir);
	if (pfd >= 0)
		close(pfd);
	cfd = open(dir, O_RDONLY | O_DIRECTORY);
	a.cgroup_fd = cfd;
	fd = dev_open();
	result(ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) == 0 &&
	       ioctl(fd, PMUCTX_IOC_ENABLE, 0) == 0, "cgroup: session on the cgroup fd");
	gate_open(&in);
	gate_open(&out);
	wait_all();
	result(sread(fd, &r, 1) == 0, "cgroup: per-task read");
	for (k = 0; k < r.nr_tasks; k++) {
		if (tv[k].pid == in.pid) {
			n_in++;
			tc_in = tv[k].values[0];
		}
		if (tv[k].pid == out.pid)
			n_out++;
	}
	result(n_in == 1 && n_out == 0,
	       "cgroup: only the task inside the cgroup is counted (%u in, %u out)",
	       n_in, n_out);
	result(tc_in >= 100000000ULL && tc_in <= 250000000ULL,
	       "cgroup: its task-clock is about its 150 ms (%llu ns)",
	       (unsigned long long)tc_in);
	close(fd);
	close(cfd);
	rmdir(dir);
	/* A regular file is not a cgroup. */
	a.cgroup_fd = open("/proc/self/status", O_RDONLY);
	fd = dev_open();
	k = ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) < 0 ? errno : 0;
	result(k == EBADF, "cgroup: a non-cgroup fd is refused with EBADF (%s)",
	       strerror(k));
	close(fd);
	close(a.cgroup_fd);
	check_store_empty("cgroup");
}

/*
 * Tasks that move between cgroups while a cgroup session runs (lifetimes
 * item 4), as perf's cgroup events count them: "leaves" is in the cgroup
 * at create, burns 150 ms, moves itself out and burns 300 ms more (only
 * the first 150 count); "joins" starts outside, burns 100 ms there, moves
 * itself in and burns 150 ms (all count), then forks "joins-child" there,
 * which burns 100 ms.
 *
 * The upper bounds are the tasks' own CPU clocks (se.sum_exec_runtime,
 * the clock task-clock reads), not the burns: a task also runs its fork,
 * wait and exit, which on a busy host (a vCPU the host deschedules runs
 * on in the guest's clock) is as much again (issue 32 item 6: 313 ms of
 * the joiner's 150 ms burn, make check-debug beside two busy VMs).  Each
 * task notes its clock before and after its move; a task's final clock is
 * read from /proc/PID/schedstat while it is an unreaped zombie past its
 * last switch.  The joiner must not be counted from before its move began
 * (counted <= final - clock before the move), the leaver not after its
 * move ended (counted <= clock after the move), the child from its fork
 * to its end (counted = its final clock); each within CGMOVE_SLACK_NS:
 * a clock read on another CPU is as of that CPU's last tick.
 */
static const char *cgmove_dir = "/sys/fs/cgroup/pmuctx-t_store-mv";
static void write_str(const char *path, const char *val);

#define CGMOVE_SLACK_NS 20000000ULL

/* what the movers note, in a shared mapping */
struct cgmove_log {
	uint64_t leaves_before, leaves_after;	/* CPU clock around the move */
	uint64_t joins_before, joins_after;
	uint64_t child_total;	/* the child's final clock, or 0 */
};
static struct cgmove_log *cgmove_log;

/* se.sum_exec_runtime of @pid, the first field of /proc/PID/schedstat */
static uint64_t schedstat_ns(pid_t pid)
{
	char path[64], buf[128];

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

/*
 * The final CPU clock of child @pid: waits until it has exited (not
 * reaped) and its clock stays the same over 100 ms (its last switch is
 * past).  0 if it cannot be read.
 */
static uint64_t final_clock(pid_t pid)
{
	siginfo_t si;
	uint64_t a, b = 0;
	int i;

	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT))
		return 0;
	a = schedstat_ns(pid);
	for (i = 0; i < 50; i++) {
		usleep(100000);
		b = schedstat_ns(pid);
		if (b == a)
			break;
		a = b;
	}
	return b == a ? b : 0;
}

static void cg_move_self(const char *dir)
{
	char path[160], buf[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	write_str(path, buf);
}

static void cgmove_leaves_fn(void *arg)
{
	(void)arg;
	burn_ms(150);
	cgmove_log->leaves_before = ns_of(CLOCK_THREAD_CPUTIME_ID);
	cg_move_self("/sys/fs/cgroup");
	cgmove_log->leaves_after = ns_of(CLOCK_THREAD_CPUTIME_ID);
	burn_ms(300);
}

static void cgmove_joins_fn(void *arg)
{
	pid_t c;

	(void)arg;
	burn_ms(100);	/* not counted: before the move */
	cgmove_log->joins_before = ns_of(CLOCK_THREAD_CPUTIME_ID);
	cg_move_self(cgmove_dir);
	cgmove_log->joins_after = ns_of(CLOCK_THREAD_CPUTIME_ID);
	burn_ms(150);
	c = fork();
	if (c == 0) {
		prctl(PR_SET_NAME, "cgmove-child");
		burn_ms(100);
		_exit(0);
	}
	if (c > 0) {
		cgmove_log->child_total = final_clock(c);
		waitpid(c, NULL, 0);
	}
}

static void test_cgmove(void)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_CGROUP,
		.nr_events = 1, .events = { PMUCTX_EV_TASK_CLOCK },
		.flags = PMUCTX_SESSION_KEEP_EXITED,
	};
	uint64_t tc_leaves = 0, tc_joins = 0, tc_child = 0, joins_total;
	struct gated leaves, joins;
	struct pmuctx_read r;
	struct cgmove_log *m;
	unsigned int k;
	char buf[32];
	int fd, cfd;

	if (mkdir(cgmove_dir, 0755) && errno != EEXIST) {
		result(0, "cgmove: mkdir %s: %s", cgmove_dir, strerror(errno));
		return;
	}
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		result(0, "cgmove: mmap: %s", strerror(errno));
		rmdir(cgmove_dir);
		return;
	}
	memset(m, 0, sizeof(*m));
	cgmove_log = m;
	leaves = gated_child(cgmove_leaves_fn, NULL);
	joins = gated_child(cgmove_joins_fn, NULL);
	snprintf(buf, sizeof(buf), "%d\n", leaves.pid);
	write_str("/sys/fs/cgroup/pmuctx-t_store-mv/cgroup.procs", buf);
	cfd = open(cgmove_dir, O_RDONLY | O_DIRECTORY);
	a.cgroup_fd = cfd;
	fd = dev_open();
	result(ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) == 0 &&
	       ioctl(fd, PMUCTX_IOC_ENABLE, 0) == 0,
	       "cgmove: session on the cgroup fd");
	gate_open(&leaves);
	gate_open(&joins);
	joins_total = final_clock(joins.pid);
	wait_all();
	result(sread(fd, &r, 1) == 0, "cgmove: per-task read");
	for (k = 0; k < r.nr_tasks; k++) {
		if (tv[k].pid == leaves.pid)
			tc_leaves = tv[k].values[0];
		else if (tv[k].pid == joins.pid)
			tc_joins = tv[k].values[0];
		else if (!strcmp(tv[k].comm, "cgmove-child"))
			tc_child = tv[k].values[0];
	}
	diag("cgmove: leaves: counted %llu ns, its clock %llu..%llu ns around its move out",
	     (unsigned long long)tc_leaves, (unsigned long long)m->leaves_before,
	     (unsigned long long)m->leaves_after);
	diag("cgmove: joins: counted %llu ns, its clock %llu..%llu ns around its move in, %llu ns at its end",
	     (unsigned long long)tc_joins, (unsigned long long)m->joins_before,
	     (unsigned long long)m->joins_after, (unsigned long long)joins_total);
	diag("cgmove: child: counted %llu ns, its clock %llu ns at its end",
	     (unsigned long long)tc_child, (unsigned long long)m->child_total);
	result(tc_leaves >= 100000000ULL && m->leaves_after &&
	       tc_leaves <= m->leaves_after + CGMOVE_SLACK_NS,
	       "cgmove: a task that leaves the cgroup stops being counted (%llu ns of its 150 ms inside, 450 ms in all; at most its %llu ns up to the end of its move)",
	       (unsigned long long)tc_leaves,
	       (unsigned long long)m->leaves_after);
	result(tc_joins >= 100000000ULL && joins_total && m->joins_before &&
	       tc_joins <= joins_total - m->joins_before + CGMOVE_SLACK_NS,
	       "cgmove: a task that joins the cgroup is counted from then (%llu ns of 150 ms; at most its %llu ns from the start of its move to its end)",
	       (unsigned long long)tc_joins,
	       (unsigned long long)(joins_total - m->joins_before));
	result(tc_child >= 60000000ULL && m->child_total &&
	       tc_child <= m->child_total + CGMOVE_SLACK_NS &&
	       tc_child + CGMOVE_SLACK_NS >= m->child_total,
	       "cgmove: its child forked inside is counted (%llu ns of 100 ms; its whole life %llu ns)",
	       (unsigned long long)tc_child,
	       (unsigned long long)m->child_total);
	munmap(m, sizeof(*m));
	cgmove_log = NULL;
	close(fd);
	close(cfd);
	rmdir(cgmove_dir);
	check_store_empty("cgmove");
}

/*
 * A cgroup session closed while its join worker runs (issue 29 item 2).
 * Two children, one pinned to each CPU, move themselves into the cgroup
 * (the attach probe queues the join worker) and burn.  The worker, held
 * by the debug hook selftest_join_delay_ms, then hashes both entries and
 * opens the slices of the joiners running now (pmuctx_sess_sync(): an
 * IPI to every CPU); whichever CPU it does not run on has a joiner on it.  Meanwhile the parent closes the session:
 * release must not let that IPI cache the dying session's entry after it
 * forgot the caches, or the joiner's next switch-out, after release freed
 * the entry, reads freed memory (KASAN on the debug kernel).  A
 * per-switch session on the parent keeps the switch probe hooked (and
 * the caches unflushed) meanwhile.  close() must have waited for the
 * worker (else the round missed the window), no CPU may have cached an
 * entry of the dying session (the debug build's counter
 * selftest_dead_cached: this does not depend on when the joiner is
 * switched out next, KASAN does: a switch-out between the IPI and the
 * free reads the entry while it is still there), and the joiners must
 * finish their burn.  Eight rounds (about one in two catches it).
 */
#define CGCLOSE_HOLD_MS		1000
#define CGCLOSE_HOLD_MS_STR	"1000"
#define CGCLOSE_BURN_MS		1500
#define CGCLOSE_ROUNDS		8
static const char *cgclose_dir = "/sys/fs/cgroup/pmuctx-t_store-cl";
static int cgclose_ready[2];

static void cgclose_fn(void *arg)
{
	set_cpu((int)(intptr_t)arg);
	cg_move_self(cgclose_dir);
	if (write(cgclose_ready[1], "y", 1) != 1)
		_exit(4);
	burn_ms(CGCLOSE_BURN_MS);
}

static long cgclose_dead_cached(void)
{
	char buf[32] = "";
	FILE *f;

	f = fopen("/sys/module/pmuctx/parameters/selftest_dead_cached", "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? atol(buf) : -1;
}

static void cgclose_round(int round)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_CGROUP,
		.nr_events = 1, .events = { PMUCTX_EV_TASK_CLOCK },
		.flags = PMUCTX_SESSION_PER_SWITCH,
	};
	int fd, cfd, st, i, created, bad = 0;
	long dead0 = cgclose_dead_cached(), dead;
	struct gated g[2];
	uint64_t t0, ms;
	char c;

	for (i = 0; i < 2; i++)
		g[i] = gated_child(cgclose_fn, (void *)(intptr_t)i);
	cfd = open(cgclose_dir, O_RDONLY | O_DIRECTORY);
	a.cgroup_fd = cfd;
	fd = dev_open();
	created = !ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) &&
		  !ioctl(fd, PMUCTX_IOC_ENABLE, 0);
	if (!created)
		result(0, "cgclose %d: session on the cgroup fd: %s", round,
		       strerror(errno));
	for (i = 0; i < 2; i++)
		gate_open(&g[i]);
	for (i = 0; i < 2; i++)
		if (read(cgclose_ready[0], &c, 1) != 1)
			bad++;
	if (created) {
		/* the worker sleeps in the hook now */
		usleep(100000);
		t0 = ns_of(CLOCK_MONOTONIC);
		close(fd);
		ms = (ns_of(CLOCK_MONOTONIC) - t0) / 1000000;
		/*
		 * A round whose close() did not wait was not in the window
		 * (a host that held this process past the worker's hold):
		 * it shows nothing, which is a skip, not a defect (issue 32).
		 */
		if (ms >= CGCLOSE_HOLD_MS / 4)
			result(1, "cgclose %d: close() waited for the join worker (%llu ms, the worker holds %d ms)",
			       round, (unsigned long long)ms, CGCLOSE_HOLD_MS);
		else
			skip("the host held the test past the worker's hold",
			     "cgclose %d: close() waited for the join worker (%llu ms)",
			     round, (unsigned long long)ms);
		dead = cgclose_dead_cached();
		result(dead0 >= 0 && dead == dead0,
		       "cgclose %d: no CPU cached an entry of the session being closed (selftest_dead_cached %ld -> %ld)",
		       round, dead0, dead);
	} else {
		close(fd);
	}
	for (i = 0; i < 2; i++) {
		st = 0;
		waitpid(g[i].pid, &st, 0);
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	result(!bad, "cgclose %d: both joiners burned to their end (%d failed)",
	       round, bad);
	close(cfd);
}

static void test_cgclose(void)
{
	static const unsigned int ev1[] = { PMUCTX_EV_TASK_CLOCK };
	int guard, i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		skip("needs 2 CPUs", "cgclose: close while the join worker runs");
		return;
	}
	if (mkdir(cgclose_dir, 0755) && errno != EEXIST) {
		result(0, "cgclose: mkdir %s: %s", cgclose_dir, strerror(errno));
		return;
	}
	if (write_param("selftest_join_delay_ms", CGCLOSE_HOLD_MS_STR)) {
		result(0, "cgclose: hook selftest_join_delay_ms: %s",
		       strerror(errno));
		rmdir(cgclose_dir);
		return;
	}
	guard = session(PMUCTX_TARGET_PID, getpid(), PMUCTX_SESSION_PER_SWITCH,
			ev1, 1, 0, 0);
	result(guard >= 0, "cgclose: a per-switch session on the test (%d)",
	       guard);
	if (pipe(cgclose_ready))
		exit(2);
	for (i = 1; guard >= 0 && i <= CGCLOSE_ROUNDS; i++)
		cgclose_round(i);
	close(cgclose_ready[0]);
	close(cgclose_ready[1]);
	if (guard >= 0)
		close(guard);
	write_param("selftest_join_delay_ms", "0");
	rmdir(cgclose_dir);
	check_store_empty("cgclose");
}

/* ---- the table after a burst (PREEMPT_RT) ------------------------------ */

/*
 * On PREEMPT_RT the store refuses an insert that would fill its table
 * past 7/8 (an insert with preemption off must not allocate; the resize
 * worker grows it at 75 %): the table is meant to keep room for max_tasks
 * and never shrink.  A burst of short-lived children, then quiet (the
 * resize worker shrinks an emptied table), then 64 children alive at
 * once: none may be dropped.  Elsewhere the insert may allocate, and
 * this holds trivially.
 */
#define BURST_TASKS	300
#define BURST_LIVE	64

static void burst_fn(void *arg)
{
	pid_t c[BURST_LIVE];
	int i;

	(void)arg;
	for (i = 0; i < BURST_TASKS; i++) {
		pid_t k = fork();

		if (k == 0)
			_exit(0);
		if (k > 0)
			waitpid(k, NULL, 0);
	}
	sleep(2);	/* the table's resize worker runs */
	for (i = 0; i < BURST_LIVE; i++) {
		c[i] = fork();
		if (c[i] == 0) {
			usleep(500000);
			_exit(0);
		}
	}
	for (i = 0; i < BURST_LIVE; i++)
		if (c[i] > 0)
			waitpid(c[i], NULL, 0);
}

static void test_burst(void)
{
	struct pmuctx_read r;
	struct gated g;
	int fd, err;

	g = gated_child(burst_fn, NULL);
	fd = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT, ev3, 3,
		     0, 0);
	result(fd >= 0, "burst: session on a child that forks %d, then %d at once (%d)",
	       BURST_TASKS, BURST_LIVE, fd);
	gate_open(&g);
	wait_all();
	if (fd < 0)
		return;
	err = sread(fd, &r, 0);
	result(!err && r.tasks_seen >= 1 + BURST_TASKS + BURST_LIVE &&
	       r.tasks_dropped == 0,
	       "burst: every task tracked after the table emptied (seen %llu, dropped %llu)",
	       (unsigned long long)r.tasks_seen,
	       (unsigned long long)r.tasks_dropped);
	close(fd);
	check_store_empty("burst");
}

/* ---- RESET against the writers of the totals --------------------------- */

/*
 * RESET zeroes a session's counts while tasks run (issue 29 item 8).  The
 * switch path adds a slice to its task's total with a read-modify-write,
 * and a fold adds an exited task's total to its CPU's folded sum the same
 * way: a RESET on another CPU that zeroes either in between is undone by
 * the write, and the count after RESET keeps what it had before.  The
 * debug hook selftest_total_delay_us widens both windows.  A worker on
 * CPU 1 forks children that burn a little and exit (switches, and folds
 * when they are freed); CPU 0 RESETs every 100 ms and READs at once: the
 * task-clock counted since cannot exceed the wall time since RESET began
 * (all of it runs on CPU 1) by more than RESET_SLACK_NS: the run time of
 * a task running on another CPU is as of that CPU's last scheduler
 * update (up to a tick), and the hook's own delay.  Before the fix the
 * excess was 30-80 ms (what the worker ran in the 100 ms before).
 */
#define RESET_ROUNDS		50
#define RESET_SLACK_NS		10000000ULL
#define RESET_DELAY_US		"1000"

/*
 * Run time of all tasks on @cpu so far (/proc/schedstat's rq_cpu_time,
 * the scheduler's clock, added at each switch-out), or 0.  Under TCG the
 * guest's TSCs are unsynchronized and the scheduler's per-CPU clock is
 * held within a tick of the last one while the host stalls that vCPU:
 * the time of a stall reaches the tasks' run time at the next tick, after
 * CLOCK_MONOTONIC saw it, so a RESET right after a stall can count up to
 * the stall's length more than the wall time since (the CI emulation of
 * 579f42e on 6.1: 51 ms counted in 27 ms, once in 50).  The scheduler's
 * own sum of run times on the CPU has the same lag, so the count is held
 * to the larger of the two.
 */
static uint64_t cpu_run_ns(int cpu)
{
	unsigned long long v[7];
	char line[512], name[16];
	uint64_t ns = 0;
	FILE *f;

	snprintf(name, sizeof(name), "cpu%d ", cpu);
	f = fopen("/proc/schedstat", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)) &&
		    sscanf(line + strlen(name), "%llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 7) {
			ns = v[6];
			break;
		}
	fclose(f);
	return ns;
}

static void reset_race_worker(void)
{
	pid_t c;

	for (;;) {
		c = fork();
		if (c == 0) {
			burn_ms(1);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		burn_ms(1);
	}
}

static void test_reset_race(void)
{
	static const unsigned int ev1[] = { PMUCTX_EV_TASK_CLOCK };
	uint64_t t0, t1, c0, c1, bound, worst = 0, pre = 0, wall_w = 0;
	struct pmuctx_read r;
	int fd, i, bad = 0, ok = 0;
	pid_t w;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		skip("needs 2 CPUs", "reset-race: RESET while the tasks switch and fold");
		return;
	}
	if (write_param("selftest_total_delay_us", RESET_DELAY_US)) {
		result(0, "reset-race: hook selftest_total_delay_us: %s",
		       strerror(errno));
		return;
	}
	set_cpu(1);
	w = fork();
	if (w == 0)
		reset_race_worker();
	set_cpu(0);
	fd = session(PMUCTX_TARGET_PID, w, PMUCTX_SESSION_INHERIT |
		     PMUCTX_SESSION_PER_SWITCH, ev1, 1, 0, 0);
	result(fd >= 0, "reset-race: a per-switch session on a forking worker (%d)",
	       fd);
	for (i = 0; fd >= 0 && i < RESET_ROUNDS; i++) {
		usleep(100000);
		c0 = cpu_run_ns(1);
		t0 = ns_of(CLOCK_MONOTONIC);
		if (ioctl(fd, PMUCTX_IOC_RESET, 0) || sread(fd, &r, 0)) {
			result(0, "reset-race: RESET, READ: %s", strerror(errno));
			break;
		}
		t1 = ns_of(CLOCK_MONOTONIC);
		c1 = cpu_run_ns(1);
		bound = t1 - t0;
		if (c0 && c1 > c0 && c1 - c0 > bound)
			bound = c1 - c0;
		if (r.values[0] > bound + RESET_SLACK_NS) {
			bad++;
			if (r.values[0] - bound > worst) {
				worst = r.values[0] - bound;
				pre = r.values[0];
				wall_w = t1 - t0;
			}
		} else {
			ok++;
		}
	}
	write_param("selftest_total_delay_us", "0");
	if (fd >= 0) {
		result(!bad && ok == RESET_ROUNDS,
		       "reset-race: the count after RESET is what ran since (%d of %d RESETs kept an older count, worst %.3f ms counted in %.3f ms, %.3f ms more than the wall time or cpu1's run time since)",
		       bad, RESET_ROUNDS, pre / 1e6, wall_w / 1e6,
		       worst / 1e6);
		close(fd);
	}
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	set_cpu_any();
	check_store_empty("reset-race");
}

/* ---- unprivileged ------------------------------------------------------- */

static void idle_fn(void *arg)
{
	(void)arg;
	burn_ms(20);
}

static void test_unpriv(int paranoid3)
{
	struct gated g;
	int fd;

	fd = session(PMUCTX_TARGET_PID, 1, 0, ev3, 3, 0, 0);
	result(fd == -EACCES, "unpriv: pid 1 (another user) refused with EACCES (%d)",
	       fd);
	if (fd >= 0)
		close(fd);
	fd = session(PMUCTX_TARGET_SYSTEM, 0, 0, ev3, 3, 0, 0);
	result(fd == -EACCES, "unpriv: system-wide refused with EACCES (%d)", fd);
	if (fd >= 0)
		close(fd);
	g = gated_child(idle_fn, NULL);
	fd = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT, ev3, 3,
		     0, 0);
	if (paranoid3)
		result(fd == -EACCES,
		       "unpriv: own child refused at perf_event_paranoid 3 (%d)",
		       fd);
	else
		result(fd >= 0, "unpriv: own child allowed at paranoid <= 2 (%d)",
		       fd);
	gate_open(&g);
	wait_all();
	if (fd >= 0)
		close(fd);
}

/* ---- per-user session cap (run unprivileged, max_sessions_per_user 5) --- */

static void test_sesscap(void)
{
	int fds[6], i, fd, n = 0;

	for (i = 0; i < 6; i++) {
		fds[i] = session(PMUCTX_TARGET_PID, 0, 0, ev3, 1, 0, 0);
		if (fds[i] >= 0)
			n++;
	}
	result(n == 5 && fds[5] == -EMFILE,
	       "sesscap: 5 sessions, the 6th refused with EMFILE (%d)", fds[5]);
	close(fds[0]);
	fd = session(PMUCTX_TARGET_PID, 0, 0, ev3, 1, 0, 0);
	result(fd >= 0, "sesscap: closing one makes room for another (%d)", fd);
	if (fd >= 0)
		close(fd);
	for (i = 1; i < 5; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* ---- setuid exec --------------------------------------------------------- */

struct exec_arg {
	const char *path;
};

static void exec_fn(void *arg)
{
	struct exec_arg *x = arg;

	execl(x->path, x->path, "1000", (char *)NULL);
	_exit(127);
}

/*
 * A watched child execs the setuid-root helper @path (1000 ms of CPU):
 * the session must stop it there.  @who names the case; @fn is the
 * child's side (exec as is, or drop to uid 65534 first).
 */
static void setuid_case(const char *who, void (*fn)(void *), const char *path)
{
	struct exec_arg x = { path };
	struct pmuctx_read r;
	struct gated g;
	unsigned int k;
	char desc[64];
	int fd, st;

	snprintf(desc, sizeof(desc), "%s: session on a child", who);
	fd = gated_session(&g, fn, &x, PMUCTX_SESSION_KEEP_EXITED, desc);
	if (fd < 0)
		return;
	waitpid(g.pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "%s: helper ran as root (status %d)", who, st);
	result(sread(fd, &r, 1) == 0, "%s: read", who);
	result(r.priv_exec_stopped == 1,
	       "%s: session reports one task stopped at a privileged exec (%llu)",
	       who, (unsigned long long)r.priv_exec_stopped);
	/*
	 * What is counted is the child up to the exec probe, loading the
	 * helper included: over 100 ms on the debug kernel under load.  The
	 * helper burns 1000 ms: counting it would put the total above 1 s.
	 */
	result(r.values[0] < 500000000ULL,
	       "%s: the helper's 1000 ms are not counted (%llu ns)", who,
	       (unsigned long long)r.values[0]);
	for (k = 0; k < r.nr_tasks; k++)
		if (tv[k].flags & PMUCTX_TASK_PRIV_EXEC)
			break;
	result(k < r.nr_tasks, "%s: the task is listed with PRIV_EXEC", who);
	close(fd);
}

/* setuid PATH, run as uid 65534: its own child execs the helper */
static void test_setuid(const char *path)
{
	setuid_case("setuid", exec_fn, path);
}

/*
 * setuid-root PATH (security item 6), run as root: the session owner has
 * CAP_PERFMON, the watched child drops to uid 65534 and execs a setuid-root
 * program.  perf stops per-task events at such an exec whoever owns them
 * (begin_new_exec() -> perf_event_exit_task() for a non-dumpable mm);
 * pmuctx does the same, and says so.
 */
static void exec_unpriv_fn(void *arg)
{
	struct exec_arg *x = arg;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		_exit(126);
	execl(x->path, x->path, "1000", (char *)NULL);
	_exit(127);
}

static void test_setuid_root(const char *path)
{
	setuid_case("setuid-root (CAP_PERFMON owner)", exec_unpriv_fn, path);
}

/*
 * setuid-race PATH (security item 2): the target execs a setuid-root
 * program while its session is being created.  61-store-priv sets the
 * module's selftest_attach_delay_ms so the create sleeps between the
 * permission check and hashing the entries; the gate opens inside that
 * window.  Either the create sees the new credentials (EACCES), or the
 * entry is hashed before the exec and the exec probe stops it: the
 * helper's 1000 ms must never be counted.
 */
struct create_arg {
	pid_t pid;
	int fd;
};

static void *create_thread(void *arg)
{
	struct create_arg *c = arg;

	c->fd = session(PMUCTX_TARGET_PID, c->pid,
			PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED,
			ev3, 3, 0, 0);
	return NULL;
}

static void test_setuid_race(const char *path)
{
	struct exec_arg x = { path };
	struct create_arg c;
	struct pmuctx_read r;
	struct gated g;
	pthread_t t;
	int st;

	g = gated_child(exec_fn, &x);
	c.pid = g.pid;
	c.fd = -1;
	if (pthread_create(&t, NULL, create_thread, &c))
		exit(2);
	usleep(100 * 1000);	/* into the create's delay */
	gate_open(&g);
	pthread_join(t, NULL);
	waitpid(g.pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "setuid-race: helper ran as root (status %d)", st);
	if (c.fd < 0) {
		result(c.fd == -EACCES || c.fd == -ESRCH,
		       "setuid-race: the create saw the exec: refused (%d)",
		       c.fd);
		return;
	}
	result(sread(c.fd, &r, 1) == 0, "setuid-race: read");
	diag("setuid-race: session made; task-clock %llu ns, priv_exec_stopped %llu",
	     (unsigned long long)r.values[0],
	     (unsigned long long)r.priv_exec_stopped);
	result(r.values[0] < 500000000ULL,
	       "setuid-race: the setuid helper's 1000 ms are not counted (%llu ns)",
	       (unsigned long long)r.values[0]);
	close(c.fd);
}

/*
 * threads-uid (security item 3), run as root: a process whose main thread
 * switched to uid 65534 (raw setresuid: that thread only) while a second
 * thread stays root.  uid 65534 may watch the main thread alone, but a
 * process target attaches every thread: refused (EACCES), never the root
 * thread counted.
 */
static void *root_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void test_threads_uid(void)
{
	struct stat sb;
	pthread_t t;
	pid_t v, a;
	int p[2], q[2], st = 0, fd;
	char ch;

	if (stat(PMUCTX_DEVICE_PATH, &sb) || pipe(p) || pipe(q))
		exit(2);
	v = fork();
	if (v == 0) {
		if (pthread_create(&t, NULL, root_thread, NULL))
			_exit(2);
		if (syscall(SYS_setresgid, 65534, 65534, 65534) ||
		    syscall(SYS_setresuid, 65534, 65534, 65534))
			_exit(3);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(p[1], "x", 1) != 1)
			_exit(4);
		if (read(q[0], &ch, 1) < 0)
			_exit(5);
		_exit(0);
	}
	if (read(p[0], &ch, 1) != 1) {
		result(0, "threads-uid: the victim did not start");
		return;
	}
	a = fork();
	if (a == 0) {
		gid_t g = sb.st_gid;

		if (setgroups(1, &g) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		fd = session(PMUCTX_TARGET_PID, v, 0, ev3, 1, 0, 0);
		if (fd >= 0) {
			struct pmuctx_read r;

			if (sread(fd, &r, 1) == 0)
				_exit(50 + (r.nr_tasks > 9 ? 9 : r.nr_tasks));
			_exit(60);
		}
		_exit(-fd == EACCES ? 0 : 70);
	}
	waitpid(a, &st, 0);
	if (write(q[1], "x", 1) != 1)
		exit(2);
	waitpid(v, NULL, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "threads-uid: uid 65534 on a process with a root thread: EACCES (%s)",
	       !WIFEXITED(st) ? "crashed" : WEXITSTATUS(st) == 0 ? "refused" :
	       WEXITSTATUS(st) >= 50 && WEXITSTATUS(st) < 60 ?
	       "the session was made, root thread attached" :
	       WEXITSTATUS(st) == 100 ? "cannot drop privileges" : "other error");
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 50 && WEXITSTATUS(st) < 60)
		diag("threads-uid: session made with %d task(s)",
		     WEXITSTATUS(st) - 50);
}

/*
 * usershare (security item 8), run as root with max_tasks 1000 and
 * max_tasks_per_user 400 (61-store-priv sets them): uid 65534 keeps 1100
 * exited threads in a KEEP_EXITED session; root's session made after it
 * must still track all of its own 21 tasks.  Before per-user shares, the
 * user's entries filled the whole store and root's tasks were dropped.
 */
static void *short_fn(void *arg)
{
	(void)arg;
	return NULL;
}

static void threads_then_wait(void *arg)
{
	pthread_t t;
	int i;

	(void)arg;
	for (i = 0; i < 20; i++)
		if (!pthread_create(&t, NULL, short_fn, NULL))
			pthread_join(t, NULL);
}

static void test_usershare(void)
{
	struct pmuctx_read r;
	struct stat sb;
	struct gated g;
	int p[2], q[2], st = 0, fd;
	pid_t hog;
	char ch = 0;

	if (stat(PMUCTX_DEVICE_PATH, &sb) || pipe(p) || pipe(q))
		exit(2);
	hog = fork();
	if (hog == 0) {
		gid_t gr = sb.st_gid;
		pthread_t t;
		int i, made = 0;

		if (setgroups(1, &gr) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		fd = session(PMUCTX_TARGET_PID, 0,
			     PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED,
			     ev3, 1, 0, 0);
		if (fd < 0)
			ch = 'E';
		for (i = 0; fd >= 0 && i < 1100; i++)
			if (!pthread_create(&t, NULL, short_fn, NULL)) {
				pthread_join(t, NULL);
				made++;
			}
		if (fd >= 0 && sread(fd, &r, 0) == 0)
			printf("# usershare: uid 65534 made %d threads: seen %llu, dropped %llu\n",
			       made, (unsigned long long)r.tasks_seen,
			       (unsigned long long)r.tasks_dropped);
		if (write(p[1], ch ? &ch : "x", 1) != 1)
			_exit(101);
		if (read(q[0], &ch, 1) < 0)
			_exit(102);
		_exit(0);
	}
	if (read(p[0], &ch, 1) != 1)
		ch = '?';
	if (ch != 'x') {
		result(0, "usershare: the unprivileged hog could not start (%c)",
		       ch);
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
		return;
	}
	g = gated_child(threads_then_wait, NULL);
	fd = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT, ev3, 1,
		     0, 0);
	result(fd >= 0, "usershare: root's session after the hog (%d)", fd);
	gate_open(&g);
	waitpid(g.pid, &st, 0);
	if (fd >= 0) {
		result(sread(fd, &r, 0) == 0, "usershare: read");
		result(r.tasks_seen == 21 && !r.tasks_dropped,
		       "usershare: one user's kept entries leave root room: 21 tasks seen, none dropped (%llu seen, %llu dropped)",
		       (unsigned long long)r.tasks_seen,
		       (unsigned long long)r.tasks_dropped);
		close(fd);
	}
	if (write(q[1], "x", 1) != 1)
		exit(2);
	waitpid(hog, NULL, 0);
}

/*
 * The SELFTEST backend's kernel save areas are for CAP_PERFMON only: the
 * debug build refuses uid 65534 (EACCES).  A release build has no such
 * backend and refuses everybody, root too, with EOPNOTSUPP (docs/ABI.md);
 * it does not set PMUCTX_FEAT_SELFTEST.
 */
static void test_selftest_perm(void)
{
	static const unsigned int ev[] = { PMUCTX_EV_TASK_CLOCK };
	struct pmuctx_info info;
	struct stat sb;
	int p[2], fd, st = 0, err = 0;
	bool debug;
	pid_t c;

	if (get_info(&info) || stat(PMUCTX_DEVICE_PATH, &sb) || pipe(p)) {
		result(0, "selftest-perm: INFO: %s", strerror(errno));
		return;
	}
	debug = info.features & PMUCTX_FEAT_SELFTEST;
	diag("selftest-perm: the module is a %s build",
	     debug ? "debug" : "release");
	c = fork();
	if (c == 0) {
		gid_t gr = sb.st_gid;

		if (setgroups(1, &gr) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		fd = session(PMUCTX_TARGET_PID, 0, 0, ev, 1,
			     PMUCTX_BACKEND_SELFTEST, 4096);
		if (fd >= 0)
			close(fd);
		fd = fd < 0 ? -fd : 0;
		if (write(p[1], &fd, sizeof(fd)) != sizeof(fd))
			_exit(101);
		_exit(0);
	}
	if (c < 0 || read(p[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	waitpid(c, &st, 0);
	close(p[0]);
	close(p[1]);
	result(err == (debug ? EACCES : EOPNOTSUPP),
	       "selftest-perm: an unprivileged SELFTEST-backend session is refused (%s; got %s)",
	       debug ? "EACCES" : "EOPNOTSUPP, a release build",
	       err > 0 ? strerror(err) : err ? "no answer" : "accepted");
	fd = session(PMUCTX_TARGET_PID, 0, 0, ev, 1, PMUCTX_BACKEND_SELFTEST,
		     4096);
	if (fd >= 0)
		close(fd);
	if (debug)
		result(fd >= 0, "selftest-perm: root's SELFTEST-backend session is accepted (%d)",
		       fd);
	else
		result(fd == -EOPNOTSUPP, "selftest-perm: a release build refuses root's SELFTEST-backend session with EOPNOTSUPP (%d)",
		       fd);
}

static void write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		diag("write %s: %s", path, strerror(errno));
	close(fd);
}

static bool skipped_memcg;

/* "slab" of memory.stat of the cgroup at @dir, in bytes, or -1. */
static long long memcg_slab(const char *dir)
{
	char path[200], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slab %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Move this process into the cgroup at @dir (its gated child @g stays
 * where it is).  On failure the child is killed and reaped.
 */
static bool cg_enter(const char *dir, struct gated *g)
{
	char path[200], buf[32];
	int cfd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	cfd = open(path, O_WRONLY);
	snprintf(buf, sizeof(buf), "%d\n", getpid());
	ok = cfd >= 0 && write(cfd, buf, strlen(buf)) > 0;
	if (cfd >= 0)
		close(cfd);
	if (!ok) {
		kill(g->pid, SIGKILL);
		waitpid(g->pid, NULL, 0);
	}
	return ok;
}

/* The memcg test's target: 2000 short threads, then exit. */
static void threads2000_fn(void *arg)
{
	(void)arg;
	run_threads(2000);
}

/*
 * Store memory is the session creator's (security items 8, 9): this
 * process moves into a memory cgroup of its own and creates a pid session
 * without inheritance on a child (it must pre-allocate nothing: no pool
 * entries), then an INHERIT|KEEP_EXITED one on a child left in the root
 * cgroup, which runs 2000 short threads: the fork probe allocates their
 * kept entries, and the creator's cgroup must be charged about what INFO
 * says the store holds (not the target's, not nobody's).  "About": memcg
 * statistics are flushed lazily (up to 2 s late, and 6.12 lagged by a
 * quarter here), so at least half within 6 s; before, 528 of 325280 bytes
 * were charged.
 */
static void test_memcg(void)
{
	const char *dir = "/sys/fs/cgroup/pmuctx-t_store-memcg";
	unsigned int ev1[] = { PMUCTX_EV_TASK_CLOCK };
	struct pmuctx_info i0, i1;
	long long slab0, slab1;
	char buf[32], ctl[256];
	struct gated g;
	int fd, k;
	FILE *f;

	f = fopen("/sys/fs/cgroup/cgroup.controllers", "r");
	if (!f || !fgets(ctl, sizeof(ctl), f))
		ctl[0] = 0;
	if (f)
		fclose(f);
	if (!strstr(ctl, "memory")) {
		skip("the kernel has no memory controller (CONFIG_MEMCG)",
		     "memcg: store memory charged to the creator's cgroup");
		skipped_memcg = true;
		return;
	}
	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	if (mkdir(dir, 0755) && errno != EEXIST) {
		result(0, "memcg: mkdir %s: %s", dir, strerror(errno));
		return;
	}
	g = gated_child(threads2000_fn, NULL);
	if (!cg_enter(dir, &g) || memcg_slab(dir) < 0) {
		result(0, "memcg: into %s with the memory controller", dir);
		return;
	}

	get_info(&i0);
	fd = session(PMUCTX_TARGET_PID, g.pid, 0, ev1, 1, 0, 0);
	get_info(&i1);
	result(fd >= 0 && i1.pool_entries == i0.pool_entries,
	       "memcg: a pid session without inheritance pre-allocates no entries (pools %llu -> %llu)",
	       (unsigned long long)i0.pool_entries,
	       (unsigned long long)i1.pool_entries);
	if (fd >= 0)
		close(fd);

	get_info(&i0);
	slab0 = memcg_slab(dir);
	fd = session(PMUCTX_TARGET_PID, g.pid,
		     PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED, ev1, 1,
		     0, 0);
	gate_open(&g);
	waitpid(g.pid, NULL, 0);
	get_info(&i1);
	/*
	 * memory.stat is flushed lazily: at a threshold of updates, or every
	 * 2 s by the kernel's periodic flush.  Wait up to 6 s for it.
	 */
	for (k = 0; k < 60; k++) {
		slab1 = memcg_slab(dir);
		if (slab1 - slab0 >= (long long)(i1.store_bytes - i0.store_bytes) / 2)
			break;
		usleep(100000);
	}
	diag("memcg: store %llu -> %llu bytes, creator's cgroup slab %lld -> %lld bytes",
	     (unsigned long long)i0.store_bytes,
	     (unsigned long long)i1.store_bytes, slab0, slab1);
	result(fd >= 0 && i1.store_bytes > i0.store_bytes + 2000 * 64 &&
	       slab1 - slab0 >= (long long)(i1.store_bytes - i0.store_bytes) / 2,
	       "memcg: the kept entries are charged to the creator's memory cgroup (%lld of %llu bytes)",
	       slab1 - slab0,
	       (unsigned long long)(i1.store_bytes - i0.store_bytes));
	if (fd >= 0)
		close(fd);
	/* back to the root cgroup, so the directory can go */
	snprintf(buf, sizeof(buf), "%d\n", getpid());
	write_str("/sys/fs/cgroup/cgroup.procs", buf);
	rmdir(dir);
}

static long long cg_read_ll(const char *dir, const char *file)
{
	char path[200], buf[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtoll(buf, NULL, 10);
	fclose(f);
	return v;
}

/*
 * The creator's memory cgroup at its limit (the common state of a
 * container whose page cache filled it): the fork probe's GFP_NOWAIT
 * charge cannot reclaim and fails.  An INHERIT session on a child (left
 * in the root cgroup) whose 1000 threads fork after memory.max was set
 * 64 KiB above the cgroup's usage, and are kept after they exit (about
 * 200 KiB of entries), must still track every thread: none dropped (the
 * pools, and a forced charge, take over).
 */
static void test_memcg_full(void)
{
	const char *dir = "/sys/fs/cgroup/pmuctx-t_store-full";
	unsigned int ev1[] = { PMUCTX_EV_TASK_CLOCK };
	struct pmuctx_read r;
	long long cur, after;
	char path[200], buf[64];
	struct gated g;
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		result(0, "memcg-full: mkdir %s: %s", dir, strerror(errno));
		return;
	}
	g = gated_child(threads_fn, NULL);	/* 1000 short threads */
	if (!cg_enter(dir, &g)) {
		result(0, "memcg-full: into %s", dir);
		return;
	}
	/* kept, so the entries add up past the limit */
	fd = session(PMUCTX_TARGET_PID, g.pid,
		     PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED, ev1, 1,
		     0, 0);
	/*
	 * The session charges its entries to the cgroup it was created in
	 * (the creator's at create); the creator itself goes back to the
	 * root first.  Left inside, its own next page (a stdio buffer)
	 * found the cgroup over its limit from the forced charges, and the
	 * memcg OOM killer took t_store (61-store-priv on 6.12-rt, then on
	 * 6.1 in a CI emulation).
	 */
	snprintf(buf, sizeof(buf), "%d\n", getpid());
	write_str("/sys/fs/cgroup/cgroup.procs", buf);
	cur = cg_read_ll(dir, "memory.current");
	snprintf(path, sizeof(path), "%s/memory.max", dir);
	snprintf(buf, sizeof(buf), "%lld", cur + 65536);
	write_str(path, buf);
	gate_open(&g);
	waitpid(g.pid, NULL, 0);
	after = cg_read_ll(dir, "memory.current");
	write_str(path, "max");
	if (fd >= 0 && sread(fd, &r, 0) == 0)
		diag("memcg-full: limit %lld + 64 KiB, usage after %lld; %llu tasks seen, %llu dropped",
		     cur, after, (unsigned long long)r.tasks_seen,
		     (unsigned long long)r.tasks_dropped);
	result(fd >= 0 && r.tasks_seen == 1001 && !r.tasks_dropped,
	       "memcg-full: with the creator's cgroup at its limit, no forked thread is dropped (%llu seen, %llu dropped)",
	       fd >= 0 ? (unsigned long long)r.tasks_seen : 0ULL,
	       fd >= 0 ? (unsigned long long)r.tasks_dropped : 0ULL);
	if (fd >= 0)
		close(fd);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	/*
	 * debug: needs the debug build of the module (the SELFTEST backend,
	 * a selftest_* hook).  "--release" runs the others, "--debug" these;
	 * no argument, all of them; else the ones named.
	 */
	static const struct {
		const char *name;
		void (*fn)(void);
		bool debug;
	} tests[] = {
		{ "forktree", test_forktree, false },
		{ "parent-first", test_parent_first, false },
		{ "close-early", test_close_early, false },
		{ "threads", test_threads, false },
		{ "two-sessions", test_two_sessions, false },
		{ "switchless", test_switchless, false },
		{ "cache-overflow", test_cache_overflow, false },
		{ "chain", test_chain, false },
		{ "burst", test_burst, false },
		{ "migrate", test_migrate, true },
		{ "cap", test_cap, false },
		{ "cgroup", test_cgroup, false },
		{ "cgmove", test_cgmove, false },
		{ "hotplug", test_hotplug, false },
		{ "hotplug-gap", test_hotplug_gap, true },
		{ "cgclose", test_cgclose, true },
		{ "reset-race", test_reset_race, true },
	};
	unsigned int i;
	int a;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "unpriv")) {
		test_unpriv(0);
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "paranoid3")) {
		test_unpriv(1);
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "sesscap")) {
		test_sesscap();
		return !!failures;
	}
	if (argc > 2 && !strcmp(argv[1], "setuid")) {
		test_setuid(argv[2]);
		return !!failures;
	}
	if (argc > 2 && !strcmp(argv[1], "setuid-root")) {
		test_setuid_root(argv[2]);
		return !!failures;
	}
	if (argc > 2 && !strcmp(argv[1], "setuid-race")) {
		test_setuid_race(argv[2]);
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "usershare")) {
		test_usershare();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "memcg")) {
		test_memcg();
		if (!skipped_memcg)
			test_memcg_full();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "threads-uid")) {
		test_threads_uid();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "selftest-perm")) {
		test_selftest_perm();
		return !!failures;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int run = argc == 1;

		for (a = 1; a < argc; a++)
			run |= !strcmp(argv[a], tests[i].name) ||
			       (!strcmp(argv[a], "--release") && !tests[i].debug) ||
			       (!strcmp(argv[a], "--debug") && tests[i].debug);
		if (run)
			tests[i].fn();
	}
	return !!failures;
}
