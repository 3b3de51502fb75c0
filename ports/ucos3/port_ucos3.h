/* SPDX-License-Identifier: Apache-2.0 */
/* uC/OS-III port: what its files share, and the settings it needs. */
#ifndef RTB_PORT_UCOS3_H
#define RTB_PORT_UCOS3_H

#include "board.h"
#include "os.h"
#include "rtb_port.h"
#include "ucos3_arch.h"

/* ---- the configuration the port needs (config/os_cfg.h says why) ------- */
#if OS_CFG_APP_HOOKS_EN == 0
#error "rtbench's uC/OS-III port needs OS_CFG_APP_HOOKS_EN 1: its tick hook keeps the counter's 64-bit extension current"
#endif
#if OS_CFG_TICK_EN == 0 || OS_CFG_DYN_TICK_EN != 0
#error "rtbench's uC/OS-III port needs OS_CFG_TICK_EN 1 and OS_CFG_DYN_TICK_EN 0: sleeps and timeouts count the periodic tick, and the board has no dynamic-tick timer code"
#endif
#if OS_CFG_SEM_EN == 0 || OS_CFG_SEM_DEL_EN == 0
#error "rtbench's uC/OS-III port needs OS_CFG_SEM_EN 1 and OS_CFG_SEM_DEL_EN 1: counting semaphores, the lock without inheritance and blocked queue senders are semaphores"
#endif
#if OS_CFG_TASK_DEL_EN == 0 || OS_CFG_TASK_CHANGE_PRIO_EN == 0 || OS_CFG_TASK_SUSPEND_EN == 0
#error "rtbench's uC/OS-III port needs OS_CFG_TASK_DEL_EN, OS_CFG_TASK_CHANGE_PRIO_EN and OS_CFG_TASK_SUSPEND_EN 1: threads end, change priority and start suspended"
#endif
#if OS_CFG_MEM_EN == 0
#error "rtbench's uC/OS-III port needs OS_CFG_MEM_EN 1: its allocator and its queues' message slots are memory partitions (OSMem)"
#endif
#if OS_CFG_DBG_EN != 0
#error "rtbench's uC/OS-III port needs OS_CFG_DBG_EN 0: a memory partition cannot be deleted and with debug variables stays in the kernel's list of partitions, while the port's queues and allocator drop partitions they no longer use"
#endif
#if OS_CFG_PRIO_MAX < 16
#error "rtbench's uC/OS-III port needs OS_CFG_PRIO_MAX >= 16: at least 12 priorities for the scenarios, plus its console task, the idle task and a free top level"
#endif

/* What the configuration built in, as the capabilities say. */
#define UCOS3_HAS_MUTEX (OS_CFG_MUTEX_EN > 0 && OS_CFG_MUTEX_DEL_EN > 0)
#define UCOS3_HAS_MQ (OS_CFG_Q_EN > 0 && OS_CFG_Q_DEL_EN > 0)
#define UCOS3_HAS_EVT (OS_CFG_FLAG_EN > 0 && OS_CFG_FLAG_DEL_EN > 0)
#define UCOS3_HAS_RR (OS_CFG_SCHED_ROUND_ROBIN_EN > 0)

/* ---- priorities ----------------------------------------------------------- */

/* Relative priority p runs at native (OS_CFG_PRIO_MAX - 2) - p: relative 0
 * just above the idle task (OS_CFG_PRIO_MAX - 1), UCOS3_PRIO_MAX at native 2.
 * Native 1 is the console task's; native 0 stays free. */
#define UCOS3_PRIO_MAX ((int)OS_CFG_PRIO_MAX - 4)
#define UCOS3_PRIO_CONSOLE ((OS_PRIO)1u)
#define UCOS3_NATIVE(p) ((OS_PRIO)((int)OS_CFG_PRIO_MAX - 2 - (p)))
#define UCOS3_RELATIVE(n) ((int)OS_CFG_PRIO_MAX - 2 - (int)(n))

/* The time slice of a task that is not to be sliced when round-robin is
 * built in (RTB_POLICY_FIFO threads, the console and the runner): the
 * longest OS_TICK, 49 days at 1 kHz. */
#define UCOS3_FIFO_QUANTUM_TICKS ((OS_TICK)0xFFFFFFFFu)

/* Default stack of a scenario's thread; the runner's (it runs the core),
 * and the console task's. */
#define UCOS3_STACK_BYTES 8192u
#define UCOS3_RUNNER_STACK_BYTES 65536u
#define UCOS3_CONSOLE_STACK_BYTES 4096u

