/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ThreadX configuration rtbench's ThreadX port is built with (ThreadX
 * reads it as tx_user.h: the port's build defines TX_INCLUDE_USER_DEFINE_FILE
 * for the kernel, its assembly files and rtbench's own files alike).
 *
 * It is rtbench's own, chosen to measure ThreadX as a product ships it: no
 * error checking of service arguments, no performance counters, no stack
 * filling or checking, no trace. The image reports every setting here that
 * changes a figure (/rtbench/threadx.json). To measure another
 * configuration, copy this file into a directory of your own, change it,
 * and configure with -DRTB_THREADX_CONFIG_DIR=<that directory>; a copy that
 * leaves out the RTB_THREADX_* settings gets the defaults of
 * ports/threadx/port_threadx.h. Only #define lines: the assembly files read
 * it too.
 */
#ifndef TX_USER_H
#define TX_USER_H

/* ---- scheduling --------------------------------------------------------- */

/* 32 priorities (0 most urgent): the console thread at 0, 1 above every
 * scenario (the runner between runs), relative priorities 0 .. 29 at
 * 31 .. 2 (required: at least 8). */
#define TX_MAX_PRIORITIES 32

/* 1 ms tick, as the FreeRTOS port: sleeps and timeouts round to it. The
 * port's low-level init (ports/threadx/lowlevel.c) programs SysTick from it
 * and the board's clock. */
#define TX_TIMER_TICKS_PER_SECOND 1000UL

/* Timeouts and sleeps expire in the SysTick interrupt instead of ThreadX's
 * timer thread. The image creates no application timers, so nothing but the
 * kernel's own expiry runs there, and a sleeping or timed-out thread is made
 * ready by the interrupt itself: no timer thread at priority 0 above every
 * scenario thread, and no two extra context switches per expiry on the
 * timer.periodic.latency path. A product that wants latency and has no
 * long timer callbacks chooses this; set it off to measure the timer
 * thread. */
#define TX_TIMER_PROCESS_IN_ISR

/* No TX_ENABLE_WFI (ThreadX's default): with no thread ready, ThreadX
 * waits in its PendSV handler, interrupts masked around the check, and
 * loops. With TX_ENABLE_WFI it would sleep there (WFI with PRIMASK set),
 * which QEMU 7.2 models badly under -icount: the interrupt that should end
 * the wait ends it one tick late (measured: every one-tick sleep took two
 * ticks, against one without WFI), so deterministic figures would be the
 * emulator's. The FreeRTOS port's idle task spins too. */

/* ---- production build ----------------------------------------------------- */

/* Service arguments are not checked (the tx_* names call the _tx_*
 * functions directly, not the _txe_* checking layer). */
#define TX_DISABLE_ERROR_CHECKING

/* No 0xEF pattern written into every new thread's stack (it would be part
 * of every thread creation the THR scenarios time); no run-time stack
 * checking. No TX_*_ENABLE_PERFORMANCE_INFO counters, no event trace. */
#define TX_DISABLE_STACK_FILLING

/* Left at ThreadX's defaults, and reported: preemption-threshold available
 * (TX_DISABLE_PREEMPTION_THRESHOLD), notify callbacks compiled in
 * (TX_DISABLE_NOTIFY_CALLBACKS), an interruptable kernel
 * (TX_NOT_INTERRUPTABLE: defining it shortens service paths and lengthens
 * interrupt lockout), function-call resume/suspend
 * (TX_INLINE_THREAD_RESUME_SUSPEND), function-call timer reactivation
 * (TX_REACTIVATE_INLINE). */

/* ---- rtbench's port ----------------------------------------------------------- */

/* ThreadX releases semaphore waiters in arrival order (FIFO) unless
 * tx_semaphore_prioritize() is called before tx_semaphore_put(). 0: the
 * port calls tx_semaphore_put() alone, ThreadX's plain service (SEM-B-REL
 * then fails, rightly); 1: it calls tx_semaphore_prioritize() before every
 * put (from interrupts too), so the highest-priority waiter is released.
 * Also settable with -DRTB_THREADX_SEM_PRIORITIZE=ON at configure time. */
#ifndef RTB_THREADX_SEM_PRIORITIZE
#define RTB_THREADX_SEM_PRIORITIZE 0
#endif

/* Time slice of a thread created with the round-robin policy, in ticks
 * (threads of the FIFO policy have none: TX_NO_TIME_SLICE). */
#define RTB_THREADX_RR_SLICE_TICKS 10

#endif /* TX_USER_H */
