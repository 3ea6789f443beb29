/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmfile: the file format of pmuctx record (docs/FILE-FORMAT.md).
 *
 * A file is a fixed header, then sections: INFO first, then windows (each
 * WINDOW, RECORDS..., WINDOW_END), then END.  Records are kept as read
 * from the rings, so they describe themselves.  The writer keeps the file
 * complete after every flush: it writes the new sections plus a fresh END
 * over the previous END.
 */
#ifndef PMUCTX_TOOLS_PMFILE_H
#define PMUCTX_TOOLS_PMFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/pmuctx.h>

#define PMF_MAGIC		"PMUCTXRB"	/* 8 bytes, no NUL */
#define PMF_BYTE_ORDER		0x01020304U
#define PMF_VERSION		1

/* ---- on-disk structures (host byte order, 8-byte aligned) ----------- */

struct pmf_file_header {
	char	magic[8];
	__u32	byte_order;	/* PMF_BYTE_ORDER as the writer stored it */
	__u32	version;	/* PMF_VERSION */
	__u32	header_size;	/* bytes of this header: sections follow */
	__u32	flags;		/* 0 */
	__u64	__reserved;
};

enum pmf_section_type {
	PMF_SEC_INFO		= 1,
	PMF_SEC_WINDOW		= 2,
	PMF_SEC_RECORDS		= 3,
	PMF_SEC_WINDOW_END	= 4,
	PMF_SEC_END		= 5,
	PMF_SEC_MAPS		= 6,	/* a process's memory map (sampling) */
	PMF_SEC_BUILDID		= 7,	/* build-ids of mapped files */
	PMF_SEC_VDSO		= 8,	/* the recorder's vDSO image */
};

struct pmf_section {
	__u32	type;		/* enum pmf_section_type; others skipped */
	__u32	flags;		/* 0 */
	__u64	size;		/* payload bytes that follow, multiple of 8 */
};

#define PMF_CLOCK_MONOTONIC	1	/* = CLOCK_MONOTONIC */

/* INFO: fixed part, then NUL-terminated strings, zero-padded */
struct pmf_info {
	__u32	fixed_size;	/* bytes of this struct: strings follow */
	__u32	abi_version;	/* PMUCTX_ABI_VERSION of the writer */
	__u32	module_abi;	/* pmuctx_info.abi_version of the module */
	__u32	nr_cpus;	/* CPU buffers (pmuctx_info.nr_cpus) */
	__u32	clock;		/* PMF_CLOCK_MONOTONIC */
	__u32	ring_mode;	/* enum pmuctx_ring_mode */
	__u32	ring_pages;	/* data pages per CPU */
	__u32	page_size;
	__u32	ring_records;	/* PMUCTX_REC_MASK_* */
	__u32	target;		/* enum pmuctx_target */
	__s32	pid;		/* PID target: the process (the command's) */
	__u32	nr_events;
	__u32	events[PMUCTX_MAX_EVENTS];
	__u32	trigger_event;	/* as in the session attr; 0 none */
	__u32	__pad;
	__u64	trigger_threshold;
	__u64	start_mono_ns;	/* CLOCK_MONOTONIC when recording began */
	__u64	start_real_ns;	/* CLOCK_REALTIME at the same moment */
	/* fixed_size >= PMF_INFO_SIZE_V2: sampling (0 in older files) */
	__u32	sample_freq;	/* Hz per CPU; 0: no sampling */
	__u32	sample_flags;	/* PMUCTX_SAMPLE_* */
	__u32	sample_max_stack;
	__u32	sample_event;	/* 0: hrtimer; else the PMUCTX_EV_* sampled */
	/* strings: command, hostname, kernel release, tool version,
	 * module version */
};

#define PMF_INFO_SIZE_V1	112	/* up to start_real_ns */
#define PMF_INFO_SIZE_V2	128	/* the sampling settings */

/*
 * MAPS: the text of /proc/PID/maps of one process, read by the recorder
 * (the kernel writes no mmap records).  Anywhere after INFO, inside or
 * between windows; older readers skip it.
 */
struct pmf_maps {
	__u32	fixed_size;	/* bytes of this struct: the text follows */
	__s32	pid;		/* thread group id, as in the records */
	__u64	time;		/* CLOCK_MONOTONIC: the map holds from then */
	__u32	reason;		/* PMF_MAPS_* */
	__u32	len;		/* bytes of text (no NUL; zero padded) */
};

