// SPDX-License-Identifier: GPL-2.0
/*
 * The stitcher (lib/stitch.c) on synthetic records: immediate and
 * deferred samples, user records shared by several samples, on another
 * CPU, in a later window (after unrelated records), before their samples,
 * never arriving, interleaved tasks, duplicates, the bounds on memory.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmuctx.h>

#include "test.h"

/* ---- record builders (shared with test_stitch_fmt.c) ------------------- */

static __u64 recbuf[4][512];
static int recslot;

const struct pmuctx_rec_header *ts_sample(__u64 time, __u32 cpu, __s32 pid,
					  __s32 tid, __u16 misc, __u64 cookie,
					  __u64 period, const __u64 *kips,
					  unsigned int nk, const __u64 *uips,
					  unsigned int nu)
{
	struct pmuctx_rec_sample *s = (void *)recbuf[recslot++ & 3];
	size_t size = sizeof(*s) + (nk + nu) * sizeof(__u64);

	memset(s, 0, size);
	s->hdr.type = PMUCTX_REC_SAMPLE;
	s->hdr.size = (__u16)size;
	s->hdr.misc = misc;
	s->c.time = time;
	s->c.cpu = cpu;
	s->c.pid = pid;
	s->c.tid = tid;
	s->ip = nk ? kips[0] : nu ? uips[0] : 0;
	s->period = period;
	s->cookie = cookie;
	s->nr_kernel = (__u16)nk;
	s->nr_user = (__u16)nu;
	if (nk)
		memcpy(s->ips, kips, nk * sizeof(__u64));
	if (nu)
		memcpy(s->ips + nk, uips, nu * sizeof(__u64));
	return &s->hdr;
}

const struct pmuctx_rec_header *ts_user(__u64 time, __u32 cpu, __s32 pid,
					__s32 tid, __u64 cookie,
					const __u64 *ips, unsigned int n)
{
	struct pmuctx_rec_user_callchain *u = (void *)recbuf[recslot++ & 3];
	size_t size = sizeof(*u) + n * sizeof(__u64);

	memset(u, 0, size);
	u->hdr.type = PMUCTX_REC_USER_CALLCHAIN;
	u->hdr.size = (__u16)size;
	u->c.time = time;
	u->c.cpu = cpu;
	u->c.pid = pid;
	u->c.tid = tid;
	u->cookie = cookie;
	u->nr = n;
	memcpy(u->ips, ips, n * sizeof(__u64));
	return &u->hdr;
}

const struct pmuctx_rec_header *ts_simple(__u32 type, __u64 time, __u32 cpu,
					  __s32 pid, __s32 tid)
{
	struct pmuctx_rec_exit *e = (void *)recbuf[recslot++ & 3];

	memset(e, 0, sizeof(struct pmuctx_rec_comm));
	e->hdr.type = type;
	e->hdr.size = type == PMUCTX_REC_COMM ?
		      sizeof(struct pmuctx_rec_comm) : sizeof(*e);
	e->c.time = time;
	e->c.cpu = cpu;
	e->c.pid = pid;
	e->c.tid = tid;
	return &e->hdr;
}

/* ---- helpers ---------------------------------------------------------------- */

static const __u64 K[] = { 0xffffffff81001010ULL, 0xffffffff81002020ULL,
			   0xffffffff81003030ULL };
static const __u64 U1[] = { 0x401010, 0x402020, 0x403030, 0x404040 };
static const __u64 U2[] = { 0x501010, 0x502020 };

#define DEF (PMUCTX_SAMPLE_M_USER_DEFERRED)

static int add(struct pmuctx_stitch *s, const struct pmuctx_rec_header *h)
{
	return pmuctx_stitch_add(s, h, h->size);
}

/* take every ready callchain; checks the ones of @tid against @want */
struct got {
	unsigned int n, stitched, unresolved, evicted, wrong;
	__u64 period;
};

