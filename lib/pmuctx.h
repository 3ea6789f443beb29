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
 *  - Every failure records a detailed, human-readable explanation that
 *    pmuctx_errmsg() turns into a message for a person (what went wrong and
 *    how to fix it).
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
#define LIBPMUCTX_MINOR_VERSION	1
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
 * pmuctx_errmsg() - detailed, actionable explanation of a failure
 * @h:   the handle the failing call used, or NULL (for pmuctx_open() and
 *       the event-name functions, or to use this thread's last failure)
 * @err: the negative errno the failing call returned
 * @buf: output buffer, may be NULL if @len is 0
 * @len: size of @buf
 *
 * Every failing library call records what it was doing (device path,
 * session target, events, sizes, privileges of the process, the device
 * node's mode, kernel.perf_event_paranoid, ...) in @h (if it had one) and
 * in a thread-local "last error".  If that record matches @err it is used,
 * otherwise a generic message for @err is produced.  The message can span
 * several lines: the first line says what failed, the following lines
 * (indented by two spaces) say why and how to fix it.  It has no trailing
 * newline.
 *
 * Return: the length of the full message (excluding the NUL), like
 * snprintf(); the message is truncated (and NUL-terminated) if @len is too
 * small.  -EINVAL if @buf is NULL and @len is not 0.
 */
PMUCTX_API int pmuctx_errmsg(struct pmuctx *h, int err, char *buf, size_t len);

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
 * @events:       comma-separated event names (see pmuctx_event_list_parse())
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
 *                SELFTEST: 8..PMUCTX_MAX_DATA_SIZE)
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
	size_t :0;
};
#define pmuctx_session_opts__last_field trigger_threshold

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
 * consumed one ended.  Overwrite mode: read only between
 * pmuctx_ring_snapshot() (which calls this) and pmuctx_ring_resume(): a
 * running writer overwrites records under the reader (that gives -EBADMSG
 * or stale records, never an out-of-bounds read).
 *
 * Return: 0, -EBADMSG if a control page holds an impossible window (the
 * other CPUs are still read).
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

#ifdef __cplusplus
}
#endif

#endif /* __LIBPMUCTX_PMUCTX_H */
