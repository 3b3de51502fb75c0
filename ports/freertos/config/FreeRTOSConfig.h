/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FreeRTOS kernel configuration rtbench's FreeRTOS port is built with
 * by default: a production configuration, as a product ships, since
 * benchmarks of an RTOS are read as its production performance. The
 * kernel's run-time checks are off (no configASSERT, no stack overflow
 * checking); ../config-checked/FreeRTOSConfig.h is this one with both on,
 * for measuring what they cost (`qemu:freertos-mps2-an385,checks=on`).
 *
 * The image reports the settings that change figures in every run's meta
 * record (os_config: the port reads them from this build) and the whole
 * list in /rtbench/freertos.json. To measure another configuration, copy
 * this file into a directory of your own, change it, and configure with
 * -DRTB_FREERTOS_CONFIG_DIR=<that directory> (rtbench:
 * RTBENCH_FREERTOS_CONFIG_DIR). The port needs what is marked "required";
 * the rest is a choice whose effect the figures show.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "board_config.h" /* BOARD_CPU_HZ: the board's core clock */

/* ---- scheduling -------------------------------------------------------- */
#define configCPU_CLOCK_HZ BOARD_CPU_HZ
#define configTICK_RATE_HZ 1000 /* 1 ms tick: sleeps and timeouts round to it */
#define configUSE_PREEMPTION 1	/* required: fixed-priority preemptive */
/* Time slicing: equal priorities take turns at every tick. It is FreeRTOS's
 * own default (FreeRTOS.h), which a product gets unless its configuration
 * turns it off, and most do not. FreeRTOS has one policy per build: the
 * port then claims round-robin with a one-tick slice, and says that its
 * FIFO threads are sliced too (THR-B-NEW's FIFO checks are unsupported).
 * Set 0 for first come, first served among equal priorities (FIFO; then
 * round-robin is unsupported). */
#define configUSE_TIME_SLICING 1
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
/* No malloc-failed hook: scenarios probe how much fits (a 64 MiB buffer
 * halved until it fits, threads until the heap is full), so a failed
 * allocation is an answer, RTB_E_NOMEM, not an error. */
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1 /* required: keeps the 64-bit counter extended */
#define configUSE_MALLOC_FAILED_HOOK 0
/* The run-time checks are off, as in production. Stack overflow checking
 * (method 2) compares the last 16 bytes of the outgoing task's stack with a
 * fill pattern on every switch, and fills every new task's stack with it;
 * configASSERT adds a test and a branch to nearly every kernel call, the
 * switch and the tick. On this board they lengthen a semaphore or mutex
 * handoff and a yield by 20 to 28 % and a task's creation 38 times
 * (deterministic medians, docs/ports/freertos.md). The checked
 * configuration (../config-checked/) turns both on: a failure there writes
 * one `#rtb err` line and stops the image. Here an overflow goes
 * undetected: run the checked configuration after changing a stack size. */
#define configCHECK_FOR_STACK_OVERFLOW 0

#ifdef BOARD_GICD_BASE
/* ---- interrupts (Cortex-A, GICv2: kernel port ARM_CA9) -------------------- */
/* The board's GIC (board_config.h). QEMU's implements 8 priority bits: the
 * port checks this number against the hardware when asserts are on. */
#define configINTERRUPT_CONTROLLER_BASE_ADDRESS BOARD_GICD_BASE
#define configINTERRUPT_CONTROLLER_CPU_INTERFACE_OFFSET (BOARD_GICC_BASE - BOARD_GICD_BASE)
#define configUNIQUE_INTERRUPT_PRIORITIES BOARD_GIC_PRIORITIES
/* Interrupts at this priority or below (numerically higher) may call the
 * FromISR functions, and critical sections mask them (GIC priority mask):
 * the board's timer, its software interrupt, the UART and the tick are. */
#define configMAX_API_CALL_INTERRUPT_PRIORITY 0xA0
/* Every task has an FPU context (D0-D31 and FPSCR saved at every switch),
 * and interrupt handlers run with D0-D31 saved around them (the board's
 * dispatch is vApplicationFPUSafeIRQHandler): GCC uses the NEON registers
 * in plain C at -O2, the kernel's and the port's own code included, so no
 * task or handler can be known not to (required). */
#define configUSE_TASK_FPU_SUPPORT 2
/* The tick: the generic timer's virtual timer (the board's). */
#define configSETUP_TICK_INTERRUPT() frt_tick_start()
#ifndef __ASSEMBLER__
void frt_tick_start(void);
#endif
#else
/* ---- interrupts (Cortex-M) ------------------------------------------------ */
/* Priorities as written to the NVIC's 8-bit fields. Interrupts at
 * configMAX_SYSCALL_INTERRUPT_PRIORITY or below (numerically higher) may
 * call FreeRTOS's FromISR functions: the board's timer and UART are. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0xA0
#endif

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
