// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinding of a recording made on another architecture (issue 31
 * item 1): fixtures/dwarf-arm64/dwchain.pmu is `pmuctx record
 * --call-graph dwarf,1024 -F 99 -- tests/sample/dwchain 600` in the arm64
 * guest (tests/vm/cases/95-dwarf-arm64.sh, which leaves it in the results
 * share), fixtures/dwarf-arm64/dwchain the static aarch64 binary it ran
 * (main -> f1 -> f2 -> f3 without frame pointers: only the CFI of its
 * .eh_frame gets from f3 to main).  Its USER_STACK records hold
 * PMUCTX_REGS_ARM64 registers; reported on this host, whatever it is,
 * >= 90 % of dwchain's samples must unwind to main;f1;f2;f3, all the
 * records be read (none malformed) and unwound, and the unwound chains
 * replace the frame-pointer walks (one frame each).  With this test
 * program (this host's machine) in dwchain's place, the arm64 registers
 * are not unwound with its x86-64 CFI: none is, all are counted.
 *
 * The recording names the binary by its path in the guest's tree; the
 * memory maps are given to prof_build() with that path turned into the
 * fixture's, as report would read them where the file is there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "../../tools/pmfile.h"
#include "profile/profile.h"
#include "report/records.h"
#include "test.h"

#define FIXTURE	TOP_DIR "/tests/unit/fixtures/dwarf-arm64/"

/* @t (@len bytes), the path of each line ending in "/dwchain" made @path */
static char *repath(const char *t, size_t len, const char *path,
		    size_t *out_len, unsigned int *hits)
{
	size_t pl = strlen(path), n = 0, lines = 1, i;
	const char *end = t + len;
	char *out;

	for (i = 0; i < len; i++)
		lines += t[i] == '\n';
	out = malloc(len + lines * pl + 1);
	if (!out)
		return NULL;
	while (t < end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		size_t ll = nl ? (size_t)(nl - t) : (size_t)(end - t);
		const char *slash = memchr(t, '/', ll);

		if (slash && ll >= 8 && !memcmp(t + ll - 8, "/dwchain", 8)) {
			/* the fields before the path, then @path */
			memcpy(out + n, t, (size_t)(slash - t));
			n += (size_t)(slash - t);
			memcpy(out + n, path, pl);
			n += pl;
			(*hits)++;
		} else {
			memcpy(out + n, t, ll);
			n += ll;
		}
		if (nl)
			out[n++] = '\n';
		t += ll + 1;
	}
	*out_len = n;
	return out;
}

/* the sum of the counts of the folded lines of dwchain that contain @s */
static unsigned long folded_weight(const char *folded, const char *s)
{
	const char *l = folded;
	unsigned long w = 0;

	while (l && *l) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);
		const char *sp = memrchr(l, ' ', ll);
		char line[4096];

		if (sp && ll < sizeof(line) && !strncmp(l, "dwchain;", 8)) {
			memcpy(line, l, ll);
			line[ll] = 0;
			/* not the exit path: it has no user stack */
			if ((!s || strstr(line, s)) &&
			    !strstr(line, "do_group_exit"))
				w += strtoul(sp + 1, NULL, 10);
		}
		l = nl ? nl + 1 : NULL;
	}
	return w;
}

/* what prof_build() was given: freed after the profile */
struct built {
	struct prof_maps *maps;
	size_t nr_maps;
	const struct pmuctx_rec_header **recs;
	unsigned int hits;	/* map lines made @bin */
};

static void built_free(struct built *b)
{
	size_t i;

	for (i = 0; b->maps && i < b->nr_maps; i++)
		free((void *)b->maps[i].text);
	free(b->maps);
	free(b->recs);
}

/* the profile of @r, its maps naming @bin for the recorded dwchain */
static struct prof *build(const struct pmf_reader *r, const char *bin,
			  struct built *b)
{
	struct prof *p = NULL;
	struct prof_input in;
	char err[512];
	size_t i, n = 0;

