// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: sessions - what an open /dev/pmuctx file counts.
 *
 * The lifecycle of a session: allocated at open(), made by SESSION_CREATE
 * (the attr checked, the targets resolved, attached or adopted), enabled,
 * disabled, read and reset, torn down at the last close().  The ioctls
 * come from ioctl.c under sess->lock with kernel structs: ioctl.c copies
 * them in and out, nothing here touches user memory.  Permissions (the
 * rules, the sysctls they read, the ptrace check) and the per-user limits
 * are in perm.c.
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "counters.h"
#include "evdesc.h"
#include "hookreg.h"
#include "hooks.h"
#include "hotplug.h"
#include "maps.h"
#include "members.h"
#include "params.h"
#include "perm.h"
#include "records.h"
#include "ring.h"
#include "sample.h"
#include "selftest.h"
#include "session.h"
#include "store.h"
#include "tasksrc.h"
#include "testhooks.h"

#define PMUCTX_MAX_EXITED	BIT(20)

/*
 * Fold the running slices of @s on every CPU (pmuctx_cpu_sync()), and
 * open or close them after ENABLE or DISABLE (the join worker does the
 * same: members.c).  A switchless session has no slices: its entries are
 * read from their tasks (tasksrc.c).  For an ioctl of the session's
 * owner: an unprivileged user's folds are paced (pmuctx_user_pace_sync(),
 * SECURITY.md).
 */
static void pmuctx_sess_sync_paced(struct pmuctx_session *s)
{
	if (s->switchless)
		return;
	pmuctx_user_pace_sync(s);
	on_each_cpu(pmuctx_cpu_sync, s, 1);
}

struct pmuctx_session *pmuctx_session_alloc(void)
{
	struct pmuctx_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	refcount_set(&s->ref, 1);
	mutex_init(&s->lock);
	init_llist_head(&s->exited);
	raw_spin_lock_init(&s->entries_lock);
	INIT_LIST_HEAD(&s->entries);
	init_llist_head(&s->joining);
	INIT_WORK(&s->join_work, pmuctx_join_work_fn);
	INIT_LIST_HEAD(&s->adopt_node);
	INIT_LIST_HEAD(&s->node);
	pmuctx_ring_init(&s->ring);
	return s;
}

void pmuctx_session_put(struct pmuctx_session *s)
{
	if (refcount_dec_and_test(&s->ref)) {
		pmuctx_user_put(s);
		mutex_destroy(&s->lock);
		kfree(s);
	}
}

