/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: the interrupt source, one of the board's hardware timers
 * per source (board.h), raised from software on the board's spare line
 * beside it when fired with delay 0 (fw_irq.h, fw_port.h). The board's
 * handler clears the timer and calls rtb_fw_timer_isr(); the spare line's
 * handler is the port's own (RTB_FW_SOFT_ISRS), in the vector table: each
 * calls the scenario's handler. The port adds no
 * bracket of its own (txp_arch.h): on ThreadX's Cortex-M3 port
 * _tx_thread_context_save and _tx_thread_context_restore are empty (ThreadX
 * reads IPSR to know it runs in a handler), and a service that makes a more
 * urgent thread ready pends PendSV, the lowest exception, which switches
 * once the handler returns; on its Cortex-A port the IRQ entry
 * (txp_irq.S) is that bracket, and _tx_thread_context_restore switches. The
 * target thread is not used: on one CPU the interrupt preempts whatever
 * runs.
 *
 * The source itself, the table of the board's timers, the dispatch,
 * periodic mode and the counts of generated, serviced and lost interrupts:
 * the same for every firmware port (fw_port.h). Here: the contract's calls
 * on them, with the source's memory (the byte pool) and the table's critical
 * section; a delayed one-shot fire stops the timer first whatever its mode.
 */
#include "fw_port.h"
#include "port_threadx.h"

/* ThreadX needs nothing around the scenario's handler (above). */
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
	struct rtb_irq *irq = txp_alloc(sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	*irq = (struct rtb_irq){.handler = handler, .arg = arg};
	uint32_t m = rtb_fw_irq_save();
	bool claimed = rtb_fw_irq_claim(irq);
	rtb_fw_irq_restore(m);
	if (!claimed) {
		txp_free(irq);
		return RTB_E_NOMEM; /* every timer of the board has a source */
	}
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	board_timer_stop(irq->timer);
	uint32_t m = rtb_fw_irq_save();
	rtb_fw_irq_release(irq);
	rtb_fw_irq_restore(m);
	txp_free(irq);
	return RTB_OK;
}

/* A fire with a delay: the board's timer, stopped first whatever its mode.
 * Out of line, so that the fire with delay 0 stays a leaf. */
static __attribute__((noinline)) int fire_later(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
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
