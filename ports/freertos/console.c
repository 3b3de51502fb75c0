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
 * Fields are percent-encoded (every byte outside '!'..'~', and '%', as %XX).
 * Two tasks: the console task, at the top native priority, assembles lines
 * from the bytes the UART's receive interrupt queues and answers them; a
 * `run` is handed to the runner task, which calls rtb_main() with the
 * decoded arguments (the core's session API resets its state each time).
 * `term` and `kill` during a run set the port's stop flag: the scenario
 * ends its current step and the run ends with its records and `#rtb exit`.
 * Console writes are serialised by a mutex, so lines of the two tasks do not
 * mix.
 */
#include "port_freertos.h"

#include "board.h"
#include "rtb/core.h"
#include "semphr.h"

#define RX_RING 512u /* power of two */
#define LINE_MAX_BYTES 1024u
#define ARGS_MAX 64
#define DATA_CHUNK 96u
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

/* ---- encoded output ---------------------------------------------------------- */

static void put_encoded(const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c > ' ' && c <= '~' && c != '%') {
			board_console_write((const char *)&c, 1);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			board_console_write(e, 3);
		}
	}
}

static void put(const char *s)
{
	board_console_write(s, rtb_strlen(s));
}

/* `#rtb <word> <encoded text>` lines of at most DATA_CHUNK bytes each;
 * the caller holds the write lock (or runs with interrupts masked). */
static void put_chunks(const char *word, const char *text, size_t len)
{
	do {
		size_t n = len < DATA_CHUNK ? len : DATA_CHUNK;
		put("#rtb ");
		put(word);
		put(" ");
		put_encoded(text, n);
		put("\n");
		text += n;
		len -= n;
	} while (len > 0);
}

static void lock(void)
{
	xSemaphoreTake(write_lock, portMAX_DELAY);
}

static void unlock(void)
{
	xSemaphoreGive(write_lock);
}

void frt_console_err(const char *text)
{
	/* From any context, fatal ones included: no lock taken. */
	put_chunks("err", text, rtb_strlen(text));
}

static void put_fail(int err, const char *text)
{
	char head[24];

	rtb_fmt(head, sizeof(head), "#rtb fail %d ", err);
	lock();
	put(head);
	put_encoded(text, rtb_strlen(text));
	put("\n");
	unlock();
}

static void put_ready(void)
{
	static const char release[] = "FreeRTOS " tskKERNEL_VERSION_NUMBER;

	lock();
	put("#rtb ready 1 ");
	put_encoded(release, sizeof(release) - 1);
	put(" ");
	put_encoded(BOARD_NAME, sizeof(BOARD_NAME) - 1);
	put("\n");
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
	put_chunks("data", json, n);
	put("#rtb done\n");
	unlock();
}

/* ---- requests -------------------------------------------------------------------- */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void decode(char *s)
{
	char *out = s;

	for (char *in = s; *in; in++) {
		int hi, lo;
		if (*in == '%' && (hi = hex_value(in[1])) >= 0 && (lo = hex_value(in[2])) >= 0) {
			*out++ = (char)(hi * 16 + lo);
			in += 2;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
}

/* Splits line into decoded fields in place; returns their count. */
static int split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	while (*p != '\0' && n < max) {
		while (*p == ' ')
			*p++ = '\0';
		if (*p == '\0')
			break;
		fields[n++] = p;
		while (*p != '\0' && *p != ' ')
			p++;
	}
	while (*p == ' ')
		*p++ = '\0';
	for (int i = 0; i < n; i++)
		decode(fields[i]);
	return n;
}

static void start_run(const char *line)
{
	if (running) {
		put_fail(E_BUSY, "a run is in progress");
		return;
	}
	rtb_fmt(run_line, sizeof(run_line), "%s", line);
	run_argv[0] = "rtbench-core";
	run_argc = 1 + split(run_line, run_argv + 1, ARGS_MAX - 1);
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
	int n = split(rest, f, 3);
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
		int status = rtb_main(run_argc, run_argv);
		vTaskPrioritySet(NULL, FRT_NATIVE(0));
		char end[32];
		rtb_fmt(end, sizeof(end), "#rtb exit %d\n", status);
		lock();
		put(end);
		unlock();
		running = false;
	}
}

void frt_console_start(void)
{
	write_lock = xSemaphoreCreateMutex();
	configASSERT(write_lock != NULL);
	configASSERT(xTaskCreate(runner_main, "rtb-run", FRT_RUNNER_STACK_BYTES / 4, NULL,
				 FRT_NATIVE(0), &runner_task) == pdPASS);
	configASSERT(xTaskCreate(console_main, "rtb-console", 1024, NULL, FRT_PRIO_CONSOLE,
				 &console_task) == pdPASS);
	board_init(rx_isr);
}
