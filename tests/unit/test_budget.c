// SPDX-License-Identifier: GPL-2.0
/*
 * module/budget.c on the host: the global sample budget, compiled as the
 * module compiles it (against kshim/), driven by simulated sessions on a
 * simulated clock.  Each session asks as one of the module's two sources
 * does (module/sample.c): the hrtimer takes directly; a counter's
 * overflow (NMI) looks first (pmuctx_budget_may()) and its irq_work takes.
 * Deterministic: the same phases give the same windows every run, so a
 * session that always asks after the others is always late, the case a
 * real machine's jitter hides most of the time (t_sample budget counter
 * failed once in CI at 43 to 143 samples a session).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "budget.h"
#include "linux/moduleparam.h"
#include "linux/sched/clock.h"
#include "test.h"

unsigned int kshim_irqs_off, kshim_warnings, kshim_cpu, kshim_nr_cpus = 2;
u64 kshim_now;
struct task_struct kshim_task;

void kshim_warn(const char *file, int line, const char *cond)
{
	kshim_warnings++;
	t_diag("WARN_ON_ONCE(%s) at %s:%d", cond, file, line);
}

extern const struct kernel_param kshim_param_sample_budget;
extern const struct kernel_param kshim_param_sample_cpu_percent;
extern const struct kernel_param kshim_param_sample_budget_now;
extern const struct kernel_param kshim_param_sample_budget_dropped;

#define NSESS		16
#define PERIOD_NS	1000000ULL	/* each session asks every 1 ms */

enum source { TIMER, OVERFLOW };

struct sim {
	unsigned int nsess;
	u64 phase[NSESS];		/* ns into each 1 ms, ascending */
	const void *user[NSESS];	/* NULL: privileged, its own share */
	struct pmuctx_budget_share sh[NSESS];
	unsigned long taken[NSESS];
	unsigned long window_max;	/* most samples one window took */
	unsigned long notes;		/* PMUCTX_BUDGET_ASK answers */
	unsigned long asks;
};

/*
 * One ask of session @i as its source asks (module/sample.c): the hrtimer
 * calls pmuctx_budget_take(); the overflow handler (NMI, read-only) asks
 * pmuctx_budget_may(): a yes queues the irq_work that takes, an ask one
 * that notes (pmuctx_budget_note()), a no is counted when reported.
 */
static bool ask(struct sim *s, unsigned int i, enum source src)
{
	if (src == TIMER)
		return pmuctx_budget_take(kshim_now, &s->sh[i], s->user[i]);
	switch (pmuctx_budget_may(kshim_now, &s->sh[i])) {
	case PMUCTX_BUDGET_YES:
		return pmuctx_budget_take(kshim_now, &s->sh[i], s->user[i]);
	case PMUCTX_BUDGET_ASK:
		s->notes++;
		pmuctx_budget_note(kshim_now, &s->sh[i], s->user[i]);
		return false;
	default:
		pmuctx_budget_refused(1);
		return false;
	}
}

/* Run @s for @ms milliseconds from the current clock, on CPU 0. */
static void run(struct sim *s, enum source src, unsigned int ms)
{
	u64 base = kshim_now - kshim_now % PERIOD_NS + PERIOD_NS;
	u64 win = 0, in_win = 0;
	unsigned int k, i;

	kshim_cpu = 0;
	for (k = 0; k < ms; k++) {
		for (i = 0; i < s->nsess; i++) {
			kshim_now = base + k * PERIOD_NS + s->phase[i];
			s->asks++;
			if (!ask(s, i, src))
				continue;
			s->taken[i]++;
			if (pmuctx_budget_window() != win) {
				win = pmuctx_budget_window();
				in_win = 0;
			}
			if (++in_win > s->window_max)
				s->window_max = in_win;
		}
	}
}

static void sim_init(struct sim *s, unsigned int n)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->nsess = n;
	for (i = 0; i < n; i++)
		s->phase[i] = 100000 + 50000 * i;
}

/* least and most samples of sessions [@from, @to) */
static void spread(const struct sim *s, unsigned int from, unsigned int to,
		   unsigned long *lo, unsigned long *hi, unsigned long *sum)
{
	unsigned int i;

	*lo = ~0UL;
	*hi = *sum = 0;
	for (i = from; i < to; i++) {
		*lo = s->taken[i] < *lo ? s->taken[i] : *lo;
		*hi = s->taken[i] > *hi ? s->taken[i] : *hi;
		*sum += s->taken[i];
	}
}

static unsigned long dropped(void)
{
	char buf[64];

	kshim_param_sample_budget_dropped.ops->get(buf,
				&kshim_param_sample_budget_dropped);
	return strtoul(buf, NULL, 10);
}

static void set_param(const struct kernel_param *kp, const char *v)
{
	CHECK_EQ(kp->ops->set(v, kp), 0, "%s = %s", kp->name, v);
}

