// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx list: the events pmuctx counts and samples, as perf list shows
 * them: the module's named events, the raw forms, and the events the
 * kernel's PMUs describe in sysfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "stat-format.h"	/* event_alias() */

static const char list_help[] =
"NAME\n"
"    pmuctx list - list the events pmuctx can count and sample\n"
"\n"
"SYNOPSIS\n"
"    pmuctx list [PATTERN]\n"
"\n"
"DESCRIPTION\n"
"    Prints, as perf list does, the events that pmuctx stat -e, pmuctx\n"
"    record -e and --sample-event take:\n"
"\n"
"    - the module's named events, with their aliases and kinds\n"
"      (software, or hardware: those need a hardware PMU);\n"
"    - the raw forms: rNNNN (a raw PMU event code, hex) and\n"
"      PMU/TERM=VALUE,.../ with the terms of the PMU's format directory;\n"
"    - the events the kernel's PMUs name in sysfs\n"
"      (/sys/bus/event_source/devices/PMU/events/NAME), usable as\n"
"      PMU/NAME/, each with the terms it stands for.\n"
"\n"
"    Every event takes perf's modifiers after a colon: u (user mode), k\n"
"    (kernel mode), h (hypervisor), combined as in cycles:uk. Without\n"
"    them an event counts the modes the caller may count: all of them\n"
"    with CAP_PERFMON or kernel.perf_event_paranoid <= 1, user mode\n"
"    only otherwise.\n"
"\n"
"    With PATTERN, only the events whose name matches it (a shell\n"
"    pattern, e.g. 'cache*'; without wildcards, the names that contain\n"
"    it) are listed.\n"
"\n"
"    A note at the end says whether this machine has a hardware PMU (the\n"
"    module's hw-pmu feature, pmuctx info); without the module loaded\n"
"    the list is printed all the same, with a note that it cannot tell.\n"
"\n"
"EXIT STATUS\n"
"    0 on success (also when PATTERN matches nothing: a note says so),\n"
"    2 on a usage error.\n"
"\n"
"ENVIRONMENT\n"
"    PMUCTX_DEVICE\n"
"        Path of the pmuctx device, instead of /dev/pmuctx.\n"
"    PMUCTX_SYSFS_ROOT\n"
"        A directory the sysfs path is read under instead of / (tests;\n"
"        ignored in set-id programs).\n"
"\n"
"EXAMPLES\n"
"    pmuctx list\n"
"    pmuctx list cache\n"
"    pmuctx list 'armv8_pmuv3/*'\n"
"\n"
"SEE ALSO\n"
"    pmuctx stat --help, pmuctx record --help, pmuctx info --help,\n"
"    perf-list(1)\n";

static const char *pattern;
static unsigned int shown;

static bool wanted(const char *name)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return !fnmatch(pattern, name, 0);
	return strstr(name, pattern) != NULL;
}

static void line(const char *name, const char *what)
{
	if (!wanted(name))
		return;
	printf("  %-50s [%s]\n", name, what);
	shown++;
}

static void list_named(void)
{
	char name[96], what[96];
	int id;

	printf("List of pre-defined events (pmuctx stat -e, pmuctx record -e, --sample-event):\n\n");
	for (id = 1; id <= PMUCTX_EV_MAX; id++) {
		const char *n = pmuctx_event_name(id);
		const char *a = event_alias(id);
		const char *u = pmuctx_event_unit(id);

		if (!n || id == PMUCTX_EV_RAW)
			continue;
		snprintf(name, sizeof(name), "%s%s%s", n, a ? " OR " : "",
			 a ? a : "");
		snprintf(what, sizeof(what), "%s%s",
			 pmuctx_event_is_hw(id) == 1 ? "Hardware event" :
			 "Software event", u && *u ? ", in ns" : "");
		if (wanted(n) || (a && wanted(a))) {
			printf("  %-50s [%s]\n", name, what);
			shown++;
		}
	}
	printf("\n");
	line("rNNNN", "Raw hardware event descriptor (hex)");
	line("PMU/TERM=VALUE,.../", "Raw event with the terms of PMU's format");
	printf("\n");
}

