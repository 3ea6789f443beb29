// SPDX-License-Identifier: GPL-2.0
/*
 * The ring writer proven on the host: module/rb.c, the file the module
 * ships, compiled as it is (kshim/ stands in for the kernel headers) and
 * driven through every combination that matters:
 *
 *   - buffers of 1, 2 and 4 pages, every 8-byte offset of the head;
 *   - every record size from the smallest (32 bytes) to half the buffer
 *     on one page (on 2 and 4 pages, sizes spread over that range and
 *     every size of the last 80 bytes before half), one over half
 *     (dropped), and the largest USER_STACK record (65472 bytes, in a
 *     32-page buffer where it fits, every 64-byte offset);
 *   - a LOST record pending or not (dropped while frozen);
 *   - both modes, normal (with a reader that consumes) and overwrite;
 *   - a writer nested between another's reservation and its commit.
 *
 * After every reservation and commit it checks: the call returned (an
 * alarm fails the run if one never does: the eviction loop is bounded),
 * IRQs are on again, no WARN fired, head - tail <= size, every header
 * between tail and head is valid (type, size, alignment, no record across
 * the end, PAD exactly to the end), records are whole and in order with
 * their contents intact, a record the buffer can take is taken (always in
 * overwrite mode; in normal mode exactly when it fits), overwrite evicts
 * whole records and no more than it must, and lost, overwritten and the
 * LOST records add up.
 *
 *   ./rb-tests [GROUP...]	groups: issue edges nested random
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb.h"
#include "test.h"

unsigned int kshim_irqs_off, kshim_warnings, kshim_cpu;
u64 kshim_now;

void kshim_warn(const char *file, int line, const char *cond)
{
	kshim_warnings++;
	if (kshim_warnings < 5)
		t_diag("WARN_ON_ONCE(%s) at %s:%d", cond, file, line);
}

#define REC_MIN		32U	/* header and common part */
#define LOST_SIZE	((u64)sizeof(struct pmuctx_rec_lost))
#define MAX_DATA	(64U * 4096)
#define MAX_BOUNDS	(MAX_DATA / 8 + 1)

/* One ring under test and what the test knows of it. */
struct t_ring {
	struct pmuctx_rb r;
	struct pmuctx_ring_ctl ctl;
	bool frozen;
	u8 *data;
	u64 size;
	u64 seq;		/* next record's number */
	u64 last_seq;		/* reader: last number seen */
	u64 lost_read;		/* normal mode: LOST counts consumed */
	u64 nonpad;		/* USER and LOST records reserved */
	u64 bounds[MAX_BOUNDS];	/* record starts from tail to head */
	bool bpad[MAX_BOUNDS];	/* that record is a PAD */
	unsigned int nr_bounds;
};

static u8 t_data[MAX_DATA];
static char t_case[256];	/* the case in progress, for failures */
static unsigned long t_bad;	/* violations in the current group */

static void t_bad_case(const char *what, unsigned long long a,
		       unsigned long long b)
{
	if (++t_bad <= 8)
		t_diag("%s (%llu, %llu) in case %s", what, a, b, t_case);
}

#define BAD_IF(cond, a, b) do {						\
	if (cond) {							\
		t_bad_case(#cond, (unsigned long long)(a),		\
			   (unsigned long long)(b));			\
		return false;						\
	}								\
} while (0)

static void t_alarm(int sig)
{
	char msg[512];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "not ok 1 - pmuctx_rb_reserve() returned (stuck in case %s: an unbounded loop)\n0 passed, 1 failed\n",
		     t_case);
	if (write(STDOUT_FILENO, msg, n) < 0)
		_exit(2);
	_exit(1);
}

static u64 t_tail(const struct t_ring *t)
{
	return t->r.mode == PMUCTX_RING_OVERWRITE ? t->r.tail :
						     t->ctl.data_tail;
}

static struct pmuctx_rec_header *t_at(struct t_ring *t, u64 pos)
{
	return (struct pmuctx_rec_header *)(t->data + (pos & (t->size - 1)));
}

