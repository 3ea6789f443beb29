/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report: the options (report/options.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_OPTIONS_H
#define PMUCTX_TOOLS_REPORT_OPTIONS_H

#include "report/report.h"

/* 0, or the exit status (-1 after --help) */
int report_parse_opts(int argc, char **argv, struct report *R,
		      struct report_args *a);
/* the lists report_parse_opts() allocated */
void report_args_free(struct report_args *a);

#endif
