/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The samples the recorder keeps whole: the worst RTB_KEEP_WORST are
 * exactly the top of a known sequence (checked against a full sort, ties
 * broken by the earlier index, with their start and stop readings), warm-up
 * samples are never kept, the clock of each kind of add, the spread samples
 * are evenly spaced over the whole run, the ones near the median are the
 * nearest, reset forgets them, and the result record carries them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "rtb/core.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

static const struct rtb_metric metric = {
	.scenario = "test.kept",
	.metric = "value",
	.title = "kept samples under test",
	.unit = "ticks",
};

struct ref {
	uint64_t value, index, start;
};

/* value descending, then index ascending: the recorder's order */
static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index);
}

/* n samples drawn from `range` values (small ranges give many ties). */
static void check_top(uint32_t n, uint64_t range, uint32_t warmup)
{
	struct rtb_recorder r;
	struct ref *all = calloc(n, sizeof(*all));
	uint64_t t = 1000;

	CHECK(all != NULL);
	if (all == NULL || rtb_recorder_init(&r, &metric, warmup, 0) != RTB_OK) {
		free(all);
		CHECK(false);
		return;
	}
	rtb_timing.inline_overhead_ticks = 0;
	for (uint32_t i = 0; i < warmup; i++) {
		/* warm-up samples are larger than any counted one: never kept */
		rtb_recorder_add_interval(&r, t, t + range + 100 + i);
		t += range + 200;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = rng() % range;
		all[i] = (struct ref){v, i, t};
		rtb_recorder_add_interval(&r, t, t + v);
		t += v + 1 + rng() % 7;
	}
	qsort(all, n, sizeof(*all), ref_cmp);

	struct rtb_kept_sample got[RTB_KEEP_WORST + 2];
	uint32_t k = rtb_recorder_worst(&r, got, RTB_KEEP_WORST + 2);
	CHECK_EQ_U64(k, n < RTB_KEEP_WORST ? n : RTB_KEEP_WORST);
	for (uint32_t i = 0; i < k; i++) {
		CHECK_EQ_U64(got[i].value, all[i].value);
		CHECK_EQ_U64(got[i].index, all[i].index);
		CHECK_EQ_U64(got[i].start, all[i].start);
		CHECK_EQ_U64(got[i].stop, all[i].start + all[i].value);
		CHECK_EQ_U64(got[i].clock, RTB_SPAN_COUNTER);
	}
	if (n > 0)
		CHECK_EQ_U64(got[0].value, r.max);
	rtb_recorder_free(&r);
	free(all);
}

static void test_top_of_known_sequences(void)
{
	check_top(0, 10, 0);
	check_top(1, 10, 0);
	check_top(5, 1000, 3);
	check_top(8, 1000, 0);
	check_top(9, 1000, 0);
	check_top(1000, 1000000, 10);
	check_top(5000, 3, 20); /* nearly all ties: the earliest are kept */
	check_top(20000, 1u << 30, 100);
}

/* An ascending sequence replaces the heap's root every time; a descending
 * one never after the first RTB_KEEP_WORST. */
static void test_monotonic(void)
{
	struct rtb_recorder r;
	struct rtb_kept_sample got[RTB_KEEP_WORST];

	CHECK(rtb_recorder_init(&r, &metric, 0, 0) == RTB_OK);
	for (uint64_t i = 0; i < 100; i++)
		rtb_recorder_add(&r, i);
	CHECK_EQ_U64(rtb_recorder_worst(&r, got, RTB_KEEP_WORST), RTB_KEEP_WORST);
	for (uint32_t i = 0; i < RTB_KEEP_WORST; i++) {
		CHECK_EQ_U64(got[i].value, 99 - i);
		CHECK_EQ_U64(got[i].clock, RTB_SPAN_NONE);
	}
	rtb_recorder_reset(&r);
	CHECK_EQ_U64(rtb_recorder_worst(&r, got, RTB_KEEP_WORST), 0);
	for (uint64_t i = 0; i < 100; i++)
		rtb_recorder_add(&r, 1000 - i);
	CHECK_EQ_U64(rtb_recorder_worst(&r, got, RTB_KEEP_WORST), RTB_KEEP_WORST);
	for (uint32_t i = 0; i < RTB_KEEP_WORST; i++) {
		CHECK_EQ_U64(got[i].value, 1000 - i);
		CHECK_EQ_U64(got[i].index, i);
	}
	rtb_recorder_free(&r);
}

