/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx stat -I MSEC: the counts of every interval while counting, as
 * perf stat -I prints them (tools/stat-interval.c).
 */
#ifndef PMUCTX_TOOLS_STAT_INTERVAL_H
#define PMUCTX_TOOLS_STAT_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pmuctx.h>

struct stat_interval {
	uint64_t every_ns;		/* 0: no intervals */
	uint64_t start, next;		/* CLOCK_MONOTONIC ns */
	struct pmuctx_counts prev;	/* the counts at the last one */
	const char *sep;		/* -x */
	bool json;
	bool header_done;
	FILE *out;
};

/* counting was enabled at @now: the first interval ends @every_ns later */
void stat_interval_start(struct stat_interval *iv, uint64_t now);
/* poll()'s timeout until the next interval ends (-1: none) */
int stat_interval_timeout(const struct stat_interval *iv, uint64_t now);
/* print the interval(s) that ended by @now */
void stat_interval_tick(struct stat_interval *iv, struct pmuctx *h,
			uint64_t now);
/* counting stopped at @now: the last interval, shorter */
void stat_interval_end(struct stat_interval *iv, struct pmuctx *h,
		       uint64_t now);

#endif
