/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The building blocks scenarios share (core/src/scenario.c), on the fake
 * port: rtb_wait_count() sleeps until a counter reaches a value or its
 * timeout has passed. (The amortised table is checked with the emitter, in
 * test_json.c.)
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

int main(void)
{
	test_wait_count();
	return check_exit();
}
