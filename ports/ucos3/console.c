/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: the console's RTOS side (ports/common/fw_console.h). The
 * line protocol, the receive ring and the runner are shared by every
 * firmware port (ports/common/fw_console.c); here are its two tasks, with
 * static control blocks and stacks: the console task at native priority 1,
 * woken from the UART's interrupt through its task semaphore, and the
 * runner at the scenarios' lowest, woken by a semaphore of its own (its task
 * semaphore is the contract's suspend/resume of the thread that called
 * rtb_port_init()). Console writes are serialised by an OSMutex (an OSSem
 * when the build has no mutexes). The console task starts the tick at
 * OS_CFG_TICK_RATE_HZ: SysTick on a Cortex-M, the board's timer on a
 * Cortex-A (UCOS3_TICK_START, ucos3_arch.h). The facts file is
 * /rtbench/ucos3.json.
 */
#include "port_ucos3.h"

#include "fw_arch.h"
#include "fw_console.h"
#include "rtb_fw_rtos.h"
#include "rtb/core.h"

#define CONSOLE_WORDS (UCOS3_CONSOLE_STACK_BYTES / sizeof(CPU_STK))
#define RUNNER_WORDS (UCOS3_RUNNER_STACK_BYTES / sizeof(CPU_STK))
#if UCOS3_HAS_RR
#define TASK_QUANTUM UCOS3_FIFO_QUANTUM_TICKS
#else
#define TASK_QUANTUM 0u
#endif

static OS_TCB console_tcb, runner_tcb;
static CPU_STK console_stack[CONSOLE_WORDS] __attribute__((aligned(8)));
static CPU_STK runner_stack[RUNNER_WORDS] __attribute__((aligned(8)));
static OS_SEM run_sem;
#if UCOS3_HAS_MUTEX
static OS_MUTEX write_lock;
#else
static OS_SEM write_lock;
#endif
static bool write_lock_created;

/* The lock is taken from a task once the kernel runs, never from an
 * interrupt or fault handler nor with the scheduler locked (a pend then
 * fails). */
static bool lock_usable(void)
{
	return write_lock_created && OSRunning == OS_STATE_OS_RUNNING && OSIntNestingCtr == 0 &&
	       OSSchedLockNestingCtr == 0 && !rtb_fw_in_isr();
}