static int pmuctx_attr_validate(const struct pmuctx_session_attr *a)
{
	unsigned int i;
	int ret;

	if (a->flags & ~PMUCTX_SESSION_FLAGS_ALL || a->__reserved)
		return -EINVAL;
	switch (a->target) {
	case PMUCTX_TARGET_PID:
		if (a->pid < 0 || (a->cgroup_fd != 0 && a->cgroup_fd != -1))
			return -EINVAL;
		break;
	case PMUCTX_TARGET_CGROUP:
		if (a->pid || a->cgroup_fd < 0)
			return -EINVAL;
		if (a->flags & PMUCTX_SESSION_THREAD)
			return -EINVAL;
		break;
	case PMUCTX_TARGET_SYSTEM:
		if (a->pid || (a->cgroup_fd != 0 && a->cgroup_fd != -1))
			return -EINVAL;
		if (a->flags & PMUCTX_SESSION_THREAD)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (a->nr_events < 1 || a->nr_events > PMUCTX_MAX_EVENTS)
		return -EINVAL;
	for (i = 0; i < PMUCTX_MAX_EVENTS; i++) {
		if (i >= a->nr_events) {
			if (a->events[i])
				return -EINVAL;
			continue;
		}
		if (pmuctx_event_validate(a->events[i]))
			return -EINVAL;
	}
	switch (a->backend) {
	case PMUCTX_BACKEND_NONE:
		if (a->data_size)
			return -EINVAL;
		break;
	case PMUCTX_BACKEND_SELFTEST:
		if (a->data_size < 8 || a->data_size > PMUCTX_MAX_DATA_SIZE)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (a->max_exited > PMUCTX_MAX_EXITED)
		return -EINVAL;
	if (a->__reserved2)
		return -EINVAL;
	ret = pmuctx_ring_attr_validate(a, READ_ONCE(pmuctx_max_ring_pages));
	if (ret)
		return ret;
	ret = pmuctx_sample_attr_validate(a);
	if (ret)
		return ret;
	/* modes and raw events; no event twice in the same modes */
	ret = pmuctx_evdesc_validate(a);
	if (ret)
		return ret;
	/* a well-formed struct: a release build has no SELFTEST backend */
	return pmuctx_selftest_backend_check(a);
}

/*
 * The session's ring (SESSION_CREATE; ringbench.c), its pages charged to
 * the caller's locked memory first, as perf_mmap() does: over
 * RLIMIT_MEMLOCK (all rings of the user together) without CAP_IPC_LOCK
 * is EPERM.  @records: the record types that go to it.  Process context,
 * s->cpu allocated, the session not live yet.  Nothing of @s changes on
 * error.
 */
int pmuctx_session_ring_create(struct pmuctx_session *s, u32 pages, u32 mode,
			       u32 records, u32 wakeup)
{
	struct user_struct *user;
	unsigned long total;
	int ret;

	if (!pages)
		return 0;
	total = pmuctx_ring_total_pages(pages);
	user = get_current_user();
	ret = pmuctx_user_lock_pages(s, user, total);
	if (ret)
		goto err_user;
	ret = pmuctx_ring_create(&s->ring, &s->cpu->ring, pages, mode, wakeup);
	if (ret)
		goto err_uncharge;
	s->ring_user = user;
	s->ring_records = records;
	return 0;

err_uncharge:
	pmuctx_user_unlock_pages(s, user, total);
err_user:
	free_uid(user);
	return ret;
}

/* The ring and its charge: no writer, reader or mapping left. */
void pmuctx_session_ring_destroy(struct pmuctx_session *s)
{
	unsigned long total = pmuctx_ring_total_pages(s->ring.pages);

	pmuctx_ring_destroy(&s->ring);
	if (s->ring_user) {
		pmuctx_user_unlock_pages(s, s->ring_user, total);
		free_uid(s->ring_user);
		s->ring_user = NULL;
	}
	/* a create that failed after the ring may be retried on this file */
	s->ring_records = 0;
}

static void pmuctx_session_free_parts(struct pmuctx_session *s)
{
	pmuctx_sample_destroy(s);
	pmuctx_user_uncharge(s);
	pmuctx_session_ring_destroy(s);
	if (s->cpu) {
		pmuctx_pool_drain(s);
		pmuctx_counters_destroy(s);
		free_percpu(s->cpu);
		s->cpu = NULL;
	}
	if (s->cgrp) {
		cgroup_put(s->cgrp);
		s->cgrp = NULL;
	}
	if (s->pid_ns) {
		put_pid_ns(s->pid_ns);
		s->pid_ns = NULL;
	}
	mem_cgroup_put(s->memcg);
	s->memcg = NULL;
}

/*
 * Whether the pool of @cpu is filled at create.  sched_switch cannot
 * allocate: adoption (system-wide, cgroup) takes pool entries on any
 * CPU, and so does the fork probe of an INHERIT session on PREEMPT_RT.
 * Elsewhere the fork probe allocates first (GFP_NOWAIT) and falls back to
 * the pool, which matters when the creator's memory cgroup is at its
 * limit (a GFP_NOWAIT charge cannot reclaim): the pools of the CPUs where
 * the targets are now (and this one) are filled, the others at their
 * first use.  A pid session without inheritance allocates all its
 * entries at create and never has a pool.
 */
static bool pmuctx_sess_prefill(const struct pmuctx_session *s, int cpu,
				const struct pmuctx_members *m)
{
	if (s->target != PMUCTX_TARGET_PID)
		return true;
	if (!(s->flags & PMUCTX_SESSION_INHERIT))
		return false;
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || cpu == raw_smp_processor_id())
		return true;
	return pmuctx_members_on_cpu(m, cpu);
}

/*
 * irq_work of the CPU whose pool ran low (pmuctx_pool_pop(), store.c):
 * hardirq, or on PREEMPT_RT the irq_work thread of that CPU (see
 * pmuctx_pool_fill()).  A dead session's pool is not refilled.
 */
static void pmuctx_pool_refill_fn(struct irq_work *work)
{
	struct pmuctx_sess_cpu *sc = container_of(work, struct pmuctx_sess_cpu,
						  refill);
	struct pmuctx_session *s = sc->sess;

	if (!pmuctx_sess_live(s))
		return;
	pmuctx_pool_fill(s, sc->cpu, GFP_ATOMIC | __GFP_NOWARN);
}

/*
 * Session creation: lay out @s's entries (the counts, the save area, the
 * deferred-callchain state if @sampling, the MMAP-record state if @maps
 * too, the slice accumulators if @slices) and pick their size: the store
 * rounds it to its allocation (pmuctx_entry_alloc_size()).  The layout is
 * the session's and its writers': the store only holds the bytes.
 */
static void pmuctx_entry_size(struct pmuctx_session *s, bool sampling,
			      bool maps, bool slices)
{
	unsigned int i;
	size_t size;

	/*
	 * A snapshot slot per counter-backed event (pmuctx_entry_start());
	 * none in a switchless session, which reads no counter.  The
	 * module's own events (task-clock, context-switches,
	 * cpu-migrations; pmuctx_event_is_native()) go to their masks.
	 */
	/* the masks and snap_ev[] are u8: one bit, one index per event */
	BUILD_BUG_ON(PMUCTX_MAX_EVENTS > 8);
	/* e->size is a u16 (the biggest layout below, cache rounding) */
	BUILD_BUG_ON(sizeof(struct pmuctx_entry) +
		     3 * sizeof(u64) * PMUCTX_MAX_EVENTS + PMUCTX_MAX_DATA_SIZE +
		     2 * sizeof(u64) +
		     sizeof(struct pmuctx_defer) + sizeof(struct pmuctx_maps) +
		     sizeof(u64) * PMUCTX_MAX_EVENTS + 2 * sizeof(u64) >
		     U16_MAX);
	s->nr_snap = 0;
	s->clock_mask = 0;
	s->cs_mask = 0;
	s->migr_mask = 0;
	s->rot_mask = 0;
	for (i = 0; i < s->nr_events; i++) {
		u32 id = s->events[i];

		s->snap_slot[i] = 0;
		if (id == PMUCTX_EV_TASK_CLOCK) {
			s->clock_mask |= BIT(i);
		} else if (id == PMUCTX_EV_CONTEXT_SWITCHES) {
			s->cs_mask |= BIT(i);
		} else if (id == PMUCTX_EV_CPU_MIGRATIONS) {
			s->migr_mask |= BIT(i);
		} else if (!s->switchless && !pmuctx_event_is_native(id)) {
			if (!s->owner_perfmon && pmuctx_event_on_pmu(id))
				s->rot_mask |= BIT(s->nr_snap);
			s->snap_ev[s->nr_snap] = i;
			s->snap_slot[i] = s->nr_snap++;
		}
	}
	size = sizeof(struct pmuctx_entry) +
	       sizeof(u64) * (2 * s->nr_events + s->nr_snap) + s->data_size;
	/* the debug build's SELFTEST backend keeps its state after it */
	size += pmuctx_selftest_entry_extra(s, size);
	s->defer_offset = 0;
	s->maps_offset = 0;
	s->slice_offset = 0;
	if (sampling) {
		size = ALIGN(size, __alignof__(struct pmuctx_defer));
		s->defer_offset = size;
		size += sizeof(struct pmuctx_defer);
	}
	if (sampling && maps) {
		size = ALIGN(size, __alignof__(struct pmuctx_maps));
		s->maps_offset = size;
		size += sizeof(struct pmuctx_maps);
	}
	if (slices) {
		size = ALIGN(size, sizeof(u64));
		s->slice_offset = size;
		size += sizeof(u64) * s->nr_events;
	}
	s->entry_size = pmuctx_entry_alloc_size(size);
}

/* SESSION_CREATE: the fields of @s from @a, checked (attr_validate) */
static void pmuctx_session_setup(struct pmuctx_session *s,
				 const struct pmuctx_session_attr *a,
				 int paranoid, bool perfmon)
{
	s->flags = a->flags;
	s->target = a->target;
	s->backend = a->backend;
	s->data_size = a->data_size;
	s->nr_events = a->nr_events;
	memcpy(s->events, a->events, sizeof(s->events));
	memcpy(s->ev_desc, a->event_desc, sizeof(s->ev_desc));
	s->owner_perfmon = perfmon;
	s->switchless = pmuctx_attr_switchless(a);
	s->exclude_kernel = pmuctx_exclude_kernel(paranoid, perfmon);
	s->max_exited = a->max_exited ? a->max_exited :
					READ_ONCE(pmuctx_max_exited_default);
	pmuctx_entry_size(s, a->sample_freq != 0,
			  (a->sample_flags & PMUCTX_SAMPLE_USER_STACK) &&
			  (a->ring_records & PMUCTX_REC_MASK_MMAP),
			  a->ring_pages && ((a->ring_records &
					     PMUCTX_REC_MASK_SWITCH) ||
					    a->trigger_event));
}

/*
 * SESSION_CREATE: what @s holds besides its members, the session not live
 * yet: the per-CPU data, the counters, the ring, sampling, the pools of
 * the CPUs where @m's tasks are.  On error the caller frees them all
 * (pmuctx_session_free_parts()).  Process context.
 */
static int pmuctx_session_parts(struct pmuctx_session *s,
				const struct pmuctx_session_attr *a,
				const struct pmuctx_members *m, int paranoid,
				bool perfmon)
{
	int cpu, ret;

	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	s->memcg = get_mem_cgroup_from_mm(current->mm);
	s->cpu = alloc_percpu_gfp(struct pmuctx_sess_cpu, GFP_KERNEL_ACCOUNT);
	if (!s->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		sc->sess = s;
		sc->cpu = cpu;
		init_irq_work(&sc->refill, pmuctx_pool_refill_fn);
	}
	ret = pmuctx_counters_create(s);
	if (ret)
		return ret;
	ret = pmuctx_session_ring_create(s, a->ring_pages, a->ring_mode,
					 a->ring_records, a->wakeup_bytes);
	if (ret)
		return ret;
	s->trigger_idx = a->trigger_event;
	s->trigger_threshold = a->trigger_threshold;
	ret = pmuctx_sample_init(s, a, pmuctx_show_kaddr(paranoid, perfmon));
	if (ret)
		return ret;
	/*
	 * Pools on CPUs online now; one that comes online later is filled
	 * by its refill irq_work at its first use (a task adopted there
	 * before that is counted as dropped).
	 */
	for_each_online_cpu(cpu) {
		if (!pmuctx_sess_prefill(s, cpu, m))
			continue;
		ret = pmuctx_pool_fill(s, cpu, GFP_KERNEL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * SESSION_CREATE, under pmuctx_mutex: take the probes @s needs and make
 * it live, on the lists of the adopting and counting sessions.  Nothing
 * changes on error.
 */
static int pmuctx_session_go_live(struct pmuctx_session *s)
{
	int ret;

	ret = pmuctx_hooks_lifecycle_get();
	if (ret)
		return ret;
	if (!s->switchless) {
		ret = pmuctx_hooks_switch_get();
		if (ret)
			goto err_lifecycle;
	}
	if (s->target == PMUCTX_TARGET_CGROUP) {
		ret = pmuctx_hooks_cgroup_get();
		if (ret)
			goto err_switch;
	}
	atomic_inc(&pmuctx_stats.sessions);
	/* everything above is visible to mmap() once it sees LIVE */
	smp_store_release(&s->state, PMUCTX_SS_LIVE);
	if (pmuctx_sess_adopts(s))
		list_add_rcu(&s->adopt_node, &pmuctx_adopters);
	if (pmuctx_sess_uses_perf(s))
		list_add(&s->node, &pmuctx_counting);
	return 0;

err_switch:
	if (!s->switchless)
		pmuctx_hooks_switch_put();
err_lifecycle:
	pmuctx_hooks_lifecycle_put();
	return ret;
}

/*
 * SESSION_CREATE, after the policy: every raw event (PMUCTX_EV_RAW) of
 * @a, and its sample event, as its PMU sees it from the caller
 * (pmuctx_raw_probe()).  Nothing is kept.
 */
static int pmuctx_session_raw_probe(const struct pmuctx_session *s,
				    const struct pmuctx_session_attr *a)
{
	unsigned int i;
	int ret;

	for (i = 0; i < a->nr_events; i++) {
		if (a->events[i] != PMUCTX_EV_RAW)
			continue;
		ret = pmuctx_raw_probe(s, &a->event_desc[i]);
		if (ret)
			return ret;
	}
	if (a->sample_freq && a->sample_event == PMUCTX_EV_RAW)
		return pmuctx_raw_probe(s, &a->sample_desc);
	return 0;
}

/*
 * PMUCTX_IOC_SESSION_CREATE, process context, s->lock held.  @a is the
 * caller's attr, already read in by the ioctl (ioctl.c), which also
 * refused a session that is not new (EBUSY) before reading it: the order
 * of the checks (docs/ABI.md) goes on here with the fields.  A failure
 * leaves the fd without a session: it can be retried.
 */
int pmuctx_session_create(struct pmuctx_session *s,
			  const struct pmuctx_session_attr *a)
{
	struct pmuctx_members m = {};
	int paranoid, ret;
	bool perfmon;

	ret = pmuctx_attr_validate(a);
	if (ret)
		return ret;

	paranoid = pmuctx_perf_paranoid();
	perfmon = perfmon_capable();
	ret = pmuctx_may_create(a, paranoid, perfmon);
	if (ret)
		return ret;

	pmuctx_session_setup(s, a, paranoid, perfmon);
	/* the PMU of each raw event takes it from this caller (counters.c) */
	ret = pmuctx_session_raw_probe(s, a);
	if (ret)
		return ret;
	/* overflow sampling needs CAP_PERFMON: events decide (may_create) */
	ret = pmuctx_user_charge(s, perfmon, pmuctx_sess_uses_perf(s),
				 pmuctx_sess_pmu_counters(s));
	if (ret)
		return ret;

	if (a->target == PMUCTX_TARGET_CGROUP) {
		s->cgrp = pmuctx_cgroup_get(a->cgroup_fd);	/* no O_PATH */
		if (IS_ERR(s->cgrp)) {
			ret = PTR_ERR(s->cgrp);
			s->cgrp = NULL;
			goto err_parts;
		}
	}
	ret = pmuctx_members_resolve(a, &m);
	if (ret)
		goto err_parts;
	ret = pmuctx_session_parts(s, a, &m, paranoid, perfmon);
	if (ret)
		goto err_members;
	ret = pmuctx_members_alloc(s, &m);
	if (ret)
		goto err_members;
	ret = pmuctx_members_lock(&m);
	if (ret)
		goto err_members;

	mutex_lock(&pmuctx_mutex);
	ret = pmuctx_session_go_live(s);
	mutex_unlock(&pmuctx_mutex);
	if (ret)
		goto err_members;

	pmuctx_members_attach(s, &m);
	return 0;

err_members:
	pmuctx_members_release(&m);
err_parts:
	pmuctx_session_free_parts(s);
	/* no entry was ever initialized: the user's reference goes too */
	pmuctx_user_put(s);
	return ret;
}

/* ---- walking a session's entries --------------------------------------- */
/*
 * Whether a hashed entry of @s belongs to a task that was reaped and has
 * switched out for the last time, and waits to be freed (its fold comes
 * with pmuctx_probe_free()).  The task reference is held while the entry
 * is listed: whoever retires or drops it unlists it under entries_lock
 * first.
 */
static bool pmuctx_sess_reaped(struct pmuctx_session *s)
{
	struct pmuctx_entry *e;
	struct task_struct *t;
	bool any = false;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &s->entries, sess_node) {
		if (!(READ_ONCE(e->flags) & PMUCTX_EF_EXITED))
			continue;
		raw_spin_lock(&s->entries_lock);
		t = e->task;
		any = e->listed && !(e->flags & PMUCTX_EF_FOLDED) &&
		      READ_ONCE(t->exit_state) == EXIT_DEAD &&
		      READ_ONCE(t->__state) == TASK_DEAD &&
		      /* pairs with finish_task(): the switch-out is over */
		      !smp_load_acquire(&t->on_cpu);
		raw_spin_unlock(&s->entries_lock);
		if (any)
			break;
	}
	rcu_read_unlock();
	return any;
}

/*
 * rcu_barrier() for pmuctx_sess_settle(), at most one every
 * PMUCTX_BARRIER_GAP_NS system-wide: a caller that comes sooner sleeps
 * until then, and callers that come together share one barrier
 * (rcu_barrier() does that), so no user's READ loop makes a storm of
 * them (each entrains a callback on every CPU that has some, and flushes
 * lazy ones).  Process context.
 */
#define PMUCTX_BARRIER_GAP_NS	(10 * NSEC_PER_MSEC)

static void pmuctx_rcu_barrier_paced(void)
{
	static atomic64_t next_ns = ATOMIC64_INIT(0);
	u64 now = ktime_get_ns(), next = atomic64_read(&next_ns);

	if (now < next)
		usleep_range((next - now) / NSEC_PER_USEC,
			     (next - now) / NSEC_PER_USEC + 1000);
	atomic64_set(&next_ns, ktime_get_ns() + PMUCTX_BARRIER_GAP_NS);
	rcu_barrier();
}

/*
 * A per-task READ, first: an entry folds into its parent's children
 * totals when its task is freed, a grace period after the reap and the
 * final switch-out (up to seconds with lazy RCU).  The session's totals
 * count an unfolded entry as live either way; the children totals of
 * the per-task values would lag behind the wait4() that reaped the task.
 * So the frees of reaped tasks that have switched out for good are
 * waited for: rcu_barrier() runs the pending delayed_put_task_struct()
 * callbacks (lazy ones too), whose probe queues the free work, which is
 * flushed.  Two rounds: a task seen off its CPU may queue its free just
 * after the first barrier.  Process context, the session's ioctl mutex
 * held; waits on nothing user space controls.
 */
static void pmuctx_sess_settle(struct pmuctx_session *s)
{
	unsigned int round;

	for (round = 0; round < 2 && pmuctx_sess_reaped(s); round++) {
		pmuctx_rcu_barrier_paced();
		pmuctx_hooks_flush_free();
	}
}

/*
 * Visit every entry of @s: hashed (its list, O(the session's entries)) and
 * exited.  @v->visit must not sleep: it runs on the RCU read side
 * (hashed) and under the session's ioctl mutex (exited, an llist only
 * pushed to meanwhile).  An entry retired during the walk may be seen in
 * both or in neither.
 */
struct pmuctx_visitor {
	void (*visit)(struct pmuctx_entry *e, struct pmuctx_visitor *v);
};

static void pmuctx_visit_entries(struct pmuctx_session *s,
				 struct pmuctx_visitor *v)
{
	struct pmuctx_entry *e;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &s->entries, sess_node)
		if (!READ_ONCE(e->dead))
			v->visit(e, v);
	rcu_read_unlock();

	/* only added to while a session ioctl runs: see struct pmuctx_session */
	llist_for_each_entry(e, smp_load_acquire(&s->exited.first), exit_node)
		v->visit(e, v);
}

struct pmuctx_read_ctx {
	struct pmuctx_visitor		v;	/* first: container_of */
	struct pmuctx_read		*r;
	struct pmuctx_task_values	*tv;	/* NULL: count only */
	u32				cap;
	u32				count;
};

static void pmuctx_read_visit(struct pmuctx_entry *e, struct pmuctx_visitor *v)
{
	struct pmuctx_read_ctx *c = container_of(v, struct pmuctx_read_ctx, v);
	struct pmuctx_session *s = e->sess;
	struct pmuctx_task_values *tv;
	u64 val[PMUCTX_MAX_EVENTS], chv[PMUCTX_MAX_EVENTS];
	unsigned int i;

	if (s->switchless)
		pmuctx_tsrc_values(e, val);
	else
		pmuctx_total_get(e, READ_ONCE(s->reset_gen), val);
	if (!(e->flags & PMUCTX_EF_FOLDED))
		for (i = 0; i < s->nr_events; i++)
			c->r->values[i] += val[i];
	if (c->tv && c->count < c->cap) {
		tv = &c->tv[c->count];
		memset(tv, 0, sizeof(*tv));
		tv->pid = e->pid;
		tv->tid = e->tid;
		tv->ppid = e->ppid;
		if (e->flags & PMUCTX_EF_EXITED)
			tv->flags |= PMUCTX_TASK_EXITED;
		if (e->flags & PMUCTX_EF_PRIV_EXEC)
			tv->flags |= PMUCTX_TASK_PRIV_EXEC;
		if (e->flags & PMUCTX_EF_INHERITED)
			tv->flags |= PMUCTX_TASK_INHERITED;
		memcpy(tv->comm, e->comm, sizeof(tv->comm));
		tv->comm[sizeof(tv->comm) - 1] = '\0';
		pmuctx_children_get(e, READ_ONCE(s->reset_gen), chv);
		for (i = 0; i < s->nr_events; i++) {
			tv->values[i] = val[i];
			tv->children[i] = chv[i];
		}
	}
	c->count++;
}

static void pmuctx_sum_cpus(struct pmuctx_session *s, struct pmuctx_read *r)
{
	u64 lost[PMUCTX_MAX_EVENTS] = {};
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);
		/* slice times of an earlier RESET are zero (pmuctx_time_now()) */
		bool cur = READ_ONCE(sc->time_gen) == READ_ONCE(s->reset_gen);

		/* the times after their generation: pmuctx_time_now() */
		smp_rmb();
		for (i = 0; i < s->nr_events; i++) {
			r->values[i] += atomic64_read(&sc->folded[i]);
			if (cur)
				lost[i] += READ_ONCE(sc->lost_ns[i]);
		}
		if (cur)
			r->time_slices += READ_ONCE(sc->slice_ns);
		r->tasks_dropped += READ_ONCE(sc->dropped);
	}
	/* a RESET racing a slice's end can leave more lost than slices */
	for (i = 0; i < s->nr_events; i++)
		r->time_running[i] = r->time_slices > lost[i] ?
				     r->time_slices - lost[i] : 0;
}

