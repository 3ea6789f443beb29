// SPDX-License-Identifier: GPL-2.0
/*
 * pprof writer: the profile as a gzip'd perftools.profiles.Profile
 * (profile.proto, encoded with protobuf-c), what `go tool pprof`,
 * pprof's web UI and speedscope read.
 *
 * Sample types samples/count and cpu/nanoseconds (the sum of the
 * samples' periods, capped as the other outputs' default: stack.weight;
 * the raw periods with PROF_WEIGHT_RAW_PERIOD); period_type
 * cpu/nanoseconds with the sampling period.  pprof shows the last type by
 * default; with PROF_WEIGHT_SAMPLES default_sample_type says samples.
 * Every frame is one Location (leaf first in Sample.location_id,
 * kernel frames below user frames) with one Line naming its Function, so
 * pprof needs no symbolization of its own; Mappings are the files (and
 * [kernel.kallsyms]).  A frame without a symbol is a Location with its
 * Mapping and address and no Line: pprof shows it by address, apart from
 * every other, instead of merging unknown frames into one Function.
 * Labels: comm, pid, tid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "hidx.h"
#include "profile.h"
#include "profile/profile.pb-c.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

struct strtab {
	const char **v;
	size_t n, cap;
	struct hidx idx;
};

static bool st_eq(const void *ctx, __u32 i, const void *key)
{
	return !strcmp(((const struct strtab *)ctx)->v[i], key);
}

/* index of @s in the string table (-1: ENOMEM); @s must outlive it */
static int64_t str_id(struct strtab *t, const char *s)
{
	__u64 h = hash_bytes(0xcbf29ce484222325ULL, s, strlen(s));
	long i = hidx_find(&t->idx, h, st_eq, t, s);

	if (i >= 0)
		return i;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		const char **v = realloc(t->v, nc * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = nc;
	}
	if (hidx_insert(&t->idx, h, (__u32)t->n))
		return -1;
	t->v[t->n] = s;
	return (int64_t)t->n++;
}

struct pp {
	struct strtab st;
	PMapping *maps;
	size_t nmaps;
	struct hidx map_idx;
	PFunction *funcs;
	size_t nfuncs;
	struct hidx func_idx;
	/* which frame each mapping / function stands for (keys) */
	const struct prof_frame **map_fr;
	const struct prof_frame **func_fr;
	/* locations = frames (ids are the frame ids), one line each */
	PLocation *locs, **locp;
	PLine *lines, **linep;
	size_t nloc;
	/* the Profile's arrays of pointers */
	PMapping **mapp;
	PFunction **funcp;
	/* samples: one per stack, with labels comm, pid and tid */
	PSample *samples, **sp;
	PLabel *labels, **lp;
	uint64_t *locids;
	int64_t *values;
	int64_t s_comm, s_pid, s_tid;	/* the labels' keys */
};

static bool map_eq(const void *ctx, __u32 i, const void *key)
{
	const struct prof_frame *a = ((const struct pp *)ctx)->map_fr[i];
	const struct prof_frame *b = key;

	return a->module == b->module && a->mod_start == b->mod_start &&
	       a->kernel == b->kernel && a->pid == b->pid;
}

static bool func_eq(const void *ctx, __u32 i, const void *key)
{
	const struct prof_frame *a = ((const struct pp *)ctx)->func_fr[i];
	const struct prof_frame *b = key;

	return a->label == b->label && a->module == b->module &&
	       a->file == b->file;
}

static void pp_free(struct pp *x)
{
	free(x->st.v);
	hidx_free(&x->st.idx);
	free(x->maps);
	hidx_free(&x->map_idx);
	free(x->funcs);
	hidx_free(&x->func_idx);
	free(x->map_fr);
	free(x->func_fr);
	free(x->locs);
	free(x->locp);
	free(x->lines);
	free(x->linep);
	free(x->mapp);
	free(x->funcp);
	free(x->samples);
	free(x->sp);
	free(x->labels);
	free(x->lp);
	free(x->locids);
	free(x->values);
}

