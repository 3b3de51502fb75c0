/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III on a Cortex-M board (kernel port ARM-Cortex-M/ARMv7-M/GNU): what
 * differs from one architecture to another, for rtb_fw_rtos.h and the port's
 * files. The kernel switches tasks in PendSV and counts its tick in SysTick;
 * it makes no supervisor call, so SVCall is an unexpected exception.
 * Interrupts at CPU_CFG_KA_IPL_BOUNDARY and below (numerically higher NVIC
 * values) are kernel aware: masked in the kernel's critical sections, free to
 * call it between OSIntEnter() and OSIntExit(), the bracket every handler
 * that calls the kernel takes itself (the board's UART handler, the port's
 * rtb_fw_timer_isr()). Plain declarations: the board's files do not read the
 * kernel's headers.
 */
#ifndef RTB_UCOS3_ARCH_H
#define RTB_UCOS3_ARCH_H

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
/* The bracket of a handler that calls the kernel (ucos3_isr_enter: port.c). */
#define RTB_FW_ISR_ENTER() ucos3_isr_enter()
#define RTB_FW_ISR_EXIT() OSIntExit()
/* The bracket, as the port info names it around the scenario's handler. */
#define UCOS3_ISR_BRACKET ", bracketed by OSIntEnter/OSIntExit,"

/* The tick: SysTick at OS_CFG_TICK_RATE_HZ from the board's clock. */
#define UCOS3_TICK_START() OS_CPU_SysTickInitFreq(BOARD_CPU_HZ)
/* Nothing to adjust after OSInit(): handlers run on the main stack. */
#define UCOS3_ARCH_INIT() ((void)0)
/* The architecture's settings in the facts' "config" object (console.c). */
#define UCOS3_ARCH_CFG RTB_FW_CFG(CPU_CFG_KA_IPL_BOUNDARY), RTB_FW_CFG(CPU_CFG_NVIC_PRIO_BITS)

#endif /* RTB_UCOS3_ARCH_H */
