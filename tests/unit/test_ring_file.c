// SPDX-License-Identifier: GPL-2.0
/*
 * The record file format (tools/pmfile.c), pmuctx report, and pmuctx
 * record / snapshot in-process against the fake module and fake ring of
 * test_ring.c: round trips, every truncation and every single-byte
 * corruption of a file (an error or a valid reading, never a crash), the
 * report formats, the option parsers, and the snapshot handshake between
 * a recorder in a child process and pmuctx snapshot.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <pmuctx.h>

#include "../../lib/internal.h"
#include "../../tools/builtin.h"
#include "../../tools/diagnose.h"
#include "../../tools/pmfile.h"
#include "../../tools/record/options.h"
#include "fake_kernel.h"
#include "test.h"

/* test_ring.c: the fake ring */
struct pmuctx_ring_ctl *fring_ctl(unsigned int cpu);
void fring_reset(unsigned int cpu, __u64 pos);
void fring_put(unsigned int cpu, const void *rec);
void fring_user(unsigned int cpu, __u64 time, __u64 seq);
void fring_install(unsigned int pages, __u32 mode);
void fring_remove(void);

static char dir[64];
static char path[128], path2[128];
static char *cap_out, *cap_err;
static char msg[4096];

/* run @cmd in-process, stdout/stderr captured; NULL-terminated args */
static int run(const struct cmd *cmd, ...)
{
	va_list ap;
	int ret;

	va_start(ap, cmd);
	ret = t_run_cmd(cmd, dir, &cap_out, &cap_err, ap);
	va_end(ap);
	return ret;
}

/* ---- records for files ------------------------------------------------ */

