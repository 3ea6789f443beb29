// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols (lib/symbols.c) and the profile writers (tools/profile):
 *  - kallsyms: core and module symbols, return addresses, hidden
 *    addresses;
 *  - user maps: this test program (PIE), libc (a shared library), a
 *    stripped copy of this program ("[unknown] (file+0xELF address)"), a
 *    missing file, [vdso], maps chosen by time; PLT stubs named NAME@plt
 *    (libpltprobe*.so, checked against objdump's names);
 *  - folded stacks, the perf-report-like table, pprof (decoded again
 *    with protobuf-c's unpacker; unknown frames apart by mapping and
 *    address), and a whole build from synthetic records with deferred
 *    user callchains.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "test.h"
#include "profile/profile.h"
#include "profile/profile.pb-c.h"

/* test_stitch.c */
const struct pmuctx_rec_header *ts_sample(__u64 time, __u32 cpu, __s32 pid,
					  __s32 tid, __u16 misc, __u64 cookie,
					  __u64 period, const __u64 *kips,
					  unsigned int nk, const __u64 *uips,
					  unsigned int nu);
const struct pmuctx_rec_header *ts_user(__u64 time, __u32 cpu, __s32 pid,
					__s32 tid, __u64 cookie,
					const __u64 *ips, unsigned int n);
const struct pmuctx_rec_header *ts_simple(__u32 type, __u64 time, __u32 cpu,
					  __s32 pid, __s32 tid);

/* functions with known names, in this (PIE) program */
static volatile int ts_sink;
__attribute__((noinline)) void ts_outer_fn(void);
__attribute__((noinline)) void ts_inner_fn(void);
__attribute__((noinline)) void ts_inner_fn(void)
{
	ts_sink++;
	ts_sink *= 3;
}

__attribute__((noinline)) void ts_outer_fn(void)
{
	ts_inner_fn();
	ts_sink++;
}

static char *slurp(const char *path, size_t *len)
{
	char *b = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *nb = realloc(b, cap ? cap * 2 : 65536);

			if (!nb)
				break;
			b = nb;
			cap = cap ? cap * 2 : 65536;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (b)
		b[n] = '\0';
	*len = n;
	return b;
}

static char kallsyms_path[64], hidden_path[64], stripped_path[64];

static void write_file(char *tmpl, const char *text)
{
	int fd = mkstemp(tmpl);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			tmpl[0] = '\0';
		close(fd);
	}
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 T entry_SYSCALL_64\n"
	"ffffffff81002000 T do_syscall_64\n"
	"ffffffff81002800 D some_data\n"
	"ffffffff81003000 t read_zero\n"
	"ffffffff81004000 W clear_user\n"
	"ffffffff81005000 T _etext\n"
	"ffffffffc0001000 t pmuctx_sample_tick\t[pmuctx]\n"
	"ffffffffc0002000 T pmuctx_init\t[pmuctx]\n";

static const char hidden_text[] =
	"0000000000000000 T _text\n"
	"0000000000000000 T do_syscall_64\n"
	"0000000000000000 t read_zero\t[pmuctx]\n";

/* ---- symbols ------------------------------------------------------------- */

static void t_kernel_syms(void)
{
	LIBPMUCTX_OPTS(pmuctx_syms_opts, o, .kallsyms = kallsyms_path);
	LIBPMUCTX_OPTS(pmuctx_syms_opts, oh, .kallsyms = hidden_path);
	struct pmuctx_syms *y = NULL;
	struct pmuctx_sym s;
	int r;

	CHECK(!pmuctx_syms_new(&y, &o) && y, "pmuctx_syms_new(kallsyms=%s)",
	      kallsyms_path);
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81002010ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 0 && s.name && !strcmp(s.name, "do_syscall_64") &&
	      s.offset == 0x10 && s.start == 0xffffffff81002000ULL &&
	      !strcmp(s.module, "[kernel.kallsyms]"),
	      "a kernel address: do_syscall_64+0x10 in [kernel.kallsyms]");
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81002900ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 0 && !strcmp(s.name, "do_syscall_64"),
	      "data symbols are not functions (D skipped)");
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81003000ULL,
			       PMUCTX_SYM_KERNEL | PMUCTX_SYM_RETADDR, &s);
	CHECK(r == 0 && !strcmp(s.name, "do_syscall_64"),
	      "a return address at a function's start is the caller's");
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81003000ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 0 && !strcmp(s.name, "read_zero"), "t symbols count");
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81004004ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 0 && !strcmp(s.name, "clear_user"), "W symbols count");
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81000010ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 0 && !strcmp(s.name, "_text"),
	      "two names at one address: the first in order");
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffffc0001234ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 0 && !strcmp(s.name, "pmuctx_sample_tick") &&
	      !strcmp(s.module, "[pmuctx]") &&
	      s.mod_start == 0xffffffffc0001000ULL,
	      "a module symbol: pmuctx_sample_tick in [pmuctx]");
	r = pmuctx_syms_lookup(y, 0, 0, 0x1000, PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 1 && !s.name && (s.flags & PMUCTX_SYM_UNKNOWN),
	      "below every symbol: unknown");
	CHECK_EQ(pmuctx_syms_lookup(y, 0, 0, 1, 0x80, &s), -EINVAL,
		 "unknown lookup flags: -EINVAL");
	pmuctx_syms_free(y);

	y = NULL;
	pmuctx_syms_new(&y, &oh);
	r = pmuctx_syms_lookup(y, 0, 0, 0xffffffff81002010ULL,
			       PMUCTX_SYM_KERNEL, &s);
	CHECK(r == 1 && (s.flags & PMUCTX_SYM_HIDDEN) && !s.name,
	      "kallsyms with zero addresses: hidden, unknown");
	pmuctx_syms_free(y);
}

