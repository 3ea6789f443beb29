// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the library and tool unit tests: unit-tests (harness.c prints
 * the results).
 *
 *   ./unit-tests [GROUP...]	groups: abi events opts errors diagnose lib
 *				format cli cmdopts exports
 */
#include "test.h"

static const struct t_group groups[] = {
	{ "abi", test_abi },
	{ "events", test_events },
	{ "evspec", test_evspec },
	{ "opts", test_opts },
	{ "errors", test_errors },
	{ "diagnose", test_diagnose },
	{ "lib", test_lib },
	{ "format", test_format },
	{ "cli", test_cli },
	{ "cmdopts", test_cmdopts },
	{ "exports", test_exports },
};

int main(int argc, char **argv)
{
	return t_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
