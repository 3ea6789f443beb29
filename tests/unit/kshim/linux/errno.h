/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <linux/errno.h> for module/evdesc.c: the UAPI numbers */
#include_next <linux/errno.h>
