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
 * The loop runs in a thread created at prio_max on the measurement CPU, or
 * with option cpu_mask in one such thread on each CPU of the mask (after
 * cyclictest -S), all started together; each has its own recorder (metric
 * param "cpu") and periods row. The calling thread only waits, and four
 * times a second writes a progress record with each CPU's latest and
 * largest latency so far (`live`). Option break_ns ends a thread at its
 * first latency above the limit (rtbench run --break).
 *
 * A wake-up at or after the next deadline d_{k+1} misses every period whose
 * deadline passed while the thread was late: those periods are counted
 * (table "periods", and a log line), and the next deadline is the first
 * grid point still ahead, so the grid never drifts. A wake-up before its
 * deadline would be an OS bug: it is counted invalid and reported.
 * No other thread of the scenario runs at this priority on a CPU.
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

/* One measuring thread: its CPU, recorder, periods and live figures. */
struct timer_cpu {
	const struct rtb_ctx *ctx;
	int cpu;
	uint64_t interval, n, cost;
	uint64_t break_ns; /* 0: never; else stop at the first latency above it */
	struct rtb_recorder r;
	struct periods p;
	int rc;
	bool stopped; /* the budget or a stop request ended it early */
	bool broke;   /* a latency above break_ns ended it */
	uint64_t broke_ns, broke_index;
	volatile uint64_t now_ns, max_ns; /* live: latest and largest latency */
	volatile uint64_t done;		  /* periods covered so far */
};

static void periods_table(const struct timer_cpu *t, uint32_t n, bool per_cpu)
{
	static const struct rtb_column cols[] = {
		{"interval", "ns"},
		{"periods", "count"},
		{"wakes", "count"},
		{"missed", "count"},
		{"late_wakes", "count"},
		{"longest_miss", "count"},
		{"early_wakes", "count"},
		{"clock_read_cost", "ns"},
		{"clock_read_pairs", "count"},
		{"cpu", ""},
	};
	struct rtb_json *j = rtb_table_begin(
		"timer.periodic.latency", "periods",
		"Periods on the grid (warm-up included): woken, missed (the next deadline had "
		"already passed at wake-up), early",
		cols, RTB_ARRAY_SIZE(cols) - (per_cpu ? 0 : 1));

	for (uint32_t i = 0; i < n; i++) {
		const struct periods *p = &t[i].p;
		rtb_json_arr_begin(j);
		rtb_json_u64(j, t[i].interval);
		rtb_json_u64(j, p->elapsed);
		rtb_json_u64(j, p->wakes);
		rtb_json_u64(j, p->missed);
		rtb_json_u64(j, p->late_wakes);
		rtb_json_u64(j, p->longest);
		rtb_json_u64(j, p->early);
		rtb_json_u64(j, t[i].cost);
		rtb_json_u64(j, TIMER_CLOCK_PAIRS);
		if (per_cpu)
			rtb_json_u64(j, (uint64_t)t[i].cpu);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
}

/* The measuring loop of one CPU (a thread at prio_max on that CPU). */
static void timer_thread(void *arg)
{
	struct timer_cpu *t = arg;
	struct periods *p = &t->p;
	const uint64_t interval = t->interval;
	int rc = RTB_OK;

	t->cost = clock_read_cost_ns();
	uint64_t deadline = rtb_port_time_ns() + interval;
	while (p->elapsed < t->n) {
		if ((p->wakes & 255) == 0 && rtb_ctx_expired(t->ctx)) {
			t->stopped = true;
			break;
		}
		rc = rtb_port_sleep_until_ns(deadline);
		uint64_t woke = rtb_port_time_ns();
		if (rc != RTB_OK)
			break;
		p->wakes++;
		if (woke < deadline) {
			p->early++;
			rtb_recorder_add_invalid(&t->r);
			p->elapsed++;
			deadline += interval;
			continue;
		}
		uint64_t late = woke - deadline;
		add_latency(&t->r, deadline, woke, t->cost);
		late = late > t->cost ? late - t->cost : 0;
		t->now_ns = late;
		if (late > t->max_ns)
			t->max_ns = late;
		uint64_t missed = (woke - deadline) / interval;
		if (missed > 0) {
			p->missed += missed;
			p->late_wakes++;
			p->longest = RTB_MAX(p->longest, missed);
		}
		p->elapsed += missed + 1;
		t->done = p->elapsed;
		deadline += (missed + 1) * interval;
		if (t->break_ns != 0 && late > t->break_ns && t->r.count > 0) {
			t->broke = true;
			t->broke_ns = late;
			t->broke_index = t->r.count - 1;
			break;
		}
	}
	t->rc = rc;
}

#define TIMER_TICK_NS 250000000u /* progress records four times a second */

static void timer_tick(void *args, uint32_t n)
{
	struct timer_cpu *t = args;
	struct rtb_json *j = rtb_record_begin("log", "timer.periodic.latency");
	uint64_t done = 0, total = 0;

	for (uint32_t i = 0; i < n; i++) {
		done += t[i].done;
		total += t[i].n;
	}
	rtb_json_kstr(j, "level", "progress");
	rtb_json_kstr(j, "message", "latency so far");
	rtb_json_kdbl(j, "progress", total ? (double)done / (double)total : 0.0);
	rtb_json_key(j, "live");
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < n; i++) {
		rtb_json_obj_begin(j);
		rtb_json_ku64(j, "cpu", (uint64_t)t[i].cpu);
		rtb_json_ku64(j, "now_ns", t[i].now_ns);
		rtb_json_ku64(j, "max_ns", t[i].max_ns);
		rtb_json_obj_end(j);
	}
	rtb_json_arr_end(j);
	rtb_record_end(j);
}

