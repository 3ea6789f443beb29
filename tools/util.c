// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the pmuctx commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "builtin.h"
#include "diagnose.h"

void print_cmd_help(const struct cmd *c, FILE *f)
{
	const char *mark = strstr(c->help, HELP_EXTRA_MARK);

	if (!mark) {
		fputs(c->help, f);
		if (c->help_extra)
			c->help_extra(f);
		return;
	}
	fwrite(c->help, 1, (size_t)(mark - c->help), f);
	if (c->help_extra)
		c->help_extra(f);
	fputs(mark + strlen(HELP_EXTRA_MARK), f);
}

bool is_help_arg(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmuctx %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'pmuctx %s --help' for more information.\n",
		cmd);
	return EXIT_USAGE;
}

/* the library's record of the failure, explained (diagnose.c) */
static void print_msg(const char *cmd, struct pmuctx *h, int err)
{
	char buf[4096];

	diagnose(h, err, buf, sizeof(buf));
	fprintf(stderr, "pmuctx %s: %s\n", cmd, buf);
}

int lib_error(const char *cmd, struct pmuctx *h, int err)
{
	print_msg(cmd, h, err);
	return EXIT_RUNTIME;
}

int lib_usage_error(const char *cmd, int err)
{
	print_msg(cmd, NULL, err);
	fprintf(stderr, "Try 'pmuctx %s --help' for more information.\n",
		cmd);
	return EXIT_USAGE;
}

const char *device_path(void)
{
	const char *p = getenv("PMUCTX_DEVICE");

	return p && *p ? p : NULL;
}

int open_device(const char *cmd, struct pmuctx **h)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, opts, .path = device_path());
	int err = pmuctx_open(h, &opts);

	return err ? lib_error(cmd, NULL, err) : 0;
}

/* ---- option parsing ------------------------------------------------------ */

int option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return usage_error(cmd, "option '%s' needs an argument",
				   argv[optind - 1]);
	if (optopt && optopt < 256 && optopt != '?')
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

bool parse_uint(const char *s, unsigned long long max,
		unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

int parse_pid_arg(const char *cmd, const char *arg, pid_t *pid)
{
	unsigned long long v;

	if (!parse_uint(arg, INT32_MAX, &v) || !v)
		return usage_error(cmd, "-p '%s': expected a process id "
				   "(a positive integer)", arg);
	*pid = (pid_t)v;
	return 0;
}

bool parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d <= 0 || d > 1e9)
		return false;
	*ns = (uint64_t)(d * 1e9);
	if (!*ns)
		*ns = 1;
	return true;
}

int append_list(char **lists, const char *list)
{
	size_t old = *lists ? strlen(*lists) : 0;
	char *n = realloc(*lists, old + strlen(list) + 2);

	if (!n)
		return -ENOMEM;
	if (old)
		n[old++] = ',';
	strcpy(n + old, list);
	*lists = n;
	return 0;
}

int parse_events(char **lists, const char *dflt, int *ids)
{
	int nr = pmuctx_event_list_parse(*lists ? *lists : dflt, ids,
					 PMUCTX_MAX_EVENTS);

	free(*lists);
	*lists = NULL;
	return nr;
}

void session_target(struct pmuctx_session_opts *so, bool system_wide,
		    const char *cgroup, pid_t pid, bool inherit)
{
	if (system_wide) {
		so->target = PMUCTX_TARGET_SYSTEM;
	} else if (cgroup) {
		so->target = PMUCTX_TARGET_CGROUP;
		so->cgroup_path = cgroup;
	} else {
		so->target = PMUCTX_TARGET_PID;
		so->pid = pid;
		if (inherit)
			so->flags |= PMUCTX_SESSION_INHERIT;
	}
}

/* ---- time ---------------------------------------------------------------- */

uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* ---- running a command --------------------------------------------------- */

char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int write_all(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

static void __attribute__((noreturn)) child_main(char **argv,
						 const sigset_t *mask,
						 int go_fd, int err_fd)
{
	char c;
	ssize_t n;
	int e;

	if (mask)
		sigprocmask(SIG_SETMASK, mask, NULL);
	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* the parent gave up; it says why */
	close(go_fd);
	execvp(argv[0], argv);
	e = errno;
	write_all(err_fd, &e, sizeof(e));
	_exit(exec_status(e));
}

int child_spawn(struct child *c, char **argv, const sigset_t *mask,
		const char **what)
{
	int go[2], ep[2], e;

	c->pid = 0;
	c->go_fd = -1;
	c->err_fd = -1;
	*what = "pipe";
	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(ep, O_CLOEXEC)) {
		e = errno;
		close(go[0]);
		close(go[1]);
		errno = e;
		return -1;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(argv, mask, go[0], ep[1]);
	}
	e = errno;
	close(go[0]);
	close(ep[1]);
	if (c->pid < 0) {
		c->pid = 0;
		close(go[1]);
		close(ep[0]);
		*what = "fork";
		errno = e;
		return -1;
	}
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

int child_start(const char *cmd, struct child *c)
{
	int exec_err = 0;
	ssize_t n;

	if (write_all(c->go_fd, "g", 1))
		fprintf(stderr, "pmuctx %s: cannot start the command: %s\n",
			cmd, strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;

	/* EOF: exec worked (close-on-exec); an int: exec's errno */
	do
		n = read(c->err_fd, &exec_err, sizeof(exec_err));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(exec_err))
		exec_err = 0;
	close(c->err_fd);
	c->err_fd = -1;
	return exec_err;
}

void child_abort(struct child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	c->go_fd = -1;
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->err_fd = -1;
}

void print_exec_error(const char *cmd, const char *prog, int err)
{
	fprintf(stderr, "pmuctx %s: cannot run '%s': %s\n", cmd, prog,
		strerror(err));
	if (err == ENOENT)
		fprintf(stderr, "  (not found; check the name and PATH)\n");
}

int exec_status(int err)
{
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

int wait_status(bool reaped, int status)
{
	if (!reaped)
		return EXIT_RUNTIME;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}
