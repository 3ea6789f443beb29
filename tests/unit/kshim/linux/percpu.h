/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/percpu.h> for module/budget.c: see ../kshim.h */
#include "../kshim.h"

/* one instance per CPU of the test; this CPU is kshim_cpu */
#define DEFINE_PER_CPU(type, name)	__typeof__(type) name[KSHIM_MAX_CPUS]
#define this_cpu_ptr(p)			(&(*(p))[kshim_cpu])
#define per_cpu_ptr(p, cpu)		(&(*(p))[(cpu)])