static void take(struct pmuctx_stitch *s, struct got *g, __s32 tid,
		 const __u64 *want_u, unsigned int nu)
{
	struct pmuctx_callchain cc;

	while (pmuctx_stitch_next(s, &cc) > 0) {
		if (tid >= 0 && cc.tid != tid)
			continue;
		g->n++;
		g->period += cc.period;
		if (cc.flags & PMUCTX_CHAIN_STITCHED)
			g->stitched++;
		if (cc.flags & PMUCTX_CHAIN_UNRESOLVED)
			g->unresolved++;
		if (cc.flags & PMUCTX_CHAIN_EVICTED)
			g->evicted++;
		if (cc.flags & PMUCTX_CHAIN_STITCHED) {
			/* kernel part first, then the user record's */
			if (cc.nr_kernel != 3 || cc.nr_user != nu ||
			    memcmp(cc.ips, K, sizeof(K)) ||
			    memcmp(cc.ips + 3, want_u, nu * sizeof(__u64)))
				g->wrong++;
		} else if (cc.flags & PMUCTX_CHAIN_UNRESOLVED) {
			if (cc.nr_user || cc.nr_kernel != 3)
				g->wrong++;
		}
	}
}

static struct pmuctx_stitch *mk(size_t max_pending, size_t max_user)
{
	LIBPMUCTX_OPTS(pmuctx_stitch_opts, o, .max_pending = max_pending,
		       .max_user = max_user);
	struct pmuctx_stitch *s = NULL;
	int err = pmuctx_stitch_new(&s, &o);

	CHECK(!err && s, "pmuctx_stitch_new(max_pending %zu, max_user %zu)",
	      max_pending, max_user);
	return s;
}

/* ---- tests ---------------------------------------------------------------- */

static void t_immediate(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_callchain cc;
	struct pmuctx_stitch_stats st;
	int n;

	n = add(s, ts_sample(100, 0, 10, 11, 0, 0, 1000, K, 3, U1, 4));
	CHECK_EQ(n, 1, "an immediate sample is ready at once");
	CHECK_EQ(pmuctx_stitch_next(s, &cc), 1, "next() hands it out");
	CHECK(cc.nr_kernel == 3 && cc.nr_user == 4 &&
	      !memcmp(cc.ips, K, sizeof(K)) &&
	      !memcmp(cc.ips + 3, U1, sizeof(U1)),
	      "its chain is kernel then user, as in the record");
	CHECK(cc.pid == 10 && cc.tid == 11 && cc.time == 100 &&
	      cc.period == 1000 && !cc.cookie && cc.sample,
	      "pid, tid, time, period copied; no cookie");
	CHECK(!(cc.flags & (PMUCTX_CHAIN_DEFERRED | PMUCTX_CHAIN_STITCHED)),
	      "not deferred, not stitched");
	CHECK_EQ(pmuctx_stitch_next(s, &cc), 0, "nothing more");
	/* a user-mode sample without any stack: ip alone */
	n = add(s, ts_sample(101, 1, 10, 11, PMUCTX_SAMPLE_M_USER, 0, 1000,
			     NULL, 0, NULL, 0));
	CHECK_EQ(n, 1, "a sample without callchain is ready too");
	pmuctx_stitch_next(s, &cc);
	CHECK(cc.nr_kernel == 0 && cc.nr_user == 0, "with no frames");
	pmuctx_stitch_stats(s, &st);
	CHECK(st.samples == 2 && st.immediate == 2 && !st.deferred,
	      "stats: 2 samples, 2 immediate");
	pmuctx_stitch_free(s);
}

static void t_shared_other_cpu(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct got g = { 0 };
	int i, n;

	for (i = 0; i < 3; i++) {
		n = add(s, ts_sample(100 + i, 0, 10, 11, DEF, 0x1000000000001ULL,
				     1000, K, 3, NULL, 0));
		CHECK_EQ(n, 0, "deferred sample %d waits for its user record",
			 i);
	}
	/* the task migrated: its user record is written on CPU 3 */
	n = add(s, ts_user(200, 3, 10, 11, 0x1000000000001ULL, U1, 4));
	CHECK_EQ(n, 3, "the user record (on another CPU) completes all 3");
	take(s, &g, 11, U1, 4);
	CHECK(g.n == 3 && g.stitched == 3 && !g.wrong,
	      "3 stitched samples, kernel part + the shared user part");
	pmuctx_stitch_stats(s, &st);
	CHECK(st.deferred == 3 && st.stitched == 3 && st.user_records == 1 &&
	      st.user_shared == 1 && !st.unresolved && !st.pending,
	      "stats: 3 stitched, 1 user record shared by more than one");
	CHECK_EQ(st.pending_max, 3, "at most 3 were waiting");
	pmuctx_stitch_free(s);
}