/*
 * Sum the hashed entries, the exited list and the per-CPU folds into @r
 * (its output fields zero) and fill @c's per-task array.  An entry
 * retired meanwhile moves from the first to the last (pmuctx_entry_
 * take_retire()), and the walk could count it twice or not at all: such
 * a walk is done again.  Retirements come when tasks are reaped, right
 * around the READ that follows a workload's end; a few tries settle it,
 * and a walk that keeps overlapping them (a system-wide session on a
 * fork-heavy machine) is taken as it is after PMUCTX_READ_TRIES.
 */
#define PMUCTX_READ_TRIES	8

static void pmuctx_read_walk(struct pmuctx_session *s, struct pmuctx_read *r,
			     struct pmuctx_read_ctx *c)
{
	unsigned int i, try;
	int gen;

	for (try = 0; ; try++) {
		gen = atomic_read(&s->retired);
		/* pairs with the barriers in pmuctx_entry_take_retire() */
		smp_mb();
		if (!atomic_read(&s->retiring) || try == PMUCTX_READ_TRIES) {
			c->r = r;
			c->count = 0;
			pmuctx_visit_entries(s, &c->v);
			pmuctx_sum_cpus(s, r);
			/* the walk's reads before the second look; see above */
			smp_mb();
			if (try == PMUCTX_READ_TRIES ||
			    (!atomic_read(&s->retiring) &&
			     atomic_read(&s->retired) == gen))
				return;
			for (i = 0; i < PMUCTX_MAX_EVENTS; i++) {
				r->values[i] = 0;
				r->time_running[i] = 0;
			}
			r->time_slices = 0;
			r->tasks_dropped = 0;
		}
		/* a retirement is a few microseconds of a work item */
		usleep_range(20, 100);
	}
}

