// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctx ring buffers against synthetic buffers: a fake mapping laid
 * out like the module's (per CPU a control page and the data, a guard page
 * after the last CPU), records written by the test, and hooks for mmap,
 * SNAPSHOT, RESUME, RING_CONSUME, write(2) and poll().  The parser must
 * hand out exactly the records written, in order, across PAD and wrap,
 * and turn every corrupt buffer into -EBADMSG without reading outside the
 * mapping (run under ASan/UBSan too: ring-tests-san).
 *
 * The fake ring (fring_*) is used by test_ring_file.c as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include <pmuctx.h>

#include "../../lib/internal.h"
#include "diagnose.h"
#include "fake_kernel.h"
#include "test.h"

/* ---- the fake ring (shared with test_ring_file.c) ----------------------- */

#define FR_CPUS	4	/* fake_kernel.c's INFO says nr_cpus = 4 */

struct fring_state {
	unsigned char *base;
	size_t len, maplen, page, slot;
	unsigned int pages;
	__u64 data_size;
	__u32 mode;
	/* observed / injected */
	int mmaps, munmaps, snapshots, resumes, consumes, writes, polls;
	int mmap_err, snap_err, create_err, write_err;
	bool trigger;		/* SNAPSHOT sets TRIGGERED too */
	__u32 consume_cpu[64];
	__u64 consume_tail[64];
	size_t last_write_len;
	int poll_ret;
	short poll_revents;
};

struct fring_state fr;
static int (*next_ioctl)(int fd, unsigned long req, void *arg);

struct pmuctx_ring_ctl *fring_ctl(unsigned int cpu)
{
	return (struct pmuctx_ring_ctl *)(fr.base + cpu * fr.slot);
}

unsigned char *fring_data(unsigned int cpu)
{
	return fr.base + cpu * fr.slot + fr.page;
}

/* set both positions of @cpu (an empty buffer at @pos) */
void fring_reset(unsigned int cpu, __u64 pos)
{
	fring_ctl(cpu)->data_head = pos;
	fring_ctl(cpu)->data_tail = pos;
}

/*
 * Append @rec (size from its header) to @cpu like the module does: a PAD
 * to the end of the data area first when it does not fit there; in
 * overwrite mode evict whole records from the tail.
 */
void fring_put(unsigned int cpu, const void *rec)
{
	struct pmuctx_ring_ctl *c = fring_ctl(cpu);
	struct pmuctx_rec_header h;
	__u64 off, pad;

	memcpy(&h, rec, sizeof(h));
	off = c->data_head & (fr.data_size - 1);
	pad = off + h.size > fr.data_size ? fr.data_size - off : 0;
	if (fr.mode == PMUCTX_RING_OVERWRITE) {
		while (c->data_head + pad + h.size - c->data_tail >
		       fr.data_size) {
			struct pmuctx_rec_header t;

			memcpy(&t, fring_data(cpu) + (c->data_tail &
						      (fr.data_size - 1)),
			       sizeof(t));
			c->data_tail += t.size;
			if (t.type != PMUCTX_REC_PAD)
				c->overwritten++;
		}
	}
	if (pad) {
		struct pmuctx_rec_header p = {
			.type = PMUCTX_REC_PAD, .size = (__u16)pad,
		};

		memcpy(fring_data(cpu) + off, &p, sizeof(p));
		c->data_head += pad;
		off = 0;
	}
	memcpy(fring_data(cpu) + off, rec, h.size);
	c->data_head += h.size;
	c->records++;
}

/* a USER record carrying @seq (8 bytes) at @time on @cpu */
struct user_rec {
	struct pmuctx_rec_user r;
	__u64 seq;
};

void fring_user(unsigned int cpu, __u64 time, __u64 seq)
{
	struct user_rec u;

	memset(&u, 0, sizeof(u));
	u.r.hdr.type = PMUCTX_REC_USER;
	u.r.hdr.size = sizeof(u);
	u.r.c.time = time;
	u.r.c.cpu = cpu;
	u.r.c.pid = 100;
	u.r.c.tid = 101;
	u.r.len = 8;
	u.seq = seq;
	fring_put(cpu, &u);
}

__u64 rec_seq(const struct pmuctx_record *rec)
{
	const struct user_rec *u = (const struct user_rec *)rec->hdr;

	return rec->type == PMUCTX_REC_USER && rec->size >= sizeof(*u) ?
	       u->seq : ~0ULL;
}

static int ring_ioctl(int fd, unsigned long req, void *arg)
{
	unsigned int i;

	if (_IOC_TYPE(req) != PMUCTX_IOC_MAGIC)
		return next_ioctl(fd, req, arg);
	switch (_IOC_NR(req)) {
	case _IOC_NR(PMUCTX_IOC_SESSION_CREATE): {
		struct pmuctx_session_attr *a = arg;

		if (fr.create_err && a->ring_pages)
			return fr.create_err;
		return next_ioctl(fd, req, arg);
	}
	case _IOC_NR(PMUCTX_IOC_SNAPSHOT):
		fr.snapshots++;
		if (fr.snap_err)
			return fr.snap_err;
		for (i = 0; fr.base && i < FR_CPUS; i++)
			fring_ctl(i)->flags = PMUCTX_RING_F_FROZEN |
				(fr.trigger ? PMUCTX_RING_F_TRIGGERED : 0);
		return 0;
	case _IOC_NR(PMUCTX_IOC_RESUME):
		fr.resumes++;
		for (i = 0; fr.base && i < FR_CPUS; i++)
			fring_ctl(i)->flags = 0;
		return 0;
	case _IOC_NR(PMUCTX_IOC_RING_CONSUME): {
		struct pmuctx_ring_consume *c = arg;
		struct pmuctx_ring_ctl *ctl;

		if (c->size < PMUCTX_RING_CONSUME_SIZE_VER0 ||
		    fr.mode != PMUCTX_RING_NORMAL || c->cpu >= FR_CPUS)
			return -EINVAL;
		ctl = fring_ctl(c->cpu);
		if (c->tail - ctl->data_tail > ctl->data_head - ctl->data_tail)
			return -EINVAL;
		if (fr.consumes < 64) {
			fr.consume_cpu[fr.consumes] = c->cpu;
			fr.consume_tail[fr.consumes] = c->tail;
		}
		fr.consumes++;
		ctl->data_tail = c->tail;
		return 0;
	}
	default:
		return next_ioctl(fd, req, arg);
	}
}

static int ring_mmap(void **out, size_t len, int prot, int flags, int fd,
		     off_t off)
{
	(void)fd;
	fr.mmaps++;
	if (fr.mmap_err)
		return fr.mmap_err;
	if (!fr.base || len != fr.len || off || prot != PROT_READ ||
	    !(flags & MAP_SHARED))
		return -EINVAL;
	*out = fr.base;
	return 0;
}

static int ring_munmap(void *addr, size_t len)
{
	fr.munmaps++;
	return addr == fr.base && len == fr.len ? 0 : -EINVAL;
}

