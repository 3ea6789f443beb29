// SPDX-License-Identifier: GPL-2.0
/*
 * t_ring: VM tests of the ring buffers (the kernel side, read through
 * libpmuctx and through raw system calls).
 *
 * Prints "ok - ..." / "not ok - ..." lines (the VM suite numbers them),
 * "# ..." diagnostics, and exits non-zero if any check failed.
 *
 *   t_ring [TEST...]		run the named tests (default: all)
 *   t_ring list		list the tests
 *   t_ring work [--busy MS] [--sleep MS] [--loops N] [--pidfile F]
 *				a workload for the CLI tests: N times (0:
 *				forever) burn MS of CPU, then sleep MS
 *   t_ring now		CLOCK_MONOTONIC as SEC.USEC (as perf script)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmuctx.h>

#include "diagnose.h"
#include "tap.h"

static long page;
static unsigned int nr_cpus;

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- CPUs ----------------------------------------------------------- */

static cpu_set_t all_cpus;

static int allowed_cpus(int *cpus, int max)
{
	int i, n = 0;

	for (i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &all_cpus))
			cpus[n++] = i;
	return n;
}

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

static void unpin(void)
{
	sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
}

/* ---- sessions ------------------------------------------------------- */

struct sopts {
	int target;
	pid_t pid;
	__u32 pages;
	__u32 mode;
	__u32 records;
	__u32 wakeup;
	const char *events;
	__u32 trigger_event;
	__u64 threshold;
};

static struct pmuctx *session(const struct sopts *o)
{
	LIBPMUCTX_OPTS(pmuctx_session_opts, so,
		.target = o->target ? o->target : PMUCTX_TARGET_PID,
		.pid = o->pid,
		.events = o->events ? o->events : "task-clock,cs",
		.ring_pages = o->pages,
		.ring_mode = o->mode,
		.ring_records = o->records,
		.wakeup_bytes = o->wakeup,
		.trigger_event = o->trigger_event,
		.trigger_threshold = o->threshold,
	);
	struct pmuctx *h = NULL;
	char msg[2048];
	int err;

	err = pmuctx_open(&h, NULL);
	if (!err)
		err = pmuctx_session_create(h, &so);
	if (!err)
		err = pmuctx_enable(h);
	if (err) {
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		diag("session: %s", msg);
		pmuctx_close(h);
		return NULL;
	}
	return h;
}

static struct pmuctx_ring *map(struct pmuctx *h)
{
	struct pmuctx_ring *r = NULL;
	char msg[2048];
	int err = pmuctx_ring_map(h, &r);

	if (err) {
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		diag("map: %s", msg);
	}
	return r;
}

static void lib_diag(struct pmuctx *h, int err)
{
	char msg[2048];

	pmuctx_errmsg(h, err, msg, sizeof(msg));
	diag("%s", msg);
}

/* raw: a session with @attr on a new fd; the fd or -errno */
static int raw_session(struct pmuctx_session_attr *a)
{
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, PMUCTX_IOC_SESSION_CREATE, a);
	if (ret < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static void raw_attr(struct pmuctx_session_attr *a, __u32 pages, __u32 mode)
{
	memset(a, 0, sizeof(*a));
	a->size = PMUCTX_SESSION_ATTR_SIZE_VER1;
	a->target = PMUCTX_TARGET_PID;
	a->cgroup_fd = -1;
	a->nr_events = 1;
	a->events[0] = PMUCTX_EV_TASK_CLOCK;
	a->ring_pages = pages;
	a->ring_mode = mode;
}

static int get_info(struct pmuctx_info *info)
{
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC), ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, PMUCTX_IOC_INFO, info);
	close(fd);
	return ret < 0 ? -errno : 0;
}

/* ---- USER records ------------------------------------------------------ */

struct payload {
	__u64 seq;
	__u32 tag;
	__u32 pad;
	__u64 fill;
};

#define USER_REC_SIZE	(sizeof(struct pmuctx_rec_user) + \
			 sizeof(struct payload))	/* 64 */

static int put(int fd, __u64 seq, __u32 tag)
{
	struct payload p = { .seq = seq, .tag = tag, .fill = ~seq };
	ssize_t n = write(fd, &p, sizeof(p));

	if (n == (ssize_t)sizeof(p))
		return 0;
	return n < 0 ? -errno : -EIO;
}

static bool payload_of(const struct pmuctx_record *rec, struct payload *p)
{
	const struct pmuctx_rec_user *u = (const void *)rec->hdr;

	if (rec->type != PMUCTX_REC_USER || u->len != sizeof(*p))
		return false;
	memcpy(p, u->data, sizeof(*p));
	return p->fill == ~p->seq;
}

/*
 * Check one CPU's frozen window: only USER records of @tag, contiguous
 * sequence numbers ending at @last, at least half the data area.
 */
static void check_window(struct pmuctx_ring *r, unsigned int cpu, __u32 tag,
			 __u64 last, const char *what)
{
	size_t ds = pmuctx_ring_data_size(r);
	struct pmuctx_record rec;
	struct payload p;
	__u64 first = 0, expect = 0, bytes = 0, n = 0;
	int ret, bad = 0, foreign = 0;

	while ((ret = pmuctx_ring_next_cpu(r, cpu, &rec)) > 0) {
		if (!payload_of(&rec, &p) || p.tag != tag) {
			foreign++;
			continue;
		}
		if (!n)
			first = expect = p.seq;
		if (p.seq != expect)
			bad++;
		expect = p.seq + 1;
		bytes += rec.size;
		n++;
	}
	result(ret == 0, "%s: CPU %u: every record from data_tail to "
	       "data_head is complete", what, cpu);
	if (ret < 0)
		lib_diag(NULL, ret);
	result(!bad && !foreign && n && expect - 1 == last,
	       "%s: CPU %u: seq %llu..%llu, contiguous, ending at the last "
	       "written (%llu)", what, cpu, (unsigned long long)first,
	       (unsigned long long)(expect - 1), (unsigned long long)last);
	if (bad || foreign)
		diag("%d gaps, %d foreign records", bad, foreign);
	result(bytes * 2 >= ds, "%s: CPU %u: %llu bytes kept of %zu (at least "
	       "half)", what, cpu, (unsigned long long)bytes, ds);
}

/*
 * Variable-size USER records: 16 + 8 * (seq % 40) bytes of payload (seq,
 * then a byte pattern), so records of 56..368 bytes meet the end of the
 * data area at every offset: PAD records, wrap, eviction across PADs.
 */
static size_t var_len(__u64 seq)
{
	return 16 + 8 * (size_t)(seq % 40);
}

static int put_var(int fd, __u64 seq)
{
	unsigned char b[16 + 8 * 40];
	size_t len = var_len(seq), i;
	ssize_t n;

	memcpy(b, &seq, sizeof(seq));
	for (i = 8; i < len; i++)
		b[i] = (unsigned char)(seq * 31 + i);
	n = write(fd, b, len);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/* the seq of a variable record, or ~0 if it is not one or is damaged */
static __u64 var_seq(const struct pmuctx_record *rec)
{
	const struct pmuctx_rec_user *u = (const void *)rec->hdr;
	__u64 seq;
	size_t i;

	if (rec->type != PMUCTX_REC_USER || u->len < 16)
		return ~0ULL;
	memcpy(&seq, u->data, sizeof(seq));
	if (u->len != var_len(seq))
		return ~0ULL;
	for (i = 8; i < u->len; i++)
		if (u->data[i] != (unsigned char)(seq * 31 + i))
			return ~0ULL;
	return seq;
}

/* ---- overwrite mode ------------------------------------------------- */

#define OW_PAGES	4

static void test_overwrite_one(void)
{
	struct sopts o = { .pages = OW_PAGES, .mode = PMUCTX_RING_OVERWRITE };
	struct pmuctx_ring_cpu_stats st;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	int cpus[CPU_SETSIZE], fd, err = 0;
	size_t ds;
	__u64 n, i, kept;
	unsigned int c;

	allowed_cpus(cpus, CPU_SETSIZE);
	pin(cpus[0]);
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "overwrite, one CPU: session and map");
	if (!r)
		goto out;
	fd = pmuctx_fd(h);
	ds = pmuctx_ring_data_size(r);
	result(ds == OW_PAGES * (size_t)page, "data_size is ring_pages * "
	       "page size (%zu)", ds);
	n = 50 * ds / USER_REC_SIZE;
	for (i = 0; i < n && !err; i++)
		err = put(fd, i, (__u32)cpus[0]);
	result(!err, "overwrite, one CPU: %llu USER records (50 x the buffer) "
	       "written, none refused", (unsigned long long)n);
	if (err)
		diag("write: %s", strerror(-err));
	/* sampling issue item 3: the library reads overwrite buffers frozen */
	result(pmuctx_ring_begin(r) == -EBUSY,
	       "overwrite, one CPU: reading the live buffer is refused (EBUSY)");
	err = pmuctx_ring_snapshot(r);
	result(!err, "snapshot");
	if (err) {
		lib_diag(h, err);
		goto out;
	}
	check_window(r, (unsigned int)cpus[0], (__u32)cpus[0], n - 1,
		     "overwrite, one CPU");
	pmuctx_ring_stats(r, (unsigned int)cpus[0], &st);
	kept = (st.data_head - st.data_tail) / USER_REC_SIZE;
	result(st.records == n && st.lost == 0,
	       "ctl: records %llu (want %llu), lost %llu (want 0)",
	       (unsigned long long)st.records, (unsigned long long)n,
	       (unsigned long long)st.lost);
	result(st.overwritten + kept >= n - 1 && st.overwritten + kept <= n,
	       "ctl: overwritten %llu + kept %llu = written %llu",
	       (unsigned long long)st.overwritten,
	       (unsigned long long)kept, (unsigned long long)n);
	result(st.flags & PMUCTX_RING_F_FROZEN, "ctl: FROZEN after SNAPSHOT");
	for (c = 0; c < pmuctx_ring_nr_cpus(r); c++) {
		struct pmuctx_record rec;
		int k = 0;

		if (c == (unsigned int)cpus[0])
			continue;
		while (pmuctx_ring_next_cpu(r, c, &rec) > 0)
			k++;
		if (k) {
			result(0, "CPU %u (not written to) has %d records", c,
			       k);
		}
	}
	err = pmuctx_ring_resume(r);
	result(!err, "resume");
	pmuctx_ring_stats(r, (unsigned int)cpus[0], &st);
	result(!(st.flags & PMUCTX_RING_F_FROZEN), "ctl: not FROZEN after "
	       "RESUME");
	result(pmuctx_ring_begin(r) == -EBUSY,
	       "overwrite, one CPU: live again after RESUME: refused (EBUSY)");
out:
	pmuctx_close(h);
	unpin();
}

