// SPDX-License-Identifier: GPL-2.0
/*
 * dwchain MS: main -> f1 -> f2 -> f3, f3 burning CPU in user space until
 * the thread has used MS ms of CPU time (default 500), for
 * `--call-graph dwarf` on arm64 (tests/vm/cases/95-dwarf-arm64.sh) and
 * the cross-arch unit test (tests/unit/test_unwind_file.c, its fixture
 * recorded by that case).  Without frame pointers (-fomit-frame-pointer:
 * only the CFI of .eh_frame gets from f3 to main), static and without a
 * C library (-nostdlib: a few KiB, small enough to commit as a fixture):
 * _start and the two system calls are here.  Each function does work
 * after its call (no tail call) and is noipa.  The frame pointer register
 * (x29, %rbp) stays 0 from the exec, so a frame-pointer walk stops after
 * the first frame.
 */
#define NOIPA __attribute__((noipa, used))

#define CLOCK_THREAD_CPUTIME_ID	3

#if defined(__aarch64__)
#define NR_EXIT		93
#define NR_CLOCK_GETTIME 113
#elif defined(__x86_64__)
#define NR_EXIT		60
#define NR_CLOCK_GETTIME 228
#else
#error "dwchain.c: no system calls for this architecture"
#endif

struct ts {
	long sec, nsec;
};

static volatile unsigned long sink;

static long sys2(long nr, long a, long b)
{
#if defined(__aarch64__)
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;

	asm volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
#else
	long r;

	asm volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b)
		     : "rcx", "r11", "memory");
	return r;
#endif
}

static long long cpu_ns(void)
{
	struct ts t;

	if (sys2(NR_CLOCK_GETTIME, CLOCK_THREAD_CPUTIME_ID, (long)&t))
		return 1LL << 62;
	return t.sec * 1000000000LL + t.nsec;
}

NOIPA unsigned long f3(unsigned long x, long long until)
{
	unsigned long v = x, i;

	do {
		for (i = 0; i < (1UL << 16); i++)
			v = v * 6364136223846793005UL + 1442695040888963407UL;
	} while (cpu_ns() < until);
	return v;
}

NOIPA unsigned long f2(unsigned long x, long long until)
{
	return f3(x + 1, until) ^ (x * 5);
}

NOIPA unsigned long f1(unsigned long x, long long until)
{
	return f2(x + 2, until) - (x * 7);
}

NOIPA int main(int argc, char **argv)
{
	long ms = 0;
	const char *p;

	for (p = argc > 1 ? argv[1] : "500"; *p >= '0' && *p <= '9'; p++)
		ms = ms * 10 + (*p - '0');
	sink = f1((unsigned long)argc, cpu_ns() + ms * 1000000LL);
	return 0;
}

/* the entry: argc at the stack pointer, argv after it; the outermost frame */
NOIPA void dwchain_start(long *sp)
{
	sys2(NR_EXIT, main((int)sp[0], (char **)(sp + 1)), 0);
	for (;;)
		;
}

#if defined(__aarch64__)
asm(".globl _start\n_start:\n\t.cfi_startproc\n\t.cfi_undefined x30\n\t"
	"mov x29, #0\n\tmov x0, sp\n\tbl dwchain_start\n\t.cfi_endproc");
#else
asm(".globl _start\n_start:\n\t.cfi_startproc\n\t.cfi_undefined rip\n\t"
	"xor %ebp, %ebp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\t"
	"call dwchain_start\n\t.cfi_endproc");
#endif
