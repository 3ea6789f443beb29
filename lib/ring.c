// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpmuctx: the per-CPU ring buffers of a session: mapping, reading
 * records (per CPU and merged by time), consuming (normal mode),
 * snapshots (overwrite mode), poll and USER records.
 *
 * The mapping is shared with the kernel, which may be writing while we
 * read.  So nothing read from it is trusted twice: the geometry of each
 * buffer (data offset and size) is read once at map time and checked
 * against the size of the mapping; every record header is read once,
 * checked, and the record copied into a private buffer before it is
 * checked again and handed out.  A buffer that breaks the ABI gives
 * -EBADMSG, never an access outside the mapping or the record.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "internal.h"

#define HDR_SIZE	sizeof(struct pmuctx_rec_header)
#define COMMON_END	(sizeof(struct pmuctx_rec_header) + \
			 sizeof(struct pmuctx_rec_common))
/* the largest size a record header can state (a __u16, 8-aligned) */
#define REC_MAX		65528U
#define CTL_TRIES	1000

_Static_assert(sizeof(struct pmuctx_rec_header) == 8, "header");
_Static_assert(COMMON_END == 32, "common");
_Static_assert(sizeof(struct pmuctx_rec_lost) == 40, "lost");
_Static_assert(sizeof(struct pmuctx_rec_switch) == 48, "switch");
_Static_assert(sizeof(struct pmuctx_rec_fork) == 40, "fork");
_Static_assert(sizeof(struct pmuctx_rec_exec) == 48, "exec");
_Static_assert(sizeof(struct pmuctx_rec_exit) == 40, "exit");
_Static_assert(sizeof(struct pmuctx_rec_comm) == 48, "comm");
_Static_assert(sizeof(struct pmuctx_rec_user) == 40, "user");
_Static_assert(sizeof(struct pmuctx_rec_sample) == 64, "sample");
_Static_assert(sizeof(struct pmuctx_rec_user_callchain) == 48, "callchain");
_Static_assert(sizeof(struct pmuctx_rec_mmap) == 80, "mmap");

enum win_state {
	WIN_NONE = 0,	/* no window (before begin) */
	WIN_OPEN,	/* records in [pos, end) */
	WIN_BAD,	/* a record at pos broke the ABI: closed */
};

struct ring_cpu {
	const volatile struct pmuctx_ring_ctl *ctl;
	bool absent;		/* an all-zero control page: no such CPU */
	const volatile unsigned char *data;
	enum win_state state;
	__u64 start;		/* data_tail when the window opened */
	__u64 pos;		/* next record */
	__u64 end;		/* data_head when the window opened */
	__u64 consumed;		/* what RING_CONSUME was last given */
	bool peeked;		/* p_* describe the record at pos */
	__u32 p_type;
	__u32 p_size;
	__u64 p_time;
};

struct pmuctx_ring {
	struct pmuctx *h;
	void *base;
	size_t len;
	size_t page;
	unsigned int nr_cpus;
	__u32 ring_pages;
	__u32 mode;
	__u64 data_size;	/* the same for every CPU (checked) */
	struct ring_cpu *cpus;
	__u64 *buf;		/* REC_MAX bytes: the record handed out */
};

/* ---- system calls ----------------------------------------------------- */

PMUCTX_INTERNAL int pmuctx__sys_mmap(void **out, size_t len, int prot,
				     int flags, int fd, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

PMUCTX_INTERNAL int pmuctx__sys_munmap(void *addr, size_t len)
{
	return munmap(addr, len) ? -errno : 0;
}

PMUCTX_INTERNAL ssize_t pmuctx__sys_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

PMUCTX_INTERNAL int pmuctx__sys_poll(struct pollfd *fds, nfds_t n,
				     int timeout)
{
	int r = poll(fds, n, timeout);

	return r < 0 ? -errno : r;
}

/* ---- records ------------------------------------------------------------ */

PMUCTX_API const char *pmuctx_record_type_name(unsigned int type)
{
	static const char *const names[] = {
		[PMUCTX_REC_PAD] = "pad",
		[PMUCTX_REC_LOST] = "lost",
		[PMUCTX_REC_SWITCH] = "switch",
		[PMUCTX_REC_FORK] = "fork",
		[PMUCTX_REC_EXEC] = "exec",
		[PMUCTX_REC_EXIT] = "exit",
		[PMUCTX_REC_COMM] = "comm",
		[PMUCTX_REC_SAMPLE] = "sample",
		[PMUCTX_REC_USER_CALLCHAIN] = "user-callchain",
		[PMUCTX_REC_THROTTLE] = "throttle",
		[PMUCTX_REC_USER] = "user",
		[PMUCTX_REC_MMAP] = "mmap",
		[PMUCTX_REC_USER_STACK] = "user-stack",
	};

	return type < ARRAY_SIZE(names) ? names[type] : NULL;
}

static const char *type_str(__u32 type, char *buf, size_t len)
{
	const char *n = pmuctx_record_type_name(type);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "type %u", type);
	return buf;
}

