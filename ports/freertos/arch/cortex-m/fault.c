/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cortex-M fault handlers: a fault (HardFault and the faults escalated to it,
 * NMI) or an interrupt nobody installed writes one `#rtb err` line with the
 * faulting address and stops the board; the host's watchdog ends the
 * emulator and counts the unit as lost.
 */
#include <stdint.h>

#include "cm.h"

void rtb_freertos_fatal(const char *what, uint32_t value);
void cm_fault_handler(void);
void cm_unexpected_handler(void);
void cm_fault_report(uint32_t *frame, uint32_t exc_return);

void cm_fault_report(uint32_t *frame, uint32_t exc_return)
{
	uint32_t ipsr;

	(void)exc_return;
	__asm volatile("mrs %0, ipsr" : "=r"(ipsr));
	/* frame: r0 r1 r2 r3 r12 lr pc xpsr */
	rtb_freertos_fatal(ipsr == 2 ? "NMI at pc" : "HardFault at pc", frame[6]);
}

__attribute__((naked)) void cm_fault_handler(void)
{
	__asm volatile("tst lr, #4\n\t"
		       "ite eq\n\t"
		       "mrseq r0, msp\n\t"
		       "mrsne r0, psp\n\t"
		       "mov r1, lr\n\t"
		       "b cm_fault_report\n\t");
}

void cm_unexpected_handler(void)
{
	uint32_t ipsr;

	__asm volatile("mrs %0, ipsr" : "=r"(ipsr));
	rtb_freertos_fatal("unexpected exception", ipsr);
}
