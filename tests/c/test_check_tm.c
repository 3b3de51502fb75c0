/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the Thread-Metric fairness decisions with the counters a
 * fair and an unfair platform leave: cooperative threads stopped at every
 * point of a round, one that relinquishes only every second turn, one that
 * starved; a preemption chain stopped at every point of a pass, one that
 * lost resumes, one whose resume did not preempt; malformed observations.
 */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "rtb/check_tm.h"

#define N 5
#define PERIODS 3

static char reason[RTB_LINE_MAX];

/* Cooperative round robin stopped after `turns` turns in all: thread i has
 * had turns / N turns plus one if it comes before the round's stop point. */
static void coop_after(uint64_t *c, uint64_t turns)
{
	for (uint32_t i = 0; i < N; i++)
		c[i] = turns / N + (i < turns % N ? 1 : 0);
}

/* A chain stopped after `runs` thread runs: a pass runs the highest (N-1)
 * first and the lowest (0) last. */
static void chain_after(uint64_t *c, uint64_t runs)
{
	for (uint32_t k = 0; k < N; k++) {
		uint32_t position = N - 1 - k; /* order within a pass */
		c[k] = runs / N + (position < runs % N ? 1 : 0);
	}
}

static void test_coop_fair(void)
{
	uint64_t c[PERIODS * N];

	/* stopped at every point of a round, in every period */
	for (uint64_t stop = 0; stop < N; stop++) {
		coop_after(c, 1000 + stop);
		coop_after(c + N, 5000 + (stop + 2) % N);
		coop_after(c + 2 * N, 9000 + (stop + 4) % N);
		CHECK(rtb_check_tm_coop(c, N, PERIODS, reason, sizeof(reason)) == RTB_PASS);
		CHECK(strstr(reason, "within 1") != NULL);
	}
	/* the first thread to run need not be thread 0 */
	uint64_t rotated[N] = {7, 8, 8, 7, 7};
	CHECK(rtb_check_tm_coop(rotated, N, 1, reason, sizeof(reason)) == RTB_PASS);
}

static void test_coop_unfair(void)
{
	uint64_t c[PERIODS * N];

	/* thread 0 relinquishes only every second turn: twice the others */
	for (uint32_t p = 0; p < PERIODS; p++) {
		for (uint32_t i = 0; i < N; i++)
			c[p * N + i] = (p + 1) * 1000u;
		c[p * N] = (p + 1) * 2000u;
	}
	CHECK(rtb_check_tm_coop(c, N, PERIODS, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "period 1: thread 0 had 2000 turns") != NULL);

	/* fair for two periods, then one thread falls two behind */
	coop_after(c, 100);
	coop_after(c + N, 200);
	coop_after(c + 2 * N, 300);
	c[2 * N + 3] -= 2;
	CHECK(rtb_check_tm_coop(c, N, PERIODS, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "period 3") != NULL);
	CHECK(strstr(reason, "thread 3 58") != NULL);

	/* one thread never ran at all */
	uint64_t starved[N] = {500, 500, 0, 500, 500};
	CHECK(rtb_check_tm_coop(starved, N, 1, reason, sizeof(reason)) == RTB_FAIL);
}

