// SPDX-License-Identifier: GPL-2.0
/*
 * t_sample: VM tests of sampling and deferred user callchains (raw ABI).
 *
 * The workload is the program `chain` next to this one (see chain.c): a
 * fixed chain main -> f1 -> f2 -> f3 reading /dev/zero from f3.  It prints
 * its function addresses, which tell the chain's frames apart.
 *
 *   t_sample			all root tests
 *   t_sample unpriv		as an unprivileged user (paranoid 2)
 *   t_sample dump		USER_STACK records (PMUCTX_SAMPLE_USER_DUMP):
 *				bad dump sizes refused, the records' copy
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

#include "tap.h"

#define RING_PAGES 256

/* ---- the workload (chain) ------------------------------------------------ */

static char chain_path[512];
static unsigned long fa[5];	/* f3 f2 f1 main end, in the chain process */

/* Which chain function holds @a ("" if none). */
static const char *fn_of(uint64_t a)
{
	static const char *const names[] = { "f3", "f2", "f1", "main" };
	const char *best = "";
	uint64_t lo = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (a >= fa[i] && a < fa[4] && fa[i] >= lo) {
			lo = fa[i];
			best = names[i];
		}
	return best;
}

static int is_chain(const __u64 *ips, unsigned int n)
{
	return n >= 4 && !strcmp(fn_of(ips[0]), "f3") &&
	       !strcmp(fn_of(ips[1]), "f2") && !strcmp(fn_of(ips[2]), "f1") &&
	       !strcmp(fn_of(ips[3]), "main");
}

/* ---- kernel symbols -------------------------------------------------------- */

/*
 * The kernel function every syscall passes through, not inlined: x86-64's
 * C entry, arm64's (el0_svc -> do_el0_svc -> el0_svc_common ->
 * invoke_syscall; do_el0_svc is global, called from another file, so
 * it is in every syscall's callchain on 6.1 and 6.12).
 */
#if defined(__aarch64__)
#define SYSCALL_ENTRY "do_el0_svc"
#else
#define SYSCALL_ENTRY "do_syscall_64"
#endif
static uint64_t sys_lo, sys_hi;	/* SYSCALL_ENTRY */

/*
 * This architecture's user registers in a USER_STACK record: the ABI, how
 * many, the stack pointer, the instruction pointer and the frame pointer
 * (x86-64 rbp; arm64 x29, whose frame record holds the caller's return
 * address at fp + 8, as rbp's frame does at bp + 8).
 */
#if defined(__aarch64__)
#define REGS_ABI	PMUCTX_REGS_ARM64
#define REGS_NR		PMUCTX_REGS_ARM64_NR
#define REGS_SP		PMUCTX_REGS_ARM64_SP
#define REGS_IP		PMUCTX_REGS_ARM64_PC
#define REGS_FP		29
#else
#define REGS_ABI	PMUCTX_REGS_X86_64
#define REGS_NR		PMUCTX_REGS_X86_64_NR
#define REGS_SP		PMUCTX_REGS_X86_64_SP
#define REGS_IP		PMUCTX_REGS_X86_64_IP
#define REGS_FP		6
#endif
/*
 * the largest record the ring takes: its size is a __u16 (65528 at most),
 * and so is a PAD in front of it and a LOST record (40 bytes)
 */
#define REC_MAX_SIZE	65488U

static void load_kallsyms(void)
{
	char line[256], name[200], type;
	unsigned long long a, prev = 0;
	int take = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %199s", &a, &type, name) != 3)
			continue;
		if (take && a > prev) {
			sys_hi = a;
			break;
		}
		if (!strcmp(name, SYSCALL_ENTRY)) {
			sys_lo = prev = a;
			take = 1;
		}
	}
	fclose(f);
}

/* ---- sessions and records ------------------------------------------------ */

static unsigned int max_stack = 32;
static unsigned int sample_ev;	/* 0: the hrtimer source */
static unsigned int ring_pages = RING_PAGES;
#define DUMP_FLAGS (PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK | \
		    PMUCTX_SAMPLE_DEFER_USER | PMUCTX_SAMPLE_USER_DUMP)
static unsigned int user_dump;	/* sample_user_dump of session() */

static int session(pid_t pid, unsigned int flags, unsigned int freq)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_PID, .pid = pid,
		.cgroup_fd = -1, .nr_events = 1,
		.events = { PMUCTX_EV_TASK_CLOCK },
		.ring_pages = ring_pages, .ring_mode = PMUCTX_RING_NORMAL,
		.sample_freq = freq, .sample_flags = flags,
		.sample_max_stack = max_stack, .sample_event = sample_ev,
		.sample_user_dump = user_dump,
	};
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) ||
	    ioctl(fd, PMUCTX_IOC_ENABLE, 0)) {
		diag("session: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

struct stats {
	long samples, deferred, user_records, chains, kstack_syscall;
	long kernel_mode, kaddr_hidden, kernel_nonzero, resolved, unresolved;
	long shared, cross_cpu, throttle_on, throttle_off;
	uint64_t period_sum, task_clock;
	uint64_t lost;		/* records the full buffers dropped */
	long unresolved_cookies;	/* distinct cookies of @unresolved */
	long budget_records;	/* THROTTLE records of the global budget */
	uint64_t uc_bytes;	/* bytes of USER_CALLCHAIN records */
	uint64_t budget_dropped;	/* samples they say were not taken */
	long plain;		/* samples without USER_DEFERRED ... */
	long plain_early;	/* ... of them before the last one with it */
	long in_window;		/* samples in [win_from, win_to] */
};

/* drain()'s time window for stats.in_window (CLOCK_MONOTONIC ns) */
static uint64_t win_from, win_to = UINT64_MAX;

/*
 * Records the session's buffers dropped (each control page's lost): the
 * drain reads only at the end, so a buffer that filled up under load
 * loses user callchain records and leaves their cookies unresolved.
 */
static uint64_t ring_lost(int fd)
{
	struct pmuctx_info in = { .size = sizeof(in) };
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t lost = 0;
	unsigned int c;
	size_t len;
	char *m;

	if (ioctl(fd, PMUCTX_IOC_INFO, &in))
		return 0;
	len = (size_t)in.nr_cpus * (1 + ring_pages) * pg;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 0;
	for (c = 0; c < in.nr_cpus; c++)
		lost += ((const struct pmuctx_ring_ctl *)
			 (m + (size_t)c * (1 + ring_pages) * pg))->lost;
	munmap(m, len);
	return lost;
}

#define MAXC 65536
static uint64_t sample_cookie[MAXC];
static int sample_cpu[MAXC];
static uint64_t uc_cookie[MAXC];
static int uc_cpu[MAXC], uc_good[MAXC];
static uint64_t plain_time[MAXC];

static void drain(int fd, pid_t tid, struct stats *st)
{
	static char buf[8 << 20];
	struct pmuctx_read rd = { .size = sizeof(rd) };
	long nsc = 0, nuc = 0, i, j;
	uint64_t last_deferred = 0;
	ssize_t n, off;

	memset(st, 0, sizeof(*st));
	ioctl(fd, PMUCTX_IOC_DISABLE, 0);
	st->lost = ring_lost(fd);
	if (!ioctl(fd, PMUCTX_IOC_READ, &rd))
		st->task_clock = rd.values[0];
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; ) {
			struct pmuctx_rec_header *h = (void *)(buf + off);

			if (h->type == PMUCTX_REC_SAMPLE) {
				struct pmuctx_rec_sample *s = (void *)h;

				if (s->c.tid != tid)
					goto next;
				st->samples++;
				if (s->c.time >= win_from && s->c.time <= win_to)
					st->in_window++;
				st->period_sum += s->period;
				if (!(h->misc & PMUCTX_SAMPLE_M_USER))
					st->kernel_mode++;
				if (h->misc & PMUCTX_SAMPLE_M_KADDR_HIDDEN)
					st->kaddr_hidden++;
				if (s->nr_kernel || (s->ip >> 63))
					st->kernel_nonzero++;
				for (i = 0; i < s->nr_kernel; i++)
					if (s->ips[i] >= sys_lo &&
					    s->ips[i] < sys_hi)
						break;
				if (s->nr_kernel && i < s->nr_kernel)
					st->kstack_syscall++;
				if (h->misc & PMUCTX_SAMPLE_M_USER_DEFERRED) {
					st->deferred++;
					if (s->c.time > last_deferred)
						last_deferred = s->c.time;
					if (nsc < MAXC) {
						sample_cookie[nsc] = s->cookie;
						sample_cpu[nsc++] = s->c.cpu;
					}
				} else {
					if (st->plain < MAXC)
						plain_time[st->plain] =
							s->c.time;
					st->plain++;
					if (is_chain(s->ips + s->nr_kernel,
						     s->nr_user))
						st->chains++;
				}
			} else if (h->type == PMUCTX_REC_THROTTLE &&
				   (h->misc & PMUCTX_THROTTLE_BUDGET)) {
				struct pmuctx_rec_throttle *t = (void *)h;

				st->budget_records++;
				if (h->size >= sizeof(*t))
					st->budget_dropped += t->dropped;
			} else if (h->type == PMUCTX_REC_THROTTLE) {
				if (h->misc & PMUCTX_THROTTLE_ON)
					st->throttle_on++;
				else
					st->throttle_off++;
			} else if (h->type == PMUCTX_REC_USER_CALLCHAIN) {
				struct pmuctx_rec_user_callchain *u = (void *)h;

				if (u->c.tid != tid)
					goto next;

				st->user_records++;
				st->uc_bytes += h->size;
				if (nuc < MAXC) {
					uc_cookie[nuc] = u->cookie;
					uc_cpu[nuc] = u->c.cpu;
					uc_good[nuc++] = is_chain(u->ips, u->nr);
				}
			}
next:
			off += h->size;
		}
	}
	/* Stitch by (tid, cookie), across CPUs. */
	for (i = 0; i < nsc; i++) {
		for (j = 0; j < nuc; j++)
			if (uc_cookie[j] == sample_cookie[i])
				break;
		if (j == nuc) {
			/* samples sharing one cookie are in a row */
			if (!st->unresolved ||
			    sample_cookie[i] != sample_cookie[i - 1])
				st->unresolved_cookies++;
			st->unresolved++;
			continue;
		}
		st->resolved++;
		st->chains += uc_good[j];
		if (uc_cpu[j] != sample_cpu[i])
			st->cross_cpu++;
	}
	st->shared = st->deferred - st->user_records;
	for (i = 0; i < st->plain && i < MAXC; i++)
		if (plain_time[i] < last_deferred)
			st->plain_early++;
}