bool rtb_fw_os_lock(void)
{
	OS_ERR err;

	if (!lock_usable())
		return false;
#if UCOS3_HAS_MUTEX
	OSMutexPend(&write_lock, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
#else
	(void)OSSemPend(&write_lock, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
#endif
	return err == OS_ERR_NONE;
}

void rtb_fw_os_unlock(void)
{
	OS_ERR err;

#if UCOS3_HAS_MUTEX
	OSMutexPost(&write_lock, OS_OPT_POST_NONE, &err);
#else
	(void)OSSemPost(&write_lock, OS_OPT_POST_1, &err);
#endif
}

/* The records' path (fw_console.h says why it is the port's). */
int rtb_port_console_write(const char *buf, size_t len)
{
	bool locked = rtb_fw_os_lock();

	board_console_write(buf, len);
	if (locked)
		rtb_fw_os_unlock();
	return RTB_OK;
}

void rtb_fw_os_console_wake_from_isr(void)
{
	OS_ERR err;

	/* before OSStart() the console task reads the ring when it first runs */
	if (OSRunning == OS_STATE_OS_RUNNING)
		(void)OSTaskSemPost(&console_tcb, OS_OPT_POST_NONE, &err);
}

void rtb_fw_os_console_wait(void)
{
	OS_ERR err;

	(void)OSTaskSemPend(0u, OS_OPT_PEND_BLOCKING, NULL, &err);
}

void rtb_fw_os_runner_wake(void)
{
	OS_ERR err;

	(void)OSSemPost(&run_sem, OS_OPT_POST_1, &err);
}

void rtb_fw_os_runner_wait(void)
{
	OS_ERR err;

	(void)OSSemPend(&run_sem, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
}

void rtb_fw_os_tick_wait(void)
{
	OS_ERR err;

	OSTimeDly(1u, OS_OPT_TIME_DLY, &err);
}

void rtb_fw_os_run_done(void)
{
	OS_ERR err;

	ucos3_change_prio(NULL, UCOS3_NATIVE(0), &err);
	/* a resume of this thread that no suspend took is not the next run's */
	(void)OSTaskSemSet(NULL, 0u, &err);
	ucos3_mem_reset_if_idle();
}

const char *rtb_fw_os_release(void)
{
	static char release[32];

	if (release[0] == '\0')
		rtb_fmt(release, sizeof(release), "uC/OS-III %s", ucos3_release());
	return release;
}

const char *rtb_fw_os_facts_path(void)
{
	return "/rtbench/ucos3.json";
}

/* ---- /rtbench/ucos3.json ------------------------------------------------------ */

#ifdef CPU_CFG_INT_DIS_MEAS_EN
#define INT_DIS_MEAS 1u
#else
#define INT_DIS_MEAS 0u
#endif

size_t rtb_fw_os_facts(char *json, size_t len)
{
	static const struct rtb_fw_cfg cfg[] = {
		RTB_FW_CFG(OS_CFG_TICK_RATE_HZ),
		RTB_FW_CFG(OS_CFG_PRIO_MAX),
		RTB_FW_CFG(OS_CFG_SCHED_ROUND_ROBIN_EN),
		RTB_FW_CFG(RTB_UCOS3_RR_QUANTUM_TICKS),
		RTB_FW_CFG(OS_CFG_ARG_CHK_EN),
		RTB_FW_CFG(OS_CFG_CALLED_FROM_ISR_CHK_EN),
		RTB_FW_CFG(OS_CFG_INVALID_OS_CALLS_CHK_EN),
		RTB_FW_CFG(OS_CFG_OBJ_TYPE_CHK_EN),
		RTB_FW_CFG(OS_CFG_OBJ_CREATED_CHK_EN),
		RTB_FW_CFG(OS_CFG_DBG_EN),
		RTB_FW_CFG(OS_CFG_TS_EN),
		RTB_FW_CFG(OS_CFG_DYN_TICK_EN),
		RTB_FW_CFG(OS_CFG_SCHED_LOCK_TIME_MEAS_EN),
		RTB_FW_CFG(OS_CFG_STAT_TASK_EN),
		RTB_FW_CFG(OS_CFG_STAT_TASK_STK_CHK_EN),
		RTB_FW_CFG(OS_CFG_TASK_PROFILE_EN),
		RTB_FW_CFG(OS_CFG_TASK_STK_REDZONE_EN),
		RTB_FW_CFG(OS_CFG_TMR_EN),
		RTB_FW_CFG(OS_CFG_TRACE_EN),
		RTB_FW_CFG(OS_CFG_MUTEX_EN),
		RTB_FW_CFG(OS_CFG_SEM_EN),
		RTB_FW_CFG(OS_CFG_Q_EN),
		RTB_FW_CFG(OS_CFG_FLAG_EN),
		RTB_FW_CFG(OS_CFG_MEM_EN),
		RTB_FW_CFG(OS_CFG_MSG_POOL_SIZE),
		RTB_FW_CFG(OS_CFG_ISR_STK_SIZE),
		UCOS3_ARCH_CFG,
		{"CPU_CFG_INT_DIS_MEAS_EN", INT_DIS_MEAS},
	};
	size_t n = rtb_fmt(json, len, "{\"kernel\":\"%s\",\"port\":\"" UCOS3_KERNEL_PORT "\",",
			   ucos3_release());
	n += rtb_fw_facts_board(json + n, len - n);
	n += rtb_fmt(json + n, len - n,
		     ",\"heap\":{\"scheme\":\"size classes on OSMem partitions (the port's)\","
		     "\"total_bytes\":%lu},\"config\":{",
		     (unsigned long)BOARD_HEAP_BYTES);
	n += rtb_fw_facts_config(json + n, len - n, cfg, RTB_ARRAY_SIZE(cfg));
	/* How each service is provided, keyed like the core's capabilities
	 * (docs/porting.md): notes on native ones, how the port builds what
	 * uC/OS-III lacks, and why one is missing. */
	n += rtb_fmt(json + n, len - n,
		     "},\"notes\":{\"mutex_none\":\"an OSSem of count 1\",\"suspend_other\":"
		     "\"OSTaskSuspend\"%s%s%s%s},\"emulated\":{\"memory\":\"no general heap in "
		     "uC/OS-III, only fixed-size OSMem partitions: the port's size classes on "
		     "partitions carved from the board's heap section\"},\"unsupported\":{"
		     "\"mutex_ceiling\":\"uC/OS-III has no priority ceiling protocol\"",
		     UCOS3_HAS_MUTEX ? ",\"mutex_inherit\":\"OSMutex (uC/OS-III mutexes always "
				       "inherit)\""
				     : "",
		     UCOS3_HAS_RR ? ",\"policy_rr\":\"a quantum per task "
				    "(OS_CFG_SCHED_ROUND_ROBIN_EN)\""
				  : "",
		     UCOS3_HAS_EVT ? ",\"evt\":\"OSFlag groups, 32 flags\"" : "",
		     UCOS3_HAS_MQ ? ",\"mq\":\"" UCOS3_MQ_NOTE "\"" : "");
	if (!UCOS3_HAS_RR)
		n += rtb_fmt(json + n, len - n,
			     ",\"policy_rr\":\"OS_CFG_SCHED_ROUND_ROBIN_EN is 0 in this build\"");
	if (!UCOS3_HAS_MUTEX)
		n += rtb_fmt(json + n, len - n,
			     ",\"mutex_inherit\":\"OS_CFG_MUTEX_EN or OS_CFG_MUTEX_DEL_EN is 0 "
			     "in this build\"");
	if (!UCOS3_HAS_MQ)
		n += rtb_fmt(json + n, len - n,
			     ",\"mq\":\"OS_CFG_Q_EN or OS_CFG_Q_DEL_EN is 0 in this build\"");
	if (!UCOS3_HAS_EVT)
		n += rtb_fmt(json + n, len - n,
			     ",\"evt\":\"OS_CFG_FLAG_EN or OS_CFG_FLAG_DEL_EN is 0 in this "
			     "build\"");
	n += rtb_fmt(json + n, len - n,
		     ",\"ipc\":\"signals, System V semaphores and POSIX message queues are POSIX "
		     "services, not uC/OS-III ones\",\"cache_flush\":\"" RTB_FW_CACHE_NOTE "\"}}");
	return n;
}

/* ---- the tasks ---------------------------------------------------------------- */

static void console_main(void *arg)
{
	(void)arg;
	UCOS3_TICK_START();
	rtb_fw_console_main();
}

static void runner_main(void *arg)
{
	(void)arg;
	rtb_fw_runner_main();
}

void ucos3_console_start(void)
{
	OS_ERR sem_err, lock_err, runner_err, console_err;

	OSSemCreate(&run_sem, (CPU_CHAR *)"rtb-run", 0u, &sem_err);
#if UCOS3_HAS_MUTEX
	OSMutexCreate(&write_lock, (CPU_CHAR *)"rtb-console", &lock_err);
#else
	OSSemCreate(&write_lock, (CPU_CHAR *)"rtb-console", 1u, &lock_err);
#endif
	OSTaskCreate(&runner_tcb, (CPU_CHAR *)"rtb-run", runner_main, NULL, UCOS3_NATIVE(0),
		     runner_stack, RUNNER_WORDS / 10u, RUNNER_WORDS, 0u, TASK_QUANTUM, NULL,
		     OS_OPT_TASK_NONE, &runner_err);
	OSTaskCreate(&console_tcb, (CPU_CHAR *)"rtb-console", console_main, NULL,
		     UCOS3_PRIO_CONSOLE, console_stack, CONSOLE_WORDS / 10u, CONSOLE_WORDS, 0u,
		     TASK_QUANTUM, NULL, OS_OPT_TASK_NONE, &console_err);
	if (sem_err != OS_ERR_NONE || lock_err != OS_ERR_NONE || runner_err != OS_ERR_NONE ||
	    console_err != OS_ERR_NONE)
		rtb_fw_fatal("the console's tasks, semaphore or lock could not be created", 0);
	write_lock_created = true;
	rtb_fw_console_init();
}
