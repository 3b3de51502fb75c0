/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the MEM-B-LEK decision on synthetic memory series: flat,
 * slow linear growth, a one-time step after warm-up, a late step, a
 * staircase, noise and spikes, growth during warm-up only, object leaks,
 * too few samples, a metric the port calls unreliable.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rtb/check_mem.h"

#define N 1000
#define LOOPS_PER_SAMPLE 10

static struct rtb_mem_sample s[N];
static uint64_t scratch[N];
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void flat(void)
{
	for (size_t i = 0; i < N; i++) {
		s[i].loop = i * LOOPS_PER_SAMPLE;
		s[i].time_ns = i * 1000000u;
		s[i].value[RTB_MEM_RESIDENT] = 10u << 20;
		s[i].value[RTB_MEM_HEAP] = 1u << 20;
		s[i].value[RTB_MEM_THREADS] = 2;
		s[i].value[RTB_MEM_HANDLES] = 5;
	}
}

static enum rtb_outcome decide(struct rtb_mem_decision *d)
{
	struct rtb_mem_params p;

	rtb_mem_params_default(&p);
	rtb_mem_decide(s, N, &p, scratch, d);
	CHECK(d->reason[0] != '\0');
	return d->outcome;
}

static void test_flat(void)
{
	struct rtb_mem_decision d;

	flat();
	CHECK(decide(&d) == RTB_PASS);
	CHECK_EQ_U64(d.warmup_samples, N / 10);
	for (unsigned m = 0; m < RTB_MEM_METRICS; m++) {
		CHECK(d.trend[m].shape == RTB_MEM_FLAT);
		CHECK(d.trend[m].growth == 0);
	}
}

static void test_slow_growth(void)
{
	struct rtb_mem_decision d;

	/* 16 bytes per loop: 160 KB over the run, well above the tolerance */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] += s[i].loop * 16;
	CHECK(decide(&d) == RTB_FAIL);
	CHECK(d.trend[RTB_MEM_HEAP].shape == RTB_MEM_GROWING);
	CHECK(d.trend[RTB_MEM_HEAP].per_kloop >= 15000 && d.trend[RTB_MEM_HEAP].per_kloop <= 17000);
	CHECK(strstr(d.reason, "heap grows") != NULL);
	/* the same growth in resident memory alone */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_RESIDENT] += s[i].loop * 64;
	CHECK(decide(&d) == RTB_FAIL);
	CHECK(d.trend[RTB_MEM_RESIDENT].shape == RTB_MEM_GROWING);
	/* the documented limit: growth below the tolerance over the run
	 * (2 bytes per loop, 20 KB) is not told from noise */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] += s[i].loop * 2;
	CHECK(decide(&d) == RTB_PASS);
}

static void test_one_step(void)
{
	struct rtb_mem_decision d;

	/* a pool grown once at 40 % of the run, flat afterwards */
	flat();
	for (size_t i = N * 4 / 10; i < N; i++)
		s[i].value[RTB_MEM_RESIDENT] += 1u << 20;
	CHECK(decide(&d) == RTB_PASS);
	CHECK(d.trend[RTB_MEM_RESIDENT].shape == RTB_MEM_ONE_STEP);
	CHECK(d.trend[RTB_MEM_RESIDENT].step == 1 << 20);
	CHECK(d.trend[RTB_MEM_RESIDENT].step_loop >= 3500 &&
	      d.trend[RTB_MEM_RESIDENT].step_loop <= 4500);
	CHECK(strstr(d.reason, "one-time") != NULL);
	/* a step into the last segment: no flat stretch shows it stopped */
	flat();
	for (size_t i = N * 90 / 100; i < N; i++)
		s[i].value[RTB_MEM_RESIDENT] += 1u << 20;
	CHECK(decide(&d) == RTB_FAIL);
	/* the documented limit: a change in the last half of the last
	 * segment does not move its median and is not judged */
	flat();
	for (size_t i = N * 96 / 100; i < N; i++)
		s[i].value[RTB_MEM_RESIDENT] += 1u << 20;
	CHECK(decide(&d) == RTB_PASS);
	/* a staircase: two steps are growth beyond one step */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] +=
			(i >= N * 3 / 10 ? 200000u : 0) + (i >= N * 7 / 10 ? 200000u : 0);
	CHECK(decide(&d) == RTB_FAIL);
	CHECK(d.trend[RTB_MEM_HEAP].growth == 400000);
	/* a drop is memory given back, not a leak */
	flat();
	for (size_t i = N / 2; i < N; i++)
		s[i].value[RTB_MEM_RESIDENT] -= 1u << 20;
	CHECK(decide(&d) == RTB_PASS);
}

