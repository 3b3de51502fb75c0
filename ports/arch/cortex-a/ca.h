/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cortex-A (ARMv7-A) plumbing shared by every Cortex-A board and firmware
 * port: interrupt masking (CPSR.I), the exception-context test, and the
 * counter: the generic timer's virtual count (CNTVCT, 64 bits), or, when it
 * counts (QEMU's -icount), the PMU's instructions-retired event extended to
 * 64 bits. Only compiler headers: the core's freestanding build reads it
 * through rtb_port_inline.h.
 */
#ifndef RTB_CA_H
#define RTB_CA_H

#include <stdint.h>

#define CA_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define CA_MODE_MASK 0x1Fu
#define CA_MODE_USR 0x10u
#define CA_MODE_SVC 0x13u
#define CA_MODE_SYS 0x1Fu
#define CA_CPSR_I 0x80u

/* Mask IRQs at the CPU (CPSR.I); returns the previous CPSR for ca_irq_restore. */
static inline uint32_t ca_irq_save(void)
{
	uint32_t cpsr;

	__asm volatile("mrs %0, cpsr\n\tcpsid i" : "=r"(cpsr)::"memory");
	return cpsr;
}

static inline void ca_irq_restore(uint32_t cpsr)
{
	__asm volatile("msr cpsr_c, %0" ::"r"(cpsr) : "memory");
}

/* In an exception handler? Every interrupt handler of these ports runs with
 * IRQs masked at the CPU (in SVC mode for FreeRTOS's, in IRQ mode for
 * others), tasks with them open, in System, User or SVC mode. */
static inline int ca_in_isr(void)
{
	uint32_t cpsr, mode;

	__asm volatile("mrs %0, cpsr" : "=r"(cpsr));
	mode = cpsr & CA_MODE_MASK;
	return (cpsr & CA_CPSR_I) != 0 ||
	       (mode != CA_MODE_SYS && mode != CA_MODE_USR && mode != CA_MODE_SVC);
}

/* The generic timer's virtual timer: its count (CNTVCT), compare value
 * (CNTV_CVAL) and control (CNTV_CTL: enable, ISTATUS). virt-a7 ticks the RTOS
 * with it; a port whose OS keeps the tick on the physical timer (NuttX's
 * qemu-armv7a) takes it as its interrupt source instead. */
#define CA_TIMER_CTL_ENABLE 1u
#define CA_TIMER_CTL_ISTATUS 4u

static inline uint64_t ca_cntvct(void)
{
	uint32_t low, high;

	__asm volatile("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(low), "=r"(high)::"memory");
	return ((uint64_t)high << 32) | low;
}

static inline void ca_cntv_cval_set(uint64_t v)
{
	__asm volatile("mcrr p15, 3, %0, %1, c14\n\tisb" ::"r"((uint32_t)v),
		       "r"((uint32_t)(v >> 32))
		       : "memory");
}

static inline void ca_cntv_ctl_set(uint32_t v)
{
	__asm volatile("mcr p15, 0, %0, c14, c3, 1\n\tisb" ::"r"(v) : "memory");
}

static inline uint32_t ca_cntv_ctl(void)
{
	uint32_t v;

	__asm volatile("mrc p15, 0, %0, c14, c3, 1" : "=r"(v));
	return v;
}

/* The 64-bit counter (fw_time.c chooses it at start, ca_counter_start):
 * pmu 0, CNTVCT, read as it is; pmu 1, the PMU's event counter 0 on
 * instructions retired (PMSELR left at 0), extended by counting its wraps
 * with IRQs masked, like the Cortex-M boards' 32-bit timers. It must then be
 * read at least once per wrap (2^32 instructions), which the tick hook does.
 *
 * One asm block of fixed instructions, as on the Cortex-M: the code between
 * two reads is the same wherever they are taken. The code path trace finds
 * the reads by these two instructions and takes the value from QEMU's
 * register dump before the next translated block, so `low` keeps the value
 * read until its block ends: QEMU ends a block at each read under -icount,
 * and otherwise at the branch that follows the CNTVCT read. */
struct ca_counter_state {
	uint32_t last;	  /* pmu: the last value read */
	uint32_t high;	  /* pmu: its wraps */
	uint32_t pmu;	  /* which counter (above) */
	uint32_t hz;	  /* its ticks per second */
	uint32_t tick_ns; /* ns per tick, rounded (durations in ticks) */
};
extern struct ca_counter_state ca_counter_state;

static inline __attribute__((always_inline)) uint64_t ca_counter_read(void)
{
	uint32_t low, high, last, cpsr, p;

	__asm volatile("movw %[p], #:lower16:%c[st]\n\t"
		       "movt %[p], #:upper16:%c[st]\n\t"
		       "ldr %[low], [%[p], #8]\n\t"
		       "cmp %[low], #0\n\t"
		       "bne 1f\n\t"
		       "isb\n\t"
		       "mrrc p15, 1, %[low], %[high], c14\n\t"
		       "b 2f\n"
		       "1:\tmrs %[ps], cpsr\n\t"
		       "cpsid i\n\t"
		       "mrc p15, 0, %[low], c9, c13, 2\n\t"
		       "ldr %[last], [%[p]]\n\t"
		       "ldr %[high], [%[p], #4]\n\t"
		       "cmp %[low], %[last]\n\t"
		       "addlo %[high], %[high], #1\n\t"
		       "str %[low], [%[p]]\n\t"
		       "str %[high], [%[p], #4]\n\t"
		       "msr cpsr_c, %[ps]\n"
		       "2:"
		       : [low] "=&r"(low), [high] "=&r"(high), [last] "=&r"(last), [ps] "=&r"(cpsr),
			 [p] "=&r"(p)
		       : [st] "i"(&ca_counter_state)
		       : "cc", "memory");
	return ((uint64_t)high << 32) | low;
}

#endif /* RTB_CA_H */
