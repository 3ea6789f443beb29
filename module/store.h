/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the per-task store (store.c): the table and its lookups,
 * entries, their memory, pools and references.  Publishing and retiring
 * are hooks.c's.  Contexts and locks: the map at the top of
 * session_types.h.
 */
#ifndef _PMUCTX_STORE_H
#define _PMUCTX_STORE_H

#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "session_types.h"

/* pmuctx_entry.flags */
#define PMUCTX_EF_INHERITED	BIT(0)	/* created by fork of a target */
#define PMUCTX_EF_PRIV_EXEC	BIT(1)	/* stopped at privilege-raising exec */
#define PMUCTX_EF_EXITED	BIT(2)	/* task passed sched_process_exit */
/* BIT(3): PMUCTX_EF_SAVE_VALID of the debug build (selftest.h) */
#define PMUCTX_EF_TASK_PUT	BIT(4)	/* task reference already dropped */
#define PMUCTX_EF_FOLDED	BIT(5)	/* totals in sc->folded (entry_fold) */
#define PMUCTX_EF_USER		BIT(6)	/* counted in sess->user->entries */
#define PMUCTX_EF_FREEING	BIT(7)	/* queued by the free probe */

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
	pid_t			pid, tid, ppid;
	/*
	 * The session's reset_gen that total[] holds counts of: zeroed by
	 * its own writer when behind (pmuctx_session_reset()).
	 */
	u32			tot_gen;
	u64			in_ns;		/* run time at the slice's start */
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
	 * total[nr_events], children[nr_events], snapshot[nr_snap] (one
	 * per counter-backed event), the save area (data_size bytes), in
	 * sampling sessions a struct pmuctx_defer at s->defer_offset (and a
	 * struct pmuctx_maps at s->maps_offset), and in sessions with SWITCH
	 * records or a trigger u64 slice accumulators[nr_events] at
	 * s->slice_offset.  The header
	 * is 128 bytes on x86-64: with the 4 default events (one of them
	 * counter-backed) an entry is 200 bytes (pmuctx_entry_alloc()).
	 */
	u64			data[];
};

static inline u64 *pmuctx_total(struct pmuctx_entry *e)
{
	return e->data;
}

static inline atomic64_t *pmuctx_children(struct pmuctx_entry *e)
{
	return (atomic64_t *)(e->data + e->sess->nr_events);
}

/*
 * @e's totals (@val[nr_events]) as of the session's RESET generation
 * @gen: zero while they are of an earlier one (their writer zeroes them
 * at its next write, pmuctx_total_now()).  Pairs with its smp_wmb().
 */
static inline void pmuctx_total_get(struct pmuctx_entry *e, u32 gen,
				    u64 *val)
{
	const u64 *tot = pmuctx_total(e);
	bool cur = READ_ONCE(e->tot_gen) == gen;
	unsigned int i;

	/* the totals after their generation: pmuctx_total_now() */
	smp_rmb();
	for (i = 0; i < e->sess->nr_events; i++)
		val[i] = cur ? READ_ONCE(tot[i]) : 0;
}

/*
 * The same for the children totals, which RESET zeroes itself: zero
 * until its pass over every entry is done (a fold meanwhile carries
 * only its task's own counts up, never what was there before RESET).
 */
static inline void pmuctx_children_get(struct pmuctx_entry *e, u32 gen,
				       u64 *val)
{
	atomic64_t *ch = pmuctx_children(e);
	unsigned int i;
	bool cur;

	/* the zeroing before ch_gen: pmuctx_session_reset() */
	cur = smp_load_acquire(&e->sess->ch_gen) == gen;

	for (i = 0; i < e->sess->nr_events; i++)
		val[i] = cur ? atomic64_read(&ch[i]) : 0;
}

/* Indexed by e->sess->snap_slot[event]. */
static inline u64 *pmuctx_snap(struct pmuctx_entry *e)
{
	return e->data + 2 * e->sess->nr_events;
}

static inline u64 *pmuctx_save(struct pmuctx_entry *e)
{
	return e->data + 2 * e->sess->nr_events + e->sess->nr_snap;
}

/*
 * What folds (READ, ENABLE/DISABLE, a counter swap) took out of the
 * current slice, per event, so that its SWITCH record and the trigger see
 * the whole slice, switch-in to switch-out.  NULL in sessions without
 * SWITCH records or a trigger.  Written on the task's CPU, IRQs off.
 */
static inline u64 *pmuctx_slice_acc(struct pmuctx_entry *e)
{
	u32 off = e->sess->slice_offset;

	return off ? (u64 *)((u8 *)e + off) : NULL;
}

extern struct rhltable pmuctx_store;
/*
 * The key is a task pointer: a multiplicative hash of it, salted with the
 * table's random seed, costs a multiply where jhash2 of 8 bytes costs
 * about 30 instructions, at every lookup of a context switch.  Tasks are
 * not placed by users; and a chain longer than rhashtable's limit makes
 * it rehash with a new seed, as with any hash function.
 */
static inline u32 pmuctx_store_hash(const void *key, u32 len, u32 seed)
{
	return hash_64(*(const unsigned long *)key ^ seed, 32);
}

/*
 * The store's parameters, visible to every lookup so that the compiler
 * folds them into it (rhashtable's inline lookup and hash are meant for
 * constant parameters; an extern struct made them an out-of-line, fully
 * generic walk at every context switch).
 */
