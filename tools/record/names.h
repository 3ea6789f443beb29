/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the names of the tasks that were there before recording,
 * and of those a flight recorder's window has no record naming
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
/* a record going into the file: does it name a task, or is it one's? */
void record_note_name(struct recorder *R, const struct pmuctx_rec_header *h);
/*
 * a window's records are in: a COMM record of the recorder's for every
 * live task of the window that no record of the file names; 0 or -EIO
 */
int record_name_window(struct recorder *R);
/* the table of record_note_name() */
void record_free_tasks(struct recorder *R);

#endif
