// SPDX-License-Identifier: GPL-2.0
/*
 * pin_keys - keep the kernel's hot-path static keys and tracepoint static
 * calls that the test suite would flip, flipped for the whole run.
 *
 * Why: QEMU 7.2's TCG (Debian bookworm) can keep executing a stale
 * translation of kernel text that another vCPU has just live-patched with
 * text_poke_bp().  The guest then loops forever on a vanished int3: the
 * int3 handler sees that the byte is no longer an int3, backs the IP up,
 * and TCG runs its cached int3 again (CPU0 in asm_exc_int3 /
 * __schedule+0x1bc, the sched_switch tracepoint's jump label, every
 * other CPU stuck in smp_call_function_many_cond()).  It reproduces with
 * no pmuctx at all: tests/vm/repro-tcg-text-poke toggles the sched_switch
 * trace event and hangs the guest within seconds; see docs/TESTING.md.
 *
 * The suite starts and stops pmuctx sessions thousands of times, and each
 * first/last session flips the static keys and static calls of
 * sched_switch, sched_process_{fork,exec,exit,free}, cgroup_attach_task
 * (tracepoint_probe_register) and of the perf software events it counts;
 * its first memory cgroup turns the memcg kmem key on (pin_memcg()).  With this program holding
 * two other probes on each of those tracepoints (the trace event enabled
 * in two tracefs instances whose tracing is off) and one disabled perf
 * event of each software type plus a task-bound one, pmuctx's
 * registrations only change reference counts: no kernel text is patched
 * while the cases run.  pmuctx's own code paths are unchanged.
 *
 * usage: pin_keys [--instance PREFIX] [--tracefs DIR]
 *   Sets everything up, prints one "# pinned: ..." line per item to stdout,
 *   then forks a holder that keeps the perf fds open until it is killed and
 *   prints its PID as the last line "pin_keys: holder PID".  The tracefs
 *   instances are removed by "pin_keys --release".
 * Exit status: 0 if everything was pinned, 1 if anything failed (the
 * holder is still started for what could be pinned), 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_INSTANCES 2

static const char *const events[] = {
	"sched/sched_switch",
	"sched/sched_process_fork",
	"sched/sched_process_exec",
	"sched/sched_process_exit",
	/* hooked with the others since entries retire when tasks are freed */
	"sched/sched_process_free",
	/* hooked while a cgroup session exists (module/hooks.c) */
	"cgroup/cgroup_attach_task",
};

