// SPDX-License-Identifier: GPL-2.0
/*
 * bench/ring - cost of one USER record written with write(2) on a pmuctx
 * session fd with a ring buffer, next to its peers:
 *
 *   pmuctx_normal     ring in normal mode; the writer frees the space
 *                     itself (PMUCTX_IOC_RING_CONSUME up to data_head once
 *                     a quarter of the buffer is used), so nothing is lost
 *   pmuctx_overwrite  ring in overwrite mode (flight recorder)
 *   ftrace_marker     write(2) on /sys/kernel/tracing/trace_marker, ftrace
 *                     buffer in overwrite mode, same size per CPU
 *   devnull           write(2) on /dev/null: the system call alone
 *   memcpy            a bare per-CPU memcpy of the record into a buffer
 *                     of the same size (no system call): the floor
 *
 * each on one CPU (one writer pinned to CPU 0) and on all CPUs (one writer
 * pinned to each CPU, started together), for payloads of 32 and 256 bytes
 * (record sizes: payload + 40 bytes of header, 8-byte aligned).
 *
 * Then the writer inside the kernel, without the system call, through the
 * module's debugfs benchmark (/sys/kernel/debug/pmuctx/ring_bench, see
 * module/ringbench.c; the debug build of the module only, make
 * module-debug), pinned to CPU 0, for the same record sizes, in
 * overwrite and in normal mode:
 *
 *   kernel_MODE_memcpy      bare memcpy of the record into a per-CPU buffer
 *                           of the ring's size, preemption off
 *   kernel_MODE_memcpy_irq  the same with IRQs off around the copy
 *   kernel_MODE_memcpy_clock  memcpy plus the record's time
 *   kernel_MODE_clock       ktime_get_mono_fast_ns() alone
 *   kernel_MODE_ring        pmuctx reserve + copy + commit
 *   kernel_MODE_user        pmuctx_ring_user(): write(2)'s path once the
 *                           payload is in the kernel
 *
 *   ring [-n RECORDS] [-R ROUNDS] [-p PAGES] [-s SIZES] [-K RECORDS] [-k]
 *
 * -K: records per kernel variant and round (default 200000; 0: skip the
 * kernel benchmark); -k: the kernel benchmark only.
 *
 * Prints bench/guest.sh raw lines:
 *   R case=ring bench=VARIANT cfg=1cpu|allcpu param=PAYLOAD round=N rep=1
 *     value=NS unit=ns_per_record lost=L
 * NS is the wall time of a writer divided by the records it wrote (all
 * CPUs: the slowest writer), so perfect scaling keeps it equal to 1cpu.
 * Kernel variants: cfg=1cpu, NS the median over batches of 1000 records,
 * min=NS the fastest batch; without the debugfs file one line
 *   I case=ring kernel_bench=unavailable reason=WHY
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

#define TRACING "/sys/kernel/tracing"
#define KBENCH "/sys/kernel/debug/pmuctx/ring_bench"

enum variant { V_NORMAL, V_OVERWRITE, V_FTRACE, V_DEVNULL, V_MEMCPY, V_NR };
static const char *const vname[V_NR] = {
	"pmuctx_normal", "pmuctx_overwrite", "ftrace_marker", "devnull",
	"memcpy",
};

static long nrec = 50000;
static long kbench_rec = 200000;
static unsigned int ring_pages = 64;
static long page_size;
static int ncpus;

struct writer {
	pthread_t th;
	int cpu;
	enum variant v;
	int fd;
	unsigned int payload;
	/* normal mode: this CPU's control page */
	struct pmuctx_ring_ctl *ctl;
	double ns;
	int err;
};

