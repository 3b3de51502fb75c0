/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cortex-M fault handlers: a fault (HardFault and the faults escalated to it,
 * NMI) or an interrupt nobody installed writes one `#rtb err` line with the
 * faulting address and stops the board; the host's watchdog ends the
 * emulator and counts the unit as lost. rtb_fw_fatal() is that stop, for
 * every firmware port: fatal errors of the RTOS port end the same way.
 */
#include <stdint.h>

#include "board.h"
#include "cm.h"
#include "rtb/core.h"
#include "serial_proto.h"

void cm_fault_handler(void);
void cm_unexpected_handler(void);
void cm_fault_report(uint32_t *frame, uint32_t exc_return);

void cm_fault_report(uint32_t *frame, uint32_t exc_return)
{
	uint32_t ipsr;

	(void)exc_return;
	__asm volatile("mrs %0, ipsr" : "=r"(ipsr));
	/* frame: r0 r1 r2 r3 r12 lr pc xpsr */
	rtb_fw_fatal(ipsr == 2 ? "NMI at pc" : "HardFault at pc", frame[6]);
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
	rtb_fw_fatal("unexpected exception", ipsr);
}

void rtb_fw_fatal(const char *what, uint32_t value)
{
	char text[200];
	size_t len;

	(void)cm_irq_save();
	if (value != 0)
		len = rtb_fmt(text, sizeof(text), "%s 0x%08lx", what, (unsigned long)value);
	else
		len = rtb_fmt(text, sizeof(text), "%s", what);
	/* straight to the UART: no lock, any context */
	rtb_serial_put_chunks(board_console_write, "err", text, len);
	for (;;)
		__asm volatile("wfi");
}
