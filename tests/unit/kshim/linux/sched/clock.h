/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/sched/clock.h> for module/budget.c: see ../kshim.h */
#include "../../kshim.h"

/* the test's clock; current is the test's task */
static inline u64 local_clock(void)
{
	return kshim_now;
}

struct task_struct {
	unsigned long nvcsw, nivcsw;
	struct {
		u64 sum_exec_runtime;
	} se;
};

extern struct task_struct kshim_task;
#define current	(&kshim_task)
