// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx stat: count events of a command, a process, a cgroup or the
 * whole system, perf-stat style.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "builtin.h"
#include "opts.h"
#include "stat-format.h"
#include "stat-interval.h"

#define CMD "stat"

static const char stat_help[] =
"NAME\n"
"    pmuctx stat - count events of a command, a process, a cgroup or the\n"
"    whole system\n"
"\n"
"SYNOPSIS\n"
"    pmuctx stat [OPTIONS] [--] CMD [ARGS...]\n"
"    pmuctx stat [OPTIONS] -p PID [--duration SEC]\n"
"    pmuctx stat [OPTIONS] -a [--duration SEC] [-- CMD [ARGS...]]\n"
"    pmuctx stat [OPTIONS] -G CGROUP_PATH [--duration SEC] [-- CMD ARGS...]\n"
"\n"
"    OPTIONS: [-e EV,...] [--per-task] [-r N | -I MSEC] [--no-inherit]\n"
"             [--per-switch]\n"
"             [-x SEP | --json] [-o FILE] [--selftest-data-size N]\n"
"\n"
"DESCRIPTION\n"
"    Runs CMD and counts the selected events for it and, unless\n"
"    --no-inherit is given, for every process and thread it creates. The\n"
"    pmuctx kernel module keeps the counts per task (so they follow the\n"
"    task from CPU to CPU) and folds the counts of exited children into\n"
"    their parents. Events the kernel already counts for every task\n"
"    (task-clock, context-switches, cpu-migrations, page-faults: the\n"
"    defaults) are read from those per-task counts, and counting them\n"
"    adds no work to any context switch; other events are saved and\n"
"    restored at every context switch of a counted task.\n"
"\n"
"    Counting starts at CMD's exec, as perf stat's (enable_on_exec): the\n"
"    process pmuctx stat forks stops as the exec completes, before CMD's\n"
"    first instruction, and is counted from there, so nothing CMD does is\n"
"    missed and the launcher's own work (the fork, the exec, a PATH\n"
"    search) is not counted; it is in CMD's rusage, and --json gives it\n"
"    (launch_ns, launch_csw). Where the process cannot stop there (it is\n"
"    traced already, or CMD is a setuid, setgid or file-capabilities\n"
"    program, which a traced exec would run without its privileges),\n"
"    counting starts before the exec instead; with -a or -G, at once.\n"
"    While it runs, pmuctx stat ignores SIGINT and SIGQUIT (a\n"
"    Ctrl-C reaches the command, which decides what to do) and forwards\n"
"    SIGTERM and SIGHUP to it. When CMD exits, the counts are printed and\n"
"    pmuctx stat exits with CMD's exit status.\n"
"\n"
"    The counts go to standard error (or to the file given with -o), like\n"
"    perf stat does, so the command's standard output stays clean.\n"
"\n"
"    With -p, pmuctx stat attaches to the running process PID (all its\n"
"    threads; new children too unless --no-inherit) and counts until\n"
"    Ctrl-C, SIGTERM, the end of --duration, or the exit of the process.\n"
"    With -a it counts every task on every CPU, with -G every task of a\n"
"    cgroup v2 directory; both count for --duration seconds, until Ctrl-C\n"
"    or SIGTERM, or while CMD runs if one is given. System-wide and cgroup\n"
"    counting needs CAP_PERFMON (or root), or kernel.perf_event_paranoid\n"
"    <= 0.\n"
"\n"
"OPTIONS\n"
"    -e, --event EV[,EV...]\n"
"        Events to count, comma separated, at most 8 per run; the option\n"
"        may be repeated. Default:\n"
"        task-clock,context-switches,cpu-migrations,page-faults.\n"
"        The events are listed under EVENTS below.\n"
"\n"
"    --per-task\n"
"        Also show the counts of each task (thread) separately: pid, tid,\n"
"        parent, command name, flags (exited, inherited, priv-exec) and\n"
"        the task's own counts. Exited tasks are kept for this (up to the\n"
"        module's max_exited, 4096 by default; more are only in the\n"
"        totals and a note says how many).\n"
"\n"
"    -r, --repeat N\n"
"        Run CMD N times, each in a session of its own, and print each\n"
"        event's mean over the runs with the standard deviation of that\n"
"        mean, in % of it, as perf stat -r does: '( +- 0.42% )' after the\n"
"        line; a fourth field with -x, \"stddev_pct\" with --json (and\n"
"        \"runs\", \"elapsed_stddev_ns\"). No user and sys times (one\n"
"        run's). The exit status is the last run's; a run killed by\n"
"        SIGINT ends the series. Needs a command; not with --per-task.\n"
"\n"
"    -I, --interval-print MSEC\n"
"        Every MSEC ms (10 or more) while counting, print what each event\n"
"        counted in that interval, one line per event, as perf stat -I:\n"
"            #           time                 counts unit events\n"
"                 0.100123456                 100.12 msec task-clock\n"
"                 0.100123456                     12      context-switches\n"
"        (-x: TIME SEP VALUE SEP UNIT SEP EVENT; --json: one object a\n"
"        line, {\"interval\": SECONDS, \"events\": [{\"event\", \"value\",\n"
"        \"unit\"}]}). The last interval ends with the counting; no summary\n"
"        follows, as perf prints none. Not with -r or --per-task.\n"
"\n"
"    --no-inherit\n"
"        Count only CMD (or PID) itself, not the processes and threads it\n"
"        creates afterwards.\n"
"\n"
"    --per-switch\n"
"        Count at every context switch even the events the kernel keeps\n"
"        per task, the way other events are counted: to compare the two\n"
"        ways (they agree within the rounding docs/DESIGN.md describes).\n"
"        It costs a probe call at every context switch of the system\n"
"        while counting. A module without the switchless feature (pmuctx\n"
"        info) counts every event that way anyway.\n"
"\n"
"    -x, --field-separator SEP\n"
"        Machine-readable output: one line per event,\n"
"            VALUE SEP UNIT SEP EVENT\n"
"        with raw integer values (task-clock and cpu-clock in ns, unit\n"
"        \"ns\"; the unit is empty for plain counts), e.g.\n"
"            12034567,ns,task-clock\n"
"            3,,context-switches\n"
"        With --per-task, one more line per task and event:\n"
"            COMM-TID SEP VALUE SEP UNIT SEP EVENT\n"
"        Notes and warnings are lines starting with '#'.\n"
"\n"
"    --json\n"
"        Print one JSON object on one line:\n"
"            {\"command\": \"CMD ARGS\" or null, \"target\": \"command\" |\n"
"             \"pid\" | \"system\" | \"cgroup\", \"events\": [{\"event\": NAME,\n"
"             \"value\": N, \"unit\": \"ns\" or \"\", \"time_running_ns\": N},\n"
"             ...], \"elapsed_ns\": N, \"time_enabled_ns\": N,\n"
"             \"time_slices_ns\": N (the tasks' run time; an event counted\n"
"             for all of it when its time_running_ns is equal; both 0\n"
"             from an older module), \"tasks_seen\": N, \"tasks_exited\": N,\n"
"             \"tasks_dropped\": N, \"priv_exec_stopped\": N,\n"
"             \"tasks_unlisted\": N, \"user_ns\"/\"sys_ns\",\n"
"             \"nvcsw\"/\"nivcsw\" (the command's rusage from wait4),\n"
"             \"launch_ns\"/\"launch_csw\" (its run time and context\n"
"             switches before its exec, where counting starts: in the\n"
"             rusage, not in the counts) and\n"
"             \"exit_status\" (with a command), \"tasks\": [{\"pid\",\n"
"             \"tid\", \"ppid\", \"comm\", \"flags\": [...], \"values\":\n"
"             {EVENT: N},\n"
"             \"children\": {EVENT: N}}] (with --per-task),\n"
"             \"notes\": [TEXT, ...]}\n"
"\n"
"    -o, --output FILE\n"
"        Write the counts to FILE (truncated) instead of standard error.\n"
"        Notes and warnings are then also printed on standard error.\n"
"\n"
"    -a, --all-cpus\n"
"        Count every task on every CPU (system wide).\n"
"\n"
"    --duration SEC\n"
"        With -p, -a or -G: stop after SEC seconds (decimals allowed).\n"
"\n"
"    -p, --pid PID\n"
"        Attach to the running process PID.\n"
"\n"
"    -G, --cgroup CGROUP_PATH\n"
"        Count the tasks of the cgroup v2 directory CGROUP_PATH, e.g.\n"
"        /sys/fs/cgroup/system.slice/foo.service.\n"
"\n"
"    --selftest-data-size N\n"
"        Use the selftest save-area backend with N bytes per task (8 to\n"
"        4096): at every switch-out the module writes a\n"
"        signature of the task into its save area and verifies it at the\n"
"        next switch-in, wherever the task runs. 'pmuctx info' shows the\n"
"        checks, mismatches and cross-CPU migrations. A test backend:\n"
"        only the debug build of the module has it ('pmuctx info' lists\n"
"        the feature selftest).\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
HELP_EXTRA_MARK
"\n"
"OUTPUT\n"
"    The default output looks like perf stat's:\n"
"\n"
"     Performance counter stats for 'make -j4':\n"
"\n"
"             12,345.67 msec task-clock                #    3.512 CPUs utilized\n"
"                 1,234      context-switches          #   99.954 /sec\n"
"                    56      cpu-migrations            #    4.536 /sec\n"
"               123,456      page-faults               #   10.000 K/sec\n"
"\n"
"           3.515166032 seconds time elapsed\n"
"\n"
"           9.802000000 seconds user\n"
"           2.476000000 seconds sys\n"
"\n"
"    Rates after '#' are per second of task-clock (of wall time if\n"
"    task-clock is not counted). If a task raised its privileges by\n"
"    exec'ing a setuid, setgid or file-capability program, the module\n"
"    stops counting it there and a note says so; if tasks could not be\n"
"    tracked (max_tasks cap, pool exhausted), a warning says that the\n"
"    counts are incomplete.\n"
"\n"
"    Each task counts until its final switch-out. A threaded program\n"
"    counts one context switch more per exited thread than its own\n"
"    rusage (wait4): a thread other than a process's main one adds its\n"
"    switches to the process's rusage when it exits, before its final\n"
"    switch-out; a note then gives the difference. Programs of processes\n"
"    match their rusage less what ran before the exec within 1 %.\n"
"\n"
"    A hardware counter that lost its PMU slot, or the counter of a CPU\n"
"    that just came back online, counts nothing for a while: the count\n"
"    misses what the tasks did then. The module measures for how much of\n"
"    the tasks' run time each counter was counting; below 100% the value\n"
"    is followed by that share, e.g. '(73.20%)', and a note explains it.\n"
"    Unlike perf stat, pmuctx stat does not scale the value: it is what\n"
"    was counted. A counter that never counted shows '<not counted>'\n"
"    instead of a value (also in -x output).\n"
"\n"
"EXAMPLES\n"
"    pmuctx stat -- make -j8\n"
"    pmuctx stat -e task-clock,cs,faults -x, -- ./a.out input.txt\n"
"    pmuctx stat --json -o counts.json -- sh -c 'sort big.txt >/dev/null'\n"
"    pmuctx stat --per-task -- ./server --once\n"
"    pmuctx stat -r 10 -- ./bench\n"
"    pmuctx stat -I 1000 -p \"$(pidof mysqld)\"\n"
"    pmuctx stat -p \"$(pidof nginx | cut -d' ' -f1)\" --duration 10\n"
"    sudo pmuctx stat -a --duration 5\n"
"    sudo pmuctx stat -G /sys/fs/cgroup/user.slice -- sleep 2\n"
"\n"
"EXIT STATUS\n"
"    With CMD: CMD's exit status, 128+N if it was killed by signal N, 127\n"
"    if CMD was not found, 126 if it could not be executed.\n"
"    Otherwise: 0 on success (also when stopped by Ctrl-C or SIGTERM).\n"
"    1 on a runtime error (device, permission, session, read, output\n"
"    file; the message says why and how to fix it), 2 on a usage error.\n"
"\n"
"ENVIRONMENT\n"
"    PMUCTX_DEVICE\n"
"        Path of the pmuctx device, instead of /dev/pmuctx.\n"
"\n"
"SEE ALSO\n"
"    pmuctx info --help, perf-stat(1)\n";

