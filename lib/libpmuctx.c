// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpmuctx: handles, module information, sessions and reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* initial per-task capacity, and the most we ever allocate */
/*
 * The user registers this architecture's module puts in a USER_STACK
 * record, and so the largest dump it takes (pmuctx_user_dump_max_nr())
 */
#if defined(__aarch64__)
#define NATIVE_REGS_NR	PMUCTX_REGS_ARM64_NR
#else
#define NATIVE_REGS_NR	PMUCTX_REGS_X86_64_NR
#endif
#define NATIVE_USER_DUMP_MAX pmuctx_user_dump_max_nr(NATIVE_REGS_NR)

#define TASKS_INITIAL	64
#define TASKS_MAX	(1U << 20)
#define READ_TRIES	8

PMUCTX_INTERNAL struct pmuctx__sys pmuctx__sys = {
	.open = pmuctx__sys_open,
	.ioctl = pmuctx__sys_ioctl,
	.mmap = pmuctx__sys_mmap,
	.munmap = pmuctx__sys_munmap,
	.write = pmuctx__sys_write,
	.poll = pmuctx__sys_poll,
};

PMUCTX_API const char *pmuctx_version(void)
{
	return STR(LIBPMUCTX_MAJOR_VERSION) "." STR(LIBPMUCTX_MINOR_VERSION)
	       "." STR(LIBPMUCTX_PATCH_VERSION);
}

PMUCTX_API int pmuctx_abi_version(void)
{
	return PMUCTX_ABI_VERSION;
}

/* ---- module information -------------------------------------------------- */

static int query_info(struct pmuctx *h, struct pmuctx_info *out,
		      enum pmuctx__op op)
{
	struct pmuctx_info info;
	__u32 size = sizeof(info), filled;
	int err, tries;

	for (tries = 0; ; tries++) {
		memset(&info, 0, sizeof(info));
		info.size = size;
		err = pmuctx__sys.ioctl(h->fd, PMUCTX_IOC_INFO, &info);
		/*
		 * The buffer tail is zero, so a module following the ABI
		 * accepts it; be lenient with one that insists on its own
		 * (smaller) size anyway.
		 */
		if (err == -E2BIG && tries == 0 &&
		    info.size >= PMUCTX_INFO_SIZE_VER0 && info.size < size) {
			size = info.size;
			continue;
		}
		break;
	}
	if (err < 0) {
		struct pmuctx__err *e = pmuctx__err_begin(h, op, err);

		if (err == -E2BIG) {
			e->struct_name = "pmuctx_info";
			e->lib_size = sizeof(info);
			e->kernel_size = info.size;
		}
		pmuctx__err_commit(h);
		return err;
	}

	filled = info.size;
	if (filled > size)
		filled = size;
	if (filled < PMUCTX_INFO_SIZE_VER0)
		return pmuctx__err_set(h, op, EPROTO,
			"the module answered INFO with size %u, below the "
			"first ABI version's %u bytes: module and library do "
			"not match", info.size, PMUCTX_INFO_SIZE_VER0);
	/* fields the module did not claim to fill stay zero */
	memset((char *)&info + filled, 0, sizeof(info) - filled);
	info.size = filled;
	info.version[PMUCTX_VERSION_LEN - 1] = '\0';

	h->info = info;
	h->probed = true;
	*out = info;
	return 0;
}

