// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report's profile options, the ones a perf user types (issue 30
 * item 6): --sort, --comm/--pid/--tid/--dso/--time, --no-children,
 * -g caller, --percent-limit, --stdio's call tree.  One recording
 * (write_rich()) holds three processes, two of them named "burn", over
 * three shared objects (the kernel, this program, libc), samples with
 * kernel and user frames, a deferred user callchain, and the side-band a
 * real one has (switches, fork, exec, exit, a user record, a throttle, a
 * loss); the report of each option is compared with what perf report
 * shows for the same samples.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <pmuctx.h>

#include "../../tools/builtin.h"
#include "../../tools/pmfile.h"
#include "profile/profile.pb-c.h"
#include "test.h"

extern const struct cmd cmd_report;

static char dir[64];
static char path[128], ks[128];
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

/* the user functions of the samples: this program's, and libc's qsort */
static volatile int rep_sink;

__attribute__((noinline)) void rep_leaf(void)
{
	rep_sink++;
	rep_sink++;
}

__attribute__((noinline)) void rep_mid(void)
{
	rep_leaf();
	rep_sink++;
}

__attribute__((noinline)) void rep_main(void)
{
	rep_mid();
	rep_sink++;
}

#define LEAF	((__u64)(uintptr_t)rep_leaf + 4)
#define MID	((__u64)(uintptr_t)rep_mid + 4)
#define MAIN	((__u64)(uintptr_t)rep_main + 4)
#define QSORT	(libc_qsort() + 4)

/* libc's own qsort (ASan's runtime has one of its own) */
static __u64 libc_qsort(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *f = h ? dlsym(h, "qsort") : NULL;

	if (h)
		dlclose(h);
	return f ? (__u64)(uintptr_t)f : (__u64)(uintptr_t)qsort;
}

/*
 * @s with this program's name where it says "ring-tests" in a 24-column
 * field (the shared object column): ring-tests-san runs the same tests
 */
static const char *self(const char *s)
{
	static char buf[4][4096];
	static unsigned int k;
	const char *field = "ring-tests              ", *at;
	char exe[512], name[600], *b = buf[k++ % 4];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *base;

	exe[n > 0 ? n : 0] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	snprintf(name, sizeof(name), "%-24s", base);
	*b = '\0';
	while ((at = strstr(s, field))) {
		strncat(b, s, (size_t)(at - s));
		strcat(b, name);
		s = at + strlen(field);
	}
	strcat(b, s);
	return b;
}

#define K_CLEAR	0xffffffff81004010ULL	/* clear_user+0x10 */
#define K_SYSC	0xffffffff81002030ULL	/* do_syscall_64+0x30 */
#define K_OTHER	0xffffffff81005008ULL	/* other+0x8 */

static const char ksyms[] =
	"ffffffff81002000 T do_syscall_64\n"
	"ffffffff81004000 T clear_user\n"
	"ffffffff81005000 T other\n"
	"ffffffff81006000 T other_end\n";

/* /proc/self/maps' lines of this program and of libc */
static char *rich_maps(void)
{
	char exe[512], line[1024];
	size_t len = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *out = calloc(1, 65536);
	FILE *f = fopen("/proc/self/maps", "re");

	if (n <= 0 || !out || !f)
		abort();
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *e = line + strlen(line);

		while (e > line && e[-1] == '\n')
			*--e = '\0';
		if (((size_t)(e - line) > strlen(exe) &&
		     !strcmp(e - strlen(exe), exe)) || strstr(line, "/libc.") ||
		    strstr(line, "/libc-")) {
			if (len + strlen(line) + 2 < 65536)
				len += (size_t)sprintf(out + len, "%s\n", line);
		}
	}
	fclose(f);
	return out;
}

static void put_comm(struct pmf_writer *w, __u64 t, __u32 cpu, __s32 pid,
		     __s32 tid, const char *comm, bool recorder)
{
	struct pmuctx_rec_comm r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = PMUCTX_REC_COMM;
	r.hdr.size = sizeof(r);
	r.hdr.misc = recorder ? PMF_COMM_M_RECORDER : 0;
	r.c.time = t;
	r.c.cpu = cpu;
	r.c.pid = pid;
	r.c.tid = tid;
	strncpy(r.comm, comm, sizeof(r.comm));
	pmf_add_record(w, &r, sizeof(r));
}

static void put_switch(struct pmf_writer *w, __u64 t, __u32 cpu, __s32 pid,
		       __s32 tid, __s32 next, bool preempt, __u64 tc)
{
	struct {
		struct pmuctx_rec_switch s;
		__u64 d[2];
	} r;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = PMUCTX_REC_SWITCH;
	r.s.hdr.size = sizeof(r);
	r.s.hdr.misc = preempt ? PMUCTX_SWITCH_PREEMPT : 0;
	r.s.c.time = t;
	r.s.c.cpu = cpu;
	r.s.c.pid = pid;
	r.s.c.tid = tid;
	r.s.next_pid = next;
	r.s.next_tid = next;
	r.s.prev_state = preempt ? 0 : 1;
	r.s.nr = 2;
	r.d[0] = tc;
	r.d[1] = 1;
	pmf_add_record(w, &r, sizeof(r));
}

/*
 * a sample: @nk kernel frames @k (innermost first) then @nu user frames
 * @u; @cookie non-zero: the user part is deferred to a USER_CALLCHAIN
 */
