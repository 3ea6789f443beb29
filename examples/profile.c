// SPDX-License-Identifier: BSD-2-Clause
/*
 * profile: a small sampling profiler with libpmuctx, deferred user
 * callchains and the library's stitcher and symbol resolver.
 *
 *   profile [-F HZ] [-s SECONDS] [-n TOP] [-f]
 *
 * A child runs the workload: outer() -> middle() -> inner(), a loop that
 * computes in user space and reads from /dev/zero (time in the kernel).
 * The parent samples it at HZ (default 999) per CPU with kernel stacks
 * and deferred user stacks (PMUCTX_SAMPLE_DEFER_USER: the user stack is
 * taken once when the task returns to user space and shared by every
 * sample taken since it entered the kernel), streams the ring buffers,
 * joins each SAMPLE with its USER_CALLCHAIN record (pmuctx_stitch_*),
 * names the frames (pmuctx_syms_*, with the child's /proc/PID/maps) and
 * prints the functions with the most samples (self), the hottest stack
 * (the one seen most often; the first 256 distinct stacks are counted)
 * and the stitcher's counters; -f prints every stack in the folded
 * format of flamegraph.pl instead.
 *
 * User stacks are walked with frame pointers: build with
 * -fno-omit-frame-pointer (examples/Makefile does).  A function that calls
 * a libc system-call wrapper built without them (read() here) is missing
 * from the kernel samples' user part (main;outer;middle;read), as with
 * perf record --call-graph fp.  Exit status: 0, 1 on error, 77 when the
 * module cannot sample (PMUCTX_FEAT_SAMPLING).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmuctx.h>

#define MAX_FUNCS	256

/* ---- the workload ---------------------------------------------------------- */

static volatile unsigned long sink;
static int zero_fd;
static char buf[64 << 10];

__attribute__((noinline)) static void inner(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)		/* user time */
		sink += i;
	if (read(zero_fd, buf, sizeof(buf)) < 0)	/* kernel time */
		sink++;
}

__attribute__((noinline)) static void middle(void)
{
	inner();
	sink++;
}

__attribute__((noinline)) static void outer(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		middle();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) +
		 (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

/* ---- results ----------------------------------------------------------- */

struct func {
	char name[96];
	unsigned long self;
};

static struct func funcs[MAX_FUNCS];
static unsigned int nfuncs;
/* distinct stacks and their counts, for the hottest one (first 256) */
#define MAX_STACKS 256
static struct stack {
	char *text;
	unsigned long count;
} stacks[MAX_STACKS];
static unsigned int nr_stacks;
static unsigned long total;

static const char *frame_name(struct pmuctx_syms *y, pid_t pid,
			      __u64 time, __u64 addr, __u32 flags,
			      char *b, size_t len)
{
	struct pmuctx_sym s;

	pmuctx_syms_lookup(y, pid, time, addr, flags, &s);
	if (s.name)
		snprintf(b, len, "%s", s.name);
	else
		snprintf(b, len, "[unknown] (%s+0x%" PRIx64 ")",
			 strrchr(s.module, '/') ? strrchr(s.module, '/') + 1 :
			 s.module, (uint64_t)s.offset);
	return b;
}

static void count_self(const char *name)
{
	unsigned int i;

	for (i = 0; i < nfuncs; i++)
		if (!strcmp(funcs[i].name, name))
			break;
	if (i == nfuncs) {
		if (nfuncs == MAX_FUNCS)
			return;
		snprintf(funcs[nfuncs++].name, sizeof(funcs[0].name), "%s",
			 name);
	}
	funcs[i].self++;
}

/* one callchain: folded line (outermost first), self count */
static void use_chain(struct pmuctx_syms *y, const struct pmuctx_callchain *cc,
		      bool folded)
{
	char line[4096], name[256];
	size_t pos = 0;
	unsigned int i, n = cc->nr_kernel + cc->nr_user;

	total++;
	pos += (size_t)snprintf(line, sizeof(line), "profile");
	/* user frames outermost first, then kernel frames */
	for (i = n; i-- > 0 && pos < sizeof(line);) {
		bool kernel = i < cc->nr_kernel;
		bool first = kernel ? i == 0 : i == cc->nr_kernel;

		frame_name(y, cc->pid, cc->time, cc->ips[i],
			   (kernel ? PMUCTX_SYM_KERNEL : 0) |
			   (first ? 0 : PMUCTX_SYM_RETADDR), name,
			   sizeof(name));
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, ";%s",
					name);
		if (i == 0)
			count_self(name);
	}
	if (!n)
		count_self("[no callchain]");
	if (folded) {
		printf("%s 1\n", line);
		return;
	}
	/* count it: the hottest stack is the one seen most often */
	for (i = 0; i < nr_stacks; i++) {
		if (!strcmp(stacks[i].text, line)) {
			stacks[i].count++;
			return;
		}
	}
	if (nr_stacks < MAX_STACKS) {
		stacks[nr_stacks].text = strdup(line);
		if (stacks[nr_stacks].text)
			stacks[nr_stacks++].count = 1;
	}
}

static int by_self(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->self < y->self ? 1 : x->self > y->self ? -1 : 0;
}

/* ---- the profiler ---------------------------------------------------------- */

static int fail(struct pmuctx *h, const char *what, int err)
{
	char msg[1024];

	pmuctx_errmsg(h, err, msg, sizeof(msg));
	fprintf(stderr, "profile: %s: %s\n", what, msg);
	return 1;
}

