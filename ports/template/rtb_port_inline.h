/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Template port: what the core inlines (rtb_port.h). Replace the counter
 * read's body with the target's free-running cycle counter (for example
 * DWT->CYCCNT on a Cortex-M, or the SysTick/timer value widened to 64
 * bits). The interrupt hand-off's calls may stay the port's functions, as
 * here, or become inline ones where the OS lets a few instructions do them
 * (a software-raised interrupt; a kernel call declared here with the
 * kernel's types, never through the kernel's headers).
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "rtb_port.h"

extern volatile uint64_t rtb_template_counter;

static inline uint64_t rtb_port_counter_read(void)
{
	return rtb_template_counter;
}

static inline int rtb_port_irq_fire_now(struct rtb_irq *irq)
{
	return rtb_port_irq_fire(irq, 0);
}

int rtb_port_sem_trywait(struct rtb_sem *s);
int rtb_port_sem_signal_from_irq(struct rtb_sem *s);

#endif /* RTB_PORT_INLINE_H */
