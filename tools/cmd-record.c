// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: stream the ring buffers of a session to a file (normal
 * mode), or keep them in memory as a flight recorder and write a window
 * on request, on a kernel trigger and at the end (--overwrite).  With -F
 * or -g the session samples (SAMPLE and USER_CALLCHAIN records) and the
 * memory maps of the processes go into the file too (tools/profile).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "builtin.h"
#include "pmfile.h"
#include "profile/profile.h"

#define CMD "record"
#define DEFAULT_OUTPUT	"pmuctx.data"
#define DEFAULT_BUFFER	(512U << 10)	/* per CPU */
#define DEFAULT_EVENTS	"task-clock,context-switches,cpu-migrations,page-faults"
#define DEFAULT_RECORDS	(PMUCTX_REC_MASK_FORK | PMUCTX_REC_MASK_EXEC | \
			 PMUCTX_REC_MASK_EXIT | PMUCTX_REC_MASK_COMM)
#define DEFAULT_FREQ	999
#define DEFAULT_MAX_STACK 64

enum call_graph { CG_NONE, CG_FP, CG_DEFER };

static const char record_help[] =
"NAME\n"
"    pmuctx record - record scheduler events and samples with callchains of\n"
"    a command, a process or the whole system into a file, continuously or\n"
"    as a flight recorder\n"
"\n"
"SYNOPSIS\n"
"    pmuctx record [OPTIONS] [--] CMD [ARGS...]\n"
"    pmuctx record [OPTIONS] -p PID [--duration SEC]\n"
"    pmuctx record [OPTIONS] -a [--duration SEC] [-- CMD [ARGS...]]\n"
"\n"
"    OPTIONS: [-o FILE] [--overwrite] [--buffer-size SIZE] [--switch-events]\n"
"             [--records LIST] [--trigger 'EVENT>VALUE'] [-e EV,...]\n"
"             [--no-inherit] [-q] [-F HZ] [-g] [--call-graph fp|defer]\n"
"             [--max-stack N] [--sample-event EVENT]\n"
"\n"
"DESCRIPTION\n"
"    The pmuctx kernel module writes a record into a per-CPU ring buffer\n"
"    whenever a monitored task forks, execs, exits, is first seen (its\n"
"    command name) and, with --switch-events, at every context switch\n"
"    (with what the task counted during its time slice, for each event of\n"
"    -e). pmuctx record maps those buffers and writes their records to FILE\n"
"    (pmuctx report reads it; docs/FILE-FORMAT.md describes it).\n"
"\n"
"    With -F or -g the tasks are also sampled: HZ times a second on each\n"
"    CPU where one of them runs, the kernel writes a SAMPLE record with the\n"
"    CPU time it stands for and, with -g, the kernel callchain and the user\n"
"    callchain (frame pointers). By default (--call-graph defer) the user\n"
"    stack is walked once, when the task returns to user space, and shared\n"
"    by every sample taken since it entered the kernel (a USER_CALLCHAIN\n"
"    record); pmuctx report joins them. The memory maps of the processes\n"
"    (/proc/PID/maps, at the start, at every exec and when a sample falls\n"
"    outside the last one) go into FILE so that pmuctx report can name the\n"
"    functions: pmuctx report --format folded|pprof|text.\n"
"\n"
"    Normal mode (the default) streams every record to FILE: pmuctx record\n"
"    sleeps in poll() until a buffer is a quarter full (or 200 ms pass),\n"
"    copies the records out and hands the space back. Records that find\n"
"    their buffer full are lost; the kernel counts them and writes a LOST\n"
"    record once there is space again. On a terminal a progress line shows\n"
"    the records, the lost count and the bytes written.\n"
"\n"
"    With --overwrite the buffers are a flight recorder: the kernel keeps\n"
"    overwriting the oldest records and nothing is written to FILE until\n"
"    something asks for it. Then every buffer is frozen, the newest records\n"
"    of all CPUs are appended to FILE as one \"window\" in time order, and\n"
"    recording resumes. A window is taken:\n"
"      - on SIGUSR2 (kill -USR2 PID),\n"
"      - on 'pmuctx snapshot --pid PID', which also waits until the window\n"
"        is in FILE,\n"
"      - when the kernel trigger fires (--trigger): a task's slice went\n"
"        over the threshold, and the buffers hold what led up to it,\n"
"      - at the end of the recording.\n"
"\n"
"    Like pmuctx stat, a command starts only once recording is enabled; a\n"
"    Ctrl-C reaches the command (which decides what to do), SIGTERM and\n"
"    SIGHUP are forwarded to it, and pmuctx record ends when it exits.\n"
"    With -p or -a recording lasts until Ctrl-C, SIGTERM, --duration or\n"
"    (with -p) the exit of the process. A summary goes to standard error.\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Write to FILE (created or truncated). Default: " DEFAULT_OUTPUT ".\n"
"\n"
"    --overwrite\n"
"        Flight-recorder mode (see above).\n"
"\n"
"    --buffer-size SIZE\n"
"        Data bytes per CPU buffer, e.g. 256K, 4M (suffixes K, M, G, powers\n"
"        of 1024); rounded up to a power of two of pages. Default: 512K.\n"
"        The module caps it (parameter max_ring_pages) and the buffers are\n"
"        locked memory: all pmuctx buffers of the user together are charged\n"
"        to RLIMIT_MEMLOCK (ulimit -l) unless the process has CAP_IPC_LOCK.\n"
"\n"
"    --switch-events\n"
"        Also record every context switch of the monitored tasks.\n"
"\n"
"    --records LIST\n"
"        The records to write, comma separated: switch, fork, exec, exit,\n"
"        comm, mmap, or all. Default: fork,exec,exit,comm (plus switch with\n"
"        --switch-events; plus mmap with -g when the module writes MMAP\n"
"        records: the sampled processes describe their file mappings, so\n"
"        that a command gone before its /proc/PID/maps is read still gets\n"
"        its functions named).\n"
"\n"
"    --trigger 'EVENT>VALUE'\n"
"        Kernel trigger (implies --overwrite): when one time slice of a task\n"
"        (switch-in to switch-out) counts more than VALUE of EVENT, the\n"
"        kernel freezes the buffers and a window is written. VALUE takes a\n"
"        unit for task-clock and cpu-clock (ns, us, ms, s; default ns) and\n"
"        an optional k, M or G for counts. EVENT is added to the events if\n"
"        -e does not list it. Example: --trigger 'task-clock>5ms' catches a\n"
"        task that ran 5 ms without a context switch.\n"
"\n"
"    -e, --event EV[,EV...]\n"
"        Events counted per slice (in switch records) and per task (in exit\n"
"        records), at most 8. Default:\n"
"        " DEFAULT_EVENTS ".\n"
"        'pmuctx stat --help' lists them.\n"
"\n"
"    --no-inherit\n"
"        Record only CMD (or PID) itself, not the processes and threads it\n"
"        creates.\n"
"\n"
"    -a, --all-cpus\n"
"        Record every task on every CPU (needs CAP_PERFMON or root, or\n"
"        kernel.perf_event_paranoid <= 0).\n"
"\n"
"    -p, --pid PID\n"
"        Record the running process PID.\n"
"\n"
"    --duration SEC\n"
"        With -p or -a: stop after SEC seconds (decimals allowed).\n"
"\n"
"    -q, --quiet\n"
"        No progress line, no window lines, no summary.\n"
"\n"
"    -F, --freq HZ\n"
"        Sample the tasks HZ times a second on each CPU (at most the\n"
"        module parameter max_sample_freq, 10000). Default with -g: 999.\n"
"\n"
"    -g\n"
"        Record callchains: the kernel stack and the user stack of every\n"
"        sample (--call-graph defer).\n"
"\n"
"    --call-graph fp|defer\n"
"        How the user stack is walked (both with frame pointers; implies\n"
"        -g). defer (the default): once, when the task returns to user\n"
"        space, with page faults allowed, shared by the samples taken in\n"
"        between (USER_CALLCHAIN records). fp: at every sample, in the\n"
"        interrupt, without faulting (a stack page that is not resident\n"
"        cuts it), like perf record --call-graph fp.\n"
"\n"
"    --max-stack N\n"
"        Frames per callchain part (kernel, user): 1..127. Default: 64.\n"
"\n"
"    --sample-event EVENT\n"
"        Sample on overflow of EVENT's per-CPU counter instead of an\n"
"        hrtimer, with the period adjusted to reach -F HZ (perf's\n"
"        frequency mode; default 999): cycles, instructions, branches,\n"
"        branch-misses, cache-references, cache-misses (hardware PMU:\n"
"        the overflow is an NMI), cpu-clock or page-faults. Sample\n"
"        periods are then counts of EVENT. Not task-clock,\n"
"        context-switches or cpu-migrations: the module counts those at\n"
"        context switches and they never overflow. Without a hardware\n"
"        PMU (most VMs), hardware events fail with a message saying so.\n"
"\n"
"    -c\n"
"        Sampling every N events is not supported: use -F.\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
"EXAMPLES\n"
"    pmuctx record -o trace.pmu --switch-events -- make -j8\n"
"    pmuctx report -i trace.pmu --format perf-script | less\n"
"\n"
"    sudo pmuctx record -a --overwrite --switch-events -o fr.pmu &\n"
"    ...                      # when something goes wrong:\n"
"    sudo pmuctx snapshot --pid $!\n"
"    pmuctx report -i fr.pmu\n"
"\n"
"    pmuctx record --switch-events --trigger 'task-clock>5ms' -o slow.pmu \\\n"
"        -- ./server\n"
"\n"
"    pmuctx record -g -o prof.pmu -- make -j8\n"
"    pmuctx report -i prof.pmu --format folded | flamegraph.pl > fg.svg\n"
"    pmuctx report -i prof.pmu --format pprof -o prof.pb.gz\n"
"\n"
"EXIT STATUS\n"
"    With CMD: CMD's exit status, 128+N if it was killed by signal N, 127\n"
"    if CMD was not found, 126 if it could not be executed; 1 if the\n"
"    recording failed. Otherwise: 0 on success (also when stopped by\n"
"    Ctrl-C or SIGTERM), 1 on a runtime error, 2 on a usage error.\n"
"\n"
"ENVIRONMENT\n"
"    PMUCTX_DEVICE\n"
"        Path of the pmuctx device, instead of /dev/pmuctx.\n"
"\n"
"SEE ALSO\n"
"    pmuctx snapshot --help, pmuctx report --help, pmuctx stat --help,\n"
"    docs/FILE-FORMAT.md\n";