static void stat_help_extra(FILE *f)
{
	int id;

	fprintf(f, "EVENTS\n"
		"    Names ignore case, and '_' may stand for '-'.\n\n"
		"    %-18s %-22s %s\n", "NAME", "ALIAS", "KIND");
	for (id = 1; id <= PMUCTX_EV_MAX; id++) {
		const char *n = pmuctx_event_name(id);
		const char *u = pmuctx_event_unit(id);

		if (!n)
			continue;
		fprintf(f, "    %-18s %-22s %s%s\n", n,
			event_alias(id) ? event_alias(id) : "",
			pmuctx_event_is_hw(id) == 1 ?
			"hardware (needs a hardware PMU)" : "software",
			u && *u ? ", in ns" : "");
	}
}

/* ---- options ------------------------------------------------------------- */

struct stat_opts {
	struct target_opts t;	/* -e, --no-inherit, -a, -p, -G, --duration */
	bool per_task;
	bool per_switch;
	const char *sep;		/* -x */
	bool json;
	const char *output;
	unsigned int selftest_size;
	unsigned int repeat;		/* -r: runs of the command (0: one) */
	unsigned int interval_ms;	/* -I: 0 without */
};

enum {
	OPT_PER_TASK = OPT_TARGET_END,
	OPT_PER_SWITCH,
	OPT_JSON,
	OPT_SELFTEST,
};

