// SPDX-License-Identifier: GPL-2.0
/*
 * The call graph under an entry of the perf-report-like table (-g): the
 * entry's chains merged into a tree, by function, drawn as perf report
 * --stdio draws it (graph, fractal) or a line per chain (folded).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

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
 * The chain of stack @s into the tree @root: with a frame key (dso,
 * symbol, srcline) and --children, from the entry's outermost frame @j
 * to what it called (caller order) or to its callers (callee); else the
 * whole stack, from the root (caller) or from the top (callee).  Frames
 * are by function: a node's id is the first frame met of it.
 */
static int graph_add(struct table *T, struct gnode *root,
		     const struct prof_stack *s, long j)
{
	const struct prof *p = T->p;
	const bool caller = T->o->caller;
	struct gnode *n = root;
	long i, from, to, step;

	step = caller ? -1 : 1;
	to = caller ? -1 : (long)s->nr;
	if (j >= 0 && T->o->children)
		from = j;
	else
		from = caller ? (long)s->nr - 1 : 0;
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

int table_entry_graph(struct table *T, const struct tentry *e, FILE *f)
{
	const struct prof *p = T->p;
	struct gnode root = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < p->nr_stacks && !err; i++) {
		const struct prof_stack *s = &p->stacks[i];

		long j = -1;

		/* the stacks of this entry: its comm and pid as keyed */
		if ((T->has[PROF_KEY_COMM] && s->comm != e->comm) ||
		    (T->has[PROF_KEY_PID] && s->tid != e->tid))
			continue;
		/* and its outermost frame; on top without --children */
		if (table_frame_keyed(T)) {
			for (j = (long)s->nr - 1; j >= 0; j--)
				if (table_frame_is(T, e, &p->frames[
						s->frames[j] - 1]))
					break;
			if (j < 0 || (!T->o->children && j))
				continue;
		}
		err = graph_add(T, &root, s, j);
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
