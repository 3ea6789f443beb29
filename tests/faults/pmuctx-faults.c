// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx-faults: allocation-failure injection into every pmuctx entry
 * point, one call site at a time (debug kernel: CONFIG_FAILSLAB and
 * CONFIG_FAULT_INJECTION_DEBUG_FS).
 *
 * For each operation (open, every ioctl, session creation for each target,
 * mmap, read/write/poll, close, fork/clone of a monitored task, exec of a
 * monitored task) and n = 1, 2, ...: write n to /proc/thread-self/fail-nth,
 * run the operation, read fail-nth back (0: the n-th slab allocation of
 * the call failed).  Then assert:
 *  - the call failed cleanly (an errno it may return) or absorbed the
 *    failure (a fork whose child could not be tracked counts one drop);
 *  - after a failure the store is exactly as before (INFO: tasks_tracked,
 *    store_bytes, pool_entries, entries alive, sessions; the probes may
 *    stay a second longer, issue 29 item 8), and the
 *    same fd still works (a failed SESSION_CREATE can be retried);
 *  - after cleanup the store is back to its starting state.
 * The loop ends at the first n the call completes without reaching.
 * failslab is set up here: ignore-gfp-wait=N (sleeping allocations too),
 * verbose=0 (no stack dumps: the harness fails on "Call Trace:").  The VM
 * harness scans kmemleak at the end.
 *
 *   pmuctx-faults [--max-nth N] [all | NAME...]     (default all)
 *   pmuctx-faults list
 *   pmuctx-faults pool-storm     module loaded with pool_size=1: every
 *                                atomic allocation fails while monitored
 *                                tasks fork and threads come and go; the
 *                                pools run dry, tasks are counted as
 *                                dropped, nothing leaks or crashes
 * Output: "ok - ..." / "not ok - ..." lines, "# faults injected: N".
 */

#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define FS	"/sys/kernel/debug/failslab/"

static int nth_fd = -1;
static int max_nth = 400;
static long total_injected;
static char self_exe[4096];

static void nth_write(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len) {
		perror("fail-nth");
		exit(2);
	}
}

/* true when the armed failure was injected (the counter reached 0) */
static bool nth_fired(void)
{
	char buf[16] = "";

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		return false;
	return atoi(buf) == 0;
}

static int arm_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR);
}

/* ---- the operations ----------------------------------------------------- */

struct ctx {
	int fd;			/* the fd the operation works on */
	int hold;		/* a session kept for the whole test */
	int ring;		/* a session with a ring buffer */
	struct gated kid;	/* a target with threads */
	int cgfd;
	void *map, *map2;
	size_t maplen;
	pthread_t thr;
	pid_t pid;
	uint64_t seen0, dropped0;
	struct pmuctx_session_attr a;
};

static struct ctx C;
static uint32_t nr_cpus = 1;
static uint64_t features;

static void *noop(void *arg)
{
	return arg;
}

static void *threads_fn_thread(void *arg)
{
	pause();
	return arg;
}

static void threads_fn(void *arg)
{
	pthread_t t;
	int i;

	(void)arg;
	for (i = 0; i < 8; i++)
		pthread_create(&t, NULL, threads_fn_thread, NULL);
	pause();
}

static int op_open(void)
{
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR);

	if (fd < 0)
		return -errno;
	C.fd = fd;
	return 0;
}

static int op_ioctl(unsigned long cmd, void *arg)
{
	return ioctl(C.fd, cmd, arg) ? -errno : 0;
}

static int op_create(void)
{
	return op_ioctl(PMUCTX_IOC_SESSION_CREATE, &C.a);
}

/* Reads the session totals of C.hold: seen, dropped. */
static void hold_counts(uint64_t *seen, uint64_t *dropped)
{
	struct pmuctx_read r;

	if (sread(C.hold, &r))
		memset(&r, 0, sizeof(r));
	*seen = r.tasks_seen;
	*dropped = r.tasks_dropped;
}

struct test {
	const char *name;
	int (*setup)(void);		/* per iteration, before arming */
	int (*op)(void);		/* the call under test: 0 or -errno */
	void (*undo)(int ret, bool fired); /* checks, then cleanup */
	const int *errs;		/* errnos allowed under injection */
	bool needs_ring;
	int ok_err;			/* an errno that is fine anyway */
	bool pool;			/* may consume pool entries */
};

