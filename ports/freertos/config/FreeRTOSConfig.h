/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FreeRTOS kernel configuration rtbench's FreeRTOS port is built with.
 *
 * It is rtbench's own, chosen for measurement, and recorded in the results
 * (the image's /rtbench/freertos.json). To measure another configuration,
 * copy this file into a directory of your own, change it, and configure
 * with -DRTB_FREERTOS_CONFIG_DIR=<that directory>. The port needs what is
 * marked "required"; the rest is a choice whose effect the figures show.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "board_config.h" /* BOARD_CPU_HZ: the board's core clock */

/* ---- scheduling -------------------------------------------------------- */
#define configCPU_CLOCK_HZ BOARD_CPU_HZ
#define configTICK_RATE_HZ 1000 /* 1 ms tick: sleeps and timeouts round to it */
#define configUSE_PREEMPTION 1	/* required: fixed-priority preemptive */
/* No time slicing: equal priorities run first come, first served, each until
 * it blocks or yields, as the contract's RTB_POLICY_FIFO says. FreeRTOS has
 * one policy per build, so round-robin (RTB_CAP_POLICY_RR) is not claimed;
 * set 1 to measure its default time slicing instead. */
#define configUSE_TIME_SLICING 0
/* The generic C task selection, the same code on every architecture, so
 * figures compare across ports; set 1 for the Cortex-M CLZ selection. */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_TICKLESS_IDLE 0 /* the tick runs always: no sleep mode on the path */
/* Relative priorities 0 .. configMAX_PRIORITIES - 3 map to native 1 .. -2;
 * the top native priority is the port's console task (required: >= 8). */
#define configMAX_PRIORITIES 32
#define configIDLE_SHOULD_YIELD 1
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS

/* ---- tasks and memory --------------------------------------------------- */
#define configMINIMAL_STACK_SIZE 256 /* words, the idle task's stack */
#define configMAX_TASK_NAME_LEN 16
#define configSUPPORT_DYNAMIC_ALLOCATION 1 /* required: tasks and objects on the heap */
#define configSUPPORT_STATIC_ALLOCATION 0
/* heap_4 (first fit, coalescing): the memory scenarios read it. The board
 * places it (BOARD_HEAP_BYTES, in its largest RAM). */
#define configTOTAL_HEAP_SIZE BOARD_HEAP_BYTES
#define configAPPLICATION_ALLOCATED_HEAP 1
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 1 /* required: the port's thread */
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 3	  /* required: resume, start, console */
#define configUSE_TASK_NOTIFICATIONS 1		  /* required */

/* ---- services ------------------------------------------------------------ */
#define configUSE_MUTEXES 1 /* required: priority-inheritance mutexes */
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 1 /* required */
#define configUSE_EVENT_GROUPS 1	/* required: native event flags */
#define configUSE_TIMERS 0		/* the port's interrupt source is a hardware timer */
#define configUSE_CO_ROUTINES 0
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0

/* ---- hooks and checks ----------------------------------------------------- */
/* A stack overflow or a failed assertion writes one `#rtb err` line on the
 * console and stops the image (port.c). No malloc-failed hook: scenarios
 * probe how much fits (a 64 MiB buffer halved until it fits, threads until
 * the heap is full), so a failed allocation is an answer, RTB_E_NOMEM,
 * not an error. */
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1 /* required: keeps the 64-bit counter extended */
#define configUSE_MALLOC_FAILED_HOOK 0
#define configCHECK_FOR_STACK_OVERFLOW 2
#ifndef __ASSEMBLER__
void rtb_freertos_assert_failed(const char *file, int line);
#endif
#define configASSERT(x)                                                 \
	do {                                                            \
		if (!(x))                                               \
			rtb_freertos_assert_failed(__FILE__, __LINE__); \
	} while (0)

/* ---- interrupts (Cortex-M) ------------------------------------------------ */
/* Priorities as written to the NVIC's 8-bit fields. Interrupts at
 * configMAX_SYSCALL_INTERRUPT_PRIORITY or below (numerically higher) may
 * call FreeRTOS's FromISR functions: the board's timer and UART are. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0xA0

/* ---- API included ---------------------------------------------------------- */
#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_uxTaskGetStackHighWaterMark 0

#endif /* FREERTOS_CONFIG_H */
