/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpmuctx: user-space library for the pmuctx kernel module (/dev/pmuctx).
 *
 * Conventions (libbpf style):
 *  - Handles are opaque.  One struct pmuctx is one open file descriptor of
 *    /dev/pmuctx and holds at most one session.  A handle must not be used
 *    by two threads at the same time; different handles are independent.
 *  - Every function that can fail returns 0 (or a non-negative value) on
 *    success and a negative errno value on failure.  errno is not part of
 *    the API (it may be clobbered by any call).
 *  - Optional arguments come in "opts" structs that begin with "size_t sz".
 *    Declare them with LIBPMUCTX_OPTS(), which zeroes the struct and sets
 *    sz.  A NULL opts pointer means "all defaults".  A caller built against
 *    an older header passes a smaller sz and keeps working; a caller built
 *    against a newer header passes a larger sz, which works as long as all
 *    fields this library does not know about are zero (otherwise -EINVAL).
 *  - Every failure records what the call was doing; pmuctx_errmsg() turns
 *    it into a one-line message for a person, pmuctx_errinfo() gives the
 *    facts to a program that explains it further.
 *
 * The kernel ABI types (struct pmuctx_info, struct pmuctx_task_values,
 * enum pmuctx_event_id, PMUCTX_SESSION_*, ...) come from <linux/pmuctx.h>.
 */
#ifndef __LIBPMUCTX_PMUCTX_H
#define __LIBPMUCTX_PMUCTX_H

#include <stddef.h>
#include <string.h>	/* memset() in LIBPMUCTX_OPTS() */
#include <sys/types.h>
#include <linux/types.h>
#include <linux/pmuctx.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PMUCTX_API
#define PMUCTX_API __attribute__((visibility("default")))
#endif

#define LIBPMUCTX_MAJOR_VERSION	0
#define LIBPMUCTX_MINOR_VERSION	7
#define LIBPMUCTX_PATCH_VERSION	0

/*
 * LIBPMUCTX_OPTS - declare and initialise an opts struct
 * @TYPE: struct name without "struct", e.g. pmuctx_session_opts
 * @NAME: variable name
 * @...:  designated initialisers, e.g. .pid = 42, .flags = X
 *
 * All fields not named are zero, including padding, and .sz is set.
 */
#define LIBPMUCTX_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE) {						\
			.sz = sizeof(struct TYPE),			\
			__VA_ARGS__					\
		};							\
	})

/**
 * pmuctx_version() - version of the library
 *
 * Return: a static string "MAJOR.MINOR.PATCH".
 */
PMUCTX_API const char *pmuctx_version(void);

/**
 * pmuctx_abi_version() - kernel ABI version the library was built for
 *
 * Return: PMUCTX_ABI_VERSION of the <linux/pmuctx.h> the library was
 * compiled against.  Compare with pmuctx_info.abi_version of the module.
 */
PMUCTX_API int pmuctx_abi_version(void);

/* --------------------------------------------------------------------- */
/* Handles                                                                */

struct pmuctx;

/* pmuctx_open_opts.flags */
#define PMUCTX_OPEN_NO_PROBE	(1U << 0)	/* skip the INFO query at open */
#define PMUCTX_OPEN_FLAGS_ALL	0x1U

/**
 * struct pmuctx_open_opts - options of pmuctx_open()
 * @sz:    sizeof(struct pmuctx_open_opts)
 * @path:  device path; NULL means PMUCTX_DEVICE_PATH ("/dev/pmuctx")
 * @flags: PMUCTX_OPEN_*.  By default pmuctx_open() queries PMUCTX_IOC_INFO
 *         once to check that @path is a pmuctx device and to learn the
 *         module's ABI version and features (used in error messages);
 *         PMUCTX_OPEN_NO_PROBE skips that.
 */
struct pmuctx_open_opts {
	size_t sz;
	const char *path;
	unsigned int flags;
	size_t :0;
};
#define pmuctx_open_opts__last_field flags

/**
 * pmuctx_open() - open the pmuctx device
 * @out:  where to store the new handle (set to NULL on failure)
 * @opts: options, or NULL for defaults
 *
 * Opens the device read-write with O_CLOEXEC.
 *
 * Return: 0 on success; negative errno on failure, notably -ENOENT /
 * -ENODEV / -ENXIO (module not loaded), -EACCES / -EPERM (no permission),
 * -ENOTTY (the path is not a pmuctx device), -EINVAL (bad opts).
 * pmuctx_errmsg(NULL, err, ...) explains the failure.
 */
PMUCTX_API int pmuctx_open(struct pmuctx **out,
			   const struct pmuctx_open_opts *opts);

/**
 * pmuctx_close() - close a handle and free everything it owns
 * @h: handle, may be NULL
 *
 * Closing the handle ends its session.  Per-task arrays returned by
 * pmuctx_read() become invalid.
 */
PMUCTX_API void pmuctx_close(struct pmuctx *h);

/**
 * pmuctx_fd() - file descriptor of a handle
 * @h: handle
 *
 * The fd stays owned by the handle; use it for poll() or raw ioctls.
 *
 * Return: the fd, or -EINVAL if @h is NULL.
 */
PMUCTX_API int pmuctx_fd(const struct pmuctx *h);

/**
 * pmuctx_info() - module identity and store statistics
 * @h:    handle
 * @info: caller's struct, filled at the size of struct pmuctx_info the
 *        library was compiled with (so the caller's struct must be at least
 *        that large: compile against the same or a newer <linux/pmuctx.h>)
 *
 * On success @info->size is the number of bytes the module filled in;
 * everything past it is zero.  An older module fills only
 * PMUCTX_INFO_SIZE_VER0 bytes: test "info->size >= PMUCTX_INFO_SIZE_VER1"
 * before trusting the fields of the second version.
 *
 * Return: 0 or a negative errno.
 */
PMUCTX_API int pmuctx_info(struct pmuctx *h, struct pmuctx_info *info);

/**
 * pmuctx_feature_name() - name of a PMUCTX_FEAT_* bit
 * @bit: bit number (0 for PMUCTX_FEAT_COUNTING, ...)
 *
 * Return: "counting", "inherit", "system-wide", "cgroup", "selftest",
 * "hw-pmu", or NULL for a bit this library does not know.
 */
PMUCTX_API const char *pmuctx_feature_name(unsigned int bit);

/* --------------------------------------------------------------------- */
/* Errors                                                                 */

/**
 * pmuctx_strerror() - short description of an error code
 * @err: negative (or positive) errno value as returned by this library
 *
 * The text is specific to pmuctx where that helps (for example -ENOENT
 * says the module is probably not loaded).  Thread-safe.
 *
 * Return: a string that stays valid until the next pmuctx_strerror() call
 * in the same thread.  Never NULL.
 */
PMUCTX_API const char *pmuctx_strerror(int err);

