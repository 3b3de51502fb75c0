/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: the low-level initialisation ThreadX calls from
 * tx_kernel_enter(): the board's part (SysTick, exception priorities, the
 * main stack: tx_board.c, shared with bench/thread-metric) with the byte
 * pool's RAM as ThreadX's first unused memory, and the SysTick handler.
 */
#include "port_threadx.h"

#include "tx_board.h"

extern uint8_t txp_heap[];

void _tx_timer_interrupt(void); /* ports/cortex_m3/gnu/src/tx_timer_interrupt.S */
void rtb_threadx_systick_handler(void);

void _tx_initialize_low_level(void)
{
	tx_board_low_level_init(txp_heap);
}

/* SysTick: ThreadX's tick (timeouts, sleeps and time slices expire here,
 * TX_TIMER_PROCESS_IN_ISR), after one read of the counter, which keeps its
 * 64-bit extension current (it must be read at least once a wrap). */
void rtb_threadx_systick_handler(void)
{
	(void)rtb_port_counter_read();
	_tx_timer_interrupt();
}