PMUCTX_API int pmuctx_info(struct pmuctx *h, struct pmuctx_info *info)
{
	if (!h || !info)
		return pmuctx__err_set(h, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_info: handle or info is NULL");
	return query_info(h, info, PMUCTX_OP_INFO);
}

/* ---- handles --------------------------------------------------------------- */

PMUCTX_API int pmuctx_open(struct pmuctx **out,
			   const struct pmuctx_open_opts *opts)
{
	struct pmuctx_info info;
	struct pmuctx *h;
	const char *path;
	unsigned int flags;
	int fd, err;

	if (!out)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_open: out is NULL");
	*out = NULL;
	if (!OPTS_VALID(opts, pmuctx_open_opts))
		return -EINVAL;
	path = OPTS_GET(opts, path, NULL);
	if (!path)
		path = PMUCTX_DEVICE_PATH;
	flags = OPTS_GET(opts, flags, 0);
	if (flags & ~PMUCTX_OPEN_FLAGS_ALL)
		return pmuctx__err_set(NULL, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_open: unknown flags 0x%x in "
			"pmuctx_open_opts.flags (known: 0x%x)",
			flags & ~PMUCTX_OPEN_FLAGS_ALL, PMUCTX_OPEN_FLAGS_ALL);

	h = calloc(1, sizeof(*h));
	if (h)
		h->path = strdup(path);
	if (!h || !h->path) {
		free(h);
		return pmuctx__err_set(NULL, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_open: out of memory");
	}
	h->open_flags = flags;
	h->fd = -1;

	fd = pmuctx__sys.open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		struct pmuctx__err *e = pmuctx__err_begin(NULL, PMUCTX_OP_OPEN,
							  fd);

		snprintf(e->path, sizeof(e->path), "%s", path);
		pmuctx_close(h);
		return fd;
	}
	h->fd = fd;

	if (!(flags & PMUCTX_OPEN_NO_PROBE)) {
		err = query_info(h, &info, PMUCTX_OP_PROBE);
		if (err) {
			pmuctx_close(h);	/* the tls record survives */
			return err;
		}
	}
	*out = h;
	return 0;
}

PMUCTX_API void pmuctx_close(struct pmuctx *h)
{
	if (!h)
		return;
	pmuctx__ring_free(h->ring);	/* unmap before the fd goes */
	h->ring = NULL;
	if (h->fd >= 0)
		close(h->fd);
	free(h->tasks);
	free(h->path);
	free(h);
}

PMUCTX_API int pmuctx_fd(const struct pmuctx *h)
{
	return h ? h->fd : -EINVAL;
}

/* ---- sessions -------------------------------------------------------------- */

static const int default_events[] = {
	PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CONTEXT_SWITCHES,
	PMUCTX_EV_CPU_MIGRATIONS, PMUCTX_EV_PAGE_FAULTS,
};

/*
 * EOPNOTSUPP: find which events the module refuses by creating a throw-away
 * one-event session on the caller for each, on a second fd.
 */
static void find_culprits(struct pmuctx *h, struct pmuctx__err *e,
			  const struct pmuctx_session_attr *orig)
{
	unsigned int i, n = 0;

	for (i = 0; i < orig->nr_events && i < PMUCTX_MAX_EVENTS; i++) {
		struct pmuctx_session_attr a;
		int fd, r;

		fd = pmuctx__sys.open(h->path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return;		/* inconclusive: fall back */
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.target = PMUCTX_TARGET_PID;
		a.pid = 0;
		a.cgroup_fd = -1;
		a.nr_events = 1;
		a.events[0] = orig->events[i];
		r = pmuctx__sys.ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a);
		close(fd);
		if (r == -EOPNOTSUPP)
			e->culprits[n++] = (int)orig->events[i];
		else if (r < 0)
			return;		/* inconclusive */
	}
	e->nr_culprits = n;
	if (!n)
		snprintf(e->detail, sizeof(e->detail),
			 "each event works on its own; the module does not "
			 "support this combination (target %u, flags 0x%x, "
			 "backend %u, data_size %u)", orig->target,
			 orig->flags, orig->backend, orig->data_size);
}

/*
 * The ring fields: what the ABI says outright is checked here, with a
 * message naming the field; the module checks the rest.  A ring without a
 * mode gets the normal mode.
 */
static int check_ring_opts(struct pmuctx *h, struct pmuctx_session_attr *a)
{
	if (a->sample_flags && !a->sample_freq)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: sample_flags 0x%x without "
			"sample_freq: callchains come with samples; set "
			".sample_freq (e.g. 999)", a->sample_flags);
	if (a->sample_event && !a->sample_freq)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: sample_event %u without "
			"sample_freq: set .sample_freq (e.g. 999), the rate "
			"the event's period is adjusted to", a->sample_event);
	if (a->sample_event &&
	    a->sample_event != PMUCTX_EV_RAW &&
	    (pmuctx_event_name((int)a->sample_event) == NULL ||
	     a->sample_event == PMUCTX_EV_TASK_CLOCK ||
	     a->sample_event == PMUCTX_EV_CONTEXT_SWITCHES ||
	     a->sample_event == PMUCTX_EV_CPU_MIGRATIONS))
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: sample_event %u cannot "
			"sample: it is %s; use cpu-clock, page-faults or a "
			"hardware event (cycles, instructions, ...), or 0 "
			"for the hrtimer", a->sample_event,
			pmuctx_event_name((int)a->sample_event) ?
			"counted by the module at context switches, it never "
			"overflows" : "not an event id");
	if ((a->sample_flags & PMUCTX_SAMPLE_DEFER_USER) &&
	    !(a->sample_flags & PMUCTX_SAMPLE_USER_STACK))
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: PMUCTX_SAMPLE_DEFER_USER defers "
			"the user stack: add PMUCTX_SAMPLE_USER_STACK");
	if ((a->sample_flags & PMUCTX_SAMPLE_USER_DUMP) &&
	    !(a->sample_flags & PMUCTX_SAMPLE_DEFER_USER))
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: PMUCTX_SAMPLE_USER_DUMP copies "
			"the user stack in the deferred work: add "
			"PMUCTX_SAMPLE_USER_STACK and PMUCTX_SAMPLE_DEFER_USER");
	if (a->sample_user_dump &&
	    (!(a->sample_flags & PMUCTX_SAMPLE_USER_DUMP) ||
	     a->sample_user_dump % 8 ||
	     a->sample_user_dump > NATIVE_USER_DUMP_MAX))
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: sample_user_dump %u: it needs "
			"PMUCTX_SAMPLE_USER_DUMP and must be a multiple of 8 "
			"up to %u on this architecture (a USER_STACK record "
			"holds %d registers and is at most 65488 bytes)",
			a->sample_user_dump, (unsigned int)NATIVE_USER_DUMP_MAX,
			NATIVE_REGS_NR);
	if (a->sample_max_stack > PMUCTX_MAX_STACK)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: sample_max_stack %u is above "
			"PMUCTX_MAX_STACK (%d)", a->sample_max_stack,
			PMUCTX_MAX_STACK);
	if (!a->ring_pages) {
		if (a->sample_freq)
			return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
				"pmuctx_session_opts: sampling writes SAMPLE "
				"records into the ring buffers: set "
				".ring_pages (a power of two)");
		if (a->ring_mode || a->ring_records || a->wakeup_bytes ||
		    a->trigger_event || a->trigger_threshold)
			return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
				"pmuctx_session_opts: ring_mode, ring_records, "
				"wakeup_bytes and the trigger need a ring "
				"buffer: set .ring_pages (a power of two)");
		return 0;
	}
	if (a->ring_pages & (a->ring_pages - 1))
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: ring_pages is %u; it must be a "
			"power of two (e.g. %u)", a->ring_pages,
			1U << (31 - __builtin_clz(a->ring_pages)));
	if (!a->ring_mode)
		a->ring_mode = PMUCTX_RING_NORMAL;
	if (a->ring_mode != PMUCTX_RING_NORMAL &&
	    a->ring_mode != PMUCTX_RING_OVERWRITE)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: ring_mode %u is neither "
			"PMUCTX_RING_NORMAL (%d) nor PMUCTX_RING_OVERWRITE (%d)",
			a->ring_mode, PMUCTX_RING_NORMAL,
			PMUCTX_RING_OVERWRITE);
	if (a->trigger_event && a->ring_mode != PMUCTX_RING_OVERWRITE)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: a trigger (trigger_event %u) "
			"freezes an overwrite-mode buffer: set .ring_mode = "
			"PMUCTX_RING_OVERWRITE", a->trigger_event);
	if (a->trigger_event > a->nr_events)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: trigger_event %u is 1 + an index "
			"into the session's %u event(s): 1..%u", a->trigger_event,
			a->nr_events, a->nr_events);
	if (a->trigger_event && !a->trigger_threshold)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: trigger_threshold is 0; the "
			"trigger fires when a slice's delta is above it, so "
			"it must be at least 1");
	if (!a->trigger_event && a->trigger_threshold)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: trigger_threshold without "
			"trigger_event");
	if (a->wakeup_bytes && a->ring_mode != PMUCTX_RING_NORMAL)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: wakeup_bytes applies to the "
			"normal mode only (overwrite-mode buffers wake the "
			"reader when they are frozen)");
	return 0;
}

