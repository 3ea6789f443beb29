// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Error records and human-readable, actionable error messages.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "internal.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define PMUCTX_GROUP "pmuctx"

/* ---- string builder ---------------------------------------------------- */

PMUCTX_INTERNAL void pmuctx__sb_printf(struct pmuctx__sb *sb,
				       const char *fmt, ...)
{
	va_list ap;
	size_t room = sb->pos < sb->len ? sb->len - sb->pos : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->pos += (size_t)n;
}

/* ---- opts validation ----------------------------------------------------- */

PMUCTX_INTERNAL bool pmuctx__validate_opts(const char *opts, size_t opts_sz,
					   size_t user_sz,
					   const char *type_name)
{
	size_t i;

	if (user_sz < sizeof(size_t)) {
		pmuctx__err_set(NULL, PMUCTX_OP_OPTS, EINVAL,
			"struct %s: sz is %zu, smaller than sizeof(size_t); "
			"declare the opts with LIBPMUCTX_OPTS(%s, name, ...) "
			"or set .sz = sizeof(struct %s)", type_name, user_sz,
			type_name, type_name);
		return false;
	}
	for (i = opts_sz; i < user_sz; i++) {
		if (opts[i]) {
			pmuctx__err_set(NULL, PMUCTX_OP_OPTS, EINVAL,
				"struct %s: byte %zu is non-zero but this "
				"libpmuctx %s knows only %zu bytes of it "
				"(the program was built against a newer "
				"pmuctx.h and uses an option this library "
				"lacks: upgrade libpmuctx)", type_name, i,
				pmuctx_version(), opts_sz);
			return false;
		}
	}
	return true;
}

/* ---- system-call indirection --------------------------------------------- */

PMUCTX_INTERNAL int pmuctx__sys_open(const char *path, int flags)
{
	int fd = open(path, flags);

	return fd < 0 ? -errno : fd;
}

PMUCTX_INTERNAL int pmuctx__sys_ioctl(int fd, unsigned long req, void *arg)
{
	int ret = ioctl(fd, req, arg);

	return ret < 0 ? -errno : ret;
}

/* ---- records ------------------------------------------------------------- */

static __thread struct pmuctx__err tls_err;

PMUCTX_INTERNAL struct pmuctx__err *pmuctx__tls_err(void)
{
	return &tls_err;
}

PMUCTX_INTERNAL struct pmuctx__err *pmuctx__err_begin(struct pmuctx *h,
						       enum pmuctx__op op,
						       int err)
{
	struct pmuctx__err *e = &tls_err;

	memset(e, 0, sizeof(*e));
	e->err = err < 0 ? -err : err;
	e->op = op;
	e->hw_pmu = -1;
	e->module_abi = -1;
	if (h) {
		snprintf(e->path, sizeof(e->path), "%s", h->path);
		if (h->probed) {
			e->module_abi = (int)h->info.abi_version;
			e->hw_pmu = !!(h->info.features & PMUCTX_FEAT_HW_PMU);
			snprintf(e->module_version, sizeof(e->module_version),
				 "%.*s", PMUCTX_VERSION_LEN - 1,
				 h->info.version);
		}
		e->target = h->target;
		e->pid = h->pid;
	}
	return e;
}

PMUCTX_INTERNAL void pmuctx__err_commit(struct pmuctx *h)
{
	if (h)
		h->err = tls_err;
}

PMUCTX_INTERNAL int pmuctx__err_set(struct pmuctx *h, enum pmuctx__op op,
				    int err, const char *fmt, ...)
{
	struct pmuctx__err *e = pmuctx__err_begin(h, op, err);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof(e->detail), fmt, ap);
	va_end(ap);
	pmuctx__err_commit(h);
	return -e->err;
}

/* ---- facts about privileges ------------------------------------------------ */

static void user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	buf[0] = '\0';
	if (!getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, len, "%s", pw.pw_name);
}

