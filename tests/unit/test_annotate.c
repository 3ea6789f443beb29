// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx annotate (issue 30 item 6): the instructions of a function, each
 * with its share of the function's self samples.
 *
 * annprobe (annprobe.c, built by the Makefile as a PIE and without -pie)
 * is run from a copy in a temporary directory until it has printed where
 * annprobe_loop and main are; its memory map is read then, and a
 * recording written with
 * samples at known instructions of its loop (annprobe.h): 60 at the add,
 * 30 at the cmp, 10 at the jne (those 4 ms long: capped at the 1 ms
 * sampling period with the default weight), 8 in main; and kernel
 * samples in the functions of a kallsyms file: 8 in kfunc_hot, 2 in
 * kfunc_cold and 4 in a kernel function named annprobe_loop too, which
 * -k (annprobe itself, as the "vmlinux") disassembles.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include <pmuctx.h>

#include "../../tools/annotate.h"
#include "../../tools/pmfile.h"
#include "annprobe.h"
#include "test.h"

#define K_HOT	0xffffffff81000000ULL	/* kfunc_hot */
#define K_COLD	0xffffffff81001000ULL	/* kfunc_cold */
#define K_LOOP	0xffffffff81002000ULL	/* annprobe_loop */
#define MS	1000000ULL

static char dir[64], path[128], prog[128], ks[128];
static char *cap_out, *cap_err;
static char msg[512];

static int run(const char *first, ...)
{
	va_list ap;
	int ret;

	va_start(ap, first);
	(void)first;
	ret = t_run_cmd(&cmd_annotate, dir, &cap_out, &cap_err, ap);
	va_end(ap);
	return ret;
}

/* what the running annprobe told and its memory map */
struct probe {
	pid_t pid;
	unsigned long long loop, main;	/* run-time addresses */
	char *maps;
};

