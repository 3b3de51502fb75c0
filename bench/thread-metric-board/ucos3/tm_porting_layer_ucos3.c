/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric: Thread-Metric's porting layer (tm_api.h, 17
 * functions) for uC/OS-III on mps2-an385, in uC/OS-III's own idiom, built
 * with rtbench's uC/OS-III configuration (ports/ucos3/config).
 *
 * A start task at native priority 0 starts SysTick (after OSStart, as the
 * port requires), runs the test's initialisation and deletes itself.
 * Threads are OSTaskCreate'd tasks (static control blocks and stacks),
 * suspended at once (Thread-Metric creates them dormant); Thread-Metric's
 * priorities 1 (most urgent) .. 31 are uC/OS-III's own numbers. Resume and
 * suspend are OSTaskResume/OSTaskSuspend, relinquish is
 * OSSchedRoundRobinYield() (round-robin enabled, Thread-Metric's threads
 * given the default quantum), sleep OSTimeDly of OS_CFG_TICK_RATE_HZ ticks
 * a second. uC/OS-III queues pass pointers: a 16-byte message is copied
 * into a block of the queue's OSMem partition, the block posted (OSQPost),
 * and the receiver copies it out and puts the block back, as a copying
 * queue does. The semaphore is OSSemPend (non-blocking) / OSSemPost; the
 * 128-byte blocks come from an OSMem partition (OSMemGet/OSMemPut).
 *
 * The interrupt: the original raises it with `SVC #0`
 * (tm_porting_layer.h's TM_CAUSE_INTERRUPT), and so does this build; the
 * SVCall handler is bracketed by OSIntEnter()/OSIntExit() and runs at
 * uC/OS-III's most urgent kernel-aware priority. OSTaskResume() from it
 * (the interrupt-preemption test) is what the test asks for; uC/OS-III
 * refuses it from a handler only when built with
 * OS_CFG_CALLED_FROM_ISR_CHK_EN, which rtbench's configuration leaves off.
 */
#include <string.h>

#include "board.h"
#include "cm.h"
#include "os.h"
#include "rtb_fw_rtos.h"
#include "tm_api.h"
#include "tm_board_common.h"

#define TM_THREADS 10
#define TM_QUEUES 2
#define TM_SEMAPHORES 2
#define TM_POOLS 2
#define TM_STACK_WORDS 1024u
#define TM_QUEUE_DEPTH 10u
#define TM_MESSAGE_WORDS 4u
#define TM_BLOCK_BYTES 128u
#define TM_POOL_BLOCKS 16u /* ThreadX's 2048-byte pool holds 15 */

static OS_TCB tcbs[TM_THREADS];
static CPU_STK stacks[TM_THREADS][TM_STACK_WORDS];
static OS_Q queues[TM_QUEUES];
static OS_MEM queue_slots[TM_QUEUES];
static uint32_t queue_memory[TM_QUEUES][TM_QUEUE_DEPTH][TM_MESSAGE_WORDS];
static OS_SEM semaphores[TM_SEMAPHORES];
static OS_MEM pools[TM_POOLS];
static uint32_t pool_memory[TM_POOLS][TM_POOL_BLOCKS][TM_BLOCK_BYTES / 4u];
static OS_TCB start_tcb;
static CPU_STK start_stack[512];
static void (*init_fct)(void);

void tm_main(void);
int main(void);

void tm_ucos3_isr_enter(void)
{
	CPU_SR_ALLOC();

	CPU_CRITICAL_ENTER();
	OSIntEnter();
	CPU_CRITICAL_EXIT();
}

void tm_board_svc_handler(void)
{
	tm_ucos3_isr_enter();
	tm_board_test_interrupt();
	OSIntExit();
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

static void start_task(void *arg)
{
	OS_ERR err;

	(void)arg;
	tm_board_svc_priority(RTB_FW_IRQ_PRIO);
	OS_CPU_SysTickInitFreq(BOARD_CPU_HZ);
	init_fct();
	OSTaskDel(NULL, &err);
}

int main(void)
{
	(void)cm_irq_save(); /* OSStart opens them */
	board_init(NULL);
	tm_main();
	return 0;
}

void tm_initialize(void (*test_initialization_function)(void))
{
	OS_ERR err;

	CPU_Init();
	OSInit(&err);
	if (err != OS_ERR_NONE)
		tm_board_stop("THREAD-METRIC-BOARD: OSInit failed");
	OSSchedRoundRobinCfg(DEF_TRUE, 0u, &err);
	init_fct = test_initialization_function;
	OSTaskCreate(&start_tcb, (CPU_CHAR *)"start", start_task, NULL, 0u, start_stack, 0u,
		     sizeof(start_stack) / sizeof(start_stack[0]), 0u, 0u, NULL, OS_OPT_TASK_NONE,
		     &err);
	OSStart(&err);
	tm_board_stop("THREAD-METRIC-BOARD: OSStart returned");
}

static void thread_entry(void *entry)
{
	OS_ERR err;

	((void (*)(void))entry)();
	OSTaskSuspend(NULL, &err);
}

int tm_thread_create(int thread_id, int priority, void (*entry_function)(void))
{
	OS_ERR err, suspend_err;

	if (thread_id < 0 || thread_id >= TM_THREADS || priority < 1 || priority > 31)
		return TM_ERROR;
	OSTaskCreate(&tcbs[thread_id], (CPU_CHAR *)"tm", thread_entry, (void *)entry_function,
		     (OS_PRIO)priority, stacks[thread_id], 0u, TM_STACK_WORDS, 0u, 0u, NULL,
		     OS_OPT_TASK_NONE, &err);
	if (err != OS_ERR_NONE)
		return TM_ERROR;
	OSTaskSuspend(&tcbs[thread_id], &suspend_err);
	return suspend_err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_thread_resume(int thread_id)
{
	OS_ERR err;

	OSTaskResume(&tcbs[thread_id], &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_thread_suspend(int thread_id)
{
	OS_ERR err;

	OSTaskSuspend(&tcbs[thread_id], &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

void tm_thread_relinquish(void)
{
	OS_ERR err;

	OSSchedRoundRobinYield(&err);
}

void tm_thread_sleep(int seconds)
{
	OS_ERR err;

	OSTimeDly((OS_TICK)seconds * OS_CFG_TICK_RATE_HZ, OS_OPT_TIME_DLY, &err);
}

int tm_queue_create(int queue_id)
{
	OS_ERR err, mem_err;

	OSMemCreate(&queue_slots[queue_id], (CPU_CHAR *)"tm-q", queue_memory[queue_id],
		    TM_QUEUE_DEPTH, sizeof(queue_memory[0][0]), &mem_err);
	OSQCreate(&queues[queue_id], (CPU_CHAR *)"tm-q", TM_QUEUE_DEPTH, &err);
	return err == OS_ERR_NONE && mem_err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_send(int queue_id, unsigned long *message_ptr)
{
	OS_ERR err;
	void *slot = OSMemGet(&queue_slots[queue_id], &err);

	if (err != OS_ERR_NONE)
		return TM_ERROR;
	memcpy(slot, message_ptr, sizeof(queue_memory[0][0]));
	OSQPost(&queues[queue_id], slot, sizeof(queue_memory[0][0]), OS_OPT_POST_FIFO, &err);
	if (err != OS_ERR_NONE) {
		OSMemPut(&queue_slots[queue_id], slot, &err);
		return TM_ERROR;
	}
	return TM_SUCCESS;
}

int tm_queue_receive(int queue_id, unsigned long *message_ptr)
{
	OS_ERR err;
	OS_MSG_SIZE size;
	void *slot = OSQPend(&queues[queue_id], 0u, OS_OPT_PEND_NON_BLOCKING, &size, NULL, &err);

	if (err != OS_ERR_NONE)
		return TM_ERROR;
	memcpy(message_ptr, slot, sizeof(queue_memory[0][0]));
	OSMemPut(&queue_slots[queue_id], slot, &err);
	return TM_SUCCESS;
}

int tm_semaphore_create(int semaphore_id)
{
	OS_ERR err;

	OSSemCreate(&semaphores[semaphore_id], (CPU_CHAR *)"tm-sem", 1u, &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_get(int semaphore_id)
{
	OS_ERR err;

	OSSemPend(&semaphores[semaphore_id], 0u, OS_OPT_PEND_NON_BLOCKING, NULL, &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_put(int semaphore_id)
{
	OS_ERR err;

	OSSemPost(&semaphores[semaphore_id], OS_OPT_POST_1, &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_create(int pool_id)
{
	OS_ERR err;

	OSMemCreate(&pools[pool_id], (CPU_CHAR *)"tm-pool", pool_memory[pool_id], TM_POOL_BLOCKS,
		    TM_BLOCK_BYTES, &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_allocate(int pool_id, unsigned char **memory_ptr)
{
	OS_ERR err;

	*memory_ptr = OSMemGet(&pools[pool_id], &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_deallocate(int pool_id, unsigned char *memory_ptr)
{
	OS_ERR err;

	OSMemPut(&pools[pool_id], memory_ptr, &err);
	return err == OS_ERR_NONE ? TM_SUCCESS : TM_ERROR;
}