static const struct rhashtable_params pmuctx_store_params __maybe_unused = {
	.hashfn			= pmuctx_store_hash,
	.key_len		= sizeof(struct task_struct *),
	.key_offset		= offsetof(struct pmuctx_entry, task),
	.head_offset		= offsetof(struct pmuctx_entry, node),
	.automatic_shrinking	= true,
};

/*
 * Every entry of task @t (a task_struct pointer variable), one per
 * session that monitors it: walk the list with
 * rhl_for_each_entry_rcu(e, pos, list, node).  RCU read side, any
 * context: the sched_switch probe and the NMI sampler look up here,
 * inline, with the parameters folded in.  A macro, keyed by the caller's
 * own variable: an inline function's copy of the key made gcc pass the
 * table to its out-of-line clone of the lookup, two more instructions
 * per lookup in the switch probe (6.12, objdump).
 */
#define pmuctx_store_lookup(t) \
	rhltable_lookup(&pmuctx_store, &(t), pmuctx_store_params)

/*
 * @t's live entry in @s from the store, parked or not.  RCU read side.
 * Inline, as the lookups of the probes and the sampler are.
 */
static inline struct pmuctx_entry *
pmuctx_sess_entry(struct pmuctx_session *s, struct task_struct *t)
{
	struct rhlist_head *list, *pos;
	struct pmuctx_entry *e;

	list = pmuctx_store_lookup(t);
	rhl_for_each_entry_rcu(e, pos, list, node)
		if (e->sess == s && !READ_ONCE(e->dead))
			return e;
	return NULL;
}

/*
 * @t's entry in @s that counts and samples now (not parked, not past
 * sched_process_exit) from the store alone, without this CPU's cache
 * (hooks.c), which the switch probe may be rewriting under an NMI.  RCU
 * read side.
 */
static inline struct pmuctx_entry *
pmuctx_task_entry(struct pmuctx_session *s, struct task_struct *t)
{
	struct pmuctx_entry *e = pmuctx_sess_entry(s, t);

	return e && !READ_ONCE(e->parked) &&
	       !(READ_ONCE(e->flags) & PMUCTX_EF_EXITED) ? e : NULL;
}

/*
 * Entries of the current task cached per CPU (all sessions): written by
 * hooks.c only, by the CPU itself with IRQs off (sched_switch, its IPIs:
 * the rules at the top of session_types.h); read there and by the
 * sampler (pmuctx_current_entry()).
 */
#define PMUCTX_CUR_MAX		8

struct pmuctx_cpu_cache {
	struct task_struct	*task;
	unsigned int		nr;	/* > PMUCTX_CUR_MAX: overflow */
	struct pmuctx_entry	*e[PMUCTX_CUR_MAX];
	u64			gen;	/* probe calls (pmuctx_sess_cpu.shr) */
};

DECLARE_PER_CPU(struct pmuctx_cpu_cache, pmuctx_cur);

static inline void pmuctx_cache_add(struct pmuctx_cpu_cache *cc,
				    struct pmuctx_entry *e)
{
	if (cc->nr < PMUCTX_CUR_MAX)
		cc->e[cc->nr++] = e;
	else
		cc->nr = PMUCTX_CUR_MAX + 1;
}

static inline bool pmuctx_cache_has(struct pmuctx_cpu_cache *cc,
				    struct pmuctx_entry *e)
{
	unsigned int i;

	if (cc->nr > PMUCTX_CUR_MAX)	/* overflowed: nothing is cached */
		return false;
	for (i = 0; i < cc->nr; i++)
		if (cc->e[i] == e)
			return true;
	return false;
}

static inline void pmuctx_cache_del(struct pmuctx_cpu_cache *cc,
				    struct pmuctx_entry *e)
{
	unsigned int i;

	/*
	 * Overflowed (more than PMUCTX_CUR_MAX entries): nobody reads e[]
	 * until the next switch resets it.  Moving e[--nr] here would read
	 * e[PMUCTX_CUR_MAX], past the array, and make the garbage "cached".
	 */
	if (cc->nr > PMUCTX_CUR_MAX)
		return;
	for (i = 0; i < cc->nr; i++) {
		if (cc->e[i] == e) {
			cc->e[i] = cc->e[--cc->nr];
			return;
		}
	}
}

struct pmuctx_entry *pmuctx_current_entry(struct pmuctx_session *s);

int pmuctx_store_create(void);
void pmuctx_store_destroy(void);
bool pmuctx_store_outgrown(void);
u32 pmuctx_entry_alloc_size(size_t size);
int pmuctx_entry_caches_init(void (*sess_put)(struct pmuctx_session *s));
void pmuctx_entry_caches_destroy(void);
struct pmuctx_entry *pmuctx_entry_alloc(struct pmuctx_session *s, gfp_t gfp);
struct pmuctx_entry *pmuctx_pool_pop(struct pmuctx_session *s);
void pmuctx_pool_push(struct pmuctx_session *s, struct pmuctx_entry *e);
int pmuctx_pool_fill(struct pmuctx_session *s, int cpu, gfp_t gfp);
void pmuctx_pool_drain(struct pmuctx_session *s);
bool pmuctx_entry_init(struct pmuctx_entry *e, struct pmuctx_session *s,
		       struct task_struct *t, struct pmuctx_entry *parent);
void pmuctx_entry_free_unused(struct pmuctx_entry *e);
void pmuctx_entry_put(struct pmuctx_entry *e);
void pmuctx_entry_unparent(struct pmuctx_entry *e);
int pmuctx_store_insert(struct pmuctx_entry *e);
bool pmuctx_store_remove(struct pmuctx_entry *e);

#endif /* _PMUCTX_STORE_H */