/* Start `chain N FLIP`, learn its function addresses, count it, go. */
static unsigned int chain_freq = 999;

static pid_t run_chain(long n, int *fdp, unsigned int flags, int flip)
{
	char arg_n[32], arg_f[8], line[256];
	int in[2], out[2];
	FILE *f;
	pid_t pid;

	if (pipe(in) || pipe(out))
		exit(2);
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		snprintf(arg_n, sizeof(arg_n), "%ld", n);
		snprintf(arg_f, sizeof(arg_f), "%d", flip);
		execl(chain_path, chain_path, arg_n, arg_f, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "%lx %lx %lx %lx %lx", &fa[0], &fa[1], &fa[2],
		   &fa[3], &fa[4]) != 5) {
		diag("chain did not start");
		*fdp = -1;
		kill(pid, SIGKILL);
		return pid;
	}
	fclose(f);
	*fdp = session(pid, flags, chain_freq);
	if (write(in[1], "x", 1) != 1)
		exit(2);
	close(in[1]);
	return pid;
}

static void test_deferred(void)
{
	unsigned int flags = PMUCTX_SAMPLE_KERNEL_STACK |
			     PMUCTX_SAMPLE_USER_STACK |
			     PMUCTX_SAMPLE_DEFER_USER;
	struct stats d, im;
	pid_t pid;
	int fd, st;

	pid = run_chain(-700, &fd, flags, 0);
	result(fd >= 0, "deferred: sampling session");
	if (fd < 0)
		return;
	waitpid(pid, &st, 0);
	drain(fd, pid, &d);
	close(fd);
	diag("deferred: %ld samples (%ld in the kernel), %ld user records, %ld resolved, %ld unresolved, %ld chains, %ld with " SYSCALL_ENTRY "; periods %llu ns, task-clock %llu ns",
	     d.samples, d.kernel_mode, d.user_records, d.resolved,
	     d.unresolved, d.chains, d.kstack_syscall,
	     (unsigned long long)d.period_sum,
	     (unsigned long long)d.task_clock);
	result(d.samples >= 50, "deferred: enough samples (%ld)", d.samples);
	/*
	 * Samples in the exit path (PF_EXITING) have no user stack to wait
	 * for, and only those: every sample without a cookie comes after the
	 * last one with a cookie.  How many there are is the exit's length
	 * (13 ms of 750 on the KASAN kernel once), not a ratio to test.
	 */
	result(d.deferred * 10 >= d.samples * 9 && !d.plain_early,
	       "deferred: samples are marked USER_DEFERRED with a cookie (%ld of %ld; %ld without, %ld of them before the exit)",
	       d.deferred, d.samples, d.plain, d.plain_early);
	result(d.chains * 10 >= d.samples * 9,
	       "deferred: >= 90%% stitch to f3 <- f2 <- f1 <- main (%ld of %ld)",
	       d.chains, d.samples);
	result(d.kstack_syscall * 10 >= d.kernel_mode * 9 && d.kernel_mode > 0,
	       "deferred: kernel parts contain the syscall entry (%ld of %ld)",
	       d.kstack_syscall, d.kernel_mode);
	result(d.user_records > 0 && d.user_records < d.samples,
	       "deferred: fewer user records than samples (shared by %ld)",
	       d.shared);
	/*
	 * The task's last kernel entry (exit_group) never returns to user
	 * space: samples taken there keep their cookie unresolved, by design.
	 * Any other unresolved cookie needs a record lost to a full buffer.
	 */
	result(d.unresolved_cookies <= 1 + (long)d.lost,
	       "deferred: every cookie resolved but the exit's (%ld unresolved samples, %ld cookies, %llu records lost to a full buffer)",
	       d.unresolved, d.unresolved_cookies,
	       (unsigned long long)d.lost);
	result(d.period_sum >= d.task_clock * 7 / 10 &&
	       d.period_sum <= d.task_clock * 13 / 10,
	       "deferred: periods cover the task's CPU time once (%llu vs %llu)",
	       (unsigned long long)d.period_sum,
	       (unsigned long long)d.task_clock);

	/* The same workload with immediate user stacks. */
	pid = run_chain(-700, &fd, PMUCTX_SAMPLE_KERNEL_STACK |
			PMUCTX_SAMPLE_USER_STACK, 0);
	if (fd < 0)
		return;
	waitpid(pid, &st, 0);
	drain(fd, pid, &im);
	close(fd);
	diag("immediate: %ld samples, %ld chains, %ld user records",
	     im.samples, im.chains, im.user_records);
	result(im.user_records == 0 && im.deferred == 0,
	       "immediate: no deferred records");
	result(im.chains * 10 >= im.samples * 9,
	       "immediate: >= 90%% carry f3 <- f2 <- f1 <- main (%ld of %ld)",
	       im.chains, im.samples);
	result(im.period_sum >= im.task_clock * 7 / 10 &&
	       im.period_sum <= im.task_clock * 13 / 10,
	       "immediate: periods cover the task's CPU time the same way (%llu vs %llu)",
	       (unsigned long long)im.period_sum,
	       (unsigned long long)im.task_clock);
}

static void test_migrate(void)
{
	unsigned int flags = PMUCTX_SAMPLE_USER_STACK | PMUCTX_SAMPLE_DEFER_USER;
	struct stats d;
	pid_t pid;
	int fd, st;

	pid = run_chain(-1000, &fd, flags, 1);
	if (fd < 0) {
		result(0, "migrate: sampling session");
		return;
	}
	waitpid(pid, &st, 0);
	drain(fd, pid, &d);
	close(fd);
	diag("migrate: %ld samples, %ld resolved, %ld on another CPU than their user record, %ld chains, %ld unresolved cookies, %llu records lost",
	     d.samples, d.resolved, d.cross_cpu, d.chains,
	     d.unresolved_cookies, (unsigned long long)d.lost);
	result(d.cross_cpu > 0, "migrate: some user stacks were written on another CPU");
	result(d.unresolved_cookies <= 1 + (long)d.lost &&
	       d.chains * 10 >= d.samples * 9,
	       "migrate: stitching across CPUs still gives f3 <- f2 <- f1 <- main (%ld of %ld)",
	       d.chains, d.samples);
}

