// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: counting without a context-switch probe, from the kernel's own
 * per-task counters.
 *
 * The default events of `pmuctx stat` are kept by the kernel for every
 * task anyway: task-clock (se.sum_exec_runtime, what getrusage() and
 * /proc/PID/schedstat report), context-switches (nvcsw + nivcsw),
 * cpu-migrations (se.nr_migrations) and page-faults (min_flt + maj_flt).
 * A session whose events all have such a source, and that asks for
 * nothing else per switch (no ring, no sampling, no save area, no
 * trigger, no PMUCTX_SESSION_PER_SWITCH), is "switchless": it adds
 * nothing to a context switch.  The sched_switch probe is registered
 * only while some other session exists (hooks.c), and skips the entries
 * of switchless sessions when it is.
 *
 * An entry of a switchless session counts over "open" intervals (e->in
 * true): from when its task is counted (ENABLE, the fork or adopt that
 * hashed it with the session enabled, a move back into the session's
 * cgroup) to when it stops (DISABLE, a move out of the cgroup, the fold
 * when the task is freed or stops at a privilege-raising exec).  While
 * open, total[i] holds the closed intervals' sum minus the source's value
 * at the opening (modulo 2^64), so the value is total[i] + source now; a
 * close adds the source's value and leaves the sum.  No base array: the
 * entry is no bigger than one counted at switch (smaller: page-faults
 * needs no snapshot slot).
 *
 * Context and locks: every open, close and read of an entry's totals
 * takes the session's entries_lock (raw spinlock; session_types.h), so READ
 * never sees half an opening.  They run in process context (ioctls, the
 * free work), in the fork and exec probes (preemption off) and in the
 * cgroup-attach probe (IRQs off, the lock already held: the _locked
 * variants).  The task's fields are read while the entry holds its task
 * reference: it is dropped only after the fold that closes the entry for
 * good (pmuctx_entry_retire()), and nothing opens a dead entry.
 *
 * Rounding of each source, against the per-switch path: task-clock of a
 * task running on another CPU is as of that CPU's last scheduler update
 * (at most a tick old; the final value, when the task is gone, is exact).
 * context-switches are the scheduler's own count, so they are equal.
 * cpu-migrations count every set_task_cpu() to another CPU (a wakeup
 * placement included); the per-switch path counts a slice that starts on
 * another CPU than the last one, which is the same number for a task
 * that is counted from its first run.  page-faults are the faults the
 * mm accounted (mm_account_fault(): completed ones, get_user_pages()
 * from the kernel included), where the perf software event counts every
 * user fault entry (retries and faults that end in SIGSEGV included):
 * the two differ by those, typically well under 1 %.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/spinlock.h>

#include "evdesc.h"
#include "store.h"
#include "tasksrc.h"

bool pmuctx_event_task_sourced(u32 id)
{
	switch (id) {
	case PMUCTX_EV_TASK_CLOCK:
	case PMUCTX_EV_CONTEXT_SWITCHES:
	case PMUCTX_EV_CPU_MIGRATIONS:
	case PMUCTX_EV_PAGE_FAULTS:
		return true;
	default:
		return false;
	}
}

/*
 * Whether a session of attr @a does no work at context switch: every
 * event has a per-task source and nothing else needs the switch probe.
 * The attr is validated; @a->flags may carry PMUCTX_SESSION_PER_SWITCH.
 */
bool pmuctx_attr_switchless(const struct pmuctx_session_attr *a)
{
	unsigned int i;

	if ((a->flags & PMUCTX_SESSION_PER_SWITCH) || a->ring_pages ||
	    a->sample_freq || a->backend != PMUCTX_BACKEND_NONE ||
	    a->data_size || a->trigger_event || !a->nr_events)
		return false;
	/* page-faults:u needs perf's user/kernel split, not the task's sum */
	if (pmuctx_evdesc_any(a))
		return false;
	for (i = 0; i < a->nr_events; i++)
		if (!pmuctx_event_task_sourced(a->events[i]))
			return false;
	return true;
}

