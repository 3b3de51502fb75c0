/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mps2-an385 startup: the vector table (at 0x0, where the board boots) and
 * the reset handler that sets up RAM and calls main(). The RTOS's own
 * handlers (SVCall, PendSV, SysTick; named by the port's rtb_fw_rtos.h)
 * are installed directly in the table: FreeRTOS's Cortex-M3 port checks
 * that at start.
 */
#include <stdint.h>

#include "board_config.h"
#include "rtb_fw_rtos.h"

extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;

int main(void);
void reset_handler(void);
void cm_fault_handler(void);
void cm_unexpected_handler(void);
void RTB_FW_SVC_HANDLER(void);
void RTB_FW_PENDSV_HANDLER(void);
void RTB_FW_SYSTICK_HANDLER(void);
void board_uart0_rx_handler(void);
void board_timer0_handler(void);
void board_timer1_handler(void);
void rtb_fw_soft0_isr(void); /* the port's (board.h) */
void rtb_fw_soft1_isr(void);

#define EXTERNAL_IRQS 32

typedef void (*vector)(void);

__attribute__((section(".vectors"), used)) static const vector vectors[16 + EXTERNAL_IRQS] = {
	[0] = (vector)(uintptr_t)&__stack_top,
	[1] = reset_handler,
	[2] = cm_fault_handler, /* NMI */
	[3] = cm_fault_handler, /* HardFault */
	[4] = cm_fault_handler, /* MemManage */
	[5] = cm_fault_handler, /* BusFault */
	[6] = cm_fault_handler, /* UsageFault */
	[11] = RTB_FW_SVC_HANDLER,
	[12] = cm_unexpected_handler, /* DebugMon */
	[14] = RTB_FW_PENDSV_HANDLER,
	[15] = RTB_FW_SYSTICK_HANDLER,
	[16 + 0] = board_uart0_rx_handler,
	[16 + 1] = cm_unexpected_handler,
	[16 + 8] = board_timer0_handler,
	[16 + 9] = board_timer1_handler,
	[16 + BOARD_SOFT_IRQ(0)] = rtb_fw_soft0_isr,
	[16 + BOARD_SOFT_IRQ(1)] = rtb_fw_soft1_isr,
};

void reset_handler(void)
{
	uint32_t *src = &__data_load;

	for (uint32_t *dst = &__data_start; dst < &__data_end;)
		*dst++ = *src++;
	for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
		*dst++ = 0;
	main();
	for (;;)
		__asm volatile("wfi");
}
