// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: print a file written by pmuctx record: the records in
 * time order, lost counts and per-task summaries, as text, JSON or lines
 * in the shape of perf script's; and for a sampling recording the
 * profile (tools/profile): stitched and symbolized callchains as folded
 * stacks, a pprof profile or a perf-report-like table.  The parts are in
 * tools/report/ (report/report.h lists them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json-out.h"
#include "report/options.h"
#include "report/perf-script.h"
#include "report/profile.h"
#include "report/records.h"
#include "report/tasks.h"
#include "report/text.h"
#include "report/windows.h"

static const char report_help[] =
"NAME\n"
"    pmuctx report - print a recording made by pmuctx record\n"
"\n"
"SYNOPSIS\n"
"    pmuctx report [-i FILE] [--format text|json|perf-script] [--partial]\n"
"                  [--summary]\n"
"    pmuctx report [-i FILE] --format folded|pprof|text [-o OUT]\n"
"                  [--weight period|raw-period|samples] [--kallsyms FILE]\n"
"    pmuctx report [-i FILE] [-s KEYS] [--no-children] [--percent-limit PCT]\n"
"                  [-g [TYPE,THRESHOLD,ORDER]] [--comms NAMES] [--pid PIDS]\n"
"                  [--tid TIDS] [--dsos DSOS] [--symbols NAMES]\n"
"                  [--time RANGES]\n"
"    pmuctx report [-i FILE] --stitch-stats\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE (written by pmuctx record; docs/FILE-FORMAT.md) and checks\n"
"    it: a file that is not a pmuctx recording, has an unknown format\n"
"    version or is truncated is refused with a message saying what is\n"
"    wrong. Then it prints:\n"
"\n"
"      - the recording's header: command, host, kernel, start time, mode,\n"
"        buffer size, records, events, trigger;\n"
"      - every window (one per snapshot in flight-recorder mode, one\n"
"        stream in normal mode): why it was taken, and per CPU the time\n"
"        span its records cover, how many it holds, how many the kernel\n"
"        overwrote since the previous window (flight recorder) and how\n"
"        many it lost; for a trigger window the task and slice that\n"
"        fired it; then its records in time order across CPUs;\n"
"      - a per-task summary: for each task, the time slices seen in\n"
"        switch records and the sum of their per-slice counts, and the\n"
"        totals of its exit record. Records present in several\n"
"        (overlapping) windows are counted once. The loss total, in\n"
"        every format, is the kernel's count (the windows' per-CPU\n"
"        counters), which includes LOST records that never reached the\n"
"        file.\n"
"\n"
"    A recording with samples (pmuctx record samples by default) is a\n"
"    profile: each SAMPLE of a -g recording is joined with its deferred\n"
"    user callchain (the USER_CALLCHAIN record of the same pid, tid and\n"
"    cookie, on whatever CPU and in whatever window it came), and every\n"
"    frame is named (a sample without -g has one: its IP): kernel addresses\n"
"    with /proc/kallsyms (or --kallsyms), user addresses with the memory\n"
"    maps stored in FILE and the ELF files they name (symbol tables and\n"
"    debug files, with elfutils); a frame in a PLT stub is NAME@plt, as\n"
"    perf names it. A frame without a symbol is printed as\n"
"    '[unknown] (FILE+0xADDRESS)', the address in the file. Samples whose\n"
"    user callchain never came (the task exited or was killed in the\n"
"    kernel, the record was lost) keep their kernel frames only.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The recording; '-' reads standard input. Default: pmuctx.data.\n"
"\n"
"    --format text|json|perf-script|folded|pprof\n"
"        text (default): the above, for people. With samples: the header,\n"
"          the windows' counts, then the functions as perf report --stdio\n"
"          shows them: Children (the share of the weight with the\n"
"          function anywhere in the stack) and Self (at the top), per\n"
"          command, shared object and symbol ([k] kernel, [.] user); a\n"
"          '# Weight:' line says what is counted.\n"
"        folded: a comment line '# pmuctx folded stacks, weight: ...',\n"
"          then one line per distinct stack, 'comm;outer;...;inner N',\n"
"          user frames outermost first then kernel frames, N the weight\n"
"          (ns of CPU time by default, see --weight): the input of\n"
"          flamegraph.pl and speedscope.\n"
"        pprof: a gzip'd profile.proto (go tool pprof, pprof -http,\n"
"          speedscope), sample types samples/count and cpu/nanoseconds,\n"
"          labels comm, pid and tid; binary: give -o OUT.\n"
"        json: one JSON object: {\"file\", \"format_version\", \"command\",\n"
"          \"hostname\", \"kernel\", \"tool\", \"module\", \"nr_cpus\", \"mode\",\n"
"          \"ring_pages\", \"page_size\", \"records_mask\": [...], \"events\":\n"
"          [...], \"trigger\": {\"event\", \"threshold\"} or null,\n"
"          \"start_monotonic_ns\", \"start_realtime_ns\", \"complete\",\n"
"          \"exit_status\", \"lost_total\", \"windows\": [{\"index\", \"reason\",\n"
"          \"time_ns\", \"requester\", \"complete\", \"lost\", \"lost_per_cpu\":\n"
"          [...], \"overwritten\", \"cpus\": [{\"cpu\", \"first_ns\", \"last_ns\",\n"
"          \"records\", \"overwritten\", \"lost\"}], \"fired_by\" (trigger\n"
"          windows: {\"pid\", \"tid\", \"comm\", \"cpu\", \"start_ns\",\n"
"          \"end_ns\", \"value\"} or null),\n"
"          \"records\": [{\"type\", \"time_ns\", \"cpu\", \"pid\", \"tid\", ...}]}],\n"
"          \"tasks\": [{\"pid\", \"tid\", \"comm\", \"slices\", \"values\": {EV: N},\n"
"          \"exit\": {EV: N} or null}], \"sampling\": {\"freq\", \"flags\",\n"
"          \"max_stack\", \"call_graph\"} or null, \"maps\": [{\"pid\",\n"
"          \"time_ns\", \"reason\", \"text\"}]}\n"
"        perf-script: one line per record of all windows merged in time\n"
"          order (duplicates dropped), in the shape of 'perf script'\n"
"          output, e.g.\n"
"            burn  1234 [001] 5678.123456: pmuctx:sched_switch: \\\n"
"              prev_comm=burn prev_pid=1234 prev_state=R+ ==> \\\n"
"              next_comm=swapper/1 next_pid=0\n"
"          and pmuctx:sched_process_fork, pmuctx:sched_process_exec,\n"
"          pmuctx:sched_process_exit (not in a recording with samples:\n"
"          side-band, as perf script without --show-task-events) and\n"
"          pmuctx:user lines; lost records are counted on standard\n"
"          error.  A sample is printed as perf script prints one\n"
"          recorded with -g: a header line, the comm (the thread's name)\n"
"          first,\n"
"            burn  1234/1236  [001] 5678.123456:    1001001 cpu-clock: \n"
"          (pid/tid, [cpu], time, period in ns, the event's name, the\n"
"          same for every sample as perf prints it, and ':'), then its\n"
"          callchain innermost first, kernel then user, stitched with its\n"
"          deferred user callchain and symbolized, one frame a line\n"
"            <TAB>          401136 f3+0x16 (/usr/bin/burn)\n"
"          and a blank line: what stackcollapse-perf.pl and other perf\n"
"          script readers take. Whether a sample interrupted the kernel\n"
"          or user space shows in its frames, as in perf's: kernel\n"
"          frames are in ([kernel.kallsyms]).\n"
"\n"
"    --partial\n"
"        Read a file cut short (the recorder was killed, the disk filled\n"
"        up): use its complete sections and say on standard error what\n"
"        was dropped.\n"
"\n"
"    --summary\n"
"        text: the header, the windows' counts and the per-task summary,\n"
"        without the records.\n"
"\n"
"    -o, --output OUT\n"
"        Write the report to OUT instead of standard output.\n"
"\n"
"    --weight period|raw-period|samples\n"
"        What a sample weighs, the same in text, folded, pprof and\n"
"        perf-script output:\n"
"        period (default, as perf weighs): its period, the ns of CPU\n"
"          time it stands for, capped at the sampling period in effect\n"
"          on its CPU (1/frequency, at least 10 us; longer after a\n"
"          THROTTLE record slowed that CPU): the timer sampler's period\n"
"          is the time since the previous sample, and a tick held back\n"
"          (a stall) would make one sample weigh all of it, where perf's\n"
"          cpu-clock weighs each sample one period. A sampled counter's\n"
"          periods (--sample-event) are perf's own: not capped. The text\n"
"          header's '# Capped:' line says how much was cut.\n"
"        raw-period: the period as recorded, stalls included.\n"
"        samples: count samples.\n"
"        The output's header says which.\n"
"\n"
"    --stitch-stats\n"
"        How the samples' callchains were joined: samples (immediate,\n"
"        deferred), stitched, unresolved, user callchain records and how\n"
"        many were shared by more than one sample; for --call-graph\n"
"        dwarf recordings the USER_STACK records too (bytes, frames\n"
"        unwound, unwind time per record). On standard error when\n"
"        combined with --format.\n"
"\n"
"    --kallsyms FILE\n"
"        Kernel symbols from FILE (the format of /proc/kallsyms, e.g. a\n"
"        copy taken on the recording machine) instead of /proc/kallsyms.\n"
"        Without the privilege to see kernel addresses (CAP_SYSLOG,\n"
"        kernel.kptr_restrict) kernel frames stay unnamed.\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
"  The profile table (--format text; with another format a usage error),\n"
"  as perf report --stdio:\n"
"\n"
"    -s, --sort KEYS\n"
"        The entries and their columns, keys separated by commas: comm (the\n"
"        thread's name), pid (the thread, TID:COMM), dso (the shared object),\n"
"        symbol (sym) and srcline (FILE:LINE of the address, from the debug\n"
"        information; sym,srcline lists the lines of each function).\n"
"        Samples with the same values make one entry. Default:\n"
"        comm,dso,symbol.\n"
"\n"
"    --children, --no-children\n"
"        Children (the samples with the entry anywhere in the callchain)\n"
"        and Self (at the top), sorted by Children (default); or one\n"
"        Overhead column, the Self share, sorted by it, entries never at\n"
"        the top left out.\n"
"\n"
"    --percent-limit PCT\n"
"        Hide the entries under PCT percent (Children, or Overhead).\n"
"\n"
"    --percentage relative|absolute\n"
"        100 % is the samples the filters keep (default) or every sample.\n"
"\n"
"    -g, --call-graph[=TYPE,THRESHOLD,ORDER]\n"
"        Each entry's call graph under it. TYPE graph (default), fractal\n"
"        (percentages of the parent), folded or none; THRESHOLD: branches\n"
"        under it (%, default 0.5) are not drawn; ORDER caller (what the\n"
"        entry called; the default with children) or callee (its callers;\n"
"        the default with --no-children). The value may follow as a word:\n"
"        -g caller. -G, --inverted: -g caller.\n"
"\n"
"    --stdio\n"
"        Accepted: the text report is perf's stdio one.\n"
"\n"
"  Filters (text, folded, pprof, perf-script; the text header counts the\n"
"  samples left out):\n"
"\n"
"    -c, --comms NAMES    only the samples of these thread names\n"
"    --pid PIDS           only those of these processes\n"
"    --tid TIDS           only those of these threads\n"
"    --time RANGES        only those in START,STOP (seconds, as the report\n"
"                         prints times; either may be left out), ranges\n"
"                         separated by spaces: --time '5678.1,5678.2 5679,'\n"
"    -d, --dsos DSOS      text: the entries of these shared objects only\n"
"    -S, --symbols NAMES  text: the entries of these functions only\n"
"  Lists are separated by commas.\n"
"\n"
"TIMES\n"
"    Record times are CLOCK_MONOTONIC seconds (comparable with\n"
"    clock_gettime(CLOCK_MONOTONIC) and with perf's default clock on\n"
"    most systems). Process states are the kernel's letters: R running\n"
"    (R+ preempted), S sleeping, D uninterruptible, T stopped, t traced,\n"
"    X dead, Z zombie, P parked, I idle.\n"
"\n"
"EXAMPLES\n"
"    pmuctx report -i fr.pmu\n"
"    pmuctx report -i fr.pmu --format perf-script > fr.txt\n"
"    pmuctx report -i fr.pmu --format json | jq '.tasks[0]'\n"
"    pmuctx report -i prof.pmu --format folded | flamegraph.pl > fg.svg\n"
"    pmuctx report -i prof.pmu --format pprof -o prof.pb.gz\n"
"    go tool pprof -top prof.pb.gz\n"
"    pmuctx report -i prof.pmu --sort pid,sym --no-children\n"
"    pmuctx report -i prof.pmu --comms gzip -g caller --percent-limit 1\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 when the file cannot be read or is not a valid\n"
"    recording, 2 on a usage error.\n"
"\n"
"SEE ALSO\n"
"    pmuctx record --help, pmuctx snapshot --help, perf-script(1),\n"
"    perf-report(1)\n";

static void write_report(struct report *R, const struct report_args *a,
			 const struct pmuctx_rec_header **all, size_t n,
			 bool samples, struct prof *prof)
{
	if (a->po.stitch_stats && !a->have_fmt) {
		prof_write_stitch_stats(prof, R->out);
		return;
	}
	switch (R->fmt) {
	case FMT_FOLDED:
		if (prof_write_folded(prof, a->po.weight, R->out))
			fprintf(stderr, "pmuctx report: out of memory\n");
		break;
	case FMT_PPROF:
		if (prof_write_pprof(prof, a->po.weight, R->out))
			fprintf(stderr, "pmuctx report: cannot encode the "
				"pprof profile\n");
		break;
	case FMT_TEXT:
		report_text(R, a, samples, prof);
		break;
	case FMT_JSON:
		report_json(R, a->path);
		break;
	case FMT_PERF:
		report_perf_script(R, all, n);
		break;
	}
	if (a->po.stitch_stats)
		prof_write_stitch_stats(prof, stderr);
}

/* flush and close the output: 0, or EXIT_RUNTIME (printed) */
static int close_output(struct report *R, FILE *out_file, const char *name)
{
	int ret = 0;

	if (fflush(R->out) || ferror(R->out)) {
		fprintf(stderr, "pmuctx report: cannot write the output: "
			"%s\n", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	if (out_file && fclose(out_file)) {
		fprintf(stderr, "pmuctx report: cannot write %s: %s\n",
			name, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;
}

static int report_run(int argc, char **argv)
{
	struct report_args a = { .path = "pmuctx.data",
				 .po = { .weight = PROF_WEIGHT_PERIOD } };
	struct report R = { .fmt = FMT_TEXT, .out = stdout };
	const struct pmuctx_rec_header **all = NULL;
	struct pmf_reader *r = NULL;
	struct prof *prof = NULL;
	FILE *out_file = NULL;
	size_t n = 0, k;
	bool samples;
	int ret;

	ret = report_parse_opts(argc, argv, &R, &a);
	if (ret) {
		report_args_free(&a);
		return ret < 0 ? 0 : ret;	/* -1: --help */
	}
	R.filter = a.have_filter ? &a.filter : NULL;
	R.weight = a.po.weight;
	if (report_read(&R, a.path, a.flags, CMD, &r))
		return EXIT_RUNTIME;

	/* names first seen, then sums over the distinct records */
	ret = EXIT_RUNTIME;
	all = report_merged(r, &n);
	if (!all || report_first_comms(&R, all, n)) {
		fprintf(stderr, "pmuctx report: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++)
		report_account(&R, all[k], true);
	samples = report_has_samples(all, n);
	R.samples = samples;
	if (report_profile(&R, &a, all, n, samples, &prof))
		goto out;
	if (a.po.output) {
		out_file = fopen(a.po.output, "we");
		if (!out_file) {
			fprintf(stderr, "pmuctx report: cannot create %s: "
				"%s\n", a.po.output, strerror(errno));
			goto out;
		}
		R.out = out_file;
	}
	write_report(&R, &a, all, n, samples, prof);
	ret = close_output(&R, out_file, a.po.output);
	out_file = NULL;
out:
	if (out_file)
		fclose(out_file);
	prof_free(prof);
	free(all);
	free(R.tasks);
	pmf_free(r);
	report_args_free(&a);
	return ret;
}

const struct cmd cmd_report = {
	.name = "report",
	.summary = "print a recording made by pmuctx record",
	.help = report_help,
	.run = report_run,
};