static ssize_t ring_write(int fd, const void *buf, size_t len)
{
	(void)fd;
	(void)buf;
	fr.writes++;
	fr.last_write_len = len;
	return fr.write_err ? fr.write_err : (ssize_t)len;
}

static int ring_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	(void)n;
	(void)timeout;
	fr.polls++;
	fds[0].revents = fr.poll_revents;
	return fr.poll_ret;
}

void fring_free(void)
{
	if (fr.base)
		munmap(fr.base, fr.maplen);
	fr.base = NULL;
}

/*
 * A fresh fake module and ring: @pages data pages per CPU, @mode.  The
 * mapping is followed by a PROT_NONE guard page.
 */
void fring_install(unsigned int pages, __u32 mode)
{
	unsigned int i;

	fring_free();
	fake_install();
	memset(&fr, 0, sizeof(fr));
	fr.page = (size_t)sysconf(_SC_PAGESIZE);
	fr.pages = pages;
	fr.mode = mode;
	fr.data_size = (__u64)pages * fr.page;
	fr.slot = (1 + pages) * fr.page;
	fr.len = FR_CPUS * fr.slot;
	fr.maplen = fr.len + fr.page;
	fr.base = mmap(NULL, fr.maplen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fr.base == MAP_FAILED) {
		fr.base = NULL;
		t_diag("fring_install: mmap failed");
		return;
	}
	mprotect(fr.base + fr.len, fr.page, PROT_NONE);
	for (i = 0; i < FR_CPUS; i++) {
		struct pmuctx_ring_ctl *c = fring_ctl(i);

		c->version = PMUCTX_RING_VERSION;
		c->cpu = i;
		c->mode = mode;
		c->data_offset = fr.page;
		c->data_size = fr.data_size;
	}
	next_ioctl = pmuctx__sys.ioctl;
	pmuctx__sys.ioctl = ring_ioctl;
	pmuctx__sys.mmap = ring_mmap;
	pmuctx__sys.munmap = ring_munmap;
	pmuctx__sys.write = ring_write;
	pmuctx__sys.poll = ring_poll;
}

void fring_remove(void)
{
	fake_remove();
	pmuctx__sys.mmap = pmuctx__sys_mmap;
	pmuctx__sys.munmap = pmuctx__sys_munmap;
	pmuctx__sys.write = pmuctx__sys_write;
	pmuctx__sys.poll = pmuctx__sys_poll;
	fring_free();
}

/* open the fake device and create a ring session */
struct pmuctx *fring_session(__u32 mode)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
	LIBPMUCTX_OPTS(pmuctx_session_opts, so,
		       .events = "task-clock,cs",
		       .ring_pages = fr.pages,
		       .ring_mode = mode,
		       .ring_records = PMUCTX_REC_MASK_ALL);
	struct pmuctx *h = NULL;
	int err;

	err = pmuctx_open(&h, &o);
	if (!err)
		err = pmuctx_session_create(h, &so);
	if (err) {
		char msg[2048];

		pmuctx_errmsg(h, err, msg, sizeof(msg));
		t_diag("fring_session: %s", msg);
		pmuctx_close(h);
		return NULL;
	}
	return h;
}

/* ---- tests --------------------------------------------------------------- */

static char msg[4096];

static struct pmuctx_ring *map_ring(struct pmuctx *h)
{
	struct pmuctx_ring *r = NULL;
	int err = h ? pmuctx_ring_map(h, &r) : -EINVAL;

	if (err) {
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		t_diag("map_ring: %s", msg);
	}
	return r;
}

static void test_map(void)
{
	struct pmuctx_ring *r = NULL;
	struct pmuctx *h;
	int err;

	t_section("ring: map");
	fring_install(2, PMUCTX_RING_NORMAL);
	h = fring_session(PMUCTX_RING_NORMAL);
	CHECK(h != NULL, "ring session on the fake module");
	CHECK_EQ(fake.last_attr.ring_pages, 2, "ring_pages reaches the module");
	CHECK_EQ(fake.last_attr.ring_mode, PMUCTX_RING_NORMAL,
		 "ring_mode reaches the module");
	CHECK_EQ(fake.last_attr.ring_records, PMUCTX_REC_MASK_ALL,
		 "ring_records reaches the module");
	err = pmuctx_ring_map(h, &r);
	CHECK_EQ(err, 0, "pmuctx_ring_map works");
	CHECK_EQ(fr.mmaps, 1, "one mmap");
	CHECK_EQ(pmuctx_ring_nr_cpus(r), FR_CPUS, "nr_cpus from INFO");
	CHECK_EQ(pmuctx_ring_data_size(r), 2 * fr.page, "data size");
	{
		struct pmuctx_ring *r2 = NULL;

		err = pmuctx_ring_map(h, &r2);
		CHECK(err == -EBUSY && !r2, "second map -> -EBUSY");
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		CHECK_HAS(msg, "mapped already", "EBUSY message");
	}
	pmuctx_ring_unmap(r);
	CHECK_EQ(fr.munmaps, 1, "unmap munmaps the whole mapping");
	err = pmuctx_ring_map(h, &r);
	CHECK_EQ(err, 0, "map again after unmap");
	pmuctx_close(h);	/* unmaps the ring it still has */
	CHECK_EQ(fr.munmaps, 2, "pmuctx_close() unmaps a mapped ring");

	/* no ring in the session */
	fake_install();
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		h = NULL;
		pmuctx_open(&h, &o);
		pmuctx_session_create(h, NULL);
		err = pmuctx_ring_map(h, &r);
		CHECK(err == -EINVAL && !r, "map without a ring -> -EINVAL");
		pmuctx_errmsg(h, err, msg, sizeof(msg));
		CHECK_HAS(msg, "has no ring buffer", "message says why");
		CHECK_HAS(msg, ".ring_pages", "and what to do");
		pmuctx_close(h);
	}

	/* mmap errors */
	fring_install(2, PMUCTX_RING_NORMAL);
	h = fring_session(PMUCTX_RING_NORMAL);
	fr.mmap_err = -EPERM;
	err = pmuctx_ring_map(h, &r);
	CHECK(err == -EPERM && !r, "mmap EPERM is returned");
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK(!strchr(msg, '\n') && strstr(msg, "cannot map the ring buffers: "
	      "Operation not permitted: mmap of "), "EPERM: the library's line");
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "cannot map the ring buffers", "EPERM: first line");
	if (geteuid() != 0) {
		CHECK_HAS(msg, "RLIMIT_MEMLOCK (ulimit -l) is",
			  "EPERM: names the limit and its current value");
		CHECK_HAS(msg, "CAP_IPC_LOCK", "EPERM: names CAP_IPC_LOCK");
	}
	fr.mmap_err = -EINVAL;
	err = pmuctx_ring_map(h, &r);
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "nr_cpus x (1 + ring_pages) pages",
		  "EINVAL: says what the module expects");
	fr.mmap_err = 0;

	/* control pages that break the ABI */
	fring_ctl(2)->version = 7;
	err = pmuctx_ring_map(h, &r);
	CHECK(err == -EPROTO && !r, "bad ring version -> -EPROTO");
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "CPU 2 control page: ring version 7",
		  "message names the CPU and version");
	CHECK_EQ(fr.munmaps, 1, "the mapping is undone");
	fring_ctl(2)->version = PMUCTX_RING_VERSION;
	fring_ctl(1)->cpu = 3;
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO, "wrong cpu -> -EPROTO");
	fring_ctl(1)->cpu = 1;
	fring_ctl(3)->data_size = 3 * fr.page;
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO,
		 "data area outside its slot -> -EPROTO");
	fring_ctl(3)->data_size = fr.page;
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO,
		 "data_size differing between CPUs -> -EPROTO");
	fring_ctl(3)->data_size = 2 * fr.page;
	fring_ctl(0)->data_offset = 2 * fr.page;
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO,
		 "data_offset + data_size past the slot -> -EPROTO");
	fring_ctl(0)->data_offset = 12;
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO,
		 "data_offset inside the control struct -> -EPROTO");
	fring_ctl(0)->data_offset = fr.page;
	fring_ctl(0)->mode = PMUCTX_RING_OVERWRITE;
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO,
		 "mode differing from the session -> -EPROTO");
	fring_ctl(0)->mode = PMUCTX_RING_NORMAL;
	CHECK_EQ(pmuctx_ring_map(h, &r), 0, "good control pages map again");
	pmuctx_ring_unmap(r);
	/* a CPU id that is not possible: a zeroed control page */
	memset(fring_ctl(2), 0, sizeof(struct pmuctx_ring_ctl));
	err = pmuctx_ring_map(h, &r);
	CHECK_EQ(err, 0, "an all-zero control page is a CPU without records");
	if (!err) {
		struct pmuctx_ring_cpu_stats st;
		struct pmuctx_record rec;

		fring_user(1, 5, 1);
		CHECK_EQ(pmuctx_ring_begin(r), 0, "begin skips it");
		CHECK(pmuctx_ring_next(r, &rec) == 1 && rec.cpu == 1 &&
		      pmuctx_ring_next(r, &rec) == 0, "the others are read");
		CHECK(pmuctx_ring_stats(r, 2, &st) == 0 && !st.data_head,
		      "its stats are zero");
		pmuctx_ring_unmap(r);
	}
	memset(fring_ctl(0), 0, sizeof(struct pmuctx_ring_ctl));
	memset(fring_ctl(1), 0, sizeof(struct pmuctx_ring_ctl));
	memset(fring_ctl(3), 0, sizeof(struct pmuctx_ring_ctl));
	CHECK_EQ(pmuctx_ring_map(h, &r), -EPROTO,
		 "all control pages zero -> -EPROTO");
	pmuctx_close(h);
	fring_remove();
}

