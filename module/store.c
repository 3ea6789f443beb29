// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the per-task PMU-data store.
 *
 * One rhltable keyed by task pointer; one entry per (task, session).  An
 * entry exists only while a session monitors the task: created when a pid
 * target is attached, at fork for inherited children, and for system-wide
 * and cgroup sessions for every thread at create, at fork, and when a
 * thread moves into the cgroup.  Each session also lists its hashed
 * entries (sess->entries), so its reads and teardown cost its own
 * entries, not the whole store's.  Entries are
 * refcounted (the store or the exited list holds one reference, each
 * inherited child one on its parent's entry until the child is retired, a
 * pending deferred unwind one) and freed with call_rcu().
 *
 * A container: it holds entries and knows nothing above it but the
 * session struct whose layout the entries follow (e->sess: the counts of
 * events, the per-CPU pools; session_types.h).  The reference an entry
 * holds on its session is dropped at free through the put that module
 * load hands over (pmuctx_entry_caches_init()): the store calls no
 * session code.  Who
 * uses it, and when: the table is made and dropped when hooks.c says
 * (pmuctx_store_create(), pmuctx_store_destroy(): with the lifecycle
 * probes, "Deferred unhooking" there); entries are laid out by the session
 * (pmuctx_entry_size(), session.c), hashed and removed by their members'
 * code (pmuctx_entry_publish(), _unpublish(), hooks.c, through
 * pmuctx_store_insert() and pmuctx_store_remove()) and retired there; the
 * lookups are inline in store.h.
 *
 * Keying by task pointer rather than pid: the pointer is what the probes
 * have, it is unique among live tasks, and an entry holds a task reference
 * until it is retired, so the address cannot be reused while hashed.
 *
 * The table is never modified from sched_switch: in 6.1 the bucket locks
 * disable bottom halves, which is not allowed with IRQs off.  sched_switch
 * only looks entries up; every entry is hashed before its task can need
 * it (at create, in the fork probe before the child first runs, in the
 * cgroup-attach probe).
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/irq_work.h>
#include <linux/memcontrol.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "params.h"
#include "perm.h"
#include "session_types.h"
#include "store.h"

struct rhltable pmuctx_store;

/* PREEMPT_RT: the nelem_hint the table was made with (pmuctx_mutex) */
static unsigned int pmuctx_store_hint;

static unsigned int pmuctx_store_rt_hint(void)
{
	return clamp(READ_ONCE(pmuctx_max_tasks), 1U, (unsigned int)U16_MAX);
}

/*
 * PREEMPT_RT: whether the table was made for a smaller max_tasks than
 * today's, so that the room below no longer holds (t_store cap-raised:
 * one made for max_tasks 5 had 8 buckets, and a burst of 9 after
 * max_tasks was raised lost 2).  Its owner (hooks.c, which keeps an
 * empty table a second after the last session: "Deferred unhooking")
 * asks at the next first session, and remakes it.  Under pmuctx_mutex.
 */
bool pmuctx_store_outgrown(void)
{
	lockdep_assert_held(&pmuctx_mutex);
	return IS_ENABLED(CONFIG_PREEMPT_RT) &&
	       pmuctx_store_hint < pmuctx_store_rt_hint();
}

/*
 * Make the table: hooks.c, for the first session, under pmuctx_mutex,
 * before it hooks the probes that look entries up.
 */
