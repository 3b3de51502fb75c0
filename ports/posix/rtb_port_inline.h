/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POSIX port: the inlined counter read (see port.c for the design), and
 * the interrupt hand-off's calls rtb_port.h lets a port inline: here a fire
 * with delay 0 is rtb_port_irq_fire(irq, 0) (its timer armed for the next
 * moment, irq.c), and the semaphore's calls are sync.c's.
 *
 * x86-64: RDTSC fenced on both sides with LFENCE, so the read is not moved
 * across earlier or later instructions (CPUID would serialise fully but
 * traps to the hypervisor on virtual machines, costing microseconds).
 * AArch64: ISB then CNTVCT_EL0. 32-bit ARMv7-A and later (A profile): ISB
 * then CNTVCT through MRRC, the same generic timer count; whether the CPU has
 * it and lets user space read it is probed at start-up (counter.c). The ISB
 * keeps the read from being taken before earlier instructions complete.
 * Elsewhere, or when the CPU counter is refused at start-up,
 * CLOCK_MONOTONIC_RAW through an out-of-line call.
 *
 * This header is included by the core, which may not include OS headers, so
 * it declares what it needs itself.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "rtb_port.h"

/* Out-of-line fallback (port.c): CLOCK_MONOTONIC_RAW in nanoseconds. */
uint64_t rtb_posix_counter_fallback(void);
/* Set at start-up: use the fallback clock instead of the CPU counter. */
extern int rtb_posix_counter_use_fallback;

/* The ARM generic timer's virtual count can be read here (AArch64, or
 * 32-bit ARM of the A profile from ARMv7 on). */
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && \
			     defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'A')
#define RTB_POSIX_GENERIC_TIMER 1
#else
#define RTB_POSIX_GENERIC_TIMER 0
#endif

#if defined(__x86_64__)
static inline uint64_t rtb_port_counter_read(void)
{
	uint32_t lo, hi;

	if (__builtin_expect(rtb_posix_counter_use_fallback, 0))
		return rtb_posix_counter_fallback();
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
static inline uint64_t rtb_port_counter_read(void)
{
	uint64_t v;

	if (__builtin_expect(rtb_posix_counter_use_fallback, 0))
		return rtb_posix_counter_fallback();
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}
#elif RTB_POSIX_GENERIC_TIMER
static inline uint64_t rtb_port_counter_read(void)
{
	uint64_t v;

	if (__builtin_expect(rtb_posix_counter_use_fallback, 0))
		return rtb_posix_counter_fallback();
	__asm__ __volatile__("isb\n\tmrrc p15, 1, %Q0, %R0, c14" : "=r"(v)::"memory");
	return v;
}
#else
static inline uint64_t rtb_port_counter_read(void)
{
	return rtb_posix_counter_fallback();
}
#endif

static inline int rtb_port_irq_fire_now(struct rtb_irq *irq)
{
	return rtb_port_irq_fire(irq, 0);
}

int rtb_port_sem_trywait(struct rtb_sem *s);
int rtb_port_sem_signal_from_irq(struct rtb_sem *s);

#endif /* RTB_PORT_INLINE_H */
