// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinding of USER_STACK records (tools/profile/unwind.c):
 *  - unw_check() refuses records whose sizes do not fit (a file is
 *    hostile input): truncated, sizes past the record, dyn_size above
 *    size, an unaligned size, a wrong register count; an unknown register
 *    set is EOPNOTSUPP; arm64's (PMUCTX_REGS_ARM64) is known on any host;
 *  - a record made from this process's own registers and stack, taken in
 *    the leaf of u_a -> u_b -> u_c -> u_leaf, unwinds through the four
 *    with this process's memory map (/proc/self/maps), as the kernel's
 *    record would;
 *  - a copy cut short (dyn_size) or garbage registers end the unwind
 *    early without reading outside the record (the sanitizers watch);
 *  - a map naming the binary "(deleted)" gets no CFI from
 *    /proc/PID/mem (t_deleted).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/time.h>

#include "profile/profile.h"
#include "test.h"

#define NOIPA __attribute__((noipa))
/*
 * The same chain without frame pointers for t_deleted: libdwfl falls back
 * to them on x86-64 when it has no CFI, and there the unwind must come
 * from CFI or not get through at all.
 */
#define NOIPA_NOFP __attribute__((noipa, optimize("omit-frame-pointer")))
#define DUMP 8192

struct cap {
	__u64 regs[PMUCTX_REGS_X86_64_NR];
	unsigned char stack[DUMP];
	__u32 copied;		/* up to the end of [stack], as the kernel */
};

static uintptr_t stack_end;	/* of [stack] in /proc/self/maps */

/* the stack as the kernel copies it: redzones and all, unchecked by ASan */
static NOIPA __attribute__((no_sanitize("address"))) void
copy_stack(unsigned char *dst, const unsigned char *src, size_t n)
{
	const volatile unsigned char *s = src;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = s[i];
}

/* the registers the CFI needs (sp, ip, the callee-saved ones), then stack */
static NOIPA void u_leaf(struct cap *c)
{
#ifdef __x86_64__
	asm volatile("1: lea 1b(%%rip), %%rax\n\t"
		     "mov %%rax, 128(%0)\n\t"
		     "mov %%rsp, 56(%0)\n\t"
		     "mov %%rbp, 48(%0)\n\t"
		     "mov %%rbx, 24(%0)\n\t"
		     "mov %%r12, 96(%0)\n\t"
		     "mov %%r13, 104(%0)\n\t"
		     "mov %%r14, 112(%0)\n\t"
		     "mov %%r15, 120(%0)\n\t"
		     : : "r"(c->regs) : "rax", "memory");
	c->copied = stack_end - c->regs[7] < DUMP ?
		    (__u32)(stack_end - c->regs[7]) & ~7U : DUMP;
	copy_stack(c->stack, (const unsigned char *)(uintptr_t)c->regs[7],
		   c->copied);
#endif
}

static NOIPA int u_c(struct cap *c)
{
	u_leaf(c);
	return 1;
}

static NOIPA int u_b(struct cap *c)
{
	return u_c(c) + 1;
}

static NOIPA int u_a(struct cap *c)
{
	return u_b(c) + 1;
}

static NOIPA_NOFP int d_c(struct cap *c)
{
	u_leaf(c);
	return 1;
}

static NOIPA_NOFP int d_b(struct cap *c)
{
	return d_c(c) + 1;
}

static NOIPA_NOFP int d_a(struct cap *c)
{
	return d_b(c) + 1;
}

/* @addr is in function @f: at most 4 KiB past its start */
static bool in_fn(__u64 addr, int (*f)(struct cap *))
{
	return addr >= (uintptr_t)f && addr - (uintptr_t)f < 4096;
}

