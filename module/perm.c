// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: permissions - who may monitor what, and what one user may hold.
 *
 * Permissions (the kernel's helpers for these are not exported to modules,
 * so they are rebuilt here from exported parts; see docs/SECURITY.md):
 *  - pid target, every thread attached: the equivalent of
 *    ptrace_may_access(PTRACE_MODE_READ_REALCREDS) without the optional
 *    LSMs' hooks (ptrace_may_access(), security_ptrace_access_check() and
 *    cap_ptrace_access_check() are not exported; ns_capable() and
 *    cap_issubset() are): same real uid/gid as every uid/gid of the
 *    target and a dumpable target, or CAP_SYS_PTRACE in the target's user
 *    namespace (resp. its mm's); and commoncap's rule, the caller in the
 *    target's user namespace with the target's permitted capabilities a
 *    subset of its own, or CAP_SYS_PTRACE in the target's namespace.
 *    With perf_event_paranoid > 2 (Debian's default is 3) CAP_PERFMON is
 *    required as well, as perf requires.
 *  - MMAP snapshots of system-wide and cgroup sessions: the same rule for
 *    the creator's saved credentials (pmuctx_owner_may_read()).
 *  - CGROUP target: an fd opened on the cgroup2 directory, not O_PATH
 *    (pmuctx_cgroup_get()), as perf.
 *  - system-wide and cgroup targets: CAP_PERFMON (or CAP_SYS_ADMIN) unless
 *    perf_event_paranoid <= 0, as perf does for CPU-wide events.
 *  - perf-backed events exclude kernel mode for callers without CAP_PERFMON
 *    when perf_event_paranoid > 1.
 * perf_event_paranoid and kptr_restrict are read through a private procfs
 * mount made at module load (the sysctls are not exported), never through
 * the caller's root or mount namespace, which an unprivileged user
 * namespace can change; if the read fails the strictest values (3 and 2)
 * are assumed.  security_perf_event_open() is not called: LSM perf policies do
 * not apply to pmuctx.
 *
 * Per-user limits: an unprivileged user's sessions, store entries and
 * ring pages are counted in one struct pmuctx_user (perm.h says who a
 * user is); the session cap is charged here, at SESSION_CREATE.
 *
 * Locks and contexts: pmuctx_users_lock, below; every lock of the module
 * is in the map at the top of session_types.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/user_namespace.h>

#include "compat.h"
#include "evdesc.h"
#include "params.h"
#include "perm.h"
#include "session_types.h"

/* ---- sysctls ------------------------------------------------------------- */

/*
 * A private procfs instance, mounted at module load.  Sysctls are read
 * through it, never through the caller's view of the file system: a user
 * and mount namespace (unprivileged on Debian) can bind-mount a file of its
 * own over /proc/sys/kernel/perf_event_paranoid, or chroot() somewhere
 * without /proc at all.
 */
static struct vfsmount *pmuctx_procfs;

int pmuctx_sysctl_init(void)
{
	struct file_system_type *proc = get_fs_type("proc");
	struct vfsmount *mnt;

	if (!proc)
		return -ENODEV;
	mnt = kern_mount(proc);
	module_put(proc->owner);	/* get_fs_type()'s reference */
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	pmuctx_procfs = mnt;
	return 0;
}

void pmuctx_sysctl_exit(void)
{
	kern_unmount(pmuctx_procfs);
	pmuctx_procfs = NULL;
}

/*
 * An integer sysctl the kernel does not export to modules (@name relative
 * to /proc), or @def - callers pass the most restrictive value: failing to
 * read a policy must not relax it.
 */
static int pmuctx_read_sysctl(const char *name, int def)
{
	char buf[16] = {};
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int v;

	f = file_open_root_mnt(pmuctx_procfs, name, O_RDONLY, 0);
	if (IS_ERR(f))
		return def;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &v))
		return def;
	return v;
}