static size_t mk_switch(void *buf, __u64 time, __u32 cpu, __s32 tid,
			__s32 next, __u32 state, bool preempt, __u64 tc)
{
	struct {
		struct pmuctx_rec_switch s;
		__u64 d[2];
	} r;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = PMUCTX_REC_SWITCH;
	r.s.hdr.size = sizeof(r);
	r.s.hdr.misc = preempt ? PMUCTX_SWITCH_PREEMPT : 0;
	r.s.c.time = time;
	r.s.c.cpu = cpu;
	r.s.c.pid = tid;
	r.s.c.tid = tid;
	r.s.next_pid = next;
	r.s.next_tid = next;
	r.s.prev_state = state;
	r.s.nr = 2;
	r.d[0] = tc;
	r.d[1] = 1;
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

static size_t mk_comm(void *buf, __u64 time, __u32 cpu, __s32 tid,
		      const char *comm)
{
	struct pmuctx_rec_comm r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = PMUCTX_REC_COMM;
	r.hdr.size = sizeof(r);
	r.c.time = time;
	r.c.cpu = cpu;
	r.c.pid = tid;
	r.c.tid = tid;
	strncpy(r.comm, comm, sizeof(r.comm));
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

static size_t mk_exit(void *buf, __u64 time, __u32 cpu, __s32 tid, __u64 tc)
{
	struct {
		struct pmuctx_rec_exit e;
		__u64 v[2];
	} r;

	memset(&r, 0, sizeof(r));
	r.e.hdr.type = PMUCTX_REC_EXIT;
	r.e.hdr.size = sizeof(r);
	r.e.c.time = time;
	r.e.c.cpu = cpu;
	r.e.c.pid = tid;
	r.e.c.tid = tid;
	r.e.nr = 2;
	r.v[0] = tc;
	r.v[1] = 7;
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

static void meta_init(struct pmf_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->info.abi_version = PMUCTX_ABI_VERSION;
	m->info.module_abi = 1;
	m->info.nr_cpus = 2;
	m->info.ring_mode = PMUCTX_RING_OVERWRITE;
	m->info.ring_pages = 64;
	m->info.page_size = 4096;
	m->info.ring_records = PMUCTX_REC_MASK_ALL;
	m->info.target = PMUCTX_TARGET_PID;
	m->info.pid = 4242;
	m->info.nr_events = 2;
	m->info.events[0] = PMUCTX_EV_TASK_CLOCK;
	m->info.events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
	m->info.trigger_event = 1;
	m->info.trigger_threshold = 5000000;
	m->info.start_mono_ns = 1000000000ULL;
	m->info.start_real_ns = 1700000000ULL * 1000000000ULL;
	m->command = "burn --ms 20";
	m->hostname = "testhost";
	m->release = "6.1.0-test";
	m->tool_version = "pmuctx test";
	m->module_version = "0.1.0-fake";
}

/* a file with two windows; returns 0 */
static int write_sample(const char *p, bool close_it)
{
	struct pmf_writer *w;
	struct pmf_meta m;
	struct pmf_cpu_stats st[2];
	unsigned char b[128];
	size_t n;
	int err;

	meta_init(&m);
	err = pmf_create(&w, p, &m, msg, sizeof(msg));
	if (err)
		return err;
	memset(st, 0, sizeof(st));
	st[1].lost = st[1].lost_window = 3;
	pmf_window_begin(w, PMF_WIN_REQUEST, 5000000000ULL, 77);
	n = mk_comm(b, 1100000000ULL, 0, 300, "burn");
	pmf_add_record(w, b, n);
	n = mk_switch(b, 1200000000ULL, 1, 300, 0, 0, true, 21000000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 1150000000ULL, 0, 301, 300, 1, false, 2000);
	pmf_add_record(w, b, n);
	pmf_window_end(w, st, 2, 5000000100ULL);
	pmf_window_begin(w, PMF_WIN_TRIGGER, 6000000000ULL, 0);
	/* the same switch again (overlapping windows) and an exit */
	n = mk_switch(b, 1200000000ULL, 1, 300, 0, 0, true, 21000000);
	pmf_add_record(w, b, n);
	n = mk_exit(b, 1300000000ULL, 1, 300, 25000000);
	pmf_add_record(w, b, n);
	st[1].lost_window = 0;
	pmf_window_end(w, st, 2, 6000000100ULL);
	if (!close_it)
		return pmf_flush(w) ? -EIO : (pmf_close(w, 3, NULL, 0), 0);
	return pmf_close(w, 3, msg, sizeof(msg));
}

static bool write_bytes(const char *p, const void *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, buf, len) == (ssize_t)len;
	close(fd);
	return ok;
}

static void test_roundtrip(void)
{
	struct pmf_reader *r = NULL;
	int err;

	t_section("pmfile: round trip");
	snprintf(path, sizeof(path), "%s/a.pmu", dir);
	CHECK_EQ(write_sample(path, true), 0, "write a file with two windows");
	err = pmf_read(path, 0, &r, msg, sizeof(msg));
	CHECK_EQ(err, 0, "read it back");
	if (err) {
		t_diag("%s", msg);
		return;
	}
	CHECK(r->version == PMF_VERSION && r->have_end && !r->cut_short,
	      "version, end marker");
	CHECK(!strcmp(r->meta.command, "burn --ms 20") &&
	      !strcmp(r->meta.hostname, "testhost") &&
	      !strcmp(r->meta.release, "6.1.0-test") &&
	      !strcmp(r->meta.module_version, "0.1.0-fake"),
	      "the strings of INFO");
	CHECK(r->meta.info.nr_cpus == 2 && r->meta.info.ring_pages == 64 &&
	      r->meta.info.trigger_threshold == 5000000 &&
	      r->meta.info.clock == PMF_CLOCK_MONOTONIC &&
	      r->meta.info.events[1] == PMUCTX_EV_CONTEXT_SWITCHES,
	      "the numbers of INFO");
	CHECK_EQ(r->nr_wins, 2, "two windows");
	CHECK_EQ(r->nr_recs, 5, "five records");
	CHECK(r->wins[0].hdr.reason == PMF_WIN_REQUEST &&
	      r->wins[0].hdr.requester == 77 && r->wins[0].nr == 3 &&
	      r->wins[0].have_end && r->wins[0].cpus[1].lost_window == 3,
	      "window 0: reason, requester, records, lost");
	CHECK(r->wins[1].hdr.reason == PMF_WIN_TRIGGER &&
	      r->wins[1].first == 3 && r->wins[1].nr == 2,
	      "window 1");
	CHECK(r->end.exit_status == 3 && r->end.windows == 2 &&
	      r->end.records == 5 && !(r->end.flags & PMF_END_OPEN),
	      "END: exit status, counts, closed");
	pmf_free(r);
}

static void test_bad_files(void)
{
	struct pmf_reader *r = NULL;
	unsigned char *good;
	size_t len, i;
	int err, rejected = 0, partial_ok = 0, crashes = 0;
	char *s;
	struct stat st;

	t_section("pmfile: bad files");
	snprintf(path, sizeof(path), "%s/a.pmu", dir);
	snprintf(path2, sizeof(path2), "%s/b.pmu", dir);
	write_sample(path, true);
	s = t_slurp(path);
	if (stat(path, &st))
		return;
	len = (size_t)st.st_size;
	good = malloc(len);
	memcpy(good, s, len);
	free(s);

	/* every truncation */
	for (i = 0; i < len; i++) {
		write_bytes(path2, good, i);
		err = pmf_read(path2, 0, &r, msg, sizeof(msg));
		if (err)
			rejected++;
		else
			pmf_free(r);
		err = pmf_read(path2, PMF_READ_PARTIAL, &r, msg, sizeof(msg));
		if (!err) {
			partial_ok += r->cut_short || i == len;
			pmf_free(r);
		}
	}
	CHECK_EQ(rejected, (long long)len, "each of the %zu truncations is "
		 "rejected", len);
	CHECK(partial_ok > 0, "--partial reads the complete part of "
	      "truncated files (%d)", partial_ok);
	write_bytes(path2, good, len - 10);
	err = pmf_read(path2, 0, &r, msg, sizeof(msg));
	CHECK_HAS(msg, "truncated", "the truncation message");
	CHECK_HAS(msg, "--partial", "points at --partial");
	write_bytes(path2, good, 10);
	pmf_read(path2, 0, &r, msg, sizeof(msg));
	CHECK_HAS(msg, "too short", "a 10-byte file: too short");

	/* every single-byte corruption: an error or a valid file */
	for (i = 0; i < len; i++) {
		good[i] ^= 0xa5;
		write_bytes(path2, good, len);
		msg[0] = '\0';
		err = pmf_read(path2, 0, &r, msg, sizeof(msg));
		if (!err)
			pmf_free(r);
		else if (!msg[0])
			crashes++;	/* an error without a message */
		good[i] ^= 0xa5;
	}
	CHECK_EQ(crashes, 0, "%zu one-byte corruptions: no crash, every "
		 "error has a message", len);

	memcpy(good, "PMUCTXRX", 8);
	write_bytes(path2, good, len);
	CHECK(pmf_read(path2, 0, &r, msg, sizeof(msg)) < 0, "bad magic");
	CHECK_HAS(msg, "not a pmuctx recording (bad magic", "magic message");
	memcpy(good, PMF_MAGIC, 8);
	((struct pmf_file_header *)good)->version = 2;
	write_bytes(path2, good, len);
	CHECK_EQ(pmf_read(path2, 0, &r, msg, sizeof(msg)), -EPROTO,
		 "format version 2 -> -EPROTO");
	CHECK_HAS(msg, "file format version 2", "version message");
	CHECK_HAS(msg, "upgrade pmuctx", "what to do");
	((struct pmf_file_header *)good)->version = PMF_VERSION;
	((struct pmf_file_header *)good)->byte_order = 0x04030201;
	write_bytes(path2, good, len);
	CHECK_EQ(pmf_read(path2, 0, &r, msg, sizeof(msg)), -EPROTO,
		 "other byte order -> -EPROTO");
	CHECK_HAS(msg, "other byte order", "byte order message");
	((struct pmf_file_header *)good)->byte_order = PMF_BYTE_ORDER;

	/* garbage after the end marker */
	{
		unsigned char *g = malloc(len + 16);

		memcpy(g, good, len);
		memset(g + len, 0, 16);
		write_bytes(path2, g, len + 16);
		CHECK(pmf_read(path2, 0, &r, msg, sizeof(msg)) < 0,
		      "bytes after the end marker -> error");
		CHECK_HAS(msg, "after the end marker", "message");
		free(g);
	}
	/* a bad record inside a RECORDS section: the comm (first record) */
	{
		size_t off = sizeof(struct pmf_file_header);
		struct pmf_section sec;

		memcpy(&sec, good + off, sizeof(sec));	/* INFO */
		off += sizeof(sec) + sec.size;
		memcpy(&sec, good + off, sizeof(sec));	/* WINDOW */
		off += sizeof(sec) + sec.size;
		memcpy(&sec, good + off, sizeof(sec));	/* RECORDS */
		CHECK_EQ(sec.type, PMF_SEC_RECORDS, "found the RECORDS");
		off += sizeof(sec);
		((struct pmuctx_rec_header *)(good + off))->size = 12;
		write_bytes(path2, good, len);
		CHECK_EQ(pmf_read(path2, 0, &r, msg, sizeof(msg)), -EBADMSG,
			 "a record of size 12 -> -EBADMSG");
		CHECK_HAS(msg, "bad record at offset", "message");
		CHECK_HAS(msg, "not a multiple of 8", "message says why");
	}
	free(good);

	/* not there; empty */
	CHECK(pmf_read("/nonexistent/x.pmu", 0, &r, msg, sizeof(msg)) ==
	      -ENOENT, "missing file -> -ENOENT");
	CHECK_HAS(msg, "cannot open", "message");
	write_bytes(path2, "", 0);
	CHECK(pmf_read(path2, 0, &r, msg, sizeof(msg)) < 0, "empty file");
}

static size_t mk_lost(void *buf, __u64 time, __u32 cpu, __u64 lost)
{
	struct pmuctx_rec_lost r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = PMUCTX_REC_LOST;
	r.hdr.size = sizeof(r);
	r.c.time = time;
	r.c.cpu = cpu;
	r.lost = lost;
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

/*
 * Issue 16 item 6: a wrapped flight-recorder window (run 8.9-73.0 s, CPU 0
 * holding only 71.0-72.9 s, 500 records overwritten), 20 records lost by
 * the kernel's count of which only 16 reached the file as LOST records,
 * and a trigger window.
 */
static int write_coverage(const char *p)
{
	struct pmf_writer *w;
	struct pmf_meta m;
	struct pmf_cpu_stats st[2];
	unsigned char b[128];
	size_t n;
	int err;

	meta_init(&m);
	m.info.start_mono_ns = 8900000000ULL;
	err = pmf_create(&w, p, &m, msg, sizeof(msg));
	if (err)
		return err;
	memset(st, 0, sizeof(st));
	pmf_window_begin(w, PMF_WIN_REQUEST, 73000000000ULL, 77);
	n = mk_comm(b, 8900000000ULL, 1, 300, "burn");
	pmf_add_record(w, b, n);
	n = mk_lost(b, 71000000000ULL, 0, 16);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 72000000000ULL, 0, 301, 300, 1, false, 2000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 72900000000ULL, 0, 301, 0, 1, false, 3000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 73000000000ULL, 1, 300, 0, 0, true, 1000);
	pmf_add_record(w, b, n);
	st[0].lost = st[0].lost_window = 20;
	st[0].records = 4000;
	st[0].overwritten = 500;
	st[1].records = 2;
	pmf_window_end(w, st, 2, 73000000100ULL);
	/* the trigger: 300's slice on CPU 1 ran 21 ms, over 5 ms */
	pmf_window_begin(w, PMF_WIN_TRIGGER, 80000000000ULL, 0);
	n = mk_switch(b, 79000000000ULL, 1, 300, 0, 0, true, 6000000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 79500000000ULL, 0, 301, 0, 1, false, 3000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 79600000000ULL, 1, 300, 0, 0, true, 21000000);
	pmf_add_record(w, b, n);
	st[0].lost_window = 0;
	st[0].records = 4100;
	st[0].overwritten = 530;
	st[1].records = 4;
	pmf_window_end(w, st, 2, 80000000100ULL);
	/*
	 * A trigger window whose firing record is missing: the 21 ms slice
	 * is still in the buffer (overlap), but CPU 1 wrote a newer record
	 * after it, so it cannot be the slice that froze the buffers.
	 */
	pmf_window_begin(w, PMF_WIN_TRIGGER, 90000000000ULL, 0);
	n = mk_switch(b, 79600000000ULL, 1, 300, 0, 0, true, 21000000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 85000000000ULL, 1, 300, 0, 0, true, 1000);
	pmf_add_record(w, b, n);
	st[1].records = 5;
	pmf_window_end(w, st, 2, 90000000100ULL);
	/*
	 * The firing slice (CPU 1, 21 ms, the newest record there) and, on
	 * CPU 0, a newer slice over the threshold followed by a record that
	 * CPU 0 wrote before the freeze reached it: the report must still
	 * find the one on CPU 1.
	 */
	pmf_window_begin(w, PMF_WIN_TRIGGER, 96000000000ULL, 0);
	n = mk_switch(b, 95000000000ULL, 1, 300, 0, 0, true, 21000000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 95100000000ULL, 0, 301, 0, 1, false, 9000000);
	pmf_add_record(w, b, n);
	n = mk_switch(b, 95200000000ULL, 0, 301, 0, 1, false, 3000);
	pmf_add_record(w, b, n);
	st[0].records = 4102;
	st[1].records = 6;
	pmf_window_end(w, st, 2, 96000000100ULL);
	return pmf_close(w, 0, msg, sizeof(msg));
}

static void test_report_coverage(void)
{
	const char *err_at = NULL;
	int ret;

	t_section("pmuctx report: what each window covers (issue 16 item 6)");
	snprintf(path, sizeof(path), "%s/cov.pmu", dir);
	CHECK_EQ(write_coverage(path), 0, "write the file");

	ret = run(&cmd_report, "-i", path, "--summary", NULL);
	CHECK_EQ(ret, 0, "report --summary exits 0");
	/* per CPU, the time span the window holds and the overwritten count */
	CHECK_HAS(cap_out, "#   cpu0: 71.000000000 .. 72.900000000 s, "
		  "3 records, 500 overwritten, 20 lost",
		  "window 0: CPU 0's span, overwritten and lost");
	CHECK_HAS(cap_out, "#   cpu1: 8.900000000 .. 73.000000000 s, "
		  "2 records, 0 overwritten, 0 lost",
		  "window 0: CPU 1's span");
	CHECK_HAS(cap_out, "5 records, 20 lost (cpu0: 20), 500 overwritten",
		  "window 0: the overwritten total next to lost");
	CHECK_HAS(cap_out, "#   cpu0: 79.500000000 .. 79.500000000 s, "
		  "1 records, 30 overwritten, 0 lost",
		  "window 1: overwritten since the previous window");
	/* one loss total everywhere: the kernel's count (20), not 16 */
	CHECK_HAS(cap_out, "# windows:  4, 13 records, 20 lost",
		  "header: 20 lost");
	CHECK_HAS(cap_out, "20 record(s) were lost",
		  "summary: the same 20 lost");
	CHECK_LACKS(cap_out, "16 record", "summary: not the LOST records' 16");
	/* the trigger window names the task and the slice */
	CHECK_HAS(cap_out, "#   fired by burn 300/300 on cpu1: slice "
		  "79.579000000 .. 79.600000000 s, task-clock=21.000 ms > "
		  "5.000 ms", "trigger window: the task and slice that fired");
	{
		const char *w2 = strstr(cap_out, "# window 2 (trigger)");
		const char *w3 = w2 ? strstr(w2, "# window 3") : NULL;
		const char *fb = w2 ? strstr(w2, "fired by burn") : NULL;

		CHECK(w2 && strstr(w2, "#   fired by a slice whose switch "
				   "record is not in the window") &&
		      (!fb || (w3 && fb > w3)),
		      "a trigger window without its record names no older "
		      "slice");
	}
	{
		const char *w3 = strstr(cap_out, "# window 3 (trigger)");

		CHECK(w3 && strstr(w3, "#   fired by burn 300/300 on cpu1: "
				   "slice 94.979000000 .. 95.000000000 s"),
		      "a newer slice over the threshold on another CPU, not "
		      "the newest there, does not hide the firing one");
	}

	ret = run(&cmd_report, "-i", path, "--format", "perf-script", NULL);
	CHECK_EQ(ret, 0, "perf-script exits 0");
	CHECK_HAS(cap_err, "20 record(s) were lost",
		  "perf-script: the same 20 lost");

	ret = run(&cmd_report, "-i", path, "--format", "json", NULL);
	CHECK_EQ(ret, 0, "json exits 0");
	CHECK_EQ(json_validate(cap_out, &err_at), 0, "json is valid");
	CHECK_HAS(cap_out, "\"lost\":20,\"overwritten\":500,"
		  "\"cpus\":[{\"cpu\":0,\"first_ns\":71000000000,\"last_ns\":72900000000,"
		  "\"records\":3,\"overwritten\":500,\"lost\":20}",
		  "json: per-CPU span, overwritten and lost");
	CHECK_HAS(cap_out, "\"fired_by\":{\"pid\":300,\"tid\":300,"
		  "\"comm\":\"burn\",\"cpu\":1,\"start_ns\":79579000000,"
		  "\"end_ns\":79600000000,\"value\":21000000}",
		  "json: the trigger window's slice");
	CHECK_HAS(cap_out, "\"lost_total\":20", "json: the loss total");
}

static void test_report(void)
{
	const char *err_at = NULL;
	int ret;

	t_section("pmuctx report");
	snprintf(path, sizeof(path), "%s/a.pmu", dir);
	write_sample(path, true);
	ret = run(&cmd_report, "-i", path, NULL);
	CHECK_EQ(ret, 0, "report (text) exits 0");
	CHECK_HAS(cap_out, "# command:  burn --ms 20", "text: command");
	CHECK_HAS(cap_out, "testhost, kernel 6.1.0-test", "text: host");
	CHECK_HAS(cap_out, "overwrite (flight recorder) mode", "text: mode");
	CHECK_HAS(cap_out, "# trigger:  task-clock > 5.000 ms",
		  "text: trigger");
	CHECK_HAS(cap_out, "# window 0 (request from pid 77)",
		  "text: window 0 and its reason");
	CHECK_HAS(cap_out, "3 lost (cpu1: 3)", "text: lost per CPU");
	CHECK_HAS(cap_out, "# window 1 (trigger)", "text: window 1");
	CHECK_HAS(cap_out, "state=R+ => 0/0 swapper/1: task-clock=21.000 ms",
		  "text: a switch record");
	CHECK_HAS(cap_out, "command exit status 3", "text: exit status");
	CHECK_HAS(cap_out, "slices 1", "summary: the duplicate switch is "
		  "counted once");
	CHECK_HAS(cap_out, "| exit: task-clock=25.000 ms",
		  "summary: exit totals");
	{
		const char *a = strstr(cap_out, "1.150000000");
		const char *b = strstr(cap_out, "1.200000000");

		CHECK(a && b && a < b, "records in time order within a window");
	}

	ret = run(&cmd_report, "-i", path, "--format", "perf-script", NULL);
	CHECK_EQ(ret, 0, "perf-script exits 0");
	CHECK_HAS(cap_out, "            burn    300 [001]     1.200000: "
		  "pmuctx:sched_switch: prev_comm=burn prev_pid=300 "
		  "prev_state=R+ ==> next_comm=swapper/1 next_pid=0\n",
		  "perf-script: a sched_switch line in perf's shape");
	CHECK_HAS(cap_out, "prev_comm=:301 prev_pid=301 prev_state=S ==> "
		  "next_comm=burn next_pid=300",
		  "perf-script: unknown comm as :TID, state S");
	CHECK_HAS(cap_out, "pmuctx:sched_process_exit: comm=burn pid=300",
		  "perf-script: exit");
	{
		int n = 0;
		const char *p;

		for (p = cap_out; (p = strstr(p, "sched_switch")); p++)
			n++;
		CHECK_EQ(n, 2, "perf-script: the duplicate switch once");
	}

	ret = run(&cmd_report, "-i", path, "--format", "json", NULL);
	CHECK_EQ(ret, 0, "json exits 0");
	CHECK_EQ(json_validate(cap_out, &err_at), 0, "json is valid");
	CHECK_HAS(cap_out, "\"reason\":\"request\"", "json: reason");
	CHECK_HAS(cap_out, "\"prev_state_str\":\"R+\"", "json: state");
	CHECK_HAS(cap_out, "\"exit_status\":3", "json: exit status");
	CHECK_HAS(cap_out, "\"trigger\":{\"event\":\"task-clock\","
		  "\"threshold\":5000000}", "json: trigger");

	ret = run(&cmd_report, "-i", path, "--summary", NULL);
	CHECK(ret == 0 && !strstr(cap_out, "pmuctx:") &&
	      !strstr(cap_out, "state=R+") && strstr(cap_out, "slices 1"),
	      "--summary: no records, the summary");

	ret = run(&cmd_report, "-i", "/nonexistent.pmu", NULL);
	CHECK_EQ(ret, EXIT_RUNTIME, "missing file: exit 1");
	CHECK_HAS(cap_err, "cannot open", "message");
	{
		char *s = t_slurp(path);
		struct stat st;

		stat(path, &st);
		snprintf(path2, sizeof(path2), "%s/cut.pmu", dir);
		write_bytes(path2, s, (size_t)st.st_size - 40);
		free(s);
	}
	ret = run(&cmd_report, "-i", path2, NULL);
	CHECK_EQ(ret, EXIT_RUNTIME, "truncated file: exit 1");
	CHECK_HAS(cap_err, "truncated", "truncated: message");
	ret = run(&cmd_report, "-i", path2, "--partial", NULL);
	CHECK_EQ(ret, 0, "truncated file with --partial: exit 0");
	CHECK_HAS(cap_err, "warning:", "--partial warns");
	CHECK_HAS(cap_out, "# window 0", "--partial shows the complete window");
	ret = run(&cmd_report, "--format", "xml", NULL);
	CHECK_EQ(ret, EXIT_USAGE, "--format xml: usage error");
}

/* ---- a profile: samples, a forked thread, its name ---------------------- */

static size_t mk_sample(void *buf, __u64 time, __u32 cpu, __s32 pid,
			__s32 tid, __u64 period)
{
	struct {
		struct pmuctx_rec_sample s;
		__u64 ips[2];
	} r;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = PMUCTX_REC_SAMPLE;
	r.s.hdr.size = sizeof(r);
	r.s.c.time = time;
	r.s.c.cpu = cpu;
	r.s.c.pid = pid;
	r.s.c.tid = tid;
	r.s.ip = 0xffffffff81004010ULL;
	r.s.period = period;
	r.s.nr_kernel = 2;
	r.ips[0] = 0xffffffff81004010ULL;	/* clear_user+0x10 */
	r.ips[1] = 0xffffffff81002030ULL;	/* do_syscall_64+0x30 */
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

/*
 * burn (300) forks thread 301, which the recorder names worker-1 before
 * its second sample; samples of 1, 1 and 2 ms, at 500 Hz (none longer
 * than the sampling period: the default weight is the period as is)
 */
static int write_profile(const char *p)
{
	struct pmf_writer *w;
	struct pmf_meta m;
	struct pmf_cpu_stats st[2];
	struct pmuctx_rec_fork f;
	unsigned char b[128];
	size_t n;
	int err;

	meta_init(&m);
	m.info.ring_mode = PMUCTX_RING_NORMAL;
	m.info.trigger_event = 0;
	m.info.sample_freq = 500;
	m.info.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK;
	m.info.sample_max_stack = 127;
	m.command = "sh -c echo a\necho b\tc\\";	/* a multi-line command */
	err = pmf_create(&w, p, &m, msg, sizeof(msg));
	if (err)
		return err;
	memset(st, 0, sizeof(st));
	pmf_window_begin(w, PMF_WIN_STREAM, 1000000000ULL, 0);
	n = mk_comm(b, 1100000000ULL, 0, 300, "burn");
	pmf_add_record(w, b, n);
	memset(&f, 0, sizeof(f));
	f.hdr.type = PMUCTX_REC_FORK;
	f.hdr.size = sizeof(f);
	f.c.time = 1200000000ULL;
	f.c.pid = f.c.tid = 300;
	f.child_pid = 300;
	f.child_tid = 301;
	pmf_add_record(w, &f, sizeof(f));
	n = mk_sample(b, 1300000000ULL, 1, 300, 301, 1000000);
	pmf_add_record(w, b, n);
	n = mk_comm(b, 1399999999ULL, 1, 301, "worker-1");
	((struct pmuctx_rec_comm *)b)->c.pid = 300;
	((struct pmuctx_rec_comm *)b)->hdr.misc = PMF_COMM_M_RECORDER;
	pmf_add_record(w, b, n);
	n = mk_sample(b, 1400000000ULL, 1, 300, 301, 1000000);
	pmf_add_record(w, b, n);
	n = mk_sample(b, 1500000000ULL, 0, 300, 300, 2000000);
	pmf_add_record(w, b, n);
	pmf_window_end(w, st, 2, 2000000000ULL);
	return pmf_close(w, 0, msg, sizeof(msg));
}

static void test_report_profile(void)
{
	static const char ksyms[] =
		"ffffffff81002000 T do_syscall_64\n"
		"ffffffff81004000 T clear_user\n"
		"ffffffff81005000 T other\n";
	char ks[160];
	int ret;

	t_section("pmuctx report: a profile (perf-script, weights, names)");
	snprintf(path, sizeof(path), "%s/prof.pmu", dir);
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	write_bytes(ks, ksyms, sizeof(ksyms) - 1);
	CHECK_EQ(write_profile(path), 0, "write a profile");
	ret = run(&cmd_report, "-i", path, "--format", "perf-script",
		  "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "perf-script of a profile exits 0");
	/* perf script's layout, as a perf record -g in the VM prints it */
	CHECK_HAS(cap_out, "burn   300/301   [001]     1.300000:    1000000 "
		  "cpu-clock: \n"
		  "\tffffffff81004010 clear_user+0x10 ([kernel.kallsyms])\n"
		  "\tffffffff81002030 do_syscall_64+0x30 ([kernel.kallsyms])\n"
		  "\n", "perf-script: a sample as perf prints it: comm first, "
		  "pid/tid, [cpu], time, period, event and ':', frames, "
		  "a blank line; a forked thread has its parent's name");
	CHECK_HAS(cap_out, "\nworker-1   300/301   [001]     1.400000:    "
		  "1000000 cpu-clock: \n",
		  "perf-script: the thread's name (read by the recorder)");
	CHECK_HAS(cap_out, "\nburn   300/300   [000]     1.500000:    "
		  "2000000 cpu-clock: \n", "perf-script: the main thread");
	CHECK(!strstr(cap_out, ":301"), "perf-script: no thread as :TID");
	CHECK(!strstr(cap_out, "sched_process_fork"),
	      "perf-script with samples: no task lines (side-band, as in "
	      "perf script without --show-task-events)");

	ret = run(&cmd_report, "-i", path, "--format", "folded",
		  "--kallsyms", ks, NULL);
	CHECK(ret == 0 && cap_out && !strncmp(cap_out, "# pmuctx folded "
		"stacks, weight: period (ns", 40),
	      "folded: by period by default, and the header says so");
	CHECK_HAS(cap_out, "\nburn;do_syscall_64;clear_user 3000000\n",
		  "folded: the period of burn's samples (1 + 2 ms)");
	CHECK_HAS(cap_out, "\nworker-1;do_syscall_64;clear_user 1000000\n",
		  "folded: the worker thread by its name");
	ret = run(&cmd_report, "-i", path, "--format", "folded", "--weight",
		  "samples", "--kallsyms", ks, NULL);
	CHECK_HAS(cap_out, "\nburn;do_syscall_64;clear_user 2\n",
		  "folded --weight samples: 2 samples of burn");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, NULL);
	CHECK_HAS(cap_out, "# Weight: period (ns of CPU time",
		  "text: by period by default, and the header says so");
	CHECK_HAS(cap_out, "\n# command:  sh -c echo a\\necho b\\tc\\\\\n",
		  "text: a multi-line command on the one '# command:' line "
		  "(newline, tab, backslash as C writes them)");
	CHECK(cap_out && !strstr(cap_out, "\necho b"),
	      "text: no header line broken by the command");
	ret = run(&cmd_report, "-i", path, "--format", "json", NULL);
	CHECK_HAS(cap_out, "\"command\":\"sh -c echo a\\necho b\\tc\\\\\"",
		  "json: the command as it was");
	CHECK_HAS(cap_out, "\"comm\":\"worker-1\",\"recorder\":true",
		  "json: the recorder's COMM record says so");
}

/* ---- perf-script read as stackcollapse-perf.pl reads it ------------------ */

struct collapsed {
	char **lines;		/* "stack period" */
	size_t nr, cap;
	char event[64];		/* the first event name met */
	char other[64];		/* another one, if any */
	unsigned int kept, skipped;	/* samples kept, dropped */
	unsigned long long total;	/* their periods */
};

static void collapsed_add(struct collapsed *c, const char *stack,
			  unsigned long long period)
{
	char *l;

	if (c->nr == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->lines = realloc(c->lines, c->cap * sizeof(*c->lines));
		if (!c->lines)
			abort();
	}
	if (asprintf(&l, "%s %llu", stack, period) < 0)
		abort();
	c->lines[c->nr++] = l;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * stackcollapse-perf.pl's reading of perf script output, from perf-script's
 * documented layout (also what speedscope's "linux perf script" importer
 * does): a sample starts with a header line, not indented,
 *	COMM PID[/TID] [CPU] TIME: PERIOD EVENT:
 * its event name the last word before the final ':'.  Only the samples of
 * the first event name met are kept (cycles merged with instructions would
 * mislead), the others are dropped silently.  Frame lines follow,
 * innermost first, "<ws>ADDR SYM+0xOFF (DSO)" (SYM [unknown]: the DSO's
 * base name in brackets); a blank line ends the sample, whose stack
 * "COMM;outermost;...;innermost" (spaces of COMM as '_') gets its period.
 * The result: "stack N" lines, identical stacks summed, sorted.
 */
static char *collapse_perf_script(const char *text, struct collapsed *c)
{
	char *copy = strdup(text ? text : ""), *save = NULL, *line;
	char stack[4096], frames[64][256], comm[64];
	unsigned long long period = 0;
	unsigned int nf = 0, i;
	bool in_sample = false, skip = false;
	size_t len = 1;
	char *out;

	memset(c, 0, sizeof(*c));
	/* strtok_r would merge blank lines: split by hand */
	for (line = copy; line; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		if (!*line) {			/* end of a sample */
			if (in_sample && !skip && nf) {
				size_t pos = (size_t)snprintf(stack,
						sizeof(stack), "%s", comm);

				for (i = nf; i-- > 0;)
					pos += (size_t)snprintf(stack + pos,
						sizeof(stack) - pos, ";%s",
						frames[i]);
				collapsed_add(c, stack, period);
				c->kept++;
				c->total += period;
			} else if (in_sample && skip) {
				c->skipped++;
			}
			in_sample = false;
			nf = 0;
			continue;
		}
		if (*line != ' ' && *line != '\t') {	/* a header */
			char *end = line + strlen(line), *ev, *p;

			if (line[0] == '#')
				continue;
			while (end > line && end[-1] == ' ')
				*--end = '\0';
			if (end == line || end[-1] != ':')
				continue;	/* not a sample's header */
			*--end = '\0';
			ev = strrchr(line, ' ');
			if (!ev)
				continue;
			*ev++ = '\0';
			in_sample = true;
			nf = 0;
			/* the period: the word before the event */
			p = strrchr(line, ' ');
			period = p ? strtoull(p + 1, NULL, 10) : 0;
			if (!period)
				period = 1;
			if (!*c->event)
				snprintf(c->event, sizeof(c->event), "%s", ev);
			skip = strcmp(ev, c->event) != 0;
			if (skip)
				snprintf(c->other, sizeof(c->other), "%s", ev);
			/* the comm: up to the first blanks before PID[/TID] */
			for (p = line + 1; *p; p++) {
				char *q = p;

				if (*p != ' ')
					continue;
				while (*q == ' ')
					q++;
				if (*q < '0' || *q > '9')
					continue;
				while (*q >= '0' && *q <= '9')
					q++;
				if (*q == '/')
					while (*++q >= '0' && *q <= '9')
						;
				if (*q == ' ')
					break;
			}
			snprintf(comm, sizeof(comm), "%.*s", (int)(p - line),
				 line);
			for (p = comm; *p; p++)
				if (*p == ' ')
					*p = '_';
			continue;
		}
		if (in_sample && nf < 64) {	/* a frame */
			char *s = line, *sym, *dso, *plus;

			while (*s == ' ' || *s == '\t')
				s++;
			sym = strchr(s, ' ');	/* after the address */
			dso = strrchr(s, '(');
			if (!sym || !dso || dso <= sym)
				continue;
			sym++;
			dso[-1] = '\0';
			dso++;
			if (*dso && dso[strlen(dso) - 1] == ')')
				dso[strlen(dso) - 1] = '\0';
			plus = strstr(sym, "+0x");
			if (plus)
				*plus = '\0';
			if (!strcmp(sym, "[unknown]")) {
				const char *b = strrchr(dso, '/');

				snprintf(frames[nf], sizeof(frames[nf]),
					 "[%s]", strcmp(dso, "[unknown]") ?
					 (b ? b + 1 : dso) : "unknown");
			} else {
				snprintf(frames[nf], sizeof(frames[nf]),
					 "%s", sym);
			}
			for (s = frames[nf]; *s; s++)
				if (*s == ';')
					*s = ':';
			nf++;
		}
	}
	free(copy);
	/* sort, then sum identical stacks (their "stack " prefix) */
	qsort(c->lines, c->nr, sizeof(*c->lines), cmp_str);
	for (i = 0; i < c->nr; i++)
		len += strlen(c->lines[i]) + 24;
	out = calloc(1, len);
	if (!out)
		abort();
	for (i = 0; i < c->nr;) {
		size_t klen = (size_t)(strrchr(c->lines[i], ' ') -
				       c->lines[i]);
		unsigned long long v = 0;
		unsigned int j = i;

		while (j < c->nr && !strncmp(c->lines[j], c->lines[i], klen) &&
		       c->lines[j][klen] == ' ' &&
		       !strchr(c->lines[j] + klen + 1, ' '))
			v += strtoull(c->lines[j++] + klen + 1, NULL, 10);
		sprintf(out + strlen(out), "%.*s %llu\n", (int)klen,
			c->lines[i], v);
		i = j;
	}
	for (i = 0; i < c->nr; i++)
		free(c->lines[i]);
	free(c->lines);
	c->lines = NULL;
	return out;
}

/* the lines of /proc/self/maps that map this test program */
static char *self_maps(void)
{
	char exe[512], line[1024];
	size_t len = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *out = calloc(1, 65536);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n <= 0 || !out || !f)
		abort();
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *e = line + strlen(line);

		while (e > line && e[-1] == '\n')
			*--e = '\0';
		if ((size_t)(e - line) > strlen(exe) &&
		    !strcmp(e - strlen(exe), exe) && len + strlen(line) + 2 <
		    65536)
			len += (size_t)sprintf(out + len, "%s\n", line);
	}
	fclose(f);
	return out;
}

static size_t mk_sample_mode(void *buf, __u64 time, __u32 cpu, __s32 pid,
			     __s32 tid, __u64 period, bool user,
			     const __u64 *uips, unsigned int nr_user)
{
	struct {
		struct pmuctx_rec_sample s;
		__u64 ips[8];
	} r;
	unsigned int k = user ? 0 : 2, i;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = PMUCTX_REC_SAMPLE;
	r.s.hdr.size = (__u16)(sizeof(r.s) + (k + nr_user) * sizeof(__u64));
	r.s.hdr.misc = user ? PMUCTX_SAMPLE_M_USER : 0;
	r.s.c.time = time;
	r.s.c.cpu = cpu;
	r.s.c.pid = pid;
	r.s.c.tid = tid;
	r.s.period = period;
	r.s.nr_kernel = (__u16)k;
	r.s.nr_user = (__u16)nr_user;
	if (!user) {
		r.ips[0] = 0xffffffff81004010ULL;	/* clear_user+0x10 */
		r.ips[1] = 0xffffffff81002030ULL;	/* do_syscall_64+0x30 */
	}
	for (i = 0; i < nr_user; i++)
		r.ips[k + i] = uips[i];
	r.s.ip = r.ips[0];
	memcpy(buf, &r, r.s.hdr.size);
	return r.s.hdr.size;
}

/*
 * burn (300) samples in user mode first, then in the kernel (a system
 * call), its thread 301 in user mode: user frames in this very program
 * (its maps stored for pid 300), kernel frames from a kallsyms file.
 * At 250 Hz: no period (up to 4 ms) is capped by the default weight.
 */
static int write_mixed_profile(const char *p)
{
	const __u64 inner = (__u64)(uintptr_t)test_report_profile + 0x10;
	const __u64 outer = (__u64)(uintptr_t)test_report + 0x10;
	const __u64 u1[2] = { inner, outer }, u2[1] = { outer };
	struct pmf_writer *w;
	struct pmf_meta m;
	struct pmf_cpu_stats st[2];
	unsigned char b[256];
	char *maps = self_maps();
	size_t n;
	int err;

	meta_init(&m);
	m.info.ring_mode = PMUCTX_RING_NORMAL;
	m.info.trigger_event = 0;
	m.info.sample_freq = 250;
	m.info.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK |
			      PMUCTX_SAMPLE_USER_STACK;
	m.info.sample_max_stack = 127;
	err = pmf_create(&w, p, &m, msg, sizeof(msg));
	if (err) {
		free(maps);
		return err;
	}
	memset(st, 0, sizeof(st));
	pmf_window_begin(w, PMF_WIN_STREAM, 1000000000ULL, 0);
	n = mk_comm(b, 1100000000ULL, 0, 300, "burn");
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1300000000ULL, 0, 300, 300, 1000000, true,
			   u1, 2);
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1400000000ULL, 0, 300, 300, 2000000, false,
			   u1, 2);
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1500000000ULL, 1, 300, 301, 1500000, true,
			   u2, 1);
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1600000000ULL, 0, 300, 300, 4000000, false,
			   u1, 2);
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1700000000ULL, 0, 300, 300, 1000000, true,
			   u1, 2);
	pmf_add_record(w, b, n);
	pmf_window_end(w, st, 2, 2000000000ULL);
	pmf_add_maps(w, 300, 1000000000ULL, PMF_MAPS_START, maps,
		     strlen(maps));
	free(maps);
	return pmf_close(w, 0, msg, sizeof(msg));
}

