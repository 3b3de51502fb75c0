/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uC/OS-III application configuration (os_cfg_app.h) rtbench's
 * uC/OS-III port is built with: sizes, rates and the priorities of the
 * kernel's own tasks. See os_cfg.h beside it for how to build with another.
 */
#ifndef OS_CFG_APP_H
#define OS_CFG_APP_H

/* The stack interrupt handlers run on once the kernel runs (CPU_STK words):
 * the board's timer and UART handlers, the scenarios' interrupt handlers,
 * one nested in the other, and a fatal error's report. */
#define OS_CFG_ISR_STK_SIZE 1024u
/* The kernel's pool of message descriptors (OS_MSG), shared by every queue:
 * one per queued message. The port's queues hold at most their depth each;
 * 16 bytes a descriptor. */
#define OS_CFG_MSG_POOL_SIZE 4096u
#define OS_CFG_TASK_STK_LIMIT_PCT_EMPTY 10u

/* The idle task (native OS_CFG_PRIO_MAX - 1). */
#define OS_CFG_IDLE_TASK_STK_SIZE 128u

/* The statistics task, when os_cfg.h enables it: its priority falls among
 * the scenarios' (native 2 .. OS_CFG_PRIO_MAX - 2). */
#define OS_CFG_STAT_TASK_PRIO ((OS_PRIO)(OS_CFG_PRIO_MAX - 2u))
#define OS_CFG_STAT_TASK_RATE_HZ 10u
#define OS_CFG_STAT_TASK_STK_SIZE 256u

/* 1 ms tick, as the FreeRTOS port's: sleeps and timeouts round to it. The
 * port programs SysTick for it from the board's core clock (BOARD_CPU_HZ). */
#define OS_CFG_TICK_RATE_HZ 1000u

/* The timer task, when os_cfg.h enables software timers (rtbench does not
 * use them): its priority falls among the scenarios'. */
#define OS_CFG_TMR_TASK_PRIO ((OS_PRIO)(OS_CFG_PRIO_MAX - 3u))
#define OS_CFG_TMR_TASK_STK_SIZE 256u
#define OS_CFG_TMR_TASK_RATE_HZ 10u

/* rtbench: the time slice of RTB_POLICY_RR threads, in ticks, when
 * os_cfg.h builds round-robin in. uC/OS-III's own default quantum
 * (OSSchedRoundRobinCfg with 0) is a tenth of a second; so is this. */
#define RTB_UCOS3_RR_QUANTUM_TICKS (OS_CFG_TICK_RATE_HZ / 10u)

#endif /* OS_CFG_APP_H */