/*
 * The header of the record at @p, read once into *@h: its size must be a
 * multiple of 8 between the header and the @len bytes left.
 */
static int check_header(const unsigned char *p, size_t len,
			struct pmuctx_rec_header *h, char *tn, size_t tn_len,
			char *why, size_t why_len)
{
	if (len < HDR_SIZE) {
		snprintf(why, why_len, "%zu byte(s) left, less than a record "
			 "header (%zu bytes)", len, HDR_SIZE);
		return -EBADMSG;
	}
	memcpy(h, p, sizeof(*h));
	type_str(h->type, tn, tn_len);
	if (h->size < HDR_SIZE) {
		snprintf(why, why_len, "%s record with size %u, below the "
			 "%zu-byte header", tn, h->size, HDR_SIZE);
		return -EBADMSG;
	}
	if (h->size % 8) {
		snprintf(why, why_len, "%s record with size %u, not a "
			 "multiple of 8", tn, h->size);
		return -EBADMSG;
	}
	if (h->size > len) {
		snprintf(why, why_len, "%s record with size %u, larger than "
			 "the %zu byte(s) of data left", tn, h->size, len);
		return -EBADMSG;
	}
	return 0;
}

/*
 * The size of the fixed part of a record of @h's type, and in *@nr its
 * count of trailing 8-byte entries (values, frames), read once from @p if
 * the record holds the field.  Unknown and reserved types: header + common.
 */
static size_t fixed_part(const unsigned char *p,
			 const struct pmuctx_rec_header *h, __u32 *nr)
{
	size_t min;

	*nr = 0;
	switch (h->type) {
	case PMUCTX_REC_LOST:
		return sizeof(struct pmuctx_rec_lost);
	case PMUCTX_REC_SWITCH:
		min = sizeof(struct pmuctx_rec_switch);
		if (h->size >= min)
			memcpy(nr, p + offsetof(struct pmuctx_rec_switch, nr),
			       sizeof(*nr));
		return min;
	case PMUCTX_REC_FORK:
		return sizeof(struct pmuctx_rec_fork);
	case PMUCTX_REC_EXEC:
		return sizeof(struct pmuctx_rec_exec);
	case PMUCTX_REC_EXIT:
		min = sizeof(struct pmuctx_rec_exit);
		if (h->size >= min)
			memcpy(nr, p + offsetof(struct pmuctx_rec_exit, nr),
			       sizeof(*nr));
		return min;
	case PMUCTX_REC_COMM:
		return sizeof(struct pmuctx_rec_comm);
	case PMUCTX_REC_USER:
		return sizeof(struct pmuctx_rec_user);
	case PMUCTX_REC_MMAP:
		return sizeof(struct pmuctx_rec_mmap);
	case PMUCTX_REC_USER_STACK:
		return sizeof(struct pmuctx_rec_user_stack);
	case PMUCTX_REC_SAMPLE:
		min = sizeof(struct pmuctx_rec_sample);
		if (h->size >= min) {
			__u16 nk, nu;

			memcpy(&nk, p + offsetof(struct pmuctx_rec_sample,
						 nr_kernel), sizeof(nk));
			memcpy(&nu, p + offsetof(struct pmuctx_rec_sample,
						 nr_user), sizeof(nu));
			*nr = (__u32)nk + nu;
		}
		return min;
	case PMUCTX_REC_USER_CALLCHAIN:
		min = sizeof(struct pmuctx_rec_user_callchain);
		if (h->size >= min)
			memcpy(nr, p + offsetof(struct pmuctx_rec_user_callchain,
						nr), sizeof(*nr));
		return min;
	default:
		return COMMON_END;
	}
}

/*
 * USER_STACK: the registers and the stack bytes must be inside the record
 * (nr_regs * 8 + size bytes after the fixed part), dyn_size within size,
 * the known register set complete.  Each field read once.
 */
static int check_user_stack(const unsigned char *p,
			    const struct pmuctx_rec_header *h, size_t min,
			    const char *tn, char *why, size_t why_len)
{
	static const struct {
		__u16 abi, nr;
		const char *name;
	} sets[] = {
		{ PMUCTX_REGS_X86_64, PMUCTX_REGS_X86_64_NR, "x86-64" },
		{ PMUCTX_REGS_ARM64, PMUCTX_REGS_ARM64_NR, "arm64" },
	};
	struct pmuctx_rec_user_stack u;
	size_t i;

	memcpy(&u, p, sizeof(u));
	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		if (u.abi != sets[i].abi || u.nr_regs == sets[i].nr)
			continue;
		snprintf(why, why_len, "%s record with %u %s registers, "
			 "not %u", tn, u.nr_regs, sets[i].name, sets[i].nr);
		return -EBADMSG;
	}
	if (u.size % 8 || u.dyn_size > u.size ||
	    min + (size_t)u.nr_regs * 8 + u.size > h->size) {
		snprintf(why, why_len, "%s record of %u bytes with %u "
			 "registers, size %u and dyn_size %u (size a multiple "
			 "of 8, dyn_size at most size, both after the %zu-byte "
			 "fixed part and the registers)", tn, h->size,
			 u.nr_regs, u.size, u.dyn_size, min);
		return -EBADMSG;
	}
	return 0;
}

