// SPDX-License-Identifier: BSD-2-Clause
/*
 * raw-ioctl: the pmuctx ABI by hand, with nothing but <linux/pmuctx.h> and
 * libc.  Build: cc -Wall -O2 raw-ioctl.c -o raw-ioctl  (docs/ABI.md)
 *
 * 1. open /dev/pmuctx and ask the module who it is (PMUCTX_IOC_INFO);
 * 2. turn the fd into a counting session on this process, count a loop,
 *    read the totals (SESSION_CREATE, ENABLE, DISABLE, READ);
 * 3. if the module has ring buffers, map them and parse the records by
 *    hand, following the reader protocol of the UAPI header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/pmuctx.h>

static const __u32 events[] = {
	PMUCTX_EV_TASK_CLOCK, PMUCTX_EV_CONTEXT_SWITCHES, PMUCTX_EV_PAGE_FAULTS,
};
static const char *const names[] = {
	"task-clock", "context-switches", "page-faults",
};
#define NR_EVENTS 3
#define RING_PAGES 4	/* data pages per CPU: a power of two */

static void die(const char *what)
{
	fprintf(stderr, "raw-ioctl: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Some work to count: touch fresh memory, burn a little CPU. */
static void workload(void)
{
	volatile unsigned long x = 0;
	size_t len = 8u << 20;
	char *p = malloc(len);

	for (size_t i = 0; p && i < len; i += 4096)
		p[i] = 1;			/* page faults */
	for (unsigned long i = 0; i < 20000000; i++)
		x += i;				/* task-clock */
	free(p);
}

/* Create the session; with @ring_pages also per-CPU ring buffers. */
static int create_session(int fd, __u32 ring_pages)
{
	/*
	 * Always zero the whole struct and set .size = sizeof: fields this
	 * program does not set must be 0, and the module learns from .size
	 * which version of the struct we were compiled with.
	 */
	struct pmuctx_session_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.target = PMUCTX_TARGET_PID;
	attr.pid = 0;				/* 0: the calling process */
	attr.cgroup_fd = -1;
	attr.nr_events = NR_EVENTS;
	memcpy(attr.events, events, sizeof(events));
	if (ring_pages) {
		attr.ring_pages = ring_pages;
		attr.ring_mode = PMUCTX_RING_NORMAL;	/* the writer waits for us */
		attr.ring_records = PMUCTX_REC_MASK_ALL;
	}
	return ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr);
}

/*
 * Parse the records of one CPU's buffer.  The protocol (UAPI header):
 * load data_head with acquire semantics (it pairs with the kernel's
 * store-release after writing the records), parse [data_tail, data_head),
 * then hand the space back with PMUCTX_IOC_RING_CONSUME.
 */
static unsigned int parse_cpu(int fd, const struct pmuctx_ring_ctl *ctl,
			      unsigned int *user_records)
{
	const char *data = (const char *)ctl + ctl->data_offset;
	__u64 mask = ctl->data_size - 1;
	__u64 head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	__u64 pos = ctl->data_tail;	/* only RING_CONSUME moves it */
	struct pmuctx_ring_consume consume;
	unsigned int n = 0;

	while (pos < head) {
		const struct pmuctx_rec_header *h = (const void *)(data + (pos & mask));

		if (h->type == PMUCTX_REC_PAD) {	/* records never wrap: */
			pos += ctl->data_size - (pos & mask);	/* skip to the end */
			continue;
		}
		if (h->size < sizeof(*h) || h->size % 8)
			break;			/* corrupt: stop, do not loop */
		if (h->type == PMUCTX_REC_USER) {
			const struct pmuctx_rec_user *u = (const void *)h;

			printf("ring: cpu %u: user record from pid %d: \"%.*s\"\n",
			       ctl->cpu, u->c.pid, (int)u->len,
			       (const char *)u->data);
			(*user_records)++;
		}
		n++;				/* unknown types: skip by size */
		pos += h->size;
	}
	consume.size = sizeof(consume);
	consume.cpu = ctl->cpu;
	consume.tail = pos;
	if (ioctl(fd, PMUCTX_IOC_RING_CONSUME, &consume))
		die("PMUCTX_IOC_RING_CONSUME");
	return n;
}

int main(void)
{
	struct pmuctx_info info;
	struct pmuctx_read rd;
	int fd, has_ring;

	/* 1. The device.  Any fd of it answers INFO; it never changes state. */
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open " PMUCTX_DEVICE_PATH " (module loaded? modprobe pmuctx)");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(fd, PMUCTX_IOC_INFO, &info))
		die("PMUCTX_IOC_INFO");
	has_ring = info.features & PMUCTX_FEAT_RING;
	printf("module: version %s, ABI %u (header: %d), %u CPU ids, features 0x%llx\n",
	       info.version, info.abi_version, PMUCTX_ABI_VERSION, info.nr_cpus,
	       (unsigned long long)info.features);

	/* 2. A session on ourselves: it starts disabled. */
	int r = create_session(fd, has_ring ? RING_PAGES : 0);

	if (r && has_ring && errno == EOPNOTSUPP) {
		has_ring = 0;		/* feature bit, but no ring: count only */
		r = create_session(fd, 0);
	}
	if (r)
		die("PMUCTX_IOC_SESSION_CREATE");

	/* 3. The ring: one read-only mapping, per CPU a control page, data. */
	long page = sysconf(_SC_PAGESIZE);
	size_t per_cpu = (size_t)(1 + RING_PAGES) * page;
	char *map = NULL;

	if (has_ring) {
		map = mmap(NULL, per_cpu * info.nr_cpus, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			die("mmap");
	}

	if (ioctl(fd, PMUCTX_IOC_ENABLE, 0))
		die("PMUCTX_IOC_ENABLE");
	if (has_ring)		/* write(2) adds a USER record: a marker */
		if (write(fd, "hello from raw-ioctl", 20) != 20)
			die("write (USER record)");
	workload();
	if (ioctl(fd, PMUCTX_IOC_DISABLE, 0))
		die("PMUCTX_IOC_DISABLE");

	/* 4. The totals.  Same rule: zero it, set .size. */
	memset(&rd, 0, sizeof(rd));
	rd.size = sizeof(rd);
	if (ioctl(fd, PMUCTX_IOC_READ, &rd))
		die("PMUCTX_IOC_READ");
	for (unsigned int i = 0; i < rd.nr_events && i < NR_EVENTS; i++)
		printf("count: %-16s %llu\n", names[i],
		       (unsigned long long)rd.values[i]);
	printf("count: time enabled %llu ns, tasks seen %llu\n",
	       (unsigned long long)rd.time_enabled,
	       (unsigned long long)rd.tasks_seen);

	if (!has_ring) {
		printf("ring: not supported by this module (no PMUCTX_FEAT_RING): skipped\n");
	} else {
		unsigned int records = 0, user = 0;

		for (__u32 cpu = 0; cpu < info.nr_cpus; cpu++)
			records += parse_cpu(fd, (const void *)(map + cpu * per_cpu), &user);
		printf("ring: %u records parsed, %u user\n", records, user);
		munmap(map, per_cpu * info.nr_cpus);
	}
	close(fd);		/* closing the fd ends the session */
	return 0;
}
