// SPDX-License-Identifier: GPL-2.0
/*
 * abi_info: checks the /dev/pmuctx kernel ABI with raw ioctls (no
 * libpmuctx), as root with the module loaded.  One "ok - ..." or
 * "not ok - ..." line per check, "# ..." diagnostics, and a last line
 * "N passed, M failed".  Exits 1 if any check failed.
 *
 * Usage: abi_info [DEVICE]      (default /dev/pmuctx)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/perf_event.h>
#include <linux/pmuctx.h>

static const char *dev = PMUCTX_DEVICE_PATH;
static int passed, failed;
static struct pmuctx_info kinfo;	/* the module's answer at full size */

static void check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

static const char *ename(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case EBUSY: return "EBUSY";
	case ESRCH: return "ESRCH";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSPC: return "ENOSPC";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case ENOSYS: return "ENOSYS";
	default:
		snprintf(buf, sizeof(buf), "errno %d", e);
		return buf;
	}
}

/* 0 or the errno of the ioctl */
static int xioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? errno : 0;
}

static int xioctl_p(int fd, unsigned long req, void *arg)
{
	return xioctl(fd, req, (unsigned long)(uintptr_t)arg);
}

static void expect(int got, int want, const char *desc)
{
	check(got == want, "%s -> %s", desc, ename(want));
	if (got != want)
		printf("#   got %s (%s), expected %s\n", ename(got),
		       got ? strerror(got) : "no error", ename(want));
}

static int open_dev(void)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("not ok - open %s: %s\n", dev, strerror(errno));
		printf("Bail out! cannot open the device\n");
		printf("%d passed, %d failed\n", passed, failed + 1);
		exit(1);
	}
	return fd;
}

static void burn_ms(long ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 7;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000L +
		 (b.tv_nsec - a.tv_nsec) / 1000000L < ms);
}

/* ---- INFO ------------------------------------------------------------- */

