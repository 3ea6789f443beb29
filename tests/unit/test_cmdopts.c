// SPDX-License-Identifier: GPL-2.0
/*
 * tools/opts.c: the options pmuctx stat and pmuctx record share (-e, -p,
 * -a, -G, --no-inherit, --duration and how they combine), through a
 * small command that parses them as stat and record do and prints what
 * it got, and through stat's and record's own usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/builtin.h"
#include "../../tools/opts.h"
#include "../../tools/pmfile.h"
#include "test.h"

static char dir[64];
static char *cap_out, *cap_err;

static int run(const struct cmd *cmd, ...)
{
	va_list ap;
	int ret;

	va_start(ap, cmd);
	ret = t_run_cmd(cmd, dir, &cap_out, &cap_err, ap);
	va_end(ap);
	return ret;
}

/* the wording of stat's and of record's usage errors */
static const struct target_spec with_cgroup = {
	.cmd = "t-stat",
	.cgroup = true,
	.bad_duration = "BAD-DURATION",
	.nothing = "NOTHING",
	.duration_alone = "DURATION-ALONE",
	.duration_cmd = "DURATION-CMD",
};

static const struct target_spec without_cgroup = {
	.cmd = "t-record",
	.cgroup = false,
	.bad_duration = "BAD-DURATION",
	.nothing = "NOTHING",
	.duration_alone = "DURATION-ALONE",
	.duration_cmd = "DURATION-CMD",
};

static const struct target_spec *spec;

/* parse like stat and record do; print the result on standard output */
static int parse_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		TARGET_LONGOPTS,
		{ "cgroup", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	/* without -G: the table without its entry, as record's */
	static const struct option no_cgroup[] = {
		TARGET_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct target_opts t = { 0 };
	int c, ret = 0, i;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, spec->cgroup ? "+:e:ap:G:" :
				"+:e:ap:", spec->cgroup ? longopts : no_cgroup,
				NULL)) != -1) {
		ret = target_opt(spec, &t, c, optarg);
		if (ret == -ENOENT)
			ret = option_error(spec->cmd, c, argv);
		if (ret)
			goto out;
	}
	target_args(&t, argc, argv);
	ret = target_check(spec, &t);
	if (ret)
		goto out;
	printf("events=%s inherit=%d a=%d pid=%d cgroup=%s dur=%d/%llu cmd=",
	       t.events ? t.events : "-", !t.no_inherit, t.system_wide,
	       (int)t.pid, t.cgroup ? t.cgroup : "-", t.have_duration,
	       (unsigned long long)t.duration_ns);
	for (i = 0; i < t.argc; i++)
		printf("%s%s", i ? " " : "", t.argv[i]);
	printf("\n");
out:
	free(t.events);
	return ret;
}

static const struct cmd cmd_parse = {
	.name = "t-parse",
	.summary = "",
	.help = "",
	.run = parse_run,
};

static void t_parsed(void)
{
	t_section("shared options: what they parse to");
	spec = &with_cgroup;
	CHECK_EQ(run(&cmd_parse, "-e", "cs", "--event", "faults",
		     "--no-inherit", "--", "make", "-j8", NULL), 0,
		 "-e twice, --no-inherit, a command");
	CHECK_HAS(cap_out, "events=cs,faults inherit=0 a=0 pid=0 cgroup=- "
		  "dur=0/0 cmd=make -j8", "the -e lists are joined");
	CHECK_EQ(run(&cmd_parse, "-p", "42", "--duration", "0.5", NULL), 0,
		 "-p with --duration");
	CHECK_HAS(cap_out, "pid=42 cgroup=- dur=1/500000000 cmd=\n",
		  "pid and duration in ns");
	CHECK_EQ(run(&cmd_parse, "--all-cpus", "--dur", "2", "--", "sleep",
		     "1", NULL), 2, "-a, --duration and a command");
	CHECK_HAS(cap_err, "t-stat: DURATION-CMD", "... is refused");
	CHECK_EQ(run(&cmd_parse, "-G", "/sys/fs/cgroup/x", "--", "true",
		     NULL), 0, "-G with a command");
	CHECK_HAS(cap_out, "a=0 pid=0 cgroup=/sys/fs/cgroup/x dur=0/0 "
		  "cmd=true", "the cgroup");
	CHECK_EQ(run(&cmd_parse, "-a", "true", "-p", "1", NULL), 0,
		 "options after the command are its own");
	CHECK_HAS(cap_out, "a=1 pid=0 cgroup=- dur=0/0 cmd=true -p 1",
		  "... (+: getopt stops at the command)");

	spec = &without_cgroup;
	CHECK_EQ(run(&cmd_parse, "-G", "/tmp", "-a", NULL), 2,
		 "-G where the command has no -G");
	CHECK_HAS(cap_err, "t-record: unknown option '-G'", "... unknown");
	CHECK_EQ(run(&cmd_parse, "-a", "--duration", "3", NULL), 0,
		 "-a --duration without -G");
	CHECK_HAS(cap_out, "a=1 pid=0 cgroup=- dur=1/3000000000", "parsed");
}

