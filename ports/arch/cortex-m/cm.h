/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cortex-M (ARMv7-M) plumbing shared by every Cortex-M board and firmware
 * port: interrupt masking, the NVIC (a line raised from software too), the
 * system reset request, and the 64-bit extension of a board's 32-bit
 * down-counter. Only compiler headers: the core's freestanding build reads
 * it through rtb_port_inline.h.
 */
#ifndef RTB_CM_H
#define RTB_CM_H

#include <stdint.h>

#define CM_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define CM_NVIC_ISER 0xE000E100u
#define CM_NVIC_ICER 0xE000E180u
#define CM_NVIC_ISPR 0xE000E200u
#define CM_NVIC_ICPR 0xE000E280u
#define CM_NVIC_IPR 0xE000E400u
#define CM_SCB_AIRCR 0xE000ED0Cu

/* Mask every interrupt (PRIMASK); returns the previous mask for cm_restore. */
static inline uint32_t cm_irq_save(void)
{
	uint32_t primask;

	__asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
	return primask;
}

static inline void cm_irq_restore(uint32_t primask)
{
	__asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

static inline void cm_nvic_enable(unsigned irq, uint8_t prio)
{
	*(volatile uint8_t *)(uintptr_t)(CM_NVIC_IPR + irq) = prio;
	CM_REG(CM_NVIC_ICPR + 4u * (irq / 32u)) = 1u << (irq % 32u);
	CM_REG(CM_NVIC_ISER + 4u * (irq / 32u)) = 1u << (irq % 32u);
}

static inline void cm_nvic_disable(unsigned irq)
{
	CM_REG(CM_NVIC_ICER + 4u * (irq / 32u)) = 1u << (irq % 32u);
}

/* Raise interrupt line irq from software: set it pending (ISPR; the lines
 * of word `word` whose bit is set in `bits`, for a caller that knows them
 * beforehand). The DSB completes the write and the ISB refetches what
 * follows, so a line the caller's priority and mask let through is taken
 * before the next instruction of the caller. */
static inline void cm_nvic_pend_bits(unsigned word, uint32_t bits)
{
	CM_REG(CM_NVIC_ISPR + 4u * word) = bits;
	__asm volatile("dsb\n\tisb" ::: "memory");
}

static inline void cm_nvic_pend(unsigned irq)
{
	cm_nvic_pend_bits(irq / 32u, 1u << (irq % 32u));
}

/* Running in an interrupt handler (IPSR non-zero)? */
static inline int cm_in_isr(void)
{
	uint32_t ipsr;

	__asm volatile("mrs %0, ipsr" : "=r"(ipsr));
	return ipsr != 0;
}

/* SYSRESETREQ: the board resets (QEMU with -no-reboot exits). */
static inline void cm_system_reset(void)
{
	__asm volatile("dsb" ::: "memory");
	CM_REG(CM_SCB_AIRCR) = 0x05FA0004u;
	__asm volatile("dsb" ::: "memory");
	for (;;)
		__asm volatile("wfi");
}

/* The 64-bit counter: a board's 32-bit down-counter at addr, turned into an
 * up-count and extended by counting its wraps. A read and the wrap check are
 * one step with interrupts masked (a few instructions), so any task or
 * interrupt may read it; it must be read at least once per wrap (171 s at
 * 25 MHz), which the tick hook does.
 *
 * One asm block of fixed instructions, addresses included: the compiler
 * can neither schedule its own code into it nor spread it differently from
 * one call site to the next, so the code between two reads (what the core's
 * calibration measures and subtracts) is the same wherever they are taken.
 * Four instructions before the register's load (mask, the register's
 * address), the load, and nine after it (the state's address, the wrap
 * check, the store, unmask). */
struct cm_counter_state {
	uint32_t last;
	uint32_t high;
};
extern struct cm_counter_state cm_counter_state;

static inline __attribute__((always_inline)) uint64_t cm_counter_read(uintptr_t addr)
{
	uint32_t low, high, last, primask, p;

	__asm volatile("mrs %[pm], primask\n\t"
		       "cpsid i\n\t"
		       "movw %[p], #:lower16:%c[reg]\n\t"
		       "movt %[p], #:upper16:%c[reg]\n\t"
		       "ldr %[low], [%[p]]\n\t"
		       "movw %[p], #:lower16:%c[st]\n\t"
		       "movt %[p], #:upper16:%c[st]\n\t"
		       "ldrd %[last], %[high], [%[p]]\n\t"
		       "mvns %[low], %[low]\n\t"
		       "cmp %[low], %[last]\n\t"
		       "it cc\n\t"
		       "addcc %[high], %[high], #1\n\t"
		       "strd %[low], %[high], [%[p]]\n\t"
		       "msr primask, %[pm]"
		       : [low] "=&r"(low), [high] "=&r"(high), [last] "=&r"(last),
			 [pm] "=&r"(primask), [p] "=&r"(p)
		       : [reg] "i"(addr), [st] "i"(&cm_counter_state)
		       : "cc", "memory");
	return ((uint64_t)high << 32) | low;
}

#endif /* RTB_CM_H */