static pthread_barrier_t bar;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void consume(struct writer *w)
{
	struct pmuctx_ring_consume c = {
		.size = sizeof(c),
		.cpu = (unsigned int)w->cpu,
	};

	c.tail = __atomic_load_n(&w->ctl->data_head, __ATOMIC_ACQUIRE);
	if (ioctl(w->fd, PMUCTX_IOC_RING_CONSUME, &c))
		w->err = errno;
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	size_t rec = (w->payload + 40 + 7) & ~7UL;
	size_t bufsz = (size_t)ring_pages * page_size;
	char payload[4096];
	char *ring = NULL;
	uint64_t quarter = bufsz / 4, pos = 0;
	double t0;
	long i;

	pin(w->cpu);
	memset(payload, 'x', sizeof(payload));
	if (w->v == V_MEMCPY) {
		ring = aligned_alloc(64, bufsz);
		memset(ring, 0, bufsz);
	}
	pthread_barrier_wait(&bar);
	t0 = now_ns();
	for (i = 0; i < nrec; i++) {
		switch (w->v) {
		case V_MEMCPY:
			/* header, then the payload, like the kernel does */
			if (pos + rec > bufsz)
				pos = 0;
			memset(ring + pos, 0, 40);
			memcpy(ring + pos + 40, payload, w->payload);
			pos += rec;
			__asm__ volatile("" : : "r"(ring) : "memory");
			break;
		case V_NORMAL:
			if (w->ctl->data_head - w->ctl->data_tail >= quarter)
				consume(w);
			/* fall through */
		default:
			if (write(w->fd, payload, w->payload) !=
			    (ssize_t)w->payload) {
				w->err = errno;
				goto out;
			}
			break;
		}
	}
out:
	w->ns = now_ns() - t0;
	free(ring);
	return NULL;
}