/* ---- options ------------------------------------------------------------- */

struct record_opts {
	const char *output;
	bool overwrite;
	uint64_t buffer_size;
	__u32 records;
	bool have_records;
	bool switch_events;
	const char *trigger;
	char *events;
	bool no_inherit;
	bool system_wide;
	pid_t pid;
	bool have_duration;
	uint64_t duration_ns;
	bool quiet;
	__u32 freq;
	enum call_graph call_graph;
	__u32 max_stack;
	__u32 sample_event;
	char **argv;
	int argc;
};

enum {
	OPT_OVERWRITE = 256,
	OPT_BUFFER_SIZE,
	OPT_SWITCH_EVENTS,
	OPT_RECORDS,
	OPT_TRIGGER,
	OPT_NO_INHERIT,
	OPT_DURATION,
	OPT_CALL_GRAPH,
	OPT_MAX_STACK,
	OPT_SAMPLE_EVENT,
};

int record_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	default: break;
	}
	if (mul > 1 && (!strcmp(end, "iB") || !strcmp(end, "B") ||
			!strcmp(end, "b")))
		end += strlen(end);
	else if (mul == 1 && (!strcmp(end, "B") || !strcmp(end, "b")))
		end++;
	if (*end || !v || v > (1ULL << 40) / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

int record_parse_mask(const char *list, __u32 *out)
{
	static const struct {
		const char *name;
		__u32 bit;
	} names[] = {
		{ "switch", PMUCTX_REC_MASK_SWITCH },
		{ "fork", PMUCTX_REC_MASK_FORK },
		{ "exec", PMUCTX_REC_MASK_EXEC },
		{ "exit", PMUCTX_REC_MASK_EXIT },
		{ "comm", PMUCTX_REC_MASK_COMM },
		{ "mmap", PMUCTX_REC_MASK_MMAP },
		{ "all", PMUCTX_REC_MASK_ALL },
	};
	const char *p = list;
	__u32 mask = 0;

	while (*p) {
		size_t n = strcspn(p, ","), i;
		bool found = false;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n &&
			    !strncmp(p, names[i].name, n)) {
				mask |= names[i].bit;
				found = true;
			}
		if (!found)
			return -EINVAL;
		p += n;
		if (*p == ',' && *++p == '\0')
			return -EINVAL;
	}
	if (!mask)
		return -EINVAL;
	*out = mask;
	return 0;
}