/* a spec for event @id given by number */
static void spec_of_id(struct pmuctx_event_spec *sp, int id)
{
	const char *n = pmuctx_event_name(id);

	memset(sp, 0, sizeof(*sp));
	sp->id = id;
	if (n)
		snprintf(sp->name, sizeof(sp->name), "%s", n);
	else
		snprintf(sp->name, sizeof(sp->name), "event-%d", id);
}

/* the session's events into @sp: their number, or -errno (recorded) */
static int session_events(struct pmuctx *h,
			  const struct pmuctx_session_opts *opts,
			  struct pmuctx_event_spec *sp)
{
	const char *events = OPTS_GET(opts, events, NULL);
	const int *event_ids = OPTS_GET(opts, event_ids, NULL);
	const struct pmuctx_event_spec *specs = OPTS_GET(opts, event_specs,
							 NULL);
	size_t nr_ids = OPTS_GET(opts, nr_event_ids, 0), i;
	size_t nr_specs = OPTS_GET(opts, nr_event_specs, 0);
	int n;

	if ((events && event_ids) || (specs && (events || event_ids)))
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: give one of .events (names), "
			".event_ids and .event_specs");
	if (specs || nr_specs) {
		if (!specs || nr_specs < 1 || nr_specs > PMUCTX_MAX_EVENTS)
			return pmuctx__err_set(h, PMUCTX_OP_OPTS,
				nr_specs > PMUCTX_MAX_EVENTS ? E2BIG : EINVAL,
				"pmuctx_session_opts: nr_event_specs is %zu; a "
				"session counts 1 to %d events", nr_specs,
				PMUCTX_MAX_EVENTS);
		for (i = 0; i < nr_specs; i++) {
			sp[i] = specs[i];
			sp[i].name[sizeof(sp[i].name) - 1] = '\0';
		}
		return (int)nr_specs;
	}
	if (events) {
		n = pmuctx_event_spec_list_parse(events, sp,
						 PMUCTX_MAX_EVENTS);
		if (n < 0)
			pmuctx__err_commit(h);
		return n;
	}
	if (event_ids) {
		if (nr_ids < 1 || nr_ids > PMUCTX_MAX_EVENTS)
			return pmuctx__err_set(h, PMUCTX_OP_OPTS,
				nr_ids ? E2BIG : EINVAL,
				"pmuctx_session_opts: nr_event_ids is %zu; a "
				"session counts 1 to %d events", nr_ids,
				PMUCTX_MAX_EVENTS);
		for (i = 0; i < nr_ids; i++)
			spec_of_id(&sp[i], event_ids[i]);
		return (int)nr_ids;
	}
	if (nr_ids)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: nr_event_ids is %zu but "
			"event_ids is NULL", nr_ids);
	for (i = 0; i < ARRAY_SIZE(default_events); i++)
		spec_of_id(&sp[i], default_events[i]);
	return (int)ARRAY_SIZE(default_events);
}