static void put_sample(struct pmf_writer *w, __u64 t, __u32 cpu, __s32 pid,
		       __s32 tid, __u64 period, const __u64 *k,
		       unsigned int nk, const __u64 *u, unsigned int nu,
		       __u64 cookie)
{
	struct {
		struct pmuctx_rec_sample s;
		__u64 ips[16];
	} r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = PMUCTX_REC_SAMPLE;
	r.s.hdr.size = (__u16)(sizeof(r.s) + (nk + nu) * sizeof(__u64));
	r.s.hdr.misc = nk ? 0 : PMUCTX_SAMPLE_M_USER;
	if (cookie)
		r.s.hdr.misc |= PMUCTX_SAMPLE_M_USER_DEFERRED;
	r.s.c.time = t;
	r.s.c.cpu = cpu;
	r.s.c.pid = pid;
	r.s.c.tid = tid;
	r.s.period = period;
	r.s.cookie = cookie;
	r.s.nr_kernel = (__u16)nk;
	r.s.nr_user = (__u16)nu;
	for (i = 0; i < nk; i++)
		r.ips[i] = k[i];
	for (i = 0; i < nu; i++)
		r.ips[nk + i] = u[i];
	r.s.ip = nk + nu ? r.ips[0] : 0;
	pmf_add_record(w, &r, r.s.hdr.size);
}

static void put_user_callchain(struct pmf_writer *w, __u64 t, __u32 cpu,
			       __s32 pid, __s32 tid, __u64 cookie,
			       const __u64 *u, unsigned int nu)
{
	struct {
		struct pmuctx_rec_user_callchain uc;
		__u64 ips[16];
	} r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.uc.hdr.type = PMUCTX_REC_USER_CALLCHAIN;
	r.uc.hdr.size = (__u16)(sizeof(r.uc) + nu * sizeof(__u64));
	r.uc.c.time = t;
	r.uc.c.cpu = cpu;
	r.uc.c.pid = pid;
	r.uc.c.tid = tid;
	r.uc.cookie = cookie;
	r.uc.nr = nu;
	for (i = 0; i < nu; i++)
		r.ips[i] = u[i];
	pmf_add_record(w, &r, r.uc.hdr.size);
}

static void put_sideband(struct pmf_writer *w)
{
	struct pmuctx_rec_fork f;
	struct {
		struct pmuctx_rec_exec e;
		char name[16];
	} x;
	struct {
		struct pmuctx_rec_exit e;
		__u64 v[2];
	} ex;
	struct {
		struct pmuctx_rec_user u;
		__u8 data[8];
	} us;
	struct pmuctx_rec_throttle th;
	struct pmuctx_rec_lost lo;

	memset(&f, 0, sizeof(f));
	f.hdr.type = PMUCTX_REC_FORK;
	f.hdr.size = sizeof(f);
	f.c.time = 1200000000ULL;
	f.c.pid = f.c.tid = 300;
	f.child_pid = 300;
	f.child_tid = 301;
	pmf_add_record(w, &f, sizeof(f));

	memset(&x, 0, sizeof(x));
	x.e.hdr.type = PMUCTX_REC_EXEC;
	x.e.hdr.size = sizeof(x);
	x.e.c.time = 1150000000ULL;
	x.e.c.cpu = 1;
	x.e.c.pid = x.e.c.tid = 400;
	strncpy(x.e.comm, "gzip", sizeof(x.e.comm));
	strcpy(x.name, "/usr/bin/gzip");
	pmf_add_record(w, &x, sizeof(x));

	memset(&ex, 0, sizeof(ex));
	ex.e.hdr.type = PMUCTX_REC_EXIT;
	ex.e.hdr.size = sizeof(ex);
	ex.e.c.time = 1550000000ULL;
	ex.e.c.cpu = 1;
	ex.e.c.pid = 300;
	ex.e.c.tid = 301;
	ex.e.nr = 2;
	ex.v[0] = 1500000;
	ex.v[1] = 3;
	pmf_add_record(w, &ex, sizeof(ex));

	memset(&us, 0, sizeof(us));
	us.u.hdr.type = PMUCTX_REC_USER;
	us.u.hdr.size = sizeof(us);
	us.u.c.time = 1450000000ULL;
	us.u.c.pid = us.u.c.tid = 300;
	us.u.len = 5;
	memcpy(us.data, "mark\n", 5);
	pmf_add_record(w, &us, sizeof(us));

	memset(&th, 0, sizeof(th));
	th.hdr.type = PMUCTX_REC_THROTTLE;
	th.hdr.size = sizeof(th);
	th.hdr.misc = PMUCTX_THROTTLE_ON;
	th.c.time = 1650000000ULL;
	th.c.cpu = 1;
	th.period_ns = 500000;
	th.avg_ns = 150000;
	pmf_add_record(w, &th, sizeof(th));

	memset(&lo, 0, sizeof(lo));
	lo.hdr.type = PMUCTX_REC_LOST;
	lo.hdr.size = sizeof(lo);
	lo.c.time = 1750000000ULL;
	lo.c.cpu = 1;
	lo.lost = 2;
	pmf_add_record(w, &lo, sizeof(lo));
}

