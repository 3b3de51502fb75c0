/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the THR behaviour decisions (core/src/check_thr.c). */
#include <string.h>

#include "check.h"
#include "rtb/check_thr.h"

static char reason[RTB_LINE_MAX];

/* ---- THR-B-NEW ------------------------------------------------------------ */

static enum rtb_outcome decide(enum rtb_thr_new_check c, bool created, bool at_create, bool before,
			       bool after)
{
	struct rtb_thr_new_obs o = {.created = created,
				    .ran_at_create_return = at_create,
				    .ran_before_handover = before,
				    .ran_after_handover = after};
	return rtb_check_thr_new(c, &o, reason, sizeof(reason));
}

static void test_new_checks(void)
{
	/* what a correct fixed-priority scheduler shows */
	CHECK(decide(RTB_THR_NEW_LOWER_WAITS, true, false, false, true) == RTB_PASS);
	CHECK(decide(RTB_THR_NEW_EQUAL_TO_TAIL, true, false, false, true) == RTB_PASS);
	CHECK(decide(RTB_THR_NEW_EQUAL_AFTER_YIELD, true, false, false, true) == RTB_PASS);
	CHECK(decide(RTB_THR_NEW_HIGHER_PREEMPTS, true, true, true, true) == RTB_PASS);

	/* lower priority ran at once, or only later, or never */
	CHECK(decide(RTB_THR_NEW_LOWER_WAITS, true, true, true, true) == RTB_FAIL);
	CHECK(strstr(reason, "before its creator blocked") != NULL);
	CHECK(decide(RTB_THR_NEW_LOWER_WAITS, true, false, true, true) == RTB_FAIL);

	/* never ran: a failure only once the creator was blocked long enough to
	 * decide; a short block (a machine that gave the platform no CPU) is
	 * inconclusive, with the figure */
	struct rtb_thr_new_obs never = {.created = true,
					.sleeps = 50,
					.blocked_ns = RTB_THR_NEW_DECIDE_NS,
					.first_block_ns = 2000000};
	CHECK(rtb_check_thr_new(RTB_THR_NEW_LOWER_WAITS, &never, reason, sizeof(reason)) ==
	      RTB_FAIL);
	CHECK(strstr(reason,
		     "did not run although its creator was blocked 100.000 ms in 50 sleeps") !=
	      NULL);
	never.blocked_ns = 2100000;
	never.sleeps = 1;
	CHECK(rtb_check_thr_new(RTB_THR_NEW_LOWER_WAITS, &never, reason, sizeof(reason)) ==
	      RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "blocked 2.100 ms in all (1 sleep): too short to decide") != NULL);
	/* ran in a later sleep: it did wait, and ran while its creator was blocked */
	struct rtb_thr_new_obs later = {.created = true,
					.ran_after_handover = true,
					.sleeps = 4,
					.blocked_ns = 9000000,
					.first_block_ns = 2500000};
	CHECK(rtb_check_thr_new(RTB_THR_NEW_LOWER_WAITS, &later, reason, sizeof(reason)) ==
	      RTB_PASS);

	/* equal priority put at the head instead of the tail */
	CHECK(decide(RTB_THR_NEW_EQUAL_TO_TAIL, true, true, true, true) == RTB_FAIL);
	CHECK(decide(RTB_THR_NEW_EQUAL_TO_TAIL, true, false, true, true) == RTB_FAIL);
	/* equal priority never scheduled by the yield */
	CHECK(decide(RTB_THR_NEW_EQUAL_AFTER_YIELD, true, false, false, false) == RTB_FAIL);
	/* higher priority not run at creation */
	CHECK(decide(RTB_THR_NEW_HIGHER_PREEMPTS, true, false, false, true) == RTB_FAIL);

	/* no thread, no verdict */
	for (int c = 0; c < RTB_THR_NEW_CHECKS; c++)
		CHECK(decide((enum rtb_thr_new_check)c, false, false, false, false) ==
		      RTB_INCONCLUSIVE);

	CHECK(strcmp(rtb_thr_new_check_name(RTB_THR_NEW_HIGHER_PREEMPTS), "higher_preempts") == 0);
	CHECK(strcmp(rtb_thr_new_check_name(RTB_THR_NEW_CHECKS), "?") == 0);
}

/* The two broken creation wrappers the scenario uses as negative controls,
 * as the observations they produce: each must fail the checks it targets. */
