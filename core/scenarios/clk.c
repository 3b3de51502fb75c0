/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CLK: the OS clock tick, measured. One run unit, clk.tick, serves two ids;
 * this file takes every timestamp of it and reports CLK-P-DUR. What
 * CLK-B-CFG concludes from the measurements (decision, negative control,
 * verdict, table) is in clk_config.c; clk.h holds what both share.
 *
 * The unit reads the OS's statement about its tick and times CLK-B-CFG's
 * sleeps first, then runs the busy loops, then reports CLK-P-DUR, then
 * CLK-B-CFG. One busy-loop run and one analysis serve both ids, so the
 * period one reports is the period the other judges. The timed code and
 * what the compiler inlines around it (the unit's run function with the
 * sleeps, the busy loops and CLK-P-DUR's report) stay in this one file:
 * compiled apart, the loops get other instructions and the deterministic
 * figures (--deterministic) move.
 *
 * clk.tick.duration (CLK-P-DUR). One thread, raised to the highest relative
 * priority (prio_max) for the measurement and put back to 0 afterwards,
 * runs a fixed busy loop (a volatile counter counted up to `loop_count`,
 * tuned at start so one loop takes about 20 us) back to back until an
 * explicit end time. One counter read closes each loop and opens the next,
 * so the loops cover the whole run without gaps: a loop during which the
 * OS ran (the tick, another interrupt) is longer by the time the OS took.
 * Each loop's duration is stored in a buffer allocated before the run;
 * nothing else happens inside the run. Afterwards the loops are classified
 * (rtb/check_clk.h): the median is the normal loop time (lower line), loops
 * above a threshold are disturbed, and the disturbed loops that recur with
 * one period are the tick (upper line). Reported: every loop (the raw
 * series shows the two lines), the tick processing time (a tick loop minus
 * the normal loop time), the distance between tick loops, a classification
 * table and a summary.
 *
 * clk.tick.config (CLK-B-CFG), its measurements. (1) At priority prio_max,
 * sleeps of 0, 1 us, 10 us, 100 us and 1 ms are timed (counter read before
 * and after rtb_port_sleep_ns()), one result per requested duration; each
 * starts at another point of the tick (measure_sleeps). (2)
 * The busy-loop run above finds the period of the disturbances. (3) The
 * OS's own statement is read: tick_hz_config, no_hz and
 * timer_resolution_ns (rtb_port_property); option
 * clk.tick.config.stated_hz=N replaces the rate stated.
 */
#include "clk.h"

#define LOOP_COUNT_MIN 100u
#define LOOP_COUNT_MAX 100000000u
#define DURATION_RAW_MIN 150000u /* raw loops kept for the diagram (see clk.md) */

/* The busy loop: a fixed amount of work the compiler cannot remove. */
static void busy(uint32_t count)
{
	for (volatile uint32_t k = 0; k < count; k++) {
	}
}

/* Find the loop count for which one busy loop takes about target_ns. */
static uint32_t calibrate(uint64_t target_ns)
{
	uint64_t target = rtb_ns_to_ticks(target_ns);
	uint64_t count = 1000;

	for (int round = 0; round < 4; round++) {
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < 5; i++) {
			uint64_t t0 = rtb_port_counter_read();
			busy((uint32_t)count);
			uint64_t t1 = rtb_port_counter_read();
			best = RTB_MIN(best, t1 - t0);
		}
		if (best == 0)
			best = 1;
		count = count * target / best;
		count = RTB_MAX(count, LOOP_COUNT_MIN);
		count = RTB_MIN(count, LOOP_COUNT_MAX);
	}
	return (uint32_t)count;
}

static void tick_run_free(struct tick_run *r)
{
	if (r->loops != NULL)
		rtb_port_mem_free(r->loops);
	if (r->scratch != NULL)
		rtb_port_mem_free(r->scratch);
	if (r->kinds != NULL)
		rtb_port_mem_free(r->kinds);
	r->loops = r->scratch = NULL;
	r->kinds = NULL;
}

/* The option `<id>.loop_count`, else a calibrated count. */
static uint32_t loop_count_for(const struct rtb_ctx *ctx, const char *id)
{
	char key[64];
	uint64_t v;

	rtb_fmt(key, sizeof(key), "%s.loop_count", id);
	const char *opt = rtb_ctx_option(ctx, key);
	if (opt != NULL && rtb_parse_u64(opt, &v) && v >= 1 && v <= LOOP_COUNT_MAX)
		return (uint32_t)v;
	return calibrate(CLK_LOOP_TARGET_NS);
}

