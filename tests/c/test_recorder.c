/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recorder against independent computations: exact count, min, max,
 * sum and sum of squares (checked with unsigned __int128), warm-up, clamping
 * of intervals below the overhead, invalid counts, the raw series, the
 * position of the maximum, percentiles (against the exact order statistic
 * for many data shapes), mean and standard deviation (against a two-pass
 * long double computation), reset, and setting up a pair of recorders.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "rtb/core.h"

typedef unsigned __int128 u128;

static uint64_t rng_state = 0x853c49e6748fea9bu;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

/* uniform in (0, 1) */
static double unit(void)
{
	return ((double)(rng() >> 11) + 0.5) * 0x1p-53;
}

static double normal(void)
{
	return sqrt(-2.0 * log(unit())) * cos(6.283185307179586 * unit());
}

static u128 native(struct rtb_u128 v)
{
	return ((u128)v.hi << 64) | v.lo;
}

static const struct rtb_metric metric = {
	.scenario = "test.recorder",
	.label = "TEST",
	.metric = "value",
	.title = "recorder under test",
	.unit = "ticks",
};

static void init(struct rtb_recorder *r, uint32_t warmup, uint32_t raw_max)
{
	int rc = rtb_recorder_init(r, &metric, warmup, raw_max);
	CHECK(rc == RTB_OK);
	if (rc != RTB_OK)
		exit(check_exit());
}

/* ---- data shapes ----------------------------------------------------------- */

enum shape {
	CONSTANT,
	SMALL_UNIFORM,
	UNIFORM,
	WIDE_UNIFORM,
	EXPONENTIAL,
	LOGNORMAL,
	BIMODAL,
	PARETO,
	NEAR_MAX,
	POWERS_OF_TWO,
	OFFSET_NARROW,
	FEW_DISTINCT,
	SHAPES
};

static const char *const shape_names[SHAPES] = {
	"constant",	   "small uniform", "uniform",	     "wide uniform",
	"exponential",	   "lognormal",	    "bimodal",	     "pareto",
	"near UINT64_MAX", "powers of two", "offset narrow", "few distinct",
};

static uint64_t clamp_u64(double x)
{
	if (!(x > 0.0))
		return 0;
	if (x >= 18446744073709549568.0)
		return UINT64_MAX - 2047;
	return (uint64_t)x;
}

