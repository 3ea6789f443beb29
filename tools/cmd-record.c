// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: stream the ring buffers of a session to a file (normal
 * mode), or keep them in memory as a flight recorder and write a window
 * on request, on a kernel trigger and at the end (--overwrite).  The
 * session samples (SAMPLE records, with -g USER_CALLCHAIN records too;
 * not with --no-samples) and the memory maps of the processes go into
 * the file too (tools/profile).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmfile.h"
#include "profile/profile.h"
#include "record/loop.h"
#include "record/names.h"
#include "record/options.h"
#include "record/session.h"
#include "record/windows.h"
#include "record/writer.h"

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
"             [--no-inherit] [-q] [-F HZ | -n] [-g]\n"
"             [--call-graph fp|defer|dwarf[,SIZE]]\n"
"             [--max-stack N] [--sample-event EVENT] [-B]\n"
"\n"
"DESCRIPTION\n"
"    The pmuctx kernel module writes a record into a per-CPU ring buffer\n"
"    whenever a monitored task forks, execs, exits, is first seen (its\n"
"    command name) and, with --switch-events, at every context switch\n"
"    (with what the task counted during its time slice, for each event of\n"
"    -e). pmuctx record maps those buffers and writes their records to FILE\n"
"    (pmuctx report reads it; docs/FILE-FORMAT.md describes it).\n"
"\n"
"    The tasks are also sampled, as perf record samples them: HZ times a\n"
"    second (-F; default 4000, perf's, or the module's max_sample_freq or\n"
"    kernel.perf_event_max_sample_rate if lower) on each CPU where one of\n"
"    them runs, the kernel writes a SAMPLE record with the interrupted IP\n"
"    and the CPU time it stands for and, with -g, the kernel callchain and\n"
"    the user callchain (frame pointers); without -g no callchains, as\n"
"    perf. --no-samples records the task records alone. With -g\n"
"    (--call-graph defer) the user stack is walked once, when the task\n"
"    returns to user space, and shared by every sample taken since it\n"
"    entered the kernel (a USER_CALLCHAIN record); pmuctx report joins\n"
"    them. Programs built without frame\n"
"    pointers (most distribution binaries) need --call-graph dwarf: the\n"
"    kernel then also copies the user registers and the top of the user\n"
"    stack at that return (a USER_STACK record), and pmuctx report unwinds\n"
"    it with the programs' CFI (elfutils' libdwfl), like perf's dwarf mode.\n"
"    The memory maps of the processes\n"
"    (/proc/PID/maps, at the start, at every exec and when a sample falls\n"
"    outside the last one) go into FILE so that pmuctx report can name the\n"
"    functions: pmuctx report --format folded|pprof|text; so do the names\n"
"    of threads that name themselves (pthread_setname_np(), read from\n"
"    /proc/PID/task/TID/comm at their first sample).\n"
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
"    Each window's line says how many records were lost and how many the\n"
"    kernel overwrote since the previous window: a window holds only the\n"
"    newest part of each CPU's records (pmuctx report shows the span of\n"
"    each). The names of the tasks there before recording (-a, -p) are\n"
"    read from /proc before it starts and stored in the first window.\n"
"\n"
"    Like pmuctx stat, a command starts only once recording is enabled; a\n"
"    Ctrl-C reaches the command (which decides what to do), SIGTERM and\n"
"    SIGHUP are forwarded to it, and pmuctx record ends when it exits.\n"
"    With -p or -a recording lasts until Ctrl-C, SIGTERM, --duration or\n"
"    (with -p) the exit of the process. A summary goes to standard error.\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Write to FILE. Default: " DEFAULT_OUTPUT ". An existing, non-empty\n"
"        FILE is kept as FILE.old (replacing the one before), as perf record\n"
"        keeps perf.data.old. Not -o - (the file is completed in place at\n"
"        the end).\n"
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
"        Kernel trigger (implies --overwrite and --switch-events): when one\n"
"        time slice of a task\n"
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
"        module parameter max_sample_freq, 10000; without CAP_PERFMON at\n"
"        most kernel.perf_event_max_sample_rate). Default: 4000, as perf\n"
"        record, or the lower of those limits (a note says so). A module\n"
"        that does not sample (pmuctx info) records no samples unless -F,\n"
"        -g or --sample-event ask.\n"
"\n"
"    -n, --no-samples\n"
"        Do not sample (perf record -n): only the task records (fork,\n"
"        exec, exit, comm; switch with --switch-events). Not with -F, -g,\n"
"        --call-graph, --sample-event or --max-stack.\n"
"\n"
"    -B, --no-buildid\n"
"        Do not store the build-ids of the mapped files (perf record -B).\n"
"        By default the GNU build-id of each file a memory map names is read\n"
"        when the file first appears, and pmuctx report shows the samples of\n"
"        a file whose build-id changed since (rebuilt, upgraded) or that is\n"
"        gone as addresses, not with the new file's functions.\n"
"\n"
"    -g\n"
"        Record callchains: the kernel stack and the user stack of every\n"
"        sample (--call-graph defer).\n"
"\n"
"    --call-graph fp|defer|dwarf[,SIZE]\n"
"        How the user stack is walked (implies -g). defer (the default):\n"
"        with frame pointers, once, when the task returns to user space,\n"
"        with page faults allowed, shared by the samples taken in between\n"
"        (USER_CALLCHAIN records). fp: with frame pointers at every sample,\n"
"        in the interrupt, without faulting (a stack page that is not\n"
"        resident cuts it), like perf record --call-graph fp. dwarf: as\n"
"        defer, and at that same return the kernel copies the user\n"
"        registers and SIZE bytes of the user stack from the stack pointer\n"
"        up (default 8192; a multiple of 8 up to 65280, 65168 on arm64;\n"
"        less where the\n"
"        stack ends), one USER_STACK record per kernel entry shared by its\n"
"        samples; pmuctx report unwinds it with the CFI of the files\n"
"        (.eh_frame, .debug_frame) through elfutils' libdwfl, as perf\n"
"        record --call-graph dwarf does, so programs built without frame\n"
"        pointers get whole stacks. A stack deeper than SIZE bytes ends\n"
"        where the copy does. Without --buffer-size the buffer is 1 MiB\n"
"        per CPU (the module's default max_ring_pages); SIZE must fit in\n"
"        half of it.\n"
"\n"
"    --max-stack N\n"
"        Frames per callchain part (kernel, user): 1..127. Default: 64.\n"
"\n"
"    --sample-event EVENT\n"
"        Sample on overflow of EVENT's per-CPU counter instead of an\n"
"        hrtimer, with the period adjusted to reach -F HZ (perf's\n"
"        frequency mode; default as -F): cycles, instructions, branches,\n"
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
"    pmuctx record -- ./prog      # samples at 4000 Hz into pmuctx.data\n"
"    pmuctx report               # its functions, as perf report\n"
"\n"
"    pmuctx record -o trace.pmu -n --switch-events -- make -j8\n"
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

