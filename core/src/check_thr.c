/* SPDX-License-Identifier: Apache-2.0 */
/* Decisions of the THR behaviour checks (see rtb/check_thr.h). */
#include "rtb/check_thr.h"

/* ---- THR-B-NEW ------------------------------------------------------------ */

static const char *const new_check_names[RTB_THR_NEW_CHECKS] = {
	"lower_waits",
	"equal_to_tail",
	"equal_after_yield",
	"higher_preempts",
};

const char *rtb_thr_new_check_name(enum rtb_thr_new_check check)
{
	return (unsigned)check < RTB_THR_NEW_CHECKS ? new_check_names[check] : "?";
}

enum rtb_outcome rtb_check_thr_new(enum rtb_thr_new_check check, const struct rtb_thr_new_obs *obs,
				   char *reason, size_t reason_len)
{
	if (!obs->created) {
		rtb_fmt(reason, reason_len, "the new thread could not be created");
		return RTB_INCONCLUSIVE;
	}
	switch (check) {
	case RTB_THR_NEW_LOWER_WAITS:
		if (obs->ran_at_create_return || obs->ran_before_handover) {
			rtb_fmt(reason, reason_len,
				"the lower-priority thread ran before its creator blocked");
			return RTB_FAIL;
		}
		if (!obs->ran_after_handover) {
			char blocked[32];
			rtb_fmt_ns(blocked, sizeof(blocked), obs->blocked_ns);
			if (obs->blocked_ns < RTB_THR_NEW_DECIDE_NS) {
				rtb_fmt(reason, reason_len,
					"the lower-priority thread had not run when its creator "
					"had been blocked %s in all (%" RTB_PRIu32
					" %s): too short to decide",
					blocked, obs->sleeps,
					obs->sleeps == 1 ? "sleep" : "sleeps");
				return RTB_INCONCLUSIVE;
			}
			rtb_fmt(reason, reason_len,
				"the lower-priority thread did not run although its creator was "
				"blocked %s in %" RTB_PRIu32 " sleeps",
				blocked, obs->sleeps);
			return RTB_FAIL;
		}
		rtb_fmt(reason, reason_len,
			"the lower-priority thread waited until its creator blocked, then ran");
		return RTB_PASS;
	case RTB_THR_NEW_EQUAL_TO_TAIL:
		if (obs->ran_at_create_return || obs->ran_before_handover) {
			rtb_fmt(reason, reason_len,
				"the equal-priority thread ran before its creator yielded (it was "
				"not put at the tail of the ready queue)");
			return RTB_FAIL;
		}
		rtb_fmt(reason, reason_len,
			"the equal-priority thread did not run before its creator yielded");
		return RTB_PASS;
	case RTB_THR_NEW_EQUAL_AFTER_YIELD:
		if (!obs->ran_after_handover) {
			rtb_fmt(reason, reason_len,
				"the equal-priority thread had still not run when its creator's "
				"yield returned");
			return RTB_FAIL;
		}
		rtb_fmt(reason, reason_len,
			"the equal-priority thread ran when its creator yielded");
		return RTB_PASS;
	case RTB_THR_NEW_HIGHER_PREEMPTS:
		if (!obs->ran_at_create_return) {
			rtb_fmt(reason, reason_len,
				"the higher-priority thread had not run when the create call "
				"returned");
			return RTB_FAIL;
		}
		rtb_fmt(reason, reason_len,
			"the higher-priority thread ran before the create call returned");
		return RTB_PASS;
	default:
		break;
	}
	rtb_fmt(reason, reason_len, "unknown check");
	return RTB_INCONCLUSIVE;
}

enum rtb_thr_landing rtb_thr_landing_of(uint32_t lowered_seq, uint32_t waiting_seq)
{
	if (lowered_seq == 0 || waiting_seq == 0 || lowered_seq == waiting_seq)
		return RTB_THR_LANDING_UNKNOWN;
	return lowered_seq < waiting_seq ? RTB_THR_LANDING_HEAD : RTB_THR_LANDING_TAIL;
}

const char *rtb_thr_landing_name(enum rtb_thr_landing landing)
{
	switch (landing) {
	case RTB_THR_LANDING_HEAD:
		return "head";
	case RTB_THR_LANDING_TAIL:
		return "tail";
	default:
		return "unknown";
	}
}

/* ---- THR-B-RR --------------------------------------------------------------- */

uint32_t rtb_thr_rr_merge(const struct rtb_thr_rr_segment *const *lists, const uint32_t *counts,
			  uint32_t nlists, struct rtb_thr_rr_segment *out, uint32_t cap)
{
	uint32_t pos[RTB_THR_RR_THREADS_MAX] = {0};
	uint32_t n = 0;

	if (nlists > RTB_THR_RR_THREADS_MAX)
		nlists = RTB_THR_RR_THREADS_MAX;
	while (n < cap) {
		uint32_t best = UINT32_MAX;
		for (uint32_t l = 0; l < nlists; l++) {
			if (pos[l] < counts[l] &&
			    (best == UINT32_MAX ||
			     lists[l][pos[l]].start < lists[best][pos[best]].start))
				best = l;
		}
		if (best == UINT32_MAX)
			break;
		out[n++] = lists[best][pos[best]++];
	}
	return n;
}

