// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: hooking the probes (hookreg.c, hooks.h): registration of the
 * tracepoint probes of hooks.c, and the store table's lifetime with them.
 *
 * Five sched tracepoints and cgroup_attach_task are looked up with
 * for_each_kernel_tracepoint().  fork, exec, exit and free are hooked
 * while at least one session exists (pmuctx_hooks_lifecycle_get(), under
 * pmuctx_mutex), and the store's table (store.c) is made and dropped
 * with them, the table first in and last out; sched_switch only while
 * a session needs per-switch work (a switchless one counts from its
 * tasks' own counters: tasksrc.c), and
 * cgroup_attach_task while a cgroup session exists, each for a second
 * more after its last user (pmuctx_unhook_work, "Deferred unhooking"
 * below: every (un)registration patches kernel text).  Unregistration
 * waits with tracepoint_synchronize_unregister() so no probe runs once it
 * returns.
 *
 * Registration contexts (process context, pmuctx_mutex held for all of
 * them; the tracepoint, cpu-hotplug, jump-label and text mutexes nest
 * inside, as does the free work's flush):
 *  pmuctx_hooks_lifecycle_get/put, _switch_get/put, _cgroup_get/put
 *			SESSION_CREATE and release.  A get registers only
 *			what is not hooked; a put that leaves a probe unused
 *			(re)arms pmuctx_unhook_work (mod_delayed_work()),
 *			never unregisters itself.
 *  pmuctx_unhook_work	system_wq, PMUCTX_UNHOOK_DELAY after the last such
 *			put: takes pmuctx_mutex, unregisters what still has
 *			no user, waits for running probes, then (no session
 *			left) drops the store table.  Cancelled (sync) only
 *			in module exit, without pmuctx_mutex: never flush or
 *			cancel it under that mutex (the work takes it).
 *  pmuctx_hooks_exit	module exit, after the device is gone: cancels the
 *			work, then unhooks what it would have (synchronously).
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "hookreg.h"
#include "hooks.h"
#include "params.h"
#include "store.h"
#include "testhooks.h"

static void pmuctx_hooks_unhook_later(void);

struct pmuctx_tp {
	const struct pmuctx_probe_def *def;	/* hooks.c's */
	struct tracepoint	*tp;
	bool			registered;
};

static struct pmuctx_tp pmuctx_tps[] = {
	{ .def = &pmuctx_probe_defs[PMUCTX_PROBE_FORK] },
	{ .def = &pmuctx_probe_defs[PMUCTX_PROBE_EXEC] },
	{ .def = &pmuctx_probe_defs[PMUCTX_PROBE_EXIT] },
	{ .def = &pmuctx_probe_defs[PMUCTX_PROBE_FREE] },
};

/*
 * Hooked only while a session needs per-switch work (counter-backed
 * events, ring records, sampling, a save area, a trigger): a switchless
 * session (tasksrc.c) counts without it.  pmuctx_switch_sessions counts
 * the others, under pmuctx_mutex.
 */
static struct pmuctx_tp pmuctx_tp_switch = {
	.def = &pmuctx_probe_defs[PMUCTX_PROBE_SWITCH],
};

static unsigned int pmuctx_switch_sessions;	/* under pmuctx_mutex */

/*
 * Hooked only while a cgroup session exists: with a probe on it, every
 * cgroup.procs write on the system formats the cgroup's path under a
 * global lock (TRACE_CGROUP_PATH()).
 */
static struct pmuctx_tp pmuctx_tp_attach = {
	.def = &pmuctx_probe_defs[PMUCTX_PROBE_ATTACH],
};

static unsigned int pmuctx_cgroup_sessions;	/* under pmuctx_mutex */

static void pmuctx_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmuctx_tps); i++)
		if (!strcmp(tp->name, pmuctx_tps[i].def->name))
			pmuctx_tps[i].tp = tp;
	if (!strcmp(tp->name, pmuctx_tp_attach.def->name))
		pmuctx_tp_attach.tp = tp;
	if (!strcmp(tp->name, pmuctx_tp_switch.def->name))
		pmuctx_tp_switch.tp = tp;
}

