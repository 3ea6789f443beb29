// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx-stress: load tests of the store, the hooks and session teardown.
 *
 *   pmuctx-stress churn SECS [WORKERS]   process and thread churn under a pid
 *	session with inheritance, a system-wide and a cgroup session and a
 *	ring session at once, while other threads read per-task values,
 *	toggle enable/disable/reset and create and close short sessions on
 *	the churning tasks; then checks the inherited counts add up
 *   pmuctx-stress hotplug SECS           cpu1 offline/online in a loop while
 *	sessions with perf events, rings and sampling come and go
 *   pmuctx-stress sessions N             N sessions at once (RLIMIT_NOFILE
 *	raised): one task watched by hundreds of sessions, all read, closed
 *	in random order
 *   pmuctx-stress scm                    session fds passed to another
 *	process over a unix socket, closed in either order, and in flight
 *   pmuctx-stress exit-teardown N        a monitored process tree exits
 *	exactly while its session is torn down (timing swept over N runs)
 *   pmuctx-stress teardown-busy N        sessions closed while their
 *	CPU-bound targets switch in and out
 *   pmuctx-stress read-churn SECS        per-task reads of a growing
 *	system-wide session with a capacity far above its size
 *   pmuctx-stress hold SECS              hold sessions under churn (for
 *	the rmmod-under-load test of tests/vm/cases/72-stress.sh)
 * Every mode ends by checking the store is empty.  Output: "ok - ..." /
 * "not ok - ..." / "# ..." lines; exit 1 when something failed.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "common.h"

static volatile int *stop_flag;		/* shared with the workers */
static volatile long *tasks_made;	/* shared counter */