static void test_new_controls(void)
{
	/* eager: the creator hands the CPU to every new thread at once */
	CHECK(decide(RTB_THR_NEW_LOWER_WAITS, true, true, true, true) == RTB_FAIL);
	CHECK(decide(RTB_THR_NEW_EQUAL_TO_TAIL, true, true, true, true) == RTB_FAIL);
	/* lazy: a new thread only starts when the creator blocks */
	CHECK(decide(RTB_THR_NEW_HIGHER_PREEMPTS, true, false, false, true) == RTB_FAIL);
	CHECK(decide(RTB_THR_NEW_EQUAL_AFTER_YIELD, true, false, false, false) == RTB_FAIL);
}

static void test_landing(void)
{
	CHECK(rtb_thr_landing_of(1, 2) == RTB_THR_LANDING_HEAD);
	CHECK(rtb_thr_landing_of(2, 1) == RTB_THR_LANDING_TAIL);
	CHECK(rtb_thr_landing_of(0, 1) == RTB_THR_LANDING_UNKNOWN);
	CHECK(rtb_thr_landing_of(1, 0) == RTB_THR_LANDING_UNKNOWN);
	CHECK(rtb_thr_landing_of(3, 3) == RTB_THR_LANDING_UNKNOWN);
	CHECK(strcmp(rtb_thr_landing_name(RTB_THR_LANDING_HEAD), "head") == 0);
	CHECK(strcmp(rtb_thr_landing_name(RTB_THR_LANDING_TAIL), "tail") == 0);
	CHECK(strcmp(rtb_thr_landing_name(RTB_THR_LANDING_UNKNOWN), "unknown") == 0);
}

/* ---- THR-B-RR --------------------------------------------------------------- */

#define SEGS_MAX 256

struct script {
	struct rtb_thr_rr_segment segs[SEGS_MAX];
	uint32_t n;
	uint64_t now;
};

/* One slice of `run` ticks for `thread`, split by a gap of other activity
 * (which does not count as run time), then a 3-tick switch. */
static void slice(struct script *s, uint32_t thread, uint64_t run)
{
	uint64_t half = run / 2;

	s->segs[s->n++] = (struct rtb_thr_rr_segment){thread, s->now, s->now + half};
	s->now += half + 7;
	s->segs[s->n++] = (struct rtb_thr_rr_segment){thread, s->now, s->now + (run - half)};
	s->now += run - half + 3;
}

static enum rtb_outcome judge(const struct script *s, uint32_t k, uint64_t end, uint64_t explained,
			      struct rtb_thr_rr_summary *sum)
{
	static struct rtb_thr_rr_slice slices[64];
	struct rtb_thr_rr_params p = {.nthreads = k,
				      .end_ticks = end,
				      .explained_ticks = explained,
				      .expected_ticks = 100};

	return rtb_check_thr_rr(s->segs, s->n, &p, slices, RTB_ARRAY_SIZE(slices), sum, reason,
				sizeof(reason));
}

static void test_rr_fair(void)
{
	struct script s = {.now = 1000};
	struct rtb_thr_rr_summary sum;

	for (int round = 0; round < 3; round++)
		for (uint32_t t = 0; t < 3; t++)
			slice(&s, t, 100);
	uint64_t end = s.now;
	slice(&s, 0, 100); /* runs through the end of the run: cut short */
	/* the others see the end has passed and stop at once */
	s.segs[s.n++] = (struct rtb_thr_rr_segment){1, s.now + 2, s.now + 3};
	s.segs[s.n++] = (struct rtb_thr_rr_segment){2, s.now + 5, s.now + 6};

	CHECK(judge(&s, 3, end + 60, 0, &sum) == RTB_PASS);
	CHECK_EQ_U64(sum.nslices, 10);
	CHECK_EQ_U64(sum.complete, 9);
	CHECK_EQ_U64(sum.ignored, 2);
	CHECK_EQ_U64(sum.per_thread[0], 4);
	CHECK_EQ_U64(sum.per_thread[1], 3);
	CHECK(sum.every_thread_ran && sum.rotation_ok);
	CHECK_EQ_U64(sum.min_ticks, 100);
	CHECK_EQ_U64(sum.max_ticks, 100);
	CHECK_EQ_U64(sum.median_ticks, 100);
	CHECK_EQ_U64(sum.first_complete, 3);
	CHECK_EQ_U64(sum.later_complete, 6);
}

