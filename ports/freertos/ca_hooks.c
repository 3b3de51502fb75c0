/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FreeRTOS on a Cortex-A board (kernel port GCC/ARM_CA9): what the kernel
 * port asks of the application. Its interrupt entry (FreeRTOS_IRQ_Handler)
 * acknowledges the GIC, calls vApplicationIRQHandler and writes the end of
 * interrupt; the kernel port's own weak vApplicationIRQHandler is kept: it
 * saves FPSCR and D0-D31 and calls vApplicationFPUSafeIRQHandler, here the
 * board's dispatch. With configUSE_TASK_FPU_SUPPORT 2 every task has an FPU
 * context too: no code, task or handler, can clobber another's NEON
 * registers (GCC uses them in plain C at -O2). The tick comes from
 * configSETUP_TICK_INTERRUPT(): the board's virtual timer, which calls
 * FreeRTOS_Tick_Handler (rtb_fw_rtos.h).
 */
#include "port_freertos.h"

#include "board.h"

void vApplicationFPUSafeIRQHandler(uint32_t ulICCIAR);
void vApplicationFPUSafeIRQHandler(uint32_t ulICCIAR)
{
	board_irq_handler(ulICCIAR);
}

void frt_tick_start(void)
{
	board_tick_start(configTICK_RATE_HZ);
}
