/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS port: the core's sizes (core/include/rtb/config.h) for a board
 * whose whole heap is a few MiB. A thread-switch ring thread only loops on
 * yields and timestamps: 2 KiB of stack is ample, and 1000 of them fit.
 */
#ifndef RTB_PORT_CONFIG_H
#define RTB_PORT_CONFIG_H

#define RTB_RING_STACK_BYTES 2048

#endif /* RTB_PORT_CONFIG_H */
