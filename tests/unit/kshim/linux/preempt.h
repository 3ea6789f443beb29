/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/preempt.h> for module/rb.c: see ../kshim.h */
#include "../kshim.h"
