// SPDX-License-Identifier: GPL-2.0
/*
 * Output formatters of "pmuctx stat".
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "stat-format.h"

#define NS_PER_SEC 1000000000.0

char *fmt_grouped_u64(char *buf, size_t len, uint64_t v)
{
	char digits[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (i = 0; i < n && o + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
	return buf;
}

char *fmt_msec(char *buf, size_t len, uint64_t ns)
{
	/* round to 10 us */
	uint64_t centi = ns / 10000 + (ns % 10000 >= 5000);
	char ip[32];

	fmt_grouped_u64(ip, sizeof(ip), centi / 100);
	snprintf(buf, len, "%s.%02u", ip, (unsigned int)(centi % 100));
	return buf;
}

const char *stat_event_name(unsigned int i, int id, char *buf, size_t len)
{
	/* as written: cycles:u, r003c (parse_events()) */
	const char *n = event_label(i, id);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "event-%d", id);
	return buf;
}

static bool is_ns_event(int id)
{
	const char *u = pmuctx_event_unit(id);

	return u && !strcmp(u, "ns");
}

static const char *event_unit(int id)
{
	const char *u = pmuctx_event_unit(id);

	return u ? u : "";
}

/* value of event @id in the totals, if the session counts it */
static bool find_value(const struct pmuctx_counts *c, int id, uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < c->nr_events; i++) {
		if (c->events[i] == id) {
			*v = c->values[i];
			return true;
		}
	}
	return false;
}

static void print_header(FILE *f, const struct stat_report *r)
{
	fprintf(f, "\n Performance counter stats for ");
	switch (r->kind) {
	case STAT_TARGET_COMMAND:
		fprintf(f, "'%s'", r->command ? r->command : "");
		break;
	case STAT_TARGET_PID:
		fprintf(f, "process id '%d'", (int)r->pid);
		break;
	case STAT_TARGET_SYSTEM:
		fprintf(f, "'system wide'");
		break;
	case STAT_TARGET_CGROUP:
		fprintf(f, "cgroup '%s'", r->cgroup ? r->cgroup : "");
		break;
	}
	if (r->runs > 1)
		fprintf(f, " (%u runs)", r->runs);
	fprintf(f, ":\n\n");
}

/* "# ratio unit" part of a human line; empty if nothing to say */
/*
 * How much of the monitored tasks' run time event @i was counting
 * (pmuctx_counts.time_running, libpmuctx 0.4): all of it (or a module
 * too old to say), part (*@pct set), or none.
 */
enum counted { COUNTED_ALL, COUNTED_PART, COUNTED_NONE };

static enum counted counted(const struct pmuctx_counts *c, unsigned int i,
			    double *pct)
{
	if (!c->time_slices || c->time_running[i] >= c->time_slices)
		return COUNTED_ALL;
	if (!c->time_running[i])
		return COUNTED_NONE;
	*pct = 100.0 * (double)c->time_running[i] / (double)c->time_slices;
	return COUNTED_PART;
}

static void ratio(char *buf, size_t len, const struct stat_report *r,
		  int id, uint64_t v)
{
	const struct pmuctx_counts *c = r->counts;
	uint64_t tc = 0, other = 0;
	double secs, rate;
	bool have_tc;

	buf[0] = '\0';
	have_tc = find_value(c, PMUCTX_EV_TASK_CLOCK, &tc) && tc;

	if (is_ns_event(id)) {
		if (r->elapsed_ns)
			snprintf(buf, len, "# %8.3f CPUs utilized",
				 (double)v / (double)r->elapsed_ns);
		return;
	}
	if (id == PMUCTX_EV_CYCLES && have_tc) {
		snprintf(buf, len, "# %8.3f GHz", (double)v / (double)tc);
		return;
	}
	if (id == PMUCTX_EV_INSTRUCTIONS &&
	    find_value(c, PMUCTX_EV_CYCLES, &other) && other) {
		snprintf(buf, len, "# %8.2f  insn per cycle",
			 (double)v / (double)other);
		return;
	}
	if (id == PMUCTX_EV_BRANCH_MISSES &&
	    find_value(c, PMUCTX_EV_BRANCHES, &other) && other) {
		snprintf(buf, len, "# %8.2f%% of all branches",
			 100.0 * (double)v / (double)other);
		return;
	}
	if (id == PMUCTX_EV_CACHE_MISSES &&
	    find_value(c, PMUCTX_EV_CACHE_REFERENCES, &other) && other) {
		snprintf(buf, len, "# %8.3f %% of all cache refs",
			 100.0 * (double)v / (double)other);
		return;
	}
	/* like perf: per second of task-clock, else of wall time */
	if (have_tc)
		secs = (double)tc / NS_PER_SEC;
	else if (r->elapsed_ns)
		secs = (double)r->elapsed_ns / NS_PER_SEC;
	else
		return;
	rate = (double)v / secs;
	if (rate >= 1e9)
		snprintf(buf, len, "# %8.3f G/sec", rate / 1e9);
	else if (rate >= 1e6)
		snprintf(buf, len, "# %8.3f M/sec", rate / 1e6);
	else if (rate >= 1e3)
		snprintf(buf, len, "# %8.3f K/sec", rate / 1e3);
	else
		snprintf(buf, len, "# %8.3f /sec", rate);
}

