/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: what the shared board and architecture code needs from the
 * RTOS (ports/boards/<board>/board.h): the names of its exception handlers,
 * the most urgent interrupt priority that may call the kernel, and the
 * bracket of a handler that calls it (RTB_FW_ISR_ENTER/EXIT, the board's
 * UART handler's). They depend on the kernel's port for the board's
 * architecture: ucos3_arch.h, in the port's folder of that architecture
 * (ports/ucos3/<arch>/, chosen by port.cmake).
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "ucos3_arch.h"

#endif /* RTB_FW_RTOS_H */
