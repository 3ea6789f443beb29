/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/math64.h> for module/budget.c: see ../kshim.h */
#include "../kshim.h"

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}
