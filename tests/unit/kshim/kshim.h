/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel primitives module/rb.c, evdesc.c and budget.c use, for
 * compiling those files unchanged into host tests (test_rb.c,
 * test_evdesc.c, test_budget.c).  The linux/ and asm/ headers beside this
 * one are what they include; each includes this file.
 * Single-threaded: "IRQs off" is a counter the test checks, the CPU and
 * the clock are the test's, WARN_ON_ONCE() counts a failure.
 */
#ifndef PMUCTX_KSHIM_H
#define PMUCTX_KSHIM_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as the kernel's, for %llu */
typedef int32_t s32;

#define U16_MAX		((u16)~0U)
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)

#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L

/* the test's state of the "CPU" the file runs on */
#define KSHIM_MAX_CPUS	8
extern unsigned int kshim_nr_cpus;	/* "online", budget.c */
extern unsigned int kshim_irqs_off;	/* local_irq_save() depth */
extern unsigned int kshim_warnings;	/* WARN_ON_ONCE()s that fired */
extern unsigned int kshim_cpu;
extern u64 kshim_now;
void kshim_warn(const char *file, int line, const char *cond);

#define local_irq_save(f)	do { (f) = kshim_irqs_off++; } while (0)
#define local_irq_restore(f)	do { kshim_irqs_off = (f); } while (0)
#define in_nmi()		0
#define smp_processor_id()	kshim_cpu
#define WARN_ON_ONCE(c) ({						\
	bool __c = !!(c);						\
	if (__c)							\
		kshim_warn(__FILE__, __LINE__, #c);			\
	__c;								\
})

static inline u64 ktime_get_mono_fast_ns(void)
{
	return ++kshim_now;
}

#endif
