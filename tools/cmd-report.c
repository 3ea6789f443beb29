// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: print a file written by pmuctx record: the records in
 * time order, lost counts and per-task summaries, as text, JSON or lines
 * in the shape of perf script's; and for a sampling recording the
 * profile (tools/profile): stitched and symbolized callchains as folded
 * stacks, a pprof profile or a perf-report-like table.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "json.h"
#include "pmfile.h"
#include "profile/profile.h"

#define CMD "report"

static const char report_help[] =
"NAME\n"
"    pmuctx report - print a recording made by pmuctx record\n"
"\n"
"SYNOPSIS\n"
"    pmuctx report [-i FILE] [--format text|json|perf-script] [--partial]\n"
"                  [--summary]\n"
"    pmuctx report [-i FILE] --format folded|pprof|text [-o OUT]\n"
"                  [--weight samples|period] [--kallsyms FILE]\n"
"    pmuctx report [-i FILE] --stitch-stats\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE (written by pmuctx record; docs/FILE-FORMAT.md) and checks\n"
"    it: a file that is not a pmuctx recording, has an unknown format\n"
"    version or is truncated is refused with a message saying what is\n"
"    wrong. Then it prints:\n"
"\n"
"      - the recording's header: command, host, kernel, start time, mode,\n"
"        buffer size, records, events, trigger;\n"
"      - every window (one per snapshot in flight-recorder mode, one\n"
"        stream in normal mode): why it was taken, and per CPU the time\n"
"        span its records cover, how many it holds, how many the kernel\n"
"        overwrote since the previous window (flight recorder) and how\n"
"        many it lost; for a trigger window the task and slice that\n"
"        fired it; then its records in time order across CPUs;\n"
"      - a per-task summary: for each task, the time slices seen in\n"
"        switch records and the sum of their per-slice counts, and the\n"
"        totals of its exit record. Records present in several\n"
"        (overlapping) windows are counted once. The loss total, in\n"
"        every format, is the kernel's count (the windows' per-CPU\n"
"        counters), which includes LOST records that never reached the\n"
"        file.\n"
"\n"
"    A recording with samples (pmuctx record samples by default) is a\n"
"    profile: each SAMPLE of a -g recording is joined with its deferred\n"
"    user callchain (the USER_CALLCHAIN record of the same pid, tid and\n"
"    cookie, on whatever CPU and in whatever window it came), and every\n"
"    frame is named (a sample without -g has one: its IP): kernel addresses\n"
"    with /proc/kallsyms (or --kallsyms), user addresses with the memory\n"
"    maps stored in FILE and the ELF files they name (symbol tables and\n"
"    debug files, with elfutils); a frame in a PLT stub is NAME@plt, as\n"
"    perf names it. A frame without a symbol is printed as\n"
"    '[unknown] (FILE+0xADDRESS)', the address in the file. Samples whose\n"
"    user callchain never came (the task exited or was killed in the\n"
"    kernel, the record was lost) keep their kernel frames only.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The recording; '-' reads standard input. Default: pmuctx.data.\n"
"\n"
"    --format text|json|perf-script|folded|pprof\n"
"        text (default): the above, for people. With samples: the header,\n"
"          the windows' counts, then the functions as perf report --stdio\n"
"          shows them: Children (the share of the weight with the\n"
"          function anywhere in the stack) and Self (at the top), per\n"
"          command, shared object and symbol ([k] kernel, [.] user); a\n"
"          '# Weight:' line says what is counted.\n"
"        folded: a comment line '# pmuctx folded stacks, weight: ...',\n"
"          then one line per distinct stack, 'comm;outer;...;inner N',\n"
"          user frames outermost first then kernel frames, N the weight\n"
"          (ns of CPU time by default, see --weight): the input of\n"
"          flamegraph.pl and speedscope.\n"
"        pprof: a gzip'd profile.proto (go tool pprof, pprof -http,\n"
"          speedscope), sample types samples/count and cpu/nanoseconds,\n"
"          labels comm, pid and tid; binary: give -o OUT.\n"
"        json: one JSON object: {\"file\", \"format_version\", \"command\",\n"
"          \"hostname\", \"kernel\", \"tool\", \"module\", \"nr_cpus\", \"mode\",\n"
"          \"ring_pages\", \"page_size\", \"records_mask\": [...], \"events\":\n"
"          [...], \"trigger\": {\"event\", \"threshold\"} or null,\n"
"          \"start_monotonic_ns\", \"start_realtime_ns\", \"complete\",\n"
"          \"exit_status\", \"lost_total\", \"windows\": [{\"index\", \"reason\",\n"
"          \"time_ns\", \"requester\", \"complete\", \"lost\", \"lost_per_cpu\":\n"
"          [...], \"overwritten\", \"cpus\": [{\"cpu\", \"first_ns\", \"last_ns\",\n"
"          \"records\", \"overwritten\", \"lost\"}], \"fired_by\" (trigger\n"
"          windows: {\"pid\", \"tid\", \"comm\", \"cpu\", \"start_ns\",\n"
"          \"end_ns\", \"value\"} or null),\n"
"          \"records\": [{\"type\", \"time_ns\", \"cpu\", \"pid\", \"tid\", ...}]}],\n"
"          \"tasks\": [{\"pid\", \"tid\", \"comm\", \"slices\", \"values\": {EV: N},\n"
"          \"exit\": {EV: N} or null}], \"sampling\": {\"freq\", \"flags\",\n"
"          \"max_stack\", \"call_graph\"} or null, \"maps\": [{\"pid\",\n"
"          \"time_ns\", \"reason\", \"text\"}]}\n"
"        perf-script: one line per record of all windows merged in time\n"
"          order (duplicates dropped), in the shape of 'perf script'\n"
"          output, e.g.\n"
"            burn  1234 [001] 5678.123456: pmuctx:sched_switch: \\\n"
"              prev_comm=burn prev_pid=1234 prev_state=R+ ==> \\\n"
"              next_comm=swapper/1 next_pid=0\n"
"          and pmuctx:sched_process_fork, pmuctx:sched_process_exec,\n"
"          pmuctx:sched_process_exit (not in a recording with samples:\n"
"          side-band, as perf script without --show-task-events) and\n"
"          pmuctx:user lines; lost records are counted on standard\n"
"          error.  A sample is printed as perf script prints one\n"
"          recorded with -g: a header line, the comm (the thread's name)\n"
"          first,\n"
"            burn  1234/1236  [001] 5678.123456:    1001001 cpu-clock: \n"
"          (pid/tid, [cpu], time, period in ns, the event's name, the\n"
"          same for every sample as perf prints it, and ':'), then its\n"
"          callchain innermost first, kernel then user, stitched with its\n"
"          deferred user callchain and symbolized, one frame a line\n"
"            <TAB>          401136 f3+0x16 (/usr/bin/burn)\n"
"          and a blank line: what stackcollapse-perf.pl and other perf\n"
"          script readers take. Whether a sample interrupted the kernel\n"
"          or user space shows in its frames, as in perf's: kernel\n"
"          frames are in ([kernel.kallsyms]).\n"
"\n"
"    --partial\n"
"        Read a file cut short (the recorder was killed, the disk filled\n"
"        up): use its complete sections and say on standard error what\n"
"        was dropped.\n"
"\n"
"    --summary\n"
"        text: the header, the windows' counts and the per-task summary,\n"
"        without the records.\n"
"\n"
"    -o, --output OUT\n"
"        Write the report to OUT instead of standard output.\n"
"\n"
"    --weight samples|period\n"
"        folded and text: weigh each sample by its period (default, as\n"
"        perf does): the ns of CPU time it stands for (events for a\n"
"        sampled counter); or count samples. The output's header says\n"
"        which.\n"
"\n"
"    --stitch-stats\n"
"        How the samples' callchains were joined: samples (immediate,\n"
"        deferred), stitched, unresolved, user callchain records and how\n"
"        many were shared by more than one sample; for --call-graph\n"
"        dwarf recordings the USER_STACK records too (bytes, frames\n"
"        unwound, unwind time per record). On standard error when\n"
"        combined with --format.\n"
"\n"
"    --kallsyms FILE\n"
"        Kernel symbols from FILE (the format of /proc/kallsyms, e.g. a\n"
"        copy taken on the recording machine) instead of /proc/kallsyms.\n"
"        Without the privilege to see kernel addresses (CAP_SYSLOG,\n"
"        kernel.kptr_restrict) kernel frames stay unnamed.\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
"TIMES\n"
"    Record times are CLOCK_MONOTONIC seconds (comparable with\n"
"    clock_gettime(CLOCK_MONOTONIC) and with perf's default clock on\n"
"    most systems). Process states are the kernel's letters: R running\n"
"    (R+ preempted), S sleeping, D uninterruptible, T stopped, t traced,\n"
"    X dead, Z zombie, P parked, I idle.\n"
"\n"
"EXAMPLES\n"
"    pmuctx report -i fr.pmu\n"
"    pmuctx report -i fr.pmu --format perf-script > fr.txt\n"
"    pmuctx report -i fr.pmu --format json | jq '.tasks[0]'\n"
"    pmuctx report -i prof.pmu --format folded | flamegraph.pl > fg.svg\n"
"    pmuctx report -i prof.pmu --format pprof -o prof.pb.gz\n"
"    go tool pprof -top prof.pb.gz\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when the file cannot be read or is not a valid\n"
"    recording, 2 on a usage error.\n"
"\n"
"SEE ALSO\n"
"    pmuctx record --help, pmuctx snapshot --help, perf-script(1),\n"
"    perf-report(1)\n";