static void group_name(gid_t gid, char *buf, size_t len)
{
	struct group gr, *res = NULL;
	char tmp[4096];

	buf[0] = '\0';
	if (!getgrgid_r(gid, &gr, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, len, "%s", gr.gr_name);
}

static void cap_facts(struct pmuctx__perm_facts *f)
{
	cap_flag_value_t v;
	cap_t caps = cap_get_proc();

	if (!caps)
		return;
	f->caps_known = true;
#define CAPF(cap, flag, field) \
	f->field = !cap_get_flag(caps, cap, flag, &v) && v == CAP_SET
	CAPF(CAP_PERFMON, CAP_EFFECTIVE, perfmon_eff);
	CAPF(CAP_PERFMON, CAP_PERMITTED, perfmon_prm);
	CAPF(CAP_SYS_ADMIN, CAP_EFFECTIVE, sysadmin_eff);
	CAPF(CAP_SYS_ADMIN, CAP_PERMITTED, sysadmin_prm);
	CAPF(CAP_SYS_PTRACE, CAP_EFFECTIVE, ptrace_eff);
	CAPF(CAP_SYS_PTRACE, CAP_PERMITTED, ptrace_prm);
#undef CAPF
	cap_free(caps);
}

static void group_facts(struct pmuctx__perm_facts *f)
{
	struct group gr, *res = NULL;
	char tmp[8192];
	gid_t groups[256];
	int n, i;

	if (getgrnam_r(PMUCTX_GROUP, &gr, tmp, sizeof(tmp), &res) || !res)
		return;
	f->group_exists = true;
	if (getegid() == gr.gr_gid)
		f->in_group = true;
	n = getgroups((int)ARRAY_SIZE(groups), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gr.gr_gid)
			f->in_group = true;
	if (f->user[0] && gr.gr_mem) {
		for (i = 0; gr.gr_mem[i]; i++)
			if (!strcmp(gr.gr_mem[i], f->user))
				f->listed_in_group = true;
	}
	/* primary group of the user counts as listed too */
	{
		struct passwd pw, *pres = NULL;
		char ptmp[1024];

		if (!getpwuid_r(f->euid, &pw, ptmp, sizeof(ptmp), &pres) &&
		    pres && pw.pw_gid == gr.gr_gid)
			f->listed_in_group = true;
	}
}

static void paranoid_facts(struct pmuctx__perm_facts *f)
{
	const char *path = pmuctx__sys.paranoid_path;
	FILE *fp;

	if (!path)
		return;
	fp = fopen(path, "re");
	if (!fp)
		return;
	if (fscanf(fp, "%d", &f->paranoid) == 1)
		f->paranoid_known = true;
	fclose(fp);
}

PMUCTX_INTERNAL void pmuctx__gather_facts(struct pmuctx__perm_facts *f,
					  const char *dev_path, pid_t target)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->euid = geteuid();
	user_name(f->euid, f->user, sizeof(f->user));
	cap_facts(f);
	group_facts(f);
	paranoid_facts(f);
	if (dev_path && !stat(dev_path, &st)) {
		f->dev_known = true;
		f->dev_is_chr = S_ISCHR(st.st_mode);
		f->dev_mode = st.st_mode;
		f->dev_uid = st.st_uid;
		f->dev_gid = st.st_gid;
		user_name(st.st_uid, f->dev_owner, sizeof(f->dev_owner));
		group_name(st.st_gid, f->dev_group, sizeof(f->dev_group));
	}
	if (target > 0 && pmuctx__sys.proc_root) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/%d", pmuctx__sys.proc_root,
			 (int)target);
		if (!stat(p, &st)) {
			f->target_known = true;
			f->target_uid = st.st_uid;
			user_name(st.st_uid, f->target_user,
				  sizeof(f->target_user));
		}
	}
}

/* ---- strerror -------------------------------------------------------------- */

static const char *pmuctx_errno_text(int err)
{
	switch (err) {
	case 0:		return "success";
	case ENOENT:	return "pmuctx device not found (is the pmuctx kernel module loaded? try: sudo modprobe pmuctx)";
	case ENODEV:
	case ENXIO:	return "pmuctx device has no driver (is the pmuctx kernel module loaded? try: sudo modprobe pmuctx)";
	case EACCES:	return "permission denied (need group pmuctx membership or CAP_PERFMON)";
	case EPERM:	return "operation not permitted (missing privilege: CAP_PERFMON, CAP_SYS_PTRACE or perf_event_paranoid)";
	case E2BIG:	return "too big: too many events, or a struct newer than the module understands (library/module ABI mismatch)";
	case EOPNOTSUPP: return "event not supported (no hardware PMU, e.g. in a virtual machine?)";
	case ENOTTY:	return "not a pmuctx device, or an operation the loaded module does not know";
	case EBUSY:	return "the handle already has a session";
	case ESRCH:	return "no such process";
	case EINVAL:	return "invalid argument";
	case ENOSPC:	return "buffer too small for the per-task values";
	case ENOMEM:	return "out of memory";
	case EFAULT:	return "bad address";
	case EBADF:	return "bad file descriptor";
	case ENOTDIR:	return "not a directory (a cgroup v2 directory is needed)";
	default:	return NULL;
	}
}

PMUCTX_API const char *pmuctx_strerror(int err)
{
	static __thread char buf[128];
	const char *s;

	if (err < 0)
		err = -err;
	s = pmuctx_errno_text(err);
	if (s)
		return s;
	return strerror_r(err, buf, sizeof(buf));
}

static const char *sys_errstr(int err, char *buf, size_t len)
{
	return strerror_r(err, buf, len);
}

/* ---- message formatting ---------------------------------------------------- */

static const char *op_verb(enum pmuctx__op op)
{
	switch (op) {
	case PMUCTX_OP_INFO:	return "query module information";
	case PMUCTX_OP_ENABLE:	return "enable the session";
	case PMUCTX_OP_DISABLE:	return "disable the session";
	case PMUCTX_OP_RESET:	return "reset the session";
	case PMUCTX_OP_READ:	return "read the session's counts";
	case PMUCTX_OP_SNAPSHOT: return "take a snapshot of the ring buffers";
	case PMUCTX_OP_RESUME:	return "resume the ring buffers";
	case PMUCTX_OP_CONSUME:	return "consume ring buffer records";
	case PMUCTX_OP_WRITE:	return "write a USER record";
	case PMUCTX_OP_POLL:	return "poll the session";
	default:		return "complete the operation";
	}
}

