// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: x86-64 (module/arch.h).
 *
 * The sampler's user copy is copy_from_user_nmi(): a PMU overflow is an
 * NMI on x86-64; it checks the range itself and never faults.
 */
#include <linux/build_bug.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>
#ifdef PMUCTX_HAVE_ASM_CPUID_API
#include <asm/cpuid/api.h>
#endif
#include <asm/perf_event.h>
#include <asm/ptrace.h>

#include <uapi/linux/pmuctx.h>

#include "arch.h"

static_assert(PMUCTX_REGS_X86_64_NR <= PMUCTX_ARCH_REGS_MAX);

unsigned long pmuctx_arch_user_fp(const struct pt_regs *regs)
{
	return regs->bp;
}

unsigned long pmuctx_arch_user_ip(const struct pt_regs *regs)
{
	return regs->ip;
}

unsigned long pmuctx_arch_copy_user_nofault(void *dst, const void __user *src,
					    unsigned long n)
{
	return copy_from_user_nmi(dst, src, n);
}

u16 pmuctx_arch_regs_abi(void)
{
	return PMUCTX_REGS_X86_64;
}

unsigned int pmuctx_arch_regs_nr(void)
{
	return PMUCTX_REGS_X86_64_NR;
}

/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
bool pmuctx_arch_user_regs(const struct pt_regs *regs, u64 *out,
			   unsigned long *sp)
{
	if (!user_64bit_mode((struct pt_regs *)regs))
		return false;
	out[0] = regs->ax;
	out[1] = regs->dx;
	out[2] = regs->cx;
	out[3] = regs->bx;
	out[4] = regs->si;
	out[5] = regs->di;
	out[6] = regs->bp;
	out[7] = regs->sp;
	out[8] = regs->r8;
	out[9] = regs->r9;
	out[10] = regs->r10;
	out[11] = regs->r11;
	out[12] = regs->r12;
	out[13] = regs->r13;
	out[14] = regs->r14;
	out[15] = regs->r15;
	out[16] = regs->ip;
	*sp = regs->sp;
	return true;
}

/*
 * What perf's x86 drivers read at boot: Intel's architectural leaf 0xA
 * (EAX[15:8]: general-purpose counters per logical CPU), AMD's 0x80000022
 * (EBX[3:0], PerfMonV2) or its 6 core counters (PERFCTR_CORE) or 4.  Not
 * perf_get_x86_pmu_capability(): since 7.x it is exported to KVM only
 * (Module.symvers namespace module:kvm,...), and it WARNs on a hybrid
 * CPU, whose smaller core type (Gracemont) has 6.
 */
unsigned int pmuctx_arch_pmu_counters(void)
{
	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
	case X86_VENDOR_ZHAOXIN:
	case X86_VENDOR_CENTAUR:	/* zhaoxin_pmu_init() serves both */
		if (boot_cpu_has(X86_FEATURE_HYBRID_CPU))
			return 6;
		if (boot_cpu_data.cpuid_level < 0xa)
			return 0;
		return (cpuid_eax(0xa) >> 8) & 0xff;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		if (boot_cpu_has(X86_FEATURE_PERFMON_V2))
			return cpuid_ebx(0x80000022) & 0xf;
		return boot_cpu_has(X86_FEATURE_PERFCTR_CORE) ? 6 : 4;
	default:
		return 0;
	}
}

unsigned int pmuctx_arch_raw_counters(const struct pmuctx_event_desc *d)
{
	u64 sel = (d->config & 0xff) | ((d->config >> 24) & 0xf00);

	if (d->config1 || d->config2)
		return 2;
	if ((boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
	     boot_cpu_data.x86_vendor == X86_VENDOR_HYGON) &&
	    boot_cpu_data.x86 >= 0x17 && sel == 0x003)
		return 2;
	return 1;
}
