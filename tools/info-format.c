// SPDX-License-Identifier: GPL-2.0
/*
 * Output formatters of "pmuctx info".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "info-format.h"
#include "json.h"
#include "stat-format.h"

static const char *version_of(const struct pmuctx_info *info, char *buf,
			      size_t len)
{
	snprintf(buf, len, "%.*s", PMUCTX_VERSION_LEN,
		 info->version[0] ? info->version : "unknown");
	return buf;
}

static void line_u64(FILE *f, const char *label, uint64_t v, const char *unit)
{
	char b[32];

	fprintf(f, "  %-22s %s%s\n", label, fmt_grouped_u64(b, sizeof(b), v),
		unit);
}

/* The limits "pmuctx info" shows, in this order (module/main.c, budget.c). */
static const struct {
	const char *name, *what;
} info_param_names[] = {
	{ "max_sample_freq", "Hz, per session and CPU" },
	{ "sample_budget", "samples/s, all sessions together" },
	{ "sample_cpu_percent", "% of each CPU sampling may use" },
	{ "sample_budget_now", "samples/s allowed now (lowered by cost)" },
	{ "sample_budget_dropped", "samples the budget refused so far" },
	{ "max_sessions_per_user", "sessions, per unprivileged user" },
	{ "max_tasks_per_user", "entries, per unprivileged user" },
	{ "max_tasks", "entries, all sessions" },
	{ "max_ring_pages", "data pages per CPU, per session" },
	{ "max_exited", "exited tasks kept, per session (default)" },
	{ "pool_size", "pre-allocated entries per CPU and session" },
	{ "pending_works", "works queued in tasks, each pins the module (names: the parameter)" },
};

/*
 * Read the parameters named above from @dir (/sys/module/pmuctx/
 * parameters); those the module does not have (an older one) are left
 * out.
 */
void info_read_params(struct info_params *ps, const char *dir)
{
	unsigned int i;

	ps->n = 0;
	for (i = 0; i < sizeof(info_param_names) / sizeof(info_param_names[0]) &&
		    ps->n < INFO_MAX_PARAMS; i++) {
		char path[256], line[64], *end;
		unsigned long long v;
		FILE *pf;

		snprintf(path, sizeof(path), "%s/%s", dir,
			 info_param_names[i].name);
		pf = fopen(path, "r");
		if (!pf)
			continue;
		if (!fgets(line, sizeof(line), pf)) {
			fclose(pf);
			continue;
		}
		fclose(pf);
		v = strtoull(line, &end, 10);
		if (end == line)
			continue;
		ps->p[ps->n].name = info_param_names[i].name;
		ps->p[ps->n].what = info_param_names[i].what;
		ps->p[ps->n].value = v;
		ps->n++;
	}
}

static void print_params_human(FILE *f, const struct info_params *ps)
{
	char b[32];
	unsigned int i;

	if (!ps || !ps->n)
		return;
	fprintf(f, "\nlimits (module parameters):\n");
	for (i = 0; i < ps->n; i++)
		fprintf(f, "  %-22s %s %s\n", ps->p[i].name,
			fmt_grouped_u64(b, sizeof(b), ps->p[i].value),
			ps->p[i].what);
}

const char *(*info_feature_lookup)(unsigned int bit) = pmuctx_feature_name;

/*
 * The name of feature bit @bit: the library's; for a bit the library
 * does not know (a libpmuctx.so.0 older than this tool: early 0.3 builds
 * named bits 0-5 only, later ones not mmap) the name this tool's
 * <linux/pmuctx.h> gives it, so that info never prints "bit6" for a bit
 * its manual names.
 */
static const char *feature_name(unsigned int bit, char *buf, size_t len)
{
	static const struct {
		__u64 mask;
		const char *name;
	} own[] = {
		{ PMUCTX_FEAT_COUNTING, "counting" },
		{ PMUCTX_FEAT_INHERIT, "inherit" },
		{ PMUCTX_FEAT_SYSTEM_WIDE, "system-wide" },
		{ PMUCTX_FEAT_CGROUP, "cgroup" },
		{ PMUCTX_FEAT_SELFTEST, "selftest" },
		{ PMUCTX_FEAT_HW_PMU, "hw-pmu" },
		{ PMUCTX_FEAT_RING, "ring" },
		{ PMUCTX_FEAT_SAMPLING, "sampling" },
		{ PMUCTX_FEAT_MMAP, "mmap" },
		{ PMUCTX_FEAT_USER_DUMP, "user-dump" },
		{ PMUCTX_FEAT_SWITCHLESS, "switchless" },
	};
	const char *n = info_feature_lookup ? info_feature_lookup(bit) : NULL;
	size_t i;

	for (i = 0; !n && i < sizeof(own) / sizeof(own[0]); i++)
		if (own[i].mask == 1ULL << bit)
			n = own[i].name;
	if (n)
		return n;
	snprintf(buf, len, "bit%u", bit);
	return buf;
}

/*
 * The scheduler probes: a module with PMUCTX_FEAT_SWITCHLESS hooks
 * sched_switch apart from the others (PMUCTX_PROBES_* bits); an older one
 * reports 1 for all of them.
 */
static bool switch_bits(const struct pmuctx_info *info)
{
	return info->features & PMUCTX_FEAT_SWITCHLESS;
}

static const char *probes_text(const struct pmuctx_info *info)
{
	if (!info->probes_registered)
		return "not registered";
	if (!switch_bits(info))
		return "registered";
	return info->probes_registered & PMUCTX_PROBES_SWITCH ?
	       "registered, sched_switch included" :
	       "registered, sched_switch not (switchless sessions only)";
}

