/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fake port for the core's unit tests: a scripted counter. Each read
 * returns fake_counter (rounded down to a multiple of fake_counter_quantum
 * when that is above 1, like a counter that moves in steps) and then
 * advances it by fake_counter_step plus, when fake_counter_jitter is above
 * 0, a pseudo-random 0 .. jitter-1. The interrupt hand-off's calls that
 * rtb_port.h lets a port inline are the fake port's functions.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "rtb_port.h"

extern uint64_t fake_counter;
extern uint64_t fake_counter_step;
extern uint64_t fake_counter_quantum;
extern uint64_t fake_counter_jitter;
extern uint64_t fake_counter_reads;

static inline uint64_t rtb_port_counter_read(void)
{
	uint64_t v = fake_counter;

	fake_counter += fake_counter_step;
	if (fake_counter_jitter > 0)
		fake_counter += (++fake_counter_reads * 2654435761u >> 7) % fake_counter_jitter;
	return fake_counter_quantum > 1 ? v - v % fake_counter_quantum : v;
}

static inline int rtb_port_irq_fire_now(struct rtb_irq *irq)
{
	return rtb_port_irq_fire(irq, 0);
}

int rtb_port_sem_trywait(struct rtb_sem *s);
int rtb_port_sem_signal_from_irq(struct rtb_sem *s);

#endif
