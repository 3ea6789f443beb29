// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: the file (tools/pmfile.h): its header, the records of
 * the ring buffers, the memory maps, the progress line and the summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "pmfile.h"
#include "profile/profile.h"
#include "record/names.h"
#include "record/session.h"
#include "record/writer.h"

static void human_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1 << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)b / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", b);
}

void record_clear_progress(struct recorder *R)
{
	if (R->progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		R->progress_shown = false;
	}
}

__u64 record_total_lost(struct recorder *R)
{
	struct pmuctx_ring_cpu_stats st;
	__u64 sum = 0;
	unsigned int i;

	for (i = 0; i < R->nr_cpus; i++)
		if (!pmuctx_ring_stats(R->ring, i, &st))
			sum += st.lost;
	return sum;
}

/* records the kernel overwrote, all CPUs, since the start */
static __u64 total_overwritten(struct recorder *R)
{
	struct pmuctx_ring_cpu_stats st;
	unsigned int i;
	__u64 sum = 0;

	for (i = 0; i < R->nr_cpus; i++)
		if (!pmuctx_ring_stats(R->ring, i, &st))
			sum += st.overwritten;
	return sum;
}

void record_progress(struct recorder *R, bool force)
{
	char bytes[32];
	uint64_t t;

	if (!R->tty || R->o->quiet)
		return;
	t = now_ns();
	if (!force && t - R->last_progress < 250000000ULL)
		return;
	R->last_progress = t;
	human_bytes(bytes, sizeof(bytes), pmf_bytes(R->w));
	if (R->o->overwrite)
		fprintf(stderr, "\r\033[K[ pmuctx record: %u window(s), %"
			PRIu64 " records, %llu lost, %s written ]",
			pmf_windows(R->w), (uint64_t)pmf_records(R->w),
			(unsigned long long)record_total_lost(R), bytes);
	else
		fprintf(stderr, "\r\033[K[ pmuctx record: %" PRIu64 " records, "
			"%llu lost, %s written ]",
			(uint64_t)pmf_records(R->w),
			(unsigned long long)record_total_lost(R), bytes);
	fflush(stderr);
	R->progress_shown = true;
}

void record_ring_error(struct recorder *R, int err)
{
	record_clear_progress(R);
	lib_error(CMD, R->h, err);
	R->ring_errors = true;
}

int record_file_error(struct recorder *R)
{
	record_clear_progress(R);
	fprintf(stderr, "pmuctx record: %s\n", pmf_writer_error(R->w));
	R->failed = true;
	return -EIO;
}

/*
 * per-CPU stats for WINDOW_END, lost counted since the previous window;
 * R->over_window: records the kernel overwrote since then, all CPUs
 */
void record_fill_stats(struct recorder *R)
{
	struct pmuctx_ring_cpu_stats st;
	unsigned int i;

	R->over_window = 0;
	for (i = 0; i < R->nr_cpus; i++) {
		struct pmf_cpu_stats *s = &R->stats[i];

		memset(s, 0, sizeof(*s));
		if (pmuctx_ring_stats(R->ring, i, &st))
			continue;
		s->lost = st.lost;
		s->lost_window = st.lost - R->prev_lost[i];
		s->records = st.records;
		s->overwritten = st.overwritten;
		s->data_head = st.data_head;
		s->data_tail = st.data_tail;
		s->flags = st.flags;
		R->prev_lost[i] = st.lost;
		R->over_window += st.overwritten - R->prev_over[i];
		R->prev_over[i] = st.overwritten;
	}
}

/*
 * A THROTTLE record: the global budget's refusals (misc BUDGET, @dropped;
 * a record of an older module has no @dropped), perf stopping the
 * sampling counter (misc PERF, @dropped times), or the sampler slowing
 * itself down on one CPU.
 */
