/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: the counter read the core inlines, the board's free-running
 * timer turned into a 64-bit up-count by the architecture's code (fw_counter.h). The same
 * read as every other firmware port on the board, so figures compare.
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
