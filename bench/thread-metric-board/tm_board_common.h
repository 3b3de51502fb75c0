/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric: what the FreeRTOS and uC/OS-III porting layers share
 * on the mps2-an385 board (tm_board_common.c): printf on UART0, the fault
 * handlers, the SVCall priority, and the test's interrupt handler.
 */
#ifndef TM_BOARD_COMMON_H
#define TM_BOARD_COMMON_H

#include <stdint.h>

/* The interrupt handler of whichever test is linked (the others define
 * neither); calls cm_unexpected_handler() when there is none. */
void tm_board_test_interrupt(void);
/* SVCall's priority, as written to the NVIC's 8-bit fields. */
void tm_board_svc_priority(uint8_t prio);
void tm_board_stop(const char *what);

#endif /* TM_BOARD_COMMON_H */