/* the sampling event given as a spec (.sample_event_name), into @attr */
static int session_sample_spec(struct pmuctx *h,
			       const struct pmuctx_session_opts *opts,
			       struct pmuctx_session_attr *attr,
			       struct pmuctx_event_spec *sample)
{
	const char *name = OPTS_GET(opts, sample_event_name, NULL);
	int id;

	sample->name[0] = '\0';
	if (!name)
		return 0;
	if (attr->sample_event)
		return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
			"pmuctx_session_opts: give either .sample_event or "
			".sample_event_name, not both");
	id = pmuctx_event_spec_parse(name, sample);
	if (id < 0) {
		pmuctx__err_commit(h);
		return id;
	}
	attr->sample_event = (__u32)id;
	attr->sample_desc = sample->desc;
	return 0;
}

/* does @attr use anything of PMUCTX_SESSION_ATTR_SIZE_VER4? */
static bool attr_uses_desc(const struct pmuctx_session_attr *attr)
{
	static const struct pmuctx_event_desc zero;
	unsigned int i;

	for (i = 0; i < PMUCTX_MAX_EVENTS; i++)
		if (memcmp(&attr->event_desc[i], &zero, sizeof(zero)))
			return true;
	return memcmp(&attr->sample_desc, &zero, sizeof(zero)) != 0;
}