/*
 * BUILDID: the GNU build-ids (NT_GNU_BUILD_ID notes) of the files that
 * MAPS sections name in executable mappings, read by the recorder just
 * after the first MAPS section that names each path (a file without a
 * note, or that cannot be read, has no entry).  Entries follow each
 * other up to the end of the section.  After that MAPS section; older
 * readers skip it.
 */
#define PMF_BUILDID_MAX	32

struct pmf_buildid {
	__u32	size;		/* bytes of the entry: this struct, the
				 * path, its NUL, zeros to a multiple of 8 */
	__u32	id_len;		/* bytes of id (1..PMF_BUILDID_MAX) */
	__u8	id[PMF_BUILDID_MAX];	/* zero padded */
	/* the path, as in the MAPS text, NUL-terminated */
};

/*
 * VDSO: the ELF image of the vDSO as the kernel maps it into the
 * recorder's own process, the same image as in every native process of
 * that kernel, which no file holds: its CFI unwinds the frames of code
 * in it (clock_gettime() and friends) for --call-graph dwarf.  At most
 * one, after INFO; older readers skip it.
 */
#define PMF_VDSO_MAX	(1U << 20)	/* bytes of image, at most */

struct pmf_vdso {
	__u32	fixed_size;	/* bytes of this struct: the image follows */
	__u32	len;		/* bytes of image (zero padded) */
};

/*
 * RECORDS: a COMM record with this misc bit is the recorder's, not the
 * kernel's: the name of a thread read from /proc/PID/task/TID/comm at its
 * first sample (time: just before that sample), since a name set with
 * pthread_setname_np() or prctl(PR_SET_NAME) has no record.
 */
#define PMF_COMM_M_RECORDER	0x8000

enum pmf_maps_reason {
	PMF_MAPS_START	= 1,	/* when recording started */
	PMF_MAPS_EXEC	= 2,	/* after an EXEC record (time: the exec) */
	PMF_MAPS_MISS	= 3,	/* an address was in no mapping read before */
	PMF_MAPS_FIRST	= 4,	/* the first sample of the process */
	PMF_MAPS_KERNEL	= 5,	/* from the module's MMAP records */
};

#define PMF_NR_STRINGS	5

enum pmf_window_reason {
	PMF_WIN_STREAM	= 1,	/* normal mode: everything, as it came */
	PMF_WIN_SIGNAL	= 2,	/* SIGUSR2 (kill) */
	PMF_WIN_REQUEST	= 3,	/* pmuctx snapshot */
	PMF_WIN_TRIGGER	= 4,	/* the kernel trigger froze the buffers */
	PMF_WIN_EXIT	= 5,	/* end of the recording */
};

struct pmf_window {
	__u32	index;		/* 0, 1, ... in file order */
	__u32	reason;		/* enum pmf_window_reason */
	__u64	time;		/* CLOCK_MONOTONIC when taken / begun */
	__s32	requester;	/* pid that asked (SIGNAL, REQUEST), or 0 */
	__u32	__reserved;	/* 0 */
};

struct pmf_cpu_stats {
	__u64	lost;		/* the CPU's lost count (since the start) */
	__u64	lost_window;	/* lost since the previous window */
	__u64	records;	/* the CPU's records count (ctl) */
	__u64	overwritten;	/* overwrite mode: dropped from the tail */
	__u64	data_head;
	__u64	data_tail;
	__u32	flags;		/* PMUCTX_RING_F_* when read */
	__u32	__pad;
};

/* WINDOW_END: fixed part, then nr_cpus struct pmf_cpu_stats */
struct pmf_window_end {
	__u32	index;
	__u32	nr_cpus;
	__u64	records;	/* records of this window in the file */
	__u64	time;		/* CLOCK_MONOTONIC at the end */
};

struct pmf_end {
	__u64	windows;
	__u64	records;
	__u64	time;		/* CLOCK_MONOTONIC of the last flush */
	__s32	exit_status;	/* the command's status; -1 still running */
	__u32	flags;		/* PMF_END_* */
};

#define PMF_END_OPEN	(1U << 0)  /* written while recording went on */

/* ---- in memory --------------------------------------------------------- */

struct pmf_meta {
	struct pmf_info info;
	const char *command;
	const char *hostname;
	const char *release;
	const char *tool_version;
	const char *module_version;
};

struct pmf_writer;

/*
 * pmf_create() - create (truncate) @path and write the header, INFO and END
 * Returns 0 or -errno; @err gets a message.
 */
int pmf_create(struct pmf_writer **out, const char *path,
	       const struct pmf_meta *meta, char *err, size_t errlen);
