/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/module.h> for module/budget.c: see ../kshim.h */
#include "moduleparam.h"
