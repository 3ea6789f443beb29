// SPDX-License-Identifier: GPL-2.0
/*
 * A fake /dev/pmuctx (see fake_kernel.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/internal.h"
#include "fake_kernel.h"

struct fake_cfg fake;

#define MAX_FD 1024

static struct fake_fd {
	bool open;
	bool session;
	bool enabled;
	struct pmuctx_session_attr attr;
} fds[MAX_FD];

static int fake_open(const char *path, int flags)
{
	int fd;

	if (strcmp(path, FAKE_PATH))
		return pmuctx__sys_open(path, flags);
	fake.nr_open++;
	if (fake.open_err)
		return fake.open_err;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fd >= MAX_FD) {
		close(fd);
		return -EMFILE;
	}
	memset(&fds[fd], 0, sizeof(fds[fd]));
	fds[fd].open = true;
	return fd;
}

static bool tail_zero(const void *p, size_t from, size_t to)
{
	const unsigned char *c = p;

	for (; from < to; from++)
		if (c[from])
			return false;
	return true;
}

static int do_info(struct pmuctx_info *u)
{
	struct pmuctx_info k;
	__u32 size = u->size, n;

	if (size < PMUCTX_INFO_SIZE_VER0)
		return -EINVAL;
	if (size > fake.info_size &&
	    (fake.info_strict || !tail_zero(u, fake.info_size, size))) {
		u->size = fake.info_size;
		return -E2BIG;
	}
	if (u->flags)
		return -EINVAL;
	memset(&k, 0, sizeof(k));
	k.abi_version = fake.abi_version;
	k.nr_cpus = 4;
	k.features = fake.features;
	memcpy(k.version, fake.version, sizeof(k.version));
	k.tasks_tracked = 3;
	k.store_bytes = 3 * 512;
	k.sessions = 1;
	k.probes_registered = fake.probes;
	k.entry_bytes = 512;
	k.max_tasks = 65536;
	k.entries_created = 10;
	k.entries_freed = 7;
	k.pool_entries = 64;
	k.selftest_checks = 1000;
	k.selftest_migrations = 12;
	n = size < fake.info_size ? size : fake.info_size;
	k.size = n;
	memcpy(u, &k, n);	/* the first n bytes only */
	u->size = n;
	return 0;
}

static bool hw_id(__u32 id)
{
	return id >= PMUCTX_EV_CYCLES && id <= PMUCTX_EV_CACHE_MISSES;
}

static int do_create(struct fake_fd *f, struct pmuctx_session_attr *u)
{
	struct pmuctx_session_attr a;
	__u32 i, j, size = u->size;

	fake.nr_creates++;
	if (size < PMUCTX_SESSION_ATTR_SIZE_VER0)
		return -EINVAL;
	if (size > fake.attr_size && !tail_zero(u, fake.attr_size, size)) {
		u->size = fake.attr_size;
		return -E2BIG;
	}
	memset(&a, 0, sizeof(a));
	memcpy(&a, u, size < sizeof(a) ? size : sizeof(a));
	fake.last_attr = a;
	if (fake.create_err) {
		if (fake.create_err == -E2BIG)
			u->size = fake.attr_size;
		return fake.create_err;
	}
	if (f->session)
		return -EBUSY;
	if (a.flags & ~PMUCTX_SESSION_FLAGS_ALL)
		return -EINVAL;
	if (a.target < PMUCTX_TARGET_PID || a.target > PMUCTX_TARGET_SYSTEM)
		return -EINVAL;
	if (a.nr_events < 1 || a.nr_events > PMUCTX_MAX_EVENTS)
		return -EINVAL;
	for (i = 0; i < a.nr_events; i++) {
		if (a.events[i] < 1 || a.events[i] > PMUCTX_EV_MAX)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (a.events[j] == a.events[i] &&
			    !memcmp(&a.event_desc[j], &a.event_desc[i],
				    sizeof(a.event_desc[i])))
				return -EINVAL;
	}
	if (a.__reserved)
		return -EINVAL;
	if (a.target != PMUCTX_TARGET_PID && a.pid)
		return -EINVAL;
	if (a.target == PMUCTX_TARGET_CGROUP && a.cgroup_fd <= 0)
		return -EBADF;
	if (fake.check_pid && a.target == PMUCTX_TARGET_PID && a.pid > 0 &&
	    kill(a.pid, 0) && errno == ESRCH)
		return -ESRCH;
	for (i = 0; i < a.nr_events; i++) {
		if ((fake.hw_unsupported && hw_id(a.events[i])) ||
		    (fake.unsupported_id &&
		     a.events[i] == (__u32)fake.unsupported_id))
			return -EOPNOTSUPP;
	}
	f->session = true;
	f->attr = a;
	return 0;
}