/* ---- shared between the port's files ------------------------------------------ */

/* The task that called rtb_port_init() (the runner): the thread the
 * contract names NULL. */
extern OS_TCB *ucos3_init_tcb;
/* A timeout in ticks for a pend: never shorter than ns (a pend of n ticks
 * ends on the n-th tick from now, after n - 1 to n periods), at least 1 (0
 * means forever to uC/OS-III), at most the largest OS_TICK. A timeout that
 * fits 32 bits (4.29 s) is converted inline with the core's 32-bit
 * arithmetic (a division by a constant: a multiply); only a longer one goes
 * through the 64-bit division of ucos3_timeout_ticks_long(). */
#define UCOS3_TICK_NS (1000000000u / OS_CFG_TICK_RATE_HZ)
_Static_assert(UCOS3_TICK_NS >= 2u, "a timeout of 2^32 - 1 ns converts without overflow");
OS_TICK ucos3_timeout_ticks_long(uint64_t ns);
static inline OS_TICK ucos3_timeout_ticks(uint64_t ns)
{
	if (ns > 0xFFFFFFFFu)
		return ucos3_timeout_ticks_long(ns);
	uint32_t n = (uint32_t)ns;
	return (OS_TICK)(n / UCOS3_TICK_NS + (n % UCOS3_TICK_NS != 0u) + 1u);
}
/* OSTaskChangePrio(tcb, prio) (tcb NULL: the caller), then OSPrioCur made
 * the caller's priority again. uC/OS-III 3.08.02 updates OSPrioCur only when
 * it switches tasks (and in OSMutexPost's own disinheritance): a task that
 * changes its own priority and keeps the CPU leaves it at the old one, and
 * the kernel then yields (OSSchedRoundRobinYield), slices (the tick's
 * round-robin) and queues readied equal-priority tasks (head or tail of the
 * ready list) for the wrong priority. At task level OSPrioCur is by
 * definition the running task's priority, so the port restores it, as
 * OSMutexPost does. */
void ucos3_change_prio(OS_TCB *tcb, OS_PRIO prio, OS_ERR *err);
/* A pend's error as the contract's: inline, so that a pend that succeeds
 * costs the test of OS_ERR_NONE and nothing more; ucos3_pend_failure() maps
 * the others. */
int ucos3_pend_failure(OS_ERR err);
static inline int ucos3_pend_error(OS_ERR err)
{
	return err == OS_ERR_NONE ? RTB_OK : ucos3_pend_failure(err);
}
/* Queues (mq.c): a message of up to this many bytes travels inside the
 * pointer OSQPost carries; a larger one is copied through an OSMem slot.
 * The facts' note on queues says so. */
#define UCOS3_MQ_IN_POINTER_BYTES 4u
#define UCOS3_MQ_NOTE                                                                     \
	"OSQ: a message of up to 4 bytes travels inside the pointer OSQPost carries (no " \
	"copy by the port); a larger one the port copies into a slot of the queue's "     \
	"OSMem partition and out again"
/* RTB_FW_ISR_ENTER() of a Cortex-M's rtb_fw_rtos.h (ucos3_arch.h), the
 * bracket a handler takes there: OSIntEnter() with the kernel's interrupts
 * masked, as uC/OS-III's Cortex-M handlers do (its OS_CPU_SysTickHandler). */
void ucos3_isr_enter(void);
/* The allocator (mem.c): start over from an empty heap when every block has
 * been given back (between runs). */
void ucos3_mem_reset_if_idle(void);
/* The allocator's figures, for rtb_port_mem_usage() and the facts. */
struct ucos3_mem_stats {
	uint64_t used_bytes;	 /* in blocks handed out, by their class sizes */
	uint64_t reserved_bytes; /* taken from the heap section so far */
	uint64_t blocks;	 /* handed out and not given back */
	uint64_t partitions;	 /* OSMem partitions carved */
};
void ucos3_mem_stats(struct ucos3_mem_stats *out);
/* The release in the `ready` line and the port info ("V3.08.02"). */
const char *ucos3_release(void);
/* Initialise uC/CPU and the kernel, create the console's tasks and start
 * the kernel (port.c); never returns. */
void ucos3_start(void);
/* The console (console.c, on ports/common/fw_console.c): its tasks, its
 * lock, the board's start. After OSInit(), before OSStart(). */
void ucos3_console_start(void);

#endif /* RTB_PORT_UCOS3_H */
