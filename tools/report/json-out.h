/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report --format json (report/json-out.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_JSON_OUT_H
#define PMUCTX_TOOLS_REPORT_JSON_OUT_H

#include "report/report.h"

/* the recording as one JSON object (the manual lists its keys) */
void report_json(struct report *R, const char *path);

#endif