int record_parse_trigger(const char *s, int *event, uint64_t *threshold,
			 char *why, size_t why_len)
{
	const char *gt = strchr(s, '>');
	char name[64], *end;
	const char *unit;
	double v, mul = 1;
	int id;

	if (!gt || gt == s || (size_t)(gt - s) >= sizeof(name)) {
		snprintf(why, why_len, "expected EVENT>VALUE, e.g. "
			 "'task-clock>5ms'");
		return -EINVAL;
	}
	memcpy(name, s, (size_t)(gt - s));
	name[gt - s] = '\0';
	id = pmuctx_event_parse(name);
	if (id < 0) {
		pmuctx_errmsg(NULL, id, why, why_len);
		return -EINVAL;
	}
	if (gt[1] == '=') {
		snprintf(why, why_len, "the trigger fires above the value: "
			 "use '>' (not '>=')");
		return -EINVAL;
	}
	errno = 0;
	v = strtod(gt + 1, &end);
	if (errno || end == gt + 1 || !isfinite(v) || v < 0) {
		snprintf(why, why_len, "'%s' is not a value (a number with an "
			 "optional unit)", gt + 1);
		return -EINVAL;
	}
	unit = end;
	if (!strcmp(pmuctx_event_unit(id), "ns")) {
		if (!*unit || !strcmp(unit, "ns"))
			mul = 1;
		else if (!strcmp(unit, "us"))
			mul = 1e3;
		else if (!strcmp(unit, "ms"))
			mul = 1e6;
		else if (!strcmp(unit, "s"))
			mul = 1e9;
		else {
			snprintf(why, why_len, "unit '%s' of %s: use ns, us, "
				 "ms or s", unit, pmuctx_event_name(id));
			return -EINVAL;
		}
	} else {
		if (!*unit)
			mul = 1;
		else if (!strcmp(unit, "k") || !strcmp(unit, "K"))
			mul = 1e3;
		else if (!strcmp(unit, "M"))
			mul = 1e6;
		else if (!strcmp(unit, "G"))
			mul = 1e9;
		else {
			snprintf(why, why_len, "suffix '%s' of %s (a count): "
				 "use k, M or G, or none", unit,
				 pmuctx_event_name(id));
			return -EINVAL;
		}
	}
	v *= mul;
	if (v >= 1.8e19) {
		snprintf(why, why_len, "the value is too large");
		return -EINVAL;
	}
	if (llround(v) < 1) {
		snprintf(why, why_len, "the value must be at least 1%s (the "
			 "trigger fires above it)",
			 !strcmp(pmuctx_event_unit(id), "ns") ? " ns" : "");
		return -EINVAL;
	}
	*event = id;
	*threshold = (uint64_t)llround(v);
	return 0;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "records", required_argument, NULL, OPT_RECORDS },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "event", required_argument, NULL, 'e' },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "quiet", no_argument, NULL, 'q' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "sample-event", required_argument, NULL, OPT_SAMPLE_EVENT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:e:ap:qF:c:gh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_error(CMD, "-o needs a file name");
			o->output = optarg;
			break;
		case OPT_OVERWRITE:
			o->overwrite = true;
			break;
		case OPT_BUFFER_SIZE:
			if (record_parse_size(optarg, &o->buffer_size))
				return usage_error(CMD, "--buffer-size '%s': "
					"expected a size such as 256K, 4M or "
					"1048576", optarg);
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case OPT_RECORDS:
			if (record_parse_mask(optarg, &o->records))
				return usage_error(CMD, "--records '%s': "
					"expected a comma-separated list of "
					"switch, fork, exec, exit, comm or all",
					optarg);
			o->have_records = true;
			break;
		case OPT_TRIGGER:
			o->trigger = optarg;
			break;
		case 'e':
			if (append_list(&o->events, optarg))
				return usage_error(CMD, "out of memory");
			break;
		case OPT_NO_INHERIT:
			o->no_inherit = true;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'p':
			if (parse_pid_arg(CMD, optarg, &o->pid))
				return EXIT_USAGE;
			break;
		case OPT_DURATION:
			if (!parse_seconds(optarg, &o->duration_ns))
				return usage_error(CMD, "--duration '%s': "
					"expected a number of seconds > 0",
					optarg);
			o->have_duration = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'F':
			if (!parse_uint(optarg, 1000000, &v) || !v)
				return usage_error(CMD, "-F '%s': expected a "
					"sampling frequency in Hz (a positive "
					"integer, e.g. 999)", optarg);
			o->freq = (__u32)v;
			break;
		case 'c':
			return usage_error(CMD, "-c: sampling every N events "
				"is not supported; pmuctx samples at a "
				"frequency (hrtimer or --sample-event): use "
				"-F HZ");
		case 'g':
			if (o->call_graph == CG_NONE)
				o->call_graph = CG_DEFER;
			break;
		case OPT_CALL_GRAPH:
			if (!strcmp(optarg, "fp"))
				o->call_graph = CG_FP;
			else if (!strcmp(optarg, "defer"))
				o->call_graph = CG_DEFER;
			else
				return usage_error(CMD, "--call-graph '%s': "
					"expected fp or defer (user stacks are "
					"walked with frame pointers; dwarf and "
					"lbr are not supported)", optarg);
			break;
		case OPT_MAX_STACK:
			if (!parse_uint(optarg, PMUCTX_MAX_STACK, &v) || !v)
				return usage_error(CMD, "--max-stack '%s': "
					"expected 1..%d frames", optarg,
					PMUCTX_MAX_STACK);
			o->max_stack = (__u32)v;
			break;
		case OPT_SAMPLE_EVENT: {
			int id = pmuctx_event_parse(optarg);

			if (id < 0)
				return usage_error(CMD, "--sample-event '%s': "
					"unknown event (pmuctx info lists them)",
					optarg);
			if (id == PMUCTX_EV_TASK_CLOCK ||
			    id == PMUCTX_EV_CONTEXT_SWITCHES ||
			    id == PMUCTX_EV_CPU_MIGRATIONS)
				return usage_error(CMD, "--sample-event %s: the "
					"module counts it at context switches, "
					"it never overflows; sample on cycles, "
					"cpu-clock, ... or drop the option for "
					"the hrtimer", optarg);
			o->sample_event = (__u32)id;
			break;
		}
		case 'h':
			print_cmd_help(&cmd_record, stdout);
			return -1;
		default:
			return option_error(CMD, c, argv);
		}
	}
	o->argv = argv + optind;
	o->argc = argc - optind;

	if (o->pid && o->system_wide)
		return usage_error(CMD, "-p cannot be combined with -a");
	if (o->pid && o->argc)
		return usage_error(CMD, "-p attaches to a running process; "
				   "do not give a command too");
	if (!o->pid && !o->system_wide && !o->argc)
		return usage_error(CMD, "nothing to record: give a command "
				   "(pmuctx record -- CMD ARGS), -p PID or -a");
	if (o->have_duration && !o->pid && !o->system_wide)
		return usage_error(CMD, "--duration works with -p or -a; with "
				   "a command, recording lasts as long as the "
				   "command");
	if (o->have_duration && o->argc)
		return usage_error(CMD, "--duration cannot be combined with a "
				   "command");
	if (o->trigger)
		o->overwrite = true;
	if ((o->call_graph || o->sample_event) && !o->freq)
		o->freq = DEFAULT_FREQ;
	if (o->max_stack && !o->call_graph)
		return usage_error(CMD, "--max-stack applies to callchains: "
				   "add -g");
	return 0;
}