/*
 * The samples (ms of period):
 *   1.3 cpu0 burn 300/300  1.0  clear_user do_syscall_64 | leaf mid main
 *   1.4 cpu0 burn 300/300  2.0  leaf mid main
 *   1.5 cpu1 burn 300/301  1.5  qsort main
 *   1.6 cpu0 gzip 400/400  4.0  main
 *   1.7 cpu1 gzip 400/400  3.0  other | qsort mid main
 *   1.8 cpu0 burn 500/500  2.5  mid main
 *   1.9 cpu1 burn 500/500  1.0  clear_user do_syscall_64
 *   2.0 cpu0 gzip 400/400  0.5  other | (deferred) leaf main
 * 15.5 ms in all, 8 samples.  At 250 Hz (a 4 ms period): no period is
 * longer than the sampler's, so the default weight (the period, capped
 * at the sampling period) is the period as recorded.
 */
static int write_rich(const char *p)
{
	const __u64 k1[2] = { K_CLEAR, K_SYSC }, k2[1] = { K_OTHER };
	const __u64 u1[3] = { LEAF, MID, MAIN }, u2[2] = { QSORT, MAIN };
	const __u64 u3[1] = { MAIN }, u4[3] = { QSORT, MID, MAIN };
	const __u64 u5[2] = { MID, MAIN }, u6[2] = { LEAF, MAIN };
	struct pmf_cpu_stats st[2];
	struct pmf_writer *w;
	struct pmf_meta m;
	char *maps = rich_maps();
	int err;

	memset(&m, 0, sizeof(m));
	m.info.abi_version = PMUCTX_ABI_VERSION;
	m.info.module_abi = 1;
	m.info.nr_cpus = 2;
	m.info.ring_mode = PMUCTX_RING_NORMAL;
	m.info.ring_pages = 64;
	m.info.page_size = 4096;
	m.info.ring_records = PMUCTX_REC_MASK_ALL;
	m.info.target = PMUCTX_TARGET_PID;
	m.info.pid = 300;
	m.info.nr_events = 2;
	m.info.events[0] = PMUCTX_EV_TASK_CLOCK;
	m.info.events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
	m.info.start_mono_ns = 1000000000ULL;
	m.info.start_real_ns = 1700000000ULL * 1000000000ULL;
	m.info.sample_freq = 250;
	m.info.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK |
			      PMUCTX_SAMPLE_USER_STACK |
			      PMUCTX_SAMPLE_DEFER_USER;
	m.info.sample_max_stack = 127;
	m.command = "sh run.sh";
	m.hostname = "testhost";
	m.release = "6.1.0-test";
	m.tool_version = "pmuctx test";
	m.module_version = "0.1.0-fake";
	err = pmf_create(&w, p, &m, msg, sizeof(msg));
	if (err) {
		free(maps);
		return err;
	}
	memset(st, 0, sizeof(st));
	st[1].lost = st[1].lost_window = 2;
	pmf_window_begin(w, PMF_WIN_STREAM, 1000000000ULL, 0);
	put_comm(w, 1100000000ULL, 0, 300, 300, "burn", false);
	put_comm(w, 1100000000ULL, 1, 400, 400, "sh", false);
	put_comm(w, 1100000000ULL, 0, 500, 500, "burn", false);
	put_sideband(w);
	put_switch(w, 1250000000ULL, 0, 300, 300, 0, true, 250000);
	put_switch(w, 1350000000ULL, 1, 300, 301, 400, false, 500000);
	put_sample(w, 1300000000ULL, 0, 300, 300, 1000000, k1, 2, u1, 3, 0);
	put_sample(w, 1400000000ULL, 0, 300, 300, 2000000, NULL, 0, u1, 3, 0);
	put_sample(w, 1500000000ULL, 1, 300, 301, 1500000, NULL, 0, u2, 2, 0);
	put_sample(w, 1600000000ULL, 0, 400, 400, 4000000, NULL, 0, u3, 1, 0);
	put_sample(w, 1700000000ULL, 1, 400, 400, 3000000, k2, 1, u4, 3, 0);
	put_sample(w, 1800000000ULL, 0, 500, 500, 2500000, NULL, 0, u5, 2, 0);
	put_sample(w, 1900000000ULL, 1, 500, 500, 1000000, k1, 2, NULL, 0, 0);
	put_sample(w, 2000000000ULL, 0, 400, 400, 500000, k2, 1, NULL, 0, 7);
	put_user_callchain(w, 2010000000ULL, 0, 400, 400, 7, u6, 2);
	put_switch(w, 2050000000ULL, 0, 400, 400, 0, false, 7500000);
	pmf_window_end(w, st, 2, 2100000000ULL);
	pmf_add_maps(w, 300, 1000000000ULL, PMF_MAPS_START, maps,
		     strlen(maps));
	pmf_add_maps(w, 400, 1150000000ULL, PMF_MAPS_EXEC, maps,
		     strlen(maps));
	pmf_add_maps(w, 500, 1000000000ULL, PMF_MAPS_START, maps,
		     strlen(maps));
	free(maps);
	return pmf_close(w, 0, msg, sizeof(msg));
}

static void write_file(const char *p, const char *s)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		CHECK(0, "write %s", p);
	if (fd >= 0)
		close(fd);
}