/* the variable part of a record whose fixed part (@min bytes) is there */
static int check_body(const unsigned char *p,
		      const struct pmuctx_rec_header *h, size_t min, __u32 nr,
		      const char *tn, char *why, size_t why_len)
{
	__u32 ulen;

	switch (h->type) {
	case PMUCTX_REC_SWITCH:
	case PMUCTX_REC_EXIT:
		if (nr > PMUCTX_MAX_EVENTS) {
			snprintf(why, why_len, "%s record with nr %u, more "
				 "than the %d events a session has", tn, nr,
				 PMUCTX_MAX_EVENTS);
			return -EBADMSG;
		}
		if (min + (size_t)nr * 8 > h->size) {
			snprintf(why, why_len, "%s record with nr %u needs "
				 "%zu bytes, its size is %u", tn, nr,
				 min + (size_t)nr * 8, h->size);
			return -EBADMSG;
		}
		break;
	case PMUCTX_REC_SAMPLE:
	case PMUCTX_REC_USER_CALLCHAIN:
		/* callchains: at most PMUCTX_MAX_STACK frames per part */
		if (nr > 2 * PMUCTX_MAX_STACK ||
		    min + (size_t)nr * 8 > h->size) {
			snprintf(why, why_len, "%s record with %u frames in %u "
				 "bytes (%zu-byte fixed part, at most %d frames "
				 "per callchain)", tn, nr, h->size, min,
				 PMUCTX_MAX_STACK);
			return -EBADMSG;
		}
		break;
	case PMUCTX_REC_EXEC:
		if (h->size > min && !memchr(p + min, 0, h->size - min)) {
			snprintf(why, why_len, "%s record of %u bytes whose "
				 "filename is not NUL-terminated", tn, h->size);
			return -EBADMSG;
		}
		break;
	case PMUCTX_REC_MMAP:
		if (h->size == min || !memchr(p + min, 0, h->size - min)) {
			snprintf(why, why_len, "%s record of %u bytes whose "
				 "path is not NUL-terminated", tn, h->size);
			return -EBADMSG;
		}
		break;
	case PMUCTX_REC_USER_STACK:
		return check_user_stack(p, h, min, tn, why, why_len);
	case PMUCTX_REC_USER:
		memcpy(&ulen, p + offsetof(struct pmuctx_rec_user, len),
		       sizeof(ulen));
		if (ulen > PMUCTX_USER_MAX || min + ulen > h->size) {
			snprintf(why, why_len, "%s record with len %u in %u "
				 "bytes (at most %d bytes of data, after a "
				 "%zu-byte fixed part)", tn, ulen, h->size,
				 PMUCTX_USER_MAX, min);
			return -EBADMSG;
		}
		break;
	default:
		break;
	}
	return 0;
}

/*
 * The rules every record follows (<linux/pmuctx.h>).  @buf need not be
 * aligned; the fields are copied out before use, each read once: the
 * header, then the count of the fixed part, then the body.
 */
PMUCTX_INTERNAL int pmuctx__record_check(const void *buf, size_t len,
					 char *why, size_t why_len)
{
	const unsigned char *p = buf;
	struct pmuctx_rec_header h;
	size_t min;
	__u32 nr;
	char tn[32];
	int err;

	err = check_header(p, len, &h, tn, sizeof(tn), why, why_len);
	if (err)
		return err;
	if (h.type == PMUCTX_REC_PAD)
		return h.size;
	min = fixed_part(p, &h, &nr);
	if (h.size < min) {
		snprintf(why, why_len, "%s record with size %u, shorter than "
			 "the %zu bytes of its fixed part", tn, h.size, min);
		return -EBADMSG;
	}
	err = check_body(p, &h, min, nr, tn, why, why_len);
	if (err)
		return err;

	return h.size;
}

PMUCTX_API int pmuctx_record_check(const void *buf, size_t len)
{
	char why[256];
	int ret;

	if (!buf)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_record_check: buf is NULL");
	ret = pmuctx__record_check(buf, len, why, sizeof(why));
	if (ret < 0)
		return pmuctx__err_set(NULL, PMUCTX_OP_RECORD, EBADMSG,
				       "%s", why);
	return ret;
}

/* ---- facts for error records --------------------------------------------- */

