// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the pmuctx commands.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

void print_cmd_help(const struct cmd *c, FILE *f)
{
	const char *mark = strstr(c->help, HELP_EXTRA_MARK);

	if (!mark) {
		fputs(c->help, f);
		if (c->help_extra)
			c->help_extra(f);
		return;
	}
	fwrite(c->help, 1, (size_t)(mark - c->help), f);
	if (c->help_extra)
		c->help_extra(f);
	fputs(mark + strlen(HELP_EXTRA_MARK), f);
}

bool is_help_arg(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmuctx %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'pmuctx %s --help' for more information.\n",
		cmd);
	return EXIT_USAGE;
}

static void print_msg(const char *cmd, struct pmuctx *h, int err)
{
	char buf[4096];

	pmuctx_errmsg(h, err, buf, sizeof(buf));
	fprintf(stderr, "pmuctx %s: %s\n", cmd, buf);
}

int lib_error(const char *cmd, struct pmuctx *h, int err)
{
	print_msg(cmd, h, err);
	return EXIT_RUNTIME;
}

int lib_usage_error(const char *cmd, int err)
{
	print_msg(cmd, NULL, err);
	fprintf(stderr, "Try 'pmuctx %s --help' for more information.\n",
		cmd);
	return EXIT_USAGE;
}

const char *device_path(void)
{
	const char *p = getenv("PMUCTX_DEVICE");

	return p && *p ? p : NULL;
}

int open_device(const char *cmd, struct pmuctx **h)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, opts, .path = device_path());
	int err = pmuctx_open(h, &opts);

	return err ? lib_error(cmd, NULL, err) : 0;
}
