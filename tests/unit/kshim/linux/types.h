/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/types.h> for module/rb.c: the UAPI types and ../kshim.h's */
#include_next <linux/types.h>
#include "../kshim.h"
