// SPDX-License-Identifier: GPL-2.0
/*
 * Why a libpmuctx call failed and how to fix it (diagnose.h).
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "diagnose.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define PMUCTX_GROUP "pmuctx"
#define MAX_RING_PAGES_PARAM "/sys/module/pmuctx/parameters/max_ring_pages"

struct diag_paths diag_paths = {
	.paranoid = "/proc/sys/kernel/perf_event_paranoid",
	.proc_root = "/proc",
	.max_ring_pages = MAX_RING_PAGES_PARAM,
	.max_sample_freq = "/sys/module/pmuctx/parameters/max_sample_freq",
	.max_sample_rate = "/proc/sys/kernel/perf_event_max_sample_rate",
	.max_unpriv_pmu =
		"/sys/module/pmuctx/parameters/max_unprivileged_pmu_counters",
};

/* ---- string builder ------------------------------------------------------ */

struct sb {
	char *buf;
	size_t len;	/* capacity of buf */
	size_t pos;	/* characters the full output needs so far */
};

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sb *sb, const char *fmt, ...)
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

/* ---- facts about privileges ---------------------------------------------- */

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

static bool cap_has(cap_t caps, cap_value_t cap, cap_flag_t flag)
{
	cap_flag_value_t v;

	return !cap_get_flag(caps, cap, flag, &v) && v == CAP_SET;
}

static void cap_facts(struct diag_perm *f)
{
	cap_t caps = cap_get_proc();

	if (!caps)
		return;
	f->caps_known = true;
	f->perfmon_eff = cap_has(caps, CAP_PERFMON, CAP_EFFECTIVE);
	f->perfmon_prm = cap_has(caps, CAP_PERFMON, CAP_PERMITTED);
	f->sysadmin_eff = cap_has(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE);
	f->sysadmin_prm = cap_has(caps, CAP_SYS_ADMIN, CAP_PERMITTED);
	f->ptrace_eff = cap_has(caps, CAP_SYS_PTRACE, CAP_EFFECTIVE);
	f->ptrace_prm = cap_has(caps, CAP_SYS_PTRACE, CAP_PERMITTED);
	cap_free(caps);
}

static void group_facts(struct diag_perm *f)
{
	struct group gr, *res = NULL;
	struct passwd pw, *pres = NULL;
	char tmp[8192], ptmp[1024];
	gid_t groups[256];
	int n, i;

	if (getgrnam_r(PMUCTX_GROUP, &gr, tmp, sizeof(tmp), &res) || !res)
		return;
	f->group_exists = true;
	if (getegid() == gr.gr_gid)
		f->in_group = true;
	n = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gr.gr_gid)
			f->in_group = true;
	if (f->user[0] && gr.gr_mem) {
		for (i = 0; gr.gr_mem[i]; i++)
			if (!strcmp(gr.gr_mem[i], f->user))
				f->listed_in_group = true;
	}
	/* the primary group of the user counts as listed too */
	if (!getpwuid_r(f->euid, &pw, ptmp, sizeof(ptmp), &pres) && pres &&
	    pw.pw_gid == gr.gr_gid)
		f->listed_in_group = true;
}

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *fp;

	if (!path)
		return -1;
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	if (fscanf(fp, "%lld", &v) != 1)
		v = -1;
	fclose(fp);
	return v;
}

static void paranoid_facts(struct diag_perm *f)
{
	FILE *fp;

	if (!diag_paths.paranoid)
		return;
	fp = fopen(diag_paths.paranoid, "re");
	if (!fp)
		return;
	if (fscanf(fp, "%d", &f->paranoid) == 1)
		f->paranoid_known = true;
	fclose(fp);
}

static void dev_facts(struct diag_perm *f, const char *dev_path)
{
	struct stat st;

	if (!dev_path || stat(dev_path, &st))
		return;
	f->dev_known = true;
	f->dev_is_chr = S_ISCHR(st.st_mode);
	f->dev_mode = st.st_mode;
	f->dev_uid = st.st_uid;
	f->dev_gid = st.st_gid;
	user_name(st.st_uid, f->dev_owner, sizeof(f->dev_owner));
	group_name(st.st_gid, f->dev_group, sizeof(f->dev_group));
}

static void target_facts(struct diag_perm *f, pid_t target)
{
	char p[PATH_MAX];
	struct stat st;

	if (target <= 0 || !diag_paths.proc_root)
		return;
	snprintf(p, sizeof(p), "%s/%d", diag_paths.proc_root, (int)target);
	if (stat(p, &st))
		return;
	f->target_known = true;
	f->target_uid = st.st_uid;
	user_name(st.st_uid, f->target_user, sizeof(f->target_user));
}

static void perm_facts(struct diag_perm *f, const char *dev_path,
		       pid_t target)
{
	memset(f, 0, sizeof(*f));
	f->euid = geteuid();
	user_name(f->euid, f->user, sizeof(f->user));
	cap_facts(f);
	group_facts(f);
	paranoid_facts(f);
	dev_facts(f, dev_path);
	target_facts(f, target);
}

static void ring_facts(struct diag_ring *f)
{
	struct rlimit rl;
	cap_t caps;

	memset(f, 0, sizeof(*f));
	f->max_pages = read_ll(diag_paths.max_ring_pages);
	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		f->memlock_known = true;
		f->memlock_cur = rl.rlim_cur;
		f->memlock_max = rl.rlim_max;
	}
	caps = cap_get_proc();
	if (caps) {
		f->caps_known = true;
		f->ipc_lock = cap_has(caps, CAP_IPC_LOCK, CAP_EFFECTIVE);
		cap_free(caps);
	}
}

