/* SPDX-License-Identifier: Apache-2.0 */
/* Decisions of the SEM behaviour checks (see rtb/check_sem.h). */
#include "rtb/check_sem.h"

enum rtb_outcome rtb_check_sem_lock(const struct rtb_sem_lock_obs *o, char *reason, size_t len)
{
	if (!o->helper_ran) {
		rtb_fmt(reason, len,
			"the higher-priority helper did not run when made ready, so blocking "
			"could not be observed");
		return RTB_INCONCLUSIVE;
	}
	if (o->waits_positive_done < o->waits_positive) {
		rtb_fmt(reason, len,
			"P blocked although the count was positive (%" RTB_PRIu32 " of %" RTB_PRIu32
			" returned)",
			o->waits_positive_done, o->waits_positive);
		return RTB_FAIL;
	}
	if (o->value_after_waits != 0) {
		rtb_fmt(reason, len,
			"P did not decrement the count: %" RTB_PRIu32
			" left after taking all of it",
			o->value_after_waits);
		return RTB_FAIL;
	}
	if (!o->zero_wait_blocked) {
		rtb_fmt(reason, len, "P returned although the count was zero");
		return RTB_FAIL;
	}
	if (!o->released) {
		rtb_fmt(reason, len, "V did not release the thread blocked in P");
		return RTB_FAIL;
	}
	if (!o->released_in_signal) {
		rtb_fmt(reason, len,
			"V returned before the higher-priority waiter it released ran: no "
			"immediate switch");
		return RTB_FAIL;
	}
	if (o->value_after_release != 0) {
		rtb_fmt(reason, len,
			"V that released a waiter also incremented the count (count %" RTB_PRIu32
			" after)",
			o->value_after_release);
		return RTB_FAIL;
	}
	if (o->value_after_signals != o->signals) {
		rtb_fmt(reason, len,
			"%" RTB_PRIu32 " V with no waiter took the count from 0 to %" RTB_PRIu32 "",
			o->signals, o->value_after_signals);
		return RTB_FAIL;
	}
	rtb_fmt(reason, len,
		"P blocks only on a zero count, V increments it, and V switches at once to a "
		"higher-priority waiter");
	return RTB_PASS;
}

/* a is released before b: higher priority first, then arrival order. */
static bool released_before(const int *prio, uint32_t a, uint32_t b)
{
	return prio[a] > prio[b] || (prio[a] == prio[b] && a < b);
}

/* The first waiter in release order that comes after `prev` (RTB_SEM_NONE:
 * the very first). O(n), no memory: the order is total. */
static uint32_t next_expected(const int *prio, uint32_t n, uint32_t prev)
{
	uint32_t best = RTB_SEM_NONE;

	for (uint32_t a = 0; a < n; a++) {
		if (prev != RTB_SEM_NONE && !released_before(prio, prev, a))
			continue;
		if (best == RTB_SEM_NONE || released_before(prio, a, best))
			best = a;
	}
	return best;
}

void rtb_sem_release_expected(const int *prio, uint32_t n, uint32_t *order)
{
	uint32_t prev = RTB_SEM_NONE;

	for (uint32_t i = 0; i < n; i++) {
		prev = next_expected(prio, n, prev);
		order[i] = prev;
	}
}

/* Did the first k+1 releases follow arrival order (FIFO) or its reverse? */
static bool released_in_arrival_order(const struct rtb_sem_release_obs *o, uint32_t k, bool reverse)
{
	for (uint32_t i = 0; i <= k; i++) {
		uint32_t want = reverse ? o->nwaiters - 1 - i : i;
		if (o->released[i] != want)
			return false;
	}
	return true;
}

enum rtb_outcome rtb_check_sem_release(const struct rtb_sem_release_obs *o, char *reason,
				       size_t len)
{
	uint32_t n = o->nwaiters;
	uint32_t prev = RTB_SEM_NONE;

	if (n == 0 || o->blocked < n) {
		rtb_fmt(reason, len,
			"only %" RTB_PRIu32 " of %" RTB_PRIu32
			" waiters were blocked before the first V, so the release "
			"order could not be observed",
			o->blocked, n);
		return RTB_INCONCLUSIVE;
	}
	if (o->nsignals < n) {
		rtb_fmt(reason, len,
			"only %" RTB_PRIu32 " V for %" RTB_PRIu32 " waiters were observed",
			o->nsignals, n);
		return RTB_INCONCLUSIVE;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t want = next_expected(o->prio, n, prev);
		uint32_t got = o->released[i];
		if (got == RTB_SEM_NONE) {
			rtb_fmt(reason, len,
				"V %" RTB_PRIu32 " released no waiter (%" RTB_PRIu32
				" still blocked)",
				i + 1, n - i);
			return RTB_FAIL;
		}
		if (got >= n) {
			rtb_fmt(reason, len,
				"V %" RTB_PRIu32 " released an unknown waiter (%" RTB_PRIu32 ")",
				i + 1, got);
			return RTB_FAIL;
		}
		if (got != want && o->prio[got] == o->prio[want]) {
			rtb_fmt(reason, len,
				"V %" RTB_PRIu32
				" released a priority-%d waiter that blocked after another of "
				"the same priority (equal priorities must be first-in first-out)",
				i + 1, o->prio[got]);
			return RTB_FAIL;
		}
		if (got != want) {
			const char *how = "";
			if (released_in_arrival_order(o, i, false))
				how = ": waiters were released in the order they blocked (FIFO), "
				      "not "
				      "by priority";
			else if (released_in_arrival_order(o, i, true))
				how = ": waiters were released last-in first-out, not by priority";
			else if (released_before(o->prio, got, want))
				how = ": that waiter had already been released";
			rtb_fmt(reason, len,
				"V %" RTB_PRIu32
				" released the priority-%d waiter while priority %d was "
				"waiting%s",
				i + 1, o->prio[got], o->prio[want], how);
			return RTB_FAIL;
		}
		prev = want;
	}
	if (o->extra_wakes > 0) {
		rtb_fmt(reason, len,
			"a V released more than one waiter (%" RTB_PRIu32 " extra wake-ups)",
			o->extra_wakes);
		return RTB_FAIL;
	}
	rtb_fmt(reason, len, "every V released the highest-priority waiter still blocked");
	return RTB_PASS;
}
