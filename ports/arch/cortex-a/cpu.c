/* SPDX-License-Identifier: Apache-2.0 */
/* The contract's calls that are the CPU's, not the OS's, on a Cortex-A. */
#include "rtb_port.h"

void rtb_port_cpu_relax(void)
{
	__asm volatile("nop");
}

/* The boards' start leaves the MMU and the data cache off (QEMU's virt runs
 * the image from RAM as it is): there is nothing to clean or invalidate. */
int rtb_port_cache_flush(const void *p, size_t bytes)
{
	(void)p;
	(void)bytes;
	return RTB_E_UNSUPPORTED;
}