static int gzip_buf(const void *in, size_t inlen, void **out, size_t *outlen)
{
	z_stream z;
	size_t cap;
	unsigned char *b;
	int r;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer, as pprof expects */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)inlen) + 64;
	b = malloc(cap);
	if (!b) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)inlen;
	z.next_out = b;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(b);
		return -EIO;
	}
	*out = b;
	return 0;
}

/* 0: the main program's file, 1: other files, 2: other user, 3: kernel */
static size_t frame_pass(const struct prof_frame *fr, const char *main_comm)
{
	const char *b;

	if (fr->kernel)
		return 3;
	if (fr->module[0] != '/')
		return 2;
	b = strrchr(fr->module, '/') + 1;
	return main_comm && !strncmp(b, main_comm, PMUCTX_COMM_LEN - 1) ? 0 :
	       1;
}

/* the sample types (samples/count, cpu/nanoseconds or EVENT/count) */
static int pp_types(struct pp *x, const struct prof *p, PValueType *vt,
		    PValueType *pt)
{
	if (str_id(&x->st, "") != 0)
		return -ENOMEM;
	vt[0].type = str_id(&x->st, "samples");
	vt[0].unit = str_id(&x->st, "count");
	vt[1].type = str_id(&x->st, p->period_events && p->event ? p->event :
			    "cpu");
	vt[1].unit = str_id(&x->st, p->period_events ? "count" :
			    "nanoseconds");
	pt->type = vt[1].type;
	pt->unit = vt[1].unit;
	x->s_comm = str_id(&x->st, "comm");
	x->s_pid = str_id(&x->st, "pid");
	x->s_tid = str_id(&x->st, "tid");
	if (vt[0].type < 0 || vt[0].unit < 0 || vt[1].type < 0 ||
	    vt[1].unit < 0 || x->s_comm < 0 || x->s_pid < 0 || x->s_tid < 0)
		return -ENOMEM;
	return 0;
}

/* a new Mapping for @fr (hash @hm): its index, or -1 */
static long pp_add_mapping(struct pp *x, const struct prof_frame *fr,
			   __u64 hm)
{
	PMapping *mp = &x->maps[x->nmaps];

	perftools__profiles__mapping__init(mp);
	mp->id = x->nmaps + 1;
	mp->memory_start = fr->mod_start;
	mp->memory_limit = fr->mod_end;
	mp->file_offset = fr->mod_pgoff;
	mp->filename = str_id(&x->st, fr->module);
	mp->has_functions = true;
	mp->has_filenames = fr->file != NULL;
	mp->has_line_numbers = fr->line > 0;
	x->map_fr[x->nmaps] = fr;
	if (mp->filename < 0 ||
	    hidx_insert(&x->map_idx, hm, (__u32)x->nmaps))
		return -1;
	return (long)x->nmaps++;
}

/* a new Function for @fr (hash @hf): its index, or -1 */
static long pp_add_function(struct pp *x, const struct prof_frame *fr,
			    __u64 hf)
{
	PFunction *f = &x->funcs[x->nfuncs];

	perftools__profiles__function__init(f);
	f->id = x->nfuncs + 1;
	f->name = str_id(&x->st, fr->label);
	f->system_name = f->name;
	f->filename = str_id(&x->st, fr->file ? fr->file : "");
	x->func_fr[x->nfuncs] = fr;
	if (f->name < 0 || f->filename < 0 ||
	    hidx_insert(&x->func_idx, hf, (__u32)x->nfuncs))
		return -1;
	return (long)x->nfuncs++;
}