static int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names of @dir's entries, sorted; NULL-terminated, or NULL */
static char **sorted_entries(const char *dir)
{
	struct dirent *de;
	char **v = NULL, **nv;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strdup(de->d_name);
		if (v[n])
			n++;
	}
	closedir(d);
	if (!v)
		return NULL;
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp_names);
	return v;
}

static void free_entries(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* an events/ file that describes another: NAME.scale, NAME.unit, ... */
static bool is_attr_file(const char *name)
{
	static const char *const suffix[] = {
		".scale", ".unit", ".per-pkg", ".snapshot",
	};
	size_t i, n = strlen(name), l;

	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		l = strlen(suffix[i]);
		if (n > l && !strcmp(name + n - l, suffix[i]))
			return true;
	}
	return false;
}

static void list_sysfs(void)
{
	const char *root = secure_getenv("PMUCTX_SYSFS_ROOT");
	char base[4096], path[8192], terms[256], name[600], what[300];
	char **pmus, **evs;
	size_t i, j;
	bool head = false;

	snprintf(base, sizeof(base), "%s/sys/bus/event_source/devices",
		 root ? root : "");
	pmus = sorted_entries(base);
	for (i = 0; pmus && pmus[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s/events", base, pmus[i]);
		evs = sorted_entries(path);
		for (j = 0; evs && evs[j]; j++) {
			if (is_attr_file(evs[j]))
				continue;
			snprintf(path, sizeof(path), "%s/%s/events/%s", base,
				 pmus[i], evs[j]);
			if (read_first_line(path, terms, sizeof(terms)))
				continue;
			snprintf(name, sizeof(name), "%s/%s/", pmus[i], evs[j]);
			if (!wanted(name))
				continue;
			if (!head) {
				printf("Kernel PMU events (%s):\n\n", base);
				head = true;
			}
			snprintf(what, sizeof(what), "Kernel PMU event: %s",
				 terms);
			line(name, what);
		}
		free_entries(evs);
	}
	free_entries(pmus);
	if (head)
		printf("\n");
}

/* what the module says of the PMU: a note */
static void pmu_note(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, opts, .path = device_path());
	struct pmuctx_info info;
	struct pmuctx *h;
	int err = pmuctx_open(&h, &opts);

	if (err) {
		printf("note: cannot open the pmuctx device (%s): whether this machine has a hardware PMU is unknown (load the module: sudo modprobe pmuctx)\n",
		       strerror(-err));
		return;
	}
	err = pmuctx_info(h, &info);
	if (err)
		printf("note: the module did not answer (%s): whether this machine has a hardware PMU is unknown\n",
		       strerror(-err));
	else if (info.features & PMUCTX_FEAT_HW_PMU)
		printf("note: this machine has a hardware PMU (pmuctx info: hw-pmu)\n");
	else
		printf("note: this machine has no hardware PMU (pmuctx info): hardware, raw and PMU events cannot be counted here\n");
	pmuctx_close(h);
}

static int list_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	pattern = NULL;
	shown = 0;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			print_cmd_help(&cmd_list, stdout);
			return 0;
		}
		return option_error("list", c, argv);
	}
	if (optind < argc)
		pattern = argv[optind++];
	if (optind < argc)
		return usage_error("list", "unexpected argument '%s' (one PATTERN at most)",
				   argv[optind]);
	list_named();
	list_sysfs();
	if (!shown)
		printf("note: no event matches '%s'\n", pattern);
	pmu_note();
	if (fflush(stdout) || ferror(stdout)) {
		perror("pmuctx list: writing output");
		return EXIT_RUNTIME;
	}
	return 0;
}

const struct cmd cmd_list = {
	.name = "list",
	.summary = "list the events pmuctx can count and sample",
	.help = list_help,
	.run = list_run,
};