static uint64_t draw(enum shape s)
{
	switch (s) {
	case CONSTANT:
		return 1234;
	case SMALL_UNIFORM:
		return rng() % 256;
	case UNIFORM:
		return 100 + rng() % 99901;
	case WIDE_UNIFORM:
		return rng() >> 24;
	case EXPONENTIAL:
		return clamp_u64(-5000.0 * log(unit()));
	case LOGNORMAL:
		return clamp_u64(exp(8.0 + 1.5 * normal()));
	case BIMODAL:
		return rng() % 10 == 0 ? clamp_u64(50000.0 + 2000.0 * normal())
				       : clamp_u64(1000.0 + 50.0 * normal());
	case PARETO:
		return clamp_u64(1000.0 / pow(unit(), 1.0 / 1.2));
	case NEAR_MAX:
		return UINT64_MAX - rng() % 1000000;
	case POWERS_OF_TWO: {
		uint64_t p = (uint64_t)1 << (rng() % 64);
		return p + (rng() % 3) - 1;
	}
	case OFFSET_NARROW:
		return 1000000000u + rng() % 21;
	case FEW_DISTINCT: {
		static const uint64_t v[] = {3, 300, 30000, 3000000};
		return v[rng() % 4];
	}
	default:
		return 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The rank the recorder documents: the smallest k with k >= q * count. */
static uint64_t rank_of(double q, uint64_t n)
{
	double want = q * (double)n;
	uint64_t rank = (uint64_t)want;
	if ((double)rank < want)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return rank;
}

static const double quantiles[] = {0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};

static void check_data_set(enum shape s, uint32_t n)
{
	uint64_t *v = malloc(sizeof(uint64_t) * n);
	struct rtb_recorder r;
	u128 sum = 0, sum_sq = 0;
	uint64_t min = UINT64_MAX, max = 0, max_index = 0;

	init(&r, 0, n);
	for (uint32_t i = 0; i < n; i++) {
		v[i] = draw(s);
		rtb_recorder_add(&r, v[i]);
		sum += v[i];
		sum_sq += (u128)v[i] * v[i];
		if (v[i] < min)
			min = v[i];
		if (v[i] > max || i == 0) {
			max = v[i];
			max_index = i;
		}
	}
	int before = check_failures;
	CHECK_EQ_U64(r.count, n);
	CHECK_EQ_U64(r.min, min);
	CHECK_EQ_U64(r.max, max);
	CHECK_EQ_U64(r.max_index, max_index);
	CHECK(native(r.sum) == sum);
	CHECK(native(r.sum_sq) == sum_sq); /* modulo 2^128, like the reference */
	CHECK_EQ_U64(r.raw_len, n);
	CHECK(memcmp(r.raw, v, sizeof(uint64_t) * n) == 0);
	uint64_t hist_total = 0;
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
		hist_total += r.hist[i];
	CHECK_EQ_U64(hist_total, n);

	/* Mean and sample standard deviation against two passes in long double.
	 * The mean is taken as the exact integer quotient plus the fraction, so
	 * the reference keeps its precision for samples near UINT64_MAX. */
	uint64_t whole = (uint64_t)(sum / n), rest = (uint64_t)(sum % n);
	long double frac = (long double)rest / n;
	long double mean = (long double)whole + frac, m2 = 0;
	for (uint32_t i = 0; i < n; i++) {
		long double d =
			v[i] >= whole ? (long double)(v[i] - whole) : -(long double)(whole - v[i]);
		d -= frac;
		m2 += d * d;
	}
	double want_sd = n > 1 ? (double)sqrtl(m2 / (n - 1)) : 0.0;
	double got_mean = rtb_recorder_mean(&r), got_sd = rtb_recorder_stddev(&r);
	CHECK(fabs(got_mean - (double)mean) <= (double)mean * 1e-12);
	/* The recorder documents its limit: squared deviations about the mean
	 * must sum below 2^128 (here only the powers-of-two set exceeds it). */
	if (m2 < 0x1p127L && fabs(got_sd - want_sd) > want_sd * 1e-6 + 1e-9) {
		fprintf(stderr, "stddev %.9g, want %.9g\n", got_sd, want_sd);
		check_failures++;
	}

	qsort(v, n, sizeof(uint64_t), cmp_u64);
	uint64_t prev = 0;
	for (size_t k = 0; k < RTB_ARRAY_SIZE(quantiles); k++) {
		uint64_t p = rtb_recorder_percentile(&r, quantiles[k]);
		uint64_t exact = v[rank_of(quantiles[k], n) - 1];
		CHECK(p >= prev);
		CHECK(p >= min && p <= max);
		if (exact < 256) {
			CHECK_EQ_U64(p, exact);
		} else {
			uint64_t diff = p > exact ? p - exact : exact - p;
			if (diff > exact / 100) {
				fprintf(stderr, "q=%g: %llu, exact %llu\n", quantiles[k],
					(unsigned long long)p, (unsigned long long)exact);
				check_failures++;
			}
		}
		prev = p;
	}
	if (check_failures != before)
		fprintf(stderr, "  (data set: %s, %u samples)\n", shape_names[s], n);
	rtb_recorder_free(&r);
	free(v);
}

static void test_data_sets(void)
{
	static const uint32_t sizes[] = {1, 2, 3, 10, 99, 1000, 12345, 100000};

	for (int s = 0; s < SHAPES; s++) {
		for (size_t k = 0; k < RTB_ARRAY_SIZE(sizes); k++)
			check_data_set((enum shape)s, sizes[k]);
	}
}

/* ---- exact sums ---------------------------------------------------------- */

static void test_exact_sums(void)
{
	struct rtb_recorder r;

	/* one sample of UINT64_MAX: its square needs all 128 bits */
	init(&r, 0, 0);
	rtb_recorder_add(&r, UINT64_MAX);
	CHECK(native(r.sum) == UINT64_MAX);
	CHECK(native(r.sum_sq) == (u128)UINT64_MAX * UINT64_MAX);
	CHECK_EQ_U64(r.sum_sq.hi, UINT64_MAX - 1);
	CHECK_EQ_U64(r.sum_sq.lo, 1);
	/* plus small values: the sum crosses 2^64, the square sum stays exact */
	rtb_recorder_add(&r, 1);
	rtb_recorder_add(&r, 1u << 31);
	CHECK(native(r.sum) == (u128)UINT64_MAX + 1 + (1u << 31));
	CHECK(native(r.sum_sq) == (u128)UINT64_MAX * UINT64_MAX + 1 + ((u128)1 << 62));
	CHECK_EQ_U64(r.min, 1);
	CHECK_EQ_U64(r.max, UINT64_MAX);
	rtb_recorder_free(&r);

	/* a thousand samples near UINT64_MAX: the sum needs 74 bits */
	init(&r, 0, 0);
	u128 sum = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t v = UINT64_MAX - (uint64_t)i * 7;
		rtb_recorder_add(&r, v);
		sum += v;
	}
	CHECK(native(r.sum) == sum);
	CHECK(r.sum.hi == 999);
	CHECK_EQ_U64(r.min, UINT64_MAX - 999 * 7);
	rtb_recorder_free(&r);

	/* sum of squares beyond 2^64 from ordinary values (2^40 squared) */
	init(&r, 0, 0);
	u128 sq = 0;
	for (int i = 0; i < 100000; i++) {
		uint64_t v = ((uint64_t)1 << 40) + rng() % 1000000;
		rtb_recorder_add(&r, v);
		sq += (u128)v * v;
	}
	CHECK(native(r.sum_sq) == sq);
	CHECK(r.sum_sq.hi > 0);
	rtb_recorder_free(&r);
}

/* ---- warm-up, clamping, invalid, raw -------------------------------------- */

static void test_warmup(void)
{
	struct rtb_recorder r;

	init(&r, 3, 10);
	rtb_recorder_add(&r, 50);
	rtb_recorder_add(&r, 10);
	rtb_recorder_add(&r, 70);
	CHECK_EQ_U64(r.count, 0);
	CHECK_EQ_U64(r.warmup_count, 3);
	CHECK_EQ_U64(r.warmup_first, 50);
	CHECK_EQ_U64(r.warmup_min, 10);
	CHECK_EQ_U64(r.warmup_max, 70);
	CHECK(native(r.warmup_sum) == 130);
	CHECK_EQ_U64(r.raw_len, 0);
	CHECK(native(r.sum) == 0);
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
		CHECK(r.hist[i] == 0);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.5), 0);

	rtb_recorder_add(&r, 5);
	rtb_recorder_add(&r, 500);
	CHECK_EQ_U64(r.count, 2);
	CHECK_EQ_U64(r.warmup_count, 3);
	CHECK_EQ_U64(r.min, 5);
	CHECK_EQ_U64(r.max, 500);
	CHECK_EQ_U64(r.max_index, 1);
	CHECK_EQ_U64(r.raw_len, 2);
	CHECK_EQ_U64(r.raw[0], 5);
	CHECK_EQ_U64(r.raw[1], 500);
	CHECK(native(r.sum) == 505);
	CHECK_EQ_U64(r.warmup_max, 70);
	rtb_recorder_free(&r);

	CHECK_EQ_U64(rtb_warmup_for(0), 0);
	CHECK_EQ_U64(rtb_warmup_for(5), 2);
	CHECK_EQ_U64(rtb_warmup_for(20), 10);
	CHECK_EQ_U64(rtb_warmup_for(1000), 10);
	CHECK_EQ_U64(rtb_warmup_for(1999), 19);
	CHECK_EQ_U64(rtb_warmup_for(1000000), 10000);
	CHECK_EQ_U64(rtb_warmup_for((uint64_t)1 << 40), UINT32_MAX);
}