int pmuctx_perf_paranoid(void)
{
	/* unreadable: as if 3 (Debian's default, the strictest level) */
	return pmuctx_read_sysctl("sys/kernel/perf_event_paranoid", 3);
}

/*
 * kallsyms_show_value() for the caller (not exported): kptr_restrict 0
 * shows kernel addresses when perf_event_paranoid <= 1, 0 or 1 to holders
 * of CAP_SYSLOG (pmuctx also accepts CAP_PERFMON), 2 to nobody.
 */
bool pmuctx_show_kaddr(int paranoid, bool perfmon)
{
	int kptr = pmuctx_read_sysctl("sys/kernel/kptr_restrict", 2);

	if (kptr == 0 && paranoid <= 1)
		return true;
	return kptr <= 1 && (perfmon || capable(CAP_SYSLOG));
}

/* ---- the ptrace rule ----------------------------------------------------- */

/*
 * ptrace_has_cap(): CAP_SYS_PTRACE in @ns.  Only for the caller's own
 * credentials (@cur), with ns_capable() as the kernel does (LSM capable
 * hooks, audit).  A session creator's saved credentials (@cur false,
 * pmuctx_owner_may_read()) hold none that counts: security_capable() is
 * not exported, and such credentials are saved only for a creator
 * without CAP_SYS_PTRACE in the initial namespace, whose capabilities in
 * other namespaces are then not rebuilt (stricter than ptrace).
 */
static bool pmuctx_ptrace_cap(bool cur, struct user_namespace *ns)
{
	return cur && ns_capable(ns, CAP_SYS_PTRACE);
}

/*
 * ptrace_may_access(@t, PTRACE_MODE_READ_REALCREDS) for @cred (the
 * caller's: @cur), after the same-thread-group and kernel-thread cases,
 * without the optional LSMs' hooks:
 *  - __ptrace_may_access(): @cred's real uid and gid equal every uid and
 *    gid of @t (real, effective, saved), or CAP_SYS_PTRACE in @t's user
 *    namespace; then, read after the credentials (the barrier in
 *    commit_creds()), a dumpable mm or CAP_SYS_PTRACE in the mm's
 *    user namespace (a task without mm passes: kernel threads are not
 *    asked here, and exiting ones are not attached);
 *  - cap_ptrace_access_check() (commoncap, in every kernel whatever the
 *    LSM list): @cred in @t's user namespace with @t's permitted
 *    capabilities a subset of @cred's permitted ones, or CAP_SYS_PTRACE in
 *    @t's user namespace.  A same-uid process holding a capability the
 *    caller lacks (ambient, file capabilities, a capable thread) and a
 *    caller inside a user namespace of its own are refused by it.
 * Credentials are per thread: callers check every thread they attach.
 * Returns 0 or -EACCES.  Process context, @t referenced.
 */
static int pmuctx_may_read(const struct cred *cred, bool cur,
			   struct task_struct *t)
{
	const struct cred *tcred;
	struct mm_struct *mm;
	bool ok;

	rcu_read_lock();
	tcred = __task_cred(t);
	ok = (uid_eq(cred->uid, tcred->euid) &&
	      uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) &&
	      gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) &&
	      gid_eq(cred->gid, tcred->gid)) ||
	     pmuctx_ptrace_cap(cur, tcred->user_ns);
	rcu_read_unlock();
	if (!ok)
		return -EACCES;

	/* dumpability after the credentials: pairs with commit_creds() */
	smp_rmb();
	task_lock(t);
	rcu_read_lock();
	mm = t->mm;
	ok = !mm || pmuctx_dumpable_owner(t, mm) ||
	     pmuctx_ptrace_cap(cur, pmuctx_exec_user_ns(t, mm));
	rcu_read_unlock();
	task_unlock(t);
	if (!ok)
		return -EACCES;

	rcu_read_lock();
	tcred = __task_cred(t);
	ok = (cred->user_ns == tcred->user_ns &&
	      cap_issubset(tcred->cap_permitted, cred->cap_permitted)) ||
	     pmuctx_ptrace_cap(cur, tcred->user_ns);
	rcu_read_unlock();
	return ok ? 0 : -EACCES;
}

