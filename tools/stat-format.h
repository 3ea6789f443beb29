/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output formatters of "pmuctx stat" (human, -x SEP, --json).  Kept apart
 * from the command so the unit tests can drive them with made-up counts.
 */
#ifndef PMUCTX_TOOLS_STAT_FORMAT_H
#define PMUCTX_TOOLS_STAT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <pmuctx.h>

enum stat_target_kind {
	STAT_TARGET_COMMAND,
	STAT_TARGET_PID,
	STAT_TARGET_SYSTEM,
	STAT_TARGET_CGROUP,
};

struct stat_report {
	enum stat_target_kind kind;
	const char *command;		/* "CMD ARGS" or NULL */
	pid_t pid;			/* STAT_TARGET_PID */
	const char *cgroup;		/* STAT_TARGET_CGROUP */
	const struct pmuctx_counts *counts;
	uint64_t elapsed_ns;
	bool have_rusage;		/* user/sys of the command */
	uint64_t user_ns, sys_ns;
	uint64_t nvcsw, nivcsw;		/* its context switches */
	/* counted from its exec: what the rusage holds from before */
	bool have_launch;
	uint64_t launch_ns, launch_csw;
	bool per_task;
	bool have_exit_status;
	int exit_status;
	/*
	 * -r: the counts and elapsed_ns are the mean of @runs runs (> 1),
	 * with the standard deviation of that mean: relative, in % of it,
	 * for each event; in ns for the elapsed time
	 */
	unsigned int runs;
	double stddev_pct[PMUCTX_MAX_EVENTS];
	double elapsed_stddev_ns;
};

void stat_print_human(FILE *f, const struct stat_report *r);
void stat_print_csv(FILE *f, const struct stat_report *r, const char *sep);
void stat_print_json(FILE *f, const struct stat_report *r);

/*
 * Notes and warnings a person must see (privilege-raising exec stopped
 * counting, dropped tasks: counts incomplete, unlisted tasks).  Each line
 * is prefixed with @prefix.  Returns the number of lines written.
 */
int stat_print_notes(FILE *f, const struct stat_report *r, const char *prefix);

/* helpers, exposed for the tests */
char *fmt_grouped_u64(char *buf, size_t len, uint64_t v);
char *fmt_msec(char *buf, size_t len, uint64_t ns);
/* name of an event id (canonical name or "event-N"), copied to @buf */
/* util.c: event @i of the last parsed -e list, as written, or its name */
const char *event_label(unsigned int i, int id);
/* event @i of the session, id @id, as the user wrote it */
const char *stat_event_name(unsigned int i, int id, char *buf, size_t len);
/* the short name an event also answers to (cs, faults, ...), or NULL */
const char *event_alias(int id);

#endif
