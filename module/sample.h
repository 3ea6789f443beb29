/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: sampling (sample.c): the sampling hrtimer or counters, the
 * deferred user callchain of an entry.
 */
#ifndef _PMUCTX_SAMPLE_H
#define _PMUCTX_SAMPLE_H

#include <linux/fs_struct.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

#include "compat.h"
#include "store.h"

struct perf_event;
struct perf_sample_data;
struct pt_regs;

/*
 * Deferred user callchain of an entry (sample.c), only in entries of
 * sampling sessions.  Written in the sampling interrupt and by the task
 * itself (task_work, exec probe).  One unwind per task and kernel entry
 * serves every session: the first session to sample the entry queues the
 * work (@owner); the others' first samples join it (@pending with the
 * owner's @cookie, no work of their own), and the owner's work delivers
 * the one walk to all of them.
 */
struct pmuctx_defer {
	struct callback_head	work;
	struct pmuctx_entry	*e;		/* set when work is queued */
	u64			cookie;
	bool			pending;	/* @cookie waits for a unwind */
	bool			owner;		/* ... queued by this entry */
	bool			delivering;	/* its work is walking: no join */
	bool			stale;		/* exec since the sample */
	/*
	 * A task_work of pmuctx (an unwind, an MMAP scan) holding a
	 * reference on this entry runs in the task: no session samples it
	 * (written by the work, read by the ticks on the task's CPU;
	 * pmuctx_sample_mark_work()).
	 */
	bool			in_work;
	/* owner: the entries that joined (each holds a reference) */
	struct pmuctx_entry	*joined;
	struct pmuctx_entry	*join_next;	/* joined: the next one */
	u64			left_ns;	/* hrtimer period left at switch-out */
	/*
	 * hrtimer source: CPU time the task ran before a switch-out since the
	 * session's last sample of it, added to its next sample's period
	 * (written at switch-out, read by the tick on the CPU it runs on).
	 */
	u64			carry_ns;
	u64			in_ns;		/* its last switch-in here */
	/*
	 * The task's self_exec_id + 1 as this entry last saw it (0: not
	 * yet): at a slice's start, and at each exec probe that does not
	 * stop the entry.  Another value means an exec passed its point of
	 * no return since (pmuctx_cred_gone()).
	 */
	u64			exec_id;
};

/* The entry's deferred-callchain state, or NULL outside sampling sessions. */
static inline struct pmuctx_defer *pmuctx_defer(struct pmuctx_entry *e)
{
	u32 off = e->sess->defer_offset;

	return off ? (struct pmuctx_defer *)((u8 *)e + off) : NULL;
}

/*
 * Task context: a task_work of pmuctx that holds a reference on @e starts
 * (@on) or ends.  Only entries the work holds: it may run after the last
 * session is closed, when the store is gone.
 */
static inline void pmuctx_sample_mark_work(struct pmuctx_entry *e, bool on)
{
	struct pmuctx_defer *d = pmuctx_defer(e);

	if (d)
		WRITE_ONCE(d->in_work, on);
}

/* sample.c, "task works": queue one (sample.c, maps.c), its end */
bool pmuctx_entry_task_work(struct pmuctx_entry *e, struct callback_head *cb,
			    task_work_func_t fn, bool *pending);
void pmuctx_task_work_done(struct pmuctx_entry *e);

/*
 * The end of such a work, its last statement.  (A work sets its mark
 * before it calls any kernel function but ftrace's __fentry__: a tick
 * there sees an ip in the module.)  In order:
 *  - the module reference and the listing (pmuctx_task_work_done()),
 *    still marked: from
 *    here on only code that pmuctx_exit()'s RCU Tasks wait covers runs,
 *    and the free callback the entry's put may queue is queued before
 *    that wait ends, so the rcu_barrier() after it sees the callback;
 *  - interrupts off to the return, then the mark, while the work's
 *    reference still holds @e, then that reference.  An hrtimer tick due
 *    after the mark is taken at an ip in the module, which
 *    pmuctx_sample_ours() recognises.  An NMI (a hardware PMU's overflow)
 *    is not held off: it can still land in call_rcu() of a last put.
 *    Before, kernel code ran after the mark with interrupts on
 *    (rcu_read_unlock()'s lockdep hooks, module_put()): a tick there was
 *    a sample of the profiler, which 67-profile saw on the debug kernel
 *    now and then and 67-observer makes wide (the debug build's task_work
 *    tail hook, which now runs marked).
 */