/*
 * May the caller watch @t (one thread; pid targets check each one)?
 * ptrace_may_access(t, PTRACE_MODE_READ_REALCREDS) minus the optional
 * LSMs (pmuctx_may_read()); kernel threads need CAP_PERFMON.
 */
int pmuctx_may_monitor(struct task_struct *t)
{
	if (same_thread_group(t, current))
		return 0;
	if (t->flags & PF_KTHREAD)
		return perfmon_capable() ? 0 : -EACCES;
	return pmuctx_may_read(current_cred(), true, t);
}

/*
 * MMAP snapshots (maps.c) describe what /proc/PID/maps shows, which
 * needs the ptrace read rights a pid session's creator was checked for
 * at SESSION_CREATE.  A system-wide or cgroup session's creator was not:
 * its snapshots are written only for tasks it may read by the rule above,
 * with the credentials it had at create (saved unless it held
 * CAP_SYS_PTRACE in the initial namespace, pmuctx_user_charge()).
 * Task context, @t the task to describe.
 */
bool pmuctx_owner_may_read(const struct pmuctx_session *s,
			   struct task_struct *t)
{
	if (s->target == PMUCTX_TARGET_PID || !s->owner_cred)
		return true;
	if (t->flags & PF_KTHREAD)
		return false;
	return !pmuctx_may_read(s->owner_cred, false, t);
}

/*
 * A CGROUP target's cgroup from the caller's @fd, as perf_event_open()
 * takes it: fdget() there refuses an O_PATH fd (EBADF), which needs no
 * read permission on the directory; cgroup_get_from_fd() takes any
 * (fget_raw()).  fget() refuses it here, and the cgroup must be the
 * directory that file opened (kernfs inodes point at their node): another
 * thread may dup2() an O_PATH fd over @fd between the two lookups.
 * Returns a referenced cgroup2 cgroup or an ERR_PTR (-EBADF, or
 * cgroup_get_from_fd()'s error).
 */
struct cgroup *pmuctx_cgroup_get(int fd)
{
	struct cgroup *cgrp;
	struct file *f;

	f = fget(fd);
	if (!f)
		return ERR_PTR(-EBADF);
	cgrp = cgroup_get_from_fd(fd);
	if (!IS_ERR(cgrp) && file_inode(f)->i_private != cgrp->kn) {
		cgroup_put(cgrp);
		cgrp = ERR_PTR(-EBADF);
	}
	fput(f);
	return cgrp;
}

/* ---- SESSION_CREATE's policy --------------------------------------------- */

/*
 * kernel.perf_event_max_sample_rate (not exported to modules): perf
 * refuses a sampling frequency above it.  pmuctx applies it to callers
 * without CAP_PERFMON (sampling issue item 1), who could otherwise
 * interrupt a watched CPU at up to max_sample_freq (10 kHz) per session
 * whatever the administrator set for perf.  Unreadable: 1000 (perf's
 * lowest automatic setting), not to relax a policy it cannot read.
 */
static int pmuctx_perf_max_sample_rate(void)
{
	return pmuctx_read_sysctl("sys/kernel/perf_event_max_sample_rate",
				  1000);
}

/*
 * The paranoid levels of the rules at the top, for a caller with
 * @perfmon (perfmon_capable()) under perf_event_paranoid @paranoid
 * (pmuctx_perf_paranoid()), and perf's sample-rate ceiling.  Looks at no
 * pid and no fd: a bad cgroup_fd or a pid that does not exist is EACCES
 * here (docs/ABI.md, the order of SESSION_CREATE's checks).  Returns 0,
 * -EACCES, or -EINVAL for a sample_freq above
 * kernel.perf_event_max_sample_rate (as perf_event_open()).
 */
