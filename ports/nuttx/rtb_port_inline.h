/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NuttX port: what the core inlines (rtb_port.h). The counter read is the
 * architecture's (fw_counter.h: CNTVCT, or under QEMU's -icount the PMU's
 * instructions-retired event), the same read as every other firmware port
 * on the board, so figures compare. A fire with delay 0 is the firmware
 * ports' software line (fw_irq.h). The semaphore's take without waiting and
 * its signal from a handler stay out of line: they are sem_trywait and
 * sem_post of the shared POSIX code (ports/posix/sync.c), calls into NuttX's
 * C library that the core, freestanding, cannot inline.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "fw_counter.h"
#include "fw_irq.h"
#include "rtb_port.h"

static inline uint64_t rtb_port_counter_read(void)
{
	return RTB_FW_COUNTER_READ();
}

static inline int rtb_port_irq_fire_now(struct rtb_irq *irq)
{
	return rtb_fw_irq_fire_now(irq);
}

int rtb_port_sem_trywait(struct rtb_sem *s);
int rtb_port_sem_signal_from_irq(struct rtb_sem *s);

#endif /* RTB_PORT_INLINE_H */
