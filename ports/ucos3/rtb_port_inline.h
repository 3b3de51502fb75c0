/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: the inlined counter read, the board's free-running timer
 * extended to 64 bits by the Cortex-M code (arch/cortex-m/cm.h). No kernel
 * header: the core reads this one, freestanding.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "board_config.h"
#include "cm.h"

static inline uint64_t rtb_port_counter_read(void)
{
	return cm_counter_read(BOARD_COUNTER_VALUE_ADDR);
}

#endif /* RTB_PORT_INLINE_H */