/**
 * pmuctx_errmsg() - one-line explanation of a failure
 * @h:   the handle the failing call used, or NULL (for pmuctx_open() and
 *       the event-name functions, or to use this thread's last failure)
 * @err: the negative errno the failing call returned
 * @buf: output buffer, may be NULL if @len is 0
 * @len: size of @buf
 *
 * Every failing library call records what it was doing (the device or
 * cgroup path, the session target, the events, struct sizes, ...) in @h
 * (if it had one) and in a thread-local "last error".  If that record
 * matches @err, the message says what failed, the errno's meaning and
 * those facts, e.g. "cannot open /dev/pmuctx: Permission denied (need
 * group pmuctx membership or CAP_PERFMON)"; otherwise it is a generic
 * message for @err.  The message is one line, without a newline.  The
 * library does not diagnose the system (capabilities, users and groups,
 * sysctls): a program that wants to explain the failure in depth reads
 * the record with pmuctx_errinfo() and gathers those facts itself, as the
 * pmuctx command does.
 *
 * Return: the length of the full message (excluding the NUL), like
 * snprintf(); the message is truncated (and NUL-terminated) if @len is too
 * small.  -EINVAL if @buf is NULL and @len is not 0.
 */
PMUCTX_API int pmuctx_errmsg(struct pmuctx *h, int err, char *buf, size_t len);

/* what a failed call was doing (struct pmuctx_errinfo's op) */
enum pmuctx_err_op {
	PMUCTX_ERR_OP_NONE = 0,		/* no record */
	PMUCTX_ERR_OP_ARG,		/* bad argument to a library call */
	PMUCTX_ERR_OP_OPTS,		/* an opts struct failed validation */
	PMUCTX_ERR_OP_OPEN,		/* open() of the device */
	PMUCTX_ERR_OP_PROBE,		/* the INFO request at open time */
	PMUCTX_ERR_OP_INFO,		/* pmuctx_info() */
	PMUCTX_ERR_OP_EVENT,		/* an event name */
	PMUCTX_ERR_OP_CGROUP,		/* opening the cgroup directory */
	PMUCTX_ERR_OP_SESSION,		/* the SESSION_CREATE request */
	PMUCTX_ERR_OP_ENABLE,
	PMUCTX_ERR_OP_DISABLE,
	PMUCTX_ERR_OP_RESET,
	PMUCTX_ERR_OP_READ,
	PMUCTX_ERR_OP_ALLOC,		/* out of memory in the library */
	PMUCTX_ERR_OP_RING_MAP,		/* mmap() of the ring buffers */
	PMUCTX_ERR_OP_RING_DATA,	/* corrupt data in a mapped ring */
	PMUCTX_ERR_OP_RECORD,		/* pmuctx_record_check() */
	PMUCTX_ERR_OP_SNAPSHOT,
	PMUCTX_ERR_OP_RESUME,
	PMUCTX_ERR_OP_CONSUME,
	PMUCTX_ERR_OP_WRITE,		/* write() of a USER record */
	PMUCTX_ERR_OP_POLL,
};

/**
 * struct pmuctx_errinfo - the record of a failure (pmuctx_errinfo())
 * @sz:             sizeof(struct pmuctx_errinfo), set by the caller
 * @err:            the positive errno the record is about
 * @op:             enum pmuctx_err_op: what the call was doing
 * @path:           device path (OPEN, PROBE, ...), cgroup path (CGROUP,
 *                  SESSION with a cgroup path) or ""
 * @detail:         the library's free-text detail, or ""
 * @target:         SESSION: PMUCTX_TARGET_*
 * @pid:            SESSION: the pid or tid (0: the calling process)
 * @session_flags:  SESSION: PMUCTX_SESSION_* flags
 * @nr_events:      SESSION: number of @events
 * @events:         SESSION: the event ids requested
 * @nr_culprits:    SESSION, EOPNOTSUPP: number of @culprits (0: unknown)
 * @culprits:       the events the module refused on their own
 * @hw_pmu:         the module's PMUCTX_FEAT_HW_PMU: 1, 0, or -1 unknown
 * @ring_feature:   the module's PMUCTX_FEAT_RING: 1, 0, or -1 unknown
 * @module_abi:     the module's ABI version, -1 unknown
 * @module_version: the module's version string, "" unknown
 * @struct_name:    E2BIG: the struct the module refused, or NULL
 * @lib_size:       E2BIG: the library's size of @struct_name
 * @kernel_size:    E2BIG: the size the module knows (0 unknown)
 * @ring_pages:     ring buffer pages per CPU requested (0: no ring)
 * @ring_mode:      PMUCTX_RING_NORMAL or PMUCTX_RING_OVERWRITE
 * @nr_cpus:        the module's CPU count (ring geometry), 0 unknown
 * @page_size:      the page size of the ring buffers
 *
 * The strings belong to the record: they stay valid until the next
 * failure recorded in the same handle or thread, or pmuctx_close().
 */
struct pmuctx_errinfo {
	size_t sz;
	int err;
	int op;
	const char *path;
	const char *detail;
	__u32 target;
	__s32 pid;
	__u32 session_flags;
	__u32 nr_events;
	__s32 events[PMUCTX_MAX_EVENTS];
	__u32 nr_culprits;
	__s32 culprits[PMUCTX_MAX_EVENTS];
	int hw_pmu;
	int ring_feature;
	int module_abi;
	const char *module_version;
	const char *struct_name;
	__u32 lib_size;
	__u32 kernel_size;
	__u32 ring_pages;
	__u32 ring_mode;
	__u32 nr_cpus;
	__u32 page_size;
	size_t :0;
};
#define pmuctx_errinfo__last_field page_size

/**
 * pmuctx_errinfo() - the recorded facts of a failure
 * @h:    as for pmuctx_errmsg()
 * @err:  the negative errno the failing call returned
 * @info: filled up to @info->sz bytes (set .sz = sizeof(*info)); bytes
 *        past what this library knows are zeroed
 *
 * For programs that explain failures beyond pmuctx_errmsg()'s one line:
 * the facts the library recorded, without interpretation.  Added in
 * libpmuctx 0.5 (LIBPMUCTX_0.5).
 *
 * Return: 0 if a record matches @err; -ENOENT if none does (@info then has
 * @err, op PMUCTX_ERR_OP_NONE and the "unknown" values); -EINVAL if @info
 * is NULL or @info->sz is smaller than sizeof(size_t).
 */
PMUCTX_API int pmuctx_errinfo(struct pmuctx *h, int err,
			      struct pmuctx_errinfo *info);

/* --------------------------------------------------------------------- */
/* Events                                                                 */

/**
 * pmuctx_event_parse() - event id from a name
 * @name: event name: task-clock (alias task_clock), context-switches (cs),
 *        cpu-migrations (migrations), page-faults (faults), cpu-clock,
 *        cycles (cpu-cycles), instructions, branches (branch-instructions),
 *        branch-misses, cache-references, cache-misses.  Matching ignores
 *        case, surrounding blanks and treats '_' like '-'.
 *
 * Return: an enum pmuctx_event_id value (> 0), or -EINVAL for an unknown
 * name (pmuctx_errmsg() then names it and suggests the closest known one).
 */
PMUCTX_API int pmuctx_event_parse(const char *name);

/**
 * pmuctx_event_name() - canonical name of an event id
 * @id: enum pmuctx_event_id
 *
 * Return: a static string such as "task-clock", or NULL for an unknown id.
 */
PMUCTX_API const char *pmuctx_event_name(int id);