static const int errs_nomem[] = { ENOMEM, 0 };
static const int errs_open[] = { ENOMEM, ENFILE, EMFILE, 0 };
static const int errs_fork[] = { ENOMEM, EAGAIN, 0 };
static const int errs_mmap[] = { ENOMEM, EAGAIN, 0 };
/* perf_event_create_kernel_counter() and cgroup lookups can turn an
 * allocation failure into other errors; all are clean failures
 */
static const int errs_create[] = { ENOMEM, EBADF, ENODEV, EINVAL, ENOENT,
				   EAGAIN, 0 };

static bool in_list(int e, const int *l)
{
	for (; *l; l++)
		if (*l == e)
			return true;
	return false;
}

/* setups */
static int setup_fd(void)
{
	C.fd = dev_open();
	return C.fd < 0 ? -errno : 0;
}

static int setup_none(void)
{
	C.fd = -1;
	return 0;
}

static int setup_create_self(void)
{
	attr_init(&C.a, PMUCTX_TARGET_PID, 0,
		  PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED);
	return setup_fd();
}

static int setup_create_threads(void)
{
	attr_init(&C.a, PMUCTX_TARGET_PID, C.kid.pid, PMUCTX_SESSION_INHERIT);
	return setup_fd();
}

static int setup_create_system(void)
{
	attr_init(&C.a, PMUCTX_TARGET_SYSTEM, 0, PMUCTX_SESSION_KEEP_EXITED);
	C.a.nr_events = 4;
	C.a.events[3] = PMUCTX_EV_PAGE_FAULTS;
	return setup_fd();
}

static int setup_create_cgroup(void)
{
	attr_init(&C.a, PMUCTX_TARGET_CGROUP, 0, 0);
	C.a.cgroup_fd = C.cgfd;
	C.a.nr_events = 2;
	C.a.events[1] = PMUCTX_EV_CPU_CLOCK;
	C.a.events[2] = 0;
	return setup_fd();
}

/*
 * Sessions with a ring buffer are not created under injection: a failure
 * inside vmalloc_user() prints warn_alloc() with a stack trace (no
 * exported way to pass __GFP_NOWARN), which the VM harness rightly counts
 * as a failure.  setup_create_ring() is the uninjected fixture.
 */
static int setup_create_selftest(void)
{
	attr_init(&C.a, PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_INHERIT |
		  PMUCTX_SESSION_KEEP_EXITED);
	C.a.backend = PMUCTX_BACKEND_SELFTEST;
	C.a.data_size = 788;
	C.a.max_exited = 16;
	return setup_fd();
}

static int setup_create_ring(void)
{
	attr_init(&C.a, PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_INHERIT);
	C.a.backend = PMUCTX_BACKEND_SELFTEST;
	C.a.data_size = 788;
	C.a.ring_pages = 2;
	C.a.ring_mode = PMUCTX_RING_NORMAL;
	C.a.ring_records = PMUCTX_REC_MASK_ALL;
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	C.a.sample_freq = 100;
	C.a.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK |
			   PMUCTX_SAMPLE_USER_STACK | PMUCTX_SAMPLE_DEFER_USER;
#endif
	return setup_fd();
}

static int setup_hold(void)
{
	C.fd = C.hold;
	return 0;
}

static int setup_ring(void)
{
	C.fd = C.ring;
	return 0;
}

static int setup_fork(void)
{
	C.fd = C.hold;
	hold_counts(&C.seen0, &C.dropped0);
	return 0;
}

/* operations */
static int op_info(void)
{
	struct pmuctx_info in = { .size = sizeof(in) };

	return op_ioctl(PMUCTX_IOC_INFO, &in);
}

static int op_enable(void) { return op_ioctl(PMUCTX_IOC_ENABLE, NULL); }
static int op_disable(void) { return op_ioctl(PMUCTX_IOC_DISABLE, NULL); }
static int op_reset(void) { return op_ioctl(PMUCTX_IOC_RESET, NULL); }
static int op_snapshot(void) { return op_ioctl(PMUCTX_IOC_SNAPSHOT, NULL); }
static int op_resume(void) { return op_ioctl(PMUCTX_IOC_RESUME, NULL); }