static void test_info(int fd)
{
	union {
		struct pmuctx_info info;
		unsigned char b[sizeof(struct pmuctx_info) + 64];
		uint64_t align;
	} u;
	const size_t full = sizeof(struct pmuctx_info);
	void *page;
	size_t i;
	bool untouched, nul;
	int r;

	/* VER0 */
	memset(u.b, 0xa5, sizeof(u.b));
	memset(u.b, 0, PMUCTX_INFO_SIZE_VER0);
	u.info.size = PMUCTX_INFO_SIZE_VER0;
	r = xioctl_p(fd, PMUCTX_IOC_INFO, &u);
	expect(r, 0, "INFO at PMUCTX_INFO_SIZE_VER0");
	check(u.info.abi_version == PMUCTX_ABI_VERSION,
	      "INFO VER0: abi_version == PMUCTX_ABI_VERSION (%d)",
	      PMUCTX_ABI_VERSION);
	if (u.info.abi_version != PMUCTX_ABI_VERSION)
		printf("#   module abi_version %u\n", u.info.abi_version);
	for (i = 0, nul = false; i < PMUCTX_VERSION_LEN; i++)
		if (!u.info.version[i])
			nul = true;
	check(nul && u.info.version[0], "INFO VER0: version string is "
	      "non-empty and NUL terminated");
	if (nul)
		printf("# module version '%s', features 0x%llx, %u cpus\n",
		       u.info.version, (unsigned long long)u.info.features,
		       u.info.nr_cpus);
	for (i = PMUCTX_INFO_SIZE_VER0, untouched = true; i < sizeof(u.b);
	     i++)
		if (u.b[i] != 0xa5)
			untouched = false;
	check(untouched, "INFO VER0: bytes past PMUCTX_INFO_SIZE_VER0 in the "
	      "caller's buffer are untouched");
	check(u.info.size == PMUCTX_INFO_SIZE_VER0,
	      "INFO VER0: size reports the %d bytes filled",
	      PMUCTX_INFO_SIZE_VER0);
	if (u.info.size != PMUCTX_INFO_SIZE_VER0)
		printf("#   size %u\n", u.info.size);

	/* current size */
	memset(u.b, 0, sizeof(u.b));
	u.info.size = (__u32)full;
	r = xioctl_p(fd, PMUCTX_IOC_INFO, &u);
	expect(r, 0, "INFO at sizeof(struct pmuctx_info)");
	check(u.info.size == full, "INFO current: size == %zu", full);
	check(u.info.nr_cpus >= 1 && (u.info.features & PMUCTX_FEAT_COUNTING),
	      "INFO current: nr_cpus >= 1 and the counting feature");
	check(u.info.max_tasks > 0 && u.info.entry_bytes > 0,
	      "INFO current: max_tasks and entry_bytes are set");
	kinfo = u.info;

	/* larger, zero tail */
	memset(u.b, 0, sizeof(u.b));
	u.info.size = (__u32)(full + 64);
	r = xioctl_p(fd, PMUCTX_IOC_INFO, &u);
	expect(r, 0, "INFO with size = current + 64 and a zero tail");
	check(u.info.size == full, "INFO larger: size reports the module's "
	      "%zu bytes", full);

	/* larger, non-zero tail */
	memset(u.b, 0, sizeof(u.b));
	u.info.size = (__u32)(full + 64);
	u.b[full + 10] = 1;
	r = xioctl_p(fd, PMUCTX_IOC_INFO, &u);
	expect(r, E2BIG, "INFO with a non-zero byte in the tail");
	check(u.info.size == full, "INFO E2BIG: size written back == "
	      "sizeof(struct pmuctx_info) (%zu)", full);
	if (u.info.size != full)
		printf("#   size %u\n", u.info.size);

	memset(u.b, 0, sizeof(u.b));
	u.info.size = PMUCTX_INFO_SIZE_VER0 - 8;
	expect(xioctl_p(fd, PMUCTX_IOC_INFO, &u), EINVAL,
	       "INFO with size < PMUCTX_INFO_SIZE_VER0");
	memset(u.b, 0, sizeof(u.b));
	expect(xioctl_p(fd, PMUCTX_IOC_INFO, &u), EINVAL, "INFO with size 0");
	memset(u.b, 0, sizeof(u.b));
	u.info.size = (__u32)full;
	u.info.flags = 1;
	expect(xioctl_p(fd, PMUCTX_IOC_INFO, &u), EINVAL,
	       "INFO with non-zero flags");

	expect(xioctl(fd, PMUCTX_IOC_INFO, 0), EFAULT, "INFO with NULL");
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(page, 4096);
	expect(xioctl_p(fd, PMUCTX_IOC_INFO, page), EFAULT,
	       "INFO with an unmapped pointer");

	expect(xioctl(fd, _IO(PMUCTX_IOC_MAGIC, 0x7f), 0), ENOTTY,
	       "unknown ioctl number 0x7f on the pmuctx magic");
	expect(xioctl_p(fd, _IOWR('x', 0x00, struct pmuctx_info), &u),
	       ENOTTY, "foreign ioctl magic");
}

/* ---- not a session --------------------------------------------------- */

static void read_init(struct pmuctx_read *r, __u32 flags, __u32 nr,
		      void *tasks)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->flags = flags;
	r->nr_tasks = nr;
	r->task_size = sizeof(struct pmuctx_task_values);
	r->tasks_ptr = (__u64)(uintptr_t)tasks;
}

static void test_not_session(int fd)
{
	struct pmuctx_read r;

	expect(xioctl(fd, PMUCTX_IOC_ENABLE, 0), EINVAL,
	       "ENABLE on an fd that is not a session");
	expect(xioctl(fd, PMUCTX_IOC_DISABLE, 0), EINVAL,
	       "DISABLE on an fd that is not a session");
	expect(xioctl(fd, PMUCTX_IOC_RESET, 0), EINVAL,
	       "RESET on an fd that is not a session");
	read_init(&r, 0, 0, NULL);
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), EINVAL,
	       "READ on an fd that is not a session");
}

/* ---- SESSION_CREATE ----------------------------------------------------- */

static void attr_init(struct pmuctx_session_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->target = PMUCTX_TARGET_PID;
	a->pid = 0;
	a->cgroup_fd = -1;
	a->nr_events = 1;
	a->events[0] = PMUCTX_EV_TASK_CLOCK;
}

