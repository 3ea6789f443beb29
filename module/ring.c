// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: per-CPU ring buffers (in progress: attributes are validated,
 * rings are not implemented yet, so sessions asking for one get
 * -EOPNOTSUPP).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "pmuctx.h"

int pmuctx_ring_attr_validate(const struct pmuctx_session_attr *a)
{
	if (!a->ring_pages) {
		if (a->ring_mode || a->ring_records || a->wakeup_bytes ||
		    a->trigger_event || a->trigger_threshold)
			return -EINVAL;
		return 0;
	}
	return -EOPNOTSUPP;
}