static int set_prio(int prio)
{
	return rtb_port_thread_set_priority(NULL, prio);
}

/* Allocate, run the loops for duration_ns at prio_max, analyse. */
static int tick_run(struct rtb_ctx *ctx, const char *id, uint64_t duration_ns, struct tick_run *r)
{
	const struct rtb_port_info *info = rtb_port_info();

	rtb_memset(r, 0, sizeof(*r));
	r->planned_ns = duration_ns;
	int old_prio = 0;
	rtb_port_thread_get_priority(NULL, &old_prio);
	r->raised = set_prio(info->prio_max) == RTB_OK;
	r->loop_count = loop_count_for(ctx, id);

	uint64_t one = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t t0 = rtb_port_counter_read();
		busy(r->loop_count);
		uint64_t took = rtb_port_counter_read() - t0;
		one = RTB_MIN(one, took);
	}
	uint64_t duration = rtb_ns_to_ticks(duration_ns);
	r->cap = (size_t)(duration / (one > 0 ? one : 1)) * 5 / 4 + 1024;
	r->loops = rtb_port_mem_alloc(sizeof(uint64_t) * r->cap);
	r->scratch = rtb_port_mem_alloc(sizeof(uint64_t) * rtb_clk_scratch_words(r->cap));
	r->kinds = rtb_port_mem_alloc(r->cap);
	if (r->loops == NULL || r->scratch == NULL || r->kinds == NULL) {
		set_prio(old_prio);
		tick_run_free(r);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for %zu loops", r->cap);
	}
	/* touch the buffer so no page fault lands in the run */
	rtb_memset(r->loops, 0, sizeof(uint64_t) * r->cap);

	uint64_t start = rtb_port_counter_read();
	uint64_t end = start + duration;
	if ((int64_t)(end - ctx->budget_end_ticks) > 0) {
		end = ctx->budget_end_ticks;
		r->cut = true;
	}
	/* Every loop does the same work: busy loop, one counter read, one
	 * store, the end test. */
	uint64_t prev = start;
	size_t i = 0;
	uint64_t *loops = r->loops;
	while (i < r->cap) {
		busy(r->loop_count);
		uint64_t now = rtb_port_counter_read();
		loops[i++] = now - prev;
		prev = now;
		if ((int64_t)(now - end) >= 0 || rtb_port_stop_requested())
			break;
	}
	set_prio(old_prio);
	r->n = i;
	r->cut = r->cut || rtb_port_stop_requested();
	r->warm = rtb_warmup_for(r->n);
	rtb_clk_analyse(r->loops + r->warm, r->n - r->warm, 0, r->scratch, r->kinds, &r->a);
	return RTB_OK;
}

/* ---- clk.tick.duration ------------------------------------------------------ */

static void summary_row(struct rtb_json *j, const char *what, bool have, uint64_t ticks,
			const char *note)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, what);
	if (have)
		rtb_json_u64(j, ticks);
	else
		rtb_json_null(j);
	rtb_json_str(j, note);
	rtb_json_arr_end(j);
}

static void class_row(struct rtb_json *j, const char *what, size_t count, size_t total, bool have,
		      uint64_t min, uint64_t typical, uint64_t max, bool have_excess,
		      uint64_t excess_typical, uint64_t excess_max)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, what);
	rtb_json_u64(j, count);
	rtb_json_dbl(j, total > 0 ? 100.0 * (double)count / (double)total : 0.0);
	if (have) {
		rtb_json_u64(j, min);
		rtb_json_u64(j, typical);
		rtb_json_u64(j, max);
	} else {
		rtb_json_null(j);
		rtb_json_null(j);
		rtb_json_null(j);
	}
	if (have_excess) {
		rtb_json_u64(j, excess_typical);
		rtb_json_u64(j, excess_max);
	} else {
		rtb_json_null(j);
		rtb_json_null(j);
	}
	rtb_json_arr_end(j);
}