/* the first event of @attr asking for kernel or hypervisor mode, or -1 */
static int attr_kernel_event(const struct pmuctx_session_attr *attr)
{
	unsigned int i;

	for (i = 0; i < attr->nr_events && i < PMUCTX_MAX_EVENTS; i++)
		if (attr->event_desc[i].flags &
		    (PMUCTX_EVF_KERNEL | PMUCTX_EVF_HV))
			return (int)i;
	if (attr->sample_desc.flags & (PMUCTX_EVF_KERNEL | PMUCTX_EVF_HV))
		return PMUCTX_MAX_EVENTS;
	return -1;
}

/*
 * The cgroup fd of the session in *cg_fd: -1 for other targets, the
 * caller's .cgroup_fd, or a directory opened here from .cgroup_path (also
 * in *own_fd, to close; else -1).  0, or -errno (recorded).
 */
static int session_cgroup(struct pmuctx *h,
			  const struct pmuctx_session_opts *opts, int target,
			  int *cg_fd, int *own_fd)
{
	const char *cg_path = OPTS_GET(opts, cgroup_path, NULL);
	int fd;

	*cg_fd = -1;
	*own_fd = -1;
	if (target != PMUCTX_TARGET_CGROUP) {
		if (cg_path || OPTS_GET(opts, cgroup_fd, 0) > 0)
			return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
				"pmuctx_session_opts: .cgroup_path/.cgroup_fd "
				"given but .target is not "
				"PMUCTX_TARGET_CGROUP");
		return 0;
	}
	if (!cg_path) {
		*cg_fd = OPTS_GET(opts, cgroup_fd, 0);
		if (*cg_fd <= 0)
			return pmuctx__err_set(h, PMUCTX_OP_OPTS, EINVAL,
				"pmuctx_session_opts: a cgroup target needs "
				".cgroup_path or .cgroup_fd (> 0)");
		return 0;
	}
	fd = open(cg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;
		struct pmuctx__err *e = pmuctx__err_begin(h, PMUCTX_OP_CGROUP,
							  err);

		snprintf(e->path, sizeof(e->path), "%s", cg_path);
		pmuctx__err_commit(h);
		return err;
	}
	*cg_fd = *own_fd = fd;
	return 0;
}

static void session_attr(struct pmuctx_session_attr *attr,
			 const struct pmuctx_session_opts *opts, int target,
			 int cg_fd, const struct pmuctx_event_spec *sp, int n)
{
	int i;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->flags = OPTS_GET(opts, flags, 0);
	attr->target = (__u32)target;
	attr->pid = OPTS_GET(opts, pid, 0);
	attr->cgroup_fd = cg_fd;
	attr->nr_events = (__u32)n;
	for (i = 0; i < n; i++) {
		attr->events[i] = (__u32)sp[i].id;
		attr->event_desc[i] = sp[i].desc;
	}
	attr->backend = (__u32)OPTS_GET(opts, backend, PMUCTX_BACKEND_NONE);
	attr->data_size = OPTS_GET(opts, data_size, 0);
	attr->max_exited = OPTS_GET(opts, max_exited, 0);
	attr->ring_pages = OPTS_GET(opts, ring_pages, 0);
	attr->ring_mode = OPTS_GET(opts, ring_mode, 0);
	attr->ring_records = OPTS_GET(opts, ring_records, 0);
	attr->wakeup_bytes = OPTS_GET(opts, wakeup_bytes, 0);
	attr->trigger_event = OPTS_GET(opts, trigger_event, 0);
	attr->trigger_threshold = OPTS_GET(opts, trigger_threshold, 0);
	attr->sample_freq = OPTS_GET(opts, sample_freq, 0);
	attr->sample_flags = OPTS_GET(opts, sample_flags, 0);
	attr->sample_max_stack = OPTS_GET(opts, sample_max_stack, 0);
	attr->sample_event = OPTS_GET(opts, sample_event, 0);
	attr->sample_user_dump = OPTS_GET(opts, sample_user_dump, 0);
}

