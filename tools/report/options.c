// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: the options, checked, into struct report_args.
 */
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "report/options.h"

static bool parse_format(const char *s, enum fmt *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = FMT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = FMT_JSON;
	else if (!strcmp(s, "perf-script"))
		*fmt = FMT_PERF;
	else if (!strcmp(s, "folded"))
		*fmt = FMT_FOLDED;
	else if (!strcmp(s, "pprof"))
		*fmt = FMT_PPROF;
	else
		return false;
	return true;
}

/* one option: 0, or the exit status (-1 after --help) */
static int report_opt(struct report *R, struct report_args *a, int c,
		      char **argv)
{
	switch (c) {
	case 'i':
		a->path = optarg;
		return 0;
	case 'F':
		if (!parse_format(optarg, &R->fmt))
			return usage_error(CMD, "--format '%s': expected "
				"text, json, perf-script, folded or pprof",
				optarg);
		a->have_fmt = true;
		return 0;
	case 'o':
		if (!*optarg)
			return usage_error(CMD, "-o needs a file name");
		a->po.output = optarg;
		return 0;
	case 'W':
		if (!strcmp(optarg, "samples"))
			a->po.weight = PROF_WEIGHT_SAMPLES;
		else if (!strcmp(optarg, "period"))
			a->po.weight = PROF_WEIGHT_PERIOD;
		else
			return usage_error(CMD, "--weight '%s': expected "
					   "samples or period", optarg);
		return 0;
	case 'T':
		a->po.stitch_stats = true;
		return 0;
	case 'K':
		a->po.kallsyms = optarg;
		return 0;
	case 'P':
		a->flags |= PMF_READ_PARTIAL;
		return 0;
	case 'S':
		a->summary = true;
		return 0;
	case 'h':
		print_cmd_help(&cmd_report, stdout);
		return -1;
	default:
		return option_error(CMD, c, argv);
	}
}

/* 0, or the exit status (-1 after --help) */
int report_parse_opts(int argc, char **argv, struct report *R,
		      struct report_args *a)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'F' },
		{ "partial", no_argument, NULL, 'P' },
		{ "summary", no_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "weight", required_argument, NULL, 'W' },
		{ "stitch-stats", no_argument, NULL, 'T' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:i:o:h", longopts, NULL)) !=
	       -1) {
		ret = report_opt(R, a, c, argv);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error(CMD, "unexpected argument '%s' (the file "
				   "goes after -i)", argv[optind]);
	if (R->fmt == FMT_PPROF && !a->po.output && isatty(1))
		return usage_error(CMD, "--format pprof writes a binary "
				   "(gzip'd protobuf): give -o FILE, e.g. "
				   "-o prof.pb.gz");
	return 0;
}
