/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report: the tasks of a recording, their names along the walk in
 * time order and their sums (report/tasks.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_TASKS_H
#define PMUCTX_TOOLS_REPORT_TASKS_H

#include "report/report.h"

/* the name of @tid at this point of the time-ordered walk */
const char *report_comm_of(struct report *R, __s32 pid, __s32 tid, __u32 cpu,
			   char *buf, size_t len);
/* the first name of every task in the file (for records before a COMM) */
int report_first_comms(struct report *R, const struct pmuctx_rec_header **a,
		       size_t n);
/* one step of the walk in time order: names and, with @sums, sums */
int report_account(struct report *R, const struct pmuctx_rec_header *h,
		   bool sums);
/* the tasks with slices or an exit, the busiest first (malloc'd) */
struct task **report_sorted_tasks(struct report *R, size_t *n);

#endif
