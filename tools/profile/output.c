// SPDX-License-Identifier: GPL-2.0
/*
 * Profile writers: folded stacks, the stitcher's counters.  (pprof:
 * pprof.c; the perf-report-like table: table.c.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hidx.h"
#include "profile.h"

static __u64 weight_of(const struct prof_stack *s, enum prof_weight w)
{
	return prof_stack_weight(s, w);
}

/* ---- folded ---------------------------------------------------------- */

struct fline {
	char *text;
	__u64 value;
};

static int cmp_fline(const void *a, const void *b)
{
	const struct fline *x = a, *y = b;

	return strcmp(x->text, y->text);
}

/* "comm;outermost user;...;innermost user;outermost kernel;...;leaf" */
static char *folded_line(const struct prof *p, const struct prof_stack *s)
{
	size_t len = strlen(s->comm) + 1, pos;
	__u32 i;
	char *t;

	for (i = 0; i < s->nr; i++)
		len += strlen(p->frames[s->frames[i] - 1].label) + 1;
	t = malloc(len + 1);
	if (!t)
		return NULL;
	pos = (size_t)sprintf(t, "%s", *s->comm ? s->comm : "?");
	for (i = s->nr; i-- > s->nr_kernel;)
		pos += (size_t)sprintf(t + pos, ";%s",
				       p->frames[s->frames[i] - 1].label);
	for (i = s->nr_kernel; i-- > 0;)
		pos += (size_t)sprintf(t + pos, ";%s",
				       p->frames[s->frames[i] - 1].label);
	/* a comm cannot hold ';' or spaces in folded stacks' first field */
	for (i = 0; t[i] && t[i] != ';'; i++)
		if (t[i] == ' ')
			t[i] = '_';
	return t;
}

/* what a count is: the period, capped (the default), raw, or samples */
const char *prof_weight_desc(const struct prof *p, enum prof_weight w)
{
	if (w == PROF_WEIGHT_SAMPLES)
		return "samples (the number of samples; perf weights by "
		       "period: --weight period)";
	if (w == PROF_WEIGHT_RAW_PERIOD)
		return !p->period_events ?
		       "raw-period (ns of CPU time since each sample's "
		       "previous one, as recorded: a late tick or a stall "
		       "weighs all of it; --weight period caps it)" :
		       "raw-period (events the samples stand for, as "
		       "recorded: the same as --weight period)";
	if (p->cap_period)
		return "period (ns of CPU time the samples stand for, each "
		       "capped at the sampling period in effect on its CPU "
		       "(1/frequency, longer while throttled), as perf "
		       "weights them; --weight raw-period: uncapped, "
		       "--weight samples counts samples)";
	return !p->period_events ?
	       "period (ns of CPU time the samples stand for, as perf "
	       "weights them; --weight samples counts samples)" :
	       "period (events the samples stand for, as perf weights "
	       "them; --weight samples counts samples)";
}

/*
 * One comment line first: flamegraph.pl skips it (and says "Ignored 1
 * lines with invalid format"), speedscope skips lines that are not
 * "stack count"; it ends in no number, so nothing reads it as a stack.
 */
static void folded_header(const struct prof *p, enum prof_weight w, FILE *f)
{
	fprintf(f, "# pmuctx folded stacks, weight: %s\n",
		prof_weight_desc(p, w));
}

int prof_write_folded(const struct prof *p, enum prof_weight w, FILE *f)
{
	struct fline *v;
	size_t i, n = 0;
	int err = 0;

	v = calloc(p->nr_stacks ? p->nr_stacks : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nr_stacks; i++) {
		__u64 val = weight_of(&p->stacks[i], w);

		if (!val)
			continue;
		v[n].text = folded_line(p, &p->stacks[i]);
		if (!v[n].text) {
			err = -ENOMEM;
			goto out;
		}
		v[n++].value = val;
	}
	qsort(v, n, sizeof(*v), cmp_fline);
	folded_header(p, w, f);
	for (i = 0; i < n; i++) {
		__u64 val = v[i].value;

		while (i + 1 < n && !strcmp(v[i].text, v[i + 1].text))
			val += v[++i].value;
		fprintf(f, "%s %" PRIu64 "\n", v[i].text, (uint64_t)val);
	}
out:
	for (i = 0; i < n; i++)
		free(v[i].text);
	free(v);
	return err;
}

/* ---- stitch stats ---------------------------------------------------------- */

void prof_write_stitch_stats(const struct prof *p, FILE *f)
{
	const struct pmuctx_stitch_stats *s = &p->stats;

	fprintf(f, "samples:                  %" PRIu64 "\n",
		(uint64_t)s->samples);
	fprintf(f, "  immediate:              %" PRIu64 " (user stack in the "
		"sample, or none)\n", (uint64_t)s->immediate);
	fprintf(f, "  deferred:               %" PRIu64 "\n",
		(uint64_t)s->deferred);
	fprintf(f, "  stitched:               %" PRIu64 " (%" PRIu64 " after "
		"their user record)\n", (uint64_t)s->stitched,
		(uint64_t)s->late);
	fprintf(f, "  unresolved:             %" PRIu64 " (%" PRIu64
		" given up early: too many waiting)\n",
		(uint64_t)s->unresolved, (uint64_t)s->evicted);
	fprintf(f, "user callchain records:   %" PRIu64 "\n",
		(uint64_t)s->user_records);
	fprintf(f, "  shared by >1 sample:    %" PRIu64 "\n",
		(uint64_t)s->user_shared);
	fprintf(f, "  used by no sample:      %" PRIu64 "\n",
		(uint64_t)s->user_unused);
	fprintf(f, "  duplicates ignored:     %" PRIu64 "\n",
		(uint64_t)s->user_duplicates);
	fprintf(f, "  forgotten (cache full): %" PRIu64 "\n",
		(uint64_t)s->user_forgotten);
	fprintf(f, "most samples waiting:     %" PRIu64 "\n",
		(uint64_t)s->pending_max);
	if (s->deferred)
		fprintf(f, "samples per user record:  %.2f\n",
			s->user_records ? (double)s->stitched /
			(double)s->user_records : 0.0);
	if (p->dwarf.records) {
		const struct unw_stats *d = &p->dwarf;

		fprintf(f, "user stack records:       %" PRIu64 " (dwarf, "
			"%" PRIu64 " bytes, %.0f per record)\n",
			(uint64_t)d->records, (uint64_t)d->bytes,
			(double)d->bytes / (double)d->records);
		fprintf(f, "  unwound:                %" PRIu64 " (%" PRIu64
			" frames; %" PRIu64 " without a memory map, %" PRIu64
			" malformed)\n", (uint64_t)d->unwound,
			(uint64_t)d->frames, (uint64_t)d->no_map,
			(uint64_t)d->bad);
		fprintf(f, "  used for a callchain:   %" PRIu64 "\n",
			(uint64_t)d->used);
		if (d->unwound)
			fprintf(f, "  unwind time:            %.1f us per "
				"record (%.3f s in all)\n",
				(double)d->ns / 1e3 / (double)d->unwound,
				(double)d->ns / 1e9);
	}
}
