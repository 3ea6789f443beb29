// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library built twice for the build-id tests of ring-tests
 * (test_buildid.c): libbidprobe-1.so and libbidprobe-2.so have the same
 * code at the same addresses under different names (bidprobe_old,
 * bidprobe_new) and different build-ids (-Wl,--build-id=0x...): the
 * second stands for the first rebuilt after a recording.
 */
#ifdef BIDPROBE_NEW
#define BIDPROBE_FN bidprobe_new
#else
#define BIDPROBE_FN bidprobe_old
#endif

int BIDPROBE_FN(int x);

int BIDPROBE_FN(int x)
{
	return x * 3 + 1;
}
