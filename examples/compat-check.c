// SPDX-License-Identifier: BSD-2-Clause
/*
 * compat-check: what an old and a new binary see on this module.  The
 * versioning rules of docs/ABI.md, checked against the running module.
 *
 * "Old" binary: built against the first published header.  It passes
 * PMUCTX_*_SIZE_VER0 in .size, and its ioctl numbers encode the VER0
 * struct sizes (the module ignores those bits).
 * "New" binary: built against a header newer than the module.  It passes
 * a larger .size.  A zero tail is accepted; a non-zero tail (a feature the
 * module does not know) fails with E2BIG and the module writes its own
 * struct size into .size, so the binary can fall back.
 *
 * Prints "ok - ..." / "not ok - ..." lines; exits 1 if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pmuctx.h>

#define TAIL 16
/* ioctl numbers as an old binary has them: VER0 sizes in the size bits. */
#define OLD_IOC_INFO	_IOC(_IOC_READ | _IOC_WRITE, PMUCTX_IOC_MAGIC, 0x00, PMUCTX_INFO_SIZE_VER0)
#define OLD_IOC_CREATE	_IOC(_IOC_WRITE, PMUCTX_IOC_MAGIC, 0x01, PMUCTX_SESSION_ATTR_SIZE_VER0)
#define OLD_IOC_READ	_IOC(_IOC_READ | _IOC_WRITE, PMUCTX_IOC_MAGIC, 0x05, PMUCTX_READ_SIZE_VER0)

static int failed;

static void check(int cond, const char *fmt, unsigned long a, unsigned long b)
{
	printf("%s - ", cond ? "ok" : "not ok");
	printf(fmt, a, b);
	printf("\n");
	failed |= !cond;
}

/* ioctl() returning 0 or the errno. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static int dev(void)
{
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("not ok - open %s: %s\n", PMUCTX_DEVICE_PATH, strerror(errno));
		_exit(1);
	}
	return fd;
}

/* A task-clock session attr of @size bytes in @buf (zeroed, tail too). */
static struct pmuctx_session_attr *attr_in(void *buf, size_t bufsz, __u32 size)
{
	struct pmuctx_session_attr *a = buf;

	memset(buf, 0, bufsz);
	a->size = size;
	a->target = PMUCTX_TARGET_PID;
	a->cgroup_fd = -1;
	a->nr_events = 1;
	a->events[0] = PMUCTX_EV_TASK_CLOCK;
	return a;
}

