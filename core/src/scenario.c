/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building blocks several scenario families share: waiting for threads that
 * may not run as expected, keeping the CPU busy for a while, and the
 * "amortised" cross-check table. None of them belongs on a timed path.
 */
#include "rtb/core.h"

bool rtb_wait_count(volatile uint32_t *counter, uint32_t want, uint64_t timeout_ns)
{
	uint64_t end = rtb_port_time_ns() + timeout_ns;

	while (*counter < want) {
		if (rtb_port_time_ns() >= end)
			return false;
		rtb_port_sleep_ns(100000);
	}
	return true;
}

void rtb_spin_ticks(uint64_t ticks)
{
	uint64_t end = rtb_port_counter_read() + ticks;

	while ((int64_t)(rtb_port_counter_read() - end) < 0)
		rtb_port_cpu_relax();
}

struct rtb_json *rtb_amortised_begin(const char *scenario)
{
	static const struct rtb_column cols[] = {
		{"operation", ""}, {"calls", "count"}, {"total", "ticks"}, {"per_call", "ticks"}};

	return rtb_table_begin(scenario, "amortised",
			       "Cross-check: operation cost amortised over many back-to-back calls",
			       cols, RTB_ARRAY_SIZE(cols));
}

void rtb_amortised_row(struct rtb_json *j, const char *operation, uint64_t calls, uint64_t ticks)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, operation);
	rtb_json_u64(j, calls);
	rtb_json_u64(j, ticks);
	if (calls > 0)
		rtb_json_dbl(j, (double)ticks / (double)calls);
	else
		rtb_json_null(j);
	rtb_json_arr_end(j);
}