int pmuctx_store_create(void)
{
	struct rhashtable_params p = pmuctx_store_params;

	lockdep_assert_held(&pmuctx_mutex);
	/*
	 * PREEMPT_RT: room for max_tasks entries from the start, and never
	 * shrunk, so an insert with preemption off never finds the table
	 * above 100 % and allocates (pmuctx_store_room(), which refuses at
	 * 7/8).  nelem_hint n makes roundup_pow_of_two(4n/3) buckets, more
	 * than 8/7 of n: max_tasks itself fits.  Both rhashtable_params
	 * sizes are u16: the hint is clamped (65535: 131072 buckets, 1 MiB,
	 * room for 114688 tasks; the default max_tasks is 65536), and
	 * min_size is not used (65536 became 0, the minimum of 4 buckets; an
	 * emptied table shrank to them and every later task was dropped: t_store
	 * burst).  A hint of 3/4 of max_tasks made 4 buckets for max_tasks 5,
	 * and the fifth task was dropped unless the grow worker had run
	 * (t_store cap).  The worker still grows the table at 75 %.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pmuctx_store_hint = pmuctx_store_rt_hint();
		p.nelem_hint = pmuctx_store_hint;
		p.automatic_shrinking = false;
	}
	return rhltable_init(&pmuctx_store, &p);
}

/*
 * Drop the table: hooks.c, under pmuctx_mutex, with no session left
 * (every session removed its entries before it let go of the hooks) and
 * after the probes are unhooked and none runs.
 */
void pmuctx_store_destroy(void)
{
	lockdep_assert_held(&pmuctx_mutex);
	rhltable_destroy(&pmuctx_store);
}

/*
 * Entry memory.  Entries of up to PMUCTX_CACHE_MAX bytes come from slab
 * caches in steps of PMUCTX_CACHE_STEP bytes ("pmuctx_entry_200" holds the
 * entries of the 4 default events; kmalloc would round them up to 256).  The
 * caches are created at module load, not with the first session that needs
 * one: kmem_cache_create() dumps a stack when it fails, which an
 * allocation failure in SESSION_CREATE must not do.  Bigger entries (large
 * save areas, many events with sampling) come from kmalloc; the size alone
 * tells which, at allocation and at free.
 */
#define PMUCTX_CACHE_STEP	8
#define PMUCTX_CACHE_MIN	ALIGN(sizeof(struct pmuctx_entry) + \
				      2 * sizeof(u64), PMUCTX_CACHE_STEP)
#define PMUCTX_CACHE_MAX	384
#define PMUCTX_NR_CACHES	((PMUCTX_CACHE_MAX - PMUCTX_CACHE_MIN) / \
				 PMUCTX_CACHE_STEP + 1)

static struct kmem_cache *pmuctx_caches[PMUCTX_NR_CACHES];

static struct kmem_cache *pmuctx_entry_cache(u32 size)
{
	if (size < PMUCTX_CACHE_MIN || size > PMUCTX_CACHE_MAX ||
	    size % PMUCTX_CACHE_STEP)
		return NULL;
	return pmuctx_caches[(size - PMUCTX_CACHE_MIN) / PMUCTX_CACHE_STEP];
}

DEFINE_PER_CPU(struct pmuctx_cpu_cache, pmuctx_cur);

/*
 * The entry of session @s for the task running on this CPU, or NULL: from
 * this CPU's cache when it holds the task, else from the store.  IRQs off
 * (hrtimer sampling interrupt), inside rcu_read_lock().
 */
struct pmuctx_entry *pmuctx_current_entry(struct pmuctx_session *s)
{
	struct pmuctx_cpu_cache *cc = this_cpu_ptr(&pmuctx_cur);
	struct task_struct *t = current;
	unsigned int i;

	if (cc->task == t && cc->nr <= PMUCTX_CUR_MAX) {
		for (i = 0; i < cc->nr; i++)
			if (cc->e[i]->sess == s && !READ_ONCE(cc->e[i]->dead) &&
			    !READ_ONCE(cc->e[i]->parked) &&
			    !(READ_ONCE(cc->e[i]->flags) & PMUCTX_EF_EXITED))
				return cc->e[i];
		return NULL;
	}
	return pmuctx_task_entry(s, t);
}

/* session.c's pmuctx_session_put(), given at load: an entry free's last call */
static void (*pmuctx_entry_sess_put)(struct pmuctx_session *s) __ro_after_init;