/* The long gaps of a run: how many, their excess over the normal loop, and
 * how many match what the OS withholds from a busy real-time thread
 * (rt_withheld_ns: RT throttling, the fair server) within a quarter. */
struct gap_stats {
	size_t n;
	uint64_t min_excess, typical_excess, max_excess;
	uint64_t withheld_ns; /* 0: the OS does not say */
	size_t withheld;      /* gaps that match it */
};

static void gap_stats(const struct tick_run *r, struct gap_stats *g)
{
	char v[32];
	uint64_t withheld = 0;
	size_t n = 0;

	rtb_memset(g, 0, sizeof(*g));
	if (rtb_port_property("rt_withheld_ns", v, sizeof(v)) == RTB_OK &&
	    rtb_parse_u64(v, &withheld))
		g->withheld_ns = withheld;
	for (size_t i = r->warm; i < r->n; i++) {
		if (r->kinds[i - r->warm] != RTB_CLK_GAP)
			continue;
		uint64_t excess = r->loops[i] - r->a.normal_ticks;
		r->scratch[n++] = excess;
		uint64_t e_ns = clk_ns(excess);
		if (withheld != 0 && 4 * e_ns >= 3 * withheld && 4 * e_ns <= 5 * withheld)
			g->withheld++;
	}
	g->n = n;
	if (n > 0) {
		rtb_sort_u64(r->scratch, n);
		g->min_excess = r->scratch[0];
		g->typical_excess = r->scratch[n / 2];
		g->max_excess = r->scratch[n - 1];
	}
}

static void duration_tables(const char *id, const struct tick_run *r)
{
	const struct rtb_clk_analysis *a = &r->a;
	uint64_t oh = rtb_timing.inline_overhead_ticks; /* its loops read inline */
	uint64_t normal = a->normal_ticks > oh ? a->normal_ticks - oh : 0;
	char note[RTB_LINE_MAX];

	uint64_t normal_min = UINT64_MAX, normal_max = 0, other_min = UINT64_MAX;
	for (size_t i = r->warm; i < r->n; i++) {
		uint8_t kind = r->kinds[i - r->warm];
		if (kind == RTB_CLK_NORMAL) {
			normal_min = RTB_MIN(normal_min, r->loops[i]);
			normal_max = RTB_MAX(normal_max, r->loops[i]);
		} else if (kind == RTB_CLK_OTHER) {
			other_min = RTB_MIN(other_min, r->loops[i]);
		}
	}
	static const struct rtb_column ccols[] = {{"class", ""},
						  {"loops", "count"},
						  {"share", "%"},
						  {"min", "ticks"},
						  {"typical", "ticks"},
						  {"max", "ticks"},
						  {"excess_typical", "ticks"},
						  {"excess_max", "ticks"}};
	struct rtb_json *j = rtb_table_begin(
		id, "classification",
		"Busy loops by class: normal (lower line), hit by the tick (upper line), other "
		"disturbances; loop times without the timestamp overhead, excess over the normal "
		"loop",
		ccols, RTB_ARRAY_SIZE(ccols));
	size_t total = a->loops;
	class_row(j, "normal", a->normal, total, a->normal > 0,
		  normal_min - RTB_MIN(normal_min, oh), normal,
		  normal_max - RTB_MIN(normal_max, oh), false, 0, 0);
	class_row(j, "tick", a->tick, total, a->tick > 0, a->tick_loop_min_ticks - oh,
		  a->tick_loop_typical_ticks - oh, a->tick_loop_worst_ticks - oh, a->tick > 0,
		  a->tick_excess_typical_ticks, a->tick_excess_worst_ticks);
	class_row(j, "other disturbance", a->other, total, a->other > 0,
		  other_min - RTB_MIN(other_min, oh), a->other_loop_typical_ticks - oh,
		  a->other_loop_worst_ticks - oh, a->other > 0,
		  a->other_loop_typical_ticks - a->normal_ticks,
		  a->other_loop_worst_ticks - a->normal_ticks);
	struct gap_stats g;
	gap_stats(r, &g);
	class_row(j, "long gap (CPU taken away)", g.n, total, g.n > 0,
		  a->normal_ticks + g.min_excess - oh, a->normal_ticks + g.typical_excess - oh,
		  a->normal_ticks + g.max_excess - oh, g.n > 0, g.typical_excess, g.max_excess);
	rtb_table_end(j);

	static const struct rtb_column scols[] = {
		{"quantity", ""}, {"value", "ticks"}, {"note", ""}};
	j = rtb_table_begin(id, "summary", "Clock tick duration (CLK-P-DUR)", scols, 3);
	rtb_fmt(note, sizeof(note), "median loop; loop counter %" RTB_PRIu32 "", r->loop_count);
	summary_row(j, "normal loop time", true, normal, note);
	summary_row(j, "loop time with interrupt (typical)", a->tick > 0,
		    a->tick_loop_typical_ticks - oh, "median of the tick loops");
	summary_row(j, "loop time with interrupt (worst)", a->tick > 0,
		    a->tick_loop_worst_ticks - oh, "longest tick loop");
	summary_row(j, "tick processing duration (typical)", a->tick > 0,
		    a->tick_excess_typical_ticks, "tick loop minus normal loop, median");
	summary_row(j, "tick processing duration (min)", a->tick > 0, a->tick_excess_min_ticks, "");
	summary_row(j, "tick processing duration (worst)", a->tick > 0, a->tick_excess_worst_ticks,
		    "includes whatever else fell into the same loop, long gaps excluded");
	if (g.n == 0)
		rtb_fmt(note, sizeof(note), "none");
	else if (g.withheld_ns != 0)
		rtb_fmt(note, sizeof(note),
			"%zu long gaps, %zu of them the %llu ms the OS withholds from busy "
			"real-time threads (RT throttling, fair server); others: hypervisor, "
			"other tasks",
			g.n, g.withheld, (unsigned long long)(g.withheld_ns / 1000000u));
	else
		rtb_fmt(note, sizeof(note),
			"%zu long gaps: not the tick (hypervisor, another task, throttling)", g.n);
	summary_row(j, "longest gap, not the tick", g.n > 0, g.max_excess, note);
	rtb_fmt(note, sizeof(note), "a loop more than this above normal is a long gap");
	summary_row(j, "long-gap limit", true, a->gap_limit_ticks, note);
	if (a->periodic)
		rtb_fmt(note, sizeof(note), "median of %zu pairs one period apart (%zu expected)",
			a->period_pairs, a->expected_pairs);
	else
		rtb_fmt(note, sizeof(note), "no periodic disturbance found");
	summary_row(j, "period between disturbances", a->periodic, a->period_ticks, note);
	rtb_fmt(note, sizeof(note),
		"end of the lower line, at least normal + normal / 32; %zu loops above",
		a->disturbed);
	summary_row(j, "disturbance threshold", true, a->threshold_ticks - oh, note);
	rtb_fmt(note, sizeof(note), "%zu loops analysed, %zu warm-up loops not counted", a->loops,
		r->warm);
	summary_row(j, "analysed time", true, a->span_ticks, note);
	rtb_table_end(j);
}

