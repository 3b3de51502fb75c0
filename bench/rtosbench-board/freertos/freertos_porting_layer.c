/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: RTOSBench's porting layer (include/porting_layer.h) for
 * FreeRTOS, in FreeRTOS's own idiom: tasks from xTaskCreate() before the
 * scheduler starts (dormant until vTaskStartScheduler()), taskYIELD(),
 * counting semaphores and priority-inheritance mutexes taken and given with
 * xSemaphoreTake/Give and no timeout, queues of copied messages
 * (xQueueSend/Receive), event groups. The interrupt handler needs no
 * bracket; a handler that makes a task ready would end with
 * portYIELD_FROM_ISR (RTOSBench's writes a timestamp only). The board
 * half (time, console, the interrupt) is rb_board.c.
 */
#include "porting_layer.h"

#include "board.h"

#define STACK_WORDS 4096u /* the verbose build keeps NB_ITER samples on the stack */
#define SEM_MAX 0x7FFFFFFFu
#define EVENT_BIT 0x08u

/* FreeRTOS's heap (configAPPLICATION_ALLOCATED_HEAP), in the board's heap
 * section, as in rtbench's image. */
uint8_t ucHeap[configTOTAL_HEAP_SIZE] __attribute__((section(".heap"), aligned(8)));

void vApplicationTickHook(void);
void vApplicationTickHook(void)
{
}

void rtb_fw_timer_isr(unsigned n)
{
	(void)n;
	if (rb_sgi_handler != NULL)
		rb_sgi_handler(0, NULL);
}

/* The board's software lines are not used by these images. */
void rtb_fw_soft0_isr(void)
{
}

void rtb_fw_soft1_isr(void)
{
}

void no_initialize_test(no_task_entry_t init_test_fct)
{
	rb_board_init();
	init_test_fct(NULL);
	vTaskStartScheduler();
	no_serial_write("RTOSBENCH-BOARD: the scheduler did not start");
	board_reset();
}

no_task_handle_t no_create_task(no_task_entry_t task_entry, char task_name[4], unsigned int prio)
{
	TaskHandle_t h = NULL;

	if (xTaskCreate(task_entry, task_name, STACK_WORDS, NULL, prio, &h) != pdPASS)
		no_serial_write("create_task: error");
	return h;
}

void no_task_yield(void)
{
	taskYIELD();
}

void no_task_suspend_self(void)
{
	vTaskSuspend(NULL);
}

void no_task_delay(unsigned int nanoseconds)
{
	const uint32_t tick_ns = 1000000000u / configTICK_RATE_HZ;

	vTaskDelay((nanoseconds + tick_ns - 1u) / tick_ns);
}

void no_sem_create(no_sem_t *sem, int current_value)
{
	*sem = xSemaphoreCreateCounting(SEM_MAX, (UBaseType_t)current_value);
}

void no_sem_wait(no_sem_t *sem)
{
	if (xSemaphoreTake(*sem, portMAX_DELAY) != pdTRUE)
		no_serial_write("sem_wait: error");
}

void no_sem_signal(no_sem_t *sem)
{
	if (xSemaphoreGive(*sem) != pdTRUE)
		no_serial_write("sem_signal: error");
}

void no_mutex_create(no_mutex_t *mutex)
{
	*mutex = xSemaphoreCreateMutex();
}

void no_mutex_acquire(no_mutex_t *mutex)
{
	if (xSemaphoreTake(*mutex, portMAX_DELAY) != pdTRUE)
		no_serial_write("mutex_acquire: error");
}

void no_mutex_release(no_mutex_t *mutex)
{
	if (xSemaphoreGive(*mutex) != pdTRUE)
		no_serial_write("mutex_release: error");
}

void no_event_create(no_event_t *event)
{
	*event = xEventGroupCreate();
}

void no_event_set(no_event_t *event)
{
	xEventGroupSetBits(*event, EVENT_BIT);
}

void no_event_reset(no_event_t *event)
{
	xEventGroupClearBits(*event, EVENT_BIT);
}

void no_event_wait(no_event_t *event)
{
	xEventGroupWaitBits(*event, EVENT_BIT, pdTRUE, pdTRUE, portMAX_DELAY);
}

void no_mq_create(no_mq_t *mq, unsigned int length, unsigned int msgsize)
{
	*mq = xQueueCreate(length, msgsize);
}

void no_mq_send(no_mq_t *mq, unsigned int msg)
{
	if (xQueueSend(*mq, &msg, portMAX_DELAY) != pdTRUE)
		no_serial_write("mq_send: error");
}

void no_mq_receive(no_mq_t *mq)
{
	unsigned int rcv;

	if (xQueueReceive(*mq, &rcv, portMAX_DELAY) != pdTRUE)
		no_serial_write("mq_receive: error");
}