static void test_killed(void)
{
	unsigned int flags = PMUCTX_SAMPLE_USER_STACK | PMUCTX_SAMPLE_DEFER_USER;
	struct pmuctx_info i = { .size = sizeof(i) };
	struct stats d;
	int fd = -1, st = 0, info, tries, attempt;
	pid_t pid;

	/*
	 * The chain reads 4 MiB blocks until killed: it spends nearly all
	 * its time in the kernel, so the kill usually lands in a read with a
	 * cookie pending.  Not always: a read that no tick has sampled yet
	 * has none (a loaded TCG host makes reads and ticks irregular, and on
	 * 6.12 a read takes about 1 ms, no longer than a 999 Hz period).  So
	 * 5 kHz, and up to 5 attempts, until one leaves a cookie unresolved.
	 */
	chain_freq = 4999;
	for (attempt = 1; attempt <= 5; attempt++) {
		pid = run_chain(0, &fd, flags, 0);
		if (fd < 0) {
			chain_freq = 999;
			result(0, "killed: sampling session");
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return;
		}
		usleep(500000);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		drain(fd, pid, &d);
		diag("killed (attempt %d): %ld samples, %ld resolved, %ld unresolved",
		     attempt, d.samples, d.resolved, d.unresolved);
		if ((d.samples > 0 && d.unresolved > 0) || attempt == 5)
			break;
		close(fd);
	}
	chain_freq = 999;
	result(WIFSIGNALED(st), "killed: the task died in its syscall");
	result(d.samples > 0 && d.unresolved > 0,
	       "killed: its pending cookie is unresolved (no user record)");
	close(fd);
	info = open(PMUCTX_DEVICE_PATH, O_RDWR);
	for (tries = 0; tries < 100; tries++) {
		i.size = sizeof(i);
		ioctl(info, PMUCTX_IOC_INFO, &i);
		if (!i.tasks_tracked && !i.store_bytes && !i.sessions)
			break;
		usleep(20000);
	}
	close(info);
	result(!i.tasks_tracked && !i.store_bytes && !i.sessions,
	       "killed: store empty afterwards (%llu entries)",
	       (unsigned long long)i.tasks_tracked);
}

/* 10 kHz with deep stacks costs more than a quarter of the period here. */
static void test_throttle(void)
{
	struct stats d;
	pid_t pid;
	int fd, st;

	chain_freq = 10000;
	max_stack = PMUCTX_MAX_STACK;
	pid = run_chain(-450, &fd, PMUCTX_SAMPLE_KERNEL_STACK |
			PMUCTX_SAMPLE_USER_STACK, 0);
	chain_freq = 999;
	max_stack = 32;
	if (fd < 0) {
		result(0, "throttle: sampling session at 10 kHz");
		return;
	}
	waitpid(pid, &st, 0);
	drain(fd, pid, &d);
	close(fd);
	diag("throttle: %ld samples, %ld throttle / %ld unthrottle records, periods %llu ns, task-clock %llu ns",
	     d.samples, d.throttle_on, d.throttle_off,
	     (unsigned long long)d.period_sum,
	     (unsigned long long)d.task_clock);
	result(d.throttle_on > 0, "throttle: the sampler throttled itself and said so");
	result(d.period_sum >= d.task_clock * 7 / 10 &&
	       d.period_sum <= d.task_clock * 13 / 10,
	       "throttle: periods still cover the task's CPU time");
}

static void test_unpriv(void)
{
	struct stats d;
	pid_t pid;
	int fd, st;

	pid = run_chain(-450, &fd, PMUCTX_SAMPLE_KERNEL_STACK |
			PMUCTX_SAMPLE_USER_STACK, 0);
	result(fd >= 0, "unpriv: sampling session on own child");
	if (fd < 0)
		return;
	waitpid(pid, &st, 0);
	drain(fd, pid, &d);
	close(fd);
	diag("unpriv: %ld samples, %ld in the kernel, %ld hidden, %ld with kernel addresses",
	     d.samples, d.kernel_mode, d.kaddr_hidden, d.kernel_nonzero);
	result(d.kernel_mode > 0 && d.kaddr_hidden == d.kernel_mode,
	       "unpriv: kernel-mode samples say kernel addresses are hidden");
	result(d.kernel_nonzero == 0, "unpriv: no kernel address in any sample");
	result(d.chains * 10 >= d.samples * 9,
	       "unpriv: the user callchains are still there (%ld of %ld)",
	       d.chains, d.samples);
}

/*
 * A sampler costs nothing where its tasks do not run (sampling issue
 * item 1): a 10 kHz hrtimer session on a process that sleeps must not
 * raise the local timer interrupts (/proc/interrupts LOC on x86-64; on
 * arm64 the per-CPU line of the architected timer, "arch_timer") of any
 * CPU.
 * Before, each session armed one timer per CPU, re-armed whether or not
 * a watched task ran there: +10 000 interrupts/s on every CPU, idle or
 * not.  Compared with the same second without the session; the margin
 * (1000/s) is a tenth of what the old module added.
 */
#define LOC_MAX_CPUS 64

