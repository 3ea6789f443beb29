// SPDX-License-Identifier: GPL-2.0
/*
 * The options pmuctx stat and pmuctx record share (opts.h).
 */
#include <errno.h>
#include <getopt.h>

#include "builtin.h"
#include "opts.h"

int target_opt(const struct target_spec *s, struct target_opts *t, int c,
	       const char *arg)
{
	switch (c) {
	case 'e':
		if (append_list(&t->events, arg))
			return usage_error(s->cmd, "out of memory");
		return 0;
	case OPT_NO_INHERIT:
		t->no_inherit = true;
		return 0;
	case 'a':
		t->system_wide = true;
		return 0;
	case 'p':
		return parse_pid_arg(s->cmd, arg, &t->pid) ? EXIT_USAGE : 0;
	case OPT_DURATION:
		if (!parse_seconds(arg, &t->duration_ns))
			return usage_error(s->cmd, "--duration '%s': %s", arg,
					   s->bad_duration);
		t->have_duration = true;
		return 0;
	case 'G':
		if (!s->cgroup)
			return -ENOENT;
		if (!*arg)
			return usage_error(s->cmd, "-G needs a cgroup v2 "
					   "directory path");
		t->cgroup = arg;
		return 0;
	default:
		return -ENOENT;
	}
}

void target_args(struct target_opts *t, int argc, char **argv)
{
	t->argv = argv + optind;
	t->argc = argc - optind;
}

int target_check(const struct target_spec *s, const struct target_opts *t)
{
	if (t->pid && (t->system_wide || t->cgroup))
		return usage_error(s->cmd, "-p cannot be combined with %s",
				   s->cgroup ? "-a or -G" : "-a");
	if (t->system_wide && t->cgroup)
		return usage_error(s->cmd, "-a and -G cannot be combined");
	if (t->pid && t->argc)
		return usage_error(s->cmd, "-p attaches to a running process; "
				   "do not give a command too");
	if (!t->pid && !t->system_wide && !t->cgroup && !t->argc)
		return usage_error(s->cmd, "%s", s->nothing);
	if (t->have_duration && !t->pid && !t->system_wide && !t->cgroup)
		return usage_error(s->cmd, "%s", s->duration_alone);
	if (t->have_duration && t->argc)
		return usage_error(s->cmd, "%s", s->duration_cmd);
	return 0;
}