static void test_coop_inconclusive(void)
{
	uint64_t c[N] = {0, 0, 0, 0, 0};

	/* nothing ran: equal counters prove nothing */
	CHECK(rtb_check_tm_coop(c, N, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "too few") != NULL);
	coop_after(c, 2 * N - 1); /* thread 4 had only one turn */
	CHECK(rtb_check_tm_coop(c, N, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	coop_after(c, 2 * N);
	CHECK(rtb_check_tm_coop(c, N, 1, reason, sizeof(reason)) == RTB_PASS);
	/* malformed */
	CHECK(rtb_check_tm_coop(c, N, 0, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(rtb_check_tm_coop(NULL, N, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(rtb_check_tm_coop(c, 1, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(rtb_check_tm_coop(c, RTB_TM_THREADS_MAX + 1, 1, reason, sizeof(reason)) ==
	      RTB_INCONCLUSIVE);
	/* a failure is a failure even when the run was short */
	uint64_t short_unfair[N] = {3, 0, 0, 0, 0};
	CHECK(rtb_check_tm_coop(short_unfair, N, 1, reason, sizeof(reason)) == RTB_FAIL);
}

/*
 * A model of an OS that takes turns away: a ready list walked in a circle
 * (as FreeRTOS does), threads that take a ticket and count (the counted run's
 * turn, rtb_tm_turn_lost() deciding), then relinquish; after `slice_every`
 * visits and up to as many again (at random), the thread that has the CPU is
 * sent on without relinquishing, before or after its count. unfair: thread 0
 * relinquishes every second turn.
 * Fills the counts and lost turns at the end of `periods` periods of
 * `visits` visits each.
 */
static void sliced_model(uint64_t *c, uint64_t *lost, uint32_t periods, uint32_t visits,
			 uint32_t slice_every, bool unfair)
{
	uint32_t tickets = 0, last[N] = {0}, turns[N] = {0}, lost_now[N] = {0};
	bool counted[N] = {false}; /* counted, its relinquish still to come */
	uint64_t rng = 99;
	uint32_t cur = 0, since_slice = 0, next_slice = slice_every;

	for (uint32_t p = 0; p < periods; p++) {
		for (uint32_t v = 0; v < visits; v++, cur = (cur + 1) % N) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			bool slice = ++since_slice >= next_slice;
			bool before = slice && (rng >> 40) % 2 == 0;
			if (slice) {
				since_slice = 0;
				next_slice =
					slice_every + (uint32_t)((rng >> 20) % (slice_every + 1u));
			}
			if (counted[cur]) { /* back where it was sent on: relinquishes */
				counted[cur] = false;
				continue;
			}
			if (before)
				continue;
			for (int k = 0; k < (unfair && cur == 0 ? 2 : 1); k++) {
				uint32_t ticket = tickets++;
				if (turns[cur] > 0 && rtb_tm_turn_lost(ticket - last[cur] - 1, N))
					lost_now[cur]++;
				last[cur] = ticket;
				turns[cur]++;
			}
			counted[cur] = slice;
		}
		for (uint32_t i = 0; i < N; i++) {
			c[p * N + i] = turns[i];
			lost[p * N + i] = lost_now[i];
		}
	}
}

static void test_coop_counted(void)
{
	uint64_t c[PERIODS * N], lost[PERIODS * N];

	/* slices far apart: the plain check fails, every lost turn is seen */
	for (uint32_t every = 40; every < 100; every += 7) {
		sliced_model(c, lost, PERIODS, 20011, every, false);
		CHECK(rtb_check_tm_coop(c, N, PERIODS, reason, sizeof(reason)) == RTB_FAIL);
		CHECK(rtb_check_tm_coop_counted(c, lost, N, PERIODS, reason, sizeof(reason)) ==
		      RTB_PASS);
		CHECK(strstr(reason, "took away") != NULL);
	}
	/* the same with thread 0 relinquishing every second turn */
	sliced_model(c, lost, PERIODS, 20011, 47, true);
	CHECK(rtb_check_tm_coop_counted(c, lost, N, PERIODS, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "thread 0") != NULL);
	/* no slicing: nothing lost, the same as the plain check */
	sliced_model(c, lost, PERIODS, 20011, UINT32_MAX, false);
	CHECK(rtb_check_tm_coop_counted(c, lost, N, PERIODS, reason, sizeof(reason)) == RTB_PASS);
	CHECK(lost[PERIODS * N - 1] == 0);
	/* a relinquish that does nothing: lost turns cannot cover the gap */
	uint64_t noop[N] = {900, 40, 40, 40, 40}, noop_lost[N] = {0, 1, 1, 1, 1};
	CHECK(rtb_check_tm_coop_counted(noop, noop_lost, N, 1, reason, sizeof(reason)) == RTB_FAIL);
	/* slices at every other visit: too often to count each */
	sliced_model(c, lost, PERIODS, 20011, 3, false);
	CHECK(rtb_check_tm_coop_counted(c, lost, N, PERIODS, reason, sizeof(reason)) ==
	      RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "too often") != NULL);
	CHECK(rtb_check_tm_coop_counted(c, NULL, N, PERIODS, reason, sizeof(reason)) ==
	      RTB_INCONCLUSIVE);
}

static void test_chain_fair(void)
{
	uint64_t c[PERIODS * N];

	for (uint64_t stop = 0; stop < N; stop++) {
		chain_after(c, 10000 + stop);
		chain_after(c + N, 20000 + (stop + 1) % N);
		chain_after(c + 2 * N, 30000 + (stop + 3) % N);
		CHECK(rtb_check_tm_chain(c, N, PERIODS, reason, sizeof(reason)) == RTB_PASS);
		CHECK(strstr(reason, "3 periods") != NULL);
	}
}

static void test_chain_unfair(void)
{
	uint64_t c[PERIODS * N];

	/* thread 2 loses every second resume of thread 3: 3 and 4 run half
	 * as often */
	for (uint32_t p = 0; p < PERIODS; p++) {
		for (uint32_t k = 0; k < N; k++)
			c[p * N + k] = k < 3 ? (p + 1) * 1000u : (p + 1) * 500u;
	}
	CHECK(rtb_check_tm_chain(c, N, PERIODS, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "period 1: thread 2 ran 1000 times but thread 3") != NULL);

	/* the resume did not preempt: the lowest thread runs ahead of the
	 * one it resumed, even by one */
	uint64_t ahead[N] = {101, 100, 100, 100, 100};
	CHECK(rtb_check_tm_chain(ahead, N, 1, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "thread 0 ran 101 times") != NULL);

	/* in order but two passes apart: a pass skipped the lower threads */
	uint64_t apart[N] = {100, 100, 101, 102, 102};
	CHECK(rtb_check_tm_chain(apart, N, 1, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "more than 1 apart") != NULL);

	/* fair in period 1, broken in period 2 */
	chain_after(c, 503);
	for (uint32_t k = 0; k < N; k++)
		c[N + k] = 1000;
	c[N + 1] = 1001;
	CHECK(rtb_check_tm_chain(c, N, 2, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "period 2") != NULL);
}

static void test_chain_inconclusive(void)
{
	uint64_t c[N] = {0, 0, 0, 0, 0};

	CHECK(rtb_check_tm_chain(c, N, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	chain_after(c, 2 * N - 1);
	CHECK(rtb_check_tm_chain(c, N, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "thread 0 completed only 1 turns") != NULL);
	chain_after(c, 2 * N);
	CHECK(rtb_check_tm_chain(c, N, 1, reason, sizeof(reason)) == RTB_PASS);
	CHECK(rtb_check_tm_chain(c, N, 0, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(rtb_check_tm_chain(c, 0, 1, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
}

static void test_counts_text(void)
{
	uint64_t c[N] = {12, 12, 11, 11, 11};
	char buf[64], tiny[6];

	rtb_tm_counts_text(buf, sizeof(buf), c, N);
	CHECK(strcmp(buf, "12 12 11 11 11") == 0);
	rtb_tm_counts_text(tiny, sizeof(tiny), c, N);
	CHECK(strlen(tiny) < sizeof(tiny));
	CHECK(strncmp(tiny, "12 12", 5) == 0);
}

int main(void)
{
	test_coop_fair();
	test_coop_unfair();
	test_coop_inconclusive();
	test_coop_counted();
	test_chain_fair();
	test_chain_unfair();
	test_chain_inconclusive();
	test_counts_text();
	return check_exit();
}