/* a USER_STACK record of @c, dyn_size @dyn, in a malloc'd buffer */
static struct pmuctx_rec_user_stack *make_rec(const struct cap *c, __u32 dyn,
					      size_t *len)
{
	size_t n = PMUCTX_REC_USER_STACK_SIZE(DUMP);
	struct pmuctx_rec_user_stack *r = calloc(1, n);

	if (!r)
		return NULL;
	r->hdr.type = PMUCTX_REC_USER_STACK;
	r->hdr.size = (__u16)n;
	r->c.pid = getpid();
	r->c.tid = getpid();
	r->cookie = 42;
	r->abi = PMUCTX_REGS_X86_64;
	r->nr_regs = PMUCTX_REGS_X86_64_NR;
	r->size = DUMP;
	r->dyn_size = dyn;
	memcpy(r->regs, c->regs, sizeof(c->regs));
	memcpy((unsigned char *)(r->regs + PMUCTX_REGS_X86_64_NR), c->stack,
	       dyn);
	*len = n;
	return r;
}

static void t_check_rec(void)
{
	static struct cap c;
	struct pmuctx_rec_user_stack *r;
	size_t len;

	t_section("unwind: unw_check");
	r = make_rec(&c, DUMP, &len);
	if (!r)
		return;
	CHECK_EQ(unw_check(r, len), 0, "a whole record");
	CHECK_EQ(unw_check(r, len - 8), -EINVAL, "cut by 8 bytes");
	CHECK_EQ(unw_check(r, sizeof(*r) - 1), -EINVAL, "no fixed part");
	r->size = DUMP + 8;
	CHECK_EQ(unw_check(r, len), -EINVAL, "size past the record");
	r->size = 0xfffffff8U;
	CHECK_EQ(unw_check(r, len), -EINVAL, "size near 4 GiB");
	r->size = DUMP - 4;
	r->dyn_size = 8;
	CHECK_EQ(unw_check(r, len), -EINVAL, "size not a multiple of 8");
	r->size = DUMP;
	r->dyn_size = DUMP + 8;
	CHECK_EQ(unw_check(r, len), -EINVAL, "dyn_size above size");
	r->dyn_size = DUMP;
	r->nr_regs = 65535;
	CHECK_EQ(unw_check(r, len), -EOPNOTSUPP, "65535 x86-64 registers");
	r->nr_regs = PMUCTX_REGS_X86_64_NR;
	r->abi = 7;
	CHECK_EQ(unw_check(r, len), -EOPNOTSUPP, "unknown register set");
	r->abi = PMUCTX_REGS_ARM64;
	CHECK_EQ(unw_check(r, len), -EOPNOTSUPP, "17 arm64 registers");
	/* arm64's 33 registers, 16 x 8 bytes of stack less: the same size */
	r->nr_regs = PMUCTX_REGS_ARM64_NR;
	r->size = r->dyn_size = DUMP - 128;
	CHECK_EQ(unw_check(r, len), 0, "an arm64 record, whatever the host");
	r->size = r->dyn_size = DUMP;
	CHECK_EQ(unw_check(r, len), -EINVAL, "arm64 registers past the record");
	r->nr_regs = PMUCTX_REGS_X86_64_NR;
	r->abi = PMUCTX_REGS_X86_64;
	r->hdr.type = PMUCTX_REC_USER_CALLCHAIN;
	CHECK_EQ(unw_check(r, len), -EINVAL, "another record type");
	r->hdr.type = PMUCTX_REC_USER_STACK;
	r->hdr.size = (__u16)(len + 8);
	CHECK_EQ(unw_check(r, len), -EINVAL, "header size past the buffer");
	free(r);
}