static void test_overwrite_var(void)
{
	struct sopts o = { .pages = 2, .mode = PMUCTX_RING_OVERWRITE };
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	int cpus[CPU_SETSIZE], fd, err = 0, ret, bad = 0, round;
	__u64 i, n = 0, seq, expect = 0, bytes, got;
	unsigned int c;

	allowed_cpus(cpus, CPU_SETSIZE);
	c = (unsigned int)cpus[0];
	pin(cpus[0]);
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "variable sizes, overwrite: session and map");
	if (!r)
		goto out;
	fd = pmuctx_fd(h);
	/* snapshots at many points of the wrap cycle */
	for (round = 0; round < 40 && !err; round++) {
		__u64 more = 50 + (__u64)round * 37;

		for (i = 0; i < more && !err; i++)
			err = put_var(fd, n++);
		if (pmuctx_ring_snapshot(r)) {
			bad++;
			break;
		}
		bytes = got = 0;
		while ((ret = pmuctx_ring_next_cpu(r, c, &rec)) > 0) {
			seq = var_seq(&rec);
			if (!got)
				expect = seq;
			if (seq != expect)
				bad++;
			expect = seq + 1;
			bytes += rec.size;
			got++;
		}
		if (ret < 0 || expect != n || bytes * 2 < pmuctx_ring_data_size(r))
			bad++;
		pmuctx_ring_resume(r);
	}
	result(!err, "variable sizes, overwrite: %llu records of 56..368 "
	       "bytes written", (unsigned long long)n);
	result(!bad, "variable sizes, overwrite: 40 snapshots across PADs and "
	       "wraps: complete records, intact, contiguous, ending at the "
	       "last, at least half the buffer (%d bad)", bad);
out:
	pmuctx_close(h);
	unpin();
}

struct vwriter {
	int fd;
	int cpu;
	__u64 n;
	__u64 ok;
	volatile int done;
};

static void *vwriter_fn(void *arg)
{
	struct vwriter *w = arg;
	__u64 i;

	pin(w->cpu);
	for (i = 0; i < w->n; i++)
		if (!put_var(w->fd, i))
			w->ok++;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_normal_concurrent(void)
{
	struct sopts o = { .pages = 4, .mode = PMUCTX_RING_NORMAL,
			   .wakeup = 4096 };
	struct pmuctx_ring_cpu_stats st;
	struct pmuctx_record rec;
	struct vwriter w;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	pthread_t th;
	int cpus[CPU_SETSIZE], nc, ret, errs = 0;
	__u64 got = 0, next = 0, gaps = 0, lostrecs = 0, seq;
	bool order = true;

	nc = allowed_cpus(cpus, CPU_SETSIZE);
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "variable sizes, normal mode, concurrent reader: "
	       "session and map");
	if (!r)
		goto out;
	if (nc > 1)
		pin(cpus[1]);
	w = (struct vwriter){ .fd = pmuctx_fd(h), .cpu = cpus[0],
			      .n = 100000 };
	pthread_create(&th, NULL, vwriter_fn, &w);
	for (;;) {
		int done = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);

		pmuctx_ring_poll(h, 10);
		pmuctx_ring_begin(r);
		while ((ret = pmuctx_ring_next(r, &rec)) != 0) {
			if (ret < 0) {
				errs++;
				pmuctx_ring_skip(r, -1);
				continue;
			}
			if (rec.type == PMUCTX_REC_LOST) {
				lostrecs += ((const struct pmuctx_rec_lost *)
					     rec.hdr)->lost;
				continue;
			}
			seq = var_seq(&rec);
			if (seq == ~0ULL || seq < next) {
				order = false;
				continue;
			}
			gaps += seq - next;
			next = seq + 1;
			got++;
		}
		pmuctx_ring_consume(r);
		if (done)
			break;	/* read once more after the writer ended */
	}
	pthread_join(th, NULL);
	pmuctx_ring_stats(r, (unsigned int)cpus[0], &st);
	gaps += w.n - next;	/* dropped at the very end */
	result(!errs && order, "concurrent reader: every record complete and "
	       "intact, in order (%d errors)", errs);
	result(got == w.ok && got + st.lost == w.n && gaps == st.lost,
	       "concurrent reader: read %llu = accepted %llu; read + lost "
	       "(%llu) = written %llu; gaps = lost",
	       (unsigned long long)got, (unsigned long long)w.ok,
	       (unsigned long long)st.lost, (unsigned long long)w.n);
	result(lostrecs <= st.lost, "LOST records account for %llu of %llu "
	       "lost (the rest after the last write)",
	       (unsigned long long)lostrecs, (unsigned long long)st.lost);
out:
	pmuctx_close(h);
	unpin();
}

struct writer {
	pthread_t th;
	int cpu;
	int fd;
	__u64 n;
	__u64 last;
	int err;
	pthread_barrier_t *bar;
};

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	__u64 i;

	if (pin(w->cpu)) {
		w->err = -errno;
		pthread_barrier_wait(w->bar);
		return NULL;
	}
	pthread_barrier_wait(w->bar);
	for (i = 0; i < w->n; i++) {
		int e = put(w->fd, i, (__u32)w->cpu);

		if (e && !w->err)
			w->err = e;
		if (!e)
			w->last = i;
	}
	return NULL;
}

static void test_overwrite_all(void)
{
	struct sopts o = { .pages = OW_PAGES, .mode = PMUCTX_RING_OVERWRITE };
	static struct writer w[CPU_SETSIZE];
	int cpus[CPU_SETSIZE], nc, i, errs = 0;
	pthread_barrier_t bar;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	size_t ds;
	int err;

	nc = allowed_cpus(cpus, 64);
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "overwrite, all CPUs: session and map");
	if (!r)
		goto out;
	ds = pmuctx_ring_data_size(r);
	pthread_barrier_init(&bar, NULL, (unsigned int)nc);
	for (i = 0; i < nc; i++) {
		w[i] = (struct writer){
			.cpu = cpus[i], .fd = pmuctx_fd(h),
			.n = 50 * ds / USER_REC_SIZE, .bar = &bar,
		};
		pthread_create(&w[i].th, NULL, writer_fn, &w[i]);
	}
	for (i = 0; i < nc; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].err) {
			errs++;
			diag("writer on CPU %d: %s", w[i].cpu,
			     strerror(-w[i].err));
		}
	}
	pthread_barrier_destroy(&bar);
	result(!errs, "overwrite, all CPUs: %d pinned threads wrote 50 x the "
	       "buffer each, concurrently, none refused", nc);
	err = pmuctx_ring_snapshot(r);
	result(!err, "snapshot");
	if (err)
		goto out;
	for (i = 0; i < nc; i++)
		check_window(r, (unsigned int)cpus[i], (__u32)cpus[i],
			     w[i].last, "overwrite, all CPUs");
	pmuctx_ring_resume(r);
out:
	pmuctx_close(h);
}

/* ---- normal mode -------------------------------------------------------- */

