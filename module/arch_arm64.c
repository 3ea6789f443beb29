// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx: arm64 (module/arch.h).
 *
 * A PMU overflow is a normal interrupt on arm64 (a pseudo-NMI only with
 * CONFIG_ARM64_PSEUDO_NMI and irqchip.gicv3_pseudo_nmi=1), and there is
 * no copy_from_user_nmi().  The sampler's user copy is
 * copy_from_user_nofault() (mm/maccess.c, exported): access_ok() without
 * its task-context check, nmi_uaccess_okay(), then
 * __copy_from_user_inatomic() under pagefault_disable(): never faults,
 * never sleeps, any context, as perf's own arm64 user callchain walk.
 */
#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

#include <uapi/linux/pmuctx.h>

#include "arch.h"

static_assert(PMUCTX_REGS_ARM64_NR <= PMUCTX_ARCH_REGS_MAX);

/* AAPCS64: x29 is the frame pointer, its frame record { x29, x30 (lr) } */
unsigned long pmuctx_arch_user_fp(const struct pt_regs *regs)
{
	return regs->regs[29];
}

unsigned long pmuctx_arch_user_ip(const struct pt_regs *regs)
{
	return regs->pc;
}

unsigned long pmuctx_arch_copy_user_nofault(void *dst, const void __user *src,
					    unsigned long n)
{
	return copy_from_user_nofault(dst, src, n) ? n : 0;
}

u16 pmuctx_arch_regs_abi(void)
{
	return PMUCTX_REGS_ARM64;
}

unsigned int pmuctx_arch_regs_nr(void)
{
	return PMUCTX_REGS_ARM64_NR;
}

/* DWARF numbering: x0..x30, sp; then pc (as perf's PERF_REG_ARM64_PC) */
bool pmuctx_arch_user_regs(const struct pt_regs *regs, u64 *out,
			   unsigned long *sp)
{
	int i;

	if (compat_user_mode(regs))
		return false;
	for (i = 0; i < 31; i++)
		out[i] = regs->regs[i];
	out[PMUCTX_REGS_ARM64_SP] = regs->sp;
	out[PMUCTX_REGS_ARM64_PC] = regs->pc;
	*sp = regs->sp;
	return true;
}

/* the smallest PMCR_EL0.N of the CPUs it runs on; @info: unsigned int */
static void pmuctx_arm64_pmcr_n(void *info)
{
	unsigned int *n = info, here = (read_sysreg(pmcr_el0) >> 11) & 0x1f;

	if (here < *n)
		*n = here;
}

/*
 * PMCR_EL0.N (bits 15:11): the event counters of a CPU's PMUv3, the cycle
 * counter apart; the smallest of the online CPUs (big.LITTLE cores may
 * differ), read on each in turn.  Only where ID_AA64DFR0_EL1.PMUVer says
 * PMUv3 (1..14): with an IMPLEMENTATION DEFINED PMU (0xf: Apple's, which
 * perf drives with its own driver) PMCR_EL0 is an undefined instruction.
 */
unsigned int pmuctx_arch_pmu_counters(void)
{
	unsigned int pmuver = (read_sysreg(id_aa64dfr0_el1) >> 8) & 0xf;
	unsigned int n = 0x1f;
	int cpu;

	if (pmuver == 0 || pmuver == 0xf)
		return 0;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, pmuctx_arm64_pmcr_n, &n, 1);
	cpus_read_unlock();
	return n;
}

/* config1 bit 0: a 64-bit event, two chained counters before PMUv3p5 */
unsigned int pmuctx_arch_raw_counters(const struct pmuctx_event_desc *d)
{
	return d->config1 & 1 ? 2 : 1;
}