/* the line of /proc/interrupts (leading blanks skipped) of the tick */
static int is_timer_line(const char *p)
{
	size_t n = strlen(p);

	if (!strncmp(p, "LOC:", 4))
		return 1;
	while (n && (p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	/* "11:  123  456  GICv3  27 Level  arch_timer" */
	return strchr(p, ':') && n >= 11 && !strncmp(p + n - 11, " arch_timer", 11);
}

static int loc_counts(unsigned long long *v, int max)
{
	char line[4096];
	FILE *f = fopen("/proc/interrupts", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (!is_timer_line(p))
			continue;
		p = strchr(p, ':') + 1;
		for (n = 0; n < max; n++) {
			unsigned long long x = strtoull(p, &end, 10);

			if (end == p)
				break;
			v[n] = x;
			p = end;
		}
		break;
	}
	fclose(f);
	return n;
}

/* LOC interrupts per CPU during @ms of sleep */
static int loc_rate(unsigned long long *d, int max, unsigned int ms)
{
	unsigned long long a[LOC_MAX_CPUS], b[LOC_MAX_CPUS];
	int n, i;

	n = loc_counts(a, max);
	usleep(ms * 1000);
	if (loc_counts(b, max) != n)
		return -1;
	for (i = 0; i < n; i++)
		d[i] = b[i] - a[i];
	return n;
}

static void test_idle_timers(void)
{
	unsigned long long base[LOC_MAX_CPUS], with[LOC_MAX_CPUS];
	int n, i, fd, worst = -1;
	long long over = 0;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		sleep(60);
		_exit(0);
	}
	n = loc_rate(base, LOC_MAX_CPUS, 1000);
	fd = session(pid, 0, 10000);
	result(fd >= 0, "idle-timers: a 10 kHz session on a sleeping process");
	if (fd >= 0 && n > 0 && loc_rate(with, LOC_MAX_CPUS, 1000) == n) {
		for (i = 0; i < n; i++) {
			long long extra = (long long)with[i] - (long long)base[i];

			diag("idle-timers: cpu%d: %llu local timer interrupts in 1 s without the session, %llu with it",
			     i, base[i], with[i]);
			if (worst < 0 || extra > over) {
				over = extra;
				worst = i;
			}
		}
		result(over < 1000,
		       "idle-timers: no CPU takes the sampler's interrupts while the watched process sleeps (at most %+lld/s, cpu%d)",
		       over, worst);
	} else {
		result(0, "idle-timers: /proc/interrupts LOC (%d CPUs)", n);
	}
	if (fd >= 0)
		close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * For docs/PERFORMANCE.md (bench/idle-timers.sh): N 10 kHz hrtimer
 * sessions on a sleeping process, local timer interrupts per CPU over 2 s.
 * Prints "IDLE sessions=N cpuI=RATE ...".
 */
static int idle_rate(int nsess)
{
	unsigned long long d[LOC_MAX_CPUS];
	int fds[256], i, n, made = 0;
	pid_t pid;

	if (nsess < 0 || nsess > 256)
		return 2;
	pid = fork();
	if (pid == 0) {
		sleep(60);
		_exit(0);
	}
	for (i = 0; i < nsess; i++) {
		fds[i] = session(pid, 0, 10000);
		made += fds[i] >= 0;
	}
	n = loc_rate(d, LOC_MAX_CPUS, 2000);
	printf("IDLE sessions=%d", made);
	for (i = 0; i < n; i++)
		printf(" cpu%d=%llu", i, d[i] / 2);
	printf("\n");
	for (i = 0; i < nsess; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return made == nsess ? 0 : 1;
}

/* A module parameter: its value, or -1 (no such parameter). */
static long param_get(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/pmuctx/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int param_set(const char *name, long v)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/module/pmuctx/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * The global sample budget (sampling issue item 1): NSESS sessions at
 * FREQ Hz on one busy child ask for NSESS * FREQ samples per second; the
 * budget allows @budget for the whole system.  Every 10 ms window of a
 * CPU takes at most budget / CPUs / 100 samples (at least 1), so over T
 * seconds all sessions together take at most budget * T plus one window
 * per CPU.  What was not taken is in BUDGET records, and the periods of
 * what was taken still cover the child's CPU time (a dropped tick's time
 * goes to the next sample).
 */
#define BUDGET_NSESS 8
static void budget_run(long budget, unsigned int freq, unsigned int flags,
		       const char *what, int check)
{
	struct stats d[BUDGET_NSESS];
	int fds[BUDGET_NSESS], i, made = 0, cover = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), taken = 0, slack;
	long lo = -1, hi = 0;
	uint64_t t0, t1, all, dis, dropped = 0, records = 0;
	double secs;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	t0 = ns_of(CLOCK_MONOTONIC);
	for (i = 0; i < BUDGET_NSESS; i++) {
		fds[i] = session(pid, flags, freq);
		made += fds[i] >= 0;
	}
	all = ns_of(CLOCK_MONOTONIC);
	usleep(1000 * 1000);
	dis = ns_of(CLOCK_MONOTONIC);
	for (i = 0; i < BUDGET_NSESS; i++)
		if (fds[i] >= 0)
			ioctl(fds[i], PMUCTX_IOC_DISABLE, 0);
	t1 = ns_of(CLOCK_MONOTONIC);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/*
	 * Fair is judged while all sessions sample: creating each one took
	 * up to 100 ms on the debug kernel, and the first ones, alone,
	 * rightly had the whole budget (session 0 of 8 took 143 samples,
	 * session 7 43: stop 38).
	 */
	win_from = all;
	win_to = dis;
	for (i = 0; i < BUDGET_NSESS; i++) {
		if (fds[i] < 0)
			continue;
		drain(fds[i], pid, &d[i]);
		close(fds[i]);
		taken += d[i].samples;
		if (lo < 0 || d[i].in_window < lo)
			lo = d[i].in_window;
		if (d[i].in_window > hi)
			hi = d[i].in_window;
		dropped += d[i].budget_dropped;
		records += d[i].budget_records;
		cover += d[i].period_sum >= d[i].task_clock * 7 / 10 &&
			 d[i].period_sum <= d[i].task_clock * 13 / 10;
	}
	win_from = 0;
	win_to = UINT64_MAX;
	secs = (double)(t1 - t0) / 1e9;
	diag("budget %s: the sessions were created in %.0f ms, then all sampled for %.0f ms",
	     what, (all - t0) / 1e6, (dis - all) / 1e6);
	for (i = 0; i < BUDGET_NSESS; i++)
		if (fds[i] >= 0)
			diag("budget %s: session %d: %ld samples (%ld while all sampled), %llu refused in %ld BUDGET records, throttled %ld/%ld, lost %llu",
			     what, i, d[i].samples, d[i].in_window,
			     (unsigned long long)d[i].budget_dropped,
			     d[i].budget_records, d[i].throttle_on,
			     d[i].throttle_off, (unsigned long long)d[i].lost);
	slack = ncpu * (budget / ncpu / 100 > 0 ? budget / ncpu / 100 : 1);
	diag("budget %s: %d sessions at %u Hz for %.2f s, budget %ld/s: %ld samples taken, %llu dropped in %llu records",
	     what, made, freq, secs, budget, taken,
	     (unsigned long long)dropped, (unsigned long long)records);
	result(made == BUDGET_NSESS, "budget %s: %d sampling sessions on one busy task",
	       what, BUDGET_NSESS);
	if (!check)
		return;
	result(taken <= (long)(budget * secs) + slack,
	       "budget %s: all sessions together take at most the budget (%ld <= %ld * %.2f s + %ld)",
	       what, taken, budget, secs, slack);
	/*
	 * a session whose timer fires late in each window gets its share
	 * (the debug kernel: 43 to 50 of each 8 in 18 runs)
	 */
	result(lo * 2 >= hi && lo > 0,
	       "budget %s: the sessions share it fairly (%ld to %ld samples each while all sampled)",
	       what, lo, hi);
	result(dropped >= (uint64_t)taken && records > 0,
	       "budget %s: what the budget dropped is reported (%llu in %llu BUDGET records)",
	       what, (unsigned long long)dropped,
	       (unsigned long long)records);
	if (check < 2)
		return;
	result(cover == made,
	       "budget %s: each session's periods still cover the task's CPU time (%d of %d)",
	       what, cover, made);
}

/*
 * Deferred unwinds shared across sessions (sampling item 4): 8 deferred
 * sessions on one task that spends most of its time in long read(2)s of
 * /dev/zero.  Every session samples each of those kernel entries several
 * times; the user stack is the same for all of them, so it is walked once
 * per kernel entry and every session gets the same USER_CALLCHAIN (the
 * same cookie).  Before, each session queued its own unwind: as many
 * distinct cookies as user records.
 */
#define SHARE_NSESS 8
static uint64_t share_cookie[SHARE_NSESS * 4096];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void shared_unwind(int nsess, int bench)
{
	unsigned int flags = PMUCTX_SAMPLE_KERNEL_STACK |
			     PMUCTX_SAMPLE_USER_STACK |
			     PMUCTX_SAMPLE_DEFER_USER;
	long records = 0, distinct = 0, unresolved = 0, samples = 0, i, k;
	int fds[SHARE_NSESS], made = 0, ok_resolve = 0;
	uint64_t bytes = 0;
	struct stats d;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		static char big[8 << 20];
		int z = open("/dev/zero", O_RDONLY);
		uint64_t end = ns_of(CLOCK_MONOTONIC) + 1500000000ULL;

		while (z >= 0 && ns_of(CLOCK_MONOTONIC) < end)
			if (read(z, big, sizeof(big)) < 0)
				break;
		_exit(0);
	}
	for (i = 0; i < nsess; i++) {
		fds[i] = session(pid, flags, 1000);
		made += fds[i] >= 0;
	}
	waitpid(pid, NULL, 0);
	for (i = 0; i < nsess; i++) {
		if (fds[i] < 0)
			continue;
		drain(fds[i], pid, &d);
		close(fds[i]);
		samples += d.samples;
		bytes += d.uc_bytes;
		unresolved += d.unresolved_cookies;
		ok_resolve += d.unresolved_cookies <= 1 + (long)d.lost;
		for (k = 0; k < d.user_records && k < MAXC &&
			    records < (long)(sizeof(share_cookie) /
					     sizeof(share_cookie[0])); k++)
			share_cookie[records++] = uc_cookie[k];
	}
	qsort(share_cookie, records, sizeof(share_cookie[0]), cmp_u64);
	for (i = 0; i < records; i++)
		distinct += !i || share_cookie[i] != share_cookie[i - 1];
	if (bench) {
		/* bench/shared-unwind.sh: one line for PERFORMANCE.md */
		printf("SHARED sessions=%d samples=%ld records=%ld walks=%ld record_bytes=%llu\n",
		       made, samples, records, distinct,
		       (unsigned long long)bytes);
		return;
	}
	diag("shared unwind: %d sessions, %ld samples, %ld user records, %ld distinct cookies (unwinds), %ld unresolved",
	     made, samples, records, distinct, unresolved);
	result(made == nsess && records > 0,
	       "shared unwind: %d deferred sessions on one task", nsess);
	result(distinct * 2 <= records,
	       "shared unwind: one user stack walk serves several sessions (%ld walks for %ld user records)",
	       distinct, records);
	result(ok_resolve == made,
	       "shared unwind: every session's cookies resolve (%d of %d sessions)",
	       ok_resolve, made);
}

static void test_shared_unwind(void)
{
	shared_unwind(SHARE_NSESS, 0);
}

static void test_budget(void)
{
	long old = param_get("sample_budget"), old_pct;

	result(old > 0, "budget: module parameter sample_budget (%ld)", old);
	if (old <= 0)
		return;
	old_pct = param_get("sample_cpu_percent");
	result(param_set("sample_budget", 0) && param_set("sample_budget", -5),
	       "budget: sample_budget refuses 0 and negative values");
	result(param_get("sample_budget") == old,
	       "budget: a refused value changes nothing");
	if (param_set("sample_budget", 800) == 0) {
		budget_run(800, 1000, 0, "timer", 2);
		/* counter overflows (cpu-clock): a drop loses its count */
		sample_ev = PMUCTX_EV_CPU_CLOCK;
		budget_run(800, 1000, 0, "counter", 1);
		sample_ev = 0;
		budget_run(800, 1000, PMUCTX_SAMPLE_KERNEL_STACK |
			   PMUCTX_SAMPLE_USER_STACK |
			   PMUCTX_SAMPLE_DEFER_USER, "timer+stacks", 2);
	} else {
		result(0, "budget: sample_budget can be set to 800");
	}
	/*
	 * Lowered by cost: at 1 % of a CPU for sampling, 8 sessions at
	 * 10 kHz with both stacks cost more than that on any machine (a
	 * sample costs well over 125 ns), so the budget in force drops below
	 * the configured one.
	 */
	param_set("sample_budget", 100000);
	if (old_pct > 0 && param_set("sample_cpu_percent", 1) == 0) {
		long now;

		budget_run(100000, 10000, PMUCTX_SAMPLE_KERNEL_STACK |
			   PMUCTX_SAMPLE_USER_STACK, "cost", 0);
		now = param_get("sample_budget_now");
		result(now > 0 && now < 100000,
		       "budget: 1%% of the CPU lowers the budget in force (sample_budget_now %ld < 100000)",
		       now);
		param_set("sample_cpu_percent", old_pct);
	} else {
		result(0, "budget: sample_cpu_percent can be set to 1 (was %ld)",
		       old_pct);
	}
	param_set("sample_budget", old);
}

/*
 * The budget is shared per user, not per session (issue 29 item 8): an
 * unprivileged user (uid 65534) opens BUSER_NSESS sessions at 1 kHz on a
 * busy task of its own, root one session on the same task, with a budget
 * of 800/s (4 samples per 10 ms window with 2 CPUs: every window is
 * short).  Each CPU's allowance is split between the users that sample
 * there, the user's sessions together being one, so root's session takes
 * about half of what all sessions took in the same run.  Before, each
 * session had a share: root's got 1 / (BUSER_NSESS + 1) of it.  66-sample.sh
 * runs this as root with the device open to group 4242.
 */
#define BUSER_NSESS 16
#define BUSER_UID 65534
#define BUSER_GID 4242

static void become_user(void)
{
	gid_t g = BUSER_GID;

	if (setgroups(1, &g) || setresgid(BUSER_UID, BUSER_UID, BUSER_UID) ||
	    setresuid(BUSER_UID, BUSER_UID, BUSER_UID) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		_exit(3);
}

static int buser_migrate;	/* the busy task changes CPU every 15 ms */

static void buser_busy(void)
{
	struct timespec ts;
	uint64_t next = 0, now;
	cpu_set_t cs;
	int cpu = 0;

	for (;;) {
		if (!buser_migrate)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		if (now < next)
			continue;
		next = now + 15000000;
		CPU_ZERO(&cs);
		CPU_SET(cpu, &cs);
		sched_setaffinity(0, sizeof(cs), &cs);
		cpu ^= 1;
	}
}

/*
 * One round of test_budget_user(): 0 when both sides' sessions were made,
 * -2 when sample_budget could not be set (said).
 */
static int budget_user_round(long *root_np, long *user_np)
{
	long old = param_get("sample_budget"), root_n, user_n = -1, all[2];
	int ready[2], go[2], res[2], fds[BUSER_NSESS], fd, i, made = -1;
	uint64_t win[2] = { 0, 0 };
	struct stats d = { 0 };
	pid_t busy, u;
	char c = 0;

	if (old <= 0 || param_set("sample_budget", 800)) {
		result(0, "budget per user: sample_budget can be set to 800");
		return -2;
	}
	if (pipe(ready) || pipe(go) || pipe(res))
		exit(2);
	busy = fork();
	if (busy == 0) {
		become_user();
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		buser_busy();
	}
	if (read(ready[0], &c, 1) != 1)
		exit(2);
	u = fork();
	if (u == 0) {
		long sum[2] = { 0, 0 };

		become_user();
		ring_pages = 8;	/* 16 sessions under RLIMIT_MEMLOCK */
		made = 0;
		for (i = 0; i < BUSER_NSESS; i++) {
			fds[i] = session(busy, 0, 1000);
			made += fds[i] >= 0;
		}
		if (write(ready[1], &made, sizeof(made)) != sizeof(made) ||
		    read(go[0], win, sizeof(win)) != sizeof(win))
			_exit(2);
		for (i = 0; i < BUSER_NSESS; i++)
			if (fds[i] >= 0)
				ioctl(fds[i], PMUCTX_IOC_DISABLE, 0);
		win_from = win[0];
		win_to = win[1];
		for (i = 0; i < BUSER_NSESS; i++) {
			if (fds[i] < 0)
				continue;
			drain(fds[i], busy, &d);
			sum[0] += d.in_window;
			sum[1] += d.samples;
		}
		_exit(write(res[1], sum, sizeof(sum)) != sizeof(sum));
	}
	if (read(ready[0], &made, sizeof(made)) != sizeof(made))
		made = -1;
	/*
	 * The user's sessions sample alone before root's is made and after
	 * it is disabled (until the child has read "go" and disabled its
	 * 16): slow under a loaded emulator, and then the user's whole count
	 * held up to a fifth more than its share (root 30.5-32.5 %, stop 37).
	 * Both sides count the samples of root's window only.
	 */
	fd = session(busy, 0, 1000);
	win[0] = ns_of(CLOCK_MONOTONIC);
	usleep(1000 * 1000);
	win[1] = ns_of(CLOCK_MONOTONIC);
	if (fd >= 0)
		ioctl(fd, PMUCTX_IOC_DISABLE, 0);
	if (write(go[1], win, sizeof(win)) != sizeof(win) ||
	    read(res[0], all, sizeof(all)) != sizeof(all))
		all[0] = all[1] = -1;
	user_n = all[0];
	waitpid(u, NULL, 0);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	root_n = 0;
	if (fd >= 0) {
		win_from = win[0];
		win_to = win[1];
		drain(fd, busy, &d);
		close(fd);
		root_n = d.in_window;
	}
	win_from = 0;
	win_to = UINT64_MAX;
	param_set("sample_budget", old);
	diag("budget per user%s: in root's window of %llu ms, root's 1 session %ld samples (%ld in all), uid %d's %d sessions %ld together (%ld in all)",
	     buser_migrate ? " (the task changes CPU every 15 ms)" : "",
	     (unsigned long long)(win[1] - win[0]) / 1000000, root_n,
	     d.samples, BUSER_UID, made, user_n, all[1]);
	*root_np = root_n;
	*user_np = user_n;
	return fd >= 0 && made == BUSER_NSESS && user_n >= 0 ? 0 : -1;
}

/*
 * Up to 3 rounds, each logged: the share is a half; the defects gave
 * root a session's share (1 of 17) or, with per-session credits, 31 %
 * and 26 % (stop 34), in every round; a loaded host once gave 148 of
 * 451 (32.8 %, 6.1-cloud beside two VMs) in a single round.
 */
static void test_budget_user(void)
{
	long root_n = 0, user_n = -1;
	int round, made = -1, pass = 0;

	for (round = 1; round <= 3 && !pass; round++) {
		made = budget_user_round(&root_n, &user_n);
		if (made == -2)
			return;
		if (made < 0)
			break;
		/* half is the share; a third leaves room for windows with one asker */
		pass = root_n > 0 && root_n * 3 >= (root_n + user_n) &&
		       user_n * 3 >= (root_n + user_n);
	}
	result(made == 0,
	       "budget per user: %d sessions of one user and one of root on one busy task",
	       BUSER_NSESS);
	result(root_n > 0 && root_n * 3 >= (root_n + user_n),
	       "budget per user: root's one session gets a user's share, not a session's (%ld of %ld samples, >= 1/3, round %d)",
	       root_n, root_n + user_n, round - 1);
	result(user_n * 3 >= (root_n + user_n),
	       "budget per user: the user's sessions together get theirs (%ld of %ld samples, >= 1/3)",
	       user_n, root_n + user_n);
}

/* the largest dump whose USER_STACK record the ring takes (REC_MAX_SIZE) */
static unsigned int dump_fit(void)
{
	unsigned int fit = (REC_MAX_SIZE -
			    PMUCTX_REC_USER_STACK_SIZE_NR(REGS_NR, 0)) & ~7U;

	return fit < PMUCTX_USER_DUMP_MAX ? fit : PMUCTX_USER_DUMP_MAX;
}

/*
 * sample_cpu_percent bounds the deferred work too (issue 29 item 8):
 * DEFER_NSESS sessions at 10 kHz with the largest user stack dump on one
 * busy task, drained while they run.  The dumps are copied by a task_work
 * of the task itself, at its return to user space (one walk for all
 * sessions, one copy for each); the ticks that land in that work are the
 * profiler's and take no sample, so a session's sample periods cover the
 * task's CPU time less the time it spent in pmuctx's deferred work.  At
 * the default 25 % they must cover at least 60 % of the task's CPU time
 * (task-clock): the module's own counts, no wall clock.  Before, the
 * deferred work was not in the cost the budget measured, and sampling
 * took about half of the task's CPU.
 */
#define DEFER_NSESS 8
static void test_budget_deferred(void)
{
	static char buf[4 << 20];
	struct pmuctx_read rd = { .size = sizeof(rd) };
	long old = param_get("sample_budget"), old_pct, samples = 0;
	long dumps = 0, now_with;
	uint64_t period = 0, tclock = 0, end;
	int fds[DEFER_NSESS], i, made = 0, last;
	struct pmuctx_rec_header *h;
	struct pmuctx_rec_sample *sm;
	ssize_t n, off;
	pid_t pid;

	old_pct = param_get("sample_cpu_percent");
	if (old <= 0 || param_set("sample_budget", 100000) ||
	    param_set("sample_cpu_percent", 25)) {
		result(0, "budget deferred: sample_budget 100000, sample_cpu_percent 25");
		return;
	}
	pid = fork();
	if (pid == 0) {
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	user_dump = dump_fit();		/* the largest this architecture takes */
	ring_pages = 64;
	for (i = 0; i < DEFER_NSESS; i++) {
		fds[i] = session(pid, DUMP_FLAGS, 10000);
		made += fds[i] >= 0;
		if (fds[i] >= 0)
			fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	}
	user_dump = 0;
	ring_pages = RING_PAGES;
	end = ns_of(CLOCK_MONOTONIC) + 1500000000ULL;
	do {
		last = ns_of(CLOCK_MONOTONIC) >= end;
		for (i = 0; i < DEFER_NSESS; i++) {
			if (fds[i] < 0)
				continue;
			if (last) {
				ioctl(fds[i], PMUCTX_IOC_DISABLE, 0);
				if (!ioctl(fds[i], PMUCTX_IOC_READ, &rd))
					tclock += rd.values[0];
			}
			while ((n = read(fds[i], buf, sizeof(buf))) > 0) {
				for (off = 0; off < n; off += h->size) {
					h = (void *)(buf + off);
					sm = (void *)h;

					if (h->type == PMUCTX_REC_SAMPLE &&
					    sm->c.tid == pid) {
						samples++;
						period += sm->period;
					} else if (h->type == PMUCTX_REC_USER_STACK) {
						dumps++;
					}
				}
			}
		}
		if (!last)
			usleep(2000);
	} while (!last);
	now_with = param_get("sample_budget_now");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < DEFER_NSESS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	param_set("sample_budget", old);
	param_set("sample_cpu_percent", old_pct);
	/* period and tclock: all sessions together */
	diag("budget deferred: %d sessions, %ld samples, %ld USER_STACK records, periods %.1f ms of task-clock %.1f ms (%.0f %%), sample_budget_now %ld",
	     made, samples, dumps, period / 1e6, tclock / 1e6,
	     tclock ? 100.0 * period / tclock : 0.0, now_with);
	result(made == DEFER_NSESS && samples > 0 && dumps > 0 && tclock > 0,
	       "budget deferred: %d sessions at 10 kHz with %u-byte dumps on a busy task",
	       DEFER_NSESS, dump_fit());
	result(period * 10 >= tclock * 6,
	       "budget deferred: at sample_cpu_percent 25 the deferred work leaves the task at least 60 %% of its CPU (periods %.0f %% of task-clock)",
	       tclock ? 100.0 * period / tclock : 0.0);
}

/*
 * A stalled deferred work costs other sessions nothing (issue 29 item 8,
 * review of the per-user budget): the task's owner decides how long its
 * task_work waits (SCHED_IDLE behind a busy task, a stack page on a slow
 * file, mmap_lock held by another thread).  The debug hook
 * selftest_work_stall_ms makes each deferred walk of task A sleep 20 ms
 * inside the time the budget charges.  A and a busy task B share CPU 1;
 * B's own session (1 kHz, no stacks) must still get a sample for at
 * least half of B's task-clock milliseconds.  When the work was charged
 * its wall time, def_ns reached its cap of a window per sample and every
 * session on the CPU fell to the floor of one sample per 10 ms window.
 * Debug build only (66-sample.sh runs it after use_debug_module).
 */
/* one round of test_budget_stall(): B's samples and task-clock, A's works
 * stalling @stall_ms each */
static int budget_stall_round(int stall_ms, long *samples, uint64_t *tclock)
{
	struct pmuctx_read rd = { .size = sizeof(rd) };
	int fa = -1, fb = -1, ok_setup;
	struct stats d = { 0 };
	pid_t a, b;
	cpu_set_t cs;

	*tclock = 0;
	CPU_ZERO(&cs);
	CPU_SET(1, &cs);
	b = fork();
	if (b == 0) {
		if (sched_setaffinity(0, sizeof(cs), &cs))
			_exit(2);
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	a = fork();
	if (a == 0) {
		if (sched_setaffinity(0, sizeof(cs), &cs))
			_exit(2);
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	ring_pages = 64;
	fb = session(b, 0, 1000);
	fa = session(a, PMUCTX_SAMPLE_USER_STACK | PMUCTX_SAMPLE_DEFER_USER,
		     1000);
	ring_pages = RING_PAGES;
	ok_setup = fa >= 0 && fb >= 0 &&
		   !param_set("selftest_work_stall_ms", stall_ms);
	usleep(1500 * 1000);
	param_set("selftest_work_stall_ms", 0);
	if (fb >= 0) {
		ioctl(fb, PMUCTX_IOC_DISABLE, 0);
		if (!ioctl(fb, PMUCTX_IOC_READ, &rd))
			*tclock = rd.values[0];
		drain(fb, b, &d);
	}
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	*samples = d.samples;
	return ok_setup && *tclock > 0;
}

/*
 * Judged against a control round in the same conditions: the same two
 * sessions with works that do not stall.  A host that stalls the vCPU
 * costs B samples in both (the hrtimer fires once per stall while B's
 * task-clock runs on: 393 in 1291 ms, then 420 in 1467 ms, under two
 * other VMs, where a quiet host gives about one per ms), the defect only
 * in the stalled one: it held B to about a tenth of its milliseconds
 * (122 and 103 samples in 1.29 s) whatever the control got.  B's rate
 * with the stall must be at least half of the control's; up to 3 pairs
 * of rounds, each logged.
 */
static void test_budget_stall(void)
{
	long old = param_get("sample_budget");
	long samples = 0, csamples = 0;
	uint64_t tclock = 0, ctclock = 0;
	int ok_setup = 1, round, pass = 0;

	if (param_get("selftest_work_stall_ms") < 0) {
		result(0, "budget stall: the debug hook selftest_work_stall_ms (load the debug build)");
		return;
	}
	if (old <= 0 || param_set("sample_budget", 100000)) {
		result(0, "budget stall: sample_budget can be set to 100000");
		return;
	}
	for (round = 1; round <= 3 && ok_setup && !pass; round++) {
		ok_setup = budget_stall_round(0, &csamples, &ctclock) &&
			   budget_stall_round(20, &samples, &tclock);
		/* samples / tclock >= 1/2 x csamples / ctclock */
		pass = ok_setup && csamples > 0 &&
		       (double)samples * 2 * ctclock >= (double)csamples * tclock;
		diag("budget stall, round %d: B's session %ld samples in %.1f ms of B's task-clock with A's works stalling 20 ms, %ld in %.1f ms without (the control), sample_budget_now %ld",
		     round, samples, tclock / 1e6, csamples, ctclock / 1e6,
		     param_get("sample_budget_now"));
	}
	param_set("sample_budget", old);
	result(ok_setup,
	       "budget stall: a session on busy B and a deferred one on A, whose works stall 20 ms, on CPU 1");
	result(pass,
	       "budget stall: B's session gets at least half the samples per task-clock ms it gets when A's works do not stall (%ld in %.0f ms against %ld in %.0f ms, round %d)",
	       samples, tclock / 1e6, csamples, ctclock / 1e6, round - 1);
}

/*
 * Sampling counters across CPU hotplug (lifetimes item 5): a sample_event
 * session (cpu-clock overflows) on a child; cpu1 goes offline and comes
 * back; then the child burns 400 ms of CPU pinned to cpu1.  perf leaves a
 * CPU's counters off after it went offline; before the module replaced
 * the sampling counter too, the child got no sample on cpu1 at all.
 */
static void test_hotplug(void)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_PID,
		.cgroup_fd = -1, .nr_events = 1,
		.events = { PMUCTX_EV_TASK_CLOCK },
		.ring_pages = RING_PAGES, .ring_mode = PMUCTX_RING_NORMAL,
		.sample_freq = 999, .sample_event = PMUCTX_EV_CPU_CLOCK,
	};
	static char buf[4 << 20];
	long on1 = 0, other = 0;
	int gate[2], fd, st = 0;
	cpu_set_t set;
	ssize_t n, off;
	pid_t pid;
	char c;

	if (!cpu1_hotpluggable()) {
		skip("cpu1 cannot be taken offline here",
		     "hotplug: samples on a CPU that went offline and came back");
		return;
	}
	if (pipe(gate))
		exit(2);
	pid = fork();
	if (pid == 0) {
		struct timespec t0, t;

		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(1);
		CPU_ZERO(&set);
		CPU_SET(1, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(2);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		do
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		       (t.tv_nsec - t0.tv_nsec) < 400000000L);
		_exit(sched_getcpu() == 1 ? 0 : 3);
	}
	close(gate[0]);
	a.pid = pid;
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) ||
	    ioctl(fd, PMUCTX_IOC_ENABLE, 0)) {
		result(0, "hotplug: cpu-clock sampling session: %s",
		       strerror(errno));
		close(gate[1]);
		waitpid(pid, &st, 0);
		if (fd >= 0)
			close(fd);
		return;
	}
	cpu1_cycle("hotplug", "");
	usleep(300000);
	c = 1;
	if (write(gate[1], &c, 1) != 1)
		exit(2);
	close(gate[1]);
	waitpid(pid, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "hotplug: the child burned 400 ms of CPU on cpu1 (status %#x)",
	       st);
	ioctl(fd, PMUCTX_IOC_DISABLE, 0);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; ) {
			struct pmuctx_rec_header *h = (void *)(buf + off);
			struct pmuctx_rec_sample *sm = (void *)h;

			if (h->type == PMUCTX_REC_SAMPLE && sm->c.tid == pid) {
				if (sm->c.cpu == 1)
					on1++;
				else
					other++;
			}
			off += h->size;
		}
	}
	close(fd);
	/* 400 ms at 999 Hz is ~400 samples; TCG and the throttle take some */
	result(on1 >= 20,
	       "hotplug: cpu-clock samples on a CPU that went offline and came back (%ld on cpu1, %ld elsewhere)",
	       on1, other);
}