static void count_throttle(struct recorder *R, const void *p, size_t size)
{
	struct pmuctx_rec_throttle t;

	memset(&t, 0, sizeof(t));
	memcpy(&t, p, size < sizeof(t) ? size : sizeof(t));
	if (t.hdr.misc & PMUCTX_THROTTLE_BUDGET)
		R->budget_dropped += t.dropped;
	else if (t.hdr.misc & PMUCTX_THROTTLE_PERF)
		R->perf_throttled += t.dropped;
	else if (t.hdr.misc & PMUCTX_THROTTLE_ON)
		R->throttled++;
}

/* read the open window of every CPU into the file */
int record_copy_records(struct recorder *R)
{
	struct pmuctx_record rec;
	int n;

	for (;;) {
		n = pmuctx_ring_next(R->ring, &rec);
		if (!n)
			return 0;
		if (n < 0) {		/* that CPU is closed; go on */
			record_ring_error(R, n);
			continue;
		}
		if (pmf_add_record(R->w, rec.hdr, rec.size))
			return record_file_error(R);
		if (R->o->overwrite)	/* the windows' names: names.c */
			record_note_name(R, rec.hdr);
		if (rec.type == PMUCTX_REC_SAMPLE)
			R->samples++;
		else if (rec.type == PMUCTX_REC_THROTTLE)
			count_throttle(R, rec.hdr, rec.size);
		if (R->mc) {
			maps_cap_record(R->mc, rec.hdr, now_ns());
			if (pmf_writer_error(R->w)[0])
				return record_file_error(R);
		}
	}
}

/* normal mode: copy what the buffers hold, hand the space back */
int record_drain(struct recorder *R)
{
	int err;

	if (R->failed)
		return -EIO;
	err = pmuctx_ring_begin(R->ring);
	if (err)
		record_ring_error(R, err);
	err = record_copy_records(R);
	pmuctx_ring_skip(R->ring, -1);	/* past any corrupt record */
	if (!err) {
		int cerr = pmuctx_ring_consume(R->ring);

		if (cerr)
			record_ring_error(R, cerr);
		if (pmf_flush(R->w))
			err = record_file_error(R);
	}
	record_progress(R, false);
	return err;
}


/* maps_cap's store: a MAPS section in the file */
static int store_maps(void *ctx, __s32 pid, __u64 time, __u32 reason,
		      const char *text, size_t len)
{
	struct recorder *R = ctx;

	return pmf_add_maps(R->w, pid, time, reason, text, len);
}

/*
 * maps_cap's thread names: a COMM record of the recorder's
 * (PMF_COMM_M_RECORDER) among the records, just before the thread's first
 * sample, so that reports name the thread as perf does.
 */
static void store_name(void *ctx, __s32 pid, __s32 tid, __u32 cpu,
		       __u64 time, const char *comm)
{
	struct recorder *R = ctx;
	struct pmuctx_rec_comm rec;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = PMUCTX_REC_COMM;
	rec.hdr.size = sizeof(rec);
	rec.hdr.misc = PMF_COMM_M_RECORDER;
	rec.c.time = time;
	rec.c.cpu = cpu;
	rec.c.pid = pid;
	rec.c.tid = tid;
	memcpy(rec.comm, comm, strnlen(comm, sizeof(rec.comm)));
	if (!pmf_add_record(R->w, &rec, sizeof(rec)) && R->o->overwrite)
		record_note_name(R, &rec.hdr);
}

/* the session's half of the header: what the file's records are */
static void meta_info(const struct recorder *R, struct pmf_info *in)
{
	const struct record_opts *o = R->o;
	int i;

	in->abi_version = PMUCTX_ABI_VERSION;
	in->module_abi = R->info.abi_version;
	in->nr_cpus = R->nr_cpus;
	in->ring_mode = o->overwrite ? PMUCTX_RING_OVERWRITE :
			PMUCTX_RING_NORMAL;
	in->ring_pages = R->pages;
	in->page_size = (__u32)R->page_size;
	in->ring_records = record_ring_records(o, R->info.features);
	in->target = o->t.system_wide ? PMUCTX_TARGET_SYSTEM :
		     PMUCTX_TARGET_PID;
	in->pid = o->t.pid ? o->t.pid : R->child;
	in->nr_events = (__u32)R->ev.nr;
	for (i = 0; i < R->ev.nr; i++)
		in->events[i] = (__u32)R->ev.ids[i];
	in->trigger_event = R->ev.trig_idx >= 0 ?
			    (__u32)R->ev.trig_idx + 1 : 0;
	in->trigger_threshold = R->ev.threshold;
	in->sample_freq = o->freq;
	in->sample_event = o->sample_event;
	in->sample_flags = record_sample_flags(o);
	in->sample_max_stack = o->call_graph ? (o->max_stack ?
			       o->max_stack : DEFAULT_MAX_STACK) : 0;
}