void diag_gather(const struct pmuctx_errinfo *e, struct diag_facts *f)
{
	bool perm = e->err == EACCES || e->err == EPERM;

	memset(f, 0, sizeof(*f));
	f->ring.max_pages = -1;
	if (perm && e->op == PMUCTX_ERR_OP_OPEN) {
		perm_facts(&f->perm, e->path[0] ? e->path : PMUCTX_DEVICE_PATH,
			   0);
		f->have_perm = true;
	} else if (perm && e->op == PMUCTX_ERR_OP_SESSION) {
		perm_facts(&f->perm, NULL, e->target == PMUCTX_TARGET_PID ?
			   e->pid : 0);
		f->have_perm = true;
	}
	if (e->ring_pages)
		ring_facts(&f->ring);
}

/* ---- pieces of messages -------------------------------------------------- */

static const char *errno_text(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
	case EACCES:
	case EPERM:
	case E2BIG:
	case EOPNOTSUPP:
	case ENOTTY:
	case EBUSY:
	case ENOSPC:
	case ENOTDIR:
	case EUSERS:
		return pmuctx_strerror(err);
	default:
		return NULL;
	}
}

/* the pmuctx meaning of @err, on a line of its own */
static void generic_hint(struct sb *sb, int err)
{
	sb_printf(sb, "  %s", pmuctx_strerror(err));
}

static void event_names(char *buf, size_t len, const __s32 *ids,
			unsigned int n)
{
	struct sb sb = { .buf = buf, .len = len };
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *name = pmuctx_event_name(ids[i]);

		if (name)
			sb_printf(&sb, "%s%s", i ? ", " : "", name);
		else
			sb_printf(&sb, "%sevent %d", i ? ", " : "", ids[i]);
	}
}

