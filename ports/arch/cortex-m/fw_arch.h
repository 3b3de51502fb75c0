/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the firmware ports' shared code (ports/common/fw_port.h, fw_console.c)
 * and the RTOS ports need of a Cortex-M (ARMv7-M) board, under the names
 * every architecture folder gives them:
 *
 * - rtb_fw_irq_save()/rtb_fw_irq_restore(): every interrupt masked (PRIMASK);
 * - rtb_fw_in_isr(): running in an exception handler (IPSR);
 * - the software line of interrupt source n: RTB_FW_SOFT_WORD(n), what
 *   rtb_fw_soft_raise() writes to raise it (its bit in the NVIC's first
 *   ISPR), and RTB_FW_SOFT_HOW, how that is said in the port's facts;
 * - the counter's name, note and frequency (RTB_FW_COUNTER_*), here the
 *   board's, known when the image is built; a duration in counter ticks
 *   (RTB_FW_NS_TO_COUNTER) and a timer period in counter ticks
 *   (RTB_FW_TIMER_TO_COUNTER: the board's timers count at the counter's
 *   clock);
 * - RTB_FW_CACHE_NOTE: why rtb_port_cache_flush() has nothing to do.
 */
#ifndef RTB_FW_ARCH_H
#define RTB_FW_ARCH_H

#include <stdint.h>

#include "board_config.h"
#include "cm.h"

#define rtb_fw_irq_save cm_irq_save
#define rtb_fw_irq_restore cm_irq_restore
#define rtb_fw_in_isr cm_in_isr

_Static_assert(BOARD_SOFT_IRQ(BOARD_TIMERS - 1) < 32, "the software lines are in ISPR0");
#define RTB_FW_SOFT_WORD(n) (1u << BOARD_SOFT_IRQ(n))
#define rtb_fw_soft_raise(word) cm_nvic_pend_bits(0, (word))
#define RTB_FW_SOFT_HOW                                                                       \
	"the firing thread sets pending a board interrupt line no device drives (NVIC ISPR, " \
	"lines %u-%u, one per source) at the timers' priority, handled as theirs"

#define RTB_FW_COUNTER_NAME BOARD_COUNTER_NAME
#define RTB_FW_COUNTER_NOTE BOARD_COUNTER_NOTE
#define RTB_FW_COUNTER_HZ BOARD_COUNTER_HZ
#define RTB_FW_COUNTER_HZ_BUILT BOARD_COUNTER_HZ /* the initializer's */
#define RTB_FW_NS_TO_COUNTER(ns) ((ns)*BOARD_COUNTER_HZ / 1000000000ull)
_Static_assert(BOARD_TIMER_HZ == BOARD_COUNTER_HZ, "the timers count at the counter's clock");
#define RTB_FW_TIMER_TO_COUNTER(ticks) (ticks)

#define RTB_FW_CACHE_NOTE "the Cortex-M3 has no data cache"

#endif /* RTB_FW_ARCH_H */