/**
 * pmuctx_event_unit() - unit of an event's values
 * @id: enum pmuctx_event_id
 *
 * Return: "ns" for task-clock and cpu-clock, "" for plain counts, NULL for
 * an unknown id.
 */
PMUCTX_API const char *pmuctx_event_unit(int id);

/**
 * pmuctx_event_is_hw() - whether an event needs a hardware PMU
 * @id: enum pmuctx_event_id
 *
 * Return: 1 for the hardware events (cycles .. cache-misses), 0 for the
 * software ones, -EINVAL for an unknown id.
 */
PMUCTX_API int pmuctx_event_is_hw(int id);

/**
 * pmuctx_event_list_parse() - parse a comma-separated list of event names
 * @list: e.g. "task-clock,cs,page-faults"
 * @ids:  output array of event ids, in list order
 * @max:  capacity of @ids; at most PMUCTX_MAX_EVENTS are ever accepted
 *
 * Return: the number of events (>= 1); -EINVAL for an unknown name, an
 * empty element or an event listed twice (also under an alias); -E2BIG for
 * more events than min(@max, PMUCTX_MAX_EVENTS).  pmuctx_errmsg(NULL, ...)
 * explains which.
 */
PMUCTX_API int pmuctx_event_list_parse(const char *list, int *ids, size_t max);

#define PMUCTX_EVENT_NAME_LEN	64

/**
 * struct pmuctx_event_spec - one event as a perf user writes it
 * @id:   enum pmuctx_event_id; PMUCTX_EV_RAW for a raw event
 * @desc: its modes (PMUCTX_EVF_*: ":u", ":k", ":h"; 0 without a
 *        modifier: every mode the caller may count) and, for
 *        PMUCTX_EV_RAW, its perf type and config
 * @name: how it is printed: the canonical name with the modifiers as
 *        written ("cycles:u", "instructions:k"), a raw event as written,
 *        lower case ("r003c", "cpu/event=0x3c,umask=0x00/u")
 */
struct pmuctx_event_spec {
	int id;
	struct pmuctx_event_desc desc;
	char name[PMUCTX_EVENT_NAME_LEN];
};

/**
 * pmuctx_event_spec_parse() - one event with perf's modifiers and raw forms
 * @name: an event name (see pmuctx_event_parse()) optionally followed by
 *        ":" and modifiers u (user mode), k (kernel mode), h (hypervisor
 *        mode), e.g. "cycles:u", "instructions:uk"; or a raw event,
 *        "rNNNN" (NNNN: hex, PERF_TYPE_RAW config) with optional
 *        modifiers, or "PMU/TERMS/" with optional modifiers after the
 *        last '/' ("cpu/event=0x3c,umask=0x0/u"): TERMS are NAME=VALUE
 *        (decimal or 0x hex) or NAME alone (1) for each format of the PMU
 *        in /sys/bus/event_source/devices/PMU/format, config, config1,
 *        config2, or a named event of the PMU (PMU/events/NAME).  The
 *        PMU's type is read from /sys/bus/event_source/devices/PMU/type
 *        (under $PMUCTX_SYSFS_ROOT if set, for tests; ignored in set-id
 *        programs).
 * @sp:   filled on success
 *
 * Modifiers do not apply to the module-native task-clock,
 * context-switches and cpu-migrations (-EINVAL): the module counts them
 * from the scheduler, with no user/kernel split.
 *
 * Return: the event id (> 0), or -EINVAL with a message for
 * pmuctx_errmsg(NULL, ...).
 */
PMUCTX_API int pmuctx_event_spec_parse(const char *name,
				       struct pmuctx_event_spec *sp);

/**
 * pmuctx_event_spec_list_parse() - a comma-separated list of event specs
 * @list:  e.g. "cycles:u,cycles:k,r00c0,cpu/event=0x3c,umask=0/"
 *         (commas inside PMU/.../ belong to the terms)
 * @specs: output array, in list order
 * @max:   capacity of @specs
 *
 * Return: the number of events, or -EINVAL (a bad element, the same event
 * twice in the same modes: cycles:u and cycles:k may share a session) or
 * -E2BIG (more than min(@max, PMUCTX_MAX_EVENTS)).
 */
PMUCTX_API int pmuctx_event_spec_list_parse(const char *list,
					    struct pmuctx_event_spec *specs,
					    size_t max);

/**
 * pmuctx_session_event_name() - event @i of the handle's session as printed
 * @h: handle with a session
 * @i: index in session order
 *
 * Return: the spec's name ("cycles:u", "r003c"), the canonical name of an
 * event given by id, or NULL without such an event.  Valid while @h is.
 */
PMUCTX_API const char *pmuctx_session_event_name(const struct pmuctx *h,
						 unsigned int i);

/**
 * pmuctx_task_flag_name() - name of a PMUCTX_TASK_* bit
 * @bit: bit number (0 for PMUCTX_TASK_EXITED, ...)
 *
 * Return: "exited", "priv-exec", "inherited", or NULL for an unknown bit.
 */
PMUCTX_API const char *pmuctx_task_flag_name(unsigned int bit);

/* --------------------------------------------------------------------- */
/* Sessions                                                               */