/* the Location of @fr, with its Mapping and Function: 0 or -ENOMEM */
static int pp_location(struct pp *x, const struct prof_frame *fr)
{
	__u64 hm = mix64((__u64)(uintptr_t)fr->module ^
			 mix64(fr->mod_start) ^ (__u64)(__u32)fr->pid ^
			 fr->kernel);
	__u64 hf = mix64((__u64)(uintptr_t)fr->label ^
			 mix64((__u64)(uintptr_t)fr->module) ^
			 (__u64)(uintptr_t)fr->file);
	PLocation *l = &x->locs[x->nloc];
	PLine *ln = &x->lines[x->nloc];
	long m, fn;

	m = hidx_find(&x->map_idx, hm, map_eq, x, fr);
	if (m < 0)
		m = pp_add_mapping(x, fr, hm);
	if (m < 0)
		return -ENOMEM;
	perftools__profiles__location__init(l);
	l->id = fr->id;
	l->mapping_id = x->maps[m].id;
	l->address = fr->addr;
	x->locp[x->nloc++] = l;
	if (fr->unknown)	/* no Function: its address keeps it apart */
		return 0;
	fn = hidx_find(&x->func_idx, hf, func_eq, x, fr);
	if (fn < 0)
		fn = pp_add_function(x, fr, hf);
	if (fn < 0)
		return -ENOMEM;
	perftools__profiles__line__init(ln);
	ln->function_id = x->funcs[fn].id;
	ln->line = fr->line;
	x->linep[x->nloc - 1] = ln;
	l->n_line = 1;
	l->line = &x->linep[x->nloc - 1];
	return 0;
}

/* the command of the heaviest stack */
static const char *main_comm(const struct prof *p)
{
	const char *comm = NULL;
	__u64 best = 0;
	size_t i;

	for (i = 0; i < p->nr_stacks; i++)
		if (p->stacks[i].count > best) {
			best = p->stacks[i].count;
			comm = p->stacks[i].comm;
		}
	return comm;
}

/* locations, functions and mappings: 0 or -ENOMEM */
static int pp_locations(struct pp *x, const struct prof *p)
{
	size_t n = p->nr_frames + 1, i;
	const char *comm;

	x->locs = calloc(n, sizeof(*x->locs));
	x->locp = calloc(n, sizeof(*x->locp));
	x->lines = calloc(n, sizeof(*x->lines));
	x->linep = calloc(n, sizeof(*x->linep));
	x->maps = calloc(n, sizeof(*x->maps));
	x->map_fr = calloc(n, sizeof(*x->map_fr));
	x->funcs = calloc(n, sizeof(*x->funcs));
	x->func_fr = calloc(n, sizeof(*x->func_fr));
	if (!x->locs || !x->locp || !x->lines || !x->linep || !x->maps ||
	    !x->map_fr || !x->funcs || !x->func_fr)
		return -ENOMEM;
	/*
	 * Four passes, so that the first Mapping (the one pprof names as the
	 * profile's "File") is the program of the heaviest stack: its file,
	 * the other files, other user mappings, the kernel.
	 */
	comm = main_comm(p);
	for (i = 0; i < 4 * p->nr_frames; i++) {
		const struct prof_frame *fr = &p->frames[i % p->nr_frames];

		if (frame_pass(fr, comm) != i / p->nr_frames)
			continue;
		if (pp_location(x, fr))
			return -ENOMEM;
	}
	x->mapp = calloc(x->nmaps + 1, sizeof(*x->mapp));
	x->funcp = calloc(x->nfuncs + 1, sizeof(*x->funcp));
	if (!x->mapp || !x->funcp)
		return -ENOMEM;
	for (i = 0; i < x->nmaps; i++)
		x->mapp[i] = &x->maps[i];
	for (i = 0; i < x->nfuncs; i++)
		x->funcp[i] = &x->funcs[i];
	return 0;
}

