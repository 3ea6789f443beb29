/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/profile: profiles from sampling recordings.
 *
 * prof_build() feeds the records of a recording, in time order, to a
 * libpmuctx stitcher, symbolizes every frame of every callchain with the
 * library's resolver (kallsyms; the memory maps the recorder stored and
 * the ELF files) and aggregates identical stacks.  The writers print the
 * result: folded stacks (flamegraph.pl, speedscope), a gzip'd pprof
 * profile.proto, or a perf-report-like table.
 *
 * maps_*: the recorder's side: /proc/PID/maps of the targets, captured at
 * the start, at every EXEC record and when a sample's user address is not
 * in the last captured map of its process; and the module's MMAP records
 * (snapshots the sampled task writes itself, so a process that is gone
 * before /proc could be read still has a map), turned into the same text.
 */
#ifndef PMUCTX_TOOLS_PROFILE_H
#define PMUCTX_TOOLS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <pmuctx.h>

/* ---- input ------------------------------------------------------------- */

/* one memory map of a process (a MAPS section of the file) */
struct prof_maps {
	__s32 pid;
	__u64 time;
	const char *text;
	size_t len;
};

/*
 * Which samples a profile keeps (pmuctx report --comm, --pid, --tid,
 * --time): a sample is kept when it passes every list given (an empty
 * list passes all).  Times are CLOCK_MONOTONIC ns, a range [start, end]
 * (end 0: open).
 */
struct prof_range {
	__u64 start, end;
};

struct prof_filter {
	const char *const *comms;	/* the sample's command (thread name) */
	size_t nr_comms;
	const __s32 *pids;
	size_t nr_pids;
	const __s32 *tids;
	size_t nr_tids;
	const struct prof_range *times;
	size_t nr_times;
};

struct prof_input {
	const struct pmuctx_rec_header *const *recs;	/* time order */
	size_t nr_recs;
	const struct prof_maps *maps;
	size_t nr_maps;
	__u32 sample_freq;		/* Hz, 0 unknown */
	/*
	 * The hrtimer sampler's nominal period (ns; 0: the periods are not
	 * capped).  Its periods are the time the task ran since its
	 * previous sample: a tick held back (interrupts off, a vCPU not
	 * run) makes one sample stand for a stall.  The default weight
	 * (PROF_WEIGHT_PERIOD) takes each sample's period up to the period
	 * the sampler had on that CPU: this one, or longer after a
	 * THROTTLE record (not a BUDGET one) slowed that CPU down.
	 */
	__u64 cap_period;
	const char *event;		/* sampled event; NULL: cpu-clock */
	bool period_events;		/* periods count events, not ns */
	__u64 start_real_ns;		/* CLOCK_REALTIME at the start */
	__u64 duration_ns;
	const char *kallsyms;		/* NULL: /proc/kallsyms */
	bool no_kernel_syms;
	bool lines;			/* source lines (pprof) */
	bool keep_samples;		/* prof_find_sample() (perf-script) */
	const struct prof_filter *filter;	/* NULL: every sample */
	/* files not read (build-id changed): their frames file+offset */
	const char *const *no_files;
	size_t nr_no_files;
	/* the recorder's vDSO image (the file's VDSO section), NULL: none */
	const void *vdso;
	size_t vdso_len;
};

/* ---- DWARF unwinding of USER_STACK records (unwind.c) ------------------- */

struct unw;

struct unw_stats {
	__u64 records;		/* USER_STACK records read */
	__u64 bytes;		/* their bytes */
	__u64 bad;		/* refused by unw_check() */
	__u64 no_map;		/* no memory map (or no Dwfl, or files of
				   another architecture) for them */
	__u64 unwound;		/* unwinds run */
	__u64 frames;		/* frames they found */
	__u64 used;		/* unwinds that replaced a user callchain */
	__u64 ns;		/* time spent unwinding (CLOCK_MONOTONIC) */
};

