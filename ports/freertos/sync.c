/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: counting semaphores, mutexes, message queues, event flags,
 * and the POSIX IPC channels this OS does not have.
 */
#include <string.h>

/* FreeRTOS.h (through port_freertos.h) comes before the kernel's other headers. */
#include "port_freertos.h"

#include "event_groups.h"
#include "queue.h"
#include "semphr.h"

/* Largest semaphore count: FreeRTOS counts in a UBaseType_t. */
#define SEM_MAX 0x7FFFFFFFu
/* Event groups carry 24 flags with 32-bit ticks (the top byte is the
 * kernel's). */
#define EVT_BITS 0x00FFFFFFu
#define MQ_MSG_MAX 256u

static int take(SemaphoreHandle_t h, TickType_t ticks)
{
	return xSemaphoreTake(h, ticks) == pdTRUE ? RTB_OK
	       : ticks == 0			  ? RTB_E_AGAIN
						  : RTB_E_TIMEOUT;
}

/* ---- counting semaphores ------------------------------------------------ */

int rtb_port_sem_create(struct rtb_sem **out, uint32_t initial)
{
	if (out == NULL || initial > SEM_MAX)
		return RTB_E_INVALID;
	SemaphoreHandle_t h = xSemaphoreCreateCounting(SEM_MAX, initial);
	if (h == NULL)
		return RTB_E_NOMEM;
	*out = (struct rtb_sem *)h;
	return RTB_OK;
}

int rtb_port_sem_delete(struct rtb_sem *s)
{
	vSemaphoreDelete((SemaphoreHandle_t)s);
	return RTB_OK;
}

int rtb_port_sem_wait(struct rtb_sem *s)
{
	return take((SemaphoreHandle_t)s, portMAX_DELAY);
}

int rtb_port_sem_timedwait(struct rtb_sem *s, uint64_t timeout_ns)
{
	return take((SemaphoreHandle_t)s, frt_ticks_ceil(timeout_ns));
}

int rtb_port_sem_signal(struct rtb_sem *s)
{
	return xSemaphoreGive((SemaphoreHandle_t)s) == pdTRUE ? RTB_OK : RTB_E_AGAIN;
}

/* rtb_port_sem_trywait() and rtb_port_sem_signal_from_irq(): inline
 * (rtb_port_inline.h). The latter's switch, when its give woke a more urgent
 * task: */
void frt_yield_from_isr(void)
{
	portYIELD_FROM_ISR(pdTRUE);
}

int rtb_port_sem_value(struct rtb_sem *s, uint32_t *value)
{
	*value = (uint32_t)uxSemaphoreGetCount((SemaphoreHandle_t)s);
	return RTB_OK;
}

uint64_t rtb_port_sem_max(void)
{
	return SEM_MAX;
}

/* ---- mutexes -------------------------------------------------------------- */

int rtb_port_mutex_create(struct rtb_mutex **out, enum rtb_mutex_protocol protocol, int ceiling)
{
	SemaphoreHandle_t h;

	(void)ceiling;
	if (out == NULL)
		return RTB_E_INVALID;
	if (protocol == RTB_MUTEX_CEILING)
		return RTB_E_UNSUPPORTED; /* FreeRTOS has no priority ceiling protocol */
	if (protocol == RTB_MUTEX_INHERIT) {
		h = xSemaphoreCreateMutex();
	} else {
		h = xSemaphoreCreateBinary();
		if (h != NULL)
			xSemaphoreGive(h);
	}
	if (h == NULL)
		return RTB_E_NOMEM;
	*out = (struct rtb_mutex *)h;
	return RTB_OK;
}

int rtb_port_mutex_delete(struct rtb_mutex *m)
{
	SemaphoreHandle_t h = (SemaphoreHandle_t)m;

	if (uxSemaphoreGetCount(h) == 0)
		return RTB_E_BUSY;
	vSemaphoreDelete(h);
	return RTB_OK;
}

int rtb_port_mutex_lock(struct rtb_mutex *m)
{
	return take((SemaphoreHandle_t)m, portMAX_DELAY);
}

int rtb_port_mutex_trylock(struct rtb_mutex *m)
{
	return take((SemaphoreHandle_t)m, 0);
}

int rtb_port_mutex_unlock(struct rtb_mutex *m)
{
	return xSemaphoreGive((SemaphoreHandle_t)m) == pdTRUE ? RTB_OK : RTB_E_PERM;
}

const char *rtb_port_mutex_mechanism(enum rtb_mutex_protocol protocol)
{
	switch (protocol) {
	case RTB_MUTEX_INHERIT:
		return "xSemaphoreCreateMutex (FreeRTOS priority inheritance)";
	case RTB_MUTEX_NONE:
		return "xSemaphoreCreateBinary (no owner, no inheritance)";
	default:
		return "none: FreeRTOS has no priority ceiling protocol";
	}
}

/* ---- message queues -------------------------------------------------------- */