static __u64 first_start(const char *maps, const char *path)
{
	const char *p = maps;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		unsigned long long a;

		if (n > strlen(path) && !memcmp(p + n - strlen(path), path,
						strlen(path)) &&
		    sscanf(p, "%llx-", &a) == 1)
			return a;
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* @maps with every @from path replaced by @to */
static char *replace_path(const char *maps, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	const char *p = maps, *q;
	char *out, *o;

	for (q = strstr(p, from); q; q = strstr(q + fl, from))
		n++;
	out = malloc(strlen(maps) + n * (tl + 1) + 1);
	if (!out)
		return NULL;
	o = out;
	while ((q = strstr(p, from))) {
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, tl);
		o += tl;
		p = q + fl;
	}
	strcpy(o, p);
	return out;
}

static void t_user_syms(void)
{
	LIBPMUCTX_OPTS(pmuctx_syms_opts, o, .flags = PMUCTX_SYMS_NO_KERNEL);
	struct pmuctx_syms *y = NULL;
	struct pmuctx_sym s;
	char exe[512], cmd[1200], *maps, *smaps;
	__u64 fa = (__u64)(uintptr_t)ts_inner_fn + 2, base;
	__u64 la = (__u64)(uintptr_t)&getpid;
	ssize_t n;
	size_t len;
	int r;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	maps = slurp("/proc/self/maps", &len);
	CHECK(maps && n > 0, "read /proc/self/maps and /proc/self/exe");
	if (!maps || n <= 0)
		return;
	pmuctx_syms_new(&y, &o);
	CHECK_EQ(pmuctx_syms_add_maps(y, 1234, 1000, maps, len), 0,
		 "pmuctx_syms_add_maps(this process)");
	r = pmuctx_syms_lookup(y, 1234, 2000, fa, 0, &s);
	CHECK(r == 0 && s.name && !strcmp(s.name, "ts_inner_fn") &&
	      s.offset == 2 && !strcmp(s.module, exe),
	      "an address in this PIE program: ts_inner_fn+2 (%s)",
	      s.name ? s.name : "(null)");
	base = first_start(maps, exe);
	CHECK(s.mod_start == base && s.mod_end > fa,
	      "the module's range is this program's mapping");
	r = pmuctx_syms_lookup(y, 1234, 2000,
			       (__u64)(uintptr_t)ts_outer_fn + 1,
			       PMUCTX_SYM_RETADDR, &s);
	CHECK(r == 0 && !strcmp(s.name, "ts_outer_fn"),
	      "a return address inside ts_outer_fn");
	r = pmuctx_syms_lookup(y, 1234, 2000, la, 0, &s);
	CHECK(r == 0 && s.name && strstr(s.name, "getpid") &&
	      strstr(s.module, "libc"),
	      "an address in libc (shared library): %s in %s",
	      s.name ? s.name : "(null)", s.module);
	r = pmuctx_syms_lookup(y, 1234, 2000, 0x10, 0, &s);
	CHECK(r == 1 && (s.flags & PMUCTX_SYM_NO_MAP) &&
	      !strcmp(s.module, "[unknown]"), "an unmapped address: unknown");
	r = pmuctx_syms_lookup(y, 99, 2000, fa, 0, &s);
	CHECK(r == 1 && (s.flags & PMUCTX_SYM_NO_MAP),
	      "a process without maps: unknown");
	pmuctx_syms_free(y);

	/* a stripped copy: no name, the ELF address in the file */
	snprintf(stripped_path, sizeof(stripped_path),
		 "/tmp/pmuctx-stripped.XXXXXX");
	close(mkstemp(stripped_path));
	snprintf(cmd, sizeof(cmd), "strip -o '%s' '%s' 2>/dev/null",
		 stripped_path, exe);
	if (system(cmd) == 0) {
		smaps = replace_path(maps, exe, stripped_path);
		y = NULL;
		pmuctx_syms_new(&y, &o);
		pmuctx_syms_add_maps(y, 1, 0, smaps, strlen(smaps));
		r = pmuctx_syms_lookup(y, 1, 0, fa, 0, &s);
		CHECK(r == 1 && !s.name && (s.flags & PMUCTX_SYM_UNKNOWN) &&
		      !strcmp(s.module, stripped_path) &&
		      s.offset == fa - base,
		      "a stripped program: unknown, file and ELF address "
		      "(0x%llx, want 0x%llx)", (unsigned long long)s.offset,
		      (unsigned long long)(fa - base));
		pmuctx_syms_free(y);
		free(smaps);
	} else {
		CHECK(0, "strip -o %s %s", stripped_path, exe);
	}
	unlink(stripped_path);
	free(maps);

	/* a file that is gone, [vdso], and maps chosen by time */
	y = NULL;
	pmuctx_syms_new(&y, &o);
	maps = "7f0000000000-7f0000010000 r-xp 00002000 08:01 12 "
	       "/nonexistent/libfoo.so\n"
	       "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n";
	pmuctx_syms_add_maps(y, 5, 100, maps, strlen(maps));
	r = pmuctx_syms_lookup(y, 5, 200, 0x7f0000001234ULL, 0, &s);
	CHECK(r == 1 && !s.name && !strcmp(s.module, "/nonexistent/libfoo.so")
	      && s.offset == 0x3234,
	      "a missing file: unknown, the path and the file offset");
	r = pmuctx_syms_lookup(y, 5, 200, 0x7ffd00000010ULL, 0, &s);
	CHECK(r == 1 && !strcmp(s.module, "[vdso]") && s.offset == 0x10,
	      "[vdso]: unknown, offset in it");
	maps = "7f0000000000-7f0000010000 r-xp 00000000 08:01 13 "
	       "/nonexistent/libbar.so\n";
	pmuctx_syms_add_maps(y, 5, 300, maps, strlen(maps));
	r = pmuctx_syms_lookup(y, 5, 250, 0x7f0000001234ULL, 0, &s);
	CHECK(r == 1 && strstr(s.module, "libfoo"),
	      "before the second map: the first");
	r = pmuctx_syms_lookup(y, 5, 350, 0x7f0000001234ULL, 0, &s);
	CHECK(r == 1 && strstr(s.module, "libbar"),
	      "after the second map (exec): the second");
	r = pmuctx_syms_lookup(y, 5, 50, 0x7ffd00000010ULL, 0, &s);
	CHECK(r == 1 && !strcmp(s.module, "[vdso]"),
	      "an address only the other map has: found there");
	pmuctx_syms_free(y);
}