/*
 * unw_check() - is @rec (@len bytes from a file) a USER_STACK record whose
 * registers and stack copy lie inside it?  0, -EINVAL, or -EOPNOTSUPP (a
 * register set this reader does not know)
 */
int unw_check(const void *rec, size_t len);
int unw_new(struct unw **out);
/*
 * unw_no_files() - files not read for CFI (build-id changed): their
 * frames end unwinds; @paths stay valid while @u is used
 */
int unw_no_files(struct unw *u, const char *const *paths, size_t n);
/*
 * unw_vdso() - the vDSO's ELF image (@image stays valid while @u is
 * used): unw_unwind() reports it where a map, or @vdso_lo/@vdso_hi, puts
 * the vDSO, and its CFI unwinds the frames there
 */
void unw_vdso(struct unw *u, const void *image, size_t len);
void unw_free(struct unw *u);
/*
 * unw_unwind() - unwind the USER_STACK record @rec of process @pid with
 * the memory map @m (NULL: none is known) into @ips (at most @max pcs,
 * innermost first).  @vdso_lo, @vdso_hi: where the process has the vDSO
 * when @m does not say (another map of it did; 0, 0: unknown); read the
 * first time @m is used.  Returns the number of frames, or a negative
 * errno for a record unw_check() refuses.
 */
int unw_unwind(struct unw *u, const struct prof_maps *m, __s32 pid,
	       __u64 vdso_lo, __u64 vdso_hi, const void *rec, size_t len,
	       __u64 *ips, unsigned int max);
/*
 * unw_map_vdso() - where map text @text (@len bytes) puts the vDSO: true
 * with [*lo, *hi) when it has a "[vdso]" line
 */
bool unw_map_vdso(const char *text, size_t len, __u64 *lo, __u64 *hi);
void unw_get_stats(const struct unw *u, struct unw_stats *st);

/* ---- the profile --------------------------------------------------------- */

struct prof_frame {
	__u32 id;			/* 1 ... */
	bool kernel;
	__s32 pid;			/* user frames: the process */
	__u64 addr;
	const char *name;		/* symbol, or NULL */
	bool unknown;			/* no symbol (hidden kernel ones
					   aside): pprof keeps it apart */
	const char *module;		/* file path or [kernel.kallsyms] */
	const char *label;		/* what the outputs print */
	const char *file;		/* source file or NULL */
	int line;
	__u64 sym_start;
	__u64 mod_start, mod_end, mod_pgoff;
};

struct prof_stack {
	const char *comm;
	__s32 pid, tid;
	__u32 nr;			/* frames */
	__u32 nr_kernel;		/* the first nr_kernel are kernel */
	__u32 *frames;			/* frame ids, innermost first */
	__u64 count;			/* samples */
	__u64 period;			/* ns, or events (prof.period_events) */
	__u64 weight;			/* period, capped (prof_input.cap_period) */
};

/* one sample, kept with prof_input.keep_samples */
struct prof_sample {
	__u64 time;
	__u32 cpu;
	__s32 tid;
	__u64 ip;
	__u32 first;			/* index into prof.sample_frames */
	__u32 nr;			/* frames, innermost first */
	__u32 nr_kernel;		/* the first nr_kernel are kernel */
	__u32 flags;			/* PMUCTX_CALLCHAIN_* of the stitcher */
	__u64 weight;			/* its period, capped (stack.weight) */
};