/* the recording and what report prints of it without any new option */
static void test_rich_baseline(void)
{
	int ret;

	t_section("pmuctx report: a recording of three processes");
	CHECK_EQ(write_rich(path), 0, "write the recording: %s", msg);
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "text exits 0");
	CHECK_HAS(cap_out, "# Samples: 8 of event 'cpu-clock' (250 Hz per "
		  "CPU), 15.500 ms of CPU time\n", "text: 8 samples, 15.5 ms");
	CHECK_HAS(cap_out, "[.] rep_main\n", "text: names this program's "
		  "functions");
	CHECK_HAS(cap_out, "[k] clear_user\n", "text: names kernel functions");
	CHECK_HAS(cap_out, "\n      300/301     burn             slices 1 ",
		  "text: the per-task summary names a forked thread as its "
		  "parent (was '?' in a profile, whose records are not "
		  "walked)");
	CHECK_HAS(cap_out, "\n      400/400     gzip             slices 1 ",
		  "text: and a task by its last name, as with the records");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--format",
		  "folded", NULL);
	CHECK_EQ(ret, 0, "folded exits 0");
	CHECK_HAS(cap_out, "\ngzip;rep_main;rep_leaf;other 500000\n",
		  "folded: the deferred sample, stitched");
}

/* a usage error: exit status 2 and @msg on standard error */
#define CHECK_USAGE(ret, msg, ...) do {					\
	CHECK_EQ(ret, 2, __VA_ARGS__);					\
	CHECK_HAS(cap_err, msg, __VA_ARGS__);				\
} while (0)

/* --sort: perf report's keys, the columns in their order */
static void test_sort(void)
{
	int ret;

	t_section("pmuctx report --sort");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--sort",
		  "pid,sym", NULL);
	CHECK_EQ(ret, 0, "--sort pid,sym exits 0");
	CHECK_HAS(cap_out, "\n# Children      Self  Pid:Command            "
		  "   Symbol\n", "--sort pid,sym: the columns Pid:Command and "
		  "Symbol");
	CHECK_HAS(cap_out, "\n     48.39%    25.81%      400:gzip         "
		  "     [.] rep_main\n", "--sort pid,sym: gzip's main");
	CHECK_HAS(cap_out, "\n      9.68%     9.68%      301:burn         "
		  "     [.] qsort\n", "--sort pid,sym: the thread 301 apart "
		  "from its process");
	CHECK_HAS(cap_out, "\n     16.13%    16.13%      500:burn         "
		  "     [.] rep_mid\n", "--sort pid,sym: the other burn process "
		  "apart");
	CHECK_LACKS(cap_out, "Shared Object", "--sort pid,sym: no dso column");

	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "-s", "comm",
		  NULL);
	CHECK_EQ(ret, 0, "-s comm exits 0");
	CHECK_HAS(cap_out, "\n     51.61%    51.61%  burn\n     48.39%    "
		  "48.39%  gzip\n", "-s comm: both burn processes in one "
		  "entry (8 of 15.5 ms), then gzip");

	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--sort", "sym",
		  NULL);
	CHECK_HAS(cap_out, "\n     93.55%    25.81%  [.] rep_main\n",
		  "--sort sym: main over every command (14.5 of 15.5 ms)");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--sort",
		  "dso,symbol", "--no-children", NULL);
	CHECK_HAS(cap_out, self("\n    25.81%  ring-tests                [.] "
		  "rep_main\n"), "--sort dso,symbol: the key's full name");

	ret = run(&cmd_report, "--help", NULL);
	CHECK(ret == 0 && cap_out && strstr(cap_out, "-s, --sort KEYS") &&
	      strstr(cap_out, "--no-children") && strstr(cap_out,
	      "--percent-limit PCT") && strstr(cap_out, "-g, --call-graph") &&
	      strstr(cap_out, "--time RANGES"), "--help: the new options");
	/* srcline: perf's, a line of source per entry (a list-like view) */
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--sort",
		  "sym,srcline", "--no-children", NULL);
	CHECK_EQ(ret, 0, "--sort sym,srcline exits 0");
	CHECK_HAS(cap_out, "\n# Overhead  Symbol                    "
		  "Source:Line\n", "--sort sym,srcline: the columns");
	CHECK_HAS(cap_out, "\n    25.81%  [.] rep_main              "
		  "test_report.c:", "--sort sym,srcline: main's line in this "
		  "file");
	CHECK_HAS(cap_out, "\n    12.90%  [k] clear_user            "
		  "clear_user\n", "--sort sym,srcline: a function without "
		  "lines is one entry, named");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "-s", "srcline",
		  "-g", "callee", NULL);
	CHECK(ret == 0 && cap_out && strstr(cap_out, "test_report.c:") &&
	      strstr(cap_out, "---rep_main\n"), "-s srcline -g: the graph "
	      "from the line's function");
	ret = run(&cmd_report, "-i", path, "--sort", "comm,cpu", NULL);
	CHECK_USAGE(ret, "--sort: unknown key 'cpu' (the keys: comm, pid, "
		    "dso, symbol, srcline)", "--sort with an unknown key: the "
		    "keys");
	ret = run(&cmd_report, "-i", path, "--sort", "sym,symbol", NULL);
	CHECK_USAGE(ret, "given twice", "--sort with a key twice");
	ret = run(&cmd_report, "-i", path, "--sort", "sym", "--format",
		  "folded", NULL);
	CHECK_USAGE(ret, "--sort shapes the profile table of --format text",
		    "--sort with --format folded");
}