/*
 * Keep the previous recording, as perf keeps perf.data.old: a non-empty
 * regular FILE becomes FILE.old (replacing the one before) just before
 * FILE is created.  0, or EXIT_RUNTIME (printed).
 */
static int keep_old(const char *path)
{
	struct stat st;
	char *old;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	if (asprintf(&old, "%s.old", path) < 0) {
		fprintf(stderr, "pmuctx record: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (rename(path, old)) {
		fprintf(stderr, "pmuctx record: cannot keep the previous %s "
			"as %s: %s\n", path, old, strerror(errno));
		free(old);
		return EXIT_RUNTIME;
	}
	free(old);
	return 0;
}

/*
 * The vDSO of this process into the file (a VDSO section): the image the
 * kernel maps into every native process, whose CFI pmuctx report needs to
 * unwind frames in it.  Nothing when this process has none (vdso=0) or
 * it cannot be read; only an error of the file is an error.
 */
static int store_vdso(struct recorder *R)
{
	unsigned long long lo = getauxval(AT_SYSINFO_EHDR), hi = 0, a, b;
	char line[512];
	bool bol = true;
	FILE *f;

	if (!lo)
		return 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	/* the mapping the kernel says the vDSO starts (its own, [vdso]) */
	while (fgets(line, sizeof(line), f)) {
		bool whole = strchr(line, '\n') != NULL;

		if (bol && sscanf(line, "%llx-%llx", &a, &b) == 2 && a == lo &&
		    a < b) {
			hi = b;
			break;
		}
		bol = whole;	/* a long line's rest is no line's start */
	}
	fclose(f);
	if (!hi || hi - lo > PMF_VDSO_MAX)
		return 0;
	return pmf_add_vdso(R->w, (const void *)(uintptr_t)lo,
			    (size_t)(hi - lo));
}

int record_create_file(struct recorder *R)
{
	const struct record_opts *o = R->o;
	struct pmf_meta meta;
	struct utsname uts;
	char host[256], tool[64], why[512];

	memset(&meta, 0, sizeof(meta));
	meta_info(R, &meta.info);
	host[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	if (uname(&uts))
		strcpy(uts.release, "");
	snprintf(tool, sizeof(tool), "pmuctx record (libpmuctx %s)",
		 pmuctx_version());
	meta.command = R->cmdline ? R->cmdline : "";
	meta.hostname = host;
	meta.release = uts.release;
	meta.tool_version = tool;
	meta.module_version = R->info.version;
	meta.info.start_mono_ns = now_ns();
	meta.info.start_real_ns = clock_ns(CLOCK_REALTIME);
	if (keep_old(o->output))
		return EXIT_RUNTIME;
	if (pmf_create(&R->w, o->output, &meta, why, sizeof(why))) {
		fprintf(stderr, "pmuctx record: %s\n", why);
		return EXIT_RUNTIME;
	}
	pmf_set_buildids(R->w, !o->no_buildid);
	if (o->freq) {
		if (maps_cap_new(&R->mc, NULL, store_maps, R)) {
			fprintf(stderr, "pmuctx record: out of memory\n");
			return EXIT_RUNTIME;
		}
		maps_cap_names(R->mc, store_name);
		if (store_vdso(R)) {
			fprintf(stderr, "pmuctx record: %s\n",
				pmf_writer_error(R->w));
			return EXIT_RUNTIME;
		}
		/* the process attached to; a command's comes with its exec */
		if (o->t.pid)
			maps_capture(R->mc, o->t.pid, now_ns(), MAPS_START);
	}
	/* the session exists (its tasks adopted), recording not enabled */
	if (record_read_names(R)) {
		fprintf(stderr, "pmuctx record: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (!o->overwrite &&
	    pmf_window_begin(R->w, PMF_WIN_STREAM, now_ns(), 0)) {
		record_file_error(R);
		return EXIT_RUNTIME;
	}
	/* overwrite mode: in the first window (record_take_window()) */
	if (!o->overwrite && record_put_names(R))
		return EXIT_RUNTIME;
	return 0;
}

/* the samples and memory maps line of the summary */
static void sample_summary(const struct recorder *R)
{
	const struct record_opts *o = R->o;
	__u64 nm, gone, mb;

	maps_cap_counts(R->mc, &nm, &gone, &mb);
	fprintf(stderr, "pmuctx record: %llu samples at %u Hz%s, %llu memory "
		"map(s) of processes", (unsigned long long)R->samples, o->freq,
		o->call_graph == CG_DEFER ?
		" with deferred user callchains" :
		o->call_graph == CG_DWARF ?
		" with deferred user stack dumps (dwarf)" :
		o->call_graph == CG_FP ? " with callchains" : "",
		(unsigned long long)nm);
	if (gone) {
		char list[256];

		maps_cap_gone_list(R->mc, list, sizeof(list));
		fprintf(stderr, " (%llu process(es) gone before theirs was "
			"read: %s; %s)", (unsigned long long)gone, list,
			record_ring_records(o, R->info.features) &
			PMUCTX_REC_MASK_MMAP ? "the module's MMAP records "
			"name their user frames" :
			"their user frames are unknown");
	}
	fputc('\n', stderr);
	if (R->budget_dropped)
		fprintf(stderr, "pmuctx record: %llu samples not taken: the "
			"global sample budget was spent (sample_budget and "
			"sample_cpu_percent, all sessions together: pmuctx "
			"info)\n", (unsigned long long)R->budget_dropped);
	if (R->perf_throttled)
		fprintf(stderr, "pmuctx record: perf throttled the sampling "
			"counter %llu time(s), each until its next tick: "
			"overflows came faster than kernel."
			"perf_event_max_sample_rate allows (see dmesg; "
			"THROTTLE records): the samples' periods miss what it "
			"counted while stopped\n",
			(unsigned long long)R->perf_throttled);
	if (R->throttled)
		fprintf(stderr, "pmuctx record: the sampler slowed down %llu "
			"time(s): an interrupt took over a quarter of the "
			"period (THROTTLE records; periods stay exact)\n",
			(unsigned long long)R->throttled);
}

void record_close_file(struct recorder *R, int exit_status)
{
	const struct record_opts *o = R->o;
	__u64 recs = pmf_records(R->w), lost = record_total_lost(R);
	__u64 over = o->overwrite ? total_overwritten(R) : 0;
	__u32 wins = pmf_windows(R->w);
	char bytes[32], why[512], ovs[48] = "";

	human_bytes(bytes, sizeof(bytes), pmf_bytes(R->w));
	if (pmf_close(R->w, exit_status, why, sizeof(why))) {
		fprintf(stderr, "pmuctx record: %s\n", why);
		R->failed = true;
	}
	R->w = NULL;
	if (o->overwrite)
		snprintf(ovs, sizeof(ovs), ", %llu overwritten",
			 (unsigned long long)over);
	if (!o->quiet && !R->failed)
		fprintf(stderr, "pmuctx record: %llu records%s, %llu lost%s, %u "
			"window(s), %s written to %s\n",
			(unsigned long long)recs,
			o->overwrite ? " in windows" : "",
			(unsigned long long)lost, ovs, wins, bytes, o->output);
	if (!o->quiet && !R->failed && o->freq)
		sample_summary(R);
}
