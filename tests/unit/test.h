/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny TAP-style test harness for the pmuctx host unit tests.
 */
#ifndef PMUCTX_TEST_H
#define PMUCTX_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct cmd;

extern int t_passed, t_failed;

void t_check(bool ok, const char *file, int line, const char *expr,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void t_section(const char *name);

#define CHECK(cond, ...) \
	t_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
#define CHECK_EQ(a, b, ...) do {					\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b)							\
		t_diag("  got %lld, expected %lld", _a, _b);		\
	t_check(_a == _b, __FILE__, __LINE__, #a " == " #b, __VA_ARGS__); \
} while (0)
/* @hay contains @needle */
#define CHECK_HAS(hay, needle, ...) do {				\
	const char *_h = (hay), *_n = (needle);				\
	bool _ok = _h && strstr(_h, _n);				\
	if (!_ok)							\
		t_diag("  '%s' not found in:\n%s", _n, _h ? _h : "(null)"); \
	t_check(_ok, __FILE__, __LINE__, "contains " #needle, __VA_ARGS__); \
} while (0)
#define CHECK_LACKS(hay, needle, ...) do {				\
	const char *_h = (hay), *_n = (needle);				\
	bool _ok = _h && !strstr(_h, _n);				\
	if (!_ok)							\
		t_diag("  '%s' unexpectedly in:\n%s", _n, _h ? _h : "(null)"); \
	t_check(_ok, __FILE__, __LINE__, "lacks " #needle, __VA_ARGS__); \
} while (0)

/* a test group: the runners run the ones named on their command line */
struct t_group {
	const char *name;
	void (*fn)(void);
};

/*
 * A runner's main(): runs the groups named in @argv (all if none), prints
 * the plan and, as the very last line, "N passed, M failed"; returns the
 * exit status (1 if anything failed).
 */
int t_main(int argc, char **argv, const struct t_group *groups, size_t nr);

/* capture.c: the contents of @path, malloc'd ("" if it cannot be read) */
char *t_slurp(const char *path);
/*
 * capture.c: run the tool's command @cmd in-process, its standard output
 * and error going to files in @dir and then, read back, to *@out and *@err
 * (the previous ones freed); @ap holds the arguments, NULL-terminated.
 * Returns the command's exit status.
 */
int t_run_cmd(const struct cmd *cmd, const char *dir, char **out, char **err,
	      va_list ap);

/*
 * capture.c: write @text to @root/sys/bus/event_source/devices/@rel, the
 * directories under @root made as needed (a fake sysfs for
 * $PMUCTX_SYSFS_ROOT)
 */
void t_sysfs_put(const char *root, const char *rel, const char *text);

/* minimal JSON validator: 0 if @s is exactly one valid JSON value */
int json_validate(const char *s, const char **err_at);

/* test groups */
void test_abi(void);
void test_events(void);
void test_evspec(void);
void test_opts(void);
void test_errors(void);
void test_diagnose(void);
void test_lib(void);
void test_format(void);
void test_cli(void);
void test_cmdopts(void);
void test_exports(void);

#endif