/* ---- profiles ------------------------------------------------------------- */

static char *run_writer(int (*fn)(const struct prof *, enum prof_weight,
				  FILE *), const struct prof *p,
			enum prof_weight w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(p, w, f);
	fclose(f);
	return buf;
}

static const char *const CHAIN[] = { "clear_user", "read_zero",
				     "do_syscall_64", "f3", "f2", "f1",
				     "main" };

static struct prof *sample_prof(void)
{
	static const char *const other[] = { "spin", "main" };
	static const char *const weird[] = { "a;b", "main" };
	struct prof *p = NULL;

	prof_new(&p);
	prof_add_named(p, "chain", 10, 10, CHAIN, 7, 3, 5, 5000);
	prof_add_named(p, "chain", 10, 11, CHAIN, 7, 3, 2, 2000);
	prof_add_named(p, "chain", 10, 11, CHAIN + 3, 4, 0, 3, 3000);
	prof_add_named(p, "burn", 20, 20, other, 2, 0, 10, 990);
	prof_add_named(p, "my prog", 30, 30, weird, 2, 0, 1, 1);
	p->sample_freq = 999;
	return p;
}

static bool folded_ok(const char *text, unsigned int *lines)
{
	const char *p = text;

	*lines = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *sp;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[4096];

		if (n >= sizeof(line))
			return false;
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : NULL;
		if (line[0] == '#')	/* the header: what the counts are */
			continue;
		sp = strrchr(line, ' ');
		if (!sp || sp == line || !sp[1] ||
		    strspn(sp + 1, "0123456789") != strlen(sp + 1) ||
		    strstr(line, ";;") || line[0] == ';' || sp[-1] == ';')
			return false;
		(*lines)++;
	}
	return true;
}

static void t_folded(void)
{
	struct prof *p = sample_prof();
	unsigned int lines;
	char *out;

	out = run_writer(prof_write_folded, p, PROF_WEIGHT_SAMPLES);
	CHECK_HAS(out, "chain;main;f1;f2;f3;do_syscall_64;read_zero;"
		  "clear_user 7\n",
		  "folded: comm, user outermost first, then kernel, merged "
		  "over threads (5 + 2)");
	CHECK_HAS(out, "chain;main;f1;f2;f3 3\n", "a user-only stack");
	CHECK_HAS(out, "burn;main;spin 10\n", "another command");
	CHECK_HAS(out, "my_prog;main;a:b 1\n",
		  "';' in a frame and ' ' in a comm are replaced");
	CHECK(folded_ok(out, &lines) && lines == 4,
	      "every line is 'frames count' (%u lines)", lines);
	CHECK(out && !strncmp(out, "# pmuctx folded stacks, weight: samples "
			      "(", 41),
	      "folded: the first line says the counts are samples");
	free(out);
	out = run_writer(prof_write_folded, p, PROF_WEIGHT_PERIOD);
	CHECK_HAS(out, "clear_user 7000\n", "--weight period: ns");
	CHECK_HAS(out, "burn;main;spin 990\n", "--weight period: ns (2)");
	CHECK(out && !strncmp(out, "# pmuctx folded stacks, weight: period "
			      "(ns of CPU time", 54) &&
	      !strchr("0123456789", strchr(out, '\n')[-1]),
	      "folded: the first line says period, ns, and ends in no "
	      "number (no reader takes it for a stack)");
	free(out);
	prof_free(p);
}

static void t_text(void)
{
	struct prof *p = sample_prof();
	char *out = run_writer(prof_write_text, p, PROF_WEIGHT_SAMPLES);

	CHECK_HAS(out, "# Samples: 21 of event 'cpu-clock' (999 Hz",
		  "text: the sample count and frequency");
	CHECK_HAS(out, "Children      Self  Command", "text: the columns");
	/* main is in 20 of 21 samples of chain+burn... per command */
	CHECK_HAS(out, "   47.62%     0.00%  chain             chain"
		  "                     [.] main",
		  "main of chain: children 10/21, self 0");
	CHECK_HAS(out, "   33.33%    33.33%  chain             "
		  "[kernel.kallsyms]         [k] clear_user",
		  "clear_user: children = self = 7/21, [k]");
	CHECK_HAS(out, "   47.62%    47.62%  burn              burn"
		  "                      [.] spin", "spin: 10/21");
	CHECK_HAS(out, "# Weight: samples (the number of samples",
		  "text: the header says samples are counted");
	free(out);
	/* by period: 5000+2000+3000 of 10991 ns in clear_user's stacks... */
	out = run_writer(prof_write_text, p, PROF_WEIGHT_PERIOD);
	CHECK_HAS(out, "# Weight: period (ns of CPU time",
		  "text by period: the header says so");
	CHECK_HAS(out, "   90.98%     0.00%  chain             chain"
		  "                     [.] main",
		  "text by period: main of chain 10000/10991 ns");
	free(out);
	prof_free(p);
}

static void *gunzip(const void *in, size_t inlen, size_t *outlen)
{
	size_t cap = inlen * 8 + 4096;
	unsigned char *b = malloc(cap);
	z_stream z;
	int r;

	memset(&z, 0, sizeof(z));
	if (!b || inflateInit2(&z, 15 + 32) != Z_OK) {
		free(b);
		return NULL;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)inlen;
	z.next_out = b;
	z.avail_out = (uInt)cap;
	r = inflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(b);
		return NULL;
	}
	return b;
}

typedef Perftools__Profiles__Profile PProfile;