static void t_refused(void)
{
	t_section("shared options: usage errors");
	spec = &with_cgroup;
	CHECK_EQ(run(&cmd_parse, NULL), 2, "no target");
	CHECK_HAS(cap_err, "pmuctx t-stat: NOTHING\nTry 'pmuctx t-stat "
		  "--help'", "... the command's words");
	CHECK_EQ(run(&cmd_parse, "-p", "1", "-G", "/x", NULL), 2, "-p -G");
	CHECK_HAS(cap_err, "-p cannot be combined with -a or -G", "-p -G");
	CHECK_EQ(run(&cmd_parse, "-a", "-G", "/x", NULL), 2, "-a -G");
	CHECK_HAS(cap_err, "-a and -G cannot be combined", "-a -G");
	CHECK_EQ(run(&cmd_parse, "-G", "", NULL), 2, "-G ''");
	CHECK_HAS(cap_err, "-G needs a cgroup v2 directory path", "-G ''");
	CHECK_EQ(run(&cmd_parse, "-p", "7", "--", "true", NULL), 2,
		 "-p and a command");
	CHECK_HAS(cap_err, "-p attaches to a running process", "-p CMD");
	CHECK_EQ(run(&cmd_parse, "-p", "0", NULL), 2, "-p 0");
	CHECK_HAS(cap_err, "-p '0': expected a process id", "-p 0");
	CHECK_EQ(run(&cmd_parse, "-a", "--duration", "0", NULL), 2,
		 "--duration 0");
	CHECK_HAS(cap_err, "--duration '0': BAD-DURATION", "--duration 0");
	CHECK_EQ(run(&cmd_parse, "--duration", "1", NULL), 2,
		 "--duration alone");
	CHECK_HAS(cap_err, "NOTHING", "... nothing to measure first");
	CHECK_EQ(run(&cmd_parse, "--duration", "1", "--", "true", NULL), 2,
		 "--duration with a command only");
	CHECK_HAS(cap_err, "DURATION-ALONE", "... before DURATION-CMD");
	CHECK_EQ(run(&cmd_parse, "-e", NULL), 2, "-e without its list");
	CHECK_HAS(cap_err, "option '-e' needs an argument", "-e");

	spec = &without_cgroup;
	CHECK_EQ(run(&cmd_parse, "-p", "1", "-a", NULL), 2, "-p -a");
	CHECK_HAS(cap_err, "t-record: -p cannot be combined with -a\n",
		  "no -G in the message without -G");
}

/* stat's and record's own wording of the shared options' errors */
static void t_commands(void)
{
	static const struct {
		const struct cmd *cmd;
		const char *args[6];
		const char *msg;
	} cases[] = {
		{ &cmd_stat, { "--duration", "x", "-a" }, "pmuctx stat: "
		  "--duration 'x': expected a number of seconds > 0, e.g. 5 "
		  "or 0.5\n" },
		{ &cmd_record, { "--duration", "x", "-a" }, "pmuctx record: "
		  "--duration 'x': expected a number of seconds > 0\n" },
		{ &cmd_stat, { NULL }, "pmuctx stat: nothing to count: give "
		  "a command (pmuctx stat -- CMD ARGS), -p PID, -a or -G "
		  "CGROUP_PATH\n" },
		{ &cmd_record, { NULL }, "pmuctx record: nothing to record: "
		  "give a command (pmuctx record -- CMD ARGS), -p PID or "
		  "-a\n" },
		{ &cmd_stat, { "--duration", "1", "--", "true" }, "pmuctx "
		  "stat: --duration works with -p, -a or -G; with a command, "
		  "counting lasts as long as the command\n" },
		{ &cmd_record, { "--duration", "1", "--", "true" }, "pmuctx "
		  "record: --duration works with -p or -a; with a command, "
		  "recording lasts as long as the command\n" },
		{ &cmd_stat, { "-a", "--duration", "1", "--", "true" },
		  "pmuctx stat: --duration cannot be combined with a "
		  "command: counting lasts as long as the command\n" },
		{ &cmd_record, { "-a", "--duration", "1", "--", "true" },
		  "pmuctx record: --duration cannot be combined with a "
		  "command\n" },
		{ &cmd_stat, { "-p", "1", "-a" }, "pmuctx stat: -p cannot be "
		  "combined with -a or -G\n" },
		{ &cmd_record, { "-p", "1", "-a" }, "pmuctx record: -p cannot "
		  "be combined with -a\n" },
		{ &cmd_record, { "-G", "/tmp", "-a" }, "pmuctx record: "
		  "unknown option '-G'\n" },
		{ &cmd_record, { "--cgroup", "/tmp", "-a" }, "pmuctx record: "
		  "unknown option '--cgroup'\n" },
		{ &cmd_stat, { "-e", "cs", "-p", "x" }, "pmuctx stat: -p 'x': "
		  "expected a process id (a positive integer)\n" },
		{ &cmd_record, { "-e", "cs", "-p", "x" }, "pmuctx record: -p "
		  "'x': expected a process id (a positive integer)\n" },
	};
	size_t i;

	t_section("shared options: stat's and record's messages");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].args;

		CHECK_EQ(run(cases[i].cmd, a[0], a[1], a[2], a[3], a[4], a[5],
			     NULL), EXIT_USAGE, "%s %s %s: exit status 2",
			 cases[i].cmd->name, a[0] ? a[0] : "",
			 a[1] ? a[1] : "");
		CHECK(!strncmp(cap_err, cases[i].msg, strlen(cases[i].msg)),
		      "%s: %.*s", cases[i].cmd->name,
		      (int)strlen(cases[i].msg) - 1, cases[i].msg);
	}
}

void test_cmdopts(void)
{
	strcpy(dir, "/tmp/pmuctx-cmdopts-XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	t_parsed();
	t_refused();
	t_commands();
	free(cap_out);
	free(cap_err);
	cap_out = cap_err = NULL;
	{
		char cmdline[128];

		snprintf(cmdline, sizeof(cmdline), "rm -rf %s", dir);
		if (system(cmdline))
			t_diag("cleanup of %s failed", dir);
	}
}
