// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx-sec: the privilege model and information-leak checks
 * (tests/vm/cases/73-security.sh runs it, mostly as an unprivileged user).
 *
 *   pmuctx-sec deny PID...     pid sessions on each PID (other users' tasks,
 *                              kernel threads) are refused with EACCES,
 *                              also as THREAD targets
 *   pmuctx-sec nondumpable     an own child that made itself non-dumpable
 *                              cannot be watched; an ordinary one can
 *   pmuctx-sec perf            at the current perf_event_paranoid, each
 *                              target (own pid, system-wide, cgroup) is
 *                              allowed or refused exactly as
 *                              perf_event_open() decides for the same scope
 *   pmuctx-sec poison          every byte every ioctl, read(2) and the
 *                              ring mapping return: buffers pre-filled with
 *                              a pattern, reserved/padding fields and
 *                              string tails must come back zero, nothing
 *                              written past the reported size, no kernel
 *                              address in samples of an unprivileged caller
 *   pmuctx-sec limit N         sessions until refused: EMFILE after exactly
 *                              N (max_sessions_per_user), also in a second
 *                              process of the same user; the kernel stays
 *                              healthy
 *   pmuctx-sec userns          a user namespace with a fake
 *                              /proc/sys/kernel/perf_event_paranoid (-1)
 *                              bind-mounted over the real one must not
 *                              unlock system-wide sessions
 *   pmuctx-sec ring-tail       RING_CONSUME to a tail inside a record, then
 *                              read(2): returns (EIO or records), never
 *                              loops in the kernel
 *   pmuctx-sec privexec N SUID PLAIN
 *                              N sessions (more than the exec probe's
 *                              batch) on one task that execs PLAIN, then
 *                              on one that execs SUID (setuid root): one
 *                              EXEC record in each; at SUID every session
 *                              stops counting and sampling the task
 *   pmuctx-sec execwindow N SUID ROUNDS
 *                              N sessions with immediate user callchains
 *                              (hrtimer and cpu-clock overflow) on a task
 *                              that execs SUID (setuid root), ROUNDS
 *                              times: no SAMPLE may carry an address of
 *                              the setuid process (its /proc/self/maps,
 *                              printed by suidburn ... maps).  Run with
 *                              the debug build's selftest_exec_delay_ms,
 *                              which holds the exec between commit_creds()
 *                              and the end of sched_process_exec's probe
 *   pmuctx-sec switch-next PID...
 *                              SWITCH records of a pid session name no
 *                              task the session does not watch (PID...:
 *                              root spinners), 0 instead
 *   pmuctx-sec spin SECS       a CPU hog for switch-next
 *   pmuctx-sec kmode user|kernel
 *                              sampling a syscall loop: no kernel-mode
 *                              sample (user: exclude_kernel, paranoid 2),
 *                              or some (kernel: paranoid <= 1, root)
 *   pmuctx-sec victim [--split] READY
 *                              a dumpable process for the ptrace cases
 *                              (started with capabilities), its pid in
 *                              READY when set up; --split: only a second thread
 *                              keeps the capabilities
 *   pmuctx-sec ptrace PID allow|deny|split WHAT
 *                              pid sessions on PID (process and thread)
 *                              allowed, refused with EACCES, or the process
 *                              refused and its main thread allowed
 *                              (ptrace_may_access()'s capability rule)
 *   pmuctx-sec ptrace-userns PID
 *                              from its own user namespace: PID (same
 *                              user, outside) refused, an own child inside
 *                              allowed
 *   pmuctx-sec mmap-wide PID...
 *                              system-wide and cgroup sessions (paranoid
 *                              0) get MMAP records of an own child, none
 *                              of root's PID...
 *   pmuctx-sec cgroup-opath    an O_PATH cgroup fd is refused (EBADF), as
 *                              perf refuses it
 *   pmuctx-sec churn pid|cgroup N GAP_MS
 *                              N create/close rounds of one per-switch
 *                              session (of the caller, or of the root
 *                              cgroup), GAP_MS between a close and the
 *                              next create; prints the rounds per second
 *                              and the slow rounds (over 0.5 s from a
 *                              close to the next create's return)
 *                              (75-unhook counts the probe flips)
 *   pmuctx-sec idle MS         waits up to MS for INFO's probes_registered
 *                              to be 0, prints how long it took
 */
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"

#define PAT	0xa5

static bool zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

static bool pat(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++ != PAT)
			return false;
	return true;
}

/* NUL-terminated within n, zero after the NUL */
static bool str_padded(const char *s, size_t n)
{
	size_t l = strnlen(s, n);

	return l < n && zero(s + l, n - l);
}

/* ---- deny ------------------------------------------------------------------- */

static void mode_deny(int argc, char **argv)
{
	int i, fd;

	for (i = 0; i < argc; i++) {
		pid_t pid = atoi(argv[i]);

		fd = session(PMUCTX_TARGET_PID, pid, 0);
		result(fd == -EACCES, "deny: pid %d (not ours) refused with EACCES (%s)",
		       pid, fd >= 0 ? "allowed" : strerror(-fd));
		if (fd >= 0)
			close(fd);
		fd = session(PMUCTX_TARGET_PID, pid, PMUCTX_SESSION_THREAD);
		result(fd == -EACCES, "deny: thread %d refused with EACCES (%s)",
		       pid, fd >= 0 ? "allowed" : strerror(-fd));
		if (fd >= 0)
			close(fd);
	}
}

/* ---- nondumpable --------------------------------------------------------------- */

static void wait_fn(void *arg)
{
	(void)arg;
	usleep(100000);
}

static void nodump_fn(void *arg)
{
	(void)arg;
	usleep(100000);
}

static void mode_nondumpable(void)
{
	struct gated g;
	int fd, p[2];
	pid_t kid;
	char c;

	g = gated_child(wait_fn, NULL);
	fd = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
	result(fd >= 0, "nondumpable: an own, ordinary child can be watched (%s)",
	       fd >= 0 ? "ok" : strerror(-fd));
	if (fd >= 0)
		close(fd);
	gate_open(&g);
	waitpid(g.pid, NULL, 0);

	if (pipe(p))
		exit(2);
	kid = fork();
	if (kid == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		if (write(p[1], "x", 1) != 1)
			_exit(2);
		nodump_fn(NULL);
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		exit(2);
	fd = session(PMUCTX_TARGET_PID, kid, 0);
	result(fd == -EACCES, "nondumpable: an own child that is not dumpable is refused with EACCES (%s)",
	       fd >= 0 ? "allowed" : strerror(-fd));
	if (fd >= 0)
		close(fd);
	waitpid(kid, NULL, 0);
}

/* ---- the same decisions as perf ------------------------------------------------ */

static int perf_open(pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, flags);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static const char *verdict(int r)
{
	return r == 0 ? "allowed" : r == -EACCES || r == -EPERM ? "refused" :
	       strerror(-r);
}

/*
 * With CAP_PERFMON pmuctx allows every target at every level (module
 * policy, docs/SECURITY.md).  perf agrees upstream; Debian's level 3
 * wants CAP_SYS_ADMIN, so there perf's verdict is only shown.
 */
static bool perfmon_mode;

static void check_same(int paranoid, const char *what, int pf, int px)
{
	if (perfmon_mode) {
		result(px == 0, "perf: CAP_PERFMON, paranoid %d, %s: pmuctx %s (perf %s)",
		       paranoid, what, verdict(px), verdict(pf));
		return;
	}
	result(!pf == !px, "perf: paranoid %d, %s: perf %s, pmuctx %s",
	       paranoid, what, verdict(pf), verdict(px));
}

static void mode_perf(void)
{
	int paranoid = -9, pf, px, cg, fd;
	struct pmuctx_session_attr a;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -9;
		fclose(f);
	}
	/* own process */
	pf = perf_open(0, -1, -1, 0);
	fd = session(PMUCTX_TARGET_PID, 0, 0);
	px = fd >= 0 ? 0 : fd;
	if (fd >= 0)
		close(fd);
	check_same(paranoid, "own process", pf, px);
	/* every task on a CPU */
	pf = perf_open(-1, 0, -1, 0);
	fd = session(PMUCTX_TARGET_SYSTEM, 0, 0);
	px = fd >= 0 ? 0 : fd;
	if (fd >= 0)
		close(fd);
	check_same(paranoid, "system-wide", pf, px);
	/* a cgroup */
	cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);
	pf = perf_open(cg, 0, -1, PERF_FLAG_PID_CGROUP);
	attr_init(&a, PMUCTX_TARGET_CGROUP, 0, 0);
	a.cgroup_fd = cg;
	fd = session_attr(&a, false);
	px = fd >= 0 ? 0 : fd;
	if (fd >= 0)
		close(fd);
	close(cg);
	check_same(paranoid, "cgroup", pf, px);
}

/* ---- poison ------------------------------------------------------------------- */

static void poison_info(void)
{
	static const uint32_t sizes[] = {
		PMUCTX_INFO_SIZE_VER0, PMUCTX_INFO_SIZE_VER1,
		sizeof(struct pmuctx_info), sizeof(struct pmuctx_info) + 64,
	};
	unsigned char buf[512];
	struct pmuctx_info in;
	unsigned int i, bad = 0;
	int fd = dev_open();

	for (i = 0; i < 4; i++) {
		uint32_t usize = sizes[i], n;

		memset(buf, PAT, sizeof(buf));
		memset(buf + sizeof(in), 0, usize > sizeof(in) ? usize - sizeof(in) : 0);
		memcpy(buf, &usize, 4);
		memset(buf + 4, 0, 4);		/* flags */
		if (ioctl(fd, PMUCTX_IOC_INFO, buf)) {
			result(0, "poison: INFO size %u: %s", usize, strerror(errno));
			bad++;
			continue;
		}
		memset(&in, 0, sizeof(in));
		n = usize < sizeof(in) ? usize : sizeof(in);
		memcpy(&in, buf, n);
		if (!pat(buf + usize, sizeof(buf) - usize)) {
			result(0, "poison: INFO size %u wrote past the struct", usize);
			bad++;
		}
		if (in.flags || !str_padded(in.version, sizeof(in.version))) {
			result(0, "poison: INFO size %u: flags %#x / version not zero-padded",
			       usize, in.flags);
			bad++;
		}
		/* every output word was written: none still holds the pattern */
		for (n = 8; n + 4 <= in.size && n + 4 <= sizeof(in); n += 4) {
			uint32_t w;

			memcpy(&w, buf + n, 4);
			if (w == 0xa5a5a5a5U) {
				result(0, "poison: INFO size %u: bytes %u..%u not written",
				       usize, n, n + 3);
				bad++;
				break;
			}
		}
	}
	close(fd);
	result(!bad, "poison: INFO at sizes %u, %u, %u, %u: no byte left unwritten, nothing past the size, version zero-padded",
	       sizes[0], sizes[1], sizes[2], sizes[3]);
}