static const char *pstr(const PProfile *pp, int64_t i)
{
	return i >= 0 && (size_t)i < pp->n_string_table ?
	       pp->string_table[i] : "(bad index)";
}

static const char *loc_name(const PProfile *pp, uint64_t id)
{
	size_t i, j;

	for (i = 0; i < pp->n_location; i++) {
		if (pp->location[i]->id != id || !pp->location[i]->n_line)
			continue;
		for (j = 0; j < pp->n_function; j++)
			if (pp->function[j]->id ==
			    pp->location[i]->line[0]->function_id)
				return pstr(pp, pp->function[j]->name);
	}
	return "(no location)";
}

static void t_pprof(void)
{
	struct prof *p = sample_prof();
	PProfile *pp = NULL;
	void *gz = NULL, *raw = NULL;
	size_t gzlen = 0, rawlen = 0, i, j;
	bool ids_ok = true, found = false, labels = false;
	int err;

	p->start_real_ns = 1700000000000000000ULL;
	p->duration_ns = 2000000000ULL;
	err = prof_pprof_encode(p, PROF_WEIGHT_PERIOD, &gz, &gzlen);
	CHECK(!err && gz && gzlen > 18, "pprof: encoded (%zu bytes)", gzlen);
	CHECK(gz && ((unsigned char *)gz)[0] == 0x1f &&
	      ((unsigned char *)gz)[1] == 0x8b, "pprof: gzip magic");
	raw = gz ? gunzip(gz, gzlen, &rawlen) : NULL;
	CHECK(raw != NULL, "pprof: gunzips");
	if (raw)
		pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	CHECK(pp != NULL, "pprof: protobuf-c unpacks it as a Profile");
	if (!pp)
		goto out;
	CHECK(pp->n_string_table > 0 && !strcmp(pp->string_table[0], ""),
	      "string_table[0] is \"\"");
	CHECK(pp->n_sample_type == 2 &&
	      !strcmp(pstr(pp, pp->sample_type[0]->type), "samples") &&
	      !strcmp(pstr(pp, pp->sample_type[0]->unit), "count") &&
	      !strcmp(pstr(pp, pp->sample_type[1]->type), "cpu") &&
	      !strcmp(pstr(pp, pp->sample_type[1]->unit), "nanoseconds"),
	      "sample types samples/count and cpu/nanoseconds");
	CHECK(pp->period_type &&
	      !strcmp(pstr(pp, pp->period_type->type), "cpu") &&
	      pp->period == 1000000000LL / 999,
	      "period_type cpu/nanoseconds, period 1/999 s");
	CHECK(pp->time_nanos == 1700000000000000000LL &&
	      pp->duration_nanos == 2000000000LL, "time and duration");
	CHECK_EQ(pp->n_sample, 5, "one Sample per distinct stack");
	for (i = 0; i < pp->n_location; i++)
		if (!pp->location[i]->id || !pp->location[i]->mapping_id ||
		    pp->location[i]->n_line != 1)
			ids_ok = false;
	for (i = 0; i < pp->n_function; i++)
		if (!pp->function[i]->id)
			ids_ok = false;
	CHECK(ids_ok && pp->n_location == 11 && pp->n_mapping >= 2,
	      "locations (%zu) and functions have ids, one Line each; "
	      "mappings", pp->n_location);
	for (i = 0; i < pp->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pp->sample[i];

		if (s->n_location_id != 7 || s->n_value != 2 ||
		    s->value[0] != 5)
			continue;
		found = !strcmp(loc_name(pp, s->location_id[0]), "clear_user")
			&& !strcmp(loc_name(pp, s->location_id[3]), "f3") &&
			!strcmp(loc_name(pp, s->location_id[6]), "main") &&
			s->value[1] == 5000;
		for (j = 0; j < s->n_label; j++)
			if (!strcmp(pstr(pp, s->label[j]->key), "comm") &&
			    !strcmp(pstr(pp, s->label[j]->str), "chain"))
				labels = true;
	}
	CHECK(found, "the chain sample: leaf first (clear_user ... f3 ... "
	      "main), values 5 and 5000 ns");
	CHECK(labels, "label comm=chain");
out:
	if (pp)
		perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
	prof_free(p);
}

/* the Location at @addr, or NULL */
static const Perftools__Profiles__Location *loc_at(const PProfile *pp,
						   __u64 addr)
{
	size_t i;

	for (i = 0; i < pp->n_location; i++)
		if (pp->location[i]->address == addr)
			return pp->location[i];
	return NULL;
}

/*
 * Frames without a symbol: two anonymous mappings, the same offset in
 * each, and two addresses no mapping holds.  pprof must keep all four
 * apart: own Locations with their address (and Mapping), and no Function
 * shared between two of them.
 */
