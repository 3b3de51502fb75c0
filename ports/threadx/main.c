/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ThreadX image: tx_kernel_enter() runs the port's low-level init
 * (lowlevel.c), then tx_application_define(), which makes the byte pool
 * every allocation comes from and starts the console and runner threads,
 * then the scheduler. From then on the image answers the line protocol on
 * the board's console (console.c) until `#rtb off` resets the board.
 */
#include "port_threadx.h"
#include "rtb/core.h"

#ifdef TX_ENABLE_STACK_CHECKING
/* A configuration that turns ThreadX's stack checking on stops the image
 * with one `#rtb err` line when a thread's stack overflowed. */
static void stack_error(TX_THREAD *thread)
{
	char line[96];

	rtb_fmt(line, sizeof(line), "stack overflow in thread %s",
		thread->tx_thread_name != TX_NULL ? thread->tx_thread_name : "?");
	rtb_fw_fatal(line, 0);
}
#endif

void tx_application_define(void *first_unused_memory)
{
#ifdef TX_ENABLE_STACK_CHECKING
	tx_thread_stack_error_notify(stack_error);
#endif
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
