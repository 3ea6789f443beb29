/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a libpmuctx call failed and how to fix it: the library records what
 * the call was doing (pmuctx_errinfo()); this adds what the system says
 * (the device node, users and groups, capabilities through libcap,
 * kernel.perf_event_paranoid, RLIMIT_MEMLOCK, the module's parameters)
 * and writes a multi-line explanation with the commands that fix it.
 * Self-contained: it needs libpmuctx and libcap, nothing else of tools/.
 */
#ifndef PMUCTX_TOOLS_DIAGNOSE_H
#define PMUCTX_TOOLS_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <pmuctx.h>

/* where the facts are read from (the unit tests point these elsewhere) */
struct diag_paths {
	const char *paranoid;		/* kernel.perf_event_paranoid */
	const char *proc_root;		/* /proc: the owner of a target pid */
	const char *max_ring_pages;	/* the module parameter */
	const char *max_sample_freq;	/* the module parameter */
	const char *max_sample_rate;	/* kernel.perf_event_max_sample_rate */
	const char *max_unpriv_pmu;	/* max_unprivileged_pmu_counters */
};
extern struct diag_paths diag_paths;

#define DIAG_NAME_LEN	64

/* who the process is and what it may do */
struct diag_perm {
	bool caps_known;		/* libcap read the process's sets */
	bool perfmon_eff, perfmon_prm;
	bool sysadmin_eff, sysadmin_prm;
	bool ptrace_eff, ptrace_prm;

	uid_t euid;
	char user[DIAG_NAME_LEN];	/* "" if unknown */

	bool dev_known;			/* stat() of the device worked */
	bool dev_is_chr;
	mode_t dev_mode;
	uid_t dev_uid;
	gid_t dev_gid;
	char dev_owner[DIAG_NAME_LEN];
	char dev_group[DIAG_NAME_LEN];

	bool group_exists;		/* group "pmuctx" in the group db */
	bool in_group;			/* process has it (egid/supplementary) */
	bool listed_in_group;		/* group db lists the user */

	bool paranoid_known;
	int paranoid;			/* kernel.perf_event_paranoid */

	bool target_known;		/* owner of the target pid */
	uid_t target_uid;
	char target_user[DIAG_NAME_LEN];
};

/* what limits the ring buffers */
struct diag_ring {
	long long max_pages;		/* max_ring_pages, -1 unknown */
	bool memlock_known;
	unsigned long long memlock_cur;	/* bytes, or RLIM_INFINITY */
	unsigned long long memlock_max;
	bool caps_known;
	bool ipc_lock;			/* CAP_IPC_LOCK effective */
};

struct diag_facts {
	bool have_perm;			/* @perm was gathered */
	struct diag_perm perm;
	struct diag_ring ring;		/* gathered when there is a ring */
};

/*
 * The facts @e calls for: privileges for a refused open or session (the
 * device node of an open), the ring limits when there is a ring.
 */
void diag_gather(const struct pmuctx_errinfo *e, struct diag_facts *f);

/*
 * The explanation: a first line saying what failed, then lines indented
 * by two spaces saying why and how to fix it; no trailing newline.
 * Returns the length of the whole text, like snprintf().
 */
int diag_format(const struct pmuctx_errinfo *e, const struct diag_facts *f,
		char *buf, size_t len);

/*
 * pmuctx_errinfo() of the failure @err of @h (or of this thread's last
 * one), diag_gather() and diag_format().
 */
int diagnose(struct pmuctx *h, int err, char *buf, size_t len);

#endif /* PMUCTX_TOOLS_DIAGNOSE_H */
