/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmuctx: per-task PMU context store, counting and tracing.
 *
 * This is the complete user/kernel ABI of /dev/pmuctx.  Nothing else is
 * shared between the module and user space.
 *
 * Versioning rules (see docs/ABI.md):
 *  - Every struct passed through an ioctl begins with "__u32 size": the
 *    number of bytes the caller knows about.  A caller built against an
 *    older header passes a smaller size and keeps working; the kernel
 *    treats the missing tail as zero.  A caller built against a newer
 *    header passes a larger size; that works as long as every byte the
 *    kernel does not know about is zero, otherwise the ioctl fails with
 *    E2BIG and the kernel writes its own size into "size".  This is the
 *    perf_event_attr / copy_struct_from_user() convention.
 *  - A size above the page size (4096 bytes on x86-64) is E2BIG whatever
 *    the bytes past the kernel's struct hold, again with the kernel's size
 *    written into "size".  This holds for every struct read in (INFO,
 *    SESSION_CREATE, READ, RING_CONSUME).
 *  - Sizes below the first published version (..._SIZE_VER0) get EINVAL.
 *  - Unknown bits in any "flags" field get EINVAL.  Reserved fields must
 *    be zero.
 *  - ioctl numbers and enum values are never reused or renumbered.  The
 *    size encoded in an ioctl number is informational: the module
 *    dispatches on type, number and direction, and takes the struct size
 *    from the "size" field.
 */
#ifndef _UAPI_LINUX_PMUCTX_H
#define _UAPI_LINUX_PMUCTX_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PMUCTX_ABI_VERSION	1
#define PMUCTX_DEVICE_NAME	"pmuctx"
#define PMUCTX_DEVICE_PATH	"/dev/pmuctx"
#define PMUCTX_IOC_MAGIC	0xB9

/* Feature bits reported in pmuctx_info.features. */
#define PMUCTX_FEAT_COUNTING	(1ULL << 0)	/* per-task counting sessions */
#define PMUCTX_FEAT_INHERIT	(1ULL << 1)	/* fork/clone/exec inheritance */
#define PMUCTX_FEAT_SYSTEM_WIDE	(1ULL << 2)	/* all-task sessions */
#define PMUCTX_FEAT_CGROUP	(1ULL << 3)	/* cgroup v2 target */
#define PMUCTX_FEAT_SELFTEST	(1ULL << 4)	/* selftest backend (debug build) */
#define PMUCTX_FEAT_HW_PMU	(1ULL << 5)	/* a hardware cpu PMU was found */
#define PMUCTX_FEAT_RING	(1ULL << 6)	/* per-CPU ring buffers, mmap */
#define PMUCTX_FEAT_SAMPLING	(1ULL << 7)	/* hrtimer sampling, callchains */
#define PMUCTX_FEAT_MMAP	(1ULL << 8)	/* MMAP records (REC_MASK_MMAP) */
#define PMUCTX_FEAT_USER_DUMP	(1ULL << 9)	/* SAMPLE_USER_DUMP (x86-64, arm64) */
/*
 * Sessions whose events all have a per-task kernel source, and that ask
 * for nothing else per switch, count without the sched_switch probe;
 * PMUCTX_SESSION_PER_SWITCH and PMUCTX_PROBES_SWITCH are understood.
 */
#define PMUCTX_FEAT_SWITCHLESS	(1ULL << 10)
/*
 * pmuctx_session_attr.event_desc[] and sample_desc are understood
 * (PMUCTX_SESSION_ATTR_SIZE_VER4): per-event user/kernel modes
 * (PMUCTX_EVF_*) and raw PMU events (PMUCTX_EV_RAW).
 */
#define PMUCTX_FEAT_EVENT_DESC	(1ULL << 11)
/*
 * THROTTLE records with PMUCTX_THROTTLE_PERF: perf's throttling of a
 * session's sampling counter is written down (a module without this bit
 * cannot say it, and the periods of its samples may fall short of the
 * count unexplained).
 */
#define PMUCTX_FEAT_PERF_THROTTLE (1ULL << 12)

#define PMUCTX_VERSION_LEN	32

/**
 * struct pmuctx_info - module identity and store statistics
 * @size:		in: bytes the caller knows; out: bytes filled
 * @flags:		in: must be 0
 * @abi_version:	PMUCTX_ABI_VERSION of the module
 * @nr_cpus:		CPU ids are 0..nr_cpus-1 (nr_cpu_ids); the ring mmap
 *			has one slot per id
 * @features:		PMUCTX_FEAT_* bits
 * @version:		module version string, NUL terminated
 * @tasks_tracked:	store entries alive now (one per task and session)
 * @store_bytes:	bytes of kernel memory held by those entries
 *
 * Fields below were added after the first size (PMUCTX_INFO_SIZE_VER1).
 * @sessions:		sessions open now
 * @probes_registered:	PMUCTX_PROBES_* bits: LIFECYCLE while any session
 *			exists (fork, exec, exit, free), SWITCH while a
 *			session needs per-switch work (sched_switch); each
 *			for a second more after its last session
 * @entry_bytes:	bytes of one entry without its PMU save area
 * @max_tasks:		cap on entries (module parameter max_tasks)
 * @entries_created:	entries ever created
 * @entries_freed:	entries ever freed
 * @alloc_failures:	atomic allocations that failed (pool used instead)
 * @pool_entries:	pre-allocated entries waiting in the pools now
 * @dropped:		tasks or slices that could not be tracked (cap, pool
 *			empty); also counted per session
 * @selftest_checks:	save areas verified at switch-in (selftest backend)
 * @selftest_mismatches: save areas that did not hold the task's signature
 * @selftest_migrations: selftest verifications on a CPU other than the
 *			one the save area was written on
 */
struct pmuctx_info {
	__u32	size;
	__u32	flags;
	__u32	abi_version;
	__u32	nr_cpus;
	__u64	features;
	char	version[PMUCTX_VERSION_LEN];
	__u64	tasks_tracked;
	__u64	store_bytes;
	/* PMUCTX_INFO_SIZE_VER1 from here on */
	__u32	sessions;
	__u32	probes_registered;
	__u32	entry_bytes;
	__u32	max_tasks;
	__u64	entries_created;
	__u64	entries_freed;
	__u64	alloc_failures;
	__u64	pool_entries;
	__u64	dropped;
	__u64	selftest_checks;
	__u64	selftest_mismatches;
	__u64	selftest_migrations;
};

