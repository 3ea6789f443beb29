// SPDX-License-Identifier: BSD-2-Clause
/*
 * flight-recorder: keep the recent scheduling history of a workload in
 * per-CPU overwrite buffers, and print it only when something goes wrong.
 *
 *   flight-recorder [-n RECORDS] [-t THRESHOLD_MS] [-w WAIT_S] [-- CMD ARGS...]
 *
 * A session on this process and everything it starts (INHERIT) counts
 * task-clock and context switches and writes SWITCH/FORK/EXEC/EXIT/COMM
 * records into rings in overwrite mode: the kernel drops the oldest
 * records, nothing is copied to user space.  The trigger freezes every
 * CPU's buffer as soon as one task runs longer than THRESHOLD_MS (default
 * 50) in a single slice; poll() then reports POLLIN, and the program prints
 * the newest RECORDS (default 20) records of all CPUs in time order.
 * Without CMD, the workload is a child that sleeps a little, then burns
 * the CPU for twice the threshold: the "glitch".  If nothing triggers
 * within WAIT_S seconds (default 20), a manual PMUCTX_IOC_SNAPSHOT is
 * taken instead.
 *
 * Only <linux/pmuctx.h> and libc (the library's ring reader can do the
 * parsing for you; this shows the protocol).  Exit status: 0, 1 on error,
 * 77 when the module has no ring buffers (PMUCTX_FEAT_RING).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/pmuctx.h>

#define RING_PAGES 16

static void die(const char *what)
{
	fprintf(stderr, "flight-recorder: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void burn_ms(long ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static const char *type_name(__u32 type)
{
	static const char *const n[] = {
		[PMUCTX_REC_LOST] = "LOST", [PMUCTX_REC_SWITCH] = "SWITCH",
		[PMUCTX_REC_FORK] = "FORK", [PMUCTX_REC_EXEC] = "EXEC",
		[PMUCTX_REC_EXIT] = "EXIT", [PMUCTX_REC_COMM] = "COMM",
		[PMUCTX_REC_USER] = "USER",
	};

	return type < sizeof(n) / sizeof(n[0]) && n[type] ? n[type] : "?";
}

/* Every record but PAD starts with the header and the common part. */
struct rec {
	const struct pmuctx_rec_header *h;
	const struct pmuctx_rec_common *c;
};

static int by_time(const void *a, const void *b)
{
	__u64 ta = ((const struct rec *)a)->c->time;
	__u64 tb = ((const struct rec *)b)->c->time;

	return ta < tb ? -1 : ta > tb;
}

