// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Event names, units and name-list parsing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

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

/* the end of a list element of plain names: the next ',' or the end */
static const char *name_end(const char *p)
{
	const char *end = strchr(p, ',');

	return end ? end : p + strlen(p);
}

/* how many elements @list has, @next_end finding where each ends */
static unsigned int list_count(const char *list,
			       const char *(*next_end)(const char *))
{
	const char *p, *end;
	unsigned int total = 0;

	for (p = list; ; p = end + 1) {
		end = next_end(p);
		total++;
		if (!*end)
			return total;
	}
}

static int list_too_long(const char *list, unsigned int total, size_t limit)
{
	return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, E2BIG,
		"too many events: %u in '%s', at most %zu per session%s\n"
		"  leave some out, or count the others in a second session",
		total, list, limit,
		limit == PMUCTX_MAX_EVENTS ? " (PMUCTX_MAX_EVENTS)" : "");
}

PMUCTX_API int pmuctx_event_list_parse(const char *list, int *ids, size_t max)
{
	int found[PMUCTX_MAX_EVENTS];
	size_t limit = max < PMUCTX_MAX_EVENTS ? max : PMUCTX_MAX_EVENTS;
	const char *p, *end;
	unsigned int n = 0, total, i;

	if (!list || (!ids && max))
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "event list or output array is NULL");

	/* first count the elements, so "too many" is reported as such */
	total = list_count(list, name_end);
	for (p = list; ; p = end + 1) {
		int id;

		end = name_end(p);
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
			return list_too_long(list, total, limit);
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
		else if (ids[i] == PMUCTX_EV_RAW)
			pmuctx__sb_printf(&sb, "%sa raw event", i ? ", " : "");
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
		"switchless", "event-desc", "perf-throttle",
	};

	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}

/* ---- event specs: modifiers, raw events, sysfs PMU events ------------- */

/*
 * Where the kernel describes its PMUs: $PMUCTX_SYSFS_ROOT (tests: a fake
 * tree; ignored in set-id programs) followed by
 * /sys/bus/event_source/devices.
 */
static int pmu_path(char *buf, size_t len, const char *pmu, const char *rest)
{
	const char *root = secure_getenv("PMUCTX_SYSFS_ROOT");
	int n = snprintf(buf, len, "%s/sys/bus/event_source/devices/%s%s%s",
			 root ? root : "", pmu, rest ? "/" : "",
			 rest ? rest : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* the first line of a sysfs file, without its newline; 0 or -errno */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || isspace((unsigned char)buf[n - 1])))
		buf[--n] = '\0';
	return 0;
}

/* decimal or 0x hex, the whole string */
static bool parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static __u64 *config_field(struct pmuctx_event_desc *d, const char *name)
{
	if (!strcmp(name, "config"))
		return (__u64 *)&d->config;
	if (!strcmp(name, "config1"))
		return (__u64 *)&d->config1;
	if (!strcmp(name, "config2"))
		return (__u64 *)&d->config2;
	return NULL;
}

/*
 * Place @v into @d by the format @fmt of a sysfs PMU ("config:0-7",
 * "config1:0-63", "config:21", "config:0-7,32-35": the value's bits in
 * the ranges' order).  0, or -EINVAL with @why set.
 */
static int apply_format(struct pmuctx_event_desc *d, const char *fmt,
			unsigned long long v, const char **why)
{
	char field[16];
	const char *p = strchr(fmt, ':');
	unsigned int used = 0;
	__u64 *dst;

	if (!p || (size_t)(p - fmt) >= sizeof(field)) {
		*why = "an unreadable format file";
		return -EINVAL;
	}
	memcpy(field, fmt, (size_t)(p - fmt));
	field[p - fmt] = '\0';
	dst = config_field(d, field);
	if (!dst) {
		*why = "a format of a field pmuctx does not pass (only config, config1, config2)";
		return -EINVAL;
	}
	for (p++; *p; ) {
		unsigned long lo, hi, b;
		char *end;

		lo = strtoul(p, &end, 10);
		hi = lo;
		if (end == p) {
			*why = "an unreadable format file";
			return -EINVAL;
		}
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p) {
				*why = "an unreadable format file";
				return -EINVAL;
			}
		}
		if (hi < lo || hi > 63) {
			*why = "an unreadable format file";
			return -EINVAL;
		}
		for (b = lo; b <= hi; b++, used++) {
			__u64 bit = used < 64 ? (v >> used) & 1 : 0;

			*dst = (*dst & ~(1ULL << b)) | (bit << b);
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			break;
	}
	if (used < 64 && v >> used) {
		*why = "a value too wide for the field";
		return -EINVAL;
	}
	return 0;
}

