/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NuttX port: the hooks of the firmware console (ports/common/fw_console.h)
 * and the board's console functions (board.h) on NuttX's console device,
 * the PL011 UART0 under NuttX's serial driver, set raw (no echo, no line
 * editing, no newline translation) so the protocol's bytes pass unchanged.
 *
 * The console task is NuttX's init task (rtbench_main), the most urgent
 * thread (NX_PRIO_CONSOLE): it waits for the host in read() on standard
 * input, and the bytes it reads go through fw_console.c's ring as a UART
 * interrupt's would. The runner is a pthread at relative priority 0 with a
 * large stack; it is woken by a semaphore. Under QEMU's -icount a thread
 * that only spins takes the idle thread's place (idle_spin_main). Console writes, the records'
 * path included, are write() on standard output serialised by a
 * priority-inheritance mutex.
 */
#include <errno.h>
#include <nuttx/arch.h>
#include <nuttx/clock.h>
#include <nuttx/irq.h>
#include <nuttx/version.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/boardctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "fw_arch.h"
#include "fw_console.h"
#include "port_nuttx.h"
#include "rtb/core.h"
#include "serial_proto.h"

static void (*rx_byte)(uint8_t);
static pthread_mutex_t write_lock;
static sem_t runner_wake;
static pthread_t runner, idle_spin;
static volatile bool ready; /* the lock exists */

/* ---- the board's console (board.h) ---------------------------------------- */

void board_init(void (*rx)(uint8_t byte))
{
	struct termios tio;

	rx_byte = rx;
	if (tcgetattr(STDIN_FILENO, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(STDIN_FILENO, TCSANOW, &tio);
	}
	ca_counter_start();
}

void board_console_write(const char *buf, size_t len)
{
	if (up_interrupt_context()) {
		for (size_t i = 0; i < len; i++)
			up_putc(buf[i]);
		return;
	}
	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

void board_reset(void)
{
	boardctl(BOARDIOC_POWEROFF, 0);
	for (;;)
		sleep(1);
}

void rtb_fw_fatal(const char *what, uint32_t value)
{
	char text[200];
	size_t len;

	if (value != 0)
		len = rtb_fmt(text, sizeof(text), "%s 0x%08lx", what, (unsigned long)value);
	else
		len = rtb_fmt(text, sizeof(text), "%s", what);
	rtb_serial_put_chunks(board_console_write, "err", text, len);
	PANIC();
}

/* ---- the console's hooks (fw_console.h) ------------------------------------ */

static bool lock_usable(void)
{
	return ready && !up_interrupt_context();
}

/* The records' path (fw_console.h says why it is the port's). */
int rtb_port_console_write(const char *buf, size_t len)
{
	bool locked = lock_usable() && pthread_mutex_lock(&write_lock) == 0;

	board_console_write(buf, len);
	if (locked)
		pthread_mutex_unlock(&write_lock);
	return RTB_OK;
}

bool rtb_fw_os_lock(void)
{
	return lock_usable() && pthread_mutex_lock(&write_lock) == 0;
}

void rtb_fw_os_unlock(void)
{
	pthread_mutex_unlock(&write_lock);
}

/* The console task reads the host's bytes itself (rtb_fw_os_console_wait):
 * nobody else has anything to wake it for. */
void rtb_fw_os_console_wake_from_isr(void)
{
}

/* Block in read() until the host sends; what came goes into the ring. */
void rtb_fw_os_console_wait(void)
{
	char buf[64];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	for (ssize_t i = 0; i < n; i++)
		rx_byte((uint8_t)buf[i]);
}

void rtb_fw_os_runner_wake(void)
{
	sem_post(&runner_wake);
}

void rtb_fw_os_runner_wait(void)
{
	while (sem_wait(&runner_wake) != 0 && errno == EINTR)
		;
}

static void runner_priority(int native)
{
	pthread_setschedprio(pthread_self(), native);
}

/* Until the next tick has passed, waiting above every scenario so that the
 * tick switches straight back to the runner: the run then starts at the
 * same instruction after the tick's handler whenever the command came. */
void rtb_fw_os_tick_wait(void)
{
	runner_priority(NX_PRIO_TICK_WAIT);
	clock_t t0 = clock_systime_ticks();
	while (clock_systime_ticks() == t0)
		usleep(1);
	runner_priority(NX_NATIVE(0));
}

void rtb_fw_os_run_done(void)
{
	runner_priority(NX_NATIVE(0));
}

const char *rtb_fw_os_release(void)
{
	return "NuttX " CONFIG_VERSION_STRING;
}

const char *rtb_fw_os_facts_path(void)
{
	return "/rtbench/nuttx.json";
}

/* Under QEMU's -icount the counter is the PMU's instruction count
 * (ports/arch/cortex-a/fw_time.c), which stops while the CPU waits in WFI,
 * as NuttX's idle thread does (up_idle), although time goes on. A thread of
 * the lowest priority above the idle thread spins instead, so the CPU
 * always executes and the counter follows time. */
static void *idle_spin_main(void *arg)
{
	(void)arg;
	for (;;)
		__asm volatile("nop");
	return NULL;
}

static void start_thread(pthread_t *t, const char *what, void *(*fn)(void *), size_t stack,
			 int native)
{
	pthread_attr_t pa;
	struct sched_param sp = {.sched_priority = native};

	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, stack);
	pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&pa, SCHED_FIFO);
	pthread_attr_setschedparam(&pa, &sp);
	if (pthread_create(t, &pa, fn, NULL) != 0)
		rtb_fw_fatal(what, 0);
	pthread_attr_destroy(&pa);
}

static void *runner_main(void *arg)
{
	(void)arg;
	rtb_fw_runner_main();
	return NULL;
}

void nx_console_run(void)
{
	pthread_mutexattr_t ma;
	struct sched_param sp = {.sched_priority = NX_PRIO_CONSOLE};

	sched_setparam(0, &sp);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(&write_lock, &ma) != 0 || nx_signal_sem_init(&runner_wake, 0) != 0)
		rtb_fw_fatal("cannot create the console objects", 0);
	pthread_mutexattr_destroy(&ma);
	ready = true;
	rtb_fw_console_init();

	start_thread(&runner, "cannot create the runner thread", runner_main, NX_RUNNER_STACK_BYTES,
		     NX_NATIVE(0));
	if (ca_counter_state.pmu)
		start_thread(&idle_spin, "cannot create the idle spinner", idle_spin_main,
			     NX_SPIN_STACK_BYTES, NX_PRIO_IDLE_SPIN);
	rtb_fw_console_main();
}
