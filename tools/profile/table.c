// SPDX-License-Identifier: GPL-2.0
/*
 * The profile as perf report --stdio shows it: a table of Children and
 * Self per (command, shared object, symbol).
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
	return w == PROF_WEIGHT_PERIOD ? s->period : s->count;
}

struct tentry {
	const char *comm;
	const struct prof_frame *fr;	/* module, label, kernel */
	__u64 self, children;
	size_t stamp;			/* last stack counted in children */
};

struct tkey {
	const char *comm;
	const char *module;
	const char *label;
	bool kernel;
};

static bool tentry_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct tentry *e = &((const struct tentry *)ctx)[idx];
	const struct tkey *k = key;

	return e->comm == k->comm && e->fr->module == k->module &&
	       e->fr->label == k->label && e->fr->kernel == k->kernel;
}

static int cmp_tentry(const void *a, const void *b)
{
	const struct tentry *x = a, *y = b;
	int c;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	c = strcmp(x->fr->label, y->fr->label);
	return c ? c : strcmp(x->comm, y->comm);
}

static const char *short_module(const char *m)
{
	const char *s = strrchr(m, '/');

	return s && s[1] ? s + 1 : m;
}

int prof_write_text(const struct prof *p, enum prof_weight w, FILE *f)
{
	struct hidx idx = { 0 };
	struct tentry *v;
	size_t n = 0, i, cap = 1024;
	__u64 total = w == PROF_WEIGHT_PERIOD ? p->total_period :
		      p->total_count;
	int err = 0;
	__u32 j;

	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nr_stacks; i++) {
		const struct prof_stack *s = &p->stacks[i];
		__u64 val = weight_of(s, w);

		for (j = 0; j < s->nr; j++) {
			const struct prof_frame *fr = &p->frames[s->frames[j] -
								 1];
			struct tkey k = { s->comm, fr->module, fr->label,
					  fr->kernel };
			__u64 h = mix64((__u64)(uintptr_t)k.comm ^
					mix64((__u64)(uintptr_t)k.label) ^
					((__u64)(uintptr_t)k.module << 1) ^
					k.kernel);
			long e = hidx_find(&idx, h, tentry_eq, v, &k);

			if (e < 0) {
				if (n == cap) {
					struct tentry *nv = realloc(v, cap * 2 *
								    sizeof(*v));

					if (!nv) {
						err = -ENOMEM;
						goto out;
					}
					v = nv;
					cap *= 2;
				}
				memset(&v[n], 0, sizeof(v[n]));
				v[n].comm = s->comm;
				v[n].fr = fr;
				if (hidx_insert(&idx, h, (__u32)n)) {
					err = -ENOMEM;
					goto out;
				}
				e = (long)n++;
			}
			if (!j)
				v[e].self += val;
			/* recursion: count a function once per stack */
			if (v[e].stamp != i + 1) {
				v[e].stamp = i + 1;
				v[e].children += val;
			}
		}
	}
	qsort(v, n, sizeof(*v), cmp_tentry);
	fprintf(f, "# Samples: %" PRIu64 " of event '%s'",
		(uint64_t)p->total_count, p->event ? p->event : "cpu-clock");
	if (p->sample_freq)
		fprintf(f, " (%u Hz per CPU)", p->sample_freq);
	if (!p->period_events)
		fprintf(f, ", %.3f ms of CPU time\n",
			(double)p->total_period / 1e6);
	else
		fprintf(f, ", %" PRIu64 " %s events\n",
			(uint64_t)p->total_period, p->event ? p->event : "?");
	fprintf(f, "# Weight: %s\n", prof_weight_desc(p, w));
	if (p->have_stats && p->stats.deferred)
		fprintf(f, "# Deferred user callchains: %" PRIu64 " of %"
			PRIu64 " stitched, %" PRIu64 " unresolved\n",
			(uint64_t)p->stats.stitched,
			(uint64_t)p->stats.deferred,
			(uint64_t)p->stats.unresolved);
	if (p->kernel_hidden)
		fprintf(f, "# %" PRIu64 " sample(s) in the kernel with kernel "
			"addresses hidden (no kernel frames)\n",
			(uint64_t)p->kernel_hidden);
	fprintf(f, "#\n# %8s  %8s  %-16s  %-24s  %s\n", "Children", "Self",
		"Command", "Shared Object", "Symbol");
	fprintf(f, "# ........  ........  ................  "
		"........................  ......................\n#\n");
	for (i = 0; i < n && total; i++)
		fprintf(f, "  %8.2f%%  %7.2f%%  %-16s  %-24s  [%c] %s\n",
			100.0 * (double)v[i].children / (double)total,
			100.0 * (double)v[i].self / (double)total,
			v[i].comm, short_module(v[i].fr->module),
			v[i].fr->kernel ? 'k' : '.', v[i].fr->label);
	if (!total)
		fprintf(f, "# (no samples: %s)\n", p->sample_freq ?
			"no monitored task ran while sampled" :
			"recorded without sampling, pmuctx record "
			"--no-samples");
out:
	hidx_free(&idx);
	free(v);
	return err;
}
