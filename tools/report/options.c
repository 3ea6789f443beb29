// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report: the options, checked, into struct report_args.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/options.h"

/* the long options without a short one */
enum {
	OPT_FORMAT = 256, OPT_PARTIAL, OPT_SUMMARY, OPT_WEIGHT,
	OPT_STITCH_STATS, OPT_KALLSYMS, OPT_CHILDREN, OPT_NO_CHILDREN,
	OPT_PERCENT_LIMIT, OPT_PERCENTAGE, OPT_PID, OPT_TID, OPT_TIME,
	OPT_STDIO,
};

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

/*
 * @arg split at commas, each string malloc'd, appended to the
 * NULL-terminated *@v: 0, or -ENOMEM / -EINVAL (an empty list)
 */
static int split_list(const char *arg, char ***v, size_t *nr)
{
	const char *p = arg, *e;
	char **nv;

	do {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		if (e == p)
			return -EINVAL;
		nv = realloc(*v, (*nr + 2) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		nv[*nr] = strndup(p, (size_t)(e - p));
		if (!nv[*nr])
			return -ENOMEM;
		nv[++*nr] = NULL;
		p = e + 1;
	} while (*e);
	return 0;
}

/* --pid, --tid: a list of ids appended to *@v */
static int split_ids(const char *arg, __s32 **v, size_t *nr)
{
	char **s = NULL;
	size_t n = 0, i;
	int err = split_list(arg, &s, &n);
	unsigned long long x;
	__s32 *nv;

	if (!err) {
		nv = realloc(*v, (*nr + n) * sizeof(*nv));
		if (!nv)
			err = -ENOMEM;
		else
			*v = nv;
	}
	for (i = 0; !err && i < n; i++) {
		if (!parse_uint(s[i], 0x7fffffff, &x))
			err = -EINVAL;
		else
			(*v)[(*nr)++] = (__s32)x;
	}
	for (i = 0; i < n; i++)
		free(s[i]);
	free(s);
	return err;
}

/* "SEC[.FRACTION]" in ns, up to 9 decimals; false if it is not */
static bool parse_time(const char *s, const char *end, __u64 *ns)
{
	__u64 sec = 0, frac = 0, scale = 1000000000ULL;
	const char *p = s;

	if (p == end)
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (sec > 100000000000ULL)
			return false;
		sec = sec * 10 + (__u64)(*p - '0');
	}
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				return false;
			scale /= 10;
			frac += (__u64)(*p - '0') * scale;
		}
	}
	if (p != end || (p > s && p[-1] == '.' && p - 1 == s))
		return false;
	*ns = sec * 1000000000ULL + frac;
	return true;
}

/* --time "START,STOP [START,STOP...]", as perf report takes it */
static int parse_times(const char *arg, struct prof_range **v, size_t *nr)
{
	const char *p = arg;

	while (*p) {
		const char *e, *comma;
		struct prof_range r = { 0, 0 }, *nv;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		e = strchr(p, ' ');
		if (!e)
			e = p + strlen(p);
		comma = memchr(p, ',', (size_t)(e - p));
		if (!comma || (comma > p && !parse_time(p, comma, &r.start)) ||
		    (comma + 1 < e && !parse_time(comma + 1, e, &r.end)) ||
		    (r.end && r.end < r.start))
			return -EINVAL;
		nv = realloc(*v, (*nr + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		nv[(*nr)++] = r;
		p = e;
	}
	return *nr ? 0 : -EINVAL;
}

/* a percentage, 0 to 100 ("0.5", "1%") */
static bool parse_pct(const char *s, double *v)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || !(d >= 0 && d <= 100))
		return false;
	*v = d;
	return true;
}