/* create on a fresh fd, close it; returns 0 or errno */
static int try_create(struct pmuctx_session_attr *a)
{
	int fd = open_dev(), r;

	r = xioctl_p(fd, PMUCTX_IOC_SESSION_CREATE, a);
	close(fd);
	return r;
}

static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void test_create(void)
{
	union {
		struct pmuctx_session_attr a;
		unsigned char b[sizeof(struct pmuctx_session_attr) + 8];
		uint64_t align;
	} u;
	struct pmuctx_session_attr a;
	int fd, r;

	attr_init(&a);
	expect(try_create(&a), 0, "SESSION_CREATE with a valid attr "
	       "(task-clock of the caller)");

	attr_init(&a);
	a.flags = 1U << 31;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with unknown flag "
	       "bit 31");
	attr_init(&a);
	a.flags = PMUCTX_SESSION_FLAGS_ALL + 1;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with the first "
	       "unknown flag bit");
	attr_init(&a);
	a.target = 0;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with target 0");
	attr_init(&a);
	a.target = 99;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with target 99");
	attr_init(&a);
	a.nr_events = 0;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with nr_events 0");
	attr_init(&a);
	a.nr_events = 9;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with nr_events 9");
	attr_init(&a);
	a.events[0] = PMUCTX_EV_MAX + 1;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with an unknown "
	       "event id (PMUCTX_EV_MAX + 1)");
	attr_init(&a);
	a.events[0] = 0;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with event id 0");
	attr_init(&a);
	a.nr_events = 2;
	a.events[1] = PMUCTX_EV_TASK_CLOCK;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with a duplicate "
	       "event");

	/* sizes */
	attr_init(&a);
	a.size = PMUCTX_SESSION_ATTR_SIZE_VER0 - 4;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with size < "
	       "PMUCTX_SESSION_ATTR_SIZE_VER0");
	memset(&u, 0, sizeof(u));
	attr_init(&u.a);
	u.a.size = sizeof(u.b);
	u.b[sizeof(u.a) + 3] = 1;
	fd = open_dev();
	r = xioctl_p(fd, PMUCTX_IOC_SESSION_CREATE, &u);
	close(fd);
	expect(r, E2BIG, "SESSION_CREATE with a non-zero byte past the "
	       "module's struct");
	check(u.a.size == sizeof(struct pmuctx_session_attr),
	      "SESSION_CREATE E2BIG: size written back == %zu",
	      sizeof(struct pmuctx_session_attr));
	memset(&u, 0, sizeof(u));
	attr_init(&u.a);
	u.a.size = sizeof(u.b);
	expect(try_create(&u.a), 0, "SESSION_CREATE with a larger size and "
	       "a zero tail");

	/* reserved and backend rules */
	attr_init(&a);
	a.__reserved = 1;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with __reserved != 0");
	attr_init(&a);
	a.data_size = 8;
	expect(try_create(&a), EINVAL, "SESSION_CREATE backend NONE with "
	       "data_size 8");
	attr_init(&a);
	a.backend = 99;
	expect(try_create(&a), EINVAL, "SESSION_CREATE with backend 99");
	attr_init(&a);
	a.backend = PMUCTX_BACKEND_SELFTEST;
	a.data_size = 4;
	expect(try_create(&a), EINVAL, "SESSION_CREATE selftest with "
	       "data_size 4");
	a.data_size = PMUCTX_MAX_DATA_SIZE + 8;
	expect(try_create(&a), EINVAL, "SESSION_CREATE selftest with "
	       "data_size > PMUCTX_MAX_DATA_SIZE");
	/* only the debug build has the backend (docs/ABI.md) */
	a.data_size = 64;
	if (kinfo.features & PMUCTX_FEAT_SELFTEST)
		expect(try_create(&a), 0, "SESSION_CREATE selftest with "
		       "data_size 64");
	else
		expect(try_create(&a), EOPNOTSUPP, "SESSION_CREATE selftest "
		       "with data_size 64 on a release module (no "
		       "PMUCTX_FEAT_SELFTEST)");
	/* a malformed struct is EINVAL first, even without the backend */
	a.max_exited = (1U << 20) + 1;
	expect(try_create(&a), EINVAL, "SESSION_CREATE selftest with "
	       "max_exited > 2^20");
	attr_init(&a);
	a.cgroup_fd = 5;
	expect(try_create(&a), EINVAL, "SESSION_CREATE PID target with "
	       "cgroup_fd 5");
	attr_init(&a);
	a.target = PMUCTX_TARGET_SYSTEM;
	a.pid = 1;
	expect(try_create(&a), EINVAL, "SESSION_CREATE system target with "
	       "pid 1");

	/* EBUSY */
	fd = open_dev();
	attr_init(&a);
	r = xioctl_p(fd, PMUCTX_IOC_SESSION_CREATE, &a);
	expect(r, 0, "SESSION_CREATE (first on this fd)");
	attr_init(&a);
	expect(xioctl_p(fd, PMUCTX_IOC_SESSION_CREATE, &a), EBUSY,
	       "SESSION_CREATE again on the same fd");
	close(fd);

	attr_init(&a);
	a.pid = dead_pid();
	expect(try_create(&a), ESRCH, "SESSION_CREATE for a pid that does "
	       "not exist");

	/*
	 * PMUCTX_FEAT_HW_PMU against the kernel's own answer: can this task
	 * open a user-only cycles counter on itself (perf finds no PMU for
	 * PERF_TYPE_HARDWARE without one)?
	 */
	{
		struct perf_event_attr pa;
		int pfd, perr;

		memset(&pa, 0, sizeof(pa));
		pa.size = sizeof(pa);
		pa.type = PERF_TYPE_HARDWARE;
		pa.config = PERF_COUNT_HW_CPU_CYCLES;
		pa.disabled = 1;
		pa.exclude_kernel = 1;
		pa.exclude_hv = 1;
		pfd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
		perr = pfd < 0 ? errno : 0;
		if (pfd >= 0)
			close(pfd);
		if (perr == EACCES || perr == EPERM)
			check(1, "INFO HW_PMU # SKIP perf_event_open is not allowed here (%s)",
			      ename(perr));
		else
			check(!!(kinfo.features & PMUCTX_FEAT_HW_PMU) == (pfd >= 0),
			      "INFO says HW_PMU exactly when perf can open a cycles counter (module %s, perf_event_open %s)",
			      kinfo.features & PMUCTX_FEAT_HW_PMU ? "yes" : "no",
			      pfd >= 0 ? "ok" : ename(perr));
	}

	attr_init(&a);
	a.events[0] = PMUCTX_EV_CYCLES;
	r = try_create(&a);
	if (kinfo.features & PMUCTX_FEAT_HW_PMU) {
		check(r == 0 || r == EOPNOTSUPP, "SESSION_CREATE cycles "
		      "# SKIP the module reports a hardware PMU (%s)",
		      ename(r));
	} else {
		expect(r, EOPNOTSUPP, "SESSION_CREATE with hardware event "
		       "PMUCTX_EV_CYCLES without a hardware PMU");
		if (r != EOPNOTSUPP)
			printf("# cycles gave errno %d (%s)\n", r,
			       strerror(r));
	}
}

