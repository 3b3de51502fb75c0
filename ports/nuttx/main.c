/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NuttX port: the application's entry, CONFIG_INIT_ENTRYPOINT of rtbench's
 * defconfig. NuttX's init task becomes the console task; it never returns
 * (the runner is one of its threads, which the task's exit would end).
 */
#include "port_nuttx.h"

int rtbench_main(int argc, char *argv[]);

int rtbench_main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	nx_thread_init();
	nx_irq_init();
	nx_console_run();
	return 0;
}