static void test_normal_stalled(void)
{
	struct sopts o = { .pages = 2, .mode = PMUCTX_RING_NORMAL,
			   .wakeup = 1024 };
	struct pmuctx_ring_cpu_stats st;
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	struct pollfd pfd;
	struct payload p;
	int cpus[CPU_SETSIZE], fd, e, ret;
	__u64 i, w, ok = 0, nospc = 0, other = 0, rd = 0;
	bool prefix = true, poll_low = false, poll_high = false;
	unsigned int c;
	size_t ds;

	allowed_cpus(cpus, CPU_SETSIZE);
	c = (unsigned int)cpus[0];
	pin(cpus[0]);
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "normal mode: session and map");
	if (!r)
		goto out;
	fd = pmuctx_fd(h);
	ds = pmuctx_ring_data_size(r);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };

	/* a reader that never reads: 3 x the buffer */
	w = 3 * ds / USER_REC_SIZE;
	for (i = 0; i < w; i++) {
		e = put(fd, i, c);
		if (!e) {
			if (ok++ != i)
				prefix = false;	/* accepted after a refusal */
		} else if (e == -ENOSPC) {
			nospc++;
		} else {
			other++;
		}
		/* wakeup_bytes = 1024: 16 records of 64 bytes */
		if (i == 1024 / USER_REC_SIZE - 2)
			poll_low = poll(&pfd, 1, 0) == 0;
		if (i == 1024 / USER_REC_SIZE - 1)
			poll_high = poll(&pfd, 1, 0) == 1 &&
				    (pfd.revents & POLLIN);
	}
	result(poll_low, "poll: no POLLIN below wakeup_bytes (960 of 1024)");
	result(poll_high, "poll: POLLIN at wakeup_bytes");
	result(!other && nospc && prefix, "stalled reader: once full, every "
	       "write fails with ENOSPC (%llu ok, %llu ENOSPC, %llu other)",
	       (unsigned long long)ok, (unsigned long long)nospc,
	       (unsigned long long)other);
	pmuctx_ring_stats(r, c, &st);
	result(st.lost == nospc && st.records == ok,
	       "ctl: lost %llu = ENOSPC count %llu, records %llu = accepted "
	       "%llu", (unsigned long long)st.lost,
	       (unsigned long long)nospc, (unsigned long long)st.records,
	       (unsigned long long)ok);
	pmuctx_ring_begin(r);
	while ((ret = pmuctx_ring_next_cpu(r, c, &rec)) > 0) {
		if (payload_of(&rec, &p) && p.seq == rd)
			rd++;
		else
			prefix = false;
	}
	result(ret == 0 && prefix && rd == ok, "reader: %llu records, the "
	       "first ones written, in order", (unsigned long long)rd);
	result(st.lost == w - rd, "lost (%llu) = written (%llu) - read (%llu) "
	       "exactly", (unsigned long long)st.lost, (unsigned long long)w,
	       (unsigned long long)rd);
	ret = pmuctx_ring_consume(r);
	result(!ret, "consume");
	/* space returns: the next record brings a LOST record first */
	e = put(fd, w, c);
	result(!e, "a write succeeds once space returned");
	pmuctx_ring_begin(r);
	ret = pmuctx_ring_next_cpu(r, c, &rec);
	result(ret == 1 && rec.type == PMUCTX_REC_LOST &&
	       ((const struct pmuctx_rec_lost *)rec.hdr)->lost == nospc,
	       "a LOST record of %llu comes first", (unsigned long long)nospc);
	if (ret == 1 && rec.type == PMUCTX_REC_LOST)
		diag("LOST record: lost %llu, cpu %u",
		     (unsigned long long)((const struct pmuctx_rec_lost *)
					  rec.hdr)->lost, rec.cpu);
	else
		diag("first record: ret %d type %u", ret, rec.type);
	ret = pmuctx_ring_next_cpu(r, c, &rec);
	result(ret == 1 && payload_of(&rec, &p) && p.seq == w,
	       "then the new record");
	pmuctx_ring_consume(r);
	pmuctx_ring_begin(r);
	result(pmuctx_ring_next_cpu(r, c, &rec) == 0, "empty after consume");
	result(poll(&pfd, 1, 0) == 0, "poll: no POLLIN when empty");
out:
	pmuctx_close(h);
	unpin();
}

/* ---- freeze ------------------------------------------------------------ */

static void test_freeze(void)
{
	struct sopts o = { .pages = OW_PAGES, .mode = PMUCTX_RING_OVERWRITE };
	struct pmuctx_ring_cpu_stats st0, st1;
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	struct pollfd pfd;
	struct payload p;
	int cpus[CPU_SETSIZE], fd, e, refused = 0, ret;
	unsigned int c, k;
	__u64 i, expect = 0, lostrec = 0;

	allowed_cpus(cpus, CPU_SETSIZE);
	c = (unsigned int)cpus[0];
	pin(cpus[0]);
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "freeze: session and map");
	if (!r)
		goto out;
	fd = pmuctx_fd(h);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (i = 0; i < 10; i++)
		put(fd, i, c);
	result(poll(&pfd, 1, 0) == 0, "overwrite mode: no POLLIN while not "
	       "frozen");
	ret = pmuctx_ring_snapshot(r);
	result(!ret, "SNAPSHOT");
	result(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN),
	       "POLLIN while frozen");
	result((pmuctx_ring_flags(r) & PMUCTX_RING_F_FROZEN) &&
	       !(pmuctx_ring_flags(r) & PMUCTX_RING_F_TRIGGERED),
	       "flags: FROZEN, not TRIGGERED");
	pmuctx_ring_stats(r, c, &st0);
	for (i = 10; i < 15; i++) {
		e = put(fd, i, c);
		if (e)
			refused++;
		if (e && e != -ENOSPC)
			diag("write while frozen: %s", strerror(-e));
	}
	pmuctx_ring_stats(r, c, &st1);
	result(st1.lost == st0.lost + 5 && st1.records == st0.records &&
	       st1.data_head == st0.data_head,
	       "5 records written while frozen: lost +%llu, records +%llu, "
	       "head +%llu (want +5, +0, +0)",
	       (unsigned long long)(st1.lost - st0.lost),
	       (unsigned long long)(st1.records - st0.records),
	       (unsigned long long)(st1.data_head - st0.data_head));
	diag("writes while frozen: %d of 5 returned an error (the ABI "
	     "documents ENOSPC for normal mode only)", refused);
	while ((ret = pmuctx_ring_next_cpu(r, c, &rec)) > 0)
		if (payload_of(&rec, &p) && p.seq == expect)
			expect++;
	result(ret == 0 && expect == 10, "the frozen window: seq 0..9, not "
	       "the ones written while frozen (%llu)",
	       (unsigned long long)expect);
	ret = pmuctx_ring_resume(r);
	result(!ret, "RESUME");
	result(poll(&pfd, 1, 0) == 0, "no POLLIN after RESUME");
	for (k = 0; k < pmuctx_ring_nr_cpus(r); k++) {
		struct pmuctx_ring_cpu_stats s;

		pmuctx_ring_stats(r, k, &s);
		if (s.flags)
			result(0, "CPU %u flags 0x%x after RESUME", k, s.flags);
	}
	e = put(fd, 15, c);
	result(!e, "write after RESUME");
	ret = pmuctx_ring_snapshot(r);
	expect = 0;
	while ((ret = pmuctx_ring_next_cpu(r, c, &rec)) > 0) {
		if (rec.type == PMUCTX_REC_LOST)
			lostrec = ((const struct pmuctx_rec_lost *)
				   rec.hdr)->lost;
		else if (payload_of(&rec, &p))
			expect = p.seq;
	}
	result(lostrec == 5 && expect == 15, "after RESUME: a LOST record of "
	       "5 (%llu), then seq 15", (unsigned long long)lostrec);
	pmuctx_ring_resume(r);
out:
	pmuctx_close(h);
	unpin();
}

/* ---- trigger ------------------------------------------------------------ */

/* child: wait for "go", then @loops x (busy @busy ms, sleep @sleep ms) */
/*
 * Issue 29 item 1: a record of about half the buffer right after a loss
 * (a LOST record pending), with the head where a PAD must go first.  The
 * writer asked for more than the whole buffer and, in overwrite mode,
 * looped for ever with IRQs off: five system calls on a one-page ring
 * (write 1976 bytes, SNAPSHOT, write, RESUME, write 2008 bytes) hung the
 * machine.  Now each write returns, the record is there, whole, and the
 * LOST record follows with the next write.  Every first write size that
 * puts the head in the last half of the page, both modes.
 */
static void test_half_lost(void)
{
	static char buf[4096];
	unsigned int mode, bad = 0, runs = 0, first;
	int cpus[CPU_SETSIZE];

	allowed_cpus(cpus, CPU_SETSIZE);
	pin(cpus[0]);
	for (mode = 0; mode < 2; mode++) {
		for (first = 1976; first <= 2008 && !bad; first += 8, runs++) {
			struct sopts o = {
				.pages = 1,
				.mode = mode ? PMUCTX_RING_OVERWRITE :
					       PMUCTX_RING_NORMAL,
			};
			struct pmuctx_ring_cpu_stats st;
			struct pmuctx_record rec;
			struct pmuctx_ring *r;
			struct pmuctx *h;
			__u64 lost = 0, big = 0;
			ssize_t n;
			int fd, ret;

			h = session(&o);
			r = h ? map(h) : NULL;
			if (!r) {
				bad++;
				pmuctx_close(h);
				break;
			}
			fd = pmuctx_fd(h);
			memset(buf, 0x5a, sizeof(buf));
			n = write(fd, buf, first);
			ret = mode ? pmuctx_ring_snapshot(r) :
				     ioctl(fd, PMUCTX_IOC_SNAPSHOT, 0);
			if (n != (ssize_t)first || ret)
				bad++;
			/* dropped while frozen: a LOST record is pending */
			if (write(fd, buf, 8) == 8)
				bad++;
			ret = mode ? pmuctx_ring_resume(r) :
				     ioctl(fd, PMUCTX_IOC_RESUME, 0);
			/* normal mode: let the reader free the first record */
			if (!mode) {
				pmuctx_ring_begin(r);
				while (pmuctx_ring_next_cpu(r, cpus[0], &rec) > 0)
					;
				pmuctx_ring_consume(r);
			}
			n = write(fd, buf, 2008);
			if (ret || n != 2008) {
				diag("%s, first write %u: RESUME %d, write of 2008 bytes returned %zd (%s)",
				     mode ? "overwrite" : "normal", first, ret, n,
				     n < 0 ? strerror(errno) : "short");
				bad++;
			}
			/* the next record carries the LOST one */
			if (write(fd, buf, 16) != 16)
				bad++;
			if (mode)
				pmuctx_ring_snapshot(r);
			else
				pmuctx_ring_begin(r);
			while ((ret = pmuctx_ring_next_cpu(r, cpus[0], &rec)) > 0) {
				if (rec.type == PMUCTX_REC_LOST)
					lost += ((const struct pmuctx_rec_lost *)rec.hdr)->lost;
				if (rec.type == PMUCTX_REC_USER &&
				    ((const struct pmuctx_rec_user *)rec.hdr)->len == 2008)
					big++;
			}
			pmuctx_ring_stats(r, cpus[0], &st);
			if (ret < 0 || big != 1 || lost != 1 || st.lost != 1) {
				diag("%s, first write %u: %llu records of 2008 bytes (want 1), LOST records say %llu, lost %llu (want 1, 1)",
				     mode ? "overwrite" : "normal", first,
				     (unsigned long long)big,
				     (unsigned long long)lost,
				     (unsigned long long)st.lost);
				bad++;
			}
			pmuctx_close(h);
		}
	}
	unpin();
	result(!bad && runs == 10,
	       "half the buffer after a loss: every write returns, the record and then the LOST one are there (%u runs, %u bad)",
	       runs, bad);
}

