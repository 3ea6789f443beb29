/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/cpumask.h> for module/budget.c: see ../kshim.h */
#include "../kshim.h"

#define num_online_cpus()		(kshim_nr_cpus)
#define for_each_online_cpu(cpu)	\
	for ((cpu) = 0; (cpu) < (int)kshim_nr_cpus; (cpu)++)
#define for_each_possible_cpu(cpu)	\
	for ((cpu) = 0; (cpu) < KSHIM_MAX_CPUS; (cpu)++)
