/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/stddef.h> for module/rb.c: see ../kshim.h */
#include <stddef.h>
#include "../kshim.h"