static void long_name_fn(void *arg)
{
	(void)arg;
	/* a 15-character name, then exec: the kernel's copy of the name
	 * must not keep the tail of the old one
	 */
	prctl(PR_SET_NAME, "abcdefghijklmno");
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

static void poison_read(void)
{
	enum { N = 32, TSZ = 256 };
	static unsigned char arr[(N + 2) * TSZ];
	struct pmuctx_read r;
	struct gated g;
	unsigned int i, k, bad = 0;
	int fd;

	g = gated_child(long_name_fn, NULL);
	fd = session(PMUCTX_TARGET_PID, g.pid,
		     PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED);
	if (fd < 0) {
		result(0, "poison: READ: session: %s", strerror(-fd));
		return;
	}
	gate_open(&g);
	waitpid(g.pid, NULL, 0);
	memset(&r, PAT, sizeof(r));
	r.size = sizeof(r);
	r.flags = PMUCTX_READ_PER_TASK;
	r.nr_tasks = N;
	r.task_size = TSZ;
	r.__pad = 0;
	r.tasks_ptr = (uintptr_t)arr;
	memset(arr, PAT, sizeof(arr));
	if (ioctl(fd, PMUCTX_IOC_READ, &r)) {
		result(0, "poison: READ: %s", strerror(errno));
		close(fd);
		return;
	}
	if (r.__pad)
		bad++, result(0, "poison: READ: __pad %#x", r.__pad);
	for (i = r.nr_events; i < PMUCTX_MAX_EVENTS; i++)
		if (r.values[i])
			bad++, result(0, "poison: READ: values[%u] (past nr_events) = %#llx",
				      i, (unsigned long long)r.values[i]);
	for (k = 0; k < r.nr_tasks; k++) {
		struct pmuctx_task_values tv;
		unsigned char *el = arr + (size_t)k * TSZ;

		memcpy(&tv, el, sizeof(tv));
		if (!str_padded(tv.comm, sizeof(tv.comm))) {
			char hex[3 * PMUCTX_COMM_LEN + 1];

			for (i = 0; i < PMUCTX_COMM_LEN; i++)
				sprintf(hex + 3 * i, "%02x ", (unsigned char)tv.comm[i]);
			bad++;
			result(0, "poison: READ: task %d comm \"%s\" not zero-padded: %s",
			       tv.tid, tv.comm, hex);
		}
		for (i = r.nr_events; i < PMUCTX_MAX_EVENTS; i++)
			if (tv.values[i] || tv.children[i])
				bad++, result(0, "poison: READ: task %d value %u past nr_events",
					      tv.tid, i);
		if (!zero(el + sizeof(tv), TSZ - sizeof(tv)))
			bad++, result(0, "poison: READ: task %d: element tail not zeroed", tv.tid);
	}
	if (!pat(arr + (size_t)r.nr_tasks * TSZ, sizeof(arr) - (size_t)r.nr_tasks * TSZ))
		bad++, result(0, "poison: READ: wrote past the %u elements", r.nr_tasks);
	close(fd);
	result(!bad, "poison: READ per task (%u tasks, element size %u): pads, unused values, comm tails and element tails zero; nothing past them",
	       r.nr_tasks, TSZ);
}

static void spin_fn(void *arg)
{
	uint64_t end = now_ns() + 300000000ULL;
	volatile unsigned long x = 0;
	int i;

	(void)arg;
	for (i = 0; i < 3; i++)
		if (fork() == 0) {
			usleep(1000);
			_exit(0);
		}
	while (now_ns() < end)
		x++;
	while (wait(NULL) > 0)
		;
	execl("/bin/true", "true", (char *)NULL);
}

static int check_record(const unsigned char *p, size_t n, bool priv,
			unsigned int nev)
{
	const struct pmuctx_rec_header *h = (const void *)p;
	const struct pmuctx_rec_common *c = (const void *)(p + sizeof(*h));

	(void)nev;
	if (h->type != PMUCTX_REC_PAD && c->__pad)
		return 1;
	switch (h->type) {
	case PMUCTX_REC_COMM: {
		const struct pmuctx_rec_comm *r = (const void *)p;

		return !str_padded(r->comm, sizeof(r->comm)) ? 2 : 0;
	}
	case PMUCTX_REC_EXEC: {
		const struct pmuctx_rec_exec *r = (const void *)p;
		size_t fl = n - sizeof(*r);

		if (!str_padded(r->comm, sizeof(r->comm)))
			return 3;
		return fl && !str_padded(r->filename, fl) ? 4 : 0;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *r = (const void *)p;

		return r->__pad ? 5 : 0;
	}
	case PMUCTX_REC_USER: {
		const struct pmuctx_rec_user *r = (const void *)p;

		if (r->__pad)
			return 6;
		return !zero(r->data + r->len, n - sizeof(*r) - r->len) ? 7 : 0;
	}
	case PMUCTX_REC_LOST:
		return c->pid || c->tid ? 8 : 0;
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	case PMUCTX_REC_SAMPLE: {
		const struct pmuctx_rec_sample *r = (const void *)p;
		unsigned int i;

		if (r->__pad)
			return 9;
		if (n < sizeof(*r) + (r->nr_kernel + r->nr_user) * 8ULL)
			return 10;
		if (!priv) {
			/* no kernel address may reach an unprivileged reader */
			if (r->ip >= 0xffff800000000000ULL)
				return 11;
			for (i = 0; i < r->nr_kernel + r->nr_user; i++)
				if (r->ips[i] >= 0xffff800000000000ULL)
					return 12;
		}
		return 0;
	}
	case PMUCTX_REC_USER_CALLCHAIN: {
		const struct pmuctx_rec_user_callchain *r = (const void *)p;
		unsigned int i;

		if (r->__pad)
			return 13;
		for (i = 0; i < r->nr && !priv; i++)
			if (r->ips[i] >= 0xffff800000000000ULL)
				return 14;
		return 0;
	}
#endif
	default:
		return 0;
	}
}

static void poison_ring(bool priv)
{
	struct pmuctx_session_attr a;
	static unsigned char buf[1 << 16];
	unsigned int pages = 4, cpu, nr_cpus, bad = 0, recs = 0, types = 0;
	struct pmuctx_info in;
	struct gated g;
	unsigned char *m;
	size_t len;
	ssize_t n;
	int fd;

	get_info(&in);
	nr_cpus = in.nr_cpus;
	if (!(in.features & PMUCTX_FEAT_RING)) {
		skip("no ring buffers in this module", "poison: ring records");
		return;
	}
	g = gated_child(spin_fn, NULL);
	attr_init(&a, PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
	a.ring_pages = pages;
	a.ring_mode = PMUCTX_RING_NORMAL;
	a.ring_records = PMUCTX_REC_MASK_ALL;
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	a.sample_freq = 1000;
	a.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK;
#endif
	fd = session_attr(&a, true);
	if (fd < 0) {
		result(0, "poison: ring session: %s", strerror(-fd));
		return;
	}
	len = (size_t)nr_cpus * (1 + pages) * 4096;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (write(fd, "abc", 3) != 3)
		bad++, result(0, "poison: write(2) of a USER record: %s", strerror(errno));
	gate_open(&g);
	waitpid(g.pid, NULL, 0);
	if (m != MAP_FAILED) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			const unsigned char *pg = m + (size_t)cpu * (1 + pages) * 4096;
			const struct pmuctx_ring_ctl *ctl = (const void *)pg;

			if (ctl->__pad || !zero(pg + sizeof(*ctl), 4096 - sizeof(*ctl)))
				bad++, result(0, "poison: control page of cpu %u: padding or rest of the page not zero", cpu);
		}
	} else {
		bad++, result(0, "poison: mmap of the ring: %s", strerror(errno));
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	memset(buf, PAT, sizeof(buf));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off + 8 <= (size_t)n) {
			const struct pmuctx_rec_header *h = (const void *)(buf + off);
			int why;

			if (h->size < 8 || off + h->size > (size_t)n)
				break;
			why = check_record(buf + off, h->size, priv, a.nr_events);
			if (why && bad < 10)
				bad++, result(0, "poison: record type %u size %u: check %d failed",
					      h->type, h->size, why);
			recs++;
			types |= 1u << h->type;
			off += h->size;
		}
		if (!pat(buf + n, sizeof(buf) - n))
			bad++, result(0, "poison: read(2) wrote past the %zd bytes it returned", n);
		memset(buf, PAT, sizeof(buf));
	}
	if (m != MAP_FAILED)
		munmap(m, len);
	close(fd);
	diag("%u records read, types %#x", recs, types);
	result(!bad && recs > 0, "poison: ring records (%u) and control pages: pads and string tails zero%s",
	       recs, priv ? "" : ", no kernel address in samples");
}

static void mode_poison(void)
{
	poison_info();
	poison_read();
	poison_ring(getuid() == 0);
}

/* ---- per-user limit ----------------------------------------------------------- */

static int fill_sessions(int *fds, int max)
{
	int i;

	for (i = 0; i < max; i++) {
		fds[i] = session(PMUCTX_TARGET_PID, 0, 0);
		if (fds[i] < 0)
			return i;
	}
	return i;
}

