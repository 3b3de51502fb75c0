/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uC/OS-III kernel configuration (os_cfg.h) rtbench's uC/OS-III port is
 * built with.
 *
 * It is rtbench's own, chosen like a product's: the kernel's services the
 * port uses, and none of the checks, debug variables, statistics or
 * profiling a product switches off once it works (each of them lengthens
 * the paths the scenarios time). The image reports these settings
 * (/rtbench/ucos3.json). To measure another configuration, copy the four
 * headers of this folder (os_cfg.h, os_cfg_app.h, cpu_cfg.h, lib_cfg.h) into
 * a folder of your own, change them, and configure with
 * -DRTB_UCOS3_CONFIG_DIR=<that folder>. What the port needs is marked
 * "required" (ports/ucos3/port_ucos3.h stops the build with the reason when
 * it is missing); "capability" marks a service the port claims only when
 * it is built in; the rest is a choice whose effect the figures show.
 */
#ifndef OS_CFG_H
#define OS_CFG_H

/* ---- miscellaneous ------------------------------------------------------- */
/* required: the tick hook keeps the 64-bit counter extended */
#define OS_CFG_APP_HOOKS_EN 1u
/* Checks a product switches off once it works: arguments, calls from an
 * interrupt handler, calls before the kernel runs, object types, objects
 * created twice. The port checks its own arguments. */
#define OS_CFG_ARG_CHK_EN 0u
#define OS_CFG_CALLED_FROM_ISR_CHK_EN 0u
#define OS_CFG_INVALID_OS_CALLS_CHK_EN 0u
#define OS_CFG_OBJ_TYPE_CHK_EN 0u
#define OS_CFG_OBJ_CREATED_CHK_EN 0u
/* Debug variables (names, object lists for a debugger) off; required: 0,
 * because a memory partition (OSMem) can never be deleted and with debug
 * variables stays linked in the kernel's list of partitions, while the
 * port's queues and allocator create and drop partitions. */
#define OS_CFG_DBG_EN 0u
#define OS_CFG_TICK_EN 1u     /* required: sleeps and timeouts */
#define OS_CFG_DYN_TICK_EN 0u /* the tick runs always: no tickless idle on the path */
#define OS_CFG_TS_EN 0u	      /* no timestamps in the kernel's objects */

/* Native priorities 0 (most urgent) .. OS_CFG_PRIO_MAX - 1 (the idle task).
 * The port maps the scenarios' relative priorities 0 .. OS_CFG_PRIO_MAX - 4
 * onto native OS_CFG_PRIO_MAX - 2 .. 2; native 1 is its console task, 0 is
 * left free. */
#define OS_CFG_PRIO_MAX 64u

#define OS_CFG_SCHED_LOCK_TIME_MEAS_EN 0u
/* capability (RTB_CAP_POLICY_RR): round-robin among equal priorities, with a
 * quantum per task. The port gives RTB_POLICY_RR threads the quantum
 * RTB_UCOS3_RR_QUANTUM_TICKS (os_cfg_app.h) and RTB_POLICY_FIFO threads one
 * too long to end, so only round-robin threads are sliced; a yield is
 * OSSchedRoundRobinYield(). With 0 the port yields by the same rotation of
 * the ready list and claims no round-robin. */
#define OS_CFG_SCHED_ROUND_ROBIN_EN 1u
#define OS_CFG_STK_SIZE_MIN 64u /* words */

/* ---- event flags: capability (RTB_CAP_EVT), with OSFlagDel ----------------- */
#define OS_CFG_FLAG_EN 1u
#define OS_CFG_FLAG_DEL_EN 1u
#define OS_CFG_FLAG_MODE_CLR_EN 0u
#define OS_CFG_FLAG_PEND_ABORT_EN 0u

/* ---- memory partitions: required (the port's allocator and queue slots) --- */
#define OS_CFG_MEM_EN 1u

/* ---- mutexes: capability (RTB_CAP_MUTEX_INHERIT), with OSMutexDel -------- */
#define OS_CFG_MUTEX_EN 1u
#define OS_CFG_MUTEX_DEL_EN 1u
#define OS_CFG_MUTEX_PEND_ABORT_EN 0u

/* ---- message queues: capability (RTB_CAP_MQ), with OSQDel ---------------- */
#define OS_CFG_Q_EN 1u
#define OS_CFG_Q_DEL_EN 1u
#define OS_CFG_Q_FLUSH_EN 0u
#define OS_CFG_Q_PEND_ABORT_EN 0u

/* ---- semaphores: required, with OSSemDel ----------------------------------- */
#define OS_CFG_SEM_EN 1u
#define OS_CFG_SEM_DEL_EN 1u
#define OS_CFG_SEM_PEND_ABORT_EN 0u
#define OS_CFG_SEM_SET_EN 0u

/* ---- tasks ----------------------------------------------------------------- */
/* No statistics task (it samples every task's stack and the CPU use at
 * OS_CFG_STAT_TASK_RATE_HZ, a disturbance of its own) and no stack checks:
 * with OS_CFG_STAT_TASK_STK_CHK_EN the port creates tasks with cleared,
 * checked stacks. */
#define OS_CFG_STAT_TASK_EN 0u
#define OS_CFG_STAT_TASK_STK_CHK_EN 0u
#define OS_CFG_TASK_CHANGE_PRIO_EN 1u /* required */
#define OS_CFG_TASK_DEL_EN 1u	      /* required */
#define OS_CFG_TASK_IDLE_EN 1u
#define OS_CFG_TASK_PROFILE_EN 0u /* no per-task cycle counts on every switch */
#define OS_CFG_TASK_Q_EN 0u
#define OS_CFG_TASK_Q_PEND_ABORT_EN 0u
#define OS_CFG_TASK_REG_TBL_SIZE 0u
#define OS_CFG_TASK_STK_REDZONE_EN 0u /* no stack red zone checked on every switch */
#define OS_CFG_TASK_STK_REDZONE_DEPTH 8u
#define OS_CFG_TASK_SEM_PEND_ABORT_EN 0u
/* required: threads created suspended, suspend and resume of another */
#define OS_CFG_TASK_SUSPEND_EN 1u

/* ---- task local storage ------------------------------------------------------ */
#define OS_CFG_TLS_TBL_SIZE 0u

/* ---- time ------------------------------------------------------------------- */
#define OS_CFG_TIME_DLY_HMSM_EN 0u
#define OS_CFG_TIME_DLY_RESUME_EN 0u

/* ---- software timers: the port's interrupt source is a hardware timer ------ */
#define OS_CFG_TMR_EN 0u
#define OS_CFG_TMR_DEL_EN 0u

/* ---- trace recorder ----------------------------------------------------------- */
#define OS_CFG_TRACE_EN 0u
#define OS_CFG_TRACE_API_ENTER_EN 0u
#define OS_CFG_TRACE_API_EXIT_EN 0u

#endif /* OS_CFG_H */
