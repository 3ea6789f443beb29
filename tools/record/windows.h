/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: --overwrite windows and the SIGUSR2 protocol
 * (record/windows.c).
 */
#ifndef PMUCTX_TOOLS_RECORD_WINDOWS_H
#define PMUCTX_TOOLS_RECORD_WINDOWS_H

#include <sys/signalfd.h>

#include "record/record.h"

/*
 * overwrite mode: freeze, append a window (PMF_WIN_* @reason, asked for
 * by @requester or 0), resume: 0, -EAGAIN if @reason is PMF_WIN_TRIGGER
 * and the trigger did not fire, or an error (printed)
 */
int record_take_window(struct recorder *R, __u32 reason, pid_t requester);
/* a SIGUSR2 read from the signalfd: a window, or a drain, and the answer */
void record_handle_usr2(struct recorder *R,
			const struct signalfd_siginfo *si);
/* at the end: answer the requests still queued on @sfd with a failure */
void record_fail_requests(int sfd);

#endif