static void test_opts_ring(void)
{
	struct pmuctx *h = NULL;
	int err;

	t_section("ring: session options");
	fring_install(4, PMUCTX_RING_NORMAL);
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		pmuctx_open(&h, &o);
	}
#define TRY(desc, want, ...) do {					\
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, __VA_ARGS__);	\
		err = pmuctx_session_create(h, &so);			\
		pmuctx_errmsg(h, err, msg, sizeof(msg));		\
		CHECK_EQ(err, want, desc);				\
	} while (0)
	TRY("ring_pages 3 (not a power of two) -> -EINVAL", -EINVAL,
	    .ring_pages = 3);
	CHECK_HAS(msg, "power of two", "message says power of two");
	TRY("ring_mode without ring_pages -> -EINVAL", -EINVAL,
	    .ring_mode = PMUCTX_RING_NORMAL);
	CHECK_HAS(msg, "need a ring buffer", "message says why");
	TRY("ring_mode 7 -> -EINVAL", -EINVAL, .ring_pages = 4,
	    .ring_mode = 7);
	TRY("trigger in normal mode -> -EINVAL", -EINVAL, .ring_pages = 4,
	    .ring_mode = PMUCTX_RING_NORMAL, .trigger_event = 1,
	    .trigger_threshold = 5);
	CHECK_HAS(msg, "PMUCTX_RING_OVERWRITE", "message names the mode");
	TRY("trigger_event beyond the events -> -EINVAL", -EINVAL,
	    .events = "task-clock", .ring_pages = 4,
	    .ring_mode = PMUCTX_RING_OVERWRITE, .trigger_event = 2,
	    .trigger_threshold = 5);
	TRY("trigger_threshold 0 -> -EINVAL", -EINVAL, .ring_pages = 4,
	    .ring_mode = PMUCTX_RING_OVERWRITE, .trigger_event = 1);
	TRY("wakeup_bytes in overwrite mode -> -EINVAL", -EINVAL,
	    .ring_pages = 4, .ring_mode = PMUCTX_RING_OVERWRITE,
	    .wakeup_bytes = 64);
	CHECK_EQ(fake.nr_creates, 0, "none of these reached the module");

	/* the default mode is normal */
	TRY("ring_pages alone works", 0, .ring_pages = 4);
	CHECK_EQ(fake.last_attr.ring_mode, PMUCTX_RING_NORMAL,
		 "mode 0 becomes PMUCTX_RING_NORMAL");
	CHECK_EQ(fake.last_attr.size, sizeof(struct pmuctx_session_attr),
		 "attr size is the full (VER1) size");
	pmuctx_close(h);

	/* a trigger reaches the module as given */
	h = NULL;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);

		pmuctx_open(&h, &o);
	}
	TRY("overwrite + trigger works", 0, .events = "cs,task-clock",
	    .ring_pages = 4, .ring_mode = PMUCTX_RING_OVERWRITE,
	    .trigger_event = 2, .trigger_threshold = 5000000);
	CHECK(fake.last_attr.trigger_event == 2 &&
	      fake.last_attr.trigger_threshold == 5000000 &&
	      fake.last_attr.ring_mode == PMUCTX_RING_OVERWRITE,
	      "trigger fields reach the module");
	pmuctx_close(h);
#undef TRY

	/* an older caller: sz up to max_exited leaves the ring off */
	h = NULL;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .ring_pages = 4,
			       .ring_mode = 9);

		pmuctx_open(&h, &o);
		so.sz = offsetofend(struct pmuctx_session_opts, max_exited);
		err = pmuctx_session_create(h, &so);
		CHECK_EQ(err, 0, "a 0.1 caller's sz ignores the ring fields");
		CHECK_EQ(fake.last_attr.ring_pages, 0, "no ring then");
		pmuctx_close(h);
	}
	fring_remove();
}

