/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/string.h> for module/evdesc.c: the C library's */
#include <string.h>
