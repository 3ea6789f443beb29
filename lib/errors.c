// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Error records, pmuctx_strerror(), the one-line pmuctx_errmsg() and the
 * record itself for programs that explain more (pmuctx_errinfo()).  The
 * library records what it knows from the call and the module; it does
 * not look at the system (capabilities, users, groups, sysctls): the
 * pmuctx command does that (tools/diagnose.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>

#include "internal.h"

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
	case EOPNOTSUPP: return "not supported: an event the kernel has no PMU support for, or a feature the loaded module lacks";
	case ENOTTY:	return "not a pmuctx device, or an operation the loaded module does not know";
	case EBUSY:	return "the handle already has a session";
	case ESRCH:	return "no such process";
	case EINVAL:	return "invalid argument";
	case ENOSPC:	return "buffer too small for the per-task values";
	case ENOMEM:	return "out of memory";
	case EFAULT:	return "bad address";
	case EBADF:	return "bad file descriptor";
	case ENOTDIR:	return "not a directory (a cgroup v2 directory is needed)";
	case EUSERS:	return "the PMU counters users without CAP_PERFMON may hold together are taken (max_unprivileged_pmu_counters)";
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

/* what @err means for pmuctx beyond libc's text, or NULL */
static const char *errno_hint(int err)
{
	switch (err) {
	case ENOENT:	return "is the pmuctx kernel module loaded? sudo modprobe pmuctx";
	case ENODEV:
	case ENXIO:	return "no driver: is the pmuctx kernel module loaded? sudo modprobe pmuctx";
	case EACCES:	return "need group pmuctx membership or CAP_PERFMON";
	case EPERM:	return "missing privilege: CAP_PERFMON, CAP_SYS_PTRACE or kernel.perf_event_paranoid";
	case E2BIG:	return "library/module ABI mismatch, or too many events";
	case EOPNOTSUPP: return "the kernel or the loaded module does not support it";
	case ENOTTY:	return "not a pmuctx device, or a request the loaded module does not know";
	case ENOTDIR:	return "a cgroup v2 directory is needed";
	case EUSERS:	return "fewer hardware events, or a higher max_unprivileged_pmu_counters";
	default:	return NULL;
	}
}

/* ---- the one-line message --------------------------------------------------- */

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

/* " (hint)" for @err, if there is one */
static void sb_hint(struct pmuctx__sb *sb, int err)
{
	const char *hint = errno_hint(err);

	if (hint)
		pmuctx__sb_printf(sb, " (%s)", hint);
}

/* ": detail", or else " (hint)" */
static void sb_detail_or_hint(struct pmuctx__sb *sb,
			      const struct pmuctx__err *e, int err)
{
	if (e->detail[0])
		pmuctx__sb_printf(sb, ": %s", e->detail);
	else
		sb_hint(sb, err);
}

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

/* "; ring: 64 data pages per CPU, 2 CPUs x (1 + 64) pages = 520 KiB" */
static void sb_ring(struct pmuctx__sb *sb, const struct pmuctx__ring_facts *f)
{
	pmuctx__sb_printf(sb, "; ring: %u data pages per CPU, mode %u",
			  f->pages, f->mode);
	if (f->nr_cpus) {
		pmuctx__sb_printf(sb, ", %u CPUs x (1 + %u) pages = ",
				  f->nr_cpus, f->pages);
		sb_bytes(sb, (unsigned long long)f->nr_cpus *
			     (1ULL + f->pages) * f->page_size);
	}
}

/* "; library ... ABI 1 (struct X of N bytes), module V ABI 2 (knows M)" */
static void sb_e2big(struct pmuctx__sb *sb, const struct pmuctx__err *e)
{
	pmuctx__sb_printf(sb, "; libpmuctx %s speaks pmuctx ABI %d",
			  pmuctx_version(), PMUCTX_ABI_VERSION);
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
}

static void sb_target(struct pmuctx__sb *sb, const struct pmuctx__err *e)
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

static void sb_events(struct pmuctx__sb *sb, const char *label,
		      const int *ids, unsigned int n)
{
	char names[256];

	pmuctx__event_names(names, sizeof(names), ids, n);
	pmuctx__sb_printf(sb, "; %s: %s", label, names);
}

/* the facts of a refused SESSION_CREATE, after "cannot create ...: ES" */
static void line_session(struct pmuctx__sb *sb, const struct pmuctx__err *e,
			 int err)
{
	switch (err) {
	case EOPNOTSUPP:
		if (e->nr_culprits)
			sb_events(sb, "not supported", e->culprits,
				  e->nr_culprits);
		else
			sb_events(sb, "events", e->events, e->nr_events);
		if (e->hw_pmu == 0)
			pmuctx__sb_printf(sb, "; the module reports no "
					  "hardware PMU");
		if (e->ring.pages && e->ring.feat_known && !e->ring.feat_ring)
			pmuctx__sb_printf(sb, "; the module has no ring "
					  "buffers");
		break;
	case EINVAL:
		sb_events(sb, "events", e->events, e->nr_events);
		pmuctx__sb_printf(sb, "; flags 0x%x", e->sflags);
		break;
	case E2BIG:
		sb_e2big(sb, e);
		break;
	case ESRCH:
	case EBUSY:
		break;
	default:
		/* a detail says the cause (":k" refused): no generic hint */
		if (!e->detail[0])
			sb_hint(sb, err);
	}
	if (e->ring.pages)
		sb_ring(sb, &e->ring);
	if (e->detail[0])
		pmuctx__sb_printf(sb, "; %s", e->detail);
}

/* a record of one of the calls on a handle or a ring */
static void line_call(struct pmuctx__sb *sb, const struct pmuctx__err *e,
		      int err, const char *es)
{
	pmuctx__sb_printf(sb, "cannot %s: %s", op_verb(e->op), es);
	if (err == E2BIG && !e->detail[0])
		sb_e2big(sb, e);
	else
		sb_detail_or_hint(sb, e, err);
}

static void line_record(struct pmuctx__sb *sb, const struct pmuctx__err *e,
			int err, const char *es)
{
	const char *path = e->path[0] ? e->path : PMUCTX_DEVICE_PATH;

	switch (e->op) {
	case PMUCTX_OP_ARG:
	case PMUCTX_OP_OPTS:
	case PMUCTX_OP_EVENT:
	case PMUCTX_OP_ALLOC:
		pmuctx__sb_printf(sb, "%s", e->detail[0] ? e->detail : es);
		break;
	case PMUCTX_OP_OPEN:
		pmuctx__sb_printf(sb, "cannot open %s: %s", path, es);
		sb_detail_or_hint(sb, e, err);
		break;
	case PMUCTX_OP_PROBE:
		pmuctx__sb_printf(sb, "%s does not answer the pmuctx INFO "
				  "request: %s", path, es);
		if (err == E2BIG && !e->detail[0])
			sb_e2big(sb, e);
		else
			sb_detail_or_hint(sb, e, err);
		break;
	case PMUCTX_OP_CGROUP:
		pmuctx__sb_printf(sb, "cannot open cgroup directory %s: %s "
				  "(a cgroup v2 directory is needed)", path, es);
		break;
	case PMUCTX_OP_SESSION:
		pmuctx__sb_printf(sb, "cannot create ");
		sb_target(sb, e);
		pmuctx__sb_printf(sb, ": %s", es);
		line_session(sb, e, err);
		break;
	case PMUCTX_OP_RING_MAP:
		pmuctx__sb_printf(sb, "cannot map the ring buffers: %s", es);
		sb_detail_or_hint(sb, e, err);
		break;
	case PMUCTX_OP_RING_DATA:
		pmuctx__sb_printf(sb, "bad ring buffer data: %s: %s", es,
				  e->detail);
		break;
	case PMUCTX_OP_RECORD:
		pmuctx__sb_printf(sb, "bad pmuctx record: %s", e->detail);
		break;
	default:
		line_call(sb, e, err, es);
	}
}

PMUCTX_INTERNAL int pmuctx__format_err(const struct pmuctx__err *e, int err,
				       char *buf, size_t len)
{
	struct pmuctx__sb sb = { .buf = buf, .len = len };
	char tmp[128];
	const char *es;

	if (len)
		buf[0] = '\0';
	if (err < 0)
		err = -err;
	es = strerror_r(err, tmp, sizeof(tmp));

	if (!e || e->err != err || e->op == PMUCTX_OP_NONE) {
		/* no record: a generic message */
		pmuctx__sb_printf(&sb, "pmuctx: %s", es);
		sb_hint(&sb, err);
	} else {
		line_record(&sb, e, err, es);
	}
	return (int)sb.pos;
}

/* the record of a failure with @err (> 0): the handle's, else the thread's */
static const struct pmuctx__err *find_record(const struct pmuctx *h, int err)
{
	if (h && h->err.err == err && h->err.op != PMUCTX_OP_NONE)
		return &h->err;
	if (tls_err.err == err && tls_err.op != PMUCTX_OP_NONE)
		return &tls_err;
	return NULL;
}

PMUCTX_API int pmuctx_errmsg(struct pmuctx *h, int err, char *buf, size_t len)
{
	int aerr = err < 0 ? -err : err;

	if (!buf && len)
		return -EINVAL;
	return pmuctx__format_err(find_record(h, aerr), aerr, buf, len);
}

static void errinfo_fill(struct pmuctx_errinfo *o, const struct pmuctx__err *e)
{
	unsigned int i;

	o->op = e->op;
	o->path = e->path;
	o->detail = e->detail;
	o->target = e->target;
	o->pid = e->pid;
	o->session_flags = e->sflags;
	o->nr_events = e->nr_events;
	for (i = 0; i < e->nr_events && i < PMUCTX_MAX_EVENTS; i++)
		o->events[i] = e->events[i];
	o->nr_culprits = e->nr_culprits;
	for (i = 0; i < e->nr_culprits && i < PMUCTX_MAX_EVENTS; i++)
		o->culprits[i] = e->culprits[i];
	o->hw_pmu = e->hw_pmu;
	o->ring_feature = e->ring.feat_known ? e->ring.feat_ring : -1;
	o->module_abi = e->module_abi;
	o->module_version = e->module_version;
	o->struct_name = e->struct_name;
	o->lib_size = e->lib_size;
	o->kernel_size = e->kernel_size;
	o->ring_pages = e->ring.pages;
	o->ring_mode = e->ring.mode;
	o->nr_cpus = e->ring.nr_cpus;
	o->page_size = e->ring.page_size;
}

PMUCTX_API int pmuctx_errinfo(struct pmuctx *h, int err,
			      struct pmuctx_errinfo *info)
{
	const struct pmuctx__err *e;
	struct pmuctx_errinfo o;
	size_t sz;

	/* no record of its own here: it would replace the one asked about */
	if (!info || info->sz < sizeof(size_t))
		return -EINVAL;
	sz = info->sz;
	if (err < 0)
		err = -err;
	memset(&o, 0, sizeof(o));
	o.err = err;
	o.path = o.detail = o.module_version = "";
	o.hw_pmu = o.ring_feature = o.module_abi = -1;
	e = find_record(h, err);
	if (e)
		errinfo_fill(&o, e);
	o.sz = sz;
	memcpy(info, &o, sz < sizeof(o) ? sz : sizeof(o));
	if (sz > sizeof(o))
		memset((char *)info + sizeof(o), 0, sz - sizeof(o));
	return e ? 0 : -ENOENT;
}
