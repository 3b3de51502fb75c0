/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The firmware ports' interrupt source (struct rtb_irq) and its fire with
 * delay 0, for fw_port.h and for the ports' rtb_port_inline.h: the core
 * inlines rtb_port_irq_fire_now() from there, as it inlines the counter
 * read. Only the architecture's header (fw_arch.h) and the contract: the
 * core's freestanding build reads it.
 *
 * A fire with delay 0 (rtb_fw_irq_fire_now): the firing thread raises the
 * source's software line (the architecture's rtb_fw_soft_raise: set pending
 * in the NVIC, a software-generated interrupt of the GIC), the way an RTOS
 * application raises an interrupt from software (Thread-Metric's interrupt
 * tests trap with SVC for the same purpose), so the handler runs before the
 * fire returns; no timer is stopped or started on that path. A fire with a
 * delay, and periodic mode, keep the board's timer: there the hardware event
 * is the point (latency from an expiry, sustained rates). The rest of the
 * source (the table of the board's timers, the dispatch, periodic mode, the
 * counts) is in fw_port.h.
 */
/* Before the guard: rtb_port.h reads the port's rtb_port_inline.h last,
 * which reads this header, and needs it whole even when this header was
 * read first. */
#include "rtb_port.h"

#ifndef RTB_FW_IRQ_H
#define RTB_FW_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_arch.h"

struct rtb_fw_irq_count {
	bool periodic;
	/* the source's timer may still raise it: a fire with a delay armed it,
	 * or it is periodic (cleared when the timer is stopped) */
	bool timer_on;
	bool storm;
	bool halted;	/* periodic: the timer stopped by the storm check */
	uint64_t fired; /* one-shot fires asked for */
	volatile uint64_t serviced;
	uint64_t period_ticks; /* periodic: the timer's period, in counter ticks */
	uint64_t start_ticks;  /* periodic: the counter when the timer started */
	uint64_t next_due;     /* periodic: the first expiry after the last check */
	uint64_t storm_since;  /* periodic: back to back since then, when storm */
};

/* The contract's interrupt source on every firmware port: board timer
 * `timer`, the scenario's handler and its argument, the counts. */
struct rtb_irq {
	unsigned timer;
	rtb_irq_handler handler;
	void *arg;
	uint32_t soft_word; /* what raises its software line (RTB_FW_SOFT_WORD) */
	struct rtb_fw_irq_count count;
};

/* Stop the timer of a source that a delayed fire armed or that is
 * periodic: out of line, so that a fire with delay 0 on a source whose timer
 * is idle (the usual case) makes no call. */
void rtb_fw_irq_disarm(struct rtb_irq *irq);

/* A fire with delay 0: stop the source's timer if a delayed fire or periodic
 * mode may still raise it (the contract: this fire replaces those), count
 * the request, and raise the source's software line. Inline, a leaf: these
 * few instructions are what tm.irq measures of the raise. */
static inline int rtb_fw_irq_fire_now(struct rtb_irq *irq)
{
	if (__builtin_expect(irq->count.timer_on, 0))
		rtb_fw_irq_disarm(irq);
	irq->count.fired++;
	rtb_fw_soft_raise(irq->soft_word);
	return RTB_OK;
}

#endif /* RTB_FW_IRQ_H */
