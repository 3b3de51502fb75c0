/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: the console and the line protocol the image speaks on it
 * (docs/targets.md, "serial line protocol"; the same as the Linux guest's
 * agent, ports/posix/guest/agent.c).
 *
 *   image -> host  `#rtb ready 1 <release> <machine>` after boot and on hello
 *                  `{...}` record lines of a run, `#rtb err <text>`,
 *                  `#rtb exit <status>` at the end of a run
 *                  `#rtb data <text>` ... `#rtb done` (read), `#rtb fail <errno> <text>`
 *   host -> image  `#rtb hello`, `#rtb run <arg>...`, `#rtb term`, `#rtb kill`,
 *                  `#rtb read /rtbench/freertos.json`, `#rtb off`
 *
 * Fields are percent-encoded (every byte outside '!'..'~', and '%', as %XX);
 * the lines are encoded and the requests split by ports/common/serial_proto.c,
 * which the guest agent builds too. Two tasks: the console task, at the top native priority,
 * assembles lines from the bytes the UART's receive interrupt queues and answers them; a `run` is
 * handed to the runner task, which calls rtb_main() with the decoded arguments (the core's session
 * API resets its state each time). `term` and `kill` during a run set the port's stop flag: the
 * scenario ends its current step and the run ends with its records and `#rtb exit`. Console writes
 * are serialised by a mutex, so lines of the two tasks do not mix.
 */
#include "port_freertos.h"

#include "board.h"
#include "rtb/core.h"
#include "semphr.h"
#include "serial_proto.h"

#define RX_RING 512u /* power of two */
#define LINE_MAX_BYTES 1024u
#define ARGS_MAX 64
#define E_BUSY 16
#define E_INVAL 22
#define E_NOENT 2
#define E_NOSYS 38

static volatile uint8_t rx_ring[RX_RING];
static volatile uint32_t rx_head, rx_tail; /* head: ISR writes; tail: console task */
static volatile uint32_t rx_dropped;
static TaskHandle_t console_task, runner_task;
static SemaphoreHandle_t write_lock;
static volatile bool running;
static char run_line[LINE_MAX_BYTES];
static char *run_argv[ARGS_MAX + 1];
static int run_argc;

static void rx_isr(uint8_t byte)
{
	uint32_t head = rx_head;

	if (head - rx_tail >= RX_RING) {
		rx_dropped++;
		return;
	}
	rx_ring[head % RX_RING] = byte;
	rx_head = head + 1;
	if (console_task != NULL) {
		BaseType_t woken = pdFALSE;
		vTaskNotifyGiveIndexedFromISR(console_task, FRT_NOTE_WAKE, &woken);
		portYIELD_FROM_ISR(woken);
	}
}

int rtb_port_console_read(char *buf, size_t len)
{
	size_t n = 0;

	while (n < len && rx_tail != rx_head) {
		buf[n++] = (char)rx_ring[rx_tail % RX_RING];
		rx_tail = rx_tail + 1;
	}
	return (int)n;
}

int rtb_port_console_write(const char *buf, size_t len)
{
	bool locked = write_lock != NULL && !cm_in_isr() &&
		      xTaskGetSchedulerState() == taskSCHEDULER_RUNNING;

	if (locked)
		xSemaphoreTake(write_lock, portMAX_DELAY);
	board_console_write(buf, len);
	if (locked)
		xSemaphoreGive(write_lock);
	return RTB_OK;
}

/* ---- control lines --------------------------------------------------------- */

static void lock(void)
{
	xSemaphoreTake(write_lock, portMAX_DELAY);
}

static void unlock(void)
{
	xSemaphoreGive(write_lock);
}

static void put_fail(int err, const char *text)
{
	lock();
	rtb_serial_put_fail(board_console_write, err, text, NULL);
	unlock();
}

static void put_ready(void)
{
	lock();
	rtb_serial_put_ready(board_console_write, "FreeRTOS " tskKERNEL_VERSION_NUMBER, BOARD_NAME);
	unlock();
}

/* ---- /rtbench/freertos.json ------------------------------------------------- */

#define CFG(name)                            \
	{                                    \
#name, (unsigned long)(name) \
	}

static void put_facts(void)
{
	static const struct {
		const char *key;
		unsigned long value;
	} cfg[] = {
		CFG(configTICK_RATE_HZ),
		CFG(configUSE_PREEMPTION),
		CFG(configUSE_TIME_SLICING),
		CFG(configMAX_PRIORITIES),
		CFG(configUSE_MUTEXES),
		CFG(configUSE_COUNTING_SEMAPHORES),
		CFG(configUSE_TICKLESS_IDLE),
		CFG(configUSE_PORT_OPTIMISED_TASK_SELECTION),
		CFG(configCHECK_FOR_STACK_OVERFLOW),
		CFG(configASSERT_DEFINED),
		CFG(configGENERATE_RUN_TIME_STATS),
		CFG(configUSE_TRACE_FACILITY),
		CFG(configMINIMAL_STACK_SIZE),
		CFG(configTOTAL_HEAP_SIZE),
		CFG(configIDLE_SHOULD_YIELD),
		CFG(configUSE_TIMERS),
		CFG(configUSE_EVENT_GROUPS),
		CFG(configKERNEL_INTERRUPT_PRIORITY),
		CFG(configMAX_SYSCALL_INTERRUPT_PRIORITY),
		CFG(configCPU_CLOCK_HZ),
	};
	static char json[1536];
	size_t n = rtb_fmt(json, sizeof(json),
			   "{\"kernel\":\"%s\",\"port\":\"GCC/ARM_CM3\",\"board\":\"%s\","
			   "\"cpu\":\"%s\",\"cpu_hz\":%lu,\"counter\":{\"name\":\"%s\",\"hz\":%lu,"
			   "\"bits\":64},\"heap\":{\"scheme\":\"heap_4\",\"total_bytes\":%lu},"
			   "\"config\":{",
			   tskKERNEL_VERSION_NUMBER, BOARD_NAME, BOARD_CPU,
			   (unsigned long)configCPU_CLOCK_HZ, BOARD_COUNTER_NAME,
			   (unsigned long)BOARD_COUNTER_HZ, (unsigned long)configTOTAL_HEAP_SIZE);
	for (size_t i = 0; i < RTB_ARRAY_SIZE(cfg); i++)
		n += rtb_fmt(json + n, sizeof(json) - n, "%s\"%s\":%lu", i ? "," : "", cfg[i].key,
			     cfg[i].value);
	n += rtb_fmt(json + n, sizeof(json) - n, "}}");
	lock();
	rtb_serial_put_chunks(board_console_write, "data", json, n);
	rtb_serial_put_done(board_console_write);
	unlock();
}

