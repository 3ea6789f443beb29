/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report: what a window covers, what the kernel lost, and the
 * slice that fired a trigger window (report/windows.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_WINDOWS_H
#define PMUCTX_TOOLS_REPORT_WINDOWS_H

#include "report/report.h"

/*
 * One CPU's part of a window: the span of its records in the file, and
 * what the kernel counted for it (WINDOW_END): records overwritten since
 * the previous window (overwrite mode: older records the writer dropped
 * from the tail) and records lost since the previous window.
 */
struct win_cpu {
	__u64 first, last;	/* c.time of its oldest and newest record */
	__u64 records;		/* its records in the window */
	__u64 overwritten;
	__u64 lost;
};

/* the CPUs of window @w (its end's count; the recording's if unfinished) */
unsigned int report_win_nr_cpus(const struct report *R,
				const struct pmf_win *w);
/* @v: report_win_nr_cpus() elements; a window not finished has no counts */
void report_win_cover(const struct report *R, const struct pmf_win *w,
		      struct win_cpu *v, unsigned int n);
/* the records lost while recording, the kernel's count */
__u64 report_lost_total(const struct report *R);
/* the SWITCH record that fired trigger window @w, or NULL */
const struct pmuctx_rec_switch *report_win_trigger(const struct report *R,
						   const struct pmf_win *w);
/* when the slice of @s began: false when the window does not say */
bool report_slice_start(const struct report *R, const struct pmf_win *w,
			const struct pmuctx_rec_switch *s, __u64 *start);

#endif
