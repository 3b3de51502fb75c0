/* SPDX-License-Identifier: Apache-2.0 */
/* Decisions of the Thread-Metric fairness checks (see rtb/check_tm.h). */
#include "rtb/check_tm.h"

static bool malformed(const uint64_t *counts, uint32_t nthreads, uint32_t nperiods, char *reason,
		      size_t len)
{
	if (counts == NULL || nperiods == 0) {
		rtb_fmt(reason, len, "no period was observed: nothing to judge");
		return true;
	}
	if (nthreads < 2 || nthreads > RTB_TM_THREADS_MAX) {
		rtb_fmt(reason, len, "%" RTB_PRIu32 " threads observed: the check needs 2 to %u",
			nthreads, RTB_TM_THREADS_MAX);
		return true;
	}
	return false;
}

/* The thread of the last period with the fewest turns, if below the
 * minimum: the run was too short (or the threads too starved) to judge. */
static bool too_few_turns(const uint64_t *counts, uint32_t nthreads, uint32_t nperiods,
			  char *reason, size_t len)
{
	const uint64_t *c = counts + (size_t)(nperiods - 1) * nthreads;
	uint32_t low = 0;

	for (uint32_t i = 1; i < nthreads; i++) {
		if (c[i] < c[low])
			low = i;
	}
	if (c[low] >= RTB_TM_MIN_TURNS)
		return false;
	rtb_fmt(reason, len,
		"thread %" RTB_PRIu32 " completed only %llu turns by the end: too few to judge",
		low, (unsigned long long)c[low]);
	return true;
}

enum rtb_outcome rtb_check_tm_coop(const uint64_t *counts, uint32_t nthreads, uint32_t nperiods,
				   char *reason, size_t reason_len)
{
	if (malformed(counts, nthreads, nperiods, reason, reason_len))
		return RTB_INCONCLUSIVE;
	for (uint32_t p = 0; p < nperiods; p++) {
		const uint64_t *c = counts + (size_t)p * nthreads;
		uint32_t low = 0, high = 0;
		for (uint32_t i = 1; i < nthreads; i++) {
			if (c[i] < c[low])
				low = i;
			if (c[i] > c[high])
				high = i;
		}
		if (c[high] - c[low] > 1) {
			rtb_fmt(reason, reason_len,
				"period %" RTB_PRIu32 ": thread %" RTB_PRIu32
				" had %llu turns and thread %" RTB_PRIu32 " %llu: more than "
				"1 "
				"apart, the threads did not take turns",
				p + 1, high, (unsigned long long)c[high], low,
				(unsigned long long)c[low]);
			return RTB_FAIL;
		}
	}
	if (too_few_turns(counts, nthreads, nperiods, reason, reason_len))
		return RTB_INCONCLUSIVE;
	rtb_fmt(reason, reason_len,
		"at the end of each of the %" RTB_PRIu32
		" periods every thread's count was within 1 of the "
		"others'",
		nperiods);
	return RTB_PASS;
}