enum fmt { FMT_TEXT, FMT_JSON, FMT_PERF, FMT_FOLDED, FMT_PPROF };

/* ---- tasks --------------------------------------------------------------- */

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
};

static struct task *task_get(struct report *R, __s32 tid, bool create)
{
	size_t i, mask;

	if (R->used * 2 >= R->cap && create) {
		size_t ncap = R->cap ? R->cap * 2 : 256, j;
		struct task *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < R->cap; j++) {
			struct task *t = &R->tasks[j];

			if (!t->used)
				continue;
			for (i = (size_t)(__u32)t->tid * 2654435761U &
				 (ncap - 1);
			     n[i].used; i = (i + 1) & (ncap - 1))
				;
			n[i] = *t;
		}
		free(R->tasks);
		R->tasks = n;
		R->cap = ncap;
	}
	if (!R->cap)
		return NULL;
	mask = R->cap - 1;
	for (i = (size_t)(__u32)tid * 2654435761U & mask; R->tasks[i].used;
	     i = (i + 1) & mask)
		if (R->tasks[i].tid == tid)
			return &R->tasks[i];
	if (!create)
		return NULL;
	memset(&R->tasks[i], 0, sizeof(R->tasks[i]));
	R->tasks[i].used = true;
	R->tasks[i].tid = tid;
	R->used++;
	return &R->tasks[i];
}

static void set_comm(char *dst, const char *src)
{
	memcpy(dst, src, PMUCTX_COMM_LEN);
	dst[PMUCTX_COMM_LEN] = '\0';
}

/* the name of @tid at this point of the time-ordered walk */
static const char *comm_of(struct report *R, __s32 pid, __s32 tid, __u32 cpu,
			   char *buf, size_t len)
{
	struct task *t;

	if (!tid && !pid) {
		snprintf(buf, len, "swapper/%u", cpu);
		return buf;
	}
	t = task_get(R, tid, false);
	if (t && t->have_comm)
		return t->comm;
	if (t && t->have_first)
		return t->first;
	snprintf(buf, len, ":%d", (int)tid);	/* as perf does */
	return buf;
}

/* ---- helpers --------------------------------------------------------------- */

void report_state_str(__u32 state, bool preempt, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZP";
	unsigned int s, bit;

	if (preempt) {
		snprintf(buf, len, "R+");
		return;
	}
	if ((state & 0x402) == 0x402) {		/* TASK_IDLE */
		snprintf(buf, len, "I");
		return;
	}
	if (state & 0x1000)			/* TASK_RTLOCK_WAIT */
		state |= 0x2;
	s = state & 0x7f;			/* TASK_REPORT */
	if (!s) {
		snprintf(buf, len, "%s", state & 0x80 ? "X" : "R");
		return;
	}
	bit = 31 - (unsigned int)__builtin_clz(s);	/* the highest, as fls */
	snprintf(buf, len, "%c", letters[bit]);
}

static const char *event_label(const struct pmf_info *info, unsigned int i,
			       char *buf, size_t len)
{
	const char *n = i < info->nr_events ?
			pmuctx_event_name((int)info->events[i]) : NULL;

	if (n)
		return n;
	snprintf(buf, len, "event%u", i);
	return buf;
}

static bool is_ns(const struct pmf_info *info, unsigned int i)
{
	const char *u = i < info->nr_events ?
			pmuctx_event_unit((int)info->events[i]) : NULL;

	return u && !strcmp(u, "ns");
}

static void print_value(FILE *f, const struct pmf_info *info, unsigned int i,
			__u64 v)
{
	if (is_ns(info, i))
		fprintf(f, "%.3f ms", (double)v / 1e6);
	else
		fprintf(f, "%" PRIu64, (uint64_t)v);
}

static void print_escaped(FILE *f, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (p[i] >= 0x20 && p[i] < 0x7f)
			fputc(p[i], f);
		else
			fprintf(f, "\\x%02x", p[i]);
	}
}

/*
 * a command line on one line of the header: a newline, a tab, another
 * control character or a backslash as C writes them (sh -c 'a\nb' keeps
 * the header one comment line); UTF-8 as it is
 */
static void print_command(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static const struct pmuctx_rec_common *common(const struct pmuctx_rec_header *h)
{
	return (const struct pmuctx_rec_common *)(h + 1);
}

/* ---- record order ------------------------------------------------------------ */

static int cmp_rec(const void *a, const void *b)
{
	const struct pmuctx_rec_header *x = *(const void *const *)a;
	const struct pmuctx_rec_header *y = *(const void *const *)b;
	const struct pmuctx_rec_common *cx = common(x), *cy = common(y);

	if (cx->time != cy->time)
		return cx->time < cy->time ? -1 : 1;
	if (cx->cpu != cy->cpu)
		return cx->cpu < cy->cpu ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (cx->tid != cy->tid)
		return cx->tid < cy->tid ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x != y) {
		int m = memcmp(x, y, x->size);

		if (m)
			return m;
	}
	/* identical contents: keep file order (stable) */
	return x < y ? -1 : x > y;
}

static bool same_rec(const struct pmuctx_rec_header *x,
		     const struct pmuctx_rec_header *y)
{
	return x->size == y->size && !memcmp(x, y, x->size);
}

/* all records of the file, in time order, each distinct one once */
static const struct pmuctx_rec_header **merged(const struct pmf_reader *r,
					       size_t *n)
{
	const struct pmuctx_rec_header **a;
	size_t i, k = 0;

	*n = 0;
	a = malloc((r->nr_recs ? r->nr_recs : 1) * sizeof(*a));
	if (!a)
		return NULL;
	memcpy(a, r->recs, r->nr_recs * sizeof(*a));
	qsort(a, r->nr_recs, sizeof(*a), cmp_rec);
	for (i = 0; i < r->nr_recs; i++)
		if (!k || !same_rec(a[k - 1], a[i]))
			a[k++] = a[i];
	*n = k;
	return a;
}

/* ---- tasks from the records ---------------------------------------------- */

/* the first name of every task in the file (for records before a COMM) */
static int first_comms(struct report *R, const struct pmuctx_rec_header **a,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pmuctx_rec_header *h = a[i];
		const char *comm = NULL;
		struct task *t;

		if (h->type == PMUCTX_REC_COMM)
			comm = ((const struct pmuctx_rec_comm *)h)->comm;
		else if (h->type == PMUCTX_REC_EXEC)
			comm = ((const struct pmuctx_rec_exec *)h)->comm;
		else
			continue;
		t = task_get(R, common(h)->tid, true);
		if (!t)
			return -ENOMEM;
		if (!t->have_first) {
			set_comm(t->first, comm);
			t->have_first = true;
		}
		t->pid = common(h)->pid;
	}
	return 0;
}

/*
 * FORK: the child is named as its parent until a COMM or EXEC record
 * (the kernel copies the name; perf names it so too)
 */
static int fork_comm(struct report *R, __s32 parent, __s32 child)
{
	struct task *p = task_get(R, parent, false), *t;
	const char *name = p && p->have_comm ? p->comm :
			   p && p->have_first ? p->first : NULL;
	char buf[PMUCTX_COMM_LEN + 1];

	if (!name || child == parent)
		return 0;
	memcpy(buf, name, sizeof(buf));		/* task_get() may move p */
	t = task_get(R, child, true);
	if (!t)
		return -ENOMEM;
	set_comm(t->comm, buf);
	t->have_comm = true;
	return 0;
}

