// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids (issue 30 item 7): a recording keeps the build-id of every
 * file its memory maps name, and pmuctx report does not name the samples
 * of a file whose build-id changed since (rebuilt, upgraded) or that is
 * gone with the functions of whatever file is there now: it says so on
 * standard error and shows their frames as file+offset.
 *
 * The recording maps libbidprobe.so, a copy of libbidprobe-1.so (build-id
 * 0x1111...; function bidprobe_old); libbidprobe-2.so (0x2222...) has the
 * same code under the name bidprobe_new.
 */
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmuctx.h>

#include "../../tools/builtin.h"
#include "../../tools/pmfile.h"
#include "test.h"

extern const struct cmd cmd_report;

#define BID_BASE	0x7f1234500000ULL

static char dir[64], path[128], lib[128];
static char *cap_out, *cap_err;
static char msg[4096];

static int run(const struct cmd *cmd, ...)
{
	va_list ap;
	int ret;

	va_start(ap, cmd);
	ret = t_run_cmd(cmd, dir, &cap_out, &cap_err, ap);
	va_end(ap);
	return ret;
}

/* copy tests/unit/@name to lib (replaced by rename, as an upgrade does) */
static int install(const char *name)
{
	char src[PATH_MAX], tmp[160], buf[65536];
	int in, out, ok = 1;
	ssize_t n;

	snprintf(src, sizeof(src), "%s/tests/unit/%s", TOP_DIR, name);
	snprintf(tmp, sizeof(tmp), "%s.new", lib);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		ok = 0;
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok && !rename(tmp, lib) ? 0 : -1;
}

/* the address of symbol @sym in ELF file @file, or 0 */
static __u64 elf_sym(const char *file, const char *sym)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	__u64 v = 0;
	Elf *e;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !v && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize &&
		     i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, sym)) {
				v = s.st_value;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return v;
}

static void put_sample(struct pmf_writer *w, __u64 t, __u64 ip)
{
	struct {
		struct pmuctx_rec_sample s;
		__u64 ips[1];
	} r;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = PMUCTX_REC_SAMPLE;
	r.s.hdr.size = sizeof(r);
	r.s.hdr.misc = PMUCTX_SAMPLE_M_USER;
	r.s.c.time = t;
	r.s.c.pid = 300;
	r.s.c.tid = 300;
	r.s.period = 1000000;
	r.s.nr_user = 1;
	r.ips[0] = ip;
	r.s.ip = ip;
	pmf_add_record(w, &r, sizeof(r));
}

/* a recording of two samples in bidprobe_old, the library mapped */
static int write_recording(__u64 ip, bool buildids)
{
	struct pmf_cpu_stats st[1];
	struct pmf_writer *w;
	struct pmf_meta m;
	char maps[512];
	int err;

	memset(&m, 0, sizeof(m));
	m.info.abi_version = PMUCTX_ABI_VERSION;
	m.info.module_abi = 1;
	m.info.nr_cpus = 1;
	m.info.ring_mode = PMUCTX_RING_NORMAL;
	m.info.ring_pages = 64;
	m.info.page_size = 4096;
	m.info.ring_records = PMUCTX_REC_MASK_ALL;
	m.info.target = PMUCTX_TARGET_PID;
	m.info.pid = 300;
	m.info.start_mono_ns = 1000000000ULL;
	m.info.sample_freq = 1000;
	m.info.sample_flags = PMUCTX_SAMPLE_USER_STACK;
	m.info.sample_max_stack = 127;
	m.command = "bidprobe";
	m.hostname = "testhost";
	m.release = "6.1.0-test";
	m.tool_version = "pmuctx test";
	m.module_version = "0.1.0-fake";
	err = pmf_create(&w, path, &m, msg, sizeof(msg));
	if (err)
		return err;
	pmf_set_buildids(w, buildids);
	snprintf(maps, sizeof(maps), "%llx-%llx r-xp 00000000 08:01 4242 "
		 "%s\n", (unsigned long long)BID_BASE,
		 (unsigned long long)BID_BASE + 0x100000, lib);
	pmf_add_maps(w, 300, 1000000000ULL, PMF_MAPS_START, maps,
		     strlen(maps));
	memset(st, 0, sizeof(st));
	pmf_window_begin(w, PMF_WIN_STREAM, 1000000000ULL, 0);
	put_sample(w, 1100000000ULL, ip);
	put_sample(w, 1200000000ULL, ip);
	pmf_window_end(w, st, 1, 1300000000ULL);
	return pmf_close(w, 0, msg, sizeof(msg));
}

