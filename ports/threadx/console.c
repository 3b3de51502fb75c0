/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: the hooks of the firmware console (ports/common/fw_console.h),
 * which speaks the serial line protocol on the board's UART, and its two
 * threads. The console thread runs at native priority 0, above every
 * scenario, and only when a byte arrives; the runner thread calls the core
 * at relative priority 0 with a large stack. A third thread only spins
 * while the runner waits for the tick a run starts on (below). Both are woken through one
 * event flags group (a flag set while nobody waits is kept, and several
 * sets are one wake), from the UART's interrupt for the console. Console
 * writes, the records' path included, are serialised by a
 * priority-inheritance mutex.
 */
#include "fw_arch.h"
#include "fw_console.h"
#include "port_threadx.h"
#include "rtb/core.h"
#include "tx_timer.h"

#define WAKE_CONSOLE 1u
#define WAKE_RUNNER 2u
#define CONSOLE_STACK_BYTES 4096u
#define SPINNER_STACK_BYTES 512u

static TX_THREAD console_thread, runner_thread, spinner_thread;
static TX_EVENT_FLAGS_GROUP wake;
static TX_MUTEX write_lock;
static volatile bool ready; /* the objects exist and the scheduler runs */

/* The lock exists and the scheduler runs, and this is a thread. */
static bool lock_usable(void)
{
	return ready && !rtb_fw_in_isr();
}

/* The records' path (fw_console.h says why it is the port's). */
int rtb_port_console_write(const char *buf, size_t len)
{
	bool locked = lock_usable() && tx_mutex_get(&write_lock, TX_WAIT_FOREVER) == TX_SUCCESS;

	board_console_write(buf, len);
	if (locked)
		tx_mutex_put(&write_lock);
	return RTB_OK;
}

bool rtb_fw_os_lock(void)
{
	return lock_usable() && tx_mutex_get(&write_lock, TX_WAIT_FOREVER) == TX_SUCCESS;
}

void rtb_fw_os_unlock(void)
{
	tx_mutex_put(&write_lock);
}

static void wait_for(ULONG flag)
{
	ULONG got;

	tx_event_flags_get(&wake, flag, TX_OR_CLEAR, &got, TX_WAIT_FOREVER);
}

void rtb_fw_os_console_wake_from_isr(void)
{
	tx_event_flags_set(&wake, WAKE_CONSOLE, TX_OR);
}

void rtb_fw_os_console_wait(void)
{
	wait_for(WAKE_CONSOLE);
}

void rtb_fw_os_runner_wake(void)
{
	tx_event_flags_set(&wake, WAKE_RUNNER, TX_OR);
}

void rtb_fw_os_runner_wait(void)
{
	wait_for(WAKE_RUNNER);
}

/* The tick a run starts on, the same for every run to the instruction, so
 * that under QEMU's -icount two runs give the same figures:
 *  - a tick at which ThreadX's timer wheel is back at its first slot (one
 *    of every TX_TIMER_ENTRIES ticks: a tick that moves the wheel past its
 *    last slot takes a few more instructions), not merely the next one;
 *  - reached from a thread that spins with interrupts open, not from
 *    ThreadX's idle wait (in PendSV on the Cortex-M, in the scheduler's
 *    loop on the Cortex-A), which opens them for one instruction a
 *    loop: there the tick would be taken up to a loop later, depending on
 *    where the loop was, which depends on when the command came. The runner
 *    waits at native priority TXP_PRIO_TICK_WAIT above the spinner, so the
 *    tick switches straight back to it.
 * At most 32 ms a run. */
void rtb_fw_os_tick_wait(void)
{
	UINT old;

	tx_thread_priority_change(&runner_thread, TXP_PRIO_TICK_WAIT, &old);
	tx_thread_resume(&spinner_thread);
	do
		tx_thread_sleep(1);
	while (_tx_timer_current_ptr != _tx_timer_list_start);
	tx_thread_suspend(&spinner_thread);
	tx_thread_priority_change(&runner_thread, TXP_NATIVE(0), &old);
}

void rtb_fw_os_run_done(void)
{
	UINT old;

	tx_thread_priority_change(&runner_thread, TXP_NATIVE(0), &old);
}

const char *rtb_fw_os_release(void)
{
	return "ThreadX " TXP_VERSION;
}

const char *rtb_fw_os_facts_path(void)
{
	return "/rtbench/threadx.json";
}

static void console_entry(ULONG arg)
{
	(void)arg;
	TXP_THREAD_START();
	ready = true; /* the console runs first: it is the most urgent thread */
	rtb_fw_console_main();
}

static void runner_entry(ULONG arg)
{
	(void)arg;
	TXP_THREAD_START();
	rtb_fw_runner_main();
}

static void spinner_entry(ULONG arg)
{
	(void)arg; /* no TXP_THREAD_START(): it runs nothing but this loop */
	for (;;)
		__asm volatile("nop");
}

static void create(TX_THREAD *t, const char *name, void (*entry)(ULONG), size_t stack_bytes,
		   UINT prio, UINT start)
{
	void *stack = txp_alloc(stack_bytes);

	if (stack == NULL || tx_thread_create(t, (CHAR *)name, entry, 0, stack, (ULONG)stack_bytes,
					      prio, prio, TX_NO_TIME_SLICE, start) != TX_SUCCESS)
		rtb_fw_fatal("cannot create the console threads", 0);
}

void txp_console_start(void)
{
	if (tx_event_flags_create(&wake, "rtb-wake") != TX_SUCCESS ||
	    tx_mutex_create(&write_lock, "rtb-console", TX_INHERIT) != TX_SUCCESS)
		rtb_fw_fatal("cannot create the console objects", 0);
	create(&runner_thread, "rtb-run", runner_entry, TXP_RUNNER_STACK_BYTES, TXP_NATIVE(0),
	       TX_AUTO_START);
	create(&console_thread, "rtb-console", console_entry, CONSOLE_STACK_BYTES, TXP_PRIO_CONSOLE,
	       TX_AUTO_START);
	create(&spinner_thread, "rtb-tick-spin", spinner_entry, SPINNER_STACK_BYTES, TXP_NATIVE(0),
	       TX_DONT_START);
	rtb_fw_console_init();
}