/*
 * kernel.perf_event_max_sample_rate holds for callers without
 * CAP_PERFMON (sampling issue item 1): 66-sample.sh sets it to 1000 and
 * runs this as an unprivileged user.  Before, any frequency up to the
 * module's max_sample_freq (10 kHz) was accepted.
 */
static void test_maxrate(void)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_PID,
		.cgroup_fd = -1, .nr_events = 1,
		.events = { PMUCTX_EV_TASK_CLOCK },
		.ring_pages = RING_PAGES, .ring_mode = PMUCTX_RING_NORMAL,
		.sample_freq = 2000,
	};
	int fd, ret, err;

	a.pid = getpid();
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		result(0, "maxrate: open: %s", strerror(errno));
		return;
	}
	ret = ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a);
	err = errno;
	result(ret < 0 && err == EINVAL,
	       "maxrate: 2000 Hz above kernel.perf_event_max_sample_rate (1000) is refused with EINVAL (%s)",
	       ret < 0 ? strerror(err) : "created");
	a.sample_freq = 1000;
	if (ret == 0) {
		close(fd);
		fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	}
	ret = ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a);
	result(ret == 0, "maxrate: 1000 Hz, the ceiling itself, is allowed (%s)",
	       ret ? strerror(errno) : "created");
	close(fd);
}

