/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX on rtbench's boards: the part of the low-level initialisation that
 * needs only the board, ThreadX and the core's architecture code (no rtbench
 * core), so that rtbench's ThreadX image (lowlevel.c) and the original
 * Thread-Metric images of bench/thread-metric share it.
 */
#ifndef RTB_THREADX_TX_BOARD_H
#define RTB_THREADX_TX_BOARD_H

/* Masks interrupts (ThreadX's first schedule opens them), gives ThreadX its
 * first unused memory and the main stack for handlers, starts SysTick at
 * TX_TIMER_TICKS_PER_SECOND from the board's clock and sets the exception
 * priorities ThreadX's Cortex-M port needs. From _tx_initialize_low_level(). */
void tx_board_low_level_init(void *first_unused_memory);

#endif /* RTB_THREADX_TX_BOARD_H */