/* Module load (main.c), before any session: @sess_put as above. */
int pmuctx_entry_caches_init(void (*sess_put)(struct pmuctx_session *s))
{
	struct kmem_cache *c;
	unsigned int i, size;
	char name[32];

	BUILD_BUG_ON(sizeof(struct pmuctx_entry) % sizeof(u64));
	/* the 4 default events in 200 bytes (DESIGN.md, PERFORMANCE.md) */
	BUILD_BUG_ON(sizeof(struct pmuctx_entry) > 128);
	/* e->size is a u16: the biggest layout, pmuctx_entry_size() */
	for (i = 0; i < PMUCTX_NR_CACHES; i++) {
		size = PMUCTX_CACHE_MIN + i * PMUCTX_CACHE_STEP;
		snprintf(name, sizeof(name), "pmuctx_entry_%u", size);
		c = kmem_cache_create(name, size,
				      __alignof__(struct pmuctx_entry), 0, NULL);
		if (!c) {
			pmuctx_entry_caches_destroy();
			return -ENOMEM;
		}
		pmuctx_caches[i] = c;
	}
	pmuctx_entry_sess_put = sess_put;
	return 0;
}

/* Module exit, after rcu_barrier(): every entry has been freed. */
void pmuctx_entry_caches_destroy(void)
{
	unsigned int i;

	for (i = 0; i < PMUCTX_NR_CACHES; i++) {
		kmem_cache_destroy(pmuctx_caches[i]);
		pmuctx_caches[i] = NULL;
	}
}

/*
 * The size an entry of @size bytes (its layout: the session's,
 * pmuctx_entry_size()) is allocated with: the next cache size, or the
 * exact size for kmalloc.
 */
u32 pmuctx_entry_alloc_size(size_t size)
{
	if (size <= PMUCTX_CACHE_MAX)
		size = ALIGN(size, PMUCTX_CACHE_STEP);
	return size;
}

/*
 * A zeroed entry for @s, charged to the memory cgroup of the session's
 * creator whatever the context (the fork probe runs in the forking task,
 * the pool refill in an irq_work): store memory is the monitor's, not the
 * watched tasks' (SECURITY.md, "Resource limits").
 */
struct pmuctx_entry *pmuctx_entry_alloc(struct pmuctx_session *s, gfp_t gfp)
{
	struct kmem_cache *c = pmuctx_entry_cache(s->entry_size);
	struct pmuctx_entry *e;
	struct mem_cgroup *old;

	old = set_active_memcg(s->memcg);
	if (c)
		e = kmem_cache_zalloc(c, gfp | __GFP_ACCOUNT);
	else
		e = kzalloc(s->entry_size, gfp | __GFP_ACCOUNT);
	set_active_memcg(old);
	if (!e)
		return NULL;
	e->size = s->entry_size;
	atomic64_add(e->size, &pmuctx_stats.bytes);
	return e;
}

static void pmuctx_entry_kfree(struct pmuctx_entry *e)
{
	struct kmem_cache *c = pmuctx_entry_cache(e->size);

	atomic64_sub(e->size, &pmuctx_stats.bytes);
	if (c)
		kmem_cache_free(c, e);
	else
		kfree(e);
}

/*
 * Take a pre-allocated entry from this CPU's pool of @s.  IRQs must be off
 * (the refill irq_work runs on this CPU).  Asks for a refill when the pool
 * runs low.
 */
struct pmuctx_entry *pmuctx_pool_pop(struct pmuctx_session *s)
{
	struct pmuctx_sess_cpu *sc = this_cpu_ptr(s->cpu);
	struct pmuctx_entry *e = NULL;

	lockdep_assert_irqs_disabled();
	if (sc->pool_nr) {
		e = sc->pool[--sc->pool_nr];
		atomic64_dec(&pmuctx_stats.pool_entries);
	}
	if (sc->pool_nr < READ_ONCE(pmuctx_pool_size) / 2 + 1)
		irq_work_queue(&sc->refill);
	return e;
}

static void pmuctx_entry_kfree_rcu(struct rcu_head *rcu)
{
	pmuctx_entry_kfree(container_of(rcu, struct pmuctx_entry, rcu));
}

/*
 * Give back a fresh entry that was not used (entry_init() refused it) to
 * this CPU's pool.  Any context, the session live: the probes' callers,
 * where PREEMPT_RT forbids kfree() (teardown drains the pools after a
 * grace period).  A full pool (never on RT: the entry came from it, and
 * its refill thread cannot run while we do) frees it after a grace period.
 */