struct prof {
	struct prof_frame *frames;	/* frames[id - 1] */
	size_t nr_frames, cap_frames;
	struct prof_stack *stacks;
	size_t nr_stacks, cap_stacks;
	__u64 total_count, total_period, total_weight;
	/* the samples prof_input.filter left out (not in the stacks) */
	__u64 filtered_count, filtered_period, filtered_weight;
	/* prof_input.cap_period; the samples it capped, the time cut off */
	__u64 cap_period;
	__u64 capped_count, capped_period;
	struct pmuctx_stitch_stats stats;
	bool have_stats;
	struct unw_stats dwarf;		/* USER_STACK records (dwarf mode) */
	__u64 kernel_hidden;		/* samples with KADDR_HIDDEN */
	__u32 sample_freq;
	const char *event;		/* NULL: cpu-clock; "cycles", ... */
	bool period_events;		/* periods count events, not ns */
	__u64 start_real_ns, duration_ns;
	struct prof_sample *samples;	/* keep_samples: sorted by key */
	size_t nr_samples, cap_samples;
	__u32 *sample_frames;		/* frame ids of the samples */
	size_t nr_sample_frames, cap_sample_frames;
	/* private */
	struct prof_priv *priv;
};

/*
 * What a sample weighs: 1; its period, capped at the sampling period then
 * in effect on its CPU (prof_input.cap_period; the default, perf's
 * weights: each cpu-clock sample of perf stands for one period); or the
 * period as recorded, stalls and all.
 */
enum prof_weight { PROF_WEIGHT_SAMPLES, PROF_WEIGHT_PERIOD,
		   PROF_WEIGHT_RAW_PERIOD };

static inline __u64 prof_stack_weight(const struct prof_stack *s,
				      enum prof_weight w)
{
	return w == PROF_WEIGHT_SAMPLES ? s->count :
	       w == PROF_WEIGHT_PERIOD ? s->weight : s->period;
}

/* the total weight of the profile's stacks (and of the samples filtered) */
__u64 prof_total(const struct prof *p, enum prof_weight w);
__u64 prof_filtered(const struct prof *p, enum prof_weight w);

int prof_new(struct prof **out);
void prof_free(struct prof *p);

/*
 * prof_build() - stitch, symbolize and aggregate a recording
 * Returns 0 or a negative errno with a message in @err.
 */
int prof_build(const struct prof_input *in, struct prof **out, char *err,
	       size_t errlen);

/*
 * prof_add_named() - add a stack of named frames (tests, synthetic
 * profiles): @names innermost first, the first @nr_kernel kernel frames.
 * Its period is not capped: the weight is @period.
 */
int prof_add_named(struct prof *p, const char *comm, __s32 pid, __s32 tid,
		   const char *const *names, __u32 nr, __u32 nr_kernel,
		   __u64 count, __u64 period);

/*
 * prof_find_sample() - the kept sample recorded on @cpu at @time by @tid
 * with @ip (the fields of its SAMPLE record), or NULL
 */
const struct prof_sample *prof_find_sample(const struct prof *p, __u32 cpu,
					   __u64 time, __s32 tid, __u64 ip);

/* ---- writers ---------------------------------------------------------- */

/* what the counts of @w are, for the outputs' headers */
const char *prof_weight_desc(const struct prof *p, enum prof_weight w);
/*
 * a "# ... weight: ..." line, then comm;outer;...;inner COUNT, one line
 * per distinct stack, sorted
 */
int prof_write_folded(const struct prof *p, enum prof_weight w, FILE *f);
/*
 * the gzip'd pprof profile.proto; 0 or -errno.  Sample types samples/count
 * and cpu/nanoseconds (or EVENT/count): the period capped as @w's, raw
 * with PROF_WEIGHT_RAW_PERIOD; pprof shows samples by default with
 * PROF_WEIGHT_SAMPLES, else the period.
 */
int prof_pprof_encode(const struct prof *p, enum prof_weight w, void **buf,
		      size_t *len);
int prof_write_pprof(const struct prof *p, enum prof_weight w, FILE *f);
/* perf report --stdio: children and self per (comm, module, symbol) */
int prof_write_text(const struct prof *p, enum prof_weight w, FILE *f);

/* the table's sort keys (perf report --sort), its call graph (-g) */
enum prof_key { PROF_KEY_COMM, PROF_KEY_PID, PROF_KEY_DSO, PROF_KEY_SYM,
		PROF_KEY_SRCLINE, PROF_NR_KEYS };
