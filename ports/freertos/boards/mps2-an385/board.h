/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a board gives the FreeRTOS port: its console UART, its free-running
 * counter, its timers for the interrupt source, and a reset. One board
 * folder implements it (boards/<board>/board.c).
 */
#ifndef RTB_BOARD_H
#define RTB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "board_config.h"

/* Start the counter and the console; rx is called from the UART's receive
 * interrupt with each byte received. */
void board_init(void (*rx)(uint8_t byte));
/* Write bytes to the console, waiting while its transmitter is full. Usable
 * with interrupts masked (fatal errors). */
void board_console_write(const char *buf, size_t len);
/* Timer `n` (0 .. BOARD_TIMERS-1): interrupt after `ticks` ticks of
 * BOARD_COUNTER_HZ, then every `ticks` when periodic, else once. */
void board_timer_start(unsigned n, uint32_t ticks, int periodic);
void board_timer_stop(unsigned n);
/* Called by the board's interrupt handler of timer n, after it cleared the
 * interrupt (the port's interrupt source). */
void rtb_freertos_timer_isr(unsigned n);
void board_reset(void);

#endif /* RTB_BOARD_H */