static pid_t spawn_worker(int *go, unsigned int busy, unsigned int sleep,
			  unsigned int loops, int done_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char ch;
		unsigned int i;

		close(p[1]);
		if (read(p[0], &ch, 1) != 1)
			_exit(1);
		for (i = 0; i < loops; i++) {
			if (busy)
				burn_ms(busy);
			else
				getppid();
			/* no nanosleep(0): it schedules out (trigger-exit) */
			if (sleep)
				sleep_ms(sleep);
		}
		if (done_fd >= 0) {
			if (write(done_fd, "d", 1) != 1)
				_exit(1);
			pause();
		}
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void test_trigger(void)
{
	struct sopts o = { .pages = 16, .mode = PMUCTX_RING_OVERWRITE,
			   .records = PMUCTX_REC_MASK_SWITCH,
			   .events = "task-clock", .trigger_event = 1,
			   .threshold = 5000000 };
	struct pmuctx_record rec;
	struct pmuctx_ring *r = NULL;
	struct pmuctx *h = NULL;
	struct pollfd pfd[2];
	uint64_t t0;
	int go, ret, flags, done[2] = { -1, -1 }, attempt, nsw = 0;
	__u64 maxd = 0;
	pid_t pid;

	/* a task that runs 20 ms between switches */
	pid = spawn_worker(&go, 20, 10, 30, -1);
	o.pid = pid;
	h = session(&o);
	r = h ? map(h) : NULL;
	result(r != NULL, "trigger: session on a busy task, map");
	if (!r)
		goto out1;
	pfd[0] = (struct pollfd){ .fd = pmuctx_fd(h), .events = POLLIN };
	t0 = ns_of(CLOCK_MONOTONIC);
	if (write(go, "g", 1) != 1)
		diag("go: %s", strerror(errno));
	ret = poll(pfd, 1, 20000);
	result(ret == 1 && (pfd[0].revents & POLLIN), "trigger: POLLIN on the "
	       "session fd after %.1f ms (task-clock > 5 ms in one slice)",
	       (ns_of(CLOCK_MONOTONIC) - t0) / 1e6);
	ret = pmuctx_ring_snapshot(r);
	flags = pmuctx_ring_flags(r);
	result(!ret && (flags & PMUCTX_RING_F_FROZEN) &&
	       (flags & PMUCTX_RING_F_TRIGGERED),
	       "trigger: after SNAPSHOT the flags say FROZEN | TRIGGERED "
	       "(0x%x)", flags);
	while (pmuctx_ring_next(r, &rec) > 0) {
		const struct pmuctx_rec_switch *s = (const void *)rec.hdr;

		if (rec.type == PMUCTX_REC_SWITCH && s->c.pid == pid &&
		    s->nr >= 1 && s->delta[0] > maxd)
			maxd = s->delta[0];
	}
	result(maxd > 5000000, "trigger: the window holds the switch record "
	       "of the slice that fired (task-clock %.3f ms)", maxd / 1e6);
	pmuctx_ring_resume(r);
out1:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go);
	pmuctx_close(h);
	h = NULL;

	/*
	 * A task that sleeps 1 ms in a loop never fires it.  Under TCG on a
	 * loaded host a vCPU can stall inside a short slice, and task-clock
	 * (wall time on the CPU) then really is over 5 ms: the kernel is
	 * right to fire.  So: the trigger must fire exactly when a slice
	 * went over the threshold, and up to 8 attempts look for a run
	 * without such a slice, which must end without POLLIN.
	 */
	for (attempt = 1; attempt <= 8; attempt++) {
		bool fired, over, pollin;

		if (pipe(done))
			return;
		pid = spawn_worker(&go, 0, 1, 300, done[1]);
		o.pid = pid;
		h = session(&o);
		r = h ? map(h) : NULL;
		if (!r) {
			result(0, "no trigger: session on a sleeping task, "
			       "map");
			goto out2;
		}
		pfd[0] = (struct pollfd){ .fd = pmuctx_fd(h),
					  .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = done[0], .events = POLLIN };
		if (write(go, "g", 1) != 1)
			diag("go: %s", strerror(errno));
		/* until the worker is done (or the trigger fires) */
		ret = poll(pfd, 2, 60000);
		pollin = ret > 0 && (pfd[0].revents & POLLIN);
		/*
		 * A slice can still end over the threshold between the poll
		 * and SNAPSHOT (the worker writes "done" and only then sleeps):
		 * whether the trigger fired is what SNAPSHOT finds, after the
		 * writers in flight (the record and the trigger of a slice
		 * come together).
		 */
		pmuctx_ring_snapshot(r);
		flags = pmuctx_ring_flags(r);
		fired = flags & PMUCTX_RING_F_TRIGGERED;
		maxd = 0;
		nsw = 0;
		while (pmuctx_ring_next(r, &rec) > 0) {
			const struct pmuctx_rec_switch *s = (const void *)
							    rec.hdr;

			if (rec.type == PMUCTX_REC_SWITCH && s->c.pid == pid) {
				nsw++;
				if (s->nr >= 1 && s->delta[0] > maxd)
					maxd = s->delta[0];
			}
		}
		over = maxd > 5000000;
		result(fired == over && (!pollin || fired),
		       "1 ms sleeps, attempt %d: trigger %s (POLLIN "
		       "%d, flags 0x%x), longest slice %.3f ms of %d",
		       attempt, fired ? "fired" : "did not fire", pollin,
		       flags, maxd / 1e6, nsw);
		pmuctx_ring_resume(r);
out2:
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(go);
		close(done[0]);
		close(done[1]);
		pmuctx_close(h);
		h = NULL;
		if (!over)
			break;
		diag("a slice of %.3f ms in a sleeping loop: the host stalled "
		     "the vCPU; again", maxd / 1e6);
	}
	/*
	 * Every attempt checked that the trigger fired exactly when a slice
	 * went over 5 ms; a sleeping task that never did is what is left,
	 * and a host that stalls the vCPU in every attempt cannot show it:
	 * that is a check that could not run, not a failure (issue 32).
	 */
	if (attempt > 8)
		skip("the host stalled the vCPU over 5 ms in each of 8 attempts",
		     "no trigger: a task sleeping 1 ms in a loop does not fire it");
	else
		result(nsw > 100, "no trigger: a task sleeping 1 ms in a loop "
		       "(%d switches, none over 5 ms) does not fire it", nsw);
}

/*
 * The final slice (issue 29 item 8): a task that runs over the threshold
 * without yielding and then exits must fire the trigger, although that
 * slice ends past sched_process_exit and gets no SWITCH record (DESIGN.md:
 * a reaped thread has no pid to name).  A watchdog for "ran > X ms without
 * yielding" otherwise misses every task that does so up to its exit.  The
 * worker runs SCHED_FIFO, so that no other task splits its burn into
 * shorter slices; a burn split all the same (a SWITCH record of the
 * worker over the threshold fires the trigger by itself) proves nothing
 * and is tried again.
 */
