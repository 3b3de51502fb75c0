/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the SEM behaviour decisions with good and misbehaving
 * observation sequences. */
#include <string.h>

#include "check.h"
#include "rtb/check_sem.h"

static char reason[RTB_LINE_MAX];

static struct rtb_sem_lock_obs good_lock(void)
{
	struct rtb_sem_lock_obs o = {
		.helper_ran = true,
		.waits_positive = 5,
		.waits_positive_done = 5,
		.value_after_waits = 0,
		.zero_wait_blocked = true,
		.released_in_signal = true,
		.released = true,
		.value_after_release = 0,
		.signals = 3,
		.value_after_signals = 3,
	};
	return o;
}

static void test_lock(void)
{
	struct rtb_sem_lock_obs o = good_lock();
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_PASS);

	o = good_lock();
	o.helper_ran = false;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_INCONCLUSIVE);

	o = good_lock();
	o.waits_positive_done = 4;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "positive") != NULL);

	o = good_lock();
	o.value_after_waits = 1;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);

	o = good_lock();
	o.zero_wait_blocked = false;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "zero") != NULL);

	/* deferred wake-up: the waiter runs, but only after V returned */
	o = good_lock();
	o.released_in_signal = false;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "no immediate switch") != NULL);

	o = good_lock();
	o.released = false;
	o.released_in_signal = false;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "did not release") != NULL);

	o = good_lock();
	o.value_after_release = 1;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);

	o = good_lock();
	o.value_after_signals = 1;
	CHECK(rtb_check_sem_lock(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "from 0 to 1") != NULL);
}

static enum rtb_outcome release(const int *prio, uint32_t n, const uint32_t *rel, uint32_t extra)
{
	struct rtb_sem_release_obs o = {
		.nwaiters = n,
		.prio = prio,
		.blocked = n,
		.released = rel,
		.nsignals = n,
		.extra_wakes = extra,
	};
	return rtb_check_sem_release(&o, reason, sizeof(reason));
}

static void test_release(void)
{
	/* blocked lowest first */
	static const int asc[4] = {1, 2, 3, 4};
	static const uint32_t by_prio[4] = {3, 2, 1, 0};
	static const uint32_t fifo[4] = {0, 1, 2, 3};
	CHECK(release(asc, 4, by_prio, 0) == RTB_PASS);
	CHECK(strstr(reason, "highest-priority") != NULL);
	CHECK(release(asc, 4, fifo, 0) == RTB_FAIL);
	CHECK(strstr(reason, "FIFO") != NULL);
	CHECK(strstr(reason, "priority-1 waiter while priority 4") != NULL);
	CHECK(release(asc, 4, by_prio, 1) == RTB_FAIL);

	/* scrambled, lowest first: a LIFO semaphore is caught too */
	static const int mixed[4] = {1, 3, 2, 4};
	static const uint32_t mixed_ok[4] = {3, 1, 2, 0};
	static const uint32_t lifo[4] = {3, 2, 1, 0};
	CHECK(release(mixed, 4, mixed_ok, 0) == RTB_PASS);
	CHECK(release(mixed, 4, lifo, 0) == RTB_FAIL);
	CHECK(strstr(reason, "last-in first-out") != NULL);

	/* a V that released nobody, a waiter released twice, an unknown one */
	static const uint32_t lost[4] = {3, 2, RTB_SEM_NONE, RTB_SEM_NONE};
	CHECK(release(asc, 4, lost, 0) == RTB_FAIL);
	CHECK(strstr(reason, "released no waiter") != NULL);
	static const uint32_t twice[4] = {3, 3, 2, 1};
	CHECK(release(asc, 4, twice, 0) == RTB_FAIL);
	CHECK(strstr(reason, "already been released") != NULL);
	static const uint32_t unknown[4] = {3, 9, 1, 0};
	CHECK(release(asc, 4, unknown, 0) == RTB_FAIL);

	/* equal priorities: first-in first-out among them */
	static const int ties[5] = {1, 2, 1, 2, 3};
	static const uint32_t ties_ok[5] = {4, 1, 3, 0, 2};
	static const uint32_t ties_lifo[5] = {4, 3, 1, 2, 0};
	CHECK(release(ties, 5, ties_ok, 0) == RTB_PASS);
	CHECK(release(ties, 5, ties_lifo, 0) == RTB_FAIL);
	CHECK(strstr(reason, "same priority") != NULL);

	/* not every waiter blocked: nothing can be concluded */
	struct rtb_sem_release_obs o = {
		.nwaiters = 4, .prio = asc, .blocked = 3, .released = by_prio, .nsignals = 4};
	CHECK(rtb_check_sem_release(&o, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	o.blocked = 4;
	o.nsignals = 2;
	CHECK(rtb_check_sem_release(&o, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
}

static void test_expected(void)
{
	static const int ties[5] = {1, 2, 1, 2, 3};
	uint32_t order[5];
	rtb_sem_release_expected(ties, 5, order);
	CHECK_EQ_U64(order[0], 4);
	CHECK_EQ_U64(order[1], 1);
	CHECK_EQ_U64(order[2], 3);
	CHECK_EQ_U64(order[3], 0);
	CHECK_EQ_U64(order[4], 2);

	/* 128 waiters on 96 levels, as SEM-P-ARC does on the POSIX port */
	static int prio[128];
	static uint32_t big[128];
	for (uint32_t k = 0; k < 128; k++)
		prio[k] = 1 + (int)(k % 96);
	rtb_sem_release_expected(prio, 128, big);
	CHECK_EQ_U64(big[0], 95);  /* priority 96 */
	CHECK_EQ_U64(big[63], 32); /* priority 33, the last unshared level */
	CHECK_EQ_U64(big[64], 31); /* priority 32: the first of the two */
	CHECK_EQ_U64(big[65], 127);
	CHECK_EQ_U64(big[126], 0);
	CHECK_EQ_U64(big[127], 96);
}

int main(void)
{
	test_lock();
	test_release();
	test_expected();
	return check_exit();
}