static int duration_results(struct rtb_ctx *ctx, const char *id, const struct tick_run *r)
{
	const struct rtb_clk_analysis *a = &r->a;
	struct rtb_metric ml = {
		.scenario = id,
		.label = "CLK-P-DUR",
		.metric = "loop",
		.title = "Busy loop time, back to back (the tick shows as an upper line)",
		.unit = "ticks"};
	struct rtb_metric mt = {.scenario = id,
				.label = "CLK-P-DUR",
				.metric = "tick_duration",
				.title = "Tick processing duration (tick loop minus normal loop)",
				.unit = "ticks"};
	struct rtb_metric mp = {.scenario = id,
				.label = "CLK-P-DUR",
				.metric = "tick_period",
				.title = "Time between consecutive tick loops",
				.unit = "ticks"};
	rtb_metric_param(&ml, "loop_count", r->loop_count);
	rtb_metric_param(&mt, "loop_count", r->loop_count);
	rtb_metric_param(&mp, "loop_count", r->loop_count);

	uint64_t raw = 0;
	if (ctx->raw_max > 0) {
		raw = RTB_MAX((uint64_t)ctx->raw_max, DURATION_RAW_MIN);
		raw = rtb_ctx_count(ctx, "clk.tick.duration.raw_max", raw, raw, raw);
		raw = RTB_MIN(raw, (uint64_t)(r->n - r->warm));
	}
	struct rtb_recorder rl, rt, rp;
	uint32_t small_raw = (uint32_t)RTB_MIN((uint64_t)ctx->raw_max, (uint64_t)a->tick);
	if (rtb_recorder_init(&rl, &ml, (uint32_t)r->warm, (uint32_t)raw) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the raw series");
	if (rtb_recorder_init_pair(&rt, &mt, &rp, &mp, 0, small_raw) != RTB_OK) {
		rtb_recorder_free(&rl);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	}
	/* The loops were recorded before: place the maximum at the loop's
	 * own time since the first counted loop, not at the time of adding. */
	uint64_t t = 0, last_tick = 0;
	bool seen_tick = false;
	for (size_t i = 0; i < r->n; i++) {
		uint64_t before = rl.count;
		rtb_recorder_add_ticks(&rl, r->loops[i]);
		if (i >= r->warm) {
			if (rl.count > before && rl.max_index == rl.count - 1)
				rl.max_at_ticks = t;
			if (r->kinds[i - r->warm] == RTB_CLK_TICK) {
				rtb_recorder_add(&rt, r->loops[i] - a->normal_ticks);
				if (seen_tick)
					rtb_recorder_add(&rp, t - last_tick);
				last_tick = t;
				seen_tick = true;
			}
			t += r->loops[i];
		}
	}
	rtb_emit_result(&rl);
	if (a->tick > 0)
		rtb_emit_result(&rt);
	if (rp.count > 0)
		rtb_emit_result(&rp);
	rtb_recorder_free(&rl);
	rtb_recorder_free(&rt);
	rtb_recorder_free(&rp);
	return RTB_OK;
}

/* CLK-P-DUR's records from the run. */
static int duration_report(struct rtb_ctx *ctx, const struct tick_run *rp, uint64_t ms)
{
	const char *id = "clk.tick.duration";
	const struct tick_run r = *rp;
	char a_buf[32], b_buf[32], c_buf[32];
	int rc;

	if (!r.raised)
		rtb_emit_log(id, "warning",
			     "the loop could not run at the highest priority: other threads "
			     "may add disturbances");
	if (!(rtb_port_info()->caps & RTB_CAP_REALTIME))
		rtb_emit_log(id, "warning",
			     "no real-time policy: other threads preempt the loop and show as "
			     "disturbances");
	if (r.cut)
		rtb_emit_log(id, "warning", "stopped after %zu loops, before the planned %llu ms",
			     r.n, (unsigned long long)ms);
	if (!r.a.valid)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "only %zu loops ran: too few to classify",
				    r.n);
	if (r.a.disturbed * 10 > r.a.loops)
		rtb_emit_log(id, "warning",
			     "%zu of %zu loops (over 10 %%) were disturbed: the CPU was shared or "
			     "busy, and a tick inside bursts of slowed loops cannot be seen",
			     r.a.disturbed, r.a.loops);
	if (r.a.too_dense)
		rtb_emit_log(id, "warning",
			     "%zu of %zu loops were disturbed: too many to look for a period "
			     "(loop too long for the disturbance rate, or a busy system)",
			     r.a.disturbed, r.a.loops);
	char hz_text[32];
	uint64_t stated_hz = 0;
	if (rtb_port_property("tick_hz_config", hz_text, sizeof(hz_text)) == RTB_OK)
		rtb_parse_u64(hz_text, &stated_hz);
	if (r.a.periodic && stated_hz != 0) {
		uint64_t stated = 1000000000u / stated_hz, measured = clk_ns(r.a.period_ticks);
		if (measured * 20 < stated * 19 || measured * 20 > stated * 21)
			rtb_emit_log(id, "warning",
				     "the periodic disturbance (every %llu us) is not the OS's "
				     "stated %llu Hz tick: it has another source (on a virtual "
				     "machine often the host's timer), see clk.tick.config",
				     (unsigned long long)(measured / 1000),
				     (unsigned long long)stated_hz);
	}
	clk_fmt_ticks(a_buf, sizeof(a_buf), r.a.normal_ticks);
	if (r.a.periodic) {
		clk_fmt_ticks(b_buf, sizeof(b_buf), r.a.period_ticks);
		clk_fmt_ticks(c_buf, sizeof(c_buf), r.a.tick_excess_typical_ticks);
		rtb_emit_log(
			id, "info",
			"normal loop %s; a tick every %s costing %s typically (%zu tick loops, "
			"%zu other disturbances)",
			a_buf, b_buf, c_buf, r.a.tick, r.a.other);
	} else {
		rtb_emit_log(id, "info",
			     "normal loop %s; no periodic disturbance (%zu disturbed loops): the "
			     "tick is stopped on this CPU or costs less than the threshold",
			     a_buf, r.a.disturbed);
	}
	if (r.a.gap > 0) {
		clk_fmt_ticks(a_buf, sizeof(a_buf), r.a.gap_excess_longest_ticks);
		rtb_emit_log(id, "warning",
			     "%zu long gaps (the longest %s): the CPU was taken away from the "
			     "top-priority loop; counted apart, not as tick processing (see the "
			     "classification table)",
			     r.a.gap, a_buf);
	}
	rc = duration_results(ctx, id, &r);
	if (rc == RTB_OK)
		duration_tables(id, &r);
	return rc;
}

