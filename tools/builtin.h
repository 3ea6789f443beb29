/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx command-line tool: the command table and shared helpers.
 *
 * Adding a command: write tools/cmd-NAME.c defining
 *	const struct cmd cmd_NAME = { "NAME", "summary", help_text, run };
 * declare it below and add it to the commands[] table in pmuctx.c.  The
 * Makefile builds every cmd-*.c.
 */
#ifndef PMUCTX_TOOLS_BUILTIN_H
#define PMUCTX_TOOLS_BUILTIN_H

#include <stdbool.h>
#include <stdio.h>

#include <pmuctx.h>

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

struct cmd {
	const char *name;
	const char *summary;		/* one line, for 'pmuctx --help' */
	const char *help;		/* the command's manual */
	/* argv[0] is the command name; returns the exit status */
	int (*run)(int argc, char **argv);
	/*
	 * optional: print generated parts of the manual, where @help has
	 * HELP_EXTRA_MARK (a line of its own), else at the end
	 */
	void (*help_extra)(FILE *f);
};

#define HELP_EXTRA_MARK "@EXTRA@\n"

extern const struct cmd cmd_info;
extern const struct cmd cmd_stat;

/* util.c */
void print_cmd_help(const struct cmd *c, FILE *f);
bool is_help_arg(const char *arg);
/* print "pmuctx CMD: MSG" and a pointer to --help; returns EXIT_USAGE */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* print the library's detailed message for @err; returns EXIT_RUNTIME */
int lib_error(const char *cmd, struct pmuctx *h, int err);
/* print a library message as a usage error; returns EXIT_USAGE */
int lib_usage_error(const char *cmd, int err);
/* device path: $PMUCTX_DEVICE or NULL (the library default) */
const char *device_path(void);
/* open the device, printing the error; returns 0 or EXIT_RUNTIME */
int open_device(const char *cmd, struct pmuctx **h);

#endif
