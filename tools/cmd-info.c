// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx info: module identity, features and store statistics.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "info-format.h"

static const char info_help[] =
"NAME\n"
"    pmuctx info - show the pmuctx module's version, ABI, features and\n"
"    store statistics\n"
"\n"
"SYNOPSIS\n"
"    pmuctx info [--json]\n"
"\n"
"DESCRIPTION\n"
"    Asks the loaded pmuctx kernel module who it is and how its per-task\n"
"    store is doing, and prints:\n"
"\n"
"    - the module's version string and ABI version, next to the ABI\n"
"      version this tool's libpmuctx was built for (a difference is\n"
"      flagged as MISMATCH);\n"
"    - the features the module offers, by name: counting (per-task\n"
"      counting sessions), inherit (following fork/clone/exec),\n"
"      system-wide (all-task sessions), cgroup (cgroup v2 targets),\n"
"      selftest (the save-area selftest backend), hw-pmu (a hardware CPU\n"
"      PMU was found; without it only software events can be counted),\n"
"      ring (per-CPU ring buffers), sampling (sampling with callchains),\n"
"      mmap (MMAP records), user-dump (user stack copies for\n"
"      --call-graph dwarf) and switchless (counting without a context\n"
"      switch probe where the events allow it);\n"
"    - the number of possible CPUs;\n"
"    - store statistics: tasks tracked now (one entry per task and\n"
"      session), bytes of kernel memory they hold, open sessions, whether\n"
"      the scheduler probes are registered (and whether sched_switch is\n"
"      among them: only while a session needs work at every context\n"
"      switch; see pmuctx-stat(1), --per-switch), the size of one entry, the\n"
"      max_tasks cap, entries created and freed so far, atomic allocation\n"
"      failures, pre-allocated pool entries, and tasks or slices dropped\n"
"      because of the cap or an empty pool;\n"
"    - the limits, read from the module's parameters in\n"
"      /sys/module/pmuctx/parameters (see pmuctx(4)): max_sample_freq,\n"
"      the global sample budget (sample_budget, sample_cpu_percent, the\n"
"      budget in force now after lowering by sample cost, and the samples\n"
"      it refused so far), the per-user caps max_sessions_per_user and\n"
"      max_tasks_per_user, max_tasks, max_ring_pages, max_exited and\n"
"      pool_size;\n"
"    - selftest statistics: save areas verified at switch-in, mismatches\n"
"      (a save area that did not hold its task's signature: a bug), and\n"
"      how many verifications happened on another CPU than the one the\n"
"      area was written on (proof that the data followed its task).\n"
"\n"
"    Querying never changes the module's state. Any user who may open\n"
"    /dev/pmuctx may run it.\n"
"\n"
"OPTIONS\n"
"    --json\n"
"        Print one JSON object on one line instead, with the keys\n"
"        version, abi_version, library_abi_version, library_version,\n"
"        info_size, features_mask, features (array of names), nr_cpus,\n"
"        tasks_tracked, store_bytes and, from modules that report them,\n"
"        sessions, probes_registered, switch_probe_registered (from\n"
"        modules with the switchless feature), entry_bytes, max_tasks,\n"
"        entries_created, entries_freed, alloc_failures, pool_entries,\n"
"        dropped, selftest_checks, selftest_mismatches,\n"
"        selftest_migrations, and limits (an object of the module\n"
"        parameters above, by name).\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
"EXAMPLES\n"
"    pmuctx info\n"
"    pmuctx info --json | jq .features\n"
"    watch -n1 pmuctx info        # store statistics while a test runs\n"
"\n"
"EXIT STATUS\n"
"    0   success\n"
"    1   the device could not be opened or queried; the message says why\n"
"        and how to fix it (module not loaded, missing permission, ...)\n"
"    2   usage error\n"
"\n"
"ENVIRONMENT\n"
"    PMUCTX_DEVICE\n"
"        Path of the pmuctx device, instead of /dev/pmuctx.\n"
"\n"
"SEE ALSO\n"
"    pmuctx stat --help\n";

static int info_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pmuctx_info info;
	struct info_params ps;
	struct pmuctx *h;
	bool json = false;
	int c, err, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			print_cmd_help(&cmd_info, stdout);
			return 0;
		default:
			return usage_error("info", "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("info", "unexpected argument '%s'",
				   argv[optind]);

	ret = open_device("info", &h);
	if (ret)
		return ret;
	err = pmuctx_info(h, &info);
	if (err) {
		ret = lib_error("info", h, err);
		pmuctx_close(h);
		return ret;
	}
	info_read_params(&ps, "/sys/module/pmuctx/parameters");
	if (json)
		info_print_json(stdout, &info, &ps);
	else
		info_print_human(stdout, &info, &ps);
	pmuctx_close(h);
	if (fflush(stdout) || ferror(stdout)) {
		perror("pmuctx info: writing output");
		return EXIT_RUNTIME;
	}
	return 0;
}

const struct cmd cmd_info = {
	.name = "info",
	.summary = "show module version, ABI, features and store statistics",
	.help = info_help,
	.run = info_run,
};
