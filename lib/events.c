// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Event names, units and name-list parsing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

struct pmuctx__event_desc {
	int id;
	const char *name;
	const char *unit;
	bool hw;
};

static const struct pmuctx__event_desc event_table[] = {
	{ PMUCTX_EV_TASK_CLOCK,		"task-clock",		"ns", false },
	{ PMUCTX_EV_CONTEXT_SWITCHES,	"context-switches",	"",   false },
	{ PMUCTX_EV_CPU_MIGRATIONS,	"cpu-migrations",	"",   false },
	{ PMUCTX_EV_PAGE_FAULTS,	"page-faults",		"",   false },
	{ PMUCTX_EV_CPU_CLOCK,		"cpu-clock",		"ns", false },
	{ PMUCTX_EV_CYCLES,		"cycles",		"",   true },
	{ PMUCTX_EV_INSTRUCTIONS,	"instructions",		"",   true },
	{ PMUCTX_EV_BRANCHES,		"branches",		"",   true },
	{ PMUCTX_EV_BRANCH_MISSES,	"branch-misses",	"",   true },
	{ PMUCTX_EV_CACHE_REFERENCES,	"cache-references",	"",   true },
	{ PMUCTX_EV_CACHE_MISSES,	"cache-misses",		"",   true },
};

/* Aliases, already normalised ('_' -> '-', lower case). */
static const struct {
	const char *alias;
	int id;
} alias_table[] = {
	{ "cs",			PMUCTX_EV_CONTEXT_SWITCHES },
	{ "migrations",		PMUCTX_EV_CPU_MIGRATIONS },
	{ "faults",		PMUCTX_EV_PAGE_FAULTS },
	{ "cpu-cycles",		PMUCTX_EV_CYCLES },
	{ "branch-instructions", PMUCTX_EV_BRANCHES },
};

static const struct pmuctx__event_desc *event_desc(int id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_table); i++)
		if (event_table[i].id == id)
			return &event_table[i];
	return NULL;
}

PMUCTX_API const char *pmuctx_event_name(int id)
{
	const struct pmuctx__event_desc *d = event_desc(id);

	return d ? d->name : NULL;
}

PMUCTX_API const char *pmuctx_event_unit(int id)
{
	const struct pmuctx__event_desc *d = event_desc(id);

	return d ? d->unit : NULL;
}

PMUCTX_API int pmuctx_event_is_hw(int id)
{
	const struct pmuctx__event_desc *d = event_desc(id);

	return d ? d->hw : -EINVAL;
}

/*
 * Normalise @s[0..n) into @out: trim blanks, lower case, '_' -> '-'.
 * Returns false if it does not fit.
 */
static bool normalise(const char *s, size_t n, char *out, size_t outlen)
{
	size_t i, j = 0;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= outlen)
		return false;
	for (i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)s[i]);

		out[j++] = c == '_' ? '-' : c;
	}
	out[j] = '\0';
	return true;
}

static int lookup(const char *norm)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_table); i++)
		if (!strcmp(event_table[i].name, norm))
			return event_table[i].id;
	for (i = 0; i < ARRAY_SIZE(alias_table); i++)
		if (!strcmp(alias_table[i].alias, norm))
			return alias_table[i].id;
	return -EINVAL;
}

/* Levenshtein distance, for "did you mean"; short strings only. */
static unsigned int edit_distance(const char *a, const char *b)
{
	unsigned int row[PMUCTX__NAME_LEN + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > PMUCTX__NAME_LEN || lb > PMUCTX__NAME_LEN)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned int)j;
	for (i = 1; i <= la; i++) {
		unsigned int prev = row[0], tmp;

		row[0] = (unsigned int)i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static const char *closest_name(const char *norm)
{
	const char *best = NULL;
	/* suggest only within distance 2 (1 for short names) */
	unsigned int best_d = strlen(norm) <= 3 ? 2 : 3;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_table); i++) {
		unsigned int d = edit_distance(norm, event_table[i].name);

		if (d < best_d) {
			best_d = d;
			best = event_table[i].name;
		}
	}
	for (i = 0; i < ARRAY_SIZE(alias_table); i++) {
		unsigned int d = edit_distance(norm, alias_table[i].alias);

		if (d < best_d) {
			best_d = d;
			best = alias_table[i].alias;
		}
	}
	/* a prefix of a long name, e.g. "context" */
	if (!best && strlen(norm) >= 3) {
		for (i = 0; i < ARRAY_SIZE(event_table); i++)
			if (!strncmp(event_table[i].name, norm, strlen(norm)))
				return event_table[i].name;
	}
	return best;
}

