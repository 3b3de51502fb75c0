/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: what the shared board and architecture code needs from the
 * RTOS (ports/boards/<board>/board.h). uC/OS-III's Cortex-M port switches
 * tasks in PendSV and counts its tick in SysTick; it makes no supervisor
 * call, so SVCall is an unexpected exception. Interrupts at
 * CPU_CFG_KA_IPL_BOUNDARY and below (numerically higher NVIC values) are
 * kernel aware: masked in the kernel's critical sections, free to call it
 * between OSIntEnter() and OSIntExit(), the bracket the board's UART
 * handler takes (the timer's is in the port's rtb_fw_timer_isr()).
 * Plain declarations: the board's files do not read the kernel's headers.
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "cpu_cfg.h"

void OS_CPU_PendSVHandler(void);
void OS_CPU_SysTickHandler(void);
void cm_unexpected_handler(void);
void ucos3_isr_enter(void);
void OSIntExit(void);

#define RTB_FW_SVC_HANDLER cm_unexpected_handler
#define RTB_FW_PENDSV_HANDLER OS_CPU_PendSVHandler
#define RTB_FW_SYSTICK_HANDLER OS_CPU_SysTickHandler
/* The most urgent kernel-aware priority, as written to the NVIC's 8-bit
 * fields (0xA0 with rtbench's cpu_cfg.h). */
#define RTB_FW_IRQ_PRIO (CPU_CFG_KA_IPL_BOUNDARY << (8u - CPU_CFG_NVIC_PRIO_BITS))
#define RTB_FW_ISR_ENTER() ucos3_isr_enter()
#define RTB_FW_ISR_EXIT() OSIntExit()

#endif /* RTB_FW_RTOS_H */
