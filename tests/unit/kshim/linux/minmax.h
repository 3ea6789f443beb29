/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/minmax.h> for module/budget.c: see ../kshim.h */
#include "../kshim.h"

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