PMUCTX_INTERNAL void pmuctx__ring_facts(struct pmuctx *h,
					struct pmuctx__ring_facts *f,
					__u32 pages, __u32 mode)
{
	long ps = sysconf(_SC_PAGESIZE);

	memset(f, 0, sizeof(*f));
	f->pages = pages;
	f->mode = mode;
	f->page_size = ps > 0 ? (__u32)ps : 4096;
	if (h && h->probed) {
		f->nr_cpus = h->info.nr_cpus;
		f->feat_known = true;
		f->feat_ring = !!(h->info.features & PMUCTX_FEAT_RING);
	}
}

/* ---- mapping ------------------------------------------------------------- */

static int map_fail(struct pmuctx *h, int err, size_t len)
{
	struct pmuctx__err *e = pmuctx__err_begin(h, PMUCTX_OP_RING_MAP, err);

	pmuctx__ring_facts(h, &e->ring, h->ring_pages, h->ring_mode);
	snprintf(e->detail, sizeof(e->detail), "mmap of %zu bytes (%u CPUs "
		 "x (1 + %u) pages)", len, e->ring.nr_cpus, h->ring_pages);
	pmuctx__err_commit(h);
	return err;
}

PMUCTX_INTERNAL void pmuctx__ring_free(struct pmuctx_ring *r)
{
	if (!r)
		return;
	if (r->base)
		pmuctx__sys.munmap(r->base, r->len);
	free(r->cpus);
	free(r->buf);
	free(r);
}

PMUCTX_API void pmuctx_ring_unmap(struct pmuctx_ring *r)
{
	if (!r)
		return;
	if (r->h && r->h->ring == r)
		r->h->ring = NULL;
	pmuctx__ring_free(r);
}

/* check the geometry of one CPU's control page, once */
static int check_ctl(struct pmuctx_ring *r, unsigned int cpu, size_t slot)
{
	const volatile struct pmuctx_ring_ctl *ctl = r->cpus[cpu].ctl;
	__u32 version = ctl->version, kcpu = ctl->cpu, mode = ctl->mode;
	__u64 off = ctl->data_offset, size = ctl->data_size;
	struct pmuctx *h = r->h;

	/*
	 * The module sets up the CPU ids that are possible; an id in a hole
	 * of the possible mask keeps a zeroed control page and never gets a
	 * record.
	 */
	if (!version && !kcpu && !mode && !off && !size) {
		r->cpus[cpu].absent = true;
		return 0;
	}
	if (version != PMUCTX_RING_VERSION)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"CPU %u control page: ring version %u, this libpmuctx "
			"%s reads version %d: library and module do not match",
			cpu, version, pmuctx_version(), PMUCTX_RING_VERSION);
	if (kcpu != cpu)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"control page %u says it belongs to CPU %u", cpu, kcpu);
	if (mode != r->mode)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"CPU %u control page: mode %u, the session was created "
			"with mode %u", cpu, mode, r->mode);
	if (off < sizeof(struct pmuctx_ring_ctl) || off % 8 || !size ||
	    (size & (size - 1)) || size < 8 || off > slot ||
	    size > slot - off)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"CPU %u control page: data_offset %llu, data_size %llu "
			"do not describe a power-of-two data area inside the "
			"%zu bytes of its slot", cpu, (unsigned long long)off,
			(unsigned long long)size, slot);
	if (r->data_size && size != r->data_size)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"CPU %u control page: data_size %llu, a lower CPU has "
			"%llu", cpu, (unsigned long long)size,
			(unsigned long long)r->data_size);
	r->data_size = size;
	r->cpus[cpu].data = (const volatile unsigned char *)ctl + off;
	return 0;
}

