// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: the records of a file in time order (the windows may
 * overlap: each distinct record once), and the fields every output
 * prints the same way: process states, event names and values, the
 * sampled event, escaped bytes, THROTTLE records of any size.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/records.h"

int report_read(struct report *R, const char *path, unsigned int flags,
		const char *cmd, struct pmf_reader **out)
{
	char err[1024];

	if (pmf_read(path, flags, out, err, sizeof(err))) {
		fprintf(stderr, "pmuctx %s: %s\n", cmd, err);
		return EXIT_RUNTIME;
	}
	if ((*out)->cut_short)
		fprintf(stderr, "pmuctx %s: warning: %s\n", cmd,
			(*out)->warning);
	R->r = *out;
	R->info = &(*out)->meta.info;
	return 0;
}

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

const char *report_event_label(const struct pmf_info *info, unsigned int i,
			       char *buf, size_t len)
{
	const char *n = i < info->nr_events ?
			pmuctx_event_name((int)info->events[i]) : NULL;

	if (n)
		return n;
	if (i < info->nr_events && info->events[i] == PMUCTX_EV_RAW)
		snprintf(buf, len, "raw%u", i);
	else
		snprintf(buf, len, "event%u", i);
	return buf;
}

static bool is_ns(const struct pmf_info *info, unsigned int i)
{
	const char *u = i < info->nr_events ?
			pmuctx_event_unit((int)info->events[i]) : NULL;

	return u && !strcmp(u, "ns");
}

void report_print_value(FILE *f, const struct pmf_info *info, unsigned int i,
			__u64 v)
{
	if (is_ns(info, i))
		fprintf(f, "%.3f ms", (double)v / 1e6);
	else
		fprintf(f, "%" PRIu64, (uint64_t)v);
}

void report_print_escaped(FILE *f, const unsigned char *p, size_t n)
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

int report_cmp_rec(const void *a, const void *b)
{
	const struct pmuctx_rec_header *x = *(const void *const *)a;
	const struct pmuctx_rec_header *y = *(const void *const *)b;
	const struct pmuctx_rec_common *cx = rec_common(x), *cy = rec_common(y);

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
const struct pmuctx_rec_header **report_merged(const struct pmf_reader *r,
					       size_t *n)
{
	const struct pmuctx_rec_header **a;
	size_t i, k = 0;

	*n = 0;
	a = malloc((r->nr_recs ? r->nr_recs : 1) * sizeof(*a));
	if (!a)
		return NULL;
	memcpy(a, r->recs, r->nr_recs * sizeof(*a));
	qsort(a, r->nr_recs, sizeof(*a), report_cmp_rec);
	for (i = 0; i < r->nr_recs; i++)
		if (!k || !same_rec(a[k - 1], a[i]))
			a[k++] = a[i];
	*n = k;
	return a;
}

/* The sampled event of a recording: NULL for the hrtimer (cpu-clock). */
const char *report_sample_event(const struct pmf_info *in)
{
	/* the file keeps ids: a raw event's config and modes are not in it */
	if (in->sample_event == PMUCTX_EV_RAW)
		return "raw";
	return in->sample_event ? pmuctx_event_name((int)in->sample_event) :
				  NULL;
}

/* Periods of the recording's samples are ns (hrtimer, clock events). */
bool report_sample_period_ns(const struct pmf_info *in)
{
	const char *u;

	if (!in->sample_event)
		return true;
	u = pmuctx_event_unit((int)in->sample_event);
	return u && !strcmp(u, "ns");
}

/*
 * The hrtimer sampler's period (ns) at the recording's frequency: as the
 * module sets it, 1/frequency but at least 10 us (perf's floor).
 */
__u64 report_nominal_period_ns(const struct pmf_info *in)
{
	__u64 p = in->sample_freq ? 1000000000ULL / in->sample_freq : 0;

	return p < 10000 ? 10000 : p;
}

/*
 * THROTTLE (docs/FILE-FORMAT.md): the global budget's refusals, or the
 * sampler slowing down or relaxing on one CPU.  A record of an older
 * module stops before @dropped.
 */
void report_throttle_of(const struct pmuctx_rec_header *h,
			struct pmuctx_rec_throttle *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t, h, h->size < sizeof(*t) ? h->size : sizeof(*t));
}