int pmf_window_begin(struct pmf_writer *w, __u32 reason, __u64 time,
		     __s32 requester);
/* a record as checked by pmuctx_record_check() */
int pmf_add_record(struct pmf_writer *w, const void *rec, size_t size);
int pmf_window_end(struct pmf_writer *w, const struct pmf_cpu_stats *cpus,
		   __u32 nr_cpus, __u64 time);
/* write what is pending (and a fresh END) to the file */
int pmf_flush(struct pmf_writer *w);
/* a MAPS section (struct pmf_maps + @text) */
int pmf_add_maps(struct pmf_writer *w, __s32 pid, __u64 time, __u32 reason,
		 const char *text, size_t len);
/*
 * pmf_set_buildids() - whether pmf_add_maps() follows a MAPS section that
 * names new files with a BUILDID section of theirs (default: true)
 */
void pmf_set_buildids(struct pmf_writer *w, bool on);
/*
 * a VDSO section (struct pmf_vdso + @image); -EINVAL (the writer still
 * usable): @len 0 or above PMF_VDSO_MAX
 */
int pmf_add_vdso(struct pmf_writer *w, const void *image, size_t len);
/* final flush (END without PMF_END_OPEN); frees @w; 0 or -errno */
int pmf_close(struct pmf_writer *w, int exit_status, char *err,
	      size_t errlen);
/* counters of the writer */
__u64 pmf_bytes(const struct pmf_writer *w);
__u64 pmf_records(const struct pmf_writer *w);
__u32 pmf_windows(const struct pmf_writer *w);
/* last error message of the writer */
const char *pmf_writer_error(const struct pmf_writer *w);

struct pmf_win {
	struct pmf_window hdr;
	bool have_end;
	struct pmf_window_end end;
	const struct pmf_cpu_stats *cpus;	/* end.nr_cpus of them */
	size_t first;		/* index into pmf_reader.recs */
	size_t nr;		/* records of the window */
};

struct pmf_map {
	__s32 pid;
	__u32 reason;
	__u64 time;
	const char *text;	/* len bytes, not NUL-terminated */
	size_t len;
};

struct pmf_bid {
	const char *path;	/* NUL-terminated */
	const __u8 *id;
	__u32 id_len;
};

struct pmf_reader {
	unsigned char *buf;	/* the whole file, 8-byte aligned */
	size_t len;
	__u32 version;
	struct pmf_meta meta;
	struct pmf_win *wins;
	size_t nr_wins;
	const struct pmuctx_rec_header **recs;	/* file order */
	size_t nr_recs;
	bool have_end;
	struct pmf_end end;
	struct pmf_map *maps;	/* MAPS sections, file order */
	size_t nr_maps;
	struct pmf_bid *buildids;	/* BUILDID entries, file order */
	size_t nr_buildids;
	const unsigned char *vdso;	/* the VDSO image, NULL: none */
	size_t vdso_len;
	bool cut_short;		/* PMF_READ_PARTIAL took a damaged tail */
	char warning[512];	/* what was cut (with PMF_READ_PARTIAL) */
};

#define PMF_READ_PARTIAL	(1U << 0)  /* accept a truncated tail */

/*
 * pmf_read() - read and check a whole file ("-": standard input)
 * Returns 0 or a negative errno (-EBADMSG/-EPROTO for a bad file) with a
 * message in @err.
 */
int pmf_read(const char *path, unsigned int flags, struct pmf_reader **out,
	     char *err, size_t errlen);
void pmf_free(struct pmf_reader *r);

const char *pmf_reason_name(__u32 reason);
const char *pmf_maps_reason_name(__u32 reason);

/* ---- the commands that use the format ------------------------------- */

/*
 * pmuctx snapshot -> pmuctx record: SIGUSR2 sent with sigqueue() carries a
 * nonce in bits 0-14 (non-zero).  The recorder answers with sigqueue() to
 * the sender once the window is in the file: the nonce, RECORD_REPLY_FAILED
 * if it could not be written, and (window index + 1) << 16 (0 in normal
 * mode, where the answer means "flushed").
 */
#define RECORD_NONCE_MASK	0x7fff
#define RECORD_REPLY_FAILED	0x8000

/* tools/report/records.c: "S", "D", "R+", ... as perf prints prev_state */
void report_state_str(__u32 state, bool preempt, char *buf, size_t len);

#ifndef PMUCTX_TOOLS_BUILTIN_H
struct cmd;
#endif
extern const struct cmd cmd_record;
extern const struct cmd cmd_snapshot;
extern const struct cmd cmd_report;

#endif