PMUCTX_API int pmuctx_ring_map(struct pmuctx *h, struct pmuctx_ring **out)
{
	struct pmuctx_info info;
	struct pmuctx_ring *r;
	size_t slot, len;
	unsigned int i;
	long ps;
	void *base = NULL;
	int err;

	if (out)
		*out = NULL;
	if (!h || !out)
		return pmuctx__err_set(h, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_map: handle or out is NULL");
	if (!h->has_session)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EINVAL,
			"this handle has no session: create one with "
			"pmuctx_session_create() and .ring_pages > 0 first");
	if (!h->ring_pages)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EINVAL,
			"the session has no ring buffer: create it with "
			".ring_pages > 0 (a power of two)");
	if (h->ring)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EBUSY,
			"the ring buffers of this handle are mapped already "
			"(one mapping per session)");
	err = pmuctx_info(h, &info);
	if (err)
		return err;
	if (!info.nr_cpus)
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"the module reports 0 CPUs (pmuctx_info.nr_cpus)");
	ps = sysconf(_SC_PAGESIZE);
	if (ps <= 0)
		ps = 4096;
	if (__builtin_mul_overflow((size_t)h->ring_pages + 1, (size_t)ps,
				   &slot) ||
	    __builtin_mul_overflow(slot, (size_t)info.nr_cpus, &len))
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, ENOMEM,
			"%u CPUs x (1 + %u) pages do not fit in the address "
			"space", info.nr_cpus, h->ring_pages);

	err = pmuctx__sys.mmap(&base, len, PROT_READ, MAP_SHARED, h->fd, 0);
	if (err)
		return map_fail(h, err, len);

	r = calloc(1, sizeof(*r));
	if (r) {
		r->cpus = calloc(info.nr_cpus, sizeof(*r->cpus));
		r->buf = malloc(REC_MAX);
	}
	if (!r || !r->cpus || !r->buf) {
		if (r) {
			free(r->cpus);
			free(r->buf);
			free(r);
		}
		pmuctx__sys.munmap(base, len);
		return pmuctx__err_set(h, PMUCTX_OP_ALLOC, ENOMEM,
				       "pmuctx_ring_map: out of memory");
	}
	r->h = h;
	r->base = base;
	r->len = len;
	r->page = (size_t)ps;
	r->nr_cpus = info.nr_cpus;
	r->ring_pages = h->ring_pages;
	r->mode = h->ring_mode;
	for (i = 0; i < r->nr_cpus; i++) {
		r->cpus[i].ctl = (const volatile struct pmuctx_ring_ctl *)
				 ((const char *)base + i * slot);
		err = check_ctl(r, i, slot);
		if (err) {
			pmuctx__ring_free(r);
			return err;
		}
	}
	if (!r->data_size) {
		pmuctx__ring_free(r);
		return pmuctx__err_set(h, PMUCTX_OP_RING_MAP, EPROTO,
			"no control page is set up (all %u are zero)",
			info.nr_cpus);
	}
	h->ring = r;
	*out = r;
	return 0;
}

PMUCTX_API unsigned int pmuctx_ring_nr_cpus(const struct pmuctx_ring *r)
{
	return r ? r->nr_cpus : 0;
}

PMUCTX_API size_t pmuctx_ring_data_size(const struct pmuctx_ring *r)
{
	return r ? (size_t)r->data_size : 0;
}

/* ---- control pages ------------------------------------------------------- */

static int read_ctl(const volatile struct pmuctx_ring_ctl *ctl,
		    struct pmuctx_ring_cpu_stats *st)
{
	int tries;

	for (tries = 0; tries < CTL_TRIES; tries++) {
		__u32 s1 = __atomic_load_n(&ctl->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1) {
			if (tries > 16)
				sched_yield();
			continue;
		}
		st->data_tail = ctl->data_tail;
		st->flags = ctl->flags;
		st->mode = ctl->mode;
		st->lost = ctl->lost;
		st->records = ctl->records;
		st->overwritten = ctl->overwritten;
		/* = load, smp_rmb(): the records up to it are visible */
		st->data_head = __atomic_load_n(&ctl->data_head,
						__ATOMIC_ACQUIRE);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctl->seq, __ATOMIC_RELAXED) == s1)
			return 0;
	}
	return -EAGAIN;
}

PMUCTX_API int pmuctx_ring_stats(struct pmuctx_ring *r, unsigned int cpu,
				 struct pmuctx_ring_cpu_stats *out)
{
	if (!r || !out || cpu >= r->nr_cpus)
		return pmuctx__err_set(r ? r->h : NULL, PMUCTX_OP_ARG, EINVAL,
			"pmuctx_ring_stats: NULL argument or CPU %u out of "
			"range", cpu);
	memset(out, 0, sizeof(*out));
	if (r->cpus[cpu].absent)
		return 0;
	if (read_ctl(r->cpus[cpu].ctl, out))
		return pmuctx__err_set(r->h, PMUCTX_OP_RING_DATA, EAGAIN,
			"CPU %u control page: seq kept changing (%d tries)",
			cpu, CTL_TRIES);
	return 0;
}

PMUCTX_API int pmuctx_ring_flags(struct pmuctx_ring *r)
{
	unsigned int i;
	__u32 f = 0;

	if (!r)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_flags: ring is NULL");
	for (i = 0; i < r->nr_cpus; i++)
		if (!r->cpus[i].absent)
			f |= __atomic_load_n(&r->cpus[i].ctl->flags,
					     __ATOMIC_ACQUIRE);
	return (int)(f & INT_MAX);
}

/* ---- windows --------------------------------------------------------------- */

