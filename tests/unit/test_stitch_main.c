// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the stitching and profile unit tests (test_stitch.c,
 * test_stitch_fmt.c): stitch-tests (harness.c prints the results).
 *
 *   ./stitch-tests [GROUP...]	groups: stitch symbols profile unwind
 */
#include "test.h"

void test_stitch(void);
void test_symbols(void);
void test_profile(void);
void test_unwind(void);

static const struct t_group groups[] = {
	{ "stitch", test_stitch },
	{ "symbols", test_symbols },
	{ "profile", test_profile },
	{ "unwind", test_unwind },
};

int main(int argc, char **argv)
{
	return t_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