/**
 * struct pmuctx_session_opts - what pmuctx_session_create() counts
 * @sz:           sizeof(struct pmuctx_session_opts)
 * @target:       enum pmuctx_target; 0 means PMUCTX_TARGET_PID
 * @pid:          PMUCTX_TARGET_PID: process (or, with PMUCTX_SESSION_THREAD,
 *                thread) id; 0 means the calling process
 * @cgroup_fd:    PMUCTX_TARGET_CGROUP: open fd of a cgroup v2 directory
 *                (used when @cgroup_path is NULL; must be > 0)
 * @cgroup_path:  PMUCTX_TARGET_CGROUP: path of a cgroup v2 directory, e.g.
 *                "/sys/fs/cgroup/system.slice"; the library opens it
 * @events:       comma-separated events (see pmuctx_event_spec_list_parse():
 *                names, with perf's :u/:k/:h modifiers, raw events;
 *                modifiers and raw events need PMUCTX_FEAT_EVENT_DESC)
 * @event_ids:    alternatively, an array of enum pmuctx_event_id values
 *                (passed to the module unchecked, so a newer module's
 *                events work)
 * @nr_event_ids: number of elements of @event_ids (1..PMUCTX_MAX_EVENTS)
 *
 *                With neither @events nor @event_ids the session counts
 *                task-clock, context-switches, cpu-migrations, page-faults.
 * @flags:        PMUCTX_SESSION_INHERIT, _THREAD, _KEEP_EXITED
 * @backend:      enum pmuctx_backend (PMUCTX_BACKEND_NONE by default)
 * @data_size:    save-area bytes per task for the backend (NONE: 0;
 *                SELFTEST: 8..PMUCTX_MAX_DATA_SIZE; only a module with
 *                PMUCTX_FEAT_SELFTEST, a debug build, has it: else
 *                -EOPNOTSUPP)
 * @max_exited:   with KEEP_EXITED, exited tasks kept for per-task reads
 *                (0: the module's default, 4096)
 *
 * Ring buffers (libpmuctx 0.2 and later; see "Ring buffers" below):
 * @ring_pages:   data pages per CPU buffer, a power of two; 0 (default): no
 *                ring buffer.  The module caps it (module parameter
 *                max_ring_pages, -ENOMEM) and charges the buffers to
 *                RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK (-EPERM).
 * @ring_mode:    PMUCTX_RING_NORMAL (the default with @ring_pages) or
 *                PMUCTX_RING_OVERWRITE (flight recorder)
 * @ring_records: PMUCTX_REC_MASK_* bits: records the scheduler hooks
 *                write.  0: none (USER records from pmuctx_ring_write()
 *                are always accepted).
 * @wakeup_bytes: normal mode: pmuctx_ring_poll() reports data once a CPU's
 *                buffer holds this many bytes (0: one record)
 * @trigger_event: overwrite mode: 1 + index into the session's events of
 *                the event whose delta over one slice (switch-in to
 *                switch-out of a task) freezes the buffers when it is above
 *                @trigger_threshold; 0: no trigger
 * @trigger_threshold: see @trigger_event (task-clock: ns)
 *
 * Sampling (libpmuctx 0.3; needs a ring buffer and PMUCTX_FEAT_SAMPLING;
 * the records are read with the ring reader, joined with
 * pmuctx_stitch_add() and named with pmuctx_syms_lookup()):
 * @sample_freq:  samples per second on each CPU while a task of the
 *                session runs (0: no sampling); at most the module
 *                parameter max_sample_freq
 * @sample_flags: PMUCTX_SAMPLE_KERNEL_STACK, _USER_STACK, _DEFER_USER,
 *                _USER_DUMP (libpmuctx > 0.5.0, PMUCTX_FEAT_USER_DUMP)
 * @sample_max_stack: frames per callchain part, 1..PMUCTX_MAX_STACK (0:
 *                64)
 * @sample_event: (libpmuctx 0.3.1) 0: sample with an hrtimer per CPU;
 *                else an enum pmuctx_event_id backed by perf (page-faults,
 *                cpu-clock or a hardware event, not the module-native
 *                task-clock, context-switches, cpu-migrations) whose
 *                per-CPU counter samples on overflow, aiming at
 *                @sample_freq; SAMPLE periods are then in that event's
 *                unit.  Hardware events fail with -EOPNOTSUPP without a
 *                hardware PMU; a module older than this field, with
 *                -EINVAL.
 * @sample_user_dump: (libpmuctx > 0.5.0) with PMUCTX_SAMPLE_USER_DUMP: bytes
 *                of user stack copied per kernel entry for a DWARF
 *                unwinder (USER_STACK records), a multiple of 8 up to
 *                PMUCTX_USER_DUMP_MAX whose record fits in half a CPU's
 *                buffer; 0: PMUCTX_USER_DUMP_DEFAULT (8192).  A module
 *                older than the field fails with -EINVAL.
 * @sample_event_name: (libpmuctx 0.7) instead of @sample_event, the
 *                sampling event as a spec (pmuctx_event_spec_parse():
 *                "cycles:u", "r00c0", "cpu/event=0xc0/"); give one or
 *                the other
 * @event_specs:  (libpmuctx 0.7) instead of @events and @event_ids, the
 *                events as parsed specs (pmuctx_event_spec_list_parse())
 * @nr_event_specs: number of elements of @event_specs
 */
struct pmuctx_session_opts {
	size_t sz;
	int target;
	pid_t pid;
	int cgroup_fd;
	const char *cgroup_path;
	const char *events;
	const int *event_ids;
	size_t nr_event_ids;
	__u32 flags;
	int backend;
	__u32 data_size;
	__u32 max_exited;
	/* libpmuctx 0.2 */
	__u32 ring_pages;
	__u32 ring_mode;
	__u32 ring_records;
	__u32 wakeup_bytes;
	__u32 trigger_event;
	__u64 trigger_threshold;
	/* libpmuctx 0.3 */
	__u32 sample_freq;
	__u32 sample_flags;
	__u32 sample_max_stack;
	/* libpmuctx 0.3.1 */
	__u32 sample_event;
	/* libpmuctx > 0.5.0 */
	__u32 sample_user_dump;
	/* libpmuctx 0.7 */
	const char *sample_event_name;
	const struct pmuctx_event_spec *event_specs;
	size_t nr_event_specs;
	size_t :0;
};
#define pmuctx_session_opts__last_field nr_event_specs

/**
 * pmuctx_session_create() - turn a handle into a counting session
 * @h:    handle without a session
 * @opts: what to count; NULL counts the default events of the caller
 *
 * The session starts disabled: call pmuctx_enable().  A handle holds one
 * session for its whole life; open another handle for another session.
 *
 * Return: 0, or a negative errno: -EINVAL (bad opts or attributes),
 * -EBUSY (the handle already has a session), -ESRCH (no such pid),
 * -EPERM / -EACCES (not allowed to monitor that target, or the ring
 * buffers exceed RLIMIT_MEMLOCK), -ENOMEM (ring_pages above the module's
 * max_ring_pages), -EOPNOTSUPP (a hardware event without a hardware PMU,
 * or a ring buffer the module does not support; pmuctx_errmsg() says
 * which), -E2BIG (library newer than the module), or an error opening
 * @cgroup_path.
 */
PMUCTX_API int pmuctx_session_create(struct pmuctx *h,
				     const struct pmuctx_session_opts *opts);

/**
 * pmuctx_enable() - start (or resume) counting
 * @h: handle with a session
 *
 * Return: 0 or a negative errno (-EINVAL without a session).
 */
PMUCTX_API int pmuctx_enable(struct pmuctx *h);

/**
 * pmuctx_disable() - stop counting; counts are kept
 * @h: handle with a session
 *
 * Return: 0 or a negative errno (-EINVAL without a session).
 */
PMUCTX_API int pmuctx_disable(struct pmuctx *h);

/**
 * pmuctx_reset() - zero every count of the session
 * @h: handle with a session
 *
 * Return: 0 or a negative errno (-EINVAL without a session).
 */
PMUCTX_API int pmuctx_reset(struct pmuctx *h);

/**
 * struct pmuctx_read_opts - options of pmuctx_read()
 * @sz:    sizeof(struct pmuctx_read_opts)
 * @flags: PMUCTX_READ_PER_TASK to get per-task values too
 */
struct pmuctx_read_opts {
	size_t sz;
	__u32 flags;
	size_t :0;
};
#define pmuctx_read_opts__last_field flags