static int bad(struct pmuctx_ring *r, unsigned int cpu, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct pmuctx_ring *r, unsigned int cpu, const char *fmt, ...)
{
	struct pmuctx__err *e = pmuctx__err_begin(r->h, PMUCTX_OP_RING_DATA,
						  EBADMSG);
	struct ring_cpu *c = &r->cpus[cpu];
	va_list ap;
	int n;

	n = snprintf(e->detail, sizeof(e->detail), "CPU %u buffer (%s mode, "
		     "%llu-byte data area, window data_tail %llu .. data_head "
		     "%llu): ", cpu, r->mode == PMUCTX_RING_OVERWRITE ?
		     "overwrite" : "normal", (unsigned long long)r->data_size,
		     (unsigned long long)c->start, (unsigned long long)c->end);
	if (n < 0 || (size_t)n >= sizeof(e->detail))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(e->detail + n, sizeof(e->detail) - (size_t)n, fmt, ap);
	va_end(ap);
	e->ring.mode = r->mode;
	pmuctx__err_commit(r->h);
	c->state = WIN_BAD;
	c->peeked = false;
	return -EBADMSG;
}

static int open_window(struct pmuctx_ring *r, unsigned int cpu)
{
	struct ring_cpu *c = &r->cpus[cpu];
	struct pmuctx_ring_cpu_stats st;

	c->peeked = false;
	if (c->absent) {
		c->state = WIN_NONE;
		return 0;
	}
	if (read_ctl(c->ctl, &st)) {
		c->state = WIN_NONE;
		return pmuctx__err_set(r->h, PMUCTX_OP_RING_DATA, EAGAIN,
			"CPU %u control page: seq kept changing (%d tries)",
			cpu, CTL_TRIES);
	}
	/*
	 * A live overwrite-mode buffer is never read: the writer can
	 * overwrite a record's body after its header was checked, and
	 * nothing in the record says so (sampling issue item 3: the reader's
	 * guarantee is the freeze).  Frozen, data_tail and data_head stay.
	 */
	if (r->mode == PMUCTX_RING_OVERWRITE &&
	    !(st.flags & PMUCTX_RING_F_FROZEN)) {
		c->state = WIN_NONE;
		return pmuctx__err_set(r->h, PMUCTX_OP_RING_DATA, EBUSY,
			"CPU %u: an overwrite-mode buffer is read only while "
			"frozen: call pmuctx_ring_snapshot() first (a running "
			"writer overwrites records while they are copied)",
			cpu);
	}
	c->start = c->pos = c->consumed = st.data_tail;
	c->end = st.data_head;
	c->state = WIN_OPEN;
	if (!((st.data_tail | st.data_head) & 7) &&
	    st.data_head - st.data_tail <= r->data_size)
		return 0;
	if ((st.data_tail | st.data_head) & 7)
		return bad(r, cpu, "data_tail or data_head is not a multiple "
			   "of 8");
	return bad(r, cpu, "data_head - data_tail = %llu bytes, more than "
		   "the data area", (unsigned long long)(st.data_head -
							  st.data_tail));
}

PMUCTX_API int pmuctx_ring_begin(struct pmuctx_ring *r)
{
	struct pmuctx__err first;
	unsigned int i;
	int ret = 0, err;

	if (!r)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_begin: ring is NULL");
	for (i = 0; i < r->nr_cpus; i++) {
		err = open_window(r, i);
		if (err && !ret) {
			ret = err;
			first = *pmuctx__tls_err();
		}
	}
	if (ret) {	/* pmuctx_errmsg() tells the first failure */
		*pmuctx__tls_err() = first;
		pmuctx__err_commit(r->h);
	}
	return ret;
}

/* aligned 8-byte loads, each field of the shared page read exactly once */
static void copy_out(__u64 *dst, const volatile unsigned char *src, size_t n)
{
	const volatile __u64 *s = (const volatile __u64 *)src;
	size_t i;

	for (i = 0; i < n / 8; i++)
		dst[i] = s[i];
}

/* describe the record at c->pos in p_*; 1, 0 at the end, -EBADMSG */
static int peek(struct pmuctx_ring *r, unsigned int cpu)
{
	struct ring_cpu *c = &r->cpus[cpu];
	__u64 hdr_time[2];

	if (c->state != WIN_OPEN)
		return 0;
	if (c->peeked)
		return 1;
	while (c->pos != c->end) {
		__u64 left = c->end - c->pos;
		__u64 off = c->pos & (r->data_size - 1);
		__u64 to_end = r->data_size - off;
		struct pmuctx_rec_header h;
		char tn[32];

		if (left < HDR_SIZE)
			return bad(r, cpu, "at position %llu: %llu byte(s) "
				   "before data_head, less than a record "
				   "header", (unsigned long long)c->pos,
				   (unsigned long long)left);
		copy_out(hdr_time, c->data + off, HDR_SIZE);
		memcpy(&h, hdr_time, sizeof(h));
		type_str(h.type, tn, sizeof(tn));
		if (h.size < HDR_SIZE || h.size % 8)
			return bad(r, cpu, "%s record at position %llu "
				   "(offset %llu) has size %u: not a "
				   "multiple of 8 of at least 8", tn,
				   (unsigned long long)c->pos,
				   (unsigned long long)off, h.size);
		if (h.size > to_end)
			return bad(r, cpu, "%s record at position %llu "
				   "(offset %llu) has size %u: it crosses the "
				   "end of the data area (%llu bytes left "
				   "there; records never wrap)", tn,
				   (unsigned long long)c->pos,
				   (unsigned long long)off, h.size,
				   (unsigned long long)to_end);
		if (h.type == PMUCTX_REC_PAD) {
			/*
			 * PAD fills the rest of the data area.  A data_head
			 * inside the padding (published before the record
			 * that follows it) ends the window there: the next
			 * window starts at the PAD again.
			 */
			if (to_end > left)
				return 0;
			c->pos += to_end;
			continue;
		}
		if (h.size > left)
			return bad(r, cpu, "%s record at position %llu "
				   "(offset %llu) has size %u, but data_head "
				   "is %llu bytes away (truncated record)", tn,
				   (unsigned long long)c->pos,
				   (unsigned long long)off, h.size,
				   (unsigned long long)left);
		if (h.size < COMMON_END)
			return bad(r, cpu, "%s record at position %llu has "
				   "size %u, shorter than header + common "
				   "part (%zu bytes)", tn,
				   (unsigned long long)c->pos, h.size,
				   COMMON_END);
		copy_out(hdr_time + 1, c->data + off + HDR_SIZE, 8);
		c->p_type = h.type;
		c->p_size = h.size;
		c->p_time = hdr_time[1];
		c->peeked = true;
		return 1;
	}
	return 0;
}