/* pmuctx_info.probes_registered */
#define PMUCTX_PROBES_LIFECYCLE	(1U << 0)	/* fork, exec, exit, free */
#define PMUCTX_PROBES_SWITCH	(1U << 1)	/* sched_switch */

#define PMUCTX_INFO_SIZE_VER0	72	/* up to and including store_bytes */
#define PMUCTX_INFO_SIZE_VER1	152

/* Session targets. */
enum pmuctx_target {
	PMUCTX_TARGET_PID	= 1,	/* one process (all its threads) */
	PMUCTX_TARGET_CGROUP	= 2,	/* tasks of a cgroup v2 directory */
	PMUCTX_TARGET_SYSTEM	= 3,	/* every task on every CPU */
};

/* Events a session counts; values are stable ABI. */
enum pmuctx_event_id {
	PMUCTX_EV_TASK_CLOCK		= 1,	/* ns on CPU, module-native */
	PMUCTX_EV_CONTEXT_SWITCHES	= 2,	/* module-native */
	PMUCTX_EV_CPU_MIGRATIONS	= 3,	/* module-native */
	PMUCTX_EV_PAGE_FAULTS		= 4,	/* perf software, per-CPU */
	PMUCTX_EV_CPU_CLOCK		= 5,	/* perf software, per-CPU, ns */
	PMUCTX_EV_CYCLES		= 6,	/* perf hardware, per-CPU */
	PMUCTX_EV_INSTRUCTIONS		= 7,
	PMUCTX_EV_BRANCHES		= 8,
	PMUCTX_EV_BRANCH_MISSES		= 9,
	PMUCTX_EV_CACHE_REFERENCES	= 10,
	PMUCTX_EV_CACHE_MISSES		= 11,
	/*
	 * A raw PMU event: its perf type and config are in the slot's
	 * struct pmuctx_event_desc (PMUCTX_FEAT_EVENT_DESC).
	 */
	PMUCTX_EV_RAW			= 12,
	PMUCTX_EV_MAX			= 12,	/* highest valid id */
};

/*
 * struct pmuctx_event_desc.flags: the modes an event counts in, perf's
 * ":u", ":k" and ":h" modifiers.  0: the session default, every mode the
 * caller may count (kernel and hypervisor modes are left out, silently,
 * for a caller without CAP_PERFMON when perf_event_paranoid > 1, as perf
 * tools fall back to ":u").  Any bit set: only the modes set, and asking
 * for kernel or hypervisor mode where the caller may not count it is
 * EACCES, never a silent fallback.  Module-native events (task-clock,
 * context-switches, cpu-migrations) have no modes: flags must be 0.
 */
#define PMUCTX_EVF_USER		(1U << 0)	/* ":u" user mode */
#define PMUCTX_EVF_KERNEL	(1U << 1)	/* ":k" kernel mode */
#define PMUCTX_EVF_HV		(1U << 2)	/* ":h" hypervisor mode */
#define PMUCTX_EVF_FLAGS_ALL	0x7U

/**
 * struct pmuctx_event_desc - what one event slot counts, beyond its id
 * @flags:	PMUCTX_EVF_*
 * @type:	PMUCTX_EV_RAW: the perf_event_attr.type, PERF_TYPE_RAW (4) or
 *		the type of a CPU PMU (/sys/bus/event_source/devices/PMU/type,
 *		>= PERF_TYPE_MAX); 0 for every other id
 * @config:	PMUCTX_EV_RAW: perf_event_attr.config; else 0
 * @config1:	PMUCTX_EV_RAW: perf_event_attr.config1; else 0
 * @config2:	PMUCTX_EV_RAW: perf_event_attr.config2; else 0
 */
struct pmuctx_event_desc {
	__u32	flags;
	__u32	type;
	__u64	config;
	__u64	config1;
	__u64	config2;
};

#define PMUCTX_MAX_EVENTS	8

/* PMU-specific save-area backends. */
enum pmuctx_backend {
	PMUCTX_BACKEND_NONE	= 0,
	/*
	 * Writes a per-task signature into the save area at switch-out and
	 * verifies it at switch-in, wherever the task lands: proves the data
	 * follows the task across CPUs.
	 */
	PMUCTX_BACKEND_SELFTEST	= 1,
};

#define PMUCTX_MAX_DATA_SIZE	4096	/* bytes of save area per task */

/* pmuctx_session_attr.flags */
#define PMUCTX_SESSION_INHERIT	(1U << 0)  /* follow fork/clone, fold at exit */
#define PMUCTX_SESSION_THREAD	(1U << 1)  /* PID target: that thread only */
#define PMUCTX_SESSION_KEEP_EXITED (1U << 2) /* keep exited tasks for READ */
/*
 * Count at every context switch even when the events have per-task
 * kernel sources (PMUCTX_FEAT_SWITCHLESS): the per-switch path, for
 * comparing the two; it costs a probe at every switch of the system.
 */
#define PMUCTX_SESSION_PER_SWITCH (1U << 3)
#define PMUCTX_SESSION_FLAGS_ALL	0xfU

