/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output formatters of "pmuctx info".
 */
#ifndef PMUCTX_TOOLS_INFO_FORMAT_H
#define PMUCTX_TOOLS_INFO_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#include <pmuctx.h>

/* The module's parameters (its limits), from /sys/module/pmuctx. */
#define INFO_MAX_PARAMS	16
struct info_params {
	unsigned int n;
	struct {
		const char *name;
		const char *what;	/* unit and scope, for humans */
		uint64_t value;
	} p[INFO_MAX_PARAMS];
};

/*
 * the library's feature names (pmuctx_feature_name); for the bits it does
 * not know, info prints this tool's own (tests replace it to play an
 * older libpmuctx)
 */
extern const char *(*info_feature_lookup)(unsigned int bit);

void info_read_params(struct info_params *ps, const char *dir);
void info_print_human(FILE *f, const struct pmuctx_info *info,
		      const struct info_params *ps);
void info_print_json(FILE *f, const struct pmuctx_info *info,
		     const struct info_params *ps);

#endif