static int spec_err(const char *shown, const char *fmt, const char *arg)
{
	char buf[256];

	snprintf(buf, sizeof(buf), fmt, arg);
	return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			       "event '%s': %s", shown, buf);
}

/*
 * The terms of "pmu/TERMS/" into @d: name[=value] separated by commas;
 * a name is config, config1, config2, a format of the PMU (format/NAME),
 * or, without a value, one of its named events (events/NAME, whose
 * terms are applied in turn, once).
 */
static int apply_terms(struct pmuctx_event_desc *d, const char *pmu,
		       const char *terms, const char *shown, bool nested)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(terms) >= sizeof(buf))
		return spec_err(shown, "%s", "too many terms");
	strcpy(buf, terms);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char path[512], line[256], name[64];
		const char *eq = strchr(tok, '='), *why = NULL;
		unsigned long long v = 1;
		size_t nl = eq ? (size_t)(eq - tok) : strlen(tok);
		__u64 *dst;
		int ret;

		if (!nl || nl >= sizeof(name) || strchr(tok, '/') ||
		    strstr(tok, ".."))
			return spec_err(shown, "bad term '%s'", tok);
		memcpy(name, tok, nl);
		name[nl] = '\0';
		if (eq && !parse_u64(eq + 1, &v))
			return spec_err(shown, "term '%s': the value is not a "
					"number (decimal or 0x hex)", tok);
		dst = config_field(d, name);
		if (dst) {
			*dst = v;
			continue;
		}
		snprintf(line, sizeof(line), "format/%s", name);
		if (pmu_path(path, sizeof(path), pmu, line))
			return spec_err(shown, "%s", "name too long");
		ret = read_line(path, line, sizeof(line));
		if (!ret) {
			if (apply_format(d, line, v, &why))
				return pmuctx__err_set(NULL, PMUCTX_OP_EVENT,
					EINVAL, "event '%s': term '%s': %s (%s)",
					shown, tok, why, line);
			continue;
		}
		snprintf(line, sizeof(line), "events/%s", name);
		if (pmu_path(path, sizeof(path), pmu, line))
			return spec_err(shown, "%s", "name too long");
		if (!eq && !nested && !read_line(path, line, sizeof(line))) {
			if (strchr(line, '?'))
				return spec_err(shown, "PMU event '%s' needs a "
						"parameter: give its terms "
						"instead", name);
			ret = apply_terms(d, pmu, line, shown, true);
			if (ret)
				return ret;
			continue;
		}
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"event '%s': PMU '%s' has no format or event '%s' "
			"(see %s/format/ and events/)", shown, pmu, name,
			"/sys/bus/event_source/devices/PMU");
	}
	return 0;
}