static void test_rr_fifo_starves(void)
{
	/* the FIFO control: thread 0 runs until the end, the others only after */
	struct script s = {.now = 50};
	struct rtb_thr_rr_summary sum;

	for (int i = 0; i < 8; i++)
		slice(&s, 0, 100);
	uint64_t end = s.now - 5;
	s.segs[s.n++] = (struct rtb_thr_rr_segment){1, s.now + 2, s.now + 3};
	s.segs[s.n++] = (struct rtb_thr_rr_segment){2, s.now + 5, s.now + 6};
	CHECK(judge(&s, 3, end, 0, &sum) == RTB_FAIL);
	CHECK(!sum.every_thread_ran);
	CHECK_EQ_U64(sum.nslices, 1);
	CHECK_EQ_U64(sum.longest_ticks, 800);
	CHECK(strstr(reason, "thread 1 never got a time slice while thread 0 kept the CPU for "
			     "8.0x") != NULL);

	/* without an expected slice the same run proves nothing */
	static struct rtb_thr_rr_slice slices[8];
	struct rtb_thr_rr_params p = {.nthreads = 3, .end_ticks = end};
	CHECK(rtb_check_thr_rr(s.segs, s.n, &p, slices, 8, &sum, reason, sizeof(reason)) ==
	      RTB_INCONCLUSIVE);
	/* nor when the long slice is within one tick of twice the expected one */
	p.expected_ticks = 350;
	p.explained_ticks = 100;
	CHECK(rtb_check_thr_rr(s.segs, s.n, &p, slices, 8, &sum, reason, sizeof(reason)) ==
	      RTB_INCONCLUSIVE);
	p.explained_ticks = 99;
	CHECK(rtb_check_thr_rr(s.segs, s.n, &p, slices, 8, &sum, reason, sizeof(reason)) ==
	      RTB_FAIL);
}

static void test_rr_too_short(void)
{
	/* a round-robin run that ended during the second slice: thread 0 did
	 * not get a turn yet, and nothing shows it was starved */
	struct script s = {.now = 0};
	struct rtb_thr_rr_summary sum;

	slice(&s, 2, 100);
	slice(&s, 1, 40);
	CHECK(judge(&s, 3, s.now - 5, 0, &sum) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "too short") != NULL);
	CHECK(!sum.every_thread_ran);
}

static void test_rr_first_slice_long(void)
{
	struct script s = {.now = 0};
	struct rtb_thr_rr_summary sum;

	for (uint32_t t = 0; t < 3; t++)
		slice(&s, t, 1000);
	for (int round = 0; round < 2; round++)
		for (uint32_t t = 0; t < 3; t++)
			slice(&s, t, 100);
	slice(&s, 0, 100);
	CHECK(judge(&s, 3, s.now - 50, 0, &sum) == RTB_FAIL);
	CHECK(strstr(reason, "10.0x") != NULL);
	CHECK(strstr(reason, "first slices after creation are the long ones") != NULL);
	CHECK_EQ_U64(sum.first_median_ticks, 1000);
	CHECK_EQ_U64(sum.later_median_ticks, 100);
}

static void test_rr_out_of_turn(void)
{
	struct script s = {.now = 0};
	struct rtb_thr_rr_summary sum;
	const uint32_t order[] = {0, 1, 2, 0, 2, 1, 0, 1};

	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(order); i++)
		slice(&s, order[i], 100);
	CHECK(judge(&s, 3, s.now - 50, 0, &sum) == RTB_FAIL);
	CHECK(!sum.rotation_ok);
	CHECK_EQ_U64(sum.rotation_break, 4);

	/* a thread that runs twice before a third one's first turn */
	struct script t = {.now = 0};
	const uint32_t early[] = {0, 1, 0, 2, 1, 0};
	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(early); i++)
		slice(&t, early[i], 100);
	CHECK(judge(&t, 3, t.now - 50, 0, &sum) == RTB_FAIL);
	CHECK_EQ_U64(sum.rotation_break, 2);
}

static void test_rr_uneven(void)
{
	struct script s = {.now = 0};
	struct rtb_thr_rr_summary sum;
	const uint64_t runs[] = {100, 100, 100, 100, 250, 100, 100};

	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(runs); i++)
		slice(&s, i % 3, runs[i]);
	/* 2.5x without explanation fails; within one tick it is explained */
	CHECK(judge(&s, 3, s.now - 50, 0, &sum) == RTB_FAIL);
	CHECK(strstr(reason, "2.5x") != NULL);
	CHECK(judge(&s, 3, s.now - 50, 200, &sum) == RTB_PASS);
	CHECK(strstr(reason, "one OS tick") != NULL);
	/* exactly 2x is allowed */
	struct script t = {.now = 0};
	const uint64_t runs2[] = {100, 200, 100, 200, 100, 200, 100};
	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(runs2); i++)
		slice(&t, i % 3, runs2[i]);
	CHECK(judge(&t, 3, t.now - 50, 0, &sum) == RTB_PASS);
}

/* One slice of `run` ticks of the thread's own in `span` ticks on the clock:
 * the rest was taken by other activity (a busy host withholding the CPU). */