/* ---- clk.tick.config: the measurements -------------------------------------- */

const uint64_t rtb_clk_sleep_requests_ns[CLK_SLEEPS] = {0, 1000, 10000, 100000, 1000000};

/* The period the sleeps' starts are spread over: the stated tick's. */
static uint64_t phase_period_ns(const struct os_statement *os)
{
	uint64_t p = os->hz != 0 ? 1000000000u / os->hz : CLK_PHASE_DEFAULT_NS;
	return RTB_MIN(RTB_MAX(p, 1u), (uint64_t)CLK_PHASE_MAX_NS);
}

/* Busy-wait `ticks` counter ticks, bounded by the scenario's budget. */
static void wait_ticks(const struct rtb_ctx *ctx, uint64_t ticks)
{
	uint64_t from = rtb_port_counter_read();

	while (rtb_port_counter_read() - from < ticks && !rtb_ctx_expired(ctx)) {
	}
}

/* Time short sleeps at prio_max; emit one result per requested duration.
 * Before each, a busy wait of a fraction of phase_ns (rtb_clk_phase_offset,
 * plus the option clk.tick.config.phase_shift_ns) moves its start to
 * another point of the tick: sleeps bound to the tick end at a tick, and
 * started at once after one another they would all start at the same
 * point, wherever the code path before them puts it. */
