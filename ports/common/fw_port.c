/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every firmware port shares (fw_port.h) and is not inline: the
 * interrupt sources' table, periodic mode and the counts.
 */
#include "fw_port.h"

#include "rtb/core.h"

struct rtb_irq *volatile rtb_fw_irq_sources[BOARD_TIMERS];

void rtb_fw_irq_periodic(struct rtb_fw_irq_count *c, unsigned n, rtb_irq_handler handler, void *arg)
{
	handler(arg);
	c->serviced++;
	rtb_fw_irq_served(c, n);
}

void rtb_fw_irq_start_periodic(struct rtb_fw_irq_count *c, unsigned n, uint64_t period_ns)
{
	board_timer_stop(n);
	uint32_t timer_ticks = rtb_fw_timer_ticks(period_ns);
	c->period_ticks = RTB_FW_TIMER_TO_COUNTER(timer_ticks);
	c->serviced = 0;
	c->storm = false;
	c->halted = false;
	c->next_due = UINT64_MAX; /* until the start is known, below */
	c->periodic = true;
	c->timer_on = true;
	board_timer_start(n, timer_ticks, 1);
	/* read once the timer runs: a start a few ticks early would count an
	 * expiry that has not happened yet */
	c->start_ticks = rtb_port_counter_read();
	c->next_due = c->start_ticks + c->period_ticks;
}

void rtb_fw_irq_stop(struct rtb_fw_irq_count *c, unsigned n, struct rtb_irq_counts *counts)
{
	/* read before the timer stops, for the same reason */
	uint64_t stopped = rtb_port_counter_read();

	board_timer_stop(n);
	if (counts != NULL) {
		uint32_t m = rtb_fw_irq_save();
		uint64_t serviced = c->serviced;
		rtb_fw_irq_restore(m);
		uint64_t generated = c->fired;
		if (c->periodic) {
			generated = (stopped - c->start_ticks) / c->period_ticks;
			if (generated < serviced)
				generated = serviced; /* an expiry in the last ticks before */
		}
		counts->serviced = serviced;
		counts->generated = generated;
		counts->lost = generated - serviced;
	}
	c->periodic = false;
	c->timer_on = false;
}

void rtb_fw_irq_disarm(struct rtb_irq *irq)
{
	board_timer_stop(irq->timer);
	irq->count.timer_on = false;
	irq->count.periodic = false;
}

int rtb_fw_irq_property(const char *key, char *buf, size_t len)
{
	if (rtb_strcmp(key, "irq_now") == 0) {
		rtb_fmt(buf, len, RTB_FW_SOFT_HOW, (unsigned)BOARD_SOFT_IRQ(0),
			(unsigned)BOARD_SOFT_IRQ(BOARD_TIMERS - 1));
		return RTB_OK;
	}
	if (rtb_strcmp(key, "irq_now_name") == 0) {
		rtb_fmt(buf, len, "%s", BOARD_SOFT_IRQ_NAME);
		return RTB_OK;
	}
	return RTB_E_UNSUPPORTED;
}