static int add_maps(struct pmuctx_syms *y, pid_t pid)
{
	char path[64], *text = NULL;
	size_t len = 0;
	FILE *f, *m;
	int c, err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	m = open_memstream(&text, &len);
	if (!f || !m) {
		if (f)
			fclose(f);
		if (m)
			fclose(m);
		free(text);
		return -errno;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	err = pmuctx_syms_add_maps(y, pid, 0, text, len);
	free(text);
	return err;
}

int main(int argc, char **argv)
{
	unsigned int hz = 999, top = 10, i;
	double seconds = 2;
	bool folded = false;
	struct pmuctx *h = NULL;
	struct pmuctx_ring *r = NULL;
	struct pmuctx_stitch *st = NULL;
	struct pmuctx_syms *y = NULL;
	struct pmuctx_stitch_stats ss;
	struct pmuctx_callchain cc;
	struct pmuctx_record rec;
	struct pmuctx_info info;
	int go[2], opt, err, status, ret = 1;
	pid_t child;

	while ((opt = getopt(argc, argv, "F:s:n:f")) != -1) {
		switch (opt) {
		case 'F':
			hz = (unsigned int)atoi(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'n':
			top = (unsigned int)atoi(optarg);
			break;
		case 'f':
			folded = true;
			break;
		default:
			fprintf(stderr, "usage: profile [-F HZ] [-s SECONDS] "
				"[-n TOP] [-f]\n");
			return 2;
		}
	}

	err = pmuctx_open(&h, NULL);
	if (err)
		return fail(NULL, "open", err);
	err = pmuctx_info(h, &info);
	if (err)
		return fail(h, "info", err);
	if (!(info.features & PMUCTX_FEAT_SAMPLING)) {
		fprintf(stderr, "profile: the module cannot sample "
			"(no PMUCTX_FEAT_SAMPLING)\n");
		pmuctx_close(h);
		return 77;
	}

	/* the child waits until the session exists */
	zero_fd = open("/dev/zero", O_RDONLY);
	if (zero_fd < 0 || pipe(go)) {
		perror("profile");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("profile: fork");
		return 1;
	}
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		outer(seconds);
		_exit(0);
	}
	close(go[0]);

	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			.pid = child,
			.events = "task-clock",
			.ring_pages = 64,
			.ring_records = PMUCTX_REC_MASK_EXIT,
			.sample_freq = hz,
			.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK |
					PMUCTX_SAMPLE_USER_STACK |
					PMUCTX_SAMPLE_DEFER_USER,
			.sample_max_stack = 32,
		);

		err = pmuctx_session_create(h, &so);
		if (err) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			return fail(h, "session", err);
		}
	}
	err = pmuctx_ring_map(h, &r);
	if (!err)
		err = pmuctx_stitch_new(&st, NULL);
	if (!err)
		err = pmuctx_syms_new(&y, NULL);
	if (!err)
		err = add_maps(y, child);
	if (!err)
		err = pmuctx_enable(h);
	if (err) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		fail(h, "set-up", err);
		goto out;
	}
	if (write(go[1], "g", 1) != 1)
		perror("profile: start");
	close(go[1]);

	/* stream the records until the child is gone */
	for (;;) {
		bool done = waitpid(child, &status, WNOHANG) == child;

		pmuctx_ring_poll(h, 100);
		pmuctx_ring_begin(r);
		while ((err = pmuctx_ring_next(r, &rec)) != 0) {
			if (err < 0)
				continue;	/* that CPU's window closed */
			if (pmuctx_stitch_add(st, rec.hdr, rec.size) < 0)
				continue;
			while (pmuctx_stitch_next(st, &cc) > 0)
				use_chain(y, &cc, folded);
		}
		pmuctx_ring_consume(r);
		if (done)
			break;
	}
	pmuctx_disable(h);
	pmuctx_stitch_flush(st);
	while (pmuctx_stitch_next(st, &cc) > 0)
		use_chain(y, &cc, folded);
	pmuctx_stitch_stats(st, &ss);

	if (!folded) {
		printf("profile: %lu samples at %u Hz, %" PRIu64 " stitched, %"
		       PRIu64 " unresolved, %" PRIu64 " user records (%"
		       PRIu64 " shared by more than one sample)\n", total, hz,
		       (uint64_t)ss.stitched, (uint64_t)ss.unresolved,
		       (uint64_t)ss.user_records, (uint64_t)ss.user_shared);
		qsort(funcs, nfuncs, sizeof(funcs[0]), by_self);
		printf("top functions (self):\n");
		for (i = 0; i < nfuncs && i < top && total; i++)
			printf("  %6.2f%%  %s\n",
			       100.0 * (double)funcs[i].self / (double)total,
			       funcs[i].name);
		if (nr_stacks) {
			unsigned int k, hot = 0;

			for (k = 1; k < nr_stacks; k++)
				if (stacks[k].count > stacks[hot].count)
					hot = k;
			printf("hottest stack (%lu samples): %s\n",
			       stacks[hot].count, stacks[hot].text);
		}
	}
	ret = 0;
out:
	while (nr_stacks)
		free(stacks[--nr_stacks].text);
	pmuctx_syms_free(y);
	pmuctx_stitch_free(st);
	pmuctx_ring_unmap(r);
	pmuctx_close(h);
	return ret;
}