/* --no-children and --percent-limit */
static void test_children_limit(void)
{
	int ret;

	t_section("pmuctx report --no-children, --percent-limit");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--no-children",
		  NULL);
	CHECK_EQ(ret, 0, "--no-children exits 0");
	CHECK_HAS(cap_out, "\n# Overhead  Command           Shared Object  "
		  "           Symbol\n", "--no-children: one Overhead column");
	CHECK_HAS(cap_out, self("#\n    25.81%  gzip              ring-tests"
		  "                [.] rep_main\n    22.58%  gzip              "
		  "[kernel.kallsyms]         [k] other\n"), "--no-children: by "
		  "self, heaviest first");
	CHECK_LACKS(cap_out, self("burn              ring-tests              "
		    "  [.] rep_main"), "--no-children: no entry without self");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--no-children",
		  "--children", NULL);
	CHECK_HAS(cap_out, "# Children      Self", "--children after "
		  "--no-children: the default back");

	ret = run(&cmd_report, "-i", path, "--kallsyms", ks,
		  "--percent-limit", "20", NULL);
	CHECK_EQ(ret, 0, "--percent-limit 20 exits 0");
	CHECK_HAS(cap_out, "[k] other\n", "--percent-limit 20: 22.58 %% shown");
	CHECK_LACKS(cap_out, "19.35%", "--percent-limit 20: 19.35 %% hidden "
		    "(children, as perf)");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks,
		  "--percent-limit", "20", "--no-children", NULL);
	CHECK(cap_out && strstr(cap_out, "25.81%") && strstr(cap_out,
	      "22.58%") && !strstr(cap_out, "16.13%"),
	      "--percent-limit 20 --no-children: by overhead (self)");
	ret = run(&cmd_report, "-i", path, "--percent-limit", "much", NULL);
	CHECK_USAGE(ret, "--percent-limit 'much': expected a percentage",
		    "--percent-limit with a word");
	ret = run(&cmd_report, "-i", path, "--percent-limit", "120", NULL);
	CHECK_USAGE(ret, "from 0 to 100", "--percent-limit over 100");
}

/* --comms, --pid, --tid, --time: the samples kept, in every output */
static void test_filters(void)
{
	int ret;

	t_section("pmuctx report --comms, --pid, --tid, --time");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--comms", "gzip",
		  NULL);
	CHECK_EQ(ret, 0, "--comms gzip exits 0");
	CHECK_HAS(cap_out, "# Samples: 3 of event 'cpu-clock' (250 Hz per "
		  "CPU), 7.500 ms of CPU time\n# Event count (approx.): "
		  "7500000\n# Filtered out: 5 sample(s)",
		  "--comms gzip: 3 samples, 5 left out, said so");
	CHECK_HAS(cap_out, self("\n    100.00%    53.33%  gzip              "
		  "ring-tests                [.] rep_main\n"), "--comms gzip: "
		  "100 %% is gzip's samples (relative, as perf)");
	CHECK_LACKS(cap_out, "%  burn", "--comms gzip: no burn entry");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "-c", "gzip",
		  "--percentage", "absolute", NULL);
	CHECK_HAS(cap_out, "\n     48.39%    25.81%  gzip ", "--percentage "
		  "absolute: 100 %% is every sample");

	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--pid", "500",
		  "--format", "folded", NULL);
	CHECK(ret == 0 && cap_out && !strcmp(strchr(cap_out, '\n') + 1,
	      "burn;do_syscall_64;clear_user 1000000\n"
	      "burn;rep_main;rep_mid 2500000\n"), "--pid 500 folded: the "
	      "stacks of process 500 only");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--tid", "301",
		  "--format", "perf-script", NULL);
	CHECK(ret == 0 && cap_out && strstr(cap_out, "burn   300/301   [001]"
	      "     1.500000:") && !strstr(cap_out, "300/300") &&
	      !strstr(cap_out, "400/400"), "--tid 301 perf-script: the "
	      "thread's sample only");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--pid",
		  "300,400", "--tid", "300,400", "--format", "folded",
		  "--weight", "samples", NULL);
	CHECK(cap_out && !strstr(cap_out, "qsort 1\n") &&
	      strstr(cap_out, "gzip;rep_main 1\n"), "--pid and --tid: both");

	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--time",
		  "1.45,1.75", "--format", "folded", NULL);
	CHECK(ret == 0 && cap_out && !strcmp(strchr(cap_out, '\n') + 1,
	      "burn;rep_main;qsort 1500000\n"
	      "gzip;rep_main 4000000\n"
	      "gzip;rep_main;rep_mid;qsort;other 3000000\n"),
	      "--time 1.45,1.75: the samples at 1.5, 1.6, 1.7 s");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--time",
		  ",1.3 2.0,", "--format", "folded", "--weight", "samples",
		  NULL);
	CHECK(ret == 0 && cap_out && !strcmp(strchr(cap_out, '\n') + 1,
	      "burn;rep_main;rep_mid;rep_leaf;do_syscall_64;clear_user 1\n"
	      "gzip;rep_main;rep_leaf;other 1\n"), "--time ',1.3 2.0,': "
	      "open ranges, two of them");
	ret = run(&cmd_report, "-i", path, "--time", "1.5", NULL);
	CHECK_USAGE(ret, "--time '1.5': expected START,STOP in seconds",
		    "--time without a comma");
	ret = run(&cmd_report, "-i", path, "--time", "2,1", NULL);
	CHECK_USAGE(ret, "--time '2,1'", "--time ending before it starts");
	ret = run(&cmd_report, "-i", path, "--pid", "3o0", NULL);
	CHECK_USAGE(ret, "--pid '3o0': expected ids separated by commas",
		    "--pid not a number");
	ret = run(&cmd_report, "-i", path, "--comms", "gzip,", NULL);
	CHECK_USAGE(ret, "--comms 'gzip,': an empty name", "--comms with an "
		    "empty name");
	ret = run(&cmd_report, "-i", path, "--pid", "1", "--format", "json",
		  NULL);
	CHECK_USAGE(ret, "select samples: --format text, folded, pprof or "
		    "perf-script", "--pid with --format json");
}

