/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III on a Cortex-A board (kernel port ARM-Cortex-A/ARMv7-A/GNU, its
 * os_cpu_a_vfp-d32.S, with uC/CPU's ARM-Cortex-A/ARMv7-A/GNU): what differs
 * from one architecture to another, for rtb_fw_rtos.h and the port's files.
 *
 * Tasks run in SVC mode and switch by a call (OSCtxSw), never a supervisor
 * call: the SVC vector is an unexpected exception. The IRQ and FIQ vectors
 * are the kernel's OS_CPU_ARM_ExceptIrqHndlr/FiqHndlr: they save the
 * interrupted task's whole context on its stack (VFP included), count the
 * nesting (OSIntNestingCtr) and call the port's OS_CPU_ExceptHndlr
 * (ucos3_ca.c) in SVC mode with IRQ and FIQ masked, on the kernel's ISR
 * stack, then OSIntExit(), which switches when a handler readied a more
 * urgent task. The kernel's own entry is the bracket: handlers that call the
 * kernel add none (RTB_FW_ISR_ENTER/EXIT are empty). The kernel's critical
 * sections mask IRQ and FIQ at the CPU (uC/CPU's CPU_CRITICAL_ENTER), so
 * every GIC priority is kernel aware; the GIC's priorities order pending
 * interrupts only (8 bits, lower is more urgent). Plain declarations: the
 * board's files do not read the kernel's headers.
 */
#ifndef RTB_UCOS3_ARCH_H
#define RTB_UCOS3_ARCH_H

void ca_unexpected_handler(void);
void OS_CPU_ARM_ExceptIrqHndlr(void);
void OS_CPU_ARM_ExceptFiqHndlr(void);
void ucos3_tick_isr(void);

#define RTB_FW_SWI_HANDLER ca_unexpected_handler
#define RTB_FW_IRQ_HANDLER OS_CPU_ARM_ExceptIrqHndlr
#define RTB_FW_FIQ_HANDLER OS_CPU_ARM_ExceptFiqHndlr
/* Called by the board's tick interrupt once its next deadline is set. */
#define RTB_FW_TICK_HANDLER ucos3_tick_isr
/* The interrupt source's timer and software interrupt; the board's UART
 * follows it; the tick is the least urgent. */
#define RTB_FW_IRQ_PRIO 0xA0u
#define RTB_FW_TICK_PRIO 0xE0u
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)
/* The bracket, as the port info names it around the scenario's handler. */
#define UCOS3_ISR_BRACKET \
	", inside the kernel's interrupt entry (OSIntNestingCtr counted, then OSIntExit),"

/* The tick: the board's virtual timer at OS_CFG_TICK_RATE_HZ. */
#define UCOS3_TICK_START() board_tick_start(OS_CFG_TICK_RATE_HZ)
/* After OSInit(): the ISR stack's top made 8-byte aligned (ucos3_ca.c). */
void ucos3_arch_init(void);
#define UCOS3_ARCH_INIT() ucos3_arch_init()
/* The architecture's setting in the facts' "config" object: the stack
 * alignment uC/CPU's port asks for, which the ISR stack is given
 * (ucos3_arch_init). Its critical sections mask every interrupt: no
 * kernel-aware boundary to report. */
#define UCOS3_ARCH_CFG RTB_FW_CFG(CPU_CFG_STK_ALIGN_BYTES)
/* What a task switch and an interrupt save of the VFP/NEON unit: the
 * kernel port's assembly file (port.cmake) and the result's os_config. */
#define UCOS3_FPU_CONTEXT                                                                    \
	"every task (D0-D31, FPSCR and FPEXC saved at each switch); interrupt handlers run " \
	"with them saved"
#define UCOS3_FPU_CONTEXT_FROM "os_cpu_a_vfp-d32.S"

#endif /* RTB_UCOS3_ARCH_H */