/* Each recorder subtracts the overhead of its own samples' timestamp code:
 * inline reads by default, timed calls once it is told so. */
static void test_overhead_shapes(void)
{
	struct rtb_recorder in, call;

	rtb_timing.inline_overhead_ticks = 10;
	rtb_timing.overhead_ticks = 12;
	init(&in, 0, 4);
	init(&call, 0, 4);
	rtb_recorder_timed_calls(&call);
	CHECK_EQ_U64(rtb_recorder_overhead(&in), 10);
	CHECK_EQ_U64(rtb_recorder_overhead(&call), 12);
	rtb_recorder_add_interval(&in, 100, 150);
	rtb_recorder_add_interval(&call, 100, 150);
	rtb_recorder_add_ticks(&in, 50);
	rtb_recorder_add_ticks(&call, 50);
	CHECK_EQ_U64(in.raw[0], 40);
	CHECK_EQ_U64(call.raw[0], 38);
	CHECK_EQ_U64(in.raw[1], 40);
	CHECK_EQ_U64(call.raw[1], 38);
	/* 11 ticks: above the inline overhead, below the timed-call one */
	rtb_recorder_add_interval(&in, 0, 11);
	rtb_recorder_add_interval(&call, 0, 11);
	CHECK_EQ_U64(in.raw[2], 1);
	CHECK_EQ_U64(in.clamped, 0);
	CHECK_EQ_U64(call.raw[2], 0);
	CHECK_EQ_U64(call.clamped, 1);
	/* a reset keeps the shape */
	rtb_recorder_reset(&call);
	CHECK_EQ_U64(rtb_recorder_overhead(&call), 12);
	rtb_recorder_free(&in);
	rtb_recorder_free(&call);
	rtb_timing.inline_overhead_ticks = 0;
	rtb_timing.overhead_ticks = 0;
}

