/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench FreeRTOS port: the port contract on the FreeRTOS kernel, on one
 * board (boards/<board>/) of a Cortex-M or Cortex-A (arch/<arch>/; the
 * kernel port ARM_CM3 or ARM_CA9, port.cmake).
 *
 * Design. Threads are FreeRTOS tasks (xTaskCreate); relative priority p is
 * native p + 1, from 0 (just above the idle task) to configMAX_PRIORITIES - 3,
 * and the top native priority is the port's console task, which only runs
 * when a byte arrives on the console. A task created start_suspended waits
 * for a task notification before it calls its function; suspend/resume of
 * oneself is a counting notification (a resume that comes first is kept).
 * Counting semaphores are xSemaphoreCreateCounting (waiters leave highest
 * priority first, equal priorities first come first served);
 * RTB_MUTEX_INHERIT is a FreeRTOS mutex with its priority inheritance;
 * RTB_MUTEX_NONE a binary semaphore (no owner, no inheritance); FreeRTOS has
 * no priority ceiling protocol, so RTB_MUTEX_CEILING is unsupported. Message
 * queues are FreeRTOS queues, event flags native event groups (24 bits).
 * Memory comes from heap_4 (pvPortMalloc), whose use the memory scenarios
 * read (configTOTAL_HEAP_SIZE - xPortGetFreeHeapSize()); FreeRTOS has no
 * fixed-block pool, so the contract's pools are emulated over the heap
 * (ports/common/pool_alloc.c). The interrupt source is a board hardware
 * timer (raised from software on a spare interrupt line when fired with
 * delay 0) whose interrupt handler calls the scenario's handler; a give from it wakes a task with
 * portYIELD_FROM_ISR. Periodic mode counts lost interrupts from the counter (an expiry whose
 * interrupt was never taken). The counter is a board timer of known
 * frequency extended to 64 bits (the DWT cycle counter is not modelled by
 * QEMU); time_ns is derived from it, sleeps are vTaskDelay to the tick
 * boundary at or after the deadline.
 *
 * Scheduling policy follows the build, not the thread: FreeRTOS time-slices
 * equal priorities or not for the whole kernel. With configUSE_TIME_SLICING
 * 1 (and preemption), equal priorities take turns at every tick: round-robin
 * (RTB_CAP_POLICY_RR) is claimed with a one-tick slice (rr_interval_ns: a
 * slice ends at the next tick, so one begun between ticks is shorter), and
 * RTB_POLICY_FIFO threads are sliced too, which the port says
 * (lacks.policy_fifo). With 0, equal priorities run first come, first
 * served, and round-robin is not claimed (lacks.policy_rr). Each reason
 * names the setting of the FreeRTOSConfig.h the image was built with.
 *
 * The image reports its configuration (os_config in the meta record): a
 * "production" build has the kernel's run-time checks off (configASSERT
 * undefined, configCHECK_FOR_STACK_OVERFLOW 0), a "checked" one has either
 * on; with the settings that change what is measured, read from the build.
 *
 * Not claimed: suspending another task, the POSIX IPC channels, cache flush
 * (no data cache).
 */
#include "port_freertos.h"

#include "board.h"
#include "error_text.h"
#include "fw_console.h"
#include "fw_port.h"
#include "rtb/core.h"

#if FRT_TIME_SLICED
#define FRT_CAP_RR RTB_CAP_POLICY_RR
#else
#define FRT_CAP_RR 0
#endif

#define CAPS                                                                                  \
	(RTB_CAP_REALTIME | RTB_CAP_MEMORY_LOCKED | RTB_CAP_PINNING | RTB_CAP_MUTEX_INHERIT | \
	 RTB_CAP_MQ | RTB_CAP_EVT | RTB_CAP_IRQ | RTB_CAP_IRQ_PERIODIC | RTB_CAP_MEM_USAGE |  \
	 RTB_CAP_THREAD_DELETE_LIVE | FRT_CAP_RR)

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- the configuration built ------------------------------------------------ */

#define FRT_ON_OFF(x) ((x) ? "on" : "off")
#if configASSERT_DEFINED == 1 || configCHECK_FOR_STACK_OVERFLOW > 0
#define FRT_CONFIG_NAME "checked"
#else
#define FRT_CONFIG_NAME "production"
#endif

static char tick_text[24], stack_text[16];

#if defined(configUSE_TASK_FPU_SUPPORT) && configUSE_TASK_FPU_SUPPORT == 2
#define FRT_FPU_CONTEXT                                                                         \
	"every task (D0-D31 and FPSCR saved at each switch); interrupt handlers run with them " \
	"saved"
#elif defined(configUSE_TASK_FPU_SUPPORT)
#define FRT_FPU_CONTEXT \
	"tasks that call vPortTaskUsesFPU(); interrupt handlers run with D0-D31 and FPSCR saved"
