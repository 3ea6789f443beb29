// SPDX-License-Identifier: GPL-2.0
/*
 * t_nested: nested ring writers under load on one CPU (VM test, see
 * tests/vm/cases/68-ring-nested.sh).
 *
 * A child process pinned to one CPU runs every kind of ring writer at once
 * on that CPU's buffer:
 *  - two threads ping-ponging through a futex: sched_switch writes SWITCH
 *    records constantly (tracepoint, IRQs off);
 *  - a thread writing USER records with write(2) (preemption off between
 *    reserve and commit, IRQs on): each carries a sequence number, a
 *    variable-length byte pattern and a checksum;
 *  - a thread creating and joining threads: FORK, COMM and EXIT records
 *    (fork and exit probes, preemption off);
 *  - the session's sampling hrtimer at a high rate: SAMPLE (and THROTTLE)
 *    records from hardirq context, nesting inside the write(2) and probe
 *    writers between their reserve and commit.
 * The parent (the session owner, on another CPU when there is one) is the
 * reader.  It checks every record: known type, size a multiple of 8, in
 * bounds, never crossing the end of the data area, PAD exactly up to the
 * end; the common part (cpu = the buffer's CPU, pid/tid of the child's
 * threads); each type's fixed layout; USER checksums and zero padding;
 * USER sequence numbers in order with every gap covered by LOST records
 * (normally written before the next USER record; in normal mode possibly
 * later, when there was room for the record but not for the LOST record
 * too); timestamps non-decreasing within each CPU's stream.  At the end,
 * records read = the kernel's records counter, the LOST records add up to
 * its lost counter exactly, and lost USER records = the write(2) calls
 * refused with ENOSPC = the sequence gaps.  Overwrite mode: every window
 * parses from data_tail to data_head into complete records and holds the
 * newest ones.  With kernel callchains (-k) and /proc/kallsyms, samples
 * taken inside a writer that runs with IRQs on are counted: proof that the
 * interrupt writer did nest.
 *
 *   t_nested normal [-r] [-n RECORDS] [-F HZ] [-p PAGES] [-t SECONDS] [-k N]
 *	reader in normal mode, mmap + PMUCTX_IOC_RING_CONSUME (-r: read(2));
 *	runs until the writers produced RECORDS (default 1000000; records
 *	written + lost, all types), 256 pages per CPU
 *   t_nested overwrite [-n RECORDS] [-F HZ] [-p PAGES] [-t SECONDS] [-k N]
 *	overwrite mode; the reader takes SNAPSHOT / parse / RESUME in a loop
 *	while the writers go on, and checks each window from data_tail to
 *	data_head (default 200000 records, 16 pages per CPU)
 *
 * -F: sampling frequency (default: the module parameter max_sample_freq;
 * the VM case raises it); -k: kernel frames per sample (default 8, 0: no
 * callchain); -t: give up (not ok) after SECONDS (default 170).  Prints
 * TAP lines "ok - ..." / "not ok - ..." and "# ..." diagnostics; exits 1
 * on failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuctx.h>

#define NR_EVENTS	1		/* task-clock: SWITCH/EXIT carry 1 value */
#define MAX_STACK	8		/* kernel frames per SAMPLE (-k) */
#define MAX_BAD		12		/* bad records printed in detail */