static u64 pmuctx_task_value(struct task_struct *t, u32 id)
{
	switch (id) {
	case PMUCTX_EV_TASK_CLOCK:
		return READ_ONCE(t->se.sum_exec_runtime);
	case PMUCTX_EV_CONTEXT_SWITCHES:
		return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
	case PMUCTX_EV_CPU_MIGRATIONS:
		return READ_ONCE(t->se.nr_migrations);
	case PMUCTX_EV_PAGE_FAULTS:
		return READ_ONCE(t->min_flt) + READ_ONCE(t->maj_flt);
	default:
		return 0;
	}
}

/* Open @e's interval if it should count now.  s->entries_lock held. */
void pmuctx_tsrc_open_locked(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;
	u64 *tot = pmuctx_total(e);
	unsigned int i;

	lockdep_assert_held(&s->entries_lock);
	if (e->in || READ_ONCE(e->dead) || READ_ONCE(e->parked) ||
	    (e->flags & PMUCTX_EF_FOLDED) || !pmuctx_sess_live(s) ||
	    !READ_ONCE(s->enabled))
		return;
	for (i = 0; i < s->nr_events; i++)
		WRITE_ONCE(tot[i], tot[i] - pmuctx_task_value(e->task,
							      s->events[i]));
	e->in = true;
}

/* Close @e's interval: its totals are the sums again.  Lock held. */
void pmuctx_tsrc_close_locked(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;
	u64 *tot = pmuctx_total(e);
	unsigned int i;

	lockdep_assert_held(&s->entries_lock);
	if (!e->in)
		return;
	for (i = 0; i < s->nr_events; i++)
		WRITE_ONCE(tot[i], tot[i] + pmuctx_task_value(e->task,
							      s->events[i]));
	e->in = false;
}

/*
 * The same, taking the lock: process context or a probe (preemption off),
 * IRQs on or off; never an interrupt (see session_types.h).
 */
void pmuctx_tsrc_open(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;

	raw_spin_lock(&s->entries_lock);
	pmuctx_tsrc_open_locked(e);
	raw_spin_unlock(&s->entries_lock);
}

void pmuctx_tsrc_close(struct pmuctx_entry *e)
{
	struct pmuctx_session *s = e->sess;

	raw_spin_lock(&s->entries_lock);
	pmuctx_tsrc_close_locked(e);
	raw_spin_unlock(&s->entries_lock);
}

/* @e's values now into @val[nr_events] (READ). */
void pmuctx_tsrc_values(struct pmuctx_entry *e, u64 *val)
{
	struct pmuctx_session *s = e->sess;
	u64 *tot = pmuctx_total(e);
	unsigned int i;

	raw_spin_lock(&s->entries_lock);
	for (i = 0; i < s->nr_events; i++) {
		val[i] = tot[i];
		if (e->in)
			val[i] += pmuctx_task_value(e->task, s->events[i]);
	}
	raw_spin_unlock(&s->entries_lock);
}

/*
 * RESET: @e's totals are zero from now on, of generation @gen (READ and
 * the fold take them as they are from here).  Process context.
 */
void pmuctx_tsrc_reset(struct pmuctx_entry *e, u32 gen)
{
	struct pmuctx_session *s = e->sess;
	u64 *tot = pmuctx_total(e);
	unsigned int i;

	raw_spin_lock(&s->entries_lock);
	for (i = 0; i < s->nr_events; i++) {
		u64 v = e->in ? pmuctx_task_value(e->task, s->events[i]) : 0;

		WRITE_ONCE(tot[i], 0 - v);
	}
	/* pairs with pmuctx_total_get() */
	smp_wmb();
	WRITE_ONCE(e->tot_gen, gen);
	raw_spin_unlock(&s->entries_lock);
}

/*
 * READ of a switchless session: the tasks' run time is task-clock's
 * total when the session counts it, else unknown (0, as from a module
 * that does not say); every event counted all of it.
 */
void pmuctx_tsrc_running(const struct pmuctx_session *s,
			 struct pmuctx_read *r)
{
	unsigned int i;

	r->time_slices = 0;
	for (i = 0; i < s->nr_events; i++)
		if (s->events[i] == PMUCTX_EV_TASK_CLOCK)
			r->time_slices = r->values[i];
	for (i = 0; i < s->nr_events; i++)
		r->time_running[i] = r->time_slices;
}
