/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric on uC/OS-III: what the shared board code needs from
 * the RTOS. As ports/ucos3/rtb_fw_rtos.h, except SVCall: the original
 * Thread-Metric raises its interrupt with `SVC #0` (uC/OS-III's port makes
 * no supervisor call of its own), so the vector table installs the porting
 * layer's handler there, bracketed by OSIntEnter()/OSIntExit().
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "cpu_cfg.h"

void OS_CPU_PendSVHandler(void);
void OS_CPU_SysTickHandler(void);
void tm_board_svc_handler(void);
void tm_ucos3_isr_enter(void);
void OSIntExit(void);

#define RTB_FW_SVC_HANDLER tm_board_svc_handler
#define RTB_FW_PENDSV_HANDLER OS_CPU_PendSVHandler
#define RTB_FW_SYSTICK_HANDLER OS_CPU_SysTickHandler
#define RTB_FW_IRQ_PRIO (CPU_CFG_KA_IPL_BOUNDARY << (8u - CPU_CFG_NVIC_PRIO_BITS))
#define RTB_FW_ISR_ENTER() tm_ucos3_isr_enter()
#define RTB_FW_ISR_EXIT() OSIntExit()

#endif /* RTB_FW_RTOS_H */