int pmuctx_may_create(const struct pmuctx_session_attr *a, int paranoid,
		      bool perfmon)
{
	if ((a->target == PMUCTX_TARGET_SYSTEM ||
	     a->target == PMUCTX_TARGET_CGROUP) && !perfmon && paranoid > 0)
		return -EACCES;
	if (a->target == PMUCTX_TARGET_PID && !perfmon && paranoid > 2)
		return -EACCES;
	/* the test backend's save areas are kernel memory: not for users */
	if (a->backend == PMUCTX_BACKEND_SELFTEST && !perfmon)
		return -EACCES;
	if (a->sample_freq && !perfmon &&
	    a->sample_freq > (u32)max(pmuctx_perf_max_sample_rate(), 1))
		return -EINVAL;
	/*
	 * Overflow sampling runs on CPU-wide counters, one on every CPU,
	 * that overflow whether or not a watched task runs there: timer
	 * interrupts (cpu-clock) or NMIs (hardware events) for every user,
	 * and perf lowers the machine's perf_event_max_sample_rate when
	 * they take too long (issue 29 item 3).  The hrtimer source costs
	 * nothing where the watched tasks do not run; it is what users
	 * without CAP_PERFMON get (SECURITY.md, "What one user costs").
	 */
	if (a->sample_freq && a->sample_event && !perfmon)
		return -EACCES;
	/*
	 * ":k" or ":h" asked for where perf would refuse kernel mode to
	 * this caller (perf_allow_kernel()): refused, never counted
	 * user-only behind the caller's back.  The default modes (flags 0)
	 * leave kernel mode out instead (pmuctx_exclude_kernel()).
	 */
	if (pmuctx_evdesc_wants_kernel(a) &&
	    pmuctx_exclude_kernel(paranoid, perfmon))
		return -EACCES;
	return 0;
}

/* Whether the session's perf-backed events exclude kernel mode. */
bool pmuctx_exclude_kernel(int paranoid, bool perfmon)
{
	return !perfmon && paranoid > 1;
}

/* ---- per-user session cap ------------------------------------------------ */

/* Unprivileged users with sessions; pmuctx_users_lock protects the list
 * and each user's sessions and ref (taken from process context and from
 * RCU callbacks: irqsave).
 */
static LIST_HEAD(pmuctx_users);
/* max_unprivileged_pmu_counters' share in use, pmuctx_users_lock */
static unsigned int pmuctx_unpriv_pmu_held;
static DEFINE_SPINLOCK(pmuctx_users_lock);

/*
 * The uid a caller's limits are charged to.  Inside user namespaces: the
 * owner of the outermost one that a non-root user created, so every uid
 * mapped into it (sub-uids granted through newuidmap, or the creator's
 * own) is that one user: without this, N sub-uids had N times every
 * per-user limit (SECURITY.md).  Namespaces root made (containers of
 * rootful engines) do not merge their users: there, and in the initial
 * namespace, it is the caller's own uid.
 */
static kuid_t pmuctx_acct_uid(void)
{
	const struct user_namespace *ns = current_user_ns();
	kuid_t uid = current_uid();

	for (; ns != &init_user_ns; ns = ns->parent)
		if (!uid_eq(ns->owner, GLOBAL_ROOT_UID))
			uid = ns->owner;
	return uid;
}