/* ---- helpers --------------------------------------------------------------- */

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

/* ---- the recorder ------------------------------------------------------------ */

struct recent_req {
	pid_t pid;
	int nonce;
	int reply;
};

struct recorder {
	const struct record_opts *o;
	struct pmuctx *h;
	struct pmuctx_ring *ring;
	struct pmf_writer *w;
	unsigned int nr_cpus;
	__u64 *prev_lost;		/* per CPU, at the previous window */
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
};

static void clear_progress(struct recorder *R)
{
	if (R->progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		R->progress_shown = false;
	}
}

static __u64 total_lost(struct recorder *R)
{
	struct pmuctx_ring_cpu_stats st;
	__u64 sum = 0;
	unsigned int i;

	for (i = 0; i < R->nr_cpus; i++)
		if (!pmuctx_ring_stats(R->ring, i, &st))
			sum += st.lost;
	return sum;
}

static void progress(struct recorder *R, bool force)
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
			(unsigned long long)total_lost(R), bytes);
	else
		fprintf(stderr, "\r\033[K[ pmuctx record: %" PRIu64 " records, "
			"%llu lost, %s written ]",
			(uint64_t)pmf_records(R->w),
			(unsigned long long)total_lost(R), bytes);
	fflush(stderr);
	R->progress_shown = true;
}

static void ring_error(struct recorder *R, int err)
{
	clear_progress(R);
	lib_error(CMD, R->h, err);
	R->ring_errors = true;
}

static int file_error(struct recorder *R)
{
	clear_progress(R);
	fprintf(stderr, "pmuctx record: %s\n", pmf_writer_error(R->w));
	R->failed = true;
	return -EIO;
}

/* per-CPU stats for WINDOW_END, lost counted since the previous window */
static void fill_stats(struct recorder *R)
{
	struct pmuctx_ring_cpu_stats st;
	unsigned int i;

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
	}
}