/* copy the peeked record out, check it, hand it out */
static int take(struct pmuctx_ring *r, unsigned int cpu,
		struct pmuctx_record *rec)
{
	struct ring_cpu *c = &r->cpus[cpu];
	__u64 off = c->pos & (r->data_size - 1);
	struct pmuctx_rec_header h;
	char why[256];

	/* peek() made sure that off + p_size <= data_size */
	copy_out(r->buf, c->data + off, c->p_size);
	memcpy(&h, r->buf, sizeof(h));
	if (h.type != c->p_type || h.size != c->p_size ||
	    r->buf[1] != c->p_time)
		return bad(r, cpu, "the record at position %llu changed while "
			   "it was read (overwrite-mode buffers must be read "
			   "between pmuctx_ring_snapshot() and "
			   "pmuctx_ring_resume())",
			   (unsigned long long)c->pos);
	if (pmuctx__record_check(r->buf, c->p_size, why, sizeof(why)) < 0)
		return bad(r, cpu, "record at position %llu (offset %llu): %s",
			   (unsigned long long)c->pos,
			   (unsigned long long)off, why);
	memset(rec, 0, sizeof(*rec));
	rec->hdr = (const struct pmuctx_rec_header *)r->buf;
	rec->type = c->p_type;
	rec->size = c->p_size;
	rec->cpu = cpu;
	rec->time = c->p_time;
	rec->pos = c->pos;
	c->pos += c->p_size;
	c->peeked = false;
	return 1;
}

PMUCTX_API int pmuctx_ring_next_cpu(struct pmuctx_ring *r, unsigned int cpu,
				    struct pmuctx_record *rec)
{
	int ret;

	if (!r || !rec || cpu >= r->nr_cpus)
		return pmuctx__err_set(r ? r->h : NULL, PMUCTX_OP_ARG, EINVAL,
			"pmuctx_ring_next_cpu: NULL argument or CPU %u out of "
			"range", cpu);
	ret = peek(r, cpu);
	if (ret <= 0)
		return ret;
	return take(r, cpu, rec);
}

PMUCTX_API int pmuctx_ring_next(struct pmuctx_ring *r,
				struct pmuctx_record *rec)
{
	unsigned int i, best = UINT_MAX;
	int ret;

