// SPDX-License-Identifier: GPL-2.0
/*
 * The profile as perf report --stdio shows it: a table of Children and
 * Self (or, --no-children, Overhead) per entry, an entry being what the
 * sort keys tell apart (command, pid, shared object, symbol; perf's
 * default comm,dso,sym), entries of other shared objects or symbols left
 * out (--dsos, --symbols), those under a percentage hidden
 * (--percent-limit), and with -g each entry's call graph under it
 * (graph.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hidx.h"
#include "table.h"

static const char *const key_names[] = {
	[PROF_KEY_COMM] = "comm",
	[PROF_KEY_PID] = "pid",
	[PROF_KEY_DSO] = "dso",
	[PROF_KEY_SYM] = "symbol",
	[PROF_KEY_SRCLINE] = "srcline",
};

bool prof_text_lines(const struct prof_text_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == PROF_KEY_SRCLINE)
			return true;
	return false;
}

int prof_parse_sort(const char *s, struct prof_text_opts *o, char *err,
		    size_t len)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i, n = 0;

	if (strlen(s) >= sizeof(buf) || !*s) {
		snprintf(err, len, "--sort '%s': expected keys from comm, "
			 "pid, dso, symbol (sym), srcline, separated by commas", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		enum prof_key k;

		/* as perf: a key may be abbreviated (sym for symbol) */
		for (k = 0; k < PROF_NR_KEYS; k++)
			if (!strncasecmp(tok, key_names[k], strlen(tok)))
				break;
		if (k == PROF_NR_KEYS) {
			snprintf(err, len, "--sort: unknown key '%s' (the "
				 "keys: comm, pid, dso, symbol, srcline)", tok);
			return -EINVAL;
		}
		for (i = 0; i < n; i++)
			if (o->keys[i] == k)
				break;
		if (i < n) {
			snprintf(err, len, "--sort: key '%s' given twice",
				 key_names[k]);
			return -EINVAL;
		}
		o->keys[n++] = k;
	}
	if (!n) {
		snprintf(err, len, "--sort '%s': no key (the keys: comm, "
			 "pid, dso, symbol, srcline)", s);
		return -EINVAL;
	}
	o->nr_keys = n;
	return 0;
}

void prof_text_defaults(struct prof_text_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->weight = PROF_WEIGHT_PERIOD;
	o->keys[0] = PROF_KEY_COMM;
	o->keys[1] = PROF_KEY_DSO;
	o->keys[2] = PROF_KEY_SYM;
	o->nr_keys = 3;
	o->children = true;
	o->graph = PROF_GRAPH_NONE;
	o->caller = true;
	o->graph_threshold = 0.5;
}

/* ---- entries ------------------------------------------------------------- */

/* the key of frame @fr of stack @s: only the fields of the sort keys */
static void entry_key(const struct table *T, const struct prof_stack *s,
		      const struct prof_frame *fr, struct tentry *k)
{
	memset(k, 0, sizeof(*k));
	if (T->has[PROF_KEY_COMM])
		k->comm = s->comm;
	if (T->has[PROF_KEY_PID]) {
		k->tid = s->tid;
		k->comm = k->comm ? k->comm : s->comm;
	}
	if (T->has[PROF_KEY_DSO])
		k->module = fr->module;
	if (T->has[PROF_KEY_SYM])
		k->fr = fr;
	if (T->has[PROF_KEY_SRCLINE]) {
		/* without a line: the function's one entry, as perf's */
		k->src = fr->file ? fr->file : fr->label;
		k->line = fr->file ? fr->line : -1;
	}
}

static bool tentry_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct table *T = ctx;
	const struct tentry *e = &T->v[idx], *k = key;

	if (T->has[PROF_KEY_COMM] && e->comm != k->comm)
		return false;
	if (T->has[PROF_KEY_PID] && e->tid != k->tid)
		return false;
	if (T->has[PROF_KEY_DSO] && e->module != k->module)
		return false;
	if (T->has[PROF_KEY_SRCLINE] && (e->src != k->src ||
					 e->line != k->line))
		return false;
	/* a symbol is its name in its shared object, kernel or user */
	return !T->has[PROF_KEY_SYM] ||
	       (e->fr->label == k->fr->label && e->fr->module ==
		k->fr->module && e->fr->kernel == k->fr->kernel);
}

static __u64 tentry_hash(const struct table *T, const struct tentry *k)
{
	__u64 h = mix64((__u64)(uintptr_t)k->comm ^ (__u64)(__u32)k->tid ^
			((__u64)(uintptr_t)k->module << 1) ^
			mix64((__u64)(uintptr_t)k->src ^ (__u64)k->line));

	if (T->has[PROF_KEY_SYM])
		h ^= mix64((__u64)(uintptr_t)k->fr->label) ^
		     ((__u64)(uintptr_t)k->fr->module << 1) ^ k->fr->kernel;
	return h;
}