static void *shm(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void burn_us(unsigned int us)
{
	uint64_t end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		;
}

static void *tiny_thread(void *arg)
{
	burn_us(50);
	return arg;
}

/* One churn worker: short-lived children with threads, some exec. */
static void churn_worker(unsigned int seed)
{
	unsigned int k = seed;

	while (!*stop_flag) {
		pid_t p = fork();

		if (p == 0) {
			pthread_t t[6];
			int i, n = 0;

			for (i = 0; i < 6; i++)
				if (!pthread_create(&t[i], NULL, tiny_thread, NULL))
					n++;
			__atomic_add_fetch(tasks_made, n, __ATOMIC_RELAXED);
			for (i = 0; i < n; i++)
				pthread_join(t[i], NULL);
			if ((k & 15) == 0)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		if (p > 0) {
			__atomic_add_fetch(tasks_made, 1, __ATOMIC_RELAXED);
			waitpid(p, NULL, 0);
		}
		k = k * 1103515245 + 12345;
	}
}

/* The root of the churn: WORKERS processes running churn_worker(). */
static int nworkers = 4;

static void churn_root(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < nworkers; i++) {
		pid_t p = fork();

		if (p == 0) {
			churn_worker(i + 1);
			_exit(0);
		}
		if (p > 0)
			__atomic_add_fetch(tasks_made, 1, __ATOMIC_RELAXED);
	}
	while (wait(NULL) > 0)
		;
}

struct side {
	int sys_fd, pid_fd, ring_fd;
	pid_t root;
	volatile int stop;
	long reads, toggles, short_sessions, moves;
};

static struct pmuctx_task_values *big;	/* per-task buffer */
#define BIG_N	65536

static void *reader(void *arg)
{
	struct side *s = arg;

	while (!s->stop) {
		struct pmuctx_read r = {
			.size = sizeof(r), .flags = PMUCTX_READ_PER_TASK,
			.nr_tasks = BIG_N, .task_size = sizeof(big[0]),
			.tasks_ptr = (uintptr_t)big,
		};
		int fd = s->reads & 1 ? s->sys_fd : s->pid_fd;

		if (ioctl(fd, PMUCTX_IOC_READ, &r) && errno != ENOSPC &&
		    errno != ENOMEM)
			result(0, "churn: per-task READ: %s", strerror(errno));
		else if (r.nr_tasks > BIG_N)
			result(0, "churn: READ reports %u tasks written into %u",
			       r.nr_tasks, BIG_N);
		s->reads++;
	}
	return NULL;
}

static void *toggler(void *arg)
{
	struct side *s = arg;
	static const unsigned long cmds[] = {
		PMUCTX_IOC_DISABLE, PMUCTX_IOC_ENABLE, PMUCTX_IOC_RESET,
	};

	while (!s->stop) {
		int fd = s->toggles % 3 == 2 ? s->ring_fd : s->sys_fd;

		if (fd >= 0 && ioctl(fd, cmds[s->toggles % 3], 0))
			result(0, "churn: ioctl %#lx: %s", cmds[s->toggles % 3],
			       strerror(errno));
		s->toggles++;
		usleep(2000);
	}
	if (s->sys_fd >= 0)
		ioctl(s->sys_fd, PMUCTX_IOC_ENABLE, 0);
	return NULL;
}

/*
 * Tasks of the tree moved out of the watched cgroup and back (the cgroup
 * session's attach probe parks, unparks and adopts them while they fork
 * and exit, and while short system-wide sessions walk every thread).
 */
static void *mover(void *arg)
{
	struct side *s = arg;
	unsigned int k = 7;
	char buf[32];

	while (!s->stop) {
		snprintf(buf, sizeof(buf), "%d\n", s->root + 1 + (int)(k % 64));
		if (write_file(k & 1 ? "/sys/fs/cgroup/pmuctx-churn-out/cgroup.procs" :
			       "/sys/fs/cgroup/pmuctx-churn/cgroup.procs", buf) == 0)
			s->moves++;
		k = k * 1103515245 + 12345;
		usleep(500);
	}
	return NULL;
}

/* Short sessions on tasks that are about to exit, or already did. */
static void *shorty(void *arg)
{
	struct side *s = arg;
	unsigned int k = 1;

	while (!s->stop) {
		pid_t pid = s->root + 1 + (pid_t)(k % 64);
		int fd = session(k % 5 == 0 ? PMUCTX_TARGET_SYSTEM :
				 PMUCTX_TARGET_PID,
				 k % 5 == 0 ? 0 : pid,
				 k % 2 ? PMUCTX_SESSION_INHERIT : 0);

		if (fd >= 0) {
			s->short_sessions++;
			if (k % 3 == 0)
				usleep(1000);
			close(fd);
		}
		k = k * 1103515245 + 12345;
	}
	return NULL;
}

static void mode_churn(int secs)
{
	struct pmuctx_session_attr a;
	struct pmuctx_read r;
	pthread_t th[4];
	struct side s = { .ring_fd = -1 };
	struct gated g;
	long made;
	int cg, i, st;
	char buf[32];

	stop_flag = shm(4096);
	tasks_made = (volatile long *)((char *)stop_flag + 64);
	big = mmap(NULL, BIG_N * sizeof(*big), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	g = gated_child(churn_root, NULL);
	s.root = g.pid;
	mkdir("/sys/fs/cgroup/pmuctx-churn", 0755);
	mkdir("/sys/fs/cgroup/pmuctx-churn-out", 0755);
	snprintf(buf, sizeof(buf), "%d\n", g.pid);
	write_file("/sys/fs/cgroup/pmuctx-churn/cgroup.procs", buf);
	cg = open("/sys/fs/cgroup/pmuctx-churn", O_RDONLY | O_DIRECTORY);

	attr_init(&a, PMUCTX_TARGET_PID, g.pid,
		  PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_KEEP_EXITED);
	s.pid_fd = session_attr(&a, true);
	attr_init(&a, PMUCTX_TARGET_SYSTEM, 0, PMUCTX_SESSION_KEEP_EXITED);
	s.sys_fd = session_attr(&a, true);
	attr_init(&a, PMUCTX_TARGET_CGROUP, 0, 0);
	a.cgroup_fd = cg;
	i = session_attr(&a, true);
	attr_init(&a, PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
	a.ring_pages = 4;
	a.ring_mode = PMUCTX_RING_OVERWRITE;
	a.ring_records = PMUCTX_REC_MASK_ALL;
	s.ring_fd = session_attr(&a, true);
	result(s.pid_fd >= 0 && s.sys_fd >= 0 && i >= 0,
	       "churn: pid (inherit), system-wide and cgroup sessions at once (%d, %d, %d; ring %d)",
	       s.pid_fd, s.sys_fd, i, s.ring_fd);
	if (s.pid_fd < 0 || s.sys_fd < 0 || i < 0)
		return;

	gate_open(&g);
	pthread_create(&th[0], NULL, reader, &s);
	pthread_create(&th[1], NULL, toggler, &s);
	pthread_create(&th[2], NULL, shorty, &s);
	pthread_create(&th[3], NULL, mover, &s);
	sleep(secs);
	*stop_flag = 1;
	waitpid(g.pid, &st, 0);
	s.stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	made = *tasks_made + 1;	/* + the root */

	if (sread(s.pid_fd, &r)) {
		result(0, "churn: READ: %s", strerror(errno));
		return;
	}
	diag("%d s: %ld tasks created (%ld/s); pid session: seen %llu, dropped %llu, exited %llu; %ld per-task reads, %ld toggles, %ld short sessions, %ld cgroup moves",
	     secs, made, made / secs, (unsigned long long)r.tasks_seen,
	     (unsigned long long)r.tasks_dropped,
	     (unsigned long long)r.tasks_exited, s.reads, s.toggles,
	     s.short_sessions, s.moves);
	printf("# tasks churned: %ld\n", made);
	result(r.tasks_seen + r.tasks_dropped == (uint64_t)made,
	       "churn: every task of the tree was tracked or counted as dropped (%llu + %llu = %ld)",
	       (unsigned long long)r.tasks_seen,
	       (unsigned long long)r.tasks_dropped, made);
	result(r.tasks_exited == r.tasks_seen,
	       "churn: every tracked task exited (%llu of %llu)",
	       (unsigned long long)r.tasks_exited,
	       (unsigned long long)r.tasks_seen);
	close(s.pid_fd);
	close(s.sys_fd);
	close(s.ring_fd);
	for (i = 3; i < 1024; i++)	/* the cgroup session */
		if (i != cg && fcntl(i, F_GETFD) >= 0) {
			char l[64], t[128];

			snprintf(l, sizeof(l), "/proc/self/fd/%d", i);
			if (readlink(l, t, sizeof(t)) > 0 && strstr(t, "pmuctx"))
				close(i);
		}
	close(cg);
	rmdir("/sys/fs/cgroup/pmuctx-churn");
	rmdir("/sys/fs/cgroup/pmuctx-churn-out");
	result(store_empty(10000), "churn: store empty at the end");
}

/* ---- CPU hotplug ------------------------------------------------------------ */

static void *hotplugger(void *arg)
{
	int *n = arg;

	while (!*stop_flag) {
		if (!write_file("/sys/devices/system/cpu/cpu1/online", "0"))
			(*n)++;
		usleep(20000);
		write_file("/sys/devices/system/cpu/cpu1/online", "1");
		usleep(20000);
	}
	write_file("/sys/devices/system/cpu/cpu1/online", "1");
	return NULL;
}

static void mode_hotplug(int secs)
{
	struct pmuctx_session_attr a;
	uint64_t end;
	pthread_t t;
	pid_t kid;
	int cycles = 0, sessions = 0, fd, anchor;
	char on[8] = "";

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK)) {
		skip("cpu1 cannot be taken offline here", "hotplug: cpu1 offline/online");
		return;
	}
	stop_flag = shm(4096);
	kid = fork();
	if (kid == 0) {
		while (!*stop_flag) {
			pid_t p = fork();

			if (p == 0) {
				burn_us(500);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		}
		_exit(0);
	}
	/*
	 * An anchor session with the same events keeps the kernel text still
	 * while cpu1 cycles: without it each session below registers and
	 * unregisters the scheduler probes (tracepoint static calls) and
	 * flips perf's static keys (the software event's), and every such
	 * change patches kernel text (text_poke_bp(), IPIs to all CPUs).
	 * Under QEMU TCG, with cpu1 going on and off line every 20 ms, that
	 * hung the guest twice (once with cpu1 looping in exc_int3 in
	 * __schedule and cpu0 in smp_call_function_many_cond() from
	 * tracepoint_probe_unregister(); no pmuctx code on either stack).
	 * Sessions still come and go with their per-CPU perf counters,
	 * rings and samplers, which is what hotplug is tested against.
	 */
	attr_init(&a, PMUCTX_TARGET_PID, getpid(), 0);
	a.nr_events = 5;
	a.events[3] = PMUCTX_EV_PAGE_FAULTS;
	a.events[4] = PMUCTX_EV_CPU_CLOCK;
	anchor = session_attr(&a, true);
	if (anchor < 0) {
		result(0, "hotplug: anchor session: %s", strerror(-anchor));
		*stop_flag = 1;
		waitpid(kid, NULL, 0);
		return;
	}
	pthread_create(&t, NULL, hotplugger, &cycles);
	end = now_ns() + secs * 1000000000ULL;
	while (now_ns() < end) {
		attr_init(&a, sessions % 3 ? PMUCTX_TARGET_PID : PMUCTX_TARGET_SYSTEM,
			  sessions % 3 ? kid : 0, PMUCTX_SESSION_INHERIT * !!(sessions % 3));
		a.nr_events = 5;
		a.events[3] = PMUCTX_EV_PAGE_FAULTS;
		a.events[4] = PMUCTX_EV_CPU_CLOCK;
		a.ring_pages = 2;
		a.ring_mode = PMUCTX_RING_NORMAL;
		a.ring_records = PMUCTX_REC_MASK_ALL;
#ifdef PMUCTX_SESSION_ATTR_SIZE_VER2
		a.sample_freq = 1000;
		a.sample_flags = PMUCTX_SAMPLE_KERNEL_STACK |
				 PMUCTX_SAMPLE_USER_STACK;
#endif
		fd = session_attr(&a, true);
		if (fd >= 0) {
			struct pmuctx_read r;
			char buf[8192];

			sessions++;
			usleep(5000);
			fcntl(fd, F_SETFL, O_NONBLOCK);
			if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN)
				result(0, "hotplug: read(2): %s", strerror(errno));
			if (sread(fd, &r))
				result(0, "hotplug: READ: %s", strerror(errno));
			close(fd);
		} else if (fd != -ENODEV && fd != -EBUSY) {
			result(0, "hotplug: session: %s", strerror(-fd));
			break;
		}
	}
	*stop_flag = 1;
	pthread_join(t, NULL);
	waitpid(kid, NULL, 0);
	close(anchor);
	{
		int f = open("/sys/devices/system/cpu/cpu1/online", O_RDONLY);

		if (f >= 0) {
			if (read(f, on, sizeof(on) - 1) < 0)
				on[0] = 0;
			close(f);
		}
	}
	diag("%d s: %d offline/online cycles of cpu1, %d sessions with perf events, rings and sampling",
	     secs, cycles, sessions);
	result(cycles > 0 && sessions > 0, "hotplug: cpu1 went offline and online %d times under load", cycles);
	result(on[0] == '1', "hotplug: cpu1 is online at the end");
	result(store_empty(10000), "hotplug: store empty at the end");
}

/* ---- many sessions ------------------------------------------------------------ */

static void idle_fn(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 20; i++) {
		burn_us(2000);
		usleep(1000);
	}
}