static const struct target_spec stat_target = {
	.cmd = CMD,
	.cgroup = true,
	.bad_duration = "expected a number of seconds > 0, e.g. 5 or 0.5",
	.nothing = "nothing to count: give a command (pmuctx stat -- CMD "
		   "ARGS), -p PID, -a or -G CGROUP_PATH",
	.duration_alone = "--duration works with -p, -a or -G; with a "
			  "command, counting lasts as long as the command",
	.duration_cmd = "--duration cannot be combined with a command: "
			"counting lasts as long as the command",
};

/* stat's own options: 0, EXIT_USAGE (printed), -ENOENT if not one */
static int stat_opt(struct stat_opts *o, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case OPT_PER_TASK:
		o->per_task = true;
		return 0;
	case OPT_PER_SWITCH:
		o->per_switch = true;
		return 0;
	case 'x':
		if (!*arg)
			return usage_error(CMD, "-x needs a non-empty "
					   "separator, e.g. -x,");
		o->sep = arg;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'I':
		if (!parse_uint(arg, 86400000, &v) || v < 10)
			return usage_error(CMD, "-I '%s': expected an interval "
					   "in ms from 10 to 86400000, e.g. "
					   "1000", arg);
		o->interval_ms = (unsigned int)v;
		return 0;
	case 'r':
		if (!parse_uint(arg, 100000, &v) || !v)
			return usage_error(CMD, "-r '%s': expected a number of "
					   "runs from 1 to 100000", arg);
		o->repeat = (unsigned int)v;
		return 0;
	case OPT_SELFTEST:
		if (!parse_uint(arg, PMUCTX_MAX_DATA_SIZE, &v) || v < 8)
			return usage_error(CMD, "--selftest-data-size '%s': "
					   "expected 8 to %d bytes", arg,
					   PMUCTX_MAX_DATA_SIZE);
		o->selftest_size = (unsigned int)v;
		return 0;
	default:
		return -ENOENT;
	}
}