#include "tap.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int futex_wait(int *addr, int val, long timeout_ns)
{
	struct timespec ts = { timeout_ns / 1000000000L,
			       timeout_ns % 1000000000L };

	return (int)syscall(SYS_futex, addr, FUTEX_WAIT, val,
			    timeout_ns ? &ts : NULL, NULL, 0);
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static int pin_self(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

/* ---- USER record payloads ------------------------------------------------ */

/*
 * Payload of USER record @seq: seq, length, checksum, then a byte pattern.
 * Lengths 16..315 (any value, so the kernel's zero padding is exercised),
 * and every 61st record 1500 bytes: records of 56 to 1544 bytes meet the
 * end of the data area at every offset.
 */
struct upay {
	uint64_t seq;
	uint32_t len;
	uint32_t sum;
	uint8_t b[];
};

#define UPAY_MAX	1500

static uint32_t upay_len(uint64_t seq)
{
	if (seq % 61 == 60)
		return UPAY_MAX;
	return 16 + (uint32_t)(seq * 37 % 300);
}

static uint8_t upay_byte(uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + (i >> 8));
}

/* FNV-1a over seq, len and the pattern bytes */
static uint32_t upay_sum(const struct upay *p)
{
	const uint8_t *b = (const void *)p;
	uint32_t h = 2166136261u, i;

	for (i = 0; i < p->len; i++) {
		if (i >= 12 && i < 16)
			continue;	/* the sum itself */
		h = (h ^ b[i]) * 16777619u;
	}
	return h;
}

static void upay_fill(struct upay *p, uint64_t seq)
{
	uint32_t i;

	p->seq = seq;
	p->len = upay_len(seq);
	for (i = 0; i < p->len - 16; i++)
		p->b[i] = upay_byte(seq, i);
	p->sum = upay_sum(p);
}

/* 0 if @u (a USER record of @size bytes) holds an intact payload */
static const char *upay_check(const struct pmuctx_rec_user *u, uint32_t size,
			      uint64_t *seq)
{
	const struct upay *p = (const void *)u->data;
	uint32_t i;

	if (u->len < 16 || u->len > UPAY_MAX)
		return "USER len out of range";
	if (size != ((sizeof(*u) + u->len + 7) & ~7U))
		return "USER size != header + len, aligned";
	if (u->__pad)
		return "USER __pad not 0";
	for (i = u->len; i < size - sizeof(*u); i++)
		if (u->data[i])
			return "USER padding after len not zero";
	if (p->len != u->len || upay_len(p->seq) != p->len)
		return "USER payload length wrong for its seq";
	if (upay_sum(p) != p->sum)
		return "USER checksum mismatch";
	for (i = 0; i < p->len - 16; i++)
		if (p->b[i] != upay_byte(p->seq, i))
			return "USER pattern mismatch (checksum collided)";
	*seq = p->seq;
	return NULL;
}

/* ---- the writers (child process) --------------------------------------- */

enum { T_PING, T_PONG, T_USER, T_CHURN, T_NR, T_MAIN = T_NR };

struct shared {
	int go;			/* futex: 0 wait, 1 run */
	int stop;
	int turn;		/* ping-pong futex word */
	int flush;		/* futex: 1 final USER record, 2 exit */
	int flushed;		/* final USER record written */
	int ready;		/* threads started */
	int done;		/* threads finished */
	pid_t tgid;
	pid_t tids[T_NR + 1];	/* + the main thread */
	uint64_t attempts;	/* USER write(2) calls = next seq */
	uint64_t user_ok;
	uint64_t user_enospc;
	uint64_t user_other;	/* any other error */
	int user_errno;
	int64_t last_ok;	/* seq of the last accepted USER record */
	uint64_t last_ok_time;	/* CLOCK_MONOTONIC before that write(2) */
	uint64_t pingpongs;
	uint64_t churned;
	uint8_t kids[];		/* bitmap of the churn threads' tids */
};

static struct shared *sh;
static size_t sh_size;
static unsigned int pid_max = 4194304;
static int sess_fd = -1;
static unsigned int max_stack = MAX_STACK;

static void *ping_fn(void *arg)
{
	int me = (int)(long)arg, other = !me;

	__atomic_store_n(&sh->tids[me], gettid(), __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		futex_wait(&sh->go, 0, 0);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&sh->turn, __ATOMIC_ACQUIRE) != me) {
			futex_wait(&sh->turn, other, 5000000);
			continue;
		}
		__atomic_store_n(&sh->turn, other, __ATOMIC_RELEASE);
		futex_wake(&sh->turn);
		if (me == T_PING)
			__atomic_fetch_add(&sh->pingpongs, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int put_user_rec(uint64_t seq)
{
	static uint64_t buf[(sizeof(struct upay) + UPAY_MAX) / 8 + 1];
	struct upay *p = (void *)buf;
	ssize_t n;

	upay_fill(p, seq);
	n = write(sess_fd, p, p->len);
	if (n == (ssize_t)p->len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/* one USER record of sequence number sh->attempts, with the counters */
static void user_write(void)
{
	uint64_t seq = sh->attempts, t = now_ns();
	int e = put_user_rec(seq);

	if (!e) {
		/* seq first: a reader loading the time first gets an older
		 * (smaller) time than the seq it then loads
		 */
		__atomic_store_n(&sh->last_ok, (int64_t)seq, __ATOMIC_RELEASE);
		__atomic_store_n(&sh->last_ok_time, t, __ATOMIC_RELEASE);
		sh->user_ok++;
	} else if (e == -ENOSPC) {
		sh->user_enospc++;
	} else {
		sh->user_other++;
		sh->user_errno = -e;
	}
	__atomic_store_n(&sh->attempts, seq + 1, __ATOMIC_RELEASE);
}

static void *user_fn(void *arg)
{
	(void)arg;
	__atomic_store_n(&sh->tids[T_USER], gettid(), __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		futex_wait(&sh->go, 0, 0);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
		user_write();
	return NULL;
}

static void *nop_fn(void *arg)
{
	pid_t tid = gettid();

	if ((unsigned int)tid < pid_max)
		__atomic_fetch_or(&sh->kids[tid / 8], 1U << (tid % 8),
				  __ATOMIC_RELAXED);
	return arg;
}

static void *churn_fn(void *arg)
{
	pthread_t t;

	(void)arg;
	__atomic_store_n(&sh->tids[T_CHURN], gettid(), __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		futex_wait(&sh->go, 0, 0);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		if (pthread_create(&t, NULL, nop_fn, NULL))
			break;
		pthread_join(t, NULL);
		sh->churned++;
		/* a few per ms: FORK/EXIT records, not a fork storm */
		sleep_us(200);
	}
	return NULL;
}

static int child_main(int cpu)
{
	pthread_t th[T_NR];
	int i;

	if (pin_self(cpu))
		_exit(10);
	sh->tgid = getpid();
	sh->tids[T_MAIN] = gettid();
	pthread_create(&th[T_PING], NULL, ping_fn, (void *)(long)T_PING);
	pthread_create(&th[T_PONG], NULL, ping_fn, (void *)(long)T_PONG);
	pthread_create(&th[T_USER], NULL, user_fn, NULL);
	pthread_create(&th[T_CHURN], NULL, churn_fn, NULL);
	for (i = 0; i < T_NR; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	/*
	 * Once the reader drained everything: one last USER record, which
	 * also brings out a LOST record still pending.  Then wait for the
	 * order to exit.
	 */
	while (!__atomic_load_n(&sh->flush, __ATOMIC_ACQUIRE))
		futex_wait(&sh->flush, 0, 0);
	user_write();
	__atomic_store_n(&sh->flushed, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&sh->flush, __ATOMIC_ACQUIRE) != 2)
		futex_wait(&sh->flush, 1, 0);
	_exit(0);
}

/* ---- where the samples hit ------------------------------------------------ */

/*
 * The module's writers that run with IRQs on between reserve and commit
 * (preemption off): a SAMPLE whose interrupted ip or kernel callchain is
 * inside one of them interrupted that writer, almost always between its
 * reserve and its commit (IRQs are off inside both), so it nested.
 */
static const char *const nest_fns[] = {
	"pmuctx_ring_user", "pmuctx_ring_fork", "pmuctx_ring_exit",
	"pmuctx_ring_comm",
};
#define NR_NEST_FNS	(sizeof(nest_fns) / sizeof(nest_fns[0]))

static struct { uint64_t lo, hi; } nest_range[NR_NEST_FNS];
static uint64_t nest_hits[NR_NEST_FNS];
static bool have_ranges;

static void load_ranges(void)
{
	uint64_t addr, next, starts[NR_NEST_FNS] = { 0 };
	char line[512], name[256], type;
	unsigned int i;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	/* each function ends where the next module symbol starts */
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[pmuctx]") ||
		    sscanf(line, "%llx %c %255s", (unsigned long long *)&addr,
			   &type, name) != 3 || !addr)
			continue;
		for (i = 0; i < NR_NEST_FNS; i++)
			if (!strcmp(name, nest_fns[i]))
				starts[i] = addr;
	}
	for (i = 0; i < NR_NEST_FNS; i++) {
		if (!starts[i])
			continue;
		rewind(f);
		next = ~0ULL;
		while (fgets(line, sizeof(line), f)) {
			if (!strstr(line, "[pmuctx]") ||
			    sscanf(line, "%llx", (unsigned long long *)&addr) != 1)
				continue;
			if (addr > starts[i] && addr < next)
				next = addr;
		}
		nest_range[i].lo = starts[i];
		nest_range[i].hi = next;
		have_ranges = true;
	}
	fclose(f);
}

static void count_nested(const struct pmuctx_rec_sample *s)
{
	unsigned int i, j;

	for (j = 0; j < s->nr_kernel; j++)
		for (i = 0; i < NR_NEST_FNS; i++)
			if (s->ips[j] >= nest_range[i].lo &&
			    s->ips[j] < nest_range[i].hi) {
				nest_hits[i]++;
				return;
			}
}

static uint64_t nested_total(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < NR_NEST_FNS; i++)
		n += nest_hits[i];
	return n;
}

/* ---- the reader: record checks --------------------------------------------- */

struct chk {
	/* configuration */
	bool overwrite;
	uint64_t period_ns;	/* sampling period: THROTTLE bounds */
	/* counts */
	uint64_t n[PMUCTX_REC_MAX + 1];
	uint64_t bytes;
	uint64_t records;	/* all but PAD and LOST */
	uint64_t lost_sum;	/* sum of LOST records */
	uint64_t bad;
	uint64_t inversions;
	uint64_t max_inversion;
	uint64_t foreign_cpu;	/* records in another CPU's buffer */
	/* USER sequence */
	uint64_t user_next;
	uint64_t user_gaps;
	uint64_t debt;		/* normal: gaps whose LOST comes later */
	uint64_t late_lost;	/* such gaps */
	uint64_t lost_since_user;
	uint64_t last_user_seq;
	bool have_user;
	uint64_t win_first_time;	/* time of a window's first record */
};

struct cpu_rd {
	uint64_t tail;		/* normal mode: our consumed position */
	uint64_t last_time;
	bool have_time;
};

static int pinned_cpu;
static unsigned int nr_cpus;
static size_t page_sz;
static uint32_t ring_pages;
static uint8_t *map_base;
static struct cpu_rd *cpus_rd;

static struct pmuctx_ring_ctl *ctl_of(unsigned int cpu)
{
	return (void *)(map_base + (size_t)cpu * (1 + ring_pages) * page_sz);
}

/* tids seen in records that are not the fixed threads (churned ones) */
static uint8_t *unknown_tids;

static bool tid_ok(int32_t tid)
{
	int i;

	for (i = 0; i <= T_MAIN; i++)
		if (tid == sh->tids[i])
			return true;
	/* a churn thread: checked against sh->kids at the end */
	if (tid <= 0 || (unsigned int)tid >= pid_max)
		return false;
	unknown_tids[tid / 8] |= (uint8_t)(1U << (tid % 8));
	return true;
}

/* tids seen that no churn thread of ours had */
static uint64_t strangers(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < pid_max / 8; i++)
		n += (uint64_t)__builtin_popcount(unknown_tids[i] &
						  (uint8_t)~sh->kids[i]);
	return n;
}

static void bad_rec(struct chk *k, unsigned int cpu, uint64_t pos,
		    const struct pmuctx_rec_header *h, const char *why)
{
	k->bad++;
	if (k->bad <= MAX_BAD)
		diag("bad record on CPU %u at %llu: type %u size %u misc 0x%x: "
		     "%s", cpu, (unsigned long long)pos, h->type, h->size,
		     h->misc, why);
}

/* checks of one non-PAD record; NULL if fine */
static const char *check_rec(struct chk *k, unsigned int cpu,
			     const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = (const void *)(h + 1);
	uint32_t size = h->size;
	const char *why;
	uint64_t seq;

	if (size < sizeof(*h) + sizeof(*c))
		return "smaller than header + common part";
	if (c->cpu != cpu)
		return "common.cpu is not the buffer's CPU";
	if (c->__pad)
		return "common.__pad not 0";
	if (cpu != (unsigned int)pinned_cpu && h->type != PMUCTX_REC_COMM &&
	    h->type != PMUCTX_REC_LOST)
		k->foreign_cpu++;
	switch (h->type) {
	case PMUCTX_REC_LOST: {
		const struct pmuctx_rec_lost *l = (const void *)h;

		if (size != sizeof(*l))
			return "LOST size";
		if (!l->lost || c->pid || c->tid || h->misc)
			return "LOST fields";
		k->lost_sum += l->lost;
		if (k->debt >= l->lost) {
			k->debt -= l->lost;
		} else {
			k->lost_since_user += l->lost - k->debt;
			k->debt = 0;
		}
		return NULL;
	}
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *w = (const void *)h;

		if (w->nr != NR_EVENTS ||
		    size != ((sizeof(*w) + 8 * NR_EVENTS + 7) & ~7U))
			return "SWITCH size/nr";
		if (c->pid != sh->tgid || !tid_ok(c->tid))
			return "SWITCH prev is not one of our threads";
		if (h->misc & ~PMUCTX_SWITCH_PREEMPT)
			return "SWITCH misc";
		if (w->prev_state > 0xffff)
			return "SWITCH prev_state";
		if (w->delta[0] > 600000000000ULL)
			return "SWITCH task-clock delta > 600 s";
		if (w->next_pid < 0 || w->next_tid < 0)
			return "SWITCH next pid";
		return NULL;
	}
	case PMUCTX_REC_SAMPLE: {
		const struct pmuctx_rec_sample *s = (const void *)h;

		if (size != sizeof(*s) + 8U * (s->nr_kernel + s->nr_user))
			return "SAMPLE size != header + ips";
		if (s->nr_user || s->nr_kernel > max_stack || s->cookie ||
		    s->__pad)
			return "SAMPLE nr_user/nr_kernel/cookie/__pad";
		if (h->misc & ~(PMUCTX_SAMPLE_M_USER |
				PMUCTX_SAMPLE_M_KERNEL_TRUNC |
				PMUCTX_SAMPLE_M_KADDR_HIDDEN))
			return "SAMPLE misc";
		if (c->pid != sh->tgid || !tid_ok(c->tid))
			return "SAMPLE task is not one of our threads";
		if (!s->period || s->period > 60000000000ULL)
			return "SAMPLE period";
		if (!s->ip && !(h->misc & PMUCTX_SAMPLE_M_KADDR_HIDDEN))
			return "SAMPLE ip 0";
		if (have_ranges)
			count_nested(s);
		return NULL;
	}
	case PMUCTX_REC_THROTTLE: {
		const struct pmuctx_rec_throttle *t = (const void *)h;

		if (size != sizeof(*t) || c->pid || c->tid)
			return "THROTTLE size/pid";
		/*
		 * The global sample budget refused samples (20 kHz with
		 * stack walks can cost more than sample_cpu_percent of an
		 * emulated CPU): ON|BUDGET, how many, the budget's period.
		 */
		if (h->misc == (PMUCTX_THROTTLE_ON | PMUCTX_THROTTLE_BUDGET))
			return t->dropped && t->period_ns ? NULL :
			       "THROTTLE BUDGET without dropped or period";
		if (h->misc > PMUCTX_THROTTLE_ON || t->dropped)
			return "THROTTLE misc/dropped";
		if (t->period_ns < k->period_ns ||
		    t->period_ns > 1000000000ULL / 10)
			return "THROTTLE period out of range";
		return NULL;
	}
	case PMUCTX_REC_USER: {
		const struct pmuctx_rec_user *u = (const void *)h;

		if (c->pid != sh->tgid || (c->tid != sh->tids[T_USER] &&
					   c->tid != sh->tids[T_MAIN]))
			return "USER pid/tid is not a writer thread";
		why = upay_check(u, size, &seq);
		if (why)
			return why;
		if (k->have_user && seq < k->user_next)
			return "USER seq out of order (or repeated)";
		/*
		 * Gaps: records refused with ENOSPC.  The LOST record comes
		 * with the next record that has room for it too, normally
		 * before the next USER record; in normal mode it may come
		 * later (room for the record alone), so there the cover may
		 * be owed until the end.  A window of overwrite mode starts
		 * anywhere: gaps count from its first USER record.
		 */
		if (k->have_user || !k->overwrite) {
			uint64_t gap = seq - k->user_next;

			k->user_gaps += gap;
			if (gap > k->lost_since_user) {
				if (k->overwrite) {
					diag("USER seq %llu after %llu: LOST "
					     "since then %llu",
					     (unsigned long long)seq,
					     (unsigned long long)k->user_next,
					     (unsigned long long)
					     k->lost_since_user);
					return "USER gap not covered by LOST "
					       "records";
				}
				k->debt += gap - k->lost_since_user;
				k->late_lost++;
			}
		}
		k->have_user = true;
		k->user_next = seq + 1;
		k->last_user_seq = seq;
		k->lost_since_user = 0;
		return NULL;
	}
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *f = (const void *)h;

		if (size != sizeof(*f) || c->pid != sh->tgid ||
		    f->child_pid != sh->tgid || f->child_tid <= 0)
			return "FORK fields";
		return NULL;
	}
	case PMUCTX_REC_EXIT: {
		const struct pmuctx_rec_exit *x = (const void *)h;

		if (x->nr != NR_EVENTS ||
		    size != ((sizeof(*x) + 8 * NR_EVENTS + 7) & ~7U) ||
		    c->pid != sh->tgid || x->__pad)
			return "EXIT fields";
		return NULL;
	}
	case PMUCTX_REC_COMM: {
		const struct pmuctx_rec_comm *m = (const void *)h;

		if (size != sizeof(*m) || c->pid != sh->tgid ||
		    !memchr(m->comm, 0, sizeof(m->comm)))
			return "COMM fields";
		return NULL;
	}
	default:
		return "type not expected in this session";
	}
}

