/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: the inlined counter read, the board's free-running timer
 * extended to 64 bits by the architecture's code (ports/arch/<arch>/fw_counter.h).
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "fw_counter.h"

static inline uint64_t rtb_port_counter_read(void)
{
	return RTB_FW_COUNTER_READ();
}

#endif /* RTB_PORT_INLINE_H */