/**
 * struct pmuctx_session_attr - what PMUCTX_IOC_SESSION_CREATE sets up
 * @size:	sizeof the struct as the caller knows it
 * @flags:	PMUCTX_SESSION_*
 * @target:	enum pmuctx_target
 * @pid:	PMUCTX_TARGET_PID: process (or thread) id in the caller's
 *		pid namespace; 0 means the caller.  Otherwise must be 0.
 *		A process is refused (EACCES) if the caller may not watch
 *		any one of its threads, credentials being per thread (with
 *		PMUCTX_SESSION_THREAD only the thread named counts).
 * @cgroup_fd:	PMUCTX_TARGET_CGROUP: open fd (>= 0) of a cgroup v2
 *		directory.  For other targets it must be -1, or 0 (what a
 *		zeroed struct holds).
 * @nr_events:	1..PMUCTX_MAX_EVENTS
 * @events:	enum pmuctx_event_id values, no duplicates; unused slots 0
 * @backend:	enum pmuctx_backend
 * @data_size:	bytes of PMU save area per task (backend NONE: 0;
 *		SELFTEST: 8..PMUCTX_MAX_DATA_SIZE; a module without
 *		PMUCTX_FEAT_SELFTEST refuses SELFTEST with EOPNOTSUPP)
 * @max_exited:	KEEP_EXITED: how many exited tasks to keep (0: the
 *		module parameter max_exited, default 4096; at most 2^20,
 *		EINVAL above); more are still counted in the totals.
 *		Without KEEP_EXITED it is only checked against 2^20 and
 *		otherwise ignored: no exited task is listed.
 * @__reserved:	must be 0
 *
 * Ring buffer (PMUCTX_SESSION_ATTR_SIZE_VER1 and later):
 * @ring_pages:	data pages per CPU, a power of two (0: no ring buffer).
 *		Capped by the module parameter max_ring_pages (ENOMEM).
 *		The buffers, nr_cpus * (1 + ring_pages) pages, are charged
 *		to the creating user, not to the process: all of that
 *		user's rings together (in the per-user locked_vm count that
 *		io_uring and perf buffers also use) must stay within the
 *		caller's RLIMIT_MEMLOCK unless CAP_IPC_LOCK (EPERM).
 * @ring_mode:	enum pmuctx_ring_mode (0 only without a ring)
 * @ring_records: PMUCTX_REC_MASK_* - records the hooks write
 * @wakeup_bytes: normal mode: poll() reports POLLIN once a CPU's buffer
 *		holds this many bytes (0: one record)
 * @trigger_event: overwrite mode: 1 + index into @events whose delta over
 *		one slice (switch-in to switch-out of one task) freezes the
 *		buffers when above @trigger_threshold; 0: no trigger
 * @__reserved2: must be 0
 * @trigger_threshold: see @trigger_event (task-clock: ns)
 *
 * Sampling (PMUCTX_SESSION_ATTR_SIZE_VER2 and later; needs a ring):
 * @sample_freq: samples per second on each CPU, taken by an hrtimer when
 *		a task of the session is running (idle and other tasks
 *		write nothing); 0: no sampling.  At most the module
 *		parameter max_sample_freq (EINVAL above).
 * @sample_flags: PMUCTX_SAMPLE_*
 * @sample_max_stack: frames per callchain part (kernel, user), 1..
 *		PMUCTX_MAX_STACK; 0 with a stack flag means 64
 * @sample_event: the sampling source (in detail after the
 *		PMUCTX_SAMPLE_* flags below): 0, an hrtimer per CPU; else a
 *		perf-backed PMUCTX_EV_* sampled on overflow.  Formerly
 *		__reserved3, which had to be 0: 0 still means the hrtimer.
 *
 * Fields below were added after PMUCTX_SESSION_ATTR_SIZE_VER2.
 * @sample_user_dump: with PMUCTX_SAMPLE_USER_DUMP, bytes of user stack
 *		to copy per kernel entry (0: PMUCTX_USER_DUMP_DEFAULT; at
 *		most PMUCTX_USER_DUMP_MAX); must be 0 without the flag
 * @__reserved4: must be 0
 *
 * Events in detail (PMUCTX_SESSION_ATTR_SIZE_VER4, PMUCTX_FEAT_EVENT_DESC;
 * a module without it fails a caller that sets any of it with E2BIG):
 * @event_desc:	per slot of @events, its modes and, for PMUCTX_EV_RAW,
 *		its perf type and config (struct pmuctx_event_desc); all
 *		zero: what the id alone meant before.  Slots from
 *		@nr_events on must be all zero.
 * @sample_desc: the same for @sample_event (all zero with the hrtimer)
 */
struct pmuctx_session_attr {
	__u32	size;
	__u32	flags;
	__u32	target;
	__s32	pid;
	__s32	cgroup_fd;
	__u32	nr_events;
	__u32	events[PMUCTX_MAX_EVENTS];
	__u32	backend;
	__u32	data_size;
	__u32	max_exited;
	__u32	__reserved;
	/* PMUCTX_SESSION_ATTR_SIZE_VER1 from here on */
	__u32	ring_pages;
	__u32	ring_mode;
	__u32	ring_records;
	__u32	wakeup_bytes;
	__u32	trigger_event;
	__u32	__reserved2;
	__u64	trigger_threshold;
	/* PMUCTX_SESSION_ATTR_SIZE_VER2 from here on */
	__u32	sample_freq;
	__u32	sample_flags;
	__u32	sample_max_stack;
	__u32	sample_event;	/* 0: hrtimer; else PMUCTX_EV_* overflow */
	/* PMUCTX_SESSION_ATTR_SIZE_VER3 from here on */
	__u32	sample_user_dump;	/* see PMUCTX_SAMPLE_USER_DUMP */
	__u32	__reserved4;		/* must be 0 */
	/* PMUCTX_SESSION_ATTR_SIZE_VER4 from here on */
	struct pmuctx_event_desc event_desc[PMUCTX_MAX_EVENTS];
	struct pmuctx_event_desc sample_desc;
};

#define PMUCTX_SESSION_ATTR_SIZE_VER0	72
#define PMUCTX_SESSION_ATTR_SIZE_VER1	104
#define PMUCTX_SESSION_ATTR_SIZE_VER2	120
#define PMUCTX_SESSION_ATTR_SIZE_VER3	128
#define PMUCTX_SESSION_ATTR_SIZE_VER4	416

/* pmuctx_session_attr.sample_flags */
#define PMUCTX_SAMPLE_KERNEL_STACK (1U << 0) /* kernel callchain at the sample */
#define PMUCTX_SAMPLE_USER_STACK (1U << 1)   /* user callchain */
/*
 * With USER_STACK: take the user callchain once, when the task returns to
 * user space (task_work), and let every sample taken before that share it
 * through a cookie (USER_CALLCHAIN record).  Without it the user stack is
 * walked in the sample with non-faulting reads (truncated at a page that
 * is not resident).  Frame pointers only, in both cases.
 */
#define PMUCTX_SAMPLE_DEFER_USER (1U << 2)
/*
 * pmuctx_session_attr.sample_event: the sampling source.  0 (what a
 * caller built while the field was __reserved3 passes): one hrtimer per
 * CPU at sample_freq.  Otherwise a perf-backed PMUCTX_EV_* (not a
 * module-native one: task-clock, context-switches, cpu-migrations): a
 * per-CPU kernel counter of that event samples on overflow, perf's
 * frequency mode aiming at sample_freq, and SAMPLE.period is the event's
 * period (e.g. cycles).  Hardware events are -EOPNOTSUPP without a
 * hardware PMU; older modules reject a non-zero value with -EINVAL.
 */