static int measure_sleeps(struct rtb_ctx *ctx, const char *id, uint64_t per_request,
			  uint64_t phase_ns, struct sleep_stats *st)
{
	const struct rtb_port_info *info = rtb_port_info();
	int old_prio = 0;
	uint64_t shift_ns = 0;

	rtb_memset(st, 0, sizeof(*st));
	const char *opt = rtb_ctx_option(ctx, "clk.tick.config.phase_shift_ns");
	if (opt != NULL)
		rtb_parse_u64(opt, &shift_ns);
	uint64_t phase = rtb_ns_to_ticks(phase_ns), shift = rtb_ns_to_ticks(shift_ns);
	st->phase_period_ns = phase_ns;
	rtb_port_thread_get_priority(NULL, &old_prio);
	set_prio(info->prio_max);
	for (size_t k = 0; k < CLK_SLEEPS; k++) {
		struct rtb_metric m = {.scenario = id,
				       .label = "CLK-B-CFG",
				       .metric = "sleep",
				       .title = "Time a relative sleep really took",
				       .unit = "ticks"};
		struct rtb_recorder r;
		rtb_metric_param(&m, "requested_ns", (int64_t)rtb_clk_sleep_requests_ns[k]);
		if (rtb_recorder_init(&r, &m, rtb_warmup_for(per_request),
				      (uint32_t)RTB_MIN((uint64_t)ctx->raw_max, per_request)) !=
		    RTB_OK) {
			set_prio(old_prio);
			return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
		}
		int rc = RTB_OK;
		for (uint64_t i = 0; i < per_request + r.warmup_target && rc == RTB_OK; i++) {
			wait_ticks(ctx, shift + rtb_clk_phase_offset(i, phase));
			uint64_t t0 = rtb_port_counter_read();
			rc = rtb_port_sleep_ns(rtb_clk_sleep_requests_ns[k]);
			uint64_t t1 = rtb_port_counter_read();
			if (rc == RTB_OK)
				rtb_recorder_add_interval(&r, t0, t1);
			if (rtb_ctx_expired(ctx))
				break;
		}
		if (rc != RTB_OK) {
			rtb_recorder_free(&r);
			set_prio(old_prio);
			return rtb_ctx_fail(ctx, rc, "sleep failed: %s", rtb_port_strerror(rc));
		}
		if (r.count > 0) {
			st->median_ns[k] = clk_ns(rtb_recorder_percentile(&r, 0.5));
			st->high_ns[k] = clk_ns(rtb_recorder_percentile(&r, 0.9));
			st->min_ns[k] = clk_ns(r.min);
			st->count[k] = r.count;
			rtb_emit_result(&r);
		}
		rtb_recorder_free(&r);
	}
	set_prio(old_prio);
	st->measured = st->count[CLK_SLEEP_1US] > 0;
	return RTB_OK;
}

