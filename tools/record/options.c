// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: the options, --buffer-size, --records and --trigger, and
 * the event list with the trigger's event.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "pmfile.h"
#include "record/options.h"

enum {
	OPT_OVERWRITE = OPT_TARGET_END,
	OPT_BUFFER_SIZE,
	OPT_SWITCH_EVENTS,
	OPT_RECORDS,
	OPT_TRIGGER,
	OPT_CALL_GRAPH,
	OPT_MAX_STACK,
	OPT_SAMPLE_EVENT,
	OPT_NO_SAMPLES,
	OPT_NO_BUILDID,
};

static const struct target_spec record_target = {
	.cmd = CMD,
	.cgroup = false,
	.bad_duration = "expected a number of seconds > 0",
	.nothing = "nothing to record: give a command (pmuctx record -- CMD "
		   "ARGS), -p PID or -a",
	.duration_alone = "--duration works with -p or -a; with a command, "
			  "recording lasts as long as the command",
	.duration_cmd = "--duration cannot be combined with a command",
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

/* --sample-event EVENT: an event that overflows */
static int parse_sample_event(struct record_opts *o, const char *arg)
{
	int id = pmuctx_event_spec_parse(arg, &o->sample_spec);

	if (id < 0)
		return lib_usage_error(CMD, id);
	if (id == PMUCTX_EV_TASK_CLOCK ||
	    id == PMUCTX_EV_CONTEXT_SWITCHES ||
	    id == PMUCTX_EV_CPU_MIGRATIONS)
		return usage_error(CMD, "--sample-event %s: the module counts "
				   "it at context switches, it never "
				   "overflows; sample on cycles, cpu-clock, "
				   "... or drop the option for the hrtimer",
				   arg);
	o->sample_event = (__u32)id;
	return 0;
}

/* the sampling options: 0, EXIT_USAGE (printed), -ENOENT if not one */
static int sample_opt(struct record_opts *o, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case 'F':
		if (!parse_uint(arg, 1000000, &v) || !v)
			return usage_error(CMD, "-F '%s': expected a sampling "
				"frequency in Hz (a positive integer, e.g. "
				"999)", arg);
		o->freq = (__u32)v;
		return 0;
	case 'c':
		return usage_error(CMD, "-c: sampling every N events is not "
			"supported; pmuctx samples at a frequency (hrtimer or "
			"--sample-event): use -F HZ");
	case 'g':
		if (o->call_graph == CG_NONE)
			o->call_graph = CG_DEFER;
		return 0;
	case OPT_CALL_GRAPH:
		if (!strcmp(arg, "fp")) {
			o->call_graph = CG_FP;
		} else if (!strcmp(arg, "defer")) {
			o->call_graph = CG_DEFER;
		} else if (!strcmp(arg, "dwarf")) {
			o->call_graph = CG_DWARF;
			o->dump_size = DEFAULT_DUMP;
		} else if (!strncmp(arg, "dwarf,", 6)) {
			if (!parse_uint(arg + 6, PMUCTX_USER_DUMP_MAX, &v) ||
			    !v || v % 8)
				return usage_error(CMD, "--call-graph '%s': "
					"the dump size is a multiple of 8 "
					"from 8 to %d bytes (default %d)", arg,
					PMUCTX_USER_DUMP_MAX, DEFAULT_DUMP);
			o->call_graph = CG_DWARF;
			o->dump_size = (__u32)v;
		} else {
			return usage_error(CMD, "--call-graph '%s': expected "
				"fp, defer or dwarf[,SIZE] (lbr is not "
				"supported)", arg);
		}
		return 0;
	case OPT_MAX_STACK:
		if (!parse_uint(arg, PMUCTX_MAX_STACK, &v) || !v)
			return usage_error(CMD, "--max-stack '%s': expected "
				"1..%d frames", arg, PMUCTX_MAX_STACK);
		o->max_stack = (__u32)v;
		return 0;
	case OPT_SAMPLE_EVENT:
		return parse_sample_event(o, arg);
	case 'n':
	case OPT_NO_SAMPLES:
		o->no_samples = true;
		return 0;
	case 'B':
	case OPT_NO_BUILDID:
		o->no_buildid = true;
		return 0;
	default:
		return -ENOENT;
	}
}

/* the file and buffer options: 0, EXIT_USAGE (printed), -ENOENT */
static int file_opt(struct record_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'o':
		if (!*arg)
			return usage_error(CMD, "-o needs a file name");
		if (!strcmp(arg, "-"))
			return usage_error(CMD, "-o -: the file's sections are "
					   "completed in place at the end, so "
					   "it cannot be standard output; give "
					   "a file name (./- for a file named "
					   "'-')");
		o->output = arg;
		return 0;
	case OPT_OVERWRITE:
		o->overwrite = true;
		return 0;
	case OPT_BUFFER_SIZE:
		o->have_buffer = true;
		if (record_parse_size(arg, &o->buffer_size))
			return usage_error(CMD, "--buffer-size '%s': expected "
				"a size such as 256K, 4M or 1048576", arg);
		return 0;
	case OPT_SWITCH_EVENTS:
		o->switch_events = true;
		return 0;
	case OPT_RECORDS:
		if (record_parse_mask(arg, &o->records))
			return usage_error(CMD, "--records '%s': expected a "
				"comma-separated list of switch, fork, exec, "
				"exit, comm or all", arg);
		o->have_records = true;
		return 0;
	case OPT_TRIGGER:
		o->trigger = arg;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	default:
		return -ENOENT;
	}
}

