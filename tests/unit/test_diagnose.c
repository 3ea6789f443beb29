// SPDX-License-Identifier: GPL-2.0
/*
 * The pmuctx command's diagnosis of library failures (tools/diagnose.c):
 * each errno the library can meet must produce a message that tells a
 * person what is wrong and what to do.  (Moved here from test_errors.c
 * with the code, which was libpmuctx's errors.c.)
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <pmuctx.h>

#include "diagnose.h"
#include "fake_kernel.h"
#include "test.h"

static char msg[8192];

static struct pmuctx *open_fake(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
	struct pmuctx *h = NULL;

	if (pmuctx_open(&h, &o))
		return NULL;
	return h;
}

/* the line of @text that starts with @prefix (after blanks) */
static const char *line_with(const char *text, const char *needle,
			     char *out, size_t len)
{
	const char *p = strstr(text, needle), *s, *e;

	out[0] = '\0';
	if (!p)
		return out;
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(out, len, "%.*s", (int)(e - s), s);
	return out;
}

static void test_diag_missing_module(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = "/nonexistent/pmuctx");
	struct pmuctx *h = (struct pmuctx *)1;
	int err;

	err = pmuctx_open(&h, &o);
	CHECK(err == -ENOENT && !h, "open of a missing device -> -ENOENT, "
	      "*out = NULL");
	diagnose(NULL, err, msg, sizeof(msg));
	CHECK_HAS(msg, "cannot open /nonexistent/pmuctx",
		  "ENOENT: says what failed");
	CHECK_HAS(msg, "kernel module is not loaded", "ENOENT: says why");
	CHECK_HAS(msg, "sudo modprobe pmuctx", "ENOENT: how to load");
	CHECK_HAS(msg, "sudo insmod module/pmuctx.ko",
		  "ENOENT: how to load from a build tree");
	CHECK_HAS(msg, "sudo dkms install .", "ENOENT: how to install");
	CHECK_HAS(pmuctx_strerror(err), "module",
		  "strerror(ENOENT) mentions the module");

	fake_install();
	fake.open_err = -ENODEV;
	o.path = FAKE_PATH;
	err = pmuctx_open(&h, &o);
	CHECK_EQ(err, -ENODEV, "ENODEV from open is returned");
	diagnose(NULL, err, msg, sizeof(msg));
	CHECK_HAS(msg, "no driver", "ENODEV: device without driver");
	CHECK_HAS(msg, "sudo modprobe pmuctx", "ENODEV: how to load");
	fake.open_err = -ENXIO;
	err = pmuctx_open(&h, &o);
	diagnose(NULL, err, msg, sizeof(msg));
	CHECK(err == -ENXIO && strstr(msg, "sudo modprobe pmuctx") &&
	      strstr(msg, "insmod module/pmuctx.ko"),
	      "ENXIO: how to load");
	fake_remove();

	/* no record for this errno: still a helpful generic message */
	pmuctx_event_parse("no-such-event");	/* the last record: EINVAL */
	diagnose(NULL, -ENOENT, msg, sizeof(msg));
	CHECK_HAS(msg, "sudo modprobe pmuctx",
		  "generic ENOENT message (no record) says how to load");
}

static struct pmuctx_errinfo e;
static struct diag_facts f;

static void facts_base(int err)
{
	memset(&e, 0, sizeof(e));
	memset(&f, 0, sizeof(f));
	e.sz = sizeof(e);
	e.err = err;
	e.op = PMUCTX_ERR_OP_OPEN;
	e.path = "/dev/pmuctx";
	e.detail = e.module_version = "";
	e.hw_pmu = e.ring_feature = e.module_abi = -1;
	f.have_perm = true;
	f.ring.max_pages = -1;
	f.perm.caps_known = true;
	f.perm.euid = 1000;
	strcpy(f.perm.user, "alice");
	f.perm.dev_known = true;
	f.perm.dev_is_chr = true;
	f.perm.dev_mode = S_IFCHR | 0660;
	f.perm.dev_uid = 0;
	f.perm.dev_gid = 990;
	strcpy(f.perm.dev_owner, "root");
	strcpy(f.perm.dev_group, "pmuctx");
	f.perm.group_exists = true;
	f.perm.paranoid_known = true;
	f.perm.paranoid = 2;
}