static void t_pprof_unknown(void)
{
	static const char maps[] =
		"7f1000000000-7f1000010000 r-xp 00000000 00:00 0 \n"
		"7f2000000000-7f2000010000 r-xp 00000000 00:00 0 \n";
	static const __u64 a[4] = { 0x7f1000000100ULL, 0x1000,
				    0x7f2000000100ULL, 0x2000 };
	const struct pmuctx_rec_header *recs[2];
	static __u64 store[2][32];
	const Perftools__Profiles__Location *l[4];
	__u64 fid[4];
	struct prof_input in;
	struct prof_maps m = { .pid = 50, .text = maps,
			       .len = sizeof(maps) - 1 };
	struct prof *p = NULL;
	PProfile *pp = NULL;
	void *gz = NULL, *raw = NULL;
	size_t gzlen = 0, rawlen = 0, i, j;
	bool found = true, apart = true;
	char err[256];
	int e;

	for (i = 0; i < 2; i++) {
		const struct pmuctx_rec_header *h =
			ts_sample(10 + i, 0, 50, 50, PMUCTX_SAMPLE_M_USER, 0,
				  1000, NULL, 0, a + 2 * i, 2);

		memcpy(store[i], h, h->size);
		recs[i] = (const void *)store[i];
	}
	memset(&in, 0, sizeof(in));
	in.recs = recs;
	in.nr_recs = 2;
	in.maps = &m;
	in.nr_maps = 1;
	in.no_kernel_syms = true;
	e = prof_build(&in, &p, err, sizeof(err));
	CHECK(!e && p, "unknown frames: prof_build (%s)", e ? err : "ok");
	if (e)
		return;
	if (!prof_pprof_encode(p, PROF_WEIGHT_PERIOD, &gz, &gzlen))
		raw = gunzip(gz, gzlen, &rawlen);
	if (raw)
		pp = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	CHECK(pp != NULL, "unknown frames: pprof encoded and unpacked");
	if (!pp)
		goto out;
	for (i = 0; i < 4; i++) {
		l[i] = loc_at(pp, a[i]);
		found = found && l[i];
		fid[i] = l[i] && l[i]->n_line ? l[i]->line[0]->function_id : 0;
	}
	CHECK(found, "unknown frames: a Location at each address");
	for (i = 0; found && i < 4; i++)
		for (j = i + 1; j < 4; j++)
			if (l[i]->id == l[j]->id || (fid[i] && fid[i] == fid[j]))
				apart = false;
	CHECK(found && apart, "unknown frames: four Locations, no Function "
	      "shared by two of them (not one merged [unknown])");
	CHECK(found && l[0]->mapping_id && l[2]->mapping_id &&
	      l[0]->mapping_id != l[2]->mapping_id &&
	      pp->mapping[l[0]->mapping_id - 1]->memory_start ==
	      0x7f1000000000ULL &&
	      pp->mapping[l[2]->mapping_id - 1]->memory_start ==
	      0x7f2000000000ULL,
	      "unknown frames: each anonymous mapping its own Mapping");
out:
	if (pp)
		perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
	free(gz);
	prof_free(p);
}

static void t_build(void)
{
	const struct pmuctx_rec_header *recs[64];
	static __u64 store[64][64];
	__u64 k[3] = { 0xffffffff81004010ULL, 0xffffffff81003020ULL,
		       0xffffffff81002030ULL };
	__u64 u[2] = { (__u64)(uintptr_t)ts_inner_fn + 2,
		       (__u64)(uintptr_t)ts_outer_fn + 5 };
	struct prof_input in;
	struct prof_maps m;
	struct prof *p = NULL;
	char err[256], *maps, *out;
	unsigned int n = 0, i, lines;
	size_t len;
	int e;

	maps = slurp("/proc/self/maps", &len);
	if (!maps)
		return;
#define PUT(h) do {							\
		const struct pmuctx_rec_header *_h = (h);		\
		memcpy(store[n], _h, _h->size);				\
		recs[n] = (const void *)store[n];			\
		n++;							\
	} while (0)
	{
		struct pmuctx_rec_comm *c = (void *)ts_simple(PMUCTX_REC_COMM,
							      1, 0, 77, 77);

		memcpy(c->comm, "tester\0\0\0\0\0\0\0\0\0", 16);
		PUT(&c->hdr);
	}
	for (i = 0; i < 4; i++)
		PUT(ts_sample(10 + i, i & 1, 77, 77,
			      PMUCTX_SAMPLE_M_USER_DEFERRED, 555, 1000, k, 3,
			      NULL, 0));
	PUT(ts_user(20, 1, 77, 77, 555, u, 2));
	/* never resolved */
	PUT(ts_sample(30, 0, 77, 77, PMUCTX_SAMPLE_M_USER_DEFERRED, 556, 1000,
		      k, 3, NULL, 0));
	/* immediate */
	PUT(ts_sample(40, 0, 77, 77, 0, 0, 1000, k + 1, 2, u, 2));
	memset(&in, 0, sizeof(in));
	in.recs = recs;
	in.nr_recs = n;
	m.pid = 77;
	m.time = 0;
	m.text = maps;
	m.len = len;
	in.maps = &m;
	in.nr_maps = 1;
	in.kallsyms = kallsyms_path;
	in.sample_freq = 1000;
	in.keep_samples = true;
	e = prof_build(&in, &p, err, sizeof(err));
	CHECK(!e && p, "prof_build from records (%s)", e ? err : "ok");
	if (e)
		goto out;
	CHECK(p->nr_samples == 6, "keep_samples: 6 samples kept (%zu)",
	      p->nr_samples);
	{
		const struct prof_sample *x, *y, *z;

		/* sample 3 (time 13, cpu 1): stitched, 3 kernel + 2 user */
		x = prof_find_sample(p, 1, 13, 77, k[0]);
		CHECK(x && x->nr == 5 && x->nr_kernel == 3 &&
		      !strcmp(p->frames[p->sample_frames[x->first] - 1].name,
			      "clear_user") &&
		      !strcmp(p->frames[p->sample_frames[x->first + 4] - 1].name,
			      "ts_outer_fn"),
		      "prof_find_sample: a stitched sample's own frames, "
		      "kernel innermost first, then user");
		y = prof_find_sample(p, 0, 30, 77, k[0]);
		CHECK(y && y->nr == 3 && y->nr_kernel == 3,
		      "prof_find_sample: the unresolved one, kernel part only");
		z = prof_find_sample(p, 0, 31, 77, k[0]);
		CHECK(!z && !prof_find_sample(p, 1, 13, 78, k[0]),
		      "prof_find_sample: no sample at another time or tid");
	}
	out = run_writer(prof_write_folded, p, PROF_WEIGHT_SAMPLES);
	CHECK_HAS(out, "tester;ts_outer_fn;ts_inner_fn;do_syscall_64;"
		  "read_zero;clear_user 4\n",
		  "4 stitched samples: comm, user frames (symbolized in this "
		  "program), kernel frames (kallsyms)");
	CHECK_HAS(out, "tester;do_syscall_64;read_zero;clear_user 1\n",
		  "the unresolved sample: kernel part only");
	CHECK_HAS(out, "tester;ts_outer_fn;ts_inner_fn;do_syscall_64;"
		  "read_zero 1\n", "the immediate sample");
	CHECK(folded_ok(out, &lines) && lines == 3, "valid folded stacks");
	free(out);
	CHECK(p->stats.stitched == 4 && p->stats.unresolved == 1 &&
	      p->stats.user_shared == 1 && p->stats.immediate == 1,
	      "stitch stats: 4 stitched, 1 unresolved, 1 shared, 1 immediate");
	out = NULL;
	{
		size_t l2 = 0;
		FILE *f = open_memstream(&out, &l2);

		prof_write_stitch_stats(p, f);
		fclose(f);
	}
	CHECK_HAS(out, "shared by >1 sample:    1", "stitch stats printed");
	free(out);