static const char *op_verb(int op)
{
	switch (op) {
	case PMUCTX_ERR_OP_INFO:	return "query module information";
	case PMUCTX_ERR_OP_ENABLE:	return "enable the session";
	case PMUCTX_ERR_OP_DISABLE:	return "disable the session";
	case PMUCTX_ERR_OP_RESET:	return "reset the session";
	case PMUCTX_ERR_OP_READ:	return "read the session's counts";
	case PMUCTX_ERR_OP_SNAPSHOT:	return "take a snapshot of the ring buffers";
	case PMUCTX_ERR_OP_RESUME:	return "resume the ring buffers";
	case PMUCTX_ERR_OP_CONSUME:	return "consume ring buffer records";
	case PMUCTX_ERR_OP_WRITE:	return "write a USER record";
	case PMUCTX_ERR_OP_POLL:	return "poll the session";
	default:			return "complete the operation";
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

static void sb_who(struct sb *sb, const struct diag_perm *f)
{
	if (f->user[0])
		sb_printf(sb, "uid %u (%s)", (unsigned int)f->euid, f->user);
	else
		sb_printf(sb, "uid %u", (unsigned int)f->euid);
}

static void sb_caps(struct sb *sb, const struct diag_perm *f)
{
	if (!f->caps_known) {
		sb_printf(sb, "  (could not read this process's "
			  "capabilities)\n");
		return;
	}
	if (f->perfmon_eff || f->sysadmin_eff) {
		sb_printf(sb, "  this process has %s%s%s in its effective "
			  "set.\n", f->perfmon_eff ? "CAP_PERFMON" : "",
			  f->perfmon_eff && f->sysadmin_eff ? " and " : "",
			  f->sysadmin_eff ? "CAP_SYS_ADMIN" : "");
		return;
	}
	sb_printf(sb, "  this process has neither CAP_PERFMON nor "
		  "CAP_SYS_ADMIN in its effective set");
	if (f->perfmon_prm || f->sysadmin_prm)
		sb_printf(sb, " (%s is permitted but not effective: the "
			  "program must raise it, or use file capabilities "
			  "with +ep)", f->perfmon_prm ? "CAP_PERFMON" :
			  "CAP_SYS_ADMIN");
	sb_printf(sb, ".\n");
}

static void sb_paranoid(struct sb *sb, const struct diag_perm *f)
{
	if (f->paranoid_known)
		sb_printf(sb, "  kernel.perf_event_paranoid is %d "
			  "(/proc/sys/kernel/perf_event_paranoid).\n",
			  f->paranoid);
	else
		sb_printf(sb, "  kernel.perf_event_paranoid could not be read "
			  "(/proc/sys/kernel/perf_event_paranoid).\n");
}

static void fmt_e2big(struct sb *sb, const struct pmuctx_errinfo *e)
{
	sb_printf(sb, "  library/module version mismatch: libpmuctx %s "
		  "speaks pmuctx ABI %d", pmuctx_version(),
		  pmuctx_abi_version());
	if (e->struct_name)
		sb_printf(sb, " (struct %s of %u bytes)", e->struct_name,
			  e->lib_size);
	sb_printf(sb, ", the loaded module ");
	if (e->module_version[0])
		sb_printf(sb, "%s ", e->module_version);
	if (e->module_abi >= 0)
		sb_printf(sb, "speaks ABI %d", e->module_abi);
	else
		sb_printf(sb, "speaks an unknown ABI version");
	if (e->kernel_size)
		sb_printf(sb, " (it knows %u bytes)", e->kernel_size);
	sb_printf(sb, ".\n  the library uses a field the module does not "
		  "have: update the pmuctx module (sudo dkms install ., or "
		  "rebuild and reload module/pmuctx.ko), or use a libpmuctx "
		  "matching the module");
}

/* ---- opening the device -------------------------------------------------- */

static void fmt_open_missing(struct sb *sb, int err, const char *path)
{
	if (err == ENOENT)
		sb_printf(sb, "  %s does not exist: the pmuctx kernel module "
			  "is not loaded.\n", path);
	else
		sb_printf(sb, "  %s exists but no driver answers it: the "
			  "pmuctx kernel module is not loaded (or was "
			  "unloaded).\n", path);
	sb_printf(sb,
		"  load it with:            sudo modprobe pmuctx\n"
		"  or, from a build tree:   sudo insmod module/pmuctx.ko\n"
		"  to install it (DKMS):    sudo dkms install .  "
		"(in the pmuctx source tree), then sudo modprobe pmuctx");
	if (strcmp(path, PMUCTX_DEVICE_PATH))
		sb_printf(sb, "\n  (the device path %s was given explicitly; "
			  "the module creates %s)", path, PMUCTX_DEVICE_PATH);
}

static void sb_device(struct sb *sb, const struct diag_perm *f,
		      const char *path)
{
	char mode[11];

	fmt_mode(f->dev_mode, f->dev_is_chr, mode);
	sb_printf(sb, "  %s is %s, owner ", path, mode);
	if (f->dev_owner[0])
		sb_printf(sb, "%s", f->dev_owner);
	else
		sb_printf(sb, "%u", (unsigned int)f->dev_uid);
	if (f->dev_group[0])
		sb_printf(sb, ", group %s.\n", f->dev_group);
	else
		sb_printf(sb, ", group %u.\n", (unsigned int)f->dev_gid);
}

static void sb_membership(struct sb *sb, const struct diag_perm *f)
{
	sb_printf(sb, "  this process runs as ");
	sb_who(sb, f);
	if (!f->group_exists)
		sb_printf(sb, "; group " PMUCTX_GROUP " does not exist on "
			  "this system.\n");
	else if (f->in_group)
		sb_printf(sb, " and is in group " PMUCTX_GROUP ".\n");
	else if (f->listed_in_group)
		sb_printf(sb, ", which is listed in group " PMUCTX_GROUP ", "
			  "but this login session predates that: log out and "
			  "in again (or run 'newgrp " PMUCTX_GROUP "').\n");
	else
		sb_printf(sb, " and is not in group " PMUCTX_GROUP ".\n");
}

static void fmt_open_perm(struct sb *sb, const struct diag_facts *df,
			  const char *path)
{
	const struct diag_perm *f = &df->perm;
	bool group_ok;

	if (!df->have_perm) {
		sb_printf(sb, "  needed: membership of group " PMUCTX_GROUP
			  " (the udev rule makes %s mode 0660, group "
			  PMUCTX_GROUP "), or CAP_PERFMON / CAP_SYS_ADMIN",
			  path);
		return;
	}
	if (f->dev_known)
		sb_device(sb, f, path);
	sb_membership(sb, f);
	sb_caps(sb, f);

	group_ok = f->dev_known && f->dev_group[0] &&
		   !strcmp(f->dev_group, PMUCTX_GROUP) &&
		   (f->dev_mode & 0060) == 0060;
	if (f->dev_known && !group_ok)
		sb_printf(sb, "  the udev rule does not seem active: it should "
			  "make %s mode 0660, group " PMUCTX_GROUP " (install "
			  "the rule, then 'sudo udevadm trigger' or reload the "
			  "module).\n", path);
	if (f->in_group && group_ok)
		sb_printf(sb, "  the device permissions should allow this; "
			  "check for a security module (SELinux/AppArmor) or "
			  "a container device policy.\n");
	if (f->perfmon_eff || f->sysadmin_eff)
		sb_printf(sb, "  the capability does not override the file "
			  "permissions of %s: fix its mode/group, or run as "
			  "root.\n", path);

	sb_printf(sb, "  needed: membership of group " PMUCTX_GROUP " or "
		  "CAP_PERFMON (or CAP_SYS_ADMIN). For example:\n");
	if (!f->group_exists)
		sb_printf(sb, "    sudo groupadd --system " PMUCTX_GROUP "\n");
	sb_printf(sb, "    sudo usermod -aG " PMUCTX_GROUP " %s  (then log in "
		  "again)\n", f->user[0] ? f->user : "$USER");
	sb_printf(sb, "    or run the program with sudo, or give it the "
		  "capability: sudo setcap cap_perfmon+ep PROGRAM");
}

static void fmt_open(struct sb *sb, const struct pmuctx_errinfo *e,
		     const struct diag_facts *f, const char *es)
{
	const char *path = e->path[0] ? e->path : PMUCTX_DEVICE_PATH;

	sb_printf(sb, "cannot open %s: %s\n", path, es);
	if (e->err == ENOENT || e->err == ENODEV || e->err == ENXIO)
		fmt_open_missing(sb, e->err, path);
	else if (e->err == EACCES || e->err == EPERM)
		fmt_open_perm(sb, f, path);
	else if (e->detail[0])
		sb_printf(sb, "  %s", e->detail);
	else
		generic_hint(sb, e->err);
}

static void fmt_probe(struct sb *sb, const struct pmuctx_errinfo *e,
		      const char *es)
{
	const char *path = e->path[0] ? e->path : PMUCTX_DEVICE_PATH;

	sb_printf(sb, "%s does not answer the pmuctx INFO request: %s\n",
		  path, es);
	if (e->detail[0])
		sb_printf(sb, "  %s", e->detail);
	else if (e->err == ENOTTY || e->err == EINVAL)
		sb_printf(sb, "  %s is not a pmuctx device (or the loaded "
			  "module is far older than this libpmuctx %s); check "
			  "that %s belongs to the pmuctx module", path,
			  pmuctx_version(), path);
	else if (e->err == E2BIG)
		fmt_e2big(sb, e);
	else
		generic_hint(sb, e->err);
}

/* ---- ring buffers -------------------------------------------------------- */

static void sb_bytes(struct sb *sb, unsigned long long b)
{
	if (b >= (1ULL << 30) && !(b % (1ULL << 30)))
		sb_printf(sb, "%llu GiB", b >> 30);
	else if (b >= (1ULL << 20) && !(b % (1ULL << 20)))
		sb_printf(sb, "%llu MiB", b >> 20);
	else if (b >= 1024 && !(b % 1024))
		sb_printf(sb, "%llu KiB", b >> 10);
	else
		sb_printf(sb, "%llu bytes", b);
}

/* bytes the whole mapping takes: nr_cpus x (1 + pages) pages; 0 unknown */
static unsigned long long ring_total(const struct pmuctx_errinfo *e)
{
	return e->nr_cpus ? (unsigned long long)e->nr_cpus *
			    (1ULL + e->ring_pages) * e->page_size : 0;
}

static void sb_ring_request(struct sb *sb, const struct pmuctx_errinfo *e)
{
	sb_printf(sb, "%u data pages (", e->ring_pages);
	sb_bytes(sb, (unsigned long long)e->ring_pages * e->page_size);
	sb_printf(sb, ") per CPU");
	if (e->nr_cpus) {
		sb_printf(sb, ", %u CPUs x (1 + %u) pages = ", e->nr_cpus,
			  e->ring_pages);
		sb_bytes(sb, ring_total(e));
		sb_printf(sb, " in all");
	}
}

static void fmt_ring_nomem(struct sb *sb, const struct pmuctx_errinfo *e,
			   const struct diag_ring *f)
{
	const char *param = diag_paths.max_ring_pages ?
			    diag_paths.max_ring_pages : MAX_RING_PAGES_PARAM;

	sb_printf(sb, "  the ring buffer asks for ");
	sb_ring_request(sb, e);
	sb_printf(sb, ".\n");
	if (f->max_pages >= 0 && e->ring_pages > f->max_pages) {
		sb_printf(sb, "  that is more than the module allows: "
			  "max_ring_pages is %lld (", f->max_pages);
		sb_bytes(sb, (unsigned long long)f->max_pages * e->page_size);
		sb_printf(sb, " per CPU), in %s.\n", param);
	} else if (f->max_pages >= 0) {
		sb_printf(sb, "  the module's limit, max_ring_pages = %lld "
			  "(%s), allows it: the kernel could not allocate the "
			  "memory.\n", f->max_pages, param);
	} else {
		sb_printf(sb, "  either it is more than the module's limit "
			  "(max_ring_pages, in %s: could not be read) or the "
			  "kernel could not allocate the memory.\n", param);
	}
	sb_printf(sb, "  use a smaller buffer (a power of two of pages; "
		  "pmuctx record --buffer-size), or raise the limit: sudo sh "
		  "-c 'echo %u > %s' (or load the module with "
		  "max_ring_pages=%u)", e->ring_pages, param, e->ring_pages);
}

static void sb_limit(struct sb *sb, unsigned long long v)
{
	if (v == RLIM_INFINITY)
		sb_printf(sb, "unlimited");
	else
		sb_bytes(sb, v);
}

/* the memlock part of an EPERM; true if it is probably the cause */
static bool fmt_ring_memlock(struct sb *sb, const struct pmuctx_errinfo *e,
			     const struct diag_ring *f)
{
	unsigned long long need = ring_total(e);
	bool over;

	if (f->caps_known && f->ipc_lock)
		return false;	/* not charged */
	over = f->memlock_known && f->memlock_cur != RLIM_INFINITY &&
	       (!need || need > f->memlock_cur);
	sb_printf(sb, "  the ring buffers (");
	sb_ring_request(sb, e);
	sb_printf(sb, ") are locked memory, charged to RLIMIT_MEMLOCK "
		  "because the process %s CAP_IPC_LOCK.\n",
		  f->caps_known ? "does not have" : "may not have");
	if (f->memlock_known) {
		sb_printf(sb, "  RLIMIT_MEMLOCK (ulimit -l) is ");
		sb_limit(sb, f->memlock_cur);
		sb_printf(sb, " now (hard limit ");
		sb_limit(sb, f->memlock_max);
		sb_printf(sb, ")%s.\n", over ? ", less than the request" :
			  "; memory this user has locked already (other "
			  "sessions, mlock) counts too");
	}
	sb_printf(sb, "  raise the limit (ulimit -l");
	if (need)
		sb_printf(sb, " %llu", (need + 1023) / 1024);
	sb_printf(sb, " in the shell, up to the hard limit; 'memlock' in "
		  "/etc/security/limits.conf or LimitMEMLOCK= in a systemd "
		  "unit beyond it), use a smaller buffer, or run with "
		  "CAP_IPC_LOCK (as root, or sudo setcap cap_ipc_lock+ep "
		  "PROGRAM)");
	return over || !f->memlock_known;
}

static void fmt_ring_notsupp(struct sb *sb, const struct pmuctx_errinfo *e)
{
	if (e->ring_feature == 0)
		sb_printf(sb, "  the loaded pmuctx module has no ring buffers "
			  "(its features, shown by pmuctx info, lack "
			  "\"ring\"): update the module (sudo dkms install ., "
			  "or rebuild and reload module/pmuctx.ko)");
	else
		sb_printf(sb, "  the module does not support this ring buffer "
			  "configuration (%u pages per CPU, mode %u), or one "
			  "of the events; check pmuctx info", e->ring_pages,
			  e->ring_mode);
}

static void fmt_ring_map(struct sb *sb, const struct pmuctx_errinfo *e,
			 const struct diag_facts *f, const char *es)
{
	sb_printf(sb, "cannot map the ring buffers: %s\n", es);
	switch (e->err) {
	case EPERM:
	case EACCES:
		if (!fmt_ring_memlock(sb, e, &f->ring) &&
		    f->ring.caps_known && f->ring.ipc_lock)
			sb_printf(sb, "  the module refused the mapping "
				  "although the process has CAP_IPC_LOCK "
				  "(locked memory is not the cause); see the "
				  "kernel log (dmesg)");
		break;
	case ENOMEM:
		sb_printf(sb, "  not enough memory or address space for %s; "
			  "use a smaller buffer", e->detail);
		break;
	case EBUSY:
		sb_printf(sb, "  %s", e->detail[0] ? e->detail :
			  "the session's buffers are mapped already: one "
			  "mapping per session");
		break;
	case EINVAL:
		sb_printf(sb, "  %s", e->detail[0] ? e->detail :
			  "the module refused the mapping");
		if (!strncmp(e->detail, "mmap", 4))
			sb_printf(sb, "; the module expects exactly nr_cpus x "
				  "(1 + ring_pages) pages, read-only, shared, "
				  "at offset 0 (library and module do not "
				  "match?)");
		break;
	case ENODEV:
		sb_printf(sb, "  the loaded module cannot map ring buffers "
			  "(too old?): update it");
		break;
	default:
		if (e->detail[0])
			sb_printf(sb, "  %s", e->detail);
		else
			generic_hint(sb, e->err);
	}
}

static void fmt_ring_data(struct sb *sb, const struct pmuctx_errinfo *e,
			  const char *es)
{
	sb_printf(sb, "bad ring buffer data: %s\n", es);
	sb_printf(sb, "  %s\n", e->detail);
	if (e->err == EBADMSG)
		sb_printf(sb, "  the buffer does not follow the pmuctx ring "
			  "ABI: library and module do not match, or the module "
			  "has a bug%s", e->ring_mode == PMUCTX_RING_OVERWRITE ?
			  " (or the overwrite-mode buffer was read without a "
			  "snapshot)" : "");
	else
		generic_hint(sb, e->err);
}

/* SNAPSHOT, RESUME, CONSUME, WRITE, POLL */
static void fmt_ring_call(struct sb *sb, const struct pmuctx_errinfo *e,
			  const char *es)
{
	int err = e->err;

	sb_printf(sb, "cannot %s: %s\n", op_verb(e->op), es);
	if (err == EINVAL && e->op == PMUCTX_ERR_OP_CONSUME)
		sb_printf(sb, "  %s: the module refused the position (outside "
			  "[data_tail, data_head], or not a normal-mode "
			  "buffer)", e->detail[0] ? e->detail : "RING_CONSUME");
	else if (err == EINVAL && e->detail[0])
		sb_printf(sb, "  %s", e->detail);
	else if (err == EINVAL || err == ENOTTY)
		sb_printf(sb, "  the session has no ring buffer (create it "
			  "with .ring_pages > 0), or the loaded module does "
			  "not know this request");
	else if (err == ENOSPC && e->op == PMUCTX_ERR_OP_WRITE)
		sb_printf(sb, "  this CPU's buffer is full (normal mode): the "
			  "record was dropped and counted in lost; read and "
			  "consume the buffer sooner, or use a bigger one");
	else if (e->detail[0])
		sb_printf(sb, "  %s", e->detail);
	else
		generic_hint(sb, err);
}

/* INFO, ENABLE, DISABLE, RESET, READ */
static void fmt_handle_call(struct sb *sb, const struct pmuctx_errinfo *e,
			    const char *es)
{
	const char *path = e->path[0] ? e->path : PMUCTX_DEVICE_PATH;

	sb_printf(sb, "cannot %s: %s\n", op_verb(e->op), es);
	if (e->detail[0])
		sb_printf(sb, "  %s", e->detail);
	else if (e->err == E2BIG)
		fmt_e2big(sb, e);
	else if (e->err == EINVAL && e->op != PMUCTX_ERR_OP_INFO)
		sb_printf(sb, "  the handle has no session (create one with "
			  "pmuctx_session_create() first), or the request was "
			  "malformed");
	else if (e->err == ENOTTY)
		sb_printf(sb, "  %s is not a pmuctx device, or the loaded "
			  "module does not know this request", path);
	else
		generic_hint(sb, e->err);
}

/* ---- sessions ------------------------------------------------------------ */

static void sb_target(struct sb *sb, const struct pmuctx_errinfo *e)
{
	switch (e->target) {
	case PMUCTX_TARGET_SYSTEM:
		sb_printf(sb, "a system-wide pmuctx session");
		break;
	case PMUCTX_TARGET_CGROUP:
		if (e->path[0])
			sb_printf(sb, "a pmuctx session for cgroup %s",
				  e->path);
		else
			sb_printf(sb, "a cgroup pmuctx session");
		break;
	case PMUCTX_TARGET_PID:
		if (e->pid)
			sb_printf(sb, "a pmuctx session for %s %d",
				  e->session_flags & PMUCTX_SESSION_THREAD ?
				  "thread" : "pid", e->pid);
		else
			sb_printf(sb, "a pmuctx session for the calling "
				  "process");
		break;
	default:
		sb_printf(sb, "a pmuctx session (target %u)", e->target);
	}
}

static bool privileged(const struct diag_facts *f)
{
	return f->have_perm && f->perm.caps_known &&
	       (f->perm.perfmon_eff || f->perm.sysadmin_eff);
}

static void sb_lsm_hint(struct sb *sb)
{
	sb_printf(sb, "  the process is already privileged, so the refusal "
		  "comes from elsewhere: a security module (SELinux, "
		  "AppArmor, lockdown), a container's seccomp/device policy, "
		  "or the module's own policy (see the kernel log: dmesg)");
}

static void fmt_pid_perm(struct sb *sb, const struct pmuctx_errinfo *e,
			 const struct diag_facts *df)
{
	const struct diag_perm *f = &df->perm;
	bool known = df->have_perm && f->target_known;

	if (known) {
		sb_printf(sb, "  pid %d belongs to uid %u", e->pid,
			  (unsigned int)f->target_uid);
		if (f->target_user[0])
			sb_printf(sb, " (%s)", f->target_user);
		sb_printf(sb, "; this process runs as ");
		sb_who(sb, f);
		sb_printf(sb, ".\n");
	}
	if (!known || f->target_uid != f->euid) {
		sb_printf(sb, "  monitoring another user's task needs the "
			  "same uid or CAP_SYS_PTRACE");
		if (df->have_perm && f->caps_known)
			sb_printf(sb, " (this process %s CAP_SYS_PTRACE)",
				  f->ptrace_eff ? "has" : "does not have");
		sb_printf(sb, ".\n  run as that user, or with sudo, or grant "
			  "CAP_SYS_PTRACE.\n");
	} else {
		sb_printf(sb, "  the target is yours, so the module's policy "
			  "refused it; it follows kernel.perf_event_paranoid "
			  "unless the process has CAP_PERFMON.\n");
	}
	if (df->have_perm) {
		sb_caps(sb, f);
		sb_paranoid(sb, f);
	}
	if (privileged(df)) {
		sb_lsm_hint(sb);
		return;
	}
	sb_printf(sb, "  a lower setting may allow it: sudo sysctl "
		  "kernel.perf_event_paranoid=1");
}

static void fmt_session_perm(struct sb *sb, const struct pmuctx_errinfo *e,
			     const struct diag_facts *f)
{
	if (e->target == PMUCTX_TARGET_PID) {
		fmt_pid_perm(sb, e, f);
		return;
	}
	sb_printf(sb, "  %s sessions need CAP_PERFMON (or CAP_SYS_ADMIN), "
		  "or kernel.perf_event_paranoid <= 0.\n",
		  e->target == PMUCTX_TARGET_SYSTEM ? "system-wide" : "cgroup");
	if (f->have_perm) {
		sb_caps(sb, &f->perm);
		sb_paranoid(sb, &f->perm);
	}
	if (privileged(f)) {
		sb_lsm_hint(sb);
		return;
	}
	sb_printf(sb, "  run with sudo, grant the capability (sudo setcap "
		  "cap_perfmon+ep PROGRAM), or allow it for everyone: sudo "
		  "sysctl kernel.perf_event_paranoid=0");
}

/*
 * What the kernel refused and what is known about its PMU.  Only what the
 * module reported is asserted: no hw-pmu feature means no hardware PMU
 * driver; with one, or when it is unknown, nothing is said about
 * virtualisation.
 */
static void fmt_session_notsupp(struct sb *sb, const struct pmuctx_errinfo *e)
{
	char names[256];
	__s32 hw[PMUCTX_MAX_EVENTS];
	const __s32 *ids = e->culprits;
	unsigned int i, n = e->nr_culprits, nhw = 0;

	if (!n && e->detail[0]) {
		sb_printf(sb, "  %s", e->detail);
		return;
	}
	if (!n) {
		for (i = 0; i < e->nr_events && i < PMUCTX_MAX_EVENTS; i++)
			if (pmuctx_event_is_hw(e->events[i]) == 1)
				hw[n++] = e->events[i];
		ids = hw;
	}
	for (i = 0; i < n; i++)
		nhw += pmuctx_event_is_hw(ids[i]) == 1;
	event_names(names, sizeof(names), ids, n);
	if (!n)
		snprintf(names, sizeof(names), "(none of the requested events "
			 "is a hardware event)");
	sb_printf(sb, "  not supported here: %s\n", names);
	if (!nhw) {
		sb_printf(sb, "  the module refused %s; see pmuctx info and "
			  "the kernel log (dmesg)", n ? "them" : "the session");
		return;
	}
	if (e->hw_pmu == 0)
		sb_printf(sb, "  the module reports no hardware PMU (pmuctx "
			  "info lacks the hw-pmu feature): the kernel has no "
			  "PMU driver for hardware events here, as in a "
			  "virtual machine without PMU passthrough.\n");
	else if (e->hw_pmu == 1)
		sb_printf(sb, "  the module has a hardware PMU, but it does "
			  "not provide these events.\n");
	else
		sb_printf(sb, "  the kernel refused these hardware events; "
			  "whether it has a hardware PMU is unknown here "
			  "(pmuctx info shows the hw-pmu feature).\n");
	sb_printf(sb, "  leave them out, or use software events: task-clock, "
		  "context-switches, cpu-migrations, page-faults, cpu-clock");
}

static void fmt_session_einval(struct sb *sb, const struct pmuctx_errinfo *e)
{
	char names[256];

	event_names(names, sizeof(names), e->events, e->nr_events);
	sb_printf(sb, "  the module rejected the session attributes (target "
		  "%u, flags 0x%x, events: %s", e->target, e->session_flags,
		  names);
	if (e->ring_pages)
		sb_printf(sb, "; ring: %u pages per CPU, mode %u",
			  e->ring_pages, e->ring_mode);
	sb_printf(sb, ")");
	if (e->detail[0])
		sb_printf(sb, ": %s", e->detail);
	else
		sb_printf(sb, "; check flags, backend and data size against "
			  "<linux/pmuctx.h>");
}

/*
 * The module's paranoid policy refuses the session whatever else is
 * true (module/perm.c, pmuctx_may_create(), as perf_event_open()): a
 * task target above perf_event_paranoid 2, a system-wide or cgroup one
 * above 0, for a process without CAP_PERFMON or CAP_SYS_ADMIN
 */
static bool paranoid_refuses(const struct pmuctx_errinfo *e,
			     const struct diag_facts *df)
{
	const struct diag_perm *f = &df->perm;

	if (!df->have_perm || !f->paranoid_known || !f->caps_known ||
	    f->perfmon_eff || f->sysadmin_eff)
		return false;
	return f->paranoid > (e->target == PMUCTX_TARGET_PID ? 2 : 0);
}

/* a task target refused by perf_event_paranoid > 2 */
static void fmt_pid_paranoid(struct sb *sb, const struct pmuctx_errinfo *e,
			     const struct diag_facts *df)
{
	const struct diag_perm *f = &df->perm;

	sb_printf(sb, "  kernel.perf_event_paranoid is %d "
		  "(/proc/sys/kernel/perf_event_paranoid): above 2 only a "
		  "process with CAP_PERFMON (or CAP_SYS_ADMIN) may monitor "
		  "tasks, even its own, as with perf.\n", f->paranoid);
	sb_caps(sb, f);
	if (f->target_known && f->target_uid != f->euid)
		sb_printf(sb, "  (pid %d belongs to uid %u: another user's "
			  "task also needs the same uid or CAP_SYS_PTRACE.)\n",
			  e->pid, (unsigned int)f->target_uid);
	sb_printf(sb, "  allow it for everyone with sudo sysctl "
		  "kernel.perf_event_paranoid=2, or run with sudo, or grant "
		  "the capability (sudo setcap cap_perfmon+ep PROGRAM)");
}

/* locked memory over the limit: would the ring be refused too? */
static bool memlock_over(const struct pmuctx_errinfo *e,
			 const struct diag_ring *f)
{
	unsigned long long need = ring_total(e);

	return !(f->caps_known && f->ipc_lock) && f->memlock_known &&
	       f->memlock_cur != RLIM_INFINITY &&
	       (!need || need > f->memlock_cur);
}

/*
 * EPERM/EACCES: the cause first.  When the paranoid policy refuses the
 * session anyway, privileges (and locked memory after them, only if it
 * is over the limit too); otherwise locked memory first if there is a
 * ring, then privileges.
 */
static void fmt_session_denied(struct sb *sb, const struct pmuctx_errinfo *e,
			       const struct diag_facts *f)
{
	bool charged = !(f->ring.caps_known && f->ring.ipc_lock);

	/* an event asked for kernel mode (":k") the policy refuses: that */
	if (e->err == EACCES && e->detail && strstr(e->detail,
						    "counts kernel mode")) {
		sb_printf(sb, "  %s", e->detail);
		return;
	}
	if (paranoid_refuses(e, f)) {
		if (e->target == PMUCTX_TARGET_PID)
			fmt_pid_paranoid(sb, e, f);
		else
			fmt_session_perm(sb, e, f);
		if (e->ring_pages && memlock_over(e, &f->ring)) {
			sb_printf(sb, "\n  then, too:\n");
			fmt_ring_memlock(sb, e, &f->ring);
		}
		return;
	}
	if (e->ring_pages && fmt_ring_memlock(sb, e, &f->ring)) {
		sb_printf(sb, "\n  (if the limit is not the cause: monitoring "
			  "the target itself may not be allowed)");
		return;
	}
	if (e->ring_pages && charged)
		sb_printf(sb, "\n");
	fmt_session_perm(sb, e, f);
}

/* EUSERS: the PMU's share of users without CAP_PERFMON is taken */
static void fmt_session_pmu_share(struct sb *sb)
{
	long long lim = read_ll(diag_paths.max_unpriv_pmu);

	sb_printf(sb, "  the hardware counters that sessions of users without "
		  "CAP_PERFMON may hold, all users together, are taken: "
		  "max_unprivileged_pmu_counters ");
	if (lim >= 0)
		sb_printf(sb, "is %lld; ", lim);
	else
		sb_printf(sb, "(%s, could not be read); ",
			  diag_paths.max_unpriv_pmu);
	sb_printf(sb, "such counters run on every CPU ahead of other users' "
		  "own, so the module keeps PMU counters for them.  Use fewer "
		  "hardware events (software events are not limited), wait "
		  "for other sessions to end, or ask an administrator to "
		  "raise the limit");
}

static void fmt_session(struct sb *sb, const struct pmuctx_errinfo *e,
			const struct diag_facts *f, const char *es)
{
	sb_printf(sb, "cannot create ");
	sb_target(sb, e);
	sb_printf(sb, ": %s\n", es);
	switch (e->err) {
	case EPERM:
	case EACCES:
		fmt_session_denied(sb, e, f);
		break;
	case EOPNOTSUPP:
		if (e->ring_pages && !(e->ring_feature == 1 && e->nr_culprits))
			fmt_ring_notsupp(sb, e);
		else
			fmt_session_notsupp(sb, e);
		break;
	case E2BIG:
		fmt_e2big(sb, e);
		break;
	case ESRCH:
		sb_printf(sb, "  there is no %s %d (it exited, or the id is "
			  "wrong, or it is in another pid namespace)",
			  e->session_flags & PMUCTX_SESSION_THREAD ?
			  "thread" : "process", e->pid);
		break;
	case EBUSY:
		sb_printf(sb, "  this handle already has a session; open "
			  "another handle (pmuctx_open()) for a second "
			  "session");
		break;
	case EUSERS:
		fmt_session_pmu_share(sb);
		break;
	case EBADF:
	case ENOTDIR:
		sb_printf(sb, "  the cgroup file descriptor is not an open "
			  "cgroup v2 directory");
		break;
	case EINVAL:
		fmt_session_einval(sb, e);
		break;
	case ENOMEM:
		if (e->ring_pages) {
			fmt_ring_nomem(sb, e, &f->ring);
			break;
		}
		/* fall through */
	case ENOSPC:
		sb_printf(sb, "  the module is out of memory or at its "
			  "max_tasks limit (see pmuctx info)");
		break;
	default:
		generic_hint(sb, e->err);
	}
}

/* ---- the explanation ----------------------------------------------------- */

/* no record of the failure: what the errno alone says */
static void fmt_generic(struct sb *sb, int err, const char *es)
{
	sb_printf(sb, "pmuctx: %s", es);
	if (err == ENOENT || err == ENODEV || err == ENXIO) {
		sb_printf(sb, "\n");
		fmt_open_missing(sb, err, PMUCTX_DEVICE_PATH);
	} else if (errno_text(err)) {
		sb_printf(sb, "\n  %s", errno_text(err));
	}
}

int diag_format(const struct pmuctx_errinfo *e, const struct diag_facts *f,
		char *buf, size_t len)
{
	struct sb sb = { .buf = buf, .len = len };
	char tmp[128];
	const char *es = strerror_r(e->err, tmp, sizeof(tmp));

	if (len)
		buf[0] = '\0';
	switch (e->op) {
	case PMUCTX_ERR_OP_NONE:
		fmt_generic(&sb, e->err, es);
		break;
	case PMUCTX_ERR_OP_ARG:
	case PMUCTX_ERR_OP_OPTS:
	case PMUCTX_ERR_OP_EVENT:
	case PMUCTX_ERR_OP_ALLOC:
		sb_printf(&sb, "%s", e->detail[0] ? e->detail : es);
		break;
	case PMUCTX_ERR_OP_OPEN:
		fmt_open(&sb, e, f, es);
		break;
	case PMUCTX_ERR_OP_PROBE:
		fmt_probe(&sb, e, es);
		break;
	case PMUCTX_ERR_OP_CGROUP:
		sb_printf(&sb, "cannot open cgroup directory %s: %s\n  give the "
			  "path of a cgroup v2 directory, e.g. "
			  "/sys/fs/cgroup/user.slice (see /proc/PID/cgroup for "
			  "a process's cgroup)", e->path, es);
		if (e->detail[0])
			sb_printf(&sb, "\n  %s", e->detail);
		break;
	case PMUCTX_ERR_OP_SESSION:
		fmt_session(&sb, e, f, es);
		break;
	case PMUCTX_ERR_OP_RING_MAP:
		fmt_ring_map(&sb, e, f, es);
		break;
	case PMUCTX_ERR_OP_RING_DATA:
		fmt_ring_data(&sb, e, es);
		break;
	case PMUCTX_ERR_OP_RECORD:
		sb_printf(&sb, "bad pmuctx record: %s", e->detail);
		break;
	case PMUCTX_ERR_OP_SNAPSHOT:
	case PMUCTX_ERR_OP_RESUME:
	case PMUCTX_ERR_OP_CONSUME:
	case PMUCTX_ERR_OP_WRITE:
	case PMUCTX_ERR_OP_POLL:
		fmt_ring_call(&sb, e, es);
		break;
	case PMUCTX_ERR_OP_INFO:
	case PMUCTX_ERR_OP_ENABLE:
	case PMUCTX_ERR_OP_DISABLE:
	case PMUCTX_ERR_OP_RESET:
	case PMUCTX_ERR_OP_READ:
		fmt_handle_call(&sb, e, es);
		break;
	default:
		sb_printf(&sb, "pmuctx: %s", es);
		if (e->detail[0])
			sb_printf(&sb, "\n  %s", e->detail);
	}
	return (int)sb.pos;
}

int diagnose(struct pmuctx *h, int err, char *buf, size_t len)
{
	struct pmuctx_errinfo e = { .sz = sizeof(e) };
	struct diag_facts f;

	pmuctx_errinfo(h, err, &e);
	diag_gather(&e, &f);
	return diag_format(&e, &f, buf, len);
}
