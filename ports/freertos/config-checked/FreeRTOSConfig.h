/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench's checked FreeRTOS configuration: the production one
 * (../config/FreeRTOSConfig.h) with the kernel's run-time checks on, as a
 * development build has them. Chosen with the target option checks=on
 * (`qemu:freertos-mps2-an385,checks=on`); the image then reports "checked"
 * with asserts on and stack check method 2 (os_config in the meta record),
 * and its figures include what the checks cost.
 *
 * A failed assertion or a stack overflow writes one `#rtb err` line on the
 * console and stops the image (port.c): the host's watchdog ends QEMU and
 * the unit is `lost`.
 */
#ifndef RTB_FREERTOS_CHECKED_CONFIG_H
#define RTB_FREERTOS_CHECKED_CONFIG_H

#include "../config/FreeRTOSConfig.h"

/* Method 2: at every switch, the last 16 bytes of the outgoing task's stack
 * against the fill pattern every new task's stack is filled with. */
#undef configCHECK_FOR_STACK_OVERFLOW
#define configCHECK_FOR_STACK_OVERFLOW 2

#ifndef __ASSEMBLER__
void rtb_freertos_assert_failed(const char *file, int line);
#endif
#define configASSERT(x)                                                 \
	do {                                                            \
		if (!(x))                                               \
			rtb_freertos_assert_failed(__FILE__, __LINE__); \
	} while (0)

#endif /* RTB_FREERTOS_CHECKED_CONFIG_H */