/*
 * PMUCTX_IOC_READ, process context, s->lock held.  @r is the caller's
 * request, read in and checked by the ioctl (ioctl.c), which copies the
 * answer out: on return @r holds the request header and every output
 * field, and for a per-task read *@tvp the r->nr_tasks per-task values
 * (kvfree() them; NULL when there are none).  -ENOSPC: more tasks than
 * r->nr_tasks asked for, @r is filled with the number needed in
 * r->nr_tasks, and *@tvp is NULL: the ioctl writes nothing to the array.
 * Returns 0, -ENOSPC, -EINVAL or -ENOMEM.
 */
int pmuctx_session_read(struct pmuctx_session *s, struct pmuctx_read *r,
			struct pmuctx_task_values **tvp)
{
	struct pmuctx_read_ctx c = { .v.visit = pmuctx_read_visit };
	u32 want;

	*tvp = NULL;
	if (READ_ONCE(s->state) != PMUCTX_SS_LIVE)
		return -EINVAL;

	want = r->nr_tasks;
	/* Keep the request header, zero every output field. */
	*r = (struct pmuctx_read){
		.size = r->size, .flags = r->flags, .nr_tasks = r->nr_tasks,
		.task_size = r->task_size, .tasks_ptr = r->tasks_ptr,
	};
	r->nr_events = s->nr_events;
	if (READ_ONCE(s->enabled))
		pmuctx_sess_sync_paced(s);

