// SPDX-License-Identifier: GPL-2.0
/*
 * Output of "pmuctx stat" (human, -x, --json) and "pmuctx info".
 */
#include <stdlib.h>
#include <unistd.h>

#include <pmuctx.h>

#include "../../tools/info-format.h"
#include "../../tools/stat-format.h"
#include "test.h"

static char *capture_buf;
static size_t capture_len;

static FILE *cap_open(void)
{
	free(capture_buf);
	capture_buf = NULL;
	return open_memstream(&capture_buf, &capture_len);
}

static const char *cap_close(FILE *f)
{
	fclose(f);
	return capture_buf;
}

/* what one printer writes for one report, captured */
static const char *human_of(const struct stat_report *r)
{
	FILE *f = cap_open();

	stat_print_human(f, r);
	return cap_close(f);
}

static const char *csv_of(const struct stat_report *r, const char *sep)
{
	FILE *f = cap_open();

	stat_print_csv(f, r, sep);
	return cap_close(f);
}

static const char *json_of(const struct stat_report *r)
{
	FILE *f = cap_open();

	stat_print_json(f, r);
	return cap_close(f);
}

static const char *info_human_of(const struct pmuctx_info *info,
				 const struct info_params *ps)
{
	FILE *f = cap_open();

	info_print_human(f, info, ps);
	return cap_close(f);
}

static const char *info_json_of(const struct pmuctx_info *info,
				const struct info_params *ps)
{
	FILE *f = cap_open();

	info_print_json(f, info, ps);
	return cap_close(f);
}

static struct pmuctx_task_values tasks[3];

static void make_counts(struct pmuctx_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->nr_events = 4;
	c->events[0] = PMUCTX_EV_TASK_CLOCK;
	c->events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
	c->events[2] = PMUCTX_EV_CPU_MIGRATIONS;
	c->events[3] = PMUCTX_EV_PAGE_FAULTS;
	c->values[0] = 1234567890;	/* 1,234.57 msec */
	c->values[1] = 4321;
	c->values[2] = 0;
	c->values[3] = 1300000;
	c->time_enabled = 2000000000;
	c->tasks_seen = 3;
	c->tasks_exited = 2;

	memset(tasks, 0, sizeof(tasks));
	tasks[0].pid = 100;
	tasks[0].tid = 100;
	memcpy(tasks[0].comm, "make", 4);
	tasks[0].values[0] = 1000000;
	tasks[1].pid = 101;
	tasks[1].tid = 101;
	tasks[1].ppid = 100;
	tasks[1].flags = PMUCTX_TASK_EXITED | PMUCTX_TASK_INHERITED;
	memcpy(tasks[1].comm, "cc1", 3);
	tasks[1].values[1] = 7;
	tasks[2].pid = 102;
	tasks[2].tid = 103;
	tasks[2].ppid = 100;
	tasks[2].flags = PMUCTX_TASK_PRIV_EXEC;
	/* a full 16-byte comm without NUL, with JSON-hostile bytes */
	memcpy(tasks[2].comm, "a\"b\\c\nd\xff\x01" "efghijk", 16);
}

static void base_report(struct stat_report *r, struct pmuctx_counts *c)
{
	memset(r, 0, sizeof(*r));
	r->kind = STAT_TARGET_COMMAND;
	r->command = "make -j4";
	r->counts = c;
	r->elapsed_ns = 2000000000;
	r->have_rusage = true;
	r->user_ns = 1000000000;
	r->sys_ns = 250000000;
	r->nvcsw = 4000;	/* the 4,321 context switches of the counts */
	r->nivcsw = 321;
	r->have_exit_status = true;
}

/*
 * Issue 30 item 5: context switches above the command's rusage (a
 * threaded program: each exited thread's final switch-out is counted,
 * rusage never includes it) are explained, not left to look like an
 * error; equal counts say nothing.
 */
