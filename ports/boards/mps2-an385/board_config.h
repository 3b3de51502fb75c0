/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mps2-an385 (ARM's Cortex-M3 FPGA image on the MPS2 board, as QEMU models
 * it): the facts the firmware ports and their RTOS configurations need, and the register map of
 * the CMSDK peripherals it uses. Plain macros: the core's freestanding
 * build reads this header through the counter read.
 */
#ifndef RTB_BOARD_CONFIG_H
#define RTB_BOARD_CONFIG_H

#define BOARD_NAME "mps2-an385"
#define BOARD_CPU "cortex-m3"
#define BOARD_CPU_COUNT 1
#define BOARD_CPU_HZ 25000000u /* SYSCLK: core and APB peripherals */

/* The RTOS heap: the board's 16 MiB PSRAM at 0x21000000 (the linker
 * script's .heap); code runs from SSRAM1, data and stacks of the startup
 * in SSRAM2/3. */
#define BOARD_HEAP_BYTES (16u * 1024u * 1024u)

/* The counter: the CMSDK dual timer's first timer, free-running, 32 bits,
 * counting down at SYSCLK (QEMU does not model the DWT cycle counter). */
#define BOARD_DUALTIMER_BASE 0x40002000u
#define BOARD_COUNTER_VALUE_ADDR (BOARD_DUALTIMER_BASE + 0x04u)
#define BOARD_COUNTER_HZ 25000000u
#define BOARD_COUNTER_NAME "cmsdk-dualtimer1"
#define BOARD_COUNTER_NOTE                                                       \
	"a free-running 32-bit timer of the board at its known clock, extended " \
	"to 64 bits by counting wraps (no cycle counter under QEMU)"

/* The interrupt sources: CMSDK APB timers 0 and 1, at SYSCLK. */
#define BOARD_TIMER_HZ BOARD_CPU_HZ
#define BOARD_TIMER0_BASE 0x40000000u
#define BOARD_TIMER1_BASE 0x40001000u
#define BOARD_TIMER0_IRQ 8
#define BOARD_TIMER1_IRQ 9
#define BOARD_TIMERS 2
/* The interrupt sources raised from software (a fire with delay 0): one
 * interrupt line per source that no device of the board drives, set pending
 * by the firing thread (NVIC ISPR) and taken at the timers' priority through
 * the same dispatch. No device of the board as QEMU models it is wired to
 * lines 14 and 15 (its UARTs, timers, SPI and Ethernet use 0-5, 8-13, 18-22
 * and 24). */
#define BOARD_SOFT_IRQ0 14
#define BOARD_SOFT_IRQ(n) (BOARD_SOFT_IRQ0 + (n))
#define BOARD_SOFT_IRQ_NAME "software-pended interrupt"

/* How the ports' interrupt source is named in their facts (rtb_port_info's
 * irq_source, completed by the port, and irq_name). */
#define BOARD_IRQ_SOURCE "a hardware timer of the board (CMSDK APB timer)"
#define BOARD_IRQ_NAME "hardware timer interrupt"

/* The console: CMSDK UART0 (QEMU's first serial port). */
#define BOARD_UART0_BASE 0x40004000u
#define BOARD_UART0_RX_IRQ 0

#endif /* RTB_BOARD_CONFIG_H */
