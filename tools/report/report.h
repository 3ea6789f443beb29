/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report: the options and the state of a report, shared by the
 * files of tools/report/ and tools/cmd-report.c (the command: its manual
 * and report_run(), which calls them in order):
 *
 *	options.c	the options
 *	records.c	the records in time order, and the fields every
 *			output prints the same way
 *	tasks.c		the tasks: their names along the walk, their sums
 *	windows.c	what a window covers, what it lost, what fired it
 *	profile.c	the profile of the samples (tools/profile)
 *	text.c		--format text
 *	json-out.c	--format json
 *	perf-script.c	--format perf-script
 *
 * (--format folded and pprof are tools/profile's writers.)
 */
#ifndef PMUCTX_TOOLS_REPORT_H
#define PMUCTX_TOOLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "builtin.h"
#include "pmfile.h"
#include "profile/profile.h"

#define CMD "report"

enum fmt { FMT_TEXT, FMT_JSON, FMT_PERF, FMT_FOLDED, FMT_PPROF };

struct task {
	__s32 tid;
	__s32 pid;
	bool used;
	bool have_comm;
	char comm[PMUCTX_COMM_LEN + 1];	/* latest known */
	char first[PMUCTX_COMM_LEN + 1];	/* first known in the file */
	bool have_first;
	__u64 slices;
	__u64 sum[PMUCTX_MAX_EVENTS];
	bool exited;
	__u32 exit_nr;
	__u64 exitv[PMUCTX_MAX_EVENTS];
};

struct report {
	const struct pmf_reader *r;
	const struct pmf_info *info;
	enum fmt fmt;
	FILE *out;
	struct task *tasks;
	size_t cap;		/* power of two */
	size_t used;
	__u64 lost_records;	/* LOST records' counts, deduplicated */
	const struct prof *prof;	/* perf-script: the samples' frames */
	bool samples;		/* the file has samples */
	const struct prof_filter *filter;	/* --comms ... --time */
	enum prof_weight weight;	/* --weight: perf-script's periods */
};

struct prof_opts {
	enum prof_weight weight;
	bool stitch_stats;
	const char *kallsyms;
	const char *output;
};

/* --comms, --pid, --tid, --time, --dsos, --symbols: malloc'd lists */
struct report_lists {
	char **comms, **dsos, **syms;	/* NULL-terminated */
	__s32 *pids, *tids;
	struct prof_range *times;
};

struct report_args {
	const char *path;	/* -i */
	bool have_fmt;		/* --format was given */
	unsigned int flags;	/* PMF_READ_* */
	bool summary;
	struct prof_opts po;
	struct prof_text_opts table;	/* --sort ... -g: the text table */
	const char *table_opt;	/* the last table option given, or NULL */
	struct prof_filter filter;	/* the samples kept */
	bool have_filter;
	struct report_lists lists;
};

#endif
