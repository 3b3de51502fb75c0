/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: the core's sizes (core/include/rtb/config.h). Every stack
 * comes from the 16 MiB heap section: the thread-switch rings' threads,
 * which only yield and read the counter, get 2 KiB each, so that a ring of
 * 1000 fits (about 2.8 MiB with their control blocks and size classes).
 */
#ifndef RTB_PORT_CONFIG_H
#define RTB_PORT_CONFIG_H

#define RTB_RING_STACK_BYTES 2048

#endif /* RTB_PORT_CONFIG_H */
