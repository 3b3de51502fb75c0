/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX on a Cortex-M board (ThreadX's port cortex_m3/gnu): what differs
 * from one architecture to another, for rtb_fw_rtos.h and the port's files.
 *
 * PendSV is ThreadX's own handler (ports/cortex_m3/gnu/src/
 * tx_thread_schedule.S), installed in the vector table as it is. SysTick is
 * the port's (lowlevel.c): a counter read, then ThreadX's
 * _tx_timer_interrupt, as the example's low-level init calls it. ThreadX's
 * Cortex-M3 port makes no supervisor call, so SVCall is the board's
 * "unexpected exception" stop. Every interrupt may call ThreadX (it masks
 * with PRIMASK), so RTB_FW_IRQ_PRIO only orders the board's interrupts above
 * SysTick (0xC0) and PendSV (0xFF): tx_board.c says why. A handler needs no
 * bracket on this port: _tx_thread_context_save and
 * _tx_thread_context_restore are empty there (they only call the
 * execution-profile hooks when TX_ENABLE_EXECUTION_CHANGE_NOTIFY is set,
 * which rtbench's configuration does not set). Plain declarations: the
 * board's files do not read ThreadX's headers.
 */
#ifndef RTB_THREADX_ARCH_H
#define RTB_THREADX_ARCH_H

#define RTB_FW_SVC_HANDLER cm_unexpected_handler
#define RTB_FW_PENDSV_HANDLER __tx_PendSVHandler
#define RTB_FW_SYSTICK_HANDLER rtb_threadx_systick_handler
#define RTB_FW_IRQ_PRIO 0x80u
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

/* ThreadX's port, for the facts file. */
#define TXP_KERNEL_PORT "cortex_m3/gnu"
/* What a thread does first: nothing here (no floating-point unit). */
#define TXP_THREAD_START() ((void)0)

#endif /* RTB_THREADX_ARCH_H */