/* What the OS states about its tick (struct os_statement). */
static void read_statement(const struct rtb_ctx *ctx, struct os_statement *os)
{
	uint64_t v;

	rtb_memset(os, 0, sizeof(*os));
	if (rtb_port_property("tick_hz_config", os->hz_text, sizeof(os->hz_text)) == RTB_OK &&
	    rtb_parse_u64(os->hz_text, &v))
		os->hz = os->os_hz = v;
	const char *opt = rtb_ctx_option(ctx, "clk.tick.config.stated_hz");
	if (opt != NULL && rtb_parse_u64(opt, &v)) {
		os->hz = v;
		os->hz_from_option = true;
	}
	if (rtb_port_property("no_hz", os->nohz_text, sizeof(os->nohz_text)) == RTB_OK)
		os->nohz = rtb_clk_nohz_parse(os->nohz_text);
	if (rtb_port_property("timer_resolution_ns", os->res_text, sizeof(os->res_text)) ==
		    RTB_OK &&
	    rtb_parse_u64(os->res_text, &v))
		os->resolution_ns = v;
}

/* One busy-loop run serves both: CLK-P-DUR's figures and CLK-B-CFG's verdict
 * come from the same detection, so they cannot disagree. */
static int run_tick(struct rtb_ctx *ctx)
{
	uint64_t ms = rtb_ctx_count(ctx, "duration_ms", 2500, 10000, 60000);
	uint64_t per_request = rtb_ctx_count(ctx, "iterations", 50, 500, 2000);
	struct os_statement os;
	struct sleep_stats st;
	struct tick_run r;

	read_statement(ctx, &os);
	int rc = measure_sleeps(ctx, "clk.tick.config", per_request, phase_period_ns(&os), &st);
	if (rc != RTB_OK)
		return rc;
	rc = tick_run(ctx, "clk.tick.duration", ms * 1000000u, &r);
	if (rc != RTB_OK)
		return rc;
	rc = duration_report(ctx, &r, ms);
	rtb_clk_config_report(&os, &st, &r);
	tick_run_free(&r);
	return rc;
}

static const struct rtb_option_spec clk_tick_options[] = {
	RTB_OPT_LEN("duration_ms", 1u, 864000000u, "how long the scenario measures, in ms"),
	RTB_OPT_LEN("iterations", 1u, 1000000u, "sleeps per requested duration"),
	RTB_OPT_N("clk.tick.duration.loop_count", 1u, 100000000u,
		  "busy-loop counter (default: tuned to about 20 us a loop)"),
	RTB_OPT_N("clk.tick.duration.raw_max", 0u, 100000000u, "raw loops kept for the diagram"),
	RTB_OPT_N("clk.tick.config.stated_hz", 1u, 10000000u,
		  "replace the OS's stated tick rate (simulates a platform that misstates it)"),
	RTB_OPT_N("clk.tick.config.phase_shift_ns", 0u, 100000000u,
		  "busy-wait this long more before each timed sleep (moves where in the tick "
		  "they start, as a longer code path would)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_clk_tick = {
	.name = "clk.tick",
	.ids = {{"clk.tick.config", "CLK-B-CFG"}, {"clk.tick.duration", "CLK-P-DUR"}},
	.summary = "The OS clock tick: its period and configuration, and the time it takes",
	.estimate_ms = {4300, 20000, 95000},
	.deadline_ms = {30000, 90000, 240000},
	.options = clk_tick_options,
	.run = run_tick,
};