static int session(enum variant v, void **map, size_t *maplen)
{
	struct pmuctx_session_attr a;
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("ring: open " PMUCTX_DEVICE_PATH);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = PMUCTX_SESSION_THREAD;
	a.target = PMUCTX_TARGET_PID;
	a.pid = 0;
	a.cgroup_fd = -1;
	a.nr_events = 1;
	a.events[0] = PMUCTX_EV_TASK_CLOCK;
	a.ring_pages = ring_pages;
	a.ring_mode = v == V_NORMAL ? PMUCTX_RING_NORMAL :
				      PMUCTX_RING_OVERWRITE;
	a.ring_records = 0;	/* USER records only */
	if (ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a)) {
		fprintf(stderr, "ring: SESSION_CREATE: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	*maplen = (size_t)ncpus * (1 + ring_pages) * page_size;
	*map = mmap(NULL, *maplen, PROT_READ, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED) {
		fprintf(stderr, "ring: mmap: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -1 : 0;
}

static int ftrace_setup(void)
{
	char kb[32];

	snprintf(kb, sizeof(kb), "%ld", ring_pages * page_size / 1024);
	if (write_file(TRACING "/tracing_on", "0") ||
	    write_file(TRACING "/current_tracer", "nop") ||
	    write_file(TRACING "/buffer_size_kb", kb) ||
	    write_file(TRACING "/options/overwrite", "1") ||
	    write_file(TRACING "/trace", "") ||
	    write_file(TRACING "/tracing_on", "1"))
		return -1;
	return 0;
}

/* One measurement: variant @v, @payload bytes, on CPU 0 or all CPUs. */
static int measure(enum variant v, unsigned int payload, int all, int round)
{
	struct writer w[256];
	int n = all ? ncpus : 1, i, fd = -1, ret = 0;
	void *map = NULL;
	size_t maplen = 0;
	uint64_t lost = 0, records = 0;
	double worst = 0;

	switch (v) {
	case V_NORMAL:
	case V_OVERWRITE:
		fd = session(v, &map, &maplen);
		break;
	case V_FTRACE:
		fd = open(TRACING "/trace_marker", O_WRONLY | O_CLOEXEC);
		break;
	case V_DEVNULL:
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		break;
	default:
		break;
	}
	if (v != V_MEMCPY && fd < 0) {
		printf("F case=ring bench=%s msg=open_failed\n", vname[v]);
		return -1;
	}
	pthread_barrier_init(&bar, NULL, n);
	for (i = 0; i < n; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].cpu = i;
		w[i].v = v;
		w[i].fd = fd;
		w[i].payload = payload;
		if (map)
			w[i].ctl = (void *)((char *)map + (size_t)i *
					    (1 + ring_pages) * page_size);
		pthread_create(&w[i].th, NULL, writer_fn, &w[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].err) {
			printf("F case=ring bench=%s cfg=%s param=%u msg=%s\n",
			       vname[v], all ? "allcpu" : "1cpu", payload,
			       strerror(w[i].err));
			ret = -1;
		}
		if (w[i].ns > worst)
			worst = w[i].ns;
		if (w[i].ctl) {
			lost += w[i].ctl->lost;
			records += w[i].ctl->records;
		}
	}
	pthread_barrier_destroy(&bar);
	if (!ret)
		printf("R case=ring bench=%s cfg=%s param=%u round=%d rep=1 "
		       "value=%.1f unit=ns_per_record lost=%llu records=%llu\n",
		       vname[v], all ? "allcpu" : "1cpu", payload, round,
		       worst / nrec, (unsigned long long)lost,
		       (unsigned long long)records);
	fflush(stdout);
	if (map)
		munmap(map, maplen);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * One run of the kernel benchmark: @payload bytes of USER payload (record
 * of payload + 40 bytes, 8-aligned), @mode "overwrite" or "normal".
 */
static int kbench(unsigned int payload, const char *mode, int round)
{
	unsigned int size = (payload + 40 + 7) & ~7U;
	char cmd[96], out[4096], *line, *save;
	unsigned long long lost = 0;
	ssize_t n;
	int fd;

	fd = open(KBENCH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("I case=ring kernel_bench=unavailable reason=%s\n",
		       errno == ENOENT ? "no_debugfs_file" : strerror(errno));
		return -1;
	}
	pin(0);
	n = snprintf(cmd, sizeof(cmd), "%u %ld %s %u", size, kbench_rec, mode,
		     ring_pages);
	if (write(fd, cmd, (size_t)n) != n) {
		printf("F case=ring bench=kernel_%s param=%u msg=%s\n", mode,
		       payload, strerror(errno));
		close(fd);
		return -1;
	}
	n = pread(fd, out, sizeof(out) - 1, 0);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char var[32];
		double min, med;
		char *l;

		l = strstr(line, "lost=");
		if (!strncmp(line, "size=", 5) && l)
			lost = strtoull(l + 5, NULL, 10);
		if (sscanf(line, "variant=%31s min_ns=%lf median_ns=%lf", var,
			   &min, &med) == 3)
			printf("R case=ring bench=kernel_%s_%s cfg=1cpu "
			       "param=%u round=%d rep=1 value=%.1f "
			       "unit=ns_per_record min=%.1f lost=%llu\n",
			       mode, var, payload, round, med, min, lost);
	}
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int sizes[8] = { 32, 256 }, nsizes = 2;
	struct pmuctx_info info;
	int rounds = 5, opt, r, v, all, fd, ftrace_ok, konly = 0;
	unsigned int s;
	char *tok;

	while ((opt = getopt(argc, argv, "n:R:p:s:K:kh")) != -1) {
		switch (opt) {
		case 'K': kbench_rec = atol(optarg); break;
		case 'k': konly = 1; break;
		case 'n': nrec = atol(optarg); break;
		case 'R': rounds = atoi(optarg); break;
		case 'p': ring_pages = (unsigned int)atoi(optarg); break;
		case 's':
			nsizes = 0;
			for (tok = strtok(optarg, ","); tok && nsizes < 8;
			     tok = strtok(NULL, ","))
				sizes[nsizes++] = (unsigned int)atoi(tok);
			break;
		default:
			fprintf(stderr, "usage: ring [-n RECORDS] [-R ROUNDS] "
				"[-p PAGES] [-s SIZE,...] [-K RECORDS] [-k]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	page_size = sysconf(_SC_PAGESIZE);
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("ring: open " PMUCTX_DEVICE_PATH);
		return 1;
	}
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(fd, PMUCTX_IOC_INFO, &info)) {
		perror("ring: PMUCTX_IOC_INFO");
		return 1;
	}
	close(fd);
	if (!(info.features & PMUCTX_FEAT_RING)) {
		printf("I case=ring status=not_measured reason=no_ring_feature\n");
		return 0;
	}
	ncpus = (int)info.nr_cpus;
	if (ncpus > 256)
		ncpus = 256;
	ftrace_ok = !konly && !ftrace_setup();
	printf("I case=ring nr_cpus=%d ring_pages=%u page_size=%ld records=%ld "
	       "ftrace=%d\n", ncpus, ring_pages, page_size, nrec, ftrace_ok);
	for (r = 1; r <= rounds && !konly; r++)
		for (s = 0; s < nsizes; s++)
			for (all = 0; all <= 1; all++)
				for (v = 0; v < V_NR; v++) {
					/* rotate the order each round */
					int vv = (v + r) % V_NR;

					if (vv == V_FTRACE && !ftrace_ok)
						continue;
					measure(vv, sizes[s], all, r);
				}
	if (ftrace_ok)
		write_file(TRACING "/tracing_on", "0");
	/* the writer without the system call, rounds interleaved */
	for (r = 1; r <= rounds && kbench_rec > 0; r++)
		for (s = 0; s < nsizes; s++)
			if (kbench(sizes[s], r & 1 ? "overwrite" : "normal", r) ||
			    kbench(sizes[s], r & 1 ? "normal" : "overwrite", r))
				return 0;
	return 0;
}
