// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the ring-buffer unit tests (test_ring.c, test_ring_file.c,
 * test_report.c, test_buildid.c, test_annotate.c, test_unwind_file.c):
 * ring-tests, and ring-tests-san built with ASan and UBSan (harness.c
 * prints the results).
 *
 *   ./ring-tests [GROUP...]	groups: ring file report buildid annotate
 *				dwarf
 */
#include "test.h"

void test_ring(void);
void test_ring_file(void);
void test_report_opts(void);
void test_buildid(void);
void test_annotate(void);
void test_unwind_file(void);

static const struct t_group groups[] = {
	{ "ring", test_ring },
	{ "file", test_ring_file },
	{ "report", test_report_opts },
	{ "buildid", test_buildid },
	{ "annotate", test_annotate },
	{ "dwarf", test_unwind_file },
};

int main(int argc, char **argv)
{
	return t_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