static const struct {
	unsigned long long config;
	const char *name;
} swevents[] = {
	{ PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
	{ PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations" },
	{ PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
	{ PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults" },
	{ PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults" },
	{ PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults" },
	{ 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */, "cgroup-switches" },
};

static int failures;

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void fail(const char *what, int err)
{
	printf("# pin_keys: %s: %s\n", what, strerror(-err));
	failures++;
}

static const char *find_tracefs(const char *want)
{
	static const char *const cands[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[256];
	size_t i;

	if (want)
		return want;
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		snprintf(path, sizeof(path), "%s/instances", cands[i]);
		if (access(path, F_OK) == 0)
			return cands[i];
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		return "/sys/kernel/tracing";
	return NULL;
}

static void release(const char *tracefs, const char *prefix)
{
	char path[512];
	int i;

	for (i = 0; i < NR_INSTANCES; i++) {
		snprintf(path, sizeof(path), "%s/instances/%s%d", tracefs,
			 prefix, i);
		/* rmdir disables the instance's events first. */
		if (rmdir(path) && errno != ENOENT)
			fail(path, -errno);
	}
}

static void pin_tracepoints(const char *tracefs, const char *prefix)
{
	char dir[512], path[700];
	size_t e;
	int i, err;

	for (i = 0; i < NR_INSTANCES; i++) {
		snprintf(dir, sizeof(dir), "%s/instances/%s%d", tracefs,
			 prefix, i);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fail(dir, -errno);
			continue;
		}
		/* Nothing is recorded: the probes only hold the keys. */
		snprintf(path, sizeof(path), "%s/tracing_on", dir);
		err = write_file(path, "0");
		if (err)
			fail(path, err);
		snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
		err = write_file(path, "4");
		if (err)
			fail(path, err);
		for (e = 0; e < sizeof(events) / sizeof(events[0]); e++) {
			snprintf(path, sizeof(path), "%s/events/%s/enable",
				 dir, events[e]);
			err = write_file(path, "1");
			if (err)
				fail(path, err);
			else if (i == 0)
				printf("# pinned: tracepoint %s (%d probes)\n",
				       strchr(events[e], '/') + 1,
				       NR_INSTANCES);
		}
	}
}

/*
 * The first memory cgroup turns the memcg kmem key on for good
 * (memcg_kmem_online_key; memcg_kmem_enabled_key on 6.1), which patches
 * __alloc_pages() and the slab paths.  61-store-priv's memcg test did
 * that mid-suite, with both vCPUs faulting pages: one 6.12 run died of
 * "Oops: int3" in __alloc_pages_noprof() (the stale text of the TCG bug
 * above).  So create one here, while nothing else runs; it stays.
 */
static void pin_memcg(void)
{
	static const char *const dir = "/sys/fs/cgroup/pmuctx-pin-memcg";
	char buf[512] = "";
	ssize_t n;
	int fd, err;

	fd = open("/sys/fs/cgroup/cgroup.controllers", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (!strstr(buf, "memory")) {
		printf("# not pinned: memory cgroup kmem key (no memory controller in /sys/fs/cgroup)\n");
		return;
	}
	err = write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	if (err) {
		fail("/sys/fs/cgroup/cgroup.subtree_control +memory", err);
		return;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fail(dir, -errno);
		return;
	}
	printf("# pinned: memory cgroup kmem key (%s)\n", dir);
}

static int perf_open(struct perf_event_attr *attr, int pid, int cpu)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void pin_perf(void)
{
	struct perf_event_attr attr;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(swevents) / sizeof(swevents[0]); i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = swevents[i].config;
		attr.disabled = 1;
		/* The static key is taken at creation, enabled or not. */
		fd = perf_open(&attr, -1, 0);
		if (fd < 0) {
			if (errno == ENOENT || errno == EINVAL)
				continue;	/* not on this kernel */
			fail(swevents[i].name, -errno);
			continue;
		}
		printf("# pinned: perf software event %s\n", swevents[i].name);
	}
	/* A task-bound event holds perf_sched_events (__schedule). */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	fd = perf_open(&attr, 0, -1);
	if (fd < 0)
		fail("perf task event", -errno);
	else
		printf("# pinned: perf_sched_events (task-bound dummy event)\n");
}

int main(int argc, char **argv)
{
	const char *tracefs = NULL, *prefix = "pmuctx-pin";
	int do_release = 0, i;
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--release")) {
			do_release = 1;
		} else if (!strcmp(argv[i], "--instance") && i + 1 < argc) {
			prefix = argv[++i];
		} else if (!strcmp(argv[i], "--tracefs") && i + 1 < argc) {
			tracefs = argv[++i];
		} else {
			fprintf(stderr,
				"usage: pin_keys [--release] [--instance PREFIX] [--tracefs DIR]\n");
			return 2;
		}
	}
	tracefs = find_tracefs(tracefs);
	if (do_release) {
		if (tracefs)
			release(tracefs, prefix);
		return failures ? 1 : 0;
	}
	if (tracefs)
		pin_tracepoints(tracefs, prefix);
	else
		fail("tracefs", -ENOENT);
	pin_perf();
	pin_memcg();
	fflush(stdout);

	pid = fork();
	if (pid < 0) {
		fail("fork", -errno);
		return 1;
	}
	if (pid == 0) {
		/* The holder: keep the perf fds, ignore the terminal. */
		setsid();
		signal(SIGHUP, SIG_IGN);
		for (i = 0; i < 3; i++) {
			int fd = open("/dev/null", O_RDWR);

			if (fd >= 0 && fd != i) {
				dup2(fd, i);
				close(fd);
			}
		}
		for (;;)
			pause();
	}
	printf("pin_keys: holder %d\n", (int)pid);
	return failures ? 1 : 0;
}