/* PMUCTX_PROBES_* bits for INFO (a racy snapshot, as the counts it sits with) */
u32 pmuctx_hooks_registered(void)
{
	u32 bits = 0;

	if (READ_ONCE(pmuctx_tps[0].registered))
		bits |= PMUCTX_PROBES_LIFECYCLE;
	if (READ_ONCE(pmuctx_tp_switch.registered))
		bits |= PMUCTX_PROBES_SWITCH;
	return bits;
}

/*
 * Hook @t for its first user (*@users counts them, under pmuctx_mutex),
 * unless it is still hooked from its last one (the unhook work has not
 * run yet: it now finds a user and leaves it).  Returns 0 or the
 * registration's error (no user taken then).
 */
static int pmuctx_tp_get(struct pmuctx_tp *t, unsigned int *users)
{
	int ret = -ENOENT;

	lockdep_assert_held(&pmuctx_mutex);
	if ((*users)++ || t->registered)
		return 0;
	if (t->tp)
		ret = tracepoint_probe_register(t->tp, t->def->probe, NULL);
	if (ret) {
		pr_err("cannot hook %s: %d\n", t->def->name, ret);
		(*users)--;
		return ret;
	}
	pmuctx_testhook_probe_flip();	/* debug build only */
	WRITE_ONCE(t->registered, true);
	return 0;
}

/* Its last user is gone: @t is unhooked a second later, unless used again. */
static void pmuctx_tp_put(struct pmuctx_tp *t, unsigned int *users)
{
	lockdep_assert_held(&pmuctx_mutex);
	if (!--(*users))
		pmuctx_hooks_unhook_later();
}

/*
 * Unregister @t if it is hooked and nobody uses it; the caller waits
 * (tracepoint_synchronize_unregister()) before anything the probe
 * touches goes.  True if it was unregistered.
 */
static bool pmuctx_tp_unhook(struct pmuctx_tp *t, unsigned int users)
{
	if (users || !t->registered)
		return false;
	tracepoint_probe_unregister(t->tp, t->def->probe, NULL);
	pmuctx_testhook_probe_flip();	/* debug build only */
	WRITE_ONCE(t->registered, false);
	return true;
}

/*
 * A session that needs per-switch work is created (after
 * pmuctx_hooks_lifecycle_get()).  If the probe is not hooked, the per-CPU
 * caches are emptied first: what they held when it was last unhooked is
 * stale, and nothing refilled them meanwhile (pmuctx_cpu_sync() runs only
 * for sessions that hold the probe).  Still hooked (its unhook pending),
 * the probe kept them current.
 */
int pmuctx_hooks_switch_get(void)
{
	lockdep_assert_held(&pmuctx_mutex);
	if (!pmuctx_tp_switch.registered)
		on_each_cpu(pmuctx_cpu_forget, NULL, 1);
	return pmuctx_tp_get(&pmuctx_tp_switch, &pmuctx_switch_sessions);
}

/*
 * The last session needing per-switch work is released: the probe goes a
 * second later (pmuctx_hooks_unhook_idle()).  The session forgot its own
 * cached entries already; the probe only ever caches live sessions'.
 */
void pmuctx_hooks_switch_put(void)
{
	pmuctx_tp_put(&pmuctx_tp_switch, &pmuctx_switch_sessions);
}

/* A cgroup session is created (after pmuctx_hooks_lifecycle_get()). */
int pmuctx_hooks_cgroup_get(void)
{
	return pmuctx_tp_get(&pmuctx_tp_attach, &pmuctx_cgroup_sessions);
}

/*
 * The last cgroup session is released: the attach probe goes a second
 * later.  Until then it finds no live cgroup session on pmuctx_adopters
 * and does nothing.
 */
void pmuctx_hooks_cgroup_put(void)
{
	pmuctx_tp_put(&pmuctx_tp_attach, &pmuctx_cgroup_sessions);
}