static void test_session_errors(void)
{
	char path[] = "/tmp/pmuctx-maxpages.XXXXXX";
	struct pmuctx *h = NULL;
	int err, fd;

	t_section("ring: session create errors");
	fd = mkstemp(path);
	if (fd >= 0) {
		if (write(fd, "256\n", 4) != 4)
			t_diag("write failed");
		close(fd);
	}
	fring_install(4, PMUCTX_RING_NORMAL);
	diag_paths.max_ring_pages = path;
	{
		LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .ring_pages = 1024);

		pmuctx_open(&h, &o);
		fr.create_err = -ENOMEM;
		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	CHECK_EQ(err, -ENOMEM, "ENOMEM is returned");
	CHECK_HAS(msg, "1024 data pages", "ENOMEM: the request");
	CHECK_HAS(msg, "max_ring_pages is 256", "ENOMEM: the limit");
	CHECK_HAS(msg, path, "ENOMEM: where the parameter is");
	CHECK_HAS(msg, "4 CPUs x (1 + 1024) pages", "ENOMEM: the total");
	CHECK_LACKS(msg, "max_tasks", "ENOMEM: not the store message");

	/* EPERM: RLIMIT_MEMLOCK */
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .ring_pages = 1024);

		fr.create_err = -EPERM;
		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	CHECK_EQ(err, -EPERM, "EPERM is returned");
	if (geteuid() != 0) {
		CHECK_HAS(msg, "RLIMIT_MEMLOCK (ulimit -l) is",
			  "EPERM: the current limit");
		CHECK_HAS(msg, "ulimit -l", "EPERM: how to raise it");
		CHECK_HAS(msg, "CAP_IPC_LOCK", "EPERM: the capability");
		CHECK_HAS(msg, "4 CPUs x (1 + 1024) pages", "EPERM: the "
			  "request");
	}
	/* the formatting with made-up facts (as non-root, or root) */
	{
		struct pmuctx_errinfo e = {
			.sz = sizeof(e), .err = EPERM,
			.op = PMUCTX_ERR_OP_SESSION,
			.target = PMUCTX_TARGET_PID, .path = "", .detail = "",
			.module_version = "", .hw_pmu = -1, .ring_feature = -1,
			.module_abi = -1, .ring_pages = 64, .nr_cpus = 2,
			.page_size = 4096,
		};
		struct diag_facts f = {
			.ring = {
				.max_pages = -1, .caps_known = true,
				.memlock_known = true, .memlock_cur = 65536,
				.memlock_max = 65536,
			},
		};

		diag_format(&e, &f, msg, sizeof(msg));
		CHECK_HAS(msg, "RLIMIT_MEMLOCK (ulimit -l) is 64 KiB now",
			  "EPERM facts: current limit in KiB");
		CHECK_HAS(msg, "2 CPUs x (1 + 64) pages = 520 KiB",
			  "EPERM facts: the request");
		CHECK_HAS(msg, "ulimit -l 520", "EPERM facts: the value to set");
		CHECK_HAS(msg, "less than the request", "EPERM facts: verdict");
		f.ring.ipc_lock = true;
		diag_format(&e, &f, msg, sizeof(msg));
		CHECK_LACKS(msg, "RLIMIT_MEMLOCK", "with CAP_IPC_LOCK the "
			    "limit is not blamed");
	}

	/* EOPNOTSUPP from a module without rings */
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .ring_pages = 4);

		fr.create_err = -EOPNOTSUPP;
		err = pmuctx_session_create(h, &so);
	}
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "has no ring buffers", "EOPNOTSUPP: module lacks "
		  "rings (no ring feature in INFO)");
	CHECK_HAS(msg, "update the module", "EOPNOTSUPP: what to do");
	pmuctx_close(h);
	diag_paths.max_ring_pages =
		"/sys/module/pmuctx/parameters/max_ring_pages";
	unlink(path);
	fring_remove();
}

/* read every record of @cpu; returns the count, -errno on error */
static int drain_cpu(struct pmuctx_ring *r, unsigned int cpu, __u64 *seqs,
		     int max)
{
	struct pmuctx_record rec;
	int n = 0, ret;

	while ((ret = pmuctx_ring_next_cpu(r, cpu, &rec)) > 0) {
		if (n < max)
			seqs[n] = rec_seq(&rec);
		n++;
	}
	return ret < 0 ? ret : n;
}

static void test_parse_wrap(void)
{
	struct pmuctx_ring *r;
	struct pmuctx *h;
	__u64 seqs[512], start;
	int n, i, ok;

	t_section("ring: records, PAD, wrap, free-running positions");
	fring_install(1, PMUCTX_RING_NORMAL);	/* 4096-byte data area */
	h = fring_session(PMUCTX_RING_NORMAL);
	r = map_ring(h);
	CHECK(r != NULL, "mapped");
	if (!r)
		goto out;

	/* CPU 0: an empty buffer reads nothing */
	CHECK_EQ(pmuctx_ring_begin(r), 0, "begin on empty buffers");
	CHECK_EQ(drain_cpu(r, 0, seqs, 512), 0, "empty: no record");

	/* CPU 1: 200 bytes before the end of the data area, far along */
	start = 4096ULL * 1000003 - 200;
	fring_reset(1, start);
	for (i = 0; i < 40; i++)	/* 40 x 48 bytes = 1920 */
		fring_user(1, 1000 + (__u64)i, (__u64)i);
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 1, seqs, 512);
	CHECK_EQ(n, 40, "all 40 records across the PAD and the wrap");
	for (i = 0, ok = 1; i < n && i < 40; i++)
		ok &= seqs[i] == (__u64)i;
	CHECK(ok, "in order, none twice");

	/* CPU 2: head and tail straddle 2^64 */
	start = 0ULL - 1120;
	fring_reset(2, start);
	for (i = 0; i < 60; i++)	/* 2880 bytes, wraps the u64 */
		fring_user(2, 5000 + (__u64)i, (__u64)i);
	CHECK(fring_ctl(2)->data_head < fring_ctl(2)->data_tail,
	      "data_head wrapped past 2^64 (free-running)");
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 2, seqs, 512);
	CHECK_EQ(n, 60, "60 records with head past 2^64");
	for (i = 0, ok = 1; i < n && i < 60; i++)
		ok &= seqs[i] == (__u64)i;
	CHECK(ok, "in order across the u64 wrap");

	/* CPU 3: a record that ends exactly at the end (no PAD) */
	fring_reset(3, 4096ULL * 7 - 96);
	fring_user(3, 1, 1);
	fring_user(3, 2, 2);		/* ends at the data end */
	fring_user(3, 3, 3);		/* starts at offset 0 */
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 3, seqs, 512);
	CHECK(n == 3 && seqs[2] == 3, "a record ending at the data end, the "
	      "next at offset 0");

	/* a PAD of header-only size still skips to the data end */
	fring_reset(3, 4096ULL * 9 - 64);
	{
		struct pmuctx_rec_header p = { .type = PMUCTX_REC_PAD,
					       .size = 8 };
		struct pmuctx_ring_ctl *c = fring_ctl(3);

		memcpy(fring_data(3) + 4096 - 64, &p, sizeof(p));
		memset(fring_data(3) + 4096 - 56, 0xee, 56);
		c->data_head += 64;
		fring_user(3, 9, 9);
	}
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 3, seqs, 512);
	CHECK(n == 1 && seqs[0] == 9, "a header-only PAD skips to the end");

	/* data_head inside a PAD: the window ends at the PAD */
	fring_reset(3, 4096ULL * 11 - 88);
	fring_user(3, 1, 1);
	fring_user(3, 2, 2);	/* PAD of 40 + record at 0 */
	fring_ctl(3)->data_head -= 48 + 16;	/* head mid-PAD */
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 3, seqs, 512);
	CHECK_EQ(n, 1, "data_head inside a PAD ends the window there");
	CHECK_EQ(pmuctx_ring_consume(r), 0, "consume up to the PAD");
	CHECK_EQ(fring_ctl(3)->data_tail, 4096ULL * 11 - 40,
		 "the tail stops at the PAD, not inside it");
	fring_ctl(3)->data_head += 48 + 16;
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 3, seqs, 512);
	CHECK(n == 1 && seqs[0] == 2, "the next window goes on past the PAD");
