// SPDX-License-Identifier: GPL-2.0
/*
 * The profile as perf report --stdio shows it: a table of Children and
 * Self (or, --no-children, Overhead) per entry, an entry being what the
 * sort keys tell apart (command, pid, shared object, symbol; perf's
 * default comm,dso,sym), entries of other shared objects or symbols left
 * out (--dsos, --symbols), those under a percentage hidden
 * (--percent-limit), and with -g each entry's call graph under it.
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

static const char *const key_names[] = {
	[PROF_KEY_COMM] = "comm",
	[PROF_KEY_PID] = "pid",
	[PROF_KEY_DSO] = "dso",
	[PROF_KEY_SYM] = "symbol",
};

int prof_parse_sort(const char *s, struct prof_text_opts *o, char *err,
		    size_t len)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i, n = 0;

	if (strlen(s) >= sizeof(buf) || !*s) {
		snprintf(err, len, "--sort '%s': expected keys from comm, "
			 "pid, dso, symbol (sym), separated by commas", s);
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
				 "keys: comm, pid, dso, symbol)", tok);
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
			 "pid, dso, symbol)", s);
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

struct tentry {
	const char *comm;		/* comm (and pid: the first seen) */
	__s32 tid;			/* pid */
	const char *module;		/* dso */
	const struct prof_frame *fr;	/* symbol: label, kernel, module */
	__u64 self, children;
	size_t stamp;			/* last stack counted in children */
};

struct table {
	const struct prof *p;
	const struct prof_text_opts *o;
	bool has[PROF_NR_KEYS];
	struct tentry *v;
	size_t n, cap;
	struct hidx idx;
	__u64 base;			/* 100 % */
};

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
	/* a symbol is its name in its shared object, kernel or user */
	return !T->has[PROF_KEY_SYM] ||
	       (e->fr->label == k->fr->label && e->fr->module ==
		k->fr->module && e->fr->kernel == k->fr->kernel);
}

static __u64 tentry_hash(const struct table *T, const struct tentry *k)
{
	__u64 h = mix64((__u64)(uintptr_t)k->comm ^ (__u64)(__u32)k->tid ^
			((__u64)(uintptr_t)k->module << 1));

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
	if (x->module && y->module)
		return strcmp(x->module, y->module);
	return 0;
}

/* ---- the call graph (-g) ------------------------------------------- */

struct gnode {
	__u32 frame;			/* frame id; 0 for the root */
	__u64 val;
	struct gnode *kids, *next;
};

static struct gnode *gnode_child(struct gnode *n, __u32 frame)
{
	struct gnode *k;

	for (k = n->kids; k; k = k->next)
		if (k->frame == frame)
			return k;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->frame = frame;
	k->next = n->kids;
	n->kids = k;
	return k;
}

static void gnode_free(struct gnode *n)
{
	struct gnode *k, *next;

	for (k = n->kids; k; k = next) {
		next = k->next;
		gnode_free(k);
		free(k);
	}
}

static const char *gname(const struct prof *p, __u32 id)
{
	return p->frames[id - 1].label;
}

/* two frames are the same function for the call graph */
static bool same_func(const struct prof *p, __u32 a, __u32 b)
{
	const struct prof_frame *x = &p->frames[a - 1], *y = &p->frames[b - 1];

	return x->label == y->label && x->module == y->module &&
	       x->kernel == y->kernel;
}

/*
 * The chain of stack @s for entry @e, into the tree @root: with a symbol
 * key and --children, from the entry (its outermost call) to what it
 * called (caller order) or to its callers (callee); else the whole stack,
 * from the root (caller) or from the top (callee).  Frames are by
 * function: a node's id is the first frame met of it.
 */
static int graph_add(struct table *T, struct gnode *root,
		     const struct prof_stack *s, const struct tentry *e)
{
	const struct prof *p = T->p;
	const bool caller = T->o->caller;
	struct gnode *n = root;
	long j = -1, i, from, to, step;

	if (T->has[PROF_KEY_SYM]) {
		/* the outermost frame of the entry's symbol */
		for (i = (long)s->nr - 1; i >= 0; i--) {
			const struct prof_frame *fr =
				&p->frames[s->frames[i] - 1];

			if (fr->label == e->fr->label &&
			    fr->module == e->fr->module &&
			    fr->kernel == e->fr->kernel)
				break;
		}
		j = i;
		if (j < 0)
			return 0;
		if (!T->o->children && j)
			return 0;	/* self only: the entry on top */
	}
	if (j >= 0 && T->o->children) {
		from = j;
		to = caller ? -1 : (long)s->nr;
		step = caller ? -1 : 1;
	} else {
		from = caller ? (long)s->nr - 1 : 0;
		to = caller ? -1 : (long)s->nr;
		step = caller ? -1 : 1;
	}
	n->val += weight_of(s, T->o->weight);
	for (i = from; i != to; i += step) {
		__u32 id = s->frames[i];
		struct gnode *k;

		for (k = n->kids; k; k = k->next)
			if (same_func(p, k->frame, id))
				break;
		if (!k)
			k = gnode_child(n, id);
		if (!k)
			return -ENOMEM;
		k->val += weight_of(s, T->o->weight);
		n = k;
	}
	return 0;
}