/*
 * Deferred unhooking (issue 29 item 8).  Registering or unregistering a
 * tracepoint probe patches kernel text (its static key and static call:
 * text_poke_bp(), IPIs to every CPU).  A probe whose last user goes stays
 * hooked for PMUCTX_UNHOOK_DELAY more, as perf_sched_delayed() defers
 * perf's own static key: a session created meanwhile finds it hooked, so
 * a loop of create/close flips nothing after its first round.  Each put
 * that leaves a probe unused pushes the work back (mod_delayed_work()):
 * the probes go once no session has needed them for a second.
 *
 * The work takes pmuctx_mutex and unregisters what still has no user, so
 * a get either runs before it (the work then finds the user and leaves
 * the probe) or after it (the probe is gone and the get registers it
 * again); nothing else is shared.  Module exit cancels it (no session is
 * left to queue it again) and unhooks synchronously
 * (pmuctx_hooks_exit()).  Never cancel or flush it under pmuctx_mutex.
 */
#define PMUCTX_UNHOOK_DELAY	HZ

static void pmuctx_unhook_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(pmuctx_unhook_work, pmuctx_unhook_fn);
static bool pmuctx_hooks_reap(void);

/* Under pmuctx_mutex: a probe lost its last user. */
static void pmuctx_hooks_unhook_later(void)
{
	lockdep_assert_held(&pmuctx_mutex);
	mod_delayed_work(system_wq, &pmuctx_unhook_work, PMUCTX_UNHOOK_DELAY);
}

/*
 * Under pmuctx_mutex: unhook every probe nobody uses now.  With no
 * session at all, the store goes with the lifecycle probes
 * (pmuctx_hooks_reap(): pmuctx_hooks_unregister(), then the table).
 */
static void pmuctx_hooks_unhook_idle(void)
{
	bool sw, cg;

	lockdep_assert_held(&pmuctx_mutex);
	if (pmuctx_hooks_reap())
		return;
	sw = pmuctx_tp_unhook(&pmuctx_tp_switch, pmuctx_switch_sessions);
	cg = pmuctx_tp_unhook(&pmuctx_tp_attach, pmuctx_cgroup_sessions);
	if (!sw && !cg)
		return;
	/* No probe we unhooked runs past this point. */
	tracepoint_synchronize_unregister();
	/* no switch probe keeps the caches current: nothing stays cached */
	if (sw)
		on_each_cpu(pmuctx_cpu_forget, NULL, 1);
}

static void pmuctx_unhook_fn(struct work_struct *work)
{
	mutex_lock(&pmuctx_mutex);
	pmuctx_hooks_unhook_idle();
	mutex_unlock(&pmuctx_mutex);
}

/*
 * Module exit, after the device is gone (no session exists, none can be
 * created, so nothing queues the work again): the pending unhook, now.
 */
void pmuctx_hooks_exit(void)
{
	cancel_delayed_work_sync(&pmuctx_unhook_work);
	mutex_lock(&pmuctx_mutex);
	pmuctx_hooks_unhook_idle();
	mutex_unlock(&pmuctx_mutex);
}

static void pmuctx_hooks_unregister(void);

/*
 * Called under pmuctx_mutex when the first session appears and the
 * lifecycle probes are not hooked (pmuctx_hooks_lifecycle_get()).
 */
static int pmuctx_hooks_register(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(pmuctx_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(pmuctx_tps); i++) {
		if (!pmuctx_tps[i].tp) {
			pr_err("tracepoint %s not found\n", pmuctx_tps[i].def->name);
			return -ENOENT;
		}
	}
	if (!pmuctx_tp_switch.tp) {
		pr_err("tracepoint %s not found\n", pmuctx_tp_switch.def->name);
		return -ENOENT;
	}
	/* Stale cache contents from an earlier registration must go. */
	on_each_cpu(pmuctx_cpu_forget, NULL, 1);
	for (i = 0; i < ARRAY_SIZE(pmuctx_tps); i++) {
		ret = tracepoint_probe_register(pmuctx_tps[i].tp,
						pmuctx_tps[i].def->probe, NULL);
		if (ret) {
			pr_err("cannot hook %s: %d\n", pmuctx_tps[i].def->name, ret);
			goto err_unregister;
		}
		pmuctx_testhook_probe_flip();
		WRITE_ONCE(pmuctx_tps[i].registered, true);
	}
	return 0;

err_unregister:
	pmuctx_hooks_unregister();
	return ret;
}

