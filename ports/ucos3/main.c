/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The uC/OS-III image: uC/CPU and the kernel are initialised, the port's
 * console and runner tasks are created, the board's counter and console
 * come up, and uC/OS-III starts (port.c). From then on the image answers
 * the line protocol on the board's console (console.c,
 * ports/common/fw_console.c) until `#rtb off` resets the board.
 */
#include "port_ucos3.h"

int main(void)
{
	ucos3_start();
	return 0;
}
