// SPDX-License-Identifier: GPL-2.0
/*
 * pmfile: writing and reading pmuctx record files (docs/FILE-FORMAT.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <pmuctx.h>

#include "buildid.h"
#include "pmfile.h"

_Static_assert(sizeof(struct pmf_file_header) == 32, "file header");
_Static_assert(sizeof(struct pmf_section) == 16, "section");
_Static_assert(sizeof(struct pmf_info) == PMF_INFO_SIZE_V2, "info");
_Static_assert(offsetof(struct pmf_info, sample_freq) == PMF_INFO_SIZE_V1,
	       "info v1");
_Static_assert(sizeof(struct pmf_maps) == 24, "maps");
_Static_assert(sizeof(struct pmf_window) == 24, "window");
_Static_assert(sizeof(struct pmf_cpu_stats) == 56, "cpu stats");
_Static_assert(sizeof(struct pmf_window_end) == 24, "window end");
_Static_assert(sizeof(struct pmf_end) == 32, "end");
_Static_assert(sizeof(struct pmf_buildid) == 40, "buildid");
_Static_assert(PMF_BUILDID_MAX == BUILDID_MAX, "buildid size");

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)
/* a RECORDS section is closed at this size and a new one begun */
#define RECORDS_MAX	(1U << 20)
/* pending bytes that make pmf_add_record() flush */
#define FLUSH_AT	(4U << 20)

const char *pmf_reason_name(__u32 reason)
{
	switch (reason) {
	case PMF_WIN_STREAM:	return "stream";
	case PMF_WIN_SIGNAL:	return "signal";
	case PMF_WIN_REQUEST:	return "request";
	case PMF_WIN_TRIGGER:	return "trigger";
	case PMF_WIN_EXIT:	return "exit";
	default:		return "unknown";
	}
}

const char *pmf_maps_reason_name(__u32 reason)
{
	switch (reason) {
	case PMF_MAPS_START:	return "start";
	case PMF_MAPS_EXEC:	return "exec";
	case PMF_MAPS_MISS:	return "miss";
	case PMF_MAPS_FIRST:	return "first";
	case PMF_MAPS_KERNEL:	return "kernel";
	default:		return "unknown";
	}
}

/* ---- writer ----------------------------------------------------------- */

struct pmf_writer {
	int fd;
	char *path;
	__u64 end_off;		/* where the END section goes */
	unsigned char *pend;	/* sections not written yet */
	size_t pend_len, pend_cap;
	size_t rec_sec;		/* offset in pend of the open RECORDS
				 * section header, or SIZE_MAX */
	bool in_window;
	__u32 window;		/* index of the open (or next) window */
	__u64 win_records;
	__u64 records;
	__u64 last_time;
	int err;
	char msg[512];
	bool buildids;		/* pmf_set_buildids() */
	char **seen;		/* paths whose build-id was looked for: */
	size_t seen_cap, nr_seen;	/* open addressing, cap 2^n */
};

static int wfail(struct pmf_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int wfail(struct pmf_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	if (!w->err)
		w->err = err;
	return -err;
}

static int reserve(struct pmf_writer *w, size_t more)
{
	unsigned char *n;
	size_t cap = w->pend_cap ? w->pend_cap : 65536;

	if (w->pend_len + more <= w->pend_cap)
		return 0;
	while (cap < w->pend_len + more)
		cap *= 2;
	n = realloc(w->pend, cap);
	if (!n)
		return wfail(w, ENOMEM, "out of memory");
	w->pend = n;
	w->pend_cap = cap;
	return 0;
}

/* append a section with @len payload bytes (zero padded to 8) */
static int add_section(struct pmf_writer *w, __u32 type, const void *a,
		       size_t alen, const void *b, size_t blen)
{
	struct pmf_section s = { .type = type };
	size_t len = ALIGN8(alen + blen);

	if (reserve(w, sizeof(s) + len))
		return -ENOMEM;
	s.size = len;
	memcpy(w->pend + w->pend_len, &s, sizeof(s));
	w->pend_len += sizeof(s);
	if (alen)
		memcpy(w->pend + w->pend_len, a, alen);
	if (blen)
		memcpy(w->pend + w->pend_len + alen, b, blen);
	memset(w->pend + w->pend_len + alen + blen, 0, len - alen - blen);
	w->pend_len += len;
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, __u64 off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (__u64)n;
	}
	return 0;
}

