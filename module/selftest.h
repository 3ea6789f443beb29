/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the SELFTEST save-area backend of the debug build (selftest.c).
 *
 * A module built with PMUCTX_DEBUG=1 (module/Kbuild, docs/BUILDING.md)
 * adds the SELFTEST save-area backend (PMUCTX_FEAT_SELFTEST), the test
 * hooks (the selftest_* module parameters: testhooks.h) and the ring
 * writer's debugfs microbenchmark (ringbench.c).  The release build, the
 * one DKMS and the Debian package install, gets the no-op stubs below: no
 * code, no symbol, no parameter, and the SELFTEST backend is refused with
 * EOPNOTSUPP (docs/ABI.md).
 */
#ifndef _PMUCTX_SELFTEST_H
#define _PMUCTX_SELFTEST_H

#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

#include "session_types.h"
#include "store.h"

#ifdef PMUCTX_DEBUG

/* the features only this build has (INFO) */
#define PMUCTX_FEAT_DEBUG_ONLY	PMUCTX_FEAT_SELFTEST
/* the load message says which build it is */
#define PMUCTX_BUILD_NOTE	", debug build: test hooks"

/* pmuctx_entry.flags: the SELFTEST save area was written at switch-out */
#define PMUCTX_EF_SAVE_VALID	BIT(3)

void pmuctx_selftest_save(struct pmuctx_entry *e, int cpu);
void pmuctx_selftest_verify(struct pmuctx_entry *e, int cpu);
void pmuctx_selftest_info(struct pmuctx_info *info);

/*
 * The SELFTEST backend's own state in each entry, after the save area:
 * the bytes pmuctx_entry_size() adds to an entry of @size so far.
 */
struct pmuctx_selftest_state {
	u32	seq;		/* switch-outs that wrote the save area */
	s32	cpu;		/* the CPU of the last one */
};

static inline size_t pmuctx_selftest_entry_extra(const struct pmuctx_session *s,
						 size_t size)
{
	if (s->backend != PMUCTX_BACKEND_SELFTEST)
		return 0;
	return ALIGN(size, sizeof(u64)) - size +
	       sizeof(struct pmuctx_selftest_state);
}

/* SESSION_CREATE, after the fields are checked: the backend exists */
static inline int pmuctx_selftest_backend_check(const struct pmuctx_session_attr *a)
{
	return 0;
}

/* sched_switch, switch-in (IRQs off): check the save area */
static inline void pmuctx_selftest_switch_in(struct pmuctx_entry *e, int cpu)
{
	if (unlikely(e->sess->backend == PMUCTX_BACKEND_SELFTEST) &&
	    (e->flags & PMUCTX_EF_SAVE_VALID))
		pmuctx_selftest_verify(e, cpu);
}

/* sched_switch, switch-out (IRQs off): write the save area */
static inline void pmuctx_selftest_switch_out(struct pmuctx_entry *e, int cpu)
{
	if (unlikely(e->sess->backend == PMUCTX_BACKEND_SELFTEST))
		pmuctx_selftest_save(e, cpu);
}

#else /* !PMUCTX_DEBUG: the release build */

#define PMUCTX_FEAT_DEBUG_ONLY	0ULL
#define PMUCTX_BUILD_NOTE	""

static inline int pmuctx_selftest_backend_check(const struct pmuctx_session_attr *a)
{
	return a->backend == PMUCTX_BACKEND_SELFTEST ? -EOPNOTSUPP : 0;
}

static inline size_t pmuctx_selftest_entry_extra(const struct pmuctx_session *s,
						 size_t size)
{
	return 0;
}

static inline void pmuctx_selftest_switch_in(struct pmuctx_entry *e, int cpu) { }
static inline void pmuctx_selftest_switch_out(struct pmuctx_entry *e, int cpu) { }
static inline void pmuctx_selftest_info(struct pmuctx_info *info) { }

#endif /* PMUCTX_DEBUG */

#endif /* _PMUCTX_SELFTEST_H */