out:
	prof_free(p);
	free(maps);
#undef PUT
}

/* ---- PLT stubs ----------------------------------------------------------- */

#define PLT_MAX 32

/*
 * objdump's names of the PLT stubs of @lib: its "ADDR <NAME@plt>:" lines
 * in .plt, .plt.sec and .plt.got (not "<NAME@plt-0x10>", the header)
 */
static int objdump_plt(const char *lib, __u64 *addr, char (*name)[64])
{
	char cmd[PATH_MAX + 128], line[512], sym[128];
	unsigned long long a;
	FILE *f;
	size_t l;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec "
		 "-j .plt.got '%s' 2>/dev/null", lib);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (n < PLT_MAX && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx <%127[^>]>:", &a, sym) != 2)
			continue;
		l = strlen(sym);
		if (l < 5 || l >= 64 || strcmp(sym + l - 4, "@plt") ||
		    strpbrk(sym, "+-"))
			continue;
		addr[n] = a;
		memcpy(name[n], sym, l + 1);
		n++;
	}
	pclose(f);
	return n;
}

/* the stubs of one dlopen()ed library, looked up in this process's map */
static void t_plt_lib(const char *file)
{
	LIBPMUCTX_OPTS(pmuctx_syms_opts, o, .flags = PMUCTX_SYMS_NO_KERNEL);
	char path[PATH_MAX + 64], real[PATH_MAX], name[PLT_MAX][64], *maps;
	char got[128] = "-";
	__u64 addr[PLT_MAX], base, fn;
	struct pmuctx_syms *y = NULL;
	struct pmuctx_sym s;
	int n, i, bad = -1, r;
	bool strcoll_seen = false;
	void *h;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/unit/%s", TOP_DIR, file);
	h = dlopen(path, RTLD_NOW);
	CHECK(h && realpath(path, real), "dlopen(%s)", file);
	if (!h)
		return;
	n = objdump_plt(real, addr, name);
	maps = slurp("/proc/self/maps", &len);
	base = maps ? first_start(maps, real) : 0;
	CHECK(n >= 3 && base, "%s: objdump names %d PLT stubs, mapped at "
	      "0x%llx", file, n, (unsigned long long)base);
	pmuctx_syms_new(&y, &o);
	if (maps)
		pmuctx_syms_add_maps(y, 1, 0, maps, len);
	for (i = 0; i < n; i++) {
		/* 4 bytes into the stub: a sample inside it */
		r = pmuctx_syms_lookup(y, 1, 0, base + addr[i] + 4, 0, &s);
		if (r != 0 || !s.name || strcmp(s.name, name[i]) ||
		    s.start != base + addr[i]) {
			if (bad < 0)
				snprintf(got, sizeof(got), "%s+0x%llx",
					 s.name ? s.name : "(null)",
					 (unsigned long long)s.offset);
			if (bad < 0)
				bad = i;
			continue;
		}
		if (!strcmp(name[i], "strcoll@plt"))
			strcoll_seen = true;
	}
	CHECK(n > 0 && bad < 0, "%s: every PLT stub named as objdump names it"
	      " (first wrong: %s at 0x%llx, got %s)", file,
	      bad >= 0 ? name[bad] : "-",
	      (unsigned long long)(bad >= 0 ? addr[bad] : 0), got);
	CHECK(strcoll_seen, "%s: pltprobe_cmp's strcoll() stub is "
	      "strcoll@plt", file);
	fn = (__u64)(uintptr_t)dlsym(h, "pltprobe_cmp");
	r = pmuctx_syms_lookup(y, 1, 0, fn + 1, 0, &s);
	CHECK(fn && r == 0 && s.name && !strcmp(s.name, "pltprobe_cmp"),
	      "%s: a function outside the PLT keeps its own name", file);
	pmuctx_syms_free(y);
	free(maps);
	dlclose(h);
}

/*
 * aarch64 stubs, on any host: the fixtures of tests/unit/fixtures/plt-arm64
 * (make.sh there; names.txt is the cross objdump's), mapped at a made-up
 * address.  Every stub is NAME@plt from its first instruction to its
 * last (the 24-byte -z pac-plt ones too); the header is no "$x" (Arm's
 * mapping symbol); a function keeps its name.
 */