/* --dsos, --symbols: the table's entries, 100 % their samples */
static void test_entry_filters(void)
{
	int ret;

	t_section("pmuctx report --dsos, --symbols");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--dsos",
		  "libc.so.6", NULL);
	CHECK_EQ(ret, 0, "--dsos exits 0");
	CHECK_HAS(cap_out, "#\n     66.67%     0.00%  gzip              "
		  "libc.so.6                 [.] qsort\n     33.33%    33.33%  "
		  "burn              libc.so.6                 [.] qsort\n\n",
		  "--dsos libc.so.6: its entries alone, 100 %% the samples "
		  "through it");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "-d", "libc.so.6",
		  "--percentage", "absolute", NULL);
	CHECK_HAS(cap_out, "\n     19.35%     0.00%  gzip              "
		  "libc.so.6", "--dsos --percentage absolute: of every sample");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--symbols",
		  "qsort,clear_user", "--no-children", NULL);
	CHECK_HAS(cap_out, "#\n    57.14%  burn              "
		  "[kernel.kallsyms]         [k] clear_user\n    42.86%  burn  "
		  "            libc.so.6                 [.] qsort\n\n",
		  "--symbols --no-children: the Overhead of those at the top");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "-d", "nothere",
		  NULL);
	CHECK_HAS(cap_out, "# (no entry: no sample in the --dsos or "
		  "--symbols given)", "--dsos of no sample: said so");
}

/* -g: perf report --stdio's call graph under each entry */
static void test_call_graph(void)
{
	int ret;

	t_section("pmuctx report -g");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--comms", "gzip",
		  "-g", "caller", NULL);
	CHECK_EQ(ret, 0, "-g caller exits 0 (its value a word of its own)");
	CHECK_HAS(cap_out, "[.] rep_main\n"
		  "            |\n"
		  "            ---rep_main\n"
		  "               |\n"
		  "               |--40.00%--rep_mid\n"
		  "               |          qsort\n"
		  "               |          other\n"
		  "               |\n"
		  "                --6.67%--rep_leaf\n"
		  "                         other\n\n",
		  "-g caller: main, then what it called");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--comms", "gzip",
		  "-G", NULL);
	CHECK_HAS(cap_out, "            ---rep_main\n               |\n"
		  "               |--40.00%--rep_mid\n", "-G: the same");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--no-children",
		  "-g", NULL);
	CHECK_HAS(cap_out, "[k] other\n"
		  "            |\n"
		  "            ---other\n"
		  "               |\n"
		  "               |--19.35%--qsort\n"
		  "               |          rep_mid\n"
		  "               |          rep_main\n"
		  "               |\n"
		  "                --3.23%--rep_leaf\n"
		  "                         rep_main\n\n",
		  "-g with --no-children: callee order, from the top down to "
		  "its callers (perf's default without --children)");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--sort", "sym",
		  "--call-graph=folded,callee", NULL);
	CHECK_HAS(cap_out, "[k] other\n"
		  "            19.35% other;qsort;rep_mid;rep_main\n"
		  "            3.23% other;rep_leaf;rep_main\n",
		  "--call-graph=folded,callee: a line per chain");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "--sort", "sym",
		  "-g", "graph,10,caller", NULL);
	CHECK_HAS(cap_out, "---rep_main\n               |\n"
		  "                --54.84%--rep_mid\n", "-g graph,10,caller: "
		  "one branch over 10 %%, the last");
	CHECK_LACKS(cap_out, "--3.23%--", "-g graph,10: branches under 10 %% "
		    "hidden");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, "-g", "none",
		  "--stdio", NULL);
	CHECK(ret == 0 && cap_out && !strstr(cap_out, "            |\n"),
	      "-g none (and --stdio, accepted): no graph");
	ret = run(&cmd_report, "-i", path, "-g", "caller,upside-down", NULL);
	CHECK_USAGE(ret, "--call-graph 'caller,upside-down': expected graph, "
		    "fractal, folded or none", "-g with an unknown word");
}

/* ---- weights: a stall is one period, not 500 (issue 30 item 3) ----------- */

#define STALL_PERIOD	1000000ULL	/* 1000 Hz */
#define STALL_NS	(500 * STALL_PERIOD)

