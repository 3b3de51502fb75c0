/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: what the shared board and architecture code needs from the
 * RTOS (ports/boards/<board>/board.h): its exception handlers, installed in
 * the vector table as they are (the kernel's Cortex-M3 port checks that;
 * on a Cortex-A, its supervisor call and interrupt entry, and the tick
 * handler the board's dispatch calls), and the most urgent interrupt
 * priority that may call a FromISR function (and the tick's, on a GIC).
 * FreeRTOS's handlers need no bracket.
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "FreeRTOSConfig.h"

#define RTB_FW_SVC_HANDLER vPortSVCHandler
#define RTB_FW_PENDSV_HANDLER xPortPendSVHandler
#define RTB_FW_SYSTICK_HANDLER xPortSysTickHandler
#define RTB_FW_SWI_HANDLER FreeRTOS_SWI_Handler
#define RTB_FW_IRQ_HANDLER FreeRTOS_IRQ_Handler
#define RTB_FW_TICK_HANDLER FreeRTOS_Tick_Handler
#ifdef configMAX_API_CALL_INTERRUPT_PRIORITY
#define RTB_FW_IRQ_PRIO configMAX_API_CALL_INTERRUPT_PRIORITY
/* the port's lowest usable priority (portmacro.h), as its tick wants */
#define RTB_FW_TICK_PRIO (configUNIQUE_INTERRUPT_PRIORITIES - 2u)
#else
#define RTB_FW_IRQ_PRIO configMAX_SYSCALL_INTERRUPT_PRIORITY
#endif
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

#endif /* RTB_FW_RTOS_H */
