/* SPDX-License-Identifier: Apache-2.0 */
/* The contract's calls that are the CPU's, not the OS's, on a Cortex-M. */
#include "rtb_port.h"

void rtb_port_cpu_relax(void)
{
	__asm volatile("nop");
}

/* No core of these boards has a data cache (the Cortex-M3); a board with one
 * (a Cortex-M7) would clean and invalidate the lines here. */
int rtb_port_cache_flush(const void *p, size_t bytes)
{
	(void)p;
	(void)bytes;
	return RTB_E_UNSUPPORTED;
}