/*
 * A program that stalls, as the hrtimer sampler records it at 1000 Hz:
 * 100 samples in rep_leaf one period apart (a few us late, as ticks
 * are), then one in rep_mid whose period is 500 ms, the time since the
 * previous sample (a tick held back: interrupts off, an emulator, a
 * vCPU not run).  perf's cpu-clock weighs each sample one period: its
 * report has rep_mid at 1 %, not 78 %.  On CPU 1 a THROTTLE record
 * slows the sampler to 4 ms: its 10 samples of 4 ms in rep_main are
 * 4 ms each, the period then in effect there.
 */
static int write_stall(const char *p)
{
	const __u64 leaf[2] = { LEAF, MAIN }, mid[2] = { MID, MAIN };
	const __u64 main_[1] = { MAIN };
	struct pmuctx_rec_throttle th;
	struct pmf_cpu_stats st[2];
	struct pmf_writer *w;
	struct pmf_meta m;
	char *maps = rich_maps();
	__u64 t = 1100000000ULL;
	unsigned int i;
	int err;

	memset(&m, 0, sizeof(m));
	m.info.abi_version = PMUCTX_ABI_VERSION;
	m.info.module_abi = 1;
	m.info.nr_cpus = 2;
	m.info.ring_mode = PMUCTX_RING_NORMAL;
	m.info.ring_pages = 64;
	m.info.page_size = 4096;
	m.info.ring_records = PMUCTX_REC_MASK_ALL;
	m.info.target = PMUCTX_TARGET_PID;
	m.info.pid = 600;
	m.info.start_mono_ns = 1000000000ULL;
	m.info.start_real_ns = 1700000000ULL * 1000000000ULL;
	m.info.sample_freq = 1000;
	m.info.sample_flags = PMUCTX_SAMPLE_USER_STACK;
	m.info.sample_max_stack = 127;
	m.command = "./stall";
	m.hostname = "testhost";
	m.release = "6.1.0-test";
	m.tool_version = "pmuctx test";
	m.module_version = "0.1.0-fake";
	err = pmf_create(&w, p, &m, msg, sizeof(msg));
	if (err) {
		free(maps);
		return err;
	}
	memset(st, 0, sizeof(st));
	pmf_window_begin(w, PMF_WIN_STREAM, 1000000000ULL, 0);
	put_comm(w, 1000000000ULL, 0, 600, 600, "stall", false);
	put_comm(w, 1000000000ULL, 1, 600, 601, "stall", false);
	memset(&th, 0, sizeof(th));
	th.hdr.type = PMUCTX_REC_THROTTLE;
	th.hdr.size = sizeof(th);
	th.hdr.misc = PMUCTX_THROTTLE_ON;
	th.c.time = 1050000000ULL;
	th.c.cpu = 1;
	th.period_ns = 4 * STALL_PERIOD;
	th.avg_ns = 1500000;
	pmf_add_record(w, &th, sizeof(th));
	for (i = 0; i < 100; i++) {
		__u64 late = 2000 + 1000 * (i % 3);

		t += STALL_PERIOD + late;
		put_sample(w, t, 0, 600, 600, STALL_PERIOD + late, NULL, 0,
			   leaf, 2, 0);
		if (i % 10 == 0)
			put_sample(w, t + 1, 1, 600, 601,
				   4 * STALL_PERIOD + late, NULL, 0, main_,
				   1, 0);
	}
	t += STALL_NS;
	put_sample(w, t, 0, 600, 600, STALL_NS, NULL, 0, mid, 2, 0);
	pmf_window_end(w, st, 2, t + 1000000);
	pmf_add_maps(w, 600, 1000000000ULL, PMF_MAPS_START, maps,
		     strlen(maps));
	free(maps);
	return pmf_close(w, 0, msg, sizeof(msg));
}

