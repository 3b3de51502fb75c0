/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: what the core inlines (rtb_port.h). The counter read, the
 * board's free-running timer extended to 64 bits by the architecture's code
 * (ports/arch/<arch>/fw_counter.h). A fire with delay 0, the firmware ports'
 * software line (fw_irq.h). No kernel header: the core reads this one,
 * freestanding. The semaphore's take without waiting and its signal from a
 * handler stay in sync.c: OSSemPend and OSSemPost report through an OS_ERR,
 * a kernel enum this header cannot declare without the kernel's headers.
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