static int run_probe(struct probe *p)
{
	char mpath[64];
	int fds[2], ok;
	FILE *f;

	memset(p, 0, sizeof(*p));
	if (pipe(fds))
		return -1;
	p->pid = fork();
	if (p->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	ok = f && fscanf(f, "%llx %llx", &p->loop, &p->main) == 2;
	if (f)
		fclose(f);
	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", (int)p->pid);
	if (ok)
		p->maps = t_slurp(mpath);
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	return ok && p->maps && strstr(p->maps, prog) ? 0 : -1;
}

static void sample(struct pmf_writer *w, const struct probe *p, __u64 ip,
		   bool kernel, __u64 period)
{
	static __u64 t = 1100000000ULL;
	struct {
		struct pmuctx_rec_sample s;
		__u64 ip;
	} r = {
		.s = {
			.hdr = { .type = PMUCTX_REC_SAMPLE, .size = sizeof(r),
				 .misc = kernel ? 0 : PMUCTX_SAMPLE_M_USER },
			.c = { .time = t += MS, .pid = p->pid,
			       .tid = p->pid },
			.ip = ip, .period = period,
			.nr_kernel = kernel, .nr_user = !kernel,
		},
		.ip = ip,
	};

	pmf_add_record(w, &r, sizeof(r));
}

static void samples(struct pmf_writer *w, const struct probe *p, __u64 ip,
		    bool kernel, __u64 period, int n)
{
	while (n-- > 0)
		sample(w, p, ip, kernel, period);
}

static int write_recording(const struct probe *p)
{
	struct pmf_meta m = {
		.info = {
			.abi_version = PMUCTX_ABI_VERSION, .module_abi = 1,
			.nr_cpus = 1, .ring_mode = PMUCTX_RING_NORMAL,
			.ring_pages = 64, .page_size = 4096,
			.ring_records = PMUCTX_REC_MASK_ALL,
			.target = PMUCTX_TARGET_PID, .pid = p->pid,
			.start_mono_ns = 1000 * MS, .sample_freq = 1000,
			.sample_flags = PMUCTX_SAMPLE_USER_STACK |
					PMUCTX_SAMPLE_KERNEL_STACK,
			.sample_max_stack = 127,
		},
		.command = prog, .hostname = "testhost",
		.release = "6.1.0-test", .tool_version = "pmuctx test",
		.module_version = "0.1.0-fake",
	};
	struct pmf_cpu_stats st[1] = { { 0 } };
	struct pmf_writer *w;
	int err = pmf_create(&w, path, &m, msg, sizeof(msg));

	if (err)
		return err;
	pmf_add_maps(w, p->pid, 1000 * MS, PMF_MAPS_START, p->maps,
		     strlen(p->maps));
	pmf_window_begin(w, PMF_WIN_STREAM, 1000 * MS, 0);
	samples(w, p, p->loop + ANNPROBE_ADD, false, MS, 60);
	samples(w, p, p->loop + ANNPROBE_CMP, false, MS, 30);
	samples(w, p, p->loop + ANNPROBE_JNE, false, 4 * MS, 10);
	samples(w, p, p->main, false, MS, 8);
	samples(w, p, K_HOT + 0x10, true, MS, 5);
	samples(w, p, K_HOT + 0x20, true, MS, 3);
	samples(w, p, K_COLD, true, MS, 2);
	samples(w, p, K_LOOP + ANNPROBE_ADD, true, MS, 4);
	pmf_window_end(w, st, 1, 2000 * MS);
	return pmf_close(w, 0, msg, sizeof(msg));
}

/* one row of a function's table */
struct arow {
	bool hot;
	double pct;
	unsigned long long addr;
	char text[64];
};

/*
 * the rows of the table under the header line that starts with @head:
 * their number (at most @max), -1 if there is no such header
 */
static int rows(const char *out, const char *head, struct arow *v, int max)
{
	const char *p = out ? strstr(out, head) : NULL;
	int n = 0;

	if (!p)
		return -1;
	for (p = strchr(p, '\n'); p && p[1] && p[1] != '\n' && p[1] != '#';
	     p = strchr(p + 1, '\n')) {
		struct arow r = { .hot = p[1] == '*' };
		int used = 0;

		if (sscanf(p + 2, "%lf : %llx:%n", &r.pct, &r.addr,
			   &used) != 2 || !used)
			continue;
		sscanf(p + 2 + used, " %63[^\n]", r.text);
		if (n < max)
			v[n] = r;
		n++;
	}
	return n;
}

/* the ELF address of the run-time @addr of prog, mapped by @p */
static unsigned long long elf_addr(const struct probe *p,
				   unsigned long long addr)
{
	unsigned char h[18] = { 0 };
	unsigned long long base = 0;
	char line[512];
	int fd = open(prog, O_RDONLY | O_CLOEXEC);
	FILE *f = fmemopen(p->maps, strlen(p->maps), "r");

	if (fd >= 0 && read(fd, h, sizeof(h)) != sizeof(h))
		h[16] = 0;
	if (fd >= 0)
		close(fd);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, prog) && strstr(line, " 00000000 ")) {
			sscanf(line, "%llx", &base);
			break;
		}
	if (f)
		fclose(f);
	/* e_type: ET_DYN (PIE) is loaded at base, ET_EXEC where linked */
	return h[16] == ET_DYN ? addr - base : addr;
}

