/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III on a Cortex-A board: what the kernel port asks of the
 * application (its BSP part), and the tick.
 *
 * OS_CPU_ExceptHndlr(src_id): the kernel's IRQ and FIQ entries call it with
 * the interrupted context saved, in SVC mode with interrupts masked, inside
 * the kernel's own OSIntNestingCtr count and before its OSIntExit(). Here:
 * acknowledge the GIC, the board's dispatch (timer, software interrupt,
 * tick, UART), end of interrupt. Other exceptions do not come here (their
 * vectors are the architecture's fault handlers).
 *
 * The ISR stack: the kernel points OS_CPU_ExceptStkBase at the last word of
 * OSCfg_ISRStk (top - 4), so the handlers would start on a stack that is 4
 * mod 8, while the AAPCS wants 8-byte alignment at every call (64-bit
 * variables and LDRD/STRD, NEON spills). ucos3_arch_init() moves it to the
 * aligned top, once OSInit() set it, without touching the kernel.
 *
 * VFP/NEON: the kernel port's os_cpu_a_vfp-d32.S saves D0-D31, FPSCR and
 * FPEXC in every task's context and around every interrupt, so the C code
 * here, the kernel's and the scenarios' may use them (GCC does at -O2).
 */
#include "port_ucos3.h"

#include <stdint.h>

#include "board.h"

void OS_CPU_ExceptHndlr(CPU_INT32U src_id)
{
	if (src_id != OS_CPU_ARM_EXCEPT_IRQ && src_id != OS_CPU_ARM_EXCEPT_FIQ)
		rtb_fw_fatal("unexpected exception, uC/OS-III source", src_id);
	uint32_t iar = board_irq_acknowledge();
	board_irq_handler(iar);
	board_irq_end(iar);
}

void ucos3_tick_isr(void)
{
	OSTimeTick();
}

void ucos3_arch_init(void)
{
	uintptr_t top = (uintptr_t)(OSCfg_ISRStkBasePtr + OSCfg_ISRStkSize);

	OS_CPU_ExceptStkBase = (CPU_STK *)(top & ~(uintptr_t)7u);
}