static void test_cs_vs_rusage(void)
{
	struct pmuctx_counts c;
	struct stat_report r;
	const char *out;

	make_counts(&c);
	base_report(&r, &c);
	CHECK_LACKS(human_of(&r), "final switch",
		    "context switches = rusage: no note");
	c.values[1] = 5321;		/* 1,000 threads exited */
	c.tasks_exited = 1001;
	out = human_of(&r);
	CHECK_HAS(out, "note: context-switches is 1,000 above the command's "
		  "rusage (nvcsw + nivcsw = 4,321)",
		  "human: the difference from rusage, and rusage's count");
	CHECK_HAS(out, "each exited thread's final switch-out",
		  "human: why (the exited threads' final switch-outs)");
	CHECK_HAS(out, "1,001 task(s) exited", "human: how many exited");
	CHECK_HAS(json_of(&r), "final switch-out", "json: the note too");
	r.have_rusage = false;
	CHECK_LACKS(human_of(&r), "final switch", "no rusage (-p, -a): no "
		    "note");
}

static void test_numbers(void)
{
	char b[64];

	CHECK(!strcmp(fmt_grouped_u64(b, sizeof(b), 0), "0"), "group 0");
	CHECK(!strcmp(fmt_grouped_u64(b, sizeof(b), 999), "999"),
	      "group 999");
	CHECK(!strcmp(fmt_grouped_u64(b, sizeof(b), 1000), "1,000"),
	      "group 1,000");
	CHECK(!strcmp(fmt_grouped_u64(b, sizeof(b), 1234567), "1,234,567"),
	      "group 1,234,567");
	CHECK(!strcmp(fmt_grouped_u64(b, sizeof(b), UINT64_MAX),
		      "18,446,744,073,709,551,615"), "group UINT64_MAX");
	CHECK(!strcmp(fmt_msec(b, sizeof(b), 1234567890), "1,234.57"),
	      "msec of 1234567890 ns");
	CHECK(!strcmp(fmt_msec(b, sizeof(b), 4999), "0.00") &&
	      !strcmp(fmt_msec(b, sizeof(b), 5000), "0.01") &&
	      !strcmp(fmt_msec(b, sizeof(b), 999995000), "1,000.00"),
	      "msec rounding carries");
}