void pmuctx_pool_push(struct pmuctx_session *s, struct pmuctx_entry *e)
{
	struct pmuctx_sess_cpu *sc;
	unsigned long flags;
	bool kept = false;

	local_irq_save(flags);
	sc = this_cpu_ptr(s->cpu);
	if (sc->pool_nr < PMUCTX_POOL_MAX) {
		sc->pool[sc->pool_nr++] = e;
		atomic64_inc(&pmuctx_stats.pool_entries);
		kept = true;
	}
	local_irq_restore(flags);
	if (!kept)
		call_rcu(&e->rcu, pmuctx_entry_kfree_rcu);
}

/*
 * Fill the pool of @cpu.  Process context before the session is live (no
 * other user of the pool yet), or the refill irq_work of @cpu: hardirq, or
 * on PREEMPT_RT the irq_work thread bound to @cpu, which a probe on that
 * CPU may preempt at any point and pop from the pool (pmuctx_pool_pop()
 * runs with IRQs off).  So the entry is allocated with IRQs as they are
 * (on RT the allocator must not run with them off) and stored with IRQs
 * off.
 */
int pmuctx_pool_fill(struct pmuctx_session *s, int cpu, gfp_t gfp)
{
	struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);
	struct pmuctx_entry *e;
	unsigned long flags;

	while (READ_ONCE(sc->pool_nr) < READ_ONCE(pmuctx_pool_size)) {
		e = pmuctx_entry_alloc(s, gfp);
		if (!e) {
			atomic64_inc(&pmuctx_stats.alloc_failures);
			return -ENOMEM;
		}
		local_irq_save(flags);
		if (sc->pool_nr < READ_ONCE(pmuctx_pool_size)) {
			sc->pool[sc->pool_nr++] = e;
			atomic64_inc(&pmuctx_stats.pool_entries);
			e = NULL;
		}
		local_irq_restore(flags);
		if (e) {
			pmuctx_entry_kfree(e);
			break;
		}
	}
	return 0;
}

/* Teardown: the session is dead and its irq_works are synced. */
void pmuctx_pool_drain(struct pmuctx_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmuctx_sess_cpu *sc = per_cpu_ptr(s->cpu, cpu);

		while (sc->pool_nr) {
			pmuctx_entry_kfree(sc->pool[--sc->pool_nr]);
			atomic64_dec(&pmuctx_stats.pool_entries);
		}
	}
}

/*
 * Bind a fresh (zeroed) entry to task @t for session @s.  Any context.
 * Fails when the store is at max_tasks, or an unprivileged session's user
 * at max_tasks_per_user; the caller counts a drop.
 */
bool pmuctx_entry_init(struct pmuctx_entry *e, struct pmuctx_session *s,
		       struct task_struct *t, struct pmuctx_entry *parent)
{
	if (atomic_inc_return(&pmuctx_stats.entries) >
	    READ_ONCE(pmuctx_max_tasks)) {
		atomic_dec(&pmuctx_stats.entries);
		return false;
	}
	/* one unprivileged user's share of the store (security item 8) */
	if (s->user) {
		if (atomic_inc_return(&s->user->entries) >
		    READ_ONCE(pmuctx_max_tasks_per_user)) {
			atomic_dec(&s->user->entries);
			atomic_dec(&pmuctx_stats.entries);
			return false;
		}
		e->flags |= PMUCTX_EF_USER;
	}
	get_task_struct(t);
	e->task = t;
	e->sess = s;
	/* counts of this RESET on (pmuctx_session_reset()) */
	e->tot_gen = READ_ONCE(s->reset_gen);
	if (parent) {
		refcount_inc(&parent->ref);
		e->parent = parent;
		e->ppid = parent->tid;
	}
	refcount_set(&e->ref, 1);
	refcount_inc(&s->ref);
	e->last_cpu = -1;
	e->pid = task_tgid_nr_ns(t, s->pid_ns);
	e->tid = task_pid_nr_ns(t, s->pid_ns);
	strscpy_pad(e->comm, t->comm, sizeof(e->comm));
	INIT_LIST_HEAD(&e->sess_node);
	atomic64_inc(&s->tasks_seen);
	atomic64_inc(&pmuctx_stats.created);
	return true;
}