static void fmt_mode(mode_t m, bool chr, char out[11])
{
	out[0] = chr ? 'c' : S_ISDIR(m) ? 'd' : S_ISREG(m) ? '-' : '?';
	out[1] = m & S_IRUSR ? 'r' : '-';
	out[2] = m & S_IWUSR ? 'w' : '-';
	out[3] = m & S_IXUSR ? 'x' : '-';
	out[4] = m & S_IRGRP ? 'r' : '-';
	out[5] = m & S_IWGRP ? 'w' : '-';
	out[6] = m & S_IXGRP ? 'x' : '-';
	out[7] = m & S_IROTH ? 'r' : '-';
	out[8] = m & S_IWOTH ? 'w' : '-';
	out[9] = m & S_IXOTH ? 'x' : '-';
	out[10] = '\0';
}

static void sb_who(struct pmuctx__sb *sb, const struct pmuctx__perm_facts *f)
{
	if (f->user[0])
		pmuctx__sb_printf(sb, "uid %u (%s)", (unsigned int)f->euid,
				  f->user);
	else
		pmuctx__sb_printf(sb, "uid %u", (unsigned int)f->euid);
}

static void sb_caps(struct pmuctx__sb *sb, const struct pmuctx__perm_facts *f)
{
	if (!f->caps_known) {
		pmuctx__sb_printf(sb, "  (could not read this process's "
				  "capabilities)\n");
		return;
	}
	if (f->perfmon_eff || f->sysadmin_eff) {
		pmuctx__sb_printf(sb, "  this process has %s%s%s in its "
			"effective set.\n",
			f->perfmon_eff ? "CAP_PERFMON" : "",
			f->perfmon_eff && f->sysadmin_eff ? " and " : "",
			f->sysadmin_eff ? "CAP_SYS_ADMIN" : "");
		return;
	}
	pmuctx__sb_printf(sb, "  this process has neither CAP_PERFMON nor "
			  "CAP_SYS_ADMIN in its effective set");
	if (f->perfmon_prm || f->sysadmin_prm)
		pmuctx__sb_printf(sb, " (%s is permitted but not effective: "
			"the program must raise it, or use file capabilities "
			"with +ep)", f->perfmon_prm ? "CAP_PERFMON" :
			"CAP_SYS_ADMIN");
	pmuctx__sb_printf(sb, ".\n");
}

static void sb_paranoid(struct pmuctx__sb *sb,
			const struct pmuctx__perm_facts *f)
{
	if (f->paranoid_known)
		pmuctx__sb_printf(sb, "  kernel.perf_event_paranoid is %d "
			"(/proc/sys/kernel/perf_event_paranoid).\n",
			f->paranoid);
	else
		pmuctx__sb_printf(sb, "  kernel.perf_event_paranoid could "
			"not be read (/proc/sys/kernel/perf_event_paranoid).\n");
}

static void fmt_open_missing(struct pmuctx__sb *sb,
			     const struct pmuctx__err *e, const char *path)
{
	bool is_default = !strcmp(path, PMUCTX_DEVICE_PATH);

	if (e->err == ENOENT)
		pmuctx__sb_printf(sb, "  %s does not exist: the pmuctx kernel "
			"module is not loaded.\n", path);
	else
		pmuctx__sb_printf(sb, "  %s exists but no driver answers it: "
			"the pmuctx kernel module is not loaded (or was "
			"unloaded).\n", path);
	pmuctx__sb_printf(sb,
		"  load it with:            sudo modprobe pmuctx\n"
		"  or, from a build tree:   sudo insmod module/pmuctx.ko\n"
		"  to install it (DKMS):    sudo dkms install .  "
		"(in the pmuctx source tree), then sudo modprobe pmuctx");
	if (!is_default)
		pmuctx__sb_printf(sb, "\n  (the device path %s was given "
			"explicitly; the module creates %s)", path,
			PMUCTX_DEVICE_PATH);
}

static void fmt_open_perm(struct pmuctx__sb *sb, const struct pmuctx__err *e,
			  const char *path)
{
	const struct pmuctx__perm_facts *f = &e->facts;
	bool group_ok;

	if (!e->have_facts) {
		pmuctx__sb_printf(sb, "  needed: membership of group "
			PMUCTX_GROUP " (the udev rule makes %s mode 0660, "
			"group " PMUCTX_GROUP "), or CAP_PERFMON / "
			"CAP_SYS_ADMIN", path);
		return;
	}
	if (f->dev_known) {
		char mode[11];

		fmt_mode(f->dev_mode, f->dev_is_chr, mode);
		pmuctx__sb_printf(sb, "  %s is %s, owner ", path, mode);
		if (f->dev_owner[0])
			pmuctx__sb_printf(sb, "%s", f->dev_owner);
		else
			pmuctx__sb_printf(sb, "%u", (unsigned int)f->dev_uid);
		if (f->dev_group[0])
			pmuctx__sb_printf(sb, ", group %s", f->dev_group);
		else
			pmuctx__sb_printf(sb, ", group %u",
					  (unsigned int)f->dev_gid);
		pmuctx__sb_printf(sb, ".\n");
	}
	pmuctx__sb_printf(sb, "  this process runs as ");
	sb_who(sb, f);
	if (!f->group_exists)
		pmuctx__sb_printf(sb, "; group " PMUCTX_GROUP " does not "
				  "exist on this system.\n");
	else if (f->in_group)
		pmuctx__sb_printf(sb, " and is in group " PMUCTX_GROUP ".\n");
	else if (f->listed_in_group)
		pmuctx__sb_printf(sb, ", which is listed in group "
			PMUCTX_GROUP ", but this login session predates that: "
			"log out and in again (or run 'newgrp " PMUCTX_GROUP
			"').\n");
	else
		pmuctx__sb_printf(sb, " and is not in group " PMUCTX_GROUP
				  ".\n");
	sb_caps(sb, f);

	group_ok = f->dev_known && f->dev_group[0] &&
		   !strcmp(f->dev_group, PMUCTX_GROUP) &&
		   (f->dev_mode & 0060) == 0060;
	if (f->dev_known && !group_ok)
		pmuctx__sb_printf(sb, "  the udev rule does not seem active: "
			"it should make %s mode 0660, group " PMUCTX_GROUP
			" (install the rule, then 'sudo udevadm trigger' or "
			"reload the module).\n", path);
	if (f->in_group && group_ok)
		pmuctx__sb_printf(sb, "  the device permissions should allow "
			"this; check for a security module (SELinux/AppArmor) "
			"or a container device policy.\n");
	if (f->perfmon_eff || f->sysadmin_eff)
		pmuctx__sb_printf(sb, "  the capability does not override "
			"the file permissions of %s: fix its mode/group, "
			"or run as root.\n", path);

	pmuctx__sb_printf(sb, "  needed: membership of group " PMUCTX_GROUP
		" or CAP_PERFMON (or CAP_SYS_ADMIN). For example:\n");
	if (!f->group_exists)
		pmuctx__sb_printf(sb, "    sudo groupadd --system "
				  PMUCTX_GROUP "\n");
	pmuctx__sb_printf(sb, "    sudo usermod -aG " PMUCTX_GROUP " %s  "
		"(then log in again)\n", f->user[0] ? f->user : "$USER");
	pmuctx__sb_printf(sb, "    or run the program with sudo, or give it "
		"the capability: sudo setcap cap_perfmon+ep PROGRAM");
}