static void mode_sessions(int n)
{
	struct rlimit rl = { n + 64, n + 64 };
	struct pmuctx_info in;
	struct gated g;
	int *fds, i, made = 0, bad = 0, kinds[3] = { 0 };

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		result(0, "sessions: RLIMIT_NOFILE %d: %s", n + 64, strerror(errno));
		return;
	}
	fds = calloc(n, sizeof(*fds));
	g = gated_child(idle_fn, NULL);
	for (i = 0; i < n; i++) {
		/* 55% on ourselves, 43% on a child, 2% system-wide (each
		 * system-wide session adopts every task: they are the
		 * expensive ones on a debug kernel)
		 */
		int k = i % 50 < 27 ? 0 : i % 50 < 49 ? 1 : 2;

		fds[i] = session(k == 0 ? PMUCTX_TARGET_PID : k == 1 ?
				 PMUCTX_TARGET_PID : PMUCTX_TARGET_SYSTEM,
				 k == 1 ? g.pid : 0,
				 k < 2 ? PMUCTX_SESSION_INHERIT : 0);
		if (fds[i] < 0) {
			if (!bad++)
				result(0, "sessions: session %d: %s", i, strerror(-fds[i]));
			continue;
		}
		made++;
		kinds[k]++;
	}
	get_info(&in);
	diag("%d sessions: %d on ourselves, %d on a child, %d system-wide; store: %llu entries, %llu bytes",
	     made, kinds[0], kinds[1], kinds[2],
	     (unsigned long long)in.tasks_tracked,
	     (unsigned long long)in.store_bytes);
	result(made == n && in.sessions == (uint32_t)n,
	       "sessions: %d sessions open at once (INFO says %u)", made, in.sessions);
	gate_open(&g);
	waitpid(g.pid, NULL, 0);
	bad = 0;
	for (i = 0; i < n; i++) {
		struct pmuctx_read r;

		if (fds[i] >= 0 && sread(fds[i], &r))
			bad++;
	}
	result(!bad, "sessions: all %d read back", made);
	/* close in a scrambled order */
	for (i = 0; i < n; i++) {
		int j = (int)(((unsigned int)i * 2654435761U) % (unsigned int)n);

		if (fds[j] >= 0) {
			close(fds[j]);
			fds[j] = -1;
		}
	}
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	result(store_empty(20000), "sessions: store empty after closing all %d", made);
	free(fds);
}

