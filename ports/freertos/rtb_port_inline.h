/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: what the core inlines (rtb_port.h). The counter read, the
 * board's free-running timer extended to 64 bits by the architecture's code
 * (ports/arch/<arch>/fw_counter.h). A fire with delay 0, the firmware ports'
 * software line (fw_irq.h). The semaphore's take without waiting
 * (xSemaphoreTake with no block time, the call sync.c's other takes make)
 * and its give from a handler (xSemaphoreGiveFromISR, then the switch the
 * kernel asks for: portYIELD_FROM_ISR, out of line in sync.c, since what it
 * does is the kernel port's for the architecture).
 *
 * No FreeRTOS header: the core reads this one, freestanding. The two kernel
 * functions that xSemaphoreTake and xSemaphoreGiveFromISR name are declared
 * here with the kernel's types (BaseType_t is long, TickType_t uint32_t, a
 * QueueHandle_t a struct QueueDefinition *, as in the ARM_CM3 and ARM_CA9
 * ports and this image's FreeRTOSConfig.h); sync.c reads both this header and
 * queue.h, so the compiler checks that the two declarations agree.
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

struct QueueDefinition;
long xQueueSemaphoreTake(struct QueueDefinition *xQueue, uint32_t xTicksToWait);
long xQueueGiveFromISR(struct QueueDefinition *xQueue, long *const pxHigherPriorityTaskWoken);
/* portYIELD_FROM_ISR(pdTRUE) (sync.c). */
void frt_yield_from_isr(void);

static inline int rtb_port_sem_trywait(struct rtb_sem *s)
{
	/* pdTRUE is 1 */
	return xQueueSemaphoreTake((struct QueueDefinition *)s, 0u) == 1 ? RTB_OK : RTB_E_AGAIN;
}

static inline int rtb_port_sem_signal_from_irq(struct rtb_sem *s)
{
	long woken = 0; /* pdFALSE */
	int rc = xQueueGiveFromISR((struct QueueDefinition *)s, &woken) == 1 ? RTB_OK : RTB_E_AGAIN;

	if (woken != 0)
		frt_yield_from_isr();
	return rc;
}

#endif /* RTB_PORT_INLINE_H */