static void check_loop(const char *head, unsigned long long start,
		       const double want[3], const char *what)
{
	struct arow v[16];
	int n = rows(cap_out, head, v, 16), i, hottest = 0;
	double sum = 0;

	CHECK(n >= 4 && n <= 16, "%s: a table of annprobe_loop's "
	      "instructions (%d rows)", what, n);
	if (n < 4 || n > 16)
		return;
	for (i = 0; i < n; i++) {
		sum += v[i].pct;
		if (v[i].pct > v[hottest].pct)
			hottest = i;
	}
	CHECK(sum > 99.95 && sum < 100.05, "%s: the shares add up to 100 "
	      "(%.2f)", what, sum);
	CHECK_EQ(v[0].addr, start, "%s: from the function's ELF address",
		 what);
	CHECK_EQ(v[hottest].addr, start + ANNPROBE_ADD, "%s: the add is the "
		 "hottest instruction", what);
	CHECK(strstr(v[hottest].text, "add"), "%s: objdump's text of it "
	      "('%s')", what, v[hottest].text);
	CHECK(v[1].addr == start + ANNPROBE_ADD && v[1].hot &&
	      v[1].pct > want[0] - 0.01 && v[1].pct < want[0] + 0.01,
	      "%s: add %.2f %%, marked (%.2f)", what, want[0], v[1].pct);
	for (i = 0; i < n && v[i].addr != start + ANNPROBE_CMP; i++)
		;
	CHECK(i < n && v[i].pct > want[1] - 0.01 && v[i].pct < want[1] + 0.01,
	      "%s: cmp %.2f %%", what, want[1]);
	for (i = 0; i < n && v[i].addr != start + ANNPROBE_JNE; i++)
		;
	CHECK(i < n && v[i].pct > want[2] - 0.01 && v[i].pct < want[2] + 0.01,
	      "%s: jne %.2f %%", what, want[2]);
	CHECK(!v[0].hot && v[0].pct == 0, "%s: the first instruction has no "
	      "sample and no mark", what);
	CHECK(v[n - 1].addr < start + ANNPROBE_SIZE, "%s: and stops at the "
	      "function's end", what);
}

