// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: command-line front end of the pmuctx kernel module.
 */
#include <stdio.h>
#include <string.h>

#include "annotate.h"	/* cmd_annotate */
#include "builtin.h"
#include "pmfile.h"	/* cmd_record, cmd_snapshot, cmd_report */

static const struct cmd *const commands[] = {
	&cmd_info,
	&cmd_stat,
	&cmd_record,
	&cmd_snapshot,
	&cmd_report,
	&cmd_annotate,
	&cmd_top,
	&cmd_list,
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void print_version(FILE *f)
{
#ifdef PMUCTX_TOOL_VERSION
	const char *tool = PMUCTX_TOOL_VERSION;
#else
	const char *tool = pmuctx_version();
#endif
	fprintf(f, "pmuctx %s (libpmuctx %s, pmuctx ABI %d)\n", tool,
		pmuctx_version(), pmuctx_abi_version());
}

static void print_main_help(FILE *f)
{
	size_t i;

	fprintf(f,
"Usage: pmuctx [--version] [--help] COMMAND [ARGS]\n"
"\n"
"pmuctx counts events per task with the pmuctx kernel module: the module\n"
"keeps a context for every monitored task, saves and restores it at each\n"
"context switch, and folds the counts of exited children into their\n"
"parents, so a command's counts follow it across CPUs, forks and threads.\n"
"\n"
"Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name,
			commands[i]->summary);
	fprintf(f,
"\n"
"Options:\n"
"  --version  print the versions of pmuctx, libpmuctx and the ABI\n"
"  -h, --help print this help\n"
"\n"
"Run 'pmuctx help COMMAND' or 'pmuctx COMMAND --help' for a command's\n"
"manual.\n"
"\n"
"The device is /dev/pmuctx (set PMUCTX_DEVICE to use another path). If it\n"
"is missing, load the module: sudo modprobe pmuctx.\n"
"\n"
"Exit status: 0 on success, 1 on a runtime error, 2 on a usage error;\n"
"'pmuctx stat -- CMD' and 'pmuctx record -- CMD' exit with CMD's status.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		print_main_help(stdout);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "pmuctx: no help for '%s': not a pmuctx "
			"command. See 'pmuctx --help'.\n", argv[1]);
		return EXIT_USAGE;
	}
	print_cmd_help(c, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	if (is_help_arg(argv[1])) {
		print_main_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		fprintf(stderr, "pmuctx: unknown option '%s'. See 'pmuctx "
			"--help'.\n", argv[1]);
		return EXIT_USAGE;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "pmuctx: '%s' is not a pmuctx command. See "
			"'pmuctx --help'.\n", argv[1]);
		return EXIT_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}