enum rtb_outcome rtb_check_tm_coop_counted(const uint64_t *counts, const uint64_t *lost,
					   uint32_t nthreads, uint32_t nperiods, char *reason,
					   size_t reason_len)
{
	if (malformed(counts, nthreads, nperiods, reason, reason_len))
		return RTB_INCONCLUSIVE;
	if (lost == NULL) {
		rtb_fmt(reason, reason_len, "no count of lost turns: nothing to judge");
		return RTB_INCONCLUSIVE;
	}
	if (too_few_turns(counts, nthreads, nperiods, reason, reason_len))
		return RTB_INCONCLUSIVE;
	const uint64_t *c = counts + (size_t)(nperiods - 1) * nthreads;
	const uint64_t *l = lost + (size_t)(nperiods - 1) * nthreads;
	uint64_t all_lost = 0, fewest = c[0];
	for (uint32_t i = 0; i < nthreads; i++) {
		all_lost += l[i];
		fewest = RTB_MIN(fewest, c[i]);
	}
	if (all_lost * 8 > fewest) {
		rtb_fmt(reason, reason_len,
			"%llu turns taken away by the end, more than an eighth of the %llu of the "
			"thread with the fewest: too often to see each one, cannot judge",
			(unsigned long long)all_lost, (unsigned long long)fewest);
		return RTB_INCONCLUSIVE;
	}
	for (uint32_t p = 0; p < nperiods; p++) {
		c = counts + (size_t)p * nthreads;
		l = lost + (size_t)p * nthreads;
		uint32_t low = 0, high = 0;
		for (uint32_t i = 1; i < nthreads; i++) {
			if (c[i] + l[i] < c[low] + l[low])
				low = i;
			if (c[i] + l[i] > c[high] + l[high])
				high = i;
		}
		if (c[high] + l[high] - (c[low] + l[low]) > 2) {
			rtb_fmt(reason, reason_len,
				"period %" RTB_PRIu32 ": thread %" RTB_PRIu32
				" had %llu turns (+%llu taken away) and thread %" RTB_PRIu32
				" %llu (+%llu): more than 2 apart with the turns taken away "
				"counted, the threads did not take turns",
				p + 1, high, (unsigned long long)c[high],
				(unsigned long long)l[high], low, (unsigned long long)c[low],
				(unsigned long long)l[low]);
			return RTB_FAIL;
		}
	}
	rtb_fmt(reason, reason_len,
		"at the end of each of the %" RTB_PRIu32
		" periods every thread's count, with the turns the OS took away from it "
		"counted (%llu in all), was within 2 of the others'",
		nperiods, (unsigned long long)all_lost);
	return RTB_PASS;
}

enum rtb_outcome rtb_check_tm_chain(const uint64_t *counts, uint32_t nthreads, uint32_t nperiods,
				    char *reason, size_t reason_len)
{
	if (malformed(counts, nthreads, nperiods, reason, reason_len))
		return RTB_INCONCLUSIVE;
	for (uint32_t p = 0; p < nperiods; p++) {
		const uint64_t *c = counts + (size_t)p * nthreads;
		for (uint32_t k = 0; k + 1 < nthreads; k++) {
			if (c[k] > c[k + 1]) {
				rtb_fmt(reason, reason_len,
					"period %" RTB_PRIu32 ": thread %" RTB_PRIu32
					" ran %llu times but thread %" RTB_PRIu32 ", which "
					"it "
					"resumes, only %llu: a resume did not run the "
					"higher-priority "
					"thread",
					p + 1, k, (unsigned long long)c[k], k + 1,
					(unsigned long long)c[k + 1]);
				return RTB_FAIL;
			}
		}
		/* non-decreasing from here: the spread is highest - lowest */
		uint64_t spread = c[nthreads - 1] - c[0];
		if (spread > 1) {
			rtb_fmt(reason, reason_len,
				"period %" RTB_PRIu32
				": the highest thread ran %llu times and the lowest %llu: "
				"more than 1 apart, the chain did not run every thread once per "
				"pass",
				p + 1, (unsigned long long)c[nthreads - 1],
				(unsigned long long)c[0]);
			return RTB_FAIL;
		}
	}
	if (too_few_turns(counts, nthreads, nperiods, reason, reason_len))
		return RTB_INCONCLUSIVE;
	rtb_fmt(reason, reason_len,
		"at the end of each of the %" RTB_PRIu32
		" periods every thread of the chain had run as often "
		"as "
		"the one below it or once more, and all within 1",
		nperiods);
	return RTB_PASS;
}

void rtb_tm_counts_text(char *buf, size_t len, const uint64_t *counts, uint32_t nthreads)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (uint32_t i = 0; i < nthreads && used + 1 < len; i++)
		used += rtb_fmt(buf + used, len - used, i == 0 ? "%llu" : " %llu",
				(unsigned long long)counts[i]);
}
