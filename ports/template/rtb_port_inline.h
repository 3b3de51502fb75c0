/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Template port: the inlined counter read. Replace the body with the
 * target's free-running cycle counter (for example DWT->CYCCNT on a
 * Cortex-M, or the SysTick/timer value widened to 64 bits).
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

extern volatile uint64_t rtb_template_counter;

static inline uint64_t rtb_port_counter_read(void)
{
	return rtb_template_counter;
}

#endif /* RTB_PORT_INLINE_H */