static void flags_string(char *buf, size_t len, uint32_t flags)
{
	size_t o = 0;
	unsigned int bit;

	buf[0] = '\0';
	for (bit = 0; bit < 32; bit++) {
		const char *n;
		char tmp[16];

		if (!(flags & (1U << bit)))
			continue;
		n = pmuctx_task_flag_name(bit);
		if (!n) {
			snprintf(tmp, sizeof(tmp), "bit%u", bit);
			n = tmp;
		}
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s",
				      o ? "," : "", n);
		if (o >= len)
			break;
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

static void print_task_table(FILE *f, const struct stat_report *r)
{
	const struct pmuctx_counts *c = r->counts;
	int width[PMUCTX_MAX_EVENTS];
	unsigned int i, t;

	fprintf(f, "\n Per-task counts (%u task%s", c->nr_tasks,
		c->nr_tasks == 1 ? "" : "s");
	if (c->tasks_unlisted)
		fprintf(f, "; %" PRIu64 " exited not listed",
			(uint64_t)c->tasks_unlisted);
	fprintf(f, "):\n\n");
	fprintf(f, "  %8s %8s %8s  %-16s %-20s", "PID", "TID", "PPID", "COMM",
		"FLAGS");
	for (i = 0; i < c->nr_events; i++) {
		char nb[64], hdr[72];

		stat_event_name(i, c->events[i], nb, sizeof(nb));
		snprintf(hdr, sizeof(hdr), "%s%s", nb,
			 is_ns_event(c->events[i]) ? "(msec)" : "");
		width[i] = (int)strlen(hdr) > 14 ? (int)strlen(hdr) : 14;
		fprintf(f, " %*s", width[i], hdr);
	}
	fputc('\n', f);
	for (t = 0; t < c->nr_tasks; t++) {
		const struct pmuctx_task_values *tv = &c->tasks[t];
		char comm[PMUCTX_COMM_LEN + 1], fl[64];

		memcpy(comm, tv->comm, PMUCTX_COMM_LEN);
		comm[PMUCTX_COMM_LEN] = '\0';
		for (i = 0; comm[i]; i++)
			if ((unsigned char)comm[i] < 0x20 || comm[i] == 0x7f)
				comm[i] = '?';
		flags_string(fl, sizeof(fl), tv->flags);
		fprintf(f, "  %8d %8d %8d  %-16s %-20s", tv->pid, tv->tid,
			tv->ppid, comm, fl);
		for (i = 0; i < c->nr_events; i++) {
			char vb[48];

			if (is_ns_event(c->events[i]))
				fmt_msec(vb, sizeof(vb), tv->values[i]);
			else
				fmt_grouped_u64(vb, sizeof(vb), tv->values[i]);
			fprintf(f, " %*s", width[i], vb);
		}
		fputc('\n', f);
	}
}

void stat_print_human(FILE *f, const struct stat_report *r)
{
	const struct pmuctx_counts *c = r->counts;
	unsigned int i;

	print_header(f, r);
	for (i = 0; i < c->nr_events; i++) {
		char vb[48], nb[32], rb[80];
		int id = c->events[i];
		double pct = 0;
		size_t o;

		stat_event_name(i, id, nb, sizeof(nb));
		ratio(rb, sizeof(rb), r, id, c->values[i]);
		switch (counted(c, i, &pct)) {
		case COUNTED_NONE:
			/* perf's words for a counter that never ran */
			fprintf(f, "%18s %-4s %s\n", "<not counted>",
				is_ns_event(id) ? "msec" : "", nb);
			continue;
		case COUNTED_PART:
			o = strlen(rb);
			snprintf(rb + o, sizeof(rb) - o, "  (%.2f%%)", pct);
			break;
		case COUNTED_ALL:
			break;
		}
		/* -r: perf's noise column, the mean's deviation */
		if (r->runs > 1) {
			o = strlen(rb);
			snprintf(rb + o, sizeof(rb) - o, "%*s( +-%6.2f%% )",
				 o < 32 ? (int)(32 - o) : 2, "",
				 r->stddev_pct[i]);
		}
		if (is_ns_event(id)) {
			fmt_msec(vb, sizeof(vb), c->values[i]);
			fprintf(f, "%18s %-4s %-25s %s\n", vb, "msec", nb, rb);
		} else {
			fmt_grouped_u64(vb, sizeof(vb), c->values[i]);
			fprintf(f, "%18s %-4s %-25s %s\n", vb, "", nb, rb);
		}
	}
	if (r->per_task)
		print_task_table(f, r);
	if (r->runs > 1)
		fprintf(f, "\n%18.9f +- %.9f seconds time elapsed  ( +-%6.2f%% "
			")\n", (double)r->elapsed_ns / NS_PER_SEC,
			r->elapsed_stddev_ns / NS_PER_SEC, r->elapsed_ns ?
			100.0 * r->elapsed_stddev_ns / (double)r->elapsed_ns :
			0.0);
	else
		fprintf(f, "\n%18.9f seconds time elapsed\n",
			(double)r->elapsed_ns / NS_PER_SEC);
	if (r->have_rusage)
		fprintf(f, "\n%18.9f seconds user\n%18.9f seconds sys\n",
			(double)r->user_ns / NS_PER_SEC,
			(double)r->sys_ns / NS_PER_SEC);
	fputc('\n', f);
	if (stat_print_notes(f, r, " "))
		fputc('\n', f);
}

const char *event_alias(int id)
{
	static const char *const aliases[PMUCTX_EV_MAX + 1] = {
		[PMUCTX_EV_TASK_CLOCK] = "task_clock",
		[PMUCTX_EV_CONTEXT_SWITCHES] = "cs",
		[PMUCTX_EV_CPU_MIGRATIONS] = "migrations",
		[PMUCTX_EV_PAGE_FAULTS] = "faults",
		[PMUCTX_EV_CYCLES] = "cpu-cycles",
		[PMUCTX_EV_BRANCHES] = "branch-instructions",
	};

	return id > 0 && id <= PMUCTX_EV_MAX ? aliases[id] : NULL;
}

void stat_print_csv(FILE *f, const struct stat_report *r, const char *sep)
{
	const struct pmuctx_counts *c = r->counts;
	unsigned int i, t;
	char nb[64];

	for (i = 0; i < c->nr_events; i++) {
		double pct;

		if (counted(c, i, &pct) == COUNTED_NONE)
			fprintf(f, "<not counted>");
		else
			fprintf(f, "%" PRIu64, (uint64_t)c->values[i]);
		fprintf(f, "%s%s%s%s", sep, event_unit(c->events[i]), sep,
			stat_event_name(i, c->events[i], nb, sizeof(nb)));
		/* -r: the mean's deviation, as perf's variance field */
		if (r->runs > 1)
			fprintf(f, "%s%.2f%%", sep, r->stddev_pct[i]);
		fputc('\n', f);
	}
	if (r->per_task) {
		for (t = 0; t < c->nr_tasks; t++) {
			const struct pmuctx_task_values *tv = &c->tasks[t];

			for (i = 0; i < c->nr_events; i++)
				fprintf(f, "%.*s-%d%s%" PRIu64 "%s%s%s%s\n",
					(int)strnlen(tv->comm,
						     PMUCTX_COMM_LEN),
					tv->comm, tv->tid, sep,
					(uint64_t)tv->values[i], sep,
					event_unit(c->events[i]), sep,
					stat_event_name(i, c->events[i], nb,
							sizeof(nb)));
		}
	}
	stat_print_notes(f, r, "# ");
}

#define NOTES_MAX 6
#define NOTE_LEN 320

/*
 * Context switches above the command's own rusage: the module counts a
 * task to its final switch-out, and for a thread other than a process's
 * main one the kernel has already added its switches to the process's
 * rusage by then (the thread reaps itself before it switches out for the
 * last time), so wait4() never includes that last one.  A threaded
 * program counts one more per exited thread (issue 30 item 5: 1.21-1.30x
 * for 500 short pthreads); a process's own final switch is in its
 * parent's rusage, so processes agree.  The note says so, with the
 * numbers, when there is a difference.
 */
static bool cs_note(const struct stat_report *r, char *out, size_t len)
{
	const struct pmuctx_counts *c = r->counts;
	__u64 ru = r->nvcsw + r->nivcsw;
	char d[32], rb[32], tb[32];

	/* the switches before the exec, where counting starts, are not in it */
	if (r->have_launch)
		ru = ru > r->launch_csw ? ru - r->launch_csw : 0;
	double pct;
	unsigned int i;

	if (!r->have_rusage)
		return false;
	for (i = 0; i < c->nr_events; i++)
		if (c->events[i] == PMUCTX_EV_CONTEXT_SWITCHES)
			break;
	if (i == c->nr_events || counted(c, i, &pct) != COUNTED_ALL ||
	    c->values[i] <= ru)
		return false;
	snprintf(out, len, "note: context-switches is %s above the command's "
		 "rusage%s (nvcsw + nivcsw = %s): it includes each exited "
		 "thread's final switch-out, which the kernel's rusage "
		 "leaves out for every thread but a process's main one "
		 "(%s task(s) exited)",
		 fmt_grouped_u64(d, sizeof(d), c->values[i] - ru),
		 r->have_launch ? " from its exec" : "",
		 fmt_grouped_u64(rb, sizeof(rb), ru),
		 fmt_grouped_u64(tb, sizeof(tb), c->tasks_exited));
	return true;
}

/* the notes, as text lines; returns how many */
static int notes(const struct stat_report *r, char out[NOTES_MAX][NOTE_LEN])
{
	const struct pmuctx_counts *c = r->counts;
	unsigned int i, part = 0, none = 0;
	double pct;
	int n = 0;

	for (i = 0; i < c->nr_events; i++) {
		switch (counted(c, i, &pct)) {
		case COUNTED_PART:
			part++;
			break;
		case COUNTED_NONE:
			none++;
			break;
		case COUNTED_ALL:
			break;
		}
	}
	if (part || none)
		snprintf(out[n++], NOTE_LEN, "note: %u event(s) did not count "
			 "for all of the monitored tasks' run time (a "
			 "hardware counter without a PMU slot, or a CPU just "
			 "back online); %s%s%s", part + none,
			 part ? "a percentage after a value is the share of "
			 "the time it counted, and the value is not scaled" :
			 "", part && none ? "; " : "",
			 none ? "<not counted>: no count at all" : "");

	if (c->priv_exec_stopped)
		snprintf(out[n++], NOTE_LEN, "note: counting stopped for %" PRIu64
			 " task(s) at a privilege-raising exec "
			 "(setuid/setgid/file caps); what they ran after that "
			 "exec is not counted", (uint64_t)c->priv_exec_stopped);
	if (c->tasks_dropped)
		snprintf(out[n++], NOTE_LEN, "warning: %" PRIu64 " task(s) or time "
			 "slices could not be tracked (module max_tasks cap or "
			 "entry pool exhausted): the counts are INCOMPLETE; see "
			 "'pmuctx info'", (uint64_t)c->tasks_dropped);
	if (cs_note(r, out[n], NOTE_LEN))
		n++;
	if (r->per_task && c->tasks_unlisted)
		snprintf(out[n++], NOTE_LEN, "note: %" PRIu64 " exited task(s) are "
			 "not listed per task (beyond the session's "
			 "max_exited); they are included in the totals",
			 (uint64_t)c->tasks_unlisted);
	return n;
}

int stat_print_notes(FILE *f, const struct stat_report *r, const char *prefix)
{
	char text[NOTES_MAX][NOTE_LEN];
	int i, n = notes(r, text);

	for (i = 0; i < n; i++)
		fprintf(f, "%s%s\n", prefix, text[i]);
	return n;
}

static void json_values(struct json *j, const struct pmuctx_counts *c,
			const __u64 *values)
{
	unsigned int i;
	char nb[64];

	json_begin_object(j);
	for (i = 0; i < c->nr_events; i++)
		json_kv_u64(j, stat_event_name(i, c->events[i], nb, sizeof(nb)),
			    values[i]);
	json_end_object(j);
}

void stat_print_json(FILE *f, const struct stat_report *r)
{
	static const char *const kinds[] = {
		[STAT_TARGET_COMMAND] = "command",
		[STAT_TARGET_PID] = "pid",
		[STAT_TARGET_SYSTEM] = "system",
		[STAT_TARGET_CGROUP] = "cgroup",
	};
	const struct pmuctx_counts *c = r->counts;
	char text[NOTES_MAX][NOTE_LEN], nb[32];
	struct json j;
	unsigned int i, t;
	int n, k;

	json_init(&j, f);
	json_begin_object(&j);
	json_kv_string(&j, "command", r->command);
	json_kv_string(&j, "target", kinds[r->kind]);
	if (r->kind == STAT_TARGET_PID)
		json_kv_i64(&j, "pid", r->pid);
	if (r->kind == STAT_TARGET_CGROUP)
		json_kv_string(&j, "cgroup", r->cgroup);
	json_key(&j, "events");
	json_begin_array(&j);
	for (i = 0; i < c->nr_events; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "event",
			       stat_event_name(i, c->events[i], nb, sizeof(nb)));
		json_kv_u64(&j, "value", c->values[i]);
		json_kv_string(&j, "unit", event_unit(c->events[i]));
		json_kv_u64(&j, "time_running_ns", c->time_running[i]);
		if (r->runs > 1) {
			json_key(&j, "stddev_pct");
			json_double(&j, r->stddev_pct[i]);
		}
		json_end_object(&j);
	}
	json_end_array(&j);
	json_kv_u64(&j, "elapsed_ns", r->elapsed_ns);
	if (r->runs > 1) {
		json_kv_u64(&j, "runs", r->runs);
		json_key(&j, "elapsed_stddev_ns");
		json_double(&j, r->elapsed_stddev_ns);
	}
	json_kv_u64(&j, "time_enabled_ns", c->time_enabled);
	json_kv_u64(&j, "time_slices_ns", c->time_slices);
	json_kv_u64(&j, "tasks_seen", c->tasks_seen);
	json_kv_u64(&j, "tasks_exited", c->tasks_exited);
	json_kv_u64(&j, "tasks_dropped", c->tasks_dropped);
	json_kv_u64(&j, "priv_exec_stopped", c->priv_exec_stopped);
	json_kv_u64(&j, "tasks_unlisted", c->tasks_unlisted);
	if (r->have_rusage) {
		json_kv_u64(&j, "user_ns", r->user_ns);
		json_kv_u64(&j, "sys_ns", r->sys_ns);
		json_kv_u64(&j, "nvcsw", r->nvcsw);
		json_kv_u64(&j, "nivcsw", r->nivcsw);
	}
	if (r->have_launch) {
		json_kv_u64(&j, "launch_ns", r->launch_ns);
		json_kv_u64(&j, "launch_csw", r->launch_csw);
	}
	if (r->have_exit_status)
		json_kv_i64(&j, "exit_status", r->exit_status);
	if (r->per_task) {
		json_key(&j, "tasks");
		json_begin_array(&j);
		for (t = 0; t < c->nr_tasks; t++) {
			const struct pmuctx_task_values *tv = &c->tasks[t];
			unsigned int bit;

			json_begin_object(&j);
			json_kv_i64(&j, "pid", tv->pid);
			json_kv_i64(&j, "tid", tv->tid);
			json_kv_i64(&j, "ppid", tv->ppid);
			json_key(&j, "comm");
			json_string_n(&j, tv->comm, PMUCTX_COMM_LEN);
			json_key(&j, "flags");
			json_begin_array(&j);
			for (bit = 0; bit < 32; bit++) {
				const char *fname;

				if (!(tv->flags & (1U << bit)))
					continue;
				fname = pmuctx_task_flag_name(bit);
				if (fname) {
					json_string(&j, fname);
				} else {
					snprintf(nb, sizeof(nb), "bit%u", bit);
					json_string(&j, nb);
				}
			}
			json_end_array(&j);
			json_key(&j, "values");
			json_values(&j, c, tv->values);
			json_key(&j, "children");
			json_values(&j, c, tv->children);
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	n = notes(r, text);
	json_key(&j, "notes");
	json_begin_array(&j);
	for (k = 0; k < n; k++)
		json_string(&j, text[k]);
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', f);
}
