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
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>

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

/* the events of the last parse_events(), as the user wrote them */
static struct pmuctx_event_spec tool_specs[PMUCTX_MAX_EVENTS];
static int tool_nr_specs;

int parse_events(char **lists, const char *dflt, int *ids)
{
	int nr = pmuctx_event_spec_list_parse(*lists ? *lists : dflt,
					      tool_specs, PMUCTX_MAX_EVENTS);
	int i;

	tool_nr_specs = nr > 0 ? nr : 0;
	for (i = 0; i < nr; i++)
		ids[i] = tool_specs[i].id;
	free(*lists);
	*lists = NULL;
	return nr;
}

/*
 * The specs of session events @ids (@nr of them): those parse_events()
 * read, the modifiers and raw configs with them, or by id alone (an
 * event added after, e.g. a --trigger's).
 */
void event_specs_of(const int *ids, int nr, struct pmuctx_event_spec *out)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (i < tool_nr_specs && tool_specs[i].id == ids[i]) {
			out[i] = tool_specs[i];
			continue;
		}
		memset(&out[i], 0, sizeof(out[i]));
		out[i].id = ids[i];
		snprintf(out[i].name, sizeof(out[i].name), "%s",
			 pmuctx_event_name(ids[i]) ? pmuctx_event_name(ids[i]) :
			 "?");
	}
}

/* event @i (id @id) as the user wrote it: "cycles:u", "r003c" */
const char *event_label(unsigned int i, int id)
{
	if (i < (unsigned int)tool_nr_specs && tool_specs[i].id == id)
		return tool_specs[i].name;
	return pmuctx_event_name(id);
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

/*
 * Whether @prog, as execvp() would find it, gains privileges at exec
 * (set-user-ID, set-group-ID, file capabilities): traced, it would run
 * without them (the kernel's LSM_UNSAFE_PTRACE), so the child does not
 * ask to be traced then.  A program not found is not one.
 */
static bool gains_privileges(const char *prog)
{
	char path[4096];
	const char *p, *dirs;
	struct stat st;
	size_t n;

	if (strchr(prog, '/'))
		return stat(prog, &st) == 0 &&
		       ((st.st_mode & (S_ISUID | S_ISGID)) ||
			getxattr(prog, "security.capability", NULL, 0) > 0);
	dirs = getenv("PATH");
	if (!dirs)
		dirs = "/usr/local/bin:/bin:/usr/bin";
	for (p = dirs; ; p += n + 1) {
		n = strcspn(p, ":");
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)n,
			     n ? p : ".", prog) < (int)sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(path, X_OK) == 0)
			return (st.st_mode & (S_ISUID | S_ISGID)) ||
			       getxattr(path, "security.capability", NULL,
					0) > 0;
		if (!p[n])
			return false;
	}
}

static void __attribute__((noreturn)) child_main(char **argv,
						 const sigset_t *mask,
						 int go_fd, int err_fd,
						 bool at_exec)
{
	int e, traced = -1;
	ssize_t n;
	char c;

	/*
	 * Counting starts at the exec (issue 30 item 4): traced, the
	 * child stops with SIGTRAP once execve() has loaded the command
	 * and before it runs an instruction of it; the parent enables
	 * the sessions then and detaches.  The first int on err_fd says
	 * whether it is traced (0) or why not (an errno; the parent then
	 * enables before the exec, as without at_exec).
	 */
	if (at_exec) {
		if (gains_privileges(argv[0]))
			traced = EPERM;
		else
			traced = ptrace(PTRACE_TRACEME, 0, NULL, NULL) ? errno : 0;
		write_all(err_fd, &traced, sizeof(traced));
	}
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
	ssize_t n;

	c->pid = 0;
	c->go_fd = -1;
	c->err_fd = -1;
	c->traced = false;
	c->start_err = 0;
	c->launched = false;
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
		child_main(argv, mask, go[0], ep[1], c->at_exec);
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
	if (c->at_exec) {
		do
			n = read(c->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		c->traced = n == sizeof(e) && e == 0;
	}
	return 0;
}

/*
 * At the exec stop: what the child ran and its context switches so far
 * (the fork, the launcher, the exec itself and this stop), in its rusage
 * but not in the counts, which start now.
 */
static void child_read_launch(struct child *c)
{
	unsigned long long ns, v = 0, nv = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)c->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%llu", &ns) != 1) {
		fclose(f);
		return;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "voluntary_ctxt_switches: %llu", &v);
		sscanf(line, "nonvoluntary_ctxt_switches: %llu", &nv);
	}
	fclose(f);
	c->launch_ns = ns;
	c->launch_csw = v + nv;
	c->launched = true;
}

int child_start(const char *cmd, struct child *c,
		int (*at_exec)(void *arg), void *arg)
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
	if (!c->traced)
		return exec_err;
	c->traced = false;
	if (exec_err)
		return exec_err;	/* it exits; the caller reaps it */
	/*
	 * Traced, and exec worked: the child is in (or on its way to) its
	 * exec SIGTRAP stop.  The sessions start there; the detach drops
	 * the SIGTRAP.  A signal that reaches it before (a ^C to the
	 * group) stops it too: passed on.  Nothing is reaped here (WNOWAIT):
	 * a child killed meanwhile is the caller's to wait for.
	 */
	for (;;) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, c->pid, &si, WEXITED | WSTOPPED | WNOWAIT)) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (si.si_code != CLD_TRAPPED)
			return 0;	/* gone */
		if (si.si_status != SIGTRAP) {
			ptrace(PTRACE_CONT, c->pid, NULL,
			       (void *)(long)si.si_status);
			continue;
		}
		break;
	}
	child_read_launch(c);
	if (at_exec)
		c->start_err = at_exec(arg);
	if (c->start_err)
		kill(c->pid, SIGKILL);	/* never runs uncounted */
	if (ptrace(PTRACE_DETACH, c->pid, NULL, NULL))
		fprintf(stderr, "pmuctx %s: cannot let the command run: %s\n",
			cmd, strerror(errno));
	return 0;
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
