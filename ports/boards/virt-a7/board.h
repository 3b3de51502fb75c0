/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a board gives every firmware port (as ../mps2-an385/board.h says):
 * its console UART, its timers for the interrupt source, the software
 * interrupt a source is raised on (here a GIC software-generated interrupt,
 * BOARD_SOFT_WORD / board_soft_raise), and a reset. On this Cortex-A board
 * the counter is the architecture's (ports/arch/cortex-a), and the board
 * also gives the RTOS its tick (board_tick_start) and the dispatch of an
 * acknowledged GIC interrupt (board_irq_handler), which the RTOS's own
 * interrupt entry calls.
 *
 * What the board needs from the RTOS port, in return: rtb_fw_rtos.h (the
 * names of the RTOS's exception handlers the vector table installs,
 * RTB_FW_SWI_HANDLER and RTB_FW_IRQ_HANDLER, and RTB_FW_FIQ_HANDLER when it
 * has one, its tick handler
 * RTB_FW_TICK_HANDLER, the interrupt priority from which the RTOS may be
 * called, and RTB_FW_ISR_ENTER()/RTB_FW_ISR_EXIT() for the console's
 * receive interrupt), and rtb_fw_timer_isr() and rtb_fw_soft0_isr() below.
 */
#ifndef RTB_BOARD_H
#define RTB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "board_config.h"

/* Start the counter (the architecture's), the GIC and the console; rx is
 * called from the UART's receive interrupt with each byte received. */
void board_init(void (*rx)(uint8_t byte));
/* Write bytes to the console, waiting while its transmitter is full. Usable
 * with interrupts masked (fatal errors). */
void board_console_write(const char *buf, size_t len);
/* Timer `n` (0 .. BOARD_TIMERS-1): interrupt after `ticks` ticks of
 * BOARD_TIMER_HZ, then every `ticks` when periodic, else once. */
void board_timer_start(unsigned n, uint32_t ticks, int periodic);
void board_timer_stop(unsigned n);
/* Nonzero when timer n has expired again since its handler moved it on
 * (the next interrupt is pending). */
int board_timer_expired(unsigned n);
void board_reset(void);

/* The RTOS's tick: the virtual timer, `hz` interrupts a second, each
 * calling RTB_FW_TICK_HANDLER() once its next deadline is set. */
void board_tick_start(uint32_t hz);
/* An interrupt the RTOS's entry acknowledged (the GIC's IAR value): its
 * device's handler. The RTOS writes the end of interrupt afterwards. */
void board_irq_handler(uint32_t iar);

/* For an RTOS whose interrupt entry leaves the GIC to the application:
 * acknowledge the most urgent pending interrupt (GICC_IAR; 1023 when none
 * is), and end it once handled (GICC_EOIR; nothing for 1023). */
#define BOARD_GICC_IAR (BOARD_GICC_BASE + 0x0Cu)
#define BOARD_GICC_EOIR (BOARD_GICC_BASE + 0x10u)
#define BOARD_GIC_SPURIOUS 1023u

static inline uint32_t board_irq_acknowledge(void)
{
	return *(volatile uint32_t *)(uintptr_t)BOARD_GICC_IAR;
}

static inline void board_irq_end(uint32_t iar)
{
	if ((iar & 0x3FFu) != BOARD_GIC_SPURIOUS)
		*(volatile uint32_t *)(uintptr_t)BOARD_GICC_EOIR = iar;
}

/* Raise source n's software interrupt: GICD_SGIR, to the requesting CPU
 * only (target list filter 2). The DSB completes the write and the ISB
 * refetches what follows, so an interrupt the caller's mask lets through is
 * taken before the next instruction of the caller. */
#define BOARD_GICD_SGIR (BOARD_GICD_BASE + 0xF00u)
#define BOARD_SOFT_WORD(n) ((2u << 24) | (uint32_t)BOARD_SOFT_IRQ(n))
#define BOARD_SOFT_HOW                                                                       \
	"the firing thread sends itself a GIC software-generated interrupt (GICD_SGIR, SGI " \
	"%u-%u, one per source) at the timer's priority, handled as the timer's"

static inline void board_soft_raise(uint32_t word)
{
	*(volatile uint32_t *)(uintptr_t)BOARD_GICD_SGIR = word;
	__asm volatile("dsb\n\tisb" ::: "memory");
}

/* ---- supplied by the RTOS port ------------------------------------------- */

/* Called by the board's handler of timer n, after it moved the timer on
 * (the port's interrupt source n). */
void rtb_fw_timer_isr(unsigned n);
/* Called by the board's interrupt handler for software interrupt
 * BOARD_SOFT_IRQ(0), at the timer's priority: source 0 raised from
 * software. */
void rtb_fw_soft0_isr(void);
/* A fatal error: one `#rtb err` line, then the board stops (never
 * returns). The architecture folder implements it (fault.c). */
void rtb_fw_fatal(const char *what, uint32_t value);

#endif /* RTB_BOARD_H */
