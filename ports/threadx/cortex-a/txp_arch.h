/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX on a Cortex-A board (ThreadX's port cortex_a7/gnu): what differs
 * from one architecture to another, for rtb_fw_rtos.h and the port's files.
 *
 * Threads run in SVC mode and switch by a call (_tx_thread_system_return),
 * never a supervisor call: the SVC vector is an unexpected exception. The
 * IRQ vector is the port's __tx_irq_handler (txp_irq.S): ThreadX's
 * _tx_thread_context_save, the board's dispatch in IRQ mode with the VFP
 * registers a C function may change saved around it, then ThreadX's
 * _tx_thread_context_restore, which switches when a handler readied a more
 * urgent thread. That is the bracket: handlers that call ThreadX add none.
 * ThreadX masks IRQs at the CPU (TX_DISABLE: CPSID i), so every GIC priority
 * may call it; the GIC's priorities order pending interrupts only (8 bits,
 * lower is more urgent). Plain declarations: the board's files do not read
 * ThreadX's headers.
 */
#ifndef RTB_THREADX_ARCH_H
#define RTB_THREADX_ARCH_H

void ca_unexpected_handler(void);
void __tx_irq_handler(void);
void txp_tick_isr(void);

#define RTB_FW_SWI_HANDLER ca_unexpected_handler
#define RTB_FW_IRQ_HANDLER __tx_irq_handler
/* Called by the board's tick interrupt once its next deadline is set. */
#define RTB_FW_TICK_HANDLER txp_tick_isr
/* The interrupt source's timer and software interrupt; the board's UART
 * follows it; the tick is the least urgent. */
#define RTB_FW_IRQ_PRIO 0xA0u
#define RTB_FW_TICK_PRIO 0xE0u
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

/* ThreadX's port, for the facts file. */
#define TXP_KERNEL_PORT "cortex_a7/gnu"
/* What a thread does first: ThreadX saves the VFP/NEON registers of a
 * thread that asked for it (tx_thread_vfp_enable(), from the thread itself;
 * the frame its stack is built with has none), and every thread of the
 * port runs C compiled with them (GCC uses NEON at -O2). */
void tx_thread_vfp_enable(void);
#define TXP_THREAD_START() tx_thread_vfp_enable()
/* What a switch and an interrupt save of the VFP/NEON unit, for the
 * results' os_config. */
#define TXP_FPU_CONTEXT                                                                      \
	"every thread (tx_thread_vfp_enable() when it starts: D0-D31 and FPSCR saved when "  \
	"preempted, D8-D31 and FPSCR at a switch it asks for); interrupt handlers run with " \
	"D0-D7, D16-D31 and FPSCR saved around them; the kernel never uses them "            \
	"(-mgeneral-regs-only)"
#define TXP_FPU_CONTEXT_FROM "TX_ENABLE_VFP_SUPPORT"

#endif /* RTB_THREADX_ARCH_H */