/* /proc/self/maps, read whole */
static char *self_maps(size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t k;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((k = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)k;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	*len = n;
	return buf;
}

/* which of the functions @addr is in: the nearest start below it */
static int which_fn(__u64 addr)
{
	const uintptr_t f[] = { (uintptr_t)u_leaf, (uintptr_t)u_c,
				(uintptr_t)u_b, (uintptr_t)u_a };
	int i, best = -1;

	for (i = 0; i < 4; i++)
		if (addr >= f[i] && addr - f[i] < 4096 &&
		    (best < 0 || f[i] > f[best]))
			best = i;
	return best;
}

static void t_live(void)
{
	struct cap *c = calloc(1, sizeof(*c));
	struct pmuctx_rec_user_stack *r = NULL;
	struct prof_maps m = { 0 };
	struct unw_stats st;
	struct unw *u = NULL;
	__u64 ips[64];
	size_t len = 0;
	int n, i;

	t_section("unwind: a live stack");
#ifndef __x86_64__
	t_diag("not x86-64: skipped");
	free(c);
	return;
#endif
	if (!c)
		return;
	m.pid = getpid();
	m.text = self_maps(&m.len);
	stack_end = 0;
	if (m.text) {
		const char *l = strstr(m.text, "[stack]");

		while (l && l > m.text && l[-1] != '\n')
			l--;
		if (l)
			stack_end = (uintptr_t)strtoull(strchr(l, '-') + 1,
							NULL, 16);
	}
	CHECK(stack_end, "[stack] in /proc/self/maps");
	if (!stack_end)
		goto out;
	u_a(c);
	r = make_rec(c, c->copied, &len);
	CHECK(m.text && r && !unw_new(&u), "set up");
	if (!m.text || !r || !u)
		goto out;
	n = unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64);
	CHECK(n >= 4, "at least 4 frames (%d)", n);
	for (i = 0; i < 4 && i < n; i++)
		CHECK_EQ(which_fn(ips[i]), i, "frame %d is %s", i,
			 (const char *const[]){ "u_leaf", "u_c", "u_b",
						"u_a" }[i]);
	CHECK_EQ(ips[0], c->regs[PMUCTX_REGS_X86_64_IP],
		 "the first frame is the record's ip");

	/* 16 bytes of stack: u_leaf's return address at most */
	r->dyn_size = 16;
	n = unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64);
	CHECK(n >= 0 && n < 4, "dyn_size 16: the unwind ends early (%d)", n);

	/* garbage registers: no crash, no read outside the record */
	r->dyn_size = c->copied;
	memset(r->regs, 0x5a, PMUCTX_REGS_X86_64_NR * 8);
	n = unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64);
	CHECK(n >= 0 && n <= 4, "garbage registers: a few frames at most (%d)",
	      n);

	/* no map: no frames, counted */
	n = unw_unwind(u, NULL, getpid(), 0, 0, r, len, ips, 64);
	CHECK_EQ(n, 0, "no memory map: no frames");
	/* a bad record: refused, counted */
	r->dyn_size = DUMP + 8;
	CHECK_EQ(unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64), -EINVAL,
		 "a malformed record is refused");
	unw_get_stats(u, &st);
	CHECK(st.records == 4 && st.bad == 1 && st.no_map == 1 &&
	      st.unwound == 3, "stats: %llu records, %llu bad, %llu no map, "
	      "%llu unwound", (unsigned long long)st.records,
	      (unsigned long long)st.bad, (unsigned long long)st.no_map,
	      (unsigned long long)st.unwound);
out:
	unw_free(u);
	free(r);
	free((void *)m.text);
	free(c);
}

/* @text with " (deleted)" after every line that names @path */
static char *mark_deleted(const char *text, size_t len, const char *path,
			  size_t *out_len)
{
	size_t pl = strlen(path), n = 0;
	char *out = malloc(len * 2 + 1);
	const char *l = text, *end = text + len;

	if (!out)
		return NULL;
	while (l < end) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(end - l);

		memcpy(out + n, l, ll);
		n += ll;
		if (ll >= pl && !memcmp(l + ll - pl, path, pl)) {
			memcpy(out + n, " (deleted)", 10);
			n += 10;
		}
		if (nl)
			out[n++] = '\n';
		l += ll + 1;
	}
	*out_len = n;
	return out;
}

/*
 * A recording whose map names this test binary "(deleted)", as maps do
 * after a package upgrade, with this process's pid: the unwinder must
 * not take the module from /proc/PID/mem of whatever process has that
 * pid on the machine that runs the report (dwfl_linux_proc_find_elf()
 * does; the review of the dwarf unwinder found it): no CFI for the test
 * binary, so the unwind cannot get through u_leaf..u_a.
 */