/*
 * sample_budget 800 on 2 CPUs: 4 samples per 10 ms window on a CPU, and
 * no cost measured (so no lowering).
 */
static void budget_800(void)
{
	set_param(&kshim_param_sample_budget, "800");
	set_param(&kshim_param_sample_cpu_percent, "25");
	kshim_nr_cpus = 2;
}

/* @n privileged sessions, each at its own phase, one of them always last */
static void solo_case(enum source src, const char *what, unsigned int n)
{
	struct sim s;
	unsigned long lo, hi, sum, d0, d1;

	budget_800();
	sim_init(&s, n);
	d0 = dropped();
	run(&s, src, 10000);
	d1 = dropped();
	spread(&s, 0, n, &lo, &hi, &sum);
	t_diag("%s: %u sessions, %lu samples in 10 s, %lu to %lu each, last %lu; %lu noted",
	       what, n, sum, lo, hi, s.taken[n - 1], s.notes);
	CHECK(s.window_max <= 4, "%s: no window takes more than its 4 (%lu)",
	      what, s.window_max);
	/*
	 * Not all 4: a share below a sample is rounded down
	 * (pmuctx_budget_refill(): 5 sessions take 2.5 a window)
	 */
	CHECK(sum >= 4000 * 6 / 10 && sum <= 4000,
	      "%s: the sessions use most of the budget, 4 a window (%lu of 4000)",
	      what, sum);
	CHECK(d1 - d0 == s.asks - sum,
	      "%s: sample_budget_dropped counts every refusal (%lu of %lu)",
	      what, d1 - d0, s.asks - sum);
	CHECK(lo * 10 >= sum / n * 7 && hi * 10 <= sum / n * 13,
	      "%s: each session within 30 %% of its share (%lu to %lu of %lu)",
	      what, lo, hi, sum / n);
	CHECK(s.taken[n - 1] > 0,
	      "%s: the session that always asks last is not starved (%lu)",
	      what, s.taken[n - 1]);
}

static void test_timer(void)
{
	solo_case(TIMER, "timer, 5 sessions", 5);
	solo_case(TIMER, "timer, 8 sessions", 8);
	solo_case(TIMER, "timer, 16 sessions", 16);
}

static void test_overflow(void)
{
	solo_case(OVERFLOW, "overflow, 5 sessions", 5);
	solo_case(OVERFLOW, "overflow, 8 sessions", 8);
	solo_case(OVERFLOW, "overflow, 16 sessions", 16);
}

/*
 * Two unprivileged users: one with 7 sessions asking first, one with a
 * single session asking last.  Each user gets half.
 */
static void users_case(enum source src, const char *what)
{
	static const char alice, bob;
	unsigned long alo, ahi, asum;
	struct sim s;
	unsigned int i;

	budget_800();
	sim_init(&s, 8);
	for (i = 0; i < 7; i++)
		s.user[i] = &alice;
	s.user[7] = &bob;
	run(&s, src, 10000);
	spread(&s, 0, 7, &alo, &ahi, &asum);
	t_diag("%s: 7 sessions of one user %lu (%lu to %lu each), one of another %lu",
	       what, asum, alo, ahi, s.taken[7]);
	CHECK(s.taken[7] * 10 >= (asum + s.taken[7]) * 4 &&
	      s.taken[7] * 10 <= (asum + s.taken[7]) * 6,
	      "%s: the single session's user gets 40-60 %% (%lu of %lu)",
	      what, s.taken[7], asum + s.taken[7]);
}

static void test_users(void)
{
	users_case(TIMER, "timer");
	users_case(OVERFLOW, "overflow");
}

static void test_params(void)
{
	const struct kernel_param *b = &kshim_param_sample_budget;
	char buf[64];

	budget_800();
	CHECK(b->ops->set("0", b) == -EINVAL && b->ops->set("-5", b) == -EINVAL &&
	      b->ops->set("10000001", b) == -EINVAL &&
	      b->ops->set("x", b) == -EINVAL,
	      "sample_budget refuses 0, negatives, above 10000000, words");
	b->ops->get(buf, b);
	CHECK(!strcmp(buf, "800\n"), "a refused value changes nothing");
	kshim_param_sample_budget_now.ops->get(buf,
					       &kshim_param_sample_budget_now);
	CHECK(!strcmp(buf, "800\n"),
	      "sample_budget_now: 800 with no cost measured (%.*s)",
	      (int)strcspn(buf, "\n"), buf);
}

static const struct t_group groups[] = {
	{ "timer", test_timer },
	{ "overflow", test_overflow },
	{ "users", test_users },
	{ "params", test_params },
};

int main(int argc, char **argv)
{
	return t_main(argc, argv, groups, sizeof(groups) / sizeof(groups[0]));
}