static void t_init(struct t_ring *t, u64 size, u32 mode, u64 off, int fill)
{
	u64 base = size * 1000 + off;

	memset(t, 0, sizeof(*t));
	t->data = t_data;
	t->size = size;
	/* stale bytes: zeros (the old loop's endless size 0) or a pattern */
	memset(t_data, fill, size);
	pmuctx_rb_init(&t->r, &t->ctl, t->data, size, mode, 1, 0,
		       &t->frozen);
	t->r.head = t->r.tail = base;
	t->ctl.data_head = t->ctl.data_tail = base;
	t->seq = 1;
}

/*
 * Walk the published records from the tail to data_head: all valid, in
 * order, contents intact.  Fills t->bounds.
 */
static bool t_walk(struct t_ring *t, bool deep)
{
	u64 pos = t_tail(t), head = t->ctl.data_head, last = 0;

	t->nr_bounds = 0;
	BAD_IF(head - pos > t->size, head - pos, t->size);
	while (pos != head) {
		struct pmuctx_rec_header *h = t_at(t, pos);
		u64 off = pos & (t->size - 1), i;
		u8 *b = (u8 *)h;

		BAD_IF(h->size < 8 || h->size & 7, h->size, off);
		BAD_IF(h->size > head - pos || off + h->size > t->size,
		       h->size, off);
		t->bpad[t->nr_bounds] = h->type == PMUCTX_REC_PAD;
		t->bounds[t->nr_bounds++] = pos;
		switch (h->type) {
		case PMUCTX_REC_PAD:
			BAD_IF(off + h->size != t->size, h->size, off);
			break;
		case PMUCTX_REC_LOST:
			BAD_IF(h->size != LOST_SIZE, h->size, LOST_SIZE);
			BAD_IF(!((struct pmuctx_rec_lost *)h)->lost, 0, 0);
			break;
		case PMUCTX_REC_USER: {
			u64 seq;

			BAD_IF(h->size < REC_MIN, h->size, REC_MIN);
			memcpy(&seq, b + 16, 8);
			BAD_IF(seq <= last, seq, last);
			last = seq;
			for (i = 24; deep && i < h->size; i++)
				BAD_IF(b[i] != (u8)(seq * 7 + i), i, seq);
			break;
		}
		default:
			BAD_IF(1, h->type, off);
		}
		pos += h->size;
	}
	t->bounds[t->nr_bounds] = head;
	return true;
}

static void t_fill(u8 *w, u32 size, u64 seq)
{
	u32 i;

	memcpy(w + 16, &seq, 8);
	for (i = 24; i < size; i++)
		w[i] = (u8)(seq * 7 + i);
}

/*
 * Reserve and commit one record of @size bytes and check everything.
 * @must: -1 no expectation, 0 must be dropped, 1 must be written.
 * *@written says which happened.  Without @full, only what costs nothing
 * (the prefill of a case).
 */
static bool t_write_x(struct t_ring *t, u32 size, int must, bool *written,
		      bool full);

static bool t_write(struct t_ring *t, u32 size, int must, bool *written)
{
	return t_write_x(t, size, must, written, true);
}

