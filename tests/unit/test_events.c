// SPDX-License-Identifier: GPL-2.0
/*
 * Event names: canonical names, aliases, units, list parsing and its
 * error messages.
 */
#include <errno.h>

#include <pmuctx.h>

#include "test.h"

static char msg[4096];

static const char *last_msg(int err)
{
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	return msg;
}

void test_events(void)
{
	static const struct {
		const char *name;
		int id;
	} names[] = {
		{ "task-clock", PMUCTX_EV_TASK_CLOCK },
		{ "task_clock", PMUCTX_EV_TASK_CLOCK },
		{ "context-switches", PMUCTX_EV_CONTEXT_SWITCHES },
		{ "cs", PMUCTX_EV_CONTEXT_SWITCHES },
		{ "cpu-migrations", PMUCTX_EV_CPU_MIGRATIONS },
		{ "migrations", PMUCTX_EV_CPU_MIGRATIONS },
		{ "page-faults", PMUCTX_EV_PAGE_FAULTS },
		{ "faults", PMUCTX_EV_PAGE_FAULTS },
		{ "cpu-clock", PMUCTX_EV_CPU_CLOCK },
		{ "cycles", PMUCTX_EV_CYCLES },
		{ "cpu-cycles", PMUCTX_EV_CYCLES },
		{ "instructions", PMUCTX_EV_INSTRUCTIONS },
		{ "branches", PMUCTX_EV_BRANCHES },
		{ "branch-instructions", PMUCTX_EV_BRANCHES },
		{ "branch-misses", PMUCTX_EV_BRANCH_MISSES },
		{ "cache-references", PMUCTX_EV_CACHE_REFERENCES },
		{ "cache-misses", PMUCTX_EV_CACHE_MISSES },
		{ " Page_Faults ", PMUCTX_EV_PAGE_FAULTS },
		{ "CS", PMUCTX_EV_CONTEXT_SWITCHES },
	};
	int ids[PMUCTX_MAX_EVENTS + 4], n, id;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK_EQ(pmuctx_event_parse(names[i].name), names[i].id,
			 "event_parse('%s')", names[i].name);

	/* round trip and units */
	for (id = 1; id <= PMUCTX_EV_MAX; id++) {
		const char *n2 = pmuctx_event_name(id);

		if (id == PMUCTX_EV_RAW)	/* named by its spec */
			continue;
		CHECK(n2 && pmuctx_event_parse(n2) == id,
		      "event_name(%d) = '%s' parses back", id, n2 ? n2 : "");
	}
	CHECK(!strcmp(pmuctx_event_unit(PMUCTX_EV_TASK_CLOCK), "ns") &&
	      !strcmp(pmuctx_event_unit(PMUCTX_EV_CPU_CLOCK), "ns"),
	      "task-clock and cpu-clock are in ns");
	CHECK(!strcmp(pmuctx_event_unit(PMUCTX_EV_CONTEXT_SWITCHES), "") &&
	      !strcmp(pmuctx_event_unit(PMUCTX_EV_CYCLES), ""),
	      "plain counts have an empty unit");
	CHECK(!pmuctx_event_name(0) && !pmuctx_event_name(12) &&
	      !pmuctx_event_unit(-1), "unknown ids have no name or unit");
	CHECK(pmuctx_event_is_hw(PMUCTX_EV_CYCLES) == 1 &&
	      pmuctx_event_is_hw(PMUCTX_EV_CACHE_MISSES) == 1 &&
	      pmuctx_event_is_hw(PMUCTX_EV_TASK_CLOCK) == 0 &&
	      pmuctx_event_is_hw(PMUCTX_EV_CPU_CLOCK) == 0 &&
	      pmuctx_event_is_hw(99) == -EINVAL,
	      "hardware events are ids 6..11");

	/* unknown names */
	n = pmuctx_event_parse("cyclez");
	CHECK_EQ(n, -EINVAL, "unknown name -> -EINVAL");
	CHECK_HAS(last_msg(n), "unknown event 'cyclez'", "message names it");
	CHECK_HAS(msg, "did you mean 'cycles'", "message suggests cycles");
	CHECK_HAS(msg, "task-clock, context-switches (cs)",
		  "message lists the known events");
	n = pmuctx_event_parse("");
	CHECK_EQ(n, -EINVAL, "empty name -> -EINVAL");
	CHECK_EQ(pmuctx_event_parse(NULL), -EINVAL, "NULL name -> -EINVAL");
	CHECK_EQ(pmuctx_event_parse("6"), -EINVAL, "numbers are not names");

	/* lists */
	n = pmuctx_event_list_parse("task-clock,cs,faults", ids, 8);
	CHECK(n == 3 && ids[0] == 1 && ids[1] == 2 && ids[2] == 4,
	      "list 'task-clock,cs,faults' -> 1,2,4");
	n = pmuctx_event_list_parse(" cycles , instructions ", ids, 8);
	CHECK(n == 2 && ids[0] == 6 && ids[1] == 7,
	      "blanks around list elements are ignored");
	n = pmuctx_event_list_parse("task-clock,cs,migrations,faults,"
				    "cpu-clock,cycles,instructions,branches",
				    ids, 8);
	CHECK_EQ(n, 8, "8 events are accepted");

	n = pmuctx_event_list_parse("task-clock,cs,migrations,faults,"
				    "cpu-clock,cycles,instructions,branches,"
				    "branch-misses", ids,
				    sizeof(ids) / sizeof(ids[0]));
	CHECK_EQ(n, -E2BIG, "9 events -> -E2BIG even with a large array");
	CHECK_HAS(last_msg(n), "too many events: 9", "message counts them");
	CHECK_HAS(msg, "at most 8", "message gives the limit");
	n = pmuctx_event_list_parse("cs,faults,task-clock", ids, 2);
	CHECK_EQ(n, -E2BIG, "more events than max -> -E2BIG");
	CHECK_HAS(last_msg(n), "at most 2", "message gives the caller's max");

	n = pmuctx_event_list_parse("cs,faults,context-switches", ids, 8);
	CHECK_EQ(n, -EINVAL, "duplicate via alias -> -EINVAL");
	CHECK_HAS(last_msg(n), "listed twice", "message says duplicate");
	CHECK_HAS(msg, "context-switches", "message names the event");
	n = pmuctx_event_list_parse("faults,faults", ids, 8);
	CHECK_EQ(n, -EINVAL, "plain duplicate -> -EINVAL");

	n = pmuctx_event_list_parse("cs,bogus,faults", ids, 8);
	CHECK_EQ(n, -EINVAL, "unknown name in list -> -EINVAL");
	CHECK_HAS(last_msg(n), "unknown event 'bogus'", "names the unknown");
	n = pmuctx_event_list_parse("cs,,faults", ids, 8);
	CHECK_EQ(n, -EINVAL, "empty element -> -EINVAL");
	CHECK_HAS(last_msg(n), "empty event name", "says empty element");
	CHECK_EQ(pmuctx_event_list_parse("cs,", ids, 8), -EINVAL,
		 "trailing comma -> -EINVAL");
	CHECK_EQ(pmuctx_event_list_parse("", ids, 8), -EINVAL,
		 "empty list -> -EINVAL");
	CHECK_EQ(pmuctx_event_list_parse(NULL, ids, 8), -EINVAL,
		 "NULL list -> -EINVAL");
	CHECK_EQ(pmuctx_event_list_parse("cs", NULL, 8), -EINVAL,
		 "NULL ids -> -EINVAL");

	/* names of flags and features */
	CHECK(!strcmp(pmuctx_task_flag_name(0), "exited") &&
	      !strcmp(pmuctx_task_flag_name(1), "priv-exec") &&
	      !strcmp(pmuctx_task_flag_name(2), "inherited") &&
	      !pmuctx_task_flag_name(3), "task flag names");
	CHECK(!strcmp(pmuctx_feature_name(0), "counting") &&
	      !strcmp(pmuctx_feature_name(2), "system-wide") &&
	      !strcmp(pmuctx_feature_name(5), "hw-pmu") &&
	      pmuctx_feature_name(6) &&
	      !strcmp(pmuctx_feature_name(6), "ring") &&
	      pmuctx_feature_name(7) &&
	      !strcmp(pmuctx_feature_name(7), "sampling") &&
	      pmuctx_feature_name(8) &&
	      !strcmp(pmuctx_feature_name(8), "mmap") &&
	      pmuctx_feature_name(9) &&
	      !strcmp(pmuctx_feature_name(9), "user-dump") &&
	      pmuctx_feature_name(10) &&
	      !strcmp(pmuctx_feature_name(10), "switchless") &&
	      pmuctx_feature_name(11) &&
	      !strcmp(pmuctx_feature_name(11), "event-desc") &&
	      pmuctx_feature_name(12) &&
	      !strcmp(pmuctx_feature_name(12), "perf-throttle") &&
	      !pmuctx_feature_name(13), "feature names (every PMUCTX_FEAT_* bit has one)");
}