/**
 * struct pmuctx_counts - result of pmuctx_read()
 * @nr_events:         number of valid elements in @events and @values
 * @events:            event ids in session order (as created through this
 *                     handle)
 * @values:            session totals: live tasks plus exited ones
 * @time_enabled:      ns the session has been enabled
 * @tasks_seen:        tasks ever monitored by the session
 * @tasks_exited:      monitored tasks that exited
 * @tasks_dropped:     tasks or slices not tracked (max_tasks cap or pool
 *                     empty): if non-zero the counts are incomplete
 * @priv_exec_stopped: tasks whose counting stopped at a privilege-raising
 *                     exec (setuid, setgid, file capabilities)
 * @tasks_unlisted:    exited tasks beyond max_exited (in the totals, not in
 *                     @tasks)
 * @nr_tasks:          number of elements of @tasks (0 without
 *                     PMUCTX_READ_PER_TASK)
 * @tasks:             per-task values, or NULL.  The array is OWNED BY THE
 *                     HANDLE: it stays valid until the next per-task
 *                     pmuctx_read() on the same handle or pmuctx_close();
 *                     copy what you need to keep.
 * @time_slices:       (libpmuctx 0.4) ns of the monitored tasks' slices
 *                     while the session was enabled; 0 from a module older
 *                     than PMUCTX_READ_SIZE_VER1 (then @time_running is 0
 *                     too and says nothing)
 * @time_running:      (libpmuctx 0.4) per event, the part of @time_slices
 *                     its kernel counter was counting.  Below
 *                     @time_slices, the count misses the rest (a counter
 *                     that lost its PMU slot, a CPU back from offline):
 *                     @values[i] * @time_slices / @time_running[i]
 *                     estimates the full count, as perf scales.  0 with
 *                     @time_slices > 0: the event was not counted at all.
 *
 * Programs built against libpmuctx 0.1-0.3 call pmuctx_read@LIBPMUCTX_0.1,
 * which fills the struct up to @tasks only.
 */
struct pmuctx_counts {
	unsigned int nr_events;
	int events[PMUCTX_MAX_EVENTS];
	__u64 values[PMUCTX_MAX_EVENTS];
	__u64 time_enabled;
	__u64 tasks_seen;
	__u64 tasks_exited;
	__u64 tasks_dropped;
	__u64 priv_exec_stopped;
	__u64 tasks_unlisted;
	unsigned int nr_tasks;
	const struct pmuctx_task_values *tasks;
	/* libpmuctx 0.4 */
	__u64 time_slices;
	__u64 time_running[PMUCTX_MAX_EVENTS];
};

/**
 * pmuctx_read() - read the session's counts
 * @h:    handle with a session
 * @out:  filled on success (entirely overwritten)
 * @opts: NULL, or flags PMUCTX_READ_PER_TASK
 *
 * With PMUCTX_READ_PER_TASK the library sizes the per-task buffer itself:
 * when the module answers -ENOSPC (with the number of tasks it needs) the
 * buffer is grown and the read retried, a few times if tasks keep
 * appearing.
 *
 * Return: 0 or a negative errno (-EINVAL without a session, -ENOMEM,
 * -ENOSPC if the task count kept growing faster than the buffer).
 */
PMUCTX_API int pmuctx_read(struct pmuctx *h, struct pmuctx_counts *out,
			   const struct pmuctx_read_opts *opts);

/* --------------------------------------------------------------------- */
/* Ring buffers (libpmuctx 0.2)                                           */
/*
 * A session created with .ring_pages > 0 has one buffer per CPU id.  The
 * kernel writes records into them (<linux/pmuctx.h> describes the layout
 * and the records); pmuctx_ring_map() maps them all read-only and the
 * functions below read them:
 *
 *   normal mode:    loop { pmuctx_ring_poll(); pmuctx_ring_begin();
 *                          while (pmuctx_ring_next(r, &rec) > 0) use(rec);
 *                          pmuctx_ring_consume(); }
 *   overwrite mode: pmuctx_ring_snapshot();   (freezes every CPU)
 *                   while (pmuctx_ring_next(r, &rec) > 0) use(rec);
 *                   pmuctx_ring_resume();
 *
 * Every record handed out has been checked against the ABI (size, type,
 * type-specific lengths) and copied out of the shared mapping, so nothing
 * the kernel (or a corrupt buffer) does later can make the caller read
 * outside the record.  A buffer that breaks the rules gives -EBADMSG and
 * pmuctx_errmsg() says where and how.
 */

struct pmuctx_ring;

/**
 * pmuctx_ring_map() - map the session's ring buffers
 * @h:   handle with a session created with .ring_pages > 0
 * @out: where to store the ring (set to NULL on failure)
 *
 * One read-only shared mmap() of nr_cpus * (1 + ring_pages) pages
 * (nr_cpus from PMUCTX_IOC_INFO).  Each CPU's control page is checked
 * (version, cpu, mode, data offset and size); an all-zero one (a CPU id
 * that is not possible) is a CPU without records.  A handle has at most
 * one ring; pmuctx_close() unmaps it if pmuctx_ring_unmap() was not
 * called.
 *
 * Return: 0, or -EINVAL (no session or no ring), -EBUSY (already mapped),
 * -EPERM (RLIMIT_MEMLOCK), -ENOMEM, -EPROTO (control pages that do not
 * follow the ABI), or another mmap() error.
 */
PMUCTX_API int pmuctx_ring_map(struct pmuctx *h, struct pmuctx_ring **out);

/**
 * pmuctx_ring_unmap() - unmap the ring buffers and free @r
 * @r: ring, may be NULL
 */
PMUCTX_API void pmuctx_ring_unmap(struct pmuctx_ring *r);

/**
 * pmuctx_ring_nr_cpus() - number of CPU buffers (CPU ids 0..n-1)
 * @r: ring
 *
 * Return: the count, or 0 if @r is NULL.
 */
PMUCTX_API unsigned int pmuctx_ring_nr_cpus(const struct pmuctx_ring *r);

/**
 * pmuctx_ring_data_size() - bytes of data area per CPU buffer
 * @r: ring
 *
 * Return: ring_pages * page size, or 0 if @r is NULL.
 */
PMUCTX_API size_t pmuctx_ring_data_size(const struct pmuctx_ring *r);

/**
 * struct pmuctx_ring_cpu_stats - one CPU buffer's control page, read
 * consistently (retried while the kernel changes it)
 * @data_head, @data_tail, @lost, @records, @overwritten, @flags, @mode:
 *	the fields of struct pmuctx_ring_ctl
 */
struct pmuctx_ring_cpu_stats {
	__u64 data_head;
	__u64 data_tail;
	__u64 lost;
	__u64 records;
	__u64 overwritten;
	__u32 flags;
	__u32 mode;
};

/**
 * pmuctx_ring_stats() - read one CPU buffer's counters
 * @r:   ring
 * @cpu: CPU id, below pmuctx_ring_nr_cpus()
 * @out: filled on success
 *
 * Return: 0, -EINVAL (bad arguments), -EAGAIN (the control page kept
 * changing).
 */
PMUCTX_API int pmuctx_ring_stats(struct pmuctx_ring *r, unsigned int cpu,
				 struct pmuctx_ring_cpu_stats *out);

/**
 * pmuctx_ring_flags() - PMUCTX_RING_F_* bits set on any CPU buffer
 * @r: ring
 *
 * PMUCTX_RING_F_FROZEN after pmuctx_ring_snapshot(), plus
 * PMUCTX_RING_F_TRIGGERED when the kernel trigger had frozen the buffers.
 * The module sets these in the control pages at SNAPSHOT (once the writers
 * in flight are done), not at the trigger itself: after pmuctx_ring_poll()
 * reports a freeze, call pmuctx_ring_snapshot() and then look at the flags.
 *
 * Return: the bits, or -EINVAL if @r is NULL.
 */
PMUCTX_API int pmuctx_ring_flags(struct pmuctx_ring *r);

