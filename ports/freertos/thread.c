/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: threads are tasks. The port's record of a task lives in
 * its thread-local storage slot 0 (NULL for the task that runs the core).
 * A thread that ends marks itself ended and suspends; rtb_port_thread_delete()
 * then deletes the task (its stack and control block go back to the heap at
 * once) and frees the record.
 */
#include "port_freertos.h"

struct rtb_thread {
	TaskHandle_t task;
	rtb_thread_fn fn;
	void *arg;
	bool wait_start;
	volatile bool ended;
};

static void trampoline(void *p)
{
	struct rtb_thread *t = p;

	vTaskSetThreadLocalStoragePointer(NULL, 0, t);
	if (t->wait_start)
		(void)ulTaskNotifyTakeIndexed(FRT_NOTE_START, pdTRUE, portMAX_DELAY);
	t->fn(t->arg);
	rtb_port_thread_exit();
}

int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg)
{
	if (out == NULL || attr == NULL || fn == NULL || attr->prio < 0 ||
	    attr->prio > FRT_PRIO_MAX)
		return RTB_E_INVALID;
	if (attr->on_cpu && attr->cpu != 0)
		return RTB_E_INVALID;
	struct rtb_thread *t = pvPortMalloc(sizeof(*t));
	if (t == NULL)
		return RTB_E_NOMEM;
	t->fn = fn;
	t->arg = arg;
	t->wait_start = attr->start_suspended;
	t->ended = false;
	t->task = NULL;
	size_t bytes = attr->stack_bytes != 0 ? attr->stack_bytes : FRT_STACK_BYTES;
	configSTACK_DEPTH_TYPE words = (configSTACK_DEPTH_TYPE)((bytes + 3) / 4);
	/* The record must be complete before the task can run (a higher priority
	 * runs at once): the handle is written by xTaskCreate before it returns,
	 * and the task itself only needs fn/arg. */
	if (xTaskCreate(trampoline, attr->name != NULL ? attr->name : "rtb", words, t,
			FRT_NATIVE(attr->prio), &t->task) != pdPASS) {
		vPortFree(t);
		return RTB_E_NOMEM;
	}
	*out = t;
	return RTB_OK;
}

int rtb_port_thread_start(struct rtb_thread *t)
{
	if (t == NULL || !t->wait_start)
		return RTB_E_INVALID;
	xTaskNotifyGiveIndexed(t->task, FRT_NOTE_START);
	return RTB_OK;
}

struct rtb_thread *rtb_port_thread_self(void)
{
	return pvTaskGetThreadLocalStoragePointer(NULL, 0);
}

void rtb_port_thread_yield(void)
{
	taskYIELD();
}

int rtb_port_thread_suspend_self(void)
{
	(void)ulTaskNotifyTakeIndexed(FRT_NOTE_RESUME, pdFALSE, portMAX_DELAY);
	return RTB_OK;
}

int rtb_port_thread_suspend(struct rtb_thread *t)
{
	(void)t;
	return RTB_E_UNSUPPORTED;
}

static TaskHandle_t handle_of(struct rtb_thread *t)
{
	return t != NULL ? t->task : NULL;
}

int rtb_port_thread_resume(struct rtb_thread *t)
{
	if (t == NULL)
		return RTB_E_INVALID;
	xTaskNotifyGiveIndexed(t->task, FRT_NOTE_RESUME);
	return RTB_OK;
}

int rtb_port_thread_set_priority(struct rtb_thread *t, int prio)
{
	if (prio < 0 || prio > FRT_PRIO_MAX)
		return RTB_E_INVALID;
	vTaskPrioritySet(handle_of(t), FRT_NATIVE(prio));
	return RTB_OK;
}

int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio)
{
	/* The base priority, as set: not one raised by priority inheritance. */
	UBaseType_t p = uxTaskBasePriorityGet(handle_of(t));

	*prio = p >= 1 ? (int)p - 1 : 0;
	return RTB_OK;
}

void rtb_port_thread_exit(void)
{
	struct rtb_thread *t = rtb_port_thread_self();

	if (t != NULL)
		t->ended = true;
	for (;;)
		vTaskSuspend(NULL);
}

int rtb_port_thread_delete(struct rtb_thread *t)
{
	if (t == NULL)
		return RTB_E_INVALID;
	if (t->task == xTaskGetCurrentTaskHandle())
		return RTB_E_INVALID;
	vTaskDelete(t->task);
	vPortFree(t);
	return RTB_OK;
}
