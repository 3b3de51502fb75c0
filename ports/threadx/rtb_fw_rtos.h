/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: what the shared board and architecture code needs from the
 * RTOS (ports/boards/<board>/board.h): the names of its exception handlers,
 * the interrupt priorities and the bracket of a handler that calls it
 * (RTB_FW_ISR_ENTER/EXIT). They depend on ThreadX's port for the board's
 * architecture: txp_arch.h, in the port's folder of that architecture
 * (ports/threadx/<arch>/, chosen by port.cmake).
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "txp_arch.h"

#endif /* RTB_FW_RTOS_H */
