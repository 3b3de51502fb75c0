/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tick/nanosecond conversion against exact 128-bit arithmetic for the
 * counter frequencies rtbench meets (1 GHz, 2.5 GHz TSC, 24 MHz and
 * 19.2 MHz ARM generic timers, odd measured values), up to the largest
 * representable results; the overhead calibration with the fake port's
 * scripted counter; and the counter's effective step (one that moves by 20).
 */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "fake_port.h"
#include "rtb/core.h"

typedef unsigned __int128 u128;

static uint64_t rng_state = 0x6a09e667f3bcc908u;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

static int reported;

static void check_close(const char *what, uint64_t in, uint64_t got, u128 exact, uint64_t hz)
{
	/* floor(exact) or one off: the fractional part goes through a double */
	u128 diff = got > exact ? got - exact : exact - got;

	if (diff > 1) {
		if (reported++ < 10)
			fprintf(stderr, "%s(%llu) at %llu Hz = %llu, exact %llu\n", what,
				(unsigned long long)in, (unsigned long long)hz,
				(unsigned long long)got, (unsigned long long)exact);
		check_failures++;
	}
}

static void check_hz(uint64_t hz)
{
	rtb_timing.hz = hz;
	/* largest inputs whose result still fits 64 bits */
	uint64_t max_ticks =
		hz >= 1000000000u ? UINT64_MAX : (uint64_t)((u128)UINT64_MAX * hz / 1000000000u);
	uint64_t max_ns =
		hz <= 1000000000u ? UINT64_MAX : (uint64_t)((u128)UINT64_MAX * 1000000000u / hz);

	static const uint64_t fixed[] = {0,	    1,		 2,	     999,	  1000,
					 999999999, 1000000000,	 1000000001, 2500000000u, 24000000,
					 19200000,  4294967295u, 4294967296u};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(fixed); i++) {
		uint64_t t = fixed[i];
		check_close("ticks_to_ns", t, rtb_ticks_to_ns(t), (u128)t * 1000000000u / hz, hz);
		check_close("ns_to_ticks", t, rtb_ns_to_ticks(t), (u128)t * hz / 1000000000u, hz);
	}
	for (int i = 0; i < 200000; i++) {
		uint64_t t = rng() >> (rng() % 64);
		if (t <= max_ticks)
			check_close("ticks_to_ns", t, rtb_ticks_to_ns(t),
				    (u128)t * 1000000000u / hz, hz);
		if (t <= max_ns)
			check_close("ns_to_ticks", t, rtb_ns_to_ticks(t),
				    (u128)t * hz / 1000000000u, hz);
	}
	/* at the top of the representable range */
	for (uint64_t k = 0; k < 1000; k++) {
		uint64_t t = max_ticks - k * 7919;
		check_close("ticks_to_ns", t, rtb_ticks_to_ns(t), (u128)t * 1000000000u / hz, hz);
		uint64_t n = max_ns - k * 7919;
		check_close("ns_to_ticks", n, rtb_ns_to_ticks(n), (u128)n * hz / 1000000000u, hz);
	}

	/* one second is hz ticks, exactly */
	CHECK_EQ_U64(rtb_ns_to_ticks(1000000000u), hz);
	CHECK_EQ_U64(rtb_ticks_to_ns(hz), 1000000000u);
	CHECK_EQ_U64(rtb_ticks_to_ns(hz * 3600), 3600000000000u);

	/* a round trip loses at most one tick's worth of nanoseconds */
	uint64_t tick_ns = 1000000000u / hz + 2;
	for (int i = 0; i < 10000; i++) {
		uint64_t ns = rng() >> 20;
		uint64_t back = rtb_ticks_to_ns(rtb_ns_to_ticks(ns));
		CHECK(back <= ns && ns - back <= tick_ns);
	}
}

