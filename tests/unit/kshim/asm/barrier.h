/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <asm/barrier.h> for module/rb.c: see ../kshim.h */
#include "../kshim.h"
