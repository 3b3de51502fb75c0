/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: the board half of the RTOSBench porting layers, the same
 * for every RTOS on the mps2-an385 board (rtbench's ports/boards/mps2-an385:
 * vector table, startup, UART, linker script).
 *
 * Time is the counter rtbench's ports read: the board's 25 MHz dual timer,
 * free-running, 32 bits, counting down. RTOSBench takes the difference of
 * two readings; one 32-bit read is enough (it wraps after 171 s), so
 * no_time_get() is one load, inverted to count up. Its cost, what two
 * back-to-back readings enclose, is measured by the script's own
 * "timestamp" case (timestamp.c) with RTOSBench's macros.
 *
 * RTOSBench's interrupt test raises a software-generated interrupt: here
 * the board's second timer interrupt (CMSDK APB timer 1, IRQ 9) set pending
 * in the NVIC by software, its timer left stopped. The board's handler
 * clears the timer and calls rtb_fw_timer_isr(), which each porting layer
 * defines in its RTOS's idiom around rb_sgi_handler.
 */
#include <string.h>

#include "board.h"
#include "cm.h"
#include "porting_layer.h"
#include "rtb_fw_rtos.h"

#define CM_NVIC_ISPR 0xE000E200u

rb_handler_t rb_sgi_handler;

void cm_fault_handler(void);
void cm_unexpected_handler(void);

static void put(const char *s)
{
	board_console_write(s, strlen(s));
}

static void put_int(int64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;

	*--p = '\0';
	do {
		*--p = (char)('0' + u % 10u);
		u /= 10u;
	} while (u != 0);
	if (v < 0)
		*--p = '-';
	put(p);
}

void rb_board_init(void)
{
	(void)cm_irq_save(); /* the RTOS's start opens interrupts */
	board_init(NULL);
}

void no_serial_write(const char *string)
{
	put(string);
	put("\n");
}

void no_result_report(int64_t max, int64_t min, int64_t average)
{
	put("max=");
	put_int(max);
	put("\nmin=");
	put_int(min);
	put("\naverage=");
	put_int(average);
	put("\n");
}

void no_single_result_report(char *prefix, int64_t time)
{
	put(prefix);
	put_int(time);
	put("\n");
}

void rb_report_samples(const char *name, const int64_t *samples, unsigned count)
{
	put("RB-BEGIN ");
	put(name);
	put(" ");
	put_int(count);
	put(" ");
	put_int(BOARD_COUNTER_HZ);
	put("\n");
	for (unsigned i = 0; i < count; i++) {
		put_int(samples[i]);
		put((i % 16u == 15u || i + 1u == count) ? "\n" : " ");
	}
	put("RB-END\n");
}

no_time_t no_time_get(void)
{
	return ~CM_REG(BOARD_COUNTER_VALUE_ADDR);
}

long no_time_diff(const no_time_t *t1, const no_time_t *t2)
{
	return (long)(uint32_t)(*t2 - *t1);
}

no_time_t no_add_times(const no_time_t *base, unsigned int ticks)
{
	return *base + ticks;
}

void no_cycle_reset_counter(void)
{
}

void no_interrupt_register_sgi_handler(no_int_handler_t fn)
{
	rb_sgi_handler = fn;
}

void no_interrupt_enable_sgi(void)
{
	cm_nvic_enable(BOARD_TIMER1_IRQ, RTB_FW_IRQ_PRIO);
}

void no_interrupt_do_sgi(void)
{
	CM_REG(CM_NVIC_ISPR) = 1u << BOARD_TIMER1_IRQ;
	/* taken before the next instruction */
	__asm volatile("dsb\n\tisb" ::: "memory");
}

static void stop(const char *what)
{
	put(what);
	put("\n");
	board_reset();
}

void cm_fault_handler(void)
{
	stop("RTOSBENCH-BOARD: fault");
}

void cm_unexpected_handler(void)
{
	stop("RTOSBENCH-BOARD: unexpected exception");
}