#define PMUCTX_MAX_STACK	127
/*
 * With USER_STACK and DEFER_USER (PMUCTX_FEAT_USER_DUMP, x86-64 and arm64,
 * EOPNOTSUPP elsewhere): the deferred task_work also copies the task's
 * user registers and sample_user_dump bytes of its user stack, from the
 * stack pointer up, into one USER_STACK record with the same cookie as
 * the USER_CALLCHAIN it writes, for a DWARF (CFI) unwinder in user
 * space (`pmuctx record --call-graph dwarf`).  sample_user_dump: 0 means
 * PMUCTX_USER_DUMP_DEFAULT; else a multiple of 8 from 8 to
 * PMUCTX_USER_DUMP_MAX whose record (PMUCTX_REC_USER_STACK_SIZE_NR(nr, dump))
 * fits in half a CPU's data area (ring_pages) and is one the ring takes
 * (65488 bytes: pmuctx_user_dump_max_nr(), 65280 on x86-64, 65168 on
 * arm64);
 * EINVAL otherwise, and
 * EINVAL for a non-zero sample_user_dump without this flag.  32-bit
 * (compat) tasks get no USER_STACK record.
 */
#define PMUCTX_SAMPLE_USER_DUMP	(1U << 3)
#define PMUCTX_SAMPLE_FLAGS_ALL	0xfU
#define PMUCTX_USER_DUMP_DEFAULT 8192
#define PMUCTX_USER_DUMP_MAX	65280	/* the record's size is a __u16 */

/* pmuctx_read.flags */
#define PMUCTX_READ_PER_TASK	(1U << 0)  /* fill the tasks_ptr array too */
#define PMUCTX_READ_FLAGS_ALL	0x1U

/* pmuctx_task_values.flags */
#define PMUCTX_TASK_EXITED	(1U << 0)  /* task has exited */
#define PMUCTX_TASK_PRIV_EXEC	(1U << 1)  /* stopped at a privilege-raising exec */
#define PMUCTX_TASK_INHERITED	(1U << 2)  /* created by fork/clone of a target */

#define PMUCTX_COMM_LEN		16

/**
 * struct pmuctx_task_values - one task's counts in a PMUCTX_READ_PER_TASK read
 * @pid:	thread group id, in the session creator's pid namespace
 * @tid:	thread id, same namespace
 * @ppid:	tid of the task it was inherited from (0: a root target)
 * @flags:	PMUCTX_TASK_*
 * @comm:	command name at the last exec or exit
 * @values:	the task's own counts, in session event order
 * @children:	counts of its exited inherited descendants (each child's
 *		own values plus its children), like RUSAGE_CHILDREN.  Exited
 *		children are also listed on their own, so summing values and
 *		children over the array counts them twice: the session
 *		totals are the sum of @values alone.
 */
struct pmuctx_task_values {
	__s32	pid;
	__s32	tid;
	__s32	ppid;
	__u32	flags;
	char	comm[PMUCTX_COMM_LEN];
	__u64	values[PMUCTX_MAX_EVENTS];
	__u64	children[PMUCTX_MAX_EVENTS];
};

/**
 * struct pmuctx_read - PMUCTX_IOC_READ
 * @size:		sizeof the struct as the caller knows it
 * @flags:		PMUCTX_READ_*
 * @nr_events:		out: events in @values
 * @nr_tasks:		in: capacity of @tasks_ptr (elements); out: elements
 *			written, or with ENOSPC the number needed
 * @task_size:		in: sizeof(struct pmuctx_task_values) as known to
 *			the caller (>= PMUCTX_TASK_VALUES_SIZE_VER0)
 * @__pad:		must be 0
 * @tasks_ptr:		in: user address of the per-task array
 * @values:		out: session totals: live tasks plus exited ones
 * @time_enabled:	out: ns the session has been enabled
 * @tasks_seen:		out: tasks ever monitored by the session
 * @tasks_exited:	out: monitored tasks that exited
 * @tasks_dropped:	out: tasks or slices not tracked (cap or pool empty)
 * @priv_exec_stopped:	out: tasks whose counting stopped at a
 *			privilege-raising exec (setuid, setgid, file caps)
 * @tasks_unlisted:	out: exited tasks beyond max_exited (in totals,
 *			not in the array); 0 without KEEP_EXITED, where no
 *			exited task is listed at all
 * @time_slices:	out (PMUCTX_READ_SIZE_VER1): ns of the monitored
 *			tasks' slices while the session was enabled (the sum
 *			of task-clock over all tasks, whatever the events;
 *			in a switchless session the task-clock total, 0
 *			if it does not count task-clock)
 * @time_running:	out (PMUCTX_READ_SIZE_VER1): per event, the part of
 *			@time_slices during which its counter was counting.
 *			Less than @time_slices when a kernel counter was not
 *			active on the task's CPU at the end of a slice (a
 *			pinned hardware counter that lost its PMU slot, or a
 *			CPU just back online whose counters are not yet
 *			replaced): the counts of those slices are lost, not
 *			estimated.  Equal for module-native events.  As with
 *			perf's time_running, @values[i] * @time_slices /
 *			@time_running[i] estimates the full count.
 *
 * Per-task values go to @tasks_ptr as an array whose elements are
 * @task_size bytes apart: the kernel writes min(@task_size, its own
 * size) bytes of each and zeroes the rest of the element.  With ENOSPC
 * (more tasks than @nr_tasks) nothing is written to the array, the totals
 * and counters are still filled, and @nr_tasks says how many elements are
 * needed now (the number can grow before the next call; a set that grew
 * while it was read also gives ENOSPC: call again).  Live tasks are read
 * as of now: the slices running on other CPUs are folded in by an IPI
 * first.
 */
struct pmuctx_read {
	__u32	size;
	__u32	flags;
	__u32	nr_events;
	__u32	nr_tasks;
	__u32	task_size;
	__u32	__pad;
	__u64	tasks_ptr;
	__u64	values[PMUCTX_MAX_EVENTS];
	__u64	time_enabled;
	__u64	tasks_seen;
	__u64	tasks_exited;
	__u64	tasks_dropped;
	__u64	priv_exec_stopped;
	__u64	tasks_unlisted;
	/* PMUCTX_READ_SIZE_VER1 from here on */
	__u64	time_slices;
	__u64	time_running[PMUCTX_MAX_EVENTS];
};