static int do_read(struct fake_fd *f, struct pmuctx_read *u)
{
	__u32 i, t, need;

	fake.nr_reads++;
	if (u->size < PMUCTX_READ_SIZE_VER0)
		return -EINVAL;
	if (u->size > sizeof(*u) && !tail_zero(u, sizeof(*u), u->size)) {
		u->size = sizeof(*u);
		return -E2BIG;
	}
	if (!f->session || (u->flags & ~PMUCTX_READ_FLAGS_ALL) || u->__pad)
		return -EINVAL;
	if ((u->flags & PMUCTX_READ_PER_TASK) &&
	    u->task_size < PMUCTX_TASK_VALUES_SIZE_VER0)
		return -EINVAL;
	fake.nr_tasks += fake.grow_per_read;
	need = fake.nr_tasks;
	fake.last_read_cap = u->nr_tasks;
	if ((u->flags & PMUCTX_READ_PER_TASK) && u->nr_tasks < need) {
		fake.nr_enospc++;
		u->nr_tasks = need;
		return -ENOSPC;
	}
	u->nr_events = f->attr.nr_events;
	for (i = 0; i < PMUCTX_MAX_EVENTS; i++)
		u->values[i] = i < f->attr.nr_events ? fake.values[i] +
			       fake.values_step * (fake.nr_reads - 1) : 0;
	u->time_enabled = fake.time_enabled;
	u->tasks_seen = fake.tasks_seen;
	u->tasks_exited = fake.tasks_exited;
	u->tasks_dropped = fake.tasks_dropped;
	u->priv_exec_stopped = fake.priv_exec_stopped;
	u->tasks_unlisted = fake.tasks_unlisted;
	if (!fake.read_ver0 && u->size >= PMUCTX_READ_SIZE_VER1) {
		u->time_slices = fake.time_slices;
		for (i = 0; i < PMUCTX_MAX_EVENTS; i++)
			u->time_running[i] = i < f->attr.nr_events ?
					     fake.time_running[i] : 0;
	}
	if (u->flags & PMUCTX_READ_PER_TASK) {
		char *base = (char *)(uintptr_t)u->tasks_ptr;

		for (t = 0; t < need; t++) {
			struct pmuctx_task_values tv;

			memset(&tv, 0, sizeof(tv));
			tv.pid = 1000;
			tv.tid = 1000 + (int)t;
			tv.ppid = t ? 1000 : 0;
			tv.flags = t ? PMUCTX_TASK_INHERITED : 0;
			if (t == 1)
				tv.flags |= PMUCTX_TASK_EXITED;
			memcpy(tv.comm, t == 2 ? "we\"ird\\\n\xff" : "burn",
			       t == 2 ? 9 : 4);
			for (i = 0; i < f->attr.nr_events; i++) {
				tv.values[i] = (t + 1) * 10 + i;
				tv.children[i] = t;
			}
			memcpy(base + (size_t)t * u->task_size, &tv,
			       u->task_size < sizeof(tv) ? u->task_size :
			       sizeof(tv));
		}
		u->nr_tasks = need;
	} else {
		u->nr_tasks = 0;
	}
	return 0;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	struct fake_fd *f;

	if (fd < 0 || fd >= MAX_FD || !fds[fd].open)
		return pmuctx__sys_ioctl(fd, req, arg);
	f = &fds[fd];
	if (_IOC_TYPE(req) != PMUCTX_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(req)) {
	case _IOC_NR(PMUCTX_IOC_INFO):
		return arg ? do_info(arg) : -EFAULT;
	case _IOC_NR(PMUCTX_IOC_SESSION_CREATE):
		return arg ? do_create(f, arg) : -EFAULT;
	case _IOC_NR(PMUCTX_IOC_ENABLE):
	case _IOC_NR(PMUCTX_IOC_DISABLE):
	case _IOC_NR(PMUCTX_IOC_RESET):
		if (!f->session || arg)
			return -EINVAL;
		if (_IOC_NR(req) == _IOC_NR(PMUCTX_IOC_ENABLE))
			fake.nr_enables++;
		return 0;
	case _IOC_NR(PMUCTX_IOC_READ):
		return arg ? do_read(f, arg) : -EFAULT;
	default:
		return -ENOTTY;
	}
}

void fake_install(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.info_size = sizeof(struct pmuctx_info);
	fake.attr_size = sizeof(struct pmuctx_session_attr);
	fake.abi_version = PMUCTX_ABI_VERSION;
	fake.features = PMUCTX_FEAT_COUNTING | PMUCTX_FEAT_INHERIT |
			PMUCTX_FEAT_SYSTEM_WIDE | PMUCTX_FEAT_CGROUP |
			PMUCTX_FEAT_SELFTEST;
	fake.probes = 1;
	strcpy(fake.version, "0.1.0-fake");
	fake.values[0] = 1234567890;
	fake.values[1] = 42;
	fake.values[2] = 3;
	fake.values[3] = 120000;
	fake.time_enabled = 2000000000;
	fake.tasks_seen = 4;
	fake.tasks_exited = 3;
	fake.nr_tasks = 3;
	fake.check_pid = true;
	pmuctx__sys.open = fake_open;
	pmuctx__sys.ioctl = fake_ioctl;
}

void fake_remove(void)
{
	pmuctx__sys.open = pmuctx__sys_open;
	pmuctx__sys.ioctl = pmuctx__sys_ioctl;
}