static void t_user_cpu_reported(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_callchain cc;

	add(s, ts_sample(100, 1, 10, 11, DEF, 77, 1000, K, 3, NULL, 0));
	add(s, ts_user(150, 2, 10, 11, 77, U2, 2));
	CHECK_EQ(pmuctx_stitch_next(s, &cc), 1, "stitched sample ready");
	CHECK(cc.cpu == 1 && cc.user_cpu == 2 && cc.user_time == 150 &&
	      cc.cookie == 77 && (cc.flags & PMUCTX_CHAIN_DEFERRED),
	      "sample CPU 1, user record CPU 2 and time reported, cookie");
	pmuctx_stitch_free(s);
}

static void t_later_window(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct got g = { 0 };
	int i;

	add(s, ts_sample(100, 0, 10, 11, DEF, 5, 1000, K, 3, NULL, 0));
	/* window 1 ends; unrelated records, immediate samples of others */
	for (i = 0; i < 100; i++) {
		add(s, ts_simple(PMUCTX_REC_COMM, 110 + i, i % 4, 20, 21));
		add(s, ts_sample(110 + i, i % 4, 30, 31, 0, 0, 10, K, 3, U2,
				 2));
	}
	take(s, &g, 11, U1, 4);
	CHECK_EQ(g.n, 0, "still waiting across 200 other records");
	/* window 2: the user record, on CPU 2 */
	add(s, ts_user(5000, 2, 10, 11, 5, U1, 4));
	take(s, &g, 11, U1, 4);
	CHECK(g.n == 1 && g.stitched == 1 && !g.wrong,
	      "stitched when the user record comes in a later window");
	pmuctx_stitch_free(s);
}

static void t_user_first(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct got g = { 0 };
	int n;

	/* the reader saw the user record's CPU before the sample's */
	n = add(s, ts_user(200, 3, 10, 11, 9, U1, 4));
	CHECK_EQ(n, 0, "a user record alone yields nothing");
	n = add(s, ts_sample(150, 0, 10, 11, DEF, 9, 1000, K, 3, NULL, 0));
	CHECK_EQ(n, 1, "a sample after its user record is ready at once");
	n = add(s, ts_sample(160, 0, 10, 11, DEF, 9, 1000, K, 3, NULL, 0));
	take(s, &g, 11, U1, 4);
	CHECK(g.n == 2 && g.stitched == 2 && !g.wrong,
	      "both late samples stitched");
	pmuctx_stitch_stats(s, &st);
	CHECK(st.late == 2 && st.user_shared == 1 && !st.user_unused,
	      "stats: 2 late, the record shared");
	pmuctx_stitch_free(s);
}

static void t_never(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct got g = { 0 };
	int n;

	add(s, ts_sample(100, 0, 10, 11, DEF, 42, 1000, K, 3, NULL, 0));
	add(s, ts_sample(101, 0, 10, 11, DEF, 42, 1000, K, 3, NULL, 0));
	/* a user record of another task with the same cookie value */
	add(s, ts_user(150, 0, 10, 12, 42, U2, 2));
	take(s, &g, 11, U1, 4);
	CHECK_EQ(g.n, 0, "the same cookie of another thread does not join");
	n = pmuctx_stitch_flush(s);
	CHECK_EQ(n, 2, "flush: the 2 samples come out");
	take(s, &g, 11, U1, 4);
	CHECK(g.n == 2 && g.unresolved == 2 && !g.stitched && !g.wrong,
	      "unresolved, with the kernel part only");
	pmuctx_stitch_stats(s, &st);
	CHECK(st.unresolved == 2 && !st.stitched && st.user_unused == 1,
	      "stats: 2 unresolved, 1 user record unused");
	pmuctx_stitch_free(s);
}

static void t_exit(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct got g = { 0 };
	int n;

	add(s, ts_sample(100, 0, 10, 11, DEF, 3, 1000, K, 3, NULL, 0));
	add(s, ts_sample(100, 1, 10, 12, DEF, 4, 1000, K, 3, NULL, 0));
	n = add(s, ts_simple(PMUCTX_REC_EXIT, 200, 0, 10, 11));
	CHECK_EQ(n, 1, "the EXIT of a thread gives up its waiting sample");
	take(s, &g, 11, U1, 4);
	CHECK(g.n == 1 && g.unresolved == 1, "unresolved at exit");
	memset(&g, 0, sizeof(g));
	add(s, ts_user(300, 1, 10, 12, 4, U2, 2));
	take(s, &g, 12, U2, 2);
	CHECK(g.n == 1 && g.stitched == 1 && !g.wrong,
	      "the other thread is stitched");
	pmuctx_stitch_free(s);
}