/* the walk in time order: names, slices, exit values */
static int account(struct report *R, const struct pmuctx_rec_header *h,
		   bool sums)
{
	const struct pmuctx_rec_common *c = common(h);
	struct task *t;
	__u32 i, nr;

	switch (h->type) {
	case PMUCTX_REC_COMM:
	case PMUCTX_REC_EXEC:
		t = task_get(R, c->tid, true);
		if (!t)
			return -ENOMEM;
		set_comm(t->comm, h->type == PMUCTX_REC_COMM ?
			 ((const struct pmuctx_rec_comm *)h)->comm :
			 ((const struct pmuctx_rec_exec *)h)->comm);
		t->have_comm = true;
		t->pid = c->pid;
		break;
	case PMUCTX_REC_FORK:
		return fork_comm(R, c->tid,
				 ((const struct pmuctx_rec_fork *)h)->child_tid);
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)h;

		if (!sums || (!c->tid && !c->pid))
			break;
		t = task_get(R, c->tid, true);
		if (!t)
			return -ENOMEM;
		t->pid = c->pid;
		t->slices++;
		nr = s->nr < PMUCTX_MAX_EVENTS ? s->nr : PMUCTX_MAX_EVENTS;
		for (i = 0; i < nr; i++)
			t->sum[i] += s->delta[i];
		break;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *e = (const void *)h;

		if (!sums)
			break;
		t = task_get(R, c->tid, true);
		if (!t)
			return -ENOMEM;
		t->pid = c->pid;
		t->exited = true;
		t->exit_nr = e->nr < PMUCTX_MAX_EVENTS ? e->nr :
			     PMUCTX_MAX_EVENTS;
		for (i = 0; i < t->exit_nr; i++)
			t->exitv[i] = e->values[i];
		break;
	}
	case PMUCTX_REC_LOST:
		if (sums)
			R->lost_records +=
				((const struct pmuctx_rec_lost *)h)->lost;
		break;
	default:
		break;
	}
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task *x = *(const struct task *const *)a;
	const struct task *y = *(const struct task *const *)b;
	__u64 vx = x->sum[0] ? x->sum[0] : x->exitv[0];
	__u64 vy = y->sum[0] ? y->sum[0] : y->exitv[0];

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct task **sorted_tasks(struct report *R, size_t *n)
{
	struct task **v;
	size_t i, k = 0;

	*n = 0;
	v = malloc((R->used ? R->used : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < R->cap; i++)
		if (R->tasks[i].used && (R->tasks[i].slices ||
					 R->tasks[i].exited))
			v[k++] = &R->tasks[i];
	qsort(v, k, sizeof(*v), cmp_task);
	*n = k;
	return v;
}

/* ---- text ------------------------------------------------------------------- */

/* ---- what a window covers ------------------------------------------------------ */

/*
 * One CPU's part of a window: the span of its records in the file, and
 * what the kernel counted for it (WINDOW_END): records overwritten since
 * the previous window (overwrite mode: older records the writer dropped
 * from the tail) and records lost since the previous window.
 */
struct win_cpu {
	__u64 first, last;	/* c.time of its oldest and newest record */
	__u64 records;		/* its records in the window */
	__u64 overwritten;
	__u64 lost;
};

static unsigned int win_nr_cpus(const struct report *R,
				const struct pmf_win *w)
{
	return w->have_end ? w->end.nr_cpus : R->info->nr_cpus;
}

/* @v: win_nr_cpus() elements; a window not finished has no counts */
static void win_cover(const struct report *R, const struct pmf_win *w,
		      struct win_cpu *v, unsigned int n)
{
	const struct pmf_reader *r = R->r;
	const struct pmf_win *prev = NULL;
	unsigned int i;
	size_t k;

	memset(v, 0, n * sizeof(*v));
	for (k = 0; k < w->nr; k++) {
		const struct pmuctx_rec_header *h = r->recs[w->first + k];
		const struct pmuctx_rec_common *c = (const void *)(h + 1);
		struct win_cpu *p;

		/* the recorder's thread names are not the kernel's records */
		if (h->type == PMUCTX_REC_PAD || c->cpu >= n ||
		    (h->type == PMUCTX_REC_COMM &&
		     (h->misc & PMF_COMM_M_RECORDER)))
			continue;
		p = &v[c->cpu];
		if (!p->records || c->time < p->first)
			p->first = c->time;
		if (!p->records || c->time > p->last)
			p->last = c->time;
		p->records++;
	}
	if (!w->have_end)
		return;
	for (k = (size_t)(w - r->wins); k-- > 0;)
		if (r->wins[k].have_end) {
			prev = &r->wins[k];
			break;
		}
	for (i = 0; i < n; i++) {
		__u64 o = w->cpus[i].overwritten, po = 0;

		if (prev && i < prev->end.nr_cpus)
			po = prev->cpus[i].overwritten;
		v[i].overwritten = o >= po ? o - po : o;
		v[i].lost = w->cpus[i].lost_window;
	}
}

/*
 * The records lost while recording, one number for every output: the
 * kernel's per-CPU counts in the finished windows (each window's count
 * since the previous one), which include records whose LOST record never
 * reached the file (dropped or overwritten itself, or still pending when
 * the last window was taken).  Only without any finished window, the LOST
 * records' sum.
 */
static __u64 report_lost_total(const struct report *R)
{
	const struct pmf_reader *r = R->r;
	bool any = false;
	__u64 lost = 0;
	unsigned int i;
	size_t w;

	for (w = 0; w < r->nr_wins; w++) {
		if (!r->wins[w].have_end)
			continue;
		any = true;
		for (i = 0; i < r->wins[w].end.nr_cpus; i++)
			lost += r->wins[w].cpus[i].lost_window;
	}
	return any ? lost : R->lost_records;
}

/*
 * The slice that fired a trigger window: of the SWITCH records in it whose
 * trigger event is over the threshold and that are the newest record of
 * their CPU, the newest.  The kernel freezes the buffers in sched_switch
 * right after writing that record, IRQs off (pmuctx record --trigger
 * always records switch events), so nothing newer reached its CPU's
 * buffer; a slice over the threshold kept from an earlier window is
 * followed by newer records, and a record another CPU wrote before the
 * freeze reached it does not hide the firing one.  NULL when the window
 * has no such record (the firing one was not written: switch records
 * off, or it was lost).
 */
static const struct pmuctx_rec_switch *win_trigger(const struct report *R,
						   const struct pmf_win *w)
{
	const struct pmf_info *in = R->info;
	const struct pmuctx_rec_switch *best = NULL;
	unsigned int ev = in->trigger_event, n = win_nr_cpus(R, w);
	__u64 *newest;
	size_t k;

	if (w->hdr.reason != PMF_WIN_TRIGGER || !ev || ev > in->nr_events)
		return NULL;
	newest = calloc(n ? n : 1, sizeof(*newest));
	if (!newest)
		return NULL;
	/* the newest time on each CPU, the recorder's own records aside */
	for (k = 0; k < w->nr; k++) {
		const struct pmuctx_rec_header *h = R->r->recs[w->first + k];
		const struct pmuctx_rec_common *c = (const void *)(h + 1);

		if (h->type == PMUCTX_REC_PAD ||
		    (h->type == PMUCTX_REC_COMM &&
		     (h->misc & PMF_COMM_M_RECORDER)) || c->cpu >= n)
			continue;
		if (c->time > newest[c->cpu])
			newest[c->cpu] = c->time;
	}
	for (k = 0; k < w->nr; k++) {
		const struct pmuctx_rec_header *h = R->r->recs[w->first + k];
		const struct pmuctx_rec_switch *sw = (const void *)h;

		if (h->type != PMUCTX_REC_SWITCH || sw->nr < ev ||
		    sw->delta[ev - 1] <= in->trigger_threshold ||
		    sw->c.cpu >= n || sw->c.time < newest[sw->c.cpu])
			continue;
		if (!best || sw->c.time >= best->c.time)
			best = sw;
	}
	free(newest);
	return best;
}

/*
 * When the slice of @s began: its length is its task-clock when that is
 * an event of the session, else the switch that ran its task in on that
 * CPU, if the window holds it.  False when neither says.
 */
static bool slice_start(const struct report *R, const struct pmf_win *w,
			const struct pmuctx_rec_switch *s, __u64 *start)
{
	const struct pmf_info *in = R->info;
	const struct pmuctx_rec_switch *in_sw = NULL;
	unsigned int i;
	size_t k;

	for (i = 0; i < in->nr_events && i < s->nr; i++)
		if (in->events[i] == PMUCTX_EV_TASK_CLOCK &&
		    s->delta[i] <= s->c.time) {
			*start = s->c.time - s->delta[i];
			return true;
		}
	for (k = 0; k < w->nr; k++) {
		const struct pmuctx_rec_header *h = R->r->recs[w->first + k];
		const struct pmuctx_rec_switch *o = (const void *)h;

		if (h->type == PMUCTX_REC_SWITCH && o->c.cpu == s->c.cpu &&
		    o->next_tid == s->c.tid && o->c.time < s->c.time &&
		    (!in_sw || o->c.time > in_sw->c.time))
			in_sw = o;
	}
	if (!in_sw)
		return false;
	*start = in_sw->c.time;
	return true;
}

static void print_time(FILE *f, __u64 t)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, (uint64_t)(t / 1000000000ULL),
		(uint64_t)(t % 1000000000ULL));
}

static void text_header(struct report *R, const char *path)
{
	const struct pmf_reader *r = R->r;
	const struct pmf_info *in = R->info;
	FILE *f = R->out;
	char tbuf[64], lb[32];
	time_t secs = (time_t)(in->start_real_ns / 1000000000ULL);
	struct tm tm;
	unsigned int i;

	if (localtime_r(&secs, &tm))
		strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S %z", &tm);
	else
		snprintf(tbuf, sizeof(tbuf), "?");
	fprintf(f, "# pmuctx recording %s (format %u)\n", path, r->version);
	fprintf(f, "# command:  ");
	print_command(f, *r->meta.command ? r->meta.command : "(none)");
	fputc('\n', f);
	fprintf(f, "# host:     %s, kernel %s, %u CPU buffer(s)\n",
		r->meta.hostname, r->meta.release, in->nr_cpus);
	fprintf(f, "# recorded: by %s, module %s\n", r->meta.tool_version,
		r->meta.module_version);
	fprintf(f, "# started:  %s (CLOCK_MONOTONIC %" PRIu64 ".%09" PRIu64
		")\n", tbuf, (uint64_t)(in->start_mono_ns / 1000000000ULL),
		(uint64_t)(in->start_mono_ns % 1000000000ULL));
	fprintf(f, "# session:  %s mode, %u pages of %u bytes per CPU, "
		"records:", in->ring_mode == PMUCTX_RING_OVERWRITE ?
		"overwrite (flight recorder)" : "normal (stream)",
		in->ring_pages, in->page_size);
	for (i = 0; i < 6; i++)
		if (in->ring_records & (1U << i))
			fprintf(f, " %s", pmuctx_record_type_name(
				i == 0 ? PMUCTX_REC_SWITCH :
				i == 1 ? PMUCTX_REC_FORK :
				i == 2 ? PMUCTX_REC_EXEC :
				i == 3 ? PMUCTX_REC_EXIT :
				i == 4 ? PMUCTX_REC_COMM : PMUCTX_REC_MMAP));
	fprintf(f, "\n# events:  ");
	for (i = 0; i < in->nr_events; i++)
		fprintf(f, " %s", event_label(in, i, lb, sizeof(lb)));
	fprintf(f, "\n");
	if (in->trigger_event && in->trigger_event <= in->nr_events) {
		fprintf(f, "# trigger:  %s > ", event_label(in,
			in->trigger_event - 1, lb, sizeof(lb)));
		print_value(f, in, in->trigger_event - 1,
			    in->trigger_threshold);
		fprintf(f, " in one slice\n");
	}
	fprintf(f, "# windows:  %zu, %zu records, %llu lost", r->nr_wins,
		r->nr_recs, (unsigned long long)report_lost_total(R));
	if (r->have_end && !(r->end.flags & PMF_END_OPEN))
		fprintf(f, ", command exit status %d", r->end.exit_status);
	else
		fprintf(f, " (the recording was still going on)");
	fprintf(f, "\n");
}

