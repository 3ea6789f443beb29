// SPDX-License-Identifier: GPL-2.0
/*
 * The test harness of every unit-test runner (unit-tests, ring-tests,
 * ring-tests-san, stitch-tests): "ok N - ..." / "not ok N - ..." lines,
 * "# ..." diagnostics and, as the very last line, "N passed, M failed".
 */
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

int t_passed, t_failed;

void t_check(bool ok, const char *file, int line, const char *expr,
	     const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", t_passed + t_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok) {
		t_passed++;
	} else {
		t_failed++;
		printf("#   failed at %s:%d: %s\n", file, line, expr);
	}
	fflush(stdout);
}

void t_diag(const char *fmt, ...)
{
	char buf[8192], *p, *nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (p = buf; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		printf("# %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
	}
}

void t_section(const char *name)
{
	printf("# --- %s\n", name);
}

int t_main(int argc, char **argv, const struct t_group *groups, size_t nr)
{
	size_t i;
	int j;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < nr; i++) {
		bool run = argc < 2;

		for (j = 1; j < argc; j++)
			if (!strcmp(argv[j], groups[i].name))
				run = true;
		if (!run)
			continue;
		t_section(groups[i].name);
		groups[i].fn();
	}
	printf("1..%d\n", t_passed + t_failed);
	printf("%d passed, %d failed\n", t_passed, t_failed);
	return t_failed ? 1 : 0;
}