static void test_clamping(void)
{
	struct rtb_recorder r;

	rtb_timing.inline_overhead_ticks = 10;
	init(&r, 2, 16);
	rtb_recorder_add_interval(&r, 100, 105); /* warm-up: 0, not counted as clamped */
	rtb_recorder_add_interval(&r, 100, 200); /* warm-up: 90 */
	CHECK_EQ_U64(r.clamped, 0);
	CHECK_EQ_U64(r.warmup_min, 0);
	CHECK_EQ_U64(r.warmup_max, 90);
	CHECK_EQ_U64(r.warmup_first, 0);

	rtb_recorder_add_interval(&r, 100, 105); /* below the overhead: 0, clamped */
	CHECK_EQ_U64(r.clamped, 1);
	rtb_recorder_add_interval(&r, 100, 110); /* exactly the overhead: 0, not clamped */
	CHECK_EQ_U64(r.clamped, 1);
	rtb_recorder_add_interval(&r, 100, 111);
	rtb_recorder_add_interval(&r, 100, 100); /* zero interval: clamped */
	CHECK_EQ_U64(r.clamped, 2);
	/* counter wrap-around: the difference is taken modulo 2^64 */
	rtb_recorder_add_interval(&r, UINT64_MAX - 4, 20);
	CHECK_EQ_U64(r.count, 5);
	CHECK_EQ_U64(r.raw[0], 0);
	CHECK_EQ_U64(r.raw[1], 0);
	CHECK_EQ_U64(r.raw[2], 1);
	CHECK_EQ_U64(r.raw[3], 0);
	CHECK_EQ_U64(r.raw[4], 15);
	CHECK_EQ_U64(r.min, 0);
	CHECK_EQ_U64(r.max, 15);
	CHECK_EQ_U64(r.hist[0], 3);
	rtb_recorder_free(&r);

	/* overhead 0: nothing is ever clamped */
	rtb_timing.inline_overhead_ticks = 0;
	init(&r, 0, 0);
	rtb_recorder_add_interval(&r, 7, 7);
	CHECK_EQ_U64(r.clamped, 0);
	CHECK_EQ_U64(r.count, 1);
	rtb_recorder_free(&r);
}

static void test_invalid(void)
{
	struct rtb_recorder r;

	init(&r, 2, 4);
	rtb_recorder_add_invalid(&r); /* during warm-up: still counted */
	CHECK_EQ_U64(r.invalid, 1);
	CHECK_EQ_U64(r.warmup_count, 0);
	rtb_recorder_add(&r, 1);
	rtb_recorder_add(&r, 2);
	rtb_recorder_add(&r, 3);
	rtb_recorder_add_invalid(&r);
	rtb_recorder_add_invalid(&r);
	CHECK_EQ_U64(r.invalid, 3);
	CHECK_EQ_U64(r.count, 1);
	CHECK_EQ_U64(r.warmup_count, 2);
	CHECK_EQ_U64(r.raw_len, 1);
	rtb_recorder_free(&r);
}