static void test_clocks(void)
{
	struct rtb_recorder r;
	struct rtb_kept_sample got[3];

	CHECK(rtb_recorder_init(&r, &metric, 0, 0) == RTB_OK);
	rtb_timing.inline_overhead_ticks = 5;
	rtb_recorder_add_interval(&r, 100, 400); /* 295, counter */
	rtb_recorder_add_ticks(&r, 205);	 /* 200, no readings */
	rtb_recorder_add_span(&r, 250, 7000, 7300, RTB_SPAN_TIME_NS);
	rtb_recorder_add_interval(&r, 10, 12); /* below the overhead: 0, clamped */
	CHECK_EQ_U64(r.clamped, 1);
	CHECK_EQ_U64(rtb_recorder_worst(&r, got, 3), 3);
	CHECK_EQ_U64(got[0].value, 295);
	CHECK_EQ_U64(got[0].clock, RTB_SPAN_COUNTER);
	CHECK_EQ_U64(got[0].start, 100);
	CHECK_EQ_U64(got[0].stop, 400);
	CHECK_EQ_U64(got[1].value, 250);
	CHECK_EQ_U64(got[1].clock, RTB_SPAN_TIME_NS);
	CHECK_EQ_U64(got[1].start, 7000);
	CHECK_EQ_U64(got[1].stop, 7300);
	CHECK_EQ_U64(got[2].value, 200);
	CHECK_EQ_U64(got[2].clock, RTB_SPAN_NONE);
	rtb_timing.inline_overhead_ticks = 0;
	rtb_recorder_free(&r);
}

/* The spread samples are every stride-th one over the whole run, and the
 * ones near the median are the closest of them. */
static void test_spread_and_median(void)
{
	struct rtb_recorder r;
	const uint64_t n = 10000;

	CHECK(rtb_recorder_init(&r, &metric, 0, 0) == RTB_OK);
	for (uint64_t i = 0; i < n; i++)
		rtb_recorder_add(&r, (i * 7919) % n); /* a permutation of 0..n-1 */
	CHECK(r.nspread >= RTB_KEEP_SPREAD / 2);
	CHECK(r.nspread <= RTB_KEEP_SPREAD);
	for (uint32_t i = 0; i < r.nspread; i++)
		CHECK_EQ_U64(r.spread[i].index, i * r.spread_stride);
	/* the last kept one is within one stride of the end: the whole run */
	CHECK(r.spread[r.nspread - 1].index + r.spread_stride >= n);

	uint64_t median = 5000;
	struct rtb_kept_sample near[RTB_KEEP_MEDIAN];
	uint32_t k = rtb_recorder_near(&r, median, near, RTB_KEEP_MEDIAN);
	CHECK_EQ_U64(k, RTB_KEEP_MEDIAN);
	/* reference: distances of every spread sample, sorted */
	uint64_t d[RTB_KEEP_SPREAD];
	for (uint32_t i = 0; i < r.nspread; i++) {
		uint64_t v = r.spread[i].value;
		d[i] = v > median ? v - median : median - v;
	}
	rtb_sort_u64(d, r.nspread);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t v = near[i].value;
		CHECK_EQ_U64(v > median ? v - median : median - v, d[i]);
	}
	rtb_recorder_free(&r);
}

static void test_result_record(void)
{
	struct rtb_recorder r;

	fake_reset();
	CHECK(rtb_recorder_init(&r, &metric, 0, 0) == RTB_OK);
	rtb_timing.inline_overhead_ticks = 0;
	rtb_recorder_add_interval(&r, 500, 1700);
	rtb_recorder_add_interval(&r, 2000, 2100);
	rtb_emit_result(&r);
	CHECK(strstr(fake_console, "\"spans\":{\"worst\":[{\"index\":0,\"value\":1200,"
				   "\"clock\":\"counter\",\"start\":500,\"stop\":1700},"
				   "{\"index\":1,\"value\":100,") != NULL);
	CHECK(strstr(fake_console, "\"median\":[") != NULL);
	/* a recorder without samples emits no spans */
	fake_reset();
	rtb_recorder_reset(&r);
	rtb_emit_result(&r);
	CHECK(strstr(fake_console, "\"spans\"") == NULL);
	rtb_recorder_free(&r);
}

int main(void)
{
	fake_reset();
	test_top_of_known_sequences();
	test_monotonic();
	test_clocks();
	test_spread_and_median();
	test_result_record();
	return check_exit();
}