static void t_deleted(void)
{
	struct cap *c = calloc(1, sizeof(*c));
	struct pmuctx_rec_user_stack *r = NULL;
	struct prof_maps m = { 0 };
	struct unw *u = NULL;
	char exe[4096];
	size_t len = 0, tl = 0;
	char *text = NULL;
	__u64 ips[64];
	ssize_t k;
	int n;

	t_section("unwind: a deleted file is not read from another process");
#ifndef __x86_64__
	t_diag("not x86-64: skipped");
	free(c);
	return;
#endif
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!c || k <= 0 || !stack_end)
		goto out;
	exe[k] = 0;
	text = self_maps(&tl);
	m.pid = getpid();
	m.text = text ? mark_deleted(text, tl, exe, &m.len) : NULL;
	CHECK(m.text && strstr(m.text, " (deleted)"), "the test binary's "
	      "lines end in (deleted)");
	d_a(c);
	r = make_rec(c, c->copied, &len);
	if (!m.text || !r || unw_new(&u))
		goto out;
	n = unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64);
	CHECK(n < 4 || !in_fn(ips[2], d_b) || !in_fn(ips[3], d_a),
	      "no unwind through the deleted binary (%d frames)", n);
out:
	unw_free(u);
	free(r);
	free((void *)m.text);
	free(text);
	free(c);
}

/* the names of the user frames of @p's only stack, innermost first */
static void stack_names(const struct prof *p, char *buf, size_t len)
{
	const struct prof_stack *st = p->nr_stacks == 1 ? &p->stacks[0] : NULL;
	size_t off = 0;
	__u32 i;

	buf[0] = 0;
	for (i = 0; st && i < st->nr && off + 1 < len; i++) {
		const struct prof_frame *f = &p->frames[st->frames[i] - 1];
		int k = snprintf(buf + off, len - off, "%s ",
				 f->name ? f->name : "?");

		if (k < 0)
			break;
		off += (size_t)k;
	}
}

/*
 * prof_build() of SAMPLE (deferred, cookie 42), USER_STACK and the
 * frame-pointer USER_CALLCHAIN of one frame: the unwound chain replaces
 * the callchain, in either order of the two at the same time (a reader's
 * merge orders equal times by type: USER_CALLCHAIN first)
 */
static void prof_case(const struct cap *c, const struct prof_maps *m,
		      bool same_time, bool garbage, const char *want,
		      const char *what)
{
	__u64 smp[16] = { 0 }, ucc[8] = { 0 };
	struct pmuctx_rec_sample *sm = (void *)smp;
	struct pmuctx_rec_user_callchain *uc = (void *)ucc;
	const struct pmuctx_rec_header *recs[3];
	struct pmuctx_rec_user_stack *us;
	struct prof_input in;
	struct prof *p = NULL;
	char err[256], names[512];
	size_t len;

	us = make_rec(c, c->copied, &len);
	if (!us)
		return;
	if (garbage)
		memset(us->regs, 0x5a, 7 * 8);
	sm->hdr.type = PMUCTX_REC_SAMPLE;
	sm->hdr.size = sizeof(*sm);
	sm->hdr.misc = PMUCTX_SAMPLE_M_USER | PMUCTX_SAMPLE_M_USER_DEFERRED;
	sm->c.pid = sm->c.tid = getpid();
	sm->c.time = 100;
	sm->ip = c->regs[PMUCTX_REGS_X86_64_IP];
	sm->period = 1000;
	sm->cookie = 42;
	uc->hdr.type = PMUCTX_REC_USER_CALLCHAIN;
	uc->hdr.size = sizeof(*uc) + 8;
	uc->c = sm->c;
	uc->c.time = 300;
	uc->cookie = 42;
	uc->nr = 1;
	uc->ips[0] = sm->ip;
	us->c.time = same_time ? 300 : 200;
	recs[0] = &sm->hdr;
	recs[1] = same_time ? &uc->hdr : &us->hdr;
	recs[2] = same_time ? &us->hdr : &uc->hdr;
	memset(&in, 0, sizeof(in));
	in.recs = recs;
	in.nr_recs = 3;
	in.maps = m;
	in.nr_maps = 1;
	in.no_kernel_syms = true;
	CHECK(!prof_build(&in, &p, err, sizeof(err)), "%s: prof_build", what);
	if (!p)
		goto out;
	stack_names(p, names, sizeof(names));
	CHECK_HAS(names, want, "%s", what);
	CHECK_EQ(p->dwarf.records, 1, "%s: one USER_STACK counted", what);
	prof_free(p);
out:
	free(us);
}

