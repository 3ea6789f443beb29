// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx annotate: perf annotate for a recording of pmuctx record: the
 * instructions of a function, each with its share of the function's self
 * samples.  The profile is report's (report/profile.c: the file read,
 * build-ids checked, samples stitched and named); the functions' samples
 * by address, ELF addresses and objdump are annotate.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "report/profile.h"
#include "report/records.h"

#define ANN_CMD "annotate"

static const char annotate_help[] =
"NAME\n"
"    pmuctx annotate - the instructions of a recording's hottest functions\n"
"\n"
"SYNOPSIS\n"
"    pmuctx annotate [-i FILE] [-s NAME]... [-k VMLINUX] [--kallsyms FILE]\n"
"                    [--weight period|raw-period|samples] [--hot PCT]\n"
"                    [--objdump PATH] [-M STYLE] [--partial] [NAME...]\n"
"\n"
"DESCRIPTION\n"
"    Reads FILE (a sampling recording of pmuctx record) as pmuctx report\n"
"    does: the samples stitched and named with the memory maps stored in\n"
"    FILE and the ELF files they name, kernel addresses with\n"
"    /proc/kallsyms. Then, as perf annotate --stdio, for each function\n"
"    chosen it prints a header line: the function, [.] user or [k] kernel,\n"
"    its file, its self samples (the samples taken in it, the innermost\n"
"    frame), their weight and share of the profile; then its disassembly\n"
"    (objdump -d --no-show-raw-insn --start-address --stop-address, ELF\n"
"    addresses, as objdump and addr2line take them), each instruction\n"
"    with its share of the function's self weight in percent:\n"
"\n"
"        # burn_loop [.] in /usr/bin/burn: 100 samples, 100.000 ms of CPU\n"
"          time (weight: period), 81.97 % of the profile\n"
"         Percent |  Disassembly of burn_loop in /usr/bin/burn (0x1139-...)\n"
"        ---------------------------------------------------------------\n"
"             0.00 : 1139:  xor    %eax,%eax\n"
"        *   60.00 : 113b:  add    $0x1,%eax\n"
"\n"
"    The shares of a function add up to 100 % (samples at an address\n"
"    objdump lists no instruction at are counted on a line of their own).\n"
"    An instruction with at least --hot percent is marked with '*'.\n"
"\n"
"    Without NAME the functions are the hottest user one and the hottest\n"
"    kernel one (by self weight). With NAME, every function of that name\n"
"    with samples (one per file), hottest first.\n"
"\n"
"    The files are the ones the recording mapped: a file whose build-id\n"
"    changed since the recording, or that is gone, is named on standard\n"
"    error and not read (its samples have no function), as in pmuctx\n"
"    report. A kernel function is disassembled only with -k VMLINUX (the\n"
"    recorded kernel's, with its symbols: the function is found there by\n"
"    name); without it, or for a module's function, its samples are\n"
"    listed by address, and a line says why. So is a function whose file\n"
"    cannot be read.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        The recording; '-' reads standard input. Default: pmuctx.data.\n"
"\n"
"    -s, --symbol NAME\n"
"        Annotate the functions named NAME (as pmuctx report names them;\n"
"        repeatable). NAME arguments after the options do the same.\n"
"\n"
"    -k, --vmlinux VMLINUX\n"
"        The kernel image with symbols (e.g. /usr/lib/debug/boot/\n"
"        vmlinux-$(uname -r)) to disassemble kernel functions from.\n"
"\n"
"    --kallsyms FILE\n"
"        Kernel symbols from FILE (the format of /proc/kallsyms, e.g. a\n"
"        copy taken on the recording machine) instead of /proc/kallsyms.\n"
"\n"
"    --weight period|raw-period|samples\n"
"        What a sample weighs, as in pmuctx report: period (default: the\n"
"        ns of CPU time it stands for, capped at the sampling period),\n"
"        raw-period (as recorded) or samples (count them). The output's\n"
"        '# Weight:' line says which.\n"
"\n"
"    --hot PCT\n"
"        Mark the instructions with at least PCT percent of the function\n"
"        (0 to 100; default 5, the lines perf annotate shows in red).\n"
"\n"
"    --objdump PATH\n"
"        The objdump to run (default: objdump, from $PATH).\n"
"\n"
"    -M, --disassembler-style STYLE\n"
"        Passed to objdump -M, e.g. intel.\n"
"\n"
"    --partial\n"
"        Read a file cut short, as pmuctx report --partial.\n"
"\n"
"    --stdio\n"
"        Accepted: the output is perf annotate's stdio one.\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
"EXAMPLES\n"
"    pmuctx record -- ./burn\n"
"    pmuctx annotate\n"
"    pmuctx annotate -i prof.pmu -s burn_loop --weight samples\n"
"    pmuctx annotate -s clear_page_erms -k /usr/lib/debug/boot/vmlinux-6.1\n"
"    pmuctx annotate -M intel --hot 20 main\n"
"\n"
"EXIT STATUS\n"
"    0 on success; 1 when the file cannot be read or is not a valid\n"
"    recording, has no samples, has no function of a NAME given, or\n"
"    objdump is missing (install binutils) or fails; 2 on a usage error.\n"
"\n"
"SEE ALSO\n"
"    pmuctx report --help, pmuctx record --help, perf-annotate(1),\n"
"    objdump(1)\n";

