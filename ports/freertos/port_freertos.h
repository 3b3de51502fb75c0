/* SPDX-License-Identifier: Apache-2.0 */
/* FreeRTOS port: what its files share. */
#ifndef RTB_PORT_FREERTOS_H
#define RTB_PORT_FREERTOS_H

#include "FreeRTOS.h"
#include "board.h"
#include "rtb_port.h"
#include "task.h"

/* Relative priority p runs at native p + 1 (the idle task has 0); the top
 * native priority is the console task's. */
#define FRT_PRIO_MAX (configMAX_PRIORITIES - 3)
#define FRT_PRIO_CONSOLE (configMAX_PRIORITIES - 1)
#define FRT_NATIVE(p) ((UBaseType_t)(p) + 1u)

/* Equal priorities take turns at the tick (tasks.c: xTaskIncrementTick): the
 * port then claims round-robin (port.c) and the facts say so (console.c). */
#define FRT_TIME_SLICED (configUSE_PREEMPTION == 1 && configUSE_TIME_SLICING == 1)

/* Task notification indexes. */
#define FRT_NOTE_RESUME 0 /* rtb_port_thread_resume */
#define FRT_NOTE_START 1  /* rtb_port_thread_start */
#define FRT_NOTE_WAKE 2	  /* console: a byte came; runner: a command came */

/* Default stack of a scenario's thread, and the controller's. */
#define FRT_STACK_BYTES 8192u
#define FRT_RUNNER_STACK_BYTES 65536u

/* A duration in ticks, rounded up (at least 1 for a non-zero duration). A
 * duration that fits 32 bits (4.29 s) is converted inline with the core's
 * 32-bit arithmetic (a division by a constant: a multiply); only a longer
 * one goes through the 64-bit division of frt_ticks_ceil_long(). */
#define FRT_TICK_NS (1000000000u / configTICK_RATE_HZ)
_Static_assert(FRT_TICK_NS >= 2u, "a duration of 2^32 - 1 ns converts without overflow");
TickType_t frt_ticks_ceil_long(uint64_t ns);
static inline TickType_t frt_ticks_ceil(uint64_t ns)
{
	if (ns > 0xFFFFFFFFu)
		return frt_ticks_ceil_long(ns);
	uint32_t n = (uint32_t)ns;
	return (TickType_t)(n / FRT_TICK_NS + (n % FRT_TICK_NS != 0u));
}
/* The console (console.c, on ports/common/fw_console.c): its tasks, its
 * lock, the board's start. Before the scheduler. */
void frt_console_start(void);
/* A failed configASSERT (the checked configuration): one `#rtb err` line,
 * then the image stops. */
void rtb_freertos_assert_failed(const char *file, int line);

#endif /* RTB_PORT_FREERTOS_H */
