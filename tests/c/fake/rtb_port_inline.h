/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fake port for the core's unit tests: a scripted counter. Each read
 * returns fake_counter and then advances it by fake_counter_step.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

extern uint64_t fake_counter;
extern uint64_t fake_counter_step;

static inline uint64_t rtb_port_counter_read(void)
{
	uint64_t v = fake_counter;

	fake_counter += fake_counter_step;
	return v;
}

#endif
