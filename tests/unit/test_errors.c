// SPDX-License-Identifier: GPL-2.0
/*
 * Error messages: each errno the library can meet must produce a message
 * that tells a person what is wrong and what to do.
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

#include "../../lib/internal.h"
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

static void test_missing_module(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = "/nonexistent/pmuctx");
	struct pmuctx *h = (struct pmuctx *)1;
	int err;

	err = pmuctx_open(&h, &o);
	CHECK(err == -ENOENT && !h, "open of a missing device -> -ENOENT, "
	      "*out = NULL");
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
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
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	CHECK_HAS(msg, "no driver", "ENODEV: device without driver");
	CHECK_HAS(msg, "sudo modprobe pmuctx", "ENODEV: how to load");
	fake.open_err = -ENXIO;
	err = pmuctx_open(&h, &o);
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	CHECK(err == -ENXIO && strstr(msg, "sudo modprobe pmuctx") &&
	      strstr(msg, "insmod module/pmuctx.ko"),
	      "ENXIO: how to load");
	fake_remove();

	/* no record for this errno: still a helpful generic message */
	pmuctx__tls_err()->err = 0;
	pmuctx_errmsg(NULL, -ENOENT, msg, sizeof(msg));
	CHECK_HAS(msg, "sudo modprobe pmuctx",
		  "generic ENOENT message (no record) says how to load");
}

static void facts_base(struct pmuctx__err *e, int err)
{
	memset(e, 0, sizeof(*e));
	e->err = err;
	e->op = PMUCTX_OP_OPEN;
	strcpy(e->path, "/dev/pmuctx");
	e->have_facts = true;
	e->hw_pmu = -1;
	e->module_abi = -1;
	e->facts.caps_known = true;
	e->facts.euid = 1000;
	strcpy(e->facts.user, "alice");
	e->facts.dev_known = true;
	e->facts.dev_is_chr = true;
	e->facts.dev_mode = S_IFCHR | 0660;
	e->facts.dev_uid = 0;
	e->facts.dev_gid = 990;
	strcpy(e->facts.dev_owner, "root");
	strcpy(e->facts.dev_group, "pmuctx");
	e->facts.group_exists = true;
	e->facts.paranoid_known = true;
	e->facts.paranoid = 2;
}

