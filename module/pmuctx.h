/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx internal definitions, shared by the files of the module.
 *
 * Contexts and locks (outermost first; nothing nests the other way):
 *
 *  sess->lock (mutex, process context): serializes the ioctls of one
 *	session, SESSION_CREATE included.
 *  target->signal->exec_update_lock (rw_semaphore, read, process context):
 *	SESSION_CREATE of a pid target holds it from the permission check of
 *	every thread to the hashing of their entries (session.c,
 *	pmuctx_check_targets()), around pmuctx_mutex: never take it under
 *	pmuctx_mutex.
 *  pmuctx_mutex (mutex, process context): the adopters and counting
 *	session lists, probe (un)registration (tracepoint, cpu-hotplug and
 *	jump-label locks inside), store creation and destruction, the
 *	CPU-online work that replaces counters (perf's locks inside), and
 *	ENABLE/DISABLE of sampling counters (under sess->lock).  Never
 *	taken in a hotplug callback: they hold the hotplug lock for write,
 *	which is taken for read inside this mutex.
 *  pmuctx_users_lock (spinlock, irqsave): unprivileged users' session
 *	counts and references; taken in SESSION_CREATE, release and the
 *	RCU callback that frees the last reference of a session.
 *  (sess->exited takes no lock: an llist, see struct pmuctx_session.)
 *  sess->entries_lock (raw spinlock): the session's list of hashed
 *	entries (sess->entries: added under it, removed with list_del_rcu()
 *	under it, walked under RCU), and the decision to hash an entry for a
 *	task of an adopting session: the create walk, the fork probe and the
 *	join worker may see one task at once, and whoever holds the lock
 *	checks the task still belongs to the session and has no entry there
 *	before hashing one.  Taken with IRQs on where it inserts (process
 *	context, the fork probe: see the bucket locks) and with IRQs off in
 *	the cgroup-attach probe, which only parks and unparks; never in
 *	sched_switch or any interrupt.  Only the rhashtable bucket locks nest
 *	inside.
 *  rhashtable bucket locks: internal to the rhashtable.  In 6.1 they end
 *	with local_bh_enable(), which must not run with IRQs off, so the
 *	table is never *modified* with IRQs off: sched_switch only reads it
 *	(RCU), and the cgroup-attach probe (IRQs off) hands joining tasks to
 *	a worker.  Inserts happen at create (pid targets; every thread of a
 *	system-wide or cgroup session), in the fork probe and in the join
 *	worker; removals in the exit and exec probes and at teardown.
 *	Whoever removes an entry from the table (rhltable_remove() returns 0
 *	once) owns its retirement.
 *
 * The sched_switch probe runs with the rq lock held and IRQs off: it takes
 * no sleeping lock, allocates nothing (entries come from a per-CPU pool that
 * an irq_work refills), never wakes anything up (irq_work only), never
 * prints, and never touches user memory.
 *
 * PREEMPT_RT: tracepoint probes still run with preemption off, where a
 * spinlock_t and any allocation may sleep.  So no probe takes a spinlock_t
 * or a mutex (only raw spinlocks and the rhashtable's bit locks), and the
 * fork and cgroup-attach probes take their entries from the pool instead
 * of the allocator.  An irq_work without IRQ_WORK_HARD_IRQ runs in the
 * per-CPU irq_work thread: the pool refill (it allocates, so it must stay
 * a thread there) therefore fills with IRQs on and stores each entry with
 * IRQs off; the sampling stage is a hard irq_work (it must run in the
 * sampled task's context); the ring wakeup stays a thread (wake_up()
 * takes a spinlock_t).  An rhashtable insert allocates a bucket table
 * itself (GFP_ATOMIC) when it finds the table above 100 %: on RT the
 * store is created with room for max_tasks entries and an insert under a
 * raw lock or in a probe is refused (a dropped task) rather than let it
 * allocate (pmuctx_store_room(), docs/DESIGN.md "PREEMPT_RT").
 *
 * The sampling counters' overflow handler (sample.c) may run in NMI
 * context: it takes no lock at all (an atomic busy flag guards the
 * per-CPU stage), reads the store under RCU, walks user memory only with
 * copy_from_user_nmi(), and leaves the ring and task_work_add() to the
 * stage's irq_work (hardirq, same CPU).
 */
#ifndef _PMUCTX_INTERNAL_H
#define _PMUCTX_INTERNAL_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/perf_event.h>
#include <linux/rhashtable.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/pmuctx.h>

#define PMUCTX_VERSION		"0.1.0"

/* Entries of the current task cached per CPU (all sessions). */
#define PMUCTX_CUR_MAX		8
#define PMUCTX_POOL_MAX		64

struct pmuctx_session;
struct perf_event;
struct mem_cgroup;

/*
 * An unprivileged user's share (perm.c): sessions (the session cap,
 * under pmuctx_users_lock), store entries (max_tasks_per_user, atomic:
 * charged in the probes) and ring pages (under RLIMIT_MEMLOCK, ring.c).
 * A user is the caller's uid, or for a caller inside user namespaces the
 * owner of the outermost one a non-root user created: the sub-uids an
 * administrator maps for a user (/etc/subuid) are that one user, and the
 * uids of a rootful container stay apart (pmuctx_acct_uid()).  Each
 * session struct of the user holds a reference (@ref, under the lock)
 * until it is freed, so an entry that outlives its session's release
 * still finds it at its free.
 */
struct pmuctx_user {
	struct list_head	node;
	kuid_t			uid;
	unsigned int		sessions;
	unsigned int		ref;
	atomic_t		entries;
	atomic_long_t		locked_pages;	/* ring pages, all its kuids */
};

/* pmuctx_entry.flags */
#define PMUCTX_EF_INHERITED	BIT(0)	/* created by fork of a target */
#define PMUCTX_EF_PRIV_EXEC	BIT(1)	/* stopped at privilege-raising exec */
#define PMUCTX_EF_EXITED	BIT(2)	/* task exited; on the exited list */
#define PMUCTX_EF_SAVE_VALID	BIT(3)	/* save area written at switch-out */
#define PMUCTX_EF_TASK_PUT	BIT(4)	/* task reference already dropped */
#define PMUCTX_EF_FOLDED	BIT(5)	/* totals folded into the session */
#define PMUCTX_EF_USER		BIT(6)	/* counted in sess->user->entries */

/**
 * struct pmuctx_entry - one task's data for one session
 *
 * Keyed by task pointer in the store (an rhltable: one key, one entry per
 * session).  The hot fields (@in, @in_ns, snapshots, totals, save area) are
 * written only by whoever runs the task or switches it: the sched_switch
 * probe on the task's CPU, an IPI on that CPU, or the task itself in the
 * fork/exec/exit probes.  Readers (ioctls) use READ_ONCE and tolerate a
 * torn view across fields.
 *
 * The variable tail holds, for n = session events: u64 snap[n],
 * u64 total[n], atomic64_t children[n], then the PMU save area.
 */
struct pmuctx_entry {
	struct rhlist_head	node;
	struct task_struct	*task;		/* key; reference held */
	struct pmuctx_session	*sess;
	struct pmuctx_entry	*parent;	/* inherited from; ref held */
	refcount_t		ref;
	u16			size;		/* bytes allocated (< 8 KiB) */
	u16			flags;		/* PMUCTX_EF_* */
	bool			in;		/* slice open, snapshots valid */
	bool			dead;		/* retired: never cache again */
	bool			listed;		/* on sess->entries */
	bool			parked;		/* left the session's cgroup */
	s16			last_cpu;	/* -1: not run while tracked */
	s16			save_cpu;	/* CPU that wrote the save area */
	pid_t			pid, tid, ppid;
	u32			save_seq;	/* selftest backend */
	u64			in_ns;
	char			comm[TASK_COMM_LEN];
	/*
	 * On sess->entries while hashed (RCU readers may still follow
	 * sess_node after it is unlisted, so it shares nothing).  An entry
	 * leaves the exited list before its last reference is dropped.
	 */
	struct list_head	sess_node;
	union {
		struct llist_node exit_node;	/* session's exited list */
		struct rcu_head	rcu;		/* pmuctx_entry_put() */
	};
	/*
	 * snapshot[nr_events], total[nr_events], children[nr_events], the
	 * save area (data_size bytes), and in sampling sessions a struct
	 * pmuctx_defer at s->defer_offset.  The header is 128 bytes on
	 * x86-64: with 4 events an entry is 224 bytes (pmuctx_entry_alloc()).
	 */
	u64			data[];
};

/*
 * Deferred user callchain of an entry (sample.c), only in entries of
 * sampling sessions.  Written in the sampling interrupt and by the task
 * itself (task_work, exec probe).
 */
struct pmuctx_defer {
	struct callback_head	work;
	struct pmuctx_entry	*e;		/* set when work is queued */
	u64			cookie;
	bool			pending;
	bool			stale;		/* exec since the sample */
};

/*
 * MMAP records of an entry's task (maps.c), in entries of sessions that
 * sample user stacks with PMUCTX_REC_MASK_MMAP.  The executable ranges
 * described since the task's last exec: written by the task (its
 * task_work, the exec probe), read by sampling interrupts on its CPU.
 */
#define PMUCTX_MAPS_RANGES	16
struct pmuctx_maps {
	struct callback_head	work;
	struct pmuctx_entry	*e;		/* set when work is queued */
	u64			last_ns;	/* local_clock() of the last scan */
	unsigned int		scans;		/* since the last exec */
	unsigned int		nr;
	bool			pending;
	u64			start[PMUCTX_MAPS_RANGES];
	u64			end[PMUCTX_MAPS_RANGES];
};

/* One MMAP record's fields (ring.c writes it). */
struct pmuctx_mmap_info {
	u64		start, len, pgoff, ino;
	u32		dev_major, dev_minor, prot, flags;
	u16		misc;
	const char	*path;
};

/*
 * One CPU's ring buffer of a session (ring.c).  Only written on its CPU,
 * with IRQs off around reservation and commit.
 */
struct pmuctx_ring {
	struct pmuctx_ring_ctl	*ctl;		/* control page (mapped) */
	u8			*data;		/* data area (mapped) */
	u64			head;		/* reserved up to here */
	u64			tail;		/* overwrite mode: oldest kept */
	u64			busy_start;	/* outermost reservation in flight */
	u64			lost_pending;	/* for the next LOST record */
	unsigned int		nest;		/* writers in flight */
	bool			wake_sent;	/* edge-triggered reader wakeup */
};

/* Per-CPU state of a session. */
struct pmuctx_sess_cpu {
	struct pmuctx_ring	ring;
	struct perf_event	*ev[PMUCTX_MAX_EVENTS];
	u64			folded[PMUCTX_MAX_EVENTS]; /* exited tasks */
	unsigned int		pool_nr;
	struct pmuctx_entry	*pool[PMUCTX_POOL_MAX];
	struct irq_work		refill;
	struct pmuctx_session	*sess;
	int			cpu;		/* whose this is */
	u64			dropped;
	struct hrtimer		timer;		/* sampling */
	u64			last_tick;	/* local_clock() of the last tick */
	u64			cur_period;	/* throttled period, ns */
	u64			avg_took;	/* interrupt cost, ns (EWMA) */
	/* sampling on counter overflow (sample_event != 0) */
	struct perf_event	*sample_ev;
	struct pmuctx_sample_stage *stage;
	/*
	 * READ's running time (pmuctx_entry_stop()), written by this CPU
	 * with IRQs off: ns of the slices that ended here, and per event the
	 * part of them whose counter was not active at the slice's end.
	 */
	u64			slice_ns;
	u64			lost_ns[PMUCTX_MAX_EVENTS];
};

enum pmuctx_sess_state {
	PMUCTX_SS_NEW = 0,	/* fd open, no SESSION_CREATE yet */
	PMUCTX_SS_LIVE,
	PMUCTX_SS_DEAD,		/* being torn down: probes ignore it */
};

struct pmuctx_session {
	/*
	 * The fd holds one reference, every entry one: the struct outlives
	 * close() while a deferred unwind still holds an entry.
	 */
	refcount_t		ref;
	struct mutex		lock;		/* serializes this session's ioctls */
	struct mem_cgroup	*memcg;		/* creator's: pays for entries */
	int			state;		/* enum pmuctx_sess_state */
	bool			enabled;
	bool			owner_perfmon;	/* creator had CAP_PERFMON */
	bool			exclude_kernel;
	u32			flags;		/* PMUCTX_SESSION_* */
	u32			target;
	u32			backend;
	u32			data_size;
	u32			nr_events;
	u32			events[PMUCTX_MAX_EVENTS];
	u32			entry_size;	/* pmuctx_entry_size() */
	u32			defer_offset;	/* 0: no struct pmuctx_defer */
	u32			maps_offset;	/* 0: no struct pmuctx_maps */
	u32			max_exited;
	struct pid_namespace	*pid_ns;
	struct cgroup		*cgrp;
	struct pmuctx_user	*user;		/* unprivileged owner's share */
	bool			user_charged;	/* counted in user->sessions */
	struct pmuctx_sess_cpu __percpu *cpu;

	u64			enabled_at;
	u64			time_enabled;
	atomic64_t		tasks_seen;
	atomic64_t		tasks_exited;
	atomic64_t		priv_exec;
	atomic64_t		unlisted;

	/*
	 * Exited tasks kept for per-task reads (KEEP_EXITED): pushed by
	 * retire (probes) with llist_add(), which takes no
	 * lock, so the exit probe complies with PREEMPT_RT; walked by the
	 * session's ioctls (never removed while they run) and emptied by
	 * teardown with llist_del_all().  Newest first.
	 */
	struct llist_head	exited;
	atomic_t		nr_exited;	/* at most max_exited */

	raw_spinlock_t		entries_lock;	/* entries; see the top */
	struct list_head	entries;	/* hashed entries (RCU) */
	/*
	 * Entries of tasks that joined the cgroup, made by the attach probe
	 * (IRQs off: no insert there) and hashed by join_work.  Linked by
	 * exit_node (never on the exited list at the same time).
	 */
	struct llist_head	joining;
	struct work_struct	join_work;

	struct list_head	node;		/* pmuctx_counting */
	struct list_head	adopt_node;	/* pmuctx_adopters (RCU) */

	/* ring buffers (ring.c); ring_area NULL: none */
	void			*ring_area;	/* vmap() of ring_page[] */
	struct page		**ring_page;	/* memcg-charged pages */
	struct user_struct	*ring_user;	/* charged for locked_vm */
	u64			ring_size;	/* data bytes per CPU */
	u64			trigger_threshold;
	u32			ring_pages;
	u32			ring_mode;
	u32			ring_records;	/* PMUCTX_REC_MASK_* */
	u32			wakeup_bytes;
	u32			trigger_idx;	/* 1 + event index; 0: none */
	bool			ring_frozen;
	bool			ring_triggered;
	atomic_t		ring_mapped;	/* VMAs mapping the buffers */
	wait_queue_head_t	ring_wq;	/* read(2), poll() */
	struct irq_work		ring_wake;	/* wakes ring_wq from probes */

	/* sampling (sample.c); sample_freq 0: none */
	u64			sample_period_ns;
	u32			sample_freq;
	u32			sample_flags;
	u32			sample_max_stack;
	u32			sample_event;	/* 0: hrtimer; else PMUCTX_EV_* */
	bool			show_kaddr;	/* kallsyms_show_value() rules */
};

static inline bool pmuctx_rec_on(const struct pmuctx_session *s, u32 mask)
{
	return s->ring_area && (s->ring_records & mask);
}

static inline u64 *pmuctx_snap(struct pmuctx_entry *e)
{
	return e->data;
}

static inline u64 *pmuctx_total(struct pmuctx_entry *e)
{
	return e->data + e->sess->nr_events;
}

/* The entry's MMAP-record state (maps.c), or NULL. */
static inline struct pmuctx_maps *pmuctx_maps(struct pmuctx_entry *e)
{
	u32 off = e->sess->maps_offset;

	return off ? (struct pmuctx_maps *)((u8 *)e + off) : NULL;
}

/* The entry's deferred-callchain state, or NULL outside sampling sessions. */
static inline struct pmuctx_defer *pmuctx_defer(struct pmuctx_entry *e)
{
	u32 off = e->sess->defer_offset;

	return off ? (struct pmuctx_defer *)((u8 *)e + off) : NULL;
}

static inline atomic64_t *pmuctx_children(struct pmuctx_entry *e)
{
	return (atomic64_t *)(e->data + 2 * e->sess->nr_events);
}

static inline u64 *pmuctx_save(struct pmuctx_entry *e)
{
	return e->data + 3 * e->sess->nr_events;
}

static inline bool pmuctx_sess_live(const struct pmuctx_session *s)
{
	return READ_ONCE(s->state) == PMUCTX_SS_LIVE;
}

/*
 * System-wide and cgroup sessions adopt tasks: every thread at create, then
 * forked children and (cgroup) threads moved into the cgroup.
 */
static inline bool pmuctx_sess_adopts(const struct pmuctx_session *s)
{
	return s->target == PMUCTX_TARGET_SYSTEM ||
	       s->target == PMUCTX_TARGET_CGROUP;
}

/* main.c: module parameters and global statistics */
extern unsigned int pmuctx_max_tasks;
extern unsigned int pmuctx_pool_size;
extern unsigned int pmuctx_max_exited_default;
extern unsigned int pmuctx_max_sessions_per_user;
extern unsigned int pmuctx_max_tasks_per_user;
extern atomic_t pmuctx_selftest_inject;
extern int pmuctx_selftest_inject_pid;

struct pmuctx_stats {
	atomic_t	entries;	/* alive entries (not pool) */
	atomic64_t	bytes;		/* entry + pool memory */
	atomic64_t	created;
	atomic64_t	freed;
	atomic64_t	alloc_failures;
	atomic64_t	pool_entries;
	atomic64_t	dropped;
	atomic64_t	selftest_checks;
	atomic64_t	selftest_mismatches;
	atomic64_t	selftest_migrations;
	atomic_t	sessions;
};

extern struct pmuctx_stats pmuctx_stats;
extern struct mutex pmuctx_mutex;

/* chrdev.c */
int pmuctx_chrdev_init(void);
void pmuctx_chrdev_exit(void);

/* ioctl.c */
long pmuctx_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* store.c */
extern struct rhltable pmuctx_store;
extern const struct rhashtable_params pmuctx_store_params;
int pmuctx_store_get(void);
void pmuctx_store_put(void);
void pmuctx_entry_size(struct pmuctx_session *s, bool sampling, bool maps);
int pmuctx_entry_caches_init(void);
void pmuctx_entry_caches_destroy(void);
struct pmuctx_entry *pmuctx_entry_alloc(struct pmuctx_session *s, gfp_t gfp);
struct pmuctx_entry *pmuctx_pool_pop(struct pmuctx_session *s);
void pmuctx_pool_push(struct pmuctx_session *s, struct pmuctx_entry *e);
int pmuctx_pool_fill(struct pmuctx_session *s, int cpu, gfp_t gfp);
void pmuctx_pool_drain(struct pmuctx_session *s);
void pmuctx_pool_refill_fn(struct irq_work *work);
bool pmuctx_entry_init(struct pmuctx_entry *e, struct pmuctx_session *s,
		       struct task_struct *t, struct pmuctx_entry *parent);
void pmuctx_entry_free_unused(struct pmuctx_entry *e);
void pmuctx_entry_put(struct pmuctx_entry *e);
void pmuctx_task_work_done(void);
bool pmuctx_entry_task_work(struct pmuctx_entry *e, struct callback_head *cb,
			    task_work_func_t fn, bool *pending);
void pmuctx_entry_unparent(struct pmuctx_entry *e);
void pmuctx_entry_retire(struct pmuctx_entry *e);
int pmuctx_entry_publish(struct pmuctx_entry *e, bool adopt);
bool pmuctx_entry_unpublish(struct pmuctx_entry *e);

/* hooks.c */
int pmuctx_hooks_register(void);
void pmuctx_hooks_unregister(void);
void pmuctx_cpu_sync(void *info);
void pmuctx_cpu_forget(void *info);
void pmuctx_cpu_forget_entry(void *info);
void pmuctx_cpu_swap_counters(void *info);
void pmuctx_entry_start(struct pmuctx_entry *e, u64 now, int cpu);
struct pmuctx_entry *pmuctx_current_entry(struct pmuctx_session *s);
struct pmuctx_entry *pmuctx_task_entry(struct pmuctx_session *s,
				       struct task_struct *t);
struct pmuctx_entry *pmuctx_sess_entry(struct pmuctx_session *s,
				       struct task_struct *t);
void pmuctx_adopt(struct pmuctx_session *s, struct task_struct *t,
		  struct task_struct *parent);
int pmuctx_hooks_cgroup_get(void);
void pmuctx_hooks_cgroup_put(void);
extern struct list_head pmuctx_adopters;

/* counters.c */
extern bool pmuctx_hw_pmu;
extern struct list_head pmuctx_counting;
int pmuctx_hotplug_init(void);
void pmuctx_hotplug_exit(void);
bool pmuctx_sess_uses_perf(const struct pmuctx_session *s);

/* New counters of a session for one CPU, swapped in on that CPU. */
struct pmuctx_swap {
	struct pmuctx_session	*s;
	struct perf_event	*ev[PMUCTX_MAX_EVENTS];	/* NULL: keep */
};

void pmuctx_detect_hw_pmu(void);
int pmuctx_counters_create(struct pmuctx_session *s);
void pmuctx_counters_destroy(struct pmuctx_session *s);
int pmuctx_event_validate(u32 id);
bool pmuctx_event_is_native(u32 id);
u64 pmuctx_counter_read(struct perf_event *ev, bool *active);
int pmuctx_sample_counters_create(struct pmuctx_session *s,
				  perf_overflow_handler_t fn);

/* ring.c */
extern unsigned int pmuctx_max_ring_pages;
extern unsigned int pmuctx_selftest_attach_delay_ms;
extern unsigned int pmuctx_selftest_task_work_tail_ms;
extern unsigned int pmuctx_selftest_revive_delay_ms;
int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a);
void pmuctx_ring_init(struct pmuctx_session *s);
int pmuctx_ring_create(struct pmuctx_session *s, u32 pages, u32 mode,
		       u32 records, u32 wakeup);
void pmuctx_ring_destroy(struct pmuctx_session *s);
void pmuctx_ring_switch(struct pmuctx_session *s, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state,
			bool preempt, const u64 *delta);
void pmuctx_ring_fork(struct pmuctx_session *s, struct task_struct *parent,
		      struct task_struct *child);
void pmuctx_ring_exec(struct pmuctx_session *s, struct task_struct *p,
		      const char *filename);
void pmuctx_ring_exit(struct pmuctx_session *s, struct task_struct *p,
		      const u64 *values);
void pmuctx_ring_comm(struct pmuctx_session *s, struct task_struct *t);
int pmuctx_ring_user(struct pmuctx_session *s, const void *buf, u32 len);
void pmuctx_ring_trigger(struct pmuctx_session *s);
int pmuctx_ring_snapshot(struct pmuctx_session *s);
int pmuctx_ring_resume(struct pmuctx_session *s);
__poll_t pmuctx_ring_poll(struct pmuctx_session *s, struct file *file,
			  struct poll_table_struct *pt);
int pmuctx_ring_consume(struct pmuctx_session *s,
			const struct pmuctx_ring_consume *c);
ssize_t pmuctx_ring_read(struct pmuctx_session *s, struct file *file,
			 char __user *buf, size_t len);
int pmuctx_ring_mmap(struct pmuctx_session *s, struct vm_area_struct *vma);

/* sample.c */
extern unsigned int pmuctx_max_sample_freq;
int pmuctx_sample_attr_validate(const struct pmuctx_session_attr *a);
int pmuctx_sample_init(struct pmuctx_session *s,
		       const struct pmuctx_session_attr *a, bool show_kaddr);
void pmuctx_sample_start(struct pmuctx_session *s);
void pmuctx_sample_stop(struct pmuctx_session *s);
void pmuctx_sample_overflow(struct perf_event *ev,
			    struct perf_sample_data *data,
			    struct pt_regs *regs);
void pmuctx_sample_destroy(struct pmuctx_session *s);
void pmuctx_ring_add_lost(struct pmuctx_session *s, u64 n);
void pmuctx_ring_sample(struct pmuctx_session *s,
			const struct pmuctx_entry *e, u16 misc, u64 ip,
			u64 period, u64 cookie, const unsigned long *kst,
			unsigned int nk, const u64 *ust, unsigned int nu);
void pmuctx_ring_user_callchain(struct pmuctx_session *s, u64 cookie,
				const u64 *ips, unsigned int n, bool trunc);
void pmuctx_ring_throttle(struct pmuctx_session *s, bool on, u64 period,
			  u64 avg);
void pmuctx_ring_mmap_rec(struct pmuctx_session *s,
			  const struct pmuctx_mmap_info *mi);

/* maps.c */
bool pmuctx_maps_wanted(struct pmuctx_entry *e, const u64 *ips,
			unsigned int n);
void pmuctx_maps_scan(struct pmuctx_entry *e);
void pmuctx_maps_queue(struct pmuctx_entry *e);
void pmuctx_maps_exec(struct pmuctx_entry *e);

/* perm.c */
int pmuctx_sysctl_init(void);
void pmuctx_sysctl_exit(void);
int pmuctx_perf_paranoid(void);
bool pmuctx_show_kaddr(int paranoid, bool perfmon);
int pmuctx_may_monitor(struct task_struct *t);
int pmuctx_may_create(const struct pmuctx_session_attr *a, int paranoid,
		      bool perfmon);
bool pmuctx_exclude_kernel(int paranoid, bool perfmon);
int pmuctx_user_charge(struct pmuctx_session *s, bool privileged);
void pmuctx_user_uncharge(struct pmuctx_session *s);
void pmuctx_user_put(struct pmuctx_session *s);

/* session.c */
void pmuctx_session_put(struct pmuctx_session *s);
struct pmuctx_session *pmuctx_session_alloc(void);
void pmuctx_session_release(struct pmuctx_session *s);
int pmuctx_session_create(struct pmuctx_session *s,
			  const struct pmuctx_session_attr *a);
void pmuctx_session_enable(struct pmuctx_session *s);
void pmuctx_session_disable(struct pmuctx_session *s);
void pmuctx_session_reset(struct pmuctx_session *s);
int pmuctx_session_read(struct pmuctx_session *s, struct pmuctx_read *r,
			struct pmuctx_task_values **tvp);
bool pmuctx_session_matches(struct pmuctx_session *s, struct task_struct *t);
void pmuctx_join_work_fn(struct work_struct *work);

#endif /* _PMUCTX_INTERNAL_H */