void info_print_human(FILE *f, const struct pmuctx_info *info,
		      const struct info_params *ps)
{
	bool v1 = info->size >= PMUCTX_INFO_SIZE_VER1;
	char ver[PMUCTX_VERSION_LEN + 1];
	unsigned int bit;
	int shown = 0;

	fprintf(f, "pmuctx module %s\n", version_of(info, ver, sizeof(ver)));
	fprintf(f, "  %-22s module %u, library %d (libpmuctx %s)%s\n",
		"ABI version:", info->abi_version, pmuctx_abi_version(),
		pmuctx_version(),
		(int)info->abi_version != pmuctx_abi_version() ?
		"  [MISMATCH]" : "");
	fprintf(f, "  %-22s", "features:");
	for (bit = 0; bit < 64; bit++) {
		char b[16];

		if (!(info->features & (1ULL << bit)))
			continue;
		fprintf(f, " %s", feature_name(bit, b, sizeof(b)));
		shown++;
	}
	if (!shown)
		fprintf(f, " (none)");
	if (!(info->features & PMUCTX_FEAT_HW_PMU))
		fprintf(f, "   [no hardware PMU: only software events]");
	fputc('\n', f);
	fprintf(f, "  %-22s %u\n", "CPUs:", info->nr_cpus);

	fprintf(f, "\nstore:\n");
	line_u64(f, "tasks tracked:", info->tasks_tracked, "");
	line_u64(f, "store bytes:", info->store_bytes, "");
	if (!v1) {
		fprintf(f, "  (the module reports only the first %u bytes of "
			"statistics; the rest needs a newer module)\n",
			info->size);
		return;
	}
	fprintf(f, "  %-22s %u\n", "sessions:", info->sessions);
	fprintf(f, "  %-22s %s\n", "probes:", probes_text(info));
	line_u64(f, "entry size:", info->entry_bytes, " bytes");
	line_u64(f, "max tasks:", info->max_tasks, "");
	line_u64(f, "entries created:", info->entries_created, "");
	line_u64(f, "entries freed:", info->entries_freed, "");
	line_u64(f, "alloc failures:", info->alloc_failures, "");
	line_u64(f, "pool entries:", info->pool_entries, "");
	line_u64(f, "dropped:", info->dropped, "");
	print_params_human(f, ps);

	fprintf(f, "\nselftest:\n");
	line_u64(f, "checks:", info->selftest_checks, "");
	line_u64(f, "mismatches:", info->selftest_mismatches, "");
	line_u64(f, "migrations:", info->selftest_migrations, "");
	if (info->selftest_mismatches)
		fprintf(f, "\nwarning: %" PRIu64 " selftest save area(s) did "
			"not hold their task's signature: the per-task data "
			"did not follow its task\n",
			(uint64_t)info->selftest_mismatches);
	if (info->dropped)
		fprintf(f, "\nnote: %" PRIu64 " task(s) or slices were not "
			"tracked (max_tasks cap or pool empty)\n",
			(uint64_t)info->dropped);
}

void info_print_json(FILE *f, const struct pmuctx_info *info,
		     const struct info_params *ps)
{
	bool v1 = info->size >= PMUCTX_INFO_SIZE_VER1;
	char ver[PMUCTX_VERSION_LEN + 1], b[16];
	struct json j;
	unsigned int bit;

	json_init(&j, f);
	json_begin_object(&j);
	json_kv_string(&j, "version", version_of(info, ver, sizeof(ver)));
	json_kv_u64(&j, "abi_version", info->abi_version);
	json_kv_i64(&j, "library_abi_version", pmuctx_abi_version());
	json_kv_string(&j, "library_version", pmuctx_version());
	json_kv_u64(&j, "info_size", info->size);
	json_kv_u64(&j, "features_mask", info->features);
	json_key(&j, "features");
	json_begin_array(&j);
	for (bit = 0; bit < 64; bit++)
		if (info->features & (1ULL << bit))
			json_string(&j, feature_name(bit, b, sizeof(b)));
	json_end_array(&j);
	json_kv_u64(&j, "nr_cpus", info->nr_cpus);
	json_kv_u64(&j, "tasks_tracked", info->tasks_tracked);
	json_kv_u64(&j, "store_bytes", info->store_bytes);
	if (v1) {
		json_kv_u64(&j, "sessions", info->sessions);
		json_kv_bool(&j, "probes_registered",
			     info->probes_registered != 0);
		if (switch_bits(info))
			json_kv_bool(&j, "switch_probe_registered",
				     info->probes_registered &
				     PMUCTX_PROBES_SWITCH);
		json_kv_u64(&j, "entry_bytes", info->entry_bytes);
		json_kv_u64(&j, "max_tasks", info->max_tasks);
		json_kv_u64(&j, "entries_created", info->entries_created);
		json_kv_u64(&j, "entries_freed", info->entries_freed);
		json_kv_u64(&j, "alloc_failures", info->alloc_failures);
		json_kv_u64(&j, "pool_entries", info->pool_entries);
		json_kv_u64(&j, "dropped", info->dropped);
		json_kv_u64(&j, "selftest_checks", info->selftest_checks);
		json_kv_u64(&j, "selftest_mismatches",
			    info->selftest_mismatches);
		json_kv_u64(&j, "selftest_migrations",
			    info->selftest_migrations);
	}
	if (ps && ps->n) {
		unsigned int i;

		json_key(&j, "limits");
		json_begin_object(&j);
		for (i = 0; i < ps->n; i++)
			json_kv_u64(&j, ps->p[i].name, ps->p[i].value);
		json_end_object(&j);
	}
	json_end_object(&j);
	fputc('\n', f);
}