/**
 * struct pmuctx_record - one record handed out by pmuctx_ring_next()
 * @hdr:    the whole record (@size bytes, 8-byte aligned): a private copy,
 *          valid until the next call on the ring.  Cast it to the
 *          struct pmuctx_rec_* of @type; the lengths in it were checked.
 * @type:   enum pmuctx_rec_type (unknown types are handed out too)
 * @size:   bytes of the record
 * @cpu:    the CPU buffer it came from
 * @time:   c.time, CLOCK_MONOTONIC ns
 * @pos:    its position in the buffer (free-running byte count)
 */
struct pmuctx_record {
	const struct pmuctx_rec_header *hdr;
	__u32 type;
	__u32 size;
	__u32 cpu;
	__u32 __pad;
	__u64 time;
	__u64 pos;
};

/**
 * pmuctx_ring_begin() - open a read window on every CPU buffer
 * @r: ring
 *
 * The window of each CPU is [data_tail, data_head) as of now (data_head
 * read with acquire semantics).  Normal mode: records stay in the buffer
 * until pmuctx_ring_consume(), so a new window starts where the last
 * consumed one ended.  Overwrite mode: only a frozen buffer is read,
 * between pmuctx_ring_snapshot() (which calls this) and
 * pmuctx_ring_resume(): a running writer overwrites records while they
 * are copied (a body can change after its header was checked), so since
 * libpmuctx 0.4 a CPU buffer whose control page does not say
 * PMUCTX_RING_F_FROZEN gets no window and -EBUSY.
 *
 * Return: 0, -EBADMSG if a control page holds an impossible window, or
 * -EBUSY for a live overwrite-mode buffer (the other CPUs are still
 * read; the first error is returned).
 */
PMUCTX_API int pmuctx_ring_begin(struct pmuctx_ring *r);

/**
 * pmuctx_ring_next() - next record of the window, in time order across
 * CPUs
 * @r:   ring
 * @rec: filled with the record
 *
 * A k-way merge on c.time of the CPU windows (equal times: lower CPU
 * first).  PAD records are skipped.
 *
 * Return: 1 with a record, 0 at the end of the window, -EBADMSG for a
 * record that breaks the ABI: that CPU's window is closed (the others go
 * on with the next call) and pmuctx_errmsg() says where.
 */
PMUCTX_API int pmuctx_ring_next(struct pmuctx_ring *r,
				struct pmuctx_record *rec);

/**
 * pmuctx_ring_next_cpu() - next record of one CPU's window, in buffer order
 * @r:   ring
 * @cpu: CPU id
 * @rec: filled with the record
 *
 * Return: as pmuctx_ring_next(); -EINVAL for a bad @cpu.
 */
PMUCTX_API int pmuctx_ring_next_cpu(struct pmuctx_ring *r, unsigned int cpu,
				    struct pmuctx_record *rec);

/**
 * pmuctx_ring_skip() - drop the rest of a window closed by an error
 * @r:   ring
 * @cpu: CPU id, or -1 for every CPU
 *
 * For a CPU whose window pmuctx_ring_next() or pmuctx_ring_begin() closed
 * with -EBADMSG: the window now ends where it began at data_head, so that
 * in normal mode the next pmuctx_ring_consume() frees the corrupt data
 * (and what follows it in that window).  Windows without an error are
 * left alone.
 *
 * Return: 0 or -EINVAL.
 */
PMUCTX_API int pmuctx_ring_skip(struct pmuctx_ring *r, int cpu);

/**
 * pmuctx_ring_consume() - normal mode: free what was read
 * @r: ring
 *
 * PMUCTX_IOC_RING_CONSUME with the position reached on every CPU whose
 * window advanced.  The window stays open: pmuctx_ring_next() goes on
 * where it was.
 *
 * Return: 0, -EINVAL (overwrite mode), or the ioctl's error.
 */
PMUCTX_API int pmuctx_ring_consume(struct pmuctx_ring *r);

/**
 * pmuctx_ring_snapshot() - freeze every CPU buffer and open a window
 * @r: ring
 *
 * PMUCTX_IOC_SNAPSHOT (the kernel freezes the buffers and waits for the
 * writers in flight), then pmuctx_ring_begin().  Records arriving while
 * frozen are counted in lost.  Also use it after a kernel trigger froze
 * the buffers, to wait for the writers.  Call pmuctx_ring_resume() when
 * done.
 *
 * Return: 0, or the ioctl's or pmuctx_ring_begin()'s error.
 */
PMUCTX_API int pmuctx_ring_snapshot(struct pmuctx_ring *r);

/**
 * pmuctx_ring_resume() - unfreeze the buffers (after a snapshot or a
 * trigger)
 * @r: ring
 *
 * Return: 0 or the ioctl's error.
 */
PMUCTX_API int pmuctx_ring_resume(struct pmuctx_ring *r);

/**
 * pmuctx_ring_poll() - wait for ring data or a freeze
 * @h:          handle with a ring session
 * @timeout_ms: as poll(2): -1 waits forever, 0 does not wait
 *
 * poll(2) of the session fd for POLLIN, which the module reports when a
 * CPU buffer holds wakeup_bytes (normal mode) or the buffers are frozen
 * (overwrite mode: snapshot or trigger).  For an event loop of your own,
 * poll pmuctx_fd(h) instead.
 *
 * Return: the revents bits (> 0: POLLIN, POLLERR, ...), 0 on timeout, or
 * a negative errno (-EINTR when a signal arrived).
 */
PMUCTX_API int pmuctx_ring_poll(struct pmuctx *h, int timeout_ms);

/**
 * pmuctx_ring_write() - write a USER record into the current CPU's buffer
 * @h:   handle with a ring session
 * @buf: payload
 * @len: 1..PMUCTX_USER_MAX bytes
 *
 * write(2) on the session fd; the record carries @buf, its length, the
 * time, CPU, pid and tid.
 *
 * Return: @len, or -EINVAL (bad length, no ring), -ENOSPC (normal mode,
 * buffer full: the record was dropped and counted in lost), or another
 * write(2) error.
 */
PMUCTX_API int pmuctx_ring_write(struct pmuctx *h, const void *buf,
				 size_t len);

/**
 * pmuctx_record_check() - check one record in a buffer against the ABI
 * @buf: start of the record
 * @len: bytes available at @buf
 *
 * The checks pmuctx_ring_next() makes: a size that is a multiple of 8, at
 * least the type's minimum and at most @len; type-specific lengths
 * (SWITCH and EXIT nr <= PMUCTX_MAX_EVENTS, USER len, EXEC filename NUL
 * terminated, SAMPLE and USER_CALLCHAIN frames inside the record).  Use it
 * on records read from a file.
 *
 * Return: the record's size, or -EBADMSG (pmuctx_errmsg(NULL, ...) says
 * why), -EINVAL if @buf is NULL.
 */
PMUCTX_API int pmuctx_record_check(const void *buf, size_t len);

/**
 * pmuctx_record_type_name() - name of a record type
 * @type: enum pmuctx_rec_type
 *
 * Return: "pad", "lost", "switch", "fork", "exec", "exit", "comm",
 * "sample", "user-callchain", "throttle", "user", or NULL.
 */
PMUCTX_API const char *pmuctx_record_type_name(unsigned int type);

