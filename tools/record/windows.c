// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record --overwrite: the windows (freeze the buffers, append
 * their records to the file, resume), and the SIGUSR2 protocol of
 * pmuctx snapshot (tools/pmfile.h).  Signals arrive through a signalfd:
 * none of this runs in a signal handler.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "pmfile.h"
#include "record/names.h"
#include "record/windows.h"
#include "record/writer.h"

/* overwrite mode: freeze, append a window, resume */
int record_take_window(struct recorder *R, __u32 reason, pid_t requester)
{
	uint64_t t = now_ns();
	__u64 lost = 0;
	unsigned int i;
	int err, rerr, f;

	if (R->failed)
		return -EIO;
	err = pmuctx_ring_snapshot(R->ring);
	if (err && err != -EBADMSG) {
		record_ring_error(R, err);
		return err;
	}
	if (err)
		record_ring_error(R, err);
	f = pmuctx_ring_flags(R->ring);
	if (reason == PMF_WIN_TRIGGER && f >= 0 &&
	    !(f & PMUCTX_RING_F_TRIGGERED)) {
		/* POLLIN without a trigger: nothing to write */
		rerr = pmuctx_ring_resume(R->ring);
		if (rerr)
			record_ring_error(R, rerr);
		return -EAGAIN;
	}
	/*
	 * The trigger froze the buffers before this snapshot (a slice ended
	 * over the threshold after the last poll, e.g. just before the end
	 * or a requested window): the window is the trigger's, say so.
	 */
	if (f >= 0 && (f & PMUCTX_RING_F_TRIGGERED))
		reason = PMF_WIN_TRIGGER;
	if (pmf_window_begin(R->w, reason, t, requester))
		return record_file_error(R);
	/* the first window: the names of the tasks there before */
	err = record_put_names(R);
	if (!err)
		err = record_copy_records(R);
	/* and of tasks no record of the file names (started since) */
	if (!err)
		err = record_name_window(R);
	record_fill_stats(R);
	rerr = pmuctx_ring_resume(R->ring);
	if (rerr)
		record_ring_error(R, rerr);
	if (err)
		return err;
	if (pmf_window_end(R->w, R->stats, R->nr_cpus, now_ns()) ||
	    pmf_flush(R->w))
		return record_file_error(R);
	for (i = 0; i < R->nr_cpus; i++)
		lost += R->stats[i].lost_window;
	if (!R->o->quiet) {
		record_clear_progress(R);
		fprintf(stderr, "pmuctx record: window %u (%s",
			pmf_windows(R->w) - 1, pmf_reason_name(reason));
		if (requester > 0)
			fprintf(stderr, " from pid %d", (int)requester);
		fprintf(stderr, "): %" PRIu64 " records in %s so far, %llu "
			"lost and %llu overwritten since the previous window\n",
			(uint64_t)pmf_records(R->w), R->o->output,
			(unsigned long long)lost,
			(unsigned long long)R->over_window);
	}
	return rerr ? rerr : 0;
}

/*
 * SIGUSR2.  From pmuctx snapshot (sigqueue, SI_QUEUE) the value holds a
 * nonce (bits 0-14); the answer goes back the same way once the window is
 * in the file: nonce | 0x8000 on failure | (window + 1) << 16.  A request
 * repeated with the same nonce (the requester resends when a signal was
 * merged) is answered again without a second window.
 */
void record_handle_usr2(struct recorder *R,
			const struct signalfd_siginfo *si)
{
	bool queued = si->ssi_code == SI_QUEUE;
	int nonce = queued ? (int)(si->ssi_int & RECORD_NONCE_MASK) : 0;
	pid_t from = (pid_t)si->ssi_pid;
	union sigval v;
	unsigned int i;
	int err, reply;

	if (queued && nonce) {
		for (i = 0; i < R->nr_recent; i++)
			if (R->recent[i].pid == from &&
			    R->recent[i].nonce == nonce) {
				v.sival_int = R->recent[i].reply;
				sigqueue(from, SIGUSR2, v);
				return;
			}
	}
	if (R->o->overwrite)
		err = record_take_window(R, queued ? PMF_WIN_REQUEST :
					 PMF_WIN_SIGNAL, from);
	else
		err = record_drain(R);
	if (!queued || !nonce)
		return;
	reply = nonce;
	if (err)
		reply |= RECORD_REPLY_FAILED;
	if (R->o->overwrite && !err)
		reply |= (int)((pmf_windows(R->w) & 0x7fff) << 16);
	i = R->nr_recent < 16 ? R->nr_recent++ : (unsigned int)(rand() % 16);
	R->recent[i].pid = from;
	R->recent[i].nonce = nonce;
	R->recent[i].reply = reply;
	v.sival_int = reply;
	sigqueue(from, SIGUSR2, v);
}

void record_fail_requests(int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo == SIGUSR2 && si.ssi_code == SI_QUEUE) {
			union sigval v = {
				.sival_int = (int)(si.ssi_int &
					RECORD_NONCE_MASK) |
					RECORD_REPLY_FAILED,
			};

			sigqueue((pid_t)si.ssi_pid, SIGUSR2, v);
		}
}