static int write_out(struct pmf_writer *w, bool open, int exit_status)
{
	struct pmf_end end = {
		.windows = w->window,
		.records = w->records,
		.time = w->last_time,
		.exit_status = exit_status,
		.flags = open ? PMF_END_OPEN : 0,
	};
	size_t data;
	int err;

	if (w->err)
		return -w->err;
	w->rec_sec = SIZE_MAX;	/* a new RECORDS section after this */
	data = w->pend_len;
	if (add_section(w, PMF_SEC_END, &end, sizeof(end), NULL, 0))
		return -ENOMEM;
	/* one write: the new sections and the END that closes them */
	err = pwrite_all(w->fd, w->pend, w->pend_len, w->end_off);
	if (err)
		return wfail(w, -err, "cannot write %s: %s", w->path,
			     strerror(-err));
	w->end_off += data;
	w->pend_len = 0;
	return 0;
}

int pmf_create(struct pmf_writer **out, const char *path,
	       const struct pmf_meta *meta, char *errbuf, size_t errlen)
{
	struct pmf_file_header fh;
	struct pmf_info info;
	struct pmf_writer *w;
	const char *strs[PMF_NR_STRINGS];
	char *s;
	size_t slen = 0, i;
	int err;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		free(w);
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	w->rec_sec = SIZE_MAX;
	w->buildids = true;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot create %s: %s", path,
			 strerror(errno));
		free(w->path);
		free(w);
		return err;
	}
	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, PMF_MAGIC, sizeof(fh.magic));
	fh.byte_order = PMF_BYTE_ORDER;
	fh.version = PMF_VERSION;
	fh.header_size = sizeof(fh);

	info = meta->info;
	info.fixed_size = sizeof(info);
	info.clock = PMF_CLOCK_MONOTONIC;
	strs[0] = meta->command;
	strs[1] = meta->hostname;
	strs[2] = meta->release;
	strs[3] = meta->tool_version;
	strs[4] = meta->module_version;
	for (i = 0; i < PMF_NR_STRINGS; i++)
		slen += strlen(strs[i] ? strs[i] : "") + 1;
	s = malloc(slen);
	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		close(w->fd);
		free(w->path);
		free(w);
		return -ENOMEM;
	}
	slen = 0;
	for (i = 0; i < PMF_NR_STRINGS; i++) {
		const char *t = strs[i] ? strs[i] : "";

		memcpy(s + slen, t, strlen(t) + 1);
		slen += strlen(t) + 1;
	}
	w->last_time = info.start_mono_ns;
	if (reserve(w, sizeof(fh)) ) {
		err = -ENOMEM;
	} else {
		memcpy(w->pend, &fh, sizeof(fh));
		w->pend_len = sizeof(fh);
		err = add_section(w, PMF_SEC_INFO, &info, sizeof(info), s,
				  slen);
		if (!err)
			err = write_out(w, true, -1);
	}
	free(s);
	if (err) {
		snprintf(errbuf, errlen, "%s", w->msg[0] ? w->msg :
			 strerror(-err));
		close(w->fd);
		free(w->pend);
		free(w->path);
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int pmf_window_begin(struct pmf_writer *w, __u32 reason, __u64 time,
		     __s32 requester)
{
	struct pmf_window win = {
		.index = w->window,
		.reason = reason,
		.time = time,
		.requester = requester,
	};

	if (w->in_window)
		return wfail(w, EINVAL, "window %u is still open", w->window);
	w->rec_sec = SIZE_MAX;
	if (add_section(w, PMF_SEC_WINDOW, &win, sizeof(win), NULL, 0))
		return -ENOMEM;
	w->in_window = true;
	w->win_records = 0;
	if (time > w->last_time)
		w->last_time = time;
	return 0;
}

int pmf_add_record(struct pmf_writer *w, const void *rec, size_t size)
{
	struct pmf_section s;
	int err;

	if (!w->in_window)
		return wfail(w, EINVAL, "a record outside a window");
	if (size < 8 || size % 8)
		return wfail(w, EINVAL, "a record of %zu bytes", size);
	if (w->rec_sec != SIZE_MAX) {
		memcpy(&s, w->pend + w->rec_sec, sizeof(s));
		if (s.size + size > RECORDS_MAX)
			w->rec_sec = SIZE_MAX;
	}
	if (w->rec_sec == SIZE_MAX) {
		if (w->pend_len >= FLUSH_AT) {
			err = write_out(w, true, -1);
			if (err)
				return err;
		}
		if (add_section(w, PMF_SEC_RECORDS, NULL, 0, NULL, 0))
			return -ENOMEM;
		w->rec_sec = w->pend_len - sizeof(s);
	}
	if (reserve(w, size))
		return -ENOMEM;
	memcpy(w->pend + w->pend_len, rec, size);
	w->pend_len += size;
	memcpy(&s, w->pend + w->rec_sec, sizeof(s));
	s.size += size;
	memcpy(w->pend + w->rec_sec, &s, sizeof(s));
	w->records++;
	w->win_records++;
	return 0;
}

int pmf_window_end(struct pmf_writer *w, const struct pmf_cpu_stats *cpus,
		   __u32 nr_cpus, __u64 time)
{
	struct pmf_window_end e = {
		.index = w->window,
		.nr_cpus = nr_cpus,
		.records = w->win_records,
		.time = time,
	};

	if (!w->in_window)
		return wfail(w, EINVAL, "no window is open");
	w->rec_sec = SIZE_MAX;
	if (add_section(w, PMF_SEC_WINDOW_END, &e, sizeof(e), cpus,
			(size_t)nr_cpus * sizeof(*cpus)))
		return -ENOMEM;
	w->in_window = false;
	w->window++;
	if (time > w->last_time)
		w->last_time = time;
	return 0;
}

static __u64 path_hash(const char *p, size_t n)
{
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* @p (@n bytes) was not seen before: remember it; -ENOMEM */
static int seen_add(struct pmf_writer *w, const char *p, size_t n)
{
	size_t i, mask;

	if (2 * (w->nr_seen + 1) > w->seen_cap) {
		size_t cap = w->seen_cap ? 2 * w->seen_cap : 64;
		char **t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (i = 0; i < w->seen_cap; i++) {
			char *q = w->seen[i];
			size_t k;

			if (!q)
				continue;
			k = path_hash(q, strlen(q)) & (cap - 1);
			while (t[k])
				k = (k + 1) & (cap - 1);
			t[k] = q;
		}
		free(w->seen);
		w->seen = t;
		w->seen_cap = cap;
	}
	mask = w->seen_cap - 1;
	for (i = path_hash(p, n) & mask; w->seen[i]; i = (i + 1) & mask)
		if (!strncmp(w->seen[i], p, n) && !w->seen[i][n])
			return 0;
	w->seen[i] = strndup(p, n);
	if (!w->seen[i])
		return -ENOMEM;
	w->nr_seen++;
	return 1;
}

static void seen_free(struct pmf_writer *w)
{
	size_t i;

	for (i = 0; i < w->seen_cap; i++)
		free(w->seen[i]);
	free(w->seen);
}

/*
 * a BUILDID section for the files of executable mappings in @text that no
 * MAPS section named before (none if they have no build-id)
 */
static int add_buildids(struct pmf_writer *w, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned char *buf = NULL;
	size_t blen = 0, bcap = 0;
	int err = 0;

	while (p < end && *p) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *ls = p, *le = nl ? nl : end, *q;
		char line[8192], perms[8];
		unsigned long long a, b, off;
		size_t n = (size_t)(le - p), esz;
		struct pmf_buildid e;
		int k = 0, r;

		p = nl ? nl + 1 : end;
		if (n >= sizeof(line))
			continue;
		memcpy(line, ls, n);
		line[n] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &a, &b, perms,
			   &off, &k) < 4 || k <= 0 || perms[2] != 'x')
			continue;
		q = line + k;
		while (*q == ' ' || *q == '\t')
			q++;
		n = strlen(q);
		/* a file replaced or removed already: nothing to read */
		if (*q != '/' || (n >= 10 && !strcmp(q + n - 10, " (deleted)")))
			continue;
		r = seen_add(w, q, n);
		if (r <= 0) {
			err = r;
			if (err)
				break;
			continue;
		}
		memset(&e, 0, sizeof(e));
		r = buildid_read(q, e.id);
		if (r <= 0)
			continue;
		e.id_len = (__u32)r;
		esz = ALIGN8(sizeof(e) + n + 1);
		e.size = (__u32)esz;
		if (blen + esz > bcap) {
			size_t cap = bcap ? 2 * bcap : 4096;
			unsigned char *t;

			while (cap < blen + esz)
				cap *= 2;
			t = realloc(buf, cap);
			if (!t) {
				err = -ENOMEM;
				break;
			}
			buf = t;
			bcap = cap;
		}
		memset(buf + blen, 0, esz);
		memcpy(buf + blen, &e, sizeof(e));
		memcpy(buf + blen + sizeof(e), q, n);
		blen += esz;
	}
	if (!err && blen && add_section(w, PMF_SEC_BUILDID, buf, blen, NULL,
					0))
		err = -ENOMEM;
	free(buf);
	if (err)
		return wfail(w, -err, "out of memory");
	return 0;
}