static void t_plt_arm64(void)
{
	LIBPMUCTX_OPTS(pmuctx_syms_opts, o, .flags = PMUCTX_SYMS_NO_KERNEL);
	const __u64 base = 0x7f0000400000ULL;
	char path[PATH_MAX + 64], line[256], kind[8], file[64], name[64];
	char maps[2 * PATH_MAX + 256], got[128] = "-", want[96] = "-";
	char hdr[128] = "-";
	struct pmuctx_syms *y = NULL;
	unsigned long long a;
	struct pmuctx_sym s;
	int pid = 0, stubs = 0, bad = 0, r, k;
	bool hdr_ok = true, fn_ok = true;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/plt-arm64/names.txt",
		 TOP_DIR);
	f = fopen(path, "re");
	CHECK(f, "plt-arm64: %s", path);
	if (!f)
		return;
	pmuctx_syms_new(&y, &o);
	/* one process per file, its whole file mapped r-x at base */
	for (k = 0; k < 2; k++) {
		static const char *const files[] = { "libpltprobe.so",
						     "pltloop-pac" };
		int n = snprintf(maps, sizeof(maps),
				 "%llx-%llx r-xp 00000000 00:00 1 %s/tests/unit/fixtures/plt-arm64/%s\n",
				 (unsigned long long)base,
				 (unsigned long long)base + 0x10000, TOP_DIR,
				 files[k]);

		pmuctx_syms_add_maps(y, 100 + k, 0, maps, (size_t)n);
	}
	while (fgets(line, sizeof(line), f)) {
		name[0] = 0;
		if (sscanf(line, "%7s %63s %llx %63s", kind, file, &a, name) < 3)
			continue;
		pid = strcmp(file, "libpltprobe.so") ? 101 : 100;
		if (!strcmp(kind, "plt")) {
			unsigned int in, len = pid == 101 ? 24 : 16;

			stubs++;
			/* each instruction: adrp ... br (+12; pac-plt: +16, nop) */
			for (in = 0; in < len; in += 4) {
				memset(&s, 0, sizeof(s));
				r = pmuctx_syms_lookup(y, pid, 0, base + a + in, 0, &s);
				if (r == 0 && s.name && !strcmp(s.name, name) &&
				    s.start == base + a)
					continue;
				if (!bad++) {
					snprintf(want, sizeof(want), "%s+%u in %s", name, in, file);
					snprintf(got, sizeof(got), "%s at 0x%llx",
						 s.name ? s.name : "(null)",
						 (unsigned long long)(s.start - base));
				}
			}
		} else if (!strcmp(kind, "hdr")) {
			memset(&s, 0, sizeof(s));
			pmuctx_syms_lookup(y, pid, 0, base + a + 8, 0, &s);
			if (s.name && s.name[0] == '$') {
				hdr_ok = false;
				snprintf(hdr, sizeof(hdr), "%s: header named %s", file, s.name);
			}
		} else if (!strcmp(kind, "fn")) {
			memset(&s, 0, sizeof(s));
			r = pmuctx_syms_lookup(y, pid, 0, base + a + 4, 0, &s);
			if (r || !s.name || strcmp(s.name, name))
				fn_ok = false;
		}
	}
	fclose(f);
	CHECK(stubs >= 10 && !bad, "plt-arm64: every instruction of %d aarch64 stubs named as objdump names the stub (%d wrong; first %s: got %s)",
	      stubs, bad, want, got);
	CHECK(hdr_ok, "plt-arm64: the .plt header is not named after Arm's mapping symbol $x (%s)", hdr);
	CHECK(fn_ok, "plt-arm64: functions outside the PLT keep their names (pltprobe_cmp, main)");
	pmuctx_syms_free(y);
}

static void t_plt_syms(void)
{
	t_plt_lib("libpltprobe.so");
	t_plt_lib("libpltprobe-ibt.so");
	t_plt_arm64();
}

void test_symbols(void)
{
	snprintf(kallsyms_path, sizeof(kallsyms_path),
		 "/tmp/pmuctx-kallsyms.XXXXXX");
	snprintf(hidden_path, sizeof(hidden_path),
		 "/tmp/pmuctx-kallsyms-h.XXXXXX");
	write_file(kallsyms_path, kallsyms_text);
	write_file(hidden_path, hidden_text);
	t_kernel_syms();
	t_user_syms();
	t_plt_syms();
}

/* ---- the recorder's MMAP snapshots (tools/profile/maps.c) ------------- */

struct kt_seen {
	int n;
	__s32 pid[8];
	__u32 reason[8];
	char *text[8];
};

static int kt_seen_store(void *ctx, __s32 pid, __u64 time, __u32 reason,
			 const char *text, size_t len)
{
	struct kt_seen *k = ctx;

	(void)time;
	if (k->n < 8) {
		k->pid[k->n] = pid;
		k->reason[k->n] = reason;
		k->text[k->n] = strndup(text, len);
	}
	k->n++;
	return 0;
}

static void kt_feed(struct maps_cap *mc, __s32 pid, __s32 tid, __u64 t,
		    __u16 misc, __u64 start, const char *path)
{
	union {
		struct pmuctx_rec_mmap m;
		unsigned char b[256];
	} u;
	size_t plen = strlen(path) + 1;

	memset(&u, 0, sizeof(u));
	u.m.hdr.type = PMUCTX_REC_MMAP;
	u.m.hdr.size = (__u16)((sizeof(u.m) + plen + 7) & ~7UL);
	u.m.hdr.misc = misc;
	u.m.c.time = t;
	u.m.c.pid = pid;
	u.m.c.tid = tid;
	u.m.start = start;
	u.m.len = 0x1000;
	u.m.prot = 5;		/* r-x */
	u.m.flags = 2;		/* MAP_PRIVATE */
	memcpy(u.m.path, path, plen);
	maps_cap_record(mc, &u.m.hdr, 0);
}