static void test_default(const struct probe *p)
{
	static const double period[3] = { 60, 30, 10 };
	static const double raw[3] = { 60 / 1.3, 30 / 1.3, 40 / 1.3 };
	unsigned long long start = elf_addr(p, p->loop);
	char head[256];
	int ret;

	t_section("pmuctx annotate: the hottest user and kernel functions");
	ret = run(NULL, "-i", path, "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "annotate exits 0");
	snprintf(head, sizeof(head), "# annprobe_loop [.] in %s: 100 "
		 "samples, 100.000 ms of CPU time (weight: period), 81.97 %% "
		 "of the profile\n", prog);
	CHECK_HAS(cap_out, head, "the header line: samples, weight, file");
	CHECK_HAS(cap_out, "# Weight: period (", "the weight said");
	check_loop(head, start, period, "period");
	CHECK_HAS(cap_out, "# kfunc_hot [k] in [kernel.kallsyms]: 8 samples",
		  "the hottest kernel function");
	CHECK_HAS(cap_out, "# not disassembled: a kernel function: give -k "
		  "VMLINUX", "without -k: why it is not disassembled");
	CHECK_HAS(cap_out, "   62.50 : ffffffff81000010:  kfunc_hot+0x10\n",
		  "its samples by address");
	CHECK_LACKS(cap_out, "kfunc_cold", "only the hottest ones");
	CHECK_LACKS(cap_out, "# main [.]", "only the hottest user one");
	CHECK_EQ(cap_err[0], 0, "nothing on standard error");

	ret = run(NULL, "-i", path, "--kallsyms", ks, "--weight",
		  "raw-period", "annprobe_loop", NULL);
	CHECK_EQ(ret, 0, "--weight raw-period exits 0");
	snprintf(head, sizeof(head), "# annprobe_loop [.] in %s: 100 "
		 "samples, 130.000 ms of CPU time (weight: raw-period)", prog);
	check_loop(head, start, raw, "raw-period");

	ret = run(NULL, "-i", path, "--kallsyms", ks, "--weight", "samples",
		  "-s", "annprobe_loop", NULL);
	CHECK_EQ(ret, 0, "--weight samples exits 0");
	snprintf(head, sizeof(head), "# annprobe_loop [.] in %s: 100 "
		 "samples (weight: samples)", prog);
	check_loop(head, start, period, "samples");
	CHECK_HAS(cap_out, "# annprobe_loop [k] in [kernel.kallsyms]: 4 "
		  "samples", "-s: every function of that name");
	{
		const char *u = strstr(cap_out, "# annprobe_loop [.]");
		const char *k = strstr(cap_out, "# annprobe_loop [k]");

		CHECK(u && k && u < k, "-s: the hottest first");
	}

	ret = run(NULL, "-i", path, "--kallsyms", ks, "--hot", "50",
		  "annprobe_loop", NULL);
	CHECK_EQ(ret, 0, "--hot 50 exits 0");
	{
		struct arow v[16];
		int n = rows(cap_out, "# annprobe_loop [.]", v, 16), i, m = 0;

		for (i = 0; i < n && i < 16; i++)
			m += v[i].hot;
		CHECK(n > 2 && m == 1 && v[1].hot, "--hot 50: the add alone "
		      "is marked");
	}
}

static void test_vmlinux(const struct probe *p)
{
	unsigned long long start = elf_addr(p, p->loop);
	struct arow v[16];
	int ret, n;

	t_section("pmuctx annotate -k: a kernel function disassembled");
	ret = run(NULL, "-i", path, "--kallsyms", ks, "-k", prog, "-s",
		  "annprobe_loop", NULL);
	CHECK_EQ(ret, 0, "exits 0");
	n = rows(cap_out, "# annprobe_loop [k]", v, 16);
	CHECK(n >= 4 && n <= 16, "the kernel function's instructions, from "
	      "the vmlinux's symbol (%d)", n);
	CHECK(n >= 4 && n <= 16 && v[0].addr == start &&
	      v[1].addr == start + ANNPROBE_ADD && v[1].pct == 100 &&
	      v[1].hot, "its 4 samples on the add: 100 %%");
	CHECK_LACKS(cap_out, "not disassembled", "nothing left undone");
}

static void test_usage(void)
{
	char cmd[512];
	int ret;

	t_section("pmuctx annotate: errors");
	ret = run(NULL, "-i", path, "--kallsyms", ks, "-s", "nosuch", NULL);
	CHECK_EQ(ret, 1, "an unknown symbol: exit status 1");
	CHECK_HAS(cap_err, "pmuctx annotate: no samples in a function named "
		  "'nosuch' in ", "an unknown symbol: said so");
	CHECK(strchr(cap_err, '\n') == cap_err + strlen(cap_err) - 1,
	      "an unknown symbol: in one line");
	CHECK_EQ(cap_out[0], 0, "an unknown symbol: nothing printed");

	ret = run(NULL, "-i", path, "--objdump", "/nonexistent/objdump",
		  "annprobe_loop", NULL);
	CHECK_EQ(ret, 1, "objdump missing: exit status 1");
	CHECK_HAS(cap_err, "/nonexistent/objdump not found: install binutils",
		  "objdump missing: the package named");

	ret = run(NULL, "-i", path, "--hot", "120", NULL);
	CHECK_EQ(ret, 2, "--hot 120: a usage error");
	CHECK_HAS(cap_err, "--hot '120': expected a percentage", "... said");
	CHECK_EQ(run(NULL, "-i", path, "--weight", "cycles", NULL), 2,
		 "--weight cycles: a usage error");
	CHECK_EQ(run(NULL, "--frob", NULL), 2, "an unknown option: 2");
	CHECK_EQ(run(NULL, "-i", path, "-s", NULL), 2, "-s without a name: 2");
	CHECK_EQ(run(NULL, "-i", "/nonexistent.pmu", NULL), 1,
		 "no such file: 1");

	ret = run(NULL, "--help", NULL);
	CHECK(ret == 0 && strstr(cap_out, "SYNOPSIS") &&
	      strstr(cap_out, "--symbol NAME") &&
	      strstr(cap_out, "EXIT STATUS"), "--help: the manual");

	snprintf(cmd, sizeof(cmd), "%s/tools/pmuctx annotate --frob "
		 ">/dev/null 2>&1", TOP_DIR);
	ret = system(cmd);
	CHECK(WIFEXITED(ret) && WEXITSTATUS(ret) == 2, "tools/pmuctx "
	      "annotate --frob exits 2");
	snprintf(cmd, sizeof(cmd), "%s/tools/pmuctx --help | grep -q "
		 "'^  annotate '", TOP_DIR);
	CHECK(system(cmd) == 0, "pmuctx --help lists annotate");
}

/* the program rebuilt since: its functions are not named, nor read */
static void test_changed(void)
{
	char cmd[512];
	int ret;

	t_section("pmuctx annotate: a file rebuilt since the recording");
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/unit/libpltprobe.so' "
		 "'%s.new' && mv '%s.new' '%s'", TOP_DIR, prog, prog, prog);
	CHECK_EQ(system(cmd), 0, "replace annprobe with another file");
	ret = run(NULL, "-i", path, "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "exits 0: the kernel function is still there");
	CHECK_HAS(cap_err, "pmuctx annotate: ", "named on standard error");
	CHECK_HAS(cap_err, "changed since the recording (build-id ",
		  "with its build-ids, as report says it");
	CHECK_LACKS(cap_out, "[.] in", "no user function annotated");
	ret = run(NULL, "-i", path, "--kallsyms", ks, "-s", "main", NULL);
	CHECK_EQ(ret, 1, "-s main: exit status 1");
	CHECK_HAS(cap_err, "no samples in a function named 'main'",
		  "-s main: not found");
	CHECK_HAS(cap_err, "or it is in a frame without a name",
		  "-s main: and why it may be");
}

static void write_kallsyms(void)
{
	FILE *f = fopen(ks, "we");

	if (!f) {
		CHECK(0, "write %s", ks);
		return;
	}
	fprintf(f, "%llx T kfunc_hot\n%llx T kfunc_cold\n%llx t "
		"annprobe_loop\n%llx T kfunc_end\n", K_HOT, K_COLD, K_LOOP,
		K_LOOP + 0x1000);
	fclose(f);
}

/* the temporary directory and the paths in it */
static bool make_dir(void)
{
	strcpy(dir, "/tmp/pmuctx-anntest.XXXXXX");
	if (!mkdtemp(dir))
		return false;
	snprintf(path, sizeof(path), "%s/ann.pmu", dir);
	snprintf(prog, sizeof(prog), "%s/annprobe", dir);
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	return true;
}

/* copy tests/unit/@bin to prog, run it, write the recording of it */
static int setup(const char *bin, struct probe *p)
{
	char cmd[512];

	free(p->maps);
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/unit/%s' '%s'", TOP_DIR, bin,
		 prog);
	CHECK_EQ(system(cmd), 0, "copy %s", bin);
	CHECK_EQ(run_probe(p), 0, "run %s: its addresses and map", bin);
	CHECK_EQ(p->maps ? write_recording(p) : -1, 0, "write the recording "
		 "of %s: %s", bin, msg);
	return p->maps ? 0 : -1;
}

