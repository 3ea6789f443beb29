/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx command-line tool: the command table and shared helpers.
 *
 * Adding a command: write tools/cmd-NAME.c defining
 *	const struct cmd cmd_NAME = { "NAME", "summary", help_text, run };
 * declare it below and add it to the commands[] table in pmuctx.c.  The
 * Makefile builds every cmd-*.c.
 */
#ifndef PMUCTX_TOOLS_BUILTIN_H
#define PMUCTX_TOOLS_BUILTIN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sys/types.h>

#include <pmuctx.h>

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

struct cmd {
	const char *name;
	const char *summary;		/* one line, for 'pmuctx --help' */
	const char *help;		/* the command's manual */
	/* argv[0] is the command name; returns the exit status */
	int (*run)(int argc, char **argv);
	/*
	 * optional: print generated parts of the manual, where @help has
	 * HELP_EXTRA_MARK (a line of its own), else at the end
	 */
	void (*help_extra)(FILE *f);
};

#define HELP_EXTRA_MARK "@EXTRA@\n"

extern const struct cmd cmd_info;
extern const struct cmd cmd_stat;
extern const struct cmd cmd_list;
extern const struct cmd cmd_top;

/* util.c */
void print_cmd_help(const struct cmd *c, FILE *f);
bool is_help_arg(const char *arg);
/* print "pmuctx CMD: MSG" and a pointer to --help; returns EXIT_USAGE */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* print the library's detailed message for @err; returns EXIT_RUNTIME */
int lib_error(const char *cmd, struct pmuctx *h, int err);
/* print a library message as a usage error; returns EXIT_USAGE */
int lib_usage_error(const char *cmd, int err);
/* device path: $PMUCTX_DEVICE or NULL (the library default) */
const char *device_path(void);
/* open the device, printing the error; returns 0 or EXIT_RUNTIME */
int open_device(const char *cmd, struct pmuctx **h);

/* option parsing */
/* the getopt_long() error @c (':' or '?'): prints it; returns EXIT_USAGE */
int option_error(const char *cmd, int c, char **argv);
/* a decimal integer 0..@max, no sign */
bool parse_uint(const char *s, unsigned long long max,
		unsigned long long *out);
/* -p PID: returns 0, or prints the usage error and returns EXIT_USAGE */
int parse_pid_arg(const char *cmd, const char *arg, pid_t *pid);
/* --duration SEC: seconds > 0 (decimals allowed, at most 1e9) in ns */
bool parse_seconds(const char *s, uint64_t *ns);
/* append @list to the comma-separated *@lists (repeated -e); 0 or -ENOMEM */
int append_list(char **lists, const char *list);
/*
 * the event ids of *@lists (@dflt if NULL), which is freed and set to NULL;
 * returns their number or a negative error (lib_usage_error() explains it)
 */
int parse_events(char **lists, const char *dflt, int *ids);
void event_specs_of(const int *ids, int nr, struct pmuctx_event_spec *out);
const char *event_label(unsigned int i, int id);
/*
 * the target of a counting session: every task (@system_wide), a cgroup,
 * else @pid, with its future children if @inherit
 */
void session_target(struct pmuctx_session_opts *so, bool system_wide,
		    const char *cgroup, pid_t pid, bool inherit);

/* time */
uint64_t clock_ns(clockid_t id);
uint64_t now_ns(void);		/* CLOCK_MONOTONIC */

/* running a command (stat, record) */
/* "CMD ARGS" joined with spaces (malloc'd), NULL if out of memory */
char *join_args(int argc, char **argv);
/* write(), retried on EINTR: 0 if all of @buf was written, else -1 */
int write_all(int fd, const void *buf, size_t len);
/* pidfd_open(2): a file descriptor or -errno */
int pidfd_open_compat(pid_t pid);

/*
 * The command is forked at once but execs only at child_start().  With
 * @at_exec set before child_spawn(), the child is traced and stops at
 * its exec: child_start() calls its at_exec callback there (the sessions
 * start: counting begins at the exec, as perf's enable_on_exec, and the
 * launcher's own work before is never counted), then lets it run.  When
 * it cannot be traced (already traced, a set-user-ID or file-capabilities
 * program, which would lose its privileges), @traced is false after
 * child_spawn() and the caller starts the sessions before child_start().
 */
struct child {
	pid_t pid;
	int go_fd;	/* a byte written here lets the child exec */
	int err_fd;	/* exec's errno comes back here; EOF once it worked */
	bool at_exec;	/* in: start at the exec (ptrace) if possible */
	bool traced;	/* out of child_spawn(): it will stop at its exec */
	int start_err;	/* out of child_start(): at_exec's error; killed */
	/*
	 * out of child_start(), traced: its run time (ns) and context
	 * switches before the counts started (in its rusage, not in them)
	 */
	bool launched;
	unsigned long long launch_ns, launch_csw;
};

/*
 * fork the child that will exec @argv, with the signal mask @mask (NULL:
 * the caller's); returns 0, or -1 with errno set and *@what naming the
 * call that failed ("pipe" or "fork")
 */
int child_spawn(struct child *c, char **argv, const sigset_t *mask,
		const char **what);
/*
 * let the child exec; returns exec's errno, or 0 once it worked.  A traced
 * child: @at_exec(@arg) is called at its exec stop (a non-zero return is
 * left in c->start_err, and the child is killed before it runs).
 */
int child_start(const char *cmd, struct child *c,
		int (*at_exec)(void *arg), void *arg);
/* the set-up failed: the child exits without running; reap it */
void child_abort(struct child *c);
/* print why the command could not be run (exec's errno @err) */
void print_exec_error(const char *cmd, const char *prog, int err);
/* the exit status when exec failed with @err: 127 (not found) or 126 */
int exec_status(int err);
/* the command's exit status from wait(): 128+N if killed by signal N */
int wait_status(bool reaped, int status);

#endif