/* ---- fd passing ----------------------------------------------------------------- */

static int send_fd(int sock, int fd)
{
	char c = 'f', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void mode_scm(void)
{
	int sv[2], sync[2], order, bad = 0, st, n;
	struct gated g;

	for (order = 0; order < 3; order++) {
		int fd;
		pid_t rx;
		char c;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(sync))
			exit(2);
		g = gated_child(idle_fn, NULL);
		fd = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
		if (fd < 0) {
			result(0, "scm: session: %s", strerror(-fd));
			return;
		}
		rx = fork();
		if (rx == 0) {
			/* the receiver: read the session, close it (before or
			 * after the sender, as told) */
			struct pmuctx_read r;
			int rfd;

			close(sv[0]);
			close(sync[1]);
			if (order == 2) {
				/* never receives: the fd is in flight when
				 * both ends close */
				if (read(sync[0], &c, 1) != 1)
					_exit(8);
				_exit(0);
			}
			rfd = recv_fd(sv[1]);
			if (rfd < 0 || read(sv[1], &c, 1) != 1)
				_exit(3);
			if (sread(rfd, &r) || r.nr_events != 3)
				_exit(4);
			if (order == 1) {
				close(rfd);
				if (write(sv[1], "c", 1) != 1)
					_exit(5);
			} else {
				if (read(sv[1], &c, 1) != 1)	/* sender closed */
					_exit(6);
				if (ioctl(rfd, PMUCTX_IOC_DISABLE, 0) ||
				    sread(rfd, &r) || r.tasks_seen < 1)
					_exit(7);
				close(rfd);
			}
			_exit(0);
		}
		close(sv[1]);
		close(sync[0]);
		gate_open(&g);
		waitpid(g.pid, NULL, 0);
		if (send_fd(sv[0], fd)) {
			result(0, "scm: order %d: sendmsg: %s", order, strerror(errno));
			bad++;
		}
		if (write(sync[1], "s", 1) != 1)
			bad++;
		close(sync[1]);
		if (order == 0) {
			close(fd);			/* sender first */
			if (write(sv[0], "go", 2) != 2)
				bad++;
		} else if (order == 1) {
			if (write(sv[0], "g", 1) != 1 || read(sv[0], &c, 1) != 1)
				bad++;
			n = ioctl(fd, PMUCTX_IOC_ENABLE, 0);	/* still ours */
			if (n) {
				result(0, "scm: ENABLE by the sender after the receiver closed: %s",
				       strerror(errno));
				bad++;
			}
			close(fd);			/* receiver closed first */
		} else {
			close(fd);			/* only the socket holds it */
		}
		close(sv[0]);
		waitpid(rx, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			result(0, "scm: order %d: receiver status %#x", order, st);
			bad++;
		}
		if (!store_empty(5000)) {
			result(0, "scm: order %d: store not empty after both closed", order);
			bad++;
		}
	}
	result(!bad, "scm: session fds passed over a unix socket: sender closes first, receiver closes first, and closed in flight");
}

