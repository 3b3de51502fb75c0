/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Template port entry point. On an RTOS this is the first task: it brings
 * the port up and runs the compiled-in scenario list, streaming records to
 * the console. Here it only proves that the core links against the port.
 */
#include "rtb/core.h"

int main(void)
{
	static char arg0[] = "rtbench-core";
	static char arg1[] = "list";
	char *argv[] = {arg0, arg1, 0};

	return rtb_main(2, argv);
}