static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "per-task", no_argument, NULL, OPT_PER_TASK },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "per-switch", no_argument, NULL, OPT_PER_SWITCH },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "selftest-data-size", required_argument, NULL, OPT_SELFTEST },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:x:o:ap:G:r:I:h", longopts,
				NULL)) != -1) {
		if (c == 'h') {
			print_cmd_help(&cmd_stat, stdout);
			return -1;
		}
		ret = stat_opt(o, c, optarg);
		if (ret == -ENOENT)
			ret = target_opt(&stat_target, &o->t, c, optarg);
		if (ret == -ENOENT)
			return option_error(CMD, c, argv);
		if (ret)
			return ret;
	}
	target_args(&o->t, argc, argv);

	if (o->sep && o->json)
		return usage_error(CMD, "-x and --json cannot be combined");
	ret = target_check(&stat_target, &o->t);
	if (ret)
		return ret;
	if (o->repeat > 1 && !o->t.argc)
		return usage_error(CMD, "-r repeats a command: give one "
				   "(pmuctx stat -r 5 -- CMD ARGS)");
	if (o->repeat > 1 && o->per_task)
		return usage_error(CMD, "--per-task lists the tasks of one "
				   "run: not with -r");
	if (o->interval_ms && (o->repeat > 1 || o->per_task))
		return usage_error(CMD, "-I prints the counts of each "
				   "interval: not with %s", o->per_task ?
				   "--per-task" : "-r");
	return 0;
}

/* ---- helpers ------------------------------------------------------------- */

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL +
	       (uint64_t)tv->tv_usec * 1000ULL;
}

/*
 * Does the module count some sessions without a switch probe (and so
 * know PMUCTX_SESSION_PER_SWITCH)?  An older one counts every event at
 * context switches: --per-switch asks for nothing more there.
 */
