// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx top: a profile of the whole system (or of a process) every few
 * seconds, as perf top --stdio prints it: each round is a pmuctx record
 * of that long and the table of pmuctx report, both run as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "builtin.h"
#include "pmfile.h"	/* cmd_record, cmd_report */

static const char top_help[] =
"NAME\n"
"    pmuctx top - the functions the system spends its time in, every few\n"
"    seconds\n"
"\n"
"SYNOPSIS\n"
"    pmuctx top [-a | -p PID] [-d SEC] [-n ROUNDS] [-F HZ] [-g]\n"
"               [-s KEYS] [--percent-limit PCT] [-E LINES]\n"
"\n"
"DESCRIPTION\n"
"    As perf top --stdio: samples every task on every CPU (-a, the\n"
"    default) or the process PID and its threads (-p) for -d seconds,\n"
"    prints the functions with their share of the samples, highest first,\n"
"    and starts again, until Ctrl-C or -n rounds. On a terminal each\n"
"    round clears the screen first.\n"
"\n"
"    Each round is a recording of pmuctx record (-F HZ, default 4000 or\n"
"    the module's limit; -g: with callchains) into a temporary file and\n"
"    the table of pmuctx report on it (its --sort KEYS, default\n"
"    comm,dso,sym as perf top; --no-children; --percent-limit PCT,\n"
"    default 0.5), of which the first -E LINES (default 25) are shown\n"
"    under a line naming the round. Samples are the hrtimer's (CPU time);\n"
"    what a round did not see is not carried to the next: each round is\n"
"    a profile of its own seconds.\n"
"\n"
"    -a and the callchains of other users' tasks need what pmuctx record\n"
"    -a needs (CAP_PERFMON, or kernel.perf_event_paranoid <= 0); -p\n"
"    works on your own processes.\n"
"\n"
"OPTIONS\n"
"    -a, --all-cpus   every task on every CPU (the default)\n"
"    -p, --pid PID    the process PID and its threads\n"
"    -d, --delay SEC  seconds per round (default 2; decimals allowed)\n"
"    -n, --rounds N   stop after N rounds (default: until Ctrl-C)\n"
"    -F, --freq HZ    samples per second and CPU (pmuctx record -F)\n"
"    -g               record callchains (shares of the functions' callers\n"
"                     too, with -s and --children in report's sense)\n"
"    -s, --sort KEYS  the table's keys (pmuctx report -s)\n"
"    --percent-limit PCT\n"
"                     leave out lines below PCT percent (default 0.5)\n"
"    -E, --entries LINES\n"
"                     lines of the table per round (default 25)\n"
"    -h, --help       this text\n"
"\n"
"EXIT STATUS\n"
"    0 after Ctrl-C or the last round, 1 when a round could not record\n"
"    or report (its message printed), 2 on a usage error.\n"
"\n"
"EXAMPLES\n"
"    sudo pmuctx top\n"
"    pmuctx top -p $(pidof server) -d 5\n"
"    sudo pmuctx top -n 1 -d 10 --percent-limit 2\n"
"\n"
"SEE ALSO\n"
"    pmuctx record --help, pmuctx report --help, perf-top(1)\n";

static volatile sig_atomic_t top_stop;

static void top_sigint(int sig)
{
	(void)sig;
	top_stop = 1;
}

/* run @cmd in a child, its stdout to @out_fd if >= 0; its exit status */
static int run_child(const struct cmd *cmd, char **argv, int out_fd)
{
	int argc = 0, st;
	pid_t pid;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return EXIT_RUNTIME;
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(EXIT_RUNTIME);
		_exit(cmd->run(argc, argv));
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return EXIT_RUNTIME;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return EXIT_RUNTIME;
}

/* a row of report's profile table: "   67.14%  COMM ..." */
static bool is_table_row(const char *line)
{
	size_t sp = strspn(line, " "), dg = strspn(line + sp, "0123456789.");

	return dg && line[sp + dg] == '%';
}

/*
 * The first @max rows of the profile table in report's text output in
 * @path (not its '#' header, nor the per-task summary after it).
 */
static void print_table(const char *path, unsigned long max)
{
	unsigned long n = 0;
	char line[4096];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!is_table_row(line))
			continue;
		fputs(line, stdout);
		n++;
	}
	fclose(f);
	if (!n)
		printf("  (no samples in this round)\n");
}

struct top_opts {
	const char *pid;
	const char *delay;
	const char *freq;
	const char *sort;
	const char *limit;
	unsigned long rounds;
	unsigned long entries;
	bool callchains;
};

enum { OPT_PERCENT_LIMIT = 256 };