/* the sum of the weights of folded stacks @s (after its '#' line) */
static __u64 folded_total(const char *s)
{
	__u64 sum = 0;
	const char *l;

	for (l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 :
					    NULL) {
		const char *e = strchr(l, '\n'), *sp;

		if (*l == '#' || *l == '\n')
			continue;
		for (sp = e ? e : l + strlen(l); sp > l && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
	}
	return sum;
}

/* the Self percentage of the text table's row of symbol @sym, or -1 */
static double text_self(const char *out, const char *sym)
{
	const char *at = out ? strstr(out, sym) : NULL;
	double children, self;

	if (!at)
		return -1;
	while (at > out && at[-1] != '\n')
		at--;
	if (sscanf(at, "%lf%% %lf%%", &children, &self) != 2)
		return -1;
	return self;
}

/* perf's "# Event count (approx.): N" line of the text report, or 0 */
static __u64 text_event_count(const char *out)
{
	const char *at = out ? strstr(out, "\n# Event count (approx.): ") :
			 NULL;

	return at ? strtoull(at + 26, NULL, 10) : 0;
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

/*
 * the pprof profile @file: the sum of its last sample type (what pprof
 * shows by default) over every sample, and over those whose leaf is
 * function @fn in @leaf
 */
static __u64 pprof_totals(const char *file, const char *fn, __u64 *leaf)
{
	Perftools__Profiles__Profile *pp = NULL;
	size_t gzlen = 0, rawlen = 0, i, j;
	char *gz = NULL, *raw = NULL;
	__u64 sum = 0, fn_id = 0;
	FILE *f = fopen(file, "re");

	*leaf = 0;
	if (f) {
		gz = malloc(1 << 20);
		if (gz)
			gzlen = fread(gz, 1, 1 << 20, f);
		fclose(f);
	}
	raw = gz && gzlen ? gunzip(gz, gzlen, &rawlen) : NULL;
	if (raw)
		pp = perftools__profiles__profile__unpack(NULL, rawlen,
							  (uint8_t *)raw);
	if (!pp)
		goto out;
	for (i = 0; i < pp->n_function; i++)
		if (!strcmp(pp->string_table[pp->function[i]->name], fn))
			fn_id = pp->function[i]->id;
	for (i = 0; i < pp->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pp->sample[i];
		__u64 v = (__u64)s->value[s->n_value - 1];

		sum += v;
		for (j = 0; j < pp->n_location && s->n_location_id; j++) {
			const Perftools__Profiles__Location *l =
				pp->location[j];

			if (l->id == s->location_id[0] && l->n_line &&
			    l->line[0]->function_id == fn_id)
				*leaf += v;
		}
	}
	perftools__profiles__profile__free_unpacked(pp, NULL);
out:
	free(raw);
	free(gz);
	return sum;
}

static void test_stall_weight(void)
{
	char stall[160], pprof[160];
	__u64 total, leaf, ev;
	double pct;
	int ret;

	t_section("pmuctx report: a stall weighs one period (issue 30 item 3)");
	snprintf(stall, sizeof(stall), "%s/stall.pmu", dir);
	snprintf(pprof, sizeof(pprof), "%s/stall.pb.gz", dir);
	CHECK_EQ(write_stall(stall), 0, "write the recording: %s", msg);

	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "text exits 0");
	pct = text_self(cap_out, "[.] rep_mid\n");
	CHECK(pct > 0.5 && pct < 1.5, "text: the stalled rep_mid is ~0.7 %% "
	      "(one period of 141), not 78 %% (its 500 ms): %.2f %%", pct);
	pct = text_self(cap_out, "[.] rep_leaf\n");
	CHECK(pct > 65 && pct < 75, "text: rep_leaf's 100 periods are ~71 %% "
	      "(100 of 141): %.2f %%", pct);
	pct = text_self(cap_out, "[.] rep_main\n");
	CHECK(pct > 24 && pct < 32, "text: the throttled CPU's 10 samples "
	      "of 4 ms are ~28 %% (40 of 141): %.2f %%", pct);
	ev = text_event_count(cap_out);
	CHECK_EQ(ev, 141 * STALL_PERIOD, "text: perf's '# Event count' line, "
		 "the weight of every sample");
	CHECK_HAS(cap_out, "# Weight: period (ns of CPU time the samples "
		  "stand for, each capped at the sampling period",
		  "text: the header says the periods are capped");

	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--format",
		  "folded", NULL);
	CHECK_EQ(ret, 0, "folded exits 0");
	CHECK_HAS(cap_out, "\nstall;rep_main;rep_mid 1000000\n",
		  "folded: the stalled sample weighs one period");
	total = folded_total(cap_out);
	CHECK_EQ(total, ev, "folded: the total weight is the text report's");

	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--format",
		  "pprof", "-o", pprof, NULL);
	CHECK_EQ(ret, 0, "pprof exits 0");
	total = pprof_totals(pprof, "rep_mid", &leaf);
	CHECK_EQ(total, ev, "pprof: the total of its default sample type is "
		 "the text report's");
	CHECK_EQ(leaf, STALL_PERIOD, "pprof: the stalled sample weighs one "
		 "period");

	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--format",
		  "perf-script", NULL);
	CHECK(ret == 0 && cap_out && !strstr(cap_out, " 500000000 cpu-clock") &&
	      strstr(cap_out, "   1000000 cpu-clock: \n\t"),
	      "perf-script: the period each sample weighs (its readers "
	      "sum them): the stall's is one period");
	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--format",
		  "perf-script", "--weight", "raw-period", NULL);
	CHECK_HAS(cap_out, " 500000000 cpu-clock: \n",
		  "perf-script --weight raw-period: the period as recorded");

	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--weight",
		  "raw-period", NULL);
	CHECK_EQ(ret, 0, "--weight raw-period exits 0");
	pct = text_self(cap_out, "[.] rep_mid\n");
	CHECK(pct > 75 && pct < 85, "--weight raw-period: the periods as "
	      "recorded, rep_mid's 500 ms ~80 %%: %.2f %%", pct);
	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--format",
		  "folded", "--weight", "raw-period", NULL);
	CHECK_HAS(cap_out, "\nstall;rep_main;rep_mid 500000000\n",
		  "folded --weight raw-period: the stall as recorded");
	ret = run(&cmd_report, "-i", stall, "--kallsyms", ks, "--weight",
		  "samples", NULL);
	pct = text_self(cap_out, "[.] rep_mid\n");
	CHECK(pct > 0.5 && pct < 1.5, "--weight samples: rep_mid is 1 of "
	      "111 samples: %.2f %%", pct);
}

void test_report_opts(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pmuctx-reporttest.XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/rich.pmu", dir);
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	write_file(ks, ksyms);
	test_rich_baseline();
	test_sort();
	test_children_limit();
	test_filters();
	test_entry_filters();
	test_call_graph();
	test_stall_weight();
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