#endif

/* What changes the measured paths or behaviour (judged from tasks.c and the
 * Cortex-M3 port): the tick (sleeps, timeouts, the slice), preemption and
 * time slicing (who runs), the task selection (every switch), tickless idle
 * (the tick's path), run-time stats (a counter read at every switch),
 * asserts (checks on every kernel call) and stack checking (every switch). */
static struct rtb_port_setting settings[] = {
	{"tick", tick_text, "configTICK_RATE_HZ"},
	{"preemption", NULL, "configUSE_PREEMPTION"},
	{"time slicing", NULL, "configUSE_TIME_SLICING"},
	{"optimised task selection", NULL, "configUSE_PORT_OPTIMISED_TASK_SELECTION"},
	{"tickless idle", NULL, "configUSE_TICKLESS_IDLE"},
	{"run-time stats", NULL, "configGENERATE_RUN_TIME_STATS"},
	{"asserts", NULL, "configASSERT"},
	{"stack check", stack_text, "configCHECK_FOR_STACK_OVERFLOW"},
#ifdef BOARD_GICD_BASE
	/* a Cortex-A kernel port (FreeRTOSConfig.h's section for a board with a
	 * GIC): what a switch and an interrupt save */
	{"FPU context", FRT_FPU_CONTEXT, "configUSE_TASK_FPU_SUPPORT"},
#endif
};

static void config_texts(void)
{
	rtb_fmt(tick_text, sizeof(tick_text), "%lu Hz", (unsigned long)configTICK_RATE_HZ);
	settings[1].value = FRT_ON_OFF(configUSE_PREEMPTION);
	settings[2].value = FRT_ON_OFF(configUSE_TIME_SLICING);
	settings[3].value = FRT_ON_OFF(configUSE_PORT_OPTIMISED_TASK_SELECTION);
	settings[4].value = FRT_ON_OFF(configUSE_TICKLESS_IDLE);
	settings[5].value = FRT_ON_OFF(configGENERATE_RUN_TIME_STATS);
	settings[6].value = FRT_ON_OFF(configASSERT_DEFINED);
	if (configCHECK_FOR_STACK_OVERFLOW > 0)
		rtb_fmt(stack_text, sizeof(stack_text), "method %d",
			(int)configCHECK_FOR_STACK_OVERFLOW);
	else
		rtb_fmt(stack_text, sizeof(stack_text), "off");
}

static struct rtb_port_info info = {
	.port = "freertos",
	.os = "FreeRTOS",
	.os_release = tskKERNEL_VERSION_NUMBER,
	.libc = RTB_BUILD_LIBC,
	RTB_FW_BOARD_INFO(""),
	.caps = CAPS,
	.prio_max = FRT_PRIO_MAX,
	.os_config = FRT_CONFIG_NAME,
	.os_settings = settings,
	.os_nsettings = RTB_ARRAY_SIZE(settings),
};

const char *rtb_port_strerror(int err)
{
	return rtb_error_text(err, "out of memory", "FreeRTOS error");
}

int rtb_port_init(const struct rtb_port_config *cfg)
{
	if (!rtb_fw_port_cpu_ok(&info, cfg))
		return RTB_E_INVALID;
	config_texts();
	info.counter_hz = rtb_fw_counter_hz(cfg);
	vTaskPrioritySet(NULL, FRT_NATIVE(0));
	return RTB_OK;
}

void rtb_port_fini(void)
{
}

const struct rtb_port_info *rtb_port_info(void)
{
	if (tick_text[0] == '\0')
		config_texts();
	return &info;
}

int rtb_port_property(const char *key, char *buf, size_t len)
{
	if (rtb_strcmp(key, "tick_hz_config") == 0) {
		rtb_fmt(buf, len, "%lu", (unsigned long)configTICK_RATE_HZ);
		return RTB_OK;
	}
	if (rtb_strcmp(key, "timer_resolution_ns") == 0) {
		rtb_fmt(buf, len, "%lu", (unsigned long)(1000000000ul / configTICK_RATE_HZ));
		return RTB_OK;
	}
	if (rtb_strcmp(key, "no_hz") == 0) {
		rtb_fmt(buf, len, "%s", configUSE_TICKLESS_IDLE ? "idle" : "off");
		return RTB_OK;
	}
	if (rtb_strcmp(key, "thread_stack_bytes") == 0) {
		rtb_fmt(buf, len, "%lu", (unsigned long)FRT_STACK_BYTES);
		return RTB_OK;
	}
	if (rtb_strcmp(key, "rt_withheld_ns") == 0) {
		rtb_fmt(buf, len, "0");
		return RTB_OK;
	}
	if (rtb_strcmp(key, "rr_interval_ns") == 0 && FRT_TIME_SLICED) {
		rtb_fmt(buf, len, "%lu", (unsigned long)(1000000000ul / configTICK_RATE_HZ));
		return RTB_OK;
	}
	if (rtb_strcmp(key, "lacks.policy_rr") == 0 && !FRT_TIME_SLICED) {
		rtb_fmt(buf, len, "%s is 0 in this image's FreeRTOSConfig.h",
			configUSE_PREEMPTION ? "configUSE_TIME_SLICING" : "configUSE_PREEMPTION");
		return RTB_OK;
	}
	if (rtb_strcmp(key, "lacks.policy_fifo") == 0 && FRT_TIME_SLICED) {
		rtb_fmt(buf, len,
			"configUSE_TIME_SLICING is 1 in this image's FreeRTOSConfig.h (equal "
			"priorities take turns every tick)");
		return RTB_OK;
	}
	return rtb_fw_irq_property(key, buf, len);
}

