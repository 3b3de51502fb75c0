/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric: Thread-Metric's porting layer (tm_api.h, 17
 * functions) for FreeRTOS on mps2-an385, in FreeRTOS's own idiom, built
 * with rtbench's FreeRTOS configuration (ports/freertos/config).
 *
 * Threads are tasks created before the scheduler starts and suspended at
 * once (Thread-Metric creates them dormant); Thread-Metric's priorities 1
 * (most urgent) .. 31 map to FreeRTOS's configMAX_PRIORITIES - p. Resume and
 * suspend are vTaskResume/vTaskSuspend (xTaskResumeFromISR in the interrupt
 * handler), relinquish is taskYIELD(), sleep is vTaskDelay of
 * configTICK_RATE_HZ ticks a second. Queues carry Thread-Metric's 16-byte
 * messages by copy (xQueueSend/xQueueReceive, no wait); the semaphore is a
 * counting semaphore taken and given without waiting (xSemaphoreGiveFromISR
 * and portYIELD_FROM_ISR in the handler); FreeRTOS has no fixed-block pool,
 * so the 128-byte blocks come from its heap (pvPortMalloc/vPortFree,
 * heap_4).
 *
 * The interrupt: the original raises it with `SVC #0`
 * (tm_porting_layer.h's TM_CAUSE_INTERRUPT), and so does this build.
 * FreeRTOS's Cortex-M3 port starts its first task with `svc 0` too, so the
 * SVCall handler is a dispatcher: the first supervisor call goes to
 * vPortSVCHandler (after lowering SVCall to
 * configMAX_SYSCALL_INTERRUPT_PRIORITY, from which FreeRTOS's FromISR
 * functions may be called; it could not be lowered before, since the
 * scheduler's start masks that level while it issues the call), every
 * later one to the test's handler: five instructions more than ThreadX's
 * direct handler.
 */
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board.h"
#include "cm.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "tm_api.h"
#include "tm_board_common.h"

#define TM_THREADS 10
#define TM_QUEUES 2
#define TM_SEMAPHORES 2
#define TM_STACK_WORDS 1024u
#define TM_QUEUE_DEPTH 10u /* ThreadX's 200-byte queue holds 12 messages */
#define TM_MESSAGE_BYTES 16u
#define TM_BLOCK_BYTES 128u

uint8_t ucHeap[configTOTAL_HEAP_SIZE] __attribute__((section(".heap"), aligned(8)));

static TaskHandle_t threads[TM_THREADS];
static QueueHandle_t queues[TM_QUEUES];
static SemaphoreHandle_t semaphores[TM_SEMAPHORES];
/* Non-zero once the scheduler's own supervisor call has been made. */
volatile uint32_t tm_svc_started;

void tm_board_svc_handler(void);
void tm_board_svc_isr(void);
void vPortSVCHandler(void);
void vApplicationTickHook(void);
void tm_main(void);
int main(void);

__attribute__((naked)) void tm_board_svc_handler(void)
{
	__asm volatile("ldr r0, =tm_svc_started\n\t"
		       "ldr r1, [r0]\n\t"
		       "cbz r1, 1f\n\t"
		       "b tm_board_svc_isr\n"
		       "1:\n\t"
		       "movs r1, #1\n\t"
		       "str r1, [r0]\n\t"
		       "ldr r0, =0xE000ED1C\n\t" /* SHPR2: SVCall's priority */
		       "movs r1, %0\n\t"
		       "lsls r1, r1, #24\n\t"
		       "str r1, [r0]\n\t"
		       "b vPortSVCHandler\n\t"
		       ".ltorg" ::"i"(configMAX_SYSCALL_INTERRUPT_PRIORITY));
}

void tm_board_svc_isr(void)
{
	tm_board_test_interrupt();
}

void vApplicationTickHook(void)
{
}

/* The board's timers and software lines are not used by these images. */
void rtb_fw_timer_isr(unsigned n)
{
	(void)n;
}

void rtb_fw_soft0_isr(void)
{
}

void rtb_fw_soft1_isr(void)
{
}

int main(void)
{
	(void)cm_irq_save(); /* the scheduler's start opens them */
	board_init(NULL);
	tm_main();
	return 0;
}

void tm_initialize(void (*test_initialization_function)(void))
{
	test_initialization_function();
	vTaskStartScheduler();
	tm_board_stop("THREAD-METRIC-BOARD: the scheduler did not start");
}

static void thread_entry(void *entry)
{
	((void (*)(void))entry)();
	vTaskSuspend(NULL);
}

int tm_thread_create(int thread_id, int priority, void (*entry_function)(void))
{
	if (thread_id < 0 || thread_id >= TM_THREADS || priority < 1 ||
	    priority >= configMAX_PRIORITIES)
		return TM_ERROR;
	if (xTaskCreate(thread_entry, "tm", TM_STACK_WORDS, (void *)entry_function,
			(UBaseType_t)(configMAX_PRIORITIES - priority),
			&threads[thread_id]) != pdPASS)
		return TM_ERROR;
	vTaskSuspend(threads[thread_id]);
	return TM_SUCCESS;
}

int tm_thread_resume(int thread_id)
{
	if (cm_in_isr()) {
		portYIELD_FROM_ISR(xTaskResumeFromISR(threads[thread_id]));
	} else {
		vTaskResume(threads[thread_id]);
	}
	return TM_SUCCESS;
}

int tm_thread_suspend(int thread_id)
{
	vTaskSuspend(threads[thread_id]);
	return TM_SUCCESS;
}

void tm_thread_relinquish(void)
{
	taskYIELD();
}

void tm_thread_sleep(int seconds)
{
	vTaskDelay((TickType_t)seconds * configTICK_RATE_HZ);
}

int tm_queue_create(int queue_id)
{
	queues[queue_id] = xQueueCreate(TM_QUEUE_DEPTH, TM_MESSAGE_BYTES);
	return queues[queue_id] != NULL ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_send(int queue_id, unsigned long *message_ptr)
{
	return xQueueSend(queues[queue_id], message_ptr, 0) == pdTRUE ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_receive(int queue_id, unsigned long *message_ptr)
{
	return xQueueReceive(queues[queue_id], message_ptr, 0) == pdTRUE ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_create(int semaphore_id)
{
	semaphores[semaphore_id] = xSemaphoreCreateCounting(0x7FFFFFFFu, 1u);
	return semaphores[semaphore_id] != NULL ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_get(int semaphore_id)
{
	return xSemaphoreTake(semaphores[semaphore_id], 0) == pdTRUE ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_put(int semaphore_id)
{
	if (cm_in_isr()) {
		BaseType_t woken = pdFALSE;
		BaseType_t given = xSemaphoreGiveFromISR(semaphores[semaphore_id], &woken);

		portYIELD_FROM_ISR(woken);
		return given == pdTRUE ? TM_SUCCESS : TM_ERROR;
	}
	return xSemaphoreGive(semaphores[semaphore_id]) == pdTRUE ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_create(int pool_id)
{
	(void)pool_id; /* the heap is the pool */
	return TM_SUCCESS;
}

int tm_memory_pool_allocate(int pool_id, unsigned char **memory_ptr)
{
	(void)pool_id;
	*memory_ptr = pvPortMalloc(TM_BLOCK_BYTES);
	return *memory_ptr != NULL ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_deallocate(int pool_id, unsigned char *memory_ptr)
{
	(void)pool_id;
	vPortFree(memory_ptr);
	return TM_SUCCESS;
}