enum {
	OPT_KALLSYMS = 256, OPT_WEIGHT, OPT_HOT, OPT_OBJDUMP, OPT_PARTIAL,
	OPT_STDIO,
};

struct ann_args {
	const char *path;
	unsigned int flags;		/* PMF_READ_* */
	struct prof_opts po;
	const char **names;		/* -s and the arguments */
	size_t nr_names;
	const char *vmlinux;
	const char *objdump;
	const char *style;
	double hot;
};

static const char *const weight_names[] = {
	[PROF_WEIGHT_SAMPLES] = "samples",
	[PROF_WEIGHT_PERIOD] = "period",
	[PROF_WEIGHT_RAW_PERIOD] = "raw-period",
};

static int add_name(struct ann_args *a, const char *name)
{
	const char **v;

	if (!*name)
		return usage_error(ANN_CMD, "an empty symbol name");
	v = realloc(a->names, (a->nr_names + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "pmuctx annotate: out of memory\n");
		return EXIT_RUNTIME;
	}
	a->names = v;
	v[a->nr_names++] = name;
	return 0;
}

/* one option: 0, or the exit status (-1 after --help) */
static int ann_opt(struct ann_args *a, int c, char **argv)
{
	unsigned int i;
	char *end;

	switch (c) {
	case 'i':
		a->path = optarg;
		return 0;
	case 's':
		return add_name(a, optarg);
	case 'k':
		a->vmlinux = optarg;
		return 0;
	case OPT_KALLSYMS:
		a->po.kallsyms = optarg;
		return 0;
	case OPT_WEIGHT:
		for (i = 0; i < sizeof(weight_names) / sizeof(*weight_names);
		     i++)
			if (!strcmp(optarg, weight_names[i])) {
				a->po.weight = (enum prof_weight)i;
				return 0;
			}
		return usage_error(ANN_CMD, "--weight '%s': expected period, "
				   "raw-period or samples", optarg);
	case OPT_HOT:
		a->hot = strtod(optarg, &end);
		if (end == optarg || *end || !(a->hot >= 0 && a->hot <= 100))
			return usage_error(ANN_CMD, "--hot '%s': expected a "
					   "percentage from 0 to 100", optarg);
		return 0;
	case OPT_OBJDUMP:
	case 'M':
		if (!*optarg)
			return usage_error(ANN_CMD, "%s needs a value",
					   argv[optind - 1]);
		*(c == 'M' ? &a->style : &a->objdump) = optarg;
		return 0;
	case OPT_PARTIAL:
		a->flags |= PMF_READ_PARTIAL;
		return 0;
	case OPT_STDIO:
		return 0;
	case 'h':
		print_cmd_help(&cmd_annotate, stdout);
		return -1;
	default:
		return option_error(ANN_CMD, c, argv);
	}
}

