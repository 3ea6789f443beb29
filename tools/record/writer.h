/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the file, the progress line, the summary
 * (record/writer.c).
 */
#ifndef PMUCTX_TOOLS_RECORD_WRITER_H
#define PMUCTX_TOOLS_RECORD_WRITER_H

#include "record/record.h"

/*
 * create R->o's file with its header, start the memory maps (-F, -g) and
 * the stream window (normal mode): 0, or EXIT_RUNTIME (printed)
 */
int record_create_file(struct recorder *R);
/*
 * close the file with the command's @exit_status (0 without one) and
 * print the summary; R->failed if that failed
 */
void record_close_file(struct recorder *R, int exit_status);

/* the progress line on a terminal: every 250 ms, or now if @force */
void record_progress(struct recorder *R, bool force);
void record_clear_progress(struct recorder *R);
/* records lost, all CPUs, since the start */
__u64 record_total_lost(struct recorder *R);
/* a ring buffer error: printed, and recording goes on */
void record_ring_error(struct recorder *R, int err);
/* writing the file failed: printed, R->failed set; returns -EIO */
int record_file_error(struct recorder *R);
/* R->stats for WINDOW_END, lost counted since the previous window */
void record_fill_stats(struct recorder *R);
/* read the open window of every CPU into the file: 0 or -EIO */
int record_copy_records(struct recorder *R);
/* normal mode: copy what the buffers hold, hand the space back */
int record_drain(struct recorder *R);

#endif
