// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctx.so exports exactly the PMUCTX_API functions, all listed in
 * libpmuctx.map, and nothing internal; the library's version is that of
 * the map's newest version node.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include <pmuctx.h>

#include "test.h"

#ifndef TOP_DIR
#define TOP_DIR "../.."
#endif

/* names of "PMUCTX_API ... name(" declarations in pmuctx.h */
static int header_api(char names[][64], int max)
{
	FILE *f = fopen(TOP_DIR "/lib/pmuctx.h", "re");
	char line[512], decl[1024] = "";
	int n = 0;
	bool in = false;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *paren, *s;

		if (!in && !strncmp(line, "PMUCTX_API ", 11)) {
			in = true;
			decl[0] = '\0';
		}
		if (!in)
			continue;
		strncat(decl, line, sizeof(decl) - strlen(decl) - 1);
		paren = strchr(decl, '(');
		if (!paren)
			continue;
		for (s = paren; s > decl && (s[-1] == '_' ||
		     (s[-1] >= 'a' && s[-1] <= 'z') ||
		     (s[-1] >= '0' && s[-1] <= '9')); s--)
			;
		if (n < max)
			snprintf(names[n++], 64, "%.*s", (int)(paren - s), s);
		in = false;
	}
	fclose(f);
	return n;
}

static bool in_map(const char *name)
{
	FILE *f = fopen(TOP_DIR "/lib/libpmuctx.map", "re");
	char line[256], want[80];
	bool found = false;

	if (!f)
		return false;
	snprintf(want, sizeof(want), "%.64s;", name);
	while (fgets(line, sizeof(line), f)) {
		char *s = line;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, want, strlen(want)))
			found = true;
	}
	fclose(f);
	return found;
}

/* the newest "LIBPMUCTX_MAJOR.MINOR {" node of libpmuctx.map */
static bool newest_node(int *major, int *minor)
{
	FILE *f = fopen(TOP_DIR "/lib/libpmuctx.map", "re");
	char line[256];
	bool found = false;
	int a, b;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "LIBPMUCTX_%d.%d {", &a, &b) != 2)
			continue;
		if (!found || a > *major || (a == *major && b > *minor)) {
			*major = a;
			*minor = b;
		}
		found = true;
	}
	fclose(f);
	return found;
}

void test_exports(void)
{
	char names[64][64];
	void *dl;
	int n, i, missing_map = 0, missing_sym = 0, major = -1, minor = -1;
	bool found;

	n = header_api(names, 64);
	CHECK(n >= 20, "pmuctx.h declares the API with PMUCTX_API (%d)", n);
	dl = dlopen(TOP_DIR "/lib/libpmuctx.so.0", RTLD_NOW | RTLD_LOCAL);
	CHECK(dl != NULL, "dlopen libpmuctx.so.0 (soname link)");
	if (!dl) {
		t_diag("%s", dlerror());
		return;
	}
	for (i = 0; i < n; i++) {
		if (!in_map(names[i])) {
			t_diag("  %s is not in libpmuctx.map", names[i]);
			missing_map++;
		}
		if (!dlsym(dl, names[i])) {
			t_diag("  %s is not exported", names[i]);
			missing_sym++;
		}
	}
	CHECK_EQ(missing_map, 0, "every PMUCTX_API function is in the map");
	CHECK_EQ(missing_sym, 0, "every PMUCTX_API function is exported");
	CHECK(!dlsym(dl, "pmuctx__sys") && !dlsym(dl, "pmuctx__format_err") &&
	      !dlsym(dl, "pmuctx__validate_opts"),
	      "internals are not exported");
	CHECK(dlvsym(dl, "pmuctx_open", "LIBPMUCTX_0.1") != NULL,
	      "symbols carry the LIBPMUCTX_0.1 version");
	dlclose(dl);

	found = newest_node(&major, &minor);
	CHECK(found && major == LIBPMUCTX_MAJOR_VERSION &&
	      minor == LIBPMUCTX_MINOR_VERSION,
	      "the library version %s is that of the newest map node "
	      "LIBPMUCTX_%d.%d", pmuctx_version(), major, minor);
}