static void test_changed(void)
{
	char one[PATH_MAX];
	__u64 fn, ip;
	int ret;

	t_section("pmuctx report: a file rebuilt since the recording");
	snprintf(one, sizeof(one), "%s/tests/unit/libbidprobe-1.so",
		 TOP_DIR);
	fn = elf_sym(one, "bidprobe_old");
	CHECK(fn != 0, "bidprobe_old in %s", one);
	ip = BID_BASE + fn + 2;
	CHECK_EQ(install("libbidprobe-1.so"), 0, "install libbidprobe-1.so");
	CHECK_EQ(write_recording(ip, true), 0, "write the recording: %s",
		 msg);
	{
		struct pmf_reader *r = NULL;
		char err[512];
		__u32 k, ones = 0;

		CHECK_EQ(pmf_read(path, 0, &r, err, sizeof(err)), 0,
			 "read it back: %s", err);
		CHECK(r && r->nr_buildids == 1 && !strcmp(r->buildids[0].path,
							  lib),
		      "one BUILDID entry: the library's path");
		for (k = 0; r && r->nr_buildids && k < r->buildids[0].id_len;
		     k++)
			ones += r->buildids[0].id[k] == 0x11;
		CHECK(r && r->nr_buildids && r->buildids[0].id_len == 20 &&
		      ones == 20, "its build-id: 20 bytes of 0x11");
		pmf_free(r);
	}

	ret = run(&cmd_report, "-i", path, "--format", "folded", NULL);
	CHECK_EQ(ret, 0, "the same file: report exits 0");
	CHECK_HAS(cap_out, ";bidprobe_old 2000000\n", "the same file: its "
		  "function named");
	CHECK_LACKS(cap_err, "libbidprobe.so", "the same file: nothing said "
		    "of it");

	CHECK_EQ(install("libbidprobe-2.so"), 0, "replace it with "
		 "libbidprobe-2.so (another build-id)");
	ret = run(&cmd_report, "-i", path, "--format", "folded", NULL);
	CHECK_EQ(ret, 0, "rebuilt: report exits 0");
	CHECK_LACKS(cap_out, "bidprobe_new", "rebuilt: the new file's "
		    "function is not named for the old address");
	CHECK_HAS(cap_out, "libbidprobe.so+0x", "rebuilt: the frames are "
		  "file+offset");
	CHECK_HAS(cap_err, "changed since the recording (build-id "
		  "1111111111111111111111111111111111111111 recorded, "
		  "2222222222222222222222222222222222222222 now)",
		  "rebuilt: the change is named with both build-ids");
	CHECK_HAS(cap_err, "libbidprobe.so", "rebuilt: and the file");

	ret = run(&cmd_report, "-i", path, NULL);
	CHECK_EQ(ret, 0, "rebuilt, text: report exits 0");
	CHECK_LACKS(cap_out, "bidprobe_new", "rebuilt, text: the new file's "
		    "function is not named");
	{
		const char *a = strstr(cap_err, "changed since");

		CHECK(a && !strstr(a + 1, "changed since"), "rebuilt, text: "
		      "said once");
	}

	unlink(lib);
	ret = run(&cmd_report, "-i", path, "--format", "folded", NULL);
	CHECK_EQ(ret, 0, "gone: report exits 0");
	CHECK_HAS(cap_err, "is gone since the recording", "gone: said so");
	CHECK_HAS(cap_out, "libbidprobe.so+0x", "gone: the frames are "
		  "file+offset");
}

/* pmuctx record -B: no BUILDID section, nothing compared */
static void test_no_buildid(void)
{
	struct pmf_reader *r = NULL;
	char one[PATH_MAX], err[512];
	__u64 ip;
	int ret;

	t_section("pmuctx record -B: no build-ids");
	snprintf(one, sizeof(one), "%s/tests/unit/libbidprobe-1.so",
		 TOP_DIR);
	ip = BID_BASE + elf_sym(one, "bidprobe_old") + 2;
	CHECK_EQ(install("libbidprobe-1.so"), 0, "install libbidprobe-1.so");
	CHECK_EQ(write_recording(ip, false), 0, "write the recording: %s",
		 msg);
	CHECK_EQ(pmf_read(path, 0, &r, err, sizeof(err)), 0, "read it back: "
		 "%s", err);
	CHECK(r && !r->nr_buildids, "no BUILDID entry");
	pmf_free(r);
	CHECK_EQ(install("libbidprobe-2.so"), 0, "replace it");
	ret = run(&cmd_report, "-i", path, "--format", "folded", NULL);
	CHECK_EQ(ret, 0, "report exits 0");
	CHECK_LACKS(cap_err, "since the recording", "nothing said: there is "
		    "nothing to compare");
}

void test_buildid(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pmuctx-bidtest.XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/bid.pmu", dir);
	snprintf(lib, sizeof(lib), "%s/libbidprobe.so", dir);
	test_changed();
	test_no_buildid();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			t_diag("could not remove %s", dir);
	}
	free(cap_out);
	free(cap_err);
	cap_out = cap_err = NULL;
}