static void test_warmup_growth(void)
{
	struct rtb_mem_decision d;

	/* growth during the first 10 % only (allocator caches filling) */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] += (i < N / 10 ? i : N / 10) * 4096;
	CHECK(decide(&d) == RTB_PASS);
	CHECK(d.trend[RTB_MEM_HEAP].shape == RTB_MEM_FLAT);
}

static void test_noise(void)
{
	struct rtb_mem_decision d;

	/* noise within the tolerance on every sample, and rare huge spikes:
	 * segment medians ignore both */
	flat();
	for (size_t i = 0; i < N; i++) {
		s[i].value[RTB_MEM_RESIDENT] += rnd() % (200 * 1024);
		s[i].value[RTB_MEM_HEAP] += rnd() % (48 * 1024);
		if (rnd() % 50 == 0)
			s[i].value[RTB_MEM_RESIDENT] += 100u << 20;
		if (rnd() % 50 == 0)
			s[i].value[RTB_MEM_THREADS] += 1;
	}
	CHECK(decide(&d) == RTB_PASS);
	/* the same noise on top of a slow leak is still a leak */
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] += s[i].loop * 32;
	CHECK(decide(&d) == RTB_FAIL);
}

static void test_objects(void)
{
	struct rtb_mem_decision d;

	/* one thread left behind every 100 loops */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_THREADS] += s[i].loop / 100;
	CHECK(decide(&d) == RTB_FAIL);
	CHECK(strstr(d.reason, "threads") != NULL);
	/* one handle left behind once, late */
	flat();
	for (size_t i = N * 90 / 100; i < N; i++)
		s[i].value[RTB_MEM_HANDLES] += 1;
	CHECK(decide(&d) == RTB_FAIL);
	/* a metric the port does not report is not judged */
	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HANDLES] = 0;
	CHECK(decide(&d) == RTB_PASS);
	CHECK(d.trend[RTB_MEM_HANDLES].shape == RTB_MEM_NOT_JUDGED);
}

static void test_too_few(void)
{
	struct rtb_mem_params p;
	struct rtb_mem_decision d;

	flat();
	rtb_mem_params_default(&p);
	rtb_mem_decide(s, 10, &p, scratch, &d);
	CHECK(d.outcome == RTB_INCONCLUSIVE);
	rtb_mem_decide(s, 0, &p, scratch, &d);
	CHECK(d.outcome == RTB_INCONCLUSIVE);
	for (size_t i = 0; i < N; i++)
		memset(s[i].value, 0, sizeof(s[i].value));
	rtb_mem_decide(s, N, &p, scratch, &d);
	CHECK(d.outcome == RTB_INCONCLUSIVE);
}

/* A metric the port calls unreliable (RSS under AddressSanitizer) is shown
 * with its levels but not judged; the others still are. */
static void test_unreliable(void)
{
	struct rtb_mem_params p;
	struct rtb_mem_decision d;

	flat();
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_RESIDENT] += s[i].loop * 4096; /* the quarantine fills */
	rtb_mem_params_default(&p);
	rtb_mem_decide(s, N, &p, scratch, &d);
	CHECK(d.outcome == RTB_FAIL); /* judged, it is a leak */
	p.unreliable = 1u << RTB_MEM_RESIDENT;
	rtb_mem_decide(s, N, &p, scratch, &d);
	CHECK(d.outcome == RTB_PASS);
	CHECK(d.trend[RTB_MEM_RESIDENT].shape == RTB_MEM_UNRELIABLE);
	CHECK(d.trend[RTB_MEM_RESIDENT].growth > 0); /* levels still computed */
	/* a real leak in the allocator's count is still caught */
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] += s[i].loop * 64;
	rtb_mem_decide(s, N, &p, scratch, &d);
	CHECK(d.outcome == RTB_FAIL);
	CHECK(strstr(d.reason, "heap grows") != NULL);
	/* nothing left to judge: inconclusive, not pass */
	for (size_t i = 0; i < N; i++)
		s[i].value[RTB_MEM_HEAP] = s[i].value[RTB_MEM_THREADS] =
			s[i].value[RTB_MEM_HANDLES] = 0;
	rtb_mem_decide(s, N, &p, scratch, &d);
	CHECK(d.outcome == RTB_INCONCLUSIVE);
	CHECK(strcmp(rtb_mem_shape_name(RTB_MEM_UNRELIABLE), "not judged in this build") == 0);
}

int main(void)
{
	test_flat();
	test_slow_growth();
	test_one_step();
	test_warmup_growth();
	test_noise();
	test_objects();
	test_too_few();
	test_unreliable();
	CHECK(strcmp(rtb_mem_metric_name(RTB_MEM_HEAP), "heap") == 0);
	CHECK(strcmp(rtb_mem_shape_name(RTB_MEM_ONE_STEP), "one-time step") == 0);
	return check_exit();
}