/*
 * Charge a session to the caller's user (EMFILE over
 * max_sessions_per_user, or over max_counter_sessions_per_user when
 * @counters: the session will have CPU-wide perf counters on every CPU),
 * and its @pmu hardware counters to the PMU's share of all unprivileged
 * users (EUSERS over max_unprivileged_pmu_counters).  Privileged callers
 * are not limited.  Process context.
 *
 * Why a share of the PMU: a session's counters are on every CPU for as
 * long as it is open, flexible without CAP_PERFMON, and perf schedules a
 * CPU's flexible events before the running task's own.  Sessions whose
 * hardware events filled the PMU left every other user's task counters
 * (perf stat, perf_event_open() on a task) no slot at all, on every CPU
 * (93-pmu-share: running 0).  The share is global, not per user: each
 * user's counters are on the same CPUs, so a per-user cap would only
 * multiply.  Root's (pinned) counters hold the PMU as perf's pinned
 * events do.
 *
 * Why a cap of its own for @counters (issue 29 item 4): every such
 * counter is in every CPU's perf context, so each of its events on any
 * CPU, whoever causes it (a page fault of root's process), walks them
 * all: 256 sessions counting page faults cut root's minor-fault rate to
 * 0.56x.  The cost one user adds to everyone's events is now at most
 * max_counter_sessions_per_user x its events (SECURITY.md).
 *
 * On success also saves the caller's credentials for
 * pmuctx_owner_may_read(), unless it may read every task (CAP_SYS_PTRACE
 * in the initial namespace); they are put with the user's reference
 * (pmuctx_user_put(), also on a later failure of the create, so a retry
 * on the same fd takes its caller's).  Process context, once per
 * SESSION_CREATE.
 */
int pmuctx_user_charge(struct pmuctx_session *s, bool privileged,
		       bool counters, unsigned int pmu)
{
	int lim = READ_ONCE(pmuctx_max_unpriv_pmu_counters);
	struct pmuctx_user *u, *fresh;
	kuid_t uid = pmuctx_acct_uid();
	unsigned long flags;
	int ret = 0;

	if (privileged)
		goto owner;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;
	spin_lock_irqsave(&pmuctx_users_lock, flags);
	list_for_each_entry(u, &pmuctx_users, node)
		if (uid_eq(u->uid, uid))
			goto found;
	u = fresh;
	fresh = NULL;
	u->uid = uid;
	list_add(&u->node, &pmuctx_users);
found:
	if (u->sessions >= READ_ONCE(pmuctx_max_sessions_per_user) ||
	    (counters && u->counter_sessions >=
	     READ_ONCE(pmuctx_max_counter_sessions_per_user))) {
		ret = -EMFILE;
		goto refused;
	}
	if (lim < 0)
		lim = pmuctx_unpriv_pmu_default;
	if (pmu && pmuctx_unpriv_pmu_held + pmu > lim) {
		ret = -EUSERS;
		goto refused;
	}
	u->sessions++;
	if (counters)
		u->counter_sessions++;
	s->user_counters = counters;
	pmuctx_unpriv_pmu_held += pmu;
	s->user_pmu = pmu;
	u->ref++;
	s->user = u;
	s->user_charged = true;
	goto out;
refused:
	if (!u->ref) {
		list_del(&u->node);
		fresh = u;	/* freed below */
	}
out:
	spin_unlock_irqrestore(&pmuctx_users_lock, flags);
	kfree(fresh);
	if (ret)
		return ret;
owner:
	/* only on success: a failed create must not leave them behind */
	if (!s->owner_cred &&
	    !ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE))
		s->owner_cred = get_current_cred();
	return 0;
}

/* The session is released (or its create failed): one session fewer. */
void pmuctx_user_uncharge(struct pmuctx_session *s)
{
	unsigned long flags;

	if (!s->user || !s->user_charged)
		return;
	spin_lock_irqsave(&pmuctx_users_lock, flags);
	s->user->sessions--;
	if (s->user_counters)
		s->user->counter_sessions--;
	pmuctx_unpriv_pmu_held -= s->user_pmu;
	spin_unlock_irqrestore(&pmuctx_users_lock, flags);
	s->user_charged = false;
	s->user_counters = false;
	s->user_pmu = 0;
}

/*
 * The session struct's reference, when it is freed (its last entry may be
 * freed long after release) or when its create failed, and the saved
 * credentials (put_cred(): RCU-freed).  Any context.
 */
void pmuctx_user_put(struct pmuctx_session *s)
{
	struct pmuctx_user *u = s->user, *dead = NULL;
	unsigned long flags;

	if (s->owner_cred) {
		put_cred(s->owner_cred);
		s->owner_cred = NULL;
	}
	if (!u)
		return;
	spin_lock_irqsave(&pmuctx_users_lock, flags);
	if (!--u->ref) {
		list_del(&u->node);
		dead = u;
	}
	spin_unlock_irqrestore(&pmuctx_users_lock, flags);
	s->user = NULL;
	kfree(dead);
}

