/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: the global sample budget (budget.c): how many samples each CPU
 * may take, all sessions of all users together.
 */
#ifndef _PMUCTX_BUDGET_H
#define _PMUCTX_BUDGET_H

#include <linux/types.h>

/* A CPU's budget is counted in windows of this length. */
#define PMUCTX_BUDGET_WINDOW_NS	(10 * NSEC_PER_MSEC)

/*
 * A session's part of one CPU's budget (in its struct pmuctx_sess_cpu),
 * used with IRQs off on that CPU only.
 */
struct pmuctx_budget_share {
	u64	window;		/* the CPU's window it last asked in */
	u32	credit;		/* samples it may take, in 1/1024 */
};

extern unsigned int pmuctx_sample_budget;
extern unsigned int pmuctx_sample_cpu_percent;

/* pmuctx_budget_may()'s answer to the overflow handler */
enum pmuctx_budget_answer {
	PMUCTX_BUDGET_NO,	/* refused */
	PMUCTX_BUDGET_YES,	/* capture; take() decides */
	PMUCTX_BUDGET_ASK,	/* refused, but pmuctx_budget_note() it */
};

bool pmuctx_budget_take(u64 now, struct pmuctx_budget_share *sh,
			const void *user);
void pmuctx_budget_note(u64 now, struct pmuctx_budget_share *sh,
			const void *user);
void pmuctx_budget_refused(u64 n);
enum pmuctx_budget_answer pmuctx_budget_may(u64 now,
					    const struct pmuctx_budget_share *sh);
u64 pmuctx_budget_next_ns(u64 now);
void pmuctx_budget_cost(u64 ns);
/* Where a task_work of sampling started (pmuctx_budget_work_start()). */
struct pmuctx_budget_mark {
	u64		t0;	/* local_clock() */
	u64		run0;	/* current->se.sum_exec_runtime */
	unsigned long	csw;	/* current's context switches */
};

void pmuctx_budget_work_start(struct pmuctx_budget_mark *m);
void pmuctx_budget_deferred(const struct pmuctx_budget_mark *m);
u64 pmuctx_budget_window(void);
u64 pmuctx_budget_period_ns(void);
u64 pmuctx_budget_avg_ns(void);

#endif /* _PMUCTX_BUDGET_H */