#define PMUCTX_READ_SIZE_VER0		144
#define PMUCTX_READ_SIZE_VER1		216	/* + time_slices, time_running */
#define PMUCTX_TASK_VALUES_SIZE_VER0	160

/* ---- ring buffers -------------------------------------------------------
 *
 * A session with ring_pages > 0 has one buffer per CPU id.  One mmap() of
 * the session fd, read-only (PROT_READ, MAP_SHARED, offset 0, length
 * exactly nr_cpus * (1 + ring_pages) * page size) maps them all: for CPU
 * c, the control page (struct pmuctx_ring_ctl) at
 * c * (1 + ring_pages) * page size, then its ring_pages data pages.
 * mmap() fails, checked in this order, with
 *   ENODEV  the fd has no live session, or the session has no buffers;
 *   EINVAL  an offset other than 0, another length, a private
 *           (MAP_PRIVATE), writable or executable mapping;
 *   EBUSY   the buffers are mapped already: one mapping at a time.  It
 *           exists until every part of it is unmapped, including the
 *           copies fork() children inherit; after that the buffers can
 *           be mapped again.
 * mprotect() cannot add write or exec.  Pages are mapped at first touch;
 * the mapping survives MADV_DONTNEED (and MADV_PAGEOUT) as perf's does:
 * the next access faults the same pages back in.  The control pages of
 * CPU ids that are not possible stay all zero (no records).
 *
 * data_head and data_tail are free-running byte counts; a record starts at
 * data + (pos & (data_size - 1)).  Records are 8-byte aligned, never wrap:
 * the space left at the end of the data area is filled with one PAD record
 * whose size is exactly that space (a PAD is always shorter than what is
 * written after it, the record and a pending LOST record, so the u16
 * size holds it).  Skipping it by its size and skipping to the end of the
 * data area are the same; the next record starts at offset 0.
 *
 * Normal mode (the writer respects the reader):
 *   writer: reserve, write the record, smp_wmb(), publish data_head
 *	     (smp_store_release); a record that does not fit is dropped and
 *	     counted in lost, and a LOST record is written once space returns.
 *   reader: head = load-acquire(data_head) (= load, smp_rmb());
 *	     parse the records in [tail, head);
 *	     ioctl(PMUCTX_IOC_RING_CONSUME, {cpu, head}) - the kernel does
 *	     smp_mb() and stores data_tail, which frees the space.
 * Overwrite mode (flight recorder, the writer never waits):
 *   the writer moves data_tail itself, to the start of the oldest record it
 *   keeps, so parsing from data_tail always yields complete records, the
 *   newest ones.  The buffer changes under a reader: read it between
 *   PMUCTX_IOC_SNAPSHOT (all CPUs frozen, in-flight writers finished) and
 *   PMUCTX_IOC_RESUME.  Records arriving while frozen are counted in lost.
 *   A kernel trigger freezes the writers and makes poll() report POLLIN;
 *   the control pages show F_FROZEN | F_TRIGGERED once the reader has
 *   called PMUCTX_IOC_SNAPSHOT, which it must do before reading anyway.
 * seq is odd while the kernel changes data_tail or flags outside the
 * writer's fast path; a reader that needs both consistently retries on an
 * odd or changed seq.
 */
#define PMUCTX_RING_VERSION	1

enum pmuctx_ring_mode {
	PMUCTX_RING_NORMAL	= 1,
	PMUCTX_RING_OVERWRITE	= 2,
};

/* pmuctx_ring_ctl.flags */
#define PMUCTX_RING_F_FROZEN	(1U << 0)  /* snapshot or trigger */
#define PMUCTX_RING_F_TRIGGERED	(1U << 1)  /* frozen by the kernel trigger */

/**
 * struct pmuctx_ring_ctl - control page of one CPU's buffer (read-only)
 * @version:	PMUCTX_RING_VERSION
 * @cpu:	CPU id of this buffer
 * @mode:	enum pmuctx_ring_mode
 * @flags:	PMUCTX_RING_F_*
 * @data_offset: bytes from this page to the data area
 * @data_size:	bytes of data area, a power of two
 * @data_head:	write position (see above)
 * @data_tail:	read position: normal mode the reader's (RING_CONSUME),
 *		overwrite mode the oldest complete record
 * @lost:	records not written (buffer full in normal mode, frozen,
 *		a record larger than half the data area)
 * @records:	records written, counted when their space is reserved
 *		(briefly before data_head covers them).  A CPU's records
 *		are in time order: the time is taken with the space.
 * @overwritten: overwrite mode: records dropped from the tail
 * @seq:	seqcount, see above
 * @__pad:	0
 */
struct pmuctx_ring_ctl {
	__u32	version;
	__u32	cpu;
	__u32	mode;
	__u32	flags;
	__u64	data_offset;
	__u64	data_size;
	__u64	data_head;
	__u64	data_tail;
	__u64	lost;
	__u64	records;
	__u64	overwritten;
	__u32	seq;
	__u32	__pad;
};

/* Records the hooks write (pmuctx_session_attr.ring_records). */
#define PMUCTX_REC_MASK_SWITCH	(1U << 0)
#define PMUCTX_REC_MASK_FORK	(1U << 1)
#define PMUCTX_REC_MASK_EXEC	(1U << 2)
#define PMUCTX_REC_MASK_EXIT	(1U << 3)
#define PMUCTX_REC_MASK_COMM	(1U << 4)
#define PMUCTX_REC_MASK_MMAP	(1U << 5)	/* PMUCTX_FEAT_MMAP */
#define PMUCTX_REC_MASK_ALL	0x3fU