/* ---- user stack dumps (PMUCTX_SAMPLE_USER_DUMP) --------------------------- */



/* SESSION_CREATE of the caller with a dump: 0 or the errno */
static int dump_create(int fd, unsigned int flags, unsigned int dump,
		       unsigned int pages, unsigned int rsv)
{
	struct pmuctx_session_attr a = {
		.size = sizeof(a), .target = PMUCTX_TARGET_PID, .pid = 0,
		.cgroup_fd = -1, .nr_events = 1,
		.events = { PMUCTX_EV_TASK_CLOCK },
		.ring_pages = pages, .ring_mode = PMUCTX_RING_NORMAL,
		.sample_freq = 99, .sample_flags = flags,
		.sample_user_dump = dump, .__reserved4 = rsv,
	};

	return ioctl(fd, PMUCTX_IOC_SESSION_CREATE, &a) ? errno : 0;
}

static void test_dump_attr(void)
{
	static const struct {
		unsigned int flags, dump, pages, rsv;
		const char *what;
	} bad[] = {
		{ DUMP_FLAGS, 12, RING_PAGES, 0, "a size not a multiple of 8" },
		{ DUMP_FLAGS, PMUCTX_USER_DUMP_MAX + 8, RING_PAGES, 0,
		  "a size above PMUCTX_USER_DUMP_MAX" },
		{ DUMP_FLAGS, 0xfffffff8U, RING_PAGES, 0, "a size of 4 GiB" },
		{ DUMP_FLAGS & ~PMUCTX_SAMPLE_DEFER_USER, 0, RING_PAGES, 0,
		  "USER_DUMP without DEFER_USER" },
		{ PMUCTX_SAMPLE_USER_STACK | PMUCTX_SAMPLE_DEFER_USER, 8192,
		  RING_PAGES, 0, "a size without USER_DUMP" },
		{ DUMP_FLAGS, 0, 4, 0,
		  "the default 8 KiB dump with 4 pages (half a ring: 8 KiB)" },
		{ DUMP_FLAGS, PMUCTX_USER_DUMP_MAX, 16, 0,
		  "the largest dump with 16 pages" },
		{ DUMP_FLAGS, 8192, RING_PAGES, 1, "__reserved4 not 0" },
	};
	unsigned int i;
	int fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC), e;

	result(fd >= 0, "dump: open %s", PMUCTX_DEVICE_PATH);
	if (fd < 0)
		return;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e = dump_create(fd, bad[i].flags, bad[i].dump, bad[i].pages,
				bad[i].rsv);
		result(e == EINVAL, "dump: %s is refused with EINVAL (%s)",
		       bad[i].what, strerror(e));
	}
	/* nothing changed: the fd still takes a session, at the bounds */
	e = dump_create(fd, DUMP_FLAGS, 0, 8, 0);
	result(!e, "dump: then the default dump with 8 pages is taken (%s)",
	       strerror(e));
	close(fd);
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	/* (arm64: the largest that fits a record, test_dump_fit()) */
	e = fd < 0 ? errno : dump_create(fd, DUMP_FLAGS, dump_fit(), 32, 0);
	result(!e, "dump: the largest dump (%u bytes) with 32 pages is taken (%s)",
	       dump_fit(), strerror(e));
	if (fd >= 0)
		close(fd);
}