static void timer_report(const struct timer_cpu *t, bool per_cpu)
{
	const char *id = "timer.periodic.latency";
	const struct periods *p = &t->p;
	char where[24] = "";

	if (per_cpu)
		rtb_fmt(where, sizeof(where), "CPU %d: ", t->cpu);
	rtb_emit_log(id, p->missed > 0 ? "warning" : "info",
		     "%smissed %llu of %llu periods of %llu ns (%llu wake-ups came after the next "
		     "deadline had passed; longest run: %llu periods)",
		     where, (unsigned long long)p->missed, (unsigned long long)p->elapsed,
		     (unsigned long long)t->interval, (unsigned long long)p->late_wakes,
		     (unsigned long long)p->longest);
	rtb_emit_log(id, "info",
		     "%slatency = wake-up clock read minus deadline, minus %llu ns (minimum cost "
		     "of one clock read over %u back-to-back pairs)",
		     where, (unsigned long long)t->cost, TIMER_CLOCK_PAIRS);
	if (p->early > 0)
		rtb_emit_log(id, "warning",
			     "%s%llu wake-ups came before their deadline (counted invalid)", where,
			     (unsigned long long)p->early);
	if (t->stopped)
		rtb_emit_log(id, "warning", "%s%s after %llu of %llu periods", where,
			     rtb_ctx_expired_cause(t->ctx), (unsigned long long)p->elapsed,
			     (unsigned long long)t->n);
	if (t->broke)
		rtb_emit_log(
			id, "warning",
			"%sstopped at the first latency above the limit of %llu ns (break_ns): "
			"%llu ns, sample %llu",
			where, (unsigned long long)t->break_ns, (unsigned long long)t->broke_ns,
			(unsigned long long)t->broke_index);
}

static int run_periodic(struct rtb_ctx *ctx)
{
	const char *id = "timer.periodic.latency";
	const struct rtb_port_info *info = rtb_port_info();
	uint64_t interval =
		rtb_ctx_count(ctx, "timer.periodic.latency.interval_ns", 1000000, 200000, 200000);
	uint64_t duration_ms = rtb_ctx_count(ctx, "duration_ms", 3000, 20000, 1800000);
	uint64_t break_ns = rtb_ctx_count(ctx, "break_ns", 0, 0, 0);
	int cpus[RTB_CPUS_MAX];
	uint32_t ncpu = rtb_ctx_cpus(ctx, cpus);
	bool per_cpu = rtb_ctx_per_cpu(ctx);

	if (interval == 0 || interval > 1000000000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "timer.periodic.latency.interval_ns must be 1 ns .. 1 s");
	uint64_t n =
		rtb_ctx_count(ctx, "iterations", duration_ms * 1000000u / interval,
			      duration_ms * 1000000u / interval, duration_ms * 1000000u / interval);
	if (n == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "needs at least one period");
	struct timer_cpu *t = rtb_port_mem_alloc(sizeof(*t) * ncpu);
	if (t == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the per-CPU state");
	rtb_memset(t, 0, sizeof(*t) * ncpu);
	uint32_t warm = rtb_warmup_for(n);
	int rc = RTB_OK;
	uint32_t ready = 0;
	for (; ready < ncpu; ready++) {
		struct rtb_metric m = {
			.scenario = id,
			.metric = "latency",
			.title = "Periodic timer: wake-up time minus the absolute deadline",
			.unit = "ns"};
		rtb_metric_param(&m, "interval_ns", (int64_t)interval);
		if (per_cpu)
			rtb_metric_param(&m, "cpu", cpus[ready]);
		t[ready].ctx = ctx;
		t[ready].cpu = cpus[ready];
		t[ready].interval = interval;
		t[ready].n = n;
		t[ready].break_ns = break_ns;
		if (rtb_recorder_init(&t[ready].r, &m, warm, ctx->raw_max) != RTB_OK) {
			rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
			break;
		}
	}
	if (rc == RTB_OK) {
		rc = rtb_run_per_cpu(cpus, ncpu, info->prio_max, timer_thread, t, sizeof(*t),
				     timer_tick, TIMER_TICK_NS);
		if (rc != RTB_OK)
			rc = rtb_ctx_fail(ctx, rc,
					  "cannot start a measuring thread at priority %d on each "
					  "CPU: %s",
					  info->prio_max, rtb_port_strerror(rc));
	}
	for (uint32_t i = 0; rc == RTB_OK && i < ncpu; i++) {
		if (t[i].rc != RTB_OK)
			rc = rtb_ctx_fail(ctx, t[i].rc, "sleeping until a deadline failed: %s",
					  rtb_port_strerror(t[i].rc));
	}
	if (rc == RTB_OK) {
		for (uint32_t i = 0; i < ncpu; i++)
			rtb_emit_result(&t[i].r);
		periods_table(t, ncpu, per_cpu);
		for (uint32_t i = 0; i < ncpu; i++)
			timer_report(&t[i], per_cpu);
	}
	for (uint32_t i = 0; i < ready; i++)
		rtb_recorder_free(&t[i].r);
	rtb_port_mem_free(t);
	return rc;
}

static const struct rtb_option_spec timer_periodic_latency_options[] = {
	RTB_OPT_N("timer.periodic.latency.interval_ns", 1000u, 1000000000u, "timer interval"),
	RTB_OPT_LEN("duration_ms", 1u, 864000000u, "how long the scenario measures, in ms"),
	RTB_OPT_N("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("cpu_mask", 0u, UINT64_MAX,
		  "one measuring thread on each CPU of this mask (bit N: CPU N; 0: the "
		  "measurement CPU)"),
	RTB_OPT_N("break_ns", 0u, 1000000000u,
		  "stop at the first latency above this many ns (0: never)"),
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
