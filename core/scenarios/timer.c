/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Periodic timer wake-up latency (timer.periodic.latency, after cyclictest).
 *
 * The controller raises itself to the top relative priority (prio_max) and
 * sleeps until absolute deadlines on a fixed grid, d_k = d_0 + k * interval,
 * in the OS monotonic clock: rtb_port_time_ns(), the clock that
 * rtb_port_sleep_until_ns() takes deadlines in. On waking it reads that
 * clock once (w). latency = w - d_k - read_cost: the wake-up read is part
 * of w - d_k, so the minimum cost of one clock read, measured first from
 * back-to-back reads, is subtracted (a sample below it is clamped to zero
 * and counted, like every other timed sample). The unit is ns, the clock's.
 *
 * A wake-up at or after the next deadline d_{k+1} misses every period whose
 * deadline passed while the thread was late: those periods are counted
 * (table "periods", and a log line), and the next deadline is the first
 * grid point still ahead, so the grid never drifts. A wake-up before its
 * deadline would be an OS bug: it is counted invalid and reported.
 * No other thread; nothing else runs at this priority.
 */
#include "rtb/core.h"

#define TIMER_CLOCK_PAIRS 1000u

/* Minimum cost of one rtb_port_time_ns() read, from back-to-back pairs. */
static uint64_t clock_read_cost_ns(void)
{
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < TIMER_CLOCK_PAIRS; i++) {
		uint64_t a = rtb_port_time_ns();
		uint64_t b = rtb_port_time_ns();
		if (b >= a && b - a < best)
			best = b - a;
	}
	return best == UINT64_MAX ? 0 : best;
}

/* Like rtb_recorder_add_interval(), in ns and with the clock's read cost;
 * the deadline and the wake-up reading are kept with the sample. */
static void add_latency(struct rtb_recorder *r, uint64_t deadline, uint64_t woke, uint64_t cost_ns)
{
	uint64_t late_ns = woke - deadline;

	if (late_ns < cost_ns) {
		if (r->warmup_count >= r->warmup_target)
			r->clamped++;
		rtb_recorder_add_span(r, 0, deadline, woke, RTB_SPAN_TIME_NS);
		return;
	}
	rtb_recorder_add_span(r, late_ns - cost_ns, deadline, woke, RTB_SPAN_TIME_NS);
}

struct periods {
	uint64_t elapsed;    /* grid periods covered (wakes + missed) */
	uint64_t wakes;	     /* deadlines slept to */
	uint64_t missed;     /* deadlines that passed while the thread was late */
	uint64_t longest;    /* most periods missed by one late wake-up */
	uint64_t early;	     /* wake-ups before the deadline (invalid) */
	uint64_t late_wakes; /* wake-ups that missed at least one period */
};

static void periods_table(uint64_t interval_ns, uint64_t cost_ns, const struct periods *p)
{
	static const struct rtb_column cols[] = {
		{"interval", "ns"},	  {"periods", "count"},	     {"wakes", "count"},
		{"missed", "count"},	  {"late_wakes", "count"},   {"longest_miss", "count"},
		{"early_wakes", "count"}, {"clock_read_cost", "ns"}, {"clock_read_pairs", "count"},
	};
	struct rtb_json *j = rtb_table_begin(
		"timer.periodic.latency", "periods",
		"Periods on the grid (warm-up included): woken, missed (the next deadline had "
		"already passed at wake-up), early",
		cols, RTB_ARRAY_SIZE(cols));

	rtb_json_arr_begin(j);
	rtb_json_u64(j, interval_ns);
	rtb_json_u64(j, p->elapsed);
	rtb_json_u64(j, p->wakes);
	rtb_json_u64(j, p->missed);
	rtb_json_u64(j, p->late_wakes);
	rtb_json_u64(j, p->longest);
	rtb_json_u64(j, p->early);
	rtb_json_u64(j, cost_ns);
	rtb_json_u64(j, TIMER_CLOCK_PAIRS);
	rtb_json_arr_end(j);
	rtb_table_end(j);
}