int main(void)
{
	union { struct pmuctx_info i; unsigned char b[sizeof(struct pmuctx_info) + TAIL]; } info;
	union { struct pmuctx_session_attr a; unsigned char b[sizeof(struct pmuctx_session_attr) + TAIL]; } attr;
	union { struct pmuctx_read r; unsigned char b[sizeof(struct pmuctx_read) + TAIL]; } rd;
	int fd = dev(), r, has_ring;
	unsigned int abi;
	__u32 ksize;

	/* ---- old binary on this module ---- */
	memset(&info, 0xa5, sizeof(info));
	memset(&info, 0, PMUCTX_INFO_SIZE_VER0);
	info.i.size = PMUCTX_INFO_SIZE_VER0;
	r = xioctl(fd, OLD_IOC_INFO, &info);
	check(r == 0, "old binary: INFO at size %lu works (errno %lu)", PMUCTX_INFO_SIZE_VER0, r);
	check(info.i.size == PMUCTX_INFO_SIZE_VER0 && info.b[PMUCTX_INFO_SIZE_VER0] == 0xa5,
	      "old binary: INFO fills %lu bytes, nothing past them (size %lu)",
	      PMUCTX_INFO_SIZE_VER0, info.i.size);
	has_ring = !!(info.i.features & PMUCTX_FEAT_RING);
	abi = info.i.abi_version;

	attr_in(&attr, sizeof(attr), PMUCTX_SESSION_ATTR_SIZE_VER0);
	memset(attr.b + PMUCTX_SESSION_ATTR_SIZE_VER0, 0xa5, sizeof(attr) - PMUCTX_SESSION_ATTR_SIZE_VER0);
	r = xioctl(fd, OLD_IOC_CREATE, &attr);	/* the module reads 72 bytes only */
	check(r == 0, "old binary: SESSION_CREATE at size %lu works (errno %lu)",
	      PMUCTX_SESSION_ATTR_SIZE_VER0, r);
	memset(&rd, 0, sizeof(rd));
	rd.r.size = PMUCTX_READ_SIZE_VER0;
	r = xioctl(fd, PMUCTX_IOC_ENABLE, NULL) ?: xioctl(fd, OLD_IOC_READ, &rd);
	check(r == 0 && rd.r.nr_events == 1, "old binary: ENABLE + READ at size %lu (errno %lu)",
	      PMUCTX_READ_SIZE_VER0, r);
	close(fd);

	/* ---- new binary (header newer than the module) ---- */
	fd = dev();
	memset(&info, 0, sizeof(info));
	info.i.size = sizeof(info);
	r = xioctl(fd, PMUCTX_IOC_INFO, &info);
	check(r == 0 && info.i.size <= sizeof(struct pmuctx_info) && info.i.size >= PMUCTX_INFO_SIZE_VER0,
	      "new binary: INFO with a zero tail works, fills the module's %lu bytes (errno %lu)",
	      info.i.size, r);
	memset(&info, 0, sizeof(info));
	info.i.size = sizeof(info);
	info.b[sizeof(info) - 1] = 1;		/* a field the module does not know */
	r = xioctl(fd, PMUCTX_IOC_INFO, &info);
	check(r == E2BIG, "new binary: INFO with a non-zero tail fails with E2BIG (%lu, errno %lu)", E2BIG, r);
	check(info.i.size == sizeof(struct pmuctx_info),
	      "new binary: E2BIG writes the module's INFO size back (%lu, header %lu)",
	      info.i.size, sizeof(struct pmuctx_info));

	attr_in(&attr, sizeof(attr), sizeof(attr));
	attr.b[sizeof(attr) - 1] = 1;
	r = xioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr);
	ksize = attr.a.size;
	check(r == E2BIG, "new binary: SESSION_CREATE with a non-zero tail fails with E2BIG (%lu, errno %lu)",
	      E2BIG, r);
	check(ksize == sizeof(struct pmuctx_session_attr),
	      "new binary: E2BIG writes the module's attr size back (%lu, header %lu)",
	      ksize, sizeof(struct pmuctx_session_attr));
	/* The fallback: retry at the size the module knows, same fd. */
	attr_in(&attr, sizeof(attr), ksize);
	r = xioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr);
	check(r == 0, "new binary: retry at the module's size %lu works (errno %lu)", ksize, r);
	r = xioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr);
	check(r == EBUSY, "a second SESSION_CREATE on one fd: EBUSY (%lu, errno %lu)", EBUSY, r);

	memset(&rd, 0, sizeof(rd));
	rd.r.size = sizeof(rd);
	rd.b[sizeof(rd) - 1] = 1;
	r = xioctl(fd, PMUCTX_IOC_READ, &rd);
	check(r == E2BIG && rd.r.size == sizeof(struct pmuctx_read),
	      "new binary: READ with a non-zero tail: E2BIG, size %lu written back (errno %lu)",
	      rd.r.size, r);
	close(fd);

	/* ---- what every binary must respect ---- */
	fd = dev();
	memset(&info, 0, sizeof(info));
	info.i.size = PMUCTX_INFO_SIZE_VER0 - 8;
	r = xioctl(fd, PMUCTX_IOC_INFO, &info);
	check(r == EINVAL, "size below VER0 (%lu): EINVAL (errno %lu)", PMUCTX_INFO_SIZE_VER0 - 8, r);
	attr_in(&attr, sizeof(attr), sizeof(attr.a));
	attr.a.flags = ~PMUCTX_SESSION_FLAGS_ALL;
	r = xioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr);
	check(r == EINVAL, "unknown flag bits 0x%lx: EINVAL (errno %lu)", ~PMUCTX_SESSION_FLAGS_ALL, r);
	r = xioctl(fd, _IO(PMUCTX_IOC_MAGIC, 0x7f), NULL);
	check(r == ENOTTY, "unknown ioctl number 0x%lx: ENOTTY (errno %lu)", 0x7f, r);
	/* A VER1 feature (ring) on a module without it: refused, not ignored. */
	attr_in(&attr, sizeof(attr), sizeof(attr.a));
	attr.a.ring_pages = 1;
	attr.a.ring_mode = PMUCTX_RING_NORMAL;
	attr.a.ring_records = PMUCTX_REC_MASK_SWITCH;
	r = xioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr);
	if (has_ring)
		check(r == 0, "ring session on a module with PMUCTX_FEAT_RING works (ring_pages %lu, errno %lu)", 1, r);
	else
		check(r == EOPNOTSUPP, "ring session on a module without PMUCTX_FEAT_RING: EOPNOTSUPP (%lu, errno %lu)",
		      EOPNOTSUPP, r);
	close(fd);
	printf("# module ABI %u, header ABI %d, ring %s\n", abi,
	       PMUCTX_ABI_VERSION, has_ring ? "yes" : "no");
	return failed;
}
