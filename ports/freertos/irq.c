/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: the interrupt source, one of the board's hardware timers
 * per source, raised from software on the board's spare line beside it when
 * fired with delay 0 (fw_irq.h, fw_port.h). Its interrupt handlers (the
 * timer's in board.c, the spare line's the port's own, RTB_FW_SOFT_ISRS, at
 * the highest priority that may call FreeRTOS alike) call the scenario's
 * handler directly; a semaphore given there (xSemaphoreGiveFromISR) wakes a
 * task through portYIELD_FROM_ISR (rtb_port_inline.h, sync.c). The target
 * thread is not used: on one CPU the interrupt preempts whatever runs.
 *
 * The source itself, the table of the board's timers, the dispatch,
 * periodic mode and the counts of generated, serviced and lost interrupts:
 * the same for every firmware port (fw_port.h). Here: the contract's calls
 * on them, with the source's memory (FreeRTOS's heap) and the table's
 * critical section.
 */
#include "board.h"
#include "fw_port.h"
#include "port_freertos.h"

/* FreeRTOS needs nothing around the scenario's handler. */
void rtb_fw_timer_isr(unsigned n)
{
	rtb_fw_irq_dispatch(n);
}

RTB_FW_SOFT_ISRS(rtb_fw_irq_dispatch_soft)

int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg)
{
	(void)target;
	if (out == NULL || handler == NULL)
		return RTB_E_INVALID;
	struct rtb_irq *irq = pvPortMalloc(sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	*irq = (struct rtb_irq){0};
	irq->handler = handler;
	irq->arg = arg;
	taskENTER_CRITICAL();
	bool claimed = rtb_fw_irq_claim(irq);
	taskEXIT_CRITICAL();
	if (!claimed) {
		vPortFree(irq);
		return RTB_E_NOMEM; /* every timer of the board has a source */
	}
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	board_timer_stop(irq->timer);
	taskENTER_CRITICAL();
	rtb_fw_irq_release(irq);
	taskEXIT_CRITICAL();
	vPortFree(irq);
	return RTB_OK;
}

/* A fire with a delay: the board's timer, as before the software line. Out
 * of line, so that the fire with delay 0 stays a leaf. */
static __attribute__((noinline)) int fire_later(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
	if (irq->count.periodic)
		board_timer_stop(irq->timer);
	irq->count.periodic = false;
	irq->count.timer_on = true;
	irq->count.fired++;
	board_timer_start(irq->timer, rtb_fw_timer_ticks(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns != 0)
		return fire_later(irq, delay_ns);
	return rtb_fw_irq_fire_now(irq);
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (period_ns == 0 || period_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
	rtb_fw_irq_start_periodic(&irq->count, irq->timer, period_ns);
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	rtb_fw_irq_stop(&irq->count, irq->timer, counts);
	return RTB_OK;
}
