/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: the interrupt source, one of the board's hardware timers
 * per source (board.h), raised from software on the board's spare line
 * beside it when fired with delay 0 (fw_irq.h, fw_port.h). The board's
 * handler, at the most urgent kernel-aware priority (RTB_FW_IRQ_PRIO,
 * rtb_fw_rtos.h), clears the timer and calls rtb_fw_timer_isr(); the spare
 * line's handler is the port's own (RTB_FW_SOFT_ISRS, at the same priority).
 * Each calls the scenario's handler inside the
 * kernel's interrupt bracket: on a Cortex-M its own (RTB_FW_ISR_ENTER:
 * OSIntEnter, RTB_FW_ISR_EXIT: OSIntExit), on a Cortex-A the kernel's
 * interrupt entry, which counts the nesting and calls OSIntExit() itself
 * (ucos3_arch.h). A post the handler made (rtb_port_sem_signal_from_irq) has
 * readied a task, and OSIntExit() switches to it when it outranks the
 * interrupted one. The target thread is not used: on one CPU the interrupt
 * preempts whatever runs.
 *
 * The source itself, the table of the board's timers, periodic mode and the
 * counts of generated, serviced and lost interrupts: the same for every
 * firmware port (fw_port.h). Here: the handler's bracket and the contract's
 * calls on them, with the source's memory (the port's allocator) and the
 * table's critical section.
 */
#include "fw_port.h"
#include "port_ucos3.h"
#include "rtb_fw_rtos.h"

#include "rtb/core.h"

void rtb_fw_timer_isr(unsigned n)
{
	struct rtb_irq *irq = rtb_fw_irq_sources[n];

	RTB_FW_ISR_ENTER();
	if (irq != NULL) {
		irq->handler(irq->arg);
		irq->count.serviced++;
	}
	RTB_FW_ISR_EXIT();
	if (irq != NULL && irq->count.periodic)
		rtb_fw_irq_served(&irq->count, irq->timer);
}

/* A software line: the one-shot path alone (fw_port.h), in the same
 * bracket. */
static inline void soft_isr(unsigned n)
{
	struct rtb_irq *irq = rtb_fw_irq_sources[n];

	RTB_FW_ISR_ENTER();
	if (irq != NULL) {
		irq->handler(irq->arg);
		irq->count.serviced++;
	}
	RTB_FW_ISR_EXIT();
}

RTB_FW_SOFT_ISRS(soft_isr)

int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg)
{
	CPU_SR_ALLOC();

	(void)target;
	if (out == NULL || handler == NULL)
		return RTB_E_INVALID;
	struct rtb_irq *irq = rtb_port_mem_alloc(sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	rtb_memset(irq, 0, sizeof(*irq));
	irq->handler = handler;
	irq->arg = arg;
	CPU_CRITICAL_ENTER();
	bool claimed = rtb_fw_irq_claim(irq);
	CPU_CRITICAL_EXIT();
	if (!claimed) {
		rtb_port_mem_free(irq);
		return RTB_E_NOMEM; /* every timer of the board has a source */
	}
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	CPU_SR_ALLOC();

	if (irq == NULL)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	CPU_CRITICAL_ENTER();
	rtb_fw_irq_release(irq);
	CPU_CRITICAL_EXIT();
	rtb_port_mem_free(irq);
	return RTB_OK;
}

/* A fire with a delay: the board's timer. Out of line, so that the fire
 * with delay 0 stays a leaf. */
static __attribute__((noinline)) int fire_later(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
	if (irq->count.periodic) {
		board_timer_stop(irq->timer);
		irq->count.periodic = false;
	}
	irq->count.timer_on = true;
	irq->count.fired++;
	board_timer_start(irq->timer, rtb_fw_timer_ticks(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (irq == NULL)
		return RTB_E_INVALID;
	if (delay_ns != 0)
		return fire_later(irq, delay_ns);
	return rtb_fw_irq_fire_now(irq);
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (irq == NULL || period_ns == 0 || period_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
	rtb_fw_irq_start_periodic(&irq->count, irq->timer, period_ns);
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	if (irq == NULL)
		return RTB_E_INVALID;
	rtb_fw_irq_stop(&irq->count, irq->timer, counts);
	return RTB_OK;
}