static bool t_write_x(struct t_ring *t, u32 size, int must, bool *written,
		      bool full)
{
	u64 h0 = t->r.head, tail0 = t_tail(t), lost0 = t->ctl.lost;
	u64 rec0 = t->ctl.records, ov0 = t->ctl.overwritten;
	u64 pend0 = t->r.lost_pending, dh0 = t->ctl.data_head;
	u64 tail, total, evicted = 0, off, pad, need;
	unsigned int i, warn0 = kshim_warnings;
	int fits = -1;
	u8 *w;

	if (full && !t_walk(t, false))
		return false;
	/* normal mode: what fits, computed here from the protocol alone */
	if (t->r.mode == PMUCTX_RING_NORMAL && size > PMUCTX_RB_MAX_RECORD) {
		fits = 0;	/* never, whatever the room */
	} else if (t->r.mode == PMUCTX_RING_NORMAL && !t->frozen &&
		   size <= t->size / 2) {
		fits = 0;
		for (need = size + (pend0 ? LOST_SIZE : 0);; need = size) {
			off = h0 & (t->size - 1);
			pad = off + need > t->size ? t->size - off : 0;
			if (pad + need <= t->size &&
			    h0 + pad + need - tail0 <= t->size) {
				fits = 1;
				break;
			}
			if (need == size)
				break;
		}
	}
	w = pmuctx_rb_reserve(&t->r, PMUCTX_REC_USER, size);
	BAD_IF(kshim_irqs_off, kshim_irqs_off, 0);
	BAD_IF(kshim_warnings != warn0, kshim_warnings, warn0);
	if (written)
		*written = w;
	if (must >= 0)
		BAD_IF(!!w != must, !!w, must);
	if (fits >= 0)
		BAD_IF(!!w != fits, !!w, fits);
	if (!w) {
		BAD_IF(t->r.head != h0, t->r.head, h0);
		BAD_IF(t->ctl.lost != lost0 + 1, t->ctl.lost, lost0);
		BAD_IF(t->r.lost_pending != pend0 + 1, t->r.lost_pending, pend0);
		BAD_IF(t->ctl.records != rec0, t->ctl.records, rec0);
		BAD_IF(t_tail(t) != tail0, t_tail(t), tail0);
		return true;
	}
	BAD_IF(t->ctl.records != rec0 + 1, t->ctl.records, rec0);
	BAD_IF(t->ctl.lost != lost0, t->ctl.lost, lost0);
	BAD_IF(t->ctl.data_head != dh0, t->ctl.data_head, dh0);
	total = t->r.head - h0;
	BAD_IF(((t->r.head - size) & (t->size - 1)) != (u64)(w - t->data),
	       t->r.head - size, w - t->data);
	BAD_IF(total > t->size, total, t->size);
	tail = t_tail(t);
	BAD_IF(t->r.head - tail > t->size, t->r.head - tail, t->size);
	if (pend0 && !t->r.lost_pending)
		t->nonpad++;			/* a LOST record went out */
	t->nonpad++;
	if (full && t->r.mode == PMUCTX_RING_OVERWRITE) {
		/* whole records evicted, and no more than needed */
		for (i = 0; i <= t->nr_bounds && t->bounds[i] != tail; i++)
			evicted += !t->bpad[i];
		BAD_IF(i > t->nr_bounds, tail, tail0);
		BAD_IF(i && h0 + total - t->bounds[i - 1] <= t->size,
		       h0 + total - t->bounds[i - 1], t->size);
		BAD_IF(t->ctl.overwritten != ov0 + evicted,
		       t->ctl.overwritten, ov0 + evicted);
	} else if (t->r.mode == PMUCTX_RING_NORMAL) {
		BAD_IF(tail != tail0, tail, tail0);
	}
	t_fill(w, size, t->seq++);
	pmuctx_rb_commit(&t->r);
	BAD_IF(kshim_warnings != warn0, kshim_warnings, warn0);
	BAD_IF(t->ctl.data_head != t->r.head, t->ctl.data_head, t->r.head);
	BAD_IF(t->r.nest, t->r.nest, 0);
	return !full || t_walk(t, true);
}

/* Normal mode: the reader consumes records until @bytes are free. */
static bool t_consume(struct t_ring *t, u64 bytes)
{
	u64 pos = t->ctl.data_tail, head = t->ctl.data_head;

	if (!t_walk(t, false))
		return false;
	while (pos != head && pos - t->ctl.data_tail < bytes) {
		struct pmuctx_rec_header *h = t_at(t, pos);

		if (h->type == PMUCTX_REC_LOST)
			t->lost_read += ((struct pmuctx_rec_lost *)h)->lost;
		pos += h->size;
	}
	smp_store_release(&t->ctl.data_tail, pos);
	return true;
}

/* What was lost is in the LOST records or still pending; overwrite: counted. */
static bool t_accounts(struct t_ring *t)
{
	unsigned int i, present = 0;

	if (t->r.mode == PMUCTX_RING_NORMAL) {
		if (!t_consume(t, t->size))
			return false;
		BAD_IF(t->lost_read + t->r.lost_pending != t->ctl.lost,
		       t->lost_read + t->r.lost_pending, t->ctl.lost);
		return true;
	}
	if (!t_walk(t, true))
		return false;
	for (i = 0; i < t->nr_bounds; i++)
		present += t_at(t, t->bounds[i])->type != PMUCTX_REC_PAD;
	BAD_IF(t->nonpad != t->ctl.overwritten + present, t->nonpad,
	       t->ctl.overwritten + present);
	return true;
}