static void fmt_session_target(struct pmuctx__sb *sb,
			       const struct pmuctx__err *e)
{
	switch (e->target) {
	case PMUCTX_TARGET_SYSTEM:
		pmuctx__sb_printf(sb, "a system-wide pmuctx session");
		break;
	case PMUCTX_TARGET_CGROUP:
		if (e->path[0])
			pmuctx__sb_printf(sb, "a pmuctx session for cgroup %s",
					  e->path);
		else
			pmuctx__sb_printf(sb, "a cgroup pmuctx session");
		break;
	case PMUCTX_TARGET_PID:
		if (e->pid)
			pmuctx__sb_printf(sb, "a pmuctx session for %s %d",
				e->sflags & PMUCTX_SESSION_THREAD ? "thread" :
				"pid", e->pid);
		else
			pmuctx__sb_printf(sb, "a pmuctx session for the "
					  "calling process");
		break;
	default:
		pmuctx__sb_printf(sb, "a pmuctx session (target %u)",
				  e->target);
	}
}

static bool privileged(const struct pmuctx__err *e)
{
	const struct pmuctx__perm_facts *f = &e->facts;

	return e->have_facts && f->caps_known &&
	       (f->perfmon_eff || f->sysadmin_eff);
}

static void sb_lsm_hint(struct pmuctx__sb *sb)
{
	pmuctx__sb_printf(sb, "  the process is already privileged, so the "
		"refusal comes from elsewhere: a security module (SELinux, "
		"AppArmor, lockdown), a container's seccomp/device policy, or "
		"the module's own policy (see the kernel log: dmesg)");
}

static void fmt_session_perm(struct pmuctx__sb *sb,
			     const struct pmuctx__err *e)
{
	const struct pmuctx__perm_facts *f = &e->facts;

	if (e->target == PMUCTX_TARGET_PID) {
		if (e->have_facts && f->target_known) {
			pmuctx__sb_printf(sb, "  pid %d belongs to uid %u",
				e->pid, (unsigned int)f->target_uid);
			if (f->target_user[0])
				pmuctx__sb_printf(sb, " (%s)", f->target_user);
			pmuctx__sb_printf(sb, "; this process runs as ");
			sb_who(sb, f);
			pmuctx__sb_printf(sb, ".\n");
		}
		if (!e->have_facts || !f->target_known ||
		    f->target_uid != f->euid) {
			pmuctx__sb_printf(sb, "  monitoring another user's task "
				"needs the same uid or CAP_SYS_PTRACE");
			if (e->have_facts && f->caps_known)
				pmuctx__sb_printf(sb, " (this process %s "
					"CAP_SYS_PTRACE)", f->ptrace_eff ?
					"has" : "does not have");
			pmuctx__sb_printf(sb, ".\n  run as that user, or with "
				"sudo, or grant CAP_SYS_PTRACE.\n");
		} else {
			pmuctx__sb_printf(sb, "  the target is yours, so the "
				"module's policy refused it; it follows "
				"kernel.perf_event_paranoid unless the process "
				"has CAP_PERFMON.\n");
		}
		if (e->have_facts) {
			sb_caps(sb, f);
			sb_paranoid(sb, f);
		}
		if (privileged(e)) {
			sb_lsm_hint(sb);
			return;
		}
		pmuctx__sb_printf(sb, "  a lower setting may allow it: "
			"sudo sysctl kernel.perf_event_paranoid=1");
		return;
	}
	pmuctx__sb_printf(sb, "  %s sessions need CAP_PERFMON (or "
		"CAP_SYS_ADMIN), or kernel.perf_event_paranoid <= 0.\n",
		e->target == PMUCTX_TARGET_SYSTEM ? "system-wide" : "cgroup");
	if (e->have_facts) {
		sb_caps(sb, f);
		sb_paranoid(sb, f);
	}
	if (privileged(e)) {
		sb_lsm_hint(sb);
		return;
	}
	pmuctx__sb_printf(sb, "  run with sudo, grant the capability (sudo "
		"setcap cap_perfmon+ep PROGRAM), or allow it for everyone: "
		"sudo sysctl kernel.perf_event_paranoid=0");
}