/*
 * Issue 30 item 1: perf-script of samples taken in both modes, read as
 * stackcollapse-perf.pl reads it, must give what --format folded gives
 * for the same recording: every sample under one event name (perf prints
 * the event's name, the mode shows in the frames), the same stacks, the
 * same total weight.
 */
static void test_report_perf_script_reader(void)
{
	static const char ksyms[] =
		"ffffffff81002000 T do_syscall_64\n"
		"ffffffff81004000 T clear_user\n"
		"ffffffff81005000 T other\n";
	struct collapsed c;
	char ks[160], *col, *folded;
	const char *body;
	int ret;

	t_section("pmuctx report: perf-script read as stackcollapse-perf.pl "
		  "reads it");
	snprintf(path, sizeof(path), "%s/mixed.pmu", dir);
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	write_bytes(ks, ksyms, sizeof(ksyms) - 1);
	CHECK_EQ(write_mixed_profile(path), 0, "write a profile of user "
		 "and kernel samples");
	ret = run(&cmd_report, "-i", path, "--format", "folded",
		  "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "folded exits 0");
	folded = strdup(cap_out ? cap_out : "");
	body = strchr(folded, '\n');	/* after the '# ...' line */
	body = body ? body + 1 : "";
	CHECK_HAS(folded, ";test_report;test_report_profile ",
		  "folded: the user frames are named (this program's maps)");
	CHECK_HAS(folded, ";test_report;test_report_profile;do_syscall_64;"
		  "clear_user ", "folded: a kernel sample has both parts");
	ret = run(&cmd_report, "-i", path, "--format", "perf-script",
		  "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "perf-script exits 0");
	col = collapse_perf_script(cap_out, &c);
	CHECK_EQ(c.kept + c.skipped, 5, "perf-script: 5 samples");
	CHECK(!c.skipped, "perf-script: one event name for all samples "
	      "(first '%s', also '%s': %u of %u samples dropped by the "
	      "reader)", c.event, c.other, c.skipped, c.kept + c.skipped);
	CHECK(!strcmp(c.event, "cpu-clock"), "perf-script: the event is "
	      "'cpu-clock', no mode in its name (got '%s')", c.event);
	CHECK_EQ(c.total, 9500000, "perf-script: the periods of all samples "
		 "(9.5 ms)");
	if (strcmp(col, body))
		t_diag("  collapsed perf-script:\n%s  folded:\n%s", col, body);
	CHECK(!strcmp(col, body), "perf-script collapsed as "
	      "stackcollapse-perf.pl does = --format folded");
	free(col);
	free(folded);
}

static void test_parsers(void)
{
	uint64_t v = 0;
	__u32 mask = 0;
	int id = 0;
	char why[256];

	t_section("pmuctx record: option parsers");
	CHECK(!record_parse_size("512K", &v) && v == 524288, "512K");
	CHECK(!record_parse_size("4M", &v) && v == 4 << 20, "4M");
	CHECK(!record_parse_size("1GiB", &v) && v == 1 << 30, "1GiB");
	CHECK(!record_parse_size("65536", &v) && v == 65536, "65536");
	CHECK(record_parse_size("0", &v) && record_parse_size("-1K", &v) &&
	      record_parse_size("1T", &v) && record_parse_size("", &v) &&
	      record_parse_size("K", &v), "bad sizes are refused");
	CHECK(!record_parse_mask("switch,exit", &mask) &&
	      mask == (PMUCTX_REC_MASK_SWITCH | PMUCTX_REC_MASK_EXIT),
	      "--records switch,exit");
	CHECK(!record_parse_mask("all", &mask) && mask == PMUCTX_REC_MASK_ALL,
	      "--records all");
	CHECK(record_parse_mask("switch,", &mask) &&
	      record_parse_mask("bogus", &mask) &&
	      record_parse_mask("", &mask), "bad --records are refused");
	CHECK(!record_parse_trigger("task-clock>5ms", &id, &v, why,
				    sizeof(why)) &&
	      id == PMUCTX_EV_TASK_CLOCK && v == 5000000, "task-clock>5ms");
	CHECK(!record_parse_trigger("task-clock>1.5us", &id, &v, why,
				    sizeof(why)) && v == 1500,
	      "task-clock>1.5us");
	CHECK(!record_parse_trigger("cs>3k", &id, &v, why, sizeof(why)) &&
	      id == PMUCTX_EV_CONTEXT_SWITCHES && v == 3000, "cs>3k");
	CHECK(record_parse_trigger("task-clock>=5ms", &id, &v, why,
				   sizeof(why)) && strstr(why, "'>'"),
	      "'>=' is refused with a hint");
	CHECK(record_parse_trigger("task-clock>5xs", &id, &v, why,
				   sizeof(why)) && strstr(why, "unit"),
	      "a bad unit is refused");
	CHECK(record_parse_trigger("task-clock>0", &id, &v, why,
				   sizeof(why)) && strstr(why, "at least 1"),
	      "0 is refused");
	CHECK(record_parse_trigger("nope>5", &id, &v, why, sizeof(why)),
	      "an unknown event is refused");
	CHECK(record_parse_trigger("task-clock", &id, &v, why, sizeof(why)),
	      "no '>' is refused");
	{
		char st[8];

		report_state_str(0, true, st, sizeof(st));
		CHECK(!strcmp(st, "R+"), "state: preempted R+");
		report_state_str(0, false, st, sizeof(st));
		CHECK(!strcmp(st, "R"), "state: 0 R");
		report_state_str(1, false, st, sizeof(st));
		CHECK(!strcmp(st, "S"), "state: 1 S");
		report_state_str(2, false, st, sizeof(st));
		CHECK(!strcmp(st, "D"), "state: 2 D");
		report_state_str(0x402, false, st, sizeof(st));
		CHECK(!strcmp(st, "I"), "state: TASK_IDLE I");
		report_state_str(0x80, false, st, sizeof(st));
		CHECK(!strcmp(st, "X"), "state: TASK_DEAD X");
	}
}

static void test_record_usage(void)
{
	int ret;

	t_section("pmuctx record / snapshot: usage");
#define USAGE(desc, needle, ...) do {					\
		ret = run(&cmd_record, __VA_ARGS__, NULL);		\
		CHECK_EQ(ret, EXIT_USAGE, desc);			\
		CHECK_HAS(cap_err, needle, desc ": message");		\
	} while (0)
	USAGE("-F 0", "-F '0'", "-F", "0", "--", "true");
	USAGE("-c", "use -F", "-c", "99", "--", "true");
	USAGE("--call-graph=lbr", "fp, defer or dwarf[,SIZE]",
	      "--call-graph=lbr", "--", "true");
	USAGE("--call-graph=dwarf,12", "multiple of 8", "--call-graph=dwarf,12",
	      "--", "true");
	USAGE("--call-graph=dwarf,65288", "multiple of 8",
	      "--call-graph=dwarf,65288", "--", "true");
	USAGE("--call-graph=dwarf,", "multiple of 8", "--call-graph=dwarf,",
	      "--", "true");
	USAGE("--max-stack 200", "--max-stack '200'", "-g", "--max-stack",
	      "200", "--", "true");
	USAGE("--max-stack without -g", "add -g", "--max-stack", "8", "--",
	      "true");
	USAGE("--buffer-size abc", "--buffer-size 'abc'", "--buffer-size",
	      "abc", "--", "true");
	USAGE("--trigger nope>1", "--trigger 'nope>1'", "--trigger",
	      "nope>1", "--", "true");
	USAGE("--records bogus", "--records 'bogus'", "--records", "bogus",
	      "--", "true");
	USAGE("nothing to record", "nothing to record", "-o", "x");
	USAGE("-p with -a", "cannot be combined", "-p", "1", "-a");
	USAGE("--duration with a command", "--duration", "--duration", "1",
	      "--", "true");
#undef USAGE
	ret = run(&cmd_record, "--help", NULL);
	CHECK(ret == 0 && strstr(cap_out, "pmuctx record - record") &&
	      strstr(cap_out, "--overwrite") && strstr(cap_out, "SIGUSR2"),
	      "record --help");
	ret = run(&cmd_snapshot, NULL);
	CHECK_EQ(ret, EXIT_USAGE, "snapshot without --pid: usage error");
	CHECK_HAS(cap_err, "--pid RECORDER_PID", "message");
	ret = run(&cmd_snapshot, "--pid", "abc", NULL);
	CHECK_EQ(ret, EXIT_USAGE, "snapshot --pid abc: usage error");
	ret = run(&cmd_snapshot, "--pid", "999999999", NULL);
	CHECK_EQ(ret, EXIT_RUNTIME, "snapshot of no process: exit 1");
	CHECK_HAS(cap_err, "there is no process", "message");
	ret = run(&cmd_snapshot, "--help", NULL);
	CHECK(ret == 0 && strstr(cap_out, "sigqueue"), "snapshot --help");
	ret = run(&cmd_report, "--help", NULL);
	CHECK(ret == 0 && strstr(cap_out, "perf-script"), "report --help");
}

/* the COMM record of @tid in the file, recorder's or kernel's; NULL: none */
static const struct pmuctx_rec_comm *file_comm(const struct pmf_reader *r,
					       __s32 tid)
{
	size_t i;

	for (i = 0; i < r->nr_recs; i++) {
		const struct pmuctx_rec_comm *c = (const void *)r->recs[i];

		if (c->hdr.type == PMUCTX_REC_COMM && c->c.tid == tid)
			return c;
	}
	return NULL;
}

/*
 * Issue 16 item 6: tasks that existed before recording have names even
 * when the buffer wrapped and the kernel's COMM records of SESSION_CREATE
 * are gone (like perf's synthesized events: read from /proc at enable).
 */
static void test_record_names(void)
{
	struct pmf_reader *r = NULL;
	const struct pmuctx_rec_comm *c;
	int go[2], i;
	pid_t kid;
	char b;

	t_section("pmuctx record -a: names of the tasks that were there");
	if (pipe(go)) {
		CHECK(0, "pipe");
		return;
	}
	kid = fork();
	if (!kid) {
		prctl(PR_SET_NAME, "fr-oldtask");
		close(go[0]);
		if (write(go[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	if (kid < 0 || read(go[0], &b, 1) != 1) {
		CHECK(0, "a named child");
		close(go[0]);
		return;
	}
	close(go[0]);
	/* a wrapped flight recorder: none of the kernel's COMM records */
	fring_install(128, PMUCTX_RING_OVERWRITE);
	for (i = 0; i < 50 * 128 * 4096 / 48; i++)
		fring_user(1, 10 + (__u64)i, (__u64)i);
	CHECK_EQ(run(&cmd_record, "-q", "--overwrite", "-a", "-o", path, "--",
		     "true", NULL), 0, "record --overwrite -a -- true");
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0, "the file reads");
	if (r) {
		c = file_comm(r, kid);
		CHECK(c && !strcmp(c->comm, "fr-oldtask") &&
		      c->c.pid == kid && (c->hdr.misc & PMF_COMM_M_RECORDER),
		      "a task that was there before has its COMM record "
		      "(the recorder's)");
		c = file_comm(r, getpid());
		CHECK(c != NULL, "so has this process");
		c = file_comm(r, kid);
		CHECK(r->nr_wins && r->wins[0].nr &&
		      (const void *)c >= (const void *)
		      r->recs[r->wins[0].first] &&
		      (const void *)c <= (const void *)
		      r->recs[r->wins[0].first + r->wins[0].nr - 1],
		      "in the first window");
		pmf_free(r);
	}
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
}

/*
 * Issue 30 item 9: a task started during a flight recording, whose FORK,
 * EXEC and COMM records the buffer overwrote, is named in the windows
 * that hold its records (the recorder reads its name when it writes the
 * window), and reports name it instead of ":TID"; a task gone by then,
 * and one a record of the window names, get no record of the recorder's.
 */
static void test_record_window_names(void)
{
	struct pmf_reader *r = NULL;
	const struct pmuctx_rec_comm *c;
	unsigned char b[128];
	char bad[32];
	int go[2], i, n = 0;
	pid_t kid;
	size_t k;

	t_section("pmuctx record --overwrite: names of tasks started since");
	if (pipe(go)) {
		CHECK(0, "pipe");
		return;
	}
	kid = fork();
	if (!kid) {
		prctl(PR_SET_NAME, "fr-newtask");
		close(go[0]);
		if (write(go[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	if (kid < 0 || read(go[0], &b[0], 1) != 1) {
		CHECK(0, "a named child");
		close(go[0]);
		return;
	}
	close(go[0]);
	/* the buffer holds its switches, and nothing naming it */
	fring_install(128, PMUCTX_RING_OVERWRITE);
	for (i = 0; i < 3; i++) {
		mk_switch(b, 2000000000ULL + (__u64)i, 1, kid, 0, 1, false,
			  1000);
		fring_put(1, b);
	}
	/* a task gone: 999999 is beyond pid_max's default, named by nobody */
	mk_switch(b, 2000000010ULL, 0, 999999, 0, 1, false, 1000);
	fring_put(0, b);
	/* a task its record names */
	mk_comm(b, 2000000020ULL, 0, 4242, "named");
	fring_put(0, b);
	mk_switch(b, 2000000030ULL, 0, 4242, 0, 1, false, 1000);
	fring_put(0, b);
	CHECK_EQ(run(&cmd_record, "-q", "--overwrite", "--switch-events",
		     "-o", path, "--", "true", NULL), 0,
		 "record --overwrite -- true");
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0, "the file reads");
	if (r) {
		c = file_comm(r, kid);
		CHECK(c && !strcmp(c->comm, "fr-newtask") &&
		      c->c.pid == kid && (c->hdr.misc & PMF_COMM_M_RECORDER),
		      "the task started since has its COMM record (the "
		      "recorder's)");
		CHECK(!file_comm(r, 999999), "a task gone: no record");
		for (k = 0; k < r->nr_recs; k++) {
			c = (const void *)r->recs[k];
			n += c->hdr.type == PMUCTX_REC_COMM && c->c.tid == 4242;
		}
		CHECK_EQ(n, 1, "a task its window names: the kernel's record "
			 "alone");
		pmf_free(r);
	}
	CHECK_EQ(run(&cmd_report, "-i", path, NULL), 0, "report exits 0");
	snprintf(bad, sizeof(bad), ":%d ", (int)kid);
	CHECK_HAS(cap_out, "fr-newtask", "report: the task by its name");
	CHECK_LACKS(cap_out, bad, "report: not as :TID");
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
}

static char dev_env[] = "PMUCTX_DEVICE=" FAKE_PATH;

/*
 * Issue 30 item 2: pmuctx record -- CMD samples, as perf record CMD does:
 * perf's default frequency, 4000 Hz, capped by the module's
 * max_sample_freq; IPs, no callchains without -g (perf records none);
 * --no-samples (perf's -n) records without sampling.
 */
static void test_record_samples_by_default(void)
{
	char param[160], rate[160];
	int ret;

	t_section("pmuctx record samples by default (issue 30 item 2)");
	snprintf(param, sizeof(param), "%s/max_sample_freq", dir);
	snprintf(rate, sizeof(rate), "%s/perf_event_max_sample_rate", dir);
	diag_paths.max_sample_freq = param;	/* not there yet */
	diag_paths.max_sample_rate = rate;	/* nor this */
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-q", "-o", path, "--", "true", NULL);
	CHECK_EQ(ret, 0, "record -- true exits 0");
	CHECK_EQ(fake.last_attr.sample_freq, 4000,
		 "record -- CMD samples at 4000 Hz, perf's default");
	CHECK(fake.last_attr.sample_flags == 0 &&
	      fake.last_attr.sample_max_stack == 0,
	      "... IPs, no callchains without -g (as perf)");
	if (getauxval(AT_SYSINFO_EHDR)) {
		const unsigned char *v = (const void *)(uintptr_t)
					 getauxval(AT_SYSINFO_EHDR);
		struct pmf_reader *r = NULL;

		CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0,
			 "read the recording: %s", msg);
		CHECK(r && r->vdso && r->vdso_len >= 64 &&
		      !memcmp(r->vdso, v, r->vdso_len),
		      "it holds this process's vDSO, whole (%zu bytes)",
		      r ? r->vdso_len : 0);
		pmf_free(r);
	}

	/* perf's modifiers and raw events in -e and --sample-event */
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-q", "-e", "task-clock,cycles:u,r00c0:k",
		  "--sample-event", "r003c:u", "-o", path, "--", "true", NULL);
	CHECK_EQ(ret, 0, "record -e task-clock,cycles:u,r00c0:k "
		 "--sample-event r003c:u exits 0");
	CHECK(fake.last_attr.events[1] == PMUCTX_EV_CYCLES &&
	      fake.last_attr.event_desc[1].flags == PMUCTX_EVF_USER &&
	      fake.last_attr.events[2] == PMUCTX_EV_RAW &&
	      fake.last_attr.event_desc[2].config == 0xc0 &&
	      fake.last_attr.event_desc[2].flags == PMUCTX_EVF_KERNEL,
	      "record -e: each event's modes and raw config in the attr");
	CHECK(fake.last_attr.sample_event == PMUCTX_EV_RAW &&
	      fake.last_attr.sample_desc.type == 4 &&
	      fake.last_attr.sample_desc.config == 0x3c &&
	      fake.last_attr.sample_desc.flags == PMUCTX_EVF_USER,
	      "record --sample-event r003c:u: raw config and user mode");
	ret = run(&cmd_record, "-q", "--sample-event", "cycles:q", "-o", path,
		  "--", "true", NULL);
	CHECK_EQ(ret, 2, "record --sample-event cycles:q: usage error");
	CHECK_HAS(cap_err, "modifier 'q' is not supported",
		  "... naming the modifier");

	write_bytes(param, "1000\n", 5);
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-o", path, "--", "true", NULL);
	CHECK_EQ(ret, 0, "record -- true exits 0");
	CHECK_EQ(fake.last_attr.sample_freq, 1000,
		 "the default is capped by max_sample_freq (1000)");
	CHECK_HAS(cap_err, "max_sample_freq", "... and it says so, as perf "
		  "does when it lowers its frequency");
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-q", "-g", "-o", path, "--", "true", NULL);
	CHECK(ret == 0 && fake.last_attr.sample_freq == 1000 &&
	      (fake.last_attr.sample_flags & PMUCTX_SAMPLE_KERNEL_STACK),
	      "-g: callchains, at the same default frequency");
	write_bytes(rate, "800\n", 4);
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-o", path, "--", "true", NULL);
	CHECK_EQ(fake.last_attr.sample_freq, 800, "and by kernel.perf_event_"
		 "max_sample_rate (800), which the module applies to users "
		 "without CAP_PERFMON");
	CHECK_HAS(cap_err, "perf_event_max_sample_rate", "... saying so");
	unlink(rate);
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-q", "-F", "999", "-o", path, "--", "true",
		  NULL);
	CHECK(ret == 0 && fake.last_attr.sample_freq == 999 &&
	      !fake.last_attr.sample_flags, "-F 999: IPs at 999 Hz");

	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-q", "--no-samples", "-o", path, "--", "true",
		  NULL);
	CHECK(ret == 0 && fake.last_attr.sample_freq == 0,
	      "--no-samples: no sampling");
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.features |= PMUCTX_FEAT_SAMPLING;
	ret = run(&cmd_record, "-q", "-n", "-o", path, "--", "true", NULL);
	CHECK(ret == 0 && fake.last_attr.sample_freq == 0,
	      "-n (perf's short option): no sampling");
	ret = run(&cmd_record, "-n", "-g", "-o", path, "--", "true", NULL);
	CHECK_EQ(ret, EXIT_USAGE, "-n with -g: usage error");
	ret = run(&cmd_record, "--no-samples", "-F", "99", "-o", path, "--",
		  "true", NULL);
	CHECK_EQ(ret, EXIT_USAGE, "--no-samples with -F: usage error");
	CHECK_HAS(cap_err, "--no-samples", "... naming --no-samples");

	/* an older module that does not sample: the default falls back */
	fring_install(128, PMUCTX_RING_NORMAL);	/* no sampling */
	ret = run(&cmd_record, "-o", path, "--", "true", NULL);
	CHECK(ret == 0 && fake.last_attr.sample_freq == 0,
	      "a module without the sampling feature: no sampling by "
	      "default");
	CHECK_HAS(cap_err, "does not sample", "... and a note says why");
	fring_install(128, PMUCTX_RING_NORMAL);
	ret = run(&cmd_record, "-q", "-F", "99", "-o", path, "--", "true",
		  NULL);
	CHECK(fake.last_attr.sample_freq == 99, "... -F is still asked for "
	      "(the module refuses it)");
	unlink(param);
	diag_paths.max_sample_freq = NULL;
	diag_paths.max_sample_rate = NULL;
}

/*
 * Issue 30 item 2: a recording of IPs alone (no -g) is a profile whose
 * functions are named: user IPs in this program, kernel IPs by kallsyms
 */
static void test_report_ips_only(void)
{
	static const char ksyms[] =
		"ffffffff81002000 T do_syscall_64\n"
		"ffffffff81004000 T clear_user\n"
		"ffffffff81005000 T other\n";
	const __u64 uip = (__u64)(uintptr_t)test_report_profile + 0x10;
	struct pmf_writer *w;
	struct pmf_meta m;
	struct pmf_cpu_stats st[2];
	unsigned char b[256];
	char ks[160], *maps = self_maps();
	size_t n;
	int ret;

	t_section("pmuctx report: samples without callchains (issue 30 "
		  "item 2)");
	snprintf(path, sizeof(path), "%s/ips.pmu", dir);
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	write_bytes(ks, ksyms, sizeof(ksyms) - 1);
	meta_init(&m);
	m.info.ring_mode = PMUCTX_RING_NORMAL;
	m.info.trigger_event = 0;
	m.info.sample_freq = 4000;
	CHECK_EQ(pmf_create(&w, path, &m, msg, sizeof(msg)), 0, "create");
	memset(st, 0, sizeof(st));
	pmf_window_begin(w, PMF_WIN_STREAM, 1000000000ULL, 0);
	n = mk_comm(b, 1100000000ULL, 0, 300, "burn");
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1300000000ULL, 0, 300, 300, 250000, true, &uip,
			   0);
	((struct pmuctx_rec_sample *)b)->ip = uip;
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1400000000ULL, 0, 300, 300, 250000, true, &uip,
			   0);
	((struct pmuctx_rec_sample *)b)->ip = uip;
	pmf_add_record(w, b, n);
	n = mk_sample_mode(b, 1500000000ULL, 0, 300, 300, 250000, false,
			   NULL, 0);
	((struct pmuctx_rec_sample *)b)->nr_kernel = 0;
	((struct pmuctx_rec_sample *)b)->hdr.size =
		sizeof(struct pmuctx_rec_sample);
	n = sizeof(struct pmuctx_rec_sample);
	pmf_add_record(w, b, n);
	pmf_window_end(w, st, 2, 2000000000ULL);
	pmf_add_maps(w, 300, 1000000000ULL, PMF_MAPS_START, maps,
		     strlen(maps));
	free(maps);
	CHECK_EQ(pmf_close(w, 0, msg, sizeof(msg)), 0, "close");
	ret = run(&cmd_report, "-i", path, "--kallsyms", ks, NULL);
	CHECK_EQ(ret, 0, "report exits 0");
	CHECK_HAS(cap_out, "[.] test_report_profile\n",
		  "text: the user function of the IPs, named");
	CHECK_HAS(cap_out, "[k] clear_user\n",
		  "text: the kernel function of the IP, named");
	CHECK_HAS(cap_out, "# Samples: 3 of event 'cpu-clock' (4000 Hz",
		  "text: 3 samples at 4000 Hz");

	snprintf(path2, sizeof(path2), "%s/nosamples.pmu", dir);
	CHECK_EQ(write_sample(path2, true), 0, "a recording without sampling");
	ret = run(&cmd_report, "-i", path2, "--format", "folded", NULL);
	CHECK_HAS(cap_err, "recorded without sampling (pmuctx record "
		  "--no-samples", "folded of it: the hint says why there are "
		  "no samples");
}

/*
 * Issue 30 item 8: an existing output file is kept as FILE.old, as perf
 * keeps perf.data.old (a non-empty regular file only); -o - is refused
 */
static void test_record_keeps_old(void)
{
	struct pmf_reader *r = NULL;
	char old[160], cwd[512], *txt;
	struct stat st;
	int ret;

	t_section("pmuctx record keeps the previous file as FILE.old "
		  "(issue 30 item 8)");
	snprintf(path, sizeof(path), "%s/keep.pmu", dir);
	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
	write_bytes(path, "the previous recording", 22);
	fring_install(128, PMUCTX_RING_NORMAL);
	ret = run(&cmd_record, "-q", "-n", "-o", path, "--", "true", NULL);
	CHECK_EQ(ret, 0, "record -o FILE over an existing FILE exits 0");
	txt = t_slurp(old);
	CHECK(!strcmp(txt, "the previous recording"),
	      "FILE.old is the previous FILE");
	free(txt);
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0,
		 "FILE is the new recording");
	pmf_free(r);
	r = NULL;
	fring_install(128, PMUCTX_RING_NORMAL);
	ret = run(&cmd_record, "-q", "-n", "-o", path, "--", "true", NULL);
	CHECK(ret == 0 && !pmf_read(old, 0, &r, msg, sizeof(msg)),
	      "a second time: FILE.old is the first recording, replaced");
	pmf_free(r);
	r = NULL;

	unlink(path);
	unlink(old);
	write_bytes(path, "", 0);
	fring_install(128, PMUCTX_RING_NORMAL);
	ret = run(&cmd_record, "-q", "-n", "-o", path, "--", "true", NULL);
	CHECK(ret == 0 && stat(old, &st) && errno == ENOENT,
	      "an empty FILE is not kept (as perf)");

	/* the default, pmuctx.data in the current directory */
	if (getcwd(cwd, sizeof(cwd)) && !chdir(dir)) {
		unlink("pmuctx.data.old");
		write_bytes("pmuctx.data", "before", 6);
		fring_install(128, PMUCTX_RING_NORMAL);
		ret = run(&cmd_record, "-q", "-n", "--", "true", NULL);
		txt = t_slurp("pmuctx.data.old");
		CHECK(ret == 0 && !strcmp(txt, "before"),
		      "the default: pmuctx.data.old");
		free(txt);
		unlink("pmuctx.data");
		unlink("pmuctx.data.old");
		if (chdir(cwd))
			t_diag("could not go back to %s", cwd);
	}

	ret = run(&cmd_record, "-q", "-n", "-o", "-", "--", "true", NULL);
	CHECK_EQ(ret, EXIT_USAGE, "-o -: usage error (the file is rewritten "
		 "in place, standard output cannot be)");
	CHECK_HAS(cap_err, "-o -", "... naming -o -");
	fring_remove();
}