/* ---- requests -------------------------------------------------------------------- */

static void start_run(const char *line)
{
	if (running) {
		put_fail(E_BUSY, "a run is in progress");
		return;
	}
	rtb_fmt(run_line, sizeof(run_line), "%s", line);
	run_argv[0] = "rtbench-core";
	run_argc = 1 + rtb_serial_split(run_line, run_argv + 1, ARGS_MAX - 1);
	run_argv[run_argc] = NULL;
	frt_stop = false;
	running = true;
	xTaskNotifyGiveIndexed(runner_task, FRT_NOTE_WAKE);
}

static void handle(char *line)
{
	char *f[4];

	if (!rtb_str_starts(line, "#rtb "))
		return; /* noise */
	char *rest = line + 5;
	while (*rest == ' ')
		rest++;
	if (rtb_str_starts(rest, "run ") || rtb_strcmp(rest, "run") == 0) {
		start_run(rest + 3);
		return;
	}
	int n = rtb_serial_split(rest, f, 3);
	if (n == 0)
		return;
	if (rtb_strcmp(f[0], "hello") == 0) {
		put_ready();
	} else if (rtb_strcmp(f[0], "term") == 0 || rtb_strcmp(f[0], "kill") == 0) {
		if (running)
			frt_stop = true;
	} else if (rtb_strcmp(f[0], "read") == 0 && n == 2 &&
		   rtb_strcmp(f[1], "/rtbench/freertos.json") == 0) {
		put_facts();
	} else if (rtb_strcmp(f[0], "off") == 0) {
		lock();
		board_reset();
	} else if (rtb_strcmp(f[0], "read") == 0 || rtb_strcmp(f[0], "list") == 0 ||
		   rtb_strcmp(f[0], "stat") == 0 || rtb_strcmp(f[0], "exec") == 0) {
		put_fail(E_NOSYS,
			 "not available on FreeRTOS: only /rtbench/freertos.json can be read");
	} else {
		put_fail(E_INVAL, f[0]);
	}
}

static void console_main(void *arg)
{
	static char line[LINE_MAX_BYTES];
	size_t len = 0;
	bool overlong = false;

	(void)arg;
	put_ready();
	for (;;) {
		char buf[64];
		int n = rtb_port_console_read(buf, sizeof(buf));
		if (n <= 0) {
			(void)ulTaskNotifyTakeIndexed(FRT_NOTE_WAKE, pdTRUE, portMAX_DELAY);
			continue;
		}
		for (int i = 0; i < n; i++) {
			char c = buf[i];
			if (c == '\r')
				continue;
			if (c != '\n') {
				if (len + 1 < sizeof(line))
					line[len++] = c;
				else
					overlong = true;
				continue;
			}
			line[len] = '\0';
			if (overlong)
				put_fail(E_INVAL, "request line too long");
			else
				handle(line);
			len = 0;
			overlong = false;
		}
	}
}

static void runner_main(void *arg)
{
	(void)arg;
	for (;;) {
		(void)ulTaskNotifyTakeIndexed(FRT_NOTE_WAKE, pdTRUE, portMAX_DELAY);
		if (!running)
			continue;
		/* Start on a tick boundary with the counter back at zero: the run's
		 * timeline, and every counter value in it, are then the same
		 * whenever the command came, so under QEMU's -icount two runs give
		 * the same figures. */
		vTaskDelay(1);
		frt_counter_restart();
		int status = rtb_main(run_argc, run_argv);
		vTaskPrioritySet(NULL, FRT_NATIVE(0));
		/* Not running any more before the host can see the exit line and
		 * send the next run: this task takes that one after the line. */
		running = false;
		lock();
		rtb_serial_put_exit(board_console_write, status);
		unlock();
	}
}

void frt_console_start(void)
{
	/* Checked whatever configASSERT is: in the production configuration it
	 * expands to nothing, and would drop the calls with it. */
	write_lock = xSemaphoreCreateMutex();
	if (write_lock == NULL ||
	    xTaskCreate(runner_main, "rtb-run", FRT_RUNNER_STACK_BYTES / 4, NULL, FRT_NATIVE(0),
			&runner_task) != pdPASS ||
	    xTaskCreate(console_main, "rtb-console", 1024, NULL, FRT_PRIO_CONSOLE, &console_task) !=
		    pdPASS)
		rtb_fw_fatal("the console tasks could not be created (heap too small?)", 0);
	board_init(rx_isr);
}