static void t_interleaved(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct pmuctx_callchain cc;
	unsigned int ok = 0, total = 0, i;

	/* 4 threads, each 5 samples per kernel entry, 10 entries, mixed */
	for (i = 0; i < 10; i++) {
		unsigned int t, k;

		for (k = 0; k < 5; k++)
			for (t = 0; t < 4; t++)
				add(s, ts_sample(1000 * i + 10 * k + t, t, 100,
						 100 + (int)t, DEF,
						 (__u64)(i * 10 + t + 1), 1000,
						 K, 3, NULL, 0));
		for (t = 4; t-- > 0;) {
			__u64 u[2] = { 0x1000 * (t + 1) + i, 0x9999 };

			add(s, ts_user(1000 * i + 900, (t + 1) % 4, 100,
				       100 + (int)t, (__u64)(i * 10 + t + 1),
				       u, 2));
		}
		while (pmuctx_stitch_next(s, &cc) > 0) {
			unsigned int t2 = (unsigned int)(cc.tid - 100);

			total++;
			if ((cc.flags & PMUCTX_CHAIN_STITCHED) &&
			    cc.nr_user == 2 && cc.ips[3] ==
			    0x1000 * (t2 + 1) + (cc.time / 1000))
				ok++;
		}
	}
	CHECK(total == 200 && ok == 200,
	      "4 interleaved threads: 200 samples each joined with its own "
	      "thread's record (%u of %u)", ok, total);
	pmuctx_stitch_stats(s, &st);
	CHECK(st.user_records == 40 && st.user_shared == 40 &&
	      st.stitched == 200, "stats: 40 records, all shared, 200 stitched");
	pmuctx_stitch_free(s);
}

static void t_duplicates(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct got g = { 0 };

	add(s, ts_sample(100, 0, 10, 11, DEF, 8, 1000, K, 3, NULL, 0));
	add(s, ts_user(200, 1, 10, 11, 8, U1, 4));
	/* overlapping snapshot windows hold the record twice */
	add(s, ts_user(200, 1, 10, 11, 8, U1, 4));
	take(s, &g, 11, U1, 4);
	pmuctx_stitch_stats(s, &st);
	CHECK(g.n == 1 && st.user_records == 1 && st.user_duplicates == 1 &&
	      !st.user_shared, "a user record fed twice counts once");
	pmuctx_stitch_free(s);
}

static void t_bounds(void)
{
	struct pmuctx_stitch *s = mk(4, 2);
	struct pmuctx_stitch_stats st;
	struct got g = { 0 };
	int i;

	for (i = 0; i < 10; i++)
		add(s, ts_sample(100 + i, 0, 10, 11 + i, DEF, 100 + i, 1000,
				 K, 3, NULL, 0));
	pmuctx_stitch_stats(s, &st);
	CHECK(st.pending == 4 && st.evicted == 6 && st.unresolved == 6,
	      "max_pending 4: 4 wait, the 6 oldest were given up");
	take(s, &g, -1, U1, 4);
	CHECK(g.n == 6 && g.evicted == 6 && g.unresolved == 6 && !g.wrong,
	      "given up oldest first, EVICTED|UNRESOLVED, kernel part only");
	memset(&g, 0, sizeof(g));
	add(s, ts_user(300, 0, 10, 20, 109, U1, 4));
	take(s, &g, 20, U1, 4);
	CHECK(g.n == 1 && g.stitched == 1, "a recent one still stitches");
	for (i = 0; i < 5; i++)
		add(s, ts_user(400 + i, 0, 50, 50 + i, 1, U2, 2));
	pmuctx_stitch_stats(s, &st);
	CHECK_EQ(st.user_forgotten, 4, "max_user 2: older user records "
		 "forgotten");
	/* a late sample for a forgotten record waits (then unresolved) */
	add(s, ts_sample(500, 0, 50, 50, DEF, 1, 1000, K, 3, NULL, 0));
	pmuctx_stitch_stats(s, &st);
	CHECK_EQ(st.late, 0, "no late join with a forgotten record");
	pmuctx_stitch_flush(s);
	pmuctx_stitch_free(s);
}