/* The sampled event of a recording: NULL for the hrtimer (cpu-clock). */
static const char *sample_event_name(const struct pmf_info *in)
{
	return in->sample_event ? pmuctx_event_name((int)in->sample_event) :
				  NULL;
}

/* Periods of the recording's samples are ns (hrtimer, clock events). */
static bool sample_period_ns(const struct pmf_info *in)
{
	const char *u;

	if (!in->sample_event)
		return true;
	u = pmuctx_event_unit((int)in->sample_event);
	return u && !strcmp(u, "ns");
}

/*
 * THROTTLE (docs/FILE-FORMAT.md): the global budget's refusals, or the
 * sampler slowing down or relaxing on one CPU.  A record of an older
 * module stops before @dropped.
 */
static void throttle_of(const struct pmuctx_rec_header *h,
			struct pmuctx_rec_throttle *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t, h, h->size < sizeof(*t) ? h->size : sizeof(*t));
}

static void text_throttle(FILE *f, const struct pmuctx_rec_header *h)
{
	struct pmuctx_rec_throttle t;

	throttle_of(h, &t);
	if (h->misc & PMUCTX_THROTTLE_BUDGET)
		fprintf(f, " budget: %llu sample(s) not taken, the CPU's "
			"budget allows one per %llu ns (sample cost %llu ns)",
			(unsigned long long)t.dropped,
			(unsigned long long)t.period_ns,
			(unsigned long long)t.avg_ns);
	else
		fprintf(f, " %s: period %llu ns (sample cost %llu ns)",
			h->misc & PMUCTX_THROTTLE_ON ? "slowed down" :
			"relaxed", (unsigned long long)t.period_ns,
			(unsigned long long)t.avg_ns);
}

static void text_sample(FILE *f, const struct pmf_info *in,
			const struct pmuctx_rec_sample *sm)
{
	fprintf(f, " ip=0x%llx period=%llu %s, %u kernel + %u user frame(s)%s",
		(unsigned long long)sm->ip, (unsigned long long)sm->period,
		sample_period_ns(in) ? "ns" : "events", sm->nr_kernel,
		sm->nr_user, sm->hdr.misc & PMUCTX_SAMPLE_M_USER_DEFERRED ?
		", user stack deferred" : "");
}

static void text_record(struct report *R, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = common(h);
	const struct pmf_info *in = R->info;
	FILE *f = R->out;
	char cb[32], cb2[32], st[8], lb[32];
	const char *tn = pmuctx_record_type_name(h->type);
	unsigned int i, nr;

	fprintf(f, "  %6" PRIu64 ".%09" PRIu64 " [%03u] %7d/%-7d %-16s %-6s",
		(uint64_t)(c->time / 1000000000ULL),
		(uint64_t)(c->time % 1000000000ULL), c->cpu, (int)c->pid,
		(int)c->tid, comm_of(R, c->pid, c->tid, c->cpu, cb, sizeof(cb)),
		tn ? tn : "?");
	switch (h->type) {
	case PMUCTX_REC_LOST:
		fprintf(f, " %llu record(s) lost on this CPU",
			(unsigned long long)((const struct pmuctx_rec_lost *)
					     h)->lost);
		break;
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)h;

		report_state_str(s->prev_state,
				 h->misc & PMUCTX_SWITCH_PREEMPT, st,
				 sizeof(st));
		fprintf(f, " state=%s => %d/%d %s:", st, (int)s->next_pid,
			(int)s->next_tid, comm_of(R, s->next_pid, s->next_tid,
						  c->cpu, cb2, sizeof(cb2)));
		nr = s->nr < PMUCTX_MAX_EVENTS ? s->nr : PMUCTX_MAX_EVENTS;
		for (i = 0; i < nr; i++) {
			fprintf(f, " %s=", event_label(in, i, lb, sizeof(lb)));
			print_value(f, in, i, s->delta[i]);
		}
		break;
	}
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *k = (const void *)h;

		fprintf(f, " child %d/%d", (int)k->child_pid,
			(int)k->child_tid);
		break;
	}
	case PMUCTX_REC_EXEC: {
		const struct pmuctx_rec_exec *e = (const void *)h;

		fprintf(f, " comm=%.16s filename=", e->comm);
		if (h->size > sizeof(*e))
			print_escaped(f, (const unsigned char *)e->filename,
				      strlen(e->filename));
		break;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *e = (const void *)h;

		fprintf(f, " totals:");
		nr = e->nr < PMUCTX_MAX_EVENTS ? e->nr : PMUCTX_MAX_EVENTS;
		for (i = 0; i < nr; i++) {
			fprintf(f, " %s=", event_label(in, i, lb, sizeof(lb)));
			print_value(f, in, i, e->values[i]);
		}
		break;
	}
	case PMUCTX_REC_COMM:
		fprintf(f, " comm=%.16s%s",
			((const struct pmuctx_rec_comm *)h)->comm,
			h->misc & PMF_COMM_M_RECORDER ? " (thread name read "
			"by the recorder)" : "");
		break;
	case PMUCTX_REC_USER: {
		const struct pmuctx_rec_user *u = (const void *)h;

		fprintf(f, " %u byte(s): \"", u->len);
		print_escaped(f, u->data, u->len > 64 ? 64 : u->len);
		fprintf(f, "%s\"", u->len > 64 ? "..." : "");
		break;
	}
	case PMUCTX_REC_SAMPLE:
		text_sample(f, in, (const struct pmuctx_rec_sample *)h);
		break;
	case PMUCTX_REC_USER_CALLCHAIN: {
		const struct pmuctx_rec_user_callchain *uc = (const void *)h;

		fprintf(f, " cookie=%llu, %u frame(s)",
			(unsigned long long)uc->cookie, uc->nr);
		break;
	}
	case PMUCTX_REC_USER_STACK: {
		const struct pmuctx_rec_user_stack *us = (const void *)h;

		/* checked when the file was read: the fixed part is there */
		fprintf(f, " cookie=%llu, %u register(s), %u of %u stack "
			"byte(s) copied", (unsigned long long)us->cookie,
			us->nr_regs, us->dyn_size, us->size);
		break;
	}
	case PMUCTX_REC_THROTTLE:
		text_throttle(f, h);
		break;
	default:
		fprintf(f, " type %u, %u bytes", h->type, h->size);
	}
	fputc('\n', f);
}

/* The window's line: why, when, how many records, what the kernel missed. */
static void text_window_head(struct report *R, const struct pmf_win *w,
			     const struct win_cpu *v, unsigned int n)
{
	bool ovw = R->info->ring_mode == PMUCTX_RING_OVERWRITE;
	FILE *f = R->out;
	__u64 lost = 0, over = 0;
	const char *sep = "";
	unsigned int i;

	fprintf(f, "\n# window %u (%s", w->hdr.index,
		pmf_reason_name(w->hdr.reason));
	if (w->hdr.requester > 0)
		fprintf(f, " from pid %d", (int)w->hdr.requester);
	fprintf(f, ") at %" PRIu64 ".%09" PRIu64 ": %zu records",
		(uint64_t)(w->hdr.time / 1000000000ULL),
		(uint64_t)(w->hdr.time % 1000000000ULL), w->nr);
	if (!w->have_end) {
		fprintf(f, " (window not finished: recording went on)\n");
		return;
	}
	for (i = 0; i < n; i++) {
		lost += v[i].lost;
		over += v[i].overwritten;
	}
	fprintf(f, ", %llu lost", (unsigned long long)lost);
	if (lost) {
		fprintf(f, " (");
		for (i = 0; i < n; i++) {
			if (!v[i].lost)
				continue;
			fprintf(f, "%scpu%u: %llu", sep, i,
				(unsigned long long)v[i].lost);
			sep = ", ";
		}
		fprintf(f, ")");
	}
	if (ovw)
		fprintf(f, ", %llu overwritten", (unsigned long long)over);
	fprintf(f, "\n");
}

/* Per CPU: the time it holds, and what the kernel says it misses. */
static void text_window_cpus(struct report *R, const struct pmf_win *w,
			     const struct win_cpu *v, unsigned int n)
{
	bool ovw = R->info->ring_mode == PMUCTX_RING_OVERWRITE;
	unsigned int i, quiet = 0;
	FILE *f = R->out;

	for (i = 0; i < n; i++) {
		if (!v[i].records && !v[i].overwritten && !v[i].lost) {
			quiet++;
			continue;
		}
		fprintf(f, "#   cpu%u: ", i);
		if (v[i].records) {
			print_time(f, v[i].first);
			fprintf(f, " .. ");
			print_time(f, v[i].last);
			fprintf(f, " s, %llu records",
				(unsigned long long)v[i].records);
		} else {
			fprintf(f, "no records");
		}
		if (w->have_end) {
			if (ovw)
				fprintf(f, ", %llu overwritten",
					(unsigned long long)v[i].overwritten);
			fprintf(f, ", %llu lost",
				(unsigned long long)v[i].lost);
		}
		fprintf(f, "\n");
	}
	if (quiet && quiet < n)
		fprintf(f, "#   (%u other CPU(s): no records, nothing "
			"overwritten or lost)\n", quiet);
}

