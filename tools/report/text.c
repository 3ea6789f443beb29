// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report --format text, for people: the recording's header, every
 * window (why it was taken, what each CPU covers and lost, the slice that
 * fired a trigger, its records in time order), the profile of the
 * samples as perf report --stdio shows it (tools/profile), the per-task
 * summary.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/records.h"
#include "report/tasks.h"
#include "report/text.h"
#include "report/windows.h"

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
		fprintf(f, " %s", report_event_label(in, i, lb, sizeof(lb)));
	fprintf(f, "\n");
	if (in->trigger_event && in->trigger_event <= in->nr_events) {
		fprintf(f, "# trigger:  %s > ", report_event_label(in,
			in->trigger_event - 1, lb, sizeof(lb)));
		report_print_value(f, in, in->trigger_event - 1,
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

static void text_throttle(FILE *f, const struct pmuctx_rec_header *h)
{
	struct pmuctx_rec_throttle t;

	report_throttle_of(h, &t);
	if (h->misc & PMUCTX_THROTTLE_BUDGET)
		fprintf(f, " budget: %llu sample(s) not taken, the CPU's "
			"budget allows one per %llu ns (sample cost %llu ns)",
			(unsigned long long)t.dropped,
			(unsigned long long)t.period_ns,
			(unsigned long long)t.avg_ns);
	else if (h->misc & PMUCTX_THROTTLE_PERF)
		fprintf(f, " perf: the sampling counter stopped %llu "
			"time(s), each up to %llu ns (one tick)",
			(unsigned long long)t.dropped,
			(unsigned long long)t.period_ns);
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
		report_sample_period_ns(in) ? "ns" : "events", sm->nr_kernel,
		sm->nr_user, sm->hdr.misc & PMUCTX_SAMPLE_M_USER_DEFERRED ?
		", user stack deferred" : "");
}

static void text_record(struct report *R, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = rec_common(h);
	const struct pmf_info *in = R->info;
	FILE *f = R->out;
	char cb[32], cb2[32], st[8], lb[32];
	const char *tn = pmuctx_record_type_name(h->type);
	unsigned int i, nr;

	fprintf(f, "  %6" PRIu64 ".%09" PRIu64 " [%03u] %7d/%-7d %-16s %-6s",
		(uint64_t)(c->time / 1000000000ULL),
		(uint64_t)(c->time % 1000000000ULL), c->cpu, (int)c->pid,
		(int)c->tid, report_comm_of(R, c->pid, c->tid, c->cpu, cb,
					    sizeof(cb)),
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
			(int)s->next_tid,
			report_comm_of(R, s->next_pid, s->next_tid, c->cpu,
				       cb2, sizeof(cb2)));
		nr = s->nr < PMUCTX_MAX_EVENTS ? s->nr : PMUCTX_MAX_EVENTS;
		for (i = 0; i < nr; i++) {
			fprintf(f, " %s=",
				report_event_label(in, i, lb, sizeof(lb)));
			report_print_value(f, in, i, s->delta[i]);
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
			report_print_escaped(f,
					     (const unsigned char *)e->filename,
					     strlen(e->filename));
		break;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *e = (const void *)h;

		fprintf(f, " totals:");
		nr = e->nr < PMUCTX_MAX_EVENTS ? e->nr : PMUCTX_MAX_EVENTS;
		for (i = 0; i < nr; i++) {
			fprintf(f, " %s=",
				report_event_label(in, i, lb, sizeof(lb)));
			report_print_value(f, in, i, e->values[i]);
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
		report_print_escaped(f, u->data, u->len > 64 ? 64 : u->len);
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
	const struct pmuctx_rec_switch *trig = report_win_trigger(R, w);
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
		report_comm_of(R, trig->c.pid, trig->c.tid, trig->c.cpu, cb,
			       sizeof(cb)), (int)trig->c.pid, (int)trig->c.tid,
		trig->c.cpu);
	if (report_slice_start(R, w, trig, &st)) {
		print_time(f, st);
		fprintf(f, " .. ");
	} else {
		fprintf(f, "ending at ");
	}
	print_time(f, trig->c.time);
	fprintf(f, " s, %s=", report_event_label(in, ev, lb, sizeof(lb)));
	report_print_value(f, in, ev, trig->delta[ev]);
	fprintf(f, " > ");
	report_print_value(f, in, ev, in->trigger_threshold);
	fprintf(f, "\n");
}

static void text_window(struct report *R, const struct pmf_win *w,
			bool summary)
{
	const struct pmf_reader *r = R->r;
	const struct pmuctx_rec_header **a;
	unsigned int n = report_win_nr_cpus(R, w);
	struct win_cpu *v;
	FILE *f = R->out;
	size_t k;

	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return;
	report_win_cover(R, w, v, n);
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
	qsort(a, w->nr, sizeof(*a), report_cmp_rec);
	fprintf(f, "#  %16s  CPU %15s %-16s %-6s DETAILS\n", "TIME (s)",
		"PID/TID", "COMM", "RECORD");
	for (k = 0; k < w->nr; k++) {
		report_account(R, a[k], false);
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

	v = report_sorted_tasks(R, &n);
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
			fprintf(f, " %s=",
				report_event_label(in, i, lb, sizeof(lb)));
			report_print_value(f, in, i, t->sum[i]);
		}
		if (t->exited) {
			fprintf(f, " | exit:");
			for (i = 0; i < t->exit_nr; i++) {
				fprintf(f, " %s=", report_event_label(in, i, lb,
							      sizeof(lb)));
				report_print_value(f, in, i, t->exitv[i]);
			}
		}
		fputc('\n', f);
	}
	free(v);
}

/* text: the "# sampling:" line of the header */
static void text_sampling(struct report *R)
{
	const struct pmf_info *in = R->info;

	fprintf(R->out, "# sampling: %u Hz per CPU (%s%s), %s, up to %u "
		"frames per part, %zu memory map(s)\n", in->sample_freq,
		in->sample_event ? "on overflow of " : "hrtimer",
		in->sample_event ? (report_sample_event(in) ?
				    report_sample_event(in) : "?") : "",
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

void report_text(struct report *R, const struct report_args *a,
		 bool samples, struct prof *prof)
{
	const struct pmf_reader *r = R->r;
	size_t w, i;

	bool walk = !a->summary && !samples, *named;

	text_header(R, a->path);
	if (R->info->sample_freq)
		text_sampling(R);
	/*
	 * the walk restarts for the windows' names; without their records
	 * (--summary, a profile) the per-task summary keeps the names of
	 * the whole file's walk (a forked thread's is its parent's)
	 */
	named = walk ? NULL : calloc(R->cap ? R->cap : 1, sizeof(*named));
	for (i = 0; i < R->cap; i++) {
		if (named)
			named[i] = R->tasks[i].have_comm;
		R->tasks[i].have_comm = false;
	}
	/* a profile: the samples in a table, not one per line */
	for (w = 0; w < r->nr_wins; w++)
		text_window(R, &r->wins[w], !walk);
	for (i = 0; named && i < R->cap; i++)
		R->tasks[i].have_comm = named[i];
	free(named);
	if (samples) {
		fputc('\n', R->out);
		prof_write_text_opts(prof, &a->table, R->out);
	}
	if (!r->nr_wins)
		fprintf(R->out, "\n# no windows: nothing was written (an "
			"overwrite-mode recording writes at SIGUSR2, pmuctx "
			"snapshot, a trigger or the end)\n");
	text_tasks(R);
}
