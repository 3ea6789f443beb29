// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx stat -I MSEC: while counting, every MSEC the session's counts
 * are read and what each event counted since the previous read is
 * printed, one line per event, as perf stat -I prints it:
 *
 *	#           time             counts unit events
 *	     1.000187433              1,000.29 msec task-clock
 *	     1.000187433                    12      context-switches
 *
 * (-x SEP: TIME SEP VALUE SEP UNIT SEP EVENT; --json: one object per
 * interval and line).  The last interval ends when counting does.
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "stat-format.h"
#include "stat-interval.h"

void stat_interval_start(struct stat_interval *iv, uint64_t now)
{
	memset(&iv->prev, 0, sizeof(iv->prev));
	iv->start = now;
	iv->next = now + iv->every_ns;
}

int stat_interval_timeout(const struct stat_interval *iv, uint64_t now)
{
	if (!iv->every_ns)
		return -1;
	return iv->next <= now ? 0 : (int)((iv->next - now + 999999) /
					   1000000);
}

static uint64_t delta(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

static void print_human(struct stat_interval *iv, double t,
			const struct pmuctx_counts *c)
{
	char vb[48], nb[32];
	unsigned int i;

	if (!iv->header_done)
		fprintf(iv->out, "#%15s %22s %-4s %s\n", "time", "counts",
			"unit", "events");
	for (i = 0; i < c->nr_events; i++) {
		const char *u = pmuctx_event_unit(c->events[i]);
		bool ns = u && !strcmp(u, "ns");
		uint64_t v = delta(c->values[i], iv->prev.values[i]);

		if (ns)
			fmt_msec(vb, sizeof(vb), v);
		else
			fmt_grouped_u64(vb, sizeof(vb), v);
		fprintf(iv->out, "%16.9f %22s %-4s %s\n", t, vb,
			ns ? "msec" : "",
			stat_event_name(i, c->events[i], nb, sizeof(nb)));
	}
}

static void print_csv(struct stat_interval *iv, double t,
		      const struct pmuctx_counts *c)
{
	const char *s = iv->sep;
	unsigned int i;
	char nb[64];

	for (i = 0; i < c->nr_events; i++) {
		const char *u = pmuctx_event_unit(c->events[i]);

		fprintf(iv->out, "%.9f%s%" PRIu64 "%s%s%s%s\n", t, s,
			delta(c->values[i], iv->prev.values[i]), s,
			u ? u : "", s,
			stat_event_name(i, c->events[i], nb, sizeof(nb)));
	}
}

static void print_json(struct stat_interval *iv, double t,
		       const struct pmuctx_counts *c)
{
	struct json j;
	unsigned int i;
	char nb[64];

	json_init(&j, iv->out);
	json_begin_object(&j);
	json_key(&j, "interval");
	json_double(&j, t);
	json_key(&j, "events");
	json_begin_array(&j);
	for (i = 0; i < c->nr_events; i++) {
		const char *u = pmuctx_event_unit(c->events[i]);

		json_begin_object(&j);
		json_kv_string(&j, "event", stat_event_name(i, c->events[i], nb,
							    sizeof(nb)));
		json_kv_u64(&j, "value", delta(c->values[i],
					       iv->prev.values[i]));
		json_kv_string(&j, "unit", u ? u : "");
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', iv->out);
}

/* read the counts and print what each event counted since the last read */
static void print_interval(struct stat_interval *iv, struct pmuctx *h,
			   uint64_t at)
{
	struct pmuctx_counts c;
	double t = (double)(at - iv->start) / 1e9;

	if (pmuctx_read(h, &c, NULL))
		return;		/* the final read says why */
	if (iv->json)
		print_json(iv, t, &c);
	else if (iv->sep)
		print_csv(iv, t, &c);
	else
		print_human(iv, t, &c);
	iv->header_done = true;
	iv->prev = c;
	fflush(iv->out);
}

void stat_interval_tick(struct stat_interval *iv, struct pmuctx *h,
			uint64_t now)
{
	if (!iv->every_ns || now < iv->next)
		return;
	print_interval(iv, h, now);
	/* a late wake-up (a stopped terminal) skips the intervals missed */
	while (iv->next <= now)
		iv->next += iv->every_ns;
}

void stat_interval_end(struct stat_interval *iv, struct pmuctx *h,
		       uint64_t now)
{
	if (iv->every_ns && now > iv->next - iv->every_ns)
		print_interval(iv, h, now);
}
