/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/profile: the perf-report-like table (table.c) and the call graph
 * under its entries (graph.c).
 */
#ifndef PMUCTX_TOOLS_PROFILE_TABLE_H
#define PMUCTX_TOOLS_PROFILE_TABLE_H

#include "hidx.h"
#include "profile.h"

static inline __u64 weight_of(const struct prof_stack *s, enum prof_weight w)
{
	return prof_stack_weight(s, w);
}

struct tentry {
	const char *comm;		/* comm (and pid: the first seen) */
	__s32 tid;			/* pid */
	const char *module;		/* dso */
	const struct prof_frame *fr;	/* symbol: label, kernel, module */
	const char *src;		/* srcline: file, or the label */
	int line;			/* its line (-1: no file) */
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

/* frame @fr is one of entry @e (its dso, symbol, srcline as keyed) */
bool table_frame_is(const struct table *T, const struct tentry *e,
		    const struct prof_frame *fr);
/* the entry has a frame key (dso, symbol, srcline) */
bool table_frame_keyed(const struct table *T);
/* -g: the call graph of entry @e, under its row */
int table_entry_graph(struct table *T, const struct tentry *e, FILE *f);

#endif