static bool module_switchless(struct pmuctx *h)
{
	struct pmuctx_info info;

	return !pmuctx_info(h, &info) &&
	       (info.features & PMUCTX_FEAT_SWITCHLESS);
}

static int create_session(struct pmuctx *h, const struct stat_opts *o,
			  const int *ids, int nr, pid_t child)
{
	struct pmuctx_event_spec specs[PMUCTX_MAX_EVENTS];
	LIBPMUCTX_OPTS(pmuctx_session_opts, so,
		.event_specs = specs,
		.nr_event_specs = (size_t)nr,
	);

	/* with their modifiers and raw configs, as -e gave them */
	event_specs_of(ids, nr, specs);

	session_target(&so, o->t.system_wide, o->t.cgroup,
		       o->t.pid ? o->t.pid : child, !o->t.no_inherit);
	if (o->per_task)
		so.flags |= PMUCTX_SESSION_KEEP_EXITED;
	if (o->per_switch && module_switchless(h))
		so.flags |= PMUCTX_SESSION_PER_SWITCH;
	if (o->selftest_size) {
		so.backend = PMUCTX_BACKEND_SELFTEST;
		so.data_size = o->selftest_size;
	}
	return pmuctx_session_create(h, &so);
}

static int print_report(FILE *out, const struct stat_opts *o,
			const struct stat_report *r)
{
	if (o->json)
		stat_print_json(out, r);
	else if (o->sep)
		stat_print_csv(out, r, o->sep);
	else
		stat_print_human(out, r);
	/* a person must see these even when the counts go to a file */
	if (o->output)
		stat_print_notes(stderr, r, "pmuctx stat: ");
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "pmuctx stat: cannot write the counts to %s: "
			"%s\n", o->output ? o->output : "standard error",
			strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

static int read_counts(struct pmuctx *h, const struct stat_opts *o,
		       struct pmuctx_counts *c)
{
	LIBPMUCTX_OPTS(pmuctx_read_opts, ro,
		.flags = o->per_task ? PMUCTX_READ_PER_TASK : 0,
	);

	return pmuctx_read(h, c, &ro);
}

/* ---- stat -- CMD ---------------------------------------------------------- */

static volatile pid_t forward_pid;

static void forward_signal(int sig)
{
	if (forward_pid > 0)
		kill(forward_pid, sig);
}

/* child_start()'s callback: the command has exec'ed, count from here */
static int stat_enable_at_exec(void *h)
{
	return pmuctx_enable(h);
}

static void interval_init(struct stat_interval *iv,
			  const struct stat_opts *o, FILE *out)
{
	memset(iv, 0, sizeof(*iv));
	iv->every_ns = (uint64_t)o->interval_ms * 1000000ULL;
	iv->sep = o->sep;
	iv->json = o->json;
	iv->out = out;
}

/*
 * -I: wait for the command, the counts of every interval printed
 * meanwhile (to @o's output): wait4()'s result
 */
static pid_t wait_intervals(struct pmuctx *h, const struct stat_opts *o,
			    pid_t child, int *status, struct rusage *ru,
			    uint64_t t0, FILE *out)
{
	struct stat_interval iv;
	int pidfd = pidfd_open_compat(child), timeout;
	pid_t w;

	interval_init(&iv, o, out);
	stat_interval_start(&iv, t0);
	for (;;) {
		w = wait4(child, status, WNOHANG, ru);
		if (w == child || (w < 0 && errno != EINTR))
			break;
		timeout = stat_interval_timeout(&iv, now_ns());
		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };

			poll(&p, 1, timeout);
		} else {
			/* no pidfd: look at the child every 10 ms */
			usleep(1000U * (unsigned int)(timeout < 10 ?
						      timeout : 10));
		}
		stat_interval_tick(&iv, h, now_ns());
	}
	stat_interval_end(&iv, h, now_ns());
	if (pidfd >= 0)
		close(pidfd);
	return w;
}

/* one run of the command */
struct run_result {
	struct pmuctx_counts counts;
	uint64_t elapsed_ns;
	bool have_rusage;
	struct rusage ru;
	int exit_status;
	/* counted from the exec: what its rusage holds from before */
	bool have_launch;
	uint64_t launch_ns, launch_csw;
};

/*
 * Run the command once in a session of @h: 0 and *@res, or the exit
 * status of a failure (printed)
 */
