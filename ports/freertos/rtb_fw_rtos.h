/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: what the shared board and architecture code needs from the
 * RTOS (ports/boards/<board>/board.h): its exception handlers, installed in
 * the vector table as they are (the kernel's Cortex-M3 port checks that),
 * and the most urgent interrupt priority that may call a FromISR function.
 * FreeRTOS's handlers need no bracket.
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "FreeRTOSConfig.h"

#define RTB_FW_SVC_HANDLER vPortSVCHandler
#define RTB_FW_PENDSV_HANDLER xPortPendSVHandler
#define RTB_FW_SYSTICK_HANDLER xPortSysTickHandler
#define RTB_FW_IRQ_PRIO configMAX_SYSCALL_INTERRUPT_PRIORITY
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

#endif /* RTB_FW_RTOS_H */