static void test_open_permission(void)
{
	struct pmuctx *h;
	int err, st, p[2];
	pid_t pid;

	facts_base(EACCES);
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "cannot open /dev/pmuctx: Permission denied",
		  "EACCES: first line");
	CHECK_HAS(msg, "/dev/pmuctx is crw-rw----, owner root, group pmuctx",
		  "EACCES: device mode and group");
	CHECK_HAS(msg, "uid 1000 (alice) and is not in group pmuctx",
		  "EACCES: who and group membership");
	CHECK_HAS(msg, "neither CAP_PERFMON nor CAP_SYS_ADMIN",
		  "EACCES: capabilities (libcap)");
	CHECK_HAS(msg, "sudo usermod -aG pmuctx alice",
		  "EACCES: how to join the group");
	CHECK_HAS(msg, "setcap cap_perfmon+ep", "EACCES: capability way");
	CHECK_LACKS(msg, "udev rule does not seem active",
		    "EACCES: udev rule fine here");

	facts_base(EACCES);
	f.perm.listed_in_group = true;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "log out and in again", "EACCES: group not yet "
		  "active in this login");

	facts_base(EPERM);
	f.perm.perfmon_prm = true;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "CAP_PERFMON is permitted but not effective",
		  "EPERM: permitted-but-not-effective capability");

	facts_base(EACCES);
	f.perm.dev_mode = S_IFCHR | 0600;
	strcpy(f.perm.dev_group, "root");
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "crw-------, owner root, group root",
		  "EACCES: shows a wrong mode/group");
	CHECK_HAS(msg, "udev rule does not seem active",
		  "EACCES: says the udev rule is missing");

	facts_base(EACCES);
	f.perm.group_exists = false;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "group pmuctx does not exist", "EACCES: no group");
	CHECK_HAS(msg, "sudo groupadd --system pmuctx",
		  "EACCES: how to create the group");

	facts_base(EACCES);
	f.perm.perfmon_eff = true;
	f.perm.perfmon_prm = true;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "has CAP_PERFMON in its effective set",
		  "EACCES: reports a capability the process has");

	/* through pmuctx_open() and the real libcap/stat */
	fake_install();
	fake.open_err = -EACCES;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		err = pmuctx_open(&h, &o);
	}
	diagnose(NULL, err, msg, sizeof(msg));
	CHECK(err == -EACCES && strstr(msg, "group pmuctx") &&
	      strstr(msg, "CAP_PERFMON") && strstr(msg, "this process runs "
						     "as uid"),
	      "pmuctx_open EACCES: message with facts");
	fake_remove();

	/* a real EACCES: drop privileges in a child and open a 0600 file */
	if (geteuid() != 0) {
		t_diag("not root: skipping the dropped-privileges check");
		return;
	}
	{
		char path[] = "/tmp/pmuctx-test-XXXXXX";
		int fd = mkstemp(path);
		char buf[8192];
		ssize_t n, got = 0;

		fchmod(fd, 0600);
		close(fd);
		if (pipe(p))
			return;
		pid = fork();
		if (pid == 0) {
			LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = path);
			struct pmuctx *hh;

			close(p[0]);
			if (setgroups(0, NULL) || setgid(65534) ||
			    setuid(65534))
				_exit(3);
			err = pmuctx_open(&hh, &o);
			diagnose(NULL, err, buf, sizeof(buf));
			if (write(p[1], buf, strlen(buf)) < 0)
				_exit(4);
			_exit(err == -EACCES ? 0 : 1);
		}
		close(p[1]);
		while ((n = read(p[0], buf + got, sizeof(buf) - 1 -
				 (size_t)got)) > 0)
			got += n;
		buf[got] = '\0';
		close(p[0]);
		waitpid(pid, &st, 0);
		unlink(path);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "unprivileged open of a 0600 root file -> -EACCES");
		CHECK_HAS(buf, "uid 65534", "real EACCES: names the uid");
		CHECK_HAS(buf, "-rw-------, owner root",
			  "real EACCES: stat of the path");
		CHECK_HAS(buf, "neither CAP_PERFMON nor CAP_SYS_ADMIN",
			  "real EACCES: libcap sees no capabilities");
	}
}