/* -g [graph|fractal|folded|none][,THRESHOLD][,caller|callee] */
static int parse_graph(const char *arg, struct prof_text_opts *o)
{
	char buf[128], *tok, *save = NULL;

	o->graph = PROF_GRAPH_GRAPH;
	if (!arg)
		return 0;
	o->caller_set = strstr(arg, "caller") || strstr(arg, "callee");
	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "graph"))
			o->graph = PROF_GRAPH_GRAPH;
		else if (!strcmp(tok, "fractal"))
			o->graph = PROF_GRAPH_FRACTAL;
		else if (!strcmp(tok, "folded"))
			o->graph = PROF_GRAPH_FOLDED;
		else if (!strcmp(tok, "none"))
			o->graph = PROF_GRAPH_NONE;
		else if (!strcmp(tok, "caller") || !strcmp(tok, "callee"))
			o->caller = !strcmp(tok, "caller");
		/* "function": perf's sort key of the graph, the only one */
		else if (strcmp(tok, "function") &&
			 !parse_pct(tok, &o->graph_threshold))
			return -EINVAL;
	}
	return 0;
}

/* the options of the profile: table (--sort ... -g) and filters */
static int profile_opt(struct report_args *a, int c, char **argv)
{
	struct report_lists *l = &a->lists;
	struct prof_text_opts *t = &a->table;
	char err[256];
	int e = 0;

	switch (c) {
	case 's':
		if (prof_parse_sort(optarg, t, err, sizeof(err)))
			return usage_error(CMD, "%s", err);
		a->table_opt = "--sort";
		return 0;
	case OPT_CHILDREN:
	case OPT_NO_CHILDREN:
		t->children = c == OPT_CHILDREN;
		a->table_opt = c == OPT_CHILDREN ? "--children" :
			       "--no-children";
		return 0;
	case OPT_PERCENT_LIMIT:
		if (!parse_pct(optarg, &t->percent_limit))
			return usage_error(CMD, "--percent-limit '%s': "
					   "expected a percentage from 0 to "
					   "100, e.g. 1 or 0.5", optarg);
		a->table_opt = "--percent-limit";
		return 0;
	case OPT_PERCENTAGE:
		if (strcmp(optarg, "relative") && strcmp(optarg, "absolute"))
			return usage_error(CMD, "--percentage '%s': expected "
					   "relative or absolute", optarg);
		t->absolute = !strcmp(optarg, "absolute");
		a->table_opt = "--percentage";
		return 0;
	case 'g':
		if (parse_graph(optarg, t))
			return usage_error(CMD, "--call-graph '%s': expected "
				"graph, fractal, folded or none, a threshold "
				"in %% and caller or callee, separated by "
				"commas (e.g. -g caller, -g graph,0.5,callee)",
				optarg);
		a->table_opt = "-g";
		return 0;
	case 'G':
		t->caller = true;
		t->caller_set = true;
		if (t->graph == PROF_GRAPH_NONE)
			t->graph = PROF_GRAPH_GRAPH;
		a->table_opt = "-G";
		return 0;
	case 'd':
		e = split_list(optarg, &l->dsos, &t->nr_dsos);
		t->dsos = (const char *const *)l->dsos;
		a->table_opt = "--dsos";
		break;
	case 'S':
		e = split_list(optarg, &l->syms, &t->nr_syms);
		t->syms = (const char *const *)l->syms;
		a->table_opt = "--symbols";
		break;
	case 'c':
		e = split_list(optarg, &l->comms, &a->filter.nr_comms);
		a->filter.comms = (const char *const *)l->comms;
		a->have_filter = true;
		break;
	case OPT_PID:
	case OPT_TID:
		e = c == OPT_PID ? split_ids(optarg, &l->pids,
					     &a->filter.nr_pids) :
				   split_ids(optarg, &l->tids,
					     &a->filter.nr_tids);
		a->filter.pids = l->pids;
		a->filter.tids = l->tids;
		a->have_filter = true;
		if (e == -EINVAL)
			return usage_error(CMD, "--%s '%s': expected ids "
					   "separated by commas, e.g. 1234,"
					   "1240", c == OPT_PID ? "pid" :
					   "tid", optarg);
		break;
	case OPT_TIME:
		e = parse_times(optarg, &l->times, &a->filter.nr_times);
		a->filter.times = l->times;
		a->have_filter = true;
		if (e == -EINVAL)
			return usage_error(CMD, "--time '%s': expected START,"
					   "STOP in seconds as report prints "
					   "times (e.g. 5678.1,5678.25; either "
					   "may be left out), ranges separated "
					   "by spaces", optarg);
		break;
	case OPT_STDIO:
		return 0;	/* the text report is perf's stdio one */
	default:
		return option_error(CMD, c, argv);
	}
	if (e == -ENOMEM) {
		fprintf(stderr, "pmuctx report: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (e)
		return usage_error(CMD, "--%s '%s': an empty name (names "
				   "separated by commas)", c == 'c' ? "comms" :
				   c == 'd' ? "dsos" : "symbols", optarg);
	return 0;
}

/* the table options need the table; the filters, a profile */
static int check_scope(const struct report *R, const struct report_args *a)
{
	if (a->table_opt && R->fmt != FMT_TEXT)
		return usage_error(CMD, "%s shapes the profile table of "
				   "--format text, not --format %s",
				   a->table_opt, R->fmt == FMT_JSON ? "json" :
				   R->fmt == FMT_PERF ? "perf-script" :
				   R->fmt == FMT_FOLDED ? "folded" : "pprof");
	if (a->have_filter && R->fmt == FMT_JSON)
		return usage_error(CMD, "--comms, --pid, --tid and --time "
				   "select samples: --format text, folded, "
				   "pprof or perf-script");
	return 0;
}

void report_args_free(struct report_args *a)
{
	struct report_lists *l = &a->lists;
	char **lists[] = { l->comms, l->dsos, l->syms };
	size_t i, k;

	for (k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
		for (i = 0; lists[k] && lists[k][i]; i++)
			free(lists[k][i]);
		free(lists[k]);
	}
	free(l->pids);
	free(l->tids);
	free(l->times);
	memset(l, 0, sizeof(*l));
}

/* one option: 0, or the exit status (-1 after --help) */
static int report_opt(struct report *R, struct report_args *a, int c,
		      char **argv)
{
	switch (c) {
	case 'i':
		a->path = optarg;
		return 0;
	case OPT_FORMAT:
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
	case OPT_WEIGHT:
		if (!strcmp(optarg, "samples"))
			a->po.weight = PROF_WEIGHT_SAMPLES;
		else if (!strcmp(optarg, "period"))
			a->po.weight = PROF_WEIGHT_PERIOD;
		else if (!strcmp(optarg, "raw-period"))
			a->po.weight = PROF_WEIGHT_RAW_PERIOD;
		else
			return usage_error(CMD, "--weight '%s': expected "
					   "period, raw-period or samples",
					   optarg);
		return 0;
	case OPT_STITCH_STATS:
		a->po.stitch_stats = true;
		return 0;
	case OPT_KALLSYMS:
		a->po.kallsyms = optarg;
		return 0;
	case OPT_PARTIAL:
		a->flags |= PMF_READ_PARTIAL;
		return 0;
	case OPT_SUMMARY:
		a->summary = true;
		return 0;
	case 'h':
		print_cmd_help(&cmd_report, stdout);
		return -1;
	default:
		return profile_opt(a, c, argv);
	}
}

/* 0, or the exit status (-1 after --help) */
int report_parse_opts(int argc, char **argv, struct report *R,
		      struct report_args *a)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "partial", no_argument, NULL, OPT_PARTIAL },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "output", required_argument, NULL, 'o' },
		{ "weight", required_argument, NULL, OPT_WEIGHT },
		{ "stitch-stats", no_argument, NULL, OPT_STITCH_STATS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "sort", required_argument, NULL, 's' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "comms", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "dsos", required_argument, NULL, 'd' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	prof_text_defaults(&a->table);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:i:o:hs:g::Gc:d:S:", longopts,
				NULL)) != -1) {
		/* -g caller: perf takes the word after -g as its value */
		if (c == 'g' && !optarg && optind < argc &&
		    argv[optind][0] != '-')
			optarg = argv[optind++];
		ret = report_opt(R, a, c, argv);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error(CMD, "unexpected argument '%s' (the file "
				   "goes after -i)", argv[optind]);
	a->table.weight = a->po.weight;
	/* perf: caller order with --children, callee without */
	if (!a->table.caller_set)
		a->table.caller = a->table.children;
	ret = check_scope(R, a);
	if (ret)
		return ret;
	if (R->fmt == FMT_PPROF && !a->po.output && isatty(1))
		return usage_error(CMD, "--format pprof writes a binary "
				   "(gzip'd protobuf): give -o FILE, e.g. "
				   "-o prof.pb.gz");
	return 0;
}
