// SPDX-License-Identifier: GPL-2.0
/*
 * annprobe: a program with a known hot loop, for the annotate group of
 * ring-tests (test_annotate.c).  annprobe_loop(n) counts to n; it is
 * written in assembly so that its instructions lie at the offsets
 * annprobe.h gives.  Run without arguments, annprobe prints the
 * addresses of annprobe_loop and main and waits to be killed (its memory
 * map is read meanwhile); with N, it runs the loop N times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "annprobe.h"

int annprobe_loop(int n);

/* the function's frame around its instructions: @type is @ or % */
#define LOOP_ASM(type, insns)						\
	__asm__("	.text\n"						\
		"	.globl annprobe_loop\n"				\
		"	.type annprobe_loop, " type "function\n"		\
		"annprobe_loop:\n"					\
		insns							\
		"	.size annprobe_loop, .-annprobe_loop\n")

#if defined(__x86_64__)
LOOP_ASM("@", "	xorl %eax, %eax\n"		/* 0 */
	 "1:	addl $1, %eax\n"		/* 2: ANNPROBE_ADD */
	 "	cmpl %edi, %eax\n"		/* 5: ANNPROBE_CMP */
	 "	jne 1b\n"			/* 7: ANNPROBE_JNE */
	 "	ret\n");			/* 9 */
#elif defined(__aarch64__)
LOOP_ASM("%", "	mov w1, #0\n"			/* 0 */
	 "1:	add w1, w1, #1\n"		/* 4: ANNPROBE_ADD */
	 "	cmp w1, w0\n"			/* 8: ANNPROBE_CMP */
	 "	b.ne 1b\n"			/* 12: ANNPROBE_JNE */
	 "	mov w0, w1\n"			/* 16 */
	 "	ret\n");			/* 20 */
#else
int annprobe_loop(int n)
{
	volatile int i = 0;

	while (i != n)
		i++;
	return i;
}
#endif

int main(int argc, char **argv)
{
	int n;

	if (argc > 1) {
		n = atoi(argv[1]);
		return annprobe_loop(n) != n;
	}
	printf("%p %p\n", (void *)annprobe_loop, (void *)main);
	fflush(stdout);
	pause();
	return 0;
}