/* ---- counter and time ------------------------------------------------------ */

uint64_t rtb_port_counter_hz(void)
{
	return info.counter_hz;
}

TickType_t frt_ticks_ceil_long(uint64_t ns)
{
	const uint64_t tick_ns = 1000000000ull / configTICK_RATE_HZ;
	uint64_t t = (ns + tick_ns - 1) / tick_ns;

	if (t >= portMAX_DELAY)
		t = portMAX_DELAY - 1;
	return (TickType_t)t;
}

int rtb_port_sleep_until_ns(uint64_t deadline_ns)
{
	const uint64_t tick_ns = 1000000000ull / configTICK_RATE_HZ;

	/* vTaskDelay(n) ends on the n-th tick from now, i.e. after between n-1
	 * and n tick periods: delay by whole periods short of the deadline, then
	 * one tick at a time until it has passed. */
	for (;;) {
		uint64_t now = rtb_port_time_ns();
		if (now >= deadline_ns)
			return RTB_OK;
		uint64_t n = (deadline_ns - now) / tick_ns;
		vTaskDelay(n > 1 ? (TickType_t)RTB_MIN(n, (uint64_t)portMAX_DELAY - 1) : 1);
	}
}

int rtb_port_sleep_ns(uint64_t duration_ns)
{
	if (duration_ns == 0) {
		vTaskDelay(1);
		return RTB_OK;
	}
	return rtb_port_sleep_until_ns(rtb_port_time_ns() + duration_ns);
}

/* ---- memory ------------------------------------------------------------------ */

void *rtb_port_mem_alloc(size_t bytes)
{
	return pvPortMalloc(bytes);
}

void rtb_port_mem_free(void *p)
{
	vPortFree(p);
}

/* FreeRTOS has no fixed-block pool: the contract's pool is emulated over
 * the heap (ports/common/pool_alloc.c), RTB_CAP_MEM_POOL clear. */
const char *rtb_port_pool_mechanism(void)
{
	return "emulated: FreeRTOS has no fixed-block pool; each block is a pvPortMalloc / "
	       "vPortFree of the heap (heap_4)";
}

int rtb_port_mem_usage(struct rtb_mem_usage *out)
{
	size_t used = configTOTAL_HEAP_SIZE - xPortGetFreeHeapSize();

	rtb_memset(out, 0, sizeof(*out));
	out->resident_bytes = used;
	out->heap_used_bytes = used;
	out->threads = uxTaskGetNumberOfTasks();
	out->handles = 0;
	out->note = "resident and heap: bytes of FreeRTOS's heap_4 in use "
		    "(configTOTAL_HEAP_SIZE - xPortGetFreeHeapSize()); threads: FreeRTOS tasks";
	return RTB_OK;
}

/* FreeRTOS's heap_4 memory (configAPPLICATION_ALLOCATED_HEAP), in the
 * board's large RAM (the linker script's .heap section). */
uint8_t ucHeap[configTOTAL_HEAP_SIZE] __attribute__((section(".heap"), aligned(8)));

/* ---- kernel hooks ------------------------------------------------------------ */

void vApplicationTickHook(void);
void vApplicationTickHook(void)
{
	(void)rtb_port_counter_read(); /* at least one read per counter wrap */
}

void vApplicationStackOverflowHook(TaskHandle_t task, char *name);
void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
	char line[96];

	(void)task;
	rtb_fmt(line, sizeof(line), "stack overflow in task %s", name != NULL ? name : "?");
	rtb_fw_fatal(line, 0);
}

/* configASSERT's failure in the checked configuration (config-checked/). */
void rtb_freertos_assert_failed(const char *file, int line)
{
	char text[160];

	rtb_fmt(text, sizeof(text), "FreeRTOS assertion failed at %s:%d", file, line);
	rtb_fw_fatal(text, 0);
}