/* --------------------------------------------------------------------- */
/* Sampling: stitching callchains (libpmuctx 0.3)                         */
/*
 * A session with sample_freq and PMUCTX_SAMPLE_DEFER_USER writes the
 * kernel part of a callchain in the SAMPLE record and the user part once,
 * when the task returns to user space, in a USER_CALLCHAIN record shared
 * by every sample taken since it entered the kernel (same pid, tid and
 * cookie).  That record may come on another CPU, later in the stream, or
 * in a later snapshot window.  A stitcher joins them:
 *
 *   pmuctx_stitch_new(&s, NULL);
 *   for each record (ring or file, in any order the reader gives):
 *           pmuctx_stitch_add(s, rec, size);
 *           while (pmuctx_stitch_next(s, &cc) > 0) use(&cc);
 *   pmuctx_stitch_flush(s);           (end: give up on what is waiting)
 *   while (pmuctx_stitch_next(s, &cc) > 0) use(&cc);
 *   pmuctx_stitch_stats(s, &st); pmuctx_stitch_free(s);
 *
 * Samples without a cookie (immediate user stacks, kernel threads, user
 * stacks off) come out at once.  A deferred sample waits for its user
 * record; one that never comes (the task exited or was killed first, the
 * record was lost or overwritten) comes out with the kernel part only,
 * flagged PMUCTX_CHAIN_UNRESOLVED, at pmuctx_stitch_flush(), at the EXIT
 * record of its thread, or early when more than max_pending samples wait
 * (PMUCTX_CHAIN_EVICTED).  User records are kept (up to max_user of
 * them, oldest forgotten first) for samples that come after them.
 */

struct pmuctx_stitch;

/**
 * struct pmuctx_stitch_opts - options of pmuctx_stitch_new()
 * @sz:          sizeof(struct pmuctx_stitch_opts)
 * @max_pending: deferred samples that may wait for their user record;
 *               beyond, the oldest is given up (PMUCTX_CHAIN_EVICTED).
 *               0: 65536
 * @max_user:    user callchains kept for samples that come after their
 *               user record, and to recognise a record seen twice
 *               (overlapping snapshot windows); 0: 16384
 * @flags:       0
 */
struct pmuctx_stitch_opts {
	size_t sz;
	size_t max_pending;
	size_t max_user;
	__u32 flags;
	size_t :0;
};
#define pmuctx_stitch_opts__last_field flags

/* struct pmuctx_callchain.flags */
#define PMUCTX_CHAIN_DEFERRED	(1U << 0)  /* the sample had a cookie */
#define PMUCTX_CHAIN_STITCHED	(1U << 1)  /* user part from USER_CALLCHAIN */
#define PMUCTX_CHAIN_UNRESOLVED	(1U << 2)  /* deferred, no user record */
#define PMUCTX_CHAIN_EVICTED	(1U << 3)  /* unresolved: max_pending */
#define PMUCTX_CHAIN_USER_TRUNC	(1U << 4)  /* user part cut or unreadable */

/**
 * struct pmuctx_callchain - one sample with its whole callchain
 * @sample:    the SAMPLE record (a copy; valid until the next call on the
 *             stitcher).  Its misc has PMUCTX_SAMPLE_M_*.
 * @time, @cpu, @pid, @tid: the sample's common part
 * @period:    ns of CPU time the sample stands for
 * @ip:        interrupted instruction pointer (0 if kernel addresses are
 *             hidden)
 * @cookie:    the deferred cookie, 0 for none
 * @flags:     PMUCTX_CHAIN_*
 * @nr_kernel: kernel frames at the start of @ips, innermost first
 * @nr_user:   user frames after them, innermost first (the sample's own,
 *             or the USER_CALLCHAIN record's)
 * @ips:       nr_kernel + nr_user addresses, like perf's callchains
 *             (kernel then user), valid as @sample
 * @user_cpu:  CPU the USER_CALLCHAIN record was written on (STITCHED)
 * @user_time: its time (STITCHED), else 0
 */
struct pmuctx_callchain {
	const struct pmuctx_rec_sample *sample;
	__u64 time;
	__u32 cpu;
	__s32 pid;
	__s32 tid;
	__u32 flags;
	__u64 period;
	__u64 ip;
	__u64 cookie;
	__u32 nr_kernel;
	__u32 nr_user;
	const __u64 *ips;
	__u32 user_cpu;
	__u32 __pad;
	__u64 user_time;
};

/**
 * struct pmuctx_stitch_stats - counters of a stitcher
 * @samples:         SAMPLE records added
 * @immediate:       samples without a cookie (yielded at once)
 * @deferred:        samples with a cookie
 * @stitched:        deferred samples joined with their user record
 * @unresolved:      deferred samples yielded without a user part
 * @evicted:         of @unresolved: given up early (max_pending)
 * @late:            of @stitched: samples that came after their user
 *                   record (another CPU, a later window)
 * @user_records:    USER_CALLCHAIN records added (distinct)
 * @user_shared:     user records used by more than one sample
 * @user_unused:     user records no sample used (so far)
 * @user_duplicates: user records added again (same pid, tid, cookie and
 *                   frames): ignored
 * @user_forgotten:  user records dropped from the cache (max_user)
 * @pending:         deferred samples waiting now
 * @pending_max:     the most that ever waited at once
 * @ignored:         other records added (not SAMPLE, USER_CALLCHAIN, EXIT)
 */
struct pmuctx_stitch_stats {
	__u64 samples;
	__u64 immediate;
	__u64 deferred;
	__u64 stitched;
	__u64 unresolved;
	__u64 evicted;
	__u64 late;
	__u64 user_records;
	__u64 user_shared;
	__u64 user_unused;
	__u64 user_duplicates;
	__u64 user_forgotten;
	__u64 pending;
	__u64 pending_max;
	__u64 ignored;
};

/**
 * pmuctx_stitch_new() - create a stitcher
 * @out:  where to store it (NULL on failure)
 * @opts: NULL for defaults
 *
 * Return: 0, -EINVAL (bad opts), -ENOMEM.
 */
PMUCTX_API int pmuctx_stitch_new(struct pmuctx_stitch **out,
				 const struct pmuctx_stitch_opts *opts);

/**
 * pmuctx_stitch_free() - free a stitcher and everything it holds
 * @s: stitcher, may be NULL
 */
PMUCTX_API void pmuctx_stitch_free(struct pmuctx_stitch *s);

/**
 * pmuctx_stitch_add() - feed one record
 * @s:    stitcher
 * @rec:  a ring record (struct pmuctx_record.hdr, or a record of a file)
 * @size: bytes at @rec
 *
 * SAMPLE, USER_CALLCHAIN and EXIT records are used, others are counted
 * in @ignored.  The record is checked (pmuctx_record_check()) and
 * copied: @rec need not stay valid.
 *
 * Return: the number of callchains ready for pmuctx_stitch_next()
 * (>= 0), -EBADMSG for a record that breaks the ABI (pmuctx_errmsg()
 * says why), -ENOMEM (the record was not taken), -EINVAL.
 */
PMUCTX_API int pmuctx_stitch_add(struct pmuctx_stitch *s, const void *rec,
				 size_t size);

/**
 * pmuctx_stitch_next() - take the next ready callchain
 * @s:   stitcher
 * @out: filled with it; its pointers stay valid until the next call on @s
 *
 * Callchains come out in the order they were completed, not in time
 * order: a deferred sample comes out when its user record arrives.
 *
 * Return: 1 with a callchain, 0 when none is ready, -EINVAL.
 */