static void test_record_run(void)
{
	struct pmf_reader *r = NULL;
	unsigned int cpu;
	int ret, i, ok;

	t_section("pmuctx record against the fake ring");
	putenv(dev_env);
	snprintf(path, sizeof(path), "%s/rec.pmu", dir);

	/* normal mode: everything in the buffers ends up in the file */
	fring_install(128, PMUCTX_RING_NORMAL);	/* 512K of 4K pages */
	for (i = 0; i < 50; i++)
		for (cpu = 0; cpu < 4; cpu++)
			fring_user(cpu, 1000 + (__u64)i * 4 + (3 - cpu),
				   (__u64)i);
	ret = run(&cmd_record, "-q", "--switch-events", "-o", path, "--",
		  "sh", "-c", "exit 3", NULL);
	CHECK_EQ(ret, 3, "record -- sh -c 'exit 3' exits 3");
	CHECK(fake.last_attr.ring_pages == 128 &&
	      fake.last_attr.ring_mode == PMUCTX_RING_NORMAL &&
	      fake.last_attr.wakeup_bytes == 128 * 4096 / 4 &&
	      fake.last_attr.ring_records ==
	      (PMUCTX_REC_MASK_ALL & ~PMUCTX_REC_MASK_MMAP) &&
	      (fake.last_attr.flags & PMUCTX_SESSION_INHERIT),
	      "session: 128 pages, normal, wakeup 1/4, all records, inherit");
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0, "the file reads");
	if (r) {
		const struct pmuctx_rec_common *prev = NULL;

		CHECK(r->nr_wins == 1 && r->wins[0].hdr.reason ==
		      PMF_WIN_STREAM && r->wins[0].have_end,
		      "one stream window, closed");
		CHECK_EQ(r->nr_recs, 200, "the 200 records");
		for (i = 0, ok = 1; i < (int)r->nr_recs; i++) {
			const struct pmuctx_rec_common *c =
				(const void *)(r->recs[i] + 1);

			if (prev && c->time < prev->time)
				ok = 0;
			prev = c;
		}
		CHECK(ok, "written in time order across CPUs");
		CHECK(r->end.exit_status == 3 && !(r->end.flags & PMF_END_OPEN),
		      "END: exit status 3");
		CHECK(strstr(r->meta.command, "sh -c exit 3") != NULL,
		      "INFO: the command");
		pmf_free(r);
		r = NULL;
	}
	for (cpu = 0, ok = 1; cpu < 4; cpu++)
		ok &= fring_ctl(cpu)->data_tail == fring_ctl(cpu)->data_head;
	CHECK(ok, "every buffer was consumed");

	/* overwrite mode: the final window holds the newest records */
	fring_install(128, PMUCTX_RING_OVERWRITE);
	for (i = 0; i < 50 * 128 * 4096 / 48; i++)
		fring_user(2, 10 + (__u64)i, (__u64)i);
	ret = run(&cmd_record, "-q", "--overwrite", "-o", path, "--", "true",
		  NULL);
	CHECK_EQ(ret, 0, "record --overwrite -- true exits 0");
	CHECK_EQ(fake.last_attr.ring_mode, PMUCTX_RING_OVERWRITE,
		 "overwrite mode");
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0, "the file reads");
	if (r) {
		__u64 expect = 0;

		CHECK(r->nr_wins >= 1 && r->wins[r->nr_wins - 1].hdr.reason ==
		      PMF_WIN_EXIT, "the last window is the exit window");
		for (i = 0, ok = 1; i < (int)r->nr_recs; i++) {
			const struct pmuctx_rec_user *u =
				(const void *)r->recs[i];
			__u64 seq;

			memcpy(&seq, u->data, sizeof(seq));
			if (!i)
				expect = seq;
			ok &= seq == expect++;
		}
		CHECK(ok && expect == (__u64)(50 * 128 * 4096 / 48) &&
		      r->nr_recs * 48 >= 128 * 4096 / 2,
		      "the newest records, contiguous, at least half the "
		      "buffer (%zu)", r->nr_recs);
		pmf_free(r);
		r = NULL;
	}

	/* what the recorder says of a wrapped window: overwritten, not "0 lost" */
	fring_install(128, PMUCTX_RING_OVERWRITE);
	for (i = 0; i < 50 * 128 * 4096 / 48; i++)
		fring_user(2, 10 + (__u64)i, (__u64)i);
	{
		char want[128];
		unsigned long long ov =
			(unsigned long long)fring_ctl(2)->overwritten;

		ret = run(&cmd_record, "--overwrite", "-o", path, "--",
			  "true", NULL);
		CHECK(ret == 0 && ov > 0, "record --overwrite -- true: %llu "
		      "records overwritten", ov);
		snprintf(want, sizeof(want), "0 lost and %llu overwritten "
			 "since the previous window", ov);
		CHECK_HAS(cap_err, want, "the window's line says how many "
			  "records were overwritten");
		snprintf(want, sizeof(want), " lost, %llu overwritten, 1 "
			 "window(s)", ov);
		CHECK_HAS(cap_err, want, "so does the summary");
	}

	/* a trigger */
	fring_install(128, PMUCTX_RING_OVERWRITE);
	ret = run(&cmd_record, "-q", "-e", "cs", "--trigger",
		  "task-clock>5ms", "-o", path, "--", "true", NULL);
	CHECK_EQ(ret, 0, "record --trigger exits 0");
	CHECK(fake.last_attr.ring_mode == PMUCTX_RING_OVERWRITE &&
	      fake.last_attr.nr_events == 2 &&
	      fake.last_attr.events[1] == PMUCTX_EV_TASK_CLOCK &&
	      fake.last_attr.trigger_event == 2 &&
	      fake.last_attr.trigger_threshold == 5000000,
	      "--trigger: implies overwrite, adds task-clock, 1 + its index");
	CHECK(fake.last_attr.ring_records & PMUCTX_REC_MASK_SWITCH,
	      "--trigger: implies switch records (they name the slice)");

	test_record_names();
	test_record_window_names();
	test_record_samples_by_default();
	test_record_keeps_old();

	/* not executable */
	fring_install(128, PMUCTX_RING_NORMAL);
	ret = run(&cmd_record, "-q", "-o", path, "--",
		  "/nonexistent/cmd", NULL);
	CHECK_EQ(ret, 127, "a missing command: 127");
	CHECK_HAS(cap_err, "cannot run '/nonexistent/cmd'", "message");

	/* module errors reach the user */
	fring_install(128, PMUCTX_RING_NORMAL);
	fake.create_err = -ENOMEM;
	ret = run(&cmd_record, "-o", path, "--buffer-size", "300K", "--",
		  "true", NULL);
	CHECK_EQ(ret, EXIT_RUNTIME, "ENOMEM: exit 1");
	CHECK_HAS(cap_err, "max_ring_pages", "ENOMEM: names the parameter");
	CHECK_HAS(cap_err, "--buffer-size 307200 bytes: 128 pages",
		  "ENOMEM: the buffer size as pages");
	fring_remove();
}