static void test_raw_series(void)
{
	struct rtb_recorder r;

	init(&r, 7, 100);
	for (uint64_t i = 0; i < 307; i++)
		rtb_recorder_add(&r, i * 3);
	CHECK_EQ_U64(r.raw_len, 100);
	CHECK_EQ_U64(r.count, 300);
	for (uint32_t i = 0; i < 100; i++)
		CHECK_EQ_U64(r.raw[i], (i + 7) * 3);
	rtb_recorder_free(&r);

	/* no raw series at all */
	init(&r, 0, 0);
	CHECK(r.raw == NULL);
	for (int i = 0; i < 10; i++)
		rtb_recorder_add(&r, (uint64_t)i);
	CHECK_EQ_U64(r.raw_len, 0);
	CHECK_EQ_U64(r.count, 10);
	rtb_recorder_free(&r);
}

static void test_max_position(void)
{
	struct rtb_recorder r;
	static const uint64_t values[] = {100, 5, 9, 3, 9, 12, 12, 1};

	fake_counter = 1000;
	fake_counter_step = 0;
	init(&r, 2, 0); /* origin: 1000 */
	for (size_t i = 0; i < RTB_ARRAY_SIZE(values); i++) {
		fake_counter = 1000 + 10 * i;
		rtb_recorder_add(&r, values[i]);
	}
	/* the warm-up's 100 does not count; the first 12 is the maximum */
	CHECK_EQ_U64(r.max, 12);
	CHECK_EQ_U64(r.max_index, 3);
	CHECK_EQ_U64(r.max_at_ticks, 50);
	rtb_recorder_free(&r);

	/* all zeros: the first sample holds the maximum */
	fake_counter = 5000;
	init(&r, 0, 0);
	fake_counter = 5007;
	rtb_recorder_add(&r, 0);
	fake_counter = 6000;
	rtb_recorder_add(&r, 0);
	CHECK_EQ_U64(r.max, 0);
	CHECK_EQ_U64(r.max_index, 0);
	CHECK_EQ_U64(r.max_at_ticks, 7);
	rtb_recorder_free(&r);
}

static void test_empty_and_single(void)
{
	struct rtb_recorder r;

	init(&r, 0, 0);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.5), 0);
	CHECK(rtb_recorder_mean(&r) == 0.0);
	CHECK(rtb_recorder_stddev(&r) == 0.0);
	rtb_recorder_add(&r, 4242);
	CHECK(rtb_recorder_mean(&r) == 4242.0);
	CHECK(rtb_recorder_stddev(&r) == 0.0);
	for (size_t k = 0; k < RTB_ARRAY_SIZE(quantiles); k++)
		CHECK_EQ_U64(rtb_recorder_percentile(&r, quantiles[k]), 4242);
	rtb_recorder_free(&r);

	/* small values: the percentile is the exact order statistic */
	init(&r, 0, 0);
	for (uint64_t i = 1; i <= 100; i++)
		rtb_recorder_add(&r, i);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.5), 50);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.9), 90);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.99), 99);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.999), 100);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.0), 1);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 1.0), 100);
	CHECK(fabs(rtb_recorder_mean(&r) - 50.5) < 1e-12);
	CHECK(fabs(rtb_recorder_stddev(&r) - 29.011491975882016) < 1e-9);
	rtb_recorder_free(&r);

	/* one bucket wider than 1: the percentile is clamped into [min, max] */
	init(&r, 0, 0);
	rtb_recorder_add(&r, 1000001);
	rtb_recorder_add(&r, 1000002);
	uint64_t p = rtb_recorder_percentile(&r, 0.5);
	CHECK(p >= 1000001 && p <= 1000002);
	rtb_recorder_free(&r);
}