static void t_maps_kernel(void)
{
	struct kt_seen k = { 0 };
	struct maps_cap *mc = NULL;
	int i;

	t_section("MMAP snapshots (pmuctx record)");
	CHECK_EQ(maps_cap_new(&mc, "/nonexistent-proc", kt_seen_store, &k), 0,
		 "maps_cap_new");
	if (!mc)
		return;
	/* two threads of process 10 snapshot at once, interleaved */
	kt_feed(mc, 10, 11, 100, PMUCTX_MMAP_M_FIRST, 0x1000, "/bin/a");
	kt_feed(mc, 10, 12, 101, PMUCTX_MMAP_M_FIRST, 0x5000, "/bin/c");
	kt_feed(mc, 10, 11, 102, PMUCTX_MMAP_M_LAST, 0x2000, "/bin/b");
	kt_feed(mc, 10, 12, 103, PMUCTX_MMAP_M_LAST, 0x6000, "/bin/d");
	/* a path with a newline would forge a line: left out */
	kt_feed(mc, 20, 20, 104, PMUCTX_MMAP_M_FIRST, 0x1000, "/tmp/x");
	kt_feed(mc, 20, 20, 105, PMUCTX_MMAP_M_LAST, 0x9000,
		"/tmp/y\n7000-8000 r-xp 00000000 00:00 0 /etc/shadow");
	maps_cap_flush(mc);
	CHECK_EQ(k.n, 3, "three snapshots stored");
	CHECK(k.n >= 2 && k.pid[0] == 10 && k.pid[1] == 10 &&
	      k.reason[0] == MAPS_KERNEL && k.reason[1] == MAPS_KERNEL,
	      "the two threads' snapshots are stored for their process, reason kernel");
	CHECK(k.n >= 2 && strstr(k.text[0], "/bin/a") &&
	      strstr(k.text[0], "/bin/b") && !strstr(k.text[0], "/bin/c") &&
	      strstr(k.text[1], "/bin/c") && strstr(k.text[1], "/bin/d") &&
	      !strstr(k.text[1], "/bin/a"),
	      "interleaved snapshots of two threads are not mixed");
	CHECK(k.n >= 1 && !strncmp(k.text[0], "1000-2000 r-xp 00000000 00:00 0 /bin/a\n", 39),
	      "a snapshot line reads like /proc/PID/maps");
	CHECK(k.n >= 3 && k.pid[2] == 20 && strstr(k.text[2], "/tmp/x") &&
	      !strstr(k.text[2], "shadow"),
	      "a path with a newline forges no line");
	for (i = 0; i < k.n && i < 8; i++)
		free(k.text[i]);
	maps_cap_free(mc);
}

/* ---- the recorder's thread names and gone processes ------------------- */

struct names_seen {
	int n;
	__s32 pid, tid;
	__u32 cpu;
	__u64 time;
	char comm[32];
};

static void names_store(void *ctx, __s32 pid, __s32 tid, __u32 cpu,
			__u64 time, const char *comm)
{
	struct names_seen *k = ctx;

	k->n++;
	k->pid = pid;
	k->tid = tid;
	k->cpu = cpu;
	k->time = time;
	snprintf(k->comm, sizeof(k->comm), "%s", comm);
}

static void t_maps_names(void)
{
	static const __u64 K[1] = { 0xffffffff81004010ULL };
	char root[64], d[512], list[256];
	struct names_seen k = { 0 };
	struct maps_cap *mc = NULL;
	__u64 nm, gone, mb;
	struct pmuctx_rec_exec *e;

	t_section("thread names and gone processes (pmuctx record)");
	snprintf(root, sizeof(root), "/tmp/pmuctx-proc.XXXXXX");
	if (!mkdtemp(root))
		return;
	snprintf(d, sizeof(d), "mkdir -p %s/10/task/11 %s/10/task/10 && "
		 "echo worker-1 > %s/10/task/11/comm && "
		 "echo main > %s/10/task/10/comm && echo '400000-401000 r-xp "
		 "00000000 00:00 0 /bin/x' > %s/10/maps", root, root, root,
		 root, root);
	CHECK_EQ(system(d), 0, "a fake /proc");
	CHECK_EQ(maps_cap_new(&mc, root, NULL, &k), 0, "maps_cap_new");
	if (!mc)
		return;
	maps_cap_names(mc, names_store);
	maps_cap_record(mc, ts_sample(500, 1, 10, 11, 0, 0, 1000, K, 1,
				      NULL, 0), 0);
	CHECK(k.n == 1 && k.pid == 10 && k.tid == 11 && k.cpu == 1 &&
	      k.time == 499 && !strcmp(k.comm, "worker-1"),
	      "a thread's first sample: its name from /proc/PID/task/TID/comm,"
	      " just before the sample (%d: %d/%d cpu %u at %llu '%s')", k.n,
	      (int)k.pid, (int)k.tid, k.cpu, (unsigned long long)k.time,
	      k.comm);
	maps_cap_record(mc, ts_sample(600, 0, 10, 11, 0, 0, 1000, K, 1,
				      NULL, 0), 0);
	maps_cap_record(mc, ts_sample(700, 0, 10, 10, 0, 0, 1000, K, 1,
				      NULL, 0), 0);
	CHECK_EQ(k.n, 1, "once per thread; not the process's first thread "
		 "(its COMM and EXEC records name it)");
	/* an EXEC of process 20, gone before /proc/20/maps is read */
	e = (void *)ts_simple(PMUCTX_REC_EXEC, 800, 0, 20, 20);
	e->hdr.size = sizeof(*e) + 8;
	memcpy(e->comm, "chain\0\0\0\0\0\0\0\0\0\0", 16);
	memset(e->filename, 0, 8);
	maps_cap_record(mc, &e->hdr, 0);
	maps_cap_counts(mc, &nm, &gone, &mb);
	CHECK_EQ(maps_cap_gone_list(mc, list, sizeof(list)), 1,
		 "one process gone");
	CHECK(gone == 1 && !strcmp(list, "20 (chain)"),
	      "gone processes named: '%s'", list);
	maps_cap_free(mc);
	snprintf(d, sizeof(d), "rm -rf %s", root);
	CHECK_EQ(system(d), 0, "clean up");
}

void test_profile(void)
{
	if (!kallsyms_path[0]) {
		snprintf(kallsyms_path, sizeof(kallsyms_path),
			 "/tmp/pmuctx-kallsyms.XXXXXX");
		write_file(kallsyms_path, kallsyms_text);
	}
	t_folded();
	t_text();
	t_pprof();
	t_pprof_unknown();
	t_build();
	t_maps_kernel();
	t_maps_names();
	unlink(kallsyms_path);
	if (hidden_path[0])
		unlink(hidden_path);
}