static const char known_list[] =
	"task-clock, context-switches (cs), cpu-migrations (migrations), "
	"page-faults (faults), cpu-clock, cycles, instructions, branches, "
	"branch-misses, cache-references, cache-misses";

static int unknown_event(const char *shown, const char *norm)
{
	const char *sugg = norm ? closest_name(norm) : NULL;

	if (sugg)
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"unknown event '%s' (did you mean '%s'?)\n"
			"  known events: %s", shown, sugg, known_list);
	return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
		"unknown event '%s'\n  known events: %s", shown, known_list);
}

static int parse_one(const char *s, size_t n, const char *list,
		     unsigned int pos)
{
	char norm[PMUCTX__NAME_LEN];
	char shown[PMUCTX__NAME_LEN];
	int id;

	if (!normalise(s, n, norm, sizeof(norm))) {
		snprintf(shown, sizeof(shown), "%.40s...", s);
		return unknown_event(shown, NULL);
	}
	if (!norm[0] && list)
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"empty event name in list '%s' (element %u)\n"
			"  separate names with single commas, e.g. "
			"task-clock,cs", list, pos);
	if (!norm[0])
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"empty event name\n  known events: %s", known_list);
	id = lookup(norm);
	if (id < 0) {
		snprintf(shown, sizeof(shown), "%.*s", (int)n, s);
		return unknown_event(shown, norm);
	}
	return id;
}

PMUCTX_API int pmuctx_event_parse(const char *name)
{
	if (!name)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "event name is NULL");
	return parse_one(name, strlen(name), NULL, 0);
}

PMUCTX_API int pmuctx_event_list_parse(const char *list, int *ids, size_t max)
{
	int found[PMUCTX_MAX_EVENTS];
	size_t limit = max < PMUCTX_MAX_EVENTS ? max : PMUCTX_MAX_EVENTS;
	const char *p, *end;
	unsigned int n = 0, total = 0, i;

	if (!list || (!ids && max))
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "event list or output array is NULL");

	/* first count the elements, so "too many" is reported as such */
	for (p = list; ; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		total++;
		if (!*end)
			break;
	}

	for (p = list; ; p = end + 1) {
		int id;

		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		id = parse_one(p, (size_t)(end - p), list, n + 1);
		if (id < 0)
			return id;
		for (i = 0; i < n; i++) {
			if (found[i] == id)
				return pmuctx__err_set(NULL, PMUCTX_OP_EVENT,
					EINVAL,
					"event '%.*s' is listed twice in '%s' "
					"(it is %s, already given as element "
					"%u)\n  each event may appear only once "
					"in a session", (int)(end - p), p,
					list, pmuctx_event_name(id), i + 1);
		}
		if (n >= PMUCTX_MAX_EVENTS || n >= limit)
			return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, E2BIG,
				"too many events: %u in '%s', at most %zu "
				"per session%s\n  leave some out, or count "
				"the others in a second session", total,
				list, limit,
				limit == PMUCTX_MAX_EVENTS ?
				" (PMUCTX_MAX_EVENTS)" : "");
		found[n++] = id;
		if (!*end)
			break;
	}
	for (i = 0; i < n; i++)
		ids[i] = found[i];
	return (int)n;
}

PMUCTX_INTERNAL int pmuctx__event_names(char *buf, size_t len, const int *ids,
					unsigned int n)
{
	struct pmuctx__sb sb = { .buf = buf, .len = len };
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *name = pmuctx_event_name(ids[i]);

		if (name)
			pmuctx__sb_printf(&sb, "%s%s", i ? ", " : "", name);
		else
			pmuctx__sb_printf(&sb, "%sevent %d", i ? ", " : "",
					  ids[i]);
	}
	return (int)sb.pos;
}

PMUCTX_API const char *pmuctx_task_flag_name(unsigned int bit)
{
	static const char *const names[] = {
		"exited", "priv-exec", "inherited",
	};

	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}

PMUCTX_API const char *pmuctx_feature_name(unsigned int bit)
{
	static const char *const names[] = {
		"counting", "inherit", "system-wide", "cgroup", "selftest",
		"hw-pmu", "ring", "sampling", "mmap", "user-dump",
		"switchless",
	};

	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}