int pmf_add_maps(struct pmf_writer *w, __s32 pid, __u64 time, __u32 reason,
		 const char *text, size_t len)
{
	struct pmf_maps m = {
		.fixed_size = sizeof(m),
		.pid = pid,
		.time = time,
		.reason = reason,
		.len = (__u32)len,
	};

	if (len > UINT32_MAX)
		return wfail(w, EINVAL, "a memory map of %zu bytes", len);
	/* records after it go into a new RECORDS section */
	w->rec_sec = SIZE_MAX;
	if (add_section(w, PMF_SEC_MAPS, &m, sizeof(m), text, len))
		return -ENOMEM;
	return w->buildids ? add_buildids(w, text, len) : 0;
}

void pmf_set_buildids(struct pmf_writer *w, bool on)
{
	w->buildids = on;
}

int pmf_add_vdso(struct pmf_writer *w, const void *image, size_t len)
{
	struct pmf_vdso v = {
		.fixed_size = sizeof(v),
		.len = (__u32)len,
	};

	/* refused, the writer still usable */
	if (!len || len > PMF_VDSO_MAX)
		return -EINVAL;
	/* records after it go into a new RECORDS section */
	w->rec_sec = SIZE_MAX;
	if (add_section(w, PMF_SEC_VDSO, &v, sizeof(v), image, len))
		return wfail(w, ENOMEM, "out of memory");
	return 0;
}