static void mode_limit(int n)
{
	int *fds = calloc(n + 16, sizeof(int)), made, err, st, i;
	struct pmuctx_info in;
	pid_t kid;

	made = fill_sessions(fds, n + 16);
	err = made < n + 16 ? fds[made] : 0;
	result(made == n && err == -EMFILE,
	       "limit: %d sessions, then %s (want %d, then EMFILE)", made,
	       err ? strerror(-err) : "no refusal", n);
	kid = fork();
	if (kid == 0) {
		int fd = session(PMUCTX_TARGET_PID, 0, 0);

		_exit(fd == -EMFILE ? 0 : 1);
	}
	waitpid(kid, &st, 0);
	result(WIFEXITED(st) && !WEXITSTATUS(st),
	       "limit: a second process of the same user is refused too");
	i = get_info(&in);
	result(!i && in.sessions >= (uint32_t)made,
	       "limit: the kernel answers INFO at the limit (%u sessions)", in.sessions);
	for (i = 0; i < made; i++)
		close(fds[i]);
	i = session(PMUCTX_TARGET_PID, 0, 0);
	result(i >= 0, "limit: sessions can be created again once closed");
	if (i >= 0)
		close(i);
	free(fds);
}

/* ---- sub-uids of one user ----------------------------------------------------- */

/* The kernel's nr_cpu_ids: one more than the last possible CPU. */
static int nr_cpu_ids(void)
{
	char buf[64], *p;
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY), n;

	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = buf + strcspn(buf, "\n");
	while (p > buf && (p[-1] < '0' || p[-1] > '9'))
		p--;
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return atoi(p) + 1;
}

/*
 * What one of the user's sub-uids gets: sessions until refused (ring:
 * each with a one-page ring), reported on @out; the fds stay open until
 * @hold is closed.
 */
static void subuid_fill(uid_t uid, bool ring, int out, int hold)
{
	struct pmuctx_session_attr a;
	int fds[600], n = 0, err = 0;
	int msg[2];
	char c;

	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		_exit(3);
	while (n < (int)(sizeof(fds) / sizeof(fds[0]))) {
		attr_init(&a, PMUCTX_TARGET_PID, 0, 0);
		if (ring) {
			a.ring_pages = 1;
			a.ring_mode = PMUCTX_RING_NORMAL;
			a.ring_records = PMUCTX_REC_MASK_SWITCH;
		}
		fds[n] = session_attr(&a, false);
		if (fds[n] < 0) {
			err = -fds[n];
			break;
		}
		n++;
	}
	msg[0] = n;
	msg[1] = err;
	/* one write: the sub-uids' reports do not interleave */
	if (write(out, msg, sizeof(msg)) != sizeof(msg))
		_exit(4);
	if (read(hold, &c, 1) < 0)
		_exit(5);
	_exit(0);
}

/*
 * As root (newuidmap's part): a child drops to uid 65534 (device group
 * kept), creates a user namespace, and root maps 4 sub-uids into it, as
 * /etc/subuid lets an administrator grant.  Each sub-uid is a different
 * kuid, but they are one user: the per-user limits (sessions, ring
 * memory under RLIMIT_MEMLOCK, store entries) must hold for them
 * together, not 4 times (SECURITY.md, "Per-user limits").
 */