static void test_conversions(void)
{
	static const uint64_t freqs[] = {1000000000u, 2500000000u, 2499997901u, 24000000u,
					 19200000u,   3000000000u, 1u << 20,	1000u};

	for (size_t i = 0; i < RTB_ARRAY_SIZE(freqs); i++)
		check_hz(freqs[i]);

	/* hz unknown (0): ticks are taken as nanoseconds */
	rtb_timing.hz = 0;
	CHECK_EQ_U64(rtb_ticks_to_ns(123456789), 123456789);
	CHECK_EQ_U64(rtb_ns_to_ticks(123456789), 123456789);
	CHECK_EQ_U64(rtb_ticks_to_ns(UINT64_MAX), UINT64_MAX);

	/* concrete values */
	rtb_timing.hz = 2500000000u;
	CHECK_EQ_U64(rtb_ticks_to_ns(44), 17); /* 17.6 ns, truncated */
	CHECK_EQ_U64(rtb_ns_to_ticks(1000), 2500);
	CHECK_EQ_U64(rtb_ticks_to_ns(UINT64_MAX), 7378697629483820646u);
	rtb_timing.hz = 24000000u;
	CHECK_EQ_U64(rtb_ticks_to_ns(1), 41);
	CHECK_EQ_U64(rtb_ticks_to_ns(3), 125);
	CHECK_EQ_U64(rtb_ns_to_ticks(1000000), 24000);
	rtb_timing.hz = 19200000u;
	CHECK_EQ_U64(rtb_ticks_to_ns(192), 10000);
	CHECK_EQ_U64(rtb_ns_to_ticks(UINT64_MAX), 354177486215223391u);
}

static void test_overhead(void)
{
	static const uint64_t steps[] = {0, 1, 7, 44, 1000, 123456789};

	for (size_t i = 0; i < RTB_ARRAY_SIZE(steps); i++) {
		fake_counter = 1000;
		fake_counter_step = steps[i];
		CHECK_EQ_U64(rtb_timing_measure_overhead(100), steps[i]);
		/* two reads per sample */
		CHECK_EQ_U64(fake_counter, 1000 + 200 * steps[i]);
	}
	/* wrap-around of the counter during calibration */
	fake_counter = UINT64_MAX - 10;
	fake_counter_step = 3;
	CHECK_EQ_U64(rtb_timing_measure_overhead(50), 3);
	/* no samples: no overhead */
	fake_counter_step = 5;
	CHECK_EQ_U64(rtb_timing_measure_overhead(0), 0);
	fake_counter_step = 0;
}

/* The counter's effective step, measured from varied read differences. */
static void test_step(void)
{
	struct rtb_counter_step st;

	/* a counter that moves in steps of 20 ticks (a 2 GHz TSC seen through
	 * a 100 MHz update): differences are multiples of 20 */
	fake_reset();
	fake_counter_step = 7;
	fake_counter_jitter = 61;
	fake_counter_quantum = 20;
	rtb_counter_step_measure(5000, &st);
	CHECK_EQ_U64(st.step_ticks, 20);
	CHECK_EQ_U64(st.gcd_ticks, 20);
	CHECK(st.min_diff_ticks >= 20 && st.min_diff_ticks % 20 == 0);
	CHECK(st.diffs > 1000);
	CHECK(st.agrees);

	/* declared by the port as 20, and agreeing */
	fake_counter_step_declared = 20;
	rtb_counter_step_measure(5000, &st);
	CHECK(st.agrees && st.declared_ticks == 20 && st.step_ticks == 20);
	/* declared as 40: the differences say otherwise */
	fake_counter_step_declared = 40;
	rtb_counter_step_measure(5000, &st);
	CHECK(!st.agrees);
	CHECK_EQ_U64(st.step_ticks, 20);

	/* a fine counter: any tick can show, the step is one tick even though
	 * the smallest difference (the read's own cost) is larger */
	fake_reset();
	fake_counter_step = 36;
	fake_counter_jitter = 9;
	rtb_counter_step_measure(5000, &st);
	CHECK_EQ_U64(st.step_ticks, 1);
	CHECK(st.min_diff_ticks >= 36);

	/* a counter that never moved: nothing measured, the declaration or 1 */
	fake_reset();
	rtb_counter_step_measure(100, &st);
	CHECK_EQ_U64(st.diffs, 0);
	CHECK_EQ_U64(st.step_ticks, 1);
	fake_counter_step_declared = 8;
	rtb_counter_step_measure(100, &st);
	CHECK_EQ_U64(st.step_ticks, 8);
	CHECK(!st.agrees); /* nothing confirms the declaration */
	CHECK_EQ_U64(rtb_gcd_u64(0, 12), 12);
	CHECK_EQ_U64(rtb_gcd_u64(40, 60), 20);
	fake_reset();
}

int main(void)
{
	fake_reset();
	test_conversions();
	test_overhead();
	test_step();
	return check_exit();
}