/* A trigger window: the task and slice that fired it. */
static void text_window_trigger(struct report *R, const struct pmf_win *w)
{
	const struct pmuctx_rec_switch *trig = win_trigger(R, w);
	const struct pmf_info *in = R->info;
	unsigned int ev = in->trigger_event - 1;
	char cb[32], lb[32];
	FILE *f = R->out;
	__u64 st;

	if (!trig) {
		if (w->hdr.reason == PMF_WIN_TRIGGER)
			fprintf(f, "#   fired by a slice whose switch record "
				"is not in the window (recorded without "
				"switch records, or the record was lost)\n");
		return;
	}
	fprintf(f, "#   fired by %s %d/%d on cpu%u: slice ",
		comm_of(R, trig->c.pid, trig->c.tid, trig->c.cpu, cb,
			sizeof(cb)), (int)trig->c.pid, (int)trig->c.tid,
		trig->c.cpu);
	if (slice_start(R, w, trig, &st)) {
		print_time(f, st);
		fprintf(f, " .. ");
	} else {
		fprintf(f, "ending at ");
	}
	print_time(f, trig->c.time);
	fprintf(f, " s, %s=", event_label(in, ev, lb, sizeof(lb)));
	print_value(f, in, ev, trig->delta[ev]);
	fprintf(f, " > ");
	print_value(f, in, ev, in->trigger_threshold);
	fprintf(f, "\n");
}

static void text_window(struct report *R, const struct pmf_win *w,
			bool summary)
{
	const struct pmf_reader *r = R->r;
	const struct pmuctx_rec_header **a;
	unsigned int n = win_nr_cpus(R, w);
	struct win_cpu *v;
	FILE *f = R->out;
	size_t k;

	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return;
	win_cover(R, w, v, n);
	text_window_head(R, w, v, n);
	text_window_cpus(R, w, v, n);
	free(v);
	text_window_trigger(R, w);
	fprintf(f, "\n");
	if (summary || !w->nr)
		return;
	a = malloc(w->nr * sizeof(*a));
	if (!a)
		return;
	memcpy(a, r->recs + w->first, w->nr * sizeof(*a));
	qsort(a, w->nr, sizeof(*a), cmp_rec);
	fprintf(f, "#  %16s  CPU %15s %-16s %-6s DETAILS\n", "TIME (s)",
		"PID/TID", "COMM", "RECORD");
	for (k = 0; k < w->nr; k++) {
		account(R, a[k], false);
		text_record(R, a[k]);
	}
	free(a);
}

static void text_tasks(struct report *R)
{
	const struct pmf_info *in = R->info;
	struct task **v;
	FILE *f = R->out;
	char lb[32];
	size_t n, k;
	unsigned int i;

	v = sorted_tasks(R, &n);
	if (!v)
		return;
	fprintf(f, "\n# per-task summary: %zu task(s) (slices and sums from "
		"switch records, totals from exit records)\n", n);
	if (report_lost_total(R))
		fprintf(f, "# %llu record(s) were lost while recording (the "
			"kernel's count): the sums may be short\n",
			(unsigned long long)report_lost_total(R));
	if (!n) {
		fprintf(f, "#   (no switch or exit records: record with "
			"--switch-events)\n");
		free(v);
		return;
	}
	for (k = 0; k < n; k++) {
		struct task *t = v[k];

		fprintf(f, "  %7d/%-7d %-16s slices %-6llu", (int)t->pid,
			(int)t->tid, t->have_comm ? t->comm : t->have_first ?
			t->first : "?", (unsigned long long)t->slices);
		for (i = 0; i < in->nr_events && t->slices; i++) {
			fprintf(f, " %s=", event_label(in, i, lb, sizeof(lb)));
			print_value(f, in, i, t->sum[i]);
		}
		if (t->exited) {
			fprintf(f, " | exit:");
			for (i = 0; i < t->exit_nr; i++) {
				fprintf(f, " %s=", event_label(in, i, lb,
							      sizeof(lb)));
				print_value(f, in, i, t->exitv[i]);
			}
		}
		fputc('\n', f);
	}
	free(v);
}

/* ---- json ------------------------------------------------------------------- */

/* "key": [N, ...] */
static void json_u64_array(struct json *j, const char *key, const __u64 *v,
			   unsigned int n)
{
	unsigned int i;

	json_key(j, key);
	json_begin_array(j);
	for (i = 0; i < n; i++)
		json_u64(j, v[i]);
	json_end_array(j);
}

/* "key": {EVENT: N, ...}, the first @nr events of the recording */
static void json_values(struct json *j, const struct pmf_info *in,
			const char *key, const __u64 *v, unsigned int nr)
{
	char lb[32];
	unsigned int i;

	json_key(j, key);
	json_begin_object(j);
	for (i = 0; i < nr; i++)
		json_kv_u64(j, event_label(in, i, lb, sizeof(lb)), v[i]);
	json_end_object(j);
}

static void json_switch(struct report *R, struct json *j,
			const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_switch *s = (const void *)h;
	char st[8];

	report_state_str(s->prev_state, h->misc & PMUCTX_SWITCH_PREEMPT, st,
			 sizeof(st));
	json_kv_i64(j, "next_pid", s->next_pid);
	json_kv_i64(j, "next_tid", s->next_tid);
	json_kv_u64(j, "prev_state", s->prev_state);
	json_kv_string(j, "prev_state_str", st);
	json_kv_bool(j, "preempt", h->misc & PMUCTX_SWITCH_PREEMPT);
	json_values(j, R->info, "delta", s->delta,
		    s->nr < PMUCTX_MAX_EVENTS ? s->nr : PMUCTX_MAX_EVENTS);
}

static void json_user(struct json *j, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_user *u = (const void *)h;
	unsigned int i;

	json_kv_u64(j, "len", u->len);
	json_key(j, "data");
	json_begin_array(j);
	for (i = 0; i < u->len; i++)
		json_u64(j, u->data[i]);
	json_end_array(j);
}

static void json_sample(struct json *j, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_sample *sm = (const void *)h;

	json_kv_u64(j, "ip", sm->ip);
	json_kv_u64(j, "period", sm->period);
	json_kv_u64(j, "cookie", sm->cookie);
	json_kv_u64(j, "misc", h->misc);
	json_u64_array(j, "kernel_ips", sm->ips, sm->nr_kernel);
	json_u64_array(j, "user_ips", sm->ips + sm->nr_kernel, sm->nr_user);
}

/* the fields of record @h after the common ones */
static void json_record_body(struct report *R, struct json *j,
			     const struct pmuctx_rec_header *h)
{
	switch (h->type) {
	case PMUCTX_REC_LOST:
		json_kv_u64(j, "lost",
			    ((const struct pmuctx_rec_lost *)h)->lost);
		break;
	case PMUCTX_REC_SWITCH:
		json_switch(R, j, h);
		break;
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *k = (const void *)h;

		json_kv_i64(j, "child_pid", k->child_pid);
		json_kv_i64(j, "child_tid", k->child_tid);
		break;
	}
	case PMUCTX_REC_EXEC: {
		const struct pmuctx_rec_exec *e = (const void *)h;

		json_key(j, "comm");
		json_string_n(j, e->comm, PMUCTX_COMM_LEN);
		json_kv_string(j, "filename", h->size > sizeof(*e) ?
			       e->filename : "");
		break;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *e = (const void *)h;

		json_values(j, R->info, "values", e->values,
			    e->nr < PMUCTX_MAX_EVENTS ? e->nr :
			    PMUCTX_MAX_EVENTS);
		break;
	}
	case PMUCTX_REC_COMM:
		json_key(j, "comm");
		json_string_n(j, ((const struct pmuctx_rec_comm *)h)->comm,
			      PMUCTX_COMM_LEN);
		json_kv_bool(j, "recorder", h->misc & PMF_COMM_M_RECORDER);
		break;
	case PMUCTX_REC_USER:
		json_user(j, h);
		break;
	case PMUCTX_REC_SAMPLE:
		json_sample(j, h);
		break;
	case PMUCTX_REC_USER_CALLCHAIN: {
		const struct pmuctx_rec_user_callchain *uc = (const void *)h;

		json_kv_u64(j, "cookie", uc->cookie);
		json_u64_array(j, "ips", uc->ips, uc->nr);
		break;
	}
	case PMUCTX_REC_USER_STACK: {
		const struct pmuctx_rec_user_stack *us = (const void *)h;

		/* the registers, not the stack bytes (a user's data) */
		json_kv_u64(j, "cookie", us->cookie);
		json_kv_u64(j, "abi", us->abi);
		json_kv_u64(j, "size", us->size);
		json_kv_u64(j, "dyn_size", us->dyn_size);
		json_u64_array(j, "regs", us->regs, us->nr_regs);
		break;
	}
	case PMUCTX_REC_THROTTLE: {
		struct pmuctx_rec_throttle t;

		throttle_of(h, &t);
		json_kv_string(j, "kind", h->misc & PMUCTX_THROTTLE_BUDGET ?
			       "budget" : h->misc & PMUCTX_THROTTLE_ON ?
			       "throttle" : "unthrottle");
		json_kv_u64(j, "period_ns", t.period_ns);
		json_kv_u64(j, "avg_ns", t.avg_ns);
		json_kv_u64(j, "dropped", t.dropped);
		break;
	}
	default:
		json_kv_u64(j, "size", h->size);
	}
}