enum pmuctx_rec_type {
	/*
	 * PAD: header only, no common part.  It fills the rest of the data
	 * area and its size is exactly that: skip it by size (= to the end
	 * of the data area; the next record is at offset 0).
	 */
	PMUCTX_REC_PAD		= 1,
	PMUCTX_REC_LOST		= 2,
	PMUCTX_REC_SWITCH	= 3,
	PMUCTX_REC_FORK		= 4,
	PMUCTX_REC_EXEC		= 5,
	PMUCTX_REC_EXIT		= 6,
	PMUCTX_REC_COMM		= 7,
	PMUCTX_REC_SAMPLE	= 8,
	PMUCTX_REC_USER_CALLCHAIN = 9,
	PMUCTX_REC_THROTTLE	= 10,
	PMUCTX_REC_USER		= 11,	/* write(2) on the session fd */
	PMUCTX_REC_MMAP		= 12,	/* a file mapping of a sampled process */
	PMUCTX_REC_USER_STACK	= 13,	/* registers and user stack (dwarf) */
	PMUCTX_REC_MAX		= 13,
};

/**
 * struct pmuctx_rec_header - first 8 bytes of every record
 * @type:	enum pmuctx_rec_type; unknown types are skipped by size
 * @size:	bytes of the whole record, a multiple of 8, >= 8
 * @misc:	type-specific bits
 */
struct pmuctx_rec_header {
	__u32	type;
	__u16	size;
	__u16	misc;
};

/**
 * struct pmuctx_rec_common - follows the header in every record but PAD
 * @time:	CLOCK_MONOTONIC, ns (ktime_get_mono_fast_ns(): comparable
 *		across CPUs and with clock_gettime(CLOCK_MONOTONIC))
 * @cpu:	CPU the record was written on
 * @pid:	thread group id of the task the record is about, in the
 *		session creator's pid namespace (0: idle or not visible)
 * @tid:	its thread id
 * @__pad:	0
 */
struct pmuctx_rec_common {
	__u64	time;
	__u32	cpu;
	__s32	pid;
	__s32	tid;
	__u32	__pad;
};

/* LOST: @lost records were dropped on this CPU since the last LOST. */
struct pmuctx_rec_lost {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u64				lost;
};

/* SWITCH: c.pid/tid is the task switched out (misc: PMUCTX_SWITCH_*). */
#define PMUCTX_SWITCH_PREEMPT	(1U << 0)  /* prev was preempted */
struct pmuctx_rec_switch {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__s32				next_pid;
	__s32				next_tid;
	__u32				prev_state;	/* TASK_* bits */
	__u32				nr;		/* = session nr_events */
	__u64				delta[];	/* prev's slice, event order */
};

/* FORK: c.pid/tid is the parent, a task the session tracks (INHERIT or not). */
struct pmuctx_rec_fork {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__s32				child_pid;
	__s32				child_tid;
};

/* EXEC: filename is NUL-terminated, padded to the record size. */
struct pmuctx_rec_exec {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	char				comm[PMUCTX_COMM_LEN];
	char				filename[];
};

/* EXIT: the task's totals at exit. */
struct pmuctx_rec_exit {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u32				nr;
	__u32				__pad;
	__u64				values[];
};

/*
 * COMM (PMUCTX_REC_MASK_COMM): a task's name when the session starts to
 * track it, c.pid/tid the task, written once per task and session:
 *  - PID target: one per thread attached by PMUCTX_IOC_SESSION_CREATE,
 *    written then (before ENABLE), into the buffer of the CPU the caller
 *    runs on;
 *  - system-wide and cgroup targets: one per thread there is (in the
 *    cgroup) at PMUCTX_IOC_SESSION_CREATE, written then, on the caller's
 *    CPU; one per task forked later into the session (fork probe, the
 *    forking task's CPU); one per task that moves into the cgroup (when
 *    it is hashed, any CPU);
 *  - none for a task inherited through fork/clone (INHERIT): its name is
 *    its parent's (a FORK record names both) until an EXEC record;
 *  - none when a name changes without an exec (prctl(PR_SET_NAME),
 *    /proc/PID/comm).
 */
struct pmuctx_rec_comm {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	char				comm[PMUCTX_COMM_LEN];
};

/*
 * SAMPLE: the task in c.pid/tid was running when the sampling timer fired.
 * @ip:		interrupted instruction pointer (0 when hidden, see misc)
 * @period:	ns of CPU time the sample stands for: what the task ran on
 *		this CPU since the previous sample or since it was switched
 *		in (about 1/sample_freq; more when ticks came late)
 * @cookie:	misc USER_DEFERRED: the user callchain is the
 *		USER_CALLCHAIN record of the same pid/tid with this cookie,
 *		written when the task returns to user space (on whatever CPU
 *		it then runs); several samples can share one.  0 otherwise.
 * @nr_kernel:	kernel frames at the start of @ips, innermost first
 * @nr_user:	user frames after them, innermost first
 */
#define PMUCTX_SAMPLE_M_USER		(1U << 0) /* interrupted in user mode */
#define PMUCTX_SAMPLE_M_KERNEL_TRUNC	(1U << 1) /* kernel stack cut at max */
#define PMUCTX_SAMPLE_M_USER_TRUNC	(1U << 2) /* user stack cut or unreadable */
#define PMUCTX_SAMPLE_M_USER_DEFERRED	(1U << 3) /* see @cookie */
/* kernel addresses removed: no CAP_PERFMON/CAP_SYSLOG (kptr_restrict) */
#define PMUCTX_SAMPLE_M_KADDR_HIDDEN	(1U << 4)
struct pmuctx_rec_sample {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u64				ip;
	__u64				period;
	__u64				cookie;
	__u16				nr_kernel;
	__u16				nr_user;
	__u32				__pad;
	__u64				ips[];
};

/* USER_CALLCHAIN: the deferred user stack for @cookie (misc: USER_TRUNC). */
struct pmuctx_rec_user_callchain {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u64				cookie;
	__u32				nr;
	__u32				__pad;
	__u64				ips[];
};