/* a number in the file @path, or -1 */
static long long read_limit(const char *path)
{
	unsigned long long v;
	char line[32], *end;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	v = strtoull(line, &end, 10);
	return end == line || v > INT32_MAX ? -1 : (long long)v;
}

/*
 * The frequency of a recording without -F: perf's default, 4000 Hz, or
 * less when the module's max_sample_freq or kernel.perf_event_max_sample_
 * rate (which the module applies to callers without CAP_PERFMON, and
 * the kernel lowers when sampling interrupts take long) is lower: perf
 * lowers its default to the latter the same way, and says so.  0 (no
 * sampling) when the module allows none.
 */
static __u32 default_freq(bool quiet)
{
	const char *mod = diag_paths.max_sample_freq ?
			  diag_paths.max_sample_freq : MAX_SAMPLE_FREQ_PARAM;
	const char *perf = diag_paths.max_sample_rate ?
			   diag_paths.max_sample_rate : MAX_SAMPLE_RATE_SYSCTL;
	long long m = read_limit(mod), r = read_limit(perf);
	const char *why = NULL, *where = NULL;
	long long freq = DEFAULT_FREQ;

	if (m >= 0 && m < freq) {
		freq = m;
		why = "the module's max_sample_freq";
		where = mod;
	}
	if (r > 0 && r < freq) {
		freq = r;
		why = "kernel.perf_event_max_sample_rate";
		where = perf;
	}
	if (!why || quiet)
		return (__u32)freq;
	if (freq)
		fprintf(stderr, "pmuctx record: note: sampling at %lld Hz, %s "
			"(%s), not the default %d Hz\n", freq, why, where,
			DEFAULT_FREQ);
	else
		fprintf(stderr, "pmuctx record: note: no sampling: %s (%s) "
			"is 0\n", why, where);
	return (__u32)freq;
}

/* what the options imply, and what they cannot do together */
static int check_opts(struct record_opts *o)
{
	int ret = target_check(&record_target, &o->t);

	if (ret)
		return ret;
	/* the switch record of the slice that fires it names it (report) */
	if (o->trigger) {
		o->overwrite = true;
		o->switch_events = true;
	}
	if (o->no_samples) {
		if (o->freq || o->call_graph || o->sample_event ||
		    o->max_stack)
			return usage_error(CMD, "--no-samples records without "
					   "sampling: it cannot be combined "
					   "with -F, -g, --call-graph, "
					   "--sample-event or --max-stack");
	} else if (!o->freq) {
		o->freq = default_freq(o->quiet);
		/* nothing asked for sampling: it may fall back to none */
		o->freq_default = !o->call_graph && !o->sample_event;
	}
	if (o->call_graph == CG_DWARF && !o->have_buffer &&
	    o->buffer_size < DWARF_BUFFER)
		o->buffer_size = DWARF_BUFFER;
	if (o->max_stack && !o->call_graph)
		return usage_error(CMD, "--max-stack applies to callchains: "
				   "add -g");
	return 0;
}

int record_parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "records", required_argument, NULL, OPT_RECORDS },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		TARGET_LONGOPTS,
		{ "quiet", no_argument, NULL, 'q' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "sample-event", required_argument, NULL, OPT_SAMPLE_EVENT },
		{ "no-samples", no_argument, NULL, OPT_NO_SAMPLES },
		{ "no-buildid", no_argument, NULL, OPT_NO_BUILDID },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:e:ap:qF:c:gnBh", longopts,
				NULL)) != -1) {
		if (c == 'h') {
			print_cmd_help(&cmd_record, stdout);
			return -1;
		}
		ret = file_opt(o, c, optarg);
		if (ret == -ENOENT)
			ret = sample_opt(o, c, optarg);
		if (ret == -ENOENT)
			ret = target_opt(&record_target, &o->t, c, optarg);
		if (ret == -ENOENT)
			return option_error(CMD, c, argv);
		if (ret)
			return ret;
	}
	target_args(&o->t, argc, argv);
	return check_opts(o);
}

int record_events(struct record_opts *o, struct record_events *ev)
{
	char why[512];
	int trig_id = 0, i;

	ev->trig_idx = -1;
	ev->threshold = 0;
	if (o->trigger &&
	    record_parse_trigger(o->trigger, &trig_id, &ev->threshold, why,
				 sizeof(why))) {
		free(o->t.events);
		o->t.events = NULL;
		return usage_error(CMD, "--trigger '%s': %s", o->trigger, why);
	}
	ev->nr = parse_events(&o->t.events, DEFAULT_EVENTS, ev->ids);
	if (ev->nr < 0)
		return lib_usage_error(CMD, ev->nr);
	if (!o->trigger)
		return 0;
	for (i = 0; i < ev->nr; i++)
		if (ev->ids[i] == trig_id)
			ev->trig_idx = i;
	if (ev->trig_idx >= 0)
		return 0;
	if (ev->nr == PMUCTX_MAX_EVENTS)
		return usage_error(CMD, "--trigger: %s is not among the %d "
				   "events of -e and there is no room to add "
				   "it", pmuctx_event_name(trig_id), ev->nr);
	ev->ids[ev->nr] = trig_id;
	ev->trig_idx = ev->nr++;
	return 0;
}
