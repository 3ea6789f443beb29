/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx: what differs between architectures, in one place.
 *
 * Each supported architecture has one file, arch_<arch>.c, that Kbuild
 * compiles for it (module/Kbuild); the shared code calls only what is
 * declared here.  Contexts: pmuctx_arch_copy_user_nofault() is called
 * from the sampling interrupt (hrtimer hardirq, or a PMU overflow, which
 * is an NMI on x86-64 and a plain IRQ on arm64): it must not sleep, take
 * a lock that sleeps, allocate or fault pages in.  pmuctx_arch_pmu_counters()
 * (module load: process context; on arm64 a call on each online CPU)
 * and pmuctx_arch_raw_counters() (SESSION_CREATE) are off the hot paths;
 * the others are pure register reads.
 */
#ifndef PMUCTX_ARCH_H
#define PMUCTX_ARCH_H

#include <linux/ptrace.h>
#include <linux/types.h>

/* The largest PMUCTX_REGS_*_NR of any architecture (arm64: 33). */
#define PMUCTX_ARCH_REGS_MAX	33

/*
 * User frame-pointer walk: the frame pointer and the instruction pointer
 * of user registers @regs.  Both architectures keep a frame record
 * { previous frame pointer, return address } at the frame pointer
 * (x86-64 rbp, arm64 x29), which pmuctx_user_walk() follows.
 */
unsigned long pmuctx_arch_user_fp(const struct pt_regs *regs);
unsigned long pmuctx_arch_user_ip(const struct pt_regs *regs);

/*
 * Copy @n bytes of user memory from @src without faulting and without
 * sleeping, from any context the sampler runs in.  Returns the number of
 * bytes NOT copied (0 on success), as copy_from_user().
 */
unsigned long pmuctx_arch_copy_user_nofault(void *dst, const void __user *src,
					    unsigned long n);

/*
 * The user registers of a USER_STACK record (--call-graph dwarf), in the
 * layout of PMUCTX_REGS_<arch> (include/uapi/linux/pmuctx.h).
 * pmuctx_arch_regs_abi() is that PMUCTX_REGS_* value, pmuctx_arch_regs_nr()
 * its register count (<= PMUCTX_ARCH_REGS_MAX).
 * pmuctx_arch_user_regs() fills @out and *@sp from @regs; false for a
 * task whose registers have another layout (a 32-bit task): no dump.
 */
u16 pmuctx_arch_regs_abi(void);
unsigned int pmuctx_arch_regs_nr(void);
bool pmuctx_arch_user_regs(const struct pt_regs *regs, u64 *out,
			   unsigned long *sp);

/*
 * The general-purpose (event) counters of the CPUs' PMU, the smallest of
 * any online CPU's, for the default of max_unprivileged_pmu_counters; a
 * dedicated cycle or fixed counter is not one.  Process context, after a
 * hardware PMU was found (pmuctx_detect_hw_pmu()).  0 when the
 * architecture does not say.
 */
unsigned int pmuctx_arch_pmu_counters(void);

/*
 * The general-purpose counters raw event @d takes on the CPU's PMU when
 * scheduled: 1, or 2 where the PMU chains or pairs counters for it (a
 * 64-bit event on arm64 before PMUv3p5; AMD's merge event 0x003 since
 * family 17h; an x86 event with an extra register, config1/config2,
 * counted 2 as well for the shared register it takes).  Process context.
 */
struct pmuctx_event_desc;
unsigned int pmuctx_arch_raw_counters(const struct pmuctx_event_desc *d);

#endif /* PMUCTX_ARCH_H */