PMUCTX_API int pmuctx_stitch_next(struct pmuctx_stitch *s,
				  struct pmuctx_callchain *out);

/**
 * pmuctx_stitch_flush() - end of the records: give up on waiting samples
 * @s: stitcher
 *
 * Every sample still waiting becomes ready, unresolved.  The stitcher
 * can be fed again afterwards.
 *
 * Return: the number of callchains ready (>= 0), -EINVAL.
 */
PMUCTX_API int pmuctx_stitch_flush(struct pmuctx_stitch *s);

/**
 * pmuctx_stitch_stats() - counters of a stitcher
 * @s:   stitcher
 * @out: filled
 *
 * Return: 0, -EINVAL.
 */
PMUCTX_API int pmuctx_stitch_stats(const struct pmuctx_stitch *s,
				   struct pmuctx_stitch_stats *out);

/* --------------------------------------------------------------------- */
/* Sampling: symbols (libpmuctx 0.3)                                      */
/*
 * Kernel addresses are looked up in /proc/kallsyms (module symbols too;
 * it shows zeros without CAP_SYSLOG or with kernel.kptr_restrict=2: then
 * kernel addresses stay unknown).  User addresses are looked up in the
 * memory map of the process as it was when recorded (the text of
 * /proc/PID/maps, given with pmuctx_syms_add_maps()) and the ELF files it
 * names, read with elfutils' libdwfl: executables (PIE or not), shared
 * libraries, separate debug files.  A stripped file gives no name: the
 * result then has the file and the address in it, as perf prints
 * "[unknown] (libfoo.so+0x1234)".
 */

struct pmuctx_syms;

/* pmuctx_syms_opts.flags */
#define PMUCTX_SYMS_NO_KERNEL	(1U << 0)  /* do not read kallsyms */
#define PMUCTX_SYMS_LINES	(1U << 1)  /* source file and line (DWARF) */
#define PMUCTX_SYMS_FLAGS_ALL	0x3U

/**
 * struct pmuctx_syms_opts - options of pmuctx_syms_new()
 * @sz:       sizeof(struct pmuctx_syms_opts)
 * @kallsyms: file in the format of /proc/kallsyms; NULL: /proc/kallsyms
 *            (read at the first kernel lookup)
 * @flags:    PMUCTX_SYMS_*
 */
struct pmuctx_syms_opts {
	size_t sz;
	const char *kallsyms;
	__u32 flags;
	size_t :0;
};
#define pmuctx_syms_opts__last_field flags

/* pmuctx_syms_lookup() flags, and struct pmuctx_sym.flags */
#define PMUCTX_SYM_KERNEL	(1U << 0)  /* in: a kernel address */
#define PMUCTX_SYM_RETADDR	(1U << 1)  /* in: a return address (look up
					      addr - 1: the call) */
#define PMUCTX_SYM_UNKNOWN	(1U << 8)  /* out: no symbol (name NULL) */
#define PMUCTX_SYM_NO_MAP	(1U << 9)  /* out: no mapping/module holds it */
#define PMUCTX_SYM_HIDDEN	(1U << 10) /* out: kernel addresses hidden */

/**
 * struct pmuctx_sym - what pmuctx_syms_lookup() found
 * @name:     function (symbol) name, NULL if unknown
 * @module:   "[kernel.kallsyms]", "[MODULE]" for a kernel module, the
 *            path of the file for user addresses ("[vdso]", "[anon]",
 *            "[unknown]" when nothing is mapped there)
 * @file:     source file (PMUCTX_SYMS_LINES and debug information), or
 *            NULL
 * @line:     its line, 0 if unknown
 * @flags:    PMUCTX_SYM_*
 * @addr:     the address looked up (as given)
 * @start:    the symbol's address (same address space), 0 if unknown
 * @offset:   @addr - @start; without a symbol @addr relative to the
 *            module: the ELF address for files (what addr2line takes),
 *            the offset from the module's start otherwise
 * @mod_start, @mod_end: where the module lies in the address space
 *            (0, 0 if unknown)
 * @mod_pgoff: file offset mapped at @mod_start
 *
 * The strings stay valid until pmuctx_syms_free().
 */
struct pmuctx_sym {
	const char *name;
	const char *module;
	const char *file;
	int line;
	__u32 flags;
	__u64 addr;
	__u64 start;
	__u64 offset;
	__u64 mod_start;
	__u64 mod_end;
	__u64 mod_pgoff;
};

/**
 * pmuctx_syms_new() - create a symbol resolver
 * @out:  where to store it (NULL on failure)
 * @opts: NULL for defaults
 *
 * Return: 0, -EINVAL (bad opts), -ENOMEM.
 */
PMUCTX_API int pmuctx_syms_new(struct pmuctx_syms **out,
			       const struct pmuctx_syms_opts *opts);

/**
 * pmuctx_syms_free() - free a resolver, its files and strings
 * @y: resolver, may be NULL
 */
PMUCTX_API void pmuctx_syms_free(struct pmuctx_syms *y);

/**
 * pmuctx_syms_add_maps() - the memory map of a process at some time
 * @y:    resolver
 * @pid:  process (thread group) id, as in the records
 * @time: CLOCK_MONOTONIC ns when the map was read
 * @maps: text in the format of /proc/PID/maps
 * @len:  its length
 *
 * A process can have several maps (one per exec, or re-read after a
 * dlopen()): an address of a sample at time T is looked up in the latest
 * map read at or before T that maps it, else in the others (newest
 * first).  Files are opened at the first lookup.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
PMUCTX_API int pmuctx_syms_add_maps(struct pmuctx_syms *y, pid_t pid,
				    __u64 time, const char *maps, size_t len);

/**
 * pmuctx_syms_lookup() - the symbol of an address
 * @y:     resolver
 * @pid:   process of a user address (ignored with PMUCTX_SYM_KERNEL)
 * @time:  when the address was seen (chooses the map)
 * @addr:  the address
 * @flags: PMUCTX_SYM_KERNEL, PMUCTX_SYM_RETADDR
 * @out:   filled in any case (an unknown address too)
 *
 * Return: 0 when a symbol was found, 1 when not (@out still says what is
 * known: module, offset), -EINVAL.
 */
PMUCTX_API int pmuctx_syms_lookup(struct pmuctx_syms *y, pid_t pid,
				  __u64 time, __u64 addr, __u32 flags,
				  struct pmuctx_sym *out);

/**
 * pmuctx_syms_no_file() - do not read a file the maps name
 * @y:    resolver
 * @path: the path, as the maps name it
 *
 * The file now at @path is not the one that was mapped when the maps were
 * read (its build-id changed: rebuilt, upgraded): its functions are not
 * the process's.  Addresses in its mappings are then looked up as in a
 * file that is gone: no name, the module and the file offset
 * (PMUCTX_SYM_UNKNOWN).  Call it before the first lookup.  libpmuctx 0.6
 * (LIBPMUCTX_0.6).
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
PMUCTX_API int pmuctx_syms_no_file(struct pmuctx_syms *y, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* __LIBPMUCTX_PMUCTX_H */
