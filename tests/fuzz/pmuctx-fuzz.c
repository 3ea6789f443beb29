// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx-fuzz: a structured, seeded fuzzer of /dev/pmuctx.
 *
 * P worker processes (--procs) each run their share of N operations
 * (--ops) chosen by a PRNG seeded from the run's seed: open and close
 * sessions, valid and mutated ioctls (corrupted structs, sizes 0..2 pages,
 * random flags and commands, bad pointers, stale and foreign fds), mmap,
 * munmap and mprotect of the ring buffers at random sizes, offsets and
 * protections, read/write/poll on session fds, fork/exec/exit of monitored
 * children, threads, fd passing over unix sockets, while a second thread
 * of every worker closes, dup2()s and uses a shared set of fds
 * concurrently.
 *
 * Expected errors are not failures: a failure is a broken invariant.
 *  - an errno outside the set an operation may return;
 *  - a struct the documented rules call invalid accepted, or a valid one
 *    refused with EINVAL; E2BIG without the kernel's size written back;
 *  - INFO/READ output: sizes, zeroed reserved/pad fields, values past
 *    nr_events, NUL-terminated strings zero-padded, bytes past the output
 *    (and, with ENOSPC, the whole task array) untouched;
 *  - a writable/executable/offset/wrong-length mapping granted, a granted
 *    mapping that faults when read, mprotect() adding write;
 *  - read(2) returning a partial or malformed record;
 *  - a blocking read(2) a signal cannot interrupt; a worker that hangs;
 *  - at the end, with every session closed: INFO says sessions 0,
 *    tasks_tracked 0, store_bytes 0, pool_entries 0, no probes, and as
 *    many entries freed as created.
 * Kernel-side problems (KASAN, lockdep, WARN, leaks) are caught by the VM
 * harness, which checks the kernel log.
 *
 * Usage: pmuctx-fuzz [--seed S | --replay S] [--ops N] [--procs P]
 *                    [--unpriv K] [--uid U] [--gid G] [--group G]
 *                    [--timeout SEC] [--verbose] [--no-children]
 *        pmuctx-fuzz --exec-child SEED     (internal: an exec'd child)
 * Debugging: --only W runs worker W alone in this process (same seed and
 * share of operations as in the full run: under gdb, say);
 * PMUCTX_FUZZ_SKIP=mmap,fork draws those operations but does not run
 * them (the sequence after them changes).
 * The seed is printed first; the same seed, ops and procs replay the same
 * operation sequence (timing may still differ between runs).  The last
 * line is "pmuctx-fuzz: N operations (...), M failures"; exit 0 without
 * failures, 1 with, 2 on usage or setup errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/pmuctx.h>

#define PAGE		4096UL
#define NSLOT		48	/* private fds of the main thread */
#define NSHARED		12	/* fds both threads use and close */
#define SHARED_BASE	900	/* shared fd numbers: never handed out by open() */
#define NMAP		8
#define NKID		12
#define ARENA_PAGES	3
#define TASKBUF		(1024 * 1024)
#define PAT		0xa5

/* ---- PRNG: splitmix64 seeding, xoshiro256** ------------------------------ */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnext(struct rng *r)
{
	uint64_t res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return res;
}

/* uniform in [0, n) (n > 0) */
static uint32_t rn(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rnext(r) >> 32) * (uint64_t)n) >> 32);
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rn(r, 100) < pct;
}

/* ---- options and shared state ------------------------------------------- */

static uint64_t opt_seed;
static long opt_ops = 10000;
static int opt_procs = 4;
static int opt_unpriv;
static uid_t opt_uid = 65534;
static gid_t opt_gid = 65534;
static gid_t opt_group = (gid_t)-1;
static int opt_timeout = 1800;
static int opt_verbose;
static int opt_children = 1;
static int opt_only = -1;	/* debugging: run worker N in this process */
/*
 * 2 (default): every operation draws from its own stream, seeded from the
 * worker's seed and the operation's number, so an outcome that differs
 * between runs (a child that exited earlier, EAGAIN, ENOMEM) changes only
 * that operation's effect on the fds, not the choices of all later ones.
 * 1: one stream for the whole worker (before 2026-11; the corpus replays
 * the seeds found then with it).
 */
static int opt_stream = 2;
static char self_exe[4096];

/* per worker */
static int wid;
static pid_t worker_pid;
static bool unpriv;
static struct rng R;		/* the main thread's choices */
static long cur_op;
static const char *cur_name = "start";
static int failures;
static unsigned int ksize_info = sizeof(struct pmuctx_info);
static unsigned int ksize_attr = sizeof(struct pmuctx_session_attr);
static unsigned int ksize_read = sizeof(struct pmuctx_read);
static unsigned int nr_cpus = 1;
static uint64_t features;
static int cgroup_fd = -1;
static unsigned int max_sample_freq = 10000;	/* module parameters */
static unsigned int max_ring_pages = 256;
static int fail_fd = -1;	/* result pipe to the parent */

/*
 * K_NEW: our open of /dev/pmuctx, no session yet; K_LIVE: a session we
 * created; K_UNK: a pmuctx file whose state we do not track (dup'ed,
 * received over a socket, created by a raw ioctl): only errno sets are
 * checked on it; K_OTHER: another kind of file.
 */
enum kind { K_FREE, K_NEW, K_LIVE, K_UNK, K_OTHER };

struct slot {
	int fd;
	enum kind kind;
	unsigned int nr_events;
	unsigned int ring_pages;	/* 0: no ring */
	unsigned int ring_mode;
	bool mapped;
	bool mangled;	/* RING_CONSUME'd to a tail that may not be a record
			 * boundary: what read(2) returns is undefined */
};

static struct slot slots[NSLOT];

struct mapping {
	void *addr;
	size_t len;
	int slot;
	bool whole;	/* the whole ring, still mapped in one piece */
};

static struct mapping maps[NMAP];
static pid_t kids[NKID];
static volatile int threads_alive;	/* op_thread()'s, still running */

static unsigned char *arena;	/* ARENA_PAGES rw pages + 1 PROT_NONE */
static unsigned char *ro_page;	/* PROT_READ */
static unsigned char *taskbuf;	/* TASKBUF + 1 guard page */

static int sv[2] = { -1, -1 };	/* SCM_RIGHTS to ourselves */
static int inflight;

/* statistics */
enum {
	OP_OPEN, OP_CLOSE, OP_INFO, OP_CREATE, OP_CREATE_MUT, OP_CTL,
	OP_READ, OP_RING_IOC, OP_RAW_IOC, OP_FOREIGN, OP_MMAP, OP_MUNMAP,
	OP_RW, OP_BLOCKREAD, OP_FORK, OP_KILL, OP_THREAD, OP_DUP, OP_SCM,
	OP_SHARED, OP_NR
};

static const char *const op_names[OP_NR] = {
	"open", "close", "info", "create", "create-mutated", "enable/disable/reset",
	"read-ioctl", "ring-ioctl", "raw-ioctl", "foreign-fd", "mmap", "munmap",
	"read/write/poll", "blocking-read", "fork", "kill", "thread", "dup",
	"scm-rights", "shared-fd",
};

/*
 * Relative frequencies.  Creating and closing sessions and forking are
 * one to two orders of magnitude slower than the other ioctls (RCU grace
 * periods, per-CPU pools, fork under KASAN): they are kept frequent enough
 * to churn sessions and tasks, not more.
 */
static const unsigned int op_weight[OP_NR] = {
	[OP_OPEN] = 7, [OP_CLOSE] = 6, [OP_INFO] = 24, [OP_CREATE] = 8,
	[OP_CREATE_MUT] = 24, [OP_CTL] = 26, [OP_READ] = 26,
	[OP_RING_IOC] = 24, [OP_RAW_IOC] = 16, [OP_FOREIGN] = 6, [OP_MMAP] = 10,
	[OP_MUNMAP] = 5, [OP_RW] = 24, [OP_BLOCKREAD] = 1, [OP_FORK] = 2,
	[OP_KILL] = 2, [OP_THREAD] = 2, [OP_DUP] = 4, [OP_SCM] = 3,
	[OP_SHARED] = 8,
};

enum { C_INVAL, C_FAULT, C_NOTTY, C_BADF, C_ACCES, C_BUSY, C_2BIG, C_SRCH,
       C_OPNOTSUPP, C_NOMEM, C_AGAIN, C_OTHER, NCLASS };

static const char *const class_names[NCLASS] = {
	"EINVAL", "EFAULT", "ENOTTY", "EBADF", "EACCES+", "EBUSY", "E2BIG+",
	"ESRCH", "ENOTSUP", "ENOMEM", "EAGAIN+", "other",
};

struct stats {
	long ops[OP_NR];
	long ok[OP_NR];
	long racer_ops;
	long tasks;		/* forks + threads started */
	long sessions;		/* sessions created */
	long mappings;		/* mmaps granted */
	long errs[OP_NR][NCLASS];	/* errno classes */
	long ns[OP_NR];		/* time spent */
};

static struct stats st;

/* ---- reporting ------------------------------------------------------------ */

static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!opt_verbose)
		return;
	fprintf(stderr, "[w%d #%ld] ", wid, cur_op);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "FAIL: worker %d op #%ld (%s): ", wid,
		     cur_op, cur_name);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	printf("%s\n", buf);
	fflush(stdout);
	failures++;
}

/*
 * @ret/@err of a call on a struct at @p that must fail with E2BIG and
 * write the kernel's size @ksize back into its size field; @what names it.
 */
static void want_e2big(const char *what, long ret, int err, const void *p,
		       uint32_t ksize)
{
	uint32_t got;

	if (ret != -1 || err != E2BIG) {
		fail("%s: ret %ld errno %d, want E2BIG", what, ret, err);
		return;
	}
	memcpy(&got, p, sizeof(got));
	if (got != ksize)
		fail("%s: E2BIG wrote size %u, want %u", what, got, ksize);
}

/* errno classes counted per operation (for the summary) */
static void count_err(int op, int ret, int err)
{
	int c;

	if (ret >= 0) {
		st.ok[op]++;
		return;
	}
	switch (err) {
	case EINVAL: c = C_INVAL; break;
	case EFAULT: c = C_FAULT; break;
	case ENOTTY: c = C_NOTTY; break;
	case EBADF: c = C_BADF; break;
	case EACCES: case EPERM: c = C_ACCES; break;
	case EBUSY: c = C_BUSY; break;
	case E2BIG: case ENOSPC: case EMSGSIZE: c = C_2BIG; break;
	case ESRCH: c = C_SRCH; break;
	case EOPNOTSUPP: c = C_OPNOTSUPP; break;
	case ENOMEM: c = C_NOMEM; break;
	case EAGAIN: case EINTR: c = C_AGAIN; break;
	default: c = C_OTHER; break;
	}
	st.errs[op][c]++;
}

/* Is errno @e in the zero-terminated list? */
static bool err_in(int e, const int *list)
{
	for (; *list; list++)
		if (*list == e)
			return true;
	return false;
}

static const int errs_ioctl[] = {
	EINVAL, EFAULT, E2BIG, ENOTTY, EBUSY, ENOMEM, EACCES, EPERM, ESRCH,
	ENOSPC, EOPNOTSUPP, EBADF, ENOTDIR, EAGAIN, EINTR, EMFILE, ENODEV,
	EUSERS,	/* a create from a read-only page: the PMU share (arm64) */
	0
};

static void expect_errs(const char *what, int ret, int err, const int *list)
{
	if (ret < 0 && !err_in(err, list))
		fail("%s: unexpected errno %d (%s)", what, err, strerror(err));
}

/* ---- small helpers ---------------------------------------------------------- */

static long xioctl(int fd, unsigned long cmd, unsigned long arg, int *err)
{
	long ret;

	errno = 0;
	ret = ioctl(fd, cmd, arg);
	*err = ret < 0 ? errno : 0;
	return ret;
}

static bool all_byte(const void *p, size_t n, unsigned char b)
{
	static unsigned char ref[2][PAGE];
	static bool init;
	const unsigned char *c = p;
	size_t k;

	if (!init) {
		memset(ref[1], PAT, PAGE);
		init = true;
	}
	if (b != 0 && b != PAT) {
		for (k = 0; k < n; k++)
			if (c[k] != b)
				return false;
		return true;
	}
	while (n) {
		k = n < PAGE ? n : PAGE;
		if (memcmp(c, ref[b == PAT], k))
			return false;
		c += k;
		n -= k;
	}
	return true;
}

static int dev_open(int flags)
{
	return open(PMUCTX_DEVICE_PATH, O_RDWR | flags);
}

static int pick_slot(enum kind k)
{
	int i, n = 0, pick = -1;

	for (i = 0; i < NSLOT; i++) {
		if (slots[i].kind != k)
			continue;
		if (rn(&R, ++n) == 0)
			pick = i;
	}
	return pick;
}

static int pick_pmu_slot(void)
{
	int i, n = 0, pick = -1;

	for (i = 0; i < NSLOT; i++) {
		if (slots[i].kind != K_NEW && slots[i].kind != K_LIVE &&
		    slots[i].kind != K_UNK)
			continue;
		if (rn(&R, ++n) == 0)
			pick = i;
	}
	return pick;
}