/* ---- entry ------------------------------------------------------------------- */

/*
 * The end: the command has exited (or is waited for), recording stops,
 * the last records go into the file (a window with --overwrite), the file
 * is closed.  Returns the exit status.
 */
static int record_finish(struct recorder *R)
{
	const struct record_opts *o = R->o;
	int exit_status = 0;

	record_reap(R);
	pmuctx_disable(R->h);
	if (!R->failed) {
		if (o->overwrite) {
			record_take_window(R, PMF_WIN_EXIT, 0);
		} else {
			record_drain(R);
			record_fill_stats(R);
			if (pmf_window_end(R->w, R->stats, R->nr_cpus,
					   now_ns()))
				record_file_error(R);
		}
	}
	/* MMAP snapshots whose last record was lost */
	if (!R->failed && R->mc) {
		maps_cap_flush(R->mc);
		if (pmf_writer_error(R->w)[0])
			record_file_error(R);
	}
	record_clear_progress(R);
	if (R->child)
		exit_status = R->exec_err ? exec_status(R->exec_err) :
			      wait_status(R->child_done, R->status);
	record_close_file(R, R->child ? exit_status : 0);
	if (R->exec_err)
		print_exec_error(CMD, o->t.argv[0], R->exec_err);
	if (R->failed)
		return EXIT_RUNTIME;
	return R->child ? exit_status : 0;
}

/* what is left after a recording, or after its set-up failed */
static void record_cleanup(struct recorder *R)
{
	if (R->w) {
		pmf_close(R->w, -1, NULL, 0);
		R->w = NULL;
	}
	/* set-up failed: the child exits without running */
	if (R->child && !R->child_done)
		child_abort(&R->ch);
	if (R->pidfd >= 0)
		close(R->pidfd);
	if (R->sfd >= 0) {
		record_fail_requests(R->sfd);
		close(R->sfd);
	}
	maps_cap_free(R->mc);
	record_free_names(R);
	record_free_tasks(R);
	pmuctx_ring_unmap(R->ring);
	pmuctx_close(R->h);
	free(R->prev_lost);
	free(R->prev_over);
	free(R->stats);
	free(R->cmdline);
}

/*
 * Sampling is the default, and a module that does not sample (an older
 * one: no "sampling" in pmuctx info) would refuse the session: record
 * without samples then, and say so.  -F, -g and --sample-event still ask.
 */
static void default_sampling(struct pmuctx *h, struct record_opts *o)
{
	struct pmuctx_info info;

	if (!o->freq_default || pmuctx_info(h, &info) ||
	    (info.features & PMUCTX_FEAT_SAMPLING))
		return;
	o->freq = 0;
	if (!o->quiet)
		fprintf(stderr, "pmuctx record: note: no samples: the loaded "
			"module does not sample (no 'sampling' in pmuctx "
			"info)\n");
}

static int record_run(int argc, char **argv)
{
	struct record_opts o = { .output = DEFAULT_OUTPUT,
				 .buffer_size = DEFAULT_BUFFER };
	struct recorder R = { .o = &o, .sfd = -1, .pidfd = -1,
			      .ch = { .go_fd = -1, .err_fd = -1 } };
	sigset_t mask, old;
	int ret;

	/* first of all: a SIGUSR2 must never kill the recorder */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);

	ret = record_parse_opts(argc, argv, &o);
	if (ret) {
		free(o.t.events);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return ret < 0 ? 0 : ret;	/* -1: --help */
	}
	ret = record_events(&o, &R.ev);
	if (!ret) {
		record_buffer_pages(&R);
		ret = open_device(CMD, &R.h);
	}
	if (!ret)
		default_sampling(R.h, &o);
	if (ret) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return ret;
	}

	ret = record_spawn(&R, &old);
	if (!ret)
		ret = record_open_session(&R);
	if (!ret)
		ret = record_create_file(&R);
	if (!ret)
		ret = record_start(&R, &mask);
	if (!ret) {
		record_loop(&R);
		ret = record_finish(&R);
	}
	record_cleanup(&R);
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