/* Drop one record while frozen: a LOST record is pending after it. */
static bool t_lose(struct t_ring *t)
{
	bool ok;

	t->frozen = true;
	ok = t_write(t, 48, 0, NULL);
	t->frozen = false;
	return ok;
}

static const u32 t_fillers[] = { 40, 112, 64, 520, 32, 1000, 48 };

/*
 * One case: a ring of @size bytes in @mode, head at @off, filled (and in
 * normal mode half consumed), a LOST record pending if @lost, then a
 * record of @x bytes, another, and the accounts.
 */
static bool t_case_run(u64 size, u32 mode, u64 off, bool lost, u32 x, int fill)
{
	static struct t_ring t;
	bool ow = mode == PMUCTX_RING_OVERWRITE, ok;
	u64 target = ow ? size + size / 2 : size - size / 4, done = 0;
	unsigned int i = 0;
	int must;

	snprintf(t_case, sizeof(t_case),
		 "size %llu %s offset %llu%s record %u stale 0x%02x",
		 (unsigned long long)size, ow ? "overwrite" : "normal",
		 (unsigned long long)off, lost ? " LOST pending" : "", x,
		 fill);
	t_init(&t, size, mode, off, fill);
	while (done < target) {
		u32 f = t_fillers[i++ % (sizeof(t_fillers) / sizeof(t_fillers[0]))];
		bool wr;

		if (f > size / 2)
			f = 32;
		if (!t_write_x(&t, f, ow ? 1 : -1, &wr, false))
			return false;
		if (!wr)
			break;
		done += f;
	}
	if (!ow && !t_consume(&t, size / 2))
		return false;
	if (lost && !t_lose(&t))
		return false;
	/* overwrite mode takes every record up to half the buffer */
	must = x > size / 2 ? 0 : ow ? 1 : -1;
	ok = t_write(&t, x, must, NULL) && t_write(&t, x, must, NULL) &&
	     t_write(&t, REC_MIN, ow ? 1 : -1, NULL) && t_accounts(&t);
	if (ok && !ow && x <= size / 2)
		/* drained: now it fits */
		ok = t_write(&t, x, 1, NULL) && t_accounts(&t);
	return ok;
}

static void t_report(const char *what, unsigned long cases)
{
	CHECK(!t_bad, "%s: %lu cases, %lu violations", what, cases, t_bad);
	t_bad = 0;
}

/* The five system calls of issue 29 item 1, on one page. */
static void test_issue(void)
{
	static struct t_ring t;
	bool ok;

	alarm(10);
	snprintf(t_case, sizeof(t_case),
		 "one page, overwrite: USER 2016, SNAPSHOT, USER (lost), RESUME, USER 2048");
	t_init(&t, 4096, PMUCTX_RING_OVERWRITE, 0, 0);
	ok = t_write(&t, 2016, 1, NULL) && t_lose(&t) &&
	     t_write(&t, 2048, 1, NULL) && t_accounts(&t);
	CHECK(ok && !t_bad, "%s: the record is written, the LOST one waits", t_case);
	CHECK_EQ(t.r.lost_pending, 1, "the LOST record is still pending");
	t_bad = 0;
	alarm(0);
}

/* Every offset, every size to half the buffer, both modes, LOST or not. */
static void test_edges(void)
{
	static const u64 sizes[] = { 4096, 8192, 16384 };
	unsigned int si, mode, lost;
	unsigned long n = 0;
	u64 off;
	u32 x;

	alarm(600);
	for (si = 0; si < 3; si++) {
		u64 size = sizes[si];

		for (mode = 0; mode < 2; mode++)
			for (lost = 0; lost < 2; lost++)
				for (off = 0; off < size; off += 8) {
					/* every size on one page, a spread on more */
					u32 step = size == 4096 ? 8 : size / 128;

					for (x = REC_MIN; x <= size / 2 + 8; x += step, n++)
						t_case_run(size, mode ? PMUCTX_RING_OVERWRITE :
							   PMUCTX_RING_NORMAL, off, lost, x, 0);
					/* the edge itself, whatever the step */
					for (x = size / 2 - 80; x <= size / 2 + 8; x += 8, n++)
						t_case_run(size, mode ? PMUCTX_RING_OVERWRITE :
							   PMUCTX_RING_NORMAL, off, lost, x, 0);
				}
	}
	t_report("1, 2 and 4 pages, every offset and size to half", n);

	/* the largest USER_STACK record, where half the buffer holds it */
	n = 0;
	for (mode = 0; mode < 2; mode++)
		for (lost = 0; lost < 2; lost++)
			for (off = 0; off < 32U * 4096; off += 64, n++) {
				t_case_run(32U * 4096, mode ? PMUCTX_RING_OVERWRITE :
					   PMUCTX_RING_NORMAL, off, lost,
					   PMUCTX_REC_MAX_SIZE - 64, 0xa5);
				if (off % 512 == 0 && ++n)
					t_case_run(16384, mode ? PMUCTX_RING_OVERWRITE :
						   PMUCTX_RING_NORMAL, off % 16384,
						   lost, PMUCTX_REC_MAX_SIZE - 64, 0xa5);
			}
	t_report("the largest USER_STACK record (65472 bytes), 32 and 4 pages", n);
	alarm(0);
}