static void test_human(void)
{
	struct pmuctx_counts c;
	struct stat_report r;
	const char *out;

	make_counts(&c);
	base_report(&r, &c);
	out = human_of(&r);
	CHECK_HAS(out, "\n Performance counter stats for 'make -j4':\n\n",
		  "human: perf-style header");
	CHECK_HAS(out, "\n          1,234.57 msec task-clock ",
		  "human: task-clock in msec, right-aligned to 18");
	CHECK_HAS(out, "#    0.617 CPUs utilized",
		  "human: CPUs utilized = task-clock / elapsed");
	CHECK_HAS(out, "\n             4,321      context-switches ",
		  "human: count right-aligned with separators");
	CHECK_HAS(out, "#    3.500 K/sec", "human: K/sec rate per "
		  "task-clock second");
	CHECK_HAS(out, "#    0.000 /sec", "human: /sec rate for zero");
	CHECK_HAS(out, "#    1.053 M/sec", "human: M/sec rate");
	CHECK_HAS(out, "\n       2.000000000 seconds time elapsed\n",
		  "human: elapsed seconds");
	CHECK_HAS(out, "       1.000000000 seconds user\n"
		  "       0.250000000 seconds sys\n", "human: user and sys");
	CHECK_LACKS(out, "note:", "human: no notes when nothing to say");
	CHECK_LACKS(out, "Per-task", "human: no task table by default");

	r.kind = STAT_TARGET_SYSTEM;
	CHECK_HAS(human_of(&r), " Performance counter stats for "
		  "'system wide':", "human: system-wide header");
	r.kind = STAT_TARGET_PID;
	r.pid = 4242;
	r.have_rusage = false;
	out = human_of(&r);
	CHECK_HAS(out, " Performance counter stats for process id '4242':",
		  "human: process id header");
	CHECK_LACKS(out, "seconds user", "human: no user/sys without rusage");
	r.kind = STAT_TARGET_CGROUP;
	r.cgroup = "/sys/fs/cgroup/x";
	CHECK_HAS(human_of(&r), "cgroup '/sys/fs/cgroup/x'",
		  "human: cgroup header");

	/* notes and warnings */
	base_report(&r, &c);
	c.priv_exec_stopped = 2;
	c.tasks_dropped = 5;
	out = human_of(&r);
	CHECK_HAS(out, "note: counting stopped for 2 task(s) at a "
		  "privilege-raising exec (setuid/setgid/file caps)",
		  "human: privilege-raising exec note");
	CHECK_HAS(out, "warning: 5 task(s)", "human: dropped warning");
	CHECK_HAS(out, "INCOMPLETE", "human: says counts are incomplete");

	/* per task */
	c.priv_exec_stopped = 0;
	c.tasks_dropped = 0;
	c.nr_tasks = 3;
	c.tasks = tasks;
	c.tasks_unlisted = 9;
	r.per_task = true;
	out = human_of(&r);
	CHECK_HAS(out, "Per-task counts (3 tasks; 9 exited not listed)",
		  "human: per-task table title");
	CHECK_HAS(out, "PID      TID     PPID  COMM",
		  "human: per-task column headers");
	CHECK_HAS(out, "task-clock(msec)", "human: ns column in msec");
	CHECK_HAS(out, "     101      101      100  cc1              "
		  "exited,inherited", "human: task row with flags");
	CHECK_HAS(out, "a\"b\\c?d", "human: control chars in comm are "
		  "replaced");
	CHECK_HAS(out, "note: 9 exited task(s) are not listed",
		  "human: unlisted note");

	/* hardware ratios */
	memset(&c, 0, sizeof(c));
	c.nr_events = 5;
	c.events[0] = PMUCTX_EV_TASK_CLOCK;
	c.events[1] = PMUCTX_EV_CYCLES;
	c.events[2] = PMUCTX_EV_INSTRUCTIONS;
	c.events[3] = PMUCTX_EV_BRANCHES;
	c.events[4] = PMUCTX_EV_BRANCH_MISSES;
	c.values[0] = 1000000000;
	c.values[1] = 3000000000ULL;
	c.values[2] = 6000000000ULL;
	c.values[3] = 1000;
	c.values[4] = 25;
	base_report(&r, &c);
	out = human_of(&r);
	CHECK_HAS(out, "#    3.000 GHz", "human: cycles in GHz");
	CHECK_HAS(out, "#     2.00  insn per cycle", "human: IPC");
	CHECK_HAS(out, "#     2.50% of all branches", "human: miss ratio");
	CHECK_LACKS(out, "did not count", "human: no running-time note "
		    "from a module that does not say (time_slices 0)");

	/* counters that did not count all the time (READ VER1) */
	c.time_slices = 1000000000;
	c.time_running[0] = 1000000000;
	c.time_running[1] = 732000000;
	c.time_running[2] = 1000000000;
	c.time_running[3] = 0;
	c.time_running[4] = 1000000000;
	c.values[3] = 0;
	out = human_of(&r);
	CHECK_HAS(out, "insn per cycle", "human: ratios stay with partial counts");
	CHECK_HAS(out, "GHz  (73.20%)", "human: share of the run time counted "
		  "after the value's ratio");
	CHECK_HAS(out, "     <not counted>      branches\n",
		  "human: <not counted> for an event that never counted");
	CHECK_LACKS(out, "(100.00%)", "human: no share for full counts");
	CHECK_HAS(out, "note: 2 event(s) did not count for all of the "
		  "monitored tasks' run time", "human: a note explains both");
	CHECK_HAS(out, "not scaled", "human: the note says values are not "
		  "scaled");
	out = csv_of(&r, ",");
	CHECK_HAS(out, "\n<not counted>,,branches\n",
		  "-x: <not counted> in the value field, as perf");
	CHECK_HAS(out, "\n3000000000,,cycles\n", "-x: partial count raw");
	CHECK_HAS(out, "# note: 2 event(s) did not count", "-x: the note");
	out = json_of(&r);
	CHECK_HAS(out, "\"time_slices_ns\":1000000000",
		  "json: time_slices_ns");
	CHECK_HAS(out, "\"unit\":\"\",\"time_running_ns\":732000000}",
		  "json: time_running_ns per event");
}

