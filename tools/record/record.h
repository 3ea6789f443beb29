/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the options and the state of a recording, shared by the
 * files of tools/record/ and tools/cmd-record.c (the command: its manual
 * and record_run(), which calls them in order):
 *
 *	options.c	the options, --trigger and the event list
 *	session.c	the session and its ring buffers
 *	writer.c	the file: its header, the records, the summary
 *	windows.c	--overwrite windows and the SIGUSR2 protocol
 *	names.c		the names of the tasks there before recording
 *	loop.c		the command, the signals, poll() until the end
 */
#ifndef PMUCTX_TOOLS_RECORD_H
#define PMUCTX_TOOLS_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "builtin.h"
#include "opts.h"

#define CMD "record"
#define DEFAULT_OUTPUT	"pmuctx.data"
#define DEFAULT_BUFFER	(512U << 10)	/* per CPU */
#define DEFAULT_EVENTS	"task-clock,context-switches,cpu-migrations,page-faults"
#define DEFAULT_RECORDS	(PMUCTX_REC_MASK_FORK | PMUCTX_REC_MASK_EXEC | \
			 PMUCTX_REC_MASK_EXIT | PMUCTX_REC_MASK_COMM)
/* perf record's default; lowered to the module's max_sample_freq */
#define DEFAULT_FREQ	4000
#define MAX_SAMPLE_FREQ_PARAM "/sys/module/pmuctx/parameters/max_sample_freq"
#define MAX_SAMPLE_RATE_SYSCTL "/proc/sys/kernel/perf_event_max_sample_rate"
#define DEFAULT_MAX_STACK 64

enum call_graph { CG_NONE, CG_FP, CG_DEFER, CG_DWARF };
#define DEFAULT_DUMP	8192	/* --call-graph dwarf: bytes of user stack */
/* --call-graph dwarf without -m: 8 KiB records need a larger buffer */
#define DWARF_BUFFER	(1U << 20)	/* max_ring_pages default: 1 MiB */

struct record_opts {
	const char *output;
	bool overwrite;
	uint64_t buffer_size;
	__u32 records;
	bool have_records;
	bool switch_events;
	const char *trigger;
	struct target_opts t;	/* -e, --no-inherit, -a, -p, --duration */
	bool quiet;
	__u32 freq;		/* 0: no sampling (--no-samples) */
	bool no_samples;	/* --no-samples (-n) */
	bool no_buildid;	/* --no-buildid (-B) */
	bool freq_default;	/* sampling only because it is the default */
	enum call_graph call_graph;
	__u32 max_stack;
	__u32 sample_event;
	struct pmuctx_event_spec sample_spec;	/* --sample-event as written */
	__u32 dump_size;	/* --call-graph dwarf,SIZE */
	bool have_buffer;	/* -m given */
};

/* the events of the session: -e's, and --trigger's among them */
struct record_events {
	int ids[PMUCTX_MAX_EVENTS];
	int nr;
	int trig_idx;		/* index of the trigger's event, or -1 */
	uint64_t threshold;	/* of the trigger */
};

struct task_name;

struct recent_req {
	pid_t pid;
	int nonce;
	int reply;
};

struct recorder {
	const struct record_opts *o;
	struct record_events ev;
	struct pmuctx *h;
	struct pmuctx_info info;
	struct pmuctx_ring *ring;
	struct pmf_writer *w;
	unsigned int nr_cpus;
	__u32 pages;			/* per CPU buffer */
	long page_size;
	bool rounded;			/* --buffer-size was not pages */
	__u64 *prev_lost;		/* per CPU, at the previous window */
	__u64 *prev_over;		/* per CPU, overwritten then */
	__u64 over_window;		/* overwritten since the previous one */
	struct pmf_cpu_stats *stats;	/* per CPU, scratch */
	bool tty;
	uint64_t last_progress;
	bool progress_shown;
	bool failed;			/* writing the file failed */
	bool ring_errors;
	struct recent_req recent[16];
	unsigned int nr_recent;
	struct maps_cap *mc;		/* sampling: memory maps */
	__u64 samples;			/* SAMPLE records written */
	__u64 budget_dropped;		/* samples the global budget refused */
	__u64 throttled;		/* THROTTLE records of the sampler's own */
	__u64 perf_throttled;		/* times perf stopped the counter */
	/* COMM records of the tasks there before, for the first window */
	struct pmuctx_rec_comm *names;
	size_t nr_names, cap_names;
	/* every task of the file's records: named by one, seen in a window */
	struct task_name *tasks;
	size_t nr_tasks, cap_tasks;	/* cap_tasks: a power of two */

	/* the command (pmuctx record -- CMD), or the process of -p */
	char *cmdline;			/* for the file's header */
	struct child ch;
	pid_t child;			/* 0 without a command */
	bool child_done;		/* reaped: @status is its */
	int status;
	int exec_err;
	int sfd;			/* signalfd */
	int pidfd;			/* -p's process, or -1 */
	uint64_t deadline;		/* --duration, 0 without */
};

#endif
