/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake /dev/pmuctx for host tests: installed through libpmuctx's
 * internal system-call hooks, it follows the ABI of <linux/pmuctx.h>
 * (size/E2BIG rules, EINVAL checks, EBUSY, ENOSPC with the needed count).
 */
#ifndef PMUCTX_FAKE_KERNEL_H
#define PMUCTX_FAKE_KERNEL_H

#include <stdbool.h>
#include <linux/pmuctx.h>

struct fake_cfg {
	int open_err;		/* -errno for open() of the device */
	__u32 info_size;	/* struct size the "module" knows */
	bool info_strict;	/* E2BIG for any size > info_size (buggy) */
	__u32 abi_version;
	__u64 features;
	__u32 probes;		/* INFO's probes_registered */
	char version[PMUCTX_VERSION_LEN];
	__u32 attr_size;	/* session_attr size the module knows */
	int create_err;		/* forced SESSION_CREATE error */
	bool hw_unsupported;	/* EOPNOTSUPP for hardware event ids */
	int unsupported_id;	/* EOPNOTSUPP for this id only */
	bool check_pid;		/* ESRCH if the pid does not exist */

	unsigned int nr_tasks;	/* tasks reported by per-task reads */
	unsigned int grow_per_read; /* tasks appearing at every read */
	__u64 values[PMUCTX_MAX_EVENTS];
	__u64 values_step;	/* added to the values at every read */
	__u64 time_enabled;
	__u64 tasks_seen, tasks_exited, tasks_dropped, priv_exec_stopped;
	__u64 tasks_unlisted;
	__u64 time_slices;			/* READ VER1 fields */
	__u64 time_running[PMUCTX_MAX_EVENTS];
	bool read_ver0;				/* a module before READ VER1 */

	/* observed */
	int nr_open, nr_creates, nr_reads, nr_enospc, nr_enables;
	struct pmuctx_session_attr last_attr;
	__u32 last_read_cap;
};

extern struct fake_cfg fake;

/* reset @fake to a well-behaved module and install the hooks */
void fake_install(void);
/* restore the real system calls */
void fake_remove(void);
/* the path the fake answers to (others go to the real open()) */
#define FAKE_PATH "/fake/pmuctx"

#endif