static void mode_subuid(int cap, bool rootns)
{
	int go[2], ready[2], out[2], hold[2], st, i, n, err, total[2] = { 0 };
	gid_t grp = 4242;
	char path[64], c;
	pid_t kid;

	for (int ring = 0; ring < 2; ring++) {
		/* rings: RLIMIT_MEMLOCK (40 pages) binds, not the session cap */
		snprintf(path, sizeof(path), "%d", ring ? 256 : cap);
		if (write_param("max_sessions_per_user", path))
			_exit(2);
		if (pipe(go) || pipe(ready) || pipe(out) || pipe(hold))
			_exit(2);
		kid = fork();
		if (kid == 0) {
			struct rlimit rl = { 40 << 12, 40 << 12 };

			close(go[1]);
			close(ready[0]);
			close(out[0]);
			close(hold[1]);
			if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(1, &grp))
				_exit(3);
			/* rootns: the namespace is root's, as a container engine's */
			if (!rootns && (setresgid(65534, 65534, 65534) ||
					setresuid(65534, 65534, 65534)))
				_exit(3);
			if (unshare(CLONE_NEWUSER))
				_exit(4);
			if (write(ready[1], "u", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(5);
			for (i = 0; i < 4; i++) {
				pid_t g = fork();

				if (g == 0)
					subuid_fill(i, ring, out[1], hold[0]);
				if (g < 0)
					_exit(6);
			}
			while (wait(NULL) > 0)
				;
			_exit(0);
		}
		close(go[0]);
		close(ready[1]);
		close(out[1]);
		close(hold[0]);
		if (read(ready[0], &c, 1) != 1) {
			kill(kid, SIGKILL);
			waitpid(kid, &st, 0);
			if (WIFEXITED(st) && WEXITSTATUS(st) == 4 &&
			    access("/proc/self/ns/user", F_OK)) {
				skip("the kernel has no user namespaces (CONFIG_USER_NS)",
				     "subuid: sub-uids share one user's limits");
				return;
			}
			result(0, "subuid: the child could not create a user namespace (status %#x)", st);
			return;
		}
		snprintf(path, sizeof(path), "/proc/%d/uid_map", kid);
		err = write_file(path, "0 200000 4");
		snprintf(path, sizeof(path), "/proc/%d/gid_map", kid);
		if (!err)
			err = write_file(path, "0 200000 4");
		if (err || write(go[1], "g", 1) != 1) {
			result(0, "subuid: map sub-uids 200000-200003: %s", strerror(-err));
			kill(kid, SIGKILL);
			waitpid(kid, &st, 0);
			return;
		}
		for (i = 0; i < 4; i++) {
			int msg[2];

			if (read(out[0], msg, sizeof(msg)) != sizeof(msg)) {
				n = -1;
				break;
			}
			n = msg[0];
			err = msg[1];
			diag("subuid %d (kuid %d)%s: %d sessions, then %s", i, 200000 + i,
			     ring ? ", one-page rings" : "", n, strerror(err));
			total[ring] += n;
		}
		close(hold[1]);
		close(go[1]);
		close(ready[0]);
		close(out[0]);
		waitpid(kid, &st, 0);
		if (n < 0)
			result(0, "subuid: a sub-uid process failed (status %#x)", st);
	}
	if (rootns) {
		/* each uid of a root-made namespace is a user of its own */
		result(total[0] == 4 * cap,
		       "subuid: 4 uids of a namespace root made have max_sessions_per_user %d each (%d sessions in all)",
		       cap, total[0]);
		result(total[1] == 4 * (40 / (2 * nr_cpu_ids())),
		       "subuid: and an RLIMIT_MEMLOCK each (%d ring sessions in all, want %d)",
		       total[1], 4 * (40 / (2 * nr_cpu_ids())));
		return;
	}
	result(total[0] == cap,
	       "subuid: 4 sub-uids of one user share max_sessions_per_user %d (%d sessions in all)",
	       cap, total[0]);
	/* a one-page ring takes nr_cpu_ids * 2 pages of the 40 */
	result(total[1] == 40 / (2 * nr_cpu_ids()),
	       "subuid: and one RLIMIT_MEMLOCK of ring memory (%d ring sessions in all, want %d)",
	       total[1], 40 / (2 * nr_cpu_ids()));
}

/* ---- a user at every limit ------------------------------------------------------ */

static long mem_available_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f;

	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void *noop_fn(void *arg)
{
	return arg;
}

/*
 * As root: uid 65534 (device group) takes every per-user limit at once -
 * max_sessions_per_user @nsess sessions, each with 5 events, sampling (on
 * the hrtimer: the overflow source needs CAP_PERFMON), INHERIT|KEEP_EXITED, one-page rings while its
 * RLIMIT_MEMLOCK (@memlock_kb) lasts, and short threads until the store
 * holds max_tasks_per_user @ntasks of its entries.  MemAvailable may drop
 * by no more than SECURITY.md's worst case for those limits (plus 10 % and
 * 8 MiB for what the kernel does meanwhile).
 */
static void mode_memavail(int nsess, int ntasks, int memlock_kb)
{
	int ready[2], hold[2], st, c = nr_cpu_ids(), o = online_cpus(), e = 5;
	long a0, a1, bound_kb, per_sess;
	struct pmuctx_info in;
	int made = -1, rings = -1, err = -1;
	char v[32], msg[48];
	pid_t kid;

	snprintf(v, sizeof(v), "%d", nsess);
	write_param("max_sessions_per_user", v);
	/* every session here has CPU-wide counters (page-faults, cpu-clock) */
	write_param("max_counter_sessions_per_user", v);
	snprintf(v, sizeof(v), "%d", ntasks);
	write_param("max_tasks_per_user", v);
	if (pipe(ready) || pipe(hold))
		_exit(2);
	a0 = mem_available_kb();
	kid = fork();
	if (kid == 0) {
		struct rlimit rl = { (rlim_t)memlock_kb << 10, (rlim_t)memlock_kb << 10 };
		gid_t grp = 4242;
		int made = 0, rings = 0, fd, i, err = 0;
		pthread_t t;

		close(ready[0]);
		close(hold[1]);
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(1, &grp) ||
		    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(3);
		for (i = 0; i < nsess + 4; i++) {
			struct pmuctx_session_attr a;

			attr_init(&a, PMUCTX_TARGET_PID, 0,
				  PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED);
			a.nr_events = e;
			a.events[3] = PMUCTX_EV_PAGE_FAULTS;
			a.events[4] = PMUCTX_EV_CPU_CLOCK;
			a.sample_freq = 100;
			/* the hrtimer: overflow needs CAP_PERFMON (item 3) */
			a.sample_flags = PMUCTX_SAMPLE_USER_STACK | PMUCTX_SAMPLE_DEFER_USER;
			a.ring_pages = 1;
			a.ring_mode = PMUCTX_RING_OVERWRITE;
			a.ring_records = PMUCTX_REC_MASK_ALL;
			fd = session_attr(&a, true);
			if (fd == -EPERM) {	/* RLIMIT_MEMLOCK: no ring */
				a.ring_pages = 0;	/* nor sampling */
				a.ring_mode = 0;
				a.ring_records = 0;
				a.sample_freq = 0;
				a.sample_event = 0;
				a.sample_flags = 0;
				fd = session_attr(&a, true);
			} else if (fd >= 0) {
				rings++;
			}
			if (fd < 0) {
				err = -fd;
				break;
			}
			made++;
		}
		/* each thread: one entry per session, kept after it exits */
		for (i = 0; i < ntasks / (made ? made : 1) + 8; i++)
			if (!pthread_create(&t, NULL, noop_fn, NULL))
				pthread_join(t, NULL);
		snprintf(msg, sizeof(msg), "%d %d %d", made, rings, err);
		if (write(ready[1], msg, sizeof(msg)) != sizeof(msg))
			_exit(4);
		if (read(hold[0], msg, 1) < 0)
			_exit(5);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	memset(msg, 0, sizeof(msg));
	if (read(ready[0], msg, sizeof(msg)) != sizeof(msg)) {
		result(0, "memavail: the user's process failed");
		close(hold[1]);
		waitpid(kid, &st, 0);
		return;
	}
	a1 = mem_available_kb();
	get_info(&in);
	/* SECURITY.md "Worst case": struct, per-CPU data, perf counters (E-3
	 * per-CPU software events + the sampling counter), stages, pools */
	per_sess = 472 + 864L * c + 1230L * (e - 3 + 1) * o + 2264L * c +
		   16L * 1024 * o;
	bound_kb = (nsess * per_sess + ntasks * 1024L) / 1024 + memlock_kb;
	/*
	 * A debug kernel's allocators add KASAN redzones and kmemleak
	 * metadata to every object: the formula is for release kernels, and
	 * there it is doubled.
	 */
	if (access("/sys/kernel/debug/kmemleak", F_OK) == 0 ||
	    access("/proc/self/fail-nth", F_OK) == 0) {
		diag("memavail: a debug kernel (kmemleak or fault injection): bound doubled");
		bound_kb *= 2;
	}
	bound_kb += bound_kb / 10 + 8192;
	diag("memavail: uid 65534 made %s (sessions, with rings, last errno); store %llu tasks",
	     msg, (unsigned long long)in.tasks_tracked);
	diag("memavail: MemAvailable %ld -> %ld kB: %ld kB down; worst case %ld kB (nr_cpu_ids %d, online %d)",
	     a0, a1, a0 - a1, bound_kb, c, o);
	sscanf(msg, "%d %d %d", &made, &rings, &err);
	result(made == nsess && err == EMFILE,
	       "memavail: the user reached max_sessions_per_user (%d sessions, %d with rings, then %s)",
	       made, rings, strerror(err));
	result(in.tasks_tracked >= (uint64_t)ntasks * 9 / 10,
	       "memavail: and about max_tasks_per_user entries (%llu of %d)",
	       (unsigned long long)in.tasks_tracked, ntasks);
	result(a0 > 0 && a1 > 0 && a0 - a1 <= bound_kb,
	       "memavail: MemAvailable fell by %ld kB, within the worst case %ld kB",
	       a0 - a1, bound_kb);
	close(hold[1]);
	waitpid(kid, &st, 0);
}

/* ---- user namespace with a fake perf_event_paranoid ---------------------------- */

static void mode_userns(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int fd, dev, r;

	dev = dev_open();
	if (dev < 0) {
		result(0, "userns: open %s: %s", PMUCTX_DEVICE_PATH, strerror(errno));
		return;
	}
	close(dev);
	if (write_file("/tmp/pmuctx-fake-paranoid", "-1\n") &&
	    (fd = open("/tmp/pmuctx-fake-paranoid", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
		if (write(fd, "-1\n", 3) != 3)
			_exit(2);
		close(fd);
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		skip("unprivileged user namespaces are disabled", "userns: fake perf_event_paranoid");
		return;
	}
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_file("/proc/self/gid_map", map);
	mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (mount("/tmp/pmuctx-fake-paranoid", "/proc/sys/kernel/perf_event_paranoid",
		  NULL, MS_BIND, NULL)) {
		skip(strerror(errno), "userns: bind mount over /proc/sys/kernel/perf_event_paranoid");
		return;
	}
	diag("in a user+mount namespace, /proc/sys/kernel/perf_event_paranoid now reads -1");
	r = session(PMUCTX_TARGET_SYSTEM, 0, 0);
	result(r == -EACCES, "userns: a system-wide session is still refused with EACCES (%s)",
	       r >= 0 ? "ALLOWED" : strerror(-r));
	if (r >= 0)
		close(r);
}

/* ---- ring tail inside a record ------------------------------------------------ */

static void mode_ring_tail(void)
{
	struct pmuctx_session_attr a;
	struct pmuctx_info in;
	struct pmuctx_ring_consume c = { .size = sizeof(c) };
	unsigned int cpu;
	pid_t kid;
	int fd, st, k;
	void *m;

	get_info(&in);
	if (!(in.features & PMUCTX_FEAT_RING)) {
		skip("no ring buffers in this module", "ring-tail");
		return;
	}
	attr_init(&a, PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_INHERIT);
	a.ring_pages = 1;
	a.ring_mode = PMUCTX_RING_NORMAL;
	a.ring_records = PMUCTX_REC_MASK_SWITCH | PMUCTX_REC_MASK_FORK |
			 PMUCTX_REC_MASK_EXIT;
	fd = session_attr(&a, true);
	if (fd < 0) {
		result(0, "ring-tail: session: %s", strerror(-fd));
		return;
	}
	m = mmap(NULL, (size_t)in.nr_cpus * 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	for (k = 0; k < 20; k++) {
		if (fork() == 0)
			_exit(0);
		wait(NULL);
		usleep(1000);
	}
	for (cpu = 0; m != MAP_FAILED && cpu < in.nr_cpus; cpu++) {
		const struct pmuctx_ring_ctl *ctl = (const void *)
			((char *)m + (size_t)cpu * 2 * 4096);

		if (ctl->data_head - ctl->data_tail >= 64)
			break;
	}
	if (m == MAP_FAILED || cpu == in.nr_cpus) {
		result(0, "ring-tail: no CPU buffer with records");
		close(fd);
		return;
	}
	c.cpu = cpu;
	c.tail = ((const struct pmuctx_ring_ctl *)((char *)m + (size_t)cpu * 2 * 4096))->data_tail + 24;
	k = ioctl(fd, PMUCTX_IOC_RING_CONSUME, &c) ? -errno : 0;
	diag("RING_CONSUME to a tail 24 bytes into a record on cpu %u: %s", cpu,
	     k ? strerror(-k) : "accepted");
	/* the read happens in a child: on a broken module it never returns */
	kid = fork();
	if (kid == 0) {
		static char buf[8192];

		fcntl(fd, F_SETFL, O_NONBLOCK);
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EIO && errno != EAGAIN)
			_exit(1);
		_exit(0);
	}
	for (k = 0; k < 150; k++) {
		if (waitpid(kid, &st, WNOHANG) == kid)
			break;
		usleep(100000);
	}
	result(k < 150 && WIFEXITED(st) && !WEXITSTATUS(st),
	       "ring-tail: read(2) after a RING_CONSUME into a record returns (%s)",
	       k < 150 ? "returned" : "still in the kernel after 15 s");
	if (k < 150) {
		munmap(m, (size_t)in.nr_cpus * 2 * 4096);
		close(fd);
	}
}

/* ---- rings of the tests below ----------------------------------------------- */

/* Every record of @fd's ring (read(2), non-blocking) to @fn. */
static unsigned int drain_ring(int fd, void (*fn)(const void *rec, void *ctx),
			       void *ctx)
{
	static unsigned char buf[1 << 16];
	unsigned int recs = 0;
	int fl = fcntl(fd, F_GETFL);
	ssize_t n;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off + 8 <= (size_t)n) {
			const struct pmuctx_rec_header *h = (const void *)(buf + off);

			if (h->size < 8 || off + h->size > (size_t)n)
				break;
			fn(buf + off, ctx);
			recs++;
			off += h->size;
		}
	}
	fcntl(fd, F_SETFL, fl);
	return recs;
}

/* ---- privexec: a setuid exec with more sessions than one batch ------------------ */

struct privexec_arg {
	const char *path;
	const char *ms;
};

static void privexec_fn(void *arg)
{
	struct privexec_arg *x = arg;

	execl(x->path, x->path, x->ms, (char *)NULL);
	_exit(127);
}

/* what one session saw of the task that exec'd */
struct privexec_seen {
	pid_t pid;
	unsigned int execs;
	uint64_t exec_time;		/* first EXEC record of the task */
	unsigned int samples;		/* SAMPLE records of the task */
	uint64_t sample_times[4096];	/* their times (up to 4096) */
	const char *path;		/* the program it exec'd */
	unsigned int mmaps;		/* MMAP records naming @path */
};

static void privexec_rec(const void *rec, void *ctx)
{
	const struct pmuctx_rec_header *h = rec;
	const struct pmuctx_rec_common *c = (const void *)(h + 1);
	struct privexec_seen *v = ctx;

	if (h->type == PMUCTX_REC_PAD || h->type == PMUCTX_REC_LOST ||
	    c->pid != v->pid)
		return;
	if (h->type == PMUCTX_REC_EXEC) {
		if (!v->execs++)
			v->exec_time = c->time;
	} else if (h->type == PMUCTX_REC_SAMPLE) {
		if (v->samples < 4096)
			v->sample_times[v->samples] = c->time;
		v->samples++;
	} else if (h->type == PMUCTX_REC_MMAP &&
		   h->size > sizeof(struct pmuctx_rec_mmap)) {
		const struct pmuctx_rec_mmap *m = rec;

		if (strstr(m->path, v->path))
			v->mmaps++;
	}
}

/*
 * @n sessions on one child, which execs @path (setuid root when @priv)
 * burning @ms of CPU.  Every session must see exactly one EXEC record; at
 * a setuid exec every one must stop counting and sampling the task right
 * there (priv_exec_stopped, TASK_PRIV_EXEC, no task-clock and no SAMPLE
 * of the setuid program); at an ordinary exec every one keeps counting.
 */
static void privexec_run(int n, const char *path, bool priv, unsigned int ms)
{
	static struct pmuctx_task_values tv[8];
	static struct privexec_seen seen[64];
	struct pmuctx_session_attr a;
	struct privexec_arg x;
	const char *what = priv ? "setuid exec" : "plain exec";
	unsigned int stopped = 0, quiet = 0, nosample = 0, oneexec = 0;
	unsigned int counted = 0, i, k, late_total = 0, mmaps = 0;
	uint64_t first_exec = 0;
	char msbuf[16];
	int fds[64], st;
	struct gated g;

	if (n > 64)
		n = 64;
	snprintf(msbuf, sizeof(msbuf), "%u", ms);
	x.path = path;
	x.ms = msbuf;
	g = gated_child(privexec_fn, &x);
	for (i = 0; i < (unsigned int)n; i++) {
		attr_init(&a, PMUCTX_TARGET_PID, g.pid,
			  PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED);
		a.ring_pages = 2;
		a.ring_mode = PMUCTX_RING_NORMAL;
		/*
		 * MMAP records too: a snapshot asked for by a sample taken
		 * during the execve() runs after it, and must not describe
		 * the setuid program (its entry is dropped at the exec).
		 */
		a.ring_records = PMUCTX_REC_MASK_EXEC | PMUCTX_REC_MASK_MMAP;
		/* often enough that some session samples inside execve() */
		a.sample_freq = priv ? 4000 : 100;
		a.sample_flags = PMUCTX_SAMPLE_USER_STACK;
		fds[i] = session_attr(&a, true);
		if (fds[i] < 0) {
			result(0, "privexec: session %u of %d on one task: %s",
			       i + 1, n, strerror(-fds[i]));
			while (i--)
				close(fds[i]);
			kill(g.pid, SIGKILL);
			waitpid(g.pid, NULL, 0);
			return;
		}
	}
	gate_open(&g);
	waitpid(g.pid, &st, 0);
	if (priv)
		result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "privexec: %s: %s ran as root (status %#x)", what, path, st);
	for (i = 0; i < (unsigned int)n; i++) {
		memset(&seen[i], 0, sizeof(seen[i]));
		seen[i].pid = g.pid;
		seen[i].path = path;
		drain_ring(fds[i], privexec_rec, &seen[i]);
		mmaps += seen[i].mmaps;
		if (seen[i].execs &&
		    (!first_exec || seen[i].exec_time < first_exec))
			first_exec = seen[i].exec_time;
	}
	for (i = 0; i < (unsigned int)n; i++) {
		struct pmuctx_read r;
		struct pmuctx_task_values *t = NULL;
		/* a session that saw no EXEC: the exec as the others saw it */
		uint64_t at = seen[i].execs ? seen[i].exec_time : first_exec;
		unsigned int late = 0;

		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.flags = PMUCTX_READ_PER_TASK;
		r.nr_tasks = 8;
		r.task_size = sizeof(tv[0]);
		r.tasks_ptr = (uintptr_t)tv;
		if (ioctl(fds[i], PMUCTX_IOC_READ, &r)) {
			result(0, "privexec: READ of session %u: %s", i + 1,
			       strerror(errno));
			continue;
		}
		for (k = 0; k < r.nr_tasks; k++)
			if (tv[k].tid == g.pid)
				t = &tv[k];
		for (k = 0; k < seen[i].samples && k < 4096; k++)
			if (at && seen[i].sample_times[k] > at)
				late++;
		late_total += late;
		if (seen[i].execs == 1)
			oneexec++;
		if (priv) {
			if (r.priv_exec_stopped == 1 && t &&
			    (t->flags & PMUCTX_TASK_PRIV_EXEC))
				stopped++;
			if (r.values[0] < ms * 1000000ULL / 2)
				quiet++;
			if (at && !late)
				nosample++;
		} else if (!r.priv_exec_stopped && t &&
			   !(t->flags & PMUCTX_TASK_PRIV_EXEC) &&
			   r.values[0] >= ms * 1000000ULL / 2) {
			counted++;
		}
		if (i < 2 || i >= (unsigned int)n - 2 ||
		    (priv && (!t || !(t->flags & PMUCTX_TASK_PRIV_EXEC))))
			diag("privexec: %s: session %u (created %s): priv_exec_stopped %llu, task flags %#x, task-clock %llu ms, %u EXEC records, %u samples, %u after the exec",
			     what, i + 1, i ? (i == (unsigned int)n - 1 ? "last" : "later") : "first",
			     (unsigned long long)r.priv_exec_stopped,
			     t ? t->flags : 0,
			     (unsigned long long)r.values[0] / 1000000,
			     seen[i].execs, seen[i].samples, late);
	}
	for (i = 0; i < (unsigned int)n; i++)
		close(fds[i]);
	result(oneexec == (unsigned int)n,
	       "privexec: %s with %d sessions on one task: every session wrote exactly one EXEC record (%u of %d)",
	       what, n, oneexec, n);
	if (!priv) {
		result(counted == (unsigned int)n,
		       "privexec: %s with %d sessions: every session kept counting the new program (%u of %d)",
		       what, n, counted, n);
		result(mmaps > 0,
		       "privexec: %s: MMAP records describe the new program (%u records name %s)",
		       what, mmaps, path);
		return;
	}
	result(!mmaps,
	       "privexec: %s with %d sessions: no MMAP record describes the setuid program (%u name %s)",
	       what, n, mmaps, path);
	result(stopped == (unsigned int)n,
	       "privexec: %s with %d sessions on one task: every session stopped the task (priv_exec_stopped 1, PRIV_EXEC) (%u of %d)",
	       what, n, stopped, n);
	result(quiet == (unsigned int)n,
	       "privexec: %s with %d sessions: no session counted the setuid program's %u ms (%u of %d)",
	       what, n, ms, quiet, n);
	result(nosample == (unsigned int)n,
	       "privexec: %s with %d sessions: no session sampled the task after the exec (%u of %d; %u late samples)",
	       what, n, nosample, n, late_total);
}

static void mode_privexec(int n, const char *suid, const char *plain)
{
	privexec_run(n, plain, false, 300);
	privexec_run(n, suid, true, 1000);
}

/* ---- execwindow: nothing of a setuid process before the exec probe ------------- */

struct ew_range {
	uint64_t lo, hi;
	char path[80];
};

/* Mappings in /proc/.../maps format from @f, at most @max. */
static unsigned int ew_read_maps(FILE *f, struct ew_range *r, unsigned int max)
{
	char line[512];
	unsigned int n = 0;

	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		int off = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2)
			continue;
		r[n].lo = lo;
		r[n].hi = hi;
		snprintf(r[n].path, sizeof(r[n].path), "%s", off ? line + off : "");
		r[n].path[strcspn(r[n].path, "\n")] = 0;
		n++;
	}
	return n;
}

