// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library whose code calls libc through its PLT, for the PLT
 * symbol tests of stitch-tests (test_stitch_fmt.c).  The Makefile builds it
 * twice with -fplt: libpltprobe.so with lazy binding (a .plt of 16-byte
 * entries after a 16-byte header) and libpltprobe-ibt.so with IBT stubs
 * (-fcf-protection -z ibtplt: .plt, .plt.sec and .plt.got).  The test
 * dlopen()s both and looks up addresses inside the stubs that objdump
 * names NAME@plt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pltprobe_cmp(const char *a, const char *b);
int pltprobe_put(const char *s);

int pltprobe_cmp(const char *a, const char *b)
{
	return strcoll(a, b) + (int)strlen(a);
}

int pltprobe_put(const char *s)
{
	return puts(s) + atoi(s);
}