static struct pmuctx_task_values tv[256];

static int op_read(void)
{
	struct pmuctx_read r = { .size = sizeof(r) };

	return op_ioctl(PMUCTX_IOC_READ, &r);
}

/* at most a page of values: a larger buffer is kvmalloc()ed, whose
 * vmalloc fallback warns (with a stack trace) when it fails
 */
static int op_read_tasks(void)
{
	struct pmuctx_read r = {
		.size = sizeof(r), .flags = PMUCTX_READ_PER_TASK,
		.nr_tasks = 4096 / sizeof(tv[0]), .task_size = sizeof(tv[0]),
		.tasks_ptr = (uintptr_t)tv,
	};

	return op_ioctl(PMUCTX_IOC_READ, &r);
}

static int op_consume(void)
{
	struct pmuctx_ring_consume c = { .size = sizeof(c), .cpu = 0 };
	const struct pmuctx_ring_ctl *ctl = C.map;

	if (ctl)
		c.tail = __atomic_load_n(&ctl->data_tail, __ATOMIC_ACQUIRE);
	return op_ioctl(PMUCTX_IOC_RING_CONSUME, &c);
}

static int op_mmap(void)
{
	void *m = mmap(NULL, C.maplen, PROT_READ, MAP_SHARED, C.fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	C.map2 = m;
	return 0;
}

static int op_write(void)
{
	/*
	 * Over 256 bytes: pmuctx_write() copies shorter payloads to the
	 * stack, longer ones with memdup_user() - the allocation to fail.
	 */
	static char msg[512] = "pmuctx-faults user record";

	return write(C.fd, msg, sizeof(msg)) < 0 ? -errno : 0;
}

static int op_read2(void)
{
	static char buf[65536];

	return read(C.fd, buf, sizeof(buf)) < 0 ? -errno : 0;
}

static int op_poll(void)
{
	struct pollfd p = { .fd = C.fd, .events = POLLIN };

	return poll(&p, 1, 0) < 0 ? -errno : 0;
}

static int op_close(void)
{
	return close(C.fd) ? -errno : 0;
}

static int op_fork(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	if (p < 0)
		return -errno;
	C.pid = p;
	return 0;
}

static int op_thread(void)
{
	int e = pthread_create(&C.thr, NULL, noop, NULL);

	return e ? -e : 0;
}

/* undo / checks */
static void undo_close_fd(int ret, bool fired)
{
	(void)ret;
	(void)fired;
	if (C.fd >= 0)
		close(C.fd);
	C.fd = -1;
}

static void undo_nothing(int ret, bool fired)
{
	(void)ret;
	(void)fired;
}

static void undo_create(int ret, bool fired)
{
	(void)fired;
	if (ret) {
		/* the fd must still be a fresh one: create works now */
		int r = ioctl(C.fd, PMUCTX_IOC_SESSION_CREATE, &C.a) ? -errno : 0;

		if (r)
			result(0, "SESSION_CREATE retried on the same fd after an injected failure: %s",
			       strerror(-r));
	}
	close(C.fd);
	C.fd = -1;
}

static void undo_enable(int ret, bool fired)
{
	(void)ret;
	(void)fired;
	ioctl(C.fd, PMUCTX_IOC_ENABLE, 0);
}

/* a fresh ring session each time: the fixture one is mapped already */
static int setup_mmap(void)
{
	int r = setup_create_ring();

	if (r)
		return r;
	if (ioctl(C.fd, PMUCTX_IOC_SESSION_CREATE, &C.a))
		return -errno;
	return 0;
}

static void undo_mmap(int ret, bool fired)
{
	(void)fired;
	if (!ret)
		munmap(C.map2, C.maplen);
	close(C.fd);
	C.fd = -1;
}

static void undo_resume(int ret, bool fired)
{
	(void)ret;
	(void)fired;
	ioctl(C.fd, PMUCTX_IOC_RESUME, 0);
}

/*
 * After a fork or clone (@what) that returned @ret: a child that exists is
 * tracked or counted as dropped, exactly once; a failed one is neither.
 */
static void one_new_task(const char *what, int ret)
{
	uint64_t seen, dropped;

	hold_counts(&seen, &dropped);
	if ((seen - C.seen0) + (dropped - C.dropped0) != (ret ? 0u : 1u))
		result(0, "%s %s: session saw %llu new tasks and dropped %llu",
		       what, ret ? "failed" : "succeeded",
		       (unsigned long long)(seen - C.seen0),
		       (unsigned long long)(dropped - C.dropped0));
}

static void undo_fork(int ret, bool fired)
{
	int st;

	(void)fired;
	if (!ret)
		waitpid(C.pid, &st, 0);
	one_new_task("fork", ret);
}

static void undo_thread(int ret, bool fired)
{
	(void)fired;
	if (!ret)
		pthread_join(C.thr, NULL);
	one_new_task("clone(thread)", ret);
}

static void undo_close(int ret, bool fired)
{
	(void)ret;
	(void)fired;
	C.fd = -1;
}

static int setup_close(void)
{
	int r = setup_create_ring();

	if (r)
		return r;
	if (ioctl(C.fd, PMUCTX_IOC_SESSION_CREATE, &C.a) ||
	    ioctl(C.fd, PMUCTX_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

static const struct test tests[] = {
	{ "open", setup_none, op_open, undo_close_fd, errs_open, false, 0 },
	{ "INFO", setup_fd, op_info, undo_close_fd, errs_nomem, false, 0 },
	{ "SESSION_CREATE pid=self inherit", setup_create_self, op_create,
	  undo_create, errs_create, false, 0 },
	{ "SESSION_CREATE pid with 9 threads", setup_create_threads, op_create,
	  undo_create, errs_create, false, 0 },
	{ "SESSION_CREATE system-wide + perf event", setup_create_system,
	  op_create, undo_create, errs_create, false, 0 },
	{ "SESSION_CREATE cgroup", setup_create_cgroup, op_create, undo_create,
	  errs_create, false, 0 },
	{ "SESSION_CREATE selftest backend 788 B", setup_create_selftest,
	  op_create, undo_create, errs_create, false, 0 },
	{ "DISABLE", setup_hold, op_disable, undo_enable, errs_nomem, false, 0 },
	{ "ENABLE", setup_hold, op_enable, undo_nothing, errs_nomem, false, 0 },
	{ "RESET", setup_hold, op_reset, undo_nothing, errs_nomem, false, 0 },
	{ "READ", setup_hold, op_read, undo_nothing, errs_nomem, false, 0 },
	{ "READ per task", setup_hold, op_read_tasks, undo_nothing, errs_nomem,
	  false, ENOSPC },
	{ "SNAPSHOT", setup_ring, op_snapshot, undo_resume, errs_nomem, true, 0 },
	{ "RESUME", setup_ring, op_resume, undo_nothing, errs_nomem, true, 0 },
	{ "RING_CONSUME", setup_ring, op_consume, undo_nothing, errs_nomem, true, 0 },
	{ "mmap", setup_mmap, op_mmap, undo_mmap, errs_mmap, true, 0 },
	{ "write(2)", setup_ring, op_write, undo_nothing,
	  (const int[]){ ENOMEM, 0 }, true, ENOSPC },
	{ "read(2)", setup_ring, op_read2, undo_nothing,
	  (const int[]){ ENOMEM, 0 }, true, EAGAIN },
	{ "poll", setup_ring, op_poll, undo_nothing, errs_nomem, true, 0 },
	{ "close (session teardown)", setup_close, op_close, undo_close,
	  errs_nomem, true, 0 },
	{ "fork of a monitored task", setup_fork, op_fork, undo_fork, errs_fork,
	  false, 0, true },
	{ "clone(thread) of a monitored task", setup_fork, op_thread,
	  undo_thread, errs_fork, false, 0, true },
};

static bool wait_state2(const struct state *want, struct state *got, int ms,
			bool nopool)
{
	for (;;) {
		*got = get_state();
		if (nopool)
			got->bytes = got->pool = 0;
		if (state_eq(want, got) || ms <= 0)
			return state_eq(want, got);
		usleep(10000);
		ms -= 10;
	}
}

/* The state once RCU-deferred frees of earlier iterations are done. */
static struct state settle(void)
{
	struct state a = get_state(), b;
	int i;

	int same = 0;

	/* stable for 200 ms: RCU frees of the previous iteration are done */
	for (i = 0; i < 400 && same < 8; i++) {
		usleep(25000);
		b = get_state();
		same = state_eq(&a, &b) ? same + 1 : 0;
		a = b;
	}
	return a;
}

static void run_test(const struct test *t)
{
	struct state before, after, got;
	int n, ret, sites = 0, bad = 0;
	bool fired;

	if (t->needs_ring && !(features & PMUCTX_FEAT_RING)) {
		skip("the module has no ring buffers", "faults: %s", t->name);
		return;
	}
	before = settle();
	for (n = 1; n <= max_nth; n++) {
		struct state pre;

		ret = t->setup();
		if (ret) {
			result(0, "faults: %s: setup failed: %s", t->name,
			       strerror(-ret));
			return;
		}
		/* tests that fork compare with the start: their earlier
		 * children's entries may still be waiting for RCU
		 */
		pre = t->pool ? before : settle();
		nth_write(n);
		ret = t->op();
		fired = nth_fired();
		nth_write(0);
		if (!fired) {
			if (ret && ret != -t->ok_err) {
				result(0, "faults: %s: fails without injection: %s",
				       t->name, strerror(-ret));
				bad++;
			}
			t->undo(ret, false);
			break;
		}
		sites++;
		total_injected++;
		if (ret && ret != -t->ok_err && !in_list(-ret, t->errs)) {
			result(0, "faults: %s: failure #%d gave errno %d (%s)",
			       t->name, n, -ret, strerror(-ret));
			bad++;
		}
		if (t->pool) {
			/* a failed atomic allocation takes a pool entry: the
			 * pool refills below half, so bytes and pool may move
			 */
			pre.bytes = pre.pool = 0;
		}
		if (ret && !wait_state2(&pre, &got, 3000, t->pool)) {
			result(0, "faults: %s: failure #%d changed the store: before %s, after %s",
			       t->name, n, state_str(&pre), state_str(&got));
			bad++;
		}
		t->undo(ret, true);
		if (bad > 5)
			break;
	}
	if (n > max_nth)
		diag("%s: stopped at --max-nth %d", t->name, max_nth);
	after = before;
	if (t->pool)
		before.bytes = before.pool = 0;
	if (!wait_state2(&before, &after, 5000, t->pool)) {
		result(0, "faults: %s: store not back to its start: before %s, after %s",
		       t->name, state_str(&before), state_str(&after));
		bad++;
	}
	result(!bad, "faults: %s: %d allocation failures injected, each failed cleanly or was absorbed, state restored",
	       t->name, sites);
}

/* ---- exec: the failure is read back by the new image -------------------- */

static void exec_test(void)
{
	int n, sites = 0, bad = 0, p[2], st;
	uint64_t seen, dropped;
	char msg[64];

	for (n = 1; n <= max_nth; n++) {
		pid_t pid;
		ssize_t len;

		C.fd = C.hold;
		hold_counts(&C.seen0, &C.dropped0);
		if (pipe(p))
			exit(2);
		pid = fork();
		if (pid == 0) {
			char a1[16], a2[16];
			int fd = arm_open();

			close(p[0]);
			/* a failure in the new image's own startup (ld.so,
			 * libc) complains on stderr: not ours to report
			 */
			dup2(open("/dev/null", O_WRONLY), 2);
			snprintf(a1, sizeof(a1), "%d", fd);
			snprintf(a2, sizeof(a2), "%d", p[1]);
			nth_fd = fd;
			nth_write(n);
			execl(self_exe, "pmuctx-faults", "--exec-report", a1, a2,
			      (char *)NULL);
			len = snprintf(msg, sizeof(msg), "F %d %d\n", errno,
				       nth_fired());
			if (write(p[1], msg, len) < 0)
				_exit(4);
			_exit(99);
		}
		close(p[1]);
		len = read(p[0], msg, sizeof(msg) - 1);
		close(p[0]);
		waitpid(pid, &st, 0);
		msg[len > 0 ? len : 0] = 0;
		hold_counts(&seen, &dropped);
		if (msg[0] == 'F') {
			int e = 0, f = 0;

			sscanf(msg + 2, "%d %d", &e, &f);
			if (!f) {
				result(0, "faults: exec: failed without injection: %s",
				       strerror(e));
				bad++;
				break;
			}
			sites++;
			total_injected++;
			/* copy_strings() says E2BIG when a page cannot be had */
			if (e != ENOMEM && e != EAGAIN && e != EFAULT &&
			    e != ENOEXEC && e != E2BIG) {
				result(0, "faults: exec failure #%d: errno %d", n, e);
				bad++;
			}
		} else if (msg[0] == 'E') {
			/* the new image ran: was the n-th allocation reached? */
			if (atoi(msg + 2) != 0)
				break;
			sites++;
			total_injected++;
		} else {
			/* the failure hit the new image's startup: fine */
			sites++;
			total_injected++;
		}
		if (seen - C.seen0 + dropped - C.dropped0 != 1) {
			result(0, "faults: exec #%d: the forked child was seen %llu, dropped %llu times",
			       n, (unsigned long long)(seen - C.seen0),
			       (unsigned long long)(dropped - C.dropped0));
			bad++;
		}
		if (bad > 5)
			break;
	}
	result(!bad, "faults: exec of a monitored task: %d allocation failures injected, each failed cleanly", sites);
}

/* ---- the pool running dry ------------------------------------------------- */

static int failslab(const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FS "%s", knob);
	return write_file(path, val);
}

static void *storm_thread(void *arg)
{
	return arg;
}

static void pool_storm(void)
{
	struct pmuctx_info i0, i1;
	struct pmuctx_read r;
	int pfd, sfd, k, forks = 0, threads = 0, st;
	uint64_t t_end;

	get_info(&i0);
	pfd = session(PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_INHERIT);
	sfd = session(PMUCTX_TARGET_SYSTEM, 0, 0);
	result(pfd >= 0 && sfd >= 0, "pool-storm: a pid (inherit) and a system-wide session (%d, %d)",
	       pfd, sfd);
	if (pfd < 0 || sfd < 0)
		return;
	diag("pool_size %s, max_tasks %s: every GFP_ATOMIC/GFP_NOWAIT slab allocation fails for 3 s",
	     "1", "64");
	failslab("ignore-gfp-wait", "Y");
	failslab("task-filter", "N");
	failslab("interval", "1");
	failslab("times", "-1");
	failslab("space", "0");
	failslab("verbose", "0");
	failslab("probability", "100");
	t_end = now_ns() + 3000000000ULL;
	while (now_ns() < t_end) {
		pthread_t t[8];
		pid_t p[16];

		for (k = 0; k < 16; k++) {
			p[k] = fork();
			if (p[k] == 0) {
				sched_yield();
				_exit(0);
			}
			if (p[k] > 0)
				forks++;
		}
		for (k = 0; k < 8; k++)
			if (!pthread_create(&t[k], NULL, storm_thread, NULL))
				threads++;
			else
				t[k] = 0;
		for (k = 0; k < 8; k++)
			if (t[k])
				pthread_join(t[k], NULL);
		for (k = 0; k < 16; k++)
			if (p[k] > 0)
				waitpid(p[k], &st, 0);
	}
	failslab("probability", "0");
	failslab("ignore-gfp-wait", "N");
	get_info(&i1);
	k = sread(pfd, &r);
	diag("%d forks and %d threads; session: seen %llu dropped %llu; global: alloc_failures +%llu dropped +%llu",
	     forks, threads, (unsigned long long)r.tasks_seen,
	     (unsigned long long)r.tasks_dropped,
	     (unsigned long long)(i1.alloc_failures - i0.alloc_failures),
	     (unsigned long long)(i1.dropped - i0.dropped));
	result(!k && r.tasks_seen - 1 + r.tasks_dropped == (uint64_t)(forks + threads),
	       "pool-storm: every fork and thread is tracked or counted as dropped (%llu + %llu = %d)",
	       (unsigned long long)(r.tasks_seen - 1),
	       (unsigned long long)r.tasks_dropped, forks + threads);
	result(r.tasks_dropped > 0 && i1.dropped > i0.dropped,
	       "pool-storm: the pools ran dry: tasks were dropped");
	result(i1.alloc_failures > i0.alloc_failures,
	       "pool-storm: the failed atomic allocations are counted");
	close(pfd);
	close(sfd);
	result(store_empty(5000), "pool-storm: store empty after the sessions are closed");
}

/* ---- main ------------------------------------------------------------------- */

static int setup_failslab(void)
{
	if (access("/proc/self/fail-nth", F_OK) || access(FS, F_OK))
		return -1;
	failslab("ignore-gfp-wait", "N");
	failslab("verbose", "0");
	failslab("task-filter", "N");
	failslab("probability", "0");
	failslab("cache-filter", "N");
	failslab("ignore-gfp-highmem", "N");	/* fail_page_alloc only */
	return 0;
}

int main(int argc, char **argv)
{
	struct pmuctx_info in;
	unsigned int i;
	int a, first = 1;
	bool all;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "--exec-report")) {
		/* the exec'd image: report how far the counter got */
		char buf[16] = "", msg[32];
		int fd = atoi(argv[2]), out = atoi(argv[3]), len;

		if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
			strcpy(buf, "-1");
		len = snprintf(msg, sizeof(msg), "E %d\n", atoi(buf));
		if (pwrite(fd, "0", 1, 0) < 0 || write(out, msg, len) < 0)
			return 4;
		return 0;
	}
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		strcpy(self_exe, argv[0]);
	if (argc > 2 && !strcmp(argv[1], "--max-nth")) {
		max_nth = atoi(argv[2]);
		first = 3;
	}
	if (argc > first && !strcmp(argv[first], "list")) {
		for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			printf("%s\n", tests[i].name);
		printf("exec of a monitored task\npool-storm\n");
		return 0;
	}
	if (setup_failslab()) {
		printf("1..0 # SKIP no fault injection in this kernel (/proc/self/fail-nth, %s)\n", FS);
		return 0;
	}
	if (get_info(&in)) {
		perror(PMUCTX_DEVICE_PATH);
		return 2;
	}
	nr_cpus = in.nr_cpus;
	features = in.features;
	if (argc > first && !strcmp(argv[first], "pool-storm")) {
		pool_storm();
		return !!failures;
	}
	nth_fd = arm_open();
	if (nth_fd < 0) {
		perror("fail-nth");
		return 2;
	}

	/* fixtures: a session on ourselves, a ring session, a target with
	 * threads, a cgroup
	 */
	C.hold = session(PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_INHERIT);
	setup_create_ring();
	close(C.fd);
	C.ring = (features & PMUCTX_FEAT_RING) ? session_attr(&C.a, true) : -1;
	C.maplen = (size_t)nr_cpus * (1 + 2) * 4096;
	C.kid = gated_child(threads_fn, NULL);
	gate_open(&C.kid);
	mkdir("/sys/fs/cgroup/pmuctx-faults", 0755);
	C.cgfd = open("/sys/fs/cgroup/pmuctx-faults", O_RDONLY | O_DIRECTORY);
	usleep(100000);
	if (C.hold < 0) {
		result(0, "faults: a session on ourselves: %s", strerror(-C.hold));
		return 1;
	}
	/* the ring session's mapping for RING_CONSUME */
	if (C.ring >= 0) {
		C.map = mmap(NULL, C.maplen, PROT_READ, MAP_SHARED, C.ring, 0);
		if (C.map == MAP_FAILED)
			C.map = NULL;
	}

	all = argc <= first || !strcmp(argv[first], "all");
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		bool run = all;

		for (a = first; a < argc; a++)
			run |= !strcmp(argv[a], tests[i].name);
		if (run)
			run_test(&tests[i]);
	}
	if (all)
		exec_test();

	if (C.map)
		munmap(C.map, C.maplen);
	close(C.hold);
	if (C.ring >= 0)
		close(C.ring);
	kill(C.kid.pid, SIGKILL);
	waitpid(C.kid.pid, NULL, 0);
	close(C.cgfd);
	rmdir("/sys/fs/cgroup/pmuctx-faults");
	result(store_empty(5000), "faults: store empty at the end");
	printf("# faults injected: %ld\n", total_injected);
	return !!failures;
}