	if (r->flags & PMUCTX_READ_PER_TASK)
		pmuctx_sess_settle(s);
	if (r->flags & PMUCTX_READ_PER_TASK && want) {
		/* Size the buffer from a first count, capped by the caller. */
		struct pmuctx_read scratch = {};
		struct pmuctx_read_ctx cnt = {
			.v.visit = pmuctx_read_visit, .r = &scratch,
		};

		pmuctx_visit_entries(s, &cnt.v);
		c.cap = min(want, cnt.count + 64);
		c.tv = kvmalloc_array(c.cap, sizeof(*c.tv), GFP_KERNEL);
		if (!c.tv)
			return -ENOMEM;
	}
	pmuctx_read_walk(s, r, &c);
	if (s->switchless)
		pmuctx_tsrc_running(s, r);

	r->time_enabled = s->time_enabled;
	if (READ_ONCE(s->enabled))
		r->time_enabled += ktime_get_ns() - s->enabled_at;
	r->tasks_seen = atomic64_read(&s->tasks_seen);
	r->tasks_exited = atomic64_read(&s->tasks_exited);
	r->priv_exec_stopped = atomic64_read(&s->priv_exec);
	r->tasks_unlisted = atomic64_read(&s->unlisted);

	if (r->flags & PMUCTX_READ_PER_TASK) {
		/*
		 * c.tv holds c.cap elements.  The second walk can count more
		 * than the first + 64 (tasks came meanwhile, or a table resize
		 * made the walk restart and visit entries twice): report that
		 * like a too small buffer rather than copy past c.tv.
		 */
		r->nr_tasks = c.count;
		if (c.count > want || c.count > c.cap) {
			kvfree(c.tv);
			return -ENOSPC;
		}
		*tvp = c.tv;
	} else {
		r->nr_tasks = 0;
	}
	return 0;
}

