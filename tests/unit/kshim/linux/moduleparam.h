/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/moduleparam.h> for module/budget.c: see ../kshim.h */
#ifndef PMUCTX_KSHIM_MODULEPARAM_H
#define PMUCTX_KSHIM_MODULEPARAM_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "../kshim.h"

struct kernel_param;
struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
};

struct kernel_param {
	const char *name;
	const struct kernel_param_ops *ops;
	void *arg;
};

/* a parameter is a global the test reaches as kshim_param_NAME */
#define module_param_cb(name, ops_, arg_, perm)				\
	const struct kernel_param kshim_param_##name = {		\
		#name, (ops_), (void *)(arg_) }
#define MODULE_PARM_DESC(name, desc)	extern int kshim_desc_##name

#define sysfs_emit(buf, ...)	snprintf((buf), 4096, __VA_ARGS__)

static inline int kstrtouint(const char *s, unsigned int base,
			     unsigned int *res)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+')
		return -EINVAL;
	v = strtoul(s, &end, base);
	if (end == s || errno || v > 0xffffffffUL)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*res = v;
	return 0;
}
#endif