static const struct ew_range *ew_find(const struct ew_range *r, unsigned int n,
				      uint64_t a)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a >= r[i].lo && a < r[i].hi)
			return &r[i];
	return NULL;
}

static struct ew_range ew_own[1024], ew_suid[1024];
static unsigned int ew_nown, ew_nsuid;
static int ew_pipe[2];

struct ew_seen {
	pid_t pid;
	unsigned int samples, kernel, leaked, frames;
	uint64_t first_leak;
	char where[128];
};

/* A user frame of a SAMPLE of the child in the setuid process's mappings
 * and in none of the mappings it had before (pmuctx-sec's own, inherited
 * at fork), or a user-mode ip there.
 */
static void ew_rec(const void *rec, void *ctx)
{
	const struct pmuctx_rec_sample *r = rec;
	struct ew_seen *v = ctx;
	unsigned int i, leak = 0;

	if (r->hdr.type != PMUCTX_REC_SAMPLE || r->c.pid != v->pid)
		return;
	v->samples++;
	if (!(r->hdr.misc & PMUCTX_SAMPLE_M_USER))
		v->kernel++;
	for (i = 0; i <= r->nr_user; i++) {
		uint64_t a;
		const struct ew_range *m;

		if (i == r->nr_user) {
			if (!(r->hdr.misc & PMUCTX_SAMPLE_M_USER))
				break;
			a = r->ip;
		} else {
			a = r->ips[r->nr_kernel + i];
		}
		v->frames++;
		m = ew_find(ew_suid, ew_nsuid, a);
		if (!m || ew_find(ew_own, ew_nown, a))
			continue;
		if (!leak++ && !v->leaked)
			snprintf(v->where, sizeof(v->where), "%#llx in %.64s",
				 (unsigned long long)a, m->path[0] ? m->path : "[anon]");
	}
	if (leak && !v->leaked++)
		v->first_leak = r->c.time;
}

static void ew_fn(void *arg)
{
	const char *path = arg;

	dup2(ew_pipe[1], 1);
	close(ew_pipe[0]);
	close(ew_pipe[1]);
	burn_ms(30);	/* sampled as pmuctx-sec first */
	execl(path, path, "20", "maps", (char *)NULL);
	_exit(127);
}

/*
 * @n INHERIT sessions (every other one on cpu-clock overflows, the rest
 * on the hrtimer; immediate user callchains, as perf's default -g) on a
 * child that execs @path, setuid root, @rounds times.  At
 * perf_event_paranoid <= 1 the sessions get kernel-mode samples, whose
 * user callchain is the task's saved user registers: from start_thread()
 * on, the setuid program's entry in its ld.so.  perf stops every event of
 * the task right after commit_creds(); no sample of pmuctx may carry an
 * address of the setuid process.
 */