/*
 * RESET of one entry: the children totals (the folds of its children
 * add to them) zeroed; the task's own totals are zeroed by their writer
 * (pmuctx_total_now()), or, in a switchless session, here under
 * entries_lock.
 */
static void pmuctx_reset_visit(struct pmuctx_entry *e, struct pmuctx_visitor *v)
{
	struct pmuctx_session *s = e->sess;
	atomic64_t *ch = pmuctx_children(e);
	unsigned int i;

	if (s->switchless)
		pmuctx_tsrc_reset(e, s->reset_gen);
	for (i = 0; i < s->nr_events; i++)
		atomic64_set(&ch[i], 0);
}

/*
 * ENABLE and DISABLE of a switchless session: open or close the interval
 * of every hashed entry (the exited ones are closed for good).
 */
static void pmuctx_tsrc_open_visit(struct pmuctx_entry *e,
				   struct pmuctx_visitor *v)
{
	if (!(e->flags & PMUCTX_EF_FOLDED))
		pmuctx_tsrc_open(e);
}

static void pmuctx_tsrc_close_visit(struct pmuctx_entry *e,
				    struct pmuctx_visitor *v)
{
	pmuctx_tsrc_close(e);
}

/*
 * PMUCTX_IOC_RESET, process context, s->lock held.
 *
 * The switch path adds to a task's totals and a fold to its CPU's sum
 * and its parent's children totals with plain or atomic adds, on other
 * CPUs while RESET runs: a zero RESET wrote between a read and a write
 * was undone (issue 29 item 8).  So RESET moves the session to the next
 * generation (reset_gen) and writes none of the totals that the switch
 * path adds to: those of an older generation read as zero and are
 * zeroed by their writer.  The sums the folds add to (per CPU, the
 * children's) are atomic and zeroed here, after a grace period: every
 * fold that read the older generation (on the RCU read side) has added
 * by then, and later ones add only counts of the new one: their task's
 * own, and its children's only once ch_gen says the zeroing is done.
 * What ran while RESET itself runs may be counted or not.
 */
