/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: the interrupt source, one of the board's hardware timers
 * per source (board.h). The board's handler clears the timer and calls
 * rtb_fw_timer_isr(), which calls the scenario's handler. On ThreadX's
 * Cortex-M3 port a handler that calls ThreadX needs no bracket:
 * _tx_thread_context_save and _tx_thread_context_restore are empty there
 * (ThreadX reads IPSR to know it runs in a handler), and a service that
 * makes a more urgent thread ready pends PendSV, the lowest exception, which
 * switches once the handler returns. The target thread is not used: on one
 * CPU the interrupt preempts whatever runs.
 *
 * Periodic mode: the timer reloads itself every period. At each interrupt
 * the handler works out, from the counter, the last expiry that has
 * happened (whole periods since the counter was read just before the timer
 * started); every expiry up to it that no interrupt served was lost: the
 * timer's one pending bit could not hold two expiries while the interrupt
 * could not run, so a handler that comes more than a period late serves
 * both at once. generated = serviced + lost.
 */
#include "port_threadx.h"

struct rtb_irq {
	unsigned timer;
	rtb_irq_handler handler;
	void *arg;
	bool periodic;
	uint64_t start_ticks;  /* counter read just before the timer started */
	uint64_t period_ticks; /* timer reload, in counter ticks */
	uint64_t fired;	       /* one-shot requests */
	volatile uint64_t serviced;
	volatile uint64_t lost;
};

static struct rtb_irq *volatile timer_owner[BOARD_TIMERS];

void rtb_fw_timer_isr(unsigned n)
{
	struct rtb_irq *irq = n < BOARD_TIMERS ? timer_owner[n] : NULL;

	if (irq == NULL)
		return;
	if (irq->periodic) {
		uint64_t expiry = (rtb_port_counter_read() - irq->start_ticks) / irq->period_ticks;
		/* this interrupt serves expiry `expiry`; the ones before it were
		 * served or lost */
		if (expiry > irq->serviced + irq->lost + 1)
			irq->lost = expiry - irq->serviced - 1;
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
	struct rtb_irq *irq = txp_alloc(sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	*irq = (struct rtb_irq){.handler = handler, .arg = arg};
	uint32_t m = cm_irq_save();
	for (irq->timer = 0; irq->timer < BOARD_TIMERS; irq->timer++) {
		if (timer_owner[irq->timer] == NULL) {
			timer_owner[irq->timer] = irq;
			break;
		}
	}
	cm_irq_restore(m);
	if (irq->timer == BOARD_TIMERS) {
		txp_free(irq);
		return RTB_E_NOMEM; /* every timer has a source */
	}
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	board_timer_stop(irq->timer);
	uint32_t m = cm_irq_save();
	timer_owner[irq->timer] = NULL;
	cm_irq_restore(m);
	txp_free(irq);
	return RTB_OK;
}

/* A delay in counter ticks, at least one, at most the timer's 32 bits. */
static uint32_t timer_ticks(uint64_t ns)
{
	uint64_t t = ns * BOARD_COUNTER_HZ / 1000000000ull;

	return t == 0 ? 1u : t > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)t;
}

#define DELAY_MAX_NS 60000000000ull /* keeps ns * BOARD_COUNTER_HZ in 64 bits */

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns > DELAY_MAX_NS)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	irq->periodic = false;
	irq->fired++;
	board_timer_start(irq->timer, timer_ticks(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (period_ns == 0 || period_ns > DELAY_MAX_NS)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	irq->period_ticks = timer_ticks(period_ns);
	irq->serviced = 0;
	irq->lost = 0;
	irq->periodic = true;
	irq->start_ticks = rtb_port_counter_read();
	board_timer_start(irq->timer, (uint32_t)irq->period_ticks, 1);
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	board_timer_stop(irq->timer);
	if (counts != NULL) {
		uint32_t m = cm_irq_save();
		counts->serviced = irq->serviced;
		counts->lost = irq->lost;
		counts->generated = irq->periodic ? irq->serviced + irq->lost : irq->fired;
		cm_irq_restore(m);
	}
	irq->periodic = false;
	return RTB_OK;
}