out:
	pmuctx_close(h);
	fring_remove();
}

static void test_merge_consume(void)
{
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	__u64 last = 0, seqs[8];
	int n = 0, ok = 1, ret, i;
	unsigned int cpu;

	t_section("ring: merge by time, consume, lost");
	fring_install(1, PMUCTX_RING_NORMAL);
	h = fring_session(PMUCTX_RING_NORMAL);
	r = map_ring(h);
	if (!r)
		goto out;
	/* times interleaved across the CPUs; equal times on CPU 0 and 3 */
	for (i = 0; i < 30; i++)
		for (cpu = 0; cpu < FR_CPUS; cpu++)
			fring_user(cpu, 100 + (__u64)i * 10 + cpu * 3 -
				   (cpu == 3 ? 9 : 0), cpu * 1000 + (__u64)i);
	pmuctx_ring_begin(r);
	while ((ret = pmuctx_ring_next(r, &rec)) > 0) {
		if (rec.time < last)
			ok = 0;
		if (rec.time == last && n && rec.cpu == 0)
			ok = 0;	/* CPU 0 before CPU 3 on a tie */
		last = rec.time;
		n++;
	}
	CHECK_EQ(ret, 0, "merge ends with 0");
	CHECK_EQ(n, 120, "every record of the 4 CPUs");
	CHECK(ok, "in time order; on equal times the lower CPU first");
	CHECK_EQ(pmuctx_ring_consume(r), 0, "consume");
	CHECK_EQ(fr.consumes, 4, "one RING_CONSUME per CPU that moved");
	CHECK(fr.consume_cpu[2] == 2 &&
	      fr.consume_tail[2] == fring_ctl(2)->data_head,
	      "RING_CONSUME gets the CPU and the end of what was read");
	CHECK_EQ(pmuctx_ring_consume(r), 0, "consume again");
	CHECK_EQ(fr.consumes, 4, "nothing moved: no ioctl");

	/* partial reads: consume hands back exactly what was read */
	fring_user(1, 900, 77);
	fring_user(1, 901, 78);
	fring_user(1, 902, 79);
	pmuctx_ring_begin(r);
	CHECK_EQ(pmuctx_ring_next_cpu(r, 1, &rec), 1, "read one of three");
	pmuctx_ring_consume(r);
	CHECK_EQ(fring_ctl(1)->data_tail, rec.pos + rec.size,
		 "the tail moved past that record only");
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 1, seqs, 8);
	CHECK(n == 2 && seqs[0] == 78, "the unconsumed two are read next");

	/* a new window sees records written after the last begin */
	pmuctx_ring_begin(r);
	fring_user(0, 1000, 5);
	CHECK_EQ(drain_cpu(r, 0, seqs, 8), 0, "a window is fixed at begin");
	pmuctx_ring_begin(r);
	CHECK_EQ(drain_cpu(r, 0, seqs, 8), 1, "the next one sees it");

	/* lost and other counters */
	fring_ctl(2)->lost = 17;
	{
		struct pmuctx_ring_cpu_stats st;

		CHECK_EQ(pmuctx_ring_stats(r, 2, &st), 0, "stats");
		CHECK(st.lost == 17 && st.records == 30 &&
		      st.data_head == fring_ctl(2)->data_head,
		      "stats carry lost, records, head");
		fring_ctl(2)->seq = 3;	/* the kernel in the middle */
		CHECK_EQ(pmuctx_ring_stats(r, 2, &st), -EAGAIN,
			 "an odd seq that never ends -> -EAGAIN");
		fring_ctl(2)->seq = 4;
		CHECK_EQ(pmuctx_ring_stats(r, 4, &st), -EINVAL,
			 "stats of CPU 4 of 4 -> -EINVAL");
	}
	CHECK_EQ(pmuctx_ring_next_cpu(r, FR_CPUS, &rec), -EINVAL,
		 "next_cpu out of range -> -EINVAL");
out:
	pmuctx_close(h);
	fring_remove();
}

static void test_snapshot(void)
{
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	__u64 expect;
	int n = 0, ok = 1, ret, i;

	t_section("ring: overwrite mode, snapshot, resume");
	fring_install(1, PMUCTX_RING_OVERWRITE);
	h = fring_session(PMUCTX_RING_OVERWRITE);
	r = map_ring(h);
	if (!r)
		goto out;
	/* 50 x the buffer on CPU 1: only the newest survive */
	fring_reset(1, 4096ULL * 5 + 24);
	for (i = 0; i < 50 * 4096 / 48; i++)
		fring_user(1, 10 + (__u64)i, (__u64)i);
	CHECK_EQ(pmuctx_ring_snapshot(r), 0, "snapshot");
	CHECK_EQ(fr.snapshots, 1, "SNAPSHOT ioctl");
	CHECK(pmuctx_ring_flags(r) & PMUCTX_RING_F_FROZEN, "flags: frozen");
	expect = 0;
	while ((ret = pmuctx_ring_next(r, &rec)) > 0) {
		if (!n)
			expect = rec_seq(&rec);
		ok &= rec_seq(&rec) == expect++;
		n++;
	}
	CHECK_EQ(ret, 0, "the frozen window parses to the end");
	CHECK(ok && expect == (__u64)(50 * 4096 / 48),
	      "the newest records, contiguous, ending at the last written");
	CHECK(n * 48 >= 4096 / 2, "at least half the buffer is kept (%d "
	      "records)", n);
	CHECK_EQ(pmuctx_ring_consume(r), -EINVAL,
		 "consume in overwrite mode -> -EINVAL");
	pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
	CHECK_HAS(msg, "pmuctx_ring_snapshot", "message points at snapshots");
	CHECK_EQ(pmuctx_ring_resume(r), 0, "resume");
	CHECK_EQ(fr.resumes, 1, "RESUME ioctl");
	CHECK_EQ(pmuctx_ring_next(r, &rec), 0, "no window after resume");
	fr.snap_err = -EINVAL;
	CHECK_EQ(pmuctx_ring_snapshot(r), -EINVAL, "SNAPSHOT error returned");
	pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
	CHECK_HAS(msg, "cannot take a snapshot", "SNAPSHOT error message");
	fr.snap_err = 0;
out:
	pmuctx_close(h);
	fring_remove();
}

/* put raw bytes at @cpu's head (no PAD logic), advance head by @adv */
static void raw_put(unsigned int cpu, const void *p, size_t n, __u64 adv)
{
	struct pmuctx_ring_ctl *c = fring_ctl(cpu);

	memcpy(fring_data(cpu) + (c->data_head & (fr.data_size - 1)), p, n);
	c->data_head += adv;
}