static void slice_disturbed(struct script *s, uint32_t thread, uint64_t run, uint64_t span)
{
	uint64_t half = run / 2;

	s->segs[s->n++] = (struct rtb_thr_rr_segment){thread, s->now, s->now + half};
	s->now += half + (span - run);
	s->segs[s->n++] = (struct rtb_thr_rr_segment){thread, s->now, s->now + (run - half)};
	s->now += run - half + 3;
}

static void test_rr_disturbed(void)
{
	struct script s = {.now = 0};
	struct rtb_thr_rr_summary sum;

	/* slices of equal length on the clock, one of them mostly taken by
	 * other activity: the run times differ by 4x, the OS's slices do not */
	for (uint32_t i = 0; i < 7; i++) {
		if (i == 4)
			slice_disturbed(&s, i % 3, 25, 100);
		else
			slice_disturbed(&s, i % 3, 100, 107);
	}
	CHECK(judge(&s, 3, s.now - 50, 0, &sum) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "differ by 4.0x in the time each thread ran") != NULL);
	CHECK(strstr(reason, "only by 1.1x on the clock") != NULL);
	CHECK_EQ_U64(sum.min_span_ticks, 100);
	CHECK_EQ_U64(sum.max_span_ticks, 107);

	/* the OS gives one slice 4x the others on the clock too: unfair */
	struct script t = {.now = 0};
	for (uint32_t i = 0; i < 7; i++)
		slice_disturbed(&t, i % 3, i == 4 ? 400 : 100, i == 4 ? 407 : 107);
	CHECK(judge(&t, 3, t.now - 50, 0, &sum) == RTB_FAIL);
}

static void test_rr_edges(void)
{
	struct rtb_thr_rr_summary sum;
	struct script s = {.now = 0};

	/* nothing ran */
	CHECK(judge(&s, 3, 100, 0, &sum) == RTB_INCONCLUSIVE);
	/* every thread ran once, the run ended during the second turn of 0 */
	for (uint32_t t = 0; t < 3; t++)
		slice(&s, t, 100);
	slice(&s, 0, 100);
	CHECK(judge(&s, 3, s.now - 50, 0, &sum) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "too short") != NULL);
	/* bad thread counts */
	CHECK(judge(&s, 1, s.now, 0, &sum) == RTB_INCONCLUSIVE);
	CHECK(judge(&s, RTB_THR_RR_THREADS_MAX + 1, s.now, 0, &sum) == RTB_INCONCLUSIVE);

	/* segments of a thread outside the observed set are ignored */
	struct script u = {.now = 0};
	for (int round = 0; round < 3; round++)
		for (uint32_t t = 0; t < 2; t++)
			slice(&u, t, 100);
	u.segs[u.n++] = (struct rtb_thr_rr_segment){7, u.now, u.now + 5};
	CHECK(judge(&u, 2, u.now + 100, 0, &sum) == RTB_PASS);
	CHECK_EQ_U64(sum.ignored, 1);

	/* a caller array too small keeps the count of what did not fit */
	struct rtb_thr_rr_slice few[4];
	struct rtb_thr_rr_params p = {.nthreads = 2, .end_ticks = u.now + 100};
	rtb_check_thr_rr(u.segs, u.n, &p, few, 4, &sum, reason, sizeof(reason));
	CHECK_EQ_U64(sum.nslices, 4);
	CHECK_EQ_U64(sum.truncated, 2);
}

static void test_rr_merge(void)
{
	const struct rtb_thr_rr_segment a[] = {{0, 0, 10}, {0, 40, 50}, {0, 80, 90}};
	const struct rtb_thr_rr_segment b[] = {{1, 20, 30}, {1, 60, 70}};
	const struct rtb_thr_rr_segment c[] = {{2, 30, 35}};
	const struct rtb_thr_rr_segment *const lists[] = {a, b, c};
	const uint32_t counts[] = {3, 2, 1};
	struct rtb_thr_rr_segment out[8];

	uint32_t n = rtb_thr_rr_merge(lists, counts, 3, out, 8);
	CHECK_EQ_U64(n, 6);
	const uint64_t starts[] = {0, 20, 30, 40, 60, 80};
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ_U64(out[i].start, starts[i]);
	CHECK_EQ_U64(out[2].thread, 2);
	CHECK_EQ_U64(rtb_thr_rr_merge(lists, counts, 3, out, 4), 4);
}

int main(void)
{
	test_new_checks();
	test_new_controls();
	test_landing();
	test_rr_fair();
	test_rr_fifo_starves();
	test_rr_too_short();
	test_rr_first_slice_long();
	test_rr_out_of_turn();
	test_rr_uneven();
	test_rr_disturbed();
	test_rr_edges();
	test_rr_merge();
	return check_exit();
}
