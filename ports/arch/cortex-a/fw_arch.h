/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the firmware ports' shared code (ports/common/fw_port.h, fw_console.c)
 * and the RTOS ports need of a Cortex-A (ARMv7-A) board, under the names
 * every architecture folder gives them (see ../cortex-m/fw_arch.h):
 * interrupt masking and the exception-context test (ca.h); the software line
 * of an interrupt source, which is the board's (its interrupt controller:
 * board.h); the counter, chosen when the image starts (fw_time.c), so its
 * name, note and frequency are read at run time; and why there is no cache
 * to flush.
 */
#ifndef RTB_FW_ARCH_H
#define RTB_FW_ARCH_H

#include <stdint.h>

#include "board.h"
#include "ca.h"

#define rtb_fw_irq_save ca_irq_save
#define rtb_fw_irq_restore ca_irq_restore
#define rtb_fw_in_isr ca_in_isr

#define RTB_FW_SOFT_WORD(n) BOARD_SOFT_WORD(n)
#define rtb_fw_soft_raise(word) board_soft_raise(word)
#define RTB_FW_SOFT_HOW BOARD_SOFT_HOW

/* Filled by ca_counter_start() (fw_time.c) before the port starts. */
extern char ca_counter_name[24];
extern char ca_counter_note[320];
#define RTB_FW_COUNTER_NAME ca_counter_name
#define RTB_FW_COUNTER_NOTE ca_counter_note
#define RTB_FW_COUNTER_HZ ((uint64_t)ca_counter_state.hz)
#define RTB_FW_COUNTER_HZ_BUILT 0 /* not known before the start: rtb_port_init sets it */
/* ns of at most 32 bits (the storm check's constants) in counter ticks */
#define RTB_FW_NS_TO_COUNTER(ns) ((uint64_t)((uint32_t)(ns) / ca_counter_state.tick_ns))
#define RTB_FW_TIMER_TO_COUNTER(ticks) ((uint64_t)(ticks)*ca_counter_state.hz / BOARD_TIMER_HZ)

/* Choose and start the counter (fw_time.c); the board calls it first. */
void ca_counter_start(void);

#define RTB_FW_CACHE_NOTE                                                                      \
	"the MMU and the caches are off (the board's start leaves them so): nothing to clean " \
	"or invalidate"

#endif /* RTB_FW_ARCH_H */