static int expect_bad(struct pmuctx_ring *r, struct pmuctx *h,
		      unsigned int cpu, const char *needle, const char *desc)
{
	__u64 seqs[64];
	int n;

	pmuctx_ring_begin(r);
	n = drain_cpu(r, cpu, seqs, 64);
	CHECK_EQ(n, -EBADMSG, "%s -> -EBADMSG", desc);
	pmuctx_errmsg(h, -EBADMSG, msg, sizeof(msg));
	CHECK_HAS(msg, needle, "%s: message", desc);
	return n;
}

static void test_corrupt(void)
{
	struct pmuctx_ring *r;
	struct pmuctx *h;
	struct pmuctx_rec_header hd;
	unsigned char buf[256];
	__u64 seqs[64];
	int n;

	t_section("ring: corrupt buffers");
	fring_install(1, PMUCTX_RING_NORMAL);
	h = fring_session(PMUCTX_RING_NORMAL);
	r = map_ring(h);
	if (!r)
		goto out;
	memset(buf, 0, sizeof(buf));

	fring_reset(0, 4096);
	hd = (struct pmuctx_rec_header){ .type = PMUCTX_REC_USER, .size = 0 };
	raw_put(0, &hd, sizeof(hd), 64);
	expect_bad(r, h, 0, "size 0", "size 0");
	CHECK_HAS(msg, "CPU 0 buffer", "the message names the CPU");

	fring_reset(0, 8192);
	hd.size = 44;
	raw_put(0, &hd, sizeof(hd), 64);
	expect_bad(r, h, 0, "not a multiple of 8", "size 44");

	fring_reset(0, 8192);
	hd.size = 96;
	raw_put(0, &hd, sizeof(hd), 64);
	expect_bad(r, h, 0, "truncated", "size beyond data_head");

	fring_reset(0, 12288 - 32);
	hd.size = 48;
	raw_put(0, &hd, sizeof(hd), 96);
	expect_bad(r, h, 0, "crosses the end of the data area",
		   "a record crossing the data end");

	fring_reset(0, 12288 - 16);
	hd = (struct pmuctx_rec_header){ .type = PMUCTX_REC_PAD, .size = 64 };
	raw_put(0, &hd, sizeof(hd), 64);
	expect_bad(r, h, 0, "crosses the end", "a PAD longer than the rest");

	fring_reset(0, 8192);
	hd = (struct pmuctx_rec_header){ .type = 99, .size = 16 };
	raw_put(0, &hd, sizeof(hd), 16);
	expect_bad(r, h, 0, "shorter than header + common",
		   "a 16-byte record of an unknown type");

	/* unknown types of a good size are handed out */
	fring_reset(0, 8192);
	hd = (struct pmuctx_rec_header){ .type = 99, .size = 40 };
	raw_put(0, &hd, sizeof(hd), 40);
	pmuctx_ring_begin(r);
	{
		struct pmuctx_record rec;

		CHECK(pmuctx_ring_next_cpu(r, 0, &rec) == 1 &&
		      rec.type == 99 && rec.size == 40,
		      "an unknown type is handed out by size");
	}

	/* type-specific checks */
	fring_reset(0, 8192);
	{
		struct pmuctx_rec_switch s = {
			.hdr = { .type = PMUCTX_REC_SWITCH, .size = 48 },
			.nr = 9,
		};

		raw_put(0, &s, sizeof(s), 48);
		expect_bad(r, h, 0, "nr 9", "SWITCH with nr 9");
		fring_reset(0, 8192);
		s.nr = 4;
		raw_put(0, &s, sizeof(s), 48);
		expect_bad(r, h, 0, "needs 80 bytes",
			   "SWITCH with nr 4 in 48 bytes");
	}
	fring_reset(0, 8192);
	{
		struct user_rec u = {
			.r = { .hdr = { .type = PMUCTX_REC_USER,
					.size = sizeof(u) }, .len = 9 },
		};

		raw_put(0, &u, sizeof(u), sizeof(u));
		expect_bad(r, h, 0, "len 9", "USER whose len overruns");
	}
	fring_reset(0, 8192);
	{
		unsigned char e[64];
		struct pmuctx_rec_exec *x = (void *)e;

		memset(e, 'a', sizeof(e));
		x->hdr.type = PMUCTX_REC_EXEC;
		x->hdr.size = sizeof(e);
		raw_put(0, e, sizeof(e), sizeof(e));
		expect_bad(r, h, 0, "not NUL-terminated",
			   "EXEC filename without NUL");
	}

	/* bad windows */
	fring_ctl(0)->data_tail = 8192;
	fring_ctl(0)->data_head = 8192 + 4096 + 8;
	CHECK_EQ(pmuctx_ring_begin(r), -EBADMSG,
		 "head - tail > data_size -> -EBADMSG at begin");
	pmuctx_errmsg(h, -EBADMSG, msg, sizeof(msg));
	CHECK_HAS(msg, "more than the data area", "message");
	fring_ctl(0)->data_head = 8192 + 4;
	CHECK_EQ(pmuctx_ring_begin(r), -EBADMSG, "unaligned head");
	fring_ctl(0)->data_tail = 8200;
	fring_ctl(0)->data_head = 8192;
	CHECK_EQ(pmuctx_ring_begin(r), -EBADMSG, "head before tail");

	/* an error on one CPU: the others go on, skip + consume clears it */
	fring_reset(0, 8192);
	hd = (struct pmuctx_rec_header){ .type = PMUCTX_REC_USER, .size = 0 };
	raw_put(0, &hd, sizeof(hd), 64);
	fring_reset(1, 0);
	fring_user(1, 5, 1);
	fring_user(1, 6, 2);
	pmuctx_ring_begin(r);
	{
		struct pmuctx_record rec;
		int ret, good = 0, bad = 0;

		while ((ret = pmuctx_ring_next(r, &rec)) != 0) {
			if (ret < 0)
				bad++;
			else
				good++;
			if (bad > 5)
				break;
		}
		CHECK(bad == 1 && good == 2, "merge: one error, then the good "
		      "CPU's records (bad %d, good %d)", bad, good);
	}
	CHECK_EQ(pmuctx_ring_skip(r, -1), 0, "skip");
	CHECK_EQ(pmuctx_ring_consume(r), 0, "consume after skip");
	CHECK_EQ(fring_ctl(0)->data_tail, fring_ctl(0)->data_head,
		 "the corrupt data is handed back");
	pmuctx_ring_begin(r);
	n = drain_cpu(r, 0, seqs, 64);
	CHECK_EQ(n, 0, "and the buffer reads clean again");
out:
	pmuctx_close(h);
	fring_remove();
}