static int run_command(struct pmuctx *h, const struct stat_opts *o,
		       const int *ids, int nr, struct run_result *res,
		       FILE *out)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction fwd = { .sa_handler = forward_signal };
	struct sigaction old_int, old_quit, old_term, old_hup;
	struct rusage ru;
	struct child ch = { 0 };
	uint64_t t0, t1;
	int status = 0, err, exec_err;
	const char *what;
	pid_t child, w;

	/*
	 * A command is counted from its exec: the launcher is not.
	 * System-wide and cgroup counts start at once, as perf's.
	 */
	ch.at_exec = !o->t.system_wide && !o->t.cgroup;
	if (child_spawn(&ch, o->t.argv, NULL, &what)) {
		fprintf(stderr, "pmuctx stat: %s: %s\n", what, strerror(errno));
		return EXIT_RUNTIME;
	}
	child = ch.pid;

	err = create_session(h, o, ids, nr, child);
	if (!err && !ch.traced)
		err = pmuctx_enable(h);
	if (err) {
		child_abort(&ch);	/* it exits without running */
		return lib_error(CMD, h, err);
	}

	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	forward_pid = child;
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);

	t0 = now_ns();
	exec_err = child_start(CMD, &ch, stat_enable_at_exec, h);

	memset(&ru, 0, sizeof(ru));
	if (o->interval_ms && !exec_err) {
		w = wait_intervals(h, o, child, &status, &ru, t0, out);
	} else {
		do
			w = wait4(child, &status, 0, &ru);
		while (w < 0 && errno == EINTR);
	}
	t1 = now_ns();

	forward_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);

	if (exec_err) {
		print_exec_error(CMD, o->t.argv[0], exec_err);
		return exec_status(exec_err);
	}
	/* the session did not start: the command was killed */
	if (ch.start_err)
		return lib_error(CMD, h, ch.start_err);

	err = read_counts(h, o, &res->counts);
	pmuctx_disable(h);
	if (err)
		return lib_error(CMD, h, err);
	res->elapsed_ns = t1 - t0;
	res->have_rusage = w == child;
	res->ru = ru;
	res->exit_status = wait_status(w == child, status);
	res->have_launch = ch.launched && res->have_rusage;
	res->launch_ns = ch.launch_ns;
	res->launch_csw = ch.launch_csw;
	return 0;
}

static void command_report(struct stat_report *rep,
			   const struct stat_opts *o, const char *cmdline)
{
	memset(rep, 0, sizeof(*rep));
	rep->kind = o->t.system_wide ? STAT_TARGET_SYSTEM :
		    o->t.cgroup ? STAT_TARGET_CGROUP : STAT_TARGET_COMMAND;
	rep->command = cmdline;
	rep->cgroup = o->t.cgroup;
	rep->per_task = o->per_task;
	rep->have_exit_status = true;
}

static int stat_command(struct pmuctx *h, const struct stat_opts *o,
			const int *ids, int nr, FILE *out)
{
	struct run_result res;
	struct stat_report rep;
	char *cmdline;
	int ret;

	cmdline = join_args(o->t.argc, o->t.argv);
	if (!cmdline) {
		fprintf(stderr, "pmuctx stat: out of memory\n");
		return EXIT_RUNTIME;
	}
	memset(&res, 0, sizeof(res));
	ret = run_command(h, o, ids, nr, &res, out);
	if (ret) {
		free(cmdline);
		return ret;
	}
	command_report(&rep, o, cmdline);
	rep.counts = &res.counts;
	rep.elapsed_ns = res.elapsed_ns;
	rep.have_rusage = res.have_rusage;
	rep.user_ns = tv_ns(&res.ru.ru_utime);
	rep.sys_ns = tv_ns(&res.ru.ru_stime);
	rep.nvcsw = res.ru.ru_nvcsw;
	rep.nivcsw = res.ru.ru_nivcsw;
	rep.have_launch = res.have_launch;
	rep.launch_ns = res.launch_ns;
	rep.launch_csw = res.launch_csw;
	rep.exit_status = res.exit_status;

	/* -I: the intervals were the report (perf prints no summary) */
	if (o->interval_ms)
		stat_print_notes(stderr, &rep, "pmuctx stat: ");
	else
		ret = print_report(out, o, &rep);
	free(cmdline);
	return ret ? ret : rep.exit_status;
}

