/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annprobe.c's annprobe_loop: where its instructions are (bytes from its
 * start), and its size; 0 where it is not written in assembly.
 */
#ifndef PMUCTX_TEST_ANNPROBE_H
#define PMUCTX_TEST_ANNPROBE_H

#if defined(__x86_64__)
#define ANNPROBE_ADD	2
#define ANNPROBE_CMP	5
#define ANNPROBE_JNE	7
#define ANNPROBE_SIZE	10
#elif defined(__aarch64__)
#define ANNPROBE_ADD	4
#define ANNPROBE_CMP	8
#define ANNPROBE_JNE	12
#define ANNPROBE_SIZE	24
#else
#define ANNPROBE_SIZE	0
#endif

#endif
