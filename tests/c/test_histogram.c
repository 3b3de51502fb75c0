/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log-linear histogram: every uint64 value has exactly one bucket, the
 * buckets tile [0, UINT64_MAX] without gap or overlap in index order, values
 * below 256 are exact, and above 256 a bucket is at most 1/128 of its lower
 * bound wide.
 */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "fake_port.h"
#include "rtb/core.h"

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

static int lands_failures;

/* v's bucket contains v; the neighbouring buckets do not. */
static void check_lands(uint64_t v)
{
	uint32_t i = rtb_hist_index(v);
	bool ok = i < RTB_HIST_BUCKETS && rtb_hist_lower(i) <= v && v <= rtb_hist_upper(i);

	if (ok && i > 0)
		ok = rtb_hist_upper(i - 1) < v;
	if (ok && i + 1 < RTB_HIST_BUCKETS)
		ok = rtb_hist_lower(i + 1) > v;
	if (!ok && lands_failures++ < 10) {
		fprintf(stderr, "value %llu: index %u [%llu, %llu]\n", (unsigned long long)v, i,
			(unsigned long long)rtb_hist_lower(i),
			(unsigned long long)rtb_hist_upper(i));
		check_failures++;
	}
}

static void test_small_values_exact(void)
{
	for (uint64_t v = 0; v < 256; v++) {
		CHECK_EQ_U64(rtb_hist_index(v), v);
		CHECK_EQ_U64(rtb_hist_lower((uint32_t)v), v);
		CHECK_EQ_U64(rtb_hist_upper((uint32_t)v), v);
	}
	CHECK_EQ_U64(rtb_hist_index(256), 256);
	CHECK_EQ_U64(rtb_hist_lower(256), 256);
	CHECK_EQ_U64(rtb_hist_upper(256), 257);
}

static void test_tiling(void)
{
	CHECK_EQ_U64(rtb_hist_lower(0), 0);
	CHECK_EQ_U64(rtb_hist_upper(RTB_HIST_BUCKETS - 1), UINT64_MAX);
	CHECK_EQ_U64(rtb_hist_index(UINT64_MAX), RTB_HIST_BUCKETS - 1);
	uint32_t gaps = 0, wide = 0;
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++) {
		uint64_t lo = rtb_hist_lower(i), hi = rtb_hist_upper(i);
		if (lo > hi || (i > 0 && lo != rtb_hist_upper(i - 1) + 1)) {
			if (gaps++ < 10)
				fprintf(stderr, "bucket %u [%llu, %llu] does not follow %llu\n", i,
					(unsigned long long)lo, (unsigned long long)hi,
					(unsigned long long)rtb_hist_upper(i - 1));
		}
		/* index round trip at both edges of every bucket */
		CHECK_EQ_U64(rtb_hist_index(lo), i);
		CHECK_EQ_U64(rtb_hist_index(hi), i);
		if (lo >= 256) {
			/* 128 * width <= lower, i.e. width <= floor(lower / 128) */
			uint64_t width = hi - lo + 1;
			if (width > lo / 128) {
				if (wide++ < 10)
					fprintf(stderr,
						"bucket %u [%llu, %llu] is wider than 1/128\n", i,
						(unsigned long long)lo, (unsigned long long)hi);
			}
		}
	}
	CHECK(gaps == 0);
	CHECK(wide == 0);
}

static void test_edges(void)
{
	static const uint64_t fixed[] = {0,
					 1,
					 2,
					 127,
					 128,
					 255,
					 256,
					 257,
					 258,
					 511,
					 512,
					 513,
					 UINT64_MAX,
					 UINT64_MAX - 1,
					 UINT64_MAX / 2,
					 UINT64_MAX / 2 + 1};

	for (size_t i = 0; i < RTB_ARRAY_SIZE(fixed); i++)
		check_lands(fixed[i]);
	for (unsigned b = 0; b < 64; b++) {
		uint64_t p = (uint64_t)1 << b;
		check_lands(p);
		check_lands(p - 1);
		check_lands(p + 1);
		check_lands(p + p / 2);
		check_lands(p | (p - 1));
	}
	/* a power of two starts a bucket, the value before it ends one */
	for (unsigned b = 9; b < 64; b++) {
		uint64_t p = (uint64_t)1 << b;
		CHECK_EQ_U64(rtb_hist_lower(rtb_hist_index(p)), p);
		CHECK_EQ_U64(rtb_hist_upper(rtb_hist_index(p - 1)), p - 1);
		CHECK_EQ_U64(rtb_hist_index(p), rtb_hist_index(p - 1) + 1);
	}
}

static void test_random(void)
{
	for (int i = 0; i < 1000000; i++)
		check_lands(rng() >> (rng() % 64));
	CHECK(lands_failures == 0);
}

static void test_monotone(void)
{
	/* index never decreases as the value grows */
	uint64_t v = 0;
	uint32_t prev = 0;
	while (v < UINT64_MAX / 2) {
		uint32_t i = rtb_hist_index(v);
		CHECK(i >= prev);
		prev = i;
		v += 1 + v / 1000;
	}
}

int main(void)
{
	fake_reset();
	CHECK_EQ_U64(RTB_HIST_BUCKETS, (64 - RTB_HIST_SUB_BITS + 2) << (RTB_HIST_SUB_BITS - 1));
	test_small_values_exact();
	test_tiling();
	test_edges();
	test_random();
	test_monotone();
	return check_exit();
}