static void test_reset(void)
{
	struct rtb_recorder r;

	fake_counter = 10;
	init(&r, 2, 8);
	for (uint64_t i = 0; i < 20; i++)
		rtb_recorder_add(&r, 1000 + i);
	rtb_recorder_add_invalid(&r);
	rtb_timing.inline_overhead_ticks = 5;
	rtb_recorder_add_interval(&r, 0, 1);
	fake_counter = 777;
	rtb_recorder_reset(&r);
	CHECK_EQ_U64(r.count, 0);
	CHECK_EQ_U64(r.min, UINT64_MAX);
	CHECK_EQ_U64(r.max, 0);
	CHECK_EQ_U64(r.max_index, 0);
	CHECK_EQ_U64(r.max_at_ticks, 0);
	CHECK(native(r.sum) == 0 && native(r.sum_sq) == 0);
	CHECK_EQ_U64(r.clamped, 0);
	CHECK_EQ_U64(r.invalid, 0);
	CHECK_EQ_U64(r.warmup_count, 0);
	CHECK(native(r.warmup_sum) == 0);
	CHECK_EQ_U64(r.raw_len, 0);
	CHECK_EQ_U64(r.origin_ticks, 777);
	uint64_t total = 0;
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
		total += r.hist[i];
	CHECK_EQ_U64(total, 0);
	/* configuration kept: warm-up runs again, raw series refills */
	CHECK_EQ_U64(r.warmup_target, 2);
	CHECK_EQ_U64(r.raw_max, 8);
	rtb_recorder_add(&r, 1);
	rtb_recorder_add(&r, 2);
	rtb_recorder_add(&r, 3);
	CHECK_EQ_U64(r.warmup_count, 2);
	CHECK_EQ_U64(r.count, 1);
	CHECK_EQ_U64(r.raw[0], 3);
	CHECK_EQ_U64(rtb_recorder_percentile(&r, 0.5), 3);
	CHECK(strcmp(r.m.metric, "value") == 0);
	rtb_recorder_free(&r);
	rtb_timing.inline_overhead_ticks = 0;
}

static void test_metric_params(void)
{
	struct rtb_metric m = metric;

	rtb_metric_param(&m, "waiters", 8);
	rtb_metric_param_str(&m, "protocol", "inherit");
	rtb_metric_param(&m, "negative", -5);
	rtb_metric_param(&m, "fourth", 4);
	rtb_metric_param(&m, "fifth", 5); /* beyond RTB_PARAMS_MAX: ignored */
	CHECK_EQ_U64(m.nparams, RTB_PARAMS_MAX);
	CHECK(strcmp(m.params[0].key, "waiters") == 0 && m.params[0].str == NULL &&
	      m.params[0].num == 8);
	CHECK(strcmp(m.params[1].str, "inherit") == 0);
	CHECK(m.params[2].num == -5);
	CHECK(strcmp(m.params[3].key, "fourth") == 0);
}

/* Both recorders of a pair, or neither: every allocation that can fail
 * leaves nothing allocated, and freeing either recorder stays harmless (the
 * sanitizer build reports a leak or a bad free). */
static void test_init_pair(void)
{
	struct rtb_metric mb = metric;
	struct rtb_recorder a, b;

	mb.metric = "other";
	CHECK(rtb_recorder_init_pair(&a, &metric, &b, &mb, 3, 16) == RTB_OK);
	CHECK(a.hist != NULL && a.raw != NULL && b.hist != NULL && b.raw != NULL);
	CHECK_EQ_U64(a.warmup_target, 3);
	CHECK_EQ_U64(b.raw_max, 16);
	CHECK(strcmp(b.m.metric, "other") == 0);
	rtb_recorder_free(&a);
	rtb_recorder_free(&b);

	/* each recorder allocates its buckets and its raw series */
	for (int64_t left = 0; left < 4; left++) {
		memset(&a, 0xa5, sizeof(a));
		memset(&b, 0xa5, sizeof(b));
		fake_allocs_left = left;
		CHECK(rtb_recorder_init_pair(&a, &metric, &b, &mb, 3, 16) == RTB_E_NOMEM);
		CHECK(a.hist == NULL && a.raw == NULL && b.hist == NULL && b.raw == NULL);
		rtb_recorder_free(&a);
		rtb_recorder_free(&b);
	}
	fake_allocs_left = -1;
}

int main(void)
{
	fake_reset();
	test_exact_sums();
	test_warmup();
	test_clamping();
	test_overhead_shapes();
	test_invalid();
	test_raw_series();
	test_max_position();
	test_empty_and_single();
	test_reset();
	test_metric_params();
	test_init_pair();
	test_data_sets();
	return check_exit();
}