/* record a refused SESSION_CREATE; returns @err */
static int session_fail(struct pmuctx *h, int err,
			const struct pmuctx_session_attr *attr,
			const char *cg_path, const int *ids,
			const struct pmuctx_event_spec *sp,
			const struct pmuctx_event_spec *sample)
{
	struct pmuctx__err *e = pmuctx__err_begin(h, PMUCTX_OP_SESSION, err);
	int k = attr_kernel_event(attr);

	e->target = attr->target;
	e->pid = attr->pid;
	e->sflags = attr->flags;
	e->nr_events = attr->nr_events;
	memcpy(e->events, ids, sizeof(int) * attr->nr_events);
	e->path[0] = '\0';
	if (attr->target == PMUCTX_TARGET_CGROUP && cg_path)
		snprintf(e->path, sizeof(e->path), "%s", cg_path);
	if (err == -EACCES && k >= 0) {
		snprintf(e->detail, sizeof(e->detail),
			 "event '%s' counts kernel mode, which "
			 "kernel.perf_event_paranoid allows only with "
			 "CAP_PERFMON (or paranoid <= 1): use ':u' to count "
			 "user mode only",
			 k < PMUCTX_MAX_EVENTS ? sp[k].name : sample->name);
	} else if (err == -E2BIG && attr_uses_desc(attr)) {
		snprintf(e->detail, sizeof(e->detail),
			 "the loaded pmuctx module is older than event "
			 "modifiers (:u/:k/:h) and raw events "
			 "(PMUCTX_FEAT_EVENT_DESC): update it, or name the "
			 "events without them");
	} else if (err == -E2BIG) {
		e->struct_name = "pmuctx_session_attr";
		e->lib_size = sizeof(*attr);
		e->kernel_size = attr->size;
	} else if (err == -EOPNOTSUPP && attr->sample_event &&
		   pmuctx_event_is_hw((int)attr->sample_event) == 1) {
		/* the sampling event is the one refused */
		e->culprits[0] = (int)attr->sample_event;
		e->nr_culprits = 1;
	} else if (err == -EOPNOTSUPP && (!attr->ring_pages ||
		   (h->probed && (h->info.features & PMUCTX_FEAT_RING)))) {
		find_culprits(h, e, attr);
	}
	if (attr->ring_pages)
		pmuctx__ring_facts(h, &e->ring, attr->ring_pages,
				   attr->ring_mode);
	pmuctx__err_commit(h);
	return err;
}

