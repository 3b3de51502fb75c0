/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: the console's RTOS side (ports/common/fw_console.h). The
 * line protocol itself, the receive ring and the runner are shared by every
 * firmware port (ports/common/fw_console.c); here are its two tasks, the
 * console task at the top native priority and the runner task at the
 * scenarios' lowest, woken by task notifications (index FRT_NOTE_WAKE), the
 * write lock (a FreeRTOS mutex), and the facts file /rtbench/freertos.json.
 */
#include "port_freertos.h"

#include "board.h"
#include "fw_arch.h"
#include "fw_console.h"
#include "rtb/core.h"
#include "semphr.h"

static TaskHandle_t console_task, runner_task;
static SemaphoreHandle_t write_lock;

/* The lock is taken from a task once the scheduler runs, never from an
 * interrupt handler or before the scheduler. */
static inline bool lock_usable(void)
{
	return write_lock != NULL && !rtb_fw_in_isr() &&
	       xTaskGetSchedulerState() == taskSCHEDULER_RUNNING;
}

/* The records' path (fw_console.h says why it is the port's). */
int rtb_port_console_write(const char *buf, size_t len)
{
	bool locked = lock_usable();

	if (locked)
		xSemaphoreTake(write_lock, portMAX_DELAY);
	board_console_write(buf, len);
	if (locked)
		xSemaphoreGive(write_lock);
	return RTB_OK;
}

bool rtb_fw_os_lock(void)
{
	if (!lock_usable())
		return false;
	xSemaphoreTake(write_lock, portMAX_DELAY);
	return true;
}

void rtb_fw_os_unlock(void)
{
	xSemaphoreGive(write_lock);
}

void rtb_fw_os_console_wake_from_isr(void)
{
	if (console_task != NULL) {
		BaseType_t woken = pdFALSE;
		vTaskNotifyGiveIndexedFromISR(console_task, FRT_NOTE_WAKE, &woken);
		portYIELD_FROM_ISR(woken);
	}
}

void rtb_fw_os_console_wait(void)
{
	(void)ulTaskNotifyTakeIndexed(FRT_NOTE_WAKE, pdTRUE, portMAX_DELAY);
}

void rtb_fw_os_runner_wake(void)
{
	xTaskNotifyGiveIndexed(runner_task, FRT_NOTE_WAKE);
}

void rtb_fw_os_runner_wait(void)
{
	(void)ulTaskNotifyTakeIndexed(FRT_NOTE_WAKE, pdTRUE, portMAX_DELAY);
}

void rtb_fw_os_tick_wait(void)
{
	vTaskDelay(1);
}

void rtb_fw_os_run_done(void)
{
	vTaskPrioritySet(NULL, FRT_NATIVE(0));
}

const char *rtb_fw_os_release(void)
{
	return "FreeRTOS " tskKERNEL_VERSION_NUMBER;
}

const char *rtb_fw_os_facts_path(void)
{
	return "/rtbench/freertos.json";
}

/* ---- /rtbench/freertos.json ------------------------------------------------- */

