/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric: the board glue the FreeRTOS and uC/OS-III porting
 * layers share on mps2-an385 (rtbench's board code: vector table, startup,
 * UART, linker script). printf goes to UART0; a fault prints one line and
 * resets the board, which ends QEMU (-no-reboot).
 */
#include <stdio.h>

#include "board.h"
#include "cm.h"
#include "tm_board_common.h"

#define CM_SCB_SHPR2 0xE000ED1Cu

void cm_fault_handler(void);
void cm_unexpected_handler(void);
void tm_interrupt_handler(void) __attribute__((weak));
void tm_interrupt_preemption_handler(void) __attribute__((weak));

static int uart_putc(char c, FILE *file)
{
	(void)file;
	board_console_write(&c, 1);
	return (unsigned char)c;
}

static FILE uart_out = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &uart_out;

void tm_board_test_interrupt(void)
{
	if (tm_interrupt_handler)
		tm_interrupt_handler();
	else if (tm_interrupt_preemption_handler)
		tm_interrupt_preemption_handler();
	else
		cm_unexpected_handler();
}

void tm_board_svc_priority(uint8_t prio)
{
	CM_REG(CM_SCB_SHPR2) = (uint32_t)prio << 24;
}

void tm_board_stop(const char *what)
{
	static const char tail[] = "\n";

	for (const char *p = what; *p; p++)
		board_console_write(p, 1);
	board_console_write(tail, 1);
	board_reset();
}

void cm_fault_handler(void)
{
	tm_board_stop("THREAD-METRIC-BOARD: fault");
}

void cm_unexpected_handler(void)
{
	tm_board_stop("THREAD-METRIC-BOARD: unexpected exception");
}
