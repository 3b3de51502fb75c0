/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/thread-metric: what the shared board code (ports/boards/mps2-an385)
 * needs from the RTOS, for ThreadX's own Thread-Metric images. As
 * ports/threadx/rtb_fw_rtos.h, except SVCall: the original Thread-Metric
 * raises its interrupt with `SVC #0`, so the vector table installs the
 * board glue's handler (tm_board.c) there.
 */
#ifndef RTB_FW_RTOS_H
#define RTB_FW_RTOS_H

#define RTB_FW_SVC_HANDLER tm_board_svc_handler
#define RTB_FW_PENDSV_HANDLER __tx_PendSVHandler
#define RTB_FW_SYSTICK_HANDLER tm_board_systick_handler
#define RTB_FW_IRQ_PRIO 0x80u
#define RTB_FW_ISR_ENTER() ((void)0)
#define RTB_FW_ISR_EXIT() ((void)0)

#endif /* RTB_FW_RTOS_H */