static void fmt_session_notsupp(struct pmuctx__sb *sb,
				const struct pmuctx__err *e)
{
	char names[256];
	int hw[PMUCTX_MAX_EVENTS];
	unsigned int i, n = 0;

	if (e->nr_culprits) {
		pmuctx__event_names(names, sizeof(names), e->culprits,
				    e->nr_culprits);
	} else if (e->detail[0]) {
		pmuctx__sb_printf(sb, "  %s", e->detail);
		return;
	} else {
		for (i = 0; i < e->nr_events; i++)
			if (pmuctx_event_is_hw(e->events[i]) == 1)
				hw[n++] = e->events[i];
		pmuctx__event_names(names, sizeof(names), hw, n);
		if (!n)
			snprintf(names, sizeof(names), "(none of the "
				 "requested events is a hardware event)");
	}
	pmuctx__sb_printf(sb, "  not supported here: %s\n", names);
	if (e->hw_pmu == 0)
		pmuctx__sb_printf(sb, "  the module found no hardware PMU "
			"(pmuctx info: no hw-pmu feature); this is usual in a "
			"virtual machine without PMU passthrough.\n");
	else if (e->hw_pmu == 1)
		pmuctx__sb_printf(sb, "  the module has a hardware PMU, but "
			"it does not provide these events.\n");
	else
		pmuctx__sb_printf(sb, "  hardware events need a hardware PMU; "
			"there is probably none (e.g. in a virtual machine "
			"without PMU passthrough).\n");
	pmuctx__sb_printf(sb, "  leave them out, or use software events: "
		"task-clock, context-switches, cpu-migrations, page-faults, "
		"cpu-clock");
}

static void fmt_e2big(struct pmuctx__sb *sb, const struct pmuctx__err *e)
{
	pmuctx__sb_printf(sb, "  library/module version mismatch: libpmuctx "
		"%s speaks pmuctx ABI %d", pmuctx_version(),
		PMUCTX_ABI_VERSION);
	if (e->struct_name)
		pmuctx__sb_printf(sb, " (struct %s of %u bytes)",
				  e->struct_name, e->lib_size);
	pmuctx__sb_printf(sb, ", the loaded module ");
	if (e->module_version[0])
		pmuctx__sb_printf(sb, "%s ", e->module_version);
	if (e->module_abi >= 0)
		pmuctx__sb_printf(sb, "speaks ABI %d", e->module_abi);
	else
		pmuctx__sb_printf(sb, "speaks an unknown ABI version");
	if (e->kernel_size)
		pmuctx__sb_printf(sb, " (it knows %u bytes)", e->kernel_size);
	pmuctx__sb_printf(sb, ".\n  the library uses a field the module "
		"does not have: update the pmuctx module (sudo dkms install "
		"., or rebuild and reload module/pmuctx.ko), or use a "
		"libpmuctx matching the module");
}

static void fmt_generic_hint(struct pmuctx__sb *sb, int err)
{
	char tmp[128];

	pmuctx__sb_printf(sb, "  %s", pmuctx_errno_text(err) ?
			  pmuctx_errno_text(err) :
			  sys_errstr(err, tmp, sizeof(tmp)));
}


/* ---- ring buffers ---------------------------------------------------------- */

static void sb_bytes(struct pmuctx__sb *sb, unsigned long long b)
{
	if (b >= (1ULL << 30) && !(b % (1ULL << 30)))
		pmuctx__sb_printf(sb, "%llu GiB", b >> 30);
	else if (b >= (1ULL << 20) && !(b % (1ULL << 20)))
		pmuctx__sb_printf(sb, "%llu MiB", b >> 20);
	else if (b >= 1024 && !(b % 1024))
		pmuctx__sb_printf(sb, "%llu KiB", b >> 10);
	else
		pmuctx__sb_printf(sb, "%llu bytes", b);
}

/* bytes the whole mapping takes: nr_cpus x (1 + pages) pages; 0 unknown */
static unsigned long long ring_total(const struct pmuctx__ring_facts *f)
{
	return f->nr_cpus ? (unsigned long long)f->nr_cpus *
			    (1ULL + f->pages) * f->page_size : 0;
}

static void sb_ring_request(struct pmuctx__sb *sb,
			    const struct pmuctx__ring_facts *f)
{
	pmuctx__sb_printf(sb, "%u data pages (", f->pages);
	sb_bytes(sb, (unsigned long long)f->pages * f->page_size);
	pmuctx__sb_printf(sb, ") per CPU");
	if (f->nr_cpus) {
		pmuctx__sb_printf(sb, ", %u CPUs x (1 + %u) pages = ",
				  f->nr_cpus, f->pages);
		sb_bytes(sb, ring_total(f));
		pmuctx__sb_printf(sb, " in all");
	}
}

