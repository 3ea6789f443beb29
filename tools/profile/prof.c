// SPDX-License-Identifier: GPL-2.0
/*
 * Profiles from recordings: stitch (libpmuctx), symbolize (libpmuctx,
 * libdwfl), aggregate identical stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hidx.h"
#include "profile.h"

/* ---- private state ------------------------------------------------------ */

struct strpool {
	char **v;
	size_t n, cap;
	struct hidx idx;
};

struct tid_comm {
	__s32 tid;
	const char *comm;
};

struct pid_parent {
	__s32 pid;
	__s32 parent;
};

struct prof_priv {
	struct strpool strings;
	struct hidx frame_idx;
	struct hidx stack_idx;
	struct tid_comm *comms;
	size_t nr_comms, cap_comms;
	struct hidx comm_idx;
	struct pid_parent *parents;
	size_t nr_parents, cap_parents;
	struct hidx parent_idx;
	__s32 *maps_pids;	/* pids with a map in the file */
	size_t nr_maps_pids;
	struct hidx maps_idx;
	__u32 *scratch;
	size_t cap_scratch;
	bool keep_samples;
	const struct prof_filter *filter;	/* prof_input.filter */
	/* dwarf mode: USER_STACK records unwound, waiting for their chain */
	const struct prof_input *in;
	struct unw *unw;
	struct dwarf_chain *pending;	/* DWARF_PENDING slots */
	unsigned int next_pending;
	__u64 *urec;			/* a USER_CALLCHAIN built from one */
	__u64 unw_used;
	/* the sampler's period on each CPU: its THROTTLE changes */
	struct cpu_periods *cpu_periods;
	size_t nr_cpu_periods;
};

/*
 * The periods the hrtimer sampler had on one CPU: from time[i] on,
 * period[i] (THROTTLE records, in time order); the nominal one before.
 */
struct cpu_periods {
	__u64 *time, *period;
	size_t n, cap;
};

/*
 * A USER_STACK record's unwind, kept until the USER_CALLCHAIN of the same
 * task and cookie (written right after it, on the same CPU) comes.
 */
#define DWARF_PENDING	256
struct dwarf_chain {
	__s32 tid;
	__u64 cookie;
	unsigned int n;			/* 0: slot free */
	__u64 ips[PMUCTX_MAX_STACK];
};

static bool str_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct strpool *sp = ctx;

	return !strcmp(sp->v[idx], key);
}

/* the pool's copy of @s (NULL on ENOMEM) */
static const char *intern(struct strpool *sp, const char *s)
{
	__u64 h = hash_bytes(0xcbf29ce484222325ULL, s, strlen(s));
	long i = hidx_find(&sp->idx, h, str_eq, sp, s);
	char *c;

	if (i >= 0)
		return sp->v[i];
	if (sp->n == sp->cap) {
		size_t nc = sp->cap ? sp->cap * 2 : 256;
		char **v = realloc(sp->v, nc * sizeof(*v));

		if (!v)
			return NULL;
		sp->v = v;
		sp->cap = nc;
	}
	c = strdup(s);
	if (!c)
		return NULL;
	if (hidx_insert(&sp->idx, h, (__u32)sp->n)) {
		free(c);
		return NULL;
	}
	sp->v[sp->n++] = c;
	return c;
}

