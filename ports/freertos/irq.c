/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: the interrupt source, one of the board's hardware timers
 * per source. Its interrupt handler (board.c, at the highest priority that
 * may call FreeRTOS) calls the scenario's handler directly; a semaphore
 * given there wakes a task through portYIELD_FROM_ISR (sync.c). The target
 * thread is not used: on one CPU the interrupt preempts whatever runs.
 *
 * Periodic mode: the timer reloads itself every period. The handler reads
 * the counter: the time since the interrupt it served before, in periods
 * (to the nearest), is how many expiries passed; all but one were lost (the
 * timer's single pending bit could not hold them while the interrupt could
 * not run). generated = serviced + lost.
 */
#include "board.h"
#include "port_freertos.h"

struct rtb_irq {
	unsigned timer;
	rtb_irq_handler handler;
	void *arg;
	bool periodic;
	uint64_t start_ticks;
	uint64_t period_ticks;
	uint64_t last_ticks; /* counter when the last interrupt was served */
	uint64_t fired;	     /* one-shot fires requested */
	volatile uint64_t serviced;
	volatile uint64_t lost;
};

static struct rtb_irq *volatile sources[BOARD_TIMERS];

void rtb_fw_timer_isr(unsigned n)
{
	struct rtb_irq *irq = n < BOARD_TIMERS ? sources[n] : NULL;

	if (irq == NULL)
		return;
	if (irq->periodic) {
		/* expiries since the last one served, to the nearest: more than
		 * one means the ones between were lost */
		uint64_t now = rtb_port_counter_read();
		uint64_t m = (now - irq->last_ticks + irq->period_ticks / 2) / irq->period_ticks;
		if (m > 1)
			irq->lost += m - 1;
		irq->last_ticks = now;
	}
	irq->handler(irq->arg);
	irq->serviced++;
}

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
	unsigned n = 0;
	while (n < BOARD_TIMERS && sources[n] != NULL)
		n++;
	if (n < BOARD_TIMERS)
		sources[n] = irq;
	taskEXIT_CRITICAL();
	if (n == BOARD_TIMERS) {
		vPortFree(irq);
		return RTB_E_NOMEM;
	}
	irq->timer = n;
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	board_timer_stop(irq->timer);
	taskENTER_CRITICAL();
	sources[irq->timer] = NULL;
	taskEXIT_CRITICAL();
	vPortFree(irq);
	return RTB_OK;
}

static uint32_t ticks_of(uint64_t ns)
{
	uint64_t t = ns * BOARD_COUNTER_HZ / 1000000000ull;

	if (t == 0)
		t = 1;
	return t > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)t;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns > 60000000000ull)
		return RTB_E_INVALID;
	if (irq->periodic)
		board_timer_stop(irq->timer);
	irq->periodic = false;
	irq->fired++;
	board_timer_start(irq->timer, ticks_of(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (period_ns == 0 || period_ns > 60000000000ull)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	irq->period_ticks = ticks_of(period_ns);
	irq->serviced = 0;
	irq->lost = 0;
	irq->periodic = true;
	irq->start_ticks = rtb_port_counter_read();
	irq->last_ticks = irq->start_ticks;
	board_timer_start(irq->timer, (uint32_t)irq->period_ticks, 1);
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	board_timer_stop(irq->timer);
	if (counts != NULL) {
		taskENTER_CRITICAL();
		counts->serviced = irq->serviced;
		counts->lost = irq->lost;
		counts->generated = irq->periodic ? irq->serviced + irq->lost : irq->fired;
		taskEXIT_CRITICAL();
	}
	irq->periodic = false;
	return RTB_OK;
}