static void test_trigger_exit(void)
{
	struct sopts o = { .pages = 16, .mode = PMUCTX_RING_OVERWRITE,
			   .records = PMUCTX_REC_MASK_SWITCH |
				      PMUCTX_REC_MASK_EXIT,
			   .events = "task-clock", .trigger_event = 1,
			   .threshold = 20000000 };
	struct sched_param sp = { .sched_priority = 1 };
	int attempt, go, flags = 0, late = 0, nsw = 0;
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	struct pollfd pfd;
	uint64_t exit_time;
	bool fired = false, pollin = false, judged = false;
	__u64 maxd = 0, sumd, total, last = 0;
	pid_t pid;

	for (attempt = 1; attempt <= 3 && !judged; attempt++) {
		/* go, burn 60 ms, exit */
		pid = spawn_worker(&go, 60, 0, 1, -1);
		if (sched_setscheduler(pid, SCHED_FIFO, &sp))
			diag("trigger-exit: SCHED_FIFO: %s", strerror(errno));
		o.pid = pid;
		h = session(&o);
		r = h ? map(h) : NULL;
		if (!r) {
			result(0, "trigger-exit: session on the worker, map");
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(go);
			pmuctx_close(h);
			return;
		}
		if (write(go, "g", 1) != 1)
			diag("go: %s", strerror(errno));
		waitpid(pid, NULL, 0);
		close(go);
		/*
		 * The parent can reap the task before its final switch-out
		 * (exit_notify() wakes it first): wait for the trigger's
		 * POLLIN, up to 3 s, before SNAPSHOT.
		 */
		pfd = (struct pollfd){ .fd = pmuctx_fd(h), .events = POLLIN };
		pollin = poll(&pfd, 1, 3000) == 1 && (pfd.revents & POLLIN);
		pmuctx_ring_snapshot(r);
		flags = pmuctx_ring_flags(r);
		fired = flags & PMUCTX_RING_F_TRIGGERED;
		maxd = 0;
		sumd = 0;
		total = 0;
		nsw = 0;
		late = 0;
		exit_time = 0;
		while (pmuctx_ring_next(r, &rec) > 0) {
			const struct pmuctx_rec_switch *sw = (const void *)rec.hdr;
			const struct pmuctx_rec_exit *ex = (const void *)rec.hdr;

			if (rec.type == PMUCTX_REC_EXIT && ex->c.pid == pid) {
				exit_time = ex->c.time;
				total = ex->nr >= 1 ? ex->values[0] : 0;
			}
			if (rec.type != PMUCTX_REC_SWITCH || sw->c.pid != pid)
				continue;
			nsw++;
			if (exit_time)
				late++;
			if (sw->nr >= 1) {
				sumd += sw->delta[0];
				if (sw->delta[0] > maxd)
					maxd = sw->delta[0];
			}
		}
		pmuctx_close(h);
		/*
		 * The slice that ends at the exit: the total the EXIT record
		 * gives (folded at the exit probe) less the slices that ended
		 * in a SWITCH record, plus the exit's short tail.
		 */
		last = exit_time && total > sumd ? total - sumd : 0;
		diag("trigger-exit: attempt %d: POLLIN %d, flags 0x%x, %d SWITCH records of the worker, longest %.3f ms, EXIT record %s, the last slice %.3f ms up to the exit",
		     attempt, pollin, flags, nsw, maxd / 1e6,
		     exit_time ? "seen" : "missing", last / 1e6);
		/*
		 * Judged only when no earlier slice went over the threshold
		 * (that fires the trigger by itself) and the last one did:
		 * on PREEMPT_RT irq threads preempt the SCHED_FIFO burn.
		 */
		judged = maxd <= o.threshold && last > o.threshold;
		if (!judged)
			diag("trigger-exit: the burn was split (no slice up to the exit over 20 ms alone); again");
	}
	if (!judged)
		skip("the burn was split before its exit in 3 attempts",
		     "trigger-exit: a task that burns 60 ms without yielding and exits fires a 20 ms trigger");
	else
		result(fired && pollin,
		       "trigger-exit: a task that burns 60 ms without yielding and exits fires a 20 ms trigger (POLLIN %d, flags 0x%x, last slice %.3f ms, longest with a SWITCH record %.3f ms)",
		       pollin, flags, last / 1e6, maxd / 1e6);
	result(!late, "trigger-exit: no SWITCH record after the task's EXIT record (%d)",
	       late);
}

/*
 * A slice is switch-in to switch-out, whatever folds it meanwhile
 * (sampling issue item 5): READ folds the running slices of every CPU
 * into the totals by IPI.  A worker pinned to one CPU burns 40 ms slices
 * while the parent, on another CPU, READs every 0.5 ms; a 10 ms trigger
 * must fire, and the SWITCH record must hold the whole slice.  Before,
 * each fold restarted the slice: the records showed the part after the
 * last READ (under a millisecond) and the trigger never fired.
 *
 * Two things split a slice: the defect (the records then miss what the
 * READs folded: their sum falls short of the task's total by far more
 * than one slice) and another task on the worker's CPU (the debug
 * kernel's kthreads, RT irq threads: the records still add up to the
 * total).  The first fails at once; the second is tried again, with
 * the worker at SCHED_FIFO, and skipped after 3 attempts.
 */
static void test_trigger_fold(void)
{
	struct sopts o = { .pages = 16, .mode = PMUCTX_RING_OVERWRITE,
			   .records = PMUCTX_REC_MASK_SWITCH,
			   .events = "task-clock", .trigger_event = 1,
			   .threshold = 10000000 };
	struct sched_param sp = { .sched_priority = 1 };
	int cpus[CPU_SETSIZE], go = -1, st, flags = 0, reads, attempt, nsw;
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	struct pollfd pfd;
	bool fired = false, judged = false, covered = true;
	__u64 maxd = 0, sumd, total;
	uint64_t t0;
	pid_t pid;

	if (allowed_cpus(cpus, CPU_SETSIZE) < 2) {
		skip("one CPU", "trigger-fold: READs do not split slices");
		return;
	}
	for (attempt = 1; attempt <= 3 && !judged && covered; attempt++) {
		struct pmuctx_read rd = { .size = sizeof(rd) };

		pin(cpus[1]);
		pid = spawn_worker(&go, 40, 5, 6, -1);
		pin(cpus[0]);
		if (sched_setscheduler(pid, SCHED_FIFO, &sp))
			diag("trigger-fold: SCHED_FIFO: %s", strerror(errno));
		o.pid = pid;
		h = session(&o);
		r = h ? map(h) : NULL;
		if (!r) {
			result(0, "trigger-fold: session on a task burning 40 ms slices, map");
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(go);
			pmuctx_close(h);
			unpin();
			return;
		}
		pfd = (struct pollfd){ .fd = pmuctx_fd(h), .events = POLLIN };
		if (write(go, "g", 1) != 1)
			diag("go: %s", strerror(errno));
		reads = 0;
		fired = false;
		t0 = ns_of(CLOCK_MONOTONIC);
		while (!fired && ns_of(CLOCK_MONOTONIC) - t0 < 20000000000ULL &&
		       waitpid(pid, &st, WNOHANG) == 0) {
			if (ioctl(pmuctx_fd(h), PMUCTX_IOC_READ, &rd) == 0)
				reads++;
			fired = poll(&pfd, 1, 0) == 1;
			usleep(500);
		}
		/* the task's whole count: stop it, then one more READ */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(go);
		total = ioctl(pmuctx_fd(h), PMUCTX_IOC_READ, &rd) == 0 &&
			rd.nr_events >= 1 ? rd.values[0] : 0;
		pmuctx_ring_snapshot(r);
		flags = pmuctx_ring_flags(r);
		maxd = 0;
		sumd = 0;
		nsw = 0;
		while (pmuctx_ring_next(r, &rec) > 0) {
			const struct pmuctx_rec_switch *sw = (const void *)rec.hdr;

			if (rec.type != PMUCTX_REC_SWITCH || sw->c.pid != pid ||
			    sw->nr < 1)
				continue;
			nsw++;
			sumd += sw->delta[0];
			if (sw->delta[0] > maxd)
				maxd = sw->delta[0];
		}
		pmuctx_ring_resume(r);
		pmuctx_close(h);
		diag("trigger-fold: attempt %d: %d READs, POLLIN %d, flags 0x%x, %d SWITCH records, longest %.3f ms, their sum %.3f ms of %.3f ms counted",
		     attempt, reads, fired, flags, nsw, maxd / 1e6, sumd / 1e6,
		     total / 1e6);
		/*
		 * What no SWITCH record holds is the slice the kill ended
		 * (up to one 40 ms burn); the defect loses every fold.
		 */
		covered = total <= sumd + 50000000ULL;
		judged = maxd > o.threshold && reads >= 2;
		if (covered && !judged)
			diag("trigger-fold: no slice over 10 ms (another task shared the CPU) or too few READs; again");
	}
	result(covered,
	       "trigger-fold: the SWITCH records hold the whole slices: their sum %.3f ms of %.3f ms counted, less than one burn apart, not the parts after the last fold",
	       sumd / 1e6, total / 1e6);
	if (!judged && covered)
		skip("every burn was split by another task in 3 attempts",
		     "trigger-fold: a 40 ms slice fires a 10 ms trigger although READs fold it every 0.5 ms");
	else
		result(fired && (flags & PMUCTX_RING_F_TRIGGERED),
		       "trigger-fold: a 40 ms slice fires a 10 ms trigger although READs fold it every 0.5 ms (POLLIN %d, flags 0x%x, longest slice %.3f ms)",
		       fired, flags, maxd / 1e6);
	unpin();
}

/* ---- bad input ------------------------------------------------------------ */

static void *try_mmap(int fd, size_t len, int prot, int flags, off_t off,
		      int *err)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	*err = p == MAP_FAILED ? errno : 0;
	return p;
}

static void expect_mmap_fail(int fd, size_t len, int prot, int flags,
			     off_t off, int want, const char *desc)
{
	int err;
	void *p = try_mmap(fd, len, prot, flags, off, &err);

	if (p != MAP_FAILED)
		munmap(p, len);
	result(p == MAP_FAILED && (!want || err == want), "mmap %s: %s (want "
	       "%s)", desc, p == MAP_FAILED ? strerror(err) : "succeeded",
	       want ? strerror(want) : "an error");
}

