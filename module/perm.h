/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: permissions, sysctls and per-user limits (perm.c).
 */
#ifndef _PMUCTX_PERM_H
#define _PMUCTX_PERM_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct cgroup;
struct pmuctx_session;
struct pmuctx_session_attr;
struct task_struct;
struct user_struct;

/*
 * An unprivileged user's share (perm.c): sessions (the session cap,
 * under pmuctx_users_lock), store entries (max_tasks_per_user, atomic:
 * charged in the probes) and ring pages (under RLIMIT_MEMLOCK, charged by
 * session.c around ring creation).
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
	unsigned int		counter_sessions; /* with CPU-wide counters, lock */
	unsigned int		ref;
	atomic_t		entries;
	atomic_long_t		locked_pages;	/* ring pages, all its kuids */
	atomic64_t		sync_next;	/* pace_sync(): cmpxchg, process ctx */
};

int pmuctx_sysctl_init(void);
void pmuctx_sysctl_exit(void);
int pmuctx_perf_paranoid(void);
bool pmuctx_show_kaddr(int paranoid, bool perfmon);
int pmuctx_may_monitor(struct task_struct *t);
bool pmuctx_owner_may_read(const struct pmuctx_session *s,
			   struct task_struct *t);
struct cgroup *pmuctx_cgroup_get(int fd);
int pmuctx_may_create(const struct pmuctx_session_attr *a, int paranoid,
		      bool perfmon);
bool pmuctx_exclude_kernel(int paranoid, bool perfmon);
int pmuctx_user_charge(struct pmuctx_session *s, bool privileged,
		       bool counters, unsigned int pmu);
void pmuctx_user_uncharge(struct pmuctx_session *s);
void pmuctx_user_put(struct pmuctx_session *s);
void pmuctx_user_pace_sync(struct pmuctx_session *s);
int pmuctx_user_lock_pages(struct pmuctx_session *s, struct user_struct *user,
			   unsigned long pages);
void pmuctx_user_unlock_pages(struct pmuctx_session *s, struct user_struct *user,
			      unsigned long pages);

#endif /* _PMUCTX_PERM_H */