/* a program linked at a fixed address: its ELF addresses are its own */
static void test_no_pie(const struct probe *p)
{
	static const double period[3] = { 60, 30, 10 };

	t_section("pmuctx annotate: a program linked without -pie");
	CHECK_EQ(run(NULL, "-i", path, "-s", "annprobe_loop", NULL), 0,
		 "exits 0");
	check_loop("# annprobe_loop [.]", elf_addr(p, p->loop), period,
		   "no-pie");
}

/* the directory and what the runs captured */
static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0, "remove %s", dir);
	free(cap_out);
	free(cap_err);
	cap_out = cap_err = NULL;
}

void test_annotate(void)
{
	struct probe p = { 0 };

	if (!ANNPROBE_SIZE || system("command -v objdump >/dev/null")) {
		t_diag("annotate: no objdump, or annprobe_loop is not in "
		       "assembly for this architecture: skipped");
		return;
	}
	if (!make_dir()) {
		CHECK(0, "mkdtemp %s: %s", dir, strerror(errno));
		return;
	}
	write_kallsyms();
	if (!setup("annprobe", &p)) {
		test_default(&p);
		test_vmlinux(&p);
		test_usage();
		test_changed();
	}
	if (!setup("annprobe-nopie", &p))
		test_no_pie(&p);
	free(p.maps);
	cleanup();
}