static void t_prof(void)
{
	struct cap *c = calloc(1, sizeof(*c));
	struct prof_maps m = { 0 };

	t_section("unwind: prof_build uses the unwound chain");
#ifndef __x86_64__
	free(c);
	return;
#endif
	if (!c)
		return;
	m.pid = getpid();
	m.text = self_maps(&m.len);
	if (!m.text || !stack_end)
		goto out;
	u_a(c);
	prof_case(c, &m, false, false, "u_leaf u_c u_b u_a ",
		  "USER_STACK then USER_CALLCHAIN");
	prof_case(c, &m, true, false, "u_leaf u_c u_b u_a ",
		  "USER_CALLCHAIN then USER_STACK at the same time");
	prof_case(c, &m, false, true, "u_leaf ",
		  "garbage registers: the frame-pointer chain (1 frame)");
out:
	free((void *)m.text);
	free(c);
}

/* ---- the vDSO: a frame in it unwinds with its recorded image ---------- */

static struct cap *vcap;
static volatile sig_atomic_t vcaught;
static uintptr_t vdso_lo, vdso_hi;

/*
 * SIGPROF: the interrupted registers and stack, once the interrupted pc
 * is in the vDSO (clock_gettime's code, or just after the system call it
 * makes where the clock has no vDSO path)
 */
static void vdso_prof(int sig, siginfo_t *si, void *ctx)
{
#ifdef __x86_64__
	static const int map[PMUCTX_REGS_X86_64_NR] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP,
		REG_RSP, REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13,
		REG_R14, REG_R15, REG_RIP,
	};
	const ucontext_t *uc = ctx;
	__u64 ip = (__u64)uc->uc_mcontext.gregs[REG_RIP], sp;
	int i;

	(void)sig;
	(void)si;
	if (vcaught || ip < vdso_lo || ip >= vdso_hi)
		return;
	for (i = 0; i < PMUCTX_REGS_X86_64_NR; i++)
		vcap->regs[i] = (__u64)uc->uc_mcontext.gregs[map[i]];
	sp = vcap->regs[PMUCTX_REGS_X86_64_SP];
	vcap->copied = stack_end - sp < DUMP ?
		       (__u32)(stack_end - sp) & ~7U : DUMP;
	copy_stack(vcap->stack, (const unsigned char *)(uintptr_t)sp,
		   vcap->copied);
	vcaught = 1;
#else
	(void)sig;
	(void)si;
	(void)ctx;
#endif
}

/* v_a -> v_b -> v_c -> clock_gettime() until SIGPROF caught it there */
static NOIPA int v_c(void)
{
	struct timespec ts, t0;
	int n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n++;
	} while (!vcaught && ts.tv_sec - t0.tv_sec < 10);
	return n;
}

static NOIPA int v_b(void)
{
	return v_c() + 1;
}

static NOIPA int v_a(void)
{
	return v_b() + 1;
}

/* the frame of @ips[0..n) that is in @f, or -1 */
static int frame_in(const __u64 *ips, int n, int (*f)(void))
{
	int i;

	for (i = 0; i < n; i++)
		if (ips[i] >= (uintptr_t)f && ips[i] - (uintptr_t)f < 4096)
			return i;
	return -1;
}