int pmf_flush(struct pmf_writer *w)
{
	return write_out(w, true, -1);
}

int pmf_close(struct pmf_writer *w, int exit_status, char *errbuf,
	      size_t errlen)
{
	int err;

	if (!w)
		return 0;
	err = write_out(w, false, exit_status);
	if (!err) {
		/* a file that shrank (overwritten with a shorter one) */
		struct pmf_section s = { 0 };
		__u64 size = w->end_off + sizeof(s) + sizeof(struct pmf_end);

		if (ftruncate(w->fd, (off_t)size))
			err = wfail(w, errno, "cannot truncate %s: %s",
				    w->path, strerror(errno));
	}
	if (close(w->fd) && !err)
		err = wfail(w, errno, "cannot write %s: %s", w->path,
			    strerror(errno));
	if (err && errbuf)
		snprintf(errbuf, errlen, "%s", w->msg);
	free(w->pend);
	free(w->path);
	seen_free(w);
	free(w);
	return err;
}

__u64 pmf_bytes(const struct pmf_writer *w)
{
	return w->end_off + w->pend_len;
}

__u64 pmf_records(const struct pmf_writer *w)
{
	return w->records;
}

__u32 pmf_windows(const struct pmf_writer *w)
{
	return w->window;
}

const char *pmf_writer_error(const struct pmf_writer *w)
{
	return w->msg;
}

/* ---- reader ----------------------------------------------------------- */

struct rd {
	struct pmf_reader *r;
	const char *path;
	char *err;
	size_t errlen;
	unsigned int flags;
	size_t recs_cap;
	size_t maps_cap;
	size_t wins_cap;
	size_t bids_cap;
};

