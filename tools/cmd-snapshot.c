// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx snapshot: ask a running 'pmuctx record' to write a window and
 * wait until it is in its file.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "pmfile.h"

#define CMD "snapshot"

static const char snapshot_help[] =
"NAME\n"
"    pmuctx snapshot - make a running 'pmuctx record' write a window now\n"
"\n"
"SYNOPSIS\n"
"    pmuctx snapshot --pid RECORDER_PID [--timeout SEC] [--force]\n"
"\n"
"DESCRIPTION\n"
"    Sends SIGUSR2 to the pmuctx record process RECORDER_PID and waits\n"
"    until it has written the window to its file. With --overwrite the\n"
"    recorder freezes its buffers, appends their newest records (all CPUs,\n"
"    in time order) to its file as a new window and resumes; in normal\n"
"    mode it copies what its buffers hold to the file at once.\n"
"\n"
"    The request travels with sigqueue() and carries a number the\n"
"    recorder sends back (also by signal) once the window is in the file,\n"
"    so when pmuctx snapshot returns 0 the file can be read (pmuctx\n"
"    report). A request is sent again every 2 seconds until it is\n"
"    answered (a signal can be merged with another one); the recorder\n"
"    answers a repeated request without writing a second window.\n"
"\n"
"    Before signalling, pmuctx snapshot checks that RECORDER_PID runs\n"
"    'pmuctx record': SIGUSR2 would terminate most other programs.\n"
"\n"
"    A plain 'kill -USR2 RECORDER_PID' also makes the recorder write a\n"
"    window, without waiting for it.\n"
"\n"
"OPTIONS\n"
"    -p, --pid RECORDER_PID\n"
"        The pmuctx record process (its pid is $! after starting it in the\n"
"        background).\n"
"\n"
"    --timeout SEC\n"
"        Give up after SEC seconds (decimals allowed). Default: 30.\n"
"\n"
"    --force\n"
"        Signal RECORDER_PID even if its command line does not look like\n"
"        'pmuctx record' (an installed copy under another name).\n"
"\n"
"    -q, --quiet\n"
"        Print nothing on success.\n"
"\n"
"    -h, --help\n"
"        Print this help.\n"
"\n"
"EXAMPLES\n"
"    sudo pmuctx record -a --overwrite --switch-events -o fr.pmu &\n"
"    sudo pmuctx snapshot --pid $!\n"
"    pmuctx report -i fr.pmu\n"
"\n"
"EXIT STATUS\n"
"    0 when the recorder wrote the window, 1 when it could not (or it\n"
"    exited, or did not answer in time, or cannot be signalled), 2 on a\n"
"    usage error.\n"
"\n"
"SEE ALSO\n"
"    pmuctx record --help, pmuctx report --help\n";

/* the recorder's command line, NUL-separated, into @buf; its length */
static ssize_t read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = (ssize_t)fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* argv[0] is some pmuctx and argv[1] is "record" */
static bool is_recorder(const char *cmdline, ssize_t len)
{
	const char *a0 = cmdline, *base, *a1;

	if (len <= 0)
		return false;
	base = strrchr(a0, '/');
	base = base ? base + 1 : a0;
	a1 = a0 + strlen(a0) + 1;
	if (a1 >= cmdline + len)
		return false;
	return !strncmp(base, "pmuctx", 6) && !strcmp(a1, "record");
}

struct snapshot_opts {
	pid_t pid;
	double timeout;		/* s */
	bool force;
	bool quiet;
};

/* one option: 0, or the exit status (-1 after --help) */
static int snapshot_opt(struct snapshot_opts *o, int c, char **argv)
{
	char *end;
	long lv;

	switch (c) {
	case 'p':
		errno = 0;
		lv = strtol(optarg, &end, 10);
		if (errno || *end || end == optarg || lv <= 0 ||
		    lv > INT32_MAX)
			return usage_error(CMD, "--pid '%s': expected the "
				"process id of a pmuctx record", optarg);
		o->pid = (pid_t)lv;
		return 0;
	case 't':
		errno = 0;
		o->timeout = strtod(optarg, &end);
		if (errno || *end || end == optarg ||
		    !isfinite(o->timeout) || o->timeout <= 0 ||
		    o->timeout > 1e6)
			return usage_error(CMD, "--timeout '%s': expected a "
				"number of seconds > 0", optarg);
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'h':
		print_cmd_help(&cmd_snapshot, stdout);
		return -1;
	default:
		return option_error(CMD, c, argv);
	}
}

/* 0, or the exit status (-1 after --help) */
static int parse_snapshot_opts(int argc, char **argv,
			       struct snapshot_opts *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:p:qh", longopts, NULL)) != -1) {
		ret = snapshot_opt(o, c, argv);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error(CMD, "unexpected argument '%s'",
				   argv[optind]);
	if (!o->pid)
		return usage_error(CMD, "which recorder? give --pid "
				   "RECORDER_PID (the pid of pmuctx record)");
	return 0;
}

