/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report --format text (report/text.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_TEXT_H
#define PMUCTX_TOOLS_REPORT_TEXT_H

#include "report/report.h"

/*
 * the header, the windows (their records unless --summary or @samples),
 * the profile of @samples, the per-task summary
 */
void report_text(struct report *R, const struct report_args *a,
		 bool samples, struct prof *prof);

#endif