static int free_slot(void)
{
	int i;

	for (i = 0; i < NSLOT; i++)
		if (slots[i].kind == K_FREE)
			return i;
	return -1;
}

static void unmap_slot(int s)
{
	int i;

	for (i = 0; i < NMAP; i++) {
		if (maps[i].addr && maps[i].slot == s) {
			munmap(maps[i].addr, maps[i].len);
			maps[i].addr = NULL;
		}
	}
	slots[s].mapped = false;
}

static void close_slot(int s)
{
	/* A mapping keeps the file alive: unmap before or after the close. */
	bool first = chance(&R, 50);

	if (first)
		unmap_slot(s);
	close(slots[s].fd);
	if (!first)
		unmap_slot(s);
	memset(&slots[s], 0, sizeof(slots[s]));
	slots[s].fd = -1;
}

/* A user pointer for a struct of @size bytes: mostly good, sometimes bad. */
static void *gen_ptr(size_t size, int *bad)
{
	size_t room = ARENA_PAGES * PAGE;

	*bad = 1;
	switch (rn(&R, 20)) {
	case 0:
		return NULL;
	case 1:
		return arena + ARENA_PAGES * PAGE;		/* PROT_NONE */
	case 2:
		return ro_page;					/* read-only */
	case 3:
		return (void *)0xffffffff81000000UL;		/* kernel */
	case 4:
		return (void *)0x8000000000000000UL;		/* non-canonical */
	case 5:
		/* the struct runs into the PROT_NONE page */
		if (size > 8)
			return arena + room - size / 2;
		return arena + room - 4;
	default:
		*bad = 0;
		if (size > room)
			return arena;
		if (chance(&R, 30))
			return arena + room - size;	/* ends at the guard */
		if (chance(&R, 10) && size + 8 <= room)
			return arena + 1 + rn(&R, 7);		/* misaligned */
		return arena;
	}
}

static uint32_t gen_size(uint32_t ver0, uint32_t full)
{
	switch (rn(&R, 12)) {
	case 0: return 0;
	case 1: return 4;
	case 2: return ver0 - 1;
	case 3: return ver0;
	case 4: return full - 8;
	case 5: return full + 8;
	case 6: return PAGE;
	case 7: return 2 * PAGE;
	case 8: return rn(&R, 2 * PAGE + 1);
	case 9: return 0xffffffffU;
	default: return full;
	}
}

static uint64_t gen_u64(void)
{
	static const uint64_t interesting[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 64, 255, 256, 4096, 4097, 0x7fff,
		0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
		~0ULL, ~0ULL - 1,
	};

	if (chance(&R, 70))
		return interesting[rn(&R, sizeof(interesting) / sizeof(interesting[0]))];
	return rnext(&R);
}

static void mutate(void *p, size_t n)
{
	unsigned char *c = p;
	unsigned int k, m = 1 + rn(&R, 4);

	for (k = 0; k < m && n; k++) {
		size_t off = rn(&R, n);

		switch (rn(&R, 4)) {
		case 0:
			c[off] ^= 1u << rn(&R, 8);
			break;
		case 1:
			c[off] = (unsigned char)rnext(&R);
			break;
		case 2: {
			uint32_t v = (uint32_t)gen_u64();

			off &= ~(size_t)3;
			if (off + 4 <= n)
				memcpy(c + off, &v, 4);
			break;
		}
		default: {
			uint64_t v = gen_u64();

			off &= ~(size_t)7;
			if (off + 8 <= n)
				memcpy(c + off, &v, 8);
			break;
		}
		}
	}
}

/* ---- INFO ------------------------------------------------------------------- */

static void check_info(const struct pmuctx_info *in, uint32_t usize,
		       const unsigned char *after, size_t after_len,
		       int live_held)
{
	uint32_t want = usize < ksize_info ? usize : ksize_info;
	size_t vl;

	if (in->size != want)
		fail("INFO: size %u, want min(%u, %u)", in->size, usize,
		     ksize_info);
	if (in->flags)
		fail("INFO: flags %#x on output", in->flags);
	if (in->abi_version != PMUCTX_ABI_VERSION)
		fail("INFO: abi_version %u", in->abi_version);
	if (!in->nr_cpus || in->nr_cpus > 8192)
		fail("INFO: nr_cpus %u", in->nr_cpus);
	vl = strnlen(in->version, sizeof(in->version));
	if (vl == 0 || vl == sizeof(in->version))
		fail("INFO: version not a NUL-terminated string");
	else if (!all_byte(in->version + vl, sizeof(in->version) - vl, 0))
		fail("INFO: version not zero-padded after the NUL");
	if (after_len && !all_byte(after, after_len, PAT))
		fail("INFO: wrote past the %u bytes it reported", in->size);
	if (usize >= PMUCTX_INFO_SIZE_VER1) {
		if (in->sessions < (uint32_t)live_held)
			fail("INFO: %u sessions, this worker alone holds %d",
			     in->sessions, live_held);
		if (live_held &&
		    !(in->probes_registered & PMUCTX_PROBES_LIFECYCLE))
			fail("INFO: probes_registered %#x with live sessions",
			     in->probes_registered);
		if (in->probes_registered & ~(PMUCTX_PROBES_LIFECYCLE |
					      PMUCTX_PROBES_SWITCH))
			fail("INFO: probes_registered %#x: unknown bits",
			     in->probes_registered);
		if (in->entries_freed > in->entries_created)
			fail("INFO: entries freed %llu > created %llu",
			     (unsigned long long)in->entries_freed,
			     (unsigned long long)in->entries_created);
	}
}

static int live_sessions(void)
{
	int i, n = 0;

	for (i = 0; i < NSLOT; i++)
		n += slots[i].kind == K_LIVE;
	return n;
}

static void op_info(void)
{
	int s = pick_pmu_slot(), fd, err, bad;
	uint32_t usize;
	unsigned char *p;
	long ret;

	fd = s >= 0 ? slots[s].fd : -1;
	if (fd < 0)
		return;
	memset(arena, PAT, ARENA_PAGES * PAGE);
	switch (rn(&R, 5)) {
	case 0: /* valid, every known size */
	case 1: {
		static const uint32_t sizes[] = {
			PMUCTX_INFO_SIZE_VER0, PMUCTX_INFO_SIZE_VER1,
			sizeof(struct pmuctx_info), 512, PAGE,
		};

		usize = sizes[rn(&R, 5)];
		p = chance(&R, 50) ? arena : arena + ARENA_PAGES * PAGE - usize;
		memset(p, 0, usize);
		memcpy(p, &usize, 4);
		ret = xioctl(fd, PMUCTX_IOC_INFO, (unsigned long)p, &err);
		count_err(OP_INFO, ret, err);
		if (ret) {
			expect_errs("INFO", ret, err, (const int[]){ ENOMEM, 0 });
			if (err != ENOMEM)
				fail("valid INFO (size %u) failed: %s", usize,
				     strerror(err));
			return;
		}
		{
			struct pmuctx_info in;
			size_t n = usize < sizeof(in) ? usize : sizeof(in);

			memset(&in, 0, sizeof(in));
			memcpy(&in, p, n);
			/* bytes past the output: zero (input) up to usize */
			if (!all_byte(p + in.size, usize - (in.size < usize ?
							    in.size : usize), 0))
				fail("INFO: bytes past its size changed");
			check_info(&in, usize,
				   p + usize, (size_t)(arena + ARENA_PAGES * PAGE - (p + usize)),
				   live_sessions());
		}
		return;
	}
	case 2: /* an unknown non-zero tail: E2BIG, kernel size written back */
		usize = ksize_info + 8 + rn(&R, 256);
		memset(arena, 0, usize);
		memcpy(arena, &usize, 4);
		arena[usize - 1 - rn(&R, usize - ksize_info)] = 1;
		ret = xioctl(fd, PMUCTX_IOC_INFO, (unsigned long)arena, &err);
		count_err(OP_INFO, ret, err);
		want_e2big("INFO with a non-zero unknown tail", ret, err, arena,
			   ksize_info);
		return;
	default: { /* garbage */
		struct pmuctx_info in;

		memset(&in, 0, sizeof(in));
		in.size = gen_size(PMUCTX_INFO_SIZE_VER0, sizeof(in));
		mutate(&in, sizeof(in));
		p = gen_ptr(sizeof(in), &bad);
		if (!bad)
			memcpy(p, &in, sizeof(in));
		ret = xioctl(fd, PMUCTX_IOC_INFO, (unsigned long)p, &err);
		count_err(OP_INFO, ret, err);
		expect_errs("INFO (mutated)", ret, err,
			    (const int[]){ EINVAL, EFAULT, E2BIG, ENOMEM, 0 });
		if (bad && ret == 0 && p != ro_page)
			fail("INFO with a bad pointer %p succeeded", p);
		return;
	}
	}
}

/* ---- session attributes ----------------------------------------------------- */

static pid_t some_kid(void)
{
	int i, n = 0;
	pid_t pick = 0;

	for (i = 0; i < NKID; i++) {
		if (!kids[i])
			continue;
		if (rn(&R, ++n) == 0)
			pick = kids[i];
	}
	return pick;
}

static void gen_attr(struct pmuctx_session_attr *a)
{
	unsigned int i, n;
	int used[PMUCTX_EV_MAX + 1] = { 0 };

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	switch (rn(&R, 12)) {
	case 0: case 1: case 2:
		a->target = PMUCTX_TARGET_PID;
		a->pid = 0;
		break;
	case 3: case 4:
		a->target = PMUCTX_TARGET_PID;
		a->pid = some_kid();
		break;
	case 5:
		a->target = PMUCTX_TARGET_PID;
		a->pid = chance(&R, 50) ? 1 : (pid_t)syscall(SYS_gettid);
		if (chance(&R, 50))
			a->flags |= PMUCTX_SESSION_THREAD;
		break;
	case 6:
		a->target = PMUCTX_TARGET_SYSTEM;
		break;
	case 7:
		a->target = PMUCTX_TARGET_CGROUP;
		a->cgroup_fd = cgroup_fd;
		break;
	default:
		a->target = PMUCTX_TARGET_PID;
		a->pid = 0;
		break;
	}
	if (a->target != PMUCTX_TARGET_CGROUP)
		a->cgroup_fd = chance(&R, 50) ? -1 : 0;
	if (chance(&R, 50))
		a->flags |= PMUCTX_SESSION_INHERIT;
	if (chance(&R, 40))
		a->flags |= PMUCTX_SESSION_KEEP_EXITED;
	if (a->target == PMUCTX_TARGET_PID && chance(&R, 10))
		a->flags |= PMUCTX_SESSION_THREAD;
	/* default events without it are switchless: both ways run */
	if (chance(&R, 30))
		a->flags |= PMUCTX_SESSION_PER_SWITCH;
	n = 1 + rn(&R, PMUCTX_MAX_EVENTS);
	for (i = 0; i < n; i++) {
		unsigned int id;

		do {
			/* mostly module-native and software events */
			id = chance(&R, 85) ? 1 + rn(&R, 5) : 1 + rn(&R, PMUCTX_EV_MAX);
		} while (used[id] && i < 5);
		if (used[id])
			break;
		used[id] = 1;
		a->events[a->nr_events++] = id;
	}
	if (chance(&R, 20)) {
		a->backend = PMUCTX_BACKEND_SELFTEST;
		a->data_size = 8 + rn(&R, PMUCTX_MAX_DATA_SIZE - 7);
	}
	switch (rn(&R, 5)) {
	case 0: a->max_exited = 1; break;
	case 1: a->max_exited = 16; break;
	default: a->max_exited = 0; break;
	}
	if ((features & PMUCTX_FEAT_RING) && chance(&R, 40)) {
		a->ring_pages = 1u << rn(&R, 4);
		a->ring_mode = chance(&R, 50) ? PMUCTX_RING_NORMAL :
						 PMUCTX_RING_OVERWRITE;
		a->ring_records = rn(&R, PMUCTX_REC_MASK_ALL + 1);
		if (chance(&R, 50))
			a->wakeup_bytes = rn(&R, a->ring_pages * PAGE + 1);
		if (a->ring_mode == PMUCTX_RING_OVERWRITE && chance(&R, 30)) {
			a->trigger_event = 1 + rn(&R, a->nr_events);
			a->trigger_threshold = 1 + rn(&R, 10000000);
		}
	}
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	if (a->ring_pages && chance(&R, 25)) {
		static const uint32_t freqs[] = { 1, 10, 100, 250, 1000 };

		a->sample_freq = chance(&R, 95) ? freqs[rn(&R, 5)] :
						   1 + rn(&R, max_sample_freq);
		a->sample_flags = rn(&R, PMUCTX_SAMPLE_FLAGS_ALL + 1);
		if ((a->sample_flags & PMUCTX_SAMPLE_DEFER_USER) &&
		    chance(&R, 80))
			a->sample_flags |= PMUCTX_SAMPLE_USER_STACK;
		if (chance(&R, 50))
			a->sample_max_stack = rn(&R, PMUCTX_MAX_STACK + 1);
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER3
		/* user stack dumps: mostly valid sizes, some not */
		if ((a->sample_flags & PMUCTX_SAMPLE_USER_DUMP) &&
		    chance(&R, 60))
			a->sample_flags |= PMUCTX_SAMPLE_USER_STACK |
					   PMUCTX_SAMPLE_DEFER_USER;
		if (chance(&R, 30))
			a->sample_user_dump = chance(&R, 70) ?
				8 * (1 + rn(&R, PMUCTX_USER_DUMP_MAX / 8)) :
				rn(&R, 2 * PMUCTX_USER_DUMP_MAX);
		if (chance(&R, 2))
			a->__reserved4 = 1 + rn(&R, 100);
#endif
	}
#endif
	switch (rn(&R, 20)) {
	case 0: case 1: case 2:
		a->size = PMUCTX_SESSION_ATTR_SIZE_VER0;
		break;
	case 3: case 4:
		a->size = PMUCTX_SESSION_ATTR_SIZE_VER1;
		break;
	default:
		break;
	}
}