static void fmt_ring_nomem(struct pmuctx__sb *sb, const struct pmuctx__err *e)
{
	const struct pmuctx__ring_facts *f = &e->ring;
	const char *param = pmuctx__sys.max_ring_pages_path ?
		pmuctx__sys.max_ring_pages_path :
		"/sys/module/pmuctx/parameters/max_ring_pages";

	pmuctx__sb_printf(sb, "  the ring buffer asks for ");
	sb_ring_request(sb, f);
	pmuctx__sb_printf(sb, ".\n");
	if (f->max_pages >= 0 && f->pages > f->max_pages) {
		pmuctx__sb_printf(sb, "  that is more than the module allows: "
			"max_ring_pages is %lld (", f->max_pages);
		sb_bytes(sb, (unsigned long long)f->max_pages * f->page_size);
		pmuctx__sb_printf(sb, " per CPU), in %s.\n", param);
	} else if (f->max_pages >= 0) {
		pmuctx__sb_printf(sb, "  the module's limit, max_ring_pages = "
			"%lld (%s), allows it: the kernel could not allocate "
			"the memory.\n", f->max_pages, param);
	} else {
		pmuctx__sb_printf(sb, "  either it is more than the module's "
			"limit (max_ring_pages, in %s: could not be read) or "
			"the kernel could not allocate the memory.\n", param);
	}
	pmuctx__sb_printf(sb, "  use a smaller buffer (a power of two of "
		"pages; pmuctx record --buffer-size), or raise the limit: "
		"sudo sh -c 'echo %u > %s' (or load the module with "
		"max_ring_pages=%u)", f->pages, param, f->pages);
}

/* the memlock part of an EPERM; true if it is probably the cause */
static bool fmt_ring_memlock(struct pmuctx__sb *sb,
			     const struct pmuctx__err *e)
{
	const struct pmuctx__ring_facts *f = &e->ring;
	unsigned long long need = ring_total(f);
	bool over;

	if (f->caps_known && f->ipc_lock)
		return false;	/* not charged */
	over = f->memlock_known && f->memlock_cur != RLIM_INFINITY &&
	       (!need || need > f->memlock_cur);
	pmuctx__sb_printf(sb, "  the ring buffers (");
	sb_ring_request(sb, f);
	pmuctx__sb_printf(sb, ") are locked memory, charged to "
		"RLIMIT_MEMLOCK because the process %s CAP_IPC_LOCK.\n",
		f->caps_known ? "does not have" : "may not have");
	if (f->memlock_known) {
		pmuctx__sb_printf(sb, "  RLIMIT_MEMLOCK (ulimit -l) is ");
		if (f->memlock_cur == RLIM_INFINITY)
			pmuctx__sb_printf(sb, "unlimited");
		else
			sb_bytes(sb, f->memlock_cur);
		pmuctx__sb_printf(sb, " now (hard limit ");
		if (f->memlock_max == RLIM_INFINITY)
			pmuctx__sb_printf(sb, "unlimited");
		else
			sb_bytes(sb, f->memlock_max);
		pmuctx__sb_printf(sb, ")%s.\n", over ?
			", less than the request" : "; memory this user has "
			"locked already (other sessions, mlock) counts too");
	}
	pmuctx__sb_printf(sb, "  raise the limit (ulimit -l");
	if (need)
		pmuctx__sb_printf(sb, " %llu", (need + 1023) / 1024);
	pmuctx__sb_printf(sb, " in the shell, up to the hard limit; "
		"'memlock' in /etc/security/limits.conf or LimitMEMLOCK= "
		"in a systemd unit beyond it), use a smaller buffer, or run "
		"with CAP_IPC_LOCK (as root, or sudo setcap cap_ipc_lock+ep "
		"PROGRAM)");
	return over || !f->memlock_known;
}

static void fmt_ring_notsupp(struct pmuctx__sb *sb,
			     const struct pmuctx__err *e)
{
	if (e->ring.feat_known && !e->ring.feat_ring)
		pmuctx__sb_printf(sb, "  the loaded pmuctx module has no ring "
			"buffers (its features, shown by pmuctx info, lack "
			"\"ring\"): update the module (sudo dkms install ., "
			"or rebuild and reload module/pmuctx.ko)");
	else
		pmuctx__sb_printf(sb, "  the module does not support this "
			"ring buffer configuration (%u pages per CPU, mode "
			"%u), or one of the events; check pmuctx info",
			e->ring.pages, e->ring.mode);
}

static void fmt_ring_map(struct pmuctx__sb *sb, const struct pmuctx__err *e,
			 int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		if (!fmt_ring_memlock(sb, e) && e->ring.caps_known &&
		    e->ring.ipc_lock)
			pmuctx__sb_printf(sb, "  the module refused the "
				"mapping although the process has "
				"CAP_IPC_LOCK (locked memory is not the "
				"cause); see the kernel log (dmesg)");
		break;
	case ENOMEM:
		pmuctx__sb_printf(sb, "  not enough memory or address space "
			"for %s; use a smaller buffer", e->detail);
		break;
	case EBUSY:
		pmuctx__sb_printf(sb, "  %s", e->detail[0] ? e->detail :
			"the session's buffers are mapped already: one mapping "
			"per session");
		break;
	case EINVAL:
		pmuctx__sb_printf(sb, "  %s", e->detail[0] ? e->detail :
			"the module refused the mapping");
		if (!strncmp(e->detail, "mmap", 4))
			pmuctx__sb_printf(sb, "; the module expects exactly "
				"nr_cpus x (1 + ring_pages) pages, read-only, "
				"shared, at offset 0 (library and module do "
				"not match?)");
		break;
	case ENODEV:
		pmuctx__sb_printf(sb, "  the loaded module cannot map ring "
			"buffers (too old?): update it");
		break;
	default:
		if (e->detail[0])
			pmuctx__sb_printf(sb, "  %s", e->detail);
		else
			fmt_generic_hint(sb, err);
	}
}

