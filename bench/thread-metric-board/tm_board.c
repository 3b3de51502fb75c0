/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric: the board glue that lets ThreadX's own Thread-Metric
 * tests (built from THREADX_PATH/utility/benchmarks/thread_metric, with
 * their ThreadX porting layer and example main, unchanged) run on the
 * mps2-an385 board with rtbench's startup, vector table, UART and linker
 * script (ports/boards/mps2-an385).
 *
 * ThreadX's low-level setup is rtbench's ThreadX port's own
 * (ports/threadx/tx_board.c: SysTick at TX_TIMER_TICKS_PER_SECOND from the
 * board's 25 MHz clock at priority 0xC0, PendSV and SVCall at the lowest),
 * linked into these images too, so both sides run on the same setup.
 * SVCall runs the test's interrupt handler (the original raises its
 * interrupt with `SVC #0`); printf goes to UART0; a fault prints one line
 * and resets the board, which ends QEMU (-no-reboot).
 */
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "cm.h"
#include "tx_api.h"
#include "tx_board.h"

void _tx_timer_interrupt(void);
void tm_board_systick_handler(void);
void tm_board_svc_handler(void);
void cm_fault_handler(void);
void cm_unexpected_handler(void);

/* The interrupt handler of whichever test is linked (the others define
 * neither). */
void tm_interrupt_handler(void) __attribute__((weak));
void tm_interrupt_preemption_handler(void) __attribute__((weak));

/* ThreadX's first unused memory: the tests allocate nothing from it. */
static uint8_t first_unused[8] __attribute__((section(".heap"), used));

static int uart_putc(char c, FILE *file)
{
	(void)file;
	board_console_write(&c, 1);
	return (unsigned char)c;
}

static FILE uart_out = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &uart_out;

void _tx_initialize_low_level(void)
{
	(void)cm_irq_save(); /* before the board: ThreadX's first schedule opens them */
	board_init(NULL);
	tx_board_low_level_init(first_unused);
}

void tm_board_systick_handler(void)
{
	_tx_timer_interrupt();
}

void tm_board_svc_handler(void)
{
	if (tm_interrupt_handler)
		tm_interrupt_handler();
	else if (tm_interrupt_preemption_handler)
		tm_interrupt_preemption_handler();
	else
		cm_unexpected_handler();
}

static void stop(const char *what)
{
	static const char tail[] = "\n";

	for (const char *p = what; *p; p++)
		board_console_write(p, 1);
	board_console_write(tail, 1);
	board_reset();
}

void cm_fault_handler(void)
{
	stop("THREAD-METRIC-BOARD: fault");
}

void cm_unexpected_handler(void)
{
	stop("THREAD-METRIC-BOARD: unexpected exception");
}

/* The board's timers and software lines are not used by these images. */
void rtb_fw_timer_isr(unsigned n)
{
	(void)n;
}

void rtb_fw_soft0_isr(void)
{
}

void rtb_fw_soft1_isr(void)
{
}