static void test_session_errors(void)
{
	char paranoid[] = "/tmp/pmuctx-paranoid-XXXXXX";
	char procdir[] = "/tmp/pmuctx-proc-XXXXXX";
	const char *old_paranoid = diag_paths.paranoid;
	const char *old_proc = diag_paths.proc_root;
	char line[512], sub[600];
	struct pmuctx *h;
	int fd, err;
	pid_t pid;

	fd = mkstemp(paranoid);
	if (fd >= 0) {
		if (write(fd, "2\n", 2) != 2)
			t_diag("write failed");
		close(fd);
	}
	diag_paths.paranoid = paranoid;
	fake_install();

	/* EPERM, system wide */
	h = open_fake();
	fake.create_err = -EPERM;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .target = PMUCTX_TARGET_SYSTEM);

		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	CHECK_EQ(err, -EPERM, "system-wide EPERM is returned");
	CHECK_HAS(msg, "cannot create a system-wide pmuctx session",
		  "EPERM system: first line");
	CHECK_HAS(msg, "need CAP_PERFMON", "EPERM system: needs CAP_PERFMON");
	CHECK_HAS(msg, "kernel.perf_event_paranoid is 2",
		  "EPERM system: prints the current paranoid value");
	CHECK(strstr(msg, "sysctl kernel.perf_event_paranoid=0") ||
	      strstr(msg, "already privileged"),
	      "EPERM system: how to fix it (depends on our capabilities)");
	pmuctx_close(h);

	/* both variants, with made-up facts */
	facts_base(EPERM);
	e.op = PMUCTX_ERR_OP_SESSION;
	e.target = PMUCTX_TARGET_SYSTEM;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "sysctl kernel.perf_event_paranoid=0",
		  "EPERM system, unprivileged: how to relax paranoid");
	CHECK_HAS(msg, "setcap cap_perfmon+ep",
		  "EPERM system, unprivileged: how to grant CAP_PERFMON");
	f.perm.perfmon_eff = true;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "already privileged", "EPERM system, privileged: "
		  "points at LSM/container policy");
	facts_base(EPERM);
	e.op = PMUCTX_ERR_OP_SESSION;
	e.target = PMUCTX_TARGET_PID;
	e.pid = 555;
	f.perm.target_known = true;
	f.perm.target_uid = 0;
	strcpy(f.perm.target_user, "root");
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "pid 555 belongs to uid 0 (root); this process runs "
		  "as uid 1000 (alice)", "EPERM pid: owner and caller");
	CHECK_HAS(msg, "same uid or CAP_SYS_PTRACE (this process does not "
		  "have CAP_SYS_PTRACE)", "EPERM pid: what is needed");
	CHECK_HAS(msg, "kernel.perf_event_paranoid is 2",
		  "EPERM pid: current paranoid value");

	/* EACCES, another user's pid: real /proc-like tree with chown */
	if (mkdtemp(procdir)) {
		snprintf(sub, sizeof(sub), "%s/4242", procdir);
		mkdir(sub, 0755);
		if (chown(sub, 1234, 1234))
			t_diag("chown failed (not root?)");
		diag_paths.proc_root = procdir;
	}
	h = open_fake();
	fake.create_err = -EACCES;
	fake.check_pid = false;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .pid = 4242);

		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "cannot create a pmuctx session for pid 4242",
		  "EACCES pid: first line");
	if (geteuid() == 0) {
		CHECK_HAS(msg, "pid 4242 belongs to uid 1234",
			  "EACCES pid: names the owner");
		CHECK_HAS(msg, "this process runs as uid 0",
			  "EACCES pid: names our uid");
	}
	if (geteuid() == 0)
		CHECK_HAS(msg, "same uid or CAP_SYS_PTRACE",
			  "EACCES pid: says what is needed");
	else	/* chown failed: the directory is ours */
		CHECK_HAS(msg, "the target is yours",
			  "EACCES pid (own task): says it is ours");
	CHECK_HAS(msg, "kernel.perf_event_paranoid is 2",
		  "EACCES pid: prints perf_event_paranoid");
	pmuctx_close(h);
	diag_paths.proc_root = old_proc;
	rmdir(sub);
	rmdir(procdir);

	/* EOPNOTSUPP without a hardware PMU */
	fake_install();
	h = open_fake();
	fake.hw_unsupported = true;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "task-clock,cycles,cs,instructions");

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, -EOPNOTSUPP, "hardware events -> -EOPNOTSUPP");
	diagnose(h, err, msg, sizeof(msg));
	line_with(msg, "not supported here:", line, sizeof(line));
	CHECK_HAS(line, "cycles, instructions",
		  "EOPNOTSUPP: names the hardware events");
	CHECK_LACKS(line, "task-clock", "EOPNOTSUPP: not the software ones");
	CHECK_HAS(msg, "no hardware PMU", "EOPNOTSUPP: says no PMU");
	CHECK_HAS(msg, "virtual machine", "EOPNOTSUPP: mentions VMs");
	CHECK_EQ(fake.nr_creates, 5,
		 "EOPNOTSUPP: the create plus one probe per event");
	pmuctx_close(h);

	/* EOPNOTSUPP with a PMU that lacks one event: probing finds it */
	fake_install();
	fake.features |= PMUCTX_FEAT_HW_PMU;
	h = open_fake();
	fake.unsupported_id = PMUCTX_EV_CACHE_MISSES;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "cycles,cache-misses,instructions");

		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	line_with(msg, "not supported here:", line, sizeof(line));
	CHECK(strstr(line, "cache-misses") && !strstr(line, "cycles") &&
	      !strstr(line, "instructions"),
	      "EOPNOTSUPP with a PMU: probing names only cache-misses");
	CHECK_HAS(msg, "does not provide these events",
		  "EOPNOTSUPP with a PMU: says the PMU lacks them");
	pmuctx_close(h);

	/* E2BIG: the module knows a smaller session_attr */
	fake_install();
	fake.abi_version = 2;
	strcpy(fake.version, "9.9.9");
	fake.attr_size = 64;
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .max_exited = 5);

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, -E2BIG, "non-zero field unknown to the module -> "
		 "-E2BIG");
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "library/module version mismatch", "E2BIG: says so");
	CHECK_HAS(msg, "speaks pmuctx ABI 1", "E2BIG: library ABI version");
	CHECK_HAS(msg, "module 9.9.9 speaks ABI 2",
		  "E2BIG: module version and ABI version");
	CHECK_HAS(msg, "struct pmuctx_session_attr of 416 bytes",
		  "E2BIG: library's struct size");
	CHECK_HAS(msg, "it knows 64 bytes", "E2BIG: module's struct size");
	CHECK_HAS(pmuctx_strerror(err), "ABI", "strerror(E2BIG) says ABI");
	pmuctx_close(h);

	/* EBUSY, ESRCH, no session */
	fake_install();
	h = open_fake();
	CHECK_EQ(pmuctx_enable(h), -EINVAL, "enable without a session");
	diagnose(h, -EINVAL, msg, sizeof(msg));
	CHECK_HAS(msg, "this handle has no session",
		  "EINVAL enable: says there is no session");
	CHECK_EQ(pmuctx_session_create(h, NULL), 0, "first create works");
	err = pmuctx_session_create(h, NULL);
	CHECK_EQ(err, -EBUSY, "second create -> -EBUSY");
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "already has a session", "EBUSY: explained");
	pmuctx_close(h);

	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .pid = pid);

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, -ESRCH, "reaped pid -> -ESRCH");
	diagnose(h, err, msg, sizeof(msg));
	snprintf(line, sizeof(line), "there is no process %d", (int)pid);
	CHECK_HAS(msg, line, "ESRCH: names the pid");
	/* the handle keeps its record even after other failures */
	pmuctx_event_parse("zzz");
	diagnose(h, -ESRCH, msg, sizeof(msg));
	CHECK_HAS(msg, line, "handle record survives later thread errors");
	pmuctx_close(h);

	/* a session EINVAL names the attributes */
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .flags = 0x100);

		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	CHECK(err == -EINVAL && strstr(msg, "flags 0x100") &&
	      strstr(msg, "task-clock, context-switches"),
	      "EINVAL create: message shows flags and events");
	pmuctx_close(h);
	fake_remove();

	diag_paths.paranoid = old_paranoid;
	unlink(paranoid);

	/* a path that is not a pmuctx device */
	{
		char path[] = "/tmp/pmuctx-notdev-XXXXXX";
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = path);

		fd = mkstemp(path);
		close(fd);
		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, -ENOTTY, "regular file as device -> -ENOTTY");
		diagnose(NULL, err, msg, sizeof(msg));
		CHECK_HAS(msg, "is not a pmuctx device", "ENOTTY: explained");
		o.flags = PMUCTX_OPEN_NO_PROBE;
		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, 0, "PMUCTX_OPEN_NO_PROBE skips the INFO query");
		CHECK(pmuctx_fd(h) >= 0, "pmuctx_fd returns the fd");
		CHECK_EQ(pmuctx_fd(NULL), -EINVAL, "pmuctx_fd(NULL)");
		pmuctx_close(h);
		unlink(path);
	}
}