static inline void pmuctx_sample_work_end(struct pmuctx_entry *e)
{
	unsigned long flags;

	pmuctx_task_work_done(e);
	local_irq_save(flags);
	pmuctx_sample_mark_work(e, false);
	pmuctx_entry_put(e);
	local_irq_restore(flags);
}

/*
 * Task @t (current, or the next task of a context switch: it runs nowhere
 * else, so its fs, mm and exec id stay put) watched by @e may be inside an
 * execve() whose new program is not dumpable: a setuid, setgid or
 * file-capabilities program (or an unreadable one) after commit_creds(),
 * which makes the mm non-dumpable before it installs the credentials.
 * perf calls perf_event_exit_task() right there (begin_new_exec(),
 * "get_dumpable() != SUID_DUMP_USER"); pmuctx's exec probe stops the
 * task's entries only at the sched_process_exec tracepoint, after the ELF
 * loader ran and start_thread() pointed the user registers at the new
 * program's ld.so (issue 29 item 7).  In between, every point that takes
 * data (the sampling tick and overflow, the deferred unwind, the switch)
 * asks this and takes nothing.  An exec is in progress when
 * - fs->in_exec is set (check_unsafe_exec() to the end of bprm_execve() on
 *   6.1; kernels with "exec: fix the racy usage of fs_struct->in_exec",
 *   Debian's 6.12 among them, clear it before commit_creds()), or
 * - the task's self_exec_id (raised just before commit_creds()) is not
 *   the one the entry saw at its last slice start or exec probe
 *   (sampling sessions: struct pmuctx_defer), or the entry saw none yet
 *   and its owner has no CAP_PERFMON (a task it could watch without
 *   CAP_SYS_PTRACE was dumpable when it attached).
 * Any context, NMI included: plain loads.
 */
static __always_inline bool pmuctx_exec_secure(struct pmuctx_entry *e,
					       struct task_struct *t)
{
	struct pmuctx_defer *d = pmuctx_defer(e);
	struct fs_struct *fs = READ_ONCE(t->fs);
	struct mm_struct *mm = READ_ONCE(t->mm);
	u64 seen;

	if (!mm || likely(pmuctx_dumpable_owner(t, mm)))
		return false;
	if (fs && READ_ONCE(fs->in_exec))
		return true;
	if (!d)
		return false;
	seen = READ_ONCE(d->exec_id);
	if (!seen)
		return !e->sess->owner_perfmon;
	return seen != READ_ONCE(t->self_exec_id) + 1;
}

/*
 * @e's session must take nothing of task @t now: a pid session (whoever
 * owns it, as perf and the exec probe) of a task in a privilege-raising
 * exec (pmuctx_exec_secure()).  System-wide and cgroup sessions watch
 * CPUs and go on, as perf's CPU-wide events.
 */
static __always_inline bool pmuctx_cred_gone(struct pmuctx_entry *e,
					     struct task_struct *t)
{
	return e->sess->target == PMUCTX_TARGET_PID &&
	       unlikely(pmuctx_exec_secure(e, t));
}

/* The exec id @e saw of task @t (a slice's start, an exec probe). */
static inline void pmuctx_exec_seen(struct pmuctx_entry *e,
				    struct task_struct *t)
{
	struct pmuctx_defer *d = pmuctx_defer(e);

	if (d)
		WRITE_ONCE(d->exec_id, READ_ONCE(t->self_exec_id) + 1);
}

extern unsigned int pmuctx_max_sample_freq;
int pmuctx_sample_attr_validate(const struct pmuctx_session_attr *a);
int pmuctx_sample_init(struct pmuctx_session *s,
		       const struct pmuctx_session_attr *a, bool show_kaddr);
void pmuctx_sample_start(struct pmuctx_session *s);
void pmuctx_sample_stop(struct pmuctx_session *s);
void pmuctx_sample_sched_in(struct pmuctx_entry *e, u64 now);
void pmuctx_sample_sched_out(struct pmuctx_entry *e, u64 now);
void pmuctx_sample_overflow(struct perf_event *ev,
			    struct perf_sample_data *data,
			    struct pt_regs *regs);
void pmuctx_sample_destroy(struct pmuctx_session *s);

#endif /* _PMUCTX_SAMPLE_H */
