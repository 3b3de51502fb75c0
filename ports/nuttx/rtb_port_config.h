/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NuttX port: the core's sizes (core/include/rtb/config.h) for an image
 * whose heap is the rest of 64 MiB of RAM. The thread-switch ring's threads
 * do nothing but yield and take timestamps: 2 KiB of stack each is plenty.
 */
#ifndef RTB_PORT_CONFIG_H
#define RTB_PORT_CONFIG_H

#define RTB_RING_STACK_BYTES 2048

#endif /* RTB_PORT_CONFIG_H */