/* ---- stat -r N -- CMD ------------------------------------------------------ */

/* the mean of @n values, and its standard deviation (perf's stddev_stats) */
static double mean_sd(const double *v, unsigned int n, double *sd)
{
	double m = 0, s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	*sd = n > 1 ? sqrt(s / (n - 1) / n) : 0.0;
	return m;
}

static __u64 round_u64(double v)
{
	return v <= 0 ? 0 : (__u64)(v + 0.5);
}

/*
 * the runs' counts into @mean: each event's mean (its deviation in
 * @rep), the task totals summed (a note on one run is a note on all)
 */
static void mean_counts(const struct run_result *res, unsigned int n,
			struct pmuctx_counts *mean, struct stat_report *rep,
			double *v)
{
	unsigned int e, k;
	double sd;

	*mean = res[n - 1].counts;
	mean->nr_tasks = 0;
	mean->tasks = NULL;
	for (e = 0; e < mean->nr_events; e++) {
		for (k = 0; k < n; k++)
			v[k] = (double)res[k].counts.values[e];
		mean->values[e] = round_u64(mean_sd(v, n, &sd));
		rep->stddev_pct[e] = mean->values[e] ?
				     100.0 * sd / (double)mean->values[e] : 0;
		for (k = 0; k < n; k++)
			v[k] = (double)res[k].counts.time_running[e];
		mean->time_running[e] = round_u64(mean_sd(v, n, &sd));
	}
	for (k = 0; k < n; k++)
		v[k] = (double)res[k].counts.time_enabled;
	mean->time_enabled = round_u64(mean_sd(v, n, &sd));
	for (k = 0; k < n; k++)
		v[k] = (double)res[k].counts.time_slices;
	mean->time_slices = round_u64(mean_sd(v, n, &sd));
	mean->tasks_dropped = 0;
	mean->priv_exec_stopped = 0;
	mean->tasks_unlisted = 0;
	for (k = 0; k < n; k++) {
		mean->tasks_dropped += res[k].counts.tasks_dropped;
		mean->priv_exec_stopped += res[k].counts.priv_exec_stopped;
		mean->tasks_unlisted += res[k].counts.tasks_unlisted;
	}
	for (k = 0; k < n; k++)
		v[k] = (double)res[k].elapsed_ns;
	rep->elapsed_ns = round_u64(mean_sd(v, n, &rep->elapsed_stddev_ns));
}

/*
 * perf stat -r: the command @o->repeat times, each in a session of its
 * own; the counts' means with their deviation, the last run's exit
 * status.  A run killed by SIGINT (Ctrl-C) ends the series.
 */
static int stat_repeat(const struct stat_opts *o, const int *ids, int nr,
		       FILE *out)
{
	struct pmuctx_counts mean;
	struct run_result *res;
	struct stat_report rep;
	struct pmuctx *h;
	unsigned int n = 0;
	double *v;
	char *cmdline;
	int ret = 0;

	cmdline = join_args(o->t.argc, o->t.argv);
	res = calloc(o->repeat, sizeof(*res));
	v = calloc(o->repeat, sizeof(*v));
	if (!cmdline || !res || !v) {
		fprintf(stderr, "pmuctx stat: out of memory\n");
		ret = EXIT_RUNTIME;
		goto out;
	}
	while (n < o->repeat) {
		ret = open_device(CMD, &h);
		if (!ret)
			ret = run_command(h, o, ids, nr, &res[n], out);
		pmuctx_close(h);
		if (ret)
			goto out;
		if (res[n++].exit_status == 128 + SIGINT)
			break;
	}
	command_report(&rep, o, cmdline);
	mean_counts(res, n, &mean, &rep, v);
	rep.counts = &mean;
	rep.runs = n;
	rep.exit_status = res[n - 1].exit_status;
	ret = print_report(out, o, &rep);
	if (!ret)
		ret = rep.exit_status;
out:
	free(v);
	free(res);
	free(cmdline);
	return ret;
}

/* ---- stat -p / -a / -G ---------------------------------------------------- */

