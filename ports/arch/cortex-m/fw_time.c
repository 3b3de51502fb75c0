/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Time on a Cortex-M board, the same for every firmware port: the board's
 * free-running counter, extended to 64 bits by cm.h, read as nanoseconds
 * (rtb_port_time_ns), and set back to zero between runs
 * (rtb_fw_os_counter_restart, the console's hook in fw_console.h) so that
 * every timestamp of a run comes from one counter epoch.
 */
#include <stdint.h>

#include "board.h"
#include "cm.h"
#include "rtb_port.h"

struct cm_counter_state cm_counter_state;

void rtb_fw_os_counter_restart(void);

void rtb_fw_os_counter_restart(void)
{
	uint32_t m = cm_irq_save();

	board_counter_restart();
	cm_counter_state.last = 0;
	cm_counter_state.high = 0;
	cm_irq_restore(m);
}

uint64_t rtb_port_time_ns(void)
{
	uint64_t c = rtb_port_counter_read();
	uint64_t hz = BOARD_COUNTER_HZ;

	return (c / hz) * 1000000000ull + (c % hz) * 1000000000ull / hz;
}