void pmuctx_session_reset(struct pmuctx_session *s)
{
	struct pmuctx_visitor v = { .visit = pmuctx_reset_visit };
	unsigned int i;
	int cpu;

	/* the running slices end in the old generation */
	if (READ_ONCE(s->enabled))
		pmuctx_sess_sync_paced(s);
	WRITE_ONCE(s->reset_gen, s->reset_gen + 1);
	synchronize_rcu();
	pmuctx_visit_entries(s, &v);
	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		for (i = 0; i < PMUCTX_MAX_EVENTS; i++)
			atomic64_set(&sc->folded[i], 0);
	}
	/* every children total is zero: pmuctx_children_get() reads them */
	smp_store_release(&s->ch_gen, s->reset_gen);
	s->time_enabled = 0;
	s->enabled_at = ktime_get_ns();
}

/* PMUCTX_IOC_ENABLE, process context, s->lock held.  Idempotent. */
void pmuctx_session_enable(struct pmuctx_session *s)
{
	if (s->enabled)
		return;
	s->enabled_at = ktime_get_ns();
	WRITE_ONCE(s->enabled, true);
	if (s->switchless) {
		struct pmuctx_visitor v = { .visit = pmuctx_tsrc_open_visit };

		/* pairs with pmuctx_entry_publish(): see there */
		smp_mb();
		pmuctx_visit_entries(s, &v);
		return;
	}
	pmuctx_sess_sync_paced(s);
	pmuctx_sample_start(s);
}

/* PMUCTX_IOC_DISABLE, process context, s->lock held.  Idempotent. */
void pmuctx_session_disable(struct pmuctx_session *s)
{
	if (!s->enabled)
		return;
	WRITE_ONCE(s->enabled, false);
	if (s->switchless) {
		struct pmuctx_visitor v = { .visit = pmuctx_tsrc_close_visit };

		/* pairs with pmuctx_entry_publish(), as in ENABLE */
		smp_mb();
		pmuctx_visit_entries(s, &v);
	}
	pmuctx_sample_stop(s);
	/* Close the slices of running targets. */
	pmuctx_sess_sync_paced(s);
	s->time_enabled += ktime_get_ns() - s->enabled_at;
}

/* ---- teardown ----------------------------------------------------------- */

/*
 * Take every entry of @s out of the store.  The exit and exec probes may
 * race for some (they do not check the session is live); whoever
 * unpublishes an entry first drops it.  Entries unlisted meanwhile stay
 * readable until a grace period after this walk.
 */
static void pmuctx_unhash_all(struct pmuctx_session *s)
{
	struct pmuctx_entry *e;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &s->entries, sess_node) {
		if (!pmuctx_entry_unpublish(e))
			continue;
		WRITE_ONCE(e->dead, true);
		pmuctx_entry_unparent(e);
		pmuctx_entry_put(e);
	}
	rcu_read_unlock();
}

