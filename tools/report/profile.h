/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report: the profile of a recording's samples (report/profile.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_PROFILE_H
#define PMUCTX_TOOLS_REPORT_PROFILE_H

#include "report/report.h"

/* the file has SAMPLE records */
bool report_has_samples(const struct pmuctx_rec_header *const *a, size_t n);
/*
 * the profile of the samples, for the formats that show it (and
 * --stitch-stats): 0, or EXIT_RUNTIME (printed)
 */
int report_profile(struct report *R, const struct report_args *a,
		   const struct pmuctx_rec_header **all, size_t n,
		   bool samples, struct prof **prof);
/*
 * the profile of the samples for another command (pmuctx annotate): what
 * report's text table counts, its messages naming "pmuctx @cmd"; 0, or
 * EXIT_RUNTIME (printed)
 */
int report_profile_for(struct report *R, const struct prof_opts *po,
		       const struct pmuctx_rec_header **all, size_t n,
		       const char *cmd, struct prof **prof);

#endif