static void mode_execwindow(int n, const char *path, int rounds)
{
	static struct ew_seen seen[16];
	unsigned int leaked = 0, samples = 0, kernel = 0, i;
	struct pmuctx_session_attr a;
	int fds[16], round, st, bad_status = 0;
	FILE *f;

	if (n > 16)
		n = 16;
	for (round = 0; round < rounds; round++) {
		struct gated g;

		f = fopen("/proc/self/maps", "r");
		ew_nown = f ? ew_read_maps(f, ew_own, 1024) : 0;
		if (f)
			fclose(f);
		if (pipe(ew_pipe))
			exit(2);
		g = gated_child(ew_fn, (void *)path);
		close(ew_pipe[1]);
		for (i = 0; i < (unsigned int)n; i++) {
			attr_init(&a, PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
			a.ring_pages = 32;
			a.ring_mode = PMUCTX_RING_NORMAL;
			a.sample_freq = 4000;
			a.sample_flags = PMUCTX_SAMPLE_USER_STACK;
			/* the overflow source needs CAP_PERFMON (item 3) */
			a.sample_event = i % 2 && !geteuid() ?
					 PMUCTX_EV_CPU_CLOCK : 0;
			fds[i] = session_attr(&a, true);
			if (fds[i] < 0) {
				result(0, "execwindow: session %u of %d: %s", i + 1, n,
				       strerror(-fds[i]));
				while (i--)
					close(fds[i]);
				kill(g.pid, SIGKILL);
				waitpid(g.pid, NULL, 0);
				close(ew_pipe[0]);
				return;
			}
			memset(&seen[i], 0, sizeof(seen[i]));
			seen[i].pid = g.pid;
		}
		gate_open(&g);
		f = fdopen(ew_pipe[0], "r");
		ew_nsuid = f ? ew_read_maps(f, ew_suid, 1024) : 0;
		if (f)
			fclose(f);
		waitpid(g.pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad_status++;
		for (i = 0; i < (unsigned int)n; i++) {
			drain_ring(fds[i], ew_rec, &seen[i]);
			close(fds[i]);
			samples += seen[i].samples;
			kernel += seen[i].kernel;
			leaked += seen[i].leaked;
			if (seen[i].leaked)
				diag("execwindow: round %d, session %u (%s): %u of %u samples carry an address of the setuid process, the first %s",
				     round + 1, i + 1, i % 2 ? "cpu-clock overflow" : "hrtimer",
				     seen[i].leaked, seen[i].samples, seen[i].where);
		}
		if (!ew_nsuid)
			break;
	}
	result(ew_nsuid > 0 && !bad_status,
	       "execwindow: %s ran as root and told its mappings (%u; %d bad exits)",
	       path, ew_nsuid, bad_status);
	diag("execwindow: %d rounds, %d sessions each: %u samples of the task (%u kernel-mode)",
	     rounds, n, samples, kernel);
	result(samples > 0, "execwindow: the sessions sampled the task before its exec (%u)",
	       samples);
	result(!leaked,
	       "execwindow: no sample carries an address of the setuid process (%u do)",
	       leaked);
}

/* ---- switch-next: SWITCH records do not name other users' tasks ---------------- */

static int pp_a[2], pp_b[2];
static volatile int pp_stop;

static void *pp_thread(void *arg)
{
	char c;

	(void)arg;
	while (read(pp_a[0], &c, 1) == 1 && c == 'x') {
		sched_yield();
		if (write(pp_b[1], "x", 1) != 1)
			break;
	}
	return NULL;
}

/* Two threads ping-pong over pipes, yield and sleep for @arg ms. */
static void pingpong_fn(void *arg)
{
	uint64_t end = now_ns() + (uint64_t)(uintptr_t)arg * 1000000ULL;
	pthread_t t;
	char c;

	if (pipe(pp_a) || pipe(pp_b) ||
	    pthread_create(&t, NULL, pp_thread, NULL))
		_exit(2);
	while (now_ns() < end) {
		if (write(pp_a[1], "x", 1) != 1 || read(pp_b[0], &c, 1) != 1)
			_exit(3);
		sched_yield();
		usleep(200);
	}
	if (write(pp_a[1], "q", 1) != 1)
		_exit(3);
	pthread_join(t, NULL);
}

struct switch_seen {
	pid_t pid;			/* the watched process */
	const pid_t *others;		/* the other user's tasks */
	int nothers;
	unsigned int recs, to_other, to_unwatched, to_own, to_zero;
	pid_t bad_pid, bad_tid;
};

static void switch_rec(const void *rec, void *ctx)
{
	const struct pmuctx_rec_header *h = rec;
	const struct pmuctx_rec_switch *w = rec;
	struct switch_seen *v = ctx;
	int i;

	if (h->type != PMUCTX_REC_SWITCH || w->c.pid != v->pid)
		return;
	v->recs++;
	if (!w->next_pid && !w->next_tid) {
		v->to_zero++;
		return;
	}
	for (i = 0; i < v->nothers; i++)
		if (w->next_pid == v->others[i] || w->next_tid == v->others[i])
			v->to_other++;
	if (w->next_pid == v->pid) {
		v->to_own++;
	} else {
		v->to_unwatched++;
		v->bad_pid = w->next_pid;
		v->bad_tid = w->next_tid;
	}
}

/*
 * An unprivileged pid session with SWITCH records on an own process whose
 * two threads ping-pong, yield and sleep while other users' tasks
 * (@others: root spinners on every CPU) run: next_pid/next_tid may only
 * name tasks the session watches (0 otherwise), as perf gives a per-task
 * event no next task at all.
 */
static void mode_switch_next(int argc, char **argv)
{
	struct switch_seen v = { 0 };
	struct pmuctx_session_attr a;
	pid_t others[16];
	struct gated g;
	int fd, i;

	for (i = 0; i < argc && i < 16; i++)
		others[i] = atoi(argv[i]);
	g = gated_child(pingpong_fn, (void *)(uintptr_t)1500);
	attr_init(&a, PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
	a.ring_pages = 16;
	a.ring_mode = PMUCTX_RING_NORMAL;
	a.ring_records = PMUCTX_REC_MASK_SWITCH;
	fd = session_attr(&a, true);
	if (fd < 0) {
		result(0, "switch-next: session: %s", strerror(-fd));
		kill(g.pid, SIGKILL);
		waitpid(g.pid, NULL, 0);
		return;
	}
	v.pid = g.pid;
	v.others = others;
	v.nothers = i;
	gate_open(&g);
	while (waitpid(g.pid, NULL, WNOHANG) == 0) {
		drain_ring(fd, switch_rec, &v);
		usleep(20000);
	}
	drain_ring(fd, switch_rec, &v);
	close(fd);
	diag("switch-next: %u SWITCH records of pid %d: next is an own thread %u, 0 %u, another task %u, the other user's tasks %u",
	     v.recs, v.pid, v.to_own, v.to_zero, v.to_unwatched, v.to_other);
	result(v.recs > 0, "switch-next: the session got SWITCH records (%u)", v.recs);
	result(!v.to_other,
	       "switch-next: no SWITCH record names the other user's tasks (%u do)",
	       v.to_other);
	result(!v.to_unwatched,
	       "switch-next: every SWITCH record's next task is watched by the session or 0 (%u are not; last %d/%d)",
	       v.to_unwatched, v.bad_pid, v.bad_tid);
}

/* Busy loop for @secs seconds (a CPU hog for switch-next). */
static void mode_spin(int secs)
{
	uint64_t end = now_ns() + (uint64_t)secs * 1000000000ULL;
	volatile unsigned long x = 0;

	while (now_ns() < end)
		x++;
}

/* ---- kmode: exclude_kernel sessions get no kernel-mode samples ----------------- */

/* Syscalls (read of /dev/zero) and a little user-mode work, @arg ms. */
static void syscall_fn(void *arg)
{
	uint64_t end = now_ns() + (uint64_t)(uintptr_t)arg * 1000000ULL;
	static char buf[16384];
	volatile unsigned long x = 0;
	int fd = open("/dev/zero", O_RDONLY), i;

	while (now_ns() < end) {
		if (read(fd, buf, sizeof(buf)) < 0)
			_exit(2);
		getppid();
		for (i = 0; i < 20000; i++)
			x++;
	}
}

struct kmode_seen {
	pid_t pid;
	unsigned int user, kernel, kframes;
};

static void kmode_rec(const void *rec, void *ctx)
{
	const struct pmuctx_rec_sample *r = rec;
	struct kmode_seen *v = ctx;

	if (r->hdr.type != PMUCTX_REC_SAMPLE || r->c.pid != v->pid)
		return;
	if (r->hdr.misc & PMUCTX_SAMPLE_M_USER)
		v->user++;
	else
		v->kernel++;
	if (r->nr_kernel)
		v->kframes++;
}

/*
 * A pid session sampling an own child that mostly runs in system calls,
 * with the hrtimer and with the cpu-clock overflow source.  @want_kernel:
 * kernel-mode samples expected (root, paranoid <= 1); otherwise (an
 * exclude_kernel session) none may come: not flagged kernel, no kernel
 * frames.
 */
static void mode_kmode(bool want_kernel)
{
	static const struct {
		const char *name;
		uint32_t ev;
	} src[] = { { "hrtimer", 0 }, { "cpu-clock overflow", PMUCTX_EV_CPU_CLOCK } };
	struct pmuctx_session_attr a;
	struct kmode_seen v;
	struct gated g;
	unsigned int s;
	int fd;

	for (s = 0; s < 2; s++) {
		memset(&v, 0, sizeof(v));
		g = gated_child(syscall_fn, (void *)(uintptr_t)1000);
		attr_init(&a, PMUCTX_TARGET_PID, g.pid, 0);
		a.ring_pages = 16;
		a.ring_mode = PMUCTX_RING_NORMAL;
		a.sample_freq = 1000;
		a.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK;
		a.sample_event = src[s].ev;
		fd = session_attr(&a, true);
		if (src[s].ev && geteuid()) {
			/*
			 * Issue 29 item 3: overflow counters run on every
			 * CPU, whoever runs there: CAP_PERFMON only.
			 */
			result(fd == -EACCES,
			       "kmode: %s: refused without CAP_PERFMON (%s, want EACCES)",
			       src[s].name, fd < 0 ? strerror(-fd) : "created");
			if (fd >= 0)
				close(fd);
			kill(g.pid, SIGKILL);
			waitpid(g.pid, NULL, 0);
			continue;
		}
		if (fd < 0) {
			result(0, "kmode: %s: session: %s", src[s].name, strerror(-fd));
			kill(g.pid, SIGKILL);
			waitpid(g.pid, NULL, 0);
			continue;
		}
		v.pid = g.pid;
		gate_open(&g);
		while (waitpid(g.pid, NULL, WNOHANG) == 0) {
			drain_ring(fd, kmode_rec, &v);
			usleep(20000);
		}
		drain_ring(fd, kmode_rec, &v);
		close(fd);
		diag("kmode: %s, uid %u: %u user-mode samples, %u kernel-mode samples, %u with kernel frames",
		     src[s].name, getuid(), v.user, v.kernel, v.kframes);
		if (want_kernel) {
			result(v.kernel > 0,
			       "kmode: %s: a session that may see the kernel gets kernel-mode samples of a syscall loop (%u)",
			       src[s].name, v.kernel);
			continue;
		}
		result(v.user > 0, "kmode: %s: user-mode samples of the syscall loop (%u)",
		       src[s].name, v.user);
		result(!v.kernel && !v.kframes,
		       "kmode: %s: an exclude_kernel session gets no kernel-mode sample (%u, %u with kernel frames)",
		       src[s].name, v.kernel, v.kframes);
	}
}

/*
 * Issue 29 item 4: every session with CPU-wide counters puts a counter in
 * every CPU's perf context, which each event of that kind on any CPU
 * (anyone's page fault) walks.  Without CAP_PERFMON a user gets at most
 * max_counter_sessions_per_user (@cap, set by the caller) of them: the
 * next is EMFILE, while switchless sessions (read from the tasks, no
 * counter) are still allowed.
 */
static void mode_countercap(int cap)
{
	int fds[256], made = 0, err = 0, plain, i;

	for (i = 0; i < cap + 1 && i < 256; i++) {
		struct pmuctx_session_attr a;

		attr_init(&a, PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_PER_SWITCH);
		a.nr_events = 2;
		a.events[1] = PMUCTX_EV_PAGE_FAULTS;
		a.events[2] = 0;
		fds[i] = session_attr(&a, false);
		if (fds[i] < 0) {
			err = -fds[i];
			break;
		}
		made++;
	}
	result(made == cap && err == EMFILE,
	       "countercap: %d sessions with CPU-wide counters, then EMFILE (%d, %s; want %d, EMFILE)",
	       cap, made, err ? strerror(err) : "no error", cap);
	plain = session(PMUCTX_TARGET_PID, 0, 0);
	result(plain >= 0,
	       "countercap: a switchless session is still allowed (%s)",
	       plain < 0 ? strerror(-plain) : "ok");
	if (plain >= 0)
		close(plain);
	for (i = 0; i < made; i++)
		close(fds[i]);
}

/*
 * Function-call IPIs each CPU took so far: the line of /proc/interrupts
 * that says "Function call interrupts" (x86-64 "CAL:", arm64 "IPI1:").
 */
static int cal_ipis(unsigned long long *v, int max)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096], *p, *end;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (!strstr(p, "Function call interrupts") || !strchr(p, ':'))
			continue;
		for (p = strchr(p, ':') + 1; n < max; n++) {
			v[n] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		break;
	}
	fclose(f);
	return n;
}

/*
 * Issue 29 item 5: READ folds the running slices with an IPI to every
 * CPU.  @nsess per-switch sessions of the caller on itself, READ in a
 * loop for @secs seconds: without CAP_PERFMON the reads (and so the
 * IPIs each other CPU takes) stay within max_user_syncs per second
 * (after a burst of 16); before, every READ interrupted every CPU, as
 * fast as the caller could loop.  A bound, not a timing: a slow host
 * only makes fewer reads.
 */
static void mode_ipis(int secs, int nsess)
{
	unsigned long long c0[256], c1[256], worst = 0;
	uint64_t t0, t1, end, reads = 0;
	int fds[64], i, n0, n1, made = 0;
	double el, rate = 1000, bound;
	char v[32] = "";
	FILE *f;

	f = fopen("/sys/module/pmuctx/parameters/max_user_syncs", "r");
	if (f) {
		if (fgets(v, sizeof(v), f))
			rate = atof(v);
		fclose(f);
	}
	if (nsess > 64)
		nsess = 64;
	for (i = 0; i < nsess; i++) {
		struct pmuctx_session_attr a;

		attr_init(&a, PMUCTX_TARGET_PID, 0, PMUCTX_SESSION_PER_SWITCH);
		fds[i] = session_attr(&a, true);
		if (fds[i] < 0) {
			result(0, "ipis: session %d: %s", i + 1, strerror(-fds[i]));
			break;
		}
		made++;
	}
	n0 = cal_ipis(c0, 256);
	t0 = now_ns();
	end = t0 + (uint64_t)secs * 1000000000ULL;
	while (made && now_ns() < end) {
		struct pmuctx_read r;

		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		if (ioctl(fds[reads % made], PMUCTX_IOC_READ, &r)) {
			result(0, "ipis: READ: %s", strerror(errno));
			break;
		}
		reads++;
	}
	t1 = now_ns();
	n1 = cal_ipis(c1, 256);
	for (i = 0; i < made; i++)
		close(fds[i]);
	if (!made)
		return;
	el = (double)(t1 - t0) / 1e9;
	for (i = 0; i < n0 && i < n1; i++)
		if (c1[i] - c0[i] > worst)
			worst = c1[i] - c0[i];
	diag("ipis: uid %u, %d sessions: %llu READs in %.2f s (%.0f/s); at most %llu function-call IPIs on one CPU; max_user_syncs %.0f",
	     getuid(), made, (unsigned long long)reads, el, reads / el, worst, rate);
	if (!geteuid() || !rate)
		return;		/* not paced: the figures only */
	bound = rate * el + 16 + 2;
	result(reads <= bound,
	       "ipis: an unprivileged user's READs that interrupt every CPU are paced: %llu in %.2f s, at most %.0f",
	       (unsigned long long)reads, el, bound);
	result(n0 > 0 && (double)worst <= bound * 1.2 + 200,
	       "ipis: no CPU took more function-call IPIs than the pace allows (%llu, at most %.0f)",
	       worst, bound * 1.2 + 200);
}

/* ---- ptrace: capabilities and user namespaces (issue 29 item 6) ---------- */

static void *victim_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * A process for the ptrace cases, started by 73-security with the
 * credentials under test (ambient capabilities, a file-capabilities copy
 * of this program).  It makes itself dumpable (a file-capabilities
 * program is not after its exec), with @split drops every capability in
 * its main thread only while a second thread keeps them (credentials are
 * per thread), then writes its pid to @ready and waits to be killed.
 */
static void mode_victim(const char *ready, bool split)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	char buf[16], tmp[256];
	pthread_t th;
	int fd, n;

	if (split) {
		if (pthread_create(&th, NULL, victim_thread, NULL))
			exit(2);
		memset(d, 0, sizeof(d));
		if (syscall(SYS_capset, &h, d))
			exit(2);
	}
	prctl(PR_SET_DUMPABLE, 1);
	/* its pid (the case's $! may be a shell's), written whole */
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, n) != n || close(fd) || rename(tmp, ready))
		exit(2);
	for (;;)
		pause();
}

