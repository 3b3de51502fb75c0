/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FreeRTOS image: the board's counter and console come up, the port's
 * console and runner tasks are created, and FreeRTOS starts. From then on
 * the image answers the line protocol on the board's console (console.c,
 * ports/common/fw_console.c) until `#rtb off` resets the board.
 */
#include "port_freertos.h"

int main(void)
{
	frt_console_start();
	vTaskStartScheduler();
	rtb_fw_fatal("the FreeRTOS scheduler did not start (heap too small?)", 0);
	return 0;
}