static void test_csv(void)
{
	struct pmuctx_counts c;
	struct stat_report r;
	const char *out;

	make_counts(&c);
	base_report(&r, &c);
	out = csv_of(&r, ",");
	CHECK(!strcmp(out, "1234567890,ns,task-clock\n"
			   "4321,,context-switches\n"
			   "0,,cpu-migrations\n"
			   "1300000,,page-faults\n"),
	      "-x,: exactly VALUE,UNIT,EVENT lines with raw integers");
	if (strcmp(out, "1234567890,ns,task-clock\n4321,,context-switches\n"
		   "0,,cpu-migrations\n1300000,,page-faults\n"))
		t_diag("got:\n%s", out);

	out = csv_of(&r, ";;");
	CHECK_HAS(out, "1234567890;;ns;;task-clock\n4321;;;;context-switches",
		  "-x with a multi-character separator");

	c.priv_exec_stopped = 1;
	c.nr_tasks = 2;
	c.tasks = tasks;
	r.per_task = true;
	out = csv_of(&r, ",");
	CHECK_HAS(out, "make-100,1000000,ns,task-clock\n",
		  "-x per task: COMM-TID,VALUE,UNIT,EVENT");
	CHECK_HAS(out, "cc1-101,7,,context-switches\n",
		  "-x per task: second task");
	CHECK_HAS(out, "\n# note: counting stopped for 1 task(s)",
		  "-x: notes are '#' lines");
}

static void test_json(void)
{
	struct pmuctx_counts c;
	struct stat_report r;
	const char *out, *at;

	make_counts(&c);
	base_report(&r, &c);
	r.exit_status = 3;
	out = json_of(&r);
	CHECK(json_validate(out, &at) == 0, "--json: valid JSON");
	CHECK(strchr(out, '\n') == out + strlen(out) - 1,
	      "--json: one line");
	CHECK_HAS(out, "{\"command\":\"make -j4\",", "--json: command");
	CHECK_HAS(out, "\"events\":[{\"event\":\"task-clock\","
		  "\"value\":1234567890,\"unit\":\"ns\","
		  "\"time_running_ns\":0},{\"event\":"
		  "\"context-switches\",\"value\":4321,\"unit\":\"\","
		  "\"time_running_ns\":0}",
		  "--json: events with value, unit and running time");
	CHECK_HAS(out, "\"elapsed_ns\":2000000000", "--json: elapsed_ns");
	CHECK_HAS(out, "\"tasks_seen\":3,\"tasks_exited\":2,"
		  "\"tasks_dropped\":0,\"priv_exec_stopped\":0",
		  "--json: task statistics");
	CHECK_HAS(out, "\"exit_status\":3", "--json: exit status");
	CHECK_LACKS(out, "\"tasks\":", "--json: no tasks without --per-task");

	c.nr_tasks = 3;
	c.tasks = tasks;
	c.tasks_dropped = 1;
	r.per_task = true;
	r.kind = STAT_TARGET_PID;
	r.command = NULL;
	r.pid = 77;
	r.have_rusage = false;
	r.have_exit_status = false;
	out = json_of(&r);
	CHECK(json_validate(out, &at) == 0,
	      "--json --per-task: valid JSON despite a hostile comm");
	if (json_validate(out, &at))
		t_diag("invalid at: %s", at);
	CHECK_HAS(out, "\"command\":null,\"target\":\"pid\",\"pid\":77",
		  "--json -p: command null, target pid");
	CHECK_HAS(out, "\"tasks\":[{\"pid\":100,\"tid\":100,\"ppid\":0,"
		  "\"comm\":\"make\",\"flags\":[],\"values\":{\"task-clock\":"
		  "1000000,", "--json: per-task object");
	CHECK_HAS(out, "\"flags\":[\"exited\",\"inherited\"]",
		  "--json: flag names");
	CHECK_HAS(out, "\"comm\":\"a\\\"b\\\\c\\nd\\ufffd\\u0001efghijk\"",
		  "--json: comm escaped, 16 bytes without NUL handled");
	CHECK_HAS(out, "\"notes\":[\"warning: 1 task(s)",
		  "--json: notes array carries the warning");

	/* python3's json module, when present, agrees */
	if (!system("command -v python3 >/dev/null 2>&1")) {
		FILE *p = popen("python3 -c 'import json,sys; "
				"d=json.load(sys.stdin); "
				"sys.exit(0 if d[\"tasks\"][2][\"flags\"]"
				"==[\"priv-exec\"] else 1)'", "w");

		if (p) {
			fputs(out, p);
			CHECK_EQ(pclose(p), 0, "--json: python3 json.load "
				 "accepts it");
		}
	}
}

