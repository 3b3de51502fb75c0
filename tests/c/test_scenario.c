/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The building blocks scenarios share (core/src/scenario.c), on the fake
 * port: rtb_wait_count() sleeps until a counter reaches a value or its
 * timeout has passed; rtb_spin_ticks() returns once the counter has moved
 * on by the ticks asked for, not before. (The amortised table is checked
 * with the emitter, in test_json.c.)
 */
#include <stdint.h>

#include "check.h"
#include "fake_port.h"
#include "rtb/core.h"

static volatile uint32_t counter;
static uint64_t bump_after; /* sleeps before "another thread" bumps the counter */

static void bump(void)
{
	if (fake_sleeps >= bump_after)
		counter++;
}

static void test_wait_count(void)
{
	/* already there: no sleep at all */
	fake_reset();
	counter = 3;
	CHECK(rtb_wait_count(&counter, 3, 1000000));
	CHECK_EQ_U64(fake_sleeps, 0);

	/* reached while waiting */
	fake_reset();
	counter = 0;
	bump_after = 5;
	fake_sleep_hook = bump;
	CHECK(rtb_wait_count(&counter, 1, 1000000000u));
	CHECK_EQ_U64(counter, 1);
	CHECK_EQ_U64(fake_sleeps, 5);

	/* never reached: gives up once the timeout has passed, 100 us a sleep */
	fake_reset();
	counter = 0;
	CHECK(!rtb_wait_count(&counter, 1, 1000000));
	CHECK_EQ_U64(fake_sleeps, 10);
	CHECK_EQ_U64(fake_time_ns, 1000000);
	fake_reset();
}

/* The last counter read of the spin is the first at or past the end: the
 * read before it was the start or still before the end. */
static void check_spin(uint64_t start, uint64_t ticks, uint64_t step)
{
	uint64_t end = start + ticks;

	fake_reset();
	fake_counter = start;
	fake_counter_step = step;
	rtb_spin_ticks(ticks);
	uint64_t last = fake_counter - step;
	CHECK((int64_t)(last - end) >= 0);
	CHECK(last - step == start || (int64_t)(last - step - end) < 0);
}

static void test_spin_ticks(void)
{
	check_spin(1000, 100, 7);
	check_spin(UINT64_MAX - 20, 100, 7); /* across a counter wrap-around */
	check_spin(5, 0, 3);
	fake_reset();
}

int main(void)
{
	test_wait_count();
	test_spin_ticks();
	return check_exit();
}