enum slice_set { ALL_COMPLETE, FIRST_COMPLETE, LATER_COMPLETE };

static bool in_set(const struct rtb_thr_rr_slice *s, enum slice_set set)
{
	if (!s->complete)
		return false;
	if (set == FIRST_COMPLETE)
		return s->first;
	if (set == LATER_COMPLETE)
		return !s->first;
	return true;
}

/* Lower median of the run times of the slices in `set` (quadratic: a run
 * has at most a few thousand slices). */
static uint64_t median_of(const struct rtb_thr_rr_slice *slices, uint32_t n, enum slice_set set,
			  uint32_t *count)
{
	uint32_t cnt = 0;

	for (uint32_t i = 0; i < n; i++)
		cnt += in_set(&slices[i], set);
	*count = cnt;
	if (cnt == 0)
		return 0;
	uint32_t want = (cnt - 1) / 2;
	for (uint32_t i = 0; i < n; i++) {
		if (!in_set(&slices[i], set))
			continue;
		uint32_t less = 0, less_eq = 0;
		for (uint32_t k = 0; k < n; k++) {
			if (!in_set(&slices[k], set))
				continue;
			less += slices[k].run_ticks < slices[i].run_ticks;
			less_eq += slices[k].run_ticks <= slices[i].run_ticks;
		}
		if (less <= want && want < less_eq)
			return slices[i].run_ticks;
	}
	return 0;
}

/* Group segments into slices. Returns the number of slices found (which may
 * exceed cap: only the first cap are stored, the count is still exact). */
static uint32_t build_slices(const struct rtb_thr_rr_segment *segs, uint32_t nsegs,
			     const struct rtb_thr_rr_params *p, struct rtb_thr_rr_slice *slices,
			     uint32_t cap, struct rtb_thr_rr_summary *sum)
{
	bool seen[RTB_THR_RR_THREADS_MAX] = {false};
	uint32_t found = 0;
	struct rtb_thr_rr_slice cur = {0};
	bool open = false;

	for (uint32_t i = 0; i <= nsegs; i++) {
		bool last = i == nsegs;
		const struct rtb_thr_rr_segment *s = last ? NULL : &segs[i];
		if (!last &&
		    ((int64_t)(s->start - p->end_ticks) >= 0 || s->thread >= p->nthreads)) {
			sum->ignored++;
			continue;
		}
		if (open && !last && s->thread == cur.thread) {
			cur.end = s->end;
			cur.run_ticks += s->end - s->start;
			continue;
		}
		if (open) {
			/* another observed thread followed before the end: the
			 * slice ended by a switch, not by the end of the run */
			cur.complete = !last;
			if (found < cap)
				slices[found] = cur;
			found++;
			sum->per_thread[cur.thread]++;
			open = false;
		}
		if (!last) {
			cur.thread = s->thread;
			cur.start = s->start;
			cur.end = s->end;
			cur.run_ticks = s->end - s->start;
			cur.first = !seen[s->thread];
			cur.complete = false;
			seen[s->thread] = true;
			open = true;
		}
	}
	return found;
}

static void ratio_text(char *buf, size_t len, uint64_t num, uint64_t den)
{
	uint64_t tenths = den != 0 ? (num * 10 + den / 2) / den : 0;

	rtb_fmt(buf, len, "%llu.%llu", (unsigned long long)(tenths / 10),
		(unsigned long long)(tenths % 10));
}

enum rtb_outcome rtb_check_thr_rr(const struct rtb_thr_rr_segment *segs, uint32_t nsegs,
				  const struct rtb_thr_rr_params *params,
				  struct rtb_thr_rr_slice *slices, uint32_t slices_cap,
				  struct rtb_thr_rr_summary *sum, char *reason, size_t reason_len)
{
	uint32_t k = params->nthreads;

	rtb_memset(sum, 0, sizeof(*sum));
	if (k < 2 || k > RTB_THR_RR_THREADS_MAX) {
		rtb_fmt(reason, reason_len, "needs 2 to %d threads", RTB_THR_RR_THREADS_MAX);
		return RTB_INCONCLUSIVE;
	}
	uint32_t found = build_slices(segs, nsegs, params, slices, slices_cap, sum);
	sum->nslices = RTB_MIN(found, slices_cap);
	sum->truncated = found - sum->nslices;
	uint32_t n = sum->nslices;
	if (found == 0) {
		rtb_fmt(reason, reason_len, "no observed thread ran before the end of the run");
		return RTB_INCONCLUSIVE;
	}

	sum->every_thread_ran = true;
	for (uint32_t t = 0; t < k; t++) {
		if (sum->per_thread[t] == 0)
			sum->every_thread_ran = false;
	}
	/* one fixed cyclic order: the first k slices are k different threads
	 * and every later slice repeats the thread k slices before it */
	sum->rotation_ok = true;
	for (uint32_t i = 0; i < n && sum->rotation_ok; i++) {
		bool ok = true;
		if (i < k) {
			for (uint32_t j = 0; j < i; j++)
				ok = ok && slices[j].thread != slices[i].thread;
		} else {
			ok = slices[i].thread == slices[i - k].thread;
		}
		if (!ok) {
			sum->rotation_ok = false;
			sum->rotation_break = i;
		}
	}