static int top_parse(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "delay", required_argument, NULL, 'd' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "freq", required_argument, NULL, 'F' },
		{ "sort", required_argument, NULL, 's' },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "entries", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	uint64_t ns;
	pid_t pid;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:ap:d:n:F:gs:E:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'a':
			o->pid = NULL;
			break;
		case 'p':
			if (parse_pid_arg("top", optarg, &pid))
				return EXIT_USAGE;
			o->pid = optarg;
			break;
		case 'd':
			if (!parse_seconds(optarg, &ns))
				return usage_error("top", "-d wants seconds > 0, not '%s'",
						   optarg);
			o->delay = optarg;
			break;
		case 'n':
			if (!parse_uint(optarg, 1000000, &v) || !v)
				return usage_error("top", "-n wants a number of rounds from 1, not '%s'",
						   optarg);
			o->rounds = v;
			break;
		case 'F':
			o->freq = optarg;	/* record checks it */
			break;
		case 'g':
			o->callchains = true;
			break;
		case 's':
			o->sort = optarg;	/* report checks it */
			break;
		case OPT_PERCENT_LIMIT:
			o->limit = optarg;	/* report checks it */
			break;
		case 'E':
			if (!parse_uint(optarg, 100000, &v) || !v)
				return usage_error("top", "-E wants a number of lines from 1, not '%s'",
						   optarg);
			o->entries = v;
			break;
		case 'h':
			print_cmd_help(&cmd_top, stdout);
			return -1;
		default:
			return option_error("top", c, argv);
		}
	}
	if (optind < argc)
		return usage_error("top", "unexpected argument '%s' (a command? pmuctx record -- CMD profiles one)",
				   argv[optind]);
	return 0;
}

static int top_run(int argc, char **argv)
{
	struct top_opts o = { .delay = "2", .sort = "comm,dso,sym",
			      .limit = "0.5", .entries = 25 };
	char dir[] = "/tmp/pmuctx-top.XXXXXX", data[64], table[64];
	struct sigaction sa = { .sa_handler = top_sigint }, old;
	unsigned long round;
	bool tty = isatty(STDOUT_FILENO);
	int ret, fd;

	ret = top_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (!mkdtemp(dir)) {
		fprintf(stderr, "pmuctx top: mkdtemp: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	snprintf(data, sizeof(data), "%s/top.pmu", dir);
	snprintf(table, sizeof(table), "%s/table", dir);
	top_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (round = 1; !top_stop && (!o.rounds || round <= o.rounds); round++) {
		char *rec[16], *rep[16];
		int n = 0, m = 0;
		time_t now;
		char when[32];

		rec[n++] = "record";
		rec[n++] = "-q";
		rec[n++] = "-o";
		rec[n++] = data;
		rec[n++] = "--duration";
		rec[n++] = (char *)o.delay;
		if (o.pid) {
			rec[n++] = "-p";
			rec[n++] = (char *)o.pid;
		} else {
			rec[n++] = "-a";
		}
		if (o.freq) {
			rec[n++] = "-F";
			rec[n++] = (char *)o.freq;
		}
		if (o.callchains)
			rec[n++] = "-g";
		rec[n] = NULL;
		unlink(data);
		ret = run_child(&cmd_record, rec, -1);
		if (ret)
			break;
		rep[m++] = "report";
		rep[m++] = "-i";
		rep[m++] = data;
		rep[m++] = "--format";
		rep[m++] = "text";
		rep[m++] = "--no-children";
		rep[m++] = "-s";
		rep[m++] = (char *)o.sort;
		rep[m++] = "--percent-limit";
		rep[m++] = (char *)o.limit;
		rep[m] = NULL;
		fd = open(table, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			ret = EXIT_RUNTIME;
			break;
		}
		ret = run_child(&cmd_report, rep, fd);
		close(fd);
		if (ret)
			break;
		now = time(NULL);
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		if (tty)
			fputs("\033[H\033[2J", stdout);
		printf("pmuctx top: round %lu, %s s of %s, %s (Ctrl-C stops)\n\n",
		       round, o.delay, o.pid ? o.pid : "every CPU", when);
		print_table(table, o.entries);
		printf("\n");
		fflush(stdout);
	}
	sigaction(SIGINT, &old, NULL);
	unlink(data);
	unlink(table);
	{
		char old_data[80];

		snprintf(old_data, sizeof(old_data), "%s.old", data);
		unlink(old_data);
	}
	rmdir(dir);
	return ret;
}

const struct cmd cmd_top = {
	.name = "top",
	.summary = "the functions the system spends its time in, every few seconds",
	.help = top_help,
	.run = top_run,
};