/* the snapshot handshake: a recorder child, pmuctx snapshot here */
static void test_snapshot_handshake(void)
{
	struct pmf_reader *r = NULL;
	struct timespec ts = { 0, 20000000 };
	char sleeper_pid[32], rec_pid[32];
	pid_t rec, sleeper;
	int i, ret, st;

	t_section("pmuctx snapshot <-> pmuctx record");
	putenv(dev_env);
	snprintf(path, sizeof(path), "%s/snap.pmu", dir);
	unlink(path);
	fring_install(128, PMUCTX_RING_OVERWRITE);
	for (i = 0; i < 100; i++)
		fring_user(1, 10 + (__u64)i, (__u64)i);

	fflush(NULL);
	rec = fork();
	if (rec == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		_exit(cmd_record.run(8, (char *[]){ "record", "-q",
			"--overwrite", "-o", path, "--", "sleep", "3",
			NULL }));
	}
	/* the file exists once the recorder is set up */
	for (i = 0; i < 250 && access(path, F_OK); i++)
		nanosleep(&ts, NULL);
	CHECK(!access(path, F_OK), "the recorder started");
	snprintf(rec_pid, sizeof(rec_pid), "%d", (int)rec);

	/* a process that is not a recorder is refused */
	sleeper = fork();
	if (sleeper == 0) {
		execlp("sleep", "sleep", "5", (char *)NULL);
		_exit(127);
	}
	nanosleep(&ts, NULL);
	snprintf(sleeper_pid, sizeof(sleeper_pid), "%d", (int)sleeper);
	ret = run(&cmd_snapshot, "--pid", sleeper_pid, NULL);
	CHECK_EQ(ret, EXIT_RUNTIME, "snapshot of a sleep: refused");
	CHECK_HAS(cap_err, "is not 'pmuctx record'", "message");
	CHECK(!kill(sleeper, 0), "and the sleep was not signalled");
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);

	/* the unit-test binary's cmdline is not pmuctx: --force */
	ret = run(&cmd_snapshot, "--pid", rec_pid, "--force", "--timeout",
		  "20", NULL);
	CHECK_EQ(ret, 0, "snapshot --pid RECORDER: exit 0");
	CHECK_HAS(cap_out, "wrote window 0", "it says which window");
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0,
		 "the file reads while the recorder goes on");
	if (r) {
		CHECK(r->nr_wins == 1 &&
		      r->wins[0].hdr.reason == PMF_WIN_REQUEST &&
		      r->wins[0].hdr.requester == getpid() &&
		      r->wins[0].nr == 100 && r->have_end &&
		      (r->end.flags & PMF_END_OPEN),
		      "window 0: request from us, the 100 records; END says "
		      "the recording goes on");
		pmf_free(r);
		r = NULL;
	} else {
		t_diag("%s", msg);
	}
	ret = run(&cmd_snapshot, "-q", "--pid", rec_pid, "--force", NULL);
	CHECK(ret == 0 && !cap_out[0], "a second snapshot, -q: silent");
	kill(rec, SIGUSR2);	/* plain kill: a window, no answer */
	for (i = 0; i < 300; i++) {
		if (waitpid(rec, &st, WNOHANG) == rec)
			break;
		nanosleep(&ts, NULL);
	}
	if (i == 300) {
		kill(rec, SIGKILL);
		waitpid(rec, &st, 0);
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the recorder ends with its command (status 0)");
	CHECK_EQ(pmf_read(path, 0, &r, msg, sizeof(msg)), 0, "final file");
	if (r) {
		CHECK(r->nr_wins == 4 &&
		      r->wins[2].hdr.reason == PMF_WIN_SIGNAL &&
		      r->wins[3].hdr.reason == PMF_WIN_EXIT &&
		      !(r->end.flags & PMF_END_OPEN),
		      "windows: request, request, signal, exit (%zu)",
		      r->nr_wins);
		pmf_free(r);
	}
	ret = run(&cmd_snapshot, "--pid", rec_pid, "--force", NULL);
	CHECK_EQ(ret, EXIT_RUNTIME, "snapshot of a finished recorder: 1");
	fring_remove();
}