/*
 * Release, last: wait until the entries @s let go of are freed, so that
 * close() returns with them out of the store's counts (entries, bytes,
 * and the max_tasks and max_tasks_per_user caps that a next session
 * meets at once: t_store close-early).  Each is freed by an RCU callback
 * (pmuctx_entry_put()), queued before release's last grace period ended;
 * but the end of synchronize_rcu() says nothing about when callbacks run.
 * It used to be a callback itself (wait_rcu_gp()), queued behind ours
 * on this CPU and so invoked after them; newer kernels (upstream "rcu:
 * Enable rcu_normal_wake_from_gp on small systems", 2025) wake it from
 * the grace-period kthread on systems of at most 16 CPUs
 * (rcutree.rcu_normal_wake_from_gp=1), and close() returned with the
 * callbacks still queued (Debian's 7.2: 5 entries left, freed 1-3 ms
 * later; 6.1 has no such parameter, 6.9 to 6.12 have it off).
 * rcu_barrier() waits for them.  Every entry holds a reference on @s, the
 * file the last one: while more are left, wait, and again while a round
 * freed some (a callback may drop a parent's last reference and queue
 * another), at most PMUCTX_RELEASE_ROUNDS rounds, paced as READ's.  An
 * entry a pending task_work holds is not waited for (lifetimes item 1):
 * a round that frees nothing ends it.  Process context.
 */
#define PMUCTX_RELEASE_ROUNDS	4

static void pmuctx_sess_wait_frees(struct pmuctx_session *s)
{
	unsigned int round, left = refcount_read(&s->ref), was;

	for (round = 0; round < PMUCTX_RELEASE_ROUNDS && left > 1; round++) {
		pmuctx_rcu_barrier_paced();
		was = left;
		left = refcount_read(&s->ref);
		if (left == was)
			break;
	}
}

void pmuctx_session_release(struct pmuctx_session *s)
{
	struct pmuctx_entry *e, *tmp;
	int cpu;

	if (READ_ONCE(s->state) == PMUCTX_SS_NEW)
		goto out_free;

	WRITE_ONCE(s->state, PMUCTX_SS_DEAD);
	mutex_lock(&pmuctx_mutex);
	if (pmuctx_sess_adopts(s))
		list_del_rcu(&s->adopt_node);
	if (s->target == PMUCTX_TARGET_CGROUP)
		pmuctx_hooks_cgroup_put();
	/* the hotplug work no longer touches its counters */
	list_del_init(&s->node);
	mutex_unlock(&pmuctx_mutex);
	/* Every probe that saw the session live has finished. */
	synchronize_rcu();
	/*
	 * No attach probe queues more join work; a worker still running
	 * hashes into s->entries (pmuctx_unhash_all() finds it there) and
	 * syncs the CPUs, which caches nothing of a session that is not
	 * live (pmuctx_cpu_sync()).  Done before the caches are forgotten
	 * all the same: nothing that can cache an entry of @s runs after
	 * pmuctx_cpu_forget().
	 */
	cancel_work_sync(&s->join_work);
	pmuctx_sample_stop(s);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(s->cpu, cpu)->refill);
	on_each_cpu(pmuctx_cpu_forget, s, 1);

	pmuctx_unhash_all(s);
	llist_for_each_entry_safe(e, tmp, llist_del_all(&s->joining),
				  exit_node)
		pmuctx_entry_put(e);

	llist_for_each_entry_safe(e, tmp, llist_del_all(&s->exited),
				  exit_node) {
		WRITE_ONCE(e->dead, true);
		pmuctx_entry_unparent(e);
		pmuctx_entry_put(e);
	}
	atomic_set(&s->nr_exited, 0);

	/*
	 * Lifetimes item 1 and 2: release waits on nothing user space
	 * controls.  No entry of @s is published any more (store, session
	 * and exited lists); a probe that took one out of the store before
	 * pmuctx_unhash_all() (the exit or exec probe, which then retires
	 * it into s->cpu) runs in an RCU read-side section (tracepoint,
	 * preemption off): one grace period and it is done, and later probes
	 * find nothing.  Entries still referenced after that (a deferred
	 * unwind whose task has not returned to user space) keep the session
	 * struct, not its buffers: the work sees the session dead and only
	 * drops its reference.  They used to be waited for here, and with
	 * them every parent they pinned: close() hung in D state while such
	 * a task slept, or forever when it was the closing task itself.
	 * The frees of the others are waited for, boundedly, at the end
	 * (pmuctx_sess_wait_frees()).
	 */
	synchronize_rcu();
	/*
	 * Entries the free probe queued before pmuctx_unhash_all() (its
	 * lookup is on the read side, over by now): the work finds them
	 * unhashed and only drops its references.
	 */
	pmuctx_hooks_flush_free();
	/* what that queued, and what the walks above did: freed by now */
	pmuctx_sess_wait_frees(s);

	pmuctx_session_free_parts(s);
	mutex_lock(&pmuctx_mutex);
	atomic_dec(&pmuctx_stats.sessions);
	if (!s->switchless)
		pmuctx_hooks_switch_put();
	pmuctx_hooks_lifecycle_put();
	mutex_unlock(&pmuctx_mutex);
out_free:
	pmuctx_session_put(s);
}
