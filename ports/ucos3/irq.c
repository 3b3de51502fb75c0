/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: the interrupt source, one of the board's hardware timers
 * per source (board.h). The board's handler, at the most urgent
 * kernel-aware priority (RTB_FW_IRQ_PRIO, rtb_fw_rtos.h), clears the timer
 * and calls rtb_fw_timer_isr(), which tells the kernel it runs in an
 * interrupt (OSIntEnter), calls the scenario's handler and leaves through
 * OSIntExit(): a post the handler made (rtb_port_sem_signal_from_irq) has
 * readied a task, and OSIntExit() switches to it when it outranks the
 * interrupted one. The target thread is not used: on one CPU the interrupt
 * preempts whatever runs.
 *
 * Periodic mode: the timer reloads itself every period. Each interrupt
 * reads the counter: the periods elapsed since the start, to the nearest,
 * are the expiries so far; those the handler was not called for were lost
 * (the timer's single pending bit cannot hold more than one while the
 * interrupt is masked or still running). generated = serviced + lost.
 */
#include "port_ucos3.h"

#include "rtb/core.h"

/* Longest delay or period: 60 s, well within the 32-bit timers at 25 MHz
 * (171 s). */
#define IRQ_MAX_NS 60000000000ull

struct rtb_irq {
	unsigned timer;
	rtb_irq_handler handler;
	void *arg;
	bool periodic;
	uint64_t period_ticks;
	uint64_t start_ticks; /* counter when periodic mode started */
	uint64_t fired;	      /* one-shot fires asked for */
	volatile uint64_t serviced;
	volatile uint64_t
		expired; /* periodic: expiries since the start, as of the last interrupt */
};

static struct rtb_irq *volatile sources[BOARD_TIMERS];

void rtb_fw_timer_isr(unsigned n)
{
	struct rtb_irq *irq = n < BOARD_TIMERS ? sources[n] : NULL;

	ucos3_isr_enter();
	if (irq != NULL) {
		if (irq->periodic) {
			uint64_t since = rtb_port_counter_read() - irq->start_ticks;
			irq->expired = (since + irq->period_ticks / 2) / irq->period_ticks;
		}
		irq->handler(irq->arg);
		irq->serviced++;
	}
	OSIntExit();
}

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
	unsigned n;
	CPU_CRITICAL_ENTER();
	for (n = 0; n < BOARD_TIMERS; n++) {
		if (sources[n] == NULL) {
			sources[n] = irq;
			break;
		}
	}
	CPU_CRITICAL_EXIT();
	if (n == BOARD_TIMERS) {
		rtb_port_mem_free(irq);
		return RTB_E_NOMEM; /* every timer of the board is in use */
	}
	irq->timer = n;
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
	sources[irq->timer] = NULL;
	CPU_CRITICAL_EXIT();
	rtb_port_mem_free(irq);
	return RTB_OK;
}

/* A duration in ticks of the board's timers (at least one). */
static uint32_t timer_ticks(uint64_t ns)
{
	uint64_t ticks = ns * BOARD_COUNTER_HZ / 1000000000ull;

	return ticks == 0 ? 1u : ticks > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)ticks;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (irq == NULL || delay_ns > IRQ_MAX_NS)
		return RTB_E_INVALID;
	if (irq->periodic) {
		board_timer_stop(irq->timer);
		irq->periodic = false;
	}
	irq->fired++;
	board_timer_start(irq->timer, timer_ticks(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (irq == NULL || period_ns == 0 || period_ns > IRQ_MAX_NS)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	irq->period_ticks = timer_ticks(period_ns);
	irq->serviced = 0;
	irq->expired = 0;
	irq->periodic = true;
	irq->start_ticks = rtb_port_counter_read();
	board_timer_start(irq->timer, (uint32_t)irq->period_ticks, 1);
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	CPU_SR_ALLOC();

	if (irq == NULL)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	if (counts != NULL) {
		CPU_CRITICAL_ENTER();
		uint64_t serviced = irq->serviced;
		uint64_t generated = irq->periodic ? RTB_MAX(irq->expired, serviced) : irq->fired;
		CPU_CRITICAL_EXIT();
		counts->serviced = serviced;
		counts->generated = generated;
		counts->lost = generated > serviced ? generated - serviced : 0;
	}
	irq->periodic = false;
	return RTB_OK;
}
