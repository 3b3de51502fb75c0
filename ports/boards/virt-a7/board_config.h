/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virt-a7 (QEMU's `virt` machine with one Cortex-A7, secure and
 * virtualization extensions off): the facts the firmware ports and their RTOS
 * configurations need, and the register map of the devices it uses. Plain
 * macros: the core's freestanding build and the RTOS's assembly read this
 * header.
 */
#ifndef RTB_BOARD_CONFIG_H
#define RTB_BOARD_CONFIG_H

#define BOARD_NAME "virt-a7"
#define BOARD_CPU "cortex-a7"
#define BOARD_CPU_COUNT 1
/* virt has no core clock of its own: 1 GHz is the one QEMU's Cortex-A cycle
 * counter (PMCCNTR) counts at. */
#define BOARD_CPU_HZ 1000000000u

/* The RTOS heap: 16 MiB of the board's RAM (the linker script's .heap), as
 * on mps2-an385, so the memory scenarios compare. */
#define BOARD_HEAP_BYTES (16u * 1024u * 1024u)

/* The GICv2: distributor and CPU interface. QEMU's implements 8 priority
 * bits (256 levels; a GIC-400 has 32). */
#define BOARD_GICD_BASE 0x08000000u
#define BOARD_GICC_BASE 0x08010000u
#define BOARD_GIC_PRIORITIES 256

/* The ARM generic timer, at CNTFRQ (62.5 MHz on QEMU): the virtual timer
 * (PPI, INTID 27) is the RTOS's tick, the non-secure physical timer (PPI,
 * INTID 30) the ports' interrupt source. The counter is the architecture's
 * (ports/arch/cortex-a/fw_time.c). */
#define BOARD_TIMER_HZ 62500000u
#define BOARD_TICK_IRQ 27
#define BOARD_TIMER0_IRQ 30
#define BOARD_TIMERS 1
/* The interrupt source raised from software (a fire with delay 0): a
 * software-generated interrupt of the GIC per source (SGI 0), sent by the
 * firing thread to its own CPU and taken at the timer's priority through the
 * same dispatch. */
#define BOARD_SOFT_IRQ0 0
#define BOARD_SOFT_IRQ(n) (BOARD_SOFT_IRQ0 + (n))
#define BOARD_SOFT_IRQ_NAME "software-generated interrupt"

/* How the ports' interrupt source is named in their facts (rtb_port_info's
 * irq_source, completed by the port, and irq_name). */
#define BOARD_IRQ_SOURCE "a hardware timer of the board (the ARM generic timer's physical timer)"
#define BOARD_IRQ_NAME "hardware timer interrupt"

/* The console: the PL011 UART0 (QEMU's first serial port). */
#define BOARD_UART0_BASE 0x09000000u
#define BOARD_UART0_IRQ 33

#endif /* RTB_BOARD_CONFIG_H */