/*
 * THROTTLE, three kinds (misc):
 *
 * Without PMUCTX_THROTTLE_BUDGET or PMUCTX_THROTTLE_PERF: the session's
 * sampling interrupt took more than a quarter of the period on this CPU
 * (like perf's perf_cpu_time_max_percent), so this CPU now samples every
 * @period_ns (misc PMUCTX_THROTTLE_ON), or relaxed back towards the
 * asked rate (misc 0).  @avg_ns: the interrupt's average cost.
 * @dropped: 0.
 *
 * With PMUCTX_THROTTLE_BUDGET: the global sample budget (module
 * parameters sample_budget and sample_cpu_percent: all sessions of all
 * users together) was spent on this CPU, and the session did not take
 * @dropped samples there since its previous BUDGET record on this CPU.
 * Written at the first drop of each 10 ms budget window, at the next
 * sample taken, at the task's switch-out and at DISABLE, so the sum of
 * @dropped over a session's records is every sample it did not take.
 * @period_ns: the sampling period this CPU's budget allows now, all
 * sessions together; @avg_ns: the average cost of a sample on this CPU.
 *
 * With PMUCTX_THROTTLE_PERF (with PMUCTX_THROTTLE_ON;
 * PMUCTX_FEAT_PERF_THROTTLE): perf throttled the session's sampling
 * counter on this CPU @dropped times since the previous such record of
 * this CPU: its overflows came faster than kernel.perf_event_max_sample_rate
 * allows (perf lowers that rate itself when its interrupts take too long,
 * kernel.perf_cpu_time_max_percent), and perf stopped the counter until
 * its next tick, each time.  What the stopped counter would have counted
 * is in no sample: the periods fall short of the event's count.  Written
 * at the next sample taken on this CPU, at a task's switch-out and at
 * DISABLE.  @period_ns: the longest a stop lasts (one tick); @avg_ns: 0.
 * Only counter sampling (sample_event); the timer sampler slows down
 * itself instead.
 *
 * Either way sample periods stay exact: a timer sample's period is the
 * time the task really ran since the previous sample taken (a dropped
 * tick's time goes to the next one); a counter sample's is its event
 * count, and a dropped one's count is in no sample.
 *
 * Records of a module older than PMUCTX_THROTTLE_BUDGET (same ABI) are
 * PMUCTX_REC_THROTTLE_SIZE_VER0 bytes: read @dropped only if the size has
 * it.
 */
#define PMUCTX_THROTTLE_ON	1
#define PMUCTX_THROTTLE_BUDGET	2
#define PMUCTX_THROTTLE_PERF	4
struct pmuctx_rec_throttle {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u64				period_ns;
	__u64				avg_ns;
	__u64				dropped;
};

#define PMUCTX_REC_THROTTLE_SIZE_VER0	48

/* USER: @len bytes written with write(2) on the session fd. */
#define PMUCTX_USER_MAX		4096
struct pmuctx_rec_user {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u32				len;
	__u32				__pad;
	__u8				data[];
};

/*
 * MMAP (PMUCTX_REC_MASK_MMAP, PMUCTX_FEAT_MMAP): one file-backed mapping
 * of a sampled process, c.pid/tid the task that was sampled, so that a
 * profile can name the user frames of a process that is gone before its
 * /proc/PID/maps could be read.  Written only by sessions that sample
 * user stacks (sample_flags USER_STACK); the bit is accepted, and does
 * nothing, elsewhere.  The task writes them itself (task_work, at its
 * next return to user space) when a sample's user address is in no
 * executable mapping it has described since its last exec (the first
 * sample after an exec always): then every file mapping of the process,
 * in address order, the first with PMUCTX_MMAP_M_FIRST, the last with
 * PMUCTX_MMAP_M_LAST (a full snapshot, like /proc/PID/maps without the
 * anonymous mappings).  After 8 snapshots a process gets at most one
 * per 100 ms.  A snapshot stops after PMUCTX_MMAP_MAX mappings
 * (PMUCTX_MMAP_M_TRUNC on its last record).
 *
 * @start, @len:	the mapping's addresses
 * @pgoff:		file offset of @start, bytes
 * @ino:		inode number of the file
 * @dev_major, @dev_minor: its device
 * @prot:		PROT_READ | PROT_WRITE | PROT_EXEC of the mapping
 * @flags:		MAP_SHARED or MAP_PRIVATE
 * @path:		the file's path (d_path), NUL-terminated, padded
 *			with NULs to the record size; " (deleted)" as in
 *			/proc/PID/maps
 */
#define PMUCTX_MMAP_M_FIRST	(1U << 0)
#define PMUCTX_MMAP_M_LAST	(1U << 1)
#define PMUCTX_MMAP_M_TRUNC	(1U << 2)
#define PMUCTX_MMAP_MAX		512
struct pmuctx_rec_mmap {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u64				start;
	__u64				len;
	__u64				pgoff;
	__u64				ino;
	__u32				dev_major;
	__u32				dev_minor;
	__u32				prot;
	__u32				flags;
	char				path[];
};

/*
 * USER_STACK (sample_flags PMUCTX_SAMPLE_USER_DUMP): the user registers
 * and a copy of the user stack of the task in c.pid/tid when it returned
 * to user space, for the samples whose cookie is @cookie (the same
 * cookie as the USER_CALLCHAIN written right after it, on the same CPU).
 * @abi:	PMUCTX_REGS_* : what @regs hold
 * @nr_regs:	registers in @regs (PMUCTX_REGS_X86_64: 17, PMUCTX_REGS_ARM64: 33)
 * @size:	bytes of @data in the record (a multiple of 8, at most the
 *		session's sample_user_dump; less when the stack's mapping
 *		ends sooner)
 * @dyn_size:	of them, bytes copied from the stack (<= @size); the rest
 *		is zero.  Less than asked: misc USER_TRUNC.
 * @regs:	the registers, then @data: the bytes from regs[sp] up
 * The record is PMUCTX_REC_USER_STACK_SIZE_NR(@nr_regs, @size) bytes
 * (PMUCTX_REC_USER_STACK_SIZE(@size) on x86-64).  The module writes the
 * layout of the architecture it runs on.
 */
/* x86-64, DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
#define PMUCTX_REGS_X86_64	1
#define PMUCTX_REGS_X86_64_NR	17
#define PMUCTX_REGS_X86_64_SP	7
#define PMUCTX_REGS_X86_64_IP	16
/* arm64, DWARF numbering: x0..x30 (x29 fp, x30 lr), sp; then pc */
#define PMUCTX_REGS_ARM64	2
#define PMUCTX_REGS_ARM64_NR	33
#define PMUCTX_REGS_ARM64_SP	31
#define PMUCTX_REGS_ARM64_PC	32
struct pmuctx_rec_user_stack {
	struct pmuctx_rec_header	hdr;
	struct pmuctx_rec_common	c;
	__u64				cookie;
	__u16				abi;
	__u16				nr_regs;
	__u32				size;
	__u32				dyn_size;
	__u32				__pad;
	__u64				regs[];	/* then __u8 data[size] */
};