	memset(b, 0, sizeof(*b));
	b->maps = calloc(r->nr_maps ? r->nr_maps : 1, sizeof(*b->maps));
	if (!b->maps)
		return NULL;
	b->nr_maps = r->nr_maps;
	for (i = 0; i < r->nr_maps; i++) {
		b->maps[i].pid = r->maps[i].pid;
		b->maps[i].time = r->maps[i].time;
		b->maps[i].text = repath(r->maps[i].text, r->maps[i].len, bin,
					 &b->maps[i].len, &b->hits);
	}
	b->recs = report_merged(r, &n);
	if (!b->recs)
		return NULL;
	memset(&in, 0, sizeof(in));
	in.recs = b->recs;
	in.nr_recs = n;
	in.maps = b->maps;
	in.nr_maps = r->nr_maps;
	in.no_kernel_syms = true;	/* the guest's kernel */
	if (prof_build(&in, &p, err, sizeof(err)))
		t_diag("prof_build: %s", err);
	return p;
}

static void t_arm64_on_host(void)
{
	struct pmf_reader *r = NULL;
	struct prof *p = NULL;
	struct built b = { 0 };
	unsigned long all, full;
	char err[512] = "", *folded = NULL, exe[4096];
	struct utsname un;
	size_t flen = 0;
	ssize_t k;
	FILE *f;

	t_section("dwarf: an arm64 recording reported on this host");
	CHECK_EQ(pmf_read(FIXTURE "dwchain.pmu", 0, &r, err, sizeof(err)), 0,
		 "the fixture reads%s%s", *err ? ": " : "", err);
	if (!r)
		return;
	p = build(r, FIXTURE "dwchain", &b);
	CHECK(b.hits > 0, "the maps name dwchain (%u lines)", b.hits);
	CHECK(p, "prof_build");
	if (!p)
		goto out;
	f = open_memstream(&folded, &flen);
	if (!f)
		goto out;
	prof_write_folded(p, PROF_WEIGHT_SAMPLES, f);
	fclose(f);
	all = folded_weight(folded, NULL);
	full = folded_weight(folded, "main;f1;f2;f3");
	CHECK(all >= 20 && full * 100 >= all * 90,
	      ">= 90%% of at least 20 dwchain samples unwind to main;f1;f2;f3 "
	      "(%lu of %lu)", full, all);
	if (full * 100 < all * 90)
		t_diag("%.2000s", folded ? folded : "");
	CHECK(p->dwarf.records >= 20 && !p->dwarf.bad &&
	      p->dwarf.unwound == p->dwarf.records && !p->dwarf.no_map,
	      "USER_STACK records: %llu, %llu malformed, %llu unwound, "
	      "%llu without a map", (unsigned long long)p->dwarf.records,
	      (unsigned long long)p->dwarf.bad,
	      (unsigned long long)p->dwarf.unwound,
	      (unsigned long long)p->dwarf.no_map);
	CHECK(p->dwarf.used * 10 >= p->dwarf.records * 9,
	      "the unwound chains replace the frame-pointer walks (%llu of "
	      "%llu)", (unsigned long long)p->dwarf.used,
	      (unsigned long long)p->dwarf.records);
	prof_free(p);
	p = NULL;
	built_free(&b);
	memset(&b, 0, sizeof(b));

	/*
	 * The same records with this test program (this host's machine)
	 * where dwchain was: arm64 registers are not unwound with another
	 * architecture's files, and counted
	 */
	if (uname(&un) || !strcmp(un.machine, "aarch64")) {
		t_diag("an aarch64 host: no file of another architecture");
		goto out;
	}
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (k <= 0)
		goto out;
	exe[k] = 0;
	p = build(r, exe, &b);
	CHECK(p && p->dwarf.records >= 20 && !p->dwarf.unwound &&
	      p->dwarf.no_map == p->dwarf.records && !p->dwarf.used,
	      "with files of another architecture: none unwound (%llu of "
	      "%llu records counted without a map)",
	      p ? (unsigned long long)p->dwarf.no_map : 0ULL,
	      p ? (unsigned long long)p->dwarf.records : 0ULL);
out:
	free(folded);
	prof_free(p);
	built_free(&b);
	pmf_free(r);
}

void test_unwind_file(void)
{
	t_arm64_on_host();
}