int prof_new(struct prof **out)
{
	struct prof *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->priv = calloc(1, sizeof(*p->priv));
	if (!p->priv) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void prof_free(struct prof *p)
{
	struct prof_priv *q;
	size_t i;

	if (!p)
		return;
	q = p->priv;
	for (i = 0; i < p->nr_stacks; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	free(p->frames);
	free(p->samples);
	free(p->sample_frames);
	if (q) {
		for (i = 0; i < q->strings.n; i++)
			free(q->strings.v[i]);
		free(q->strings.v);
		hidx_free(&q->strings.idx);
		hidx_free(&q->frame_idx);
		hidx_free(&q->stack_idx);
		free(q->comms);
		hidx_free(&q->comm_idx);
		free(q->parents);
		hidx_free(&q->parent_idx);
		free(q->maps_pids);
		hidx_free(&q->maps_idx);
		for (i = 0; i < q->nr_cpu_periods; i++) {
			free(q->cpu_periods[i].time);
			free(q->cpu_periods[i].period);
		}
		free(q->cpu_periods);
		free(q->scratch);
		free(q);
	}
	free(p);
}

/* ---- frames ------------------------------------------------------------- */

struct frame_key {
	bool kernel;
	bool named;		/* synthetic: by label */
	__s32 pid;
	__u64 addr;
	const char *label;	/* named frames */
};

static bool frame_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct prof *p = ctx;
	const struct prof_frame *f = &p->frames[idx];
	const struct frame_key *k = key;

	if (k->named)
		return !f->addr && f->kernel == k->kernel &&
		       f->label == k->label && f->pid == k->pid;
	return f->addr == k->addr && f->kernel == k->kernel &&
	       (k->kernel || f->pid == k->pid);
}

static __u64 frame_hash(const struct frame_key *k)
{
	if (k->named)
		return mix64((__u64)(uintptr_t)k->label ^ (k->kernel ? 7 : 0) ^
			     ((__u64)(__u32)k->pid << 3));
	return mix64(k->addr ^ mix64((__u64)(__u32)k->pid << 1 |
				     (k->kernel ? 1 : 0)));
}

static struct prof_frame *frame_new(struct prof *p, const struct frame_key *k,
				    __u64 hash)
{
	struct prof_frame *f;

	if (p->nr_frames == p->cap_frames) {
		size_t nc = p->cap_frames ? p->cap_frames * 2 : 1024;

		f = realloc(p->frames, nc * sizeof(*f));
		if (!f)
			return NULL;
		p->frames = f;
		p->cap_frames = nc;
	}
	if (hidx_insert(&p->priv->frame_idx, hash, (__u32)p->nr_frames))
		return NULL;
	f = &p->frames[p->nr_frames];
	memset(f, 0, sizeof(*f));
	f->id = (__u32)++p->nr_frames;
	f->kernel = k->kernel;
	f->pid = k->kernel ? 0 : k->pid;
	f->addr = k->named ? 0 : k->addr;
	return f;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* folded stacks split on ';' and lines */
static void sanitize(char *buf)
{
	char *c;

	for (c = buf; *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
}

/* the label of a frame: the name, or perf's "[unknown] (file+0xoff)" */
static const char *make_label(struct prof *p, const struct pmuctx_sym *s)
{
	char buf[1024];

	if (s->name)
		snprintf(buf, sizeof(buf), "%s", s->name);
	else if ((s->flags & PMUCTX_SYM_NO_MAP) && !(s->flags &
						     PMUCTX_SYM_KERNEL))
		snprintf(buf, sizeof(buf), "[unknown]");
	else if (s->flags & PMUCTX_SYM_HIDDEN)
		snprintf(buf, sizeof(buf), "[kernel]");
	else
		snprintf(buf, sizeof(buf), "[unknown] (%s+0x%" PRIx64 ")",
			 base_name(s->module ? s->module : "?"),
			 (uint64_t)s->offset);
	sanitize(buf);
	return intern(&p->priv->strings, buf);
}

static long frame_of(struct prof *p, struct pmuctx_syms *y, bool kernel,
		     __s32 pid, __u64 time, __u64 addr, bool retaddr)
{
	struct frame_key k = { .kernel = kernel, .pid = pid, .addr = addr };
	__u64 h = frame_hash(&k);
	long i = hidx_find(&p->priv->frame_idx, h, frame_eq, p, &k);
	struct pmuctx_sym s;
	struct prof_frame *f;

	if (i >= 0)
		return (long)p->frames[i].id;
	if (y) {
		pmuctx_syms_lookup(y, pid, time, addr,
				   (kernel ? PMUCTX_SYM_KERNEL : 0) |
				   (retaddr ? PMUCTX_SYM_RETADDR : 0), &s);
	} else {
		memset(&s, 0, sizeof(s));
		s.addr = addr;
		s.flags = PMUCTX_SYM_UNKNOWN | PMUCTX_SYM_NO_MAP |
			  (kernel ? PMUCTX_SYM_KERNEL : 0);
		s.module = kernel ? "[kernel.kallsyms]" : "[unknown]";
		s.offset = addr;
	}
	f = frame_new(p, &k, h);
	if (!f)
		return -ENOMEM;
	f->name = s.name ? intern(&p->priv->strings, s.name) : NULL;
	f->unknown = !s.name && !(s.flags & PMUCTX_SYM_HIDDEN);
	f->module = intern(&p->priv->strings, s.module ? s.module :
			   "[unknown]");
	f->file = s.file ? intern(&p->priv->strings, s.file) : NULL;
	f->line = s.line;
	f->sym_start = s.start;
	f->mod_start = s.mod_start;
	f->mod_end = s.mod_end;
	f->mod_pgoff = s.mod_pgoff;
	f->label = make_label(p, &s);
	if ((s.name && !f->name) || !f->module || !f->label ||
	    (s.file && !f->file))
		return -ENOMEM;
	return (long)f->id;
}

/* ---- stacks -------------------------------------------------------------- */

struct stack_key {
	const char *comm;
	__s32 pid, tid;
	__u32 nr, nr_kernel;
	const __u32 *frames;
};

static bool stack_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct prof *p = ctx;
	const struct prof_stack *s = &p->stacks[idx];
	const struct stack_key *k = key;

	return s->comm == k->comm && s->pid == k->pid && s->tid == k->tid &&
	       s->nr == k->nr && s->nr_kernel == k->nr_kernel &&
	       !memcmp(s->frames, k->frames, k->nr * sizeof(__u32));
}

static int add_stack(struct prof *p, const struct stack_key *k, __u64 count,
		     __u64 period, __u64 weight)
{
	__u64 h = hash_bytes(mix64((__u64)(uintptr_t)k->comm ^
				   ((__u64)(__u32)k->pid << 32 |
				    (__u32)k->tid) ^ k->nr_kernel),
			     k->frames, k->nr * sizeof(__u32));
	long i = hidx_find(&p->priv->stack_idx, h, stack_eq, p, k);
	struct prof_stack *s;

	if (i < 0) {
		if (p->nr_stacks == p->cap_stacks) {
			size_t nc = p->cap_stacks ? p->cap_stacks * 2 : 1024;

			s = realloc(p->stacks, nc * sizeof(*s));
			if (!s)
				return -ENOMEM;
			p->stacks = s;
			p->cap_stacks = nc;
		}
		s = &p->stacks[p->nr_stacks];
		memset(s, 0, sizeof(*s));
		s->frames = malloc((k->nr ? k->nr : 1) * sizeof(__u32));
		if (!s->frames)
			return -ENOMEM;
		if (hidx_insert(&p->priv->stack_idx, h, (__u32)p->nr_stacks)) {
			free(s->frames);
			return -ENOMEM;
		}
		memcpy(s->frames, k->frames, k->nr * sizeof(__u32));
		s->comm = k->comm;
		s->pid = k->pid;
		s->tid = k->tid;
		s->nr = k->nr;
		s->nr_kernel = k->nr_kernel;
		i = (long)p->nr_stacks++;
	}
	s = &p->stacks[i];
	s->count += count;
	s->period += period;
	s->weight += weight;
	p->total_count += count;
	p->total_period += period;
	p->total_weight += weight;
	return 0;
}

static int scratch(struct prof *p, size_t n)
{
	struct prof_priv *q = p->priv;

	if (n > q->cap_scratch) {
		__u32 *v = realloc(q->scratch, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->scratch = v;
		q->cap_scratch = n;
	}
	return 0;
}

int prof_add_named(struct prof *p, const char *comm, __s32 pid, __s32 tid,
		   const char *const *names, __u32 nr, __u32 nr_kernel,
		   __u64 count, __u64 period)
{
	struct stack_key k = { .pid = pid, .tid = tid, .nr = nr,
			       .nr_kernel = nr_kernel };
	__u32 i;

	if (nr_kernel > nr || scratch(p, nr + 1))
		return -EINVAL;
	k.comm = intern(&p->priv->strings, comm);
	if (!k.comm)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct frame_key fk = { .kernel = i < nr_kernel, .named = true };
		struct prof_frame *f;
		char buf[1024];
		__u64 h;
		long j;

		if (!fk.kernel)
			fk.pid = pid;
		snprintf(buf, sizeof(buf), "%s", names[i]);
		sanitize(buf);
		fk.label = intern(&p->priv->strings, buf);
		if (!fk.label)
			return -ENOMEM;
		h = frame_hash(&fk);
		j = hidx_find(&p->priv->frame_idx, h, frame_eq, p, &fk);
		if (j < 0) {
			f = frame_new(p, &fk, h);
			if (!f)
				return -ENOMEM;
			f->label = fk.label;
			f->name = fk.label;
			f->module = intern(&p->priv->strings, fk.kernel ?
					   "[kernel.kallsyms]" : comm);
			if (!f->module)
				return -ENOMEM;
			j = (long)f->id - 1;
		}
		p->priv->scratch[i] = p->frames[j].id;
	}
	k.frames = p->priv->scratch;
	return add_stack(p, &k, count, period, period);
}

__u64 prof_total(const struct prof *p, enum prof_weight w)
{
	return w == PROF_WEIGHT_SAMPLES ? p->total_count :
	       w == PROF_WEIGHT_PERIOD ? p->total_weight : p->total_period;
}

__u64 prof_filtered(const struct prof *p, enum prof_weight w)
{
	return w == PROF_WEIGHT_SAMPLES ? p->filtered_count :
	       w == PROF_WEIGHT_PERIOD ? p->filtered_weight :
	       p->filtered_period;
}

/* ---- the capped period (prof_input.cap_period) ------------------------- */

/*
 * A THROTTLE record of the hrtimer sampler: from its time on, its CPU
 * samples every period_ns.  A BUDGET one (the global budget refused
 * samples) changes no period: the refused ticks' time is in the next
 * sample's raw period, weighted as perf weighs throttled samples (not).
 * Nor does a PERF one (perf stopped a sampling counter: counts, not time).
 */
static int note_throttle(struct prof *p, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_throttle *t = (const void *)h;
	struct prof_priv *q = p->priv;
	struct cpu_periods *c;

	if (!p->cap_period || h->size < PMUCTX_REC_THROTTLE_SIZE_VER0 ||
	    (h->misc & (PMUCTX_THROTTLE_BUDGET | PMUCTX_THROTTLE_PERF)) ||
	    t->c.cpu >= 65536)
		return 0;
	if (t->c.cpu >= q->nr_cpu_periods) {
		size_t n = (size_t)t->c.cpu + 1;

		c = realloc(q->cpu_periods, n * sizeof(*c));
		if (!c)
			return -ENOMEM;
		memset(c + q->nr_cpu_periods, 0,
		       (n - q->nr_cpu_periods) * sizeof(*c));
		q->cpu_periods = c;
		q->nr_cpu_periods = n;
	}
	c = &q->cpu_periods[t->c.cpu];
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 16;
		__u64 *tv = realloc(c->time, nc * sizeof(*tv)), *pv;

		if (!tv)
			return -ENOMEM;
		c->time = tv;
		pv = realloc(c->period, nc * sizeof(*pv));
		if (!pv)
			return -ENOMEM;
		c->period = pv;
		c->cap = nc;
	}
	c->time[c->n] = t->c.time;
	c->period[c->n++] = t->period_ns;
	return 0;
}

/*
 * What the sample of @cc weighs: its period, at most the period the
 * sampler had on its CPU at its time (never less than the nominal one).
 * Deferred samples come out of the stitcher late: the CPU's history,
 * not its last period, says which held.
 */
static __u64 capped_period(struct prof *p, const struct pmuctx_callchain *cc)
{
	const struct prof_priv *q = p->priv;
	__u64 cap = p->cap_period;

	if (!cap)
		return cc->period;
	if (cc->cpu < q->nr_cpu_periods) {
		const struct cpu_periods *c = &q->cpu_periods[cc->cpu];
		size_t lo = 0, hi = c->n;

		/* the last change at or before the sample */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c->time[mid] <= cc->time)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && c->period[lo - 1] > cap)
			cap = c->period[lo - 1];
	}
	return cc->period < cap ? cc->period : cap;
}

