/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The firmware's counter read on a Cortex-A board, for the ports'
 * rtb_port_inline.h (ca.h). Only compiler headers: the core's freestanding
 * build reads it.
 */
#ifndef RTB_FW_COUNTER_H
#define RTB_FW_COUNTER_H

#include "ca.h"

#define RTB_FW_COUNTER_READ() ca_counter_read()

#endif /* RTB_FW_COUNTER_H */