static void t_vdso(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { 0 };
	struct pmuctx_rec_user_stack *r = NULL;
	struct sigaction sa = { 0 }, old;
	struct prof_maps m = { 0 };
	struct unw *u = NULL;
	__u64 ips[64], lo, hi;
	size_t len = 0;
	int n, fa, fc;

	t_section("unwind: through the vDSO, with its recorded image");
#ifndef __x86_64__
	t_diag("not x86-64: skipped");
	return;
#endif
	vcap = calloc(1, sizeof(*vcap));
	m.pid = getpid();
	m.text = self_maps(&m.len);
	if (!vcap || !m.text)
		goto out;
	if (!unw_map_vdso(m.text, m.len, &lo, &hi)) {
		t_diag("no [vdso] in /proc/self/maps (vdso=0?): skipped");
		goto out;
	}
	vdso_lo = lo;
	vdso_hi = hi;
	/* stack_end: t_live() read it */
	CHECK(stack_end, "[stack] known");
	sa.sa_sigaction = vdso_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	vcaught = 0;
	sigaction(SIGPROF, &sa, &old);
	setitimer(ITIMER_PROF, &it, NULL);
	v_a();
	setitimer(ITIMER_PROF, &off, NULL);
	sigaction(SIGPROF, &old, NULL);
	CHECK(vcaught, "a SIGPROF in the vDSO within 10 s");
	if (!vcaught)
		goto out;
	r = make_rec(vcap, vcap->copied, &len);
	CHECK(r && !unw_new(&u), "set up");
	if (!r || !u)
		goto out;

	/* the image from this process, as pmuctx record stores it */
	unw_vdso(u, (const void *)vdso_lo, vdso_hi - vdso_lo);
	n = unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64);
	fc = frame_in(ips, n, v_c);
	fa = frame_in(ips, n, v_a);
	CHECK(n > 0 && ips[0] >= vdso_lo && ips[0] < vdso_hi,
	      "the first frame is in the vDSO (%d frames)", n);
	CHECK(fc >= 1 && fa == fc + 2 && frame_in(ips, n, v_b) == fc + 1,
	      "then v_c, v_b, v_a (frames %d, %d, %d of %d)", fc,
	      frame_in(ips, n, v_b), fa, n);
	unw_free(u);
	u = NULL;

	/*
	 * Where the map has no [vdso] line (the module's MMAP snapshots):
	 * the range another map gave, passed in
	 */
	/* without the image: libdwfl may still get out (x86-64 falls back to
	 * frame pointers where it has no CFI, and the vDSO keeps them) */
	if (!unw_new(&u)) {
		n = unw_unwind(u, &m, getpid(), 0, 0, r, len, ips, 64);
		t_diag("without the vDSO's image: %d frames, v_a %s", n,
		       frame_in(ips, n, v_a) >= 0 ? "reached" : "not reached");
		unw_free(u);
		u = NULL;
	}

	/*
	 * A map without the [vdso] line (the module's MMAP snapshots): the
	 * range another map of the process gave, passed in
	 */
	{
		const char *orig = m.text;
		char *text = strdup(orig), *l = text ? strstr(text, "[vdso]") :
						    NULL;
		char *nl = l ? strchr(l, '\n') : NULL;

		while (l && l > text && l[-1] != '\n')
			l--;
		if (l && nl)
			memmove(l, nl + 1, strlen(nl + 1) + 1);
		CHECK(text && !unw_map_vdso(text, strlen(text), &lo, &hi),
		      "a map without its [vdso] line");
		if (text && !unw_new(&u)) {
			m.text = text;
			m.len = strlen(text);
			unw_vdso(u, (const void *)vdso_lo, vdso_hi - vdso_lo);
			n = unw_unwind(u, &m, getpid(), vdso_lo, vdso_hi, r,
				       len, ips, 64);
			CHECK(frame_in(ips, n, v_c) >= 1 &&
			      frame_in(ips, n, v_a) > frame_in(ips, n, v_c),
			      "with the vDSO's range passed in, the unwind "
			      "reaches v_c and v_a (%d frames)", n);
			unw_free(u);
			u = NULL;
		}
		free(text);
		m.text = orig;
	}
out:
	unw_free(u);
	free(r);
	free((void *)m.text);
	free(vcap);
}

void test_unwind(void)
{
	t_check_rec();
	t_live();
	t_deleted();
	t_prof();
	t_vdso();
}
