/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: the core's sizes (core/include/rtb/config.h) for a board
 * whose byte pool is a few MiB. The thread-switch ring's threads do nothing
 * but yield and take timestamps, so 2 KiB of stack each is plenty and a
 * ring of 1000 fits in the pool.
 */
#ifndef RTB_PORT_CONFIG_H
#define RTB_PORT_CONFIG_H

#define RTB_RING_STACK_BYTES 2048

#endif /* RTB_PORT_CONFIG_H */