static void t_errors(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct pmuctx_rec_sample bad;
	struct {
		struct pmuctx_stitch_opts o;
		__u64 future;
	} big;
	struct pmuctx_stitch *s2 = (void *)1;
	char msg[256];
	int err;

	memset(&bad, 0, sizeof(bad));
	bad.hdr.type = PMUCTX_REC_SAMPLE;
	bad.hdr.size = sizeof(bad);
	bad.nr_kernel = 5;		/* frames outside the record */
	err = pmuctx_stitch_add(s, &bad, sizeof(bad));
	CHECK_EQ(err, -EBADMSG, "a sample whose frames overrun: -EBADMSG");
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	CHECK_HAS(msg, "record", "the message is about the record");
	CHECK_EQ(pmuctx_stitch_add(s, &bad, 4), -EBADMSG,
		 "a record shorter than a header: -EBADMSG");
	CHECK_EQ(pmuctx_stitch_add(NULL, &bad, sizeof(bad)), -EINVAL,
		 "NULL stitcher: -EINVAL");
	pmuctx_stitch_stats(s, &st);
	CHECK(!st.samples, "bad records are not counted as samples");
	CHECK_EQ(add(s, ts_simple(PMUCTX_REC_COMM, 1, 0, 1, 1)), 0,
		 "other records are accepted");
	pmuctx_stitch_stats(s, &st);
	CHECK_EQ(st.ignored, 1, "... and counted as ignored");

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	CHECK_EQ(pmuctx_stitch_new(&s2, &big.o), 0,
		 "a larger opts struct with zero tail is accepted");
	pmuctx_stitch_free(s2);
	big.future = 1;
	CHECK_EQ(pmuctx_stitch_new(&s2, &big.o), -EINVAL,
		 "a larger opts struct with a non-zero tail: -EINVAL");
	CHECK(s2 == NULL, "*out is NULL on failure");
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big.o);
	big.o.flags = 1;
	CHECK_EQ(pmuctx_stitch_new(&s2, &big.o), -EINVAL,
		 "unknown flags: -EINVAL");
	CHECK_EQ(pmuctx_stitch_next(NULL, NULL), -EINVAL, "next(NULL)");
	CHECK_EQ(pmuctx_stitch_flush(NULL), -EINVAL, "flush(NULL)");
	CHECK_EQ(pmuctx_stitch_stats(NULL, &st), -EINVAL, "stats(NULL)");
	pmuctx_stitch_free(NULL);
	pmuctx_stitch_free(s);
}

static void t_many(void)
{
	struct pmuctx_stitch *s = mk(0, 0);
	struct pmuctx_stitch_stats st;
	struct pmuctx_callchain cc;
	unsigned long ok = 0, i;

	/* 100k deferred samples, 20k user records, some of them late */
	for (i = 0; i < 20000; i++) {
		unsigned int k;
		__u64 u[1] = { i };

		if (i % 7 == 0)
			add(s, ts_user(i * 10 + 9, 1, 1, 2, i + 1, u, 1));
		for (k = 0; k < 5; k++)
			add(s, ts_sample(i * 10 + k, 0, 1, 2, DEF, i + 1, 1,
					 K, 3, NULL, 0));
		if (i % 7)
			add(s, ts_user(i * 10 + 9, 1, 1, 2, i + 1, u, 1));
		while (pmuctx_stitch_next(s, &cc) > 0)
			if ((cc.flags & PMUCTX_CHAIN_STITCHED) &&
			    cc.ips[3] == cc.cookie - 1)
				ok++;
	}
	pmuctx_stitch_stats(s, &st);
	CHECK(ok == 100000 && st.stitched == 100000 && !st.pending &&
	      st.user_shared == 20000,
	      "100000 samples, 20000 user records: all stitched (%lu)", ok);
	pmuctx_stitch_free(s);
}

void test_stitch(void)
{
	t_immediate();
	t_shared_other_cpu();
	t_user_cpu_reported();
	t_later_window();
	t_user_first();
	t_never();
	t_exit();
	t_interleaved();
	t_duplicates();
	t_bounds();
	t_errors();
	t_many();
}