static void json_record(struct report *R, struct json *j,
			const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = common(h);
	const char *tn = pmuctx_record_type_name(h->type);

	json_begin_object(j);
	if (tn)
		json_kv_string(j, "type", tn);
	else
		json_kv_u64(j, "type", h->type);
	json_kv_u64(j, "time_ns", c->time);
	json_kv_u64(j, "cpu", c->cpu);
	json_kv_i64(j, "pid", c->pid);
	json_kv_i64(j, "tid", c->tid);
	json_record_body(R, j, h);
	json_end_object(j);
}

/* the recording's header: what, where, how */
static void json_header(struct report *R, struct json *j, const char *path)
{
	static const char *const names[] = {
		"switch", "fork", "exec", "exit", "comm", "mmap",
	};
	const struct pmf_reader *r = R->r;
	const struct pmf_info *in = R->info;
	char lb[32];
	unsigned int i;

	json_kv_string(j, "file", path);
	json_kv_u64(j, "format_version", r->version);
	json_kv_string(j, "command", r->meta.command);
	json_kv_string(j, "hostname", r->meta.hostname);
	json_kv_string(j, "kernel", r->meta.release);
	json_kv_string(j, "tool", r->meta.tool_version);
	json_kv_string(j, "module", r->meta.module_version);
	json_kv_u64(j, "nr_cpus", in->nr_cpus);
	json_kv_string(j, "mode", in->ring_mode == PMUCTX_RING_OVERWRITE ?
		       "overwrite" : "normal");
	json_kv_u64(j, "ring_pages", in->ring_pages);
	json_kv_u64(j, "page_size", in->page_size);
	json_key(j, "records_mask");
	json_begin_array(j);
	for (i = 0; i < 6; i++)
		if (in->ring_records & (1U << i))
			json_string(j, names[i]);
	json_end_array(j);
	json_key(j, "events");
	json_begin_array(j);
	for (i = 0; i < in->nr_events; i++)
		json_string(j, event_label(in, i, lb, sizeof(lb)));
	json_end_array(j);
	json_key(j, "trigger");
	if (in->trigger_event && in->trigger_event <= in->nr_events) {
		json_begin_object(j);
		json_kv_string(j, "event", event_label(in,
			in->trigger_event - 1, lb, sizeof(lb)));
		json_kv_u64(j, "threshold", in->trigger_threshold);
		json_end_object(j);
	} else {
		json_null(j);
	}
	json_kv_u64(j, "start_monotonic_ns", in->start_mono_ns);
	json_kv_u64(j, "start_realtime_ns", in->start_real_ns);
}

/* "overwritten", "cpus" (what each CPU covers) and a trigger's "fired_by" */
static void json_window_cover(struct report *R, struct json *j,
			      const struct pmf_win *win)
{
	const struct pmuctx_rec_switch *trig = win_trigger(R, win);
	unsigned int n = win_nr_cpus(R, win), i;
	struct win_cpu *v = calloc(n ? n : 1, sizeof(*v));
	__u64 over = 0, st;
	char cb[32];

	if (v)
		win_cover(R, win, v, n);
	for (i = 0; v && i < n; i++)
		over += v[i].overwritten;
	json_kv_u64(j, "overwritten", over);
	json_key(j, "cpus");
	json_begin_array(j);
	for (i = 0; v && i < n; i++) {
		json_begin_object(j);
		json_kv_u64(j, "cpu", i);
		json_key(j, "first_ns");
		if (v[i].records)
			json_u64(j, v[i].first);
		else
			json_null(j);
		json_key(j, "last_ns");
		if (v[i].records)
			json_u64(j, v[i].last);
		else
			json_null(j);
		json_kv_u64(j, "records", v[i].records);
		json_kv_u64(j, "overwritten", v[i].overwritten);
		json_kv_u64(j, "lost", v[i].lost);
		json_end_object(j);
	}
	json_end_array(j);
	free(v);
	if (win->hdr.reason != PMF_WIN_TRIGGER)
		return;
	json_key(j, "fired_by");
	if (!trig) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_i64(j, "pid", trig->c.pid);
	json_kv_i64(j, "tid", trig->c.tid);
	json_kv_string(j, "comm", comm_of(R, trig->c.pid, trig->c.tid,
					  trig->c.cpu, cb, sizeof(cb)));
	json_kv_u64(j, "cpu", trig->c.cpu);
	json_key(j, "start_ns");
	if (slice_start(R, win, trig, &st))
		json_u64(j, st);
	else
		json_null(j);
	json_kv_u64(j, "end_ns", trig->c.time);
	json_kv_u64(j, "value", trig->delta[R->info->trigger_event - 1]);
	json_end_object(j);
}

static void json_window(struct report *R, struct json *j,
			const struct pmf_win *win)
{
	const struct pmf_reader *r = R->r;
	const struct pmuctx_rec_header **a;
	__u64 lost = 0;
	unsigned int i;
	size_t k;

	json_begin_object(j);
	json_kv_u64(j, "index", win->hdr.index);
	json_kv_string(j, "reason", pmf_reason_name(win->hdr.reason));
	json_kv_u64(j, "time_ns", win->hdr.time);
	json_kv_i64(j, "requester", win->hdr.requester);
	json_kv_bool(j, "complete", win->have_end);
	json_key(j, "lost_per_cpu");
	json_begin_array(j);
	for (i = 0; win->have_end && i < win->end.nr_cpus; i++) {
		json_u64(j, win->cpus[i].lost_window);
		lost += win->cpus[i].lost_window;
	}
	json_end_array(j);
	json_kv_u64(j, "lost", lost);
	json_window_cover(R, j, win);
	json_key(j, "records");
	json_begin_array(j);
	a = malloc((win->nr ? win->nr : 1) * sizeof(*a));
	if (a) {
		memcpy(a, r->recs + win->first, win->nr * sizeof(*a));
		qsort(a, win->nr, sizeof(*a), cmp_rec);
		for (k = 0; k < win->nr; k++)
			json_record(R, j, a[k]);
		free(a);
	}
	json_end_array(j);
	json_end_object(j);
}

static void json_tasks(struct report *R, struct json *j)
{
	struct task **v;
	size_t k, n;

	json_key(j, "tasks");
	json_begin_array(j);
	v = sorted_tasks(R, &n);
	for (k = 0; v && k < n; k++) {
		struct task *t = v[k];

		json_begin_object(j);
		json_kv_i64(j, "pid", t->pid);
		json_kv_i64(j, "tid", t->tid);
		json_key(j, "comm");
		if (t->have_comm || t->have_first)
			json_string_n(j, t->have_comm ? t->comm : t->first,
				      PMUCTX_COMM_LEN);
		else
			json_null(j);
		json_kv_u64(j, "slices", t->slices);
		json_values(j, R->info, "values", t->sum, R->info->nr_events);
		if (t->exited) {
			json_values(j, R->info, "exit", t->exitv, t->exit_nr);
		} else {
			json_key(j, "exit");
			json_null(j);
		}
		json_end_object(j);
	}
	free(v);
	json_end_array(j);
}

static void json_sampling(const struct pmf_info *in, struct json *j)
{
	static const char *const fl[] = {
		"kernel-stack", "user-stack", "defer-user", "user-dump",
	};
	unsigned int i;

	json_key(j, "sampling");
	if (!in->sample_freq) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_u64(j, "freq", in->sample_freq);
	json_kv_string(j, "source", in->sample_event ?
		       (sample_event_name(in) ? sample_event_name(in) :
			"unknown") : "hrtimer");
	json_key(j, "flags");
	json_begin_array(j);
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (in->sample_flags & (1U << i))
			json_string(j, fl[i]);
	json_end_array(j);
	json_kv_u64(j, "max_stack", in->sample_max_stack);
	json_kv_string(j, "call_graph",
		       (in->sample_flags & PMUCTX_SAMPLE_USER_DUMP) ? "dwarf" :
		       (in->sample_flags & PMUCTX_SAMPLE_DEFER_USER) ?
		       "defer" : (in->sample_flags &
				  PMUCTX_SAMPLE_USER_STACK) ? "fp" :
		       (in->sample_flags & PMUCTX_SAMPLE_KERNEL_STACK) ?
		       "kernel" : "none");
	json_end_object(j);
}

static void json_maps(const struct pmf_reader *r, struct json *j)
{
	size_t k;

	json_key(j, "maps");
	json_begin_array(j);
	for (k = 0; k < r->nr_maps; k++) {
		const struct pmf_map *m = &r->maps[k];

		json_begin_object(j);
		json_kv_i64(j, "pid", m->pid);
		json_kv_u64(j, "time_ns", m->time);
		json_kv_string(j, "reason", pmf_maps_reason_name(m->reason));
		json_key(j, "text");
		json_string_n(j, m->text, m->len);
		json_end_object(j);
	}
	json_end_array(j);
}