/* random bytes, random windows: errors or records, never a bad access */
static void test_fuzz(void)
{
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	unsigned int seed = 12345, iter, cpu;
	long recs = 0, errs = 0;
	bool sane = true;

	t_section("ring: fuzz");
	fring_install(1, PMUCTX_RING_NORMAL);
	h = fring_session(PMUCTX_RING_NORMAL);
	r = map_ring(h);
	if (!r)
		goto out;
	for (iter = 0; iter < 3000; iter++) {
		int steps = 0, ret;

		for (cpu = 0; cpu < FR_CPUS; cpu++) {
			struct pmuctx_ring_ctl *c = fring_ctl(cpu);
			unsigned char *d = fring_data(cpu);
			size_t i;
			__u64 base = ((__u64)rand_r(&seed) << 32 |
				      (__u64)rand_r(&seed)) & ~7ULL;

			/* sometimes plausible records, sometimes noise */
			if (rand_r(&seed) % 3) {
				for (i = 0; i + 8 <= fr.data_size; i += 8) {
					struct pmuctx_rec_header hh = {
						.type = (__u32)(rand_r(&seed) %
								14),
						.size = (__u16)((rand_r(&seed)
								 % 20) * 8),
					};

					memcpy(d + i, &hh, sizeof(hh));
				}
			} else {
				for (i = 0; i < fr.data_size; i++)
					d[i] = (unsigned char)rand_r(&seed);
			}
			c->data_tail = base;
			c->data_head = base + ((__u64)(rand_r(&seed) % 4200) &
					       (rand_r(&seed) % 2 ? ~7ULL :
						~0ULL));
		}
		pmuctx_ring_begin(r);
		while ((ret = pmuctx_ring_next(r, &rec)) != 0) {
			if (ret > 0) {
				recs++;
				if (rec.size < 32 || rec.size % 8 ||
				    rec.size > fr.data_size)
					sane = false;
			} else {
				errs++;
			}
			if (++steps > 100000) {
				sane = false;
				break;
			}
		}
		pmuctx_ring_skip(r, -1);
		pmuctx_ring_consume(r);
	}
	CHECK(sane, "3000 random buffers: every record handed out is sane, "
	      "every walk ends (%ld records, %ld errors)", recs, errs);
out:
	pmuctx_close(h);
	fring_remove();
}

/* a thread scribbling over the buffer while the reader reads */
static volatile int scribble_stop;

