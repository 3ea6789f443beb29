/* SPDX-License-Identifier: GPL-2.0 */
/* host shim of <uapi/linux/perf_event.h>: the installed UAPI header */
#include <linux/perf_event.h>
