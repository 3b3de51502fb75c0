/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The console of a firmware image (fw_console.h): the line protocol the image
 * speaks on the board's UART, the same as the Linux guest's agent
 * (ports/posix/guest/agent.c), whatever the RTOS.
 *
 * Fields are percent-encoded (every byte outside '!'..'~', and '%', as %XX);
 * the lines are encoded and the requests split by serial_proto.c, which the
 * guest agent builds too. The UART's receive interrupt puts each byte in a
 * ring and wakes the console task (rtb_fw_os_console_wake_from_isr), which
 * assembles lines from the ring and answers them; a `run` is handed to the
 * runner task, which calls rtb_main() with the decoded arguments. `term` and
 * `kill` during a run set the stop flag (rtb_port_stop_requested()): the
 * scenario ends its current step and the run ends with its records and
 * `#rtb exit`. Console writes are serialised by the port's lock, so lines of
 * the two tasks do not mix.
 */
#include "fw_console.h"

#include "board.h"
#include "fw_arch.h"
#include "rtb/core.h"
#include "serial_proto.h"

#define RX_RING 512u /* power of two */
#define LINE_MAX_BYTES 1024u
#define ARGS_MAX 64
#define FACTS_MAX_BYTES 4096u
#define E_BUSY 16
#define E_INVAL 22
#define E_NOSYS 38

static volatile uint8_t rx_ring[RX_RING];
static volatile uint32_t rx_head, rx_tail; /* head: the interrupt writes; tail: the console task */
static volatile uint32_t rx_dropped;
static volatile bool running, stop;
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
	rtb_fw_os_console_wake_from_isr();
}

void rtb_fw_console_init(void)
{
	board_init(rx_isr);
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

bool rtb_port_stop_requested(void)
{
	return stop;
}

/* ---- control lines --------------------------------------------------------- */

static void put_fail(int err, const char *text)
{
	bool locked = rtb_fw_os_lock();

	rtb_serial_put_fail(board_console_write, err, text, NULL);
	if (locked)
		rtb_fw_os_unlock();
}

static void put_ready(void)
{
	bool locked = rtb_fw_os_lock();

	rtb_serial_put_ready(board_console_write, rtb_fw_os_release(), BOARD_NAME);
	if (locked)
		rtb_fw_os_unlock();
}

/* ---- the facts file -------------------------------------------------------- */

size_t rtb_fw_facts_board(char *buf, size_t len)
{
	return rtb_fmt(
		buf, len,
		"\"board\":\"%s\",\"cpu\":\"%s\",\"cpu_hz\":%lu,\"counter\":{\"name\":\"%s\","
		"\"hz\":%lu,\"bits\":64}",
		BOARD_NAME, BOARD_CPU, (unsigned long)BOARD_CPU_HZ, RTB_FW_COUNTER_NAME,
		(unsigned long)RTB_FW_COUNTER_HZ);
}

size_t rtb_fw_facts_config(char *buf, size_t len, const struct rtb_fw_cfg *cfg, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += rtb_fmt(buf + w, len - w, "%s\"%s\":%lu", i ? "," : "", cfg[i].key,
			     cfg[i].value);
	return w;
}

static void put_facts(void)
{
	static char json[FACTS_MAX_BYTES];
	size_t n = rtb_fw_os_facts(json, sizeof(json));
	bool locked = rtb_fw_os_lock();

	rtb_serial_put_chunks(board_console_write, "data", json, n);
	rtb_serial_put_done(board_console_write);
	if (locked)
		rtb_fw_os_unlock();
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
	stop = false;
	running = true;
	rtb_fw_os_runner_wake();
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
			stop = true;
	} else if (rtb_strcmp(f[0], "read") == 0 && n == 2 &&
		   rtb_strcmp(f[1], rtb_fw_os_facts_path()) == 0) {
		put_facts();
	} else if (rtb_strcmp(f[0], "off") == 0) {
		(void)rtb_fw_os_lock(); /* no line after this one */
		board_reset();
	} else if (rtb_strcmp(f[0], "read") == 0 || rtb_strcmp(f[0], "list") == 0 ||
		   rtb_strcmp(f[0], "stat") == 0 || rtb_strcmp(f[0], "exec") == 0) {
		char text[128];
		rtb_fmt(text, sizeof(text), "not available on %s: only %s can be read",
			rtb_port_info()->os, rtb_fw_os_facts_path());
		put_fail(E_NOSYS, text);
	} else {
		put_fail(E_INVAL, f[0]);
	}
}

void rtb_fw_console_main(void)
{
	static char line[LINE_MAX_BYTES];
	size_t len = 0;
	bool overlong = false;

	put_ready();
	for (;;) {
		char buf[64];
		int n = rtb_port_console_read(buf, sizeof(buf));
		if (n <= 0) {
			rtb_fw_os_console_wait();
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

void rtb_fw_runner_main(void)
{
	for (;;) {
		rtb_fw_os_runner_wait();
		if (!running)
			continue;
		/* Start on a tick boundary with the counter back at zero: the run's
		 * timeline, and every counter value in it, are then the same
		 * whenever the command came, so under QEMU's -icount two runs give
		 * the same figures. Two waits: the command's last byte arrives when
		 * the host sends it, at any point of the tick period, and when the
		 * tick comes while the RTOS is still on its own path into the wait
		 * (begun up to 130 SysTick cycles before it on FreeRTOS), the run
		 * started up to 3.6 us off the usual point (docs/targets.md). The
		 * second wait begins just after a tick, far from the next, and
		 * always ends in the tick's handler. The counter restarts before
		 * it too: the tick hook reads the counter, and a wrap it finds
		 * (one every 171 s at 25 MHz, and it has run since the last run
		 * started) takes it a few instructions more; then it finds none. */
		rtb_fw_os_tick_wait();
		rtb_fw_os_counter_restart();
		rtb_fw_os_tick_wait();
		rtb_fw_os_counter_restart();
		int status = rtb_main(run_argc, run_argv);
		rtb_fw_os_run_done();
		/* Not running any more before the host can see the exit line and
		 * send the next run: this task takes that one after the line. */
		running = false;
		bool locked = rtb_fw_os_lock();
		rtb_serial_put_exit(board_console_write, status);
		if (locked)
			rtb_fw_os_unlock();
	}
}