static int cmp_gnode(const void *a, const void *b)
{
	const struct gnode *x = *(struct gnode *const *)a;
	const struct gnode *y = *(struct gnode *const *)b;

	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* the children of @n worth showing, heaviest first (malloc'd) */
static struct gnode **gkids(const struct table *T, const struct gnode *n,
			    __u64 parent, size_t *nr)
{
	struct gnode **v, *k;
	size_t c = 0;

	*nr = 0;
	for (k = n->kids; k; k = k->next)
		c++;
	v = calloc(c ? c : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (k = n->kids; k; k = k->next) {
		double base = T->o->graph == PROF_GRAPH_FRACTAL ?
			      (double)parent : (double)T->base;

		if (base && 100.0 * (double)k->val / base <
		    T->o->graph_threshold)
			continue;
		v[(*nr)++] = k;
	}
	qsort(v, *nr, sizeof(*v), cmp_gnode);
	return v;
}

static double gpct(const struct table *T, __u64 val, __u64 parent)
{
	double base = T->o->graph == PROF_GRAPH_FRACTAL ? (double)parent :
		      (double)T->base;

	return base ? 100.0 * (double)val / base : 0.0;
}

/*
 * perf report --stdio's graph: a branch "|--PCT--name" ("--" for the
 * last), its straight continuation aligned under the name, sub-branches
 * indented under it
 */
static void graph_print(const struct table *T, const struct gnode *n,
			const char *prefix, FILE *f)
{
	struct gnode **v;
	size_t nr, i;

	v = gkids(T, n, n->val, &nr);
	if (!v)
		return;
	for (i = 0; i < nr; i++) {
		const struct gnode *k = v[i];
		bool last = i + 1 == nr;
		char head[48], np[512];
		int hl;

		hl = snprintf(head, sizeof(head), "%s--%.2f%%--",
			      last ? " " : "|", gpct(T, k->val, n->val));
		fprintf(f, "%s|\n", prefix);
		fprintf(f, "%s%s%s\n", prefix, head, gname(T->p, k->frame));
		snprintf(np, sizeof(np), "%s%s%*s", prefix, last ? " " : "|",
			 hl - 1, "");
		while (k->kids && !k->kids->next && k->kids->val == k->val) {
			k = k->kids;
			fprintf(f, "%s%s\n", np, gname(T->p, k->frame));
		}
		if (strlen(np) < sizeof(np) - 48)
			graph_print(T, k, np, f);
	}
	free(v);
}

/*
 * one function at the root (the entry's own, with a symbol key): perf's
 * "---name", its straight continuation under it, then the branches
 */
static void graph_root(const struct table *T, const struct gnode *k,
		       FILE *f)
{
	static const char prefix[] = "            ";

	fprintf(f, "%s|\n%s---%s\n", prefix, prefix, gname(T->p, k->frame));
	while (k->kids && !k->kids->next && k->kids->val == k->val) {
		k = k->kids;
		fprintf(f, "%s   %s\n", prefix, gname(T->p, k->frame));
	}
	graph_print(T, k, "               ", f);
}

/* -g folded: one line per chain, "PCT a;b;c" */
static void graph_folded(const struct table *T, const struct gnode *n,
			 char *buf, size_t pos, size_t len, FILE *f)
{
	struct gnode **v;
	size_t nr, i;

	if (!n->kids) {
		fprintf(f, "            %.2f%% %s\n", gpct(T, n->val, n->val),
			buf);
		return;
	}
	v = gkids(T, n, n->val, &nr);
	if (!v)
		return;
	for (i = 0; i < nr; i++) {
		int w = snprintf(buf + pos, len - pos, "%s%s", pos ? ";" : "",
				 gname(T->p, v[i]->frame));

		if (w < 0 || (size_t)w >= len - pos)
			continue;
		graph_folded(T, v[i], buf, pos + (size_t)w, len, f);
		buf[pos] = '\0';
	}
	free(v);
}

static int entry_graph(struct table *T, const struct tentry *e, FILE *f)
{
	const struct prof *p = T->p;
	struct gnode root = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < p->nr_stacks && !err; i++) {
		const struct prof_stack *s = &p->stacks[i];

		/* the stacks of this entry: its comm, pid, dso as keyed */
		if ((T->has[PROF_KEY_COMM] && s->comm != e->comm) ||
		    (T->has[PROF_KEY_PID] && s->tid != e->tid))
			continue;
		if (T->has[PROF_KEY_DSO] && !T->has[PROF_KEY_SYM]) {
			__u32 j;

			for (j = 0; j < s->nr; j++)
				if (p->frames[s->frames[j] - 1].module ==
				    e->module)
					break;
			if (j == s->nr || (!T->o->children && j))
				continue;
		}
		err = graph_add(T, &root, s, e);
	}
	if (!err && root.kids) {
		if (T->o->graph == PROF_GRAPH_FOLDED) {
			char buf[4096] = "";

			graph_folded(T, &root, buf, 0, sizeof(buf), f);
		} else if (!root.kids->next) {
			graph_root(T, root.kids, f);
		} else {
			graph_print(T, &root, "            ", f);
		}
		fputc('\n', f);
	}
	gnode_free(&root);
	return err;
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
			16 : 24;

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
			fprintf(f, "  %s", "Symbol");
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
			"......................" :
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
			fprintf(f, "  [%c] %s", e->fr->kernel ? 'k' : '.',
				e->fr->label);
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
	if (p->filtered_count)
		fprintf(f, "# Filtered out: %" PRIu64 " sample(s) (--comms, "
			"--pid, --tid, --time)\n", (uint64_t)p->filtered_count);
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
}

int prof_write_text_opts(const struct prof *p, const struct prof_text_opts *o,
			 FILE *f)
{
	struct table T = { .p = p, .o = o };
	__u64 total = o->weight == PROF_WEIGHT_PERIOD ? p->total_period :
		      p->total_count;
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
		T.base = total + (o->weight == PROF_WEIGHT_PERIOD ?
				  p->filtered_period : p->filtered_count);
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
			err = entry_graph(&T, e, f);
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