static void json_report(struct report *R, const char *path)
{
	const struct pmf_reader *r = R->r;
	struct json j;
	size_t w;

	json_init(&j, R->out);
	json_begin_object(&j);
	json_header(R, &j, path);
	json_kv_bool(&j, "complete", r->have_end &&
		     !(r->end.flags & PMF_END_OPEN) && !r->cut_short);
	json_key(&j, "exit_status");
	if (r->have_end && !(r->end.flags & PMF_END_OPEN))
		json_i64(&j, r->end.exit_status);
	else
		json_null(&j);
	json_kv_u64(&j, "lost_total", report_lost_total(R));
	json_key(&j, "windows");
	json_begin_array(&j);
	for (w = 0; w < r->nr_wins; w++)
		json_window(R, &j, &r->wins[w]);
	json_end_array(&j);
	json_tasks(R, &j);
	json_sampling(R->info, &j);
	json_maps(r, &j);
	json_end_object(&j);
	fputc('\n', R->out);
}

/* ---- perf script -------------------------------------------------------------- */

static void perf_frame(FILE *f, const struct prof_frame *fr)
{
	fprintf(f, "\t%16llx ", (unsigned long long)fr->addr);
	if (fr->name && fr->addr >= fr->sym_start)
		fprintf(f, "%s+0x%llx", fr->name,
			(unsigned long long)(fr->addr - fr->sym_start));
	else
		fprintf(f, "[unknown]");
	fprintf(f, " (%s)\n", fr->module ? fr->module :
		fr->kernel ? "[kernel.kallsyms]" : "[unknown]");
}

/*
 * A sample as perf script prints one recorded with -g: the header, then
 * its stitched callchain innermost first (kernel, then user), symbolized,
 * and a blank line.  Deferred samples whose user callchain never came show
 * their kernel part only.
 */
static void perf_sample(struct report *R, const struct pmuctx_rec_sample *sm)
{
	const struct prof_sample *x;
	FILE *f = R->out;
	__u32 i;

	const char *ev = sample_event_name(R->info);
	const struct pmuctx_rec_common *c = &sm->c;
	char cb[32];

	/*
	 * perf script's header of a sample with a callchain: the comm not
	 * padded, pid/tid, [cpu], time, the period and the event, ':' after
	 * it (then a space, as perf prints it).  One name per event, as perf
	 * prints its evsel's name whatever mode a sample interrupted: readers
	 * (stackcollapse-perf.pl, speedscope) keep the samples of the first
	 * event name they meet and drop the others.  The mode shows in the
	 * frames, as in perf's: kernel ones are in [kernel.kallsyms].
	 */
	fprintf(f, "%s %5d/%-5d [%03u] %5" PRIu64 ".%06" PRIu64 ": %10llu "
		"%s: \n",
		comm_of(R, c->pid, c->tid, c->cpu, cb, sizeof(cb)),
		(int)c->pid, (int)c->tid, c->cpu,
		(uint64_t)(c->time / 1000000000ULL),
		(uint64_t)(c->time % 1000000000ULL / 1000ULL),
		(unsigned long long)sm->period, ev ? ev : "cpu-clock");
	x = prof_find_sample(R->prof, sm->c.cpu, sm->c.time, sm->c.tid,
			     sm->ip);
	if (x) {
		for (i = 0; i < x->nr; i++)
			perf_frame(f, &R->prof->frames[R->prof->sample_frames[
					x->first + i] - 1]);
	} else {
		fprintf(f, "\t%16llx [unknown] (%s)\n",
			(unsigned long long)sm->ip,
			sm->hdr.misc & PMUCTX_SAMPLE_M_USER ? "[unknown]" :
			"[kernel.kallsyms]");
	}
	fputc('\n', f);
}

static void perf_line(struct report *R, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = common(h);
	FILE *f = R->out;
	char cb[32], cb2[32], st[8];
	const char *comm = !c->tid && !c->pid ? "swapper" :
			   comm_of(R, c->pid, c->tid, c->cpu, cb, sizeof(cb));

	switch (h->type) {
	case PMUCTX_REC_FORK:
	case PMUCTX_REC_EXEC:
	case PMUCTX_REC_EXIT:
		/*
		 * with samples, the task records are side-band, as perf's
		 * (perf script shows them with --show-task-events only):
		 * they name the tasks, a sample reader gets samples alone
		 */
		if (R->samples)
			return;
		break;
	case PMUCTX_REC_SWITCH:
	case PMUCTX_REC_USER:
		break;
	case PMUCTX_REC_SAMPLE:
		perf_sample(R, (const struct pmuctx_rec_sample *)h);
		return;
	default:
		return;
	}
	/* perf script's header of a tracepoint: the comm right-aligned */
	fprintf(f, "%16s %6d [%03u] %5" PRIu64 ".%06" PRIu64 ": ", comm,
		(int)c->tid, c->cpu, (uint64_t)(c->time / 1000000000ULL),
		(uint64_t)(c->time % 1000000000ULL / 1000ULL));
	switch (h->type) {
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)h;

		report_state_str(s->prev_state,
				 h->misc & PMUCTX_SWITCH_PREEMPT, st,
				 sizeof(st));
		fprintf(f, "pmuctx:sched_switch: prev_comm=%s prev_pid=%d "
			"prev_state=%s ==> next_comm=%s next_pid=%d\n",
			comm_of(R, c->pid, c->tid, c->cpu, cb, sizeof(cb)),
			(int)c->tid, st,
			comm_of(R, s->next_pid, s->next_tid, c->cpu, cb2,
				sizeof(cb2)), (int)s->next_tid);
		break;
	}
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *k = (const void *)h;

		fprintf(f, "pmuctx:sched_process_fork: comm=%s pid=%d "
			"child_comm=%s child_pid=%d\n", comm, (int)c->tid,
			comm, (int)k->child_tid);
		break;
	}
	case PMUCTX_REC_EXEC: {
		const struct pmuctx_rec_exec *e = (const void *)h;

		fprintf(f, "pmuctx:sched_process_exec: filename=%s pid=%d "
			"old_pid=%d\n", h->size > sizeof(*e) ? e->filename :
			"", (int)c->tid, (int)c->tid);
		break;
	}
	case PMUCTX_REC_EXIT:
		fprintf(f, "pmuctx:sched_process_exit: comm=%s pid=%d\n",
			comm, (int)c->tid);
		break;
	case PMUCTX_REC_USER: {
		const struct pmuctx_rec_user *u = (const void *)h;

		fprintf(f, "pmuctx:user: len=%u data=\"", u->len);
		print_escaped(f, u->data, u->len);
		fprintf(f, "\"\n");
		break;
	}
	}
}

/* ---- profiles ---------------------------------------------------------------- */

struct prof_opts {
	enum prof_weight weight;
	bool stitch_stats;
	const char *kallsyms;
	const char *output;
};

static bool has_samples(const struct pmuctx_rec_header *const *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i]->type == PMUCTX_REC_SAMPLE)
			return true;
	return false;
}

static int build_profile(struct report *R, const struct pmuctx_rec_header **a,
			 size_t n, const struct prof_opts *po, bool lines,
			 bool keep_samples, struct prof **out)
{
	const struct pmf_reader *r = R->r;
	struct prof_maps *maps;
	struct prof_input in;
	char err[512];
	size_t i;
	int e;

	maps = calloc(r->nr_maps ? r->nr_maps : 1, sizeof(*maps));
	if (!maps) {
		fprintf(stderr, "pmuctx report: out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < r->nr_maps; i++) {
		maps[i].pid = r->maps[i].pid;
		maps[i].time = r->maps[i].time;
		maps[i].text = r->maps[i].text;
		maps[i].len = r->maps[i].len;
	}
	memset(&in, 0, sizeof(in));
	in.recs = a;
	in.nr_recs = n;
	in.maps = maps;
	in.nr_maps = r->nr_maps;
	in.sample_freq = R->info->sample_freq;
	in.event = sample_event_name(R->info);
	in.period_events = !sample_period_ns(R->info);
	in.start_real_ns = R->info->start_real_ns;
	if (r->have_end && r->end.time > R->info->start_mono_ns)
		in.duration_ns = r->end.time - R->info->start_mono_ns;
	in.kallsyms = po->kallsyms;
	in.lines = lines;
	in.keep_samples = keep_samples;
	e = prof_build(&in, out, err, sizeof(err));
	free(maps);
	if (e)
		fprintf(stderr, "pmuctx report: %s\n", err);
	return e;
}

static void profile_notes(const struct prof *p, const struct pmf_reader *r)
{
	if (p->have_stats && p->stats.deferred && p->stats.unresolved * 10 >
	    p->stats.deferred)
		fprintf(stderr, "pmuctx report: %llu of %llu deferred samples "
			"have no user callchain (the task exited or was "
			"killed in the kernel, or records were lost)\n",
			(unsigned long long)p->stats.unresolved,
			(unsigned long long)p->stats.deferred);
	if (p->total_count && !r->nr_maps)
		fprintf(stderr, "pmuctx report: the file has no memory maps "
			"(recorded by an older pmuctx?): user frames are "
			"unknown\n");
}

/* ---- entry ----------------------------------------------------------------- */

struct report_args {
	const char *path;	/* -i */
	bool have_fmt;		/* --format was given */
	unsigned int flags;	/* PMF_READ_* */
	bool summary;
	struct prof_opts po;
};

static bool parse_format(const char *s, enum fmt *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = FMT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = FMT_JSON;
	else if (!strcmp(s, "perf-script"))
		*fmt = FMT_PERF;
	else if (!strcmp(s, "folded"))
		*fmt = FMT_FOLDED;
	else if (!strcmp(s, "pprof"))
		*fmt = FMT_PPROF;
	else
		return false;
	return true;
}

/* one option: 0, or the exit status (-1 after --help) */
static int report_opt(struct report *R, struct report_args *a, int c,
		      char **argv)
{
	switch (c) {
	case 'i':
		a->path = optarg;
		return 0;
	case 'F':
		if (!parse_format(optarg, &R->fmt))
			return usage_error(CMD, "--format '%s': expected "
				"text, json, perf-script, folded or pprof",
				optarg);
		a->have_fmt = true;
		return 0;
	case 'o':
		if (!*optarg)
			return usage_error(CMD, "-o needs a file name");
		a->po.output = optarg;
		return 0;
	case 'W':
		if (!strcmp(optarg, "samples"))
			a->po.weight = PROF_WEIGHT_SAMPLES;
		else if (!strcmp(optarg, "period"))
			a->po.weight = PROF_WEIGHT_PERIOD;
		else
			return usage_error(CMD, "--weight '%s': expected "
					   "samples or period", optarg);
		return 0;
	case 'T':
		a->po.stitch_stats = true;
		return 0;
	case 'K':
		a->po.kallsyms = optarg;
		return 0;
	case 'P':
		a->flags |= PMF_READ_PARTIAL;
		return 0;
	case 'S':
		a->summary = true;
		return 0;
	case 'h':
		print_cmd_help(&cmd_report, stdout);
		return -1;
	default:
		return option_error(CMD, c, argv);
	}
}

/* 0, or the exit status (-1 after --help) */
static int parse_report_opts(int argc, char **argv, struct report *R,
			     struct report_args *a)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'F' },
		{ "partial", no_argument, NULL, 'P' },
		{ "summary", no_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "weight", required_argument, NULL, 'W' },
		{ "stitch-stats", no_argument, NULL, 'T' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:i:o:h", longopts, NULL)) !=
	       -1) {
		ret = report_opt(R, a, c, argv);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error(CMD, "unexpected argument '%s' (the file "
				   "goes after -i)", argv[optind]);
	if (R->fmt == FMT_PPROF && !a->po.output && isatty(1))
		return usage_error(CMD, "--format pprof writes a binary "
				   "(gzip'd protobuf): give -o FILE, e.g. "
				   "-o prof.pb.gz");
	return 0;
}

