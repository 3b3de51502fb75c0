/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The firmware's counter read on a Cortex-M board, for the ports'
 * rtb_port_inline.h: the board's 32-bit down-counter, extended to 64 bits
 * by cm.h. Only compiler headers: the core's freestanding build reads it.
 */
#ifndef RTB_FW_COUNTER_H
#define RTB_FW_COUNTER_H

#include "board_config.h"
#include "cm.h"

#define RTB_FW_COUNTER_READ() cm_counter_read(BOARD_COUNTER_VALUE_ADDR)

#endif /* RTB_FW_COUNTER_H */