/* is @o->pid there, and a pmuctx record (or --force)? 0 or EXIT_RUNTIME */
static int check_recorder(const struct snapshot_opts *o)
{
	char cmdline[4096];
	ssize_t n, i;

	n = read_cmdline(o->pid, cmdline, sizeof(cmdline));
	if (n == -ENOENT || n == -ESRCH) {
		fprintf(stderr, "pmuctx snapshot: there is no process %d\n",
			(int)o->pid);
		return EXIT_RUNTIME;
	}
	if (o->force || n < 0 || is_recorder(cmdline, n))
		return 0;
	for (i = 0; i + 1 < n; i++)
		if (!cmdline[i])
			cmdline[i] = ' ';
	fprintf(stderr, "pmuctx snapshot: process %d is not 'pmuctx record' "
		"(its command line: %s)\n  SIGUSR2 would probably terminate "
		"it; give the pid of pmuctx record, or --force if it is one "
		"under another name\n", (int)o->pid, n > 0 ? cmdline :
		"(none: a kernel thread or a zombie)");
	return EXIT_RUNTIME;
}

/* sigqueue() to the recorder failed with @e (@again: a resent request) */
static void send_error(pid_t pid, int e, bool again)
{
	if (e == ESRCH)
		fprintf(stderr, "pmuctx snapshot: the recorder %d exited%s\n",
			(int)pid, again ? " before it wrote the window" : "");
	else if (e == EPERM)
		fprintf(stderr, "pmuctx snapshot: not allowed to signal "
			"process %d (it belongs to another user: run pmuctx "
			"snapshot as that user, or with sudo)\n", (int)pid);
	else
		fprintf(stderr, "pmuctx snapshot: cannot signal %d: %s\n",
			(int)pid, strerror(e));
}

/* the recorder's answer @si: 0, or EXIT_RUNTIME (printed) */
static int answer(const struct snapshot_opts *o, const siginfo_t *si)
{
	unsigned int win;

	if (si->si_value.sival_int & RECORD_REPLY_FAILED) {
		fprintf(stderr, "pmuctx snapshot: the recorder %d could not "
			"write the window (its standard error says why)\n",
			(int)o->pid);
		return EXIT_RUNTIME;
	}
	if (o->quiet)
		return 0;
	win = ((unsigned int)si->si_value.sival_int >> 16) & 0x7fff;
	if (win)
		printf("pmuctx snapshot: recorder %d wrote window %u\n",
		       (int)o->pid, win - 1);
	else
		printf("pmuctx snapshot: recorder %d flushed its buffers to "
		       "its file\n", (int)o->pid);
	return 0;
}

/*
 * Send the request with @nonce every 2 s until the answer with it comes
 * (SIGUSR2, blocked in @set), the recorder is gone or --timeout is over:
 * 0, or EXIT_RUNTIME (printed).
 */
static int request_window(const struct snapshot_opts *o, const sigset_t *set,
			  int nonce)
{
	union sigval v = { .sival_int = nonce };
	uint64_t deadline = now_ns() + (uint64_t)(o->timeout * 1e9);
	uint64_t next_send = 0;

	for (;;) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
		siginfo_t si;
		uint64_t t = now_ns();

		if (t >= next_send) {
			if (sigqueue(o->pid, SIGUSR2, v)) {
				send_error(o->pid, errno, next_send);
				return EXIT_RUNTIME;
			}
			next_send = t + 2000000000ULL;
		}
		if (t >= deadline) {
			fprintf(stderr, "pmuctx snapshot: the recorder %d did "
				"not answer within %g s (is it stopped, or "
				"writing a very large window?)\n", (int)o->pid,
				o->timeout);
			return EXIT_RUNTIME;
		}
		if (sigtimedwait(set, &si, &ts) < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				fprintf(stderr, "pmuctx snapshot: "
					"sigtimedwait: %s\n", strerror(errno));
				return EXIT_RUNTIME;
			}
			if (kill(o->pid, 0) && errno == ESRCH) {
				fprintf(stderr, "pmuctx snapshot: the recorder "
					"%d exited before it wrote the "
					"window\n", (int)o->pid);
				return EXIT_RUNTIME;
			}
			continue;
		}
		if (si.si_pid != o->pid || si.si_code != SI_QUEUE ||
		    (si.si_value.sival_int & RECORD_NONCE_MASK) != nonce)
			continue;	/* not our answer */
		return answer(o, &si);
	}
}

static int snapshot_run(int argc, char **argv)
{
	struct snapshot_opts o = { .timeout = 30 };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t set, old;
	int nonce, ret;

	ret = parse_snapshot_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;	/* -1: --help */
	ret = check_recorder(&o);
	if (ret)
		return ret;

	/* the answer must not kill us */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &old);

	srand((unsigned int)(now_ns() ^ (uint64_t)getpid()));
	nonce = (rand() % RECORD_NONCE_MASK) + 1;
	ret = request_window(&o, &set, nonce);
	/*
	 * A resent request is answered again: late answers are ignored from
	 * now on (the process is about to exit), pending ones discarded.
	 */
	sigaction(SIGUSR2, &ign, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

const struct cmd cmd_snapshot = {
	.name = "snapshot",
	.summary = "make a running 'pmuctx record' write a window now",
	.help = snapshot_help,
	.run = snapshot_run,
};
