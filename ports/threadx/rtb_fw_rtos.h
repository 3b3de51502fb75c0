/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: what the shared board and architecture code needs from the
 * RTOS (ports/boards/<board>/board.h).
 *
 * PendSV is ThreadX's own handler from its Cortex-M3 port
 * (ports/cortex_m3/gnu/src/tx_thread_schedule.S), installed in the vector
 * table as it is. SysTick is the port's (lowlevel.c): a counter read, then
 * ThreadX's _tx_timer_interrupt, as the example's low-level init calls it.
 * ThreadX's Cortex-M3 port makes no supervisor call, so SVCall is the
 * board's "unexpected exception" stop. Every interrupt may call ThreadX (it
 * masks with PRIMASK), so RTB_FW_IRQ_PRIO only orders the board's
 * interrupts above SysTick (0xC0) and PendSV (0xFF): lowlevel.c says why.
 * A handler needs no bracket on this port: _tx_thread_context_save and
 * _tx_thread_context_restore are empty there (they only call the
 * execution-profile hooks when TX_ENABLE_EXECUTION_CHANGE_NOTIFY is set,
 * which rtbench's configuration does not set).
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#define RTB_FW_SVC_HANDLER cm_unexpected_handler
#define RTB_FW_PENDSV_HANDLER __tx_PendSVHandler
#define RTB_FW_SYSTICK_HANDLER rtb_threadx_systick_handler
#define RTB_FW_IRQ_PRIO 0x80u
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

#endif /* RTB_FW_RTOS_H */
