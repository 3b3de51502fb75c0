/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX on a Cortex-A board: the low-level initialisation ThreadX calls
 * from tx_kernel_enter(), the interrupt dispatch its IRQ entry calls
 * (txp_irq.S), and the tick. Written for the board instead of the example's
 * tx_initialize_low_level.S, which programs a Cortex-A9 private timer and
 * brings its own vector table and stacks: here the vector table and every
 * mode's stack are the board's (startup.c), the tick is the board's virtual
 * timer with its next deadline one period after the last (board.c), and the
 * byte pool's RAM is ThreadX's first unused memory.
 *
 * Built with -mgeneral-regs-only like the kernel (port.cmake): this file's
 * own code never touches the VFP registers, as ThreadX's port expects of its
 * interrupt glue; what it calls (the board's dispatch, the scenarios'
 * handlers) runs with them saved by txp_irq.S.
 */
#include "port_threadx.h"

#include "board.h"
#include "ca.h"
#include "tx_initialize.h"
#include "tx_thread.h"

extern uint8_t txp_heap[];
extern uint32_t __stack_svc_top;

void _tx_timer_interrupt(void); /* ports/cortex_a7/gnu/src/tx_timer_interrupt.S */
void txp_irq_dispatch(void);

void _tx_initialize_low_level(void)
{
	(void)ca_irq_save(); /* ThreadX's first schedule opens them */
	_tx_initialize_unused_memory = txp_heap;
	/* main()'s stack, which the scheduler runs on before the first thread */
	_tx_thread_system_stack_ptr = &__stack_svc_top;
	board_tick_start(TX_TIMER_TICKS_PER_SECOND);
}

/* From txp_irq.S, in IRQ mode inside ThreadX's context save. */
void txp_irq_dispatch(void)
{
	uint32_t iar = board_irq_acknowledge();

	board_irq_handler(iar);
	board_irq_end(iar);
}

/* The tick (the board's virtual timer): ThreadX's timeouts, sleeps and time
 * slices expire here (TX_TIMER_PROCESS_IN_ISR), after one read of the
 * counter, which keeps its 64-bit extension current (it must be read at
 * least once a wrap). */
void txp_tick_isr(void)
{
	(void)rtb_port_counter_read();
	_tx_timer_interrupt();
}
