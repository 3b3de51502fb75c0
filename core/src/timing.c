/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Counter overhead and tick conversion.
 *
 * The overhead is the minimum of many calibration samples: a timed call
 * (RTB_TIMED, rtb/sample.h), the same code every scenario's samples are
 * taken with, around a call of a function that returns at once. Every timed
 * sample subtracts it (see rtb_recorder_add_interval()). cal.timestamp
 * records the same samples, so its minimum and this are one figure.
 *
 * Samples whose two reads are written inline in a scenario's code (not yet
 * timed calls) subtract the second overhead: the minimum of back-to-back
 * inline read pairs, what their own timestamp code costs (cal.timestamp's
 * metric timestamp_inline records the same pairs). A recorder's shape says
 * which one its samples subtract (rtb_recorder_timed_calls()).
 */
#include "rtb/core.h"

struct rtb_timing rtb_timing;

RTB_TIMED(timed_nothing, int, rtb_timing_nothing(value), int value)

void rtb_timing_sample(struct rtb_span *span)
{
	(void)timed_nothing(0, span);
}

uint64_t rtb_timing_measure_overhead(uint32_t samples)
{
	uint64_t best = UINT64_MAX;
	struct rtb_span s;

	for (uint32_t i = 0; i < samples; i++) {
		rtb_timing_sample(&s);
		uint64_t d = s.t1 - s.t0;
		if (d < best)
			best = d;
	}
	return best == UINT64_MAX ? 0 : best;
}

uint64_t rtb_timing_measure_inline_overhead(uint32_t samples)
{
	uint64_t best = UINT64_MAX;
	struct rtb_span s;

	for (uint32_t i = 0; i < samples; i++) {
		rtb_timing_inline_pair(&s);
		uint64_t d = s.t1 - s.t0;
		if (d < best)
			best = d;
	}
	return best == UINT64_MAX ? 0 : best;
}

uint64_t rtb_gcd_u64(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void rtb_counter_step_measure(uint32_t samples, struct rtb_counter_step *out)
{
	uint64_t g = 0, least = UINT64_MAX, diffs = 0;

	rtb_memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < samples; i++) {
		uint64_t t0 = rtb_port_counter_read();
		/* a varying amount of work between the reads (0 .. 30 units), so
		 * the differences sample many values, not one */
		for (volatile uint32_t k = 0; k < (i * 7u) % 31u; k++) {
		}
		uint64_t d = rtb_port_counter_read() - t0;
		if (d == 0)
			continue;
		diffs++;
		least = RTB_MIN(least, d);
		g = rtb_gcd_u64(g, d);
	}
	out->declared_ticks = rtb_port_info()->counter_step_ticks;
	out->diffs = diffs;
	out->gcd_ticks = g;
	out->min_diff_ticks = diffs > 0 ? least : 0;
	out->step_ticks = g != 0 ? g : (out->declared_ticks != 0 ? out->declared_ticks : 1);
	out->agrees = out->declared_ticks == 0 || (g != 0 && g % out->declared_ticks == 0);
}

/* ticks * 1e9 / hz without overflow for any tick count below 2^64. */
uint64_t rtb_ticks_to_ns(uint64_t ticks)
{
	uint64_t hz = rtb_timing.hz != 0 ? rtb_timing.hz : 1000000000u;
	uint64_t whole = ticks / hz;
	uint64_t rest = ticks % hz;

	return whole * 1000000000u + (uint64_t)((double)rest * 1e9 / (double)hz);
}

uint64_t rtb_ns_to_ticks(uint64_t ns)
{
	uint64_t hz = rtb_timing.hz != 0 ? rtb_timing.hz : 1000000000u;
	uint64_t whole = ns / 1000000000u;
	uint64_t rest = ns % 1000000000u;

	return whole * hz + (uint64_t)((double)rest * (double)hz / 1e9);
}