static void test_bad_mmap(void)
{
	struct pmuctx_session_attr a;
	size_t len;
	void *p, *q;
	int fd, fd2, err;
	unsigned int c;

	raw_attr(&a, 2, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	result(fd >= 0, "raw ring session (2 pages)");
	if (fd < 0)
		return;
	len = (size_t)nr_cpus * 3 * (size_t)page;
	expect_mmap_fail(fd, len - (size_t)page, PROT_READ, MAP_SHARED, 0,
			 EINVAL, "one page short");
	expect_mmap_fail(fd, len + (size_t)page, PROT_READ, MAP_SHARED, 0,
			 EINVAL, "one page long");
	expect_mmap_fail(fd, len, PROT_READ, MAP_SHARED, page, EINVAL,
			 "at offset one page");
	expect_mmap_fail(fd, len, PROT_READ, MAP_PRIVATE, 0, EINVAL,
			 "MAP_PRIVATE");
	expect_mmap_fail(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0,
			 EINVAL, "writable");
	expect_mmap_fail(fd, len, PROT_READ | PROT_EXEC, MAP_SHARED, 0,
			 EINVAL, "executable");
	p = try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err);
	result(p != MAP_FAILED, "mmap of nr_cpus x (1 + 2) pages, read-only, "
	       "shared: %s", err ? strerror(err) : "ok");
	if (p == MAP_FAILED)
		goto out;
	for (c = 0; c < nr_cpus; c++) {
		const struct pmuctx_ring_ctl *ctl = (const void *)
			((const char *)p + c * 3 * (size_t)page);

		if (ctl->version != PMUCTX_RING_VERSION || ctl->cpu != c ||
		    ctl->mode != PMUCTX_RING_NORMAL ||
		    ctl->data_offset != (__u64)page ||
		    ctl->data_size != 2 * (__u64)page)
			break;
	}
	result(c == nr_cpus, "every control page: version, cpu, mode, "
	       "data_offset = page, data_size = 2 pages");
	err = mprotect(p, (size_t)page, PROT_READ | PROT_WRITE) ? errno : 0;
	result(err != 0, "mprotect cannot add write: %s",
	       err ? strerror(err) : "it did");
	err = mprotect(p, (size_t)page, PROT_READ | PROT_EXEC) ? errno : 0;
	result(err != 0, "mprotect cannot add exec: %s",
	       err ? strerror(err) : "it did");
	expect_mmap_fail(fd, len, PROT_READ, MAP_SHARED, 0, EBUSY,
			 "a second time");
	fd2 = dup(fd);
	expect_mmap_fail(fd2, len, PROT_READ, MAP_SHARED, 0, EBUSY,
			 "through a dup of the fd");
	close(fd2);
	munmap(p, len);
	q = try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err);
	result(q != MAP_FAILED, "after munmap the buffers map again: %s",
	       err ? strerror(err) : "ok");
	if (q != MAP_FAILED)
		munmap(q, len);
out:
	close(fd);

	/* no session, no ring */
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	expect_mmap_fail(fd, (size_t)page, PROT_READ, MAP_SHARED, 0, 0,
			 "of an fd without a session");
	close(fd);
	raw_attr(&a, 0, 0);
	fd = raw_session(&a);
	expect_mmap_fail(fd, (size_t)nr_cpus * (size_t)page, PROT_READ,
			 MAP_SHARED, 0, 0, "of a session without a ring");
	close(fd);
	/* a closed fd */
	expect_mmap_fail(fd, len, PROT_READ, MAP_SHARED, 0, EBADF,
			 "of a closed fd");
}

static void test_bad_attr(void)
{
	struct pmuctx_session_attr a;
	struct pmuctx *h;
	char msg[2048];
	int fd;

	raw_attr(&a, 1U << 20, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	result(fd == -ENOMEM, "ring_pages 2^20 (over max_ring_pages): "
	       "ENOMEM (%s)", fd < 0 ? strerror(-fd) : "created");
	if (fd >= 0)
		close(fd);
	raw_attr(&a, 1U << 31, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	result(fd == -ENOMEM, "ring_pages 2^31: ENOMEM (%s)",
	       fd < 0 ? strerror(-fd) : "created");
	if (fd >= 0)
		close(fd);
	raw_attr(&a, 3, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	result(fd == -EINVAL, "ring_pages 3: EINVAL (%s)",
	       fd < 0 ? strerror(-fd) : "created");
	if (fd >= 0)
		close(fd);
	raw_attr(&a, 2, 0);
	fd = raw_session(&a);
	result(fd == -EINVAL, "ring without a mode: EINVAL");
	if (fd >= 0)
		close(fd);
	raw_attr(&a, 2, PMUCTX_RING_NORMAL);
	a.trigger_event = 1;
	a.trigger_threshold = 5;
	fd = raw_session(&a);
	result(fd == -EINVAL, "trigger in normal mode: EINVAL");
	if (fd >= 0)
		close(fd);
	raw_attr(&a, 2, PMUCTX_RING_OVERWRITE);
	a.ring_records = 0x100;
	fd = raw_session(&a);
	result(fd == -EINVAL, "unknown record bits: EINVAL");
	if (fd >= 0)
		close(fd);
	raw_attr(&a, 0, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	result(fd == -EINVAL, "a mode without a ring: EINVAL");
	if (fd >= 0)
		close(fd);

	/* the pmuctx command's diagnosis names the parameter */
	{
		struct sopts o = { .pages = 1U << 20 };
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .ring_pages = o.pages);
		int err;

		h = NULL;
		err = pmuctx_open(&h, NULL);
		if (!err)
			err = pmuctx_session_create(h, &so);
		diagnose(h, err, msg, sizeof(msg));
		result(err == -ENOMEM && strstr(msg, "/sys/module/pmuctx/"
						"parameters/max_ring_pages") &&
		       strstr(msg, "max_ring_pages is "),
		       "diagnosis: ENOMEM names max_ring_pages and its value");
		if (err != -ENOMEM || !strstr(msg, "max_ring_pages is "))
			diag("%s", msg);
		pmuctx_close(h);
	}
}

/* RLIMIT_MEMLOCK without CAP_IPC_LOCK, in a child */
static void test_memlock(void)
{
	int st = 0, p[2];
	char buf[4096];
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .ring_pages = 256);
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		struct __user_cap_header_struct ch = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct cd[2];
		struct pmuctx *h = NULL;
		char msg[3000];
		int err, code = 0;

		close(p[0]);
		/* CAP_IPC_LOCK out of the effective set (raw capget/capset) */
		if (syscall(SYS_capget, &ch, cd))
			_exit(10);
		cd[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
		if (syscall(SYS_capset, &ch, cd))
			_exit(10);
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(11);
		err = pmuctx_open(&h, NULL);
		if (!err)
			err = pmuctx_session_create(h, &so);
		diagnose(h, err, msg, sizeof(msg));
		if (write(p[1], msg, strlen(msg)) < 0)
			code = 12;
		pmuctx_close(h);
		if (err != -EPERM)
			code = 2;
		/* a ring that fits the limit works */
		h = NULL;
		so.ring_pages = 1;
		if (nr_cpus * 2 * page <= 64 * 1024) {
			err = pmuctx_open(&h, NULL);
			if (!err)
				err = pmuctx_session_create(h, &so);
			if (err)
				code = code ? code : 3;
			pmuctx_close(h);
		}
		_exit(code);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st))
		diag("the child died: %s", WIFSIGNALED(st) ?
		     strsignal(WTERMSIG(st)) : "?");
	else if (WEXITSTATUS(st) >= 10)
		diag("the child could not drop CAP_IPC_LOCK or set the limit "
		     "(%d)", WEXITSTATUS(st));
	result(WIFEXITED(st) && WEXITSTATUS(st) != 2,
	       "RLIMIT_MEMLOCK 64 KiB, no CAP_IPC_LOCK: 256 pages -> EPERM");
	result(WIFEXITED(st) && WEXITSTATUS(st) != 3 &&
	       WEXITSTATUS(st) < 10, "a ring within the limit still works "
	       "(status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	result(strstr(buf, "RLIMIT_MEMLOCK (ulimit -l) is 64 KiB") &&
	       strstr(buf, "CAP_IPC_LOCK") && strstr(buf, "ulimit -l"),
	       "the message gives the limit, ulimit -l and CAP_IPC_LOCK");
	if (!strstr(buf, "RLIMIT_MEMLOCK (ulimit -l) is 64 KiB"))
		diag("message: %s", buf);
}

/*
 * memlock-step N MAX: one link of test_memlock_exec()'s chain, run as an
 * unprivileged user with RLIMIT_MEMLOCK 64 KiB: create one session with a
 * one-page ring (fd kept open across exec), then exec the next link.  The
 * last link, or the first refused create, prints "sessions N errno E".
 */
static int memlock_step(int n, int max)
{
	struct pmuctx_session_attr a;
	char sn[16], sm[16];
	int fd, err = 0;

	fd = open(PMUCTX_DEVICE_PATH, O_RDWR);
	if (fd < 0) {
		err = errno;
	} else {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.target = PMUCTX_TARGET_PID;
		a.cgroup_fd = -1;
		a.nr_events = 1;
		a.events[0] = PMUCTX_EV_TASK_CLOCK;
		a.ring_pages = 1;
		a.ring_mode = PMUCTX_RING_NORMAL;
		if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a))
			err = errno;
	}
	if (err || n + 1 >= max) {
		printf("sessions %d errno %d\n", err ? n : n + 1, err);
		return 0;
	}
	snprintf(sn, sizeof(sn), "%d", n + 1);
	snprintf(sm, sizeof(sm), "%d", max);
	execl("/proc/self/exe", "t_ring", "memlock-step", sn, sm, (char *)NULL);
	printf("sessions %d errno %d (exec: %s)\n", n + 1, 0, strerror(errno));
	return 0;
}

/*
 * Ring memory is charged to the user, not to the mm (security item 7):
 * an exec starts a new mm with locked_vm 0, so a chain of execs keeping
 * its session fds must still stop at RLIMIT_MEMLOCK.  The chain runs as
 * uid 65534 in the device's group with RLIMIT_MEMLOCK 64 KiB; each link
 * holds nr_cpus * 2 pages.
 */
static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static void write_paranoid(int v)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");

	if (f) {
		fprintf(f, "%d\n", v);
		fclose(f);
	}
}