/*
 * Parse [@tail, @head) of @cpu's buffer.  Returns the position parsing
 * stopped at (= @head unless a record was bad, then the rest is skipped).
 */
static uint64_t parse(struct chk *k, unsigned int cpu, uint64_t tail,
		      uint64_t head)
{
	struct pmuctx_ring_ctl *ctl = ctl_of(cpu);
	const uint8_t *data = (const uint8_t *)ctl + ctl->data_offset;
	uint64_t ds = ctl->data_size, pos = tail;
	struct cpu_rd *cr = &cpus_rd[cpu];
	const char *why;

	if (head - tail > ds) {
		k->bad++;
		diag("CPU %u: head %llu - tail %llu > data_size", cpu,
		     (unsigned long long)head, (unsigned long long)tail);
		return head;
	}
	while (pos < head) {
		uint64_t off = pos & (ds - 1);
		const struct pmuctx_rec_header *h = (const void *)(data + off);
		struct pmuctx_rec_header hc;
		const struct pmuctx_rec_common *c;

		if (pos & 7 || off + sizeof(*h) > ds) {
			k->bad++;
			diag("CPU %u: position %llu unaligned", cpu,
			     (unsigned long long)pos);
			return head;
		}
		hc = *h;
		if (!hc.type || hc.type > PMUCTX_REC_MAX || hc.size < 8 ||
		    hc.size & 7 || off + hc.size > ds ||
		    pos + hc.size > head) {
			bad_rec(k, cpu, pos, &hc, "unknown type, or size not "
				"a multiple of 8 / out of bounds");
			return head;
		}
		if (hc.type == PMUCTX_REC_PAD) {
			if (off + hc.size != ds || hc.misc)
				bad_rec(k, cpu, pos, &hc, "PAD does not end at "
					"the end of the data area");
			k->n[PMUCTX_REC_PAD]++;
			pos += ds - off;
			continue;
		}
		if (hc.size > ds / 2) {
			bad_rec(k, cpu, pos, &hc, "larger than half the buffer");
			return head;
		}
		why = check_rec(k, cpu, h);
		if (why)
			bad_rec(k, cpu, pos, &hc, why);
		k->n[hc.type]++;
		k->bytes += hc.size;
		if (hc.type != PMUCTX_REC_LOST)
			k->records++;
		c = (const void *)(h + 1);
		if (!cr->have_time)
			k->win_first_time = c->time;
		if (cr->have_time && c->time < cr->last_time) {
			uint64_t d = cr->last_time - c->time;

			k->inversions++;
			if (d > k->max_inversion)
				k->max_inversion = d;
			if (k->inversions <= 5)
				diag("CPU %u: time goes back %llu ns at a %u "
				     "record (pos %llu)", cpu,
				     (unsigned long long)d, hc.type,
				     (unsigned long long)pos);
		}
		cr->last_time = c->time;
		cr->have_time = true;
		pos += hc.size;
	}
	return pos;
}