/* 0, or the exit status (-1 after --help) */
static int ann_parse(int argc, char **argv, struct ann_args *a)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "symbol", required_argument, NULL, 's' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "weight", required_argument, NULL, OPT_WEIGHT },
		{ "hot", required_argument, NULL, OPT_HOT },
		{ "objdump", required_argument, NULL, OPT_OBJDUMP },
		{ "disassembler-style", required_argument, NULL, 'M' },
		{ "partial", no_argument, NULL, OPT_PARTIAL },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:i:s:k:M:h", longopts,
				NULL)) != -1) {
		ret = ann_opt(a, c, argv);
		if (ret)
			return ret;
	}
	for (; optind < argc; optind++) {
		ret = add_name(a, argv[optind]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- output ------------------------------------------------------------- */

struct ann_out {
	const struct ann_args *a;
	const struct prof *p;
	FILE *f;
};

/* the header line of a function */
static void sym_header(const struct ann_out *o, const struct ann_sym *s)
{
	enum prof_weight w = o->a->po.weight;
	__u64 total = prof_total(o->p, w);

	fprintf(o->f, "# %s [%c] in %s: %" PRIu64 " sample%s", s->fr->name,
		s->fr->kernel ? 'k' : '.', s->fr->module,
		(uint64_t)s->count, s->count == 1 ? "" : "s");
	if (w == PROF_WEIGHT_SAMPLES)
		fprintf(o->f, " (weight: samples)");
	else if (!o->p->period_events)
		fprintf(o->f, ", %.3f ms of CPU time (weight: %s)",
			(double)s->weight / 1e6, weight_names[w]);
	else
		fprintf(o->f, ", %" PRIu64 " %s events (weight: %s)",
			(uint64_t)s->weight, o->p->event ? o->p->event : "?",
			weight_names[w]);
	fprintf(o->f, ", %.2f %% of the profile\n",
		total ? 100.0 * (double)s->weight / (double)total : 0.0);
}

static double pct(const struct ann_sym *s, __u64 v)
{
	return s->weight ? 100.0 * (double)v / (double)s->weight : 0.0;
}

static void row(const struct ann_out *o, const struct ann_sym *s, __u64 v,
		bool any, int width, __u64 addr, const char *text)
{
	double p = pct(s, v);

	fprintf(o->f, "%c%8.2f : %*" PRIx64 ":  %s\n",
		any && p >= o->a->hot ? '*' : ' ', p, width, (uint64_t)addr,
		text);
}

static int hex_width(__u64 v)
{
	int w = 1;

	while (v >>= 4)
		w++;
	return w;
}

/* the samples by address, without instructions; @why says why */
static void print_addresses(const struct ann_out *o, const struct ann_sym *s,
			    const char *why)
{
	__u64 top = s->fr->sym_start + s->addrs[s->nr_addrs - 1].off;
	int width = hex_width(top);
	char label[512];
	size_t i;

	fprintf(o->f, "# not disassembled: %s\n", why);
	fprintf(o->f, " Percent |  Samples of %s by address (no disassembly)"
		"\n", s->fr->name);
	for (i = 0; i < s->nr_addrs; i++) {
		const struct ann_addr *x = &s->addrs[i];

		snprintf(label, sizeof(label), "%s+0x%" PRIx64, s->fr->name,
			 (uint64_t)x->off);
		row(o, s, x->weight, x->count, width, s->fr->sym_start + x->off,
		    label);
	}
}

/* the instructions of [@r->start, @r->stop), each with its share */
static void print_insns(const struct ann_out *o, const struct ann_sym *s,
			const char *file, const struct ann_range *r,
			const struct ann_insn *in, size_t n)
{
	int width = hex_width(r->stop ? r->stop : in[n - 1].addr);
	__u64 lost_w = 0, lost_n = 0;
	size_t i, k = 0;

	fprintf(o->f, " Percent |  Disassembly of %s in %s (0x%" PRIx64
		"-0x%" PRIx64 "%s)\n", s->fr->name, file, (uint64_t)r->start,
		(uint64_t)(r->stop ? r->stop : in[n - 1].addr + 1),
		r->stop ? "" : ", size unknown: up to the last sampled "
		"instruction");
	fprintf(o->f, "%s\n", "-----------------------------------------"
		"---------------------");
	for (i = 0; i < n; i++) {
		__u64 off = in[i].addr - r->start, v = 0, c = 0;

		/* the samples up to this instruction and not at it */
		for (; k < s->nr_addrs && s->addrs[k].off < off; k++) {
			lost_w += s->addrs[k].weight;
			lost_n += s->addrs[k].count;
		}
		for (; k < s->nr_addrs && s->addrs[k].off == off; k++) {
			v += s->addrs[k].weight;
			c += s->addrs[k].count;
		}
		row(o, s, v, c, width, in[i].addr, in[i].text);
	}
	for (; k < s->nr_addrs; k++) {
		lost_w += s->addrs[k].weight;
		lost_n += s->addrs[k].count;
	}
	if (lost_n)
		fprintf(o->f, "%c%8.2f : %*s   (%" PRIu64 " sample(s) at "
			"addresses objdump listed no instruction at)\n",
			pct(s, lost_w) >= o->a->hot ? '*' : ' ',
			pct(s, lost_w), width, "?", (uint64_t)lost_n);
}

/* where @s lies in which file: 0, or 1 with the reason in @why */
static int sym_file(const struct ann_out *o, const struct ann_sym *s,
		    const char **file, struct ann_range *r, char *why,
		    size_t len)
{
	const char *mod = s->fr->module;

	*file = mod;
	if (s->fr->kernel && strcmp(mod, "[kernel.kallsyms]")) {
		snprintf(why, len, "a function of kernel module %s (its .ko "
			 "is not looked up)", mod);
		return 1;
	}
	if (s->fr->kernel && !o->a->vmlinux) {
		snprintf(why, len, "a kernel function: give -k VMLINUX (the "
			 "recorded kernel's image, with symbols)");
		return 1;
	}
	if (s->fr->kernel) {
		*file = o->a->vmlinux;
		return ann_elf_named(*file, s->fr->name, r, why, len) ? 1 : 0;
	}
	if (mod[0] != '/') {
		snprintf(why, len, "%s is not a file", mod);
		return 1;
	}
	return ann_elf_user(s, r, why, len) ? 1 : 0;
}

/*
 * one function: 0, or EXIT_RUNTIME (printed); *@stop is set when the
 * others cannot be done either (no objdump, no memory)
 */
static int annotate_sym(const struct ann_out *o, const struct ann_sym *s,
			bool *stop)
{
	struct ann_insn *in = NULL;
	struct ann_range r;
	const char *file;
	char why[1024];
	__u64 end;
	size_t n = 0;
	int e;

	sym_header(o, s);
	if (sym_file(o, s, &file, &r, why, sizeof(why))) {
		print_addresses(o, s, why);
		return 0;
	}
	if (r.nr_named > 1)
		fprintf(o->f, "# %u functions named %s in %s: the first\n",
			r.nr_named, s->fr->name, file);
	/* size unknown: up to the last sampled instruction */
	end = r.stop ? r.stop : r.start + s->addrs[s->nr_addrs - 1].off + 1;
	e = ann_objdump(o->a->objdump, o->a->style, file, r.start, end, &in,
			&n);
	*stop = e == -ENOENT || e == -ENOMEM;
	if (e == -ENOENT) {
		fprintf(stderr, "pmuctx annotate: %s not found: install "
			"binutils (apt-get install binutils, dnf install "
			"binutils), or give --objdump PATH\n", o->a->objdump);
		return EXIT_RUNTIME;
	}
	if (e == -ENOMEM) {
		fprintf(stderr, "pmuctx annotate: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (e || !n) {
		snprintf(why, sizeof(why), "%s %s of %s (0x%" PRIx64 ")",
			 o->a->objdump, e ? "failed" : "listed no instruction",
			 file, (uint64_t)r.start);
		print_addresses(o, s, why);
		fprintf(stderr, "pmuctx annotate: %s\n", why);
		return EXIT_RUNTIME;
	}
	print_insns(o, s, file, &r, in, n);
	ann_insns_free(in, n);
	return 0;
}

/* the functions -s names, or the hottest user and kernel ones */
static int choose(const struct ann_args *a, const struct ann_syms *S,
		  const struct ann_sym ***out, size_t *nr)
{
	const struct ann_sym **c = calloc(S->n ? S->n : 1, sizeof(*c));
	const struct ann_sym *v = S->v;
	bool user = false, kernel = false;
	size_t i, k;

	if (!c)
		return -ENOMEM;
	*nr = 0;
	for (i = 0; i < S->n; i++) {
		const struct prof_frame *fr = v[i].fr;

		if (!a->nr_names) {
			if (fr->kernel ? kernel : user)
				continue;
			*(fr->kernel ? &kernel : &user) = true;
			c[(*nr)++] = &v[i];
			continue;
		}
		for (k = 0; k < a->nr_names; k++)
			if (!strcmp(a->names[k], fr->name)) {
				c[(*nr)++] = &v[i];
				break;
			}
	}
	*out = c;
	return 0;
}

/* the names given that no function has */
static int check_names(const struct ann_args *a, const struct ann_syms *S)
{
	size_t i, k;

	for (k = 0; k < a->nr_names; k++) {
		for (i = 0; i < S->n && strcmp(S->v[i].fr->name, a->names[k]);
		     i++)
			;
		if (i < S->n)
			continue;
		fprintf(stderr, "pmuctx annotate: no samples in a function "
			"named '%s' in %s%s (pmuctx report -i %s --no-children "
			"lists those with samples)\n", a->names[k], a->path,
			S->unnamed ? ", or it is in a frame without a name" :
			"",
			a->path);
		return EXIT_RUNTIME;
	}
	return 0;
}

static int annotate_syms(const struct ann_args *a, const struct prof *p)
{
	struct ann_out o = { .a = a, .p = p, .f = stdout };
	const struct ann_sym **c = NULL;
	struct ann_syms S = { 0 };
	size_t nc = 0, i;
	int ret = EXIT_RUNTIME;
	bool stop = false;

	if (ann_collect(p, a->po.weight, &S) || choose(a, &S, &c, &nc)) {
		fprintf(stderr, "pmuctx annotate: out of memory\n");
		goto out;
	}
	if (check_names(a, &S))
		goto out;
	if (!nc) {
		fprintf(stderr, "pmuctx annotate: no samples in a named "
			"function in %s (%" PRIu64 " in frames without a "
			"name: see pmuctx report)\n", a->path,
			(uint64_t)S.unnamed);
		goto out;
	}
	fprintf(o.f, "# pmuctx annotate of %s: %" PRIu64 " samples of event "
		"'%s'\n", a->path, (uint64_t)p->total_count,
		p->event ? p->event : "cpu-clock");
	fprintf(o.f, "# Weight: %s\n", prof_weight_desc(p, a->po.weight));
	ret = 0;
	for (i = 0; i < nc && !stop; i++) {
		fputc('\n', o.f);
		if (annotate_sym(&o, c[i], &stop))
			ret = EXIT_RUNTIME;
	}
out:
	free(c);
	ann_syms_free(&S);
	return ret;
}

/* the file's profile; 0, or the exit status (printed) */
static int annotate_run(int argc, char **argv)
{
	struct ann_args a = { .path = "pmuctx.data", .objdump = "objdump",
			      .hot = 5,
			      .po = { .weight = PROF_WEIGHT_PERIOD } };
	struct report R = { .fmt = FMT_TEXT, .out = stdout };
	const struct pmuctx_rec_header **all = NULL;
	struct pmf_reader *r = NULL;
	struct prof *prof = NULL;
	size_t n = 0;
	int ret;

	ret = ann_parse(argc, argv, &a);
	if (ret) {
		free(a.names);
		return ret < 0 ? 0 : ret;	/* -1: --help */
	}
	ret = EXIT_RUNTIME;
	if (report_read(&R, a.path, a.flags, ANN_CMD, &r))
		goto out;
	R.weight = a.po.weight;
	all = report_merged(r, &n);
	if (!all) {
		fprintf(stderr, "pmuctx annotate: out of memory\n");
		goto out;
	}
	if (!report_has_samples(all, n)) {
		fprintf(stderr, "pmuctx annotate: %s has no samples (%s)\n",
			a.path, R.info->sample_freq ? "no monitored task ran "
			"while sampled" : "recorded without sampling");
		goto out;
	}
	if (report_profile_for(&R, &a.po, all, n, ANN_CMD, &prof))
		goto out;
	ret = annotate_syms(&a, prof);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmuctx annotate: cannot write the output: "
			"%s\n", strerror(errno));
		ret = EXIT_RUNTIME;
	}
out:
	prof_free(prof);
	free(all);
	pmf_free(r);
	free(a.names);
	return ret;
}

const struct cmd cmd_annotate = {
	.name = ANN_CMD,
	.summary = "the instructions of a recording's hottest functions",
	.help = annotate_help,
	.run = annotate_run,
};
