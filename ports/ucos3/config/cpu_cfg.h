/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uC/CPU configuration (cpu_cfg.h) rtbench's uC/OS-III port is built
 * with, for the Cortex-M3 of the mps2-an385 board. See os_cfg.h beside it
 * for how to build with another. Plain macros: the board code reads the
 * interrupt priorities from here (the port's rtb_fw_rtos.h).
 */
#ifndef CPU_CFG_MODULE_PRESENT
#define CPU_CFG_MODULE_PRESENT

/* No CPU host name. */
#define CPU_CFG_NAME_EN DEF_DISABLED
#define CPU_CFG_NAME_SIZE 16

/* No uC/CPU timestamps: the kernel takes none (OS_CFG_TS_EN 0), and rtbench
 * times with the board's counter. */
#define CPU_CFG_TS_32_EN DEF_DISABLED
#define CPU_CFG_TS_64_EN DEF_DISABLED
#define CPU_CFG_TS_TMR_SIZE CPU_WORD_SIZE_32

/* CPU_CFG_INT_DIS_MEAS_EN is left undefined: no measurement of the time
 * interrupts stay masked, which would time every critical section. */

/* The CPU has no caches to manage. */
#define CPU_CFG_CACHE_MGMT_EN DEF_DISABLED

/* Interrupt priorities. The AN385's Cortex-M3 implements 3 priority bits
 * (8 levels, in steps of 0x20 of the NVIC's 8-bit fields; QEMU models more,
 * which changes nothing here). Levels CPU_CFG_KA_IPL_BOUNDARY .. 7 are
 * kernel aware: the kernel masks them (BASEPRI) in its critical sections
 * and their handlers may call it, bracketed by OSIntEnter()/OSIntExit();
 * levels below are never masked and may not call it. 5 puts the boundary at
 * 0xA0: the board's timer interrupt (the scenarios' source) at 0xA0, its
 * UART at 0xC0, as FreeRTOS's configMAX_SYSCALL_INTERRUPT_PRIORITY does;
 * uC/OS-III puts SysTick at the boundary too and PendSV at the lowest. */
#define CPU_CFG_NVIC_PRIO_BITS 3u
#define CPU_CFG_KA_IPL_BOUNDARY 5u

#endif /* CPU_CFG_MODULE_PRESENT */
