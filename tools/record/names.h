/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the names of the tasks that were there before recording
 * (record/names.c).
 */
#ifndef PMUCTX_TOOLS_RECORD_NAMES_H
#define PMUCTX_TOOLS_RECORD_NAMES_H

#include "record/record.h"

/*
 * after SESSION_CREATE, before ENABLE: read the names of the tasks of a
 * system-wide or -p session from /proc into R->names; 0 or -ENOMEM
 */
int record_read_names(struct recorder *R);
/* into the open window of the file, then freed: 0, or -EIO (printed) */
int record_put_names(struct recorder *R);
void record_free_names(struct recorder *R);

#endif