/*
 * EOPNOTSUPP says what the module reported about its PMU and nothing
 * more: no "no hardware PMU" on a machine whose module has one or did not
 * say (bare metal), no PMU talk for software events.
 */
static void test_notsupp_pmu(void)
{
	facts_base(EOPNOTSUPP);
	f.have_perm = false;
	e.op = PMUCTX_ERR_OP_SESSION;
	e.target = PMUCTX_TARGET_PID;
	e.nr_culprits = 1;
	e.culprits[0] = PMUCTX_EV_CYCLES;

	e.hw_pmu = 0;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "not supported here: cycles", "no PMU: names cycles");
	CHECK_HAS(msg, "no hardware PMU", "no PMU: says the module found none");

	e.hw_pmu = 1;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "has a hardware PMU, but it does not provide",
		  "PMU present: the PMU lacks the event");
	CHECK_LACKS(msg, "no hardware PMU", "PMU present: not 'no PMU'");
	CHECK_LACKS(msg, "virtual machine", "PMU present: no VM guess");

	e.hw_pmu = -1;		/* opened with PMUCTX_OPEN_NO_PROBE */
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "whether it has a hardware PMU is unknown",
		  "PMU unknown: says it is unknown");
	CHECK_LACKS(msg, "no hardware PMU", "PMU unknown: not 'no PMU'");
	CHECK_LACKS(msg, "virtual machine", "PMU unknown: no VM guess");

	e.hw_pmu = 1;
	e.culprits[0] = PMUCTX_EV_PAGE_FAULTS;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "not supported here: page-faults",
		  "software event refused: named");
	CHECK_LACKS(msg, "PMU", "software event refused: no PMU talk");
}