/* the Sample of stack @i, its location ids at @ids: 0 or -ENOMEM */
static int pp_sample(struct pp *x, const struct prof *p, enum prof_weight w,
		     size_t i, uint64_t *ids)
{
	const struct prof_stack *s = &p->stacks[i];
	PSample *smp = &x->samples[i];
	PLabel *lb = &x->labels[3 * i];
	size_t k;

	perftools__profiles__sample__init(smp);
	for (k = 0; k < s->nr; k++)
		ids[k] = s->frames[k];
	smp->location_id = ids;
	smp->n_location_id = s->nr;
	x->values[2 * i] = (int64_t)s->count;
	x->values[2 * i + 1] = (int64_t)(w == PROF_WEIGHT_RAW_PERIOD ?
					 s->period : s->weight);
	smp->value = &x->values[2 * i];
	smp->n_value = 2;
	for (k = 0; k < 3; k++) {
		perftools__profiles__label__init(&lb[k]);
		x->lp[3 * i + k] = &lb[k];
	}
	lb[0].key = x->s_comm;
	lb[0].str = str_id(&x->st, s->comm);
	if (lb[0].str < 0)
		return -ENOMEM;
	lb[1].key = x->s_pid;
	lb[1].num = s->pid;
	lb[2].key = x->s_tid;
	lb[2].num = s->tid;
	smp->label = &x->lp[3 * i];
	smp->n_label = 3;
	x->sp[i] = smp;
	return 0;
}

/* samples: one per stack; 0 or -ENOMEM */
static int pp_samples(struct pp *x, const struct prof *p,
		      enum prof_weight w)
{
	size_t n = p->nr_stacks, nids = 0, i;
	uint64_t *ids;

	for (i = 0; i < n; i++)
		nids += p->stacks[i].nr;
	x->samples = calloc(n + 1, sizeof(*x->samples));
	x->sp = calloc(n + 1, sizeof(*x->sp));
	x->labels = calloc(3 * n + 1, sizeof(*x->labels));
	x->lp = calloc(3 * n + 1, sizeof(*x->lp));
	x->locids = calloc(nids + 1, sizeof(*x->locids));
	x->values = calloc(2 * n + 1, sizeof(*x->values));
	if (!x->samples || !x->sp || !x->labels || !x->lp || !x->locids ||
	    !x->values)
		return -ENOMEM;
	ids = x->locids;
	for (i = 0; i < n; i++) {
		if (pp_sample(x, p, w, i, ids))
			return -ENOMEM;
		ids += p->stacks[i].nr;
	}
	return 0;
}

int prof_pprof_encode(const struct prof *p, enum prof_weight w, void **buf,
		      size_t *len)
{
	PProfile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	PValueType vt[2] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
			     PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	PValueType pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	PValueType *vtp[2] = { &vt[0], &vt[1] };
	struct pp x = { 0 };
	size_t packed_len;
	uint8_t *packed = NULL;
	int err = -ENOMEM;

	*buf = NULL;
	*len = 0;
	if (pp_types(&x, p, vt, &pt) || pp_locations(&x, p) ||
	    pp_samples(&x, p, w))
		goto out;

	prof.n_sample_type = 2;
	prof.sample_type = vtp;
	prof.n_sample = p->nr_stacks;
	prof.sample = x.sp;
	prof.n_mapping = x.nmaps;
	prof.mapping = x.mapp;
	prof.n_location = x.nloc;
	prof.location = x.locp;
	prof.n_function = x.nfuncs;
	prof.function = x.funcp;
	prof.n_string_table = x.st.n;
	prof.string_table = (char **)(uintptr_t)x.st.v;
	prof.time_nanos = (int64_t)p->start_real_ns;
	prof.duration_nanos = (int64_t)p->duration_ns;
	prof.period_type = &pt;
	if (w == PROF_WEIGHT_SAMPLES)
		prof.default_sample_type = vt[0].type;
	/* an event's period varies (perf's frequency mode): none given */
	prof.period = p->sample_freq && !p->period_events ?
		      1000000000LL / p->sample_freq : 0;

	packed_len = perftools__profiles__profile__get_packed_size(&prof);
	packed = malloc(packed_len ? packed_len : 1);
	if (!packed)
		goto out;
	perftools__profiles__profile__pack(&prof, packed);
	err = gzip_buf(packed, packed_len, buf, len);
out:
	free(packed);
	pp_free(&x);
	return err;
}

int prof_write_pprof(const struct prof *p, enum prof_weight w, FILE *f)
{
	void *buf;
	size_t len;
	int err = prof_pprof_encode(p, w, &buf, &len);

	if (err)
		return err;
	if (fwrite(buf, 1, len, f) != len)
		err = -EIO;
	free(buf);
	return err;
}