/* "pmu/terms/" (modifiers already cut off) into @sp */
static int parse_pmu(const char *ev, struct pmuctx_event_spec *sp,
		     const char *shown)
{
	char pmu[64], path[512], line[64], terms[256];
	const char *slash = strchr(ev, '/');
	size_t pl = (size_t)(slash - ev), tl;
	unsigned long long type;
	const char *p;
	int ret;

	tl = strlen(slash + 1);
	if (!pl || pl >= sizeof(pmu) || tl < 1 || slash[tl] != '/' ||
	    tl - 1 >= sizeof(terms))
		return spec_err(shown, "%s", "expected PMU/terms/, e.g. "
				"cpu/event=0x3c,umask=0x00/");
	memcpy(pmu, ev, pl);
	pmu[pl] = '\0';
	for (p = pmu; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' &&
		    *p != '.')
			return spec_err(shown, "bad PMU name '%s'", pmu);
	if (!strcmp(pmu, ".") || !strcmp(pmu, ".."))
		return spec_err(shown, "bad PMU name '%s'", pmu);
	memcpy(terms, slash + 1, tl - 1);
	terms[tl - 1] = '\0';
	if (strchr(terms, '/'))
		return spec_err(shown, "%s", "a '/' inside the terms");
	if (pmu_path(path, sizeof(path), pmu, "type"))
		return spec_err(shown, "%s", "name too long");
	ret = read_line(path, line, sizeof(line));
	if (ret)
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"event '%s': no PMU '%s' (%s: %s); the kernel's PMUs "
			"are the directories of /sys/bus/event_source/devices",
			shown, pmu, path, strerror(-ret));
	if (!parse_u64(line, &type) || type > 0xffffffffULL)
		return spec_err(shown, "unreadable type '%s'", line);
	if (type != PERF_TYPE_RAW && type < PERF_TYPE_MAX)
		return spec_err(shown, "PMU '%s' is not a CPU PMU (software, "
				"tracepoint or breakpoint events are not raw "
				"events)", pmu);
	sp->id = PMUCTX_EV_RAW;
	sp->desc.type = (__u32)type;
	if (!terms[0])
		return spec_err(shown, "%s", "no terms: name the event, e.g. "
				"cpu/event=0x3c/");
	return apply_terms(&sp->desc, pmu, terms, shown, false);
}

/* perf's modifiers that pmuctx takes: u, k, h (each at most once) */
static int parse_mods(const char *mods, __u32 *flags, const char *shown)
{
	const char *p;

	if (!*mods)
		return spec_err(shown, "%s", "empty modifier after ':'");
	for (p = mods; *p; p++) {
		__u32 bit;
		char c[2] = { *p, 0 };

		switch (*p) {
		case 'u': bit = PMUCTX_EVF_USER; break;
		case 'k': bit = PMUCTX_EVF_KERNEL; break;
		case 'h': bit = PMUCTX_EVF_HV; break;
		default:
			return spec_err(shown, "modifier '%s' is not supported "
					"(pmuctx takes u, k and h: user, kernel, "
					"hypervisor mode)", c);
		}
		if (*flags & bit)
			return spec_err(shown, "modifier '%s' given twice", c);
		*flags |= bit;
	}
	return 0;
}

static bool is_raw_name(const char *norm)
{
	size_t i, n = strlen(norm);

	if (n < 2 || n > 17 || norm[0] != 'r')
		return false;
	for (i = 1; i < n; i++)
		if (!isxdigit((unsigned char)norm[i]))
			return false;
	return true;
}

PMUCTX_API int pmuctx_event_spec_parse(const char *name,
				       struct pmuctx_event_spec *sp)
{
	char buf[PMUCTX_EVENT_NAME_LEN], norm[PMUCTX__NAME_LEN];
	const char *mods = NULL;
	char *colon, *slash2;
	size_t n;
	int id, ret;

