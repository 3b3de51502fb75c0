/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cortex-A fault handlers: an undefined instruction, a prefetch or data
 * abort, an FIQ or the reserved vector writes one `#rtb err` line with the
 * faulting address and stops the board; the host's watchdog ends the
 * emulator and counts the unit as lost. rtb_fw_fatal() is that stop, for
 * every firmware port: fatal errors of the RTOS port end the same way.
 *
 * Each handler runs on its mode's stack (the board's start sets them all
 * up). The faulting instruction is lr less 4 for an undefined instruction
 * or a prefetch abort, less 8 for a data abort (ARM state).
 */
#include <stdint.h>

#include "board.h"
#include "ca.h"
#include "rtb/core.h"
#include "serial_proto.h"

void ca_undef_handler(void);
void ca_prefetch_abort_handler(void);
void ca_data_abort_handler(void);
void ca_unexpected_handler(void);
void ca_fault_report(uint32_t lr, uint32_t kind);

enum { FAULT_UNDEF, FAULT_PREFETCH, FAULT_DATA };

void ca_fault_report(uint32_t lr, uint32_t kind)
{
	if (kind == FAULT_DATA) {
		uint32_t dfar;
		__asm volatile("mrc p15, 0, %0, c6, c0, 0" : "=r"(dfar));
		char text[64];
		rtb_fmt(text, sizeof(text), "data abort (address 0x%08lx) at pc",
			(unsigned long)dfar);
		rtb_fw_fatal(text, lr - 8u);
	}
	rtb_fw_fatal(kind == FAULT_UNDEF ? "undefined instruction at pc" : "prefetch abort at pc",
		     lr - 4u);
}

__attribute__((naked)) void ca_undef_handler(void)
{
	__asm volatile("mov r0, lr\n\t"
		       "mov r1, #0\n\t"
		       "b ca_fault_report\n\t");
}

__attribute__((naked)) void ca_prefetch_abort_handler(void)
{
	__asm volatile("mov r0, lr\n\t"
		       "mov r1, #1\n\t"
		       "b ca_fault_report\n\t");
}

__attribute__((naked)) void ca_data_abort_handler(void)
{
	__asm volatile("mov r0, lr\n\t"
		       "mov r1, #2\n\t"
		       "b ca_fault_report\n\t");
}

void ca_unexpected_handler(void)
{
	uint32_t cpsr;

	__asm volatile("mrs %0, cpsr" : "=r"(cpsr));
	rtb_fw_fatal("unexpected exception, mode", cpsr & CA_MODE_MASK);
}

void rtb_fw_fatal(const char *what, uint32_t value)
{
	char text[200];
	size_t len;

	(void)ca_irq_save();
	if (value != 0)
		len = rtb_fmt(text, sizeof(text), "%s 0x%08lx", what, (unsigned long)value);
	else
		len = rtb_fmt(text, sizeof(text), "%s", what);
	/* straight to the UART: no lock, any context */
	rtb_serial_put_chunks(board_console_write, "err", text, len);
	for (;;)
		__asm volatile("wfi");
}