/*
 * The largest records, on a 64-page ring (half of it holds any u16-sized
 * record; arm64's USER_STACK record of a PMUCTX_USER_DUMP_MAX dump was
 * 65600 bytes, of 65208 bytes 65528): with a LOST record pending and the
 * head where the PAD in front of the LOST and the record comes to 64 KiB
 * or more, the PAD's u16 size wrapped (0 to 24 bytes: the reader's walk
 * broke, overwrite mode's eviction WARNed).  A record too large to follow
 * a LOST record and a PAD is refused (counted lost), whatever the head;
 * every smaller one is written, and the ring stays well formed.
 */
#define RB_MAX_REC	PMUCTX_RB_MAX_RECORD
static void test_max_record(void)
{
	static struct t_ring t;
	const u64 size = 64U * 4096;
	unsigned long n = 0;
	unsigned int mode;
	u64 off;
	u32 x;

	alarm(300);
	for (mode = 0; mode < 2; mode++)
		for (off = size - 65600; off <= size - 65400; off += 8)
			for (x = 65464; x <= PMUCTX_REC_MAX_SIZE; x += 8, n++) {
				bool ow = mode == 1;

				t_init(&t, size, ow ? PMUCTX_RING_OVERWRITE :
				       PMUCTX_RING_NORMAL, off, 0x5a);
				snprintf(t_case, sizeof(t_case),
					 "size %llu %s offset %llu LOST pending record %u",
					 (unsigned long long)size,
					 ow ? "overwrite" : "normal",
					 (unsigned long long)off, x);
				if (!t_lose(&t) ||
				    !t_write(&t, x, x > RB_MAX_REC ? 0 : 1, NULL) ||
				    !t_write(&t, REC_MIN, 1, NULL) ||
				    !t_write(&t, x, x > RB_MAX_REC ? 0 : ow ? 1 : -1, NULL) ||
				    !t_accounts(&t))
					break;
			}
	t_report("records of 65464 to 65528 bytes after a LOST record, the PAD up to 64 KiB, 64 pages", n);
	alarm(0);
}

/*
 * A writer nested between another's reservation and its commit (an IRQ
 * writer): nothing is published before the outer commit, the outer
 * record is never evicted or overwritten, and both are whole after it.
 */