/* ---- exit during teardown ------------------------------------------------------ */

static volatile uint64_t *deadline;

static void exit_at_fn(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 4; i++)
		if (fork() == 0)
			break;
	while (now_ns() < *deadline)
		;
	_exit(0);
}

static void mode_exit_teardown(int n)
{
	int i, bad = 0;
	struct gated g;

	deadline = shm(4096);
	for (i = 0; i < n; i++) {
		/* close at the deadline, -300..+300 us around the exits */
		int64_t off = ((int64_t)(i % 61) - 30) * 10000;
		int fd;

		*deadline = now_ns() + 20000000ULL;
		g = gated_child(exit_at_fn, NULL);
		fd = session(PMUCTX_TARGET_PID, g.pid,
			     PMUCTX_SESSION_INHERIT |
			     (i & 1 ? PMUCTX_SESSION_KEEP_EXITED : 0));
		gate_open(&g);
		while ((int64_t)(now_ns() - *deadline) < off)
			;
		if (fd >= 0)
			close(fd);
		else
			bad++;
		waitpid(g.pid, NULL, 0);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	result(!bad, "exit-teardown: %d sessions closed within +-300 us of their targets' exits", n);
	result(store_empty(10000), "exit-teardown: store empty at the end");
}

/* ---- teardown while targets switch ----------------------------------------------- */

static void *spin_thread(void *arg)
{
	volatile int *stop = arg;
	unsigned int k = 0;

	while (!*stop) {
		burn_us(300 + (k++ % 7) * 100);
		if (k % 5 == 0)
			sched_yield();
	}
	return NULL;
}

static void busy_fn(void *arg)
{
	pthread_t t[3];
	int i;

	(void)arg;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spin_thread, (void *)stop_flag);
	spin_thread((void *)stop_flag);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

static void mode_teardown_busy(int n)
{
	struct gated g;
	int i, hold, bad = 0;

	stop_flag = shm(4096);
	g = gated_child(busy_fn, NULL);
	gate_open(&g);
	usleep(20000);
	/* a big store: the teardown walk takes longer */
	hold = session(PMUCTX_TARGET_SYSTEM, 0, PMUCTX_SESSION_KEEP_EXITED);
	for (i = 0; i < n; i++) {
		int fd = session(PMUCTX_TARGET_PID, g.pid, i & 1 ?
				 PMUCTX_SESSION_INHERIT : 0);

		if (fd < 0) {
			bad++;
			continue;
		}
		usleep(2000 + (i % 10) * 1000);
		close(fd);
	}
	*stop_flag = 1;
	waitpid(g.pid, NULL, 0);
	if (hold >= 0)
		close(hold);
	result(!bad, "teardown-busy: %d sessions on 4 CPU-bound threads closed while they run", n);
	result(store_empty(10000), "teardown-busy: store empty at the end");
}

/* ---- per-task reads of a growing session -------------------------------------- */

static void mode_read_churn(int secs)
{
	struct pmuctx_session_attr a;
	uint64_t end;
	long reads = 0, enospc = 0, forks = 0;
	int fd, bad = 0;
	pid_t kid;

	stop_flag = shm(4096);
	big = mmap(NULL, BIG_N * sizeof(*big), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	attr_init(&a, PMUCTX_TARGET_SYSTEM, 0, PMUCTX_SESSION_KEEP_EXITED);
	a.max_exited = 60000;
	fd = session_attr(&a, true);
	if (fd < 0) {
		result(0, "read-churn: session: %s", strerror(-fd));
		return;
	}
	/*
	 * The store swings between ~100 and ~400 live tasks: the rhashtable
	 * grows past 75% and shrinks below 30% of its buckets again and
	 * again, so walks restart (-EAGAIN) and see entries twice while the
	 * reader walks it.
	 */
	kid = fork();
	if (kid == 0) {
		int i;

		for (i = 0; i < 100; i++)
			if (fork() == 0) {
				while (!*stop_flag)
					usleep(20000);
				_exit(0);
			}
		while (!*stop_flag) {
			int forked = 0;

			for (i = 0; i < 300 && !*stop_flag; i++) {
				pid_t p = fork();

				if (p == 0) {
					usleep(20000 + (i % 4) * 10000);
					_exit(0);
				}
				if (p > 0)
					forked++;
			}
			/* the burst exits; the 100 sleepers stay */
			while (forked && waitpid(-1, NULL, 0) > 0)
				forked--;
			__atomic_add_fetch(&stop_flag[16], i, __ATOMIC_RELAXED);
			usleep(50000);
		}
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	end = now_ns() + secs * 1000000000ULL;
	while (now_ns() < end) {
		struct pmuctx_read r = {
			.size = sizeof(r), .flags = PMUCTX_READ_PER_TASK,
			.nr_tasks = BIG_N, .task_size = sizeof(big[0]),
			.tasks_ptr = (uintptr_t)big,
		};

		if (ioctl(fd, PMUCTX_IOC_READ, &r)) {
			if (errno == ENOSPC)
				enospc++;
			else if (!bad++)
				result(0, "read-churn: READ: %s", strerror(errno));
		} else if (r.nr_tasks > BIG_N) {
			if (!bad++)
				result(0, "read-churn: %u tasks in a %u buffer",
				       r.nr_tasks, BIG_N);
		}
		reads++;
	}
	*stop_flag = 1;
	waitpid(kid, NULL, 0);
	forks = stop_flag[16];
	close(fd);
	diag("%ld per-task reads (%ld ENOSPC) while %ld tasks were adopted and exited",
	     reads, enospc, forks);
	result(!bad, "read-churn: per-task reads with room for %d tasks while the session grows", BIG_N);
	result(store_empty(10000), "read-churn: store empty at the end");
}

/* ---- hold sessions under load (rmmod test) --------------------------------------- */

static void mode_hold(int secs)
{
	struct gated g;
	int a, b;

	stop_flag = shm(4096);
	tasks_made = (volatile long *)((char *)stop_flag + 64);
	nworkers = 2;
	g = gated_child(churn_root, NULL);
	a = session(PMUCTX_TARGET_PID, g.pid, PMUCTX_SESSION_INHERIT);
	b = session(PMUCTX_TARGET_SYSTEM, 0, 0);
	gate_open(&g);
	printf("# holding sessions %d %d\n", a, b);
	sleep(secs);
	printf("# releasing\n");
	*stop_flag = 1;
	waitpid(g.pid, NULL, 0);
	close(a);
	close(b);
	result(a >= 0 && b >= 0 && store_empty(10000),
	       "hold: sessions held for %d s under churn, store empty after", secs);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(m, "churn")) {
		if (argc > 3)
			nworkers = atoi(argv[3]);
		mode_churn(n ? n : 60);
	} else if (!strcmp(m, "hotplug")) {
		mode_hotplug(n ? n : 20);
	} else if (!strcmp(m, "sessions")) {
		mode_sessions(n ? n : 1000);
	} else if (!strcmp(m, "scm")) {
		mode_scm();
	} else if (!strcmp(m, "exit-teardown")) {
		mode_exit_teardown(n ? n : 200);
	} else if (!strcmp(m, "teardown-busy")) {
		mode_teardown_busy(n ? n : 200);
	} else if (!strcmp(m, "read-churn")) {
		mode_read_churn(n ? n : 10);
	} else if (!strcmp(m, "hold")) {
		mode_hold(n ? n : 10);
	} else {
		fprintf(stderr, "usage: pmuctx-stress churn|hotplug|sessions|scm|exit-teardown|teardown-busy|read-churn|hold [N]\n");
		return 2;
	}
	return !!failures;
}
