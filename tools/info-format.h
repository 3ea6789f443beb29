/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output formatters of "pmuctx info".
 */
#ifndef PMUCTX_TOOLS_INFO_FORMAT_H
#define PMUCTX_TOOLS_INFO_FORMAT_H

#include <stdio.h>

#include <pmuctx.h>

void info_print_human(FILE *f, const struct pmuctx_info *info);
void info_print_json(FILE *f, const struct pmuctx_info *info);

#endif
