/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX on a Cortex-A board: the IRQ entry ThreadX's cortex_a7 port asks
 * of the application (its example's __tx_irq_handler, written for the
 * board). The vector branches here in IRQ mode with IRQs masked.
 * _tx_thread_context_save saves r0-r3, r10, r12, the SPSR and the point of
 * interrupt on the IRQ stack (8-byte aligned after it), counts the nesting
 * and comes back to __tx_irq_processing_return; txp_irq_dispatch()
 * (txp_ca.c) then acknowledges the GIC, calls the board's dispatch and ends
 * the interrupt; _tx_thread_context_restore returns to the interrupted
 * thread or, when a handler readied a more urgent one, saves the whole
 * interrupted context on its stack (its VFP registers too when it enabled
 * them) and schedules.
 *
 * The context save keeps no VFP register, while the dispatch runs C
 * compiled with NEON (the board's, the scenarios' handlers): the registers
 * a C function may change (D0-D7, D16-D31, FPSCR; D8-D15 it keeps) are
 * saved around it here, so the interrupted thread finds its own, whether it
 * is resumed or preempted (its VFP context is saved after them). 200 bytes:
 * the stack stays 8-byte aligned.
 */
	.syntax unified
	.arm
	.text

	.global __tx_irq_handler
	.global __tx_irq_processing_return
	.type __tx_irq_handler, %function
__tx_irq_handler:
	b	_tx_thread_context_save
__tx_irq_processing_return:
	vmrs	r0, fpscr
	push	{r0, r1}
	vpush	{d0-d7}
	vpush	{d16-d31}
	bl	txp_irq_dispatch
	vpop	{d16-d31}
	vpop	{d0-d7}
	pop	{r0, r1}
	vmsr	fpscr, r0
	b	_tx_thread_context_restore
	.size __tx_irq_handler, . - __tx_irq_handler
