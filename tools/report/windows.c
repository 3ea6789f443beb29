// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: what a window covers (per CPU: the span of its records,
 * how many the kernel overwrote and lost since the previous window), the
 * loss total every output prints, and the slice that fired a trigger
 * window.
 */
#include <stdlib.h>
#include <string.h>

#include "report/records.h"
#include "report/windows.h"

unsigned int report_win_nr_cpus(const struct report *R,
				const struct pmf_win *w)
{
	return w->have_end ? w->end.nr_cpus : R->info->nr_cpus;
}

/* @v: report_win_nr_cpus() elements; a window not finished has no counts */
void report_win_cover(const struct report *R, const struct pmf_win *w,
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
__u64 report_lost_total(const struct report *R)
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
const struct pmuctx_rec_switch *report_win_trigger(const struct report *R,
						   const struct pmf_win *w)
{
	const struct pmf_info *in = R->info;
	const struct pmuctx_rec_switch *best = NULL;
	unsigned int ev = in->trigger_event, n = report_win_nr_cpus(R, w);
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
bool report_slice_start(const struct report *R, const struct pmf_win *w,
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