static void print_rec(const struct rec *r, __u64 t0)
{
	const struct pmuctx_rec_common *c = r->c;

	printf("%12.6f cpu%-3u %-6s pid %d/%d", (c->time - t0) / 1e9, c->cpu,
	       type_name(r->h->type), c->pid, c->tid);
	switch (r->h->type) {
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)r->h;

		printf(" -> %d/%d, ran %.3f ms%s", s->next_pid, s->next_tid,
		       s->nr ? s->delta[0] / 1e6 : 0.0,
		       r->h->misc & PMUCTX_SWITCH_PREEMPT ? " (preempted)" : "");
		break;
	}
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *f = (const void *)r->h;

		printf(" child %d/%d", f->child_pid, f->child_tid);
		break;
	}
	case PMUCTX_REC_EXEC: {
		const struct pmuctx_rec_exec *e = (const void *)r->h;
		int len = r->h->size - (int)sizeof(*e);

		printf(" %.16s %.*s", e->comm, len > 0 ? len : 0, e->filename);
		break;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *e = (const void *)r->h;

		printf(" task-clock %.3f ms", e->nr ? e->values[0] / 1e6 : 0.0);
		break;
	}
	case PMUCTX_REC_COMM:
		printf(" %.16s", ((const struct pmuctx_rec_comm *)r->h)->comm);
		break;
	case PMUCTX_REC_LOST:
		printf(" %llu lost", (unsigned long long)((const struct pmuctx_rec_lost *)r->h)->lost);
		break;
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	long nrec = 20, threshold_ms = 50, wait_s = 20, page = sysconf(_SC_PAGESIZE);
	struct pmuctx_session_attr attr;
	struct pmuctx_info info;
	int fd, opt, status;

	while ((opt = getopt(argc, argv, "n:t:w:")) != -1) {
		switch (opt) {
		case 'n': nrec = atol(optarg); break;
		case 't': threshold_ms = atol(optarg); break;
		case 'w': wait_s = atol(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n RECORDS] [-t THRESHOLD_MS] [-w WAIT_S] [-- CMD ARGS...]\n", argv[0]);
			return 1;
		}
	}
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open " PMUCTX_DEVICE_PATH);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(fd, PMUCTX_IOC_INFO, &info))
		die("PMUCTX_IOC_INFO");
	if (!(info.features & PMUCTX_FEAT_RING)) {
		printf("flight-recorder: module %s has no ring buffers (PMUCTX_FEAT_RING): nothing to record\n",
		       info.version);
		return 77;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.flags = PMUCTX_SESSION_INHERIT;	/* the children too */
	attr.target = PMUCTX_TARGET_PID;	/* pid 0: this process */
	attr.cgroup_fd = -1;
	attr.nr_events = 2;
	attr.events[0] = PMUCTX_EV_TASK_CLOCK;
	attr.events[1] = PMUCTX_EV_CONTEXT_SWITCHES;
	attr.ring_pages = RING_PAGES;
	attr.ring_mode = PMUCTX_RING_OVERWRITE;
	attr.ring_records = PMUCTX_REC_MASK_ALL;
	attr.trigger_event = 1;			/* 1 + index of task-clock */
	attr.trigger_threshold = (__u64)threshold_ms * 1000000;	/* ns */
	if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &attr))
		die("PMUCTX_IOC_SESSION_CREATE");

	size_t per_cpu = (size_t)(1 + RING_PAGES) * page, len = per_cpu * info.nr_cpus;
	char *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (map == MAP_FAILED)
		die("mmap");
	if (ioctl(fd, PMUCTX_IOC_ENABLE, 0))
		die("PMUCTX_IOC_ENABLE");

	pid_t child = fork();

	if (child < 0)
		die("fork");
	if (child == 0) {
		close(fd);			/* the session fd stays with us */
		if (optind < argc) {
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		for (int i = 0; i < 5; i++) {	/* normal life: short slices */
			burn_ms(2);
			usleep(5000);
		}
		burn_ms(2 * threshold_ms);	/* the glitch */
		usleep(5000);
		_exit(0);
	}

	/* Wait for the trigger: POLLIN once the buffers are frozen. */
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, (int)wait_s * 1000);

	if (n < 0)
		die("poll");
	if (n == 0)
		printf("flight-recorder: no trigger within %ld s: manual snapshot\n", wait_s);
	/*
	 * After a trigger too: SNAPSHOT waits for the writers still in flight
	 * and sets PMUCTX_RING_F_FROZEN (and _TRIGGERED) in the control pages.
	 * Then [data_tail, data_head) of every CPU holds complete records,
	 * the newest ones (in overwrite mode the kernel moves data_tail).
	 */
	if (ioctl(fd, PMUCTX_IOC_SNAPSHOT, 0))
		die("PMUCTX_IOC_SNAPSHOT");
	size_t cap = 0, nr = 0;
	struct rec *recs = NULL;
	__u64 lost = 0, overwritten = 0, triggered = 0;

	for (__u32 cpu = 0; cpu < info.nr_cpus; cpu++) {
		const struct pmuctx_ring_ctl *ctl = (const void *)(map + cpu * per_cpu);
		const char *data = (const char *)ctl + ctl->data_offset;
		__u64 head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
		__u64 pos = ctl->data_tail, mask = ctl->data_size - 1;

		triggered |= ctl->flags & PMUCTX_RING_F_TRIGGERED;
		lost += ctl->lost;
		overwritten += ctl->overwritten;
		while (pos < head) {
			const struct pmuctx_rec_header *h = (const void *)(data + (pos & mask));

			if (h->type == PMUCTX_REC_PAD) {
				pos += ctl->data_size - (pos & mask);
				continue;
			}
			if (h->size < sizeof(*h) + sizeof(struct pmuctx_rec_common) || h->size % 8)
				break;
			if (nr == cap) {
				cap = cap ? 2 * cap : 256;
				recs = realloc(recs, cap * sizeof(*recs));
				if (!recs)
					die("realloc");
			}
			recs[nr].h = h;
			recs[nr++].c = (const void *)(h + 1);
			pos += h->size;
		}
	}
	qsort(recs, nr, sizeof(*recs), by_time);
	printf("flight-recorder: %s; %zu records kept (%llu overwritten, %llu lost while frozen)\n",
	       triggered ? "frozen by the trigger" : "frozen by PMUCTX_IOC_SNAPSHOT", nr,
	       (unsigned long long)overwritten, (unsigned long long)lost);
	printf("flight-recorder: the last %ld records:\n", nrec < (long)nr ? nrec : (long)nr);
	for (size_t i = nr > (size_t)nrec ? nr - nrec : 0; i < nr; i++)
		print_rec(&recs[i], recs[0].c->time);

	if (ioctl(fd, PMUCTX_IOC_RESUME, 0))	/* record again */
		die("PMUCTX_IOC_RESUME");
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");
	free(recs);
	munmap(map, len);
	close(fd);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