PMUCTX_INTERNAL int pmuctx__format_err(const struct pmuctx__err *e, int err,
				       char *buf, size_t len)
{
	struct pmuctx__sb sb = { .buf = buf, .len = len };
	char tmp[128];
	const char *path, *es;

	if (len)
		buf[0] = '\0';
	if (err < 0)
		err = -err;
	es = sys_errstr(err, tmp, sizeof(tmp));

	if (!e || e->err != err || e->op == PMUCTX_OP_NONE) {
		/* no record: a generic message */
		pmuctx__sb_printf(&sb, "pmuctx: %s", es);
		if (err == ENOENT || err == ENODEV || err == ENXIO) {
			struct pmuctx__err fake = { .err = err };

			pmuctx__sb_printf(&sb, "\n");
			fmt_open_missing(&sb, &fake, PMUCTX_DEVICE_PATH);
		} else if (pmuctx_errno_text(err)) {
			pmuctx__sb_printf(&sb, "\n");
			fmt_generic_hint(&sb, err);
		}
		return (int)sb.pos;
	}

	path = e->path[0] ? e->path : PMUCTX_DEVICE_PATH;
	switch (e->op) {
	case PMUCTX_OP_ARG:
	case PMUCTX_OP_OPTS:
	case PMUCTX_OP_EVENT:
	case PMUCTX_OP_ALLOC:
		pmuctx__sb_printf(&sb, "%s", e->detail[0] ? e->detail : es);
		break;

	case PMUCTX_OP_OPEN:
		pmuctx__sb_printf(&sb, "cannot open %s: %s\n", path, es);
		if (err == ENOENT || err == ENODEV || err == ENXIO)
			fmt_open_missing(&sb, e, path);
		else if (err == EACCES || err == EPERM)
			fmt_open_perm(&sb, e, path);
		else if (e->detail[0])
			pmuctx__sb_printf(&sb, "  %s", e->detail);
		else
			fmt_generic_hint(&sb, err);
		break;

	case PMUCTX_OP_PROBE:
		pmuctx__sb_printf(&sb, "%s does not answer the pmuctx INFO "
				  "request: %s\n", path, es);
		if (e->detail[0])
			pmuctx__sb_printf(&sb, "  %s", e->detail);
		else if (err == ENOTTY || err == EINVAL)
			pmuctx__sb_printf(&sb, "  %s is not a pmuctx device "
				"(or the loaded module is far older than this "
				"libpmuctx %s); check that %s belongs to the "
				"pmuctx module", path, pmuctx_version(), path);
		else if (err == E2BIG)
			fmt_e2big(&sb, e);
		else
			fmt_generic_hint(&sb, err);
		break;

	case PMUCTX_OP_CGROUP:
		pmuctx__sb_printf(&sb, "cannot open cgroup directory %s: %s\n",
				  path, es);
		pmuctx__sb_printf(&sb, "  give the path of a cgroup v2 "
			"directory, e.g. /sys/fs/cgroup/user.slice (see "
			"/proc/PID/cgroup for a process's cgroup)");
		if (e->detail[0])
			pmuctx__sb_printf(&sb, "\n  %s", e->detail);
		break;

	case PMUCTX_OP_SESSION:
		pmuctx__sb_printf(&sb, "cannot create ");
		fmt_session_target(&sb, e);
		pmuctx__sb_printf(&sb, ": %s\n", es);
		switch (err) {
		case EPERM:
		case EACCES:
			if (e->ring.pages && fmt_ring_memlock(&sb, e)) {
				pmuctx__sb_printf(&sb, "\n  (if the limit is "
					"not the cause: monitoring the target "
					"itself may not be allowed)");
				break;
			}
			if (e->ring.pages && !(e->ring.caps_known &&
					       e->ring.ipc_lock))
				pmuctx__sb_printf(&sb, "\n");
			fmt_session_perm(&sb, e);
			break;
		case EOPNOTSUPP:
			if (e->ring.pages && !(e->ring.feat_known &&
					       e->ring.feat_ring &&
					       e->nr_culprits)) {
				fmt_ring_notsupp(&sb, e);
				break;
			}
			fmt_session_notsupp(&sb, e);
			break;
		case E2BIG:
			fmt_e2big(&sb, e);
			break;
		case ESRCH:
			pmuctx__sb_printf(&sb, "  there is no %s %d (it "
				"exited, or the id is wrong, or it is in "
				"another pid namespace)",
				e->sflags & PMUCTX_SESSION_THREAD ?
				"thread" : "process", e->pid);
			break;
		case EBUSY:
			pmuctx__sb_printf(&sb, "  this handle already has a "
				"session; open another handle (pmuctx_open()) "
				"for a second session");
			break;
		case EBADF:
		case ENOTDIR:
			pmuctx__sb_printf(&sb, "  the cgroup file descriptor "
				"is not an open cgroup v2 directory");
			break;
		case EINVAL: {
			char names[256];

			pmuctx__event_names(names, sizeof(names), e->events,
					    e->nr_events);
			pmuctx__sb_printf(&sb, "  the module rejected the "
				"session attributes (target %u, flags 0x%x, "
				"events: %s", e->target, e->sflags, names);
			if (e->ring.pages)
				pmuctx__sb_printf(&sb, "; ring: %u pages per "
					"CPU, mode %u", e->ring.pages,
					e->ring.mode);
			pmuctx__sb_printf(&sb, ")");
			if (e->detail[0])
				pmuctx__sb_printf(&sb, ": %s", e->detail);
			else
				pmuctx__sb_printf(&sb, "; check flags, "
					"backend and data size against "
					"<linux/pmuctx.h>");
			break;
		}
		case ENOMEM:
			if (e->ring.pages) {
				fmt_ring_nomem(&sb, e);
				break;
			}
			/* fall through */
		case ENOSPC:
			pmuctx__sb_printf(&sb, "  the module is out of memory "
				"or at its max_tasks limit (see pmuctx info)");
			break;
		default:
			fmt_generic_hint(&sb, err);
		}
		break;

	case PMUCTX_OP_RING_MAP:
		pmuctx__sb_printf(&sb, "cannot map the ring buffers: %s\n", es);
		fmt_ring_map(&sb, e, err);
		break;

	case PMUCTX_OP_RING_DATA:
		pmuctx__sb_printf(&sb, "bad ring buffer data: %s\n", es);
		pmuctx__sb_printf(&sb, "  %s\n", e->detail);
		if (err == EBADMSG)
			pmuctx__sb_printf(&sb, "  the buffer does not follow "
				"the pmuctx ring ABI: library and module do "
				"not match, or the module has a bug%s",
				e->ring.mode == PMUCTX_RING_OVERWRITE ?
				" (or the overwrite-mode buffer was read "
				"without a snapshot)" : "");
		else
			fmt_generic_hint(&sb, err);
		break;

	case PMUCTX_OP_RECORD:
		pmuctx__sb_printf(&sb, "bad pmuctx record: %s", e->detail);
		break;

	case PMUCTX_OP_SNAPSHOT:
	case PMUCTX_OP_RESUME:
	case PMUCTX_OP_CONSUME:
	case PMUCTX_OP_WRITE:
	case PMUCTX_OP_POLL:
		pmuctx__sb_printf(&sb, "cannot %s: %s\n", op_verb(e->op), es);
		if (err == EINVAL && e->detail[0] && e->op != PMUCTX_OP_CONSUME)
			pmuctx__sb_printf(&sb, "  %s", e->detail);
		else if (err == EINVAL && e->op == PMUCTX_OP_CONSUME)
			pmuctx__sb_printf(&sb, "  %s: the module refused the "
				"position (outside [data_tail, data_head], or "
				"not a normal-mode buffer)", e->detail[0] ?
				e->detail : "RING_CONSUME");
		else if (err == EINVAL || err == ENOTTY)
			pmuctx__sb_printf(&sb, "  the session has no ring "
				"buffer (create it with .ring_pages > 0), or "
				"the loaded module does not know this request");
		else if (err == ENOSPC && e->op == PMUCTX_OP_WRITE)
			pmuctx__sb_printf(&sb, "  this CPU's buffer is full "
				"(normal mode): the record was dropped and "
				"counted in lost; read and consume the buffer "
				"sooner, or use a bigger one");
		else if (e->detail[0])
			pmuctx__sb_printf(&sb, "  %s", e->detail);
		else
			fmt_generic_hint(&sb, err);
		break;

	case PMUCTX_OP_INFO:
	case PMUCTX_OP_ENABLE:
	case PMUCTX_OP_DISABLE:
	case PMUCTX_OP_RESET:
	case PMUCTX_OP_READ:
		pmuctx__sb_printf(&sb, "cannot %s: %s\n", op_verb(e->op), es);
		if (e->detail[0])
			pmuctx__sb_printf(&sb, "  %s", e->detail);
		else if (err == E2BIG)
			fmt_e2big(&sb, e);
		else if (err == EINVAL && e->op != PMUCTX_OP_INFO)
			pmuctx__sb_printf(&sb, "  the handle has no session "
				"(create one with pmuctx_session_create() "
				"first), or the request was malformed");
		else if (err == ENOTTY)
			pmuctx__sb_printf(&sb, "  %s is not a pmuctx device, "
				"or the loaded module does not know this "
				"request", path);
		else
			fmt_generic_hint(&sb, err);
		break;

	default:
		pmuctx__sb_printf(&sb, "pmuctx: %s", es);
		if (e->detail[0])
			pmuctx__sb_printf(&sb, "\n  %s", e->detail);
	}
	return (int)sb.pos;
}

PMUCTX_API int pmuctx_errmsg(struct pmuctx *h, int err, char *buf, size_t len)
{
	const struct pmuctx__err *e = NULL;
	int aerr = err < 0 ? -err : err;

	if (!buf && len)
		return -EINVAL;
	if (h && h->err.err == aerr && h->err.op != PMUCTX_OP_NONE)
		e = &h->err;
	else if (tls_err.err == aerr && tls_err.op != PMUCTX_OP_NONE)
		e = &tls_err;
	return pmuctx__format_err(e, aerr, buf, len);
}
