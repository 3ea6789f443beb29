/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report --format perf-script (report/perf-script.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_PERF_SCRIPT_H
#define PMUCTX_TOOLS_REPORT_PERF_SCRIPT_H

#include "report/report.h"

/* the @n records of @all (time order) as perf script prints its own */
void report_perf_script(struct report *R,
			const struct pmuctx_rec_header **all, size_t n);

#endif
