// SPDX-License-Identifier: GPL-2.0
/*
 * The pmuctx tool: "stat" and "info" run in-process against the fake
 * module (fork/exec of real commands, exit statuses, targets, output
 * files), and the built binary for help texts and usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <pmuctx.h>

#include "../../tools/builtin.h"
#include "../../tools/info-format.h"
#include "fake_kernel.h"
#include "test.h"

#ifndef TOP_DIR
#define TOP_DIR "../.."
#endif

static char dir[64];
static char out_path[128];
static char *cap_out, *cap_err, *file_out;

/* run @cmd in-process with stdout/stderr captured; NULL-terminated args */
static int run(const struct cmd *cmd, ...)
{
	va_list ap;
	int ret;

	unlink(out_path);
	va_start(ap, cmd);
	ret = t_run_cmd(cmd, dir, &cap_out, &cap_err, ap);
	va_end(ap);
	free(file_out);
	file_out = t_slurp(out_path);
	return ret;
}

/* run the built binary; returns its exit status */
static int run_bin(const char *env, ...)
{
	char so_path[128], se_path[128], bin[512];
	char *argv[32];
	int argc = 0, st;
	va_list ap;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/tools/pmuctx", TOP_DIR);
	argv[argc++] = bin;
	va_start(ap, env);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	snprintf(so_path, sizeof(so_path), "%s/stdout", dir);
	snprintf(se_path, sizeof(se_path), "%s/stderr", dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fo = open(so_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(se_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fo, 1);
		dup2(fe, 2);
		if (env)
			putenv((char *)env);
		execv(bin, argv);
		_exit(99);
	}
	waitpid(pid, &st, 0);
	free(cap_out);
	free(cap_err);
	cap_out = t_slurp(so_path);
	cap_err = t_slurp(se_path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* lines of @s that start with '#' */
static int count_notes(const char *s)
{
	int n = 0;

	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : "")
		n += *s == '#';
	return n;
}

static void test_stat_command(void)
{
	char marker[160], script[256];
	int ret;

	ret = run(&cmd_stat, "-x", ",", "-o", out_path, "--", "true", NULL);
	CHECK_EQ(ret, 0, "stat -x, -o F -- true: exit 0");
	/* (the fake's 42 context switches are above true's rusage: a
	 * '# note:' line may follow the events) */
	CHECK_EQ(count_lines(file_out) - count_notes(file_out), 4,
		 "4 default events written to F");
	CHECK_HAS(file_out, ",ns,task-clock\n", "task-clock line in F");
	CHECK(fake.last_attr.target == PMUCTX_TARGET_PID &&
	      fake.last_attr.pid > 0 &&
	      fake.last_attr.flags == PMUCTX_SESSION_INHERIT,
	      "the child pid is the target, with INHERIT");
	CHECK_EQ(fake.nr_enables, 1, "the session was enabled");

	ret = run(&cmd_stat, "-x", ",", "--", "sh", "-c",
		  "echo out; exit 3", NULL);
	CHECK_EQ(ret, 3, "exit status of the command is returned (3)");
	CHECK(cap_out && !strcmp(cap_out, "out\n"),
	      "the command's stdout is untouched");
	CHECK_HAS(cap_err, "42,,context-switches\n",
		  "counts go to stderr by default");

	ret = run(&cmd_stat, "-o", out_path, "--", "sh", "-c",
		  "kill -TERM $$", NULL);
	CHECK_EQ(ret, 128 + SIGTERM, "killed by SIGTERM -> 143");
	CHECK_HAS(file_out, " Performance counter stats for 'sh -c kill "
		  "-TERM $$':", "human header quotes the command");
	CHECK_HAS(file_out, "seconds time elapsed", "human output complete");
	CHECK_HAS(file_out, "seconds user", "user/sys from wait4");

	ret = run(&cmd_stat, "--no-inherit", "-o", out_path, "--", "true",
		  NULL);
	CHECK(ret == 0 && fake.last_attr.flags == 0,
	      "--no-inherit clears PMUCTX_SESSION_INHERIT");

	ret = run(&cmd_stat, "--per-switch", "-o", out_path, "true", NULL);
	CHECK(ret == 0 && fake.last_attr.flags == PMUCTX_SESSION_INHERIT,
	      "--per-switch on a module without the switchless feature: "
	      "no flag (it counts at switches anyway)");
	fake.features |= PMUCTX_FEAT_SWITCHLESS;
	ret = run(&cmd_stat, "--per-switch", "-o", out_path, "true", NULL);
	CHECK(ret == 0 && fake.last_attr.flags == (PMUCTX_SESSION_INHERIT |
					     PMUCTX_SESSION_PER_SWITCH),
	      "--per-switch adds PMUCTX_SESSION_PER_SWITCH");
	fake.features &= ~PMUCTX_FEAT_SWITCHLESS;

	ret = run(&cmd_stat, "--per-task", "--json", "-o", out_path, "true",
		  NULL);
	CHECK(ret == 0 && fake.last_attr.flags == (PMUCTX_SESSION_INHERIT |
					     PMUCTX_SESSION_KEEP_EXITED),
	      "--per-task adds KEEP_EXITED (command without --)");
	CHECK(file_out && !json_validate(file_out, NULL),
	      "--per-task --json output is valid JSON");
	CHECK_HAS(file_out, "\"tasks\":[{\"pid\":1000", "tasks in JSON");
	CHECK_HAS(file_out, "\"exit_status\":0", "exit status in JSON");

	ret = run(&cmd_stat, "--selftest-data-size", "64", "-e",
		  "task-clock", "-e", "cs", "-o", out_path, "--", "true",
		  NULL);
	CHECK(ret == 0 && fake.last_attr.backend == PMUCTX_BACKEND_SELFTEST &&
	      fake.last_attr.data_size == 64 &&
	      fake.last_attr.nr_events == 2 &&
	      fake.last_attr.events[1] == PMUCTX_EV_CONTEXT_SWITCHES,
	      "--selftest-data-size and repeated -e reach the session");

	ret = run(&cmd_stat, "-o", out_path, "--", "/nonexistent/cmd", NULL);
	CHECK_EQ(ret, 127, "command not found -> 127");
	CHECK_HAS(cap_err, "cannot run '/nonexistent/cmd': No such file",
		  "exec failure is reported");
	snprintf(marker, sizeof(marker), "%s/noexec", dir);
	close(open(marker, O_WRONLY | O_CREAT, 0644));
	chmod(marker, 0644);
	ret = run(&cmd_stat, "-o", out_path, "--", marker, NULL);
	CHECK_EQ(ret, 126, "not executable -> 126");
	CHECK_HAS(cap_err, "Permission denied", "... and says why");
	CHECK(file_out && !*file_out, "... and prints no counts");

	/* the session fails: the command must not run */
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(script, sizeof(script), "touch %s", marker);
	fake.create_err = -EPERM;
	ret = run(&cmd_stat, "-o", out_path, "--", "sh", "-c", script, NULL);
	fake.create_err = 0;
	CHECK_EQ(ret, 1, "session failure -> exit 1");
	CHECK(access(marker, F_OK) != 0, "... and the command did not run");
	CHECK_HAS(cap_err, "pmuctx stat: cannot create a pmuctx session for "
		  "pid", "... and the library message is shown");

	fake.hw_unsupported = true;
	ret = run(&cmd_stat, "-e", "task-clock,cycles", "--", "true", NULL);
	fake.hw_unsupported = false;
	CHECK_EQ(ret, 1, "unsupported hardware event -> exit 1");
	CHECK_HAS(cap_err, "not supported here: cycles", "names the event");

	/* perf's modifiers and raw events, printed as written */
	ret = run(&cmd_stat, "-e", "cycles:u,cycles:k,r00c0", "--", "true",
		  NULL);
	CHECK_EQ(ret, 0, "stat -e cycles:u,cycles:k,r00c0 -> 0");
	CHECK_HAS(cap_err, "cycles:u", "cycles:u printed as written");
	CHECK_HAS(cap_err, "cycles:k", "cycles:k printed as written");
	CHECK_HAS(cap_err, "r00c0", "r00c0 printed as written");
	CHECK(fake.last_attr.event_desc[0].flags == PMUCTX_EVF_USER &&
	      fake.last_attr.event_desc[1].flags == PMUCTX_EVF_KERNEL &&
	      fake.last_attr.events[2] == PMUCTX_EV_RAW &&
	      fake.last_attr.event_desc[2].config == 0xc0,
	      "stat passes each event's modes and raw config");
	fake.create_err = -EACCES;
	ret = run(&cmd_stat, "-e", "instructions:k", "--", "true", NULL);
	fake.create_err = 0;
	CHECK_EQ(ret, 1, "instructions:k refused -> exit 1");
	CHECK_HAS(cap_err, "event 'instructions:k' counts kernel mode",
		  "... and the message names the event and the cause");
	CHECK_EQ(run(&cmd_stat, "-e", "task-clock:u", "--", "true", NULL), 2,
		 "task-clock:u -> usage error 2");
	CHECK_HAS(cap_err, "task-clock has no user/kernel modes",
		  "... and says why");

	fake.priv_exec_stopped = 1;
	fake.tasks_dropped = 2;
	ret = run(&cmd_stat, "--json", "-o", out_path, "--", "true", NULL);
	fake.priv_exec_stopped = 0;
	fake.tasks_dropped = 0;
	CHECK_HAS(cap_err, "pmuctx stat: note: counting stopped for 1 task",
		  "with -o, notes are also on stderr");
	CHECK_HAS(cap_err, "pmuctx stat: warning: 2 task(s)",
		  "with -o, warnings are also on stderr");
}

/* whether @pid's main thread blocks SIGTERM (/proc/PID/status SigBlk) */
static bool sigterm_blocked(pid_t pid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ULL << (SIGTERM - 1));
}

static void test_stat_attach(void)
{
	pid_t pid;
	int ret, st;
	char pidstr[16];

	ret = run(&cmd_stat, "-a", "--duration", "0.05", "-o", out_path,
		  NULL);
	CHECK(ret == 0 && fake.last_attr.target == PMUCTX_TARGET_SYSTEM &&
	      fake.last_attr.flags == 0 && fake.last_attr.pid == 0,
	      "-a: system-wide session without INHERIT");
	CHECK_HAS(file_out, "'system wide'", "-a: header");

	ret = run(&cmd_stat, "-G", "/tmp", "--duration", "0.05", "-x", ",",
		  "-o", out_path, NULL);
	CHECK(ret == 0 && fake.last_attr.target == PMUCTX_TARGET_CGROUP &&
	      fake.last_attr.cgroup_fd > 0, "-G: cgroup session with an fd");

	ret = run(&cmd_stat, "-a", "-o", out_path, "--", "true", NULL);
	CHECK(ret == 0 && fake.last_attr.target == PMUCTX_TARGET_SYSTEM,
	      "-a -- CMD: system wide while CMD runs");

	pid = fork();
	if (pid == 0) {
		usleep(300000);
		_exit(0);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	ret = run(&cmd_stat, "-p", pidstr, "--duration", "0.05", "--json",
		  "-o", out_path, NULL);
	CHECK(ret == 0 && fake.last_attr.pid == pid &&
	      fake.last_attr.target == PMUCTX_TARGET_PID,
	      "-p PID --duration: attaches to PID");
	CHECK_HAS(file_out, "\"target\":\"pid\",\"pid\":", "-p: JSON target");
	ret = run(&cmd_stat, "-p", pidstr, "-o", out_path, NULL);
	CHECK_EQ(ret, 0, "-p PID without duration ends when PID exits");
	CHECK_HAS(file_out, "process id '", "-p: human header");
	waitpid(pid, &st, 0);

	/* SIGTERM ends -p counting normally */
	pid = fork();
	if (pid == 0) {
		pid_t parent = getppid();

		/* wait until pmuctx stat blocks SIGTERM (signalfd) */
		for (int i = 0; i < 500 && !sigterm_blocked(parent); i++)
			usleep(10000);
		kill(parent, SIGTERM);
		usleep(300000);
		_exit(0);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	ret = run(&cmd_stat, "-p", pidstr, "-o", out_path, NULL);
	CHECK(ret == 0 && file_out && strstr(file_out, "time elapsed"),
	      "-p: SIGTERM stops counting and prints the counts");
	waitpid(pid, &st, 0);
}

/*
 * Issue 30 item 6: stat -r N runs the command N times, each in a session
 * of its own, and prints the means with the deviation of the mean, as
 * perf stat -r does (the fake counts 10 more at every read: 42, 52, 62)
 */
static void test_stat_repeat(void)
{
	int creates = fake.nr_creates, ret;

	fake.nr_reads = 0;
	fake.values_step = 10;
	ret = run(&cmd_stat, "-r", "3", "-x", ",", "--", "sh", "-c", "exit 4",
		  NULL);
	CHECK_EQ(ret, 4, "stat -r 3: the command's exit status");
	CHECK_EQ(fake.nr_creates - creates, 3, "stat -r 3: three sessions");
	/* mean 52, deviation of the mean sqrt(100 / 3) = 5.77: 11.10 % */
	CHECK_HAS(cap_err, "\n52,,context-switches,11.10%\n",
		  "stat -r 3 -x,: the mean and its deviation, perf's "
		  "variance field");
	CHECK_HAS(cap_err, "1234567900,ns,task-clock,0.00%\n",
		  "stat -r 3 -x,: task-clock's mean");
	fake.nr_reads = 0;
	ret = run(&cmd_stat, "--repeat", "3", "--", "true", NULL);
	CHECK_EQ(ret, 0, "stat --repeat 3 exits 0");
	CHECK_HAS(cap_err, " Performance counter stats for 'true' (3 runs):",
		  "stat -r: the header says how many runs");
	CHECK_HAS(cap_err, "      context-switches          #",
		  "stat -r: the events");
	CHECK_HAS(cap_err, "( +- 11.10% )\n", "stat -r: perf's noise column");
	CHECK_HAS(cap_err, " seconds time elapsed  ( +-",
		  "stat -r: the elapsed time's mean and deviation");
	CHECK_LACKS(cap_err, "seconds user", "stat -r: no user and sys (one "
		    "run's, as perf)");
	fake.nr_reads = 0;
	ret = run(&cmd_stat, "-r", "2", "--json", "--", "true", NULL);
	CHECK_HAS(cap_err, "\"runs\":2,", "stat -r --json: runs");
	CHECK_HAS(cap_err, "\"stddev_pct\":", "stat -r --json: the deviation");
	fake.values_step = 0;
	ret = run(&cmd_stat, "-r", "1", "--", "true", NULL);
	CHECK(ret == 0 && !strstr(cap_err, "runs") && !strstr(cap_err, "+-"),
	      "stat -r 1: one run, the usual output");
	CHECK_EQ(run(&cmd_stat, "-r", "0", "--", "true", NULL), 2,
		 "-r 0 -> 2");
	CHECK_HAS(cap_err, "-r '0': expected a number of runs from 1 to "
		  "100000", "... says what is expected");
	CHECK_EQ(run(&cmd_stat, "-r", "3", "-a", "--duration", "1", NULL), 2,
		 "-r without a command -> 2");
	CHECK_HAS(cap_err, "-r repeats a command", "... says why");
	CHECK_EQ(run(&cmd_stat, "-r", "3", "--per-task", "--", "true", NULL),
		 2, "-r with --per-task -> 2");
}

/*
 * Issue 30 item 6: stat -I MSEC prints what each event counted in every
 * interval while the command runs, as perf stat -I (the fake counts 10
 * more at every read: 42 in the first interval, 10 in the others)
 */
static void test_stat_interval(void)
{
	int ret;

	fake.nr_reads = 0;
	fake.values_step = 10;
	ret = run(&cmd_stat, "-I", "50", "-x", ",", "--", "sh", "-c",
		  "sleep 0.3; exit 5", NULL);
	CHECK_EQ(ret, 5, "stat -I: the command's exit status");
	CHECK(cap_err && strstr(cap_err, ",42,,context-switches\n") &&
	      strstr(cap_err, ",10,,context-switches\n"),
	      "stat -I 50 -x,: TIME,VALUE,UNIT,EVENT per interval, what "
	      "was counted in it");
	CHECK(fake.nr_reads >= 4, "stat -I 50 over 0.3 s: several intervals "
	      "(%d reads)", fake.nr_reads);
	CHECK_LACKS(cap_err, "\n42,,context-switches",
		    "stat -I: no summary of the whole run (as perf)");
	fake.nr_reads = 0;
	ret = run(&cmd_stat, "--interval-print", "100", "--", "sleep", "0.25",
		  NULL);
	CHECK_EQ(ret, 0, "stat --interval-print 100 exits 0");
	CHECK_HAS(cap_err, "#           time                 counts unit "
		  "events\n", "stat -I: perf's header line");
	CHECK_HAS(cap_err, "                     10      context-switches\n",
		  "stat -I: a line per event and interval");
	CHECK_HAS(cap_err, " msec task-clock\n", "stat -I: task-clock in ms");
	CHECK_LACKS(cap_err, "Performance counter stats",
		    "stat -I: no summary");
	fake.nr_reads = 0;
	ret = run(&cmd_stat, "-I", "60", "--json", "--", "sleep", "0.1",
		  NULL);
	CHECK_HAS(cap_err, "{\"interval\":", "stat -I --json: an object per "
		  "interval");
	fake.nr_reads = 0;
	ret = run(&cmd_stat, "-a", "--duration", "0.25", "-I", "50", "-x",
		  ",", NULL);
	CHECK(ret == 0 && cap_err && strstr(cap_err,
	      ",10,,context-switches\n") && !strstr(cap_err, "\n42,,"),
	      "stat -a --duration -I: the intervals, no summary");
	fake.values_step = 0;
	CHECK_EQ(run(&cmd_stat, "-I", "5", "--", "true", NULL), 2,
		 "-I under 10 ms -> 2");
	CHECK_HAS(cap_err, "-I '5': expected an interval in ms from 10",
		  "... says what is expected");
	CHECK_EQ(run(&cmd_stat, "-I", "100", "-r", "2", "--", "true", NULL), 2,
		 "-I with -r -> 2");
}

static void test_stat_usage(void)
{
	CHECK_EQ(run(&cmd_stat, NULL), 2, "stat without target -> 2");
	CHECK_HAS(cap_err, "nothing to count", "... says why");
	CHECK_EQ(run(&cmd_stat, "-x", ",", "--json", "--", "true", NULL), 2,
		 "-x with --json -> 2");
	CHECK_EQ(run(&cmd_stat, "-p", "1", "-a", NULL), 2, "-p with -a -> 2");
	CHECK_EQ(run(&cmd_stat, "-a", "-G", "/tmp", NULL), 2,
		 "-a with -G -> 2");
	CHECK_EQ(run(&cmd_stat, "-p", "1", "--", "true", NULL), 2,
		 "-p with a command -> 2");
	CHECK_EQ(run(&cmd_stat, "--duration", "1", "--", "true", NULL), 2,
		 "--duration with a command -> 2");
	CHECK_EQ(run(&cmd_stat, "-a", "--duration", "soon", NULL), 2,
		 "bad --duration -> 2");
	CHECK_EQ(run(&cmd_stat, "-p", "abc", NULL), 2, "bad pid -> 2");
	CHECK_EQ(run(&cmd_stat, "--selftest-data-size", "7", "--", "true",
		     NULL), 2, "bad selftest size -> 2");
	CHECK_EQ(run(&cmd_stat, "-e", "bogus", "--", "true", NULL), 2,
		 "unknown event -> 2");
	CHECK_HAS(cap_err, "unknown event 'bogus'", "... names the event");
	CHECK_EQ(run(&cmd_stat, "-e", "cs,migrations,faults,task-clock,"
		     "cpu-clock,cycles,instructions,branches,cache-misses",
		     "--", "true", NULL), 2, "9 events -> 2");
	CHECK_HAS(cap_err, "at most 8", "... says the limit");
	CHECK_EQ(run(&cmd_stat, "--frobnicate", NULL), 2,
		 "unknown option -> 2");
	CHECK_HAS(cap_err, "unknown option '--frobnicate'", "... names it");
	CHECK_EQ(run(&cmd_stat, "-o", NULL), 2, "missing argument -> 2");
	CHECK_EQ(run(&cmd_stat, "-o", "/nonexistent/dir/f", "--", "true",
		     NULL), 1, "unwritable output file -> 1");
	CHECK_EQ(run(&cmd_stat, "--help", NULL), 0, "stat --help -> 0");
	CHECK_HAS(cap_out, "SYNOPSIS", "stat --help prints the manual");
}

/* an early libpmuctx 0.3's pmuctx_feature_name(): bits 0-5 only */
static const char *old_feature_name(unsigned int bit)
{
	return bit < 6 ? pmuctx_feature_name(bit) : NULL;
}

/*
 * A pmuctx tool run against an older installed libpmuctx.so.0 printed
 * "bit6 bit7" where its manual says "ring sampling" (issue 16 item 7).
 */
static void test_info_old_library(void)
{
	__u64 saved = fake.features;

	fake.features |= PMUCTX_FEAT_RING | PMUCTX_FEAT_SAMPLING |
			 PMUCTX_FEAT_MMAP | (1ULL << 40);
	info_feature_lookup = old_feature_name;
	CHECK_EQ(run(&cmd_info, NULL), 0, "info with an older library -> 0");
	CHECK_HAS(cap_out, " ring sampling mmap bit40",
		  "info: the bits the library does not know by this tool's "
		  "names (ring sampling mmap); an unknown bit as bitN");
	CHECK(cap_out && !strstr(cap_out, "bit6") && !strstr(cap_out, "bit7"),
	      "info: no bit6 or bit7");
	CHECK_EQ(run(&cmd_info, "--json", NULL), 0, "info --json -> 0");
	CHECK_HAS(cap_out, "\"ring\",\"sampling\",\"mmap\",\"bit40\"",
		  "info --json: the same names");
	info_feature_lookup = pmuctx_feature_name;
	fake.features = saved;
}

/* The probes line, by module generation (PMUCTX_FEAT_SWITCHLESS). */
static void test_info_probes(void)
{
	__u64 saved = fake.features;

	CHECK_EQ(run(&cmd_info, NULL), 0, "info -> 0");
	CHECK_HAS(cap_out, "probes:                registered\n",
		  "info: an older module's 1 is 'registered'");
	CHECK_EQ(run(&cmd_info, "--json", NULL), 0, "info --json -> 0");
	CHECK(cap_out && !strstr(cap_out, "switch_probe_registered"),
	      "info --json: no switch_probe_registered from an older module");
	fake.features |= PMUCTX_FEAT_SWITCHLESS;
	CHECK_EQ(run(&cmd_info, NULL), 0, "info, switchless module -> 0");
	CHECK_HAS(cap_out, "registered, sched_switch not (switchless "
		  "sessions only)", "info: lifecycle probes without sched_switch");
	CHECK_EQ(run(&cmd_info, "--json", NULL), 0, "info --json -> 0");
	CHECK_HAS(cap_out, "\"switch_probe_registered\":false",
		  "info --json: switch_probe_registered false");
	fake.probes = PMUCTX_PROBES_LIFECYCLE | PMUCTX_PROBES_SWITCH;
	CHECK_EQ(run(&cmd_info, NULL), 0, "info, sched_switch hooked -> 0");
	CHECK_HAS(cap_out, "registered, sched_switch included",
		  "info: sched_switch among the probes");
	CHECK_EQ(run(&cmd_info, "--json", NULL), 0, "info --json -> 0");
	CHECK_HAS(cap_out, "\"switch_probe_registered\":true",
		  "info --json: switch_probe_registered true");
	fake.probes = 0;
	CHECK_EQ(run(&cmd_info, NULL), 0, "info, no probes -> 0");
	CHECK_HAS(cap_out, "probes:                not registered",
		  "info: no probes");
	fake.probes = 1;
	fake.features = saved;
}

static void test_info_cmd(void)
{
	CHECK_EQ(run(&cmd_info, NULL), 0, "info against the fake -> 0");
	CHECK_HAS(cap_out, "pmuctx module 0.1.0-fake", "info: version");
	CHECK_HAS(cap_out, "features:", "info: features");
	CHECK_HAS(cap_out, "tasks tracked:", "info: statistics");
	CHECK_EQ(run(&cmd_info, "--json", NULL), 0, "info --json -> 0");
	CHECK(cap_out && !json_validate(cap_out, NULL), "info --json valid");
	CHECK_EQ(run(&cmd_info, "extra", NULL), 2, "info with an argument");
	CHECK_EQ(run(&cmd_info, "--bad", NULL), 2, "info bad option");
}

static void test_binary(void)
{
	char bin[512];
	int ret;

	snprintf(bin, sizeof(bin), "%s/tools/pmuctx", TOP_DIR);
	if (access(bin, X_OK)) {
		t_diag("%s not built: skipping binary checks", bin);
		return;
	}
	CHECK_EQ(run_bin(NULL, "--version", NULL), 0, "--version -> 0");
	CHECK_HAS(cap_out, " (libpmuctx 0.7.0, pmuctx ABI 1)",
		  "--version text");
	CHECK_EQ(run_bin(NULL, "--help", NULL), 0, "--help -> 0");
	CHECK(strstr(cap_out, "  info ") && strstr(cap_out, "  stat "),
	      "--help lists the commands");
	CHECK_EQ(run_bin(NULL, NULL), 2, "no command -> 2");
	CHECK_HAS(cap_err, "Usage: pmuctx", "no command prints usage");
	CHECK_EQ(run_bin(NULL, "frob", NULL), 2, "unknown command -> 2");
	CHECK_HAS(cap_err, "'frob' is not a pmuctx command", "... says so");
	CHECK_EQ(run_bin(NULL, "--frob", NULL), 2, "unknown option -> 2");
	ret = run_bin(NULL, "help", "stat", NULL);
	CHECK_EQ(ret, 0, "help stat -> 0");
	CHECK(strstr(cap_out, "SYNOPSIS") && strstr(cap_out, "DESCRIPTION") &&
	      strstr(cap_out, "OPTIONS") && strstr(cap_out, "EXAMPLES") &&
	      strstr(cap_out, "EXIT STATUS"), "stat manual has all sections");
	CHECK_HAS(cap_out, "    cache-misses ", "stat manual lists events");
	CHECK_EQ(run_bin(NULL, "info", "--help", NULL), 0, "info --help");
	CHECK(strstr(cap_out, "SYNOPSIS") && strstr(cap_out, "--json") &&
	      strstr(cap_out, "EXIT STATUS"), "info manual");
	CHECK_EQ(run_bin(NULL, "help", "nope", NULL), 2, "help nope -> 2");
	ret = run_bin("PMUCTX_DEVICE=/nonexistent/pmuctx", "info", NULL);
	CHECK_EQ(ret, 1, "info without the module -> 1");
	CHECK_HAS(cap_err, "sudo modprobe pmuctx", "... says how to load it");
	ret = run_bin("PMUCTX_DEVICE=/nonexistent/pmuctx", "stat", "true",
		      "--help", NULL);
	CHECK_EQ(ret, 1, "'stat CMD --help': --help belongs to CMD");
}

/* pmuctx list: the named events, sysfs PMU events, a pattern, the note */
static void test_list_cmd(void)
{
	char root[128];

	snprintf(root, sizeof(root), "%s/sysfs", dir);
	mkdir(root, 0755);
	t_sysfs_put(root, "armv8_pmuv3_0/type", "10\n");
	t_sysfs_put(root, "armv8_pmuv3_0/format/event", "config:0-15\n");
	t_sysfs_put(root, "armv8_pmuv3_0/events/cpu_cycles", "event=0x0011\n");
	t_sysfs_put(root, "armv8_pmuv3_0/events/br_mis_pred", "event=0x0010\n");
	t_sysfs_put(root, "armv8_pmuv3_0/events/br_mis_pred.scale", "1\n");
	t_sysfs_put(root, "software/type", "1\n");
	setenv("PMUCTX_SYSFS_ROOT", root, 1);

	fake.features &= ~PMUCTX_FEAT_HW_PMU;
	CHECK_EQ(run(&cmd_list, NULL), 0, "list -> 0");
	CHECK_HAS(cap_out, "cycles OR cpu-cycles", "list names cycles and its alias");
	CHECK_HAS(cap_out, "[Software event, in ns]", "task-clock's kind and unit");
	CHECK_HAS(cap_out, "rNNNN", "the raw form");
	CHECK_HAS(cap_out, "armv8_pmuv3_0/br_mis_pred/", "a sysfs PMU event");
	CHECK_HAS(cap_out, "Kernel PMU event: event=0x0010", "... with its terms");
	CHECK_LACKS(cap_out, "br_mis_pred.scale", "not the .scale file");
	CHECK_HAS(cap_out, "no hardware PMU", "the note: no hardware PMU");

	fake.features |= PMUCTX_FEAT_HW_PMU;
	CHECK_EQ(run(&cmd_list, "cache*", NULL), 0, "list 'cache*' -> 0");
	CHECK_HAS(cap_out, "cache-misses", "a pattern keeps the matches");
	CHECK_LACKS(cap_out, "instructions", "... and only them");
	CHECK_HAS(cap_out, "has a hardware PMU", "the note: a hardware PMU");
	fake.features &= ~PMUCTX_FEAT_HW_PMU;

	CHECK_EQ(run(&cmd_list, "br_mis", NULL), 0, "list br_mis -> 0");
	CHECK_HAS(cap_out, "armv8_pmuv3_0/br_mis_pred/", "a substring finds PMU events");
	CHECK_LACKS(cap_out, "cpu_cycles", "... and only them");

	CHECK_EQ(run(&cmd_list, "zzz", NULL), 0, "list zzz -> 0");
	CHECK_HAS(cap_out, "no event matches 'zzz'", "nothing matches: said");

	CHECK_EQ(run(&cmd_list, "a", "b", NULL), 2, "list a b -> usage error 2");
	CHECK_HAS(cap_err, "one PATTERN at most", "... saying why");
	unsetenv("PMUCTX_SYSFS_ROOT");
}

/* pmuctx top's usage errors (its rounds need the module: 67-top) */
static void test_top_usage(void)
{
	CHECK_EQ(run(&cmd_top, "-n", "0", NULL), 2, "top -n 0 -> 2");
	CHECK_HAS(cap_err, "-n wants a number of rounds", "... saying why");
	CHECK_EQ(run(&cmd_top, "-d", "0", NULL), 2, "top -d 0 -> 2");
	CHECK_EQ(run(&cmd_top, "-E", "x", NULL), 2, "top -E x -> 2");
	CHECK_EQ(run(&cmd_top, "-p", "-5", NULL), 2, "top -p -5 -> 2");
	CHECK_EQ(run(&cmd_top, "make", NULL), 2, "top CMD -> 2");
	CHECK_HAS(cap_err, "pmuctx record -- CMD", "... pointing at record");
	CHECK_EQ(run(&cmd_top, "--help", NULL), 0, "top --help -> 0");
	CHECK_HAS(cap_out, "perf top --stdio", "... its manual");
}

void test_cli(void)
{
	strcpy(dir, "/tmp/pmuctx-cli-XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	setenv("PMUCTX_DEVICE", FAKE_PATH, 1);
	fake_install();
	test_stat_command();
	test_stat_attach();
	test_stat_repeat();
	test_stat_interval();
	test_stat_usage();
	test_info_cmd();
	test_info_old_library();
	test_info_probes();
	test_list_cmd();
	test_top_usage();
	fake_remove();
	unsetenv("PMUCTX_DEVICE");
	test_binary();
	free(cap_out);
	free(cap_err);
	free(file_out);
	cap_out = cap_err = file_out = NULL;
	{
		char cmdline[128];

		snprintf(cmdline, sizeof(cmdline), "rm -rf %s", dir);
		if (system(cmdline))
			t_diag("cleanup of %s failed", dir);
	}
}