PMUCTX_API int pmuctx_session_create(struct pmuctx *h,
				     const struct pmuctx_session_opts *opts)
{
	struct pmuctx_event_spec specs[PMUCTX_MAX_EVENTS], sample;
	struct pmuctx_session_attr attr;
	int ids[PMUCTX_MAX_EVENTS];
	int i, n, target, cg_fd, own_fd, err;

	if (!h)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_session_create: handle is NULL");
	if (!OPTS_VALID(opts, pmuctx_session_opts)) {
		pmuctx__err_commit(h);
		return -EINVAL;
	}

	target = OPTS_GET(opts, target, 0);
	if (!target)
		target = PMUCTX_TARGET_PID;
	n = session_events(h, opts, specs);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		ids[i] = specs[i].id;
	session_attr(&attr, opts, target, -1, specs, n);
	err = session_sample_spec(h, opts, &attr, &sample);
	if (err)
		return err;
	err = session_cgroup(h, opts, target, &cg_fd, &own_fd);
	if (err)
		return err;
	attr.cgroup_fd = cg_fd;

	err = check_ring_opts(h, &attr);
	if (!err) {
		err = pmuctx__sys.ioctl(h->fd, PMUCTX_IOC_SESSION_CREATE,
					&attr);
		if (own_fd >= 0)
			close(own_fd);
		own_fd = -1;
		if (err < 0)
			return session_fail(h, err, &attr,
				OPTS_GET(opts, cgroup_path, NULL), ids,
				specs, &sample);
	}
	if (own_fd >= 0)
		close(own_fd);
	if (err < 0)
		return err;

	h->ring_pages = attr.ring_pages;
	h->ring_mode = attr.ring_mode;
	h->ring_records = attr.ring_records;
	h->has_session = true;
	h->target = (__u32)target;
	h->pid = attr.pid;
	h->nr_events = (unsigned int)n;
	memcpy(h->events, ids, sizeof(int) * (size_t)n);
	for (i = 0; i < n; i++)
		memcpy(h->ev_names[i], specs[i].name, sizeof(h->ev_names[i]));
	return 0;
}

PMUCTX_API const char *pmuctx_session_event_name(const struct pmuctx *h,
						 unsigned int i)
{
	if (!h || !h->has_session || i >= h->nr_events)
		return NULL;
	return h->ev_names[i];
}

static int simple_ioctl(struct pmuctx *h, unsigned long req,
			enum pmuctx__op op)
{
	int err;

	if (!h)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx: handle is NULL");
	err = pmuctx__sys.ioctl(h->fd, req, NULL);
	if (err < 0) {
		struct pmuctx__err *e = pmuctx__err_begin(h, op, err);

		if (err == -EINVAL && !h->has_session)
			snprintf(e->detail, sizeof(e->detail),
				 "this handle has no session: call "
				 "pmuctx_session_create() first");
		pmuctx__err_commit(h);
		return err;
	}
	return 0;
}

PMUCTX_API int pmuctx_enable(struct pmuctx *h)
{
	return simple_ioctl(h, PMUCTX_IOC_ENABLE, PMUCTX_OP_ENABLE);
}

PMUCTX_API int pmuctx_disable(struct pmuctx *h)
{
	return simple_ioctl(h, PMUCTX_IOC_DISABLE, PMUCTX_OP_DISABLE);
}

PMUCTX_API int pmuctx_reset(struct pmuctx *h)
{
	return simple_ioctl(h, PMUCTX_IOC_RESET, PMUCTX_OP_RESET);
}

/* ---- reading --------------------------------------------------------------- */

static int grow_tasks(struct pmuctx *h, size_t want)
{
	struct pmuctx_task_values *t;

	if (want > TASKS_MAX)
		want = TASKS_MAX;
	if (want <= h->tasks_cap)
		return h->tasks_cap ? 0 : -ENOMEM;
	t = realloc(h->tasks, want * sizeof(*t));
	if (!t)
		return -ENOMEM;
	h->tasks = t;
	h->tasks_cap = want;
	return 0;
}

/*
 * pmuctx_read() has two symbol versions: @@LIBPMUCTX_0.4 fills the whole
 * struct pmuctx_counts, @LIBPMUCTX_0.1 (programs built with libpmuctx
 * 0.1-0.3) only the part up to @tasks, which was the struct then.  A
 * static link takes the default, 0.4.
 */
#define PMUCTX_COUNTS_SIZE_0_1 offsetof(struct pmuctx_counts, time_slices)

__asm__(".symver pmuctx_read_0_4, pmuctx_read@@LIBPMUCTX_0.4");
__asm__(".symver pmuctx_read_0_1, pmuctx_read@LIBPMUCTX_0.1");