/* read the open window of every CPU into the file */
static int copy_records(struct recorder *R)
{
	struct pmuctx_record rec;
	int n;

	for (;;) {
		n = pmuctx_ring_next(R->ring, &rec);
		if (!n)
			return 0;
		if (n < 0) {		/* that CPU is closed; go on */
			ring_error(R, n);
			continue;
		}
		if (pmf_add_record(R->w, rec.hdr, rec.size))
			return file_error(R);
		if (rec.type == PMUCTX_REC_SAMPLE)
			R->samples++;
		if (R->mc) {
			maps_cap_record(R->mc, rec.hdr, now_ns());
			if (pmf_writer_error(R->w)[0])
				return file_error(R);
		}
	}
}

/* normal mode: copy what the buffers hold, hand the space back */
static int drain(struct recorder *R)
{
	int err;

	if (R->failed)
		return -EIO;
	err = pmuctx_ring_begin(R->ring);
	if (err)
		ring_error(R, err);
	err = copy_records(R);
	pmuctx_ring_skip(R->ring, -1);	/* past any corrupt record */
	if (!err) {
		int cerr = pmuctx_ring_consume(R->ring);

		if (cerr)
			ring_error(R, cerr);
		if (pmf_flush(R->w))
			err = file_error(R);
	}
	progress(R, false);
	return err;
}

/* overwrite mode: freeze, append a window, resume */
static int take_window(struct recorder *R, __u32 reason, pid_t requester)
{
	uint64_t t = now_ns();
	__u64 lost = 0;
	unsigned int i;
	int err, rerr, f;

	if (R->failed)
		return -EIO;
	err = pmuctx_ring_snapshot(R->ring);
	if (err && err != -EBADMSG) {
		ring_error(R, err);
		return err;
	}
	if (err)
		ring_error(R, err);
	f = pmuctx_ring_flags(R->ring);
	if (reason == PMF_WIN_TRIGGER && f >= 0 &&
	    !(f & PMUCTX_RING_F_TRIGGERED)) {
		/* POLLIN without a trigger: nothing to write */
		rerr = pmuctx_ring_resume(R->ring);
		if (rerr)
			ring_error(R, rerr);
		return -EAGAIN;
	}
	/*
	 * The trigger froze the buffers before this snapshot (a slice ended
	 * over the threshold after the last poll, e.g. just before the end
	 * or a requested window): the window is the trigger's, say so.
	 */
	if (f >= 0 && (f & PMUCTX_RING_F_TRIGGERED))
		reason = PMF_WIN_TRIGGER;
	if (pmf_window_begin(R->w, reason, t, requester))
		return file_error(R);
	err = copy_records(R);
	fill_stats(R);
	rerr = pmuctx_ring_resume(R->ring);
	if (rerr)
		ring_error(R, rerr);
	if (err)
		return err;
	if (pmf_window_end(R->w, R->stats, R->nr_cpus, now_ns()) ||
	    pmf_flush(R->w))
		return file_error(R);
	for (i = 0; i < R->nr_cpus; i++)
		lost += R->stats[i].lost_window;
	if (!R->o->quiet) {
		clear_progress(R);
		fprintf(stderr, "pmuctx record: window %u (%s", pmf_windows(R->w)
			- 1, pmf_reason_name(reason));
		if (requester > 0)
			fprintf(stderr, " from pid %d", (int)requester);
		fprintf(stderr, "): %" PRIu64 " records in %s so far, %llu "
			"lost since the previous window\n",
			(uint64_t)pmf_records(R->w), R->o->output,
			(unsigned long long)lost);
	}
	return rerr ? rerr : 0;
}

/*
 * SIGUSR2.  From pmuctx snapshot (sigqueue, SI_QUEUE) the value holds a
 * nonce (bits 0-14); the answer goes back the same way once the window is
 * in the file: nonce | 0x8000 on failure | (window + 1) << 16.  A request
 * repeated with the same nonce (the requester resends when a signal was
 * merged) is answered again without a second window.
 */
static void handle_usr2(struct recorder *R,
			const struct signalfd_siginfo *si)
{
	bool queued = si->ssi_code == SI_QUEUE;
	int nonce = queued ? (int)(si->ssi_int & RECORD_NONCE_MASK) : 0;
	pid_t from = (pid_t)si->ssi_pid;
	union sigval v;
	unsigned int i;
	int err, reply;

	if (queued && nonce) {
		for (i = 0; i < R->nr_recent; i++)
			if (R->recent[i].pid == from &&
			    R->recent[i].nonce == nonce) {
				v.sival_int = R->recent[i].reply;
				sigqueue(from, SIGUSR2, v);
				return;
			}
	}
	if (R->o->overwrite)
		err = take_window(R, queued ? PMF_WIN_REQUEST : PMF_WIN_SIGNAL,
				  from);
	else
		err = drain(R);
	if (!queued || !nonce)
		return;
	reply = nonce;
	if (err)
		reply |= RECORD_REPLY_FAILED;
	if (R->o->overwrite && !err)
		reply |= (int)((pmf_windows(R->w) & 0x7fff) << 16);
	i = R->nr_recent < 16 ? R->nr_recent++ : (unsigned int)(rand() % 16);
	R->recent[i].pid = from;
	R->recent[i].nonce = nonce;
	R->recent[i].reply = reply;
	v.sival_int = reply;
	sigqueue(from, SIGUSR2, v);
}

/* ---- session set-up ------------------------------------------------------------ */

static __u32 sample_flags(const struct record_opts *o)
{
	switch (o->call_graph) {
	case CG_FP:
		return PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK;
	case CG_DEFER:
		return PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK |
		       PMUCTX_SAMPLE_DEFER_USER;
	default:
		return 0;
	}
}

