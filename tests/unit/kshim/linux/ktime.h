/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/ktime.h> for module/rb.c: see ../kshim.h */
#include "../kshim.h"