static bool pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/*
 * The attr as the kernel reads it: copy_struct_from_user() of @usize bytes,
 * the rest zero.  The one place the model truncates: validity and the
 * state of a created session both come from it.
 */
static void kernel_view(struct pmuctx_session_attr *k,
			const struct pmuctx_session_attr *a, uint32_t usize)
{
	memset(k, 0, sizeof(*k));
	memcpy(k, a, usize < sizeof(*k) ? usize : sizeof(*k));
}

/*
 * The documented rules (include/uapi/linux/pmuctx.h) for the bytes the
 * kernel reads: 1 valid, 0 invalid (EINVAL expected).  Size handling is
 * checked separately.
 */

#ifdef PMUCTX_SESSION_ATTR_SIZE_VER4
/* module/evdesc.c's rules for one used slot (or the sample event) */
static int model_desc_ok(__u32 id, const struct pmuctx_event_desc *d)
{
	if (d->flags & ~PMUCTX_EVF_FLAGS_ALL)
		return 0;
	if ((id == PMUCTX_EV_TASK_CLOCK || id == PMUCTX_EV_CONTEXT_SWITCHES ||
	     id == PMUCTX_EV_CPU_MIGRATIONS) && d->flags)
		return 0;
	if (id != PMUCTX_EV_RAW)
		return !d->type && !d->config && !d->config1 && !d->config2;
	return d->type == 4 /* PERF_TYPE_RAW */ || d->type >= 6;
}

/* event_desc[] and sample_desc: used slots as above, the rest zero */
static int model_evdesc(const struct pmuctx_session_attr *a)
{
	static const struct pmuctx_event_desc zero;
	unsigned int i;

	for (i = 0; i < PMUCTX_MAX_EVENTS; i++) {
		if (i >= a->nr_events) {
			if (memcmp(&a->event_desc[i], &zero, sizeof(zero)))
				return 0;
		} else if (!model_desc_ok(a->events[i], &a->event_desc[i])) {
			return 0;
		}
	}
	if (!a->sample_event)
		return !memcmp(&a->sample_desc, &zero, sizeof(zero));
	return model_desc_ok(a->sample_event, &a->sample_desc);
}
#endif

static int attr_valid_shape(const struct pmuctx_session_attr *a0,
			    uint32_t usize)
{
	struct pmuctx_session_attr a;
	unsigned int i, j;

	kernel_view(&a, a0, usize);
	if (a.flags & ~PMUCTX_SESSION_FLAGS_ALL || a.__reserved || a.__reserved2)
		return 0;
	switch (a.target) {
	case PMUCTX_TARGET_PID:
		if (a.pid < 0 || (a.cgroup_fd != 0 && a.cgroup_fd != -1))
			return 0;
		break;
	case PMUCTX_TARGET_CGROUP:
		if (a.pid || a.cgroup_fd < 0 || a.flags & PMUCTX_SESSION_THREAD)
			return 0;
		break;
	case PMUCTX_TARGET_SYSTEM:
		if (a.pid || (a.cgroup_fd != 0 && a.cgroup_fd != -1) ||
		    a.flags & PMUCTX_SESSION_THREAD)
			return 0;
		break;
	default:
		return 0;
	}
	if (a.nr_events < 1 || a.nr_events > PMUCTX_MAX_EVENTS)
		return 0;
	for (i = 0; i < PMUCTX_MAX_EVENTS; i++) {
		if (i >= a.nr_events) {
			if (a.events[i])
				return 0;
			continue;
		}
		if (a.events[i] < 1 || a.events[i] > PMUCTX_EV_MAX)
			return 0;
		for (j = 0; j < i; j++)
			if (a.events[j] == a.events[i]
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER4
			    && !memcmp(&a.event_desc[j], &a.event_desc[i],
				       sizeof(a.event_desc[i]))
#endif
			    )
				return 0;
	}
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER4
	if (!model_evdesc(&a))
		return 0;
#endif
	switch (a.backend) {
	case PMUCTX_BACKEND_NONE:
		if (a.data_size)
			return 0;
		break;
	case PMUCTX_BACKEND_SELFTEST:
		if (a.data_size < 8 || a.data_size > PMUCTX_MAX_DATA_SIZE)
			return 0;
		break;
	default:
		return 0;
	}
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	if (!a.sample_freq &&
	    (a.sample_flags || a.sample_max_stack || a.sample_event))
		return 0;
#endif
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER3
	if (a.__reserved4 || (!a.sample_freq && a.sample_user_dump))
		return 0;
#endif
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	if (a.sample_freq && !a.ring_pages)
		return 0;
#endif
	if (!a.ring_pages)
		return !(a.ring_mode || a.ring_records || a.wakeup_bytes ||
			 a.trigger_event || a.trigger_threshold);
	if (!pow2(a.ring_pages))
		return 0;
	if (a.ring_mode != PMUCTX_RING_NORMAL &&
	    a.ring_mode != PMUCTX_RING_OVERWRITE)
		return 0;
	if (a.ring_records & ~PMUCTX_REC_MASK_ALL)
		return 0;
	if (a.trigger_event && (a.ring_mode != PMUCTX_RING_OVERWRITE ||
				a.trigger_event > a.nr_events ||
				!a.trigger_threshold))
		return 0;
	if (!a.trigger_event && a.trigger_threshold)
		return 0;
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
	if (a.sample_event &&
	    (a.sample_event < 1 || a.sample_event > PMUCTX_EV_MAX ||
	     a.sample_event == PMUCTX_EV_TASK_CLOCK ||
	     a.sample_event == PMUCTX_EV_CONTEXT_SWITCHES ||
	     a.sample_event == PMUCTX_EV_CPU_MIGRATIONS))
		return 0;
	if (a.sample_freq) {
		if (a.sample_flags & ~PMUCTX_SAMPLE_FLAGS_ALL ||
		    ((a.sample_flags & PMUCTX_SAMPLE_DEFER_USER) &&
		     !(a.sample_flags & PMUCTX_SAMPLE_USER_STACK)) ||
		    a.sample_max_stack > PMUCTX_MAX_STACK)
			return 0;
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER3
		/*
		 * the dump: a multiple of 8 up to the max, its record in half
		 * a CPU's data area, only with DEFER_USER
		 */
		if (a.sample_flags & PMUCTX_SAMPLE_USER_DUMP) {
			uint32_t d = a.sample_user_dump ? a.sample_user_dump :
				     PMUCTX_USER_DUMP_DEFAULT;

			if (!(a.sample_flags & PMUCTX_SAMPLE_DEFER_USER) ||
			    d % 8 || d > PMUCTX_USER_DUMP_MAX ||
			    PMUCTX_REC_USER_STACK_SIZE(d) >
			    (uint64_t)a.ring_pages * PAGE / 2)
				return 0;
		} else if (a.sample_user_dump) {
			return 0;
		}
#endif
		/* the cap is a module parameter */
		if (a.sample_freq > max_sample_freq)
			return -1;
	}
#endif
	/* wakeup_bytes and max_exited limits are not in the header: -1 */
	if ((uint64_t)a.wakeup_bytes > (uint64_t)a.ring_pages * PAGE)
		return -1;
	return 1;
}

/*
 * kernel.perf_event_max_sample_rate now: SESSION_CREATE refuses a caller
 * without CAP_PERFMON a sample_freq above it (EINVAL, as perf), and perf
 * lowers it while a run goes on when its interrupts take long (the
 * arm64 tier's emulated PMU): a model can only read it when it needs it.
 */