/* ---- a live session ------------------------------------------------------ */

static void test_live(void)
{
	struct pmuctx_task_values tasks[64];
	struct pmuctx_session_attr a;
	union {
		struct pmuctx_read r;
		unsigned char b[sizeof(struct pmuctx_read) + 8];
		uint64_t align;
	} u;
	struct pmuctx_read r;
	char comm[17] = "";
	bool found = false;
	unsigned int i;
	int fd, e;

	prctl(PR_GET_NAME, comm);
	fd = open_dev();
	attr_init(&a);
	a.nr_events = 2;
	a.events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
	a.flags = PMUCTX_SESSION_INHERIT;
	expect(xioctl_p(fd, PMUCTX_IOC_SESSION_CREATE, &a), 0,
	       "SESSION_CREATE live session on the caller");
	expect(xioctl(fd, PMUCTX_IOC_ENABLE, 1), EINVAL,
	       "ENABLE with a non-zero argument");
	expect(xioctl(fd, PMUCTX_IOC_DISABLE, 1), EINVAL,
	       "DISABLE with a non-zero argument");
	expect(xioctl(fd, PMUCTX_IOC_RESET, 1), EINVAL,
	       "RESET with a non-zero argument");
	expect(xioctl(fd, PMUCTX_IOC_ENABLE, 0), 0, "ENABLE");
	burn_ms(20);
	usleep(1000);

	read_init(&r, PMUCTX_READ_PER_TASK, 64, tasks);
	r.task_size = PMUCTX_TASK_VALUES_SIZE_VER0 - 8;
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), EINVAL,
	       "READ per-task with task_size < PMUCTX_TASK_VALUES_SIZE_VER0");
	read_init(&r, PMUCTX_READ_PER_TASK, 0, NULL);
	e = xioctl_p(fd, PMUCTX_IOC_READ, &r);
	expect(e, ENOSPC, "READ per-task with capacity 0 on a live session");
	check(e == ENOSPC && r.nr_tasks >= 1, "READ ENOSPC: nr_tasks set to "
	      "the number needed (%u)", r.nr_tasks);
	read_init(&r, PMUCTX_READ_FLAGS_ALL + 1, 0, NULL);
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), EINVAL,
	       "READ with an unknown flag");
	read_init(&r, 0, 0, NULL);
	r.size = PMUCTX_READ_SIZE_VER0 - 8;
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), EINVAL,
	       "READ with size < PMUCTX_READ_SIZE_VER0");
	read_init(&r, 0, 0, NULL);
	r.__pad = 1;
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), EINVAL,
	       "READ with __pad != 0");
	memset(&u, 0, sizeof(u));
	read_init(&u.r, 0, 0, NULL);
	u.r.size = sizeof(u.b);
	u.b[sizeof(u.r) + 1] = 1;
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &u), E2BIG,
	       "READ with a non-zero byte past the module's struct");
	check(u.r.size == sizeof(struct pmuctx_read),
	      "READ E2BIG: size written back == %zu",
	      sizeof(struct pmuctx_read));

	read_init(&r, 0, 0, NULL);
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), 0, "READ totals");
	check(r.nr_events == 2, "READ: nr_events == 2 (%u)", r.nr_events);
	check(r.values[0] >= 10000000ULL, "READ: task-clock >= 10 ms after "
	      "burning 20 ms (%llu ns)", (unsigned long long)r.values[0]);
	check(r.time_enabled > 0 && r.tasks_seen >= 1,
	      "READ: time_enabled > 0 and tasks_seen >= 1");

	read_init(&r, PMUCTX_READ_PER_TASK, 64, tasks);
	memset(tasks, 0, sizeof(tasks));
	expect(xioctl_p(fd, PMUCTX_IOC_READ, &r), 0, "READ per-task");
	for (i = 0; i < r.nr_tasks && i < 64; i++)
		if (tasks[i].tid == (pid_t)syscall(SYS_gettid) &&
		    tasks[i].pid == getpid() &&
		    !strncmp(tasks[i].comm, comm, PMUCTX_COMM_LEN))
			found = true;
	check(found, "READ per-task: an entry for this thread (pid, tid, "
	      "comm '%s')", comm);

	expect(xioctl(fd, PMUCTX_IOC_DISABLE, 0), 0, "DISABLE");
	expect(xioctl(fd, PMUCTX_IOC_RESET, 0), 0, "RESET");
	read_init(&r, 0, 0, NULL);
	xioctl_p(fd, PMUCTX_IOC_READ, &r);
	check(r.values[0] == 0 && r.values[1] == 0,
	      "READ after DISABLE+RESET: counts are zero");
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			printf("usage: %s [DEVICE]\n", argv[0]);
			return 0;
		}
		dev = argv[1];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# pmuctx ABI checks on %s (ABI %d)\n", dev,
	       PMUCTX_ABI_VERSION);
	fd = open_dev();
	test_info(fd);
	test_not_session(fd);
	close(fd);
	test_create();
	test_live();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
