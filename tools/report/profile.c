// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: the profile of a recording's samples, built by
 * tools/profile from the records and the memory maps in the file, and
 * the notes on what it misses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buildid.h"
#include "report/profile.h"
#include "report/records.h"

bool report_has_samples(const struct pmuctx_rec_header *const *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i]->type == PMUCTX_REC_SAMPLE)
			return true;
	return false;
}

/* @cmd: the command the messages name ("report", "annotate") */
static int build_profile(struct report *R, const struct pmuctx_rec_header **a,
			 size_t n, const struct prof_opts *po, bool lines,
			 bool keep_samples, const char *cmd, struct prof **out)
{
	const struct pmf_reader *r = R->r;
	struct prof_maps *maps;
	struct prof_input in;
	const char **stale = NULL;
	size_t nr_stale = 0;
	char err[512], prefix[32];
	size_t i;
	int e;

	snprintf(prefix, sizeof(prefix), "pmuctx %s: ", cmd);
	maps = calloc(r->nr_maps ? r->nr_maps : 1, sizeof(*maps));
	if (!maps) {
		fprintf(stderr, "%sout of memory\n", prefix);
		return -ENOMEM;
	}
	for (i = 0; i < r->nr_maps; i++) {
		maps[i].pid = r->maps[i].pid;
		maps[i].time = r->maps[i].time;
		maps[i].text = r->maps[i].text;
		maps[i].len = r->maps[i].len;
	}
	/* files rebuilt or gone since: named once, not read */
	if (buildid_check(r, prefix, stderr, &stale, &nr_stale)) {
		free(maps);
		fprintf(stderr, "%sout of memory\n", prefix);
		return -ENOMEM;
	}
	memset(&in, 0, sizeof(in));
	in.no_files = stale;
	in.nr_no_files = nr_stale;
	in.vdso = r->vdso;
	in.vdso_len = r->vdso_len;
	in.recs = a;
	in.nr_recs = n;
	in.maps = maps;
	in.nr_maps = r->nr_maps;
	in.sample_freq = R->info->sample_freq;
	/*
	 * The hrtimer sampler's periods are run time since the previous
	 * sample: capped at its period (the module's, at least 10 us).  A
	 * perf-backed event's are perf's own (the period it was armed
	 * with), which a stall cannot stretch: weighted as they are.
	 */
	if (!R->info->sample_event && R->info->sample_freq)
		in.cap_period = report_nominal_period_ns(R->info);
	in.event = report_sample_event(R->info);
	in.period_events = !report_sample_period_ns(R->info);
	in.start_real_ns = R->info->start_real_ns;
	if (r->have_end && r->end.time > R->info->start_mono_ns)
		in.duration_ns = r->end.time - R->info->start_mono_ns;
	in.kallsyms = po->kallsyms;
	in.lines = lines;
	in.keep_samples = keep_samples;
	in.filter = R->filter;
	e = prof_build(&in, out, err, sizeof(err));
	free(maps);
	free(stale);
	if (e)
		fprintf(stderr, "%s%s\n", prefix, err);
	return e;
}

static void profile_notes(const struct prof *p, const struct pmf_reader *r,
			  const char *cmd)
{
	if (p->have_stats && p->stats.deferred && p->stats.unresolved * 10 >
	    p->stats.deferred)
		fprintf(stderr, "pmuctx %s: %llu of %llu deferred samples "
			"have no user callchain (the task exited or was "
			"killed in the kernel, or records were lost)\n", cmd,
			(unsigned long long)p->stats.unresolved,
			(unsigned long long)p->stats.deferred);
	if (p->total_count && !r->nr_maps)
		fprintf(stderr, "pmuctx %s: the file has no memory maps "
			"(recorded by an older pmuctx?): user frames are "
			"unknown\n", cmd);
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
int report_profile(struct report *R, const struct report_args *a,
		   const struct pmuctx_rec_header **all, size_t n,
		   bool samples, struct prof **prof)
{
	enum fmt f = R->fmt;

	if (!(f == FMT_FOLDED || f == FMT_PPROF || a->po.stitch_stats ||
	      ((f == FMT_TEXT || f == FMT_PERF) && samples)))
		return 0;
	/* source lines: pprof's, and the table's srcline key */
	if (build_profile(R, all, n, &a->po, f == FMT_PPROF ||
			  (f == FMT_TEXT && prof_text_lines(&a->table)),
			  f == FMT_PERF, CMD, prof))
		return EXIT_RUNTIME;
	if (f == FMT_FOLDED || f == FMT_PPROF || f == FMT_TEXT ||
	    f == FMT_PERF)
		profile_notes(*prof, R->r, CMD);
	R->prof = *prof;
	if ((f == FMT_FOLDED || f == FMT_PPROF) && !samples)
		fprintf(stderr, "pmuctx report: %s has no samples (%s)\n",
			a->path, no_samples_why(R->info));
	return 0;
}

int report_profile_for(struct report *R, const struct prof_opts *po,
		       const struct pmuctx_rec_header **all, size_t n,
		       const char *cmd, struct prof **prof)
{
	if (build_profile(R, all, n, po, false, false, cmd, prof))
		return EXIT_RUNTIME;
	profile_notes(*prof, R->r, cmd);
	R->prof = *prof;
	return 0;
}