/* ---- locked memory ------------------------------------------------------- */

/*
 * Ring memory (ring.c) is charged to the user who creates the session, like perf's
 * buffers and io_uring's (session.c calls these around ring creation and
 * destruction, as perf_mmap() does): to user_struct->locked_vm, checked against the
 * caller's RLIMIT_MEMLOCK (unless CAP_IPC_LOCK), and kept with the buffer
 * until it is freed.  Charging the mm instead let a user chain sessions
 * through execve() (fds kept, each new mm at 0) past any limit (security
 * item 7).  The pages themselves are __GFP_ACCOUNT: the creator's memcg
 * pays for them too.
 */
int pmuctx_user_lock_pages(struct pmuctx_session *s, struct user_struct *user,
			   unsigned long pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long locked;

	/* CAP_IPC_LOCK only asked for when over the limit (an audited check) */
	locked = atomic_long_add_return(pages, &user->locked_vm);
	if (locked > limit && !capable(CAP_IPC_LOCK))
		goto err_user;
	/*
	 * An unprivileged session's user (perm.c) spans the sub-uids an
	 * administrator mapped for one uid: each has its own user_struct,
	 * so the limit holds only if also checked for all of them together.
	 */
	if (s->user) {
		locked = atomic_long_add_return(pages, &s->user->locked_pages);
		if (locked > limit && !capable(CAP_IPC_LOCK)) {
			atomic_long_sub(pages, &s->user->locked_pages);
			goto err_user;
		}
	}
	return 0;

err_user:
	atomic_long_sub(pages, &user->locked_vm);
	return -EPERM;
}

void pmuctx_user_unlock_pages(struct pmuctx_session *s, struct user_struct *user,
			      unsigned long pages)
{
	if (s->user)
		atomic_long_sub(pages, &s->user->locked_pages);
	atomic_long_sub(pages, &user->locked_vm);
}

/* ---- per-user pace of cross-CPU folds ------------------------------------ */

/* Folds a user may have in a burst before the pace holds. */
#define PMUCTX_SYNC_BURST	16

/*
 * READ, RESET, ENABLE and DISABLE fold the running slices of a session
 * with an IPI to every CPU (pmuctx_sess_sync()): each one interrupts
 * every other user's tasks.  One unprivileged user's folds, all its
 * sessions together, are paced to max_user_syncs per second (after a
 * burst of PMUCTX_SYNC_BURST): a caller past its share sleeps until its
 * turn (killable; s->lock held, which only its own session's ioctls
 * wait for).  So one user interrupts each CPU at most max_user_syncs
 * times a second this way, however many sessions and threads it has
 * (issue 29 item 5: a spinner fell to 0.20x its loop rate while uid
 * 65534 looped READ).  Privileged callers are not paced.  Process
 * context.
 */
void pmuctx_user_pace_sync(struct pmuctx_session *s)
{
	unsigned int rate = READ_ONCE(pmuctx_max_user_syncs);
	struct pmuctx_user *u = s->user;
	u64 gap, now, next, slot;
	ktime_t wait;

	if (!u || !rate)
		return;
	gap = div_u64(NSEC_PER_SEC, min_t(unsigned int, rate, NSEC_PER_SEC));
	now = ktime_get_ns();
	do {
		next = atomic64_read(&u->sync_next);
		slot = max(next, now - min(now, PMUCTX_SYNC_BURST * gap));
	} while (atomic64_cmpxchg(&u->sync_next, next, slot + gap) != next);
	if (slot <= now)
		return;
	wait = ns_to_ktime(slot - now);
	set_current_state(TASK_KILLABLE);
	schedule_hrtimeout(&wait, HRTIMER_MODE_REL);
}
