/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the debug build's test hooks (testhooks.c), called from every
 * layer: plain values in and out, no type of the module.  The release
 * build gets the no-op stubs below: no code, no symbol, no parameter.
 */
#ifndef _PMUCTX_TESTHOOKS_H
#define _PMUCTX_TESTHOOKS_H

#include <linux/compiler.h>

#ifdef PMUCTX_DEBUG

/* for a condition only the debug build tests: if (PMUCTX_TESTHOOKS && ...) */
#define PMUCTX_TESTHOOKS	1

extern unsigned int pmuctx_testhook_tail_ms_param;

void pmuctx_testhook_attach_delay(void);
void pmuctx_testhook_revive_delay(void);
void pmuctx_testhook_exec_delay(void);
void pmuctx_testhook_join_delay(void);
void pmuctx_testhook_total_delay(void);
void pmuctx_testhook_dead_cached(void);
void pmuctx_testhook_probe_flip(void);

/* pmuctx_task_work_done(): how long to busy-wait after module_put() */
static inline unsigned int pmuctx_testhook_tail_ms(void)
{
	return READ_ONCE(pmuctx_testhook_tail_ms_param);
}

#else /* !PMUCTX_DEBUG: the release build */

#define PMUCTX_TESTHOOKS	0

static inline void pmuctx_testhook_attach_delay(void) { }
static inline void pmuctx_testhook_revive_delay(void) { }
static inline void pmuctx_testhook_exec_delay(void) { }
static inline void pmuctx_testhook_join_delay(void) { }
static inline void pmuctx_testhook_total_delay(void) { }
static inline void pmuctx_testhook_dead_cached(void) { }
static inline void pmuctx_testhook_probe_flip(void) { }
static inline unsigned int pmuctx_testhook_tail_ms(void) { return 0; }

#endif /* PMUCTX_DEBUG */

#endif /* _PMUCTX_TESTHOOKS_H */