/* EUSERS: the PMU's share of users without CAP_PERFMON is taken */
static void test_pmu_share(void)
{
	char param[] = "/tmp/pmuctx-pmushare-XXXXXX";
	const char *old = diag_paths.max_unpriv_pmu;
	int fd;

	facts_base(EUSERS);
	e.op = PMUCTX_ERR_OP_SESSION;
	e.target = PMUCTX_TARGET_PID;
	fd = mkstemp(param);
	if (fd >= 0) {
		if (write(fd, "4\n", 2) != 2)
			t_diag("write failed");
		close(fd);
	}
	diag_paths.max_unpriv_pmu = param;
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "max_unprivileged_pmu_counters is 4",
		  "EUSERS: names the limit and its value");
	CHECK_HAS(msg, "software events are not limited",
		  "EUSERS: what the user can do");
	unlink(param);
	diag_format(&e, &f, msg, sizeof(msg));
	CHECK_HAS(msg, "could not be read", "EUSERS: an unreadable limit said");
	diag_paths.max_unpriv_pmu = old;
	CHECK_HAS(pmuctx_strerror(EUSERS), "max_unprivileged_pmu_counters",
		  "strerror(EUSERS) names the limit");
}

/*
 * Issue 30 item 10: an unprivileged pmuctx record at perf_event_paranoid
 * 3 (its own command, ring buffers under RLIMIT_MEMLOCK) is refused by
 * the paranoid policy: the explanation's first line after the summary
 * must say so, not open with a paragraph on locked memory.
 */