/* The VDSO section: written, read back, and a bad one refused */
static void test_vdso_section(void)
{
	static const unsigned char img[20] = "\177ELF fake vdso ...";
	struct pmf_reader *r = NULL;
	struct pmf_writer *w;
	struct pmf_meta m;
	unsigned char *b;
	size_t len, i;
	struct stat st;
	int err;

	t_section("pmfile: the VDSO section");
	snprintf(path, sizeof(path), "%s/vdso.pmu", dir);
	meta_init(&m);
	CHECK_EQ(pmf_create(&w, path, &m, msg, sizeof(msg)), 0, "create");
	CHECK(pmf_add_vdso(w, img, 0) < 0, "an empty vDSO is refused");
	CHECK(pmf_add_vdso(w, img, PMF_VDSO_MAX + 1) < 0,
	      "a vDSO above PMF_VDSO_MAX is refused");
	CHECK_EQ(pmf_add_vdso(w, img, sizeof(img)), 0, "a 20-byte image");
	CHECK_EQ(pmf_close(w, 0, msg, sizeof(msg)), 0, "close: %s", msg);
	err = pmf_read(path, 0, &r, msg, sizeof(msg));
	CHECK_EQ(err, 0, "read back: %s", msg);
	CHECK(!err && r->vdso && r->vdso_len == sizeof(img) &&
	      !memcmp(r->vdso, img, sizeof(img)), "the image, whole");
	if (!err)
		pmf_free(r);

	/* its len past the section: refused, saying which section */
	b = (unsigned char *)t_slurp(path);
	if (!b || stat(path, &st)) {
		free(b);
		return;
	}
	len = (size_t)st.st_size;
	for (i = 0; i + 16 <= len; i += 8) {
		__u32 t;

		memcpy(&t, b + i, sizeof(t));
		if (t == PMF_SEC_VDSO)
			break;
	}
	CHECK(i + 16 + 8 <= len, "the VDSO section is in the file");
	if (i + 16 + 8 <= len) {
		__u32 big = 4096;

		memcpy(b + i + 16 + 4, &big, sizeof(big));
		write_bytes(path, b, len);
		err = pmf_read(path, 0, &r, msg, sizeof(msg));
		CHECK(err < 0, "an image longer than its section is refused");
		CHECK_HAS(msg, "VDSO section", "the message names the section");
		if (!err)
			pmf_free(r);
	}
	free(b);
}

void test_ring_file(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pmuctx-ringtest.XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	test_roundtrip();
	test_bad_files();
	test_vdso_section();
	test_report();
	test_report_coverage();
	test_report_profile();
	test_report_perf_script_reader();
	test_report_ips_only();
	test_parsers();
	test_record_usage();
	test_record_run();
	test_snapshot_handshake();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			t_diag("could not remove %s", dir);
	}
}
