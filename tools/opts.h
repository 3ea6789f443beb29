/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options pmuctx stat and pmuctx record share: the events (-e), the
 * target (a command, -p PID, -a, and for stat -G CGROUP_PATH),
 * --no-inherit and --duration, and the checks of how they combine.
 *
 * A command lists TARGET_LONGOPTS in its getopt_long() table and its
 * short options ("e:ap:", "G:" too for -G), numbers its own long-only
 * options from OPT_TARGET_END, hands every option its switch does not
 * know to target_opt(), and calls target_args() and target_check() once
 * getopt_long() is done.
 */
#ifndef PMUCTX_TOOLS_OPTS_H
#define PMUCTX_TOOLS_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* getopt_long() values of the shared long-only options */
enum {
	OPT_NO_INHERIT = 256,
	OPT_DURATION,
	OPT_TARGET_END,		/* the command's own options from here */
};

/* the shared entries of a getopt_long() table (-G's is the command's) */
#define TARGET_LONGOPTS							\
	{ "event", required_argument, NULL, 'e' },			\
	{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },		\
	{ "all-cpus", no_argument, NULL, 'a' },				\
	{ "pid", required_argument, NULL, 'p' },			\
	{ "duration", required_argument, NULL, OPT_DURATION }

struct target_opts {
	char *events;			/* the -e lists joined, malloc'd */
	bool no_inherit;
	bool system_wide;		/* -a */
	pid_t pid;			/* -p, 0 without */
	const char *cgroup;		/* -G */
	bool have_duration;
	uint64_t duration_ns;
	char **argv;			/* CMD ARGS, NULL-terminated */
	int argc;
};

/* a command's wording of the shared options' usage errors */
struct target_spec {
	const char *cmd;		/* "stat", "record" */
	bool cgroup;			/* -G CGROUP_PATH is an option */
	/* after "--duration 'SEC': " when SEC is not a duration */
	const char *bad_duration;
	/* no command, no -p, -a (or -G) */
	const char *nothing;
	/* --duration without -p, -a (or -G) */
	const char *duration_alone;
	/* --duration with a command */
	const char *duration_cmd;
};

/*
 * the getopt_long() result @c with its argument @arg: 0 if it is one of
 * the shared options, EXIT_USAGE (printed) if its argument is wrong, and
 * -ENOENT if @c is none of them
 */
int target_opt(const struct target_spec *s, struct target_opts *t, int c,
	       const char *arg);
/* CMD ARGS: what getopt_long() left of @argv */
void target_args(struct target_opts *t, int argc, char **argv);
/* how the target options combine: 0, or EXIT_USAGE (printed) */
int target_check(const struct target_spec *s, const struct target_opts *t);

#endif