static void test_paranoid3_record(void)
{
	static const int errs[] = { EACCES, EPERM };
	char first[512];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const char *nl, *pmem;

		facts_base(errs[i]);
		e.op = PMUCTX_ERR_OP_SESSION;
		e.target = PMUCTX_TARGET_PID;
		e.pid = 4321;
		e.ring_pages = 128;
		e.nr_cpus = 2;
		e.page_size = 4096;
		f.perm.paranoid = 3;
		f.perm.target_known = true;
		f.perm.target_uid = 1000;	/* alice's own command */
		f.ring.caps_known = true;
		f.ring.memlock_known = true;
		f.ring.memlock_cur = 8ULL << 20;	/* 8 MiB: enough */
		f.ring.memlock_max = 8ULL << 20;
		diag_format(&e, &f, msg, sizeof(msg));
		nl = strchr(msg, '\n');
		snprintf(first, sizeof(first), "%.*s", nl ? (int)(strcspn(
			 nl + 1, "\n")) : 0, nl ? nl + 1 : "");
		CHECK(strstr(first, "perf_event_paranoid is 3"),
		      "paranoid 3, %s: the explanation opens with the cause, "
		      "perf_event_paranoid is 3 (it opened with: '%s')",
		      errs[i] == EACCES ? "EACCES" : "EPERM", first);
		CHECK_HAS(msg, "CAP_PERFMON", "... and names CAP_PERFMON");
		CHECK_HAS(msg, "kernel.perf_event_paranoid=2",
			  "... and the setting that allows it");
		pmem = strstr(msg, "RLIMIT_MEMLOCK");
		CHECK(!pmem || pmem > strstr(msg, "perf_event_paranoid is 3"),
		      "... locked memory, if at all, after the cause");
	}
	/* paranoid 2, EPERM: the policy allows it, locked memory is first */
	facts_base(EPERM);
	e.op = PMUCTX_ERR_OP_SESSION;
	e.target = PMUCTX_TARGET_PID;
	e.pid = 4321;
	e.ring_pages = 128;
	e.nr_cpus = 2;
	e.page_size = 4096;
	f.perm.target_known = true;
	f.perm.target_uid = 1000;
	f.ring.caps_known = true;
	f.ring.memlock_known = true;
	f.ring.memlock_cur = 65536;
	f.ring.memlock_max = 65536;
	diag_format(&e, &f, msg, sizeof(msg));
	line_with(msg, "  ", first, sizeof(first));
	CHECK_HAS(first, "locked memory", "paranoid 2, EPERM over the limit: "
		  "locked memory first, as before");
}

void test_diagnose(void)
{
	test_diag_missing_module();
	test_open_permission();
	test_session_errors();
	test_notsupp_pmu();
	test_pmu_share();
	test_paranoid3_record();
}