static void pmuctx_entry_free_rcu(struct rcu_head *rcu)
{
	struct pmuctx_entry *e = container_of(rcu, struct pmuctx_entry, rcu);
	struct pmuctx_session *s = e->sess;

	if (!(e->flags & PMUCTX_EF_TASK_PUT))
		put_task_struct(e->task);
	/* an entry dropped without retire (teardown did that) or unused */
	pmuctx_entry_unparent(e);
	if (e->flags & PMUCTX_EF_USER)
		atomic_dec(&s->user->entries);
	pmuctx_entry_kfree(e);
	/* @e is gone */
	atomic_dec(&pmuctx_stats.entries);
	atomic64_inc(&pmuctx_stats.freed);
	/* Last touch: may free the session struct after close(). */
	pmuctx_entry_sess_put(s);
}

/*
 * Drop @e's reference on its parent's entry.  An inherited child needs its
 * parent only to fold into it at retire; holding it longer let a child
 * that cannot retire (a deferred unwind pending in a task blocked in the
 * kernel) pin its parent, and session teardown waited for both (lifetimes
 * item 1).  Called by whoever took @e out of the store (retire, teardown)
 * and at free; the xchg() makes a second call a no-op.  Any context.
 */
void pmuctx_entry_unparent(struct pmuctx_entry *e)
{
	struct pmuctx_entry *parent = xchg(&e->parent, NULL);

	if (parent)
		pmuctx_entry_put(parent);
}

void pmuctx_entry_put(struct pmuctx_entry *e)
{
	if (refcount_dec_and_test(&e->ref))
		call_rcu(&e->rcu, pmuctx_entry_free_rcu);
}

/* An initialized entry that was never visible to anyone: undo at once. */
void pmuctx_entry_free_unused(struct pmuctx_entry *e)
{
	if (e->task)
		pmuctx_entry_put(e);
	else
		pmuctx_entry_kfree(e);
}

/*
 * Whether one more entry fits in the store without the insert allocating
 * a bucket table itself.  rhashtable grows a table past 75 % in a worker,
 * but an insert that finds it above 100 % (a burst the worker did not
 * keep up with) allocates with GFP_ATOMIC, which PREEMPT_RT forbids with
 * preemption off: in the probes and under sess->entries_lock.  On RT the
 * table is made with room for max_tasks (pmuctx_store_create()), so this
 * only refuses after max_tasks was raised while sessions exist; the
 * caller counts the task as dropped.  Elsewhere the insert may allocate.
 * RCU read side.
 */
static bool pmuctx_store_room(void)
{
	const struct bucket_table *tbl;
	unsigned int size;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return true;
	tbl = rcu_dereference(pmuctx_store.ht.tbl);
	size = tbl->size;
	/* other CPUs insert meanwhile: keep an eighth free */
	return atomic_read(&pmuctx_store.ht.nelems) < size - size / 8;
}

/*
 * Hash @e (e->task its key) into the store: its owner's
 * pmuctx_entry_publish() (hooks.c), under e->sess->entries_lock with IRQs
 * on (in 6.1 the bucket locks end with local_bh_enable()), on the RCU
 * read side.  -EBUSY (RT, no room: pmuctx_store_room()) or the table's
 * error; then @e is not hashed.
 */
int pmuctx_store_insert(struct pmuctx_entry *e)
{
	if (!pmuctx_store_room())
		return -EBUSY;
	return rhltable_insert(&pmuctx_store, &e->node, pmuctx_store_params);
}

/*
 * Take @e out of the store.  True for the one caller that removed it
 * (rhltable_remove() succeeds once): pmuctx_entry_unpublish() (hooks.c),
 * whose caller retires or drops it.  IRQs on.
 */
bool pmuctx_store_remove(struct pmuctx_entry *e)
{
	return !rhltable_remove(&pmuctx_store, &e->node, pmuctx_store_params);
}