PMUCTX_API int pmuctx_read_0_1(struct pmuctx *h, struct pmuctx_counts *out,
			       const struct pmuctx_read_opts *opts)
{
	struct pmuctx_counts c;
	int err;

	if (!out)
		return pmuctx_read_0_4(h, NULL, opts);
	err = pmuctx_read_0_4(h, &c, opts);
	if (!err)
		memcpy(out, &c, PMUCTX_COUNTS_SIZE_0_1);
	return err;
}

PMUCTX_API int pmuctx_read_0_4(struct pmuctx *h, struct pmuctx_counts *out,
			       const struct pmuctx_read_opts *opts)
{
	struct pmuctx_read r;
	bool per_task;
	__u32 flags;
	unsigned int i;
	int err, tries;

	if (!h || !out)
		return pmuctx__err_set(h, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_read: handle or out is NULL");
	if (!OPTS_VALID(opts, pmuctx_read_opts)) {
		pmuctx__err_commit(h);
		return -EINVAL;
	}
	flags = OPTS_GET(opts, flags, 0);
	per_task = flags & PMUCTX_READ_PER_TASK;

	if (per_task && !h->tasks && grow_tasks(h, TASKS_INITIAL))
		return pmuctx__err_set(h, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_read: out of memory");

	for (tries = 0; ; tries++) {
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.flags = flags;
		r.task_size = sizeof(struct pmuctx_task_values);
		if (per_task) {
			r.nr_tasks = (__u32)h->tasks_cap;
			r.tasks_ptr = (__u64)(uintptr_t)h->tasks;
		}
		err = pmuctx__sys.ioctl(h->fd, PMUCTX_IOC_READ, &r);
		if (err == -ENOSPC && per_task && tries < READ_TRIES &&
		    h->tasks_cap < TASKS_MAX) {
			size_t need = r.nr_tasks;

			if (need <= h->tasks_cap)
				need = h->tasks_cap * 2;
			/* slack for tasks appearing meanwhile */
			if (grow_tasks(h, need + need / 4 + 16))
				return pmuctx__err_set(h, PMUCTX_OP_ALLOC,
					ENOMEM, "pmuctx_read: out of memory "
					"for %zu per-task entries", need);
			continue;
		}
		break;
	}
	if (err < 0) {
		struct pmuctx__err *e = pmuctx__err_begin(h, PMUCTX_OP_READ,
							  err);

		if (err == -EINVAL && !h->has_session)
			snprintf(e->detail, sizeof(e->detail),
				 "this handle has no session: call "
				 "pmuctx_session_create() first");
		else if (err == -ENOSPC)
			snprintf(e->detail, sizeof(e->detail),
				 "the number of tasks kept growing faster than "
				 "the per-task buffer (%zu entries after %d "
				 "tries); retry, or read without per-task "
				 "values", h->tasks_cap, tries + 1);
		else if (err == -E2BIG) {
			e->struct_name = "pmuctx_read";
			e->lib_size = sizeof(r);
			e->kernel_size = r.size;
		}
		pmuctx__err_commit(h);
		return err;
	}

	memset(out, 0, sizeof(*out));
	out->nr_events = r.nr_events < PMUCTX_MAX_EVENTS ? r.nr_events :
			 PMUCTX_MAX_EVENTS;
	for (i = 0; i < out->nr_events; i++) {
		out->events[i] = i < h->nr_events ? h->events[i] : 0;
		out->values[i] = r.values[i];
	}
	out->time_enabled = r.time_enabled;
	out->tasks_seen = r.tasks_seen;
	out->tasks_exited = r.tasks_exited;
	out->tasks_dropped = r.tasks_dropped;
	out->priv_exec_stopped = r.priv_exec_stopped;
	out->tasks_unlisted = r.tasks_unlisted;
	/* an older module leaves both 0: the fields say nothing then */
	out->time_slices = r.time_slices;
	for (i = 0; i < out->nr_events; i++)
		out->time_running[i] = r.time_running[i];
	if (per_task) {
		out->nr_tasks = r.nr_tasks < h->tasks_cap ?
				r.nr_tasks : (unsigned int)h->tasks_cap;
		out->tasks = out->nr_tasks ? h->tasks : NULL;
	}
	return 0;
}