/*
 * A dump the module accepts is one it writes.  A USER_STACK record's size
 * is a __u16: with arm64's 33 registers a PMUCTX_USER_DUMP_MAX dump does
 * not fit one (65600 bytes), which x86-64's 17 do.  With a ring large
 * enough (64 pages), a child whose stack holds more than the dump above
 * its stack pointer (a 96 KiB frame) records itself: either the create is
 * refused with EINVAL, or its USER_STACK records come, whole.  Then the
 * largest dump that fits is taken and written whole.  (Before: arm64
 * took the session, and every full copy hit a WARN in the deferred work
 * and was dropped: a WARN any group member could raise, a machine with
 * panic_on_warn down.)
 */
static long dump_deep_records(unsigned int dump, int *err)
{
	static char buf[1 << 20];
	long whole = 0, recs = 0, samples = 0;
	unsigned int most = 0;
	int fd, st;
	ssize_t n, off;
	pid_t pid;

	*err = 0;
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		volatile char deep[96 << 10];
		uint64_t end;

		memset((char *)deep, 1, sizeof(deep));
		if (dump_create(fd, DUMP_FLAGS, dump, 64, 0))
			_exit(errno);
		if (ioctl(fd, PMUCTX_IOC_ENABLE, 0))
			_exit(125);
		end = ns_of(CLOCK_MONOTONIC) + 400000000ULL;
		while (ns_of(CLOCK_MONOTONIC) < end)
			deep[(end >> 3) % sizeof(deep)]++;
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		*err = WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += ((struct pmuctx_rec_header *)
					       (buf + off))->size) {
			struct pmuctx_rec_user_stack *u = (void *)(buf + off);

			samples += u->hdr.type == PMUCTX_REC_SAMPLE;
			if (u->hdr.type != PMUCTX_REC_USER_STACK)
				continue;
			recs++;
			if (u->dyn_size > most)
				most = u->dyn_size;
			if (u->size == dump && u->dyn_size == dump)
				whole++;
		}
	}
	close(fd);
	diag("dump: %u-byte dumps of a 96 KiB frame: %ld samples, %ld USER_STACK records, %ld whole, the largest copy %u bytes",
	     dump, samples, recs, whole, most);
	return whole;
}

