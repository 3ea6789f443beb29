// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: the command (forked at once, exec'd once recording is
 * enabled), the signals (all blocked, read from a signalfd: no handler
 * runs), and the poll() loop that copies the records or takes the
 * windows until the recording ends.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "pmfile.h"
#include "record/loop.h"
#include "record/windows.h"
#include "record/writer.h"

int record_spawn(struct recorder *R, const sigset_t *old)
{
	const struct record_opts *o = R->o;
	const char *what;

	if (!o->t.argc) {
		if (o->t.pid) {
			if (asprintf(&R->cmdline, "pid %d", (int)o->t.pid) < 0)
				R->cmdline = NULL;
		} else {
			R->cmdline = strdup("system-wide");
		}
		return 0;
	}
	R->cmdline = join_args(o->t.argc, o->t.argv);
	if (!R->cmdline) {
		fprintf(stderr, "pmuctx record: out of memory\n");
		return EXIT_RUNTIME;
	}
	/*
	 * A command's recording starts at its exec: the launcher is never
	 * recorded.  System-wide and cgroup ones start at once, as perf's.
	 */
	R->ch.at_exec = !o->t.system_wide && !o->t.cgroup;
	if (child_spawn(&R->ch, o->t.argv, old, &what)) {
		if (!strcmp(what, "fork"))
			fprintf(stderr, "pmuctx record: fork: %s\n",
				strerror(errno));
		else
			fprintf(stderr, "pmuctx record: %s\n",
				strerror(errno));
		return EXIT_RUNTIME;
	}
	R->child = R->ch.pid;
	return 0;
}

/* child_start()'s callback: the command has exec'ed, record from here */
static int record_enable_at_exec(void *h)
{
	return pmuctx_enable(h);
}

int record_start(struct recorder *R, const sigset_t *mask)
{
	const struct record_opts *o = R->o;
	int err;

	R->sfd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (R->sfd < 0) {
		fprintf(stderr, "pmuctx record: signalfd: %s\n",
			strerror(errno));
		return EXIT_RUNTIME;
	}
	if (!R->child || !R->ch.traced) {
		err = pmuctx_enable(R->h);
		if (err)
			return lib_error(CMD, R->h, err);
	}
	if (o->t.pid)
		R->pidfd = pidfd_open_compat(o->t.pid);
	R->tty = isatty(2) && !o->quiet;

	if (o->t.have_duration)
		R->deadline = now_ns() + o->t.duration_ns;
	if (R->child) {
		R->exec_err = child_start(CMD, &R->ch, record_enable_at_exec,
					  R->h);
		/* killed before it ran: record_cleanup() reaps it */
		if (R->ch.start_err)
			return lib_error(CMD, R->h, R->ch.start_err);
	}
	return 0;
}

/* the command exited: reap it; true if it did */
static bool child_exited(struct recorder *R)
{
	if (R->child && !R->child_done &&
	    waitpid(R->child, &R->status, WNOHANG) == R->child) {
		R->child_done = true;
		return true;
	}
	return false;
}

/* the signals queued on the signalfd; true if recording is to stop */
static bool read_signals(struct recorder *R)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(R->sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR2:
			record_handle_usr2(R, &si);
			break;
		case SIGCHLD:
			if (child_exited(R))
				stop = true;
			break;
		case SIGINT:
			if (!R->child)
				stop = true;
			break;
		default:	/* SIGTERM, SIGHUP */
			if (R->child && !R->child_done)
				kill(R->child, (int)si.ssi_signo);
			else
				stop = true;
		}
	}
	return stop;
}

/* poll()'s timeout in ms (-1: none); false once --duration is over */
static bool poll_timeout(const struct recorder *R, int *timeout)
{
	const struct record_opts *o = R->o;
	uint64_t t;

	*timeout = o->overwrite ? (R->tty ? 500 : -1) : 200;
	if (o->t.pid && R->pidfd < 0 && (*timeout < 0 || *timeout > 200))
		*timeout = 200;
	if (!R->deadline)
		return true;
	t = now_ns();
	if (t >= R->deadline)
		return false;
	if (*timeout < 0 || (uint64_t)*timeout * 1000000ULL > R->deadline - t)
		*timeout = (int)((R->deadline - t + 999999) / 1000000);
	return true;
}

/* the buffers are readable (@ready) or poll() timed out: their records */
static void collect(struct recorder *R, bool ready)
{
	if (!R->o->overwrite) {
		record_drain(R);
		return;
	}
	/*
	 * POLLIN: the buffers are frozen, by the trigger (our own snapshots
	 * are resumed before poll() again).  The control pages say TRIGGERED
	 * once SNAPSHOT has waited for the writers in flight.
	 */
	if (ready && record_take_window(R, PMF_WIN_TRIGGER, 0) == -EAGAIN)
		usleep(20000);	/* not frozen: no spinning */
	record_progress(R, false);
}

void record_loop(struct recorder *R)
{
	const struct record_opts *o = R->o;
	bool stop = false;

	while (!stop) {
		struct pollfd pfd[3];
		int nfds = 0, timeout, r;

		pfd[nfds].fd = pmuctx_fd(R->h);
		pfd[nfds++].events = POLLIN;
		pfd[nfds].fd = R->sfd;
		pfd[nfds++].events = POLLIN;
		if (R->pidfd >= 0) {
			pfd[nfds].fd = R->pidfd;
			pfd[nfds++].events = POLLIN;
		}
		if (!poll_timeout(R, &timeout))
			break;
		r = poll(pfd, (nfds_t)nfds, timeout);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "pmuctx record: poll: %s\n",
				strerror(errno));
			break;
		}
		if (r < 0)
			continue;
		if ((pfd[1].revents & POLLIN) && read_signals(R))
			stop = true;
		if (child_exited(R))
			stop = true;
		if (R->pidfd >= 0 && (pfd[2].revents & POLLIN))
			stop = true;
		if (o->t.pid && R->pidfd < 0 && kill(o->t.pid, 0) &&
		    errno == ESRCH)
			stop = true;
		if (stop)
			break;
		collect(R, pfd[0].revents & POLLIN);
		if (R->failed)
			break;
	}
}

void record_reap(struct recorder *R)
{
	pid_t w;

	if (!R->child || R->child_done)
		return;
	if (R->failed)
		fprintf(stderr, "pmuctx record: recording stopped; waiting for "
			"the command to exit\n");
	do
		w = waitpid(R->child, &R->status, 0);
	while (w < 0 && errno == EINTR);
	R->child_done = w == R->child;
}