static int rfail(struct rd *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rfail(struct rd *d, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(d->err, d->errlen, "%s: ", d->path);
	if (n < 0 || (size_t)n >= d->errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -err;
}

/* the file ends badly at @off: an error, or with PMF_READ_PARTIAL a cut */
static int cut(struct rd *d, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int cut(struct rd *d, size_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (d->flags & PMF_READ_PARTIAL) {
		snprintf(d->r->warning, sizeof(d->r->warning), "%s: %s at "
			 "offset %zu; the rest of the file (%zu bytes) is "
			 "ignored", d->path, what, off, d->r->len - off);
		d->r->cut_short = true;
		return 1;
	}
	return rfail(d, EBADMSG, "%s at offset %zu: the file is truncated or "
		     "damaged (the recorder was killed, the disk filled up, "
		     "or the file is being written right now; "
		     "'pmuctx report --partial' reads the complete windows)",
		     what, off);
}

static int read_all(struct rd *d)
{
	struct pmf_reader *r = d->r;
	size_t cap = 1 << 16;
	int fd;

	if (!strcmp(d->path, "-")) {
		fd = 0;
	} else {
		struct stat st;

		fd = open(d->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return rfail(d, errno, "cannot open: %s",
				     strerror(errno));
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
			cap = (size_t)st.st_size + 1;
	}
	if (posix_memalign((void **)&r->buf, 8, cap)) {
		r->buf = NULL;
		if (fd)
			close(fd);
		return rfail(d, ENOMEM, "out of memory for %zu bytes", cap);
	}
	for (;;) {
		ssize_t n;

		if (r->len == cap) {
			unsigned char *nb;

			if (posix_memalign((void **)&nb, 8, cap * 2)) {
				if (fd)
					close(fd);
				return rfail(d, ENOMEM, "out of memory");
			}
			memcpy(nb, r->buf, r->len);
			free(r->buf);
			r->buf = nb;
			cap *= 2;
		}
		n = read(fd, r->buf + r->len, cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			if (fd)
				close(fd);
			return rfail(d, e, "read error: %s", strerror(e));
		}
		if (!n)
			break;
		r->len += (size_t)n;
	}
	if (fd)
		close(fd);
	return 0;
}

static int parse_info(struct rd *d, const unsigned char *p, size_t len)
{
	struct pmf_reader *r = d->r;
	const char **strs[PMF_NR_STRINGS] = {
		&r->meta.command, &r->meta.hostname, &r->meta.release,
		&r->meta.tool_version, &r->meta.module_version,
	};
	__u32 fixed, i;
	size_t off;

	if (len < PMF_INFO_SIZE_V1)
		return rfail(d, EBADMSG, "the INFO section has %zu bytes, "
			     "fewer than its %d-byte fixed part", len,
			     PMF_INFO_SIZE_V1);
	memcpy(&fixed, p, sizeof(fixed));
	if (fixed < PMF_INFO_SIZE_V1 || fixed > len || fixed % 8)
		return rfail(d, EBADMSG, "the INFO section's fixed part has "
			     "%u bytes (section: %zu)", fixed, len);
	/* an older writer's smaller fixed part: the rest reads as zero */
	memset(&r->meta.info, 0, sizeof(r->meta.info));
	memcpy(&r->meta.info, p, fixed < sizeof(r->meta.info) ? fixed :
	       sizeof(r->meta.info));
	if (r->meta.info.clock != PMF_CLOCK_MONOTONIC)
		return rfail(d, EBADMSG, "clock %u, this pmuctx knows only "
			     "CLOCK_MONOTONIC (%d)", r->meta.info.clock,
			     PMF_CLOCK_MONOTONIC);
	if (r->meta.info.nr_events > PMUCTX_MAX_EVENTS)
		return rfail(d, EBADMSG, "%u events in INFO, at most %d",
			     r->meta.info.nr_events, PMUCTX_MAX_EVENTS);
	if (!r->meta.info.nr_cpus || r->meta.info.nr_cpus > 65536)
		return rfail(d, EBADMSG, "%u CPUs in INFO",
			     r->meta.info.nr_cpus);
	off = fixed;
	for (i = 0; i < PMF_NR_STRINGS; i++) {
		const unsigned char *z;

		if (off >= len)
			return rfail(d, EBADMSG, "INFO string %u is missing",
				     i);
		z = memchr(p + off, 0, len - off);
		if (!z)
			return rfail(d, EBADMSG, "INFO string %u is not "
				     "NUL-terminated", i);
		*strs[i] = (const char *)p + off;
		off = (size_t)(z - p) + 1;
	}
	return 0;
}

static int add_rec(struct rd *d, const struct pmuctx_rec_header *h)
{
	struct pmf_reader *r = d->r;

	if (r->nr_recs == d->recs_cap) {
		size_t cap = d->recs_cap ? d->recs_cap * 2 : 4096;
		const struct pmuctx_rec_header **n;

		n = realloc(r->recs, cap * sizeof(*n));
		if (!n)
			return rfail(d, ENOMEM, "out of memory");
		r->recs = n;
		d->recs_cap = cap;
	}
	r->recs[r->nr_recs++] = h;
	return 0;
}

static int parse_records(struct rd *d, size_t base, size_t len)
{
	struct pmf_reader *r = d->r;
	struct pmf_win *w = &r->wins[r->nr_wins - 1];
	size_t off = 0;
	int n, err;

	while (off < len) {
		char msg[512];

		n = pmuctx_record_check(r->buf + base + off, len - off);
		if (n < 0) {
			pmuctx_errmsg(NULL, n, msg, sizeof(msg));
			return rfail(d, EBADMSG, "window %u: bad record at "
				     "offset %zu: %s", w->hdr.index,
				     base + off, msg);
		}
		if (((const struct pmuctx_rec_header *)
		     (r->buf + base + off))->type != PMUCTX_REC_PAD) {
			err = add_rec(d, (const struct pmuctx_rec_header *)
					 (r->buf + base + off));
			if (err)
				return err;
			w->nr++;
		}
		off += (size_t)n;
	}
	return 0;
}

static int parse_maps(struct rd *d, const unsigned char *p, size_t len,
		      size_t off)
{
	struct pmf_reader *r = d->r;
	struct pmf_maps m;
	struct pmf_map *v;

	if (len < sizeof(m))
		return rfail(d, EBADMSG, "MAPS section at offset %zu is too "
			     "short", off);
	memcpy(&m, p, sizeof(m));
	if (m.fixed_size < sizeof(m) || m.fixed_size % 8 ||
	    m.fixed_size > len || m.len > len - m.fixed_size)
		return rfail(d, EBADMSG, "MAPS section at offset %zu: fixed "
			     "part %u bytes and %u bytes of text in %zu bytes",
			     off, m.fixed_size, m.len, len);
	if (r->nr_maps == d->maps_cap) {
		size_t cap = d->maps_cap ? d->maps_cap * 2 : 16;

		v = realloc(r->maps, cap * sizeof(*v));
		if (!v)
			return rfail(d, ENOMEM, "out of memory");
		r->maps = v;
		d->maps_cap = cap;
	}
	v = &r->maps[r->nr_maps++];
	v->pid = m.pid;
	v->reason = m.reason;
	v->time = m.time;
	v->text = (const char *)p + m.fixed_size;
	v->len = m.len;
	return 0;
}

/* a VDSO section (@p, @len bytes) at @off: the first one is used */
static int parse_vdso(struct rd *d, const unsigned char *p, size_t len,
		      size_t off)
{
	struct pmf_reader *r = d->r;
	struct pmf_vdso v;

	if (len < sizeof(v))
		return rfail(d, EBADMSG, "VDSO section at offset %zu is too "
			     "short", off);
	memcpy(&v, p, sizeof(v));
	if (v.fixed_size < sizeof(v) || v.fixed_size % 8 ||
	    v.fixed_size > len || !v.len || v.len > PMF_VDSO_MAX ||
	    v.len > len - v.fixed_size)
		return rfail(d, EBADMSG, "VDSO section at offset %zu: fixed "
			     "part %u bytes and %u bytes of image in %zu bytes",
			     off, v.fixed_size, v.len, len);
	if (!r->vdso) {
		r->vdso = p + v.fixed_size;
		r->vdso_len = v.len;
	}
	return 0;
}

/* a BUILDID section (@p, @len bytes) at @off */
static int parse_buildids(struct rd *d, const unsigned char *p, size_t len,
			  size_t off)
{
	struct pmf_reader *r = d->r;
	size_t at = 0;

	while (at < len) {
		struct pmf_buildid e;
		struct pmf_bid *v;
		const char *path;

		if (len - at < sizeof(e))
			return rfail(d, EBADMSG, "BUILDID section at offset "
				     "%zu: %zu bytes where an entry should be",
				     off, len - at);
		memcpy(&e, p + at, sizeof(e));
		path = (const char *)p + at + sizeof(e);
		if (e.size <= sizeof(e) || e.size % 8 || e.size > len - at ||
		    !e.id_len || e.id_len > PMF_BUILDID_MAX ||
		    !memchr(path, '\0', e.size - sizeof(e)))
			return rfail(d, EBADMSG, "BUILDID section at offset "
				     "%zu: a bad entry at byte %zu (%u bytes, "
				     "id of %u)", off, at, e.size, e.id_len);
		if (r->nr_buildids == d->bids_cap) {
			size_t cap = d->bids_cap ? d->bids_cap * 2 : 16;

			v = realloc(r->buildids, cap * sizeof(*v));
			if (!v)
				return rfail(d, ENOMEM, "out of memory");
			r->buildids = v;
			d->bids_cap = cap;
		}
		v = &r->buildids[r->nr_buildids++];
		v->path = path;
		v->id = p + at + offsetof(struct pmf_buildid, id);
		v->id_len = e.id_len;
		at += e.size;
	}
	return 0;
}

/* the file header: 0, or the error (d's message says it) */
static int parse_file_header(struct rd *d, size_t *header_size)
{
	struct pmf_reader *r = d->r;
	struct pmf_file_header fh;

	if (r->len < sizeof(fh))
		return rfail(d, EBADMSG, "not a pmuctx recording: %zu bytes, "
			     "too short for the %zu-byte file header", r->len,
			     sizeof(fh));
	memcpy(&fh, r->buf, sizeof(fh));
	if (memcmp(fh.magic, PMF_MAGIC, sizeof(fh.magic)))
		return rfail(d, EBADMSG, "not a pmuctx recording (bad magic: "
			     "expected \"%s\"; pmuctx record -o writes these "
			     "files)", PMF_MAGIC);
	if (fh.byte_order != PMF_BYTE_ORDER)
		return rfail(d, EPROTO, "written on a machine of the other "
			     "byte order (0x%08x): read it there",
			     fh.byte_order);
	if (!fh.version || fh.version > PMF_VERSION)
		return rfail(d, EPROTO, "file format version %u; this pmuctx "
			     "reads version%s up to %d: %s", fh.version,
			     PMF_VERSION > 1 ? "s" : "", PMF_VERSION,
			     fh.version ? "upgrade pmuctx" : "a bad file");
	if (fh.header_size < sizeof(fh) || fh.header_size % 8 ||
	    fh.header_size > r->len)
		return rfail(d, EBADMSG, "file header size %u is bad",
			     fh.header_size);
	r->version = fh.version;
	*header_size = fh.header_size;
	return 0;
}

/* a WINDOW section (@p, @size bytes) at @off: a window begins */
static int parse_window(struct rd *d, const unsigned char *p, size_t size,
			size_t off)
{
	struct pmf_reader *r = d->r;
	struct pmf_win *w;

	if (r->nr_wins && !r->wins[r->nr_wins - 1].have_end)
		return rfail(d, EBADMSG, "window %u begins at offset %zu "
			     "before window %u ended", (unsigned)r->nr_wins,
			     off, (unsigned)r->nr_wins - 1);
	if (size < sizeof(struct pmf_window))
		return rfail(d, EBADMSG, "WINDOW section at offset %zu is too "
			     "short", off);
	if (r->nr_wins == d->wins_cap) {
		size_t cap = d->wins_cap ? d->wins_cap * 2 : 16;
		struct pmf_win *n = realloc(r->wins, cap * sizeof(*n));

		if (!n)
			return rfail(d, ENOMEM, "out of memory");
		r->wins = n;
		d->wins_cap = cap;
	}
	w = &r->wins[r->nr_wins];
	memset(w, 0, sizeof(*w));
	memcpy(&w->hdr, p, sizeof(w->hdr));
	if (w->hdr.index != r->nr_wins)
		return rfail(d, EBADMSG, "window at offset %zu has index %u, "
			     "expected %zu", off, w->hdr.index, r->nr_wins);
	w->first = r->nr_recs;
	r->nr_wins++;
	return 0;
}

/* a WINDOW_END section (@p, @size bytes) at @off: the window ends */
static int parse_window_end(struct rd *d, const unsigned char *p,
			    size_t size, size_t off)
{
	struct pmf_reader *r = d->r;
	struct pmf_win *w;

	if (!r->nr_wins || r->wins[r->nr_wins - 1].have_end)
		return rfail(d, EBADMSG, "WINDOW_END without a window at "
			     "offset %zu", off);
	w = &r->wins[r->nr_wins - 1];
	if (size < sizeof(w->end))
		return rfail(d, EBADMSG, "WINDOW_END at offset %zu is too "
			     "short", off);
	memcpy(&w->end, p, sizeof(w->end));
	if (w->end.index != w->hdr.index || w->end.nr_cpus > 65536 ||
	    sizeof(w->end) + (size_t)w->end.nr_cpus *
	    sizeof(struct pmf_cpu_stats) > size)
		return rfail(d, EBADMSG, "WINDOW_END at offset %zu does not "
			     "match window %u (index %u, %u CPUs in %llu "
			     "bytes)", off, w->hdr.index, w->end.index,
			     w->end.nr_cpus, (unsigned long long)size);
	w->cpus = (const struct pmf_cpu_stats *)(p + sizeof(w->end));
	w->have_end = true;
	return 0;
}

/* the END section (@p, @size bytes) at @off: the last; parse()'s result */
static int parse_end(struct rd *d, const unsigned char *p, size_t size,
		     size_t off)
{
	struct pmf_reader *r = d->r;

	if (size < sizeof(r->end))
		return rfail(d, EBADMSG, "END at offset %zu is too short",
			     off);
	memcpy(&r->end, p, sizeof(r->end));
	r->have_end = true;
	off += sizeof(struct pmf_section) + size;
	if (off != r->len)
		return cut(d, off, "%zu byte(s) after the end marker",
			   r->len - off) > 0 ? 0 : -EBADMSG;
	return 0;
}

/* section @s (its contents at @p) at @off, except END: 0 or the error */
static int parse_section(struct rd *d, const struct pmf_section *s,
			 const unsigned char *p, size_t off, bool *have_info)
{
	struct pmf_reader *r = d->r;
	int err;

	switch (s->type) {
	case PMF_SEC_INFO:
		if (*have_info)
			return rfail(d, EBADMSG, "a second INFO section at "
				     "offset %zu", off);
		err = parse_info(d, p, (size_t)s->size);
		if (!err)
			*have_info = true;
		return err;
	case PMF_SEC_WINDOW:
		return parse_window(d, p, (size_t)s->size, off);
	case PMF_SEC_RECORDS:
		if (!r->nr_wins || r->wins[r->nr_wins - 1].have_end)
			return rfail(d, EBADMSG, "records outside a window at "
				     "offset %zu", off);
		return parse_records(d, off + sizeof(*s), (size_t)s->size);
	case PMF_SEC_WINDOW_END:
		return parse_window_end(d, p, (size_t)s->size, off);
	case PMF_SEC_MAPS:
		return parse_maps(d, p, (size_t)s->size, off);
	case PMF_SEC_BUILDID:
		return parse_buildids(d, p, (size_t)s->size, off);
	case PMF_SEC_VDSO:
		return parse_vdso(d, p, (size_t)s->size, off);
	default:
		return 0;	/* a newer writer's section: skipped */
	}
}

static int parse(struct rd *d)
{
	struct pmf_reader *r = d->r;
	bool have_info = false;
	size_t off = 0;
	int err;

	err = parse_file_header(d, &off);
	if (err)
		return err;
	while (off < r->len) {
		struct pmf_section s;
		const unsigned char *p;

		if (r->len - off < sizeof(s))
			return cut(d, off, "%zu byte(s) where a section header "
				   "(%zu bytes) should be", r->len - off,
				   sizeof(s)) > 0 ? 0 : -EBADMSG;
		memcpy(&s, r->buf + off, sizeof(s));
		if (s.size % 8)
			return rfail(d, EBADMSG, "section at offset %zu (type "
				     "%u) has size %llu, not a multiple of 8",
				     off, s.type, (unsigned long long)s.size);
		if (s.size > r->len - off - sizeof(s))
			return cut(d, off, "a section (type %u) of %llu bytes "
				   "with only %zu bytes left", s.type,
				   (unsigned long long)s.size,
				   r->len - off - sizeof(s)) > 0 ? 0 : -EBADMSG;
		p = r->buf + off + sizeof(s);
		if (!have_info && s.type != PMF_SEC_INFO)
			return rfail(d, EBADMSG, "the first section (offset "
				     "%zu) is type %u, not INFO", off, s.type);
		if (s.type == PMF_SEC_END)
			return parse_end(d, p, (size_t)s.size, off);
		err = parse_section(d, &s, p, off, &have_info);
		if (err)
			return err;
		off += sizeof(s) + (size_t)s.size;
	}
	if (!have_info)
		return rfail(d, EBADMSG, "no INFO section");
	return cut(d, off, "no end marker") > 0 ? 0 : -EBADMSG;
}

int pmf_read(const char *path, unsigned int flags, struct pmf_reader **out,
	     char *errbuf, size_t errlen)
{
	struct rd d = {
		.path = path, .err = errbuf, .errlen = errlen, .flags = flags,
	};
	int err;

	*out = NULL;
	d.r = calloc(1, sizeof(*d.r));
	if (!d.r) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	err = read_all(&d);
	if (!err)
		err = parse(&d);
	if (!err && !d.r->meta.command)
		err = rfail(&d, EBADMSG, "no INFO section");
	if (err) {
		pmf_free(d.r);
		return err;
	}
	*out = d.r;
	return 0;
}

void pmf_free(struct pmf_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r->wins);
	free(r->recs);
	free(r->maps);
	free(r->buildids);
	free(r);
}