/* maps_cap's store: a MAPS section in the file */
static int store_maps(void *ctx, __s32 pid, __u64 time, __u32 reason,
		      const char *text, size_t len)
{
	struct recorder *R = ctx;

	return pmf_add_maps(R->w, pid, time, reason, text, len);
}

/* Does the module write MMAP records (PMUCTX_FEAT_MMAP)? */
static bool mmap_records(struct pmuctx *h)
{
	struct pmuctx_info info;

	return !pmuctx_info(h, &info) && (info.features & PMUCTX_FEAT_MMAP);
}

static int create_session(struct pmuctx *h, const struct record_opts *o,
			  const int *ids, int nr, int trig_idx,
			  uint64_t threshold, __u32 pages, pid_t child)
{
	LIBPMUCTX_OPTS(pmuctx_session_opts, so,
		.event_ids = ids,
		.nr_event_ids = (size_t)nr,
		.ring_pages = pages,
		.ring_mode = o->overwrite ? PMUCTX_RING_OVERWRITE :
			     PMUCTX_RING_NORMAL,
	);
	long ps = sysconf(_SC_PAGESIZE);

	session_target(&so, o->system_wide, NULL, o->pid ? o->pid : child,
		       !o->no_inherit);
	so.ring_records = o->have_records ? o->records : DEFAULT_RECORDS;
	if (o->switch_events)
		so.ring_records |= PMUCTX_REC_MASK_SWITCH;
	if (!o->have_records && o->call_graph && mmap_records(h))
		so.ring_records |= PMUCTX_REC_MASK_MMAP;
	if (!o->overwrite)
		so.wakeup_bytes = (__u32)((uint64_t)pages * (uint64_t)ps / 4);
	if (trig_idx >= 0) {
		so.trigger_event = (__u32)trig_idx + 1;
		so.trigger_threshold = threshold;
	}
	so.sample_freq = o->freq;
	so.sample_event = o->sample_event;
	so.sample_flags = sample_flags(o);
	if (o->call_graph)
		so.sample_max_stack = o->max_stack ? o->max_stack :
				      DEFAULT_MAX_STACK;
	return pmuctx_session_create(h, &so);
}

static __u32 pages_for(uint64_t bytes, long ps, bool *rounded)
{
	uint64_t pages = (bytes + (uint64_t)ps - 1) / (uint64_t)ps, p2 = 1;

	while (p2 < pages)
		p2 <<= 1;
	*rounded = p2 * (uint64_t)ps != bytes;
	return p2 > UINT32_MAX ? UINT32_MAX : (__u32)p2;
}

/* ---- entry ------------------------------------------------------------------- */

