/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a board gives every firmware port (FreeRTOS and the other RTOSes on
 * it): its console UART, its free-running counter, its timers for the
 * interrupt source, the spare interrupt lines a source is raised on from
 * software (board_config.h, BOARD_SOFT_IRQ), and a reset. One board folder
 * implements it (ports/boards/<board>/board.c), for every RTOS.
 *
 * What the board needs from the RTOS port, in return: the header
 * rtb_fw_rtos.h (the names of the RTOS's own exception handlers the vector
 * table installs, the interrupt priority from which the RTOS may be called,
 * and RTB_FW_ISR_ENTER()/RTB_FW_ISR_EXIT() for the console's receive
 * interrupt: empty for an RTOS that needs nothing, uC/OS-III's
 * OSIntEnter/OSIntExit), and rtb_fw_timer_isr() and the software lines'
 * handlers below.
 */
#ifndef RTB_BOARD_H
#define RTB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "board_config.h"

/* Start the counter and the console; rx is called from the UART's receive
 * interrupt with each byte received. */
void board_init(void (*rx)(uint8_t byte));
/* Restart the free-running counter from its first value (interrupts
 * masked by the caller). */
void board_counter_restart(void);
/* Write bytes to the console, waiting while its transmitter is full. Usable
 * with interrupts masked (fatal errors). */
void board_console_write(const char *buf, size_t len);
/* Timer `n` (0 .. BOARD_TIMERS-1): interrupt after `ticks` ticks of
 * BOARD_COUNTER_HZ, then every `ticks` when periodic, else once. */
void board_timer_start(unsigned n, uint32_t ticks, int periodic);
void board_timer_stop(unsigned n);
/* Nonzero when timer n has expired since its interrupt was last cleared
 * (its handler clears it on entry, before rtb_fw_timer_isr): the next
 * interrupt is pending. */
int board_timer_expired(unsigned n);
void board_reset(void);

/* ---- supplied by the RTOS port ------------------------------------------- */

/* Called by the board's interrupt handler of timer n, after it cleared the
 * interrupt (the port's interrupt source n). */
void rtb_fw_timer_isr(unsigned n);
/* The handlers of software lines BOARD_SOFT_IRQ(0) and BOARD_SOFT_IRQ(1),
 * in the vector table itself (the lines have nothing of the board to
 * clear), at the timers' priority: source 0 and source 1 raised from
 * software. */
void rtb_fw_soft0_isr(void);
void rtb_fw_soft1_isr(void);
/* A fatal error: one `#rtb err` line, then the board stops (never
 * returns). The architecture folder implements it (fault.c). */
void rtb_fw_fatal(const char *what, uint32_t value);

#endif /* RTB_BOARD_H */