static int stat_attach(struct pmuctx *h, const struct stat_opts *o,
		       const int *ids, int nr, FILE *out)
{
	struct pmuctx_counts counts;
	struct stat_interval iv;
	struct stat_report rep;
	sigset_t mask, old;
	uint64_t t0, t1, deadline = 0;
	int err, sfd, pidfd = -1, ret;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fprintf(stderr, "pmuctx stat: signalfd: %s\n", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return EXIT_RUNTIME;
	}

	err = create_session(h, o, ids, nr, 0);
	if (!err)
		err = pmuctx_enable(h);
	if (err) {
		ret = lib_error(CMD, h, err);
		goto out;
	}
	if (o->t.pid)
		pidfd = pidfd_open_compat(o->t.pid);

	t0 = now_ns();
	if (o->t.have_duration)
		deadline = t0 + o->t.duration_ns;
	interval_init(&iv, o, out);
	stat_interval_start(&iv, t0);
	for (;;) {
		struct pollfd pfd[2];
		int nfds = 0, timeout = -1, r, ti;

		if (sfd >= 0) {
			pfd[nfds].fd = sfd;
			pfd[nfds++].events = POLLIN;
		}
		if (pidfd >= 0) {
			pfd[nfds].fd = pidfd;
			pfd[nfds++].events = POLLIN;
		}
		if (deadline) {
			uint64_t t = now_ns();

			if (t >= deadline)
				break;
			timeout = (int)((deadline - t + 999999) / 1000000);
		}
		/* no pidfd: poll the process now and then */
		if (o->t.pid && pidfd < 0 && (timeout < 0 || timeout > 200))
			timeout = 200;
		/* -I: the end of the interval */
		ti = stat_interval_timeout(&iv, now_ns());
		if (ti >= 0 && (timeout < 0 || ti < timeout))
			timeout = ti;
		r = poll(pfd, (nfds_t)nfds, timeout);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0)
			break;	/* a signal, or the process exited */
		stat_interval_tick(&iv, h, now_ns());
		if (o->t.pid && pidfd < 0 && kill(o->t.pid, 0) &&
		    errno == ESRCH)
			break;
	}
	t1 = now_ns();
	stat_interval_end(&iv, h, t1);

	err = read_counts(h, o, &counts);
	pmuctx_disable(h);
	if (err) {
		ret = lib_error(CMD, h, err);
		goto out;
	}
	memset(&rep, 0, sizeof(rep));
	rep.kind = o->t.pid ? STAT_TARGET_PID : o->t.system_wide ?
		   STAT_TARGET_SYSTEM : STAT_TARGET_CGROUP;
	rep.pid = o->t.pid;
	rep.cgroup = o->t.cgroup;
	rep.counts = &counts;
	rep.elapsed_ns = t1 - t0;
	rep.per_task = o->per_task;
	/* -I: the intervals were the report (perf prints no summary) */
	if (o->interval_ms) {
		stat_print_notes(stderr, &rep, "pmuctx stat: ");
		ret = 0;
	} else {
		ret = print_report(out, o, &rep);
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	if (sfd >= 0) {
		struct signalfd_siginfo si;

		/* consume the Ctrl-C / SIGTERM that ended the counting */
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			;
		close(sfd);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* ---- entry ---------------------------------------------------------------- */

static int stat_run(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	int ids[PMUCTX_MAX_EVENTS], nr, ret;
	struct pmuctx *h = NULL;
	FILE *out = stderr;

	ret = parse_opts(argc, argv, &o);
	if (ret) {
		free(o.t.events);
		return ret < 0 ? 0 : ret;	/* -1: --help */
	}
	nr = parse_events(&o.t.events,
		"task-clock,context-switches,cpu-migrations,page-faults", ids);
	if (nr < 0)
		return lib_usage_error(CMD, nr);

	if (o.output) {
		out = fopen(o.output, "we");
		if (!out) {
			fprintf(stderr, "pmuctx stat: cannot open output file "
				"%s: %s\n", o.output, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	if (o.repeat > 1) {
		ret = stat_repeat(&o, ids, nr, out);
		goto close_out;
	}
	ret = open_device(CMD, &h);
	if (!ret) {
		if (o.t.argc)
			ret = stat_command(h, &o, ids, nr, out);
		else
			ret = stat_attach(h, &o, ids, nr, out);
	}
	pmuctx_close(h);
close_out:
	if (out != stderr && fclose(out) && !ret) {
		fprintf(stderr, "pmuctx stat: writing %s: %s\n", o.output,
			strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;
}

const struct cmd cmd_stat = {
	.name = "stat",
	.summary = "count events of a command, a process, a cgroup or the "
		   "whole system",
	.help = stat_help,
	.run = stat_run,
	.help_extra = stat_help_extra,
};