struct rtb_mq {
	QueueHandle_t q;
	size_t msg_bytes;
};

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	if (out == NULL || msg_bytes == 0 || msg_bytes > MQ_MSG_MAX || depth == 0)
		return RTB_E_INVALID;
	struct rtb_mq *m = pvPortMalloc(sizeof(*m));
	if (m == NULL)
		return RTB_E_NOMEM;
	m->q = xQueueCreate(depth, msg_bytes);
	if (m->q == NULL) {
		vPortFree(m);
		return RTB_E_NOMEM;
	}
	m->msg_bytes = msg_bytes;
	*out = m;
	return RTB_OK;
}

int rtb_port_mq_delete(struct rtb_mq *m)
{
	vQueueDelete(m->q);
	vPortFree(m);
	return RTB_OK;
}

/* A message shorter than the queue's: zero-padded to the queue's size. */
static int __attribute__((noipa))
send_short(struct rtb_mq *m, const void *msg, size_t len, TickType_t ticks)
{
	uint8_t buf[MQ_MSG_MAX];

	if (len > m->msg_bytes)
		return RTB_E_INVALID;
	memset(buf, 0, m->msg_bytes);
	memcpy(buf, msg, len);
	return xQueueSend(m->q, buf, ticks) == pdTRUE ? RTB_OK : RTB_E_AGAIN;
}

/* A buffer shorter than the queue's messages: their first len bytes. */
static int __attribute__((noipa))
receive_short(struct rtb_mq *m, void *msg, size_t len, TickType_t ticks)
{
	uint8_t buf[MQ_MSG_MAX];

	if (xQueueReceive(m->q, buf, ticks) != pdTRUE)
		return RTB_E_AGAIN;
	memcpy(msg, buf, len);
	return RTB_OK;
}

/* FreeRTOS queues copy by value: a message of the queue's size is one
 * xQueueSend / xQueueReceive of the caller's buffer, as a FreeRTOS user
 * writes it; the other lengths go through a buffer, out of that path. */
static inline int mq_send(struct rtb_mq *m, const void *msg, size_t len, TickType_t ticks)
{
	if (len != m->msg_bytes)
		return send_short(m, msg, len, ticks);
	return xQueueSend(m->q, msg, ticks) == pdTRUE ? RTB_OK : RTB_E_AGAIN;
}

static inline int mq_receive(struct rtb_mq *m, void *msg, size_t len, TickType_t ticks)
{
	if (len < m->msg_bytes)
		return receive_short(m, msg, len, ticks);
	return xQueueReceive(m->q, msg, ticks) == pdTRUE ? RTB_OK : RTB_E_AGAIN;
}

int rtb_port_mq_send(struct rtb_mq *m, const void *msg, size_t len)
{
	return mq_send(m, msg, len, portMAX_DELAY);
}

int rtb_port_mq_trysend(struct rtb_mq *m, const void *msg, size_t len)
{
	return mq_send(m, msg, len, 0);
}

int rtb_port_mq_receive(struct rtb_mq *m, void *msg, size_t len)
{
	return mq_receive(m, msg, len, portMAX_DELAY);
}

int rtb_port_mq_tryreceive(struct rtb_mq *m, void *msg, size_t len)
{
	return mq_receive(m, msg, len, 0);
}

/* ---- event flags -------------------------------------------------------------- */

int rtb_port_evt_create(struct rtb_evt **out)
{
	EventGroupHandle_t e = xEventGroupCreate();

	if (e == NULL)
		return RTB_E_NOMEM;
	*out = (struct rtb_evt *)e;
	return RTB_OK;
}

int rtb_port_evt_delete(struct rtb_evt *e)
{
	vEventGroupDelete((EventGroupHandle_t)e);
	return RTB_OK;
}

int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits)
{
	if (bits & ~EVT_BITS)
		return RTB_E_INVALID;
	(void)xEventGroupSetBits((EventGroupHandle_t)e, (EventBits_t)bits);
	return RTB_OK;
}

int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits)
{
	if (bits & ~EVT_BITS)
		return RTB_E_INVALID;
	(void)xEventGroupClearBits((EventGroupHandle_t)e, (EventBits_t)bits);
	return RTB_OK;
}

int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got)
{
	if (bits == 0 || (bits & ~EVT_BITS))
		return RTB_E_INVALID;
	/* the contract's ANY / ALL are FreeRTOS's xWaitForAllBits pdFALSE / pdTRUE */
	_Static_assert(RTB_EVT_ANY == pdFALSE && RTB_EVT_ALL == pdTRUE, "wait modes");
	EventBits_t v =
		xEventGroupWaitBits((EventGroupHandle_t)e, (EventBits_t)bits,
				    clear ? pdTRUE : pdFALSE, (BaseType_t)mode, portMAX_DELAY);
	if (got != NULL)
		*got = (uint32_t)(v & EVT_BITS);
	return RTB_OK;
}