static bool t_nested_case(u64 size, u32 mode, u64 off, u32 a, u32 b)
{
	static struct t_ring t;
	u64 dh0, pend0, outer;
	bool ow = mode == PMUCTX_RING_OVERWRITE;
	unsigned int i;
	u8 *w, *v;

	snprintf(t_case, sizeof(t_case),
		 "nested: size %llu %s offset %llu outer %u inner %u",
		 (unsigned long long)size, ow ? "overwrite" : "normal",
		 (unsigned long long)off, a, b);
	t_init(&t, size, mode, off, 0);
	for (i = 0; i < 12; i++)
		if (!t_write_x(&t, t_fillers[i % 7], ow ? 1 : -1, NULL, false))
			return false;
	if (!ow && !t_consume(&t, size / 2))
		return false;
	dh0 = t.ctl.data_head;
	pend0 = t.r.lost_pending;
	w = pmuctx_rb_reserve(&t.r, PMUCTX_REC_USER, a);
	BAD_IF(ow && !w, a, 0);
	if (!w)
		return true;
	if (pend0 && !t.r.lost_pending)
		t.nonpad++;
	outer = t.seq++;
	t_fill(w, a, outer);
	t.nonpad++;
	/* the interrupt */
	pend0 = t.r.lost_pending;
	v = pmuctx_rb_reserve(&t.r, PMUCTX_REC_USER, b);
	BAD_IF(kshim_irqs_off, kshim_irqs_off, 0);
	if (v) {
		if (pend0 && !t.r.lost_pending)
			t.nonpad++;
		t.nonpad++;
		BAD_IF(t.r.nest != 2, t.r.nest, 2);
		t_fill(v, b, t.seq++);
		pmuctx_rb_commit(&t.r);
		BAD_IF(t.ctl.data_head != dh0, t.ctl.data_head, dh0);
		BAD_IF(t.r.nest != 1, t.r.nest, 1);
	}
	/* the outer record is intact */
	BAD_IF(((struct pmuctx_rec_header *)w)->type != PMUCTX_REC_USER, 0, 0);
	BAD_IF(((struct pmuctx_rec_header *)w)->size != a,
	       ((struct pmuctx_rec_header *)w)->size, a);
	for (i = 24; i < a; i++)
		BAD_IF(w[i] != (u8)(outer * 7 + i), i, a);
	pmuctx_rb_commit(&t.r);
	BAD_IF(t.ctl.data_head != t.r.head, t.ctl.data_head, t.r.head);
	BAD_IF(t.r.nest, t.r.nest, 0);
	return t_walk(&t, true) && t_accounts(&t);
}

static void test_nested(void)
{
	unsigned int mode;
	unsigned long n = 0;
	u64 off;
	u32 a, b;

	alarm(300);
	for (mode = 0; mode < 2; mode++)
		for (off = 0; off < 4096; off += 8)
			for (a = REC_MIN; a <= 2048; a += a < 256 ? 8 : 248)
				for (b = REC_MIN; b <= 2048; b += b < 128 ? 8 : 312, n++)
					t_nested_case(4096, mode ? PMUCTX_RING_OVERWRITE :
						      PMUCTX_RING_NORMAL, off, a, b);
	t_report("a writer nested in another, one page, every offset", n);
	alarm(0);
}

/* Long random runs: sizes, freezes and reads mixed, stale random bytes. */
static void test_random(void)
{
	static struct t_ring t;
	unsigned long n = 0, run, k;
	unsigned int seed = 29;

	alarm(300);
	for (run = 0; run < 400; run++) {
		u64 size = 4096ULL << (run % 3);
		u32 mode = run & 1 ? PMUCTX_RING_OVERWRITE : PMUCTX_RING_NORMAL;

		t_init(&t, size, mode, (rand_r(&seed) % (size / 8)) * 8,
		       rand_r(&seed) & 0xff);
		for (k = 0; k < 3000; k++, n++) {
			unsigned int op = rand_r(&seed) % 16;
			u32 x;
			bool ok;

			snprintf(t_case, sizeof(t_case),
				 "random run %lu step %lu size %llu %s",
				 run, k, (unsigned long long)size,
				 mode == PMUCTX_RING_OVERWRITE ? "overwrite" : "normal");
			if (op == 0) {
				ok = t_lose(&t);
			} else if (op == 1 && mode == PMUCTX_RING_NORMAL) {
				ok = t_consume(&t, rand_r(&seed) % size);
			} else {
				x = op < 4 ? size / 2 - 8 * (rand_r(&seed) % 12) :
					     REC_MIN + 8 * (rand_r(&seed) % (size / 16));
				ok = t_write(&t, x, mode == PMUCTX_RING_OVERWRITE &&
					     x <= size / 2 ? 1 : -1, NULL);
			}
			if (!ok)
				break;
		}
		t_accounts(&t);
	}
	t_report("random mixes of writes, losses and reads", n);
	alarm(0);
}

static const struct t_group groups[] = {
	{ "issue", test_issue },
	{ "edges", test_edges },
	{ "max-record", test_max_record },
	{ "nested", test_nested },
	{ "random", test_random },
};

int main(int argc, char **argv)
{
	signal(SIGALRM, t_alarm);
	alarm(60);
	return t_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