static int run_periodic(struct rtb_ctx *ctx)
{
	const char *id = "timer.periodic.latency";
	const struct rtb_port_info *info = rtb_port_info();
	uint64_t interval =
		rtb_ctx_count(ctx, "timer.periodic.latency.interval_ns", 1000000, 200000, 200000);
	uint64_t duration_ms = rtb_ctx_count(ctx, "duration_ms", 3000, 20000, 1800000);
	struct rtb_metric m = {.scenario = id,
			       .metric = "latency",
			       .title = "Periodic timer: wake-up time minus the absolute deadline",
			       .unit = "ns"};
	struct periods p = {0};
	struct rtb_recorder r;

	if (interval == 0 || interval > 1000000000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "timer.periodic.latency.interval_ns must be 1 ns .. 1 s");
	uint64_t n =
		rtb_ctx_count(ctx, "iterations", duration_ms * 1000000u / interval,
			      duration_ms * 1000000u / interval, duration_ms * 1000000u / interval);
	if (n == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "needs at least one period");
	rtb_metric_param(&m, "interval_ns", (int64_t)interval);
	uint32_t warm = rtb_warmup_for(n);
	if (rtb_recorder_init(&r, &m, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorder");
	int rc = rtb_port_thread_set_priority(NULL, info->prio_max);
	if (rc != RTB_OK) {
		rtb_recorder_free(&r);
		return rtb_ctx_fail(ctx, rc, "cannot raise the thread to priority %d: %s",
				    info->prio_max, rtb_port_strerror(rc));
	}
	uint64_t cost = clock_read_cost_ns();

	uint64_t deadline = rtb_port_time_ns() + interval;
	while (p.elapsed < n) {
		if ((p.wakes & 255) == 0 && rtb_ctx_expired_after(ctx, p.elapsed, n, "periods"))
			break;
		rc = rtb_port_sleep_until_ns(deadline);
		uint64_t woke = rtb_port_time_ns();
		if (rc != RTB_OK)
			break;
		p.wakes++;
		if (woke < deadline) {
			p.early++;
			rtb_recorder_add_invalid(&r);
			p.elapsed++;
			deadline += interval;
			continue;
		}
		add_latency(&r, deadline, woke, cost);
		uint64_t missed = (woke - deadline) / interval;
		if (missed > 0) {
			p.missed += missed;
			p.late_wakes++;
			p.longest = RTB_MAX(p.longest, missed);
		}
		p.elapsed += missed + 1;
		deadline += (missed + 1) * interval;
	}
	rtb_port_thread_set_priority(NULL, 0);
	if (rc != RTB_OK) {
		rtb_recorder_free(&r);
		return rtb_ctx_fail(ctx, rc, "sleeping until a deadline failed: %s",
				    rtb_port_strerror(rc));
	}

	rtb_emit_result(&r);
	periods_table(interval, cost, &p);
	rtb_emit_log(id, p.missed > 0 ? "warning" : "info",
		     "missed %llu of %llu periods of %llu ns (%llu wake-ups came after the next "
		     "deadline had passed; longest run: %llu periods)",
		     (unsigned long long)p.missed, (unsigned long long)p.elapsed,
		     (unsigned long long)interval, (unsigned long long)p.late_wakes,
		     (unsigned long long)p.longest);
	rtb_emit_log(id, "info",
		     "latency = wake-up clock read minus deadline, minus %llu ns (minimum cost of "
		     "one clock read over %u back-to-back pairs)",
		     (unsigned long long)cost, TIMER_CLOCK_PAIRS);
	if (p.early > 0)
		rtb_emit_log(id, "warning",
			     "%llu wake-ups came before their deadline (counted invalid)",
			     (unsigned long long)p.early);
	rtb_recorder_free(&r);
	return RTB_OK;
}

static const struct rtb_option_spec timer_periodic_latency_options[] = {
	RTB_OPT_N("timer.periodic.latency.interval_ns", 1000u, 1000000000u, "timer interval"),
	RTB_OPT_N("duration_ms", 1u, 864000000u, "how long the scenario measures, in ms"),
	RTB_OPT_N("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_timer_periodic_latency = {
	.name = "timer.periodic.latency",
	.ids = {{"timer.periodic.latency", NULL}},
	.summary = "Periodic timer wake-up latency against absolute deadlines (cyclictest)",
	.estimate_ms = {3000, 20000, 1800000},
	.deadline_ms = {30000, 120000, 2700000},
	.caps = 0,
	.options = timer_periodic_latency_options,
	.run = run_periodic,
};
