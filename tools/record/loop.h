/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the command, the signals and the poll() loop
 * (record/loop.c).
 */
#ifndef PMUCTX_TOOLS_RECORD_LOOP_H
#define PMUCTX_TOOLS_RECORD_LOOP_H

#include <signal.h>

#include "record/record.h"

/*
 * R->cmdline, and with a command its child (forked now, with the signal
 * mask @old; it execs at record_start()): 0, or EXIT_RUNTIME (printed)
 */
int record_spawn(struct recorder *R, const sigset_t *old);
/*
 * read the signals of @mask (blocked) from R->sfd, enable the session,
 * let the command exec: 0, or EXIT_RUNTIME (printed)
 */
int record_start(struct recorder *R, const sigset_t *mask);
/*
 * poll the buffers, the signals and -p's process, and copy the records
 * (normal mode) or take the windows (--overwrite), until the command
 * exits, a signal or --duration ends the recording, or writing fails
 */
void record_loop(struct recorder *R);
/* the end: wait for the command to exit, unless it did */
void record_reap(struct recorder *R);

#endif