static long tentry_get(struct table *T, const struct tentry *k)
{
	__u64 h = tentry_hash(T, k);
	long e = hidx_find(&T->idx, h, tentry_eq, T, k);

	if (e >= 0)
		return e;
	if (T->n == T->cap) {
		size_t nc = T->cap ? T->cap * 2 : 1024;
		struct tentry *nv = realloc(T->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		T->v = nv;
		T->cap = nc;
	}
	T->v[T->n] = *k;
	if (hidx_insert(&T->idx, h, (__u32)T->n))
		return -ENOMEM;
	return (long)T->n++;
}

static bool in_list(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static const char *short_module(const char *m)
{
	const char *s = strrchr(m, '/');

	return s && s[1] ? s + 1 : m;
}

/* --dsos, --symbols: does frame @fr stay in the table? */
static bool frame_shown(const struct prof_text_opts *o,
			const struct prof_frame *fr)
{
	if (o->nr_dsos && !in_list(o->dsos, o->nr_dsos, fr->module) &&
	    !in_list(o->dsos, o->nr_dsos, short_module(fr->module)))
		return false;
	return !o->nr_syms || (fr->name && in_list(o->syms, o->nr_syms,
						   fr->name)) ||
	       in_list(o->syms, o->nr_syms, fr->label);
}

/* every frame of every stack into its entry: self at the top, children */
static int table_fill(struct table *T)
{
	const struct prof *p = T->p;
	size_t i;
	__u32 j;

	for (i = 0; i < p->nr_stacks; i++) {
		const struct prof_stack *s = &p->stacks[i];
		__u64 val = weight_of(s, T->o->weight);
		bool any = false;

		for (j = 0; j < s->nr; j++) {
			const struct prof_frame *fr =
				&p->frames[s->frames[j] - 1];
			struct tentry k;
			long e;

			if (!frame_shown(T->o, fr))
				continue;
			entry_key(T, s, fr, &k);
			e = tentry_get(T, &k);
			if (e < 0)
				return (int)e;
			/*
			 * 100 % with --dsos, --symbols: the samples in them
			 * (--children), or at the top of them (Overhead)
			 */
			if (!any && (T->o->children || !j))
				T->base += val;
			any = true;
			if (!j)
				T->v[e].self += val;
			/* recursion: count an entry once per stack */
			if (T->v[e].stamp != i + 1) {
				T->v[e].stamp = i + 1;
				T->v[e].children += val;
			}
		}
	}
	return 0;
}

bool table_frame_keyed(const struct table *T)
{
	return T->has[PROF_KEY_DSO] || T->has[PROF_KEY_SYM] ||
	       T->has[PROF_KEY_SRCLINE];
}

bool table_frame_is(const struct table *T, const struct tentry *e,
		    const struct prof_frame *fr)
{
	struct tentry k;

	if (T->has[PROF_KEY_DSO] && fr->module != e->module)
		return false;
	if (T->has[PROF_KEY_SYM] && (fr->label != e->fr->label ||
				     fr->module != e->fr->module ||
				     fr->kernel != e->fr->kernel))
		return false;
	if (!T->has[PROF_KEY_SRCLINE])
		return true;
	memset(&k, 0, sizeof(k));
	k.src = fr->file ? fr->file : fr->label;
	k.line = fr->file ? fr->line : -1;
	return k.src == e->src && k.line == e->line;
}

static const struct prof_text_opts *cmp_opts;

static int cmp_tentry(const void *a, const void *b)
{
	const struct tentry *x = a, *y = b;
	int c;

	if (cmp_opts->children && x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->fr && y->fr) {
		c = strcmp(x->fr->label, y->fr->label);
		if (c)
			return c;
	}
	if (x->comm && y->comm) {
		c = strcmp(x->comm, y->comm);
		if (c)
			return c;
	}
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->src && y->src) {
		c = strcmp(x->src, y->src);
		if (c)
			return c;
		if (x->line != y->line)
			return x->line < y->line ? -1 : 1;
	}
	if (x->module && y->module)
		return strcmp(x->module, y->module);
	return 0;
}

/* ---- the table ------------------------------------------------------ */

static void print_header(const struct table *T, FILE *f)
{
	const struct prof_text_opts *o = T->o;
	unsigned int i;

	fprintf(f, "#\n# ");
	if (o->children)
		fprintf(f, "%8s  %8s", "Children", "Self");
	else
		fprintf(f, "%8s", "Overhead");
	for (i = 0; i < o->nr_keys; i++) {
		int w = i + 1 == o->nr_keys ? 0 : o->keys[i] == PROF_KEY_COMM ?
			16 : o->keys[i] == PROF_KEY_SRCLINE ? 32 : 24;

		switch (o->keys[i]) {
		case PROF_KEY_COMM:
			fprintf(f, "  %-*s", w, "Command");
			break;
		case PROF_KEY_PID:
			fprintf(f, "  %-*s", w, "Pid:Command");
			break;
		case PROF_KEY_DSO:
			fprintf(f, "  %-*s", w, "Shared Object");
			break;
		case PROF_KEY_SYM:
			fprintf(f, "  %-*s", w, "Symbol");
			break;
		case PROF_KEY_SRCLINE:
			fprintf(f, "  %-*s", w, "Source:Line");
			break;
		default:
			break;
		}
	}
	fprintf(f, "\n# ");
	fprintf(f, o->children ? "........  ........" : "........");
	for (i = 0; i < o->nr_keys; i++)
		fprintf(f, "  %s", o->keys[i] == PROF_KEY_COMM ?
			"................" : o->keys[i] == PROF_KEY_SYM ?
			"......................" : o->keys[i] ==
			PROF_KEY_SRCLINE ? "................................" :
			"........................");
	fprintf(f, "\n#\n");
}

static void print_row(const struct table *T, const struct tentry *e,
		      FILE *f)
{
	const struct prof_text_opts *o = T->o;
	char pc[64];
	unsigned int i;

	if (o->children)
		fprintf(f, "  %8.2f%%  %7.2f%%",
			100.0 * (double)e->children / (double)T->base,
			100.0 * (double)e->self / (double)T->base);
	else
		fprintf(f, "  %7.2f%%", 100.0 * (double)e->self /
			(double)T->base);
	for (i = 0; i < o->nr_keys; i++) {
		bool lastk = i + 1 == o->nr_keys;

		switch (o->keys[i]) {
		case PROF_KEY_COMM:
			fprintf(f, "  %-*s", lastk ? 0 : 16, e->comm);
			break;
		case PROF_KEY_PID:
			snprintf(pc, sizeof(pc), "%7d:%s", (int)e->tid,
				 e->comm);
			fprintf(f, "  %-*s", lastk ? 0 : 24, pc);
			break;
		case PROF_KEY_DSO:
			fprintf(f, "  %-*s", lastk ? 0 : 24,
				short_module(e->module));
			break;
		case PROF_KEY_SYM:
			fprintf(f, "  [%c] %-*s", e->fr->kernel ? 'k' : '.',
				lastk ? 0 : 20, e->fr->label);
			break;
		case PROF_KEY_SRCLINE:
			if (e->line >= 0)
				snprintf(pc, sizeof(pc), "%s:%d",
					 short_module(e->src), e->line);
			else
				snprintf(pc, sizeof(pc), "%s", e->src);
			fprintf(f, "  %-*s", lastk ? 0 : 32, pc);
			break;
		default:
			break;
		}
	}
	fputc('\n', f);
}

static void print_summary(const struct prof *p, enum prof_weight w, FILE *f)
{
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
	/* perf's line: the weights' sum, what the percentages divide */
	fprintf(f, "# Event count (approx.): %" PRIu64 "\n",
		(uint64_t)prof_total(p, w));
	if (p->filtered_count)
		fprintf(f, "# Filtered out: %" PRIu64 " sample(s) (--comms, "
			"--pid, --tid, --time)\n", (uint64_t)p->filtered_count);
	fprintf(f, "# Weight: %s\n", prof_weight_desc(p, w));
	if (p->capped_count && w == PROF_WEIGHT_PERIOD)
		fprintf(f, "# Capped: %" PRIu64 " sample(s) stood for more "
			"than a sampling period (late ticks, stalls): %.3f ms "
			"not weighted (--weight raw-period weighs it)\n",
			(uint64_t)p->capped_count,
			(double)p->capped_period / 1e6);
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
}

int prof_write_text_opts(const struct prof *p, const struct prof_text_opts *o,
			 FILE *f)
{
	struct table T = { .p = p, .o = o };
	__u64 total = prof_total(p, o->weight);
	size_t i;
	int err;

	for (i = 0; i < o->nr_keys; i++)
		T.has[o->keys[i]] = true;
	err = table_fill(&T);
	if (err)
		goto out;
	if (!o->nr_dsos && !o->nr_syms)
		T.base = total;
	/* 100 %: what is shown (--percentage relative), or every sample */
	if (o->absolute)
		T.base = total + prof_filtered(p, o->weight);
	cmp_opts = o;
	if (T.n)
		qsort(T.v, T.n, sizeof(*T.v), cmp_tentry);
	print_summary(p, o->weight, f);
	print_header(&T, f);
	for (i = 0; i < T.n && T.base; i++) {
		const struct tentry *e = &T.v[i];
		__u64 v = o->children ? e->children : e->self;

		/* --no-children: perf shows no entry without self */
		if ((!o->children && !v) ||
		    100.0 * (double)v / (double)T.base < o->percent_limit)
			continue;
		print_row(&T, e, f);
		if (o->graph != PROF_GRAPH_NONE) {
			err = table_entry_graph(&T, e, f);
			if (err)
				goto out;
		}
	}
	if (!total)
		fprintf(f, "# (no samples: %s)\n", p->filtered_count ?
			"every sample was filtered out" : p->sample_freq ?
			"no monitored task ran while sampled" :
			"recorded without sampling, pmuctx record "
			"--no-samples");
	else if (!T.base)
		fprintf(f, "# (no entry: no sample in the --dsos or "
			"--symbols given)\n");
out:
	hidx_free(&T.idx);
	free(T.v);
	return err;
}

int prof_write_text(const struct prof *p, enum prof_weight w, FILE *f)
{
	struct prof_text_opts o;

	prof_text_defaults(&o);
	o.weight = w;
	return prof_write_text_opts(p, &o, f);
}