/* The limits section, from a fake /sys/module/pmuctx/parameters. */
static void test_info_params(struct pmuctx_info *info)
{
	char dir[] = "/tmp/pmuctx-params.XXXXXX", path[320];
	struct info_params ps;
	const char *out, *at;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "info params: mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/sample_budget", dir);
	f = fopen(path, "w");
	fputs("100000\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sample_budget_now", dir);
	f = fopen(path, "w");
	fputs("5900\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/max_tasks", dir);
	f = fopen(path, "w");
	fputs("junk\n", f);
	fclose(f);
	info_read_params(&ps, dir);
	CHECK(ps.n == 2 && !strcmp(ps.p[0].name, "sample_budget") &&
	      ps.p[0].value == 100000 && ps.p[1].value == 5900,
	      "info params: the present, numeric parameters, in order (%u)",
	      ps.n);
	info->size = sizeof(*info);
	out = info_human_of(info, &ps);
	CHECK_HAS(out, "limits (module parameters):\n",
		  "info: a limits section");
	CHECK_HAS(out, "  sample_budget          100,000 samples/s, all sessions together\n",
		  "info: the budget, grouped, with its unit");
	CHECK(!strstr(out, "max_tasks  "), "info: an unreadable value is left out");
	out = info_json_of(info, &ps);
	CHECK(!json_validate(out, &at), "info --json with limits: valid JSON");
	CHECK_HAS(out, "\"limits\":{\"sample_budget\":100000,\"sample_budget_now\":5900}",
		  "info --json: the limits object");
	unlink(path);
	snprintf(path, sizeof(path), "%s/sample_budget", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sample_budget_now", dir);
	unlink(path);
	rmdir(dir);
}

static void test_info_format(void)
{
	struct pmuctx_info info;
	const char *out, *at;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.abi_version = PMUCTX_ABI_VERSION;
	info.nr_cpus = 8;
	info.features = PMUCTX_FEAT_COUNTING | PMUCTX_FEAT_INHERIT |
			PMUCTX_FEAT_SELFTEST;
	strcpy(info.version, "0.1.0");
	info.tasks_tracked = 12;
	info.store_bytes = 123456;
	info.max_tasks = 65536;
	info.selftest_checks = 99;
	out = info_human_of(&info, NULL);
	CHECK_HAS(out, "pmuctx module 0.1.0\n", "info: module version");
	CHECK_HAS(out, "module 1, library 1", "info: both ABI versions");
	CHECK_HAS(out, "counting inherit selftest", "info: features by name");
	CHECK_HAS(out, "no hardware PMU", "info: says there is no PMU");
	CHECK_HAS(out, "store bytes:           123,456",
		  "info: store bytes grouped");
	CHECK_HAS(out, "max tasks:             65,536", "info: max tasks");
	CHECK_HAS(out, "checks:                99", "info: selftest checks");
	out = info_json_of(&info, NULL);
	CHECK(!json_validate(out, &at), "info --json: valid JSON");
	CHECK_HAS(out, "\"features\":[\"counting\",\"inherit\",\"selftest\"]",
		  "info --json: features array");
	CHECK_HAS(out, "\"selftest_checks\":99", "info --json: statistics");

	info.size = PMUCTX_INFO_SIZE_VER0;
	info.abi_version = 0;
	out = info_human_of(&info, NULL);
	CHECK_HAS(out, "[MISMATCH]", "info: ABI mismatch is flagged");
	CHECK_HAS(out, "only the first 72 bytes", "info: older module noted");
	out = info_json_of(&info, NULL);
	CHECK(!json_validate(out, NULL) && !strstr(out, "max_tasks"),
	      "info --json of an older module: valid, no VER1 keys");
	test_info_params(&info);
}

void test_format(void)
{
	test_numbers();
	test_human();
	test_cs_vs_rusage();
	test_csv();
	test_json();
	test_info_format();
	free(capture_buf);
	capture_buf = NULL;
}