/* A pid session on @pid (@flags: THREAD), closed again: 0 or -errno. */
static int try_pid(pid_t pid, unsigned int flags)
{
	int fd = session(PMUCTX_TARGET_PID, pid, flags);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* What /proc/PID/maps (ptrace read, fs credentials) says to the caller. */
static int maps_open(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * pid sessions on @pid, as a process and as a thread: @want "allow",
 * "deny" (EACCES both), or "split" (the process refused, its main thread
 * alone allowed).  perf_event_open() and /proc/PID/maps are shown.
 */
static void mode_ptrace(pid_t pid, const char *want, const char *what)
{
	int px = try_pid(pid, 0), pt = try_pid(pid, PMUCTX_SESSION_THREAD);
	int pf = perf_open(pid, -1, -1, 0), pm = maps_open(pid);

	diag("ptrace: %s (pid %d), uid %u: perf_event_open %s, /proc/PID/maps %s",
	     what, pid, getuid(), verdict(pf), verdict(pm));
	if (!strcmp(want, "allow")) {
		result(!px && !pt, "ptrace: %s: allowed (process %s, thread %s)",
		       what, verdict(px), verdict(pt));
	} else if (!strcmp(want, "split")) {
		result(px == -EACCES,
		       "ptrace: %s: the process is refused with EACCES (%s)",
		       what, px ? strerror(-px) : "ALLOWED");
		result(!pt, "ptrace: %s: its main thread alone is allowed (%s)",
		       what, verdict(pt));
	} else {
		result(px == -EACCES && pt == -EACCES,
		       "ptrace: %s: refused with EACCES, as process and as thread (%s, %s)",
		       what, px ? strerror(-px) : "ALLOWED",
		       pt ? strerror(-pt) : "ALLOWED");
	}
}

/*
 * From inside a user namespace of its own (unshare -Ur), a process of
 * the same user outside it (@pid) is refused: the caller's capabilities
 * are the namespace's, not the initial one's (cap_ptrace_access_check());
 * a child inside the namespace stays allowed.
 */
static void mode_ptrace_userns(pid_t pid)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct gated g;
	char map[64];
	int px, pf, pc;

	if (unshare(CLONE_NEWUSER)) {
		skip("unprivileged user namespaces are disabled",
		     "ptrace-userns");
		return;
	}
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_file("/proc/self/gid_map", map);
	px = try_pid(pid, 0);
	pf = perf_open(pid, -1, -1, 0);
	diag("ptrace-userns: inside the namespace: perf_event_open on pid %d %s, /proc/PID/maps %s",
	     pid, verdict(pf), verdict(maps_open(pid)));
	result(px == -EACCES,
	       "ptrace-userns: from inside its own user namespace, a process of the same user outside it is refused with EACCES (%s)",
	       px ? strerror(-px) : "ALLOWED");
	px = try_pid(pid, PMUCTX_SESSION_THREAD);
	result(px == -EACCES,
	       "ptrace-userns: ... and its thread (%s)",
	       px ? strerror(-px) : "ALLOWED");
	g = gated_child(wait_fn, NULL);
	pc = try_pid(g.pid, 0);
	result(!pc, "ptrace-userns: a child inside the namespace is allowed (%s)",
	       verdict(pc));
	gate_open(&g);
	waitpid(g.pid, NULL, 0);
}

/* ---- MMAP snapshots of system-wide and cgroup sessions (issue 29 item 8) -- */

struct wide_seen {
	pid_t own;			/* the caller's child */
	const pid_t *other;		/* root's processes */
	int nother;
	unsigned int own_recs, other_recs, samples;
};

static void wide_rec(const void *rec, void *ctx)
{
	const struct pmuctx_rec_header *h = rec;
	const struct pmuctx_rec_common *c = (const void *)(h + 1);
	struct wide_seen *v = ctx;
	int i;

	if (h->type == PMUCTX_REC_SAMPLE)
		v->samples++;
	if (h->type != PMUCTX_REC_MMAP)
		return;
	if (c->pid == v->own)
		v->own_recs++;
	for (i = 0; i < v->nother; i++)
		if (c->pid == v->other[i])
			v->other_recs++;
}

static void wide_spin_fn(void *arg)
{
	uint64_t end = now_ns() + 1500000000ULL;
	volatile unsigned long x = 0;

	(void)arg;
	while (now_ns() < end)
		x++;
}

/*
 * A system-wide and a cgroup session (perf_event_paranoid 0 lets any user
 * have them) sampling user stacks with MMAP records, while root's CPU
 * hogs (@argv) and an own child run: MMAP snapshots describe only the
 * processes whose /proc/PID/maps the caller may read (its own child), not
 * root's.
 */
static void mode_mmap_wide(int argc, char **argv)
{
	static const char *const names[] = { "system-wide", "cgroup" };
	pid_t other[16];
	struct pmuctx_session_attr a;
	struct wide_seen v;
	struct gated g;
	int i, t, fd, cg;

	for (i = 0; i < argc && i < 16; i++) {
		other[i] = atoi(argv[i]);
		diag("mmap-wide: root's pid %d: /proc/PID/maps %s", other[i],
		     verdict(maps_open(other[i])));
	}
	for (t = 0; t < 2; t++) {
		memset(&v, 0, sizeof(v));
		v.other = other;
		v.nother = i;
		cg = -1;
		attr_init(&a, t ? PMUCTX_TARGET_CGROUP : PMUCTX_TARGET_SYSTEM, 0, 0);
		if (t) {
			cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			a.cgroup_fd = cg;
		}
		a.ring_pages = 64;
		a.ring_mode = PMUCTX_RING_NORMAL;
		a.ring_records = PMUCTX_REC_MASK_MMAP;
		a.sample_freq = 1000;
		a.sample_flags = PMUCTX_SAMPLE_USER_STACK;
		g = gated_child(wide_spin_fn, NULL);
		v.own = g.pid;
		fd = session_attr(&a, true);
		if (cg >= 0)
			close(cg);
		if (fd < 0) {
			result(0, "mmap-wide: %s session: %s", names[t], strerror(-fd));
			kill(g.pid, SIGKILL);
			waitpid(g.pid, NULL, 0);
			continue;
		}
		gate_open(&g);
		while (waitpid(g.pid, NULL, WNOHANG) == 0) {
			drain_ring(fd, wide_rec, &v);
			usleep(20000);
		}
		drain_ring(fd, wide_rec, &v);
		close(fd);
		diag("mmap-wide: %s, uid %u: %u samples, %u MMAP records of the own child, %u of root's processes",
		     names[t], getuid(), v.samples, v.own_recs, v.other_recs);
		result(v.own_recs > 0,
		       "mmap-wide: %s: MMAP records of the caller's own child (%u)",
		       names[t], v.own_recs);
		result(!v.other_recs,
		       "mmap-wide: %s: no MMAP record of root's processes, whose /proc/PID/maps the caller may not read (%u)",
		       names[t], v.other_recs);
	}
}

/* ---- cgroup targets: no O_PATH fd (issue 29 item 8) ----------------------- */

/*
 * perf_event_open() takes a cgroup fd with fdget(), which refuses an
 * O_PATH fd (EBADF): O_PATH needs no read permission on the directory.
 * A CGROUP session must refuse it the same way, and still take an fd
 * opened for reading.
 */
static void mode_cgroup_opath(void)
{
	struct pmuctx_session_attr a;
	int cg, fd, pf;

	cg = open("/sys/fs/cgroup", O_PATH | O_DIRECTORY | O_CLOEXEC);
	pf = perf_open(cg, 0, -1, PERF_FLAG_PID_CGROUP);
	attr_init(&a, PMUCTX_TARGET_CGROUP, 0, 0);
	a.cgroup_fd = cg;
	fd = session_attr(&a, false);
	result(fd == -EBADF,
	       "cgroup-opath: a CGROUP session refuses an O_PATH cgroup fd with EBADF (%s; perf: %s)",
	       fd >= 0 ? "ALLOWED" : strerror(-fd), pf ? strerror(-pf) : "allowed");
	if (fd >= 0)
		close(fd);
	close(cg);
	cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	a.cgroup_fd = cg;
	fd = session_attr(&a, false);
	result(fd >= 0, "cgroup-opath: an fd opened for reading is taken (%s)",
	       fd >= 0 ? "ok" : strerror(-fd));
	if (fd >= 0)
		close(fd);
	close(cg);
}

/* ---- create/close churn: how often the probes are (un)hooked ---------- */

/*
 * N rounds of SESSION_CREATE + close() of one session that needs the
 * sched_switch probe (PER_SWITCH), with nothing else open: before issue
 * 29 item 8 every round registered and unregistered every probe (text
 * pokes, IPIs to every CPU).  The caller counts the flips around it.
 */
static void mode_churn(const char *kind, int n, int gap_ms)
{
	bool cg = !strcmp(kind, "cgroup");
	struct pmuctx_session_attr a;
	uint64_t t0 = now_ns(), dt, closed = 0;
	int i, fd = -1, cgfd = -1, bad = 0, slow = 0;

	if (cg)
		cgfd = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	attr_init(&a, cg ? PMUCTX_TARGET_CGROUP : PMUCTX_TARGET_PID,
		  cg ? 0 : getpid(), PMUCTX_SESSION_PER_SWITCH);
	a.cgroup_fd = cgfd;
	for (i = 0; i < n; i++) {
		fd = session_attr(&a, true);
		/*
		 * From the last close (its release ran before close()
		 * returned) to this create's return: the probes had no user
		 * for at most that long, and may have gone past a second.
		 */
		if (closed && now_ns() - closed > 500000000ULL)
			slow++;
		if (fd < 0) {
			if (!bad++)
				diag("churn: round %d: %s", i, strerror(-fd));
			continue;
		}
		close(fd);
		if (gap_ms)
			usleep(gap_ms * 1000);
		closed = now_ns();
	}
	dt = now_ns() - t0;
	if (cgfd >= 0)
		close(cgfd);
	diag("churn %s: %d rounds in %.3f s (%.0f/s), %d slow (over 0.5 s from a close to the next create's return)",
	     kind, n, dt / 1e9, n / (dt / 1e9 + 1e-9), slow);
	result(!bad, "churn %s: %d create/close rounds, %d refused", kind, n,
	       bad);
}

static void mode_idle(int ms)
{
	uint64_t t0 = now_ns();
	struct pmuctx_info in;
	int left = ms;

	while (get_info(&in) == 0 && in.probes_registered && left > 0) {
		usleep(10000);
		left -= 10;
	}
	printf("%u %llu\n", in.probes_registered,
	       (unsigned long long)((now_ns() - t0) / 1000000));
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(m, "deny"))
		mode_deny(argc - 2, argv + 2);
	else if (!strcmp(m, "nondumpable"))
		mode_nondumpable();
	else if (!strcmp(m, "perf")) {
		perfmon_mode = argc > 2 && !strcmp(argv[2], "--perfmon");
		mode_perf();
	}
	else if (!strcmp(m, "poison"))
		mode_poison();
	else if (!strcmp(m, "limit"))
		mode_limit(argc > 2 ? atoi(argv[2]) : 256);
	else if (!strcmp(m, "userns"))
		mode_userns();
	else if (!strcmp(m, "subuid") && argc > 2)
		mode_subuid(atoi(argv[2]), argc > 3 && !strcmp(argv[3], "--rootns"));
	else if (!strcmp(m, "memavail") && argc > 4)
		mode_memavail(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	else if (!strcmp(m, "ring-tail"))
		mode_ring_tail();
	else if (!strcmp(m, "privexec") && argc > 4)
		mode_privexec(atoi(argv[2]), argv[3], argv[4]);
	else if (!strcmp(m, "execwindow") && argc > 4)
		mode_execwindow(atoi(argv[2]), argv[3], atoi(argv[4]));
	else if (!strcmp(m, "switch-next"))
		mode_switch_next(argc - 2, argv + 2);
	else if (!strcmp(m, "spin") && argc > 2)
		mode_spin(atoi(argv[2]));
	else if (!strcmp(m, "countercap") && argc > 2)
		mode_countercap(atoi(argv[2]));
	else if (!strcmp(m, "ipis") && argc > 3)
		mode_ipis(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(m, "kmode") && argc > 2)
		mode_kmode(!strcmp(argv[2], "kernel"));
	else if (!strcmp(m, "victim") && argc > 3 && !strcmp(argv[2], "--split"))
		mode_victim(argv[3], true);
	else if (!strcmp(m, "victim") && argc > 2)
		mode_victim(argv[2], false);
	else if (!strcmp(m, "ptrace") && argc > 4)
		mode_ptrace(atoi(argv[2]), argv[3], argv[4]);
	else if (!strcmp(m, "ptrace-userns") && argc > 2)
		mode_ptrace_userns(atoi(argv[2]));
	else if (!strcmp(m, "mmap-wide"))
		mode_mmap_wide(argc - 2, argv + 2);
	else if (!strcmp(m, "cgroup-opath"))
		mode_cgroup_opath();
	else if (!strcmp(m, "churn") && argc > 4)
		mode_churn(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (!strcmp(m, "idle") && argc > 2)
		mode_idle(atoi(argv[2]));
	else {
		fprintf(stderr, "usage: pmuctx-sec deny PID...|nondumpable|perf|poison|limit N|userns|subuid N [--rootns]|\n"
			"       memavail SESSIONS TASKS MEMLOCK_KB|\n"
			"       ring-tail|privexec N SUID PLAIN|execwindow N SUID ROUNDS|\n"
			"       switch-next PID...|spin SECS|kmode user|kernel|ipis SECS SESSIONS|\n"
			"       countercap N|victim [--split] READY|ptrace PID allow|deny|split WHAT|\n"
			"       ptrace-userns PID|mmap-wide PID...|cgroup-opath|\n"
			"       churn pid|cgroup N GAP_MS|idle MS\n");
		return 2;
	}
	return !!failures;
}