static void test_open_permission(void)
{
	struct pmuctx__err e;
	struct pmuctx *h;
	int err, st, p[2];
	pid_t pid;

	facts_base(&e, EACCES);
	pmuctx__format_err(&e, -EACCES, msg, sizeof(msg));
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

	facts_base(&e, EACCES);
	e.facts.listed_in_group = true;
	pmuctx__format_err(&e, EACCES, msg, sizeof(msg));
	CHECK_HAS(msg, "log out and in again", "EACCES: group not yet "
		  "active in this login");

	facts_base(&e, EPERM);
	e.facts.perfmon_prm = true;
	pmuctx__format_err(&e, EPERM, msg, sizeof(msg));
	CHECK_HAS(msg, "CAP_PERFMON is permitted but not effective",
		  "EPERM: permitted-but-not-effective capability");

	facts_base(&e, EACCES);
	e.facts.dev_mode = S_IFCHR | 0600;
	strcpy(e.facts.dev_group, "root");
	pmuctx__format_err(&e, EACCES, msg, sizeof(msg));
	CHECK_HAS(msg, "crw-------, owner root, group root",
		  "EACCES: shows a wrong mode/group");
	CHECK_HAS(msg, "udev rule does not seem active",
		  "EACCES: says the udev rule is missing");

	facts_base(&e, EACCES);
	e.facts.group_exists = false;
	pmuctx__format_err(&e, EACCES, msg, sizeof(msg));
	CHECK_HAS(msg, "group pmuctx does not exist", "EACCES: no group");
	CHECK_HAS(msg, "sudo groupadd --system pmuctx",
		  "EACCES: how to create the group");

	facts_base(&e, EACCES);
	e.facts.perfmon_eff = true;
	e.facts.perfmon_prm = true;
	pmuctx__format_err(&e, EACCES, msg, sizeof(msg));
	CHECK_HAS(msg, "has CAP_PERFMON in its effective set",
		  "EACCES: reports a capability the process has");

	/* through pmuctx_open() and the real libcap/stat */
	fake_install();
	fake.open_err = -EACCES;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		err = pmuctx_open(&h, &o);
	}
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
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
			pmuctx_errmsg(NULL, err, buf, sizeof(buf));
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
	const char *old_paranoid = pmuctx__sys.paranoid_path;
	const char *old_proc = pmuctx__sys.proc_root;
	char line[512], sub[600];
	struct pmuctx__err e;
	struct pmuctx *h;
	int fd, err;
	pid_t pid;

	fd = mkstemp(paranoid);
	if (fd >= 0) {
		if (write(fd, "2\n", 2) != 2)
			t_diag("write failed");
		close(fd);
	}
	pmuctx__sys.paranoid_path = paranoid;
	fake_install();

	/* EPERM, system wide */
	h = open_fake();
	fake.create_err = -EPERM;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .target = PMUCTX_TARGET_SYSTEM);

		err = pmuctx_session_create(h, &so);
	}
	pmuctx_errmsg(h, err, msg, sizeof(msg));
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
	facts_base(&e, EPERM);
	e.op = PMUCTX_OP_SESSION;
	e.target = PMUCTX_TARGET_SYSTEM;
	pmuctx__format_err(&e, EPERM, msg, sizeof(msg));
	CHECK_HAS(msg, "sysctl kernel.perf_event_paranoid=0",
		  "EPERM system, unprivileged: how to relax paranoid");
	CHECK_HAS(msg, "setcap cap_perfmon+ep",
		  "EPERM system, unprivileged: how to grant CAP_PERFMON");
	e.facts.perfmon_eff = true;
	pmuctx__format_err(&e, EPERM, msg, sizeof(msg));
	CHECK_HAS(msg, "already privileged", "EPERM system, privileged: "
		  "points at LSM/container policy");
	facts_base(&e, EPERM);
	e.op = PMUCTX_OP_SESSION;
	e.target = PMUCTX_TARGET_PID;
	e.pid = 555;
	e.facts.target_known = true;
	e.facts.target_uid = 0;
	strcpy(e.facts.target_user, "root");
	pmuctx__format_err(&e, EPERM, msg, sizeof(msg));
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
		pmuctx__sys.proc_root = procdir;
	}
	h = open_fake();
	fake.create_err = -EACCES;
	fake.check_pid = false;
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .pid = 4242);

		err = pmuctx_session_create(h, &so);
	}
	pmuctx_errmsg(h, err, msg, sizeof(msg));
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
	pmuctx__sys.proc_root = old_proc;
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
	pmuctx_errmsg(h, err, msg, sizeof(msg));
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
	pmuctx_errmsg(h, err, msg, sizeof(msg));
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
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "library/module version mismatch", "E2BIG: says so");
	CHECK_HAS(msg, "speaks pmuctx ABI 1", "E2BIG: library ABI version");
	CHECK_HAS(msg, "module 9.9.9 speaks ABI 2",
		  "E2BIG: module version and ABI version");
	CHECK_HAS(msg, "struct pmuctx_session_attr of 120 bytes",
		  "E2BIG: library's struct size");
	CHECK_HAS(msg, "it knows 64 bytes", "E2BIG: module's struct size");
	CHECK_HAS(pmuctx_strerror(err), "ABI", "strerror(E2BIG) says ABI");
	pmuctx_close(h);

	/* EBUSY, ESRCH, no session */
	fake_install();
	h = open_fake();
	CHECK_EQ(pmuctx_enable(h), -EINVAL, "enable without a session");
	pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
	CHECK_HAS(msg, "this handle has no session",
		  "EINVAL enable: says there is no session");
	CHECK_EQ(pmuctx_session_create(h, NULL), 0, "first create works");
	err = pmuctx_session_create(h, NULL);
	CHECK_EQ(err, -EBUSY, "second create -> -EBUSY");
	pmuctx_errmsg(h, err, msg, sizeof(msg));
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
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	snprintf(line, sizeof(line), "there is no process %d", (int)pid);
	CHECK_HAS(msg, line, "ESRCH: names the pid");
	/* the handle keeps its record even after other failures */
	pmuctx_event_parse("zzz");
	pmuctx_errmsg(h, -ESRCH, msg, sizeof(msg));
	CHECK_HAS(msg, line, "handle record survives later thread errors");
	pmuctx_close(h);

	/* a session EINVAL names the attributes */
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .flags = 0x100);

		err = pmuctx_session_create(h, &so);
	}
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK(err == -EINVAL && strstr(msg, "flags 0x100") &&
	      strstr(msg, "task-clock, context-switches"),
	      "EINVAL create: message shows flags and events");
	pmuctx_close(h);
	fake_remove();

	pmuctx__sys.paranoid_path = old_paranoid;
	unlink(paranoid);

	/* a path that is not a pmuctx device */
	{
		char path[] = "/tmp/pmuctx-notdev-XXXXXX";
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = path);

		fd = mkstemp(path);
		close(fd);
		err = pmuctx_open(&h, &o);
		CHECK_EQ(err, -ENOTTY, "regular file as device -> -ENOTTY");
		pmuctx_errmsg(NULL, err, msg, sizeof(msg));
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

static void test_strerror_errmsg(void)
{
	int n;

	CHECK(!strcmp(pmuctx_strerror(0), "success"), "strerror(0)");
	CHECK(pmuctx_strerror(-EACCES) == pmuctx_strerror(EACCES),
	      "strerror takes negative and positive errnos");
	CHECK_HAS(pmuctx_strerror(-EOPNOTSUPP), "PMU", "strerror EOPNOTSUPP");
	CHECK_HAS(pmuctx_strerror(-EACCES), "pmuctx", "strerror EACCES");
	CHECK_HAS(pmuctx_strerror(-EPERM), "CAP_PERFMON", "strerror EPERM");
	CHECK_HAS(pmuctx_strerror(-EBUSY), "session", "strerror EBUSY");
	CHECK_HAS(pmuctx_strerror(-EDOM), "argument",
		  "strerror of another errno falls back to libc");

	pmuctx_event_parse("xyzzy");
	n = pmuctx_errmsg(NULL, -EINVAL, NULL, 0);
	CHECK(n > 20, "errmsg(NULL, 0) returns the needed length");
	{
		char small[8];
		int m = pmuctx_errmsg(NULL, -EINVAL, small, sizeof(small));

		CHECK(m == n && strlen(small) == 7,
		      "errmsg truncates and NUL-terminates");
	}
	CHECK_EQ(pmuctx_errmsg(NULL, -EINVAL, NULL, 5), -EINVAL,
		 "errmsg(NULL buf, len 5) -> -EINVAL");
}

void test_errors(void)
{
	test_missing_module();
	test_open_permission();
	test_session_errors();
	test_strerror_errmsg();
}
