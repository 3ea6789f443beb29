/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpmuctx internals.  Not installed.  Everything here has hidden
 * visibility: it is reachable from the static library (the unit tests link
 * against libpmuctx.a) but not exported from libpmuctx.so.
 */
#ifndef __LIBPMUCTX_INTERNAL_H
#define __LIBPMUCTX_INTERNAL_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <poll.h>
#include <sys/types.h>

#include "pmuctx.h"

#define PMUCTX_INTERNAL __attribute__((visibility("hidden")))

#ifndef offsetofend
#define offsetofend(TYPE, FIELD) \
	(offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- opts validation (libbpf's OPTS_VALID & co) ---------------------- */

PMUCTX_INTERNAL bool pmuctx__validate_opts(const char *opts, size_t opts_sz,
					   size_t user_sz,
					   const char *type_name);

#define OPTS_VALID(opts, type)						\
	(!(opts) || pmuctx__validate_opts((const char *)(opts),		\
					  offsetofend(struct type,	\
						      type##__last_field), \
					  (opts)->sz, #type))
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetofend(typeof(*(opts)), field))
#define OPTS_GET(opts, field, fallback_value) \
	(OPTS_HAS(opts, field) ? (opts)->field : fallback_value)

/* ---- system-call indirection (tests inject a fake kernel) ------------ */

struct pmuctx__sys {
	/* return the fd or -errno */
	int (*open)(const char *path, int flags);
	/* return 0 (or the ioctl's value) or -errno */
	int (*ioctl)(int fd, unsigned long req, void *arg);
	/* ring buffers: store the address in *out, return 0 or -errno */
	int (*mmap)(void **out, size_t len, int prot, int flags, int fd,
		    off_t off);
	int (*munmap)(void *addr, size_t len);		/* 0 or -errno */
	ssize_t (*write)(int fd, const void *buf, size_t len); /* or -errno */
	int (*poll)(struct pollfd *fds, nfds_t n, int timeout); /* or -errno */
};
PMUCTX_INTERNAL extern struct pmuctx__sys pmuctx__sys;
PMUCTX_INTERNAL int pmuctx__sys_open(const char *path, int flags);
PMUCTX_INTERNAL int pmuctx__sys_ioctl(int fd, unsigned long req, void *arg);
PMUCTX_INTERNAL int pmuctx__sys_mmap(void **out, size_t len, int prot,
				     int flags, int fd, off_t off);
PMUCTX_INTERNAL int pmuctx__sys_munmap(void *addr, size_t len);
PMUCTX_INTERNAL ssize_t pmuctx__sys_write(int fd, const void *buf, size_t len);
PMUCTX_INTERNAL int pmuctx__sys_poll(struct pollfd *fds, nfds_t n,
				     int timeout);

/* ---- error records ---------------------------------------------------- */

#define PMUCTX__NAME_LEN	64

/* the public enum pmuctx_err_op under the library's short names */
enum pmuctx__op {
	PMUCTX_OP_NONE = PMUCTX_ERR_OP_NONE,
	PMUCTX_OP_ARG = PMUCTX_ERR_OP_ARG,
	PMUCTX_OP_OPTS = PMUCTX_ERR_OP_OPTS,
	PMUCTX_OP_OPEN = PMUCTX_ERR_OP_OPEN,
	PMUCTX_OP_PROBE = PMUCTX_ERR_OP_PROBE,
	PMUCTX_OP_INFO = PMUCTX_ERR_OP_INFO,
	PMUCTX_OP_EVENT = PMUCTX_ERR_OP_EVENT,
	PMUCTX_OP_CGROUP = PMUCTX_ERR_OP_CGROUP,
	PMUCTX_OP_SESSION = PMUCTX_ERR_OP_SESSION,
	PMUCTX_OP_ENABLE = PMUCTX_ERR_OP_ENABLE,
	PMUCTX_OP_DISABLE = PMUCTX_ERR_OP_DISABLE,
	PMUCTX_OP_RESET = PMUCTX_ERR_OP_RESET,
	PMUCTX_OP_READ = PMUCTX_ERR_OP_READ,
	PMUCTX_OP_ALLOC = PMUCTX_ERR_OP_ALLOC,
	PMUCTX_OP_RING_MAP = PMUCTX_ERR_OP_RING_MAP,
	PMUCTX_OP_RING_DATA = PMUCTX_ERR_OP_RING_DATA,
	PMUCTX_OP_RECORD = PMUCTX_ERR_OP_RECORD,
	PMUCTX_OP_SNAPSHOT = PMUCTX_ERR_OP_SNAPSHOT,
	PMUCTX_OP_RESUME = PMUCTX_ERR_OP_RESUME,
	PMUCTX_OP_CONSUME = PMUCTX_ERR_OP_CONSUME,
	PMUCTX_OP_WRITE = PMUCTX_ERR_OP_WRITE,
	PMUCTX_OP_POLL = PMUCTX_ERR_OP_POLL,
};

struct pmuctx__err {
	int err;			/* positive errno; 0: no record */
	enum pmuctx__op op;
	char path[256];			/* device or cgroup path */
	char detail[512];		/* free text (validation errors) */

	/* session create */
	__u32 target;
	__s32 pid;
	__u32 sflags;
	unsigned int nr_events;
	int events[PMUCTX_MAX_EVENTS];
	unsigned int nr_culprits;	/* EOPNOTSUPP: unsupported events */
	int culprits[PMUCTX_MAX_EVENTS];
	int hw_pmu;			/* module has a hw PMU: 1, 0, -1 unknown */

	/* E2BIG from the module */
	const char *struct_name;
	__u32 lib_size;
	__u32 kernel_size;
	int module_abi;			/* -1 unknown */
	char module_version[PMUCTX_VERSION_LEN];

	/* ring buffers (session create, map) */
	struct pmuctx__ring_facts {
		__u32 pages;		/* ring_pages requested; 0: no ring */
		__u32 mode;
		__u32 nr_cpus;		/* 0 unknown */
		__u32 page_size;
		bool feat_known;	/* the module's INFO was read */
		bool feat_ring;		/* ... and has PMUCTX_FEAT_RING */
	} ring;
};

PMUCTX_INTERNAL int pmuctx__format_err(const struct pmuctx__err *e, int err,
				       char *buf, size_t len);
/* the calling thread's last error record */
PMUCTX_INTERNAL struct pmuctx__err *pmuctx__tls_err(void);
/* start a fresh record (in the handle, if any, and thread-local) */
PMUCTX_INTERNAL struct pmuctx__err *pmuctx__err_begin(struct pmuctx *h,
						       enum pmuctx__op op,
						       int err);
/* copy the thread-local record into the handle */
PMUCTX_INTERNAL void pmuctx__err_commit(struct pmuctx *h);
/* record a simple error with a formatted detail; returns -err */
PMUCTX_INTERNAL int pmuctx__err_set(struct pmuctx *h, enum pmuctx__op op,
				    int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- the handle ------------------------------------------------------- */

struct pmuctx {
	int fd;
	char *path;
	unsigned int open_flags;

	bool probed;			/* info below is valid */
	struct pmuctx_info info;

	bool has_session;
	unsigned int nr_events;
	int events[PMUCTX_MAX_EVENTS];
	char ev_names[PMUCTX_MAX_EVENTS][PMUCTX_EVENT_NAME_LEN];
	__u32 target;
	pid_t pid;

	struct pmuctx_task_values *tasks;	/* per-task read buffer */
	size_t tasks_cap;

	/* ring buffers of the session */
	__u32 ring_pages;
	__u32 ring_mode;
	__u32 ring_records;
	struct pmuctx_ring *ring;	/* mapped by pmuctx_ring_map() */

	struct pmuctx__err err;		/* last failure on this handle */
};

/* ---- ring buffers ----------------------------------------------------- */

/* fill @f for a ring of @pages pages per CPU (error records) */
PMUCTX_INTERNAL void pmuctx__ring_facts(struct pmuctx *h,
					struct pmuctx__ring_facts *f,
					__u32 pages, __u32 mode);
/* unmap and free the handle's ring (pmuctx_close()) */
PMUCTX_INTERNAL void pmuctx__ring_free(struct pmuctx_ring *r);
/* check one record; on failure write why to @why and return -EBADMSG */
PMUCTX_INTERNAL int pmuctx__record_check(const void *buf, size_t len,
					 char *why, size_t why_len);

/* ---- events ----------------------------------------------------------- */

/* "task-clock, cs" style name list of @ids for messages */
PMUCTX_INTERNAL int pmuctx__event_names(char *buf, size_t len, const int *ids,
					unsigned int n);

/* ---- small string builder --------------------------------------------- */

struct pmuctx__sb {
	char *buf;
	size_t len;	/* capacity of buf */
	size_t pos;	/* characters the full output needs so far */
};
PMUCTX_INTERNAL void pmuctx__sb_printf(struct pmuctx__sb *sb,
				       const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* pmuctx_read@@LIBPMUCTX_0.4 and pmuctx_read@LIBPMUCTX_0.1 (libpmuctx.c) */
int pmuctx_read_0_4(struct pmuctx *h, struct pmuctx_counts *out,
		    const struct pmuctx_read_opts *opts);
int pmuctx_read_0_1(struct pmuctx *h, struct pmuctx_counts *out,
		    const struct pmuctx_read_opts *opts);

#endif /* __LIBPMUCTX_INTERNAL_H */