/*
 * Called under pmuctx_mutex when no session is left (the unhook work,
 * module exit, a failed pmuctx_hooks_register()): every probe goes, and
 * none runs when it returns.
 */
static void pmuctx_hooks_unregister(void)
{
	unsigned int i;

	lockdep_assert_held(&pmuctx_mutex);
	for (i = 0; i < ARRAY_SIZE(pmuctx_tps); i++) {
		if (!pmuctx_tps[i].registered)
			continue;
		tracepoint_probe_unregister(pmuctx_tps[i].tp,
					    pmuctx_tps[i].def->probe, NULL);
		pmuctx_testhook_probe_flip();
		WRITE_ONCE(pmuctx_tps[i].registered, false);
	}
	/* the sessions that held them are gone: the counts are 0 already */
	WARN_ON_ONCE(pmuctx_switch_sessions || pmuctx_cgroup_sessions);
	pmuctx_tp_unhook(&pmuctx_tp_switch, 0);
	pmuctx_tp_unhook(&pmuctx_tp_attach, 0);
	/* No probe runs past this point. */
	tracepoint_synchronize_unregister();
	pmuctx_hooks_flush_free();
	on_each_cpu(pmuctx_cpu_forget, NULL, 1);
}

/*
 * The lifecycle probes and the store's table, from the first session's
 * pmuctx_hooks_lifecycle_get() to pmuctx_hooks_reap(), a second after
 * the last session's put ("Deferred unhooking"); a session created
 * meanwhile keeps both.  The store makes and drops its table only when
 * told (pmuctx_store_create(), pmuctx_store_destroy()): made before the
 * probes that look it up are hooked, dropped after they are unhooked.
 */
static unsigned int pmuctx_lifecycle_users;	/* under pmuctx_mutex */
static bool pmuctx_lifecycle_up;		/* under pmuctx_mutex */

/* First session: create the table and hook the scheduler. */
int pmuctx_hooks_lifecycle_get(void)
{
	int ret;

	lockdep_assert_held(&pmuctx_mutex);
	if (pmuctx_lifecycle_users++)
		return 0;
	/*
	 * PREEMPT_RT: a table kept from the last session (deferred unhook)
	 * but made for a smaller max_tasks than today's is remade
	 * (pmuctx_store_outgrown()).  It is empty: no session has entries.
	 * The reap unhooks (waits for running probes) before it drops the
	 * table.
	 */
	if (pmuctx_lifecycle_up && pmuctx_store_outgrown()) {
		pmuctx_lifecycle_users--;
		pmuctx_hooks_reap();
		pmuctx_lifecycle_users++;
	}
	if (pmuctx_lifecycle_up)
		return 0;
	ret = pmuctx_store_create();
	if (ret)
		goto err_users;
	ret = pmuctx_hooks_register();
	if (ret)
		goto err_table;
	pmuctx_lifecycle_up = true;
	return 0;

err_table:
	pmuctx_store_destroy();
err_users:
	pmuctx_lifecycle_users--;
	return ret;
}

/*
 * Last session gone: the probes and the table go a second later
 * (pmuctx_hooks_reap() from the unhook work), unless a session comes.
 * Until then the probes find an empty table.
 */
void pmuctx_hooks_lifecycle_put(void)
{
	lockdep_assert_held(&pmuctx_mutex);
	if (!--pmuctx_lifecycle_users)
		pmuctx_hooks_unhook_later();
}

/*
 * The unhook work, module exit or a first session that remakes the
 * table, under pmuctx_mutex: with no session left, unhook (waits for
 * running probes) and drop the table.  True if it did.
 */
static bool pmuctx_hooks_reap(void)
{
	lockdep_assert_held(&pmuctx_mutex);
	if (pmuctx_lifecycle_users || !pmuctx_lifecycle_up)
		return false;
	pmuctx_hooks_unregister();
	/* Sessions removed all their entries before their put. */
	pmuctx_store_destroy();
	pmuctx_lifecycle_up = false;
	return true;
}
