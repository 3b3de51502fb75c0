/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ThreadX image: tx_kernel_enter() runs the port's low-level init
 * (lowlevel.c), then tx_application_define(), which makes the byte pool
 * every allocation comes from and starts the console and runner threads,
 * then the scheduler. From then on the image answers the line protocol on
 * the board's console (console.c) until `#rtb off` resets the board.
 */
#include "port_threadx.h"

void tx_application_define(void *first_unused_memory)
{
	if (tx_byte_pool_create(&txp_pool, "rtb", first_unused_memory, BOARD_HEAP_BYTES) !=
	    TX_SUCCESS)
		rtb_fw_fatal("cannot create the ThreadX byte pool", 0);
	txp_console_start();
}

int main(void)
{
	tx_kernel_enter();
	rtb_fw_fatal("tx_kernel_enter returned", 0);
	return 0;
}