static int record_run(int argc, char **argv)
{
	struct record_opts o = { .output = DEFAULT_OUTPUT,
				 .buffer_size = DEFAULT_BUFFER };
	struct recorder R = { 0 };
	struct pmuctx_info info;
	struct pmf_meta meta;
	struct utsname uts;
	char host[256], tool[64], why[512];
	int ids[PMUCTX_MAX_EVENTS], nr, trig_id = 0, trig_idx = -1, i, ret;
	int sfd = -1, pidfd = -1, exec_err = 0, status = 0, exit_status = 0;
	int err;
	uint64_t threshold = 0, deadline = 0, t0;
	sigset_t mask, old;
	struct child ch = { .go_fd = -1, .err_fd = -1 };
	pid_t child = 0;
	bool rounded, child_done = false, stop = false;
	const char *what;
	char *cmdline = NULL;
	__u32 pages;
	long ps;

	/* first of all: a SIGUSR2 must never kill the recorder */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);

	ret = parse_opts(argc, argv, &o);
	if (ret) {
		free(o.events);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return ret < 0 ? 0 : ret;
	}
	if (o.trigger) {
		if (record_parse_trigger(o.trigger, &trig_id, &threshold, why,
					 sizeof(why))) {
			free(o.events);
			sigprocmask(SIG_SETMASK, &old, NULL);
			return usage_error(CMD, "--trigger '%s': %s",
					   o.trigger, why);
		}
	}
	nr = parse_events(&o.events, DEFAULT_EVENTS, ids);
	if (nr < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return lib_usage_error(CMD, nr);
	}
	if (o.trigger) {
		for (i = 0; i < nr; i++)
			if (ids[i] == trig_id)
				trig_idx = i;
		if (trig_idx < 0) {
			if (nr == PMUCTX_MAX_EVENTS) {
				sigprocmask(SIG_SETMASK, &old, NULL);
				return usage_error(CMD, "--trigger: %s is not "
					"among the %d events of -e and there "
					"is no room to add it",
					pmuctx_event_name(trig_id), nr);
			}
			ids[nr] = trig_id;
			trig_idx = nr++;
		}
	}
	ps = sysconf(_SC_PAGESIZE);
	if (ps <= 0)
		ps = 4096;
	pages = pages_for(o.buffer_size, ps, &rounded);

	ret = open_device(CMD, &R.h);
	if (ret) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return ret;
	}
	R.o = &o;
	ret = EXIT_RUNTIME;

	if (o.argc) {
		cmdline = join_args(o.argc, o.argv);
		if (!cmdline) {
			fprintf(stderr, "pmuctx record: out of memory\n");
			goto out;
		}
		if (child_spawn(&ch, o.argv, &old, &what)) {
			if (!strcmp(what, "fork"))
				fprintf(stderr, "pmuctx record: fork: %s\n",
					strerror(errno));
			else
				fprintf(stderr, "pmuctx record: %s\n",
					strerror(errno));
			goto out;
		}
		child = ch.pid;
	} else if (o.pid) {
		if (asprintf(&cmdline, "pid %d", (int)o.pid) < 0)
			cmdline = NULL;
	} else {
		cmdline = strdup("system-wide");
	}

	err = create_session(R.h, &o, ids, nr, trig_idx, threshold, pages,
			     child);
	if (!err)
		err = pmuctx_info(R.h, &info);
	if (!err)
		err = pmuctx_ring_map(R.h, &R.ring);
	if (err) {
		lib_error(CMD, R.h, err);
		if (err == -ENOMEM || err == -EPERM)
			fprintf(stderr, "  (--buffer-size %" PRIu64 " bytes: %u "
				"pages of %ld bytes per CPU)\n",
				o.buffer_size, pages, ps);
		goto out;
	}
	if (rounded && !o.quiet)
		fprintf(stderr, "pmuctx record: note: buffer size rounded up "
			"to %u pages (%llu bytes) per CPU\n", pages,
			(unsigned long long)pages * (unsigned long long)ps);
	R.nr_cpus = pmuctx_ring_nr_cpus(R.ring);
	R.prev_lost = calloc(R.nr_cpus, sizeof(*R.prev_lost));
	R.stats = calloc(R.nr_cpus, sizeof(*R.stats));
	if (!R.prev_lost || !R.stats) {
		fprintf(stderr, "pmuctx record: out of memory\n");
		goto out;
	}

	memset(&meta, 0, sizeof(meta));
	meta.info.abi_version = PMUCTX_ABI_VERSION;
	meta.info.module_abi = info.abi_version;
	meta.info.nr_cpus = R.nr_cpus;
	meta.info.ring_mode = o.overwrite ? PMUCTX_RING_OVERWRITE :
			      PMUCTX_RING_NORMAL;
	meta.info.ring_pages = pages;
	meta.info.page_size = (__u32)ps;
	meta.info.ring_records = (o.have_records ? o.records :
				  DEFAULT_RECORDS) |
				 (o.switch_events ? PMUCTX_REC_MASK_SWITCH : 0) |
				 (!o.have_records && o.call_graph &&
				  (info.features & PMUCTX_FEAT_MMAP) ?
				  PMUCTX_REC_MASK_MMAP : 0);
	meta.info.target = o.system_wide ? PMUCTX_TARGET_SYSTEM :
			   PMUCTX_TARGET_PID;
	meta.info.pid = o.pid ? o.pid : child;
	meta.info.nr_events = (__u32)nr;
	for (i = 0; i < nr; i++)
		meta.info.events[i] = (__u32)ids[i];
	meta.info.trigger_event = trig_idx >= 0 ? (__u32)trig_idx + 1 : 0;
	meta.info.trigger_threshold = threshold;
	meta.info.sample_freq = o.freq;
	meta.info.sample_event = o.sample_event;
	meta.info.sample_flags = sample_flags(&o);
	meta.info.sample_max_stack = o.call_graph ? (o.max_stack ?
				     o.max_stack : DEFAULT_MAX_STACK) : 0;
	host[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	if (uname(&uts))
		strcpy(uts.release, "");
	snprintf(tool, sizeof(tool), "pmuctx record (libpmuctx %s)",
		 pmuctx_version());
	meta.command = cmdline ? cmdline : "";
	meta.hostname = host;
	meta.release = uts.release;
	meta.tool_version = tool;
	meta.module_version = info.version;
	meta.info.start_mono_ns = now_ns();
	meta.info.start_real_ns = clock_ns(CLOCK_REALTIME);
	err = pmf_create(&R.w, o.output, &meta, why, sizeof(why));
	if (err) {
		fprintf(stderr, "pmuctx record: %s\n", why);
		goto out;
	}
	if (o.freq) {
		if (maps_cap_new(&R.mc, NULL, store_maps, &R)) {
			fprintf(stderr, "pmuctx record: out of memory\n");
			goto out;
		}
		/* the process attached to; a command's comes with its exec */
		if (o.pid)
			maps_capture(R.mc, o.pid, now_ns(), MAPS_START);
	}
	if (!o.overwrite &&
	    pmf_window_begin(R.w, PMF_WIN_STREAM, now_ns(), 0)) {
		file_error(&R);
		goto out;
	}

	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fprintf(stderr, "pmuctx record: signalfd: %s\n",
			strerror(errno));
		goto out;
	}
	err = pmuctx_enable(R.h);
	if (err) {
		lib_error(CMD, R.h, err);
		goto out;
	}
	if (o.pid)
		pidfd = pidfd_open_compat(o.pid);
	R.tty = isatty(2) && !o.quiet;

	t0 = now_ns();
	if (o.have_duration)
		deadline = t0 + o.duration_ns;
	if (child)
		exec_err = child_start(CMD, &ch);

	while (!stop) {
		struct pollfd pfd[3];
		int nfds = 0, timeout, r;

		pfd[nfds].fd = pmuctx_fd(R.h);
		pfd[nfds++].events = POLLIN;
		pfd[nfds].fd = sfd;
		pfd[nfds++].events = POLLIN;
		if (pidfd >= 0) {
			pfd[nfds].fd = pidfd;
			pfd[nfds++].events = POLLIN;
		}
		timeout = o.overwrite ? (R.tty ? 500 : -1) : 200;
		if (o.pid && pidfd < 0 && (timeout < 0 || timeout > 200))
			timeout = 200;
		if (deadline) {
			uint64_t t = now_ns();

			if (t >= deadline)
				break;
			if (timeout < 0 ||
			    (uint64_t)timeout * 1000000ULL > deadline - t)
				timeout = (int)((deadline - t + 999999) /
						1000000);
		}
		r = poll(pfd, (nfds_t)nfds, timeout);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "pmuctx record: poll: %s\n",
				strerror(errno));
			break;
		}
		if (r < 0)
			continue;
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				switch (si.ssi_signo) {
				case SIGUSR2:
					handle_usr2(&R, &si);
					break;
				case SIGCHLD:
					if (child && !child_done &&
					    waitpid(child, &status,
						    WNOHANG) == child) {
						child_done = true;
						stop = true;
					}
					break;
				case SIGINT:
					if (!child)
						stop = true;
					break;
				default:	/* SIGTERM, SIGHUP */
					if (child && !child_done)
						kill(child, (int)si.ssi_signo);
					else
						stop = true;
				}
			}
		}
		if (child && !child_done &&
		    waitpid(child, &status, WNOHANG) == child) {
			child_done = true;
			stop = true;
		}
		if (pidfd >= 0 && (pfd[2].revents & POLLIN))
			stop = true;
		if (o.pid && pidfd < 0 && kill(o.pid, 0) && errno == ESRCH)
			stop = true;
		if (stop)
			break;
		if (o.overwrite) {
			/*
			 * POLLIN: the buffers are frozen, by the trigger (our
			 * own snapshots are resumed before poll() again).
			 * The control pages say TRIGGERED once SNAPSHOT has
			 * waited for the writers in flight.
			 */
			if ((pfd[0].revents & POLLIN) &&
			    take_window(&R, PMF_WIN_TRIGGER, 0) == -EAGAIN)
				usleep(20000);	/* not frozen: no spinning */
			progress(&R, false);
		} else {
			drain(&R);
		}
		if (R.failed)
			break;
	}

	/* the end */
	if (child && !child_done) {
		pid_t w;

		if (R.failed)
			fprintf(stderr, "pmuctx record: recording stopped; "
				"waiting for the command to exit\n");
		do
			w = waitpid(child, &status, 0);
		while (w < 0 && errno == EINTR);
		child_done = w == child;
	}
	pmuctx_disable(R.h);
	if (!R.failed) {
		if (o.overwrite) {
			take_window(&R, PMF_WIN_EXIT, 0);
		} else {
			drain(&R);
			fill_stats(&R);
			if (pmf_window_end(R.w, R.stats, R.nr_cpus, now_ns()))
				file_error(&R);
		}
	}
	/* MMAP snapshots whose last record was lost */
	if (!R.failed && R.mc) {
		maps_cap_flush(R.mc);
		if (pmf_writer_error(R.w)[0])
			file_error(&R);
	}
	clear_progress(&R);
	if (child)
		exit_status = exec_err ? exec_status(exec_err) :
			      wait_status(child_done, status);
	{
		__u64 recs = pmf_records(R.w), lost = total_lost(&R);
		__u32 wins = pmf_windows(R.w);
		char bytes[32];

		human_bytes(bytes, sizeof(bytes), pmf_bytes(R.w));
		err = pmf_close(R.w, child ? exit_status : 0, why,
				sizeof(why));
		R.w = NULL;
		if (err) {
			fprintf(stderr, "pmuctx record: %s\n", why);
			R.failed = true;
		}
		if (!o.quiet && !R.failed)
			fprintf(stderr, "pmuctx record: %llu records%s, %llu "
				"lost, %u window(s), %s written to %s\n",
				(unsigned long long)recs,
				o.overwrite ? " in windows" : "",
				(unsigned long long)lost, wins, bytes,
				o.output);
		if (!o.quiet && !R.failed && o.freq) {
			__u64 nm, gone, mb;

			maps_cap_counts(R.mc, &nm, &gone, &mb);
			fprintf(stderr, "pmuctx record: %llu samples at %u "
				"Hz%s, %llu memory map(s) of processes",
				(unsigned long long)R.samples, o.freq,
				o.call_graph == CG_DEFER ?
				" with deferred user callchains" :
				o.call_graph == CG_FP ? " with callchains" :
				"", (unsigned long long)nm);
			if (gone)
				fprintf(stderr, " (%llu process(es) gone "
					"before theirs was read: their user "
					"frames are unknown)",
					(unsigned long long)gone);
			fputc('\n', stderr);
		}
	}
	if (exec_err)
		print_exec_error(CMD, o.argv[0], exec_err);
	if (R.failed)
		ret = EXIT_RUNTIME;
	else
		ret = child ? exit_status : 0;
out:
	if (R.w) {
		pmf_close(R.w, -1, NULL, 0);
		R.w = NULL;
	}
	/* set-up failed: the child exits without running */
	if (child && !child_done)
		child_abort(&ch);
	if (pidfd >= 0)
		close(pidfd);
	if (sfd >= 0) {
		struct signalfd_siginfo si;

		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo == SIGUSR2 &&
			    si.ssi_code == SI_QUEUE) {
				union sigval v = {
					.sival_int = (int)(si.ssi_int &
						RECORD_NONCE_MASK) |
						RECORD_REPLY_FAILED,
				};

				sigqueue((pid_t)si.ssi_pid, SIGUSR2, v);
			}
		close(sfd);
	}
	maps_cap_free(R.mc);
	pmuctx_ring_unmap(R.ring);
	pmuctx_close(R.h);
	free(R.prev_lost);
	free(R.stats);
	free(cmdline);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

const struct cmd cmd_record = {
	.name = "record",
	.summary = "record scheduler events into a file (stream or flight "
		   "recorder)",
	.help = record_help,
	.run = record_run,
};
