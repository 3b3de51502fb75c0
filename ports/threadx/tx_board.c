/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX on rtbench's boards: the board-level part of
 * _tx_initialize_low_level(), written for the board instead of the example's
 * tx_initialize_low_level.S (which assumes another clock and brings its own
 * vector table). The vector table is the board's (ports/boards/<board>/, at
 * address 0, where VTOR points after reset); SysTick interrupts at
 * TX_TIMER_TICKS_PER_SECOND from the board's core clock; the exception
 * priorities are set as ThreadX's Cortex-M port needs them.
 *
 * Priorities (8-bit fields, the top 3 bits implemented on every
 * Cortex-M3): the board's timer at RTB_FW_IRQ_PRIO (0x80), its UART below
 * it, SysTick at 0xC0, PendSV and SVCall the lowest (0xFF). PendSV must be
 * the lowest: ThreadX switches threads in it, and waits there, interrupts
 * open, when no thread is ready, so SysTick (and every other interrupt)
 * must be above it to end that wait.
 *
 * Used by rtbench's image (lowlevel.c) and by bench/thread-metric's images
 * of the original Thread-Metric, so both run on the same setup.
 */
#include "tx_board.h"

#include <stdint.h>

#include "board.h"
#include "cm.h"
#include "tx_api.h"
#include "tx_initialize.h"
#include "tx_thread.h"

#define SCB_SHPR2 0xE000ED1Cu /* SVCall priority in bits 31..24 */
#define SCB_SHPR3 0xE000ED20u /* SysTick 31..24, PendSV 23..16 */
#define SYST_CSR 0xE000E010u
#define SYST_RVR 0xE000E014u
#define SYST_CVR 0xE000E018u
#define SYST_CSR_ENABLE_TICKINT_CPUCLK 0x7u

#define PRIO_SYSTICK 0xC0u
#define PRIO_LOWEST 0xFFu
#define SYSTICK_RELOAD (BOARD_CPU_HZ / TX_TIMER_TICKS_PER_SECOND - 1u)

#if BOARD_CPU_HZ % TX_TIMER_TICKS_PER_SECOND != 0
#error "the board's clock is not a whole number of cycles per ThreadX tick"
#endif
#if SYSTICK_RELOAD > 0xFFFFFFu
#error "SysTick's 24-bit reload cannot hold one ThreadX tick at this clock"
#endif

extern uint32_t __stack_top;

void tx_board_low_level_init(void *first_unused_memory)
{
	(void)cm_irq_save(); /* ThreadX's first schedule opens them */

	_tx_initialize_unused_memory = first_unused_memory;
	/* the main stack, which handlers use once threads run */
	_tx_thread_system_stack_ptr = &__stack_top;

	CM_REG(SYST_CSR) = 0;
	CM_REG(SYST_RVR) = SYSTICK_RELOAD;
	CM_REG(SYST_CVR) = 0;
	CM_REG(SYST_CSR) = SYST_CSR_ENABLE_TICKINT_CPUCLK;

	CM_REG(SCB_SHPR2) = PRIO_LOWEST << 24;
	CM_REG(SCB_SHPR3) = (PRIO_SYSTICK << 24) | (PRIO_LOWEST << 16);
}
