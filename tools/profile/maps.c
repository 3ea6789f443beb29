// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's memory maps.  The kernel writes no MMAP records, so
 * pmuctx record reads /proc/PID/maps itself and stores the text in the
 * file (MAPS sections): for the target at the start, for a process at
 * its EXEC record (valid from the exec on: the section carries the
 * record's time), the first time a process shows up in a SAMPLE or
 * USER_CALLCHAIN record, and again when one of its user addresses is in
 * none of the executable mappings last read (a dlopen(); at most every
 * 100 ms per process).  A process that exits before it is read has no
 * map from /proc.  With a module that writes MMAP records (sessions that
 * sample user stacks, PMUCTX_FEAT_MMAP) the sampled task describes its
 * file mappings itself: the records of one snapshot (FIRST ... LAST) are
 * turned into /proc/PID/maps lines and stored as one MAPS section
 * (reason "kernel"), so a short command's frames are named too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hidx.h"
#include "profile.h"

#define RECHECK_NS	100000000ULL	/* re-read a map at most every 100 ms */

struct mc_range {
	__u64 start, end;
};

struct mc_proc {
	__s32 pid;
	bool gone;		/* /proc/PID/maps could not be read */
	__u64 last;		/* when it was last read (CLOCK_MONOTONIC) */
	__u64 text_hash;	/* of the text last stored */
	size_t text_len;
	struct mc_range *r;	/* executable mappings */
	size_t nr;
	/* an MMAP snapshot being assembled (entries keyed by -tid) */
	char *kt;
	size_t kt_len, kt_cap;
	__u64 kt_time;		/* of its first record */
	__s32 kt_pid;		/* the process it describes */
	bool was_gone;		/* counted in maps_cap.gone */
	char comm[PMUCTX_COMM_LEN + 1];	/* from COMM/EXEC records, or "" */
};

struct maps_cap {
	char *proc_root;
	maps_store_fn store;
	void *ctx;
	struct mc_proc *procs;
	size_t nprocs, cap;
	struct hidx idx;
	__u64 captured, gone, bytes;
	char *buf;
	size_t bufcap;
	/* thread names (maps_cap_names()): the threads already named */
	maps_name_fn name;
	__s32 *named;
	size_t nr_named, cap_named;
	struct hidx named_idx;
};

static bool proc_eq(const void *ctx, __u32 i, const void *key)
{
	return ((const struct maps_cap *)ctx)->procs[i].pid ==
	       *(const __s32 *)key;
}

static struct mc_proc *find(struct maps_cap *mc, __s32 pid, bool create)
{
	__u64 h = mix64((__u64)(__u32)pid);
	long i = hidx_find(&mc->idx, h, proc_eq, mc, &pid);
	struct mc_proc *p;

	if (i >= 0)
		return &mc->procs[i];
	if (!create)
		return NULL;
	if (mc->nprocs == mc->cap) {
		size_t nc = mc->cap ? mc->cap * 2 : 64;

		p = realloc(mc->procs, nc * sizeof(*p));
		if (!p)
			return NULL;
		mc->procs = p;
		mc->cap = nc;
	}
	if (hidx_insert(&mc->idx, h, (__u32)mc->nprocs))
		return NULL;
	p = &mc->procs[mc->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

int maps_cap_new(struct maps_cap **out, const char *proc_root,
		 maps_store_fn store, void *ctx)
{
	struct maps_cap *mc = calloc(1, sizeof(*mc));

	*out = NULL;
	if (!mc)
		return -ENOMEM;
	mc->proc_root = strdup(proc_root ? proc_root : "/proc");
	if (!mc->proc_root) {
		free(mc);
		return -ENOMEM;
	}
	mc->store = store;
	mc->ctx = ctx;
	*out = mc;
	return 0;
}

void maps_cap_free(struct maps_cap *mc)
{
	size_t i;

	if (!mc)
		return;
	for (i = 0; i < mc->nprocs; i++) {
		free(mc->procs[i].r);
		free(mc->procs[i].kt);
	}
	free(mc->procs);
	hidx_free(&mc->idx);
	free(mc->named);
	hidx_free(&mc->named_idx);
	free(mc->proc_root);
	free(mc->buf);
	free(mc);
}

/* the executable mappings of @text into @p */
static int parse_ranges(struct mc_proc *p, const char *text)
{
	const char *s = text;
	size_t cap = 0;

	p->nr = 0;
	while (*s) {
		unsigned long long a, b;
		char perms[8];
		const char *nl = strchr(s, '\n');

		if (sscanf(s, "%llx-%llx %7s", &a, &b, perms) == 3 &&
		    perms[2] == 'x') {
			if (p->nr == cap) {
				size_t nc = cap ? cap * 2 : 32;
				struct mc_range *r = realloc(p->r, nc *
							     sizeof(*r));

				if (!r)
					return -ENOMEM;
				p->r = r;
				cap = nc;
			}
			p->r[p->nr].start = a;
			p->r[p->nr++].end = b;
		}
		if (!nl)
			break;
		s = nl + 1;
	}
	return 0;
}

static int read_maps(struct maps_cap *mc, __s32 pid, size_t *len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/maps", mc->proc_root, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*len = 0;
	for (;;) {
		if (mc->bufcap - *len < 4096) {
			size_t nc = mc->bufcap ? mc->bufcap * 2 : 65536;
			char *b = realloc(mc->buf, nc);

			if (!b) {
				close(fd);
				return -ENOMEM;
			}
			mc->buf = b;
			mc->bufcap = nc;
		}
		n = read(fd, mc->buf + *len, mc->bufcap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (!n)
			break;
		*len += (size_t)n;
	}
	close(fd);
	mc->buf[*len] = '\0';
	/* a process that is exiting (or a zombie) shows an empty map */
	return *len ? 0 : -ENOENT;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* read /proc/PID/maps; store it (valid from @time) unless unchanged */
int maps_capture(struct maps_cap *mc, __s32 pid, __u64 time, __u32 reason)
{
	struct mc_proc *p;
	size_t len;
	__u64 h;
	int err;

	if (pid <= 0)
		return -EINVAL;
	p = find(mc, pid, true);
	if (!p)
		return -ENOMEM;
	p->last = mono_ns();
	err = read_maps(mc, pid, &len);
	if (err) {
		if (!p->gone && !p->was_gone)
			mc->gone++;
		p->gone = true;
		p->was_gone = true;
		return err;
	}
	p->gone = false;
	h = hash_bytes(0xcbf29ce484222325ULL, mc->buf, len);
	if (p->text_len == len && p->text_hash == h)
		return 0;		/* the same map as last time */
	err = parse_ranges(p, mc->buf);
	if (err)
		return err;
	p->text_hash = h;
	p->text_len = len;
	mc->captured++;
	mc->bytes += len;
	return mc->store ? mc->store(mc->ctx, pid, time, reason, mc->buf, len) :
	       0;
}

static bool covered(const struct mc_proc *p, __u64 a)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (a >= p->r[i].start && a < p->r[i].end)
			return true;
	return false;
}

/* capture when @pid is new, or @ips holds an address it does not map */
static void check_user(struct maps_cap *mc, __s32 pid, __u64 time,
		       const __u64 *ips, __u32 n, __u64 now)
{
	struct mc_proc *p = find(mc, pid, false);
	__u32 i;

	if (pid <= 0)
		return;
	if (!p) {
		maps_capture(mc, pid, time, MAPS_FIRST);
		return;
	}
	if (p->gone || now < p->last + RECHECK_NS)
		return;
	for (i = 0; i < n; i++)
		if (ips[i] && !covered(p, ips[i])) {
			maps_capture(mc, pid, now, MAPS_MISS);
			return;
		}
}

/* store the MMAP snapshot assembled in @p, if any, and let go of it */
static void kt_store(struct maps_cap *mc, struct mc_proc *p)
{
	if (p->kt_len) {
		mc->captured++;
		mc->bytes += p->kt_len;
		if (mc->store)
			mc->store(mc->ctx, p->kt_pid, p->kt_time, MAPS_KERNEL,
				  p->kt, p->kt_len);
	}
	free(p->kt);
	p->kt = NULL;
	p->kt_len = p->kt_cap = 0;
}

/*
 * One MMAP record: a /proc/PID/maps line of the snapshot it belongs to.
 * Each thread writes its own snapshots (one per entry), and two threads'
 * can interleave in the merged rings: they are assembled per thread, in
 * entries keyed by -tid (never a process's key), and stored per process.
 */
static void kt_record(struct maps_cap *mc, const struct pmuctx_rec_mmap *m)
{
	size_t plen = m->hdr.size - sizeof(*m), need;
	struct mc_proc *p, *pp;
	int n;

	if (m->c.pid <= 0 || m->c.tid <= 0)
		return;
	p = find(mc, -m->c.tid, true);
	if (!p)
		return;
	/* a name with a newline would forge map lines (procfs escapes it) */
	if (memchr(m->path, '\n', strnlen(m->path, plen)))
		return;
	if (m->hdr.misc & PMUCTX_MMAP_M_FIRST) {
		kt_store(mc, p);	/* a snapshot whose LAST was lost */
		p->kt_time = m->c.time;
	} else if (!p->kt_len) {
		p->kt_time = m->c.time;	/* its FIRST was lost */
	}
	p->kt_pid = m->c.pid;
	need = p->kt_len + 96 + strnlen(m->path, plen) + 1;
	if (need > p->kt_cap) {
		size_t nc = p->kt_cap ? p->kt_cap : 4096;
		char *t;

		while (nc < need)
			nc *= 2;
		t = realloc(p->kt, nc);
		if (!t)
			return;
		p->kt = t;
		p->kt_cap = nc;
	}
	n = snprintf(p->kt + p->kt_len, p->kt_cap - p->kt_len,
		     "%llx-%llx %c%c%c%c %08llx %02x:%02x %llu %.*s\n",
		     (unsigned long long)m->start,
		     (unsigned long long)(m->start + m->len),
		     m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-',
		     m->prot & 4 ? 'x' : '-', m->flags == 1 ? 's' : 'p',
		     (unsigned long long)m->pgoff, m->dev_major, m->dev_minor,
		     (unsigned long long)m->ino, (int)strnlen(m->path, plen),
		     m->path);
	if (n > 0 && (size_t)n < p->kt_cap - p->kt_len)
		p->kt_len += (size_t)n;
	if (m->hdr.misc & PMUCTX_MMAP_M_LAST) {
		/* the process is covered: no /proc read for these addresses */
		pp = find(mc, m->c.pid, true);
		if (pp && p->kt && !parse_ranges(pp, p->kt))
			pp->last = mono_ns();
		kt_store(mc, p);
	}
}

void maps_cap_flush(struct maps_cap *mc)
{
	size_t i;

	if (!mc)
		return;
	for (i = 0; i < mc->nprocs; i++)
		kt_store(mc, &mc->procs[i]);
}

/* ---- names ----------------------------------------------------------- */

void maps_cap_names(struct maps_cap *mc, maps_name_fn fn)
{
	if (mc)
		mc->name = fn;
}

/* the name of a process, for the summary: from its COMM or EXEC record */
static void proc_comm(struct maps_cap *mc, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = (const void *)(h + 1);
	const char *comm = h->type == PMUCTX_REC_EXEC ?
			   ((const struct pmuctx_rec_exec *)h)->comm :
			   ((const struct pmuctx_rec_comm *)h)->comm;
	struct mc_proc *p;

	if (c->pid <= 0 || c->tid != c->pid)
		return;
	p = find(mc, c->pid, true);
	if (p) {
		memcpy(p->comm, comm, PMUCTX_COMM_LEN);
		p->comm[PMUCTX_COMM_LEN] = '\0';
	}
}

static bool tid_eq(const void *ctx, __u32 i, const void *key)
{
	return ((const struct maps_cap *)ctx)->named[i] ==
	       *(const __s32 *)key;
}

/* remember @tid as named: true the first time */
static bool first_time(struct maps_cap *mc, __s32 tid)
{
	__u64 h = mix64((__u64)(__u32)tid ^ 0x5bd1e995ULL);

	if (hidx_find(&mc->named_idx, h, tid_eq, mc, &tid) >= 0)
		return false;
	if (mc->nr_named == mc->cap_named) {
		size_t nc = mc->cap_named ? mc->cap_named * 2 : 64;
		__s32 *v = realloc(mc->named, nc * sizeof(*v));

		if (!v)
			return false;
		mc->named = v;
		mc->cap_named = nc;
	}
	if (hidx_insert(&mc->named_idx, h, (__u32)mc->nr_named))
		return false;
	mc->named[mc->nr_named++] = tid;
	return true;
}

/*
 * The first sample of a thread that is not its process's first: its
 * name now (pthread_setname_np() and prctl(PR_SET_NAME) write no record),
 * from /proc/PID/task/TID/comm, valid from just before the sample.
 */
static void name_thread(struct maps_cap *mc, const struct pmuctx_rec_common *c)
{
	char path[512], comm[PMUCTX_COMM_LEN + 2];
	ssize_t n;
	int fd;

	if (!mc->name || c->pid <= 0 || c->tid <= 0 || c->tid == c->pid ||
	    !first_time(mc, c->tid))
		return;
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", mc->proc_root,
		 (int)c->pid, (int)c->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	if (comm[0])
		mc->name(mc->ctx, c->pid, c->tid, c->cpu,
			 c->time ? c->time - 1 : 0, comm);
}

size_t maps_cap_gone_list(const struct maps_cap *mc, char *buf, size_t len)
{
	size_t i, o = 0, shown = 0, n = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; mc && i < mc->nprocs; i++) {
		const struct mc_proc *p = &mc->procs[i];
		char one[64];
		int k;

		if (!p->was_gone)
			continue;
		n++;
		k = snprintf(one, sizeof(one), "%s%d%s%s%s", shown ? ", " : "",
			     (int)p->pid, p->comm[0] ? " (" : "", p->comm,
			     p->comm[0] ? ")" : "");
		if (k < 0 || o + (size_t)k + 16 > len)
			continue;
		memcpy(buf + o, one, (size_t)k + 1);
		o += (size_t)k;
		shown++;
	}
	if (n > shown && o + 16 <= len)
		snprintf(buf + o, len - o, "%s%zu more", shown ? " and " : "",
			 n - shown);
	return n;
}

void maps_cap_record(struct maps_cap *mc, const struct pmuctx_rec_header *h,
		     __u64 now)
{
	const struct pmuctx_rec_common *c = (const void *)(h + 1);

	if (!mc)
		return;
	switch (h->type) {
	case PMUCTX_REC_COMM:
		proc_comm(mc, h);
		break;
	case PMUCTX_REC_EXEC:
		proc_comm(mc, h);
		/* the new image's map, valid from the exec on */
		maps_capture(mc, c->pid, c->time, MAPS_EXEC);
		break;
	case PMUCTX_REC_SAMPLE: {
		const struct pmuctx_rec_sample *s = (const void *)h;

		name_thread(mc, c);

		if (s->nr_user)
			check_user(mc, c->pid, c->time, s->ips + s->nr_kernel,
				   s->nr_user, now);
		else if (h->misc & PMUCTX_SAMPLE_M_USER)
			check_user(mc, c->pid, c->time, &s->ip, 1, now);
		else if (!find(mc, c->pid, false))
			check_user(mc, c->pid, c->time, NULL, 0, now);
		break;
	}
	case PMUCTX_REC_USER_CALLCHAIN: {
		const struct pmuctx_rec_user_callchain *u = (const void *)h;

		check_user(mc, c->pid, c->time, u->ips, u->nr, now);
		break;
	}
	case PMUCTX_REC_MMAP:
		if (h->size > sizeof(struct pmuctx_rec_mmap))
			kt_record(mc, (const void *)h);
		break;
	default:
		break;
	}
}

void maps_cap_counts(const struct maps_cap *mc, __u64 *captured,
		     __u64 *gone, __u64 *bytes)
{
	*captured = mc ? mc->captured : 0;
	*gone = mc ? mc->gone : 0;
	*bytes = mc ? mc->bytes : 0;
}