static unsigned int perf_sample_rate(void)
{
	unsigned int v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Errors a well-formed create may still get, and why. */
static const int errs_create_valid[] = {
	EACCES,		/* unprivileged, paranoid */
	EPERM,		/* RLIMIT_MEMLOCK for the ring */
	ESRCH,		/* the target exited */
	EOPNOTSUPP,	/* hardware events in a VM */
	ENOMEM,		/* ring larger than max_ring_pages, allocations */
	EBADF, ENOTDIR,	/* cgroup fd */
	EBUSY,		/* already a session */
	EMFILE, EINVAL, /* EINVAL: max_exited beyond the module's cap */
	ENOENT,		/* a raw event's PMU does not take it */
	EUSERS,		/* hardware events of unprivileged sessions beyond
			 * max_unprivileged_pmu_counters (a real PMU: the
			 * arm64 tier; none in the x86-64 TCG guest) */
	0
};

/*
 * 1: the module must accept @a0's shape; 0: it must refuse it; 2: the
 * shape is right but a raw event (PMUCTX_EV_RAW) is there, which its
 * PMU may refuse (EINVAL, EOPNOTSUPP, EACCES: module/counters.c
 * pmuctx_raw_probe()).
 */
static int attr_valid(const struct pmuctx_session_attr *a0, uint32_t usize)
{
	int v = attr_valid_shape(a0, usize);
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER4
	struct pmuctx_session_attr a;
	unsigned int i;

	if (v != 1)
		return v;
	kernel_view(&a, a0, usize);
	for (i = 0; i < a.nr_events && i < PMUCTX_MAX_EVENTS; i++)
		if (a.events[i] == PMUCTX_EV_RAW)
			return 2;
	if (a.sample_event == PMUCTX_EV_RAW)
		return 2;
#endif
	return v;
}

static void after_create(int s, const struct pmuctx_session_attr *a,
			 uint32_t usize)
{
	struct pmuctx_session_attr b;
	int err;
	long ret;

	struct pmuctx_session_attr k;

	/*
	 * What the kernel created is what it read: the first @usize bytes,
	 * zero beyond.  A size between two published versions (80, say)
	 * still carries the fields it covers (ring_pages at offset 72): the
	 * kernel does not round sizes down to a version (seed 3318547166).
	 */
	kernel_view(&k, a, usize);
	slots[s].kind = K_LIVE;
	slots[s].nr_events = k.nr_events;
	slots[s].ring_pages = k.ring_pages;
	slots[s].ring_mode = k.ring_pages ? k.ring_mode : 0;
	st.sessions++;
	if (chance(&R, 30)) {
		memcpy(&b, a, sizeof(b));
		b.size = sizeof(b);
		ret = xioctl(slots[s].fd, PMUCTX_IOC_SESSION_CREATE,
			     (unsigned long)&b, &err);
		if (ret != -1 || err != EBUSY)
			fail("second SESSION_CREATE on a live fd: ret %ld errno %d, want EBUSY",
			     ret, err);
	}
	if (chance(&R, 60)) {
		ret = xioctl(slots[s].fd, PMUCTX_IOC_ENABLE, 0, &err);
		if (ret)
			fail("ENABLE of a new session: %s", strerror(err));
	}
}

static void op_create(bool mutated)
{
	struct pmuctx_session_attr a;
	int s = pick_slot(K_NEW), err, bad = 0, valid;
	uint32_t usize;
	unsigned char *p;
	long ret;
	int op = mutated ? OP_CREATE_MUT : OP_CREATE;

	if (s < 0)
		s = pick_slot(K_LIVE);
	if (s < 0)
		return;
	gen_attr(&a);
	usize = a.size;
	if (mutated) {
		if (chance(&R, 50))
			mutate(&a, sizeof(a));
		if (chance(&R, 30))
			a.size = gen_size(PMUCTX_SESSION_ATTR_SIZE_VER0, sizeof(a));
		usize = a.size;
	}
	if (mutated && chance(&R, 25)) {
		p = gen_ptr(sizeof(a), &bad);
		if (!bad)
			memcpy(p, &a, sizeof(a));
		/* what follows the struct there is whatever the arena holds */
		if (!bad && usize > sizeof(a))
			bad = 2;
	} else if (usize > sizeof(a) && usize <= ARENA_PAGES * PAGE) {
		/* a longer struct: a zero tail is fine, a non-zero one E2BIG */
		p = arena;
		memset(p, 0, usize);
		memcpy(p, &a, sizeof(a));
		if (chance(&R, 50))
			p[sizeof(a) + rn(&R, usize - sizeof(a))] = 1;
	} else {
		p = (unsigned char *)&a;
	}
	vlog("create slot %d fd %d target %u pid %d flags %#x nev %u ring %u size %u%s",
	     s, slots[s].fd, a.target, a.pid, a.flags, a.nr_events,
	     a.ring_pages, usize, bad ? " (bad ptr)" : "");
	ret = xioctl(slots[s].fd, PMUCTX_IOC_SESSION_CREATE, (unsigned long)p,
		     &err);
	count_err(op, ret, err);
	if (bad) {
		if (ret == 0 && p != ro_page && bad == 1)
			fail("SESSION_CREATE with a bad pointer %p succeeded", p);
		expect_errs("SESSION_CREATE (bad pointer)", ret, err, errs_ioctl);
		if (ret == 0)
			after_create(s, (struct pmuctx_session_attr *)p, usize);
		return;
	}
	if (slots[s].kind == K_LIVE) {
		if (ret != -1 || (err != EBUSY && err != EFAULT))
			fail("SESSION_CREATE on a live session: ret %ld errno %d, want EBUSY",
			     ret, err);
		return;
	}
	if (usize == 0xffffffffU || (usize > sizeof(a) && p != arena)) {
		/* size beyond our buffer: the kernel reads unmapped memory or
		 * our stack; anything but success with garbage is fine
		 */
		expect_errs("SESSION_CREATE (huge size)", ret, err, errs_ioctl);
		if (ret == 0)
			after_create(s, &a, sizeof(a));
		return;
	}
	if (usize < PMUCTX_SESSION_ATTR_SIZE_VER0) {
		if (ret != -1 || err != EINVAL)
			fail("SESSION_CREATE size %u < VER0: ret %ld errno %d, want EINVAL",
			     usize, ret, err);
		return;
	}
	if (usize > PAGE && p == arena) {
		char what[64];

		/* over a page, whatever the tail: E2BIG (size_check()) */
		snprintf(what, sizeof(what),
			 "SESSION_CREATE of size %u > a page", usize);
		want_e2big(what, ret, err, p, ksize_attr);
		return;
	}
	if (usize > ksize_attr && p == arena &&
	    !all_byte(p + ksize_attr, usize - ksize_attr, 0)) {
		want_e2big("SESSION_CREATE with a non-zero unknown tail", ret,
			   err, p, ksize_attr);
		return;
	}
	valid = attr_valid(&a, usize);
	if (valid == 0) {
		if (ret == 0)
			fail("SESSION_CREATE accepted an invalid attr (target %u flags %#x nev %u backend %u data %u ring %u/%u/%#x/%u trig %u/%llu)",
			     a.target, a.flags, a.nr_events, a.backend,
			     a.data_size, a.ring_pages, a.ring_mode,
			     a.ring_records, a.wakeup_bytes, a.trigger_event,
			     (unsigned long long)a.trigger_threshold);
		else
			expect_errs("SESSION_CREATE (invalid attr)", ret, err,
				    (const int[]){ EINVAL, EFAULT, E2BIG, ENOMEM, EACCES, 0 });
		if (ret == 0)
			after_create(s, &a, usize);
		return;
	}
	if (ret) {
		if (!err_in(err, errs_create_valid))
			fail("SESSION_CREATE (valid attr, size %u, %s) failed: %s",
			     usize, p == arena ? "arena" : p == (void *)&a ?
			     "stack" : "elsewhere", strerror(err));
		/* above perf's sample rate as it is now: refused as perf */
		if (err == EINVAL && unpriv && a.sample_freq &&
		    a.sample_freq > perf_sample_rate())
			return;
		if (err == EINVAL && valid == 1 && a.max_exited <= 4096) {
			char hex[2 * sizeof(a) + 1];
			unsigned int k;

			for (k = 0; k < sizeof(a); k++)
				sprintf(hex + 2 * k, "%02x", ((unsigned char *)&a)[k]);
			printf("# attr: %s\n", hex);
		}
		if (err == EINVAL && valid == 1 && a.max_exited <= 4096)
			fail("SESSION_CREATE refused a valid attr with EINVAL (target %u pid %d flags %#x nev %u ev0 %u backend %u data %u ring %u/%u/%#x/%u trig %u)",
			     a.target, a.pid, a.flags, a.nr_events, a.events[0],
			     a.backend, a.data_size, a.ring_pages, a.ring_mode,
			     a.ring_records, a.wakeup_bytes, a.trigger_event);
		return;
	}
	after_create(s, &a, usize);
}

/* ---- ENABLE / DISABLE / RESET / READ ----------------------------------------- */

static void op_ctl(void)
{
	static const unsigned long cmds[] = {
		PMUCTX_IOC_ENABLE, PMUCTX_IOC_DISABLE, PMUCTX_IOC_RESET,
	};
	int s = pick_pmu_slot(), err;
	unsigned long cmd = cmds[rn(&R, 3)], arg = 0;
	long ret;

	if (s < 0)
		return;
	if (chance(&R, 15))
		arg = (unsigned long)gen_u64() | 1;
	ret = xioctl(slots[s].fd, cmd, arg, &err);
	count_err(OP_CTL, ret, err);
	if (slots[s].kind == K_UNK) {
		expect_errs("enable/disable/reset", ret, err, errs_ioctl);
		return;
	}
	if (slots[s].kind != K_LIVE || arg) {
		if (ret != -1 || err != EINVAL)
			fail("ioctl %#lx arg %#lx on a %s fd: ret %ld errno %d, want EINVAL",
			     cmd, arg, slots[s].kind == K_LIVE ? "live" : "new",
			     ret, err);
		return;
	}
	if (ret)
		fail("ioctl %#lx on a live session: %s", cmd, strerror(err));
}

static const uint32_t task_sizes[] = {
	PMUCTX_TASK_VALUES_SIZE_VER0, sizeof(struct pmuctx_task_values) + 8,
	256, PAGE, PMUCTX_TASK_VALUES_SIZE_VER0 - 1, PAGE + 1, 161,
};

static void check_task(const unsigned char *el, uint32_t tsz,
		       unsigned int nev)
{
	struct pmuctx_task_values tv;
	size_t kn = sizeof(tv), cl;
	unsigned int i;

	memcpy(&tv, el, sizeof(tv));
	if (tv.flags & ~(PMUCTX_TASK_EXITED | PMUCTX_TASK_PRIV_EXEC |
			 PMUCTX_TASK_INHERITED))
		fail("READ: task flags %#x", tv.flags);
	cl = strnlen(tv.comm, sizeof(tv.comm));
	if (cl == sizeof(tv.comm))
		fail("READ: comm not NUL-terminated");
	for (i = nev; i < PMUCTX_MAX_EVENTS; i++)
		if (tv.values[i] || tv.children[i])
			fail("READ: task value %u set past nr_events %u", i, nev);
	if (tsz > kn && !all_byte(el + kn, tsz - kn, 0))
		fail("READ: element tail past the kernel's struct not zeroed");
}

static void op_read(void)
{
	int s = pick_pmu_slot(), err, bad = 0;
	struct pmuctx_read r, *rp;
	uint32_t tsz = task_sizes[rn(&R, 7)], cap = 0;
	unsigned char *arr = NULL;
	size_t arrlen = 0, watch = 0;
	bool per_task = false, partial = false, unk;
	unsigned int i;
	long ret;

	if (s < 0)
		return;
	unk = slots[s].kind == K_UNK;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	if (chance(&R, 60)) {
		per_task = true;
		r.flags = PMUCTX_READ_PER_TASK;
		r.task_size = tsz;
		cap = (uint32_t[]){ 0, 1, 4, 16, 64, 256 }[rn(&R, 6)];
		if ((uint64_t)cap * tsz > TASKBUF / 4)
			cap = TASKBUF / 4 / tsz;
		arrlen = (size_t)cap * tsz;
		arr = taskbuf;
		if (chance(&R, 10) && cap) {
			/* the last element runs into the guard page */
			arr = taskbuf + TASKBUF - arrlen + tsz / 2;
			partial = true;
		}
		watch = partial ? 0 : 64;
		memset(arr, PAT, arrlen - (partial ? tsz / 2 : 0) + watch);
		r.nr_tasks = cap;
		r.tasks_ptr = (uintptr_t)arr;
	}
	if (chance(&R, 17)) {
		/* mutated */
		mutate(&r, sizeof(r));
		if (chance(&R, 30))
			r.size = gen_size(PMUCTX_READ_SIZE_VER0, sizeof(r));
		if (r.size > sizeof(r))
			r.size = sizeof(r);
		/* keep the kernel's writes inside our buffers */
		if ((uint64_t)r.nr_tasks * r.task_size > TASKBUF / 2)
			r.nr_tasks = 0;
		if (r.tasks_ptr != (uintptr_t)arr)
			r.tasks_ptr = (uintptr_t)taskbuf;
		rp = &r;
		if (chance(&R, 30)) {
			rp = gen_ptr(sizeof(r), &bad);
			if (!bad)
				memcpy(rp, &r, sizeof(r));
		}
		ret = xioctl(slots[s].fd, PMUCTX_IOC_READ, (unsigned long)rp,
			     &err);
		count_err(OP_READ, ret, err);
		expect_errs("READ (mutated)", ret, err, errs_ioctl);
		return;
	}
	ret = xioctl(slots[s].fd, PMUCTX_IOC_READ, (unsigned long)&r, &err);
	count_err(OP_READ, ret, err);
	if (unk) {
		expect_errs("READ", ret, err, errs_ioctl);
		return;
	}
	if (slots[s].kind != K_LIVE) {
		if (ret != -1 || err != EINVAL)
			fail("READ on a new fd: ret %ld errno %d, want EINVAL",
			     ret, err);
		return;
	}
	if (per_task && (tsz < PMUCTX_TASK_VALUES_SIZE_VER0 || tsz > PAGE)) {
		if (ret != -1 || err != EINVAL)
			fail("READ with task_size %u: ret %ld errno %d, want EINVAL",
			     tsz, ret, err);
		return;
	}
	if (ret && err == ENOSPC) {
		if (!per_task)
			fail("READ without PER_TASK: ENOSPC");
		else if (r.nr_tasks <= cap)
			fail("READ ENOSPC with nr_tasks %u <= capacity %u",
			     r.nr_tasks, cap);
		if (arr && !all_byte(arr, arrlen - (partial ? tsz / 2 : 0) + watch, PAT))
			fail("READ ENOSPC wrote to the task array");
	} else if (ret) {
		expect_errs("READ", ret, err, (const int[]){ ENOMEM, EFAULT, 0 });
		if (err == EFAULT && !partial)
			fail("READ with good buffers: EFAULT");
		return;
	}
	if (r.nr_events != slots[s].nr_events)
		fail("READ: nr_events %u, the session has %u", r.nr_events,
		     slots[s].nr_events);
	if (r.__pad)
		fail("READ: __pad %u", r.__pad);
	for (i = r.nr_events; i < PMUCTX_MAX_EVENTS; i++)
		if (r.values[i])
			fail("READ: value %u set past nr_events %u", i, r.nr_events);
	if (r.tasks_exited > r.tasks_seen)
		fail("READ: %llu exited of %llu seen",
		     (unsigned long long)r.tasks_exited,
		     (unsigned long long)r.tasks_seen);
	if (ret)
		return;
	if (!per_task) {
		if (r.nr_tasks)
			fail("READ without PER_TASK: nr_tasks %u", r.nr_tasks);
		return;
	}
	if (r.nr_tasks > cap) {
		fail("READ: %u tasks written, capacity %u", r.nr_tasks, cap);
		return;
	}
	for (i = 0; i < r.nr_tasks; i++)
		check_task(arr + (size_t)i * tsz, tsz, r.nr_events);
	if (!partial &&
	    !all_byte(arr + (size_t)r.nr_tasks * tsz,
		      arrlen - (size_t)r.nr_tasks * tsz + watch, PAT))
		fail("READ wrote past the %u elements it reported", r.nr_tasks);
}

/* ---- ring buffers: ioctls, mmap, read/write/poll ---------------------------- */

static void op_ring_ioc(void)
{
	int s = pick_pmu_slot(), err, bad, consume = 0;
	struct pmuctx_ring_consume c;
	bool boundary = false;
	unsigned char *p;
	long ret;

	if (s < 0)
		return;
	switch (rn(&R, 3)) {
	case 0:
		ret = xioctl(slots[s].fd, PMUCTX_IOC_SNAPSHOT,
			     chance(&R, 90) ? 0 : gen_u64(), &err);
		break;
	case 1:
		ret = xioctl(slots[s].fd, PMUCTX_IOC_RESUME,
			     chance(&R, 90) ? 0 : gen_u64(), &err);
		break;
	default:
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.cpu = chance(&R, 90) ? rn(&R, nr_cpus) : (uint32_t)gen_u64();
		c.tail = gen_u64();
		if (slots[s].mapped && chance(&R, 70)) {
			/* a tail near the real one, from the control page */
			int i;

			for (i = 0; i < NMAP; i++) {
				if (maps[i].addr && maps[i].slot == s &&
				    maps[i].whole) {
					struct pmuctx_ring_ctl *ctl = (void *)
						((unsigned char *)maps[i].addr +
						 (size_t)c.cpu * (1 + slots[s].ring_pages) * PAGE);

					if (c.cpu >= nr_cpus)
						break;
					c.tail = __atomic_load_n(&ctl->data_tail, __ATOMIC_ACQUIRE) +
						 (chance(&R, 50) ? 0 : rn(&R, 64));
					if (chance(&R, 30))
						c.tail = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
					boundary = c.tail == ctl->data_tail ||
						   c.tail == ctl->data_head;
					break;
				}
			}
		}
		if (chance(&R, 20)) {
			mutate(&c, sizeof(c));
			boundary = false;
		}
		p = (unsigned char *)&c;
		if (chance(&R, 10)) {
			p = gen_ptr(sizeof(c), &bad);
			if (!bad)
				memcpy(p, &c, sizeof(c));
		}
		ret = xioctl(slots[s].fd, PMUCTX_IOC_RING_CONSUME,
			     (unsigned long)p, &err);
		consume = 1;
		break;
	}
	if (consume && ret == 0 && !boundary)
		slots[s].mangled = true;
	count_err(OP_RING_IOC, ret, err);
	expect_errs("ring ioctl", ret, err, errs_ioctl);
	if (ret == 0 && slots[s].kind != K_UNK && !slots[s].ring_pages)
		fail("ring ioctl succeeded on a %s without a ring",
		     slots[s].kind == K_LIVE ? "session" : "new fd");
}

static sigjmp_buf touch_jmp;
static volatile sig_atomic_t touching;

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	char buf[200];
	int n;

	(void)uc;
	if (touching && syscall(SYS_gettid) == getpid())
		siglongjmp(touch_jmp, sig);
	/* a bug of the fuzzer itself (or memory the kernel corrupted) */
	n = snprintf(buf, sizeof(buf),
		     "FAIL: worker %d: signal %d code %d at address %p (pid %d tid %ld%s) during op #%ld (%s)\n",
		     wid, sig, si->si_code, si->si_addr, (int)getpid(),
		     (long)syscall(SYS_gettid), getpid() == worker_pid ? "" :
		     ", a child", cur_op, cur_name);
	if (write(1, buf, n) < 0)
		_exit(5);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read every page of a granted mapping; 0, or the signal it raised. */
static int touch(const void *addr, size_t len)
{
	volatile const unsigned char *p = addr;
	unsigned int sum = 0;
	size_t off;
	int sig;

	sig = sigsetjmp(touch_jmp, 1);
	if (sig) {
		touching = 0;
		return sig;
	}
	touching = 1;
	for (off = 0; off < len; off += PAGE)
		sum += p[off];
	touching = 0;
	(void)sum;
	return 0;
}

static void check_ctl_pages(const unsigned char *base, unsigned int pages,
			    unsigned int mode)
{
	unsigned int c;

	for (c = 0; c < nr_cpus; c++) {
		const struct pmuctx_ring_ctl *ctl = (const void *)
			(base + (size_t)c * (1 + pages) * PAGE);
		uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = ctl->data_tail;

		if (ctl->version != PMUCTX_RING_VERSION || ctl->cpu != c ||
		    ctl->mode != mode || ctl->data_offset != PAGE ||
		    ctl->data_size != (uint64_t)pages * PAGE) {
			fail("ring control page of cpu %u: version %u cpu %u mode %u offset %llu size %llu",
			     c, ctl->version, ctl->cpu, ctl->mode,
			     (unsigned long long)ctl->data_offset,
			     (unsigned long long)ctl->data_size);
			return;
		}
		if (head - tail > ctl->data_size && head >= tail)
			fail("ring cpu %u: head %llu - tail %llu > size",
			     c, (unsigned long long)head,
			     (unsigned long long)tail);
	}
}

static void op_mmap(void)
{
	int s = pick_slot(K_LIVE), i, sig, prot, flags;
	size_t len, exact;
	off_t off = 0;
	void *m;

	if (s < 0)
		s = pick_pmu_slot();
	if (s < 0)
		return;
	exact = (size_t)nr_cpus * (1 + slots[s].ring_pages) * PAGE;
	switch (rn(&R, 6)) {
	case 0: len = PAGE * (1 + rn(&R, 8)); break;
	case 1: len = exact + PAGE; break;
	case 2: len = rn(&R, 3 * PAGE); break;
	default: len = exact; break;
	}
	prot = chance(&R, 75) ? PROT_READ :
	       (int[]){ PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC, PROT_WRITE,
			PROT_NONE }[rn(&R, 4)];
	flags = chance(&R, 85) ? MAP_SHARED : MAP_PRIVATE;
	if (chance(&R, 10))
		off = (off_t)PAGE * (1 + rn(&R, 4));
	for (i = 0; i < NMAP && maps[i].addr; i++)
		;
	if (i == NMAP)
		return;
	m = mmap(NULL, len, prot, flags, slots[s].fd, off);
	count_err(OP_MMAP, m == MAP_FAILED ? -1 : 0, errno);
	if (m == MAP_FAILED) {
		expect_errs("mmap", -1, errno, (const int[]){ EINVAL, ENODEV,
			    EBUSY, EACCES, EPERM, ENOMEM, EAGAIN, EOVERFLOW, 0 });
		/* EBUSY is fine: a child may still hold an inherited mapping */
		if (slots[s].kind == K_LIVE && slots[s].ring_pages &&
		    !slots[s].mapped && len == exact && prot == PROT_READ &&
		    flags == MAP_SHARED && !off &&
		    (errno == EINVAL || errno == ENODEV))
			fail("mmap of the whole ring (%zu bytes) refused: %s",
			     len, strerror(errno));
		return;
	}
	st.mappings++;
	vlog("mmap slot %d len %zu prot %d flags %d off %ld -> %p", s, len,
	     prot, flags, (long)off, m);
	maps[i].addr = m;
	maps[i].len = len;
	maps[i].slot = s;
	maps[i].whole = len == exact && (prot & PROT_READ) &&
			slots[s].kind == K_LIVE;
	if (slots[s].kind == K_UNK) {
		if ((prot & PROT_READ) && touch(m, len))
			fail("reading a granted mapping raised a signal");
		return;
	}
	if (slots[s].kind != K_LIVE || !slots[s].ring_pages)
		fail("mmap granted on a fd without a ring");
	if (prot & (PROT_WRITE | PROT_EXEC))
		fail("mmap granted with prot %#x (must be read-only)", prot);
	if (flags != MAP_SHARED || off || len != exact)
		fail("mmap granted: flags %#x offset %ld length %zu (want MAP_SHARED, 0, %zu)",
		     flags, (long)off, len, exact);
	if (slots[s].mapped)
		fail("a second mmap of the same session was granted");
	slots[s].mapped = true;
	sig = prot & PROT_READ ? touch(m, len) : 0;
	if (sig)
		fail("reading the granted mapping raised signal %d", sig);
	else if (len == exact && (prot & PROT_READ))
		check_ctl_pages(m, slots[s].ring_pages, slots[s].ring_mode);
	if (!mprotect(m, len, PROT_READ | PROT_WRITE))
		fail("mprotect() added write to the ring mapping");
	if (!mprotect(m, PAGE, PROT_READ | PROT_EXEC))
		fail("mprotect() added exec to the ring mapping");
	if (chance(&R, 20)) {
		/* split it: unmap one page in the middle or the end */
		size_t at = PAGE * rn(&R, len / PAGE);
		int j;

		maps[i].whole = false;
		if (!munmap((char *)m + at, PAGE)) {
			/*
			 * Keep maps[] exact: a range that still covered the
			 * hole would later munmap() whatever the kernel put
			 * there (glibc put a thread stack there once).
			 */
			if (at + PAGE < len) {
				for (j = 0; j < NMAP && maps[j].addr; j++)
					;
				if (j < NMAP) {
					maps[j].addr = (char *)m + at + PAGE;
					maps[j].len = len - at - PAGE;
					maps[j].slot = s;
					maps[j].whole = false;
				} else {
					munmap((char *)m + at + PAGE, len - at - PAGE);
				}
			}
			maps[i].len = at;
			if (!at)
				maps[i].addr = NULL;
			for (j = 0; j < NMAP; j++)
				if (maps[j].addr && maps[j].slot == s)
					break;
			if (j == NMAP)
				slots[s].mapped = false;
		}
	}
	if (maps[i].addr && chance(&R, 10)) {
		void *n = mremap(maps[i].addr, maps[i].len, maps[i].len + PAGE,
				 MREMAP_MAYMOVE);

		if (n != MAP_FAILED) {
			maps[i].addr = n;
			maps[i].len += PAGE;
		}
	}
}

static void op_munmap(void)
{
	int i = rn(&R, NMAP);

	if (!maps[i].addr)
		return;
	munmap(maps[i].addr, maps[i].len);
	maps[i].addr = NULL;
	st.ok[OP_MUNMAP]++;
	/* a second mmap may be granted once no mapping of ours is left
	 * (children that inherited one make the kernel say EBUSY: allowed)
	 */
	{
		int j, left = 0;

		for (j = 0; j < NMAP; j++)
			left += maps[j].addr && maps[j].slot == maps[i].slot;
		if (!left)
			slots[maps[i].slot].mapped = false;
	}
}

static void check_records(const unsigned char *buf, size_t n)
{
	size_t off = 0;

	if (n % 8)
		fail("read(2) returned %zu bytes, not whole records", n);
	while (off + sizeof(struct pmuctx_rec_header) <= n) {
		const struct pmuctx_rec_header *h = (const void *)(buf + off);

		if (h->size < 8 || h->size % 8 || off + h->size > n) {
			fail("read(2): malformed record at %zu: type %u size %u (of %zu)",
			     off, h->type, h->size, n);
			return;
		}
		if (h->type == PMUCTX_REC_PAD)
			fail("read(2) returned a PAD record");
		if (h->type < 1 || h->type > PMUCTX_REC_MAX)
			fail("read(2): record type %u", h->type);
		off += h->size;
	}
}

static void op_rw(void)
{
	int s = pick_pmu_slot(), fl, bad = 0;
	size_t len;
	ssize_t n;
	void *p;

	if (s < 0)
		return;
	fl = fcntl(slots[s].fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(slots[s].fd, F_SETFL, fl | O_NONBLOCK);
	switch (rn(&R, 3)) {
	case 0:
		len = chance(&R, 70) ? ARENA_PAGES * PAGE : rn(&R, ARENA_PAGES * PAGE);
		p = chance(&R, 85) ? (void *)arena : gen_ptr(len, &bad);
		if (p != arena)
			bad = 1;	/* may be short: EFAULT is fine */
		n = read(slots[s].fd, p, len);
		count_err(OP_RW, n < 0 ? -1 : 0, errno);
		if (n < 0) {
			expect_errs("read(2)", -1, errno, (const int[]){ EINVAL,
				    EAGAIN, EFAULT, EINTR, EIO, 0 });
			if (errno == EFAULT && !bad && p == arena)
				fail("read(2) into a good buffer: EFAULT");
		} else if (n > (ssize_t)len) {
			fail("read(2) returned %zd > %zu", n, len);
		} else if (n > 0 && p == arena && !slots[s].mangled) {
			check_records(arena, n);
		}
		if (n > 0 && slots[s].kind != K_UNK && !slots[s].ring_pages)
			fail("read(2) returned data from a session without a ring");
		break;
	case 1:
		len = chance(&R, 80) ? 1 + rn(&R, PMUCTX_USER_MAX) :
				       rn(&R, ARENA_PAGES * PAGE);
		if (slots[s].ring_pages && chance(&R, 30)) {
			/*
			 * The ring's edges (issue 29 item 1): a record of
			 * about half the buffer, often right after one
			 * dropped while frozen (a LOST record pending), so
			 * that a PAD, the LOST record and the record meet.
			 */
			size_t half = (size_t)slots[s].ring_pages * PAGE / 2;
			unsigned int k, nr = rn(&R, 3);
			cpu_set_t all, one;
			int e, pinned;

			/* one CPU's buffer for the whole sequence */
			CPU_ZERO(&one);
			CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
			pinned = !sched_getaffinity(0, sizeof(all), &all) &&
				 !sched_setaffinity(0, sizeof(one), &one);
			/* records of half the buffer put the head near half */
			for (k = 0; k < nr; k++)
				if (write(slots[s].fd, arena, half -
					  sizeof(struct pmuctx_rec_user) -
					  8 * rn(&R, 6)) < 0)
					count_err(OP_RW, -1, errno);
			len = half - sizeof(struct pmuctx_rec_user) -
			      8 * rn(&R, 12) + rn(&R, 16);
			if (chance(&R, 50)) {
				xioctl(slots[s].fd, PMUCTX_IOC_SNAPSHOT, 0, &e);
				if (write(slots[s].fd, arena, 8) < 0)
					count_err(OP_RW, -1, errno);
				xioctl(slots[s].fd, PMUCTX_IOC_RESUME, 0, &e);
			}
			n = write(slots[s].fd, arena, len);
			count_err(OP_RW, n < 0 ? -1 : 0, errno);
			if (pinned)
				sched_setaffinity(0, sizeof(all), &all);
		}
		p = chance(&R, 90) ? (void *)arena : gen_ptr(len, &bad);
		n = write(slots[s].fd, p, len);
		count_err(OP_RW, n < 0 ? -1 : 0, errno);
		if (n < 0)
			expect_errs("write(2)", -1, errno, (const int[]){ EINVAL,
				    ENOSPC, EFAULT, EMSGSIZE, ENOMEM, EAGAIN, 0 });
		else if ((size_t)n != len)
			fail("write(2) of %zu bytes returned %zd", len, n);
		if (n > 0 && ((slots[s].kind != K_UNK && !slots[s].ring_pages) ||
			      len > PMUCTX_USER_MAX))
			fail("write(2) of %zu bytes accepted (ring %u)", len,
			     slots[s].ring_pages);
		break;
	default: {
		struct pollfd pfd = { .fd = slots[s].fd,
				      .events = POLLIN | POLLOUT | POLLPRI };

		n = poll(&pfd, 1, chance(&R, 90) ? 0 : 1);
		count_err(OP_RW, n < 0 ? -1 : 0, errno);
		if (n < 0)
			fail("poll: %s", strerror(errno));
		break;
	}
	}
}

/* A read(2) that blocks must be interruptible by a signal. */
struct blk {
	int fd;
	volatile int done;
	ssize_t ret;
	int err;
};

static void noop_handler(int sig)
{
	(void)sig;
}

static void *blk_thread(void *arg)
{
	struct blk *b = arg;
	char buf[256];

	b->ret = read(b->fd, buf, sizeof(buf));
	b->err = errno;
	b->done = 1;
	return NULL;
}

static void op_blockread(void)
{
	int s = pick_slot(K_LIVE), fl, i, dup_fd;
	/* static: a reader left behind must not write into a dead frame */
	static struct blk b;
	pthread_t t;

	if (s < 0)
		return;
	/* a separate open file description would not share the flags, but
	 * the session is per file: use the file, restore O_NONBLOCK after
	 */
	if (b.fd && !b.done)
		return;		/* a reader from before is still blocked */
	memset(&b, 0, sizeof(b));
	dup_fd = dup(slots[s].fd);
	if (dup_fd < 0)
		return;
	fl = fcntl(dup_fd, F_GETFL);
	fcntl(dup_fd, F_SETFL, fl & ~O_NONBLOCK);
	b.fd = dup_fd;
	if (pthread_create(&t, NULL, blk_thread, &b)) {
		close(dup_fd);
		return;
	}
	usleep(200 + rn(&R, 2000));
	if (chance(&R, 50)) {
		close(dup_fd);		/* close under the blocked reader */
		dup_fd = -1;
	}
	for (i = 0; i < 5000 && !b.done; i++) {
		pthread_kill(t, SIGUSR1);
		usleep(1000);
	}
	if (!b.done) {
		fail("a blocking read(2) on a session was not interrupted by signals for 5 s");
		/* leave it: the worker's timeout will end the process */
		pthread_detach(t);
		return;
	}
	pthread_join(t, NULL);
	count_err(OP_BLOCKREAD, b.ret < 0 ? -1 : 0, b.err);
	if (b.ret < 0)
		expect_errs("blocking read(2)", -1, b.err, (const int[]){ EINTR,
			    EINVAL, EBADF, EAGAIN, EIO, 0 });
	if (dup_fd >= 0)
		close(dup_fd);
	fl = fcntl(slots[s].fd, F_GETFL);
	if (fl >= 0)
		fcntl(slots[s].fd, F_SETFL, fl | O_NONBLOCK);
}

/* ---- other ioctls, other files --------------------------------------------- */

static void op_raw_ioctl(void)
{
	int s = pick_pmu_slot(), err, bad;
	unsigned long cmd, arg;
	unsigned int nr;
	long ret;

	if (s < 0)
		return;
	switch (rn(&R, 4)) {
	case 0:
		cmd = (uint32_t)rnext(&R);
		break;
	case 1:
		/* right magic, random direction and size */
		nr = rn(&R, 16);
		cmd = _IOC(rn(&R, 4), PMUCTX_IOC_MAGIC, nr, rn(&R, 1 << 14));
		break;
	default:
		/* right magic and number, wrong direction */
		nr = rn(&R, 12);
		cmd = _IOC(rn(&R, 4), PMUCTX_IOC_MAGIC, nr,
			   sizeof(struct pmuctx_read));
		break;
	}
	arg = chance(&R, 50) ? (unsigned long)gen_ptr(64, &bad) : gen_u64();
	if (arg == (unsigned long)arena)
		memset(arena, 0, 64);
	ret = xioctl(slots[s].fd, cmd, arg, &err);
	count_err(OP_RAW_IOC, ret, err);
	expect_errs("raw ioctl", ret, err, errs_ioctl);
	nr = _IOC_NR(cmd);
	if (_IOC_TYPE(cmd) != PMUCTX_IOC_MAGIC || nr > _IOC_NR(PMUCTX_IOC_RING_CONSUME)) {
		if (ret != -1 || err != ENOTTY)
			fail("unknown ioctl %#lx: ret %ld errno %d, want ENOTTY",
			     cmd, ret, err);
	}
	if (ret == 0 && nr == _IOC_NR(PMUCTX_IOC_SESSION_CREATE))
		slots[s].kind = K_UNK;	/* a raw create worked: untracked */
}

static int open_other(void)
{
	int fds[2], fd = -1;

	switch (rn(&R, 7)) {
	case 0: fd = open("/dev/null", O_RDWR); break;
	case 1:
		if (pipe(fds))
			return -1;
		close(fds[1]);
		fd = fds[0];
		break;
	case 2: fd = eventfd(0, 0); break;
	case 3: fd = memfd_create("pmuctx-fuzz", 0); break;
	case 4: fd = open("/proc/self/status", O_RDONLY); break;
	case 5: fd = cgroup_fd >= 0 ? dup(cgroup_fd) : -1; break;
	default: fd = open("/dev/zero", O_RDONLY); break;
	}
	return fd;
}

static void op_foreign(void)
{
	static const unsigned long cmds[] = {
		PMUCTX_IOC_INFO, PMUCTX_IOC_SESSION_CREATE, PMUCTX_IOC_READ,
		PMUCTX_IOC_ENABLE, PMUCTX_IOC_RING_CONSUME,
	};
	int fd, err, s;
	long ret;

	/* pmuctx ioctls on other files, and on closed fd numbers */
	s = pick_slot(K_OTHER);
	fd = s >= 0 && chance(&R, 70) ? slots[s].fd :
	     chance(&R, 50) ? 800 + (int)rn(&R, 50) : -1;
	memset(arena, 0, PAGE);
	*(uint32_t *)arena = sizeof(struct pmuctx_info);
	ret = xioctl(fd, cmds[rn(&R, 5)], (unsigned long)arena, &err);
	count_err(OP_FOREIGN, ret, err);
	if (ret == 0)
		fail("a pmuctx ioctl on fd %d (not pmuctx) succeeded", fd);
}

/* ---- open / close / dup / fd passing -------------------------------------- */

static void op_open(void)
{
	int s = free_slot(), fd;

	if (s < 0) {
		s = rn(&R, NSLOT);
		close_slot(s);
	}
	if (chance(&R, 85)) {
		fd = dev_open(O_NONBLOCK | (chance(&R, 50) ? O_CLOEXEC : 0));
		count_err(OP_OPEN, fd, errno);
		if (fd < 0) {
			expect_errs("open", -1, errno, (const int[]){ EACCES,
				    EMFILE, ENFILE, ENOMEM, 0 });
			if (!unpriv && errno == EACCES)
				fail("root cannot open %s", PMUCTX_DEVICE_PATH);
			return;
		}
		slots[s].fd = fd;
		slots[s].kind = K_NEW;
	} else {
		fd = open_other();
		if (fd < 0)
			return;
		slots[s].fd = fd;
		slots[s].kind = K_OTHER;
	}
	vlog("open slot %d fd %d kind %d", s, fd, slots[s].kind);
}

static void op_close(void)
{
	int s = rn(&R, NSLOT);

	if (slots[s].kind == K_FREE)
		return;
	vlog("close slot %d fd %d", s, slots[s].fd);
	close_slot(s);
	st.ok[OP_CLOSE]++;
}

static void op_dup(void)
{
	int s = pick_pmu_slot(), d = free_slot(), fd;

	if (s < 0 || d < 0)
		return;
	fd = chance(&R, 50) ? dup(slots[s].fd) :
			      fcntl(slots[s].fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return;
	/* the same file under two numbers: either may change its state, so
	 * neither is tracked any more
	 */
	memset(&slots[d], 0, sizeof(slots[d]));
	slots[d].fd = fd;
	slots[d].kind = K_UNK;
	slots[s].kind = K_UNK;
	st.ok[OP_DUP]++;
}

static void scm_send(int fd)
{
	char c = 'x', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sv[0], &m, MSG_DONTWAIT) == 1)
		inflight++;
}

static int scm_recv(void)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sv[1], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	inflight--;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void op_scm(void)
{
	int s, d, fd;

	if (sv[0] < 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return;
	switch (rn(&R, 3)) {
	case 0:
		s = pick_pmu_slot();
		if (s >= 0) {
			scm_send(slots[s].fd);
			/* sometimes close our copy: the session lives in flight */
			if (chance(&R, 40))
				close_slot(s);
		}
		break;
	case 1:
		fd = scm_recv();
		if (fd < 0)
			break;
		d = free_slot();
		if (d < 0) {
			close(fd);
			break;
		}
		/* its state is not tracked: errno checks only */
		memset(&slots[d], 0, sizeof(slots[d]));
		slots[d].fd = fd;
		slots[d].kind = K_UNK;
		break;
	default:
		/* close the sockets with fds in flight (unix GC) */
		close(sv[0]);
		close(sv[1]);
		sv[0] = sv[1] = -1;
		inflight = 0;
		break;
	}
	st.ok[OP_SCM]++;
}

/* ---- tasks ---------------------------------------------------------------- */

static void burn_us(unsigned int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L +
		 (b.tv_nsec - a.tv_nsec) / 1000 < (long)us);
}

static void *short_thread(void *arg)
{
	burn_us((unsigned int)(uintptr_t)arg);
	return NULL;
}

static void child_main(uint64_t seed)
{
	struct rng r;
	pthread_t t[8];
	unsigned int i, n;

	rng_seed(&r, seed);
	switch (rn(&r, 7)) {
	case 0:
		_exit(0);
	case 1:
		burn_us(200 + rn(&r, 3000));
		_exit(0);
	case 2:
		n = 1 + rn(&r, 4);
		for (i = 0; i < n; i++)
			if (fork() == 0) {
				burn_us(rn(&r, 2000));
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
		_exit(0);
	case 3:
		n = 1 + rn(&r, 8);
		for (i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, short_thread,
					   (void *)(uintptr_t)rn(&r, 2000)))
				break;
		n = i;
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		_exit(0);
	case 4: {
		char arg[32];

		snprintf(arg, sizeof(arg), "%" PRIu64, rnext(&r));
		execl(self_exe, "pmuctx-fuzz", "--exec-child", arg, (char *)NULL);
		_exit(127);
	}
	case 5:
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	default:
		/* stays until killed (or 30 s) */
		for (i = 0; i < 3000; i++)
			usleep(10000);
		_exit(0);
	}
}

static void reap(bool all)
{
	int i, st_;
	pid_t p;

	while ((p = waitpid(-1, &st_, all ? 0 : WNOHANG)) > 0) {
		for (i = 0; i < NKID; i++)
			if (kids[i] == p)
				kids[i] = 0;
	}
}

static void op_fork(void)
{
	uint64_t seed = rnext(&R);
	int i;
	pid_t p;

	if (!opt_children)
		return;
	for (i = 0; i < NKID && kids[i]; i++)
		;
	if (i == NKID) {
		reap(false);
		return;
	}
	p = fork();
	if (p == 0) {
		/*
		 * The child keeps the fds (a monitored task holding sessions).
		 * Its 60 s alarm only ends a child nobody killed: not the
		 * worker's handler, which reports a hung worker (a child that
		 * waits to be killed outlived it on the loaded debug kernel).
		 */
		signal(SIGALRM, SIG_DFL);
		alarm(60);
		child_main(seed);
		_exit(0);
	}
	count_err(OP_FORK, p < 0 ? -1 : 0, errno);
	if (p > 0) {
		kids[i] = p;
		st.tasks++;
	}
}

static void op_kill(void)
{
	pid_t p = some_kid();

	if (p > 0)
		kill(p, chance(&R, 50) ? SIGKILL : SIGTERM);
	reap(false);
	st.ok[OP_KILL]++;
}

static void *fuzz_thread(void *arg)
{
	burn_us((unsigned int)(uintptr_t)arg);
	__atomic_sub_fetch(&threads_alive, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void op_thread(void)
{
	pthread_attr_t at;
	pthread_t t;

	if (__atomic_load_n(&threads_alive, __ATOMIC_RELAXED) >= 8)
		return;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 * 1024);
	__atomic_add_fetch(&threads_alive, 1, __ATOMIC_RELAXED);
	if (pthread_create(&t, &at, fuzz_thread, (void *)(uintptr_t)rn(&R, 3000))) {
		__atomic_sub_fetch(&threads_alive, 1, __ATOMIC_RELAXED);
	} else {
		st.tasks++;
		st.ok[OP_THREAD]++;
	}
	pthread_attr_destroy(&at);
}

/* ---- the racer thread: shared fds closed and reused under our feet -------- */

static volatile int racer_stop;
static struct rng RR;		/* the racer's own stream */

static void shared_reopen(struct rng *r, int n)
{
	int fd = chance(r, 75) ? dev_open(O_NONBLOCK) : open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	if (fd != n) {
		dup2(fd, n);
		close(fd);
	}
}

static void shared_use(struct rng *r, int n)
{
	struct pmuctx_session_attr a;
	struct pmuctx_read rd;
	struct pmuctx_info in;
	int err;

	switch (rn(r, 6)) {
	case 0:
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.target = PMUCTX_TARGET_PID;
		a.flags = PMUCTX_SESSION_INHERIT;
		a.cgroup_fd = -1;
		a.nr_events = 2;
		a.events[0] = PMUCTX_EV_TASK_CLOCK;
		a.events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
		if (chance(r, 30) && (features & PMUCTX_FEAT_RING)) {
			a.ring_pages = 1;
			a.ring_mode = PMUCTX_RING_NORMAL;
			a.ring_records = PMUCTX_REC_MASK_ALL;
		}
		xioctl(n, PMUCTX_IOC_SESSION_CREATE, (unsigned long)&a, &err);
		break;
	case 1:
		xioctl(n, chance(r, 50) ? PMUCTX_IOC_ENABLE : PMUCTX_IOC_DISABLE,
		       0, &err);
		break;
	case 2:
		memset(&rd, 0, sizeof(rd));
		rd.size = sizeof(rd);
		xioctl(n, PMUCTX_IOC_READ, (unsigned long)&rd, &err);
		break;
	case 3:
		memset(&in, 0, sizeof(in));
		in.size = sizeof(in);
		xioctl(n, PMUCTX_IOC_INFO, (unsigned long)&in, &err);
		break;
	case 4: {
		char buf[64];

		if (read(n, buf, sizeof(buf)) < 0)
			err = errno;
		break;
	}
	default: {
		void *m = mmap(NULL, (size_t)nr_cpus * 2 * PAGE, PROT_READ,
			       MAP_SHARED, n, 0);

		if (m != MAP_FAILED)
			munmap(m, (size_t)nr_cpus * 2 * PAGE);
		break;
	}
	}
}

static void *racer(void *arg)
{
	(void)arg;
	while (!racer_stop) {
		int n = SHARED_BASE + (int)rn(&RR, NSHARED);

		switch (rn(&RR, 5)) {
		case 0:
			close(n);
			break;
		case 1:
			shared_reopen(&RR, n);
			break;
		case 2:
			dup2(SHARED_BASE + (int)rn(&RR, NSHARED), n);
			break;
		default:
			shared_use(&RR, n);
			break;
		}
		st.racer_ops++;
		/* a race partner, not a CPU hog: the main thread must progress */
		usleep(50 + rn(&RR, 400));
	}
	return NULL;
}

static void op_shared(void)
{
	int n = SHARED_BASE + (int)rn(&R, NSHARED);

	st.ok[OP_SHARED]++;
	if (chance(&R, 30))
		close(n);
	else if (chance(&R, 30))
		shared_reopen(&R, n);
	else
		shared_use(&R, n);
}

/* ---- worker --------------------------------------------------------------- */

static unsigned int read_param(const char *name, unsigned int def)
{
	char path[128];
	unsigned int v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/pmuctx/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return def;
	if (fscanf(f, "%u", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

static void setup_worker(void)
{
	struct sigaction sa;
	struct pmuctx_info in;
	unsigned char big[PAGE];
	int fd, err, i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fault_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = noop_handler;
	sigaction(SIGUSR1, &sa, NULL);		/* no SA_RESTART */
	signal(SIGPIPE, SIG_IGN);

	arena = mmap(NULL, (ARENA_PAGES + 1) * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro_page = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	taskbuf = mmap(NULL, TASKBUF + PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || ro_page == MAP_FAILED || taskbuf == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	mprotect(arena + ARENA_PAGES * PAGE, PAGE, PROT_NONE);
	mprotect(taskbuf + TASKBUF, PAGE, PROT_NONE);
	for (i = 0; i < NSLOT; i++)
		slots[i].fd = -1;

	/* What the kernel's structs look like: INFO's size from E2BIG. */
	fd = dev_open(0);
	if (fd < 0) {
		fprintf(stderr, "worker %d: open %s: %s\n", wid,
			PMUCTX_DEVICE_PATH, strerror(errno));
		exit(2);
	}
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	big[sizeof(big) - 1] = 1;
	if (xioctl(fd, PMUCTX_IOC_INFO, (unsigned long)big, &err) == -1 &&
	    err == E2BIG)
		ksize_info = *(uint32_t *)big;
	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	if (xioctl(fd, PMUCTX_IOC_INFO, (unsigned long)&in, &err) == 0) {
		nr_cpus = in.nr_cpus;
		features = in.features;
	}
	/* the attr and read sizes from E2BIG too (a zeroed fd never
	 * becomes a session: size check first)
	 */
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	big[sizeof(big) - 1] = 1;
	if (xioctl(fd, PMUCTX_IOC_SESSION_CREATE, (unsigned long)big, &err) == -1 &&
	    err == E2BIG)
		ksize_attr = *(uint32_t *)big;
	close(fd);
	(void)ksize_read;
	max_sample_freq = read_param("max_sample_freq", max_sample_freq);
	max_ring_pages = read_param("max_ring_pages", max_ring_pages);
	cgroup_fd = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);
}

static void drop_privileges(void)
{
	gid_t g = opt_group;

	if (setgroups(g == (gid_t)-1 ? 0 : 1, &g) ||
	    setresgid(opt_gid, opt_gid, opt_gid) ||
	    setresuid(opt_uid, opt_uid, opt_uid)) {
		perror("dropping privileges");
		exit(2);
	}
	unpriv = true;
}

static void worker_alarm(int sig)
{
	char buf[160];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "FAIL: worker %d timed out (hung?) at op #%ld (%s)\n",
		     wid, cur_op, cur_name);
	if (write(1, buf, n) < 0)
		_exit(4);
	_exit(3);
}

/* PMUCTX_FUZZ_SKIP="mmap,fork": those operations are drawn but not run */
static bool skipped(int op)
{
	const char *e = getenv("PMUCTX_FUZZ_SKIP");
	size_t n = strlen(op_names[op]);

	while (e && *e) {
		if (!strncmp(e, op_names[op], n) && (e[n] == ',' || !e[n]))
			return true;
		e = strchr(e, ',');
		e = e ? e + 1 : NULL;
	}
	return false;
}

static int pick_op(void)
{
	unsigned int total = 0, i, x;

	for (i = 0; i < OP_NR; i++)
		total += op_weight[i];
	x = rn(&R, total);
	for (i = 0; i < OP_NR; i++) {
		if (x < op_weight[i])
			return i;
		x -= op_weight[i];
	}
	return OP_INFO;
}

/* Stream 2: operation @i's own seed. */
static uint64_t op_seed(uint64_t seed, long i)
{
	uint64_t x = seed ^ ((uint64_t)i * 0xd1342543de82ef95ULL);

	return splitmix64(&x);
}

static void worker(uint64_t seed, long ops)
{
	struct timespec ta, tb;
	pthread_t rt;
	long i;
	int op;

	worker_pid = getpid();
	rng_seed(&R, seed);
	rng_seed(&RR, seed ^ 0x5151515151515151ULL);
	signal(SIGALRM, worker_alarm);
	alarm(opt_timeout);
	if (unpriv)
		drop_privileges();
	setup_worker();
	if (pthread_create(&rt, NULL, racer, NULL)) {
		perror("pthread_create");
		exit(2);
	}
	for (i = 0; i < ops; i++) {
		cur_op = i;
		if (opt_stream >= 2)
			rng_seed(&R, op_seed(seed, i));
		op = pick_op();
		cur_name = op_names[op];
		st.ops[op]++;
		clock_gettime(CLOCK_MONOTONIC, &ta);
		if (skipped(op))
			op = OP_NR;
		switch (op) {
		case OP_OPEN: op_open(); break;
		case OP_CLOSE: op_close(); break;
		case OP_INFO: op_info(); break;
		case OP_CREATE: op_create(false); break;
		case OP_CREATE_MUT: op_create(true); break;
		case OP_CTL: op_ctl(); break;
		case OP_READ: op_read(); break;
		case OP_RING_IOC: op_ring_ioc(); break;
		case OP_RAW_IOC: op_raw_ioctl(); break;
		case OP_FOREIGN: op_foreign(); break;
		case OP_MMAP: op_mmap(); break;
		case OP_MUNMAP: op_munmap(); break;
		case OP_RW: op_rw(); break;
		case OP_BLOCKREAD: op_blockread(); break;
		case OP_FORK: op_fork(); break;
		case OP_KILL: op_kill(); break;
		case OP_THREAD: op_thread(); break;
		case OP_DUP: op_dup(); break;
		case OP_SCM: op_scm(); break;
		case OP_SHARED: op_shared(); break;
		}
		clock_gettime(CLOCK_MONOTONIC, &tb);
		st.ns[op] += (tb.tv_sec - ta.tv_sec) * 1000000000L +
			     (tb.tv_nsec - ta.tv_nsec);
		if ((i & 31) == 0)
			reap(false);
	}
	cur_name = "teardown";
	racer_stop = 1;
	pthread_join(rt, NULL);
	for (i = 0; i < NKID; i++)
		if (kids[i])
			kill(kids[i], SIGKILL);
	reap(true);
	while (__atomic_load_n(&threads_alive, __ATOMIC_RELAXED))
		usleep(1000);
	for (i = 0; i < NSLOT; i++)
		if (slots[i].kind != K_FREE)
			close_slot(i);
	for (i = 0; i < NMAP; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	for (i = 0; i < NSHARED; i++)
		close(SHARED_BASE + i);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
}

/* ---- the model against the kernel, directed -------------------------------- */

static int opt_model_check;

/*
 * --model-check: the model's view of a created session (after_create())
 * against the kernel's, for every attr size from VER0 to past the struct,
 * with a ring and with ring + sampling.  A model that rounds a size down to
 * a published version says "no ring" for sizes 80..103, while the kernel
 * read ring_pages (offset 72) and made one (seed 3318547166).  Returns the
 * number of disagreements.
 */
/*
 * Struct sizes above a page: E2BIG with the kernel's size written back,
 * however zero the tail (like perf_event_open() and sched_setattr(), so a
 * caller cannot make the kernel scan up to 4 GiB of its memory for
 * non-zero bytes).  A page exactly, zero tail: accepted.
 */
static void size_check1(const char *what, int fd, unsigned long cmd,
			const void *head, size_t hlen, uint32_t min)
{
	uint32_t usize, ks;
	int err, k;
	long ret;

	for (k = 1; k >= 0; k--) {
		usize = k ? PAGE + 8 : PAGE;
		memset(arena, 0, ARENA_PAGES * PAGE);
		memcpy(arena, head, hlen);
		memcpy(arena, &usize, 4);
		ret = xioctl(fd, cmd, (unsigned long)arena, &err);
		ks = *(uint32_t *)arena;
		if (k && (ret != -1 || err != E2BIG))
			fail("%s of size %u, zero tail: ret %ld errno %d, want E2BIG",
			     what, usize, ret, err);
		else if (k && (ks < min || ks >= usize))
			fail("%s of size %u: E2BIG wrote size %u", what, usize, ks);
		else if (!k && ret == -1 && err == E2BIG)
			fail("%s of size %u (a page), zero tail: E2BIG", what,
			     usize);
	}
}

/* a task-clock session on a pid with a one-page ring, of size @size */
static void ring_attr(struct pmuctx_session_attr *a, uint32_t size)
{
	memset(a, 0, sizeof(*a));
	a->size = size;
	a->target = PMUCTX_TARGET_PID;
	a->cgroup_fd = -1;
	a->nr_events = 1;
	a->events[0] = PMUCTX_EV_TASK_CLOCK;
	a->ring_pages = 1;
	a->ring_mode = PMUCTX_RING_NORMAL;
}

static void size_check(void)
{
	struct pmuctx_session_attr a;
	struct pmuctx_ring_consume c;
	struct pmuctx_info in;
	struct pmuctx_read rd;
	int fd = dev_open(O_NONBLOCK), fd2 = dev_open(O_NONBLOCK), err;

	if (fd < 0 || fd2 < 0) {
		fail("open: %s", strerror(errno));
		return;
	}
	cur_name = "size-check";
	memset(&in, 0, sizeof(in));
	size_check1("INFO", fd, PMUCTX_IOC_INFO, &in, sizeof(in),
		    PMUCTX_INFO_SIZE_VER0);
	ring_attr(&a, 0);
	/* too big first: the page-sized one succeeds and makes fd live */
	size_check1("SESSION_CREATE", fd, PMUCTX_IOC_SESSION_CREATE, &a,
		    sizeof(a), PMUCTX_SESSION_ATTR_SIZE_VER0);
	a.size = sizeof(a);
	if (xioctl(fd2, PMUCTX_IOC_SESSION_CREATE, (unsigned long)&a, &err)) {
		fail("SESSION_CREATE for the size check: %s", strerror(err));
	} else {
		memset(&rd, 0, sizeof(rd));
		size_check1("READ", fd2, PMUCTX_IOC_READ, &rd, sizeof(rd),
			    PMUCTX_READ_SIZE_VER0);
		memset(&c, 0, sizeof(c));
		size_check1("RING_CONSUME", fd2, PMUCTX_IOC_RING_CONSUME, &c,
			    sizeof(c), PMUCTX_RING_CONSUME_SIZE_VER0);
	}
	close(fd);
	close(fd2);
}

static int model_check(void)
{
	struct pmuctx_ring_consume c;
	struct pmuctx_session_attr a;
	uint32_t usize;
	int v, err, valid, checked = 0;
	long ret;

	cur_name = "model-check";
	rng_seed(&R, 1);
	for (usize = PMUCTX_SESSION_ATTR_SIZE_VER0; usize <= sizeof(a) + 8;
	     usize++) {
		for (v = 0; v < 2; v++) {
			cur_op = (long)usize * 2 + v;
			ring_attr(&a, usize);
			a.ring_records = PMUCTX_REC_MASK_ALL;
			if (v)
				a.sample_freq = 100;
			memset(arena, 0, PAGE);
			memcpy(arena, &a, sizeof(a));
			slots[0].fd = dev_open(O_NONBLOCK);
			if (slots[0].fd < 0) {
				fail("open: %s", strerror(errno));
				return failures;
			}
			slots[0].kind = K_NEW;
			ret = xioctl(slots[0].fd, PMUCTX_IOC_SESSION_CREATE,
				     (unsigned long)arena, &err);
			valid = attr_valid(&a, usize);
			if (ret == 0 && valid == 0)
				fail("size %u: an attr the model calls invalid was accepted",
				     usize);
			if (ret && valid == 1 && err == EINVAL)
				fail("size %u: an attr the model calls valid got EINVAL",
				     usize);
			if (ret == 0) {
				after_create(0, &a, usize);
				memset(&c, 0, sizeof(c));
				c.size = sizeof(c);
				ret = xioctl(slots[0].fd,
					     PMUCTX_IOC_RING_CONSUME,
					     (unsigned long)&c, &err);
				if (ret == 0 && !slots[0].ring_pages)
					fail("size %u%s: the model says no ring, RING_CONSUME succeeded",
					     usize, v ? " (sampling)" : "");
				if (ret && slots[0].ring_pages)
					fail("size %u%s: the model says ring %u pages, RING_CONSUME: %s",
					     usize, v ? " (sampling)" : "",
					     slots[0].ring_pages, strerror(err));
				checked++;
			}
			close_slot(0);
			slots[0].kind = K_FREE;
		}
	}
	size_check();
	printf("pmuctx-fuzz: model check: %d sessions created and compared, %d failures\n",
	       checked, failures);
	if (!checked)
		fail("model check: no session could be created");
	return failures;
}

/* ---- parent ---------------------------------------------------------------- */

static int get_info(struct pmuctx_info *in)
{
	int fd = dev_open(0), ret, err;

	if (fd < 0)
		return -1;
	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
	ret = xioctl(fd, PMUCTX_IOC_INFO, (unsigned long)in, &err);
	close(fd);
	return ret;
}

static bool quiescent(const struct pmuctx_info *in)
{
	return !in->sessions && !in->tasks_tracked && !in->store_bytes &&
	       !in->pool_entries && !in->probes_registered &&
	       in->entries_created == in->entries_freed;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pmuctx-fuzz [--seed S | --replay S] [--ops N] [--procs P]\n"
		"                   [--unpriv K] [--uid U] [--gid G] [--group G]\n"
		"                   [--timeout SEC] [--verbose] [--no-children] [--only W]\n"
		"                   [--stream 1|2]\n"
		"       pmuctx-fuzz --model-check [--unpriv 1 --group G]\n");
	exit(2);
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		usage();
	return v;
}

/* the options that take a number: int-sized (int, uid_t, gid_t) or long */
static const struct num_opt {
	const char *name;
	void *var;
	size_t size;
} num_opts[] = {
	{ "--ops", &opt_ops, sizeof(opt_ops) },
	{ "--procs", &opt_procs, sizeof(opt_procs) },
	{ "--unpriv", &opt_unpriv, sizeof(opt_unpriv) },
	{ "--uid", &opt_uid, sizeof(opt_uid) },
	{ "--gid", &opt_gid, sizeof(opt_gid) },
	{ "--group", &opt_group, sizeof(opt_group) },
	{ "--timeout", &opt_timeout, sizeof(opt_timeout) },
	{ "--only", &opt_only, sizeof(opt_only) },
	{ "--stream", &opt_stream, sizeof(opt_stream) },
};

static const struct num_opt *num_opt(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++)
		if (!strcmp(name, num_opts[i].name))
			return &num_opts[i];
	return NULL;
}

/* @v converted to the option's type, as the casts did */
static void num_opt_set(const struct num_opt *o, uint64_t v)
{
	_Static_assert(sizeof(uid_t) == sizeof(int) &&
		       sizeof(gid_t) == sizeof(int), "uid_t, gid_t: int-sized");
	if (o->size == sizeof(long)) {
		long l = (long)v;

		memcpy(o->var, &l, sizeof(l));
	} else {
		int n = (int)v;

		memcpy(o->var, &n, sizeof(n));
	}
}

int main(int argc, char **argv)
{
	struct stats total;
	struct pmuctx_info in;
	int i, pipes[2], fails = 0, crashed = 0, status;
	bool have_seed = false;
	struct timespec t0, t1;
	pid_t *pids;
	long per;
	ssize_t n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--exec-child")) {
		/* an exec'd monitored child: a little work, then exit */
		child_main(parse_u64(argv[2]) ^ 0xabcdef);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		const struct num_opt *o;

		if (!strcmp(a, "--seed") || !strcmp(a, "--replay")) {
			if (!v)
				usage();
			opt_seed = parse_u64(v);
			have_seed = true;
			i++;
		} else if ((o = num_opt(a))) {
			if (!v)
				usage();
			num_opt_set(o, parse_u64(v));
			i++;
		} else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
			opt_verbose = 1;
		} else if (!strcmp(a, "--no-children")) {
			opt_children = 0;
		} else if (!strcmp(a, "--model-check")) {
			opt_model_check = 1;
		} else {
			usage();
		}
	}
	if (opt_procs < 1 || opt_procs > 64 || opt_unpriv > opt_procs ||
	    opt_ops < 1 || opt_stream < 1 || opt_stream > 2)
		usage();
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		opt_seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			   ((uint64_t)getpid() << 40);
	}
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		strcpy(self_exe, argv[0]);
	if (opt_unpriv && opt_group == (gid_t)-1) {
		struct stat sb;

		if (!stat(PMUCTX_DEVICE_PATH, &sb))
			opt_group = sb.st_gid;
	}
	if (opt_model_check) {
		wid = 0;
		unpriv = opt_unpriv > 0;
		if (unpriv)
			drop_privileges();
		setup_worker();
		return model_check() ? 1 : 0;
	}
	printf("pmuctx-fuzz: seed=%#" PRIx64 " ops=%ld procs=%d unpriv=%d stream=%d\n",
	       opt_seed, opt_ops, opt_procs, opt_unpriv, opt_stream);
	printf("pmuctx-fuzz: replay with: pmuctx-fuzz --replay %#" PRIx64
	       " --ops %ld --procs %d%s%.0d%s\n", opt_seed, opt_ops, opt_procs,
	       opt_unpriv ? " --unpriv " : "", opt_unpriv,
	       opt_stream == 1 ? " --stream 1" : "");
	if (get_info(&in)) {
		fprintf(stderr, "pmuctx-fuzz: INFO on %s: %s\n",
			PMUCTX_DEVICE_PATH, strerror(errno));
		return 2;
	}
	if (!quiescent(&in))
		printf("# note: the store is not empty at the start (sessions %u, tasks %llu)\n",
		       in.sessions, (unsigned long long)in.tasks_tracked);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe(pipes)) {
		perror("pipe");
		return 2;
	}
	{
		struct rlimit rl = { 4096, 4096 };

		setrlimit(RLIMIT_NOFILE, &rl);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pids = calloc(opt_procs, sizeof(*pids));
	per = (opt_ops + opt_procs - 1) / opt_procs;
	if (opt_only >= 0) {
		/* one worker, in this process (under a debugger): same seed
		 * and share of the operations as in the full run
		 */
		uint64_t x = opt_seed + (uint64_t)opt_only;

		wid = opt_only;
		unpriv = opt_only < opt_unpriv;
		worker(splitmix64(&x), per);
		printf("pmuctx-fuzz: worker %d done, %d failures\n", wid, failures);
		return failures ? 1 : 0;
	}
	for (i = 0; i < opt_procs; i++) {
		uint64_t x = opt_seed + (uint64_t)i;

		pids[i] = fork();
		if (pids[i] == 0) {
			close(pipes[0]);
			fail_fd = pipes[1];
			wid = i;
			unpriv = i < opt_unpriv;
			worker(splitmix64(&x), per);
			/* the statistics and the failure count, to the parent */
			st.ok[0] += 0;
			{
				struct { int wid, failures; struct stats s; } msg;

				msg.wid = wid;
				msg.failures = failures;
				msg.s = st;
				if (write(fail_fd, &msg, sizeof(msg)) != sizeof(msg))
					_exit(4);
			}
			_exit(failures ? 1 : 0);
		}
		if (pids[i] < 0) {
			perror("fork");
			return 2;
		}
	}
	close(pipes[1]);
	memset(&total, 0, sizeof(total));
	for (;;) {
		struct { int wid, failures; struct stats s; } msg;
		int k, j;

		n = read(pipes[0], &msg, sizeof(msg));
		if (n != sizeof(msg))
			break;
		fails += msg.failures;
		for (k = 0; k < OP_NR; k++) {
			total.ops[k] += msg.s.ops[k];
			total.ok[k] += msg.s.ok[k];
			for (j = 0; j < NCLASS; j++)
				total.errs[k][j] += msg.s.errs[k][j];
			total.ns[k] += msg.s.ns[k];
		}
		total.racer_ops += msg.s.racer_ops;
		total.tasks += msg.s.tasks;
		total.sessions += msg.s.sessions;
		total.mappings += msg.s.mappings;
	}
	for (i = 0; i < opt_procs; i++) {
		if (waitpid(pids[i], &status, 0) < 0)
			continue;
		if (WIFSIGNALED(status)) {
			printf("FAIL: worker %d killed by signal %d\n", i,
			       WTERMSIG(status));
			crashed++;
		} else if (WEXITSTATUS(status) > 1) {
			printf("FAIL: worker %d exited %d\n", i,
			       WEXITSTATUS(status));
			crashed++;
		}
	}
	/* orphaned grandchildren come to us (subreaper) */
	while (waitpid(-1, &status, 0) > 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* Everything is closed: the store must be empty. */
	for (i = 0; i < 200; i++) {
		if (get_info(&in) == 0 && quiescent(&in))
			break;
		usleep(50000);
	}
	if (!quiescent(&in)) {
		printf("FAIL: store not empty after every session closed: sessions %u tasks %llu bytes %llu pool %llu probes %u created %llu freed %llu\n",
		       in.sessions, (unsigned long long)in.tasks_tracked,
		       (unsigned long long)in.store_bytes,
		       (unsigned long long)in.pool_entries, in.probes_registered,
		       (unsigned long long)in.entries_created,
		       (unsigned long long)in.entries_freed);
		fails++;
	}

	{
		long all = 0, ok = 0;
		int k;

		printf("# %-20s %7s %7s %6s", "operation", "count", "ok", "ms");
		for (k = 0; k < NCLASS; k++)
			printf(" %7s", class_names[k]);
		printf("\n");
		for (k = 0; k < OP_NR; k++) {
			int j;

			printf("# %-20s %7ld %7ld %6ld", op_names[k], total.ops[k],
			       total.ok[k], total.ns[k] / 1000000);
			for (j = 0; j < NCLASS; j++)
				printf(" %7ld", total.errs[k][j]);
			printf("\n");
			all += total.ops[k];
			ok += total.ok[k];
		}
		printf("# sessions created %ld, ring mappings %ld, tasks started %ld, racer operations %ld\n",
		       total.sessions, total.mappings, total.tasks,
		       total.racer_ops);
		printf("# entries created over the run: %llu, time %.1f s\n",
		       (unsigned long long)in.entries_created,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		fails += crashed;
		printf("pmuctx-fuzz: %ld operations (%ld ok) + %ld racer operations in %d processes, seed %#" PRIx64 ", %d failures\n",
		       all, ok, total.racer_ops, opt_procs, opt_seed, fails);
	}
	return fails ? 1 : 0;
}