	if (!r || !rec)
		return pmuctx__err_set(r ? r->h : NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_next: NULL argument");
	for (i = 0; i < r->nr_cpus; i++) {
		ret = peek(r, i);
		if (ret < 0)
			return ret;	/* that CPU is closed now */
		if (ret && (best == UINT_MAX ||
			    r->cpus[i].p_time < r->cpus[best].p_time))
			best = i;
	}
	if (best == UINT_MAX)
		return 0;
	return take(r, best, rec);
}

PMUCTX_API int pmuctx_ring_skip(struct pmuctx_ring *r, int cpu)
{
	unsigned int i;

	if (!r || cpu < -1 || (cpu >= 0 && (unsigned int)cpu >= r->nr_cpus))
		return pmuctx__err_set(r ? r->h : NULL, PMUCTX_OP_ARG, EINVAL,
			"pmuctx_ring_skip: NULL ring or CPU %d out of range",
			cpu);
	for (i = 0; i < r->nr_cpus; i++) {
		struct ring_cpu *c = &r->cpus[i];

		if (cpu >= 0 && i != (unsigned int)cpu)
			continue;
		if (c->state != WIN_BAD)
			continue;
		c->pos = c->end;
		c->peeked = false;
		c->state = WIN_OPEN;
	}
	return 0;
}

/* ---- consume, snapshot, resume ------------------------------------------- */

PMUCTX_API int pmuctx_ring_consume(struct pmuctx_ring *r)
{
	unsigned int i;
	int ret = 0, err;

	if (!r)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_consume: ring is NULL");
	if (r->mode != PMUCTX_RING_NORMAL)
		return pmuctx__err_set(r->h, PMUCTX_OP_CONSUME, EINVAL,
			"overwrite-mode buffers are not consumed: the kernel "
			"moves data_tail itself; read them between "
			"pmuctx_ring_snapshot() and pmuctx_ring_resume()");
	for (i = 0; i < r->nr_cpus; i++) {
		struct ring_cpu *c = &r->cpus[i];
		struct pmuctx_ring_consume rc;

		if (c->state == WIN_NONE || c->pos == c->consumed)
			continue;
		memset(&rc, 0, sizeof(rc));
		rc.size = sizeof(rc);
		rc.cpu = i;
		rc.tail = c->pos;
		err = pmuctx__sys.ioctl(r->h->fd, PMUCTX_IOC_RING_CONSUME, &rc);
		if (err < 0) {
			if (!ret) {
				struct pmuctx__err *e = pmuctx__err_begin(r->h,
					PMUCTX_OP_CONSUME, err);

				snprintf(e->detail, sizeof(e->detail),
					 "RING_CONSUME of CPU %u up to %llu "
					 "(window %llu .. %llu)", i,
					 (unsigned long long)c->pos,
					 (unsigned long long)c->start,
					 (unsigned long long)c->end);
				pmuctx__err_commit(r->h);
				ret = err;
			}
			continue;
		}
		c->consumed = c->pos;
	}
	return ret;
}

static int ring_ioctl(struct pmuctx_ring *r, unsigned long req,
		      enum pmuctx__op op)
{
	int err;

	if (!r)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring: ring is NULL");
	err = pmuctx__sys.ioctl(r->h->fd, req, NULL);
	if (err < 0) {
		struct pmuctx__err *e = pmuctx__err_begin(r->h, op, err);

		e->ring.mode = r->mode;
		e->ring.pages = r->ring_pages;
		pmuctx__err_commit(r->h);
	}
	return err < 0 ? err : 0;
}

PMUCTX_API int pmuctx_ring_snapshot(struct pmuctx_ring *r)
{
	int err = ring_ioctl(r, PMUCTX_IOC_SNAPSHOT, PMUCTX_OP_SNAPSHOT);

	return err ? err : pmuctx_ring_begin(r);
}

PMUCTX_API int pmuctx_ring_resume(struct pmuctx_ring *r)
{
	unsigned int i;
	int err = ring_ioctl(r, PMUCTX_IOC_RESUME, PMUCTX_OP_RESUME);

	if (!err)	/* the windows are stale now */
		for (i = 0; i < r->nr_cpus; i++) {
			r->cpus[i].state = WIN_NONE;
			r->cpus[i].peeked = false;
		}
	return err;
}

/* ---- poll, write --------------------------------------------------------- */

PMUCTX_API int pmuctx_ring_poll(struct pmuctx *h, int timeout_ms)
{
	struct pollfd pfd;
	int n;

	if (!h)
		return pmuctx__err_set(NULL, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_poll: handle is NULL");
	pfd.fd = h->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	n = pmuctx__sys.poll(&pfd, 1, timeout_ms);
	if (n < 0) {
		if (n != -EINTR)
			pmuctx__err_set(h, PMUCTX_OP_POLL, -n, "poll of the "
					"session fd %d", h->fd);
		return n;
	}
	return n ? (pfd.revents ? pfd.revents : POLLIN) : 0;
}

PMUCTX_API int pmuctx_ring_write(struct pmuctx *h, const void *buf,
				 size_t len)
{
	ssize_t n;

	if (!h || !buf)
		return pmuctx__err_set(h, PMUCTX_OP_ARG, EINVAL,
				       "pmuctx_ring_write: handle or buf is "
				       "NULL");
	if (!len || len > PMUCTX_USER_MAX)
		return pmuctx__err_set(h, PMUCTX_OP_WRITE, EINVAL,
			"a USER record carries 1 to %d bytes, not %zu",
			PMUCTX_USER_MAX, len);
	n = pmuctx__sys.write(h->fd, buf, len);
	if (n < 0) {
		struct pmuctx__err *e = pmuctx__err_begin(h, PMUCTX_OP_WRITE,
							  (int)n);

		e->ring.pages = h->ring_pages;
		e->ring.mode = h->ring_mode;
		pmuctx__err_commit(h);
		return (int)n;
	}
	if ((size_t)n != len)
		return pmuctx__err_set(h, PMUCTX_OP_WRITE, EIO,
			"write(2) of a %zu-byte USER record returned %zd",
			len, n);
	return (int)n;
}