/* why a recording has no samples, for the hint */
static const char *no_samples_why(const struct pmf_info *in)
{
	return !in->sample_freq ?
	       "recorded without sampling (pmuctx record --no-samples; "
	       "earlier versions sampled only with -F or -g)" :
	       "no monitored task ran while sampled";
}

/*
 * the profile of the samples, for the formats that show it (and
 * --stitch-stats): 0, or EXIT_RUNTIME (printed)
 */
static int report_profile(struct report *R, const struct report_args *a,
			  const struct pmuctx_rec_header **all, size_t n,
			  bool samples, struct prof **prof)
{
	enum fmt f = R->fmt;

	if (!(f == FMT_FOLDED || f == FMT_PPROF || a->po.stitch_stats ||
	      ((f == FMT_TEXT || f == FMT_PERF) && samples)))
		return 0;
	if (build_profile(R, all, n, &a->po, f == FMT_PPROF, f == FMT_PERF,
			  prof))
		return EXIT_RUNTIME;
	if (f == FMT_FOLDED || f == FMT_PPROF || f == FMT_TEXT ||
	    f == FMT_PERF)
		profile_notes(*prof, R->r);
	R->prof = *prof;
	if ((f == FMT_FOLDED || f == FMT_PPROF) && !samples)
		fprintf(stderr, "pmuctx report: %s has no samples (%s)\n",
			a->path, no_samples_why(R->info));
	return 0;
}

/* text: the "# sampling:" line of the header */
static void text_sampling(struct report *R)
{
	const struct pmf_info *in = R->info;

	fprintf(R->out, "# sampling: %u Hz per CPU (%s%s), %s, up to %u "
		"frames per part, %zu memory map(s)\n", in->sample_freq,
		in->sample_event ? "on overflow of " : "hrtimer",
		in->sample_event ? (sample_event_name(in) ?
				    sample_event_name(in) : "?") : "",
		(in->sample_flags & PMUCTX_SAMPLE_USER_DUMP) ?
		"deferred user stack dumps (dwarf)" :
		(in->sample_flags & PMUCTX_SAMPLE_DEFER_USER) ?
		"deferred user callchains" :
		(in->sample_flags & PMUCTX_SAMPLE_USER_STACK) ?
		"user callchains in the samples" :
		(in->sample_flags & PMUCTX_SAMPLE_KERNEL_STACK) ?
		"kernel callchains" : "no callchains",
		in->sample_max_stack, R->r->nr_maps);
}

static void text_report(struct report *R, const struct report_args *a,
			bool samples, struct prof *prof)
{
	const struct pmf_reader *r = R->r;
	size_t w, i;

	text_header(R, a->path);
	if (R->info->sample_freq)
		text_sampling(R);
	/* the walk restarts for the windows' names */
	for (i = 0; i < R->cap; i++)
		R->tasks[i].have_comm = false;
	/* a profile: the samples in a table, not one per line */
	for (w = 0; w < r->nr_wins; w++)
		text_window(R, &r->wins[w], a->summary || samples);
	if (samples) {
		fputc('\n', R->out);
		prof_write_text(prof, a->po.weight, R->out);
	}
	if (!r->nr_wins)
		fprintf(R->out, "\n# no windows: nothing was written (an "
			"overwrite-mode recording writes at SIGUSR2, pmuctx "
			"snapshot, a trigger or the end)\n");
	text_tasks(R);
}

static void perf_report(struct report *R,
			const struct pmuctx_rec_header **all, size_t n)
{
	size_t i, k;

	for (i = 0; i < R->cap; i++)
		R->tasks[i].have_comm = false;
	for (k = 0; k < n; k++) {
		account(R, all[k], false);
		perf_line(R, all[k]);
	}
	if (report_lost_total(R))
		fprintf(stderr, "pmuctx report: %llu record(s) were lost while "
			"recording\n",
			(unsigned long long)report_lost_total(R));
}

static void write_report(struct report *R, const struct report_args *a,
			 const struct pmuctx_rec_header **all, size_t n,
			 bool samples, struct prof *prof)
{
	if (a->po.stitch_stats && !a->have_fmt) {
		prof_write_stitch_stats(prof, R->out);
		return;
	}
	switch (R->fmt) {
	case FMT_FOLDED:
		if (prof_write_folded(prof, a->po.weight, R->out))
			fprintf(stderr, "pmuctx report: out of memory\n");
		break;
	case FMT_PPROF:
		if (prof_write_pprof(prof, R->out))
			fprintf(stderr, "pmuctx report: cannot encode the "
				"pprof profile\n");
		break;
	case FMT_TEXT:
		text_report(R, a, samples, prof);
		break;
	case FMT_JSON:
		json_report(R, a->path);
		break;
	case FMT_PERF:
		perf_report(R, all, n);
		break;
	}
	if (a->po.stitch_stats)
		prof_write_stitch_stats(prof, stderr);
}

/* flush and close the output: 0, or EXIT_RUNTIME (printed) */
static int close_output(struct report *R, FILE *out_file, const char *name)
{
	int ret = 0;

	if (fflush(R->out) || ferror(R->out)) {
		fprintf(stderr, "pmuctx report: cannot write the output: "
			"%s\n", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	if (out_file && fclose(out_file)) {
		fprintf(stderr, "pmuctx report: cannot write %s: %s\n",
			name, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;
}

static int report_run(int argc, char **argv)
{
	struct report_args a = { .path = "pmuctx.data",
				 .po = { .weight = PROF_WEIGHT_PERIOD } };
	struct report R = { .fmt = FMT_TEXT, .out = stdout };
	const struct pmuctx_rec_header **all = NULL;
	struct pmf_reader *r = NULL;
	struct prof *prof = NULL;
	FILE *out_file = NULL;
	char err[1024];
	size_t n = 0, k;
	bool samples;
	int ret;

	ret = parse_report_opts(argc, argv, &R, &a);
	if (ret)
		return ret < 0 ? 0 : ret;	/* -1: --help */
	ret = pmf_read(a.path, a.flags, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuctx report: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (r->cut_short)
		fprintf(stderr, "pmuctx report: warning: %s\n", r->warning);
	R.r = r;
	R.info = &r->meta.info;

	/* names first seen, then sums over the distinct records */
	ret = EXIT_RUNTIME;
	all = merged(r, &n);
	if (!all || first_comms(&R, all, n)) {
		fprintf(stderr, "pmuctx report: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++)
		account(&R, all[k], true);
	samples = has_samples(all, n);
	R.samples = samples;
	if (report_profile(&R, &a, all, n, samples, &prof))
		goto out;
	if (a.po.output) {
		out_file = fopen(a.po.output, "we");
		if (!out_file) {
			fprintf(stderr, "pmuctx report: cannot create %s: "
				"%s\n", a.po.output, strerror(errno));
			goto out;
		}
		R.out = out_file;
	}
	write_report(&R, &a, all, n, samples, prof);
	ret = close_output(&R, out_file, a.po.output);
	out_file = NULL;
out:
	if (out_file)
		fclose(out_file);
	prof_free(prof);
	free(all);
	free(R.tasks);
	pmf_free(r);
	return ret;
}

const struct cmd cmd_report = {
	.name = "report",
	.summary = "print a recording made by pmuctx record",
	.help = report_help,
	.run = report_run,
};