#define PMUCTX_REC_USER_STACK_SIZE_NR(nr_regs, dump) \
	(sizeof(struct pmuctx_rec_user_stack) + \
	 (nr_regs) * sizeof(__u64) + (dump))
#define PMUCTX_REC_USER_STACK_SIZE(dump) \
	PMUCTX_REC_USER_STACK_SIZE_NR(PMUCTX_REGS_X86_64_NR, dump)

/*
 * The largest record the module's ring takes: a PAD in front of a LOST
 * record and it must stay a record (a __u16 size).
 */
#define PMUCTX_REC_SIZE_MAX	65488

/*
 * The largest sample_user_dump on a kernel whose USER_STACK records carry
 * @nr_regs registers (PMUCTX_REGS_*_NR): its record must be one the ring
 * takes: PMUCTX_USER_DUMP_MAX with x86-64's 17, 65168 with arm64's 33.
 */
static __inline__ __u32 pmuctx_user_dump_max_nr(__u32 nr_regs)
{
	__u32 fit = (PMUCTX_REC_SIZE_MAX -
		     (__u32)PMUCTX_REC_USER_STACK_SIZE_NR(nr_regs, 0)) & ~7U;

	return fit < PMUCTX_USER_DUMP_MAX ? fit : PMUCTX_USER_DUMP_MAX;
}

/* PMUCTX_IOC_RING_CONSUME: normal mode, the reader is done up to @tail. */
struct pmuctx_ring_consume {
	__u32	size;
	__u32	cpu;
	__u64	tail;
};

#define PMUCTX_RING_CONSUME_SIZE_VER0	16

/*
 * ioctls.  All take a pointer to the struct named; the kernel dispatches on
 * the number, not on the size bits.
 *
 * PMUCTX_IOC_INFO		any fd; never changes state.
 * PMUCTX_IOC_SESSION_CREATE	turns this fd into a session (once per fd;
 *				EBUSY the second time).  The session starts
 *				disabled.  Errors come in this order: EBUSY;
 *				the size (EFAULT, EINVAL, E2BIG); the fields
 *				(EINVAL, ENOMEM for ring_pages above
 *				max_ring_pages); the policy (EACCES:
 *				perf_event_paranoid, the SELFTEST backend
 *				without CAP_PERFMON); the per-user session cap
 *				(EMFILE); the target (cgroup fd: EBADF...;
 *				pid: ESRCH, EACCES); resources (ENOMEM,
 *				EOPNOTSUPP, EPERM); last, EACCES if any one
 *				thread of the process may not be watched.
 *				docs/ABI.md lists every step.
 * PMUCTX_IOC_ENABLE/DISABLE	argument must be 0.  Take effect at once on
 *				running targets (an IPI folds their slice).
 * PMUCTX_IOC_RESET		argument must be 0; zeroes every count.
 * PMUCTX_IOC_READ		totals and optionally per-task values.
 * PMUCTX_IOC_SNAPSHOT		argument 0: freeze every CPU's buffer and wait
 *				for writers in flight (EINVAL without a ring).
 * PMUCTX_IOC_RESUME		argument 0: unfreeze (also after a trigger).
 * PMUCTX_IOC_RING_CONSUME	normal mode: advance data_tail of one CPU.
 *				After the size (EFAULT, EINVAL, E2BIG), EINVAL
 *				for: no ring or overwrite mode, a cpu that is
 *				not possible, a tail not 8-byte aligned, a
 *				tail outside [data_tail, data_head].
 *				The tail must be a record boundary; after any
 *				other, what read(2) returns is undefined (bytes
 *				of that CPU's buffer), and at a header that
 *				cannot be one it drops the rest of the buffer
 *				and fails with EIO.
 *
 * read(2) (normal mode) copies whole records out, consuming them, CPU by
 * CPU (CPU 0 first, not merged by time) and skipping PAD; it blocks for
 * data unless O_NONBLOCK (EAGAIN) and never returns a partial record
 * (EINVAL if the buffer cannot hold the next one).  EINVAL also without a
 * session, without a ring, in overwrite mode.
 * write(2) writes one USER record of 1..PMUCTX_USER_MAX bytes into the
 * current CPU's buffer, in either mode, and returns the count.  Errors:
 *   EINVAL    no live session, a session without a ring, a length of 0
 *             or above PMUCTX_USER_MAX;
 *   EFAULT    the buffer is not readable (ENOMEM: no memory to copy it);
 *   EMSGSIZE  the record (sizeof(struct pmuctx_rec_user) + the length,
 *             rounded up to 8) would take more than half of a CPU's data
 *             area: a 4096-byte write needs ring_pages >= 4 with 4 KiB
 *             pages.  Not counted in lost;
 *   ENOSPC    the record was dropped: the buffers are frozen (SNAPSHOT or
 *             trigger, either mode) or, in normal mode, the buffer is
 *             full.  The drop is counted in lost and in the next LOST
 *             record.
 * poll() reports POLLIN when a CPU's buffer holds wakeup_bytes (normal
 * mode) or the buffers are frozen (overwrite mode); POLLERR without a
 * live session or without a ring.
 */
#define PMUCTX_IOC_INFO		_IOWR(PMUCTX_IOC_MAGIC, 0x00, struct pmuctx_info)
#define PMUCTX_IOC_SESSION_CREATE \
	_IOW(PMUCTX_IOC_MAGIC, 0x01, struct pmuctx_session_attr)
#define PMUCTX_IOC_ENABLE	_IO(PMUCTX_IOC_MAGIC, 0x02)
#define PMUCTX_IOC_DISABLE	_IO(PMUCTX_IOC_MAGIC, 0x03)
#define PMUCTX_IOC_RESET	_IO(PMUCTX_IOC_MAGIC, 0x04)
#define PMUCTX_IOC_READ		_IOWR(PMUCTX_IOC_MAGIC, 0x05, struct pmuctx_read)
#define PMUCTX_IOC_SNAPSHOT	_IO(PMUCTX_IOC_MAGIC, 0x06)
#define PMUCTX_IOC_RESUME	_IO(PMUCTX_IOC_MAGIC, 0x07)
#define PMUCTX_IOC_RING_CONSUME	\
	_IOW(PMUCTX_IOC_MAGIC, 0x08, struct pmuctx_ring_consume)

#endif /* _UAPI_LINUX_PMUCTX_H */
