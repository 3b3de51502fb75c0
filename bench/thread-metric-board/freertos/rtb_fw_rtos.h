/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric on FreeRTOS: what the shared board code needs from the
 * RTOS. As ports/freertos/rtb_fw_rtos.h, except SVCall: the original
 * Thread-Metric raises its interrupt with `SVC #0`, and FreeRTOS's Cortex-M3
 * port starts its first task with one too, so the vector table installs the
 * porting layer's dispatcher there (tm_porting_layer_freertos.c).
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#include "FreeRTOSConfig.h"

#define RTB_FW_SVC_HANDLER tm_board_svc_handler
#define RTB_FW_PENDSV_HANDLER xPortPendSVHandler
#define RTB_FW_SYSTICK_HANDLER xPortSysTickHandler
#define RTB_FW_IRQ_PRIO configMAX_SYSCALL_INTERRUPT_PRIORITY
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

#endif /* RTB_FW_RTOS_H */
