/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: RTOSBench's porting layer (include/porting_layer.h) for
 * uC/OS-III, in uC/OS-III's own idiom: a start task at the most urgent
 * priority starts SysTick (after OSStart, as the port requires), runs the
 * test's initialisation, which creates the test's tasks with OSTaskCreate
 * (static control blocks and stacks), and deletes itself. Semaphores are
 * OSSemPend/OSSemPost, mutexes OSMutexPend/OSMutexPost (uC/OS-III's
 * mutexes always inherit), message queues OSQPost/OSQPend carrying the
 * small message inside the pointer (uC/OS-III queues pass pointers), event
 * flags OSFlagPost/OSFlagPend, a yield OSSchedRoundRobinYield() (round-robin
 * enabled with the default quantum). The interrupt handler is bracketed by
 * OSIntEnter()/OSIntExit(). The board half (time, console, the interrupt)
 * is rb_board.c.
 */
#include "porting_layer.h"

#include "board.h"

#define TASKS 16u
#define STACK_WORDS 4096u /* the verbose build keeps NB_ITER samples on the stack */
#define START_PRIO 1u
#define EVENT_BIT 0x08u

static OS_TCB tcbs[TASKS];
static CPU_STK stacks[TASKS][STACK_WORDS] __attribute__((section(".heap")));
static unsigned tasks_created;
static OS_TCB start_tcb;
static CPU_STK start_stack[512];
static no_task_entry_t init_fct;

/* The board's console receive handler's bracket (rtb_fw_rtos.h). */
void ucos3_isr_enter(void)
{
	CPU_SR_ALLOC();

	CPU_CRITICAL_ENTER();
	OSIntEnter();
	CPU_CRITICAL_EXIT();
}

void rtb_fw_timer_isr(unsigned n)
{
	(void)n;
	ucos3_isr_enter();
	if (rb_sgi_handler != NULL)
		rb_sgi_handler(0, NULL);
	OSIntExit();
}

/* The board's software lines are not used by these images. */
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
	OS_CPU_SysTickInitFreq(BOARD_CPU_HZ);
	init_fct(NULL);
	OSTaskDel(NULL, &err);
}

void no_initialize_test(no_task_entry_t init_test_fct)
{
	OS_ERR err;

	rb_board_init();
	CPU_Init();
	OSInit(&err);
	if (err != OS_ERR_NONE)
		no_serial_write("OSInit: error");
	OSSchedRoundRobinCfg(DEF_TRUE, 0u, &err);
	init_fct = init_test_fct;
	OSTaskCreate(&start_tcb, (CPU_CHAR *)"start", start_task, NULL, START_PRIO, start_stack, 0u,
		     sizeof(start_stack) / sizeof(start_stack[0]), 0u, 0u, NULL, OS_OPT_TASK_NONE,
		     &err);
	OSStart(&err);
	no_serial_write("RTOSBENCH-BOARD: OSStart returned");
	board_reset();
}

no_task_handle_t no_create_task(no_task_entry_t task_entry, char task_name[4], unsigned int prio)
{
	OS_ERR err;

	if (tasks_created == TASKS) {
		no_serial_write("create_task: no more tasks");
		return NULL;
	}
	OS_TCB *tcb = &tcbs[tasks_created];
	CPU_STK *stack = stacks[tasks_created];

	tasks_created++;
	OSTaskCreate(tcb, (CPU_CHAR *)task_name, task_entry, NULL, (OS_PRIO)prio, stack, 0u,
		     STACK_WORDS, 0u, 0u, NULL, OS_OPT_TASK_NONE, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("create_task: error");
	return tcb;
}

void no_task_yield(void)
{
	OS_ERR err;

	OSSchedRoundRobinYield(&err);
}

void no_task_suspend_self(void)
{
	OS_ERR err;

	OSTaskSuspend(NULL, &err);
}

void no_task_delay(unsigned int nanoseconds)
{
	const uint32_t tick_ns = 1000000000u / OS_CFG_TICK_RATE_HZ;
	OS_ERR err;

	OSTimeDly((nanoseconds + tick_ns - 1u) / tick_ns, OS_OPT_TIME_DLY, &err);
}

void no_sem_create(no_sem_t *sem, int current_value)
{
	OS_ERR err;

	OSSemCreate(sem, (CPU_CHAR *)"sem", (OS_SEM_CTR)current_value, &err);
}

void no_sem_wait(no_sem_t *sem)
{
	OS_ERR err;

	OSSemPend(sem, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("sem_wait: error");
}

void no_sem_signal(no_sem_t *sem)
{
	OS_ERR err;

	OSSemPost(sem, OS_OPT_POST_1, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("sem_signal: error");
}

void no_mutex_create(no_mutex_t *mutex)
{
	OS_ERR err;

	OSMutexCreate(mutex, (CPU_CHAR *)"mutex", &err);
}

void no_mutex_acquire(no_mutex_t *mutex)
{
	OS_ERR err;

	OSMutexPend(mutex, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("mutex_acquire: error");
}

void no_mutex_release(no_mutex_t *mutex)
{
	OS_ERR err;

	OSMutexPost(mutex, OS_OPT_POST_NONE, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("mutex_release: error");
}

void no_event_create(no_event_t *event)
{
	OS_ERR err;

	OSFlagCreate(event, (CPU_CHAR *)"event", 0u, &err);
}

void no_event_set(no_event_t *event)
{
	OS_ERR err;

	OSFlagPost(event, EVENT_BIT, OS_OPT_POST_FLAG_SET, &err);
}

void no_event_reset(no_event_t *event)
{
	OS_ERR err;

	OSFlagPost(event, EVENT_BIT, OS_OPT_POST_FLAG_CLR, &err);
}

void no_event_wait(no_event_t *event)
{
	OS_ERR err;

	OSFlagPend(event, EVENT_BIT, 0u,
		   OS_OPT_PEND_FLAG_SET_ALL | OS_OPT_PEND_FLAG_CONSUME | OS_OPT_PEND_BLOCKING, NULL,
		   &err);
}

void no_mq_create(no_mq_t *mq, unsigned int length, unsigned int msgsize)
{
	OS_ERR err;

	(void)msgsize; /* the message travels inside the pointer */
	OSQCreate(mq, (CPU_CHAR *)"mq", (OS_MSG_QTY)length, &err);
}

void no_mq_send(no_mq_t *mq, unsigned int msg)
{
	OS_ERR err;

	OSQPost(mq, (void *)(uintptr_t)msg, sizeof(msg), OS_OPT_POST_FIFO, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("mq_send: error");
}

void no_mq_receive(no_mq_t *mq)
{
	OS_ERR err;
	OS_MSG_SIZE size;

	(void)OSQPend(mq, 0u, OS_OPT_PEND_BLOCKING, &size, NULL, &err);
	if (err != OS_ERR_NONE)
		no_serial_write("mq_receive: error");
}