/* ---- comms and processes ------------------------------------------------ */

static bool comm_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct prof_priv *q = ctx;

	return q->comms[idx].tid == *(const __s32 *)key;
}

static struct tid_comm *comm_slot(struct prof_priv *q, __s32 tid, bool create)
{
	__u64 h = mix64((__u64)(__u32)tid);
	long i = hidx_find(&q->comm_idx, h, comm_eq, q, &tid);

	if (i >= 0)
		return &q->comms[i];
	if (!create)
		return NULL;
	if (q->nr_comms == q->cap_comms) {
		size_t nc = q->cap_comms ? q->cap_comms * 2 : 256;
		struct tid_comm *v = realloc(q->comms, nc * sizeof(*v));

		if (!v)
			return NULL;
		q->comms = v;
		q->cap_comms = nc;
	}
	if (hidx_insert(&q->comm_idx, h, (__u32)q->nr_comms))
		return NULL;
	q->comms[q->nr_comms].tid = tid;
	q->comms[q->nr_comms].comm = NULL;
	return &q->comms[q->nr_comms++];
}

/* @comm16: a record's comm[16], or a string (a FORK's parent name) */
static int set_comm(struct prof *p, __s32 tid, const char *comm16)
{
	size_t n = strnlen(comm16, PMUCTX_COMM_LEN);
	char c[PMUCTX_COMM_LEN + 1];
	struct tid_comm *t;

	memcpy(c, comm16, n);
	c[n] = '\0';
	t = comm_slot(p->priv, tid, true);
	if (!t)
		return -ENOMEM;
	t->comm = intern(&p->priv->strings, c);
	return t->comm ? 0 : -ENOMEM;
}