	sum->min_ticks = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++) {
		if (slices[i].run_ticks > sum->longest_ticks) {
			sum->longest_ticks = slices[i].run_ticks;
			sum->longest = i;
		}
		if (!slices[i].complete)
			continue;
		sum->complete++;
		sum->min_ticks = RTB_MIN(sum->min_ticks, slices[i].run_ticks);
		sum->max_ticks = RTB_MAX(sum->max_ticks, slices[i].run_ticks);
		uint64_t span = slices[i].end - slices[i].start;
		sum->min_span_ticks =
			sum->min_span_ticks == 0 ? span : RTB_MIN(sum->min_span_ticks, span);
		sum->max_span_ticks = RTB_MAX(sum->max_span_ticks, span);
	}
	if (sum->complete == 0)
		sum->min_ticks = 0;
	uint32_t unused;
	sum->median_ticks = median_of(slices, n, ALL_COMPLETE, &unused);
	sum->first_median_ticks = median_of(slices, n, FIRST_COMPLETE, &sum->first_complete);
	sum->later_median_ticks = median_of(slices, n, LATER_COMPLETE, &sum->later_complete);

	if (!sum->rotation_ok) {
		uint32_t i = sum->rotation_break;
		rtb_fmt(reason, reason_len,
			"unfair: slice %" RTB_PRIu32 " went to thread %" RTB_PRIu32
			" out of turn (the slices do not follow "
			"one cyclic order)",
			i, slices[i].thread);
		return RTB_FAIL;
	}
	if (!sum->every_thread_ran) {
		uint32_t starved = 0;
		while (starved < k && sum->per_thread[starved] != 0)
			starved++;
		uint64_t limit = 2 * params->expected_ticks;
		if (params->expected_ticks != 0 && sum->longest_ticks > limit &&
		    sum->longest_ticks - limit > params->explained_ticks) {
			char ratio[32];
			ratio_text(ratio, sizeof(ratio), sum->longest_ticks,
				   params->expected_ticks);
			rtb_fmt(reason, reason_len,
				"unfair: thread %" RTB_PRIu32
				" never got a time slice while thread %" RTB_PRIu32 " kept the "
				"CPU for %sx the expected slice",
				starved, slices[sum->longest].thread, ratio);
			return RTB_FAIL;
		}
		rtb_fmt(reason, reason_len,
			"thread %" RTB_PRIu32
			" never got a time slice, but the run was too short to show it "
			"was starved",
			starved);
		return RTB_INCONCLUSIVE;
	}
	if (sum->later_complete == 0) {
		rtb_fmt(reason, reason_len,
			"every thread ran, but the run was too short to see a complete later "
			"slice");
		return RTB_INCONCLUSIVE;
	}
	char ratio[32];
	ratio_text(ratio, sizeof(ratio), sum->max_ticks, sum->min_ticks);
	bool spans_differ = sum->max_span_ticks > 2 * sum->min_span_ticks &&
			    sum->max_span_ticks - sum->min_span_ticks > params->explained_ticks;
	if (sum->max_ticks > 2 * sum->min_ticks &&
	    sum->max_ticks - sum->min_ticks > params->explained_ticks && !spans_differ) {
		char span_ratio[32];
		ratio_text(span_ratio, sizeof(span_ratio), sum->max_span_ticks,
			   sum->min_span_ticks);
		rtb_fmt(reason, reason_len,
			"complete slices differ by %sx in the time each thread ran, but only by "
			"%sx on the clock: other activity (interrupts, other processes, a busy "
			"host) took the difference, not the OS's time slice",
			ratio, span_ratio);
		return RTB_INCONCLUSIVE;
	}
	if (sum->max_ticks > 2 * sum->min_ticks &&
	    sum->max_ticks - sum->min_ticks > params->explained_ticks) {
		bool first_long = sum->first_complete > 0 &&
				  sum->first_median_ticks > 2 * sum->later_median_ticks;
		bool first_short = sum->first_complete > 0 &&
				   2 * sum->first_median_ticks < sum->later_median_ticks;
		rtb_fmt(reason, reason_len,
			"time slices differ by %sx (longest / shortest), more than the 2x "
			"allowed%s",
			ratio,
			first_long    ? "; the first slices after creation are the long ones"
			: first_short ? "; the first slices after creation are the short ones"
				      : "");
		return RTB_FAIL;
	}
	if (sum->max_ticks > 2 * sum->min_ticks)
		rtb_fmt(reason, reason_len,
			"every thread got its turn in a fixed cyclic order; complete slices "
			"differ by %sx, but by no more than one OS tick",
			ratio);
	else
		rtb_fmt(reason, reason_len,
			"every thread got its turn in a fixed cyclic order; complete slices are "
			"within %sx of each other",
			ratio);
	return RTB_PASS;
}
