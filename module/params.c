// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: the module parameters, the global statistics and pmuctx_mutex
 * (params.h).  Data only: every layer reads them, so this file knows no
 * other file of the module (the parameters of sampling and of the debug
 * build are sample.c's and testhooks.c's).
 *
 * Locks and contexts of the whole module: the map at the top of
 * session_types.h.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "params.h"

unsigned int pmuctx_max_tasks = 65536;
module_param_named(max_tasks, pmuctx_max_tasks, uint, 0644);
MODULE_PARM_DESC(max_tasks,
		 "Maximum number of per-task entries in the store, all sessions together; tasks beyond it are counted as dropped (default 65536)");

unsigned int pmuctx_pool_size = 16;
module_param_named(pool_size, pmuctx_pool_size, uint, 0444);
MODULE_PARM_DESC(pool_size,
		 "Pre-allocated entries per CPU and session, used where allocation is not allowed or failed (1..64, default 16)");

unsigned int pmuctx_max_ring_pages = 256;
module_param_named(max_ring_pages, pmuctx_max_ring_pages, uint, 0644);
MODULE_PARM_DESC(max_ring_pages,
		 "Largest ring buffer a session may ask for, in data pages per CPU (default 256: 1 MiB with 4 KiB pages)");

unsigned int pmuctx_max_sessions_per_user = 256;
module_param_named(max_sessions_per_user, pmuctx_max_sessions_per_user, uint,
		   0644);
MODULE_PARM_DESC(max_sessions_per_user,
		 "Sessions one user without CAP_PERFMON/CAP_SYS_ADMIN may have at once; more get EMFILE (default 256)");

unsigned int pmuctx_max_counter_sessions_per_user = 32;
module_param_named(max_counter_sessions_per_user,
		   pmuctx_max_counter_sessions_per_user, uint, 0644);
MODULE_PARM_DESC(max_counter_sessions_per_user,
		 "Of those, sessions with CPU-wide perf counters on every CPU (perf-backed events counted at context switches: per-switch, ring, sampling sessions) one such user may have at once; more get EMFILE (default 32)");

/*
 * The PMU's share of sessions without CAP_PERFMON (perm.c charges it): -1
 * at load is replaced by pmuctx_unpriv_pmu_default, which
 * pmuctx_detect_hw_pmu() sets from the PMU (docs/SECURITY.md "PMU
 * counters"); -1 written later is that default again.
 */
int pmuctx_max_unpriv_pmu_counters = -1;
module_param_named(max_unprivileged_pmu_counters,
		   pmuctx_max_unpriv_pmu_counters, int, 0644);
MODULE_PARM_DESC(max_unprivileged_pmu_counters,
		 "Hardware and raw events that sessions of users without CAP_PERFMON may hold, all users together; each is a counter on every CPU, scheduled by perf before other users' own counters; a session that would pass it gets EUSERS (-1: the PMU's general-purpose counters less 2, half of them for 4 or fewer; 0: no hardware events for them)");
unsigned int pmuctx_unpriv_pmu_default;

unsigned int pmuctx_max_user_syncs = 1000;
module_param_named(max_user_syncs, pmuctx_max_user_syncs, uint, 0644);
MODULE_PARM_DESC(max_user_syncs,
		 "READs, RESETs, ENABLEs and DISABLEs per second that interrupt every CPU, for one user without CAP_PERFMON, all sessions together; more wait their turn (0: no limit; default 1000)");

unsigned int pmuctx_max_tasks_per_user = 16384;
module_param_named(max_tasks_per_user, pmuctx_max_tasks_per_user, uint, 0644);
MODULE_PARM_DESC(max_tasks_per_user,
		 "Store entries (tasks x sessions, kept exited tasks included) of one unprivileged user, all sessions together; further tasks are dropped (default 16384)");

unsigned int pmuctx_max_exited_default = 4096;
module_param_named(max_exited, pmuctx_max_exited_default, uint, 0644);
MODULE_PARM_DESC(max_exited,
		 "Default number of exited tasks a KEEP_EXITED session keeps for per-task reads (default 4096)");

/* Session list, probe registration, store lifetime: see session_types.h. */
DEFINE_MUTEX(pmuctx_mutex);

struct pmuctx_stats pmuctx_stats;