static void test_memlock_exec(void)
{
	int st = 0, p[2], got = -1, err = -1, paranoid;
	long per = (long)nr_cpus * 2 * page, fit = 64 * 1024 / per;
	char buf[256];
	struct stat sb;
	ssize_t n;
	pid_t pid;

	if (stat(PMUCTX_DEVICE_PATH, &sb) || pipe(p))
		return;
	/* the chain opens the device through its group: g+rw for the test,
	 * and watches itself: perf_event_paranoid 2 (Debian's default is 3)
	 */
	if (chmod(PMUCTX_DEVICE_PATH, (sb.st_mode & 07777) | 0060))
		diag("chmod g+rw %s: %s", PMUCTX_DEVICE_PATH, strerror(errno));
	paranoid = read_paranoid();
	if (paranoid > 2)
		write_paranoid(2);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		gid_t g = sb.st_gid;

		close(p[0]);
		dup2(p[1], 1);
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(1, &g) ||
		    setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		execl("/proc/self/exe", "t_ring", "memlock-step", "0", "16",
		      (char *)NULL);
		_exit(11);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	chmod(PMUCTX_DEVICE_PATH, sb.st_mode & 07777);
	if (paranoid > 2)
		write_paranoid(paranoid);
	if (sscanf(buf, "sessions %d errno %d", &got, &err) != 2)
		diag("the chain printed: %s (status %#x)", buf, st);
	diag("exec chain: %d sessions with rings of %ld bytes each, then errno %d; %ld fit in 64 KiB",
	     got, per, err, fit);
	result(got >= 0 && got <= fit && (got == 16 || err == EPERM),
	       "RLIMIT_MEMLOCK holds across exec: at most %ld one-page rings (%d made)",
	       fit, got);
	result(got >= 1 || fit < 1, "a ring within the limit works in the chain");
}

static void test_bad_ioctl_io(void)
{
	struct pmuctx_session_attr a;
	struct pmuctx_ring_consume rc;
	static char buf[16384];
	struct pmuctx_ring_ctl *ctl;
	size_t len = (size_t)nr_cpus * 5 * (size_t)page;
	unsigned int c, empty;
	ssize_t n;
	void *p;
	int fd, fdo, fdn, err, fl;

	memset(buf, 'x', sizeof(buf));
	raw_attr(&a, 4, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	raw_attr(&a, 2, PMUCTX_RING_OVERWRITE);
	fdo = raw_session(&a);
	raw_attr(&a, 0, 0);
	fdn = raw_session(&a);
	result(fd >= 0 && fdo >= 0 && fdn >= 0, "three raw sessions");
	if (fd < 0 || fdo < 0 || fdn < 0)
		goto out;
	p = try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err);
	if (p == MAP_FAILED)
		goto out;

	errno = 0;
	result(ioctl(fdn, PMUCTX_IOC_SNAPSHOT, 0) < 0 && errno == EINVAL,
	       "SNAPSHOT without a ring: EINVAL");
	errno = 0;
	result(ioctl(fdo, PMUCTX_IOC_SNAPSHOT, 1) < 0 && errno == EINVAL,
	       "SNAPSHOT with a non-zero argument: EINVAL");
	errno = 0;
	result(ioctl(fdn, PMUCTX_IOC_RESUME, 0) < 0 && errno == EINVAL,
	       "RESUME without a ring: EINVAL");

	rc = (struct pmuctx_ring_consume){ .size = sizeof(rc), .cpu = nr_cpus };
	errno = 0;
	result(ioctl(fd, PMUCTX_IOC_RING_CONSUME, &rc) < 0 && errno == EINVAL,
	       "RING_CONSUME of CPU nr_cpus: EINVAL");
	if (write(fd, buf, 24) != 24)	/* into the current CPU's buffer */
		diag("write: %s", strerror(errno));
	rc.cpu = 0;
	ctl = p;
	rc.tail = ctl->data_head + 8;
	errno = 0;
	result(ioctl(fd, PMUCTX_IOC_RING_CONSUME, &rc) < 0 && errno == EINVAL,
	       "RING_CONSUME beyond data_head: EINVAL");
	rc.tail = ctl->data_tail - 8;
	errno = 0;
	result(ioctl(fd, PMUCTX_IOC_RING_CONSUME, &rc) < 0 && errno == EINVAL,
	       "RING_CONSUME before data_tail: EINVAL");
	rc.tail = ctl->data_tail;
	rc.size = 8;
	errno = 0;
	result(ioctl(fd, PMUCTX_IOC_RING_CONSUME, &rc) < 0 && errno == EINVAL,
	       "RING_CONSUME with size 8: EINVAL");
	rc.size = sizeof(rc);
	result(ioctl(fd, PMUCTX_IOC_RING_CONSUME, &rc) == 0,
	       "RING_CONSUME at data_tail: ok");
	errno = 0;
	result(ioctl(fdo, PMUCTX_IOC_RING_CONSUME, &rc) < 0 && errno == EINVAL,
	       "RING_CONSUME in overwrite mode: EINVAL");

	errno = 0;
	result(write(fd, buf, 0) < 0 && errno == EINVAL, "write of 0 bytes: "
	       "EINVAL");
	errno = 0;
	result(write(fd, buf, PMUCTX_USER_MAX + 1) < 0 && errno == EINVAL,
	       "write of PMUCTX_USER_MAX + 1 bytes: EINVAL");
	errno = 0;
	result(write(fdn, buf, 8) < 0 && errno == EINVAL,
	       "write to a session without a ring: EINVAL");
	n = write(fd, buf, PMUCTX_USER_MAX);
	result(n == PMUCTX_USER_MAX, "write of PMUCTX_USER_MAX bytes into a "
	       "4-page buffer: %s", n < 0 ? strerror(errno) : "ok");
	errno = 0;
	result(read(fdo, buf, sizeof(buf)) < 0 && errno == EINVAL,
	       "read(2) of an overwrite-mode session: EINVAL");
	errno = 0;
	result(read(fd, buf, 8) < 0 && errno == EINVAL,
	       "read(2) into 8 bytes: EINVAL (no partial record)");
	n = read(fd, buf, sizeof(buf));
	result(n == (ssize_t)(sizeof(struct pmuctx_rec_user) + 24 +
			      sizeof(struct pmuctx_rec_user) +
			      PMUCTX_USER_MAX), "read(2) returns the two whole "
	       "records (%zd bytes)", n);
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	result(read(fd, buf, sizeof(buf)) < 0 && errno == EAGAIN,
	       "read(2) of an empty buffer, O_NONBLOCK: EAGAIN");
	for (c = 0, empty = 0; c < nr_cpus; c++) {
		const struct pmuctx_ring_ctl *k = (const void *)
			((const char *)p + c * 5 * (size_t)page);

		empty += k->data_tail == k->data_head;
	}
	result(empty == nr_cpus, "read(2) consumed what it returned");
	munmap(p, len);
out:
	if (fd >= 0)
		close(fd);
	if (fdo >= 0)
		close(fdo);
	if (fdn >= 0)
		close(fdn);

	/* 1- and 2-page buffers cannot take a 4096-byte USER record */
	for (c = 1; c <= 2; c++) {
		raw_attr(&a, c, PMUCTX_RING_NORMAL);
		fd = raw_session(&a);
		errno = 0;
		n = write(fd, buf, PMUCTX_USER_MAX);
		result(n < 0, "write of PMUCTX_USER_MAX bytes into a %u-page "
		       "buffer fails cleanly: %s", c, n < 0 ? strerror(errno) :
		       "accepted");
		if (n < 0 && errno != ENOSPC)
			diag("the ABI documents only ENOSPC (dropped, counted "
			     "in lost) for a refused write(2); got %s",
			     strerror(errno));
		close(fd);
	}
}

/* ---- lifetime ----------------------------------------------------------- */

struct churn {
	int fd;
	int cpu;
	volatile int *stop;
	long n;
};

static void *churn_fn(void *arg)
{
	struct churn *c = arg;
	__u64 i = 0;

	pin(c->cpu);
	while (!*c->stop) {
		put(c->fd, i++, 0);
		if (!(i % 64))
			sched_yield();
		c->n++;
	}
	return NULL;
}

static void test_munmap_race(void)
{
	struct pmuctx_session_attr a;
	static struct churn ch[64];
	pthread_t th[64];
	volatile int stop = 0;
	int cpus[CPU_SETSIZE], nc, i, fd, maps = 0, err;
	size_t len = (size_t)nr_cpus * 5 * (size_t)page;
	long writes = 0;
	uint64_t end;

	nc = allowed_cpus(cpus, 64);
	raw_attr(&a, 4, PMUCTX_RING_NORMAL);
	a.ring_records = PMUCTX_REC_MASK_ALL;	/* our switches too */
	fd = raw_session(&a);
	result(fd >= 0, "munmap race: session");
	if (fd < 0)
		return;
	ioctl(fd, PMUCTX_IOC_ENABLE, 0);
	for (i = 0; i < nc; i++) {
		ch[i] = (struct churn){ .fd = fd, .cpu = cpus[i],
					.stop = &stop };
		pthread_create(&th[i], NULL, churn_fn, &ch[i]);
	}
	end = ns_of(CLOCK_MONOTONIC) + 3000000000ULL;
	while (ns_of(CLOCK_MONOTONIC) < end) {
		void *p = try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err);
		unsigned int c;

		if (p == MAP_FAILED)
			continue;
		maps++;
		for (c = 0; c < nr_cpus; c++) {
			const struct pmuctx_ring_ctl *ctl = (const void *)
				((const char *)p + c * 5 * (size_t)page);
			struct pmuctx_ring_consume rc = {
				.size = sizeof(rc), .cpu = c,
				.tail = __atomic_load_n(&ctl->data_head,
							__ATOMIC_ACQUIRE),
			};

			ioctl(fd, PMUCTX_IOC_RING_CONSUME, &rc);
		}
		munmap(p, len);
	}
	stop = 1;
	for (i = 0; i < nc; i++) {
		pthread_join(th[i], NULL);
		writes += ch[i].n;
	}
	result(maps > 10, "munmap race: %d map/consume/unmap cycles while %d "
	       "threads wrote %ld records", maps, nc, writes);
	/* a mapping left in place while the fd is closed and writers run */
	{
		void *p = try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err);

		close(fd);
		result(p != MAP_FAILED && ((const struct pmuctx_ring_ctl *)p)->
		       version == PMUCTX_RING_VERSION, "the mapping stays "
		       "readable after close()");
		if (p != MAP_FAILED)
			munmap(p, len);
	}
}