static bool pid_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct prof_priv *q = ctx;

	return q->parents[idx].pid == *(const __s32 *)key;
}

static int set_parent(struct prof_priv *q, __s32 pid, __s32 parent)
{
	__u64 h = mix64((__u64)(__u32)pid ^ 0x55);
	long i = hidx_find(&q->parent_idx, h, pid_eq, q, &pid);

	if (i >= 0) {
		q->parents[i].parent = parent;
		return 0;
	}
	if (q->nr_parents == q->cap_parents) {
		size_t nc = q->cap_parents ? q->cap_parents * 2 : 256;
		struct pid_parent *v = realloc(q->parents, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->parents = v;
		q->cap_parents = nc;
	}
	if (hidx_insert(&q->parent_idx, h, (__u32)q->nr_parents))
		return -ENOMEM;
	q->parents[q->nr_parents].pid = pid;
	q->parents[q->nr_parents++].parent = parent;
	return 0;
}

static bool mpid_eq(const void *ctx, __u32 idx, const void *key)
{
	const struct prof_priv *q = ctx;

	return q->maps_pids[idx] == *(const __s32 *)key;
}

static bool has_maps(const struct prof_priv *q, __s32 pid)
{
	return hidx_find(&q->maps_idx, mix64((__u64)(__u32)pid ^ 0x99),
			 mpid_eq, q, &pid) >= 0;
}

/* the process whose maps a user address of @pid is looked up in */
static __s32 maps_pid(const struct prof_priv *q, __s32 pid)
{
	int depth;

	for (depth = 0; depth < 64 && !has_maps(q, pid); depth++) {
		long i = hidx_find(&q->parent_idx,
				   mix64((__u64)(__u32)pid ^ 0x55), pid_eq, q,
				   &pid);

		if (i < 0 || q->parents[i].parent == pid)
			break;
		pid = q->parents[i].parent;
	}
	return pid;
}

/* ---- building ------------------------------------------------------------- */

/* prof_input.keep_samples: the sample's own frames, for perf-script */
static int keep_sample(struct prof *p, const struct pmuctx_callchain *cc,
		       const struct stack_key *k, __u64 weight)
{
	struct prof_sample *x;

	if (p->nr_samples == p->cap_samples) {
		size_t cap = p->cap_samples ? p->cap_samples * 2 : 256;
		void *v = realloc(p->samples, cap * sizeof(*p->samples));

		if (!v)
			return -ENOMEM;
		p->samples = v;
		p->cap_samples = cap;
	}
	if (p->nr_sample_frames + k->nr > p->cap_sample_frames) {
		size_t cap = p->cap_sample_frames ? p->cap_sample_frames : 1024;
		void *v;

		while (cap < p->nr_sample_frames + k->nr)
			cap *= 2;
		v = realloc(p->sample_frames, cap * sizeof(*p->sample_frames));
		if (!v)
			return -ENOMEM;
		p->sample_frames = v;
		p->cap_sample_frames = cap;
	}
	if (p->nr_sample_frames + k->nr > UINT32_MAX)
		return -ENOMEM;
	x = &p->samples[p->nr_samples++];
	x->time = cc->time;
	x->cpu = cc->cpu;
	x->weight = weight;
	x->tid = cc->tid;
	x->ip = cc->ip;
	x->first = (__u32)p->nr_sample_frames;
	x->nr = k->nr;
	x->nr_kernel = k->nr_kernel;
	x->flags = cc->flags;
	memcpy(p->sample_frames + p->nr_sample_frames, k->frames,
	       k->nr * sizeof(*k->frames));
	p->nr_sample_frames += k->nr;
	return 0;
}

static int cmp_sample_key(__u32 cpu, __u64 time, __s32 tid, __u64 ip,
			  const struct prof_sample *b)
{
	if (cpu != b->cpu)
		return cpu < b->cpu ? -1 : 1;
	if (time != b->time)
		return time < b->time ? -1 : 1;
	if (tid != b->tid)
		return tid < b->tid ? -1 : 1;
	if (ip != b->ip)
		return ip < b->ip ? -1 : 1;
	return 0;
}

static int cmp_samples(const void *x, const void *y)
{
	const struct prof_sample *a = x;

	return cmp_sample_key(a->cpu, a->time, a->tid, a->ip, y);
}

const struct prof_sample *prof_find_sample(const struct prof *p, __u32 cpu,
					   __u64 time, __s32 tid, __u64 ip)
{
	size_t lo = 0, hi = p ? p->nr_samples : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_sample_key(cpu, time, tid, ip, &p->samples[mid]);

		if (!c)
			return &p->samples[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static bool in_range(const struct prof_range *r, size_t n, __u64 t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t >= r[i].start && (!r[i].end || t <= r[i].end))
			return true;
	return false;
}

static bool in_ids(const __s32 *v, size_t n, __s32 id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/* prof_input.filter: does the sample of @cc, named @comm, stay? */
static bool sample_passes(const struct prof_filter *f,
			  const struct pmuctx_callchain *cc, const char *comm)
{
	size_t i;

	if (!f)
		return true;
	if (f->nr_pids && !in_ids(f->pids, f->nr_pids, cc->pid))
		return false;
	if (f->nr_tids && !in_ids(f->tids, f->nr_tids, cc->tid))
		return false;
	if (f->nr_times && !in_range(f->times, f->nr_times, cc->time))
		return false;
	if (!f->nr_comms)
		return true;
	for (i = 0; i < f->nr_comms; i++)
		if (!strcmp(f->comms[i], comm))
			return true;
	return false;
}

static int add_callchain(struct prof *p, struct pmuctx_syms *y,
			 const struct pmuctx_callchain *cc)
{
	const struct tid_comm *t = comm_slot(p->priv, cc->tid, false);
	__u16 misc = cc->sample->hdr.misc;
	struct stack_key k = { .pid = cc->pid, .tid = cc->tid };
	__s32 upid = maps_pid(p->priv, cc->pid);
	char cbuf[32];
	__u64 weight;
	__u32 i, n = 0;
	long id;

	if (t && t->comm) {
		k.comm = t->comm;
	} else {
		snprintf(cbuf, sizeof(cbuf), ":%d", (int)cc->tid);
		k.comm = intern(&p->priv->strings, cbuf);
		if (!k.comm)
			return -ENOMEM;
	}
	weight = capped_period(p, cc);
	if (!sample_passes(p->priv->filter, cc, k.comm)) {
		p->filtered_count++;
		p->filtered_period += cc->period;
		p->filtered_weight += weight;
		return 0;
	}
	if (weight < cc->period) {
		p->capped_count++;
		p->capped_period += cc->period - weight;
	}
	if (misc & PMUCTX_SAMPLE_M_KADDR_HIDDEN)
		p->kernel_hidden++;
	if (scratch(p, (size_t)cc->nr_kernel + cc->nr_user + 1))
		return -ENOMEM;
	for (i = 0; i < cc->nr_kernel; i++) {
		id = frame_of(p, y, true, 0, cc->time, cc->ips[i], i > 0);
		if (id < 0)
			return (int)id;
		p->priv->scratch[n++] = (__u32)id;
	}
	k.nr_kernel = n;
	for (i = 0; i < cc->nr_user; i++) {
		id = frame_of(p, y, false, upid, cc->time,
			      cc->ips[cc->nr_kernel + i], i > 0);
		if (id < 0)
			return (int)id;
		p->priv->scratch[n++] = (__u32)id;
	}
	if (!n) {
		/* no callchain: the interrupted ip alone */
		bool kernel = !(misc & PMUCTX_SAMPLE_M_USER);

		id = frame_of(p, y, kernel, kernel ? 0 : upid, cc->time,
			      cc->ip, false);
		if (id < 0)
			return (int)id;
		p->priv->scratch[n++] = (__u32)id;
		k.nr_kernel = kernel ? 1 : 0;
	}
	k.nr = n;
	k.frames = p->priv->scratch;
	if (p->priv->keep_samples && keep_sample(p, cc, &k, weight))
		return -ENOMEM;
	return add_stack(p, &k, 1, cc->period, weight);
}

static int drain(struct prof *p, struct pmuctx_syms *y,
		 struct pmuctx_stitch *s)
{
	struct pmuctx_callchain cc;
	int err;

	while (pmuctx_stitch_next(s, &cc) > 0) {
		err = add_callchain(p, y, &cc);
		if (err)
			return err;
	}
	return 0;
}

/* remember that @pid has memory maps (has_maps()): 0 or -ENOMEM */
static int note_maps_pid(struct prof_priv *q, __s32 pid)
{
	__s32 *v;

	if (has_maps(q, pid))
		return 0;
	v = realloc(q->maps_pids, (q->nr_maps_pids + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	q->maps_pids = v;
	v[q->nr_maps_pids] = pid;
	if (hidx_insert(&q->maps_idx, mix64((__u64)(__u32)pid ^ 0x99),
			(__u32)q->nr_maps_pids))
		return -ENOMEM;
	q->nr_maps_pids++;
	return 0;
}

/* the names and parents of the tasks, from COMM, EXEC and FORK: 0 or -ENOMEM */
static int track_task(struct prof *p, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = (const void *)(h + 1);
	struct prof_priv *q = p->priv;

	switch (h->type) {
	case PMUCTX_REC_COMM:
		return set_comm(p, c->tid,
				((const struct pmuctx_rec_comm *)h)->comm);
	case PMUCTX_REC_EXEC:
		return set_comm(p, c->tid,
				((const struct pmuctx_rec_exec *)h)->comm);
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *f = (const void *)h;
		const struct tid_comm *t = comm_slot(q, c->tid, false);
		int e = 0;

		if (t && t->comm && !comm_slot(q, f->child_tid, false))
			e = set_comm(p, f->child_tid, t->comm);
		if (!e && f->child_pid != c->pid)
			e = set_parent(q, f->child_pid, c->pid);
		return e;
	}
	default:
		return 0;
	}
}

/*
 * The memory map a user address of @pid at @time is looked up in: its
 * process's last map from before @time, else its first one (the module's
 * MMAP snapshot comes after the first USER_STACK record of a process).
 */
static const struct prof_maps *map_at(const struct prof *p, __s32 pid,
				      __u64 time)
{
	const struct prof_input *in = p->priv->in;
	const struct prof_maps *best = NULL, *first = NULL;
	__s32 upid = maps_pid(p->priv, pid);
	size_t i;

	for (i = 0; i < in->nr_maps; i++) {
		const struct prof_maps *m = &in->maps[i];

		if (m->pid != upid)
			continue;
		if (m->time <= time && (!best || m->time >= best->time))
			best = m;
		if (!first || m->time < first->time)
			first = m;
	}
	return best ? best : first;
}

/*
 * Where @pid has the vDSO at @time, from whichever of its maps says
 * (the module's MMAP snapshots, file mappings only, do not): the last
 * one from before @time, else any.  0, 0: none says.
 */
static void vdso_at(const struct prof *p, __s32 pid, __u64 time, __u64 *lo,
		    __u64 *hi)
{
	const struct prof_input *in = p->priv->in;
	__s32 upid = maps_pid(p->priv, pid);
	__u64 best = 0, a, b;
	bool found = false;
	size_t i;

	*lo = *hi = 0;
	for (i = 0; i < in->nr_maps; i++) {
		const struct prof_maps *m = &in->maps[i];

		if (m->pid != upid || !unw_map_vdso(m->text, m->len, &a, &b))
			continue;
		if (!found || (m->time <= time && m->time >= best)) {
			*lo = a;
			*hi = b;
			found = m->time <= time;
			best = m->time;
		}
	}
}

/* USER_STACK: unwind it now, for the USER_CALLCHAIN that follows */
static int dwarf_stack(struct prof *p, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_user_stack *r = (const void *)h;
	struct prof_priv *q = p->priv;
	struct dwarf_chain *dc;
	__u64 vlo, vhi;
	int n;

	if (!q->unw) {
		n = unw_new(&q->unw);
		if (!n)
			n = unw_no_files(q->unw, q->in->no_files,
					 q->in->nr_no_files);
		if (!n)
			unw_vdso(q->unw, q->in->vdso, q->in->vdso_len);
		if (!n && !q->pending) {
			q->pending = calloc(DWARF_PENDING, sizeof(*q->pending));
			if (!q->pending)
				n = -ENOMEM;
		}
		if (n)
			return n;
	}
	/* a record unw_check() refuses is counted (bad) and dropped */
	if (h->size < sizeof(*r) || unw_check(h, h->size)) {
		unw_unwind(q->unw, NULL, 0, 0, 0, h, h->size, NULL, 0);
		return 0;
	}
	dc = &q->pending[q->next_pending++ % DWARF_PENDING];
	vdso_at(p, r->c.pid, r->c.time, &vlo, &vhi);
	n = unw_unwind(q->unw, map_at(p, r->c.pid, r->c.time), r->c.pid,
		       vlo, vhi, h, h->size, dc->ips, PMUCTX_MAX_STACK);
	dc->n = n > 0 ? (unsigned int)n : 0;
	dc->tid = r->c.tid;
	dc->cookie = r->cookie;
	return 0;
}

/*
 * USER_CALLCHAIN of a dwarf-mode recording: the unwound chain of its
 * USER_STACK record instead of the frame-pointer walk, when the unwind
 * found frames.  Returns the record to feed the stitcher.
 */
static const struct pmuctx_rec_header *
dwarf_chain_for(struct prof *p, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_user_callchain *c = (const void *)h;
	struct pmuctx_rec_user_callchain *w;
	struct prof_priv *q = p->priv;
	struct dwarf_chain *dc = NULL;
	unsigned int i;

	if (!q->pending || h->size < sizeof(*c))
		return h;
	for (i = 0; i < DWARF_PENDING; i++) {
		if (q->pending[i].n && q->pending[i].tid == c->c.tid &&
		    q->pending[i].cookie == c->cookie) {
			dc = &q->pending[i];
			break;
		}
	}
	if (!dc)
		return h;
	if (!q->urec) {
		q->urec = malloc(sizeof(*w) + PMUCTX_MAX_STACK * sizeof(__u64));
		if (!q->urec)
			return h;
	}
	w = (void *)q->urec;
	memcpy(w, c, sizeof(*w));
	w->hdr.size = (__u16)(sizeof(*w) + dc->n * sizeof(__u64));
	w->hdr.misc = 0;
	w->nr = dc->n;
	memcpy(w->ips, dc->ips, dc->n * sizeof(__u64));
	dc->n = 0;
	q->unw_used++;
	return &w->hdr;
}

/* one record of the input, in time order: 0, or an error (no memory) */
static int add_record(struct prof *p, struct pmuctx_syms *y,
		      struct pmuctx_stitch *s,
		      const struct pmuctx_rec_header *h)
{
	int e = track_task(p, h);

	if (e)
		return e;
	if (h->type == PMUCTX_REC_USER_STACK)
		return dwarf_stack(p, h);
	if (h->type == PMUCTX_REC_THROTTLE)
		return note_throttle(p, h);
	if (h->type == PMUCTX_REC_USER_CALLCHAIN)
		h = dwarf_chain_for(p, h);
	if (h->type != PMUCTX_REC_SAMPLE &&
	    h->type != PMUCTX_REC_USER_CALLCHAIN &&
	    h->type != PMUCTX_REC_EXIT)
		return 0;
	e = pmuctx_stitch_add(s, h, h->size);
	if (e == -ENOMEM)
		return e;
	if (e < 0)
		return 0;	/* checked when the file was read */
	return drain(p, y, s);
}

/* the profile's description, from the recording's */
static void prof_init(struct prof *p, const struct prof_input *in)
{
	p->priv->keep_samples = in->keep_samples;
	p->priv->filter = in->filter;
	p->priv->in = in;
	p->sample_freq = in->sample_freq;
	p->cap_period = in->cap_period;
	p->event = in->event;
	p->period_events = in->period_events;
	p->start_real_ns = in->start_real_ns;
	p->duration_ns = in->duration_ns;
}

/*
 * The kernel writes a USER_STACK right before the USER_CALLCHAIN of its
 * cookie; a reader's merge puts them the other way round when they have
 * the same time (it orders by type then): is @a such a USER_CALLCHAIN
 * and @b its USER_STACK?
 */
static bool dwarf_pair(const struct pmuctx_rec_header *a,
		       const struct pmuctx_rec_header *b)
{
	const struct pmuctx_rec_user_callchain *c = (const void *)a;
	const struct pmuctx_rec_user_stack *u = (const void *)b;

	return a->type == PMUCTX_REC_USER_CALLCHAIN &&
	       b->type == PMUCTX_REC_USER_STACK && a->size >= sizeof(*c) &&
	       b->size >= sizeof(*u) && c->c.time == u->c.time &&
	       c->c.tid == u->c.tid && c->cookie == u->cookie;
}

/* the unwinder's state, once the records are in (its Dwfls are large) */
static void dwarf_done(struct prof_priv *q)
{
	unw_free(q->unw);
	q->unw = NULL;
	free(q->pending);
	q->pending = NULL;
	free(q->urec);
	q->urec = NULL;
	q->in = NULL;
}

int prof_build(const struct prof_input *in, struct prof **out, char *err,
	       size_t errlen)
{
	LIBPMUCTX_OPTS(pmuctx_syms_opts, so,
		.kallsyms = in->kallsyms,
		.flags = (in->no_kernel_syms ? PMUCTX_SYMS_NO_KERNEL : 0) |
			 (in->lines ? PMUCTX_SYMS_LINES : 0),
	);
	struct pmuctx_stitch *s = NULL;
	struct pmuctx_syms *y = NULL;
	struct prof *p;
	size_t i;
	int e;

	*out = NULL;
	e = prof_new(&p);
	if (e) {
		snprintf(err, errlen, "out of memory");
		return e;
	}
	prof_init(p, in);
	e = pmuctx_stitch_new(&s, NULL);
	if (!e)
		e = pmuctx_syms_new(&y, &so);
	for (i = 0; !e && i < in->nr_no_files; i++)
		e = pmuctx_syms_no_file(y, in->no_files[i]);
	if (e)
		goto lib_fail;
	for (i = 0; i < in->nr_maps; i++) {
		const struct prof_maps *m = &in->maps[i];

		e = pmuctx_syms_add_maps(y, m->pid, m->time, m->text, m->len);
		if (e)
			goto lib_fail;
		e = note_maps_pid(p->priv, m->pid);
		if (e)
			goto nomem;
	}
	for (i = 0; i < in->nr_recs; i++) {
		/* a USER_STACK before the USER_CALLCHAIN it stands for */
		if (i + 1 < in->nr_recs &&
		    dwarf_pair(in->recs[i], in->recs[i + 1])) {
			e = add_record(p, y, s, in->recs[i + 1]);
			if (e)
				goto nomem;
		}
		e = add_record(p, y, s, in->recs[i]);
		if (e)
			goto nomem;
		if (i + 1 < in->nr_recs &&
		    dwarf_pair(in->recs[i], in->recs[i + 1]))
			i++;
	}
	pmuctx_stitch_flush(s);
	e = drain(p, y, s);
	if (e)
		goto nomem;
	pmuctx_stitch_stats(s, &p->stats);
	p->have_stats = true;
	unw_get_stats(p->priv->unw, &p->dwarf);
	p->dwarf.used = p->priv->unw_used;
	dwarf_done(p->priv);
	if (p->nr_samples > 1)
		qsort(p->samples, p->nr_samples, sizeof(*p->samples),
		      cmp_samples);
	pmuctx_stitch_free(s);
	pmuctx_syms_free(y);
	*out = p;
	return 0;
lib_fail:
	pmuctx_errmsg(NULL, e, err, errlen);
	goto fail;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	dwarf_done(p->priv);
	pmuctx_stitch_free(s);
	pmuctx_syms_free(y);
	prof_free(p);
	return e < 0 ? e : -ENOMEM;
}