	if (!name || !sp)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "event name or spec is NULL");
	memset(sp, 0, sizeof(*sp));
	while (isspace((unsigned char)*name))
		name++;
	n = strlen(name);
	while (n && isspace((unsigned char)name[n - 1]))
		n--;
	if (!n)
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"empty event name\n  known events: %s", known_list);
	if (n >= sizeof(buf))
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"event '%.40s...': longer than %d characters",
			name, PMUCTX_EVENT_NAME_LEN - 1);
	memcpy(buf, name, n);
	buf[n] = '\0';
	memcpy(sp->name, buf, n + 1);

	if (strchr(buf, '/')) {
		/* pmu/terms/ then modifiers, "/u" or "/:u" */
		slash2 = strrchr(buf, '/');
		if (slash2 == strchr(buf, '/'))
			return spec_err(sp->name, "%s", "expected PMU/terms/, "
					"e.g. cpu/event=0x3c,umask=0x00/");
		if (slash2[1]) {
			mods = slash2[1] == ':' ? slash2 + 2 : slash2 + 1;
			ret = parse_mods(mods, &sp->desc.flags, sp->name);
			if (ret)
				return ret;
			slash2[1] = '\0';
		}
		ret = parse_pmu(buf, sp, sp->name);
		if (ret)
			return ret;
		return sp->id;
	}
	colon = strrchr(buf, ':');
	if (colon) {
		*colon = '\0';
		mods = colon + 1;
		ret = parse_mods(mods, &sp->desc.flags, sp->name);
		if (ret)
			return ret;
	}
	if (!normalise(buf, strlen(buf), norm, sizeof(norm)) || !norm[0])
		return unknown_event(sp->name, NULL);
	id = lookup(norm);
	if (id < 0 && is_raw_name(norm)) {
		sp->id = PMUCTX_EV_RAW;
		sp->desc.type = PERF_TYPE_RAW;
		sp->desc.config = strtoull(norm + 1, NULL, 16);
		snprintf(sp->name, sizeof(sp->name), "%s%s%s", norm,
			 mods ? ":" : "", mods ? mods : "");
		return sp->id;
	}
	if (id < 0)
		return unknown_event(buf, norm);
	if (mods && (id == PMUCTX_EV_TASK_CLOCK ||
		     id == PMUCTX_EV_CONTEXT_SWITCHES ||
		     id == PMUCTX_EV_CPU_MIGRATIONS))
		return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
			"event '%s': %s has no user/kernel modes (the module "
			"counts it from the scheduler); drop ':%s'",
			sp->name, pmuctx_event_name(id), mods);
	sp->id = id;
	/* the canonical name, the modifiers as written: "cycles:u" */
	snprintf(sp->name, sizeof(sp->name), "%s%s%s", pmuctx_event_name(id),
		 mods ? ":" : "", mods ? mods : "");
	return id;
}

/* the end of the list element starting at @p: a ',' outside pmu/.../ */
static const char *element_end(const char *p)
{
	bool in_pmu = false;

	for (; *p; p++) {
		if (*p == '/')
			in_pmu = !in_pmu;
		else if (*p == ',' && !in_pmu)
			return p;
	}
	return p;
}

PMUCTX_API int pmuctx_event_spec_list_parse(const char *list,
					    struct pmuctx_event_spec *specs,
					    size_t max)
{
	struct pmuctx_event_spec found[PMUCTX_MAX_EVENTS];
	size_t limit = max < PMUCTX_MAX_EVENTS ? max : PMUCTX_MAX_EVENTS;
	const char *p, *end;
	unsigned int n = 0, total, i;

	if (!list || (!specs && max))
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "event list or output array is NULL");
	total = list_count(list, element_end);
	for (p = list; ; p = end + 1) {
		char one[PMUCTX_EVENT_NAME_LEN + 1];
		size_t len;
		int id;

		end = element_end(p);
		len = (size_t)(end - p);
		if (len > PMUCTX_EVENT_NAME_LEN)
			len = PMUCTX_EVENT_NAME_LEN;
		memcpy(one, p, len);
		one[len] = '\0';
		while (len && isspace((unsigned char)one[len - 1]))
			one[--len] = '\0';
		if (!one[strspn(one, " \t\n")])
			return pmuctx__err_set(NULL, PMUCTX_OP_EVENT, EINVAL,
				"empty event name in list '%s' (element %u)\n"
				"  separate names with single commas, e.g. "
				"task-clock,cs", list, n + 1);
		if (n >= PMUCTX_MAX_EVENTS || n >= limit)
			return list_too_long(list, total, limit);
		id = pmuctx_event_spec_parse(one, &found[n]);
		if (id < 0)
			return id;
		for (i = 0; i < n; i++)
			if (found[i].id == id &&
			    !memcmp(&found[i].desc, &found[n].desc,
				    sizeof(found[n].desc)))
				return pmuctx__err_set(NULL, PMUCTX_OP_EVENT,
					EINVAL,
					"event '%s' is listed twice in '%s' "
					"(already given as element %u, '%s')\n"
					"  each event may appear only once "
					"in a session in the same modes",
					found[n].name, list, i + 1,
					found[i].name);
		n++;
		if (!*end)
			break;
	}
	for (i = 0; i < n; i++)
		specs[i] = found[i];
	return (int)n;
}