/* ---- session ------------------------------------------------------------ */

static int create_session(pid_t pid, uint32_t mode, uint32_t freq)
{
	struct pmuctx_session_attr a;
	size_t len;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = PMUCTX_SESSION_INHERIT;
	a.target = PMUCTX_TARGET_PID;
	a.pid = pid;
	a.cgroup_fd = -1;
	a.nr_events = NR_EVENTS;
	a.events[0] = PMUCTX_EV_TASK_CLOCK;
	a.ring_pages = ring_pages;
	a.ring_mode = mode;
	a.ring_records = PMUCTX_REC_MASK_SWITCH | PMUCTX_REC_MASK_FORK |
			 PMUCTX_REC_MASK_EXIT | PMUCTX_REC_MASK_COMM;
	a.wakeup_bytes = mode == PMUCTX_RING_NORMAL ?
			 ring_pages * (uint32_t)page_sz / 8 : 0;
	a.sample_freq = freq;
	a.sample_flags = max_stack ? PMUCTX_SAMPLE_KERNEL_STACK : 0;
	a.sample_max_stack = max_stack;
	if (ioctl(sess_fd, PMUCTX_IOC_SESSION_CREATE, &a)) {
		diag("SESSION_CREATE: %s", strerror(errno));
		return -1;
	}
	len = (size_t)nr_cpus * (1 + ring_pages) * page_sz;
	map_base = mmap(NULL, len, PROT_READ, MAP_SHARED, sess_fd, 0);
	if (map_base == MAP_FAILED) {
		diag("mmap: %s", strerror(errno));
		return -1;
	}
	if (ioctl(sess_fd, PMUCTX_IOC_ENABLE, 0)) {
		diag("ENABLE: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void consume(unsigned int cpu, uint64_t tail)
{
	struct pmuctx_ring_consume rc = {
		.size = sizeof(rc), .cpu = cpu, .tail = tail,
	};

	if (ioctl(sess_fd, PMUCTX_IOC_RING_CONSUME, &rc))
		diag("RING_CONSUME cpu %u tail %llu: %s", cpu,
		     (unsigned long long)tail, strerror(errno));
}

/* counters of every CPU: records written, lost, overwritten */
static void totals(uint64_t *rec, uint64_t *lost, uint64_t *over)
{
	unsigned int c;

	*rec = *lost = 0;
	if (over)
		*over = 0;
	for (c = 0; c < nr_cpus; c++) {
		const struct pmuctx_ring_ctl *ctl = ctl_of(c);

		*rec += __atomic_load_n(&ctl->records, __ATOMIC_RELAXED);
		*lost += __atomic_load_n(&ctl->lost, __ATOMIC_RELAXED);
		if (over)
			*over += __atomic_load_n(&ctl->overwritten,
						 __ATOMIC_RELAXED);
	}
}

/* normal mode: read everything there is on every CPU, consume it */
static void drain(struct chk *k)
{
	unsigned int c;

	for (c = 0; c < nr_cpus; c++) {
		struct pmuctx_ring_ctl *ctl = ctl_of(c);
		uint64_t head = __atomic_load_n(&ctl->data_head,
						__ATOMIC_ACQUIRE);
		uint64_t tail = cpus_rd[c].tail, end;

		if (head == tail)
			continue;
		end = parse(k, c, tail, head);
		(void)end;
		consume(c, head);
		cpus_rd[c].tail = head;
	}
}

/* read(2) variant of drain(): whole records, all CPUs */
static bool drain_read(struct chk *k)
{
	static uint64_t buf[256 * 1024 / 8];
	bool any = false;

	for (;;) {
		ssize_t n = read(sess_fd, buf, sizeof(buf));
		const uint8_t *p = (const void *)buf;
		ssize_t off = 0;

		if (n < 0) {
			if (errno != EAGAIN)
				diag("read: %s", strerror(errno));
			return any;
		}
		any = true;
		while (off < n) {
			const struct pmuctx_rec_header *h = (const void *)(p + off);
			const struct pmuctx_rec_common *c = (const void *)(h + 1);
			struct cpu_rd *cr;
			const char *why;

			if (h->size < 32 || h->size & 7 || off + h->size > n ||
			    !h->type || h->type > PMUCTX_REC_MAX ||
			    h->type == PMUCTX_REC_PAD || c->cpu >= nr_cpus) {
				bad_rec(k, 0, (uint64_t)off, h, "read(2): bad "
					"header");
				break;
			}
			why = check_rec(k, c->cpu, h);
			if (why)
				bad_rec(k, c->cpu, (uint64_t)off, h, why);
			k->n[h->type]++;
			k->bytes += h->size;
			if (h->type != PMUCTX_REC_LOST)
				k->records++;
			cr = &cpus_rd[c->cpu];
			if (cr->have_time && c->time < cr->last_time) {
				k->inversions++;
				if (cr->last_time - c->time > k->max_inversion)
					k->max_inversion = cr->last_time -
							   c->time;
			}
			cr->last_time = c->time;
			cr->have_time = true;
			off += h->size;
		}
	}
}

/* ---- main ----------------------------------------------------------------- */

struct opts {
	bool overwrite;
	bool use_read;
	uint64_t target;
	uint32_t freq;
	uint32_t pages;
	unsigned int seconds;
};

static void print_counts(const char *what, const struct chk *k)
{
	diag("%s: SWITCH %llu, SAMPLE %llu, USER %llu, FORK %llu, EXIT %llu, "
	     "COMM %llu, THROTTLE %llu, LOST %llu (sum %llu), PAD %llu; %llu "
	     "bytes", what,
	     (unsigned long long)k->n[PMUCTX_REC_SWITCH],
	     (unsigned long long)k->n[PMUCTX_REC_SAMPLE],
	     (unsigned long long)k->n[PMUCTX_REC_USER],
	     (unsigned long long)k->n[PMUCTX_REC_FORK],
	     (unsigned long long)k->n[PMUCTX_REC_EXIT],
	     (unsigned long long)k->n[PMUCTX_REC_COMM],
	     (unsigned long long)k->n[PMUCTX_REC_THROTTLE],
	     (unsigned long long)k->n[PMUCTX_REC_LOST],
	     (unsigned long long)k->lost_sum,
	     (unsigned long long)k->n[PMUCTX_REC_PAD],
	     (unsigned long long)k->bytes);
}

static unsigned int read_uint(const char *path, unsigned int dflt)
{
	unsigned int v;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%u", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static void stop_writers(void)
{
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	futex_wake(&sh->turn);
}

/* normal mode: everything readable now, by the chosen path */
static void read_all(struct chk *k, const struct opts *o)
{
	if (o->use_read)
		drain_read(k);
	else
		drain(k);
}

struct ow_stats {
	uint64_t bad;		/* windows not parsed cleanly */
	uint64_t old;		/* windows missing the newest USER record */
	uint64_t shorter;	/* wrapped windows under half the buffer */
};

/*
 * Overwrite mode: SNAPSHOT, check every CPU's window from data_tail to
 * data_head, RESUME.  Returns -1 if an ioctl failed.
 */
static int snapshot(struct chk *k, struct ow_stats *ow)
{
	uint64_t ok_time = __atomic_load_n(&sh->last_ok_time, __ATOMIC_ACQUIRE);
	int64_t last_ok = __atomic_load_n(&sh->last_ok, __ATOMIC_ACQUIRE);
	unsigned int c;

	if (ioctl(sess_fd, PMUCTX_IOC_SNAPSHOT, 0)) {
		diag("SNAPSHOT: %s", strerror(errno));
		return -1;
	}
	for (c = 0; c < nr_cpus; c++) {
		struct pmuctx_ring_ctl *ctl = ctl_of(c);
		uint64_t h = ctl->data_head, t = ctl->data_tail;
		uint64_t bad0 = k->bad, end;

		if (!(ctl->flags & PMUCTX_RING_F_FROZEN))
			ow->bad++;
		cpus_rd[c].have_time = false;
		k->have_user = false;
		k->lost_since_user = 0;
		end = parse(k, c, t, h);
		if (end != h || k->bad != bad0) {
			ow->bad++;
			continue;
		}
		if (c != (unsigned int)pinned_cpu)
			continue;
		/*
		 * The window holds the newest records: USER record last_ok,
		 * accepted before the SNAPSHOT, or (evicted by newer
		 * records, e.g. a run of SWITCH records while the USER
		 * writer waited for the CPU) only records written after
		 * that write(2) began.
		 */
		if (last_ok >= 0 && (!k->have_user ||
				     k->last_user_seq < (uint64_t)last_ok) &&
		    (h == t || k->win_first_time < ok_time)) {
			ow->old++;
			if (ow->old <= 5)
				diag("window [%llu, %llu) of CPU %u from %llu "
				     "ns: last USER %lld, but %lld (written "
				     "from %llu ns) was accepted before the "
				     "SNAPSHOT", (unsigned long long)t,
				     (unsigned long long)h, c,
				     (unsigned long long)k->win_first_time,
				     k->have_user ? (long long)k->last_user_seq :
				     -1LL, (long long)last_ok,
				     (unsigned long long)ok_time);
		}
		/* a wrapped buffer keeps at least half */
		if (ctl->overwritten && (h - t) * 2 < ctl->data_size)
			ow->shorter++;
	}
	if (ioctl(sess_fd, PMUCTX_IOC_RESUME, 0)) {
		diag("RESUME: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int run(const struct opts *o)
{
	struct chk k = { .overwrite = o->overwrite };
	uint64_t t0, t_stop = 0, rec, lost, over, produced = 0;
	struct ow_stats ow = { 0 };
	uint64_t snaps = 0;
	bool final_ok = false;
	const char *mode = o->overwrite ? "overwrite" : "normal";
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], nc = 0, i, st = 0;
	bool timed_out = false;
	pid_t pid;

	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &allowed))
			cpus[nc++] = i;
	/* writers on the last CPU, the reader on the first one */
	pinned_cpu = cpus[nc - 1];
	pin_self(cpus[0]);
	ring_pages = o->pages;
	k.period_ns = 1000000000ULL / o->freq;
	load_ranges();

	sess_fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (sess_fd < 0) {
		result(0, "%s: open %s: %s", mode, PMUCTX_DEVICE_PATH,
		       strerror(errno));
		return 1;
	}
	pid_max = read_uint("/proc/sys/kernel/pid_max", 4194304);
	sh_size = sizeof(*sh) + pid_max / 8 + 1;
	sh = mmap(NULL, sh_size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unknown_tids = calloc(pid_max / 8 + 1, 1);
	cpus_rd = calloc(nr_cpus, sizeof(*cpus_rd));
	if (sh == MAP_FAILED || !unknown_tids || !cpus_rd) {
		result(0, "memory: %s", strerror(errno));
		return 1;
	}
	sh->last_ok = -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child_main(pinned_cpu);
	while (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < T_NR &&
	       !waitpid(pid, &st, WNOHANG))
		sleep_us(1000);
	if (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < T_NR ||
	    create_session(pid, o->overwrite ? PMUCTX_RING_OVERWRITE :
			   PMUCTX_RING_NORMAL, o->freq)) {
		result(0, "%s: writer process and session", mode);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	diag("%s: writers (tgid %d: ping %d, pong %d, write(2) %d, churn %d) "
	     "on CPU %d, reader on CPU %d; %u pages per CPU, sampling at %u "
	     "Hz, target %llu records, reader %s", mode, sh->tgid,
	     sh->tids[T_PING], sh->tids[T_PONG], sh->tids[T_USER],
	     sh->tids[T_CHURN], pinned_cpu, cpus[0], ring_pages, o->freq,
	     (unsigned long long)o->target,
	     o->overwrite ? "SNAPSHOT/RESUME" :
	     o->use_read ? "read(2)" : "mmap + RING_CONSUME");
	if (o->use_read)
		fcntl(sess_fd, F_SETFL, O_NONBLOCK);
	t0 = now_ns();
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	futex_wake(&sh->go);

	for (;;) {
		bool stopped = __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE);

		if (!o->overwrite) {
			struct pollfd pfd = { .fd = sess_fd, .events = POLLIN };

			poll(&pfd, 1, 20);
			read_all(&k, o);
		} else {
			sleep_us(2000 + (unsigned int)(snaps * 7919 % 20000));
			if (snapshot(&k, &ow)) {
				ow.bad++;
				break;
			}
			snaps++;
		}
		totals(&rec, &lost, NULL);
		produced = rec + lost;
		if (!stopped && (produced >= o->target ||
				 now_ns() - t0 > o->seconds * 1000000000ULL)) {
			timed_out = produced < o->target;
			t_stop = now_ns();
			stop_writers();
		}
		if (stopped && __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE))
			break;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			diag("the writer process ended early (status 0x%x)", st);
			pid = -1;
			break;
		}
	}
	if (pid > 0) {
		/*
		 * Writers done: read what is left, then the final USER record
		 * (which also brings out a LOST record still pending), then
		 * the exit; read again once nothing writes any more.
		 */
		if (!o->overwrite)
			read_all(&k, o);
		__atomic_store_n(&sh->flush, 1, __ATOMIC_RELEASE);
		futex_wake(&sh->flush);
		while (!__atomic_load_n(&sh->flushed, __ATOMIC_ACQUIRE) &&
		       waitpid(pid, &st, WNOHANG) != pid)
			sleep_us(1000);
		__atomic_store_n(&sh->flush, 2, __ATOMIC_RELEASE);
		futex_wake(&sh->flush);
		waitpid(pid, &st, 0);
	}
	if (!o->overwrite) {
		read_all(&k, o);
	} else {
		/* the last window ends with the final USER record */
		if (snapshot(&k, &ow))
			ow.bad++;
		final_ok = k.have_user &&
			   k.last_user_seq + 1 == sh->attempts;
	}
	totals(&rec, &lost, &over);
	produced = rec + lost;

	diag("%s: %.1f s of writing, %llu ping-pongs, %llu threads churned, "
	     "%llu write(2): %llu ok, %llu ENOSPC, %llu other errors", mode,
	     (t_stop ? t_stop - t0 : now_ns() - t0) / 1e9,
	     (unsigned long long)sh->pingpongs,
	     (unsigned long long)sh->churned,
	     (unsigned long long)sh->attempts,
	     (unsigned long long)sh->user_ok,
	     (unsigned long long)sh->user_enospc,
	     (unsigned long long)sh->user_other);
	diag("%s: kernel counters: records %llu, lost %llu, overwritten %llu",
	     mode, (unsigned long long)rec, (unsigned long long)lost,
	     (unsigned long long)over);
	print_counts(o->overwrite ? "records checked in all windows" :
		     "records read", &k);
	if (have_ranges)
		diag("%s: SAMPLE records taken inside a writer with IRQs on "
		     "(nested between its reserve and commit, or just "
		     "outside): %s %llu, %s %llu, %s %llu, %s %llu", mode,
		     nest_fns[0], (unsigned long long)nest_hits[0],
		     nest_fns[1], (unsigned long long)nest_hits[1],
		     nest_fns[2], (unsigned long long)nest_hits[2],
		     nest_fns[3], (unsigned long long)nest_hits[3]);

	result(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !sh->user_other,
	       "%s: writer process ran and exited cleanly (status 0x%x, "
	       "write(2) errors other than ENOSPC: %llu %s)", mode, st,
	       (unsigned long long)sh->user_other,
	       sh->user_other ? strerror(sh->user_errno) : "");
	result(!timed_out, "%s: the writers produced %llu records (records + "
	       "lost), at least %llu, within %u s", mode,
	       (unsigned long long)produced, (unsigned long long)o->target,
	       o->seconds);
	result(k.n[PMUCTX_REC_SWITCH] && k.n[PMUCTX_REC_SAMPLE] &&
	       k.n[PMUCTX_REC_USER] && k.n[PMUCTX_REC_FORK] &&
	       k.n[PMUCTX_REC_EXIT], "%s: SWITCH, SAMPLE, USER, FORK and EXIT "
	       "records all seen", mode);
	if (have_ranges && max_stack && k.n[PMUCTX_REC_SAMPLE] >= 2000)
		result(nested_total() > 0, "%s: the sampling interrupt hit "
		       "the other writers: %llu of %llu samples inside one",
		       mode, (unsigned long long)nested_total(),
		       (unsigned long long)k.n[PMUCTX_REC_SAMPLE]);
	result(!k.bad, "%s: no corrupted record: known types, sizes multiple "
	       "of 8 and in bounds, PAD to the end, per-type layout, common "
	       "part (cpu, pid/tid), USER checksums and order (%llu bad)",
	       mode, (unsigned long long)k.bad);
	result(!k.foreign_cpu, "%s: all records of the pinned writers are in "
	       "CPU %d's buffer (%llu elsewhere)", mode, pinned_cpu,
	       (unsigned long long)k.foreign_cpu);
	result(!strangers(), "%s: every tid in SWITCH/SAMPLE/EXIT records is "
	       "one of the writer process's threads (%llu others)", mode,
	       (unsigned long long)strangers());
	result(!k.inversions, "%s: timestamps non-decreasing within each "
	       "CPU's stream (%llu inversions, largest %llu ns)", mode,
	       (unsigned long long)k.inversions,
	       (unsigned long long)k.max_inversion);
	if (!o->overwrite) {
		uint64_t user_lost = sh->attempts - k.n[PMUCTX_REC_USER];

		result(k.records == rec, "normal: records read (%llu) = the "
		       "kernel's records counter (%llu)",
		       (unsigned long long)k.records, (unsigned long long)rec);
		result(k.lost_sum == lost && rec + lost == produced,
		       "normal: LOST records add up to the lost counter (%llu "
		       "= %llu): lost = written - read exactly",
		       (unsigned long long)k.lost_sum,
		       (unsigned long long)lost);
		result(user_lost == sh->user_enospc &&
		       k.user_gaps + (sh->attempts - k.user_next) ==
		       user_lost,
		       "normal: USER: %llu written, %llu read, %llu lost = "
		       "ENOSPC returned (%llu) = sequence gaps (%llu)",
		       (unsigned long long)sh->attempts,
		       (unsigned long long)k.n[PMUCTX_REC_USER],
		       (unsigned long long)user_lost,
		       (unsigned long long)sh->user_enospc,
		       (unsigned long long)(k.user_gaps + sh->attempts -
					    k.user_next));
		result(!k.debt, "normal: every USER gap is covered by LOST "
		       "records (%llu gaps covered only by a later LOST record, "
		       "%llu records not covered)",
		       (unsigned long long)k.late_lost,
		       (unsigned long long)k.debt);
		if (lost)
			diag("normal: %llu records lost: the reader did not "
			     "keep up (accounted for exactly, which is what "
			     "is checked)", (unsigned long long)lost);
	} else {
		result(snaps >= 10 && !ow.bad, "overwrite: %llu snapshots "
		       "while writing, every window parsed from data_tail to "
		       "data_head in complete records, FROZEN set (%llu bad)",
		       (unsigned long long)snaps, (unsigned long long)ow.bad);
		result(!ow.old, "overwrite: every window holds the newest "
		       "records: the last USER record accepted before the "
		       "SNAPSHOT, or only newer ones (%llu did not)",
		       (unsigned long long)ow.old);
		result(!ow.shorter, "overwrite: every window of a wrapped "
		       "buffer keeps at least half of it (%llu did not)",
		       (unsigned long long)ow.shorter);
		result(final_ok, "overwrite: the last window ends with the "
		       "last USER record written (seq %llu; got %llu)",
		       (unsigned long long)(sh->attempts - 1),
		       (unsigned long long)k.last_user_seq);
	}
	munmap(map_base, (size_t)nr_cpus * (1 + ring_pages) * page_sz);
	close(sess_fd);
	return failures ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: t_nested normal|overwrite [-r] [-n RECORDS] "
		"[-F HZ] [-p PAGES] [-t SECONDS] [-k FRAMES]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct pmuctx_info info;
	struct opts o = { .pages = 256, .seconds = 170 };
	int fd, opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "overwrite"))
		o.overwrite = true;
	else if (strcmp(argv[1], "normal"))
		usage();
	o.target = o.overwrite ? 200000 : 1000000;
	if (o.overwrite)
		o.pages = 16;
	optind = 2;
	while ((opt = getopt(argc, argv, "rn:F:p:t:k:")) != -1) {
		switch (opt) {
		case 'k': max_stack = (unsigned int)atoi(optarg); break;
		case 'r': o.use_read = true; break;
		case 'n': o.target = strtoull(optarg, NULL, 0); break;
		case 'F': o.freq = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p': o.pages = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': o.seconds = (unsigned int)atoi(optarg); break;
		default: usage();
		}
	}
	if (!o.freq)
		o.freq = read_uint("/sys/module/pmuctx/parameters/"
				   "max_sample_freq", 10000);
	page_sz = (size_t)sysconf(_SC_PAGESIZE);
	fd = open(PMUCTX_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (fd < 0 || ioctl(fd, PMUCTX_IOC_INFO, &info)) {
		printf("not ok - %s: %s\n", PMUCTX_DEVICE_PATH,
		       strerror(errno));
		return 1;
	}
	close(fd);
	nr_cpus = info.nr_cpus;
	if (!(info.features & PMUCTX_FEAT_SAMPLING)) {
		printf("not ok - the module has no sampling (features 0x%llx)\n",
		       (unsigned long long)info.features);
		return 1;
	}
	return run(&o);
}