size_t rtb_fw_os_facts(char *json, size_t len)
{
	static const struct rtb_fw_cfg cfg[] = {
		RTB_FW_CFG(configTICK_RATE_HZ),
		RTB_FW_CFG(configUSE_PREEMPTION),
		RTB_FW_CFG(configUSE_TIME_SLICING),
		RTB_FW_CFG(configMAX_PRIORITIES),
		RTB_FW_CFG(configUSE_MUTEXES),
		RTB_FW_CFG(configUSE_COUNTING_SEMAPHORES),
		RTB_FW_CFG(configUSE_TICKLESS_IDLE),
		RTB_FW_CFG(configUSE_PORT_OPTIMISED_TASK_SELECTION),
		RTB_FW_CFG(configCHECK_FOR_STACK_OVERFLOW),
		RTB_FW_CFG(configASSERT_DEFINED),
		RTB_FW_CFG(configGENERATE_RUN_TIME_STATS),
		RTB_FW_CFG(configUSE_TRACE_FACILITY),
		RTB_FW_CFG(configMINIMAL_STACK_SIZE),
		RTB_FW_CFG(configTOTAL_HEAP_SIZE),
		RTB_FW_CFG(configIDLE_SHOULD_YIELD),
		RTB_FW_CFG(configUSE_TIMERS),
		RTB_FW_CFG(configUSE_EVENT_GROUPS),
#ifdef configMAX_API_CALL_INTERRUPT_PRIORITY
		RTB_FW_CFG(configMAX_API_CALL_INTERRUPT_PRIORITY),
		RTB_FW_CFG(configUNIQUE_INTERRUPT_PRIORITIES),
		RTB_FW_CFG(configUSE_TASK_FPU_SUPPORT),
#else
		RTB_FW_CFG(configKERNEL_INTERRUPT_PRIORITY),
		RTB_FW_CFG(configMAX_SYSCALL_INTERRUPT_PRIORITY),
#endif
		RTB_FW_CFG(configCPU_CLOCK_HZ),
	};
	size_t n = rtb_fmt(json, len, "{\"kernel\":\"%s\",\"port\":\"%s\",",
			   tskKERNEL_VERSION_NUMBER, FRT_KERNEL_PORT);
	n += rtb_fw_facts_board(json + n, len - n);
	n += rtb_fmt(json + n, len - n, ",\"heap\":{\"scheme\":\"heap_4\",\"total_bytes\":%lu},",
		     (unsigned long)configTOTAL_HEAP_SIZE);
	n += rtb_fmt(json + n, len - n, "\"config\":{");
	n += rtb_fw_facts_config(json + n, len - n, cfg, RTB_ARRAY_SIZE(cfg));
	/* How each service is provided, keyed like the core's capabilities
	 * (docs/porting.md): notes on native ones, why one is missing, and what
	 * FreeRTOS has that the port does not use. */
	static const char rr_sliced[] =
		",\"policy_rr\":\"time slicing for the whole kernel (configUSE_TIME_SLICING "
		"1): equal priorities take turns every tick, FIFO threads too\"";
	static const char rr_none[] =
		",\"policy_rr\":\"time slicing of equal priorities is one switch for the "
		"whole kernel (configUSE_TIME_SLICING, with preemption), off in this build, "
		"not a policy per task\"";
	n += rtb_fmt(json + n, len - n,
		     "},\"notes\":{\"mutex_inherit\":\"xSemaphoreCreateMutex (FreeRTOS mutexes "
		     "always inherit)\",\"mutex_none\":\"a binary semaphore (no owner, no "
		     "inheritance)\",\"mq\":\"xQueueSend and xQueueReceive copy each message "
		     "into the queue's storage and out again\",\"evt\":\"event groups, 24 "
		     "flags\",\"memory\":\"heap_4: one general heap, first fit, adjacent free "
		     "blocks merged\"%s},\"unsupported\":{\"mutex_ceiling\":\"FreeRTOS has no "
		     "priority ceiling protocol\"%s,\"ipc\":\"signals, System V semaphores and "
		     "POSIX message queues are POSIX services, not FreeRTOS ones\","
		     "\"cache_flush\":\"" RTB_FW_CACHE_NOTE "\"},\"not_ported\":{"
		     "\"suspend_other\":\"FreeRTOS has vTaskSuspend; rtbench's port does not "
		     "implement suspending another task\"}}",
		     FRT_TIME_SLICED ? rr_sliced : "", FRT_TIME_SLICED ? "" : rr_none);
	return n;
}

/* ---- the tasks ---------------------------------------------------------------- */

static void console_main(void *arg)
{
	(void)arg;
	rtb_fw_console_main();
}

static void runner_main(void *arg)
{
	(void)arg;
	rtb_fw_runner_main();
}

void frt_console_start(void)
{
	BaseType_t runner, console;

	/* Created outside any configASSERT(): a configuration may define it empty
	 * (production builds do), and the tasks must exist all the same. */
	write_lock = xSemaphoreCreateMutex();
	runner = xTaskCreate(runner_main, "rtb-run", FRT_RUNNER_STACK_BYTES / 4, NULL,
			     FRT_NATIVE(0), &runner_task);
	console = xTaskCreate(console_main, "rtb-console", 1024, NULL, FRT_PRIO_CONSOLE,
			      &console_task);
	rtb_fw_console_init();
	/* Checked once the UART is up, so the failure is said on the console. */
	if (write_lock == NULL || runner != pdPASS || console != pdPASS)
		rtb_fw_fatal("no memory for the console's tasks and lock", 0);
}