static void *scribbler(void *arg)
{
	unsigned int seed = 99;

	(void)arg;
	while (!scribble_stop) {
		unsigned int cpu = (unsigned int)rand_r(&seed) % FR_CPUS;
		size_t off = ((size_t)rand_r(&seed) % fr.data_size) & ~7UL;
		__u64 v = (__u64)rand_r(&seed) * 2654435761U;

		__atomic_store_n((__u64 *)(fring_data(cpu) + off), v,
				 __ATOMIC_RELAXED);
		if (!(v & 0xff))
			__atomic_store_n(&fring_ctl(cpu)->data_head,
					 fring_ctl(cpu)->data_tail +
					 (v % 5000), __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_concurrent(void)
{
	struct pmuctx_record rec;
	struct pmuctx_ring *r;
	struct pmuctx *h;
	pthread_t th;
	long rounds = 0, recs = 0, clean = 0;
	unsigned int i;
	bool sane = true;
	int ret;

	t_section("ring: a buffer changing under the reader");
	fring_install(1, PMUCTX_RING_OVERWRITE);
	h = fring_session(PMUCTX_RING_OVERWRITE);
	r = map_ring(h);
	if (!r)
		goto out;
	for (i = 0; i < FR_CPUS; i++) {
		fring_reset(i, 4096ULL * 100);
		while (fring_ctl(i)->data_head - 4096ULL * 100 < 4000)
			fring_user(i, 1, 1);
	}
	/* live overwrite buffers are refused (sampling issue item 3) */
	CHECK_EQ(pmuctx_ring_begin(r), -EBUSY,
		 "a live overwrite-mode buffer: no window, -EBUSY");
	pmuctx_errmsg(h, -EBUSY, msg, sizeof(msg));
	CHECK_HAS(msg, "call pmuctx_ring_snapshot() first",
		  "the message says how to read it");
	CHECK_EQ(pmuctx_ring_next(r, &rec), 0, "... and no record");
	/*
	 * A writer that scribbles over buffers that say FROZEN (a kernel
	 * bug, or a hostile mapping): the reader must stay sane.
	 */
	for (i = 0; i < FR_CPUS; i++)
		fring_ctl(i)->flags |= PMUCTX_RING_F_FROZEN;
	scribble_stop = 0;
	for (rounds = 0; rounds < 3010; rounds++) {
		int steps = 0;

		/*
		 * The first 10 windows before the scribbler starts: the
		 * intact buffer hands out records (when the thread ran first
		 * on a loaded host, not one of 3000 windows did, and the
		 * count said nothing about the reader).
		 */
		if (rounds == 10) {
			clean = recs;
			if (pthread_create(&th, NULL, scribbler, NULL)) {
				CHECK(0, "pthread_create");
				goto out;
			}
		}

		pmuctx_ring_begin(r);
		while ((ret = pmuctx_ring_next(r, &rec)) != 0 &&
		       ++steps < 100000)
			if (ret > 0) {
				recs++;
				if (rec.size < 32 || rec.size % 8 ||
				    rec.size > fr.data_size ||
				    pmuctx_record_check(rec.hdr, rec.size) !=
				    (int)rec.size)
					sane = false;
			}
		if (steps >= 100000)
			sane = false;
	}
	scribble_stop = 1;
	pthread_join(th, NULL);
	CHECK(clean > 0, "10 windows of the intact buffer hand out records "
	      "(%ld)", clean);
	CHECK(sane, "3000 windows read while another thread scribbles: "
	      "every record handed out passes pmuctx_record_check (%ld)",
	      recs - clean);
out:
	pmuctx_close(h);
	fring_remove();
}

static void test_record_check(void)
{
	unsigned char b[128];
	struct pmuctx_rec_header *hd = (void *)b;

	t_section("ring: pmuctx_record_check");
	memset(b, 0, sizeof(b));
	hd->type = PMUCTX_REC_FORK;
	hd->size = 40;
	CHECK_EQ(pmuctx_record_check(b, 40), 40, "FORK of 40 bytes");
	CHECK_EQ(pmuctx_record_check(b, 39), -EBADMSG, "in 39 bytes");
	pmuctx_errmsg(NULL, -EBADMSG, msg, sizeof(msg));
	CHECK_HAS(msg, "larger than the 39 byte(s)", "message");
	CHECK_EQ(pmuctx_record_check(b, 7), -EBADMSG, "7 bytes: no header");
	hd->size = 32;
	CHECK_EQ(pmuctx_record_check(b, 64), -EBADMSG, "FORK of 32 bytes");
	hd->type = PMUCTX_REC_PAD;
	hd->size = 8;
	CHECK_EQ(pmuctx_record_check(b, 8), 8, "PAD of 8 bytes");
	hd->type = PMUCTX_REC_EXIT;
	hd->size = 40 + 16;
	((struct pmuctx_rec_exit *)b)->nr = 2;
	CHECK_EQ(pmuctx_record_check(b, 128), 56, "EXIT with nr 2");
	((struct pmuctx_rec_exit *)b)->nr = 3;
	CHECK_EQ(pmuctx_record_check(b, 128), -EBADMSG, "EXIT nr 3 in 56");
	CHECK_EQ(pmuctx_record_check(NULL, 8), -EINVAL, "NULL -> -EINVAL");
	memset(b, 0, sizeof(b));
	{
		struct pmuctx_rec_sample *sm = (void *)b;
		struct pmuctx_rec_user_callchain *uc = (void *)b;

		sm->hdr.type = PMUCTX_REC_SAMPLE;
		sm->hdr.size = 64 + 3 * 8;
		sm->nr_kernel = 2;
		sm->nr_user = 1;
		CHECK_EQ(pmuctx_record_check(b, 128), 88, "SAMPLE 2 + 1 frames");
		sm->nr_user = 2;
		CHECK_EQ(pmuctx_record_check(b, 128), -EBADMSG,
			 "SAMPLE whose frames overrun the record");
		sm->hdr.size = 56;
		CHECK_EQ(pmuctx_record_check(b, 128), -EBADMSG,
			 "SAMPLE shorter than its fixed part");
		memset(b, 0, sizeof(b));
		uc->hdr.type = PMUCTX_REC_USER_CALLCHAIN;
		uc->hdr.size = 48 + 8;
		uc->nr = 1;
		CHECK_EQ(pmuctx_record_check(b, 128), 56,
			 "USER_CALLCHAIN of 1 frame");
		uc->nr = 0xffffffff;
		CHECK_EQ(pmuctx_record_check(b, 128), -EBADMSG,
			 "USER_CALLCHAIN with nr 2^32-1");
	}
	{
		struct pmuctx_rec_mmap *m = (void *)b;

		memset(b, 0, sizeof(b));
		m->hdr.type = PMUCTX_REC_MMAP;
		m->hdr.size = 80 + 16;
		memcpy(m->path, "/usr/bin/true", 14);
		CHECK_EQ(pmuctx_record_check(b, 128), 96, "MMAP with a path");
		memset(m->path, 'x', 16);
		CHECK_EQ(pmuctx_record_check(b, 128), -EBADMSG,
			 "MMAP whose path is not NUL-terminated");
		m->hdr.size = 80;
		CHECK_EQ(pmuctx_record_check(b, 128), -EBADMSG,
			 "MMAP without a path");
	}
	{
		/* USER_STACK: 56 + 17 x 8 registers + 16 bytes = 208 */
		static __u64 us[48];
		struct pmuctx_rec_user_stack *u = (void *)us;

		u->hdr.type = PMUCTX_REC_USER_STACK;
		u->hdr.size = 208;
		u->abi = PMUCTX_REGS_X86_64;
		u->nr_regs = PMUCTX_REGS_X86_64_NR;
		u->size = 16;
		u->dyn_size = 16;
		CHECK_EQ(pmuctx_record_check(us, 256), 208,
			 "USER_STACK with 16 bytes of stack");
		CHECK_EQ(pmuctx_record_check(us, 200), -EBADMSG,
			 "USER_STACK cut short");
		u->dyn_size = 24;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK with dyn_size above size");
		u->dyn_size = 16;
		u->size = 24;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK whose stack passes the record");
		u->size = 0xfffffff8U;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK with a size of 4 GiB");
		u->size = 12;
		u->dyn_size = 8;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK with a size not a multiple of 8");
		u->size = 16;
		u->nr_regs = 65535;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK with 65535 x86-64 registers");
		u->nr_regs = 16;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK with 16 x86-64 registers");
		/* arm64: 56 + 33 x 8 + 16 = 336 */
		u->hdr.size = 336;
		u->abi = PMUCTX_REGS_ARM64;
		u->nr_regs = PMUCTX_REGS_ARM64_NR;
		CHECK_EQ(pmuctx_record_check(us, 336), 336,
			 "USER_STACK with 33 arm64 registers");
		u->nr_regs = PMUCTX_REGS_X86_64_NR;
		CHECK_EQ(pmuctx_record_check(us, 336), -EBADMSG,
			 "USER_STACK with 17 arm64 registers");
		u->hdr.size = 48;
		CHECK_EQ(pmuctx_record_check(us, 256), -EBADMSG,
			 "USER_STACK without its fixed part");
	}
	CHECK(!strcmp(pmuctx_record_type_name(PMUCTX_REC_SWITCH), "switch") &&
	      !strcmp(pmuctx_record_type_name(PMUCTX_REC_USER), "user") &&
	      !strcmp(pmuctx_record_type_name(PMUCTX_REC_MMAP), "mmap") &&
	      !strcmp(pmuctx_record_type_name(PMUCTX_REC_USER_STACK),
		      "user-stack") &&
	      !pmuctx_record_type_name(0) && !pmuctx_record_type_name(14),
	      "record type names");
}

static void test_write_poll(void)
{
	struct pmuctx *h;
	char big[PMUCTX_USER_MAX + 1];
	int err;

	t_section("ring: write, poll");
	fring_install(1, PMUCTX_RING_NORMAL);
	h = fring_session(PMUCTX_RING_NORMAL);
	memset(big, 'x', sizeof(big));
	CHECK_EQ(pmuctx_ring_write(h, "hello", 5), 5, "write 5 bytes");
	CHECK(fr.writes == 1 && fr.last_write_len == 5, "one write(2)");
	CHECK_EQ(pmuctx_ring_write(h, big, 0), -EINVAL, "0 bytes -> -EINVAL");
	CHECK_EQ(pmuctx_ring_write(h, big, sizeof(big)), -EINVAL,
		 "PMUCTX_USER_MAX + 1 bytes -> -EINVAL");
	pmuctx_errmsg(h, -EINVAL, msg, sizeof(msg));
	CHECK_HAS(msg, "1 to 4096 bytes", "message gives the range");
	CHECK_EQ(fr.writes, 1, "neither reached write(2)");
	CHECK_EQ(pmuctx_ring_write(h, big, PMUCTX_USER_MAX), PMUCTX_USER_MAX,
		 "PMUCTX_USER_MAX bytes");
	fr.write_err = -ENOSPC;
	err = pmuctx_ring_write(h, "x", 1);
	CHECK_EQ(err, -ENOSPC, "ENOSPC is returned");
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "cannot write a USER record: No space left",
		  "ENOSPC: the library's line");
	diagnose(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "counted in lost", "ENOSPC message");
	fr.poll_ret = 1;
	fr.poll_revents = POLLIN;
	CHECK_EQ(pmuctx_ring_poll(h, 10), POLLIN, "poll -> POLLIN");
	fr.poll_ret = 0;
	CHECK_EQ(pmuctx_ring_poll(h, 10), 0, "poll timeout -> 0");
	fr.poll_ret = -EINTR;
	CHECK_EQ(pmuctx_ring_poll(h, 10), -EINTR, "poll EINTR");
	pmuctx_close(h);
	fring_remove();
}

void test_ring(void)
{
	test_map();
	test_opts_ring();
	test_session_errors();
	test_parse_wrap();
	test_merge_consume();
	test_snapshot();
	test_corrupt();
	test_record_check();
	test_write_poll();
	test_fuzz();
	test_concurrent();
}