static void test_close_mapped(void)
{
	struct pmuctx_info i0, i1, i2;
	struct pmuctx_session_attr a;
	size_t len = (size_t)nr_cpus * 3 * (size_t)page;
	void *p;
	int fd, err, tries;

	get_info(&i0);
	raw_attr(&a, 2, PMUCTX_RING_OVERWRITE);
	fd = raw_session(&a);
	p = fd >= 0 ? try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err) :
		      MAP_FAILED;
	result(p != MAP_FAILED, "close while mapped: session and map");
	if (p == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	get_info(&i1);
	result(i1.sessions == i0.sessions + 1, "after close() the mapping "
	       "keeps the session (sessions %u -> %u)", i0.sessions,
	       i1.sessions);
	result(((const struct pmuctx_ring_ctl *)p)->version ==
	       PMUCTX_RING_VERSION, "and its pages readable");
	munmap(p, len);
	for (tries = 0; tries < 50; tries++) {
		get_info(&i2);
		if (i2.sessions == i0.sessions)
			break;
		sleep_ms(20);
	}
	result(i2.sessions == i0.sessions, "munmap ends the session "
	       "(sessions %u)", i2.sessions);
}

/*
 * MADV_DONTNEED (and MADV_PAGEOUT) on the ring mapping drop its page table
 * entries; the next read must fault the same pages back in, not SIGBUS
 * (perf's mapping survives this too).  In a child: a SIGBUS kills only it.
 */
static void test_madvise(void)
{
	struct pmuctx_session_attr a;
	size_t len = (size_t)nr_cpus * 3 * (size_t)page;
	int fd, err, st = 0;
	void *p;
	pid_t pid;

	raw_attr(&a, 2, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	p = fd >= 0 ? try_mmap(fd, len, PROT_READ, MAP_SHARED, 0, &err) :
		      MAP_FAILED;
	result(p != MAP_FAILED, "madvise: session and map");
	if (p == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		return;
	}
	pid = fork();
	if (pid == 0) {
		const struct pmuctx_ring_ctl *c;
		unsigned int cpu, bad = 0;

		if (madvise(p, len, MADV_DONTNEED))
			_exit(2);
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			c = (const void *)((char *)p + (size_t)cpu * 3 * page);
			if (c->version != PMUCTX_RING_VERSION || c->cpu != cpu)
				bad++;
		}
		_exit(bad ? 3 : 0);
	}
	waitpid(pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "after MADV_DONTNEED the ring mapping reads the same control pages (%s %d)",
	       WIFSIGNALED(st) ? "signal" : "status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	munmap(p, len);
	close(fd);
}

/*
 * A blocking read(2) wakes up for every batch of records, on every CPU,
 * although nobody ever poll()s (sampling issue, item 2): the wakeup was
 * edge-triggered per CPU and only poll() re-armed it, so after the first
 * wakeup of each CPU a blocked reader slept forever.  A child writes 40
 * USER records 20 ms apart, alternating CPUs; the parent reads with
 * blocking reads only, under a 20 s alarm.
 */
static volatile sig_atomic_t blk_alarm;

static void blk_alarm_fn(int sig)
{
	(void)sig;
	blk_alarm = 1;
}

static void test_blocking_read(void)
{
	struct pmuctx_session_attr a;
	struct sigaction sa = { .sa_handler = blk_alarm_fn };
	int fd, ncpu, cpus[64], i, got = 0, st = 0;
	char buf[65536];
	ssize_t n;
	pid_t pid;

	raw_attr(&a, 4, PMUCTX_RING_NORMAL);
	fd = raw_session(&a);
	result(fd >= 0, "blocking-read: session (%d)", fd);
	if (fd < 0)
		return;
	ncpu = allowed_cpus(cpus, 64);
	pid = fork();
	if (pid == 0) {
		char rec[64];

		for (i = 0; i < 40; i++) {
			pin(cpus[i % ncpu]);
			usleep(20000);
			memset(rec, 'a' + i % 26, sizeof(rec));
			if (write(fd, rec, sizeof(rec)) != sizeof(rec))
				_exit(2);
		}
		_exit(0);
	}
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: read gets EINTR */
	blk_alarm = 0;
	alarm(20);
	while (got < 40 && !blk_alarm) {
		n = read(fd, buf, sizeof(buf));	/* blocking: no O_NONBLOCK */
		if (n < 0)
			break;
		for (i = 0; i + (ssize_t)sizeof(struct pmuctx_rec_header) <= n;) {
			const struct pmuctx_rec_header *h = (const void *)(buf + i);

			if (!h->size)
				break;
			if (h->type == PMUCTX_REC_USER)
				got++;
			i += h->size;
		}
	}
	alarm(0);
	waitpid(pid, &st, 0);
	result(got == 40 && !blk_alarm,
	       "blocking-read: 40 records on %d CPUs through blocking reads only, no poll (%d%s)",
	       ncpu, got, blk_alarm ? ", the reader slept until the 20 s alarm" : "");
	close(fd);
}

/* at the end: nothing left behind */
static struct pmuctx_info info_start;

static void test_leaks(void)
{
	struct pmuctx_info i;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		get_info(&i);
		if (i.sessions == info_start.sessions &&
		    i.tasks_tracked == info_start.tasks_tracked)
			break;
		sleep_ms(20);
	}
	result(i.sessions == info_start.sessions &&
	       i.tasks_tracked == info_start.tasks_tracked,
	       "no session or store entry left (sessions %u, tasks %llu; "
	       "at the start %u, %llu)", i.sessions,
	       (unsigned long long)i.tasks_tracked, info_start.sessions,
	       (unsigned long long)info_start.tasks_tracked);
}

/* ---- workload for the CLI tests ------------------------------------------ */

static int work(int argc, char **argv)
{
	unsigned int busy = 2, slp = 1, loops = 0, i;
	const char *pidfile = NULL;
	int k;

	for (k = 0; k < argc; k++) {
		if (!strcmp(argv[k], "--busy") && k + 1 < argc)
			busy = (unsigned int)atoi(argv[++k]);
		else if (!strcmp(argv[k], "--sleep") && k + 1 < argc)
			slp = (unsigned int)atoi(argv[++k]);
		else if (!strcmp(argv[k], "--loops") && k + 1 < argc)
			loops = (unsigned int)atoi(argv[++k]);
		else if (!strcmp(argv[k], "--pidfile") && k + 1 < argc)
			pidfile = argv[++k];
		else {
			fprintf(stderr, "t_ring work: bad argument %s\n",
				argv[k]);
			return 2;
		}
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
			return 1;
	}
	for (i = 0; !loops || i < loops; i++) {
		if (busy)
			burn_ms(busy);
		if (slp)
			sleep_ms(slp);
	}
	return 0;
}

/* ---- main ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "overwrite-one", test_overwrite_one },
	{ "overwrite-all", test_overwrite_all },
	{ "overwrite-var", test_overwrite_var },
	{ "normal-concurrent", test_normal_concurrent },
	{ "normal-stalled", test_normal_stalled },
	{ "freeze", test_freeze },
	{ "half-lost", test_half_lost },
	{ "trigger", test_trigger },
	{ "trigger-fold", test_trigger_fold },
	{ "trigger-exit", test_trigger_exit },
	{ "bad-mmap", test_bad_mmap },
	{ "bad-attr", test_bad_attr },
	{ "memlock", test_memlock },
	{ "memlock-exec", test_memlock_exec },
	{ "bad-io", test_bad_ioctl_io },
	{ "munmap-race", test_munmap_race },
	{ "close-mapped", test_close_mapped },
	{ "madvise", test_madvise },
	{ "blocking-read", test_blocking_read },
	{ "leaks", test_leaks },
};

int main(int argc, char **argv)
{
	struct pmuctx_info info;
	size_t i;
	int k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "work"))
		return work(argc - 2, argv + 2);
	if (argc == 4 && !strcmp(argv[1], "memlock-step"))
		return memlock_step(atoi(argv[2]), atoi(argv[3]));
	if (argc > 1 && !strcmp(argv[1], "now")) {
		uint64_t t = ns_of(CLOCK_MONOTONIC);

		printf("%llu.%06llu\n", (unsigned long long)(t / 1000000000),
		       (unsigned long long)(t % 1000000000 / 1000));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "list")) {
		for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			printf("%s\n", tests[i].name);
		return 0;
	}
	page = sysconf(_SC_PAGESIZE);
	sched_getaffinity(0, sizeof(all_cpus), &all_cpus);
	if (get_info(&info)) {
		printf("not ok - %s: %s\n", PMUCTX_DEVICE_PATH,
		       strerror(errno));
		return 1;
	}
	nr_cpus = info.nr_cpus;
	info_start = info;
	diag("module %s, %u CPU ids, features 0x%llx, page %ld", info.version,
	     nr_cpus, (unsigned long long)info.features, page);
	if (!(info.features & PMUCTX_FEAT_RING))
		diag("the module does not report PMUCTX_FEAT_RING");
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		bool run = argc < 2;

		for (k = 1; k < argc; k++)
			if (!strcmp(argv[k], tests[i].name))
				run = true;
		if (!run)
			continue;
		diag("--- %s", tests[i].name);
		tests[i].fn();
	}
	return failures ? 1 : 0;
}
