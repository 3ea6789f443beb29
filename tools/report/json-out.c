// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report --format json: the recording as one JSON object, its
 * header, every window with its coverage and records, the tasks, the
 * sampling parameters and the memory maps.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report/json-out.h"
#include "report/records.h"
#include "report/tasks.h"
#include "report/windows.h"

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
		json_kv_u64(j, report_event_label(in, i, lb, sizeof(lb)), v[i]);
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

		report_throttle_of(h, &t);
		json_kv_string(j, "kind", h->misc & PMUCTX_THROTTLE_BUDGET ?
			       "budget" : h->misc & PMUCTX_THROTTLE_PERF ?
			       "perf" : h->misc & PMUCTX_THROTTLE_ON ?
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
	const struct pmuctx_rec_common *c = rec_common(h);
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
		json_string(j, report_event_label(in, i, lb, sizeof(lb)));
	json_end_array(j);
	json_key(j, "trigger");
	if (in->trigger_event && in->trigger_event <= in->nr_events) {
		json_begin_object(j);
		json_kv_string(j, "event", report_event_label(in,
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
	const struct pmuctx_rec_switch *trig = report_win_trigger(R, win);
	unsigned int n = report_win_nr_cpus(R, win), i;
	struct win_cpu *v = calloc(n ? n : 1, sizeof(*v));
	__u64 over = 0, st;
	char cb[32];

	if (v)
		report_win_cover(R, win, v, n);
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
	json_kv_string(j, "comm", report_comm_of(R, trig->c.pid, trig->c.tid,
						 trig->c.cpu, cb, sizeof(cb)));
	json_kv_u64(j, "cpu", trig->c.cpu);
	json_key(j, "start_ns");
	if (report_slice_start(R, win, trig, &st))
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
		qsort(a, win->nr, sizeof(*a), report_cmp_rec);
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
	v = report_sorted_tasks(R, &n);
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
		       (report_sample_event(in) ? report_sample_event(in) :
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

void report_json(struct report *R, const char *path)
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