static void test_dump_fit(void)
{
	unsigned int fit = dump_fit();
	long whole;
	int e;

	whole = dump_deep_records(PMUCTX_USER_DUMP_MAX, &e);
	if (fit < PMUCTX_USER_DUMP_MAX)
		result(e == EINVAL,
		       "dump: a %u-byte dump, whose record (%zu bytes with %u registers) is larger than a record can be, is refused with EINVAL (%s, %ld whole records)",
		       PMUCTX_USER_DUMP_MAX,
		       (size_t)PMUCTX_REC_USER_STACK_SIZE_NR(REGS_NR, PMUCTX_USER_DUMP_MAX),
		       REGS_NR, e ? strerror(e) : "taken", whole);
	whole = dump_deep_records(fit, &e);
	result(!e && whole > 0,
	       "dump: the largest dump a record holds (%u bytes, %u registers) is taken, and written whole from a deep stack (%ld records; %s)",
	       fit, REGS_NR, whole, e ? strerror(e) : "taken");
}

/*
 * chain under USER_DUMP: every USER_STACK record of it is well formed and
 * followed, on its CPU, by the USER_CALLCHAIN of its cookie, whose first
 * frames the copy must reproduce: ip, and (chain keeps frame pointers)
 * the return address at bp + 8 read from the copied stack.
 */
static void test_dump_records(void)
{
	static char buf[8 << 20];
	static __u64 lastregs[REGS_NR];
	static unsigned char lastret[8];
	int have_last = 0, lastret_ok = 0;
	long recs = 0, bad = 0, paired = 0, ipok = 0, retok = 0, trunc = 0;
	long judged = 0, nobp = 0, onef = 0, shown = 0;
	uint64_t lastbp = 0;
	uint64_t bytes = 0;
	struct pmuctx_rec_user_stack last;
	int fd, st;
	ssize_t n, off;
	pid_t pid;

	memset(&last, 0, sizeof(last));
	pid = run_chain(-500, &fd, DUMP_FLAGS, 0);
	result(fd >= 0, "dump: sampling session with the default 8 KiB dump");
	if (fd < 0)
		return;
	waitpid(pid, &st, 0);
	ioctl(fd, PMUCTX_IOC_DISABLE, 0);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += ((struct pmuctx_rec_header *)
					       (buf + off))->size) {
			struct pmuctx_rec_header *h = (void *)(buf + off);

			if (h->type == PMUCTX_REC_USER_STACK) {
				struct pmuctx_rec_user_stack *u = (void *)h;
				const unsigned char *data =
					(const void *)(u->regs + u->nr_regs);
				uint64_t bp, sp;

				if (u->c.tid != pid)
					continue;
				recs++;
				bytes += h->size;
				if (u->abi != REGS_ABI || u->nr_regs != REGS_NR ||
				    u->size % 8 || u->size > 8192 ||
				    u->dyn_size > u->size ||
				    h->size != PMUCTX_REC_USER_STACK_SIZE_NR(REGS_NR, u->size)) {
					bad++;
					continue;
				}
				if (u->dyn_size < u->size)
					trunc++;
				memcpy(&last, u, sizeof(last));
				memcpy(lastregs, u->regs, sizeof(lastregs));
				have_last = 1;
				sp = u->regs[REGS_SP];
				bp = u->regs[REGS_FP];
				lastbp = bp;
				lastret_ok = bp >= sp && !(bp & 7) &&
					     bp + 16 - sp <= u->dyn_size;
				if (lastret_ok)
					memcpy(lastret, data + (bp + 8 - sp), 8);
			} else if (h->type == PMUCTX_REC_USER_CALLCHAIN) {
				struct pmuctx_rec_user_callchain *c = (void *)h;
				uint64_t ret;

				if (c->c.tid != pid || !have_last)
					continue;
				have_last = 0;
				if (c->cookie != last.cookie ||
				    c->c.cpu != last.c.cpu)
					continue;
				paired++;
				if (c->nr >= 1 &&
				    c->ips[0] == lastregs[REGS_IP])
					ipok++;
				memcpy(&ret, lastret, 8);
				/*
				 * Judged when the walk read bp + 8 (a second
				 * frame) and the copy holds it: the ip in code
				 * that uses rbp for data (ld.so at start-up,
				 * libc), whose bp is not in the copy, cannot
				 * be judged.
				 */
				if (!lastret_ok)
					nobp++;
				else if (c->nr < 2)
					onef++;
				else {
					judged++;
					if (c->ips[1] == ret)
						retok++;
					else if (shown++ < 5)
						diag("dump: ip %#llx bp %#llx: callchain's second frame %#llx, copy at bp + 8 %#llx",
						     (unsigned long long)c->ips[0],
						     (unsigned long long)lastbp,
						     (unsigned long long)c->ips[1],
						     (unsigned long long)ret);
				}
			}
		}
	}
	close(fd);
	diag("dump: %ld records, %llu bytes (%.0f per record), %ld short", recs,
	     (unsigned long long)bytes, recs ? (double)bytes / recs : 0.0,
	     trunc);
	/* a loaded host gave 18 in one run: the layout is what is checked */
	result(recs >= 10 && !bad, "dump: %ld USER_STACK records, %ld malformed",
	       recs, bad);
	result(paired * 10 >= recs * 9,
	       "dump: each is followed by its cookie's USER_CALLCHAIN on its CPU (%ld of %ld)",
	       paired, recs);
	result(ipok == paired && paired,
	       "dump: its ip is the callchain's first frame (%ld of %ld)",
	       ipok, paired);
	/*
	 * The walk and the copy read the same stack in the same work: every
	 * judged pair must agree.  Which pairs can be judged depends on where
	 * the samples land (34 of 40 agreed in a make check-debug beside two
	 * busy VMs, with 90 % asked of all of them: issue 32 item 6); chain
	 * keeps frame pointers, so most can: fewer than half is a defect (the
	 * registers, or the copy's offset, wrong).
	 */
	diag("dump: %ld pairs: %ld judged, %ld with bp outside the copy, %ld with a one-frame callchain",
	     paired, judged, nobp, onef);
	result(retok == judged && judged * 2 >= paired && judged,
	       "dump: the copy holds the callchain's return address at bp + 8 (%ld of %ld judged, %ld pairs)",
	       retok, judged, paired);
}

int main(int argc, char **argv)
{
	char *slash;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(chain_path, sizeof(chain_path), "%s", argv[0]);
	slash = strrchr(chain_path, '/');
	snprintf(slash ? slash + 1 : chain_path,
		 sizeof(chain_path) - (slash ? slash + 1 - chain_path : 0),
		 "chain");
	if (argc > 1 && !strcmp(argv[1], "unpriv")) {
		test_unpriv();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "maxrate")) {
		test_maxrate();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "hotplug")) {
		test_hotplug();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "idle-timers")) {
		test_idle_timers();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "shared")) {
		test_shared_unwind();
		return !!failures;
	}
	if (argc > 2 && !strcmp(argv[1], "shared-bench")) {
		int n = atoi(argv[2]);

		if (n < 1 || n > SHARE_NSESS)
			return 2;
		shared_unwind(n, 1);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "dump")) {
		test_dump_attr();
		test_dump_fit();
		test_dump_records();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "budget")) {
		test_budget();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "budget-stall")) {
		test_budget_stall();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "budget-user-migrate")) {
		buser_migrate = 1;
		test_budget_user();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "budget-user")) {
		test_budget_user();
		return !!failures;
	}
	if (argc > 1 && !strcmp(argv[1], "budget-deferred")) {
		test_budget_deferred();
		return !!failures;
	}
	if (argc > 2 && !strcmp(argv[1], "idle-rate"))
		return idle_rate(atoi(argv[2]));
	load_kallsyms();
	result(sys_lo && sys_hi > sys_lo, "kallsyms: " SYSCALL_ENTRY " found");
	test_deferred();
	test_migrate();
	test_killed();
	test_throttle();
	test_idle_timers();
	test_hotplug();
	return !!failures;
}