enum prof_graph { PROF_GRAPH_NONE, PROF_GRAPH_GRAPH, PROF_GRAPH_FRACTAL,
		  PROF_GRAPH_FOLDED };

struct prof_text_opts {
	enum prof_weight weight;
	enum prof_key keys[PROF_NR_KEYS];	/* --sort, in order */
	unsigned int nr_keys;
	bool children;			/* Children and Self, else Overhead */
	bool absolute;			/* --percentage absolute */
	double percent_limit;		/* hide entries under it (%) */
	const char *const *dsos;	/* --dsos: entries of these only */
	size_t nr_dsos;
	const char *const *syms;	/* --symbols */
	size_t nr_syms;
	enum prof_graph graph;		/* -g */
	bool caller;			/* -g caller (else callee) */
	bool caller_set;		/* given, not the default */
	double graph_threshold;		/* % under which a branch is hidden */
};

/* perf report's defaults: comm,dso,sym, children, no graph */
void prof_text_defaults(struct prof_text_opts *o);
/* the keys need source lines (prof_input.lines) */
bool prof_text_lines(const struct prof_text_opts *o);
/* --sort KEYS into @o: 0, or -EINVAL with a message in @err */
int prof_parse_sort(const char *s, struct prof_text_opts *o, char *err,
		    size_t len);
int prof_write_text_opts(const struct prof *p, const struct prof_text_opts *o,
			 FILE *f);
/* the stitcher's counters */
void prof_write_stitch_stats(const struct prof *p, FILE *f);

/* ---- the recorder's memory maps -------------------------------------------- */

struct maps_cap;

/* store one map: @reason MAPS_* */
typedef int (*maps_store_fn)(void *ctx, __s32 pid, __u64 time, __u32 reason,
			     const char *text, size_t len);

int maps_cap_new(struct maps_cap **out, const char *proc_root,
		 maps_store_fn store, void *ctx);
void maps_cap_free(struct maps_cap *mc);
/*
 * maps_capture() - read /proc/PID/maps now and store it as valid from
 * @time (unless it is the same text as the last one stored for @pid)
 * Returns 0, or -errno (the process is gone: -ENOENT).
 */
int maps_capture(struct maps_cap *mc, __s32 pid, __u64 time, __u32 reason);
/* look at one record: EXEC, or user addresses not in the last map */
void maps_cap_record(struct maps_cap *mc, const struct pmuctx_rec_header *h,
		     __u64 now);
/* maps captured, processes that were gone, bytes stored */
void maps_cap_counts(const struct maps_cap *mc, __u64 *captured,
		     __u64 *gone, __u64 *bytes);
/*
 * maps_cap_gone_list() - the processes whose map could not be read, as
 * "PID (COMM), PID, ... and N more" (the names of their COMM or EXEC
 * records) in @buf; returns how many there are
 */
size_t maps_cap_gone_list(const struct maps_cap *mc, char *buf, size_t len);

/*
 * Thread names: at the first SAMPLE of a thread other than its process's
 * first, read /proc/PID/task/TID/comm (pthread_setname_np() and
 * prctl(PR_SET_NAME) write no record) and hand it to @fn, with the
 * sample's CPU and a time just before it.  @fn gets the maps_cap's ctx.
 */
typedef void (*maps_name_fn)(void *ctx, __s32 pid, __s32 tid, __u32 cpu,
			     __u64 time, const char *comm);
void maps_cap_names(struct maps_cap *mc, maps_name_fn fn);

/* reasons (the values of pmfile.h's enum pmf_maps_reason) */
#define MAPS_START	1	/* when recording started */
#define MAPS_EXEC	2	/* after an EXEC record */
#define MAPS_MISS	3	/* a user address was not in the last map */
#define MAPS_FIRST	4	/* the first record of a process */
#define MAPS_KERNEL	5	/* the module's MMAP records (a snapshot) */
/* the end of the recording: store MMAP snapshots cut short by lost records */
void maps_cap_flush(struct maps_cap *mc);

#endif
