/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: per-event modes and raw events of a session attr
 * (struct pmuctx_event_desc; evdesc.c).  Pure functions of the attr: the
 * host unit tests compile evdesc.c as it is (tests/unit/test_evdesc.c).
 */
#ifndef _PMUCTX_EVDESC_H
#define _PMUCTX_EVDESC_H

#include <linux/types.h>
#include <uapi/linux/pmuctx.h>

/* perf_event_attr exclude bits of one event */
struct pmuctx_excl {
	bool	user;
	bool	kernel;
	bool	hv;
};

int pmuctx_evdesc_validate(const struct pmuctx_session_attr *a);
bool pmuctx_evdesc_wants_kernel(const struct pmuctx_session_attr *a);
bool pmuctx_evdesc_any(const struct pmuctx_session_attr *a);
void pmuctx_evdesc_excl(u32 flags, bool dflt_excl_kernel,
			struct pmuctx_excl *x);

#endif /* _PMUCTX_EVDESC_H */
