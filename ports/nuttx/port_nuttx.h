/* SPDX-License-Identifier: Apache-2.0 */
/* NuttX port: what the port's files share (design notes in port.c). */
#ifndef RTB_PORT_NUTTX_H
#define RTB_PORT_NUTTX_H

#include <nuttx/config.h>

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>

/* posix_error, posix_native_prio and posix_relative_prio, which the shared
 * POSIX code (ports/posix/sync.c) calls and this port implements */
#include "port_posix.h"
#include "rtb_port.h"

/* NuttX priorities run from 1 to 255, higher more urgent. Relative priority
 * p is native NX_PRIO_BASE + p up to NX_PRIO_MAX; above every scenario the
 * runner waits for the tick a run starts on (NX_PRIO_TICK_WAIT), and the
 * console task, blocked in read() until a byte arrives, is the most urgent
 * (NX_PRIO_CONSOLE); below them all, above NuttX's idle thread, a thread
 * may spin in its place (console.c says when). */
#define NX_PRIO_IDLE_SPIN 1
#define NX_PRIO_BASE 10
#define NX_PRIO_MAX 200
#define NX_PRIO_TICK_WAIT 240
#define NX_PRIO_CONSOLE 250
#define NX_NATIVE(rel) (NX_PRIO_BASE + (rel))

#define NX_RUNNER_STACK_BYTES (64 * 1024)
#define NX_STACK_BYTES (16 * 1024) /* a thread created with stack_bytes 0 */
#define NX_SPIN_STACK_BYTES 1024

#define NX_TICK_NS (1000ull * CONFIG_USEC_PER_TICK)

/* Initialise a semaphore that signals (no holder): with priority
 * inheritance configured, NuttX boosts a semaphore's holders unless told it
 * has none. */
int nx_signal_sem_init(sem_t *s, unsigned value);

/* thread.c: the key of the calling thread's struct rtb_thread */
void nx_thread_init(void);

/* irq.c: the interrupt source's handlers attached, its lines enabled */
void nx_irq_init(void);

/* console.c: the console task's body, after the runner is started */
void nx_console_run(void);

#endif /* RTB_PORT_NUTTX_H */
