/* SPDX-License-Identifier: Apache-2.0 */
/*
 * os.noise (after oslat): how much of the CPU the OS takes away from a
 * thread that never gives it up.
 *
 * A thread at the highest relative priority (prio_max) on the measurement
 * CPU, or with option cpu_mask one on each CPU of the mask (all started
 * together, each with its own recorders, metric param "cpu"), reads the
 * counter in a tight loop until an explicit end time (duration_ms). The
 * calling thread waits and writes progress records with each CPU's longest
 * gap so far when it gets the CPU (on a CPU held by a loop it does not). Each iteration reads the
 * counter once and records the gap since the previous read: gap = t_i - t_(i-1), one read closing a
 * gap and opening the next, so the gaps cover the run without holes. Every gap goes into the "loop"
 * recorder (gap minus the timestamp overhead, like every timed sample): a histogram of every loop's
 * duration, as oslat reports. The loop's own cost is the smallest gap.
 * A gap above the threshold (option os.noise.threshold_ns, default 1 us,
 * never below twice the loop's cost) is noise: an interrupt, the tick, a
 * kernel thread or the scheduler took the CPU. Those gaps also go into the
 * "noise" recorder, and the time they stole (gap minus the loop's cost) is
 * summed: the summary table gives the total, the time stolen per second of
 * run, the longest gap and when it began.
 *
 * The first 1 % of the run (at least 10 ms, at most 1 s) is a warm-up: the
 * same loop, its gaps counted as the loop recorder's warm-up and not as
 * noise; it also gives the loop's cost the threshold is checked against.
 *
 * Bounds. The loop tests the end time on every iteration (one compare with
 * the next check point, at most 10 ms apart, where the end, a stop request
 * and the options below are looked at). On a host with one CPU the loop
 * would hold the only CPU for the whole run, so by default it runs in
 * slices of 200 ms (option os.noise.slice_ms; 0 is one slice) with a 1 ms
 * sleep between them; the sleeps are not measured (the gap that contains
 * one is not recorded and its time is not part of the run). Elsewhere the
 * runner's watchdog has another CPU and the loop runs in one slice. Option
 * os.noise.inject_us=N (a test hook) sleeps N us every 100 ms inside the
 * measurement, a known disturbance that must show as noise.
 */
#include "rtb/core.h"

#define NOISE_CHECK_NS 10000000u /* check points at least this often */
#define NOISE_PAUSE_NS 1000000u	 /* a pause between slices */
#define NOISE_INJECT_EVERY_NS 100000000u

struct spin {
	struct rtb_recorder *loop, *noise;
	uint64_t threshold; /* ticks; UINT64_MAX: nothing is noise (warm-up) */
	uint64_t noise_sum; /* raw ticks of the gaps above the threshold */
	uint64_t noise_count;
	uint64_t slice; /* ticks; 0: no pauses */
	uint64_t pauses, pause_ticks;
	uint64_t inject_ns, injected;
	bool stopped;
	volatile uint64_t live_now, live_max; /* ticks: largest gap of the last check, ever */
	uint64_t window_max;
};

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0 ? a : b;
}

/* Read the counter back to back from start until end (counter ticks). */
static void spin(struct spin *s, uint64_t start, uint64_t end)
{
	const uint64_t check = rtb_ns_to_ticks(NOISE_CHECK_NS);
	const uint64_t inject_every = rtb_ns_to_ticks(NOISE_INJECT_EVERY_NS);
	uint64_t slice_end = s->slice != 0 ? start + s->slice : end;
	uint64_t next_inject = start + inject_every;
	uint64_t next = earliest(earliest(end, slice_end), start + check);
	uint64_t prev = start;

	for (;;) {
		uint64_t now = rtb_port_counter_read();
		uint64_t gap = now - prev;
		rtb_recorder_add_interval(s->loop, prev, now);
		if (gap > s->threshold) {
			rtb_recorder_add_interval(s->noise, prev, now);
			s->noise_sum += gap;
			s->noise_count++;
			if (gap > s->window_max)
				s->window_max = gap;
		}
		prev = now;
		if ((int64_t)(now - next) < 0)
			continue;
		/* a check point: outside the timed gaps' common path */
		if (s->threshold != UINT64_MAX) {
			s->live_now = s->window_max;
			if (s->window_max > s->live_max)
				s->live_max = s->window_max;
			s->window_max = 0;
		}
		if ((int64_t)(now - end) >= 0)
			break;
		if (rtb_port_stop_requested()) {
			s->stopped = true;
			break;
		}
		if (s->slice != 0 && (int64_t)(now - slice_end) >= 0) {
			rtb_port_sleep_ns(NOISE_PAUSE_NS);
			prev = rtb_port_counter_read();
			s->pause_ticks += prev - now;
			s->pauses++;
			slice_end = prev + s->slice;
			now = prev;
		}
		if (s->inject_ns != 0 && (int64_t)(now - next_inject) >= 0) {
			/* deliberately inside the next gap */
			rtb_port_sleep_ns(s->inject_ns);
			s->injected++;
			next_inject += inject_every;
		}
		next = earliest(end, now + check);
		if (s->slice != 0)
			next = earliest(next, slice_end);
		if (s->inject_ns != 0)
			next = earliest(next, next_inject);
	}
}

static int row_cpu = -1; /* the cpu column of summary rows; -1: none */

static void row(struct rtb_json *j, const char *what, double value, const char *unit)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, what);
	rtb_json_dbl(j, value);
	rtb_json_str(j, unit);
	if (row_cpu >= 0)
		rtb_json_u64(j, (uint64_t)row_cpu);
	rtb_json_arr_end(j);
}

struct noise_summary {
	uint64_t measured_ns, loops, loop_cost_ns, threshold_ns, gaps, stolen_ns;
	double stolen_per_s_ns, stolen_ppm, gaps_per_s;
	uint64_t longest_ns, longest_at_ns;
	uint64_t pauses, pause_ns, injected;
};

static void summary_table(const struct noise_summary *n, int cpu)
{
	static const struct rtb_column cols[] = {
		{"quantity", ""}, {"value", ""}, {"unit", ""}, {"cpu", ""}};
	row_cpu = cpu;
	struct rtb_json *j =
		rtb_table_begin("os.noise", "summary", "OS noise seen by a top-priority busy loop",
				cols, cpu >= 0 ? 4 : 3);

	row(j, "measured time (warm-up and pauses excluded)", (double)n->measured_ns, "ns");
	row(j, "loops", (double)n->loops, "count");
	row(j, "loop cost (smallest gap)", (double)n->loop_cost_ns, "ns");
	row(j, "threshold", (double)n->threshold_ns, "ns");
	row(j, "gaps above the threshold", (double)n->gaps, "count");
	row(j, "gaps above the threshold per second", n->gaps_per_s, "count/s");
	row(j, "time stolen (gaps minus the loop cost)", (double)n->stolen_ns, "ns");
	row(j, "time stolen per second", n->stolen_per_s_ns, "ns/s");
	row(j, "share of the CPU stolen", n->stolen_ppm, "ppm");
	row(j, "longest gap", (double)n->longest_ns, "ns");
	row(j, "longest gap began at (from the start)", (double)n->longest_at_ns, "ns");
	row(j, "pauses between slices (not measured)", (double)n->pauses, "count");
	row(j, "time in pauses", (double)n->pause_ns, "ns");
	row(j, "injected sleeps (test hook)", (double)n->injected, "count");
	rtb_table_end(j);
}

static void summarise(const struct spin *s, uint64_t run_start, uint64_t run_end,
		      uint64_t threshold, struct noise_summary *n)
{
	const struct rtb_recorder *loop = s->loop;
	uint64_t cost = loop->min + rtb_recorder_overhead(loop); /* raw smallest gap */
	uint64_t measured = run_end - run_start - s->pause_ticks;
	uint64_t stolen = s->noise_sum - s->noise_count * cost;
	uint64_t longest = loop->max + rtb_recorder_overhead(loop);
	uint64_t longest_end = loop->origin_ticks + loop->max_at_ticks;

	rtb_memset(n, 0, sizeof(*n));
	n->measured_ns = rtb_ticks_to_ns(measured);
	n->loops = loop->count;
	n->loop_cost_ns = rtb_ticks_to_ns(cost);
	n->threshold_ns = rtb_ticks_to_ns(threshold);
	n->gaps = s->noise_count;
	n->stolen_ns = rtb_ticks_to_ns(stolen);
	if (n->measured_ns > 0) {
		double secs = (double)n->measured_ns / 1e9;
		n->stolen_per_s_ns = (double)n->stolen_ns / secs;
		n->stolen_ppm = (double)n->stolen_ns * 1e6 / (double)n->measured_ns;
		n->gaps_per_s = (double)n->gaps / secs;
	}
	n->longest_ns = rtb_ticks_to_ns(longest);
	n->longest_at_ns = longest_end - longest > run_start
				   ? rtb_ticks_to_ns(longest_end - longest - run_start)
				   : 0;
	n->pauses = s->pauses;
	n->pause_ns = rtb_ticks_to_ns(s->pause_ticks);
	n->injected = s->injected;
}

static void report(const struct noise_summary *n, const struct spin *s, bool raised,
		   uint64_t slice_ms, int cpu)
{
	const char *id = "os.noise";
	char cost[32], thr[32], stolen[32], longest[32], at[32], where[24] = "";

	if (cpu >= 0)
		rtb_fmt(where, sizeof(where), "CPU %d: ", cpu);

	rtb_fmt_ns(cost, sizeof(cost), n->loop_cost_ns);
	rtb_fmt_ns(thr, sizeof(thr), n->threshold_ns);
	rtb_fmt_ns(stolen, sizeof(stolen), (uint64_t)n->stolen_per_s_ns);
	rtb_fmt_ns(longest, sizeof(longest), n->longest_ns);
	rtb_fmt_ns(at, sizeof(at), n->longest_at_ns);
	rtb_emit_log(id, "info",
		     "%sloop cost %s; %llu gaps above %s; %s stolen per second (%llu ppm); "
		     "longest gap %s, %s after the start",
		     where, cost, (unsigned long long)n->gaps, thr, stolen,
		     (unsigned long long)(n->stolen_ppm + 0.5), longest, at);
	if (!raised)
		rtb_emit_log(id, "warning",
			     "the loop could not run at the highest priority: other threads of "
			     "this program show as noise");
	if (s->pauses > 0)
		rtb_emit_log(id, "info",
			     "the loop paused %llu times for 1 ms, between slices of %llu ms (not "
			     "measured), so that the rest of the system can run",
			     (unsigned long long)s->pauses, (unsigned long long)slice_ms);
	if (n->longest_ns >= 10000000u)
		rtb_emit_log(id, "warning",
			     "a gap of %s is longer than any interrupt: the kernel gave the CPU to "
			     "other threads (on Linux, RT throttling or the fair server, which run "
			     "normal threads for a share of every second; see rtbench system)",
			     longest);
	if (s->stopped)
		rtb_emit_log(id, "warning", "%sstopped early on request", where);
}

/* One measuring thread: its CPU, recorders and loop state. */
struct noise_cpu {
	const struct rtb_ctx *ctx;
	int cpu;
	uint64_t duration_ms, threshold_ns, slice_ms, inject_us;
	struct rtb_recorder loop, noise;
	struct spin s;
	uint64_t threshold, start, run_end, warm_cost;
	bool cut, measured;
};

/* Warm-up, then the measured run, on one CPU (a thread at prio_max). */
static void noise_thread(void *arg)
{
	struct noise_cpu *c = arg;
	struct spin *s = &c->s;

	rtb_memset(s, 0, sizeof(*s));
	s->loop = &c->loop;
	s->noise = &c->noise;
	s->slice = rtb_ns_to_ticks(c->slice_ms * 1000000u);

	/* warm-up: the loop recorder counts every gap as warm-up */
	uint64_t warm_ms = RTB_MIN(RTB_MAX(c->duration_ms / 100, 10u), 1000u);
	uint64_t t = rtb_port_counter_read();
	c->loop.warmup_target = UINT32_MAX;
	s->threshold = UINT64_MAX;
	spin(s, t, t + rtb_ns_to_ticks(warm_ms * 1000000u));
	c->loop.warmup_target = (uint32_t)RTB_MIN(c->loop.warmup_count, (uint64_t)UINT32_MAX - 1);
	c->warm_cost = c->loop.warmup_min + rtb_recorder_overhead(&c->loop);
	c->threshold = rtb_ns_to_ticks(c->threshold_ns);
	if (c->threshold < 2 * c->warm_cost)
		c->threshold = 2 * c->warm_cost;

	/* the measured run */
	s->threshold = c->threshold;
	s->pauses = s->pause_ticks = 0;
	s->inject_ns = c->inject_us * 1000u;
	c->start = rtb_port_counter_read();
	uint64_t end = c->start + rtb_ns_to_ticks(c->duration_ms * 1000000u);
	if ((int64_t)(end - c->ctx->budget_end_ticks) > 0) {
		end = c->ctx->budget_end_ticks;
		c->cut = true;
	}
	if (!s->stopped)
		spin(s, c->start, end);
	c->run_end = rtb_port_counter_read();
}

#define NOISE_TICK_NS 250000000u

static void noise_tick(void *args, uint32_t n)
{
	struct noise_cpu *c = args;
	struct rtb_json *j = rtb_record_begin("log", "os.noise");
	uint64_t now = rtb_port_counter_read(), done = 0, total = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t planned = rtb_ns_to_ticks(c[i].duration_ms * 1000000u);
		total += planned;
		if (c[i].start != 0 && (int64_t)(now - c[i].start) > 0)
			done += RTB_MIN(now - c[i].start, planned);
	}
	rtb_json_kstr(j, "level", "progress");
	rtb_json_kstr(j, "message", "longest gap so far");
	rtb_json_kdbl(j, "progress", total ? (double)done / (double)total : 0.0);
	rtb_json_key(j, "live");
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < n; i++) {
		rtb_json_obj_begin(j);
		rtb_json_ku64(j, "cpu", (uint64_t)c[i].cpu);
		rtb_json_ku64(j, "now_ns", rtb_ticks_to_ns(c[i].s.live_now));
		rtb_json_ku64(j, "max_ns", rtb_ticks_to_ns(c[i].s.live_max));
		rtb_json_obj_end(j);
	}
	rtb_json_arr_end(j);
	rtb_record_end(j);
}

static int noise_results(struct noise_cpu *c, bool per_cpu)
{
	int cpu = per_cpu ? c->cpu : -1;

	if (c->threshold > rtb_ns_to_ticks(c->threshold_ns))
		rtb_emit_log("os.noise", "info",
			     "threshold raised from %llu ns to twice the loop's cost, %llu ns",
			     (unsigned long long)c->threshold_ns,
			     (unsigned long long)rtb_ticks_to_ns(2 * c->warm_cost));
	if (c->loop.count == 0 && c->s.stopped) {
		rtb_emit_log("os.noise", "warning", "stopped on request before the measurement");
		return RTB_OK;
	}
	if (c->loop.count == 0)
		return RTB_E_INVALID;
	struct noise_summary n;
	summarise(&c->s, c->start, c->run_end, c->threshold, &n);
	if (c->cut)
		rtb_emit_log("os.noise", "warning",
			     "time budget reached: measured %llu ms of the planned %llu ms",
			     (unsigned long long)(n.measured_ns / 1000000u),
			     (unsigned long long)c->duration_ms);
	report(&n, &c->s, true, c->slice_ms, cpu);
	rtb_emit_result(&c->loop);
	rtb_emit_result(&c->noise);
	summary_table(&n, cpu);
	return RTB_OK;
}

static int run_noise(struct rtb_ctx *ctx)
{
	const struct rtb_port_info *info = rtb_port_info();
	uint64_t duration_ms = rtb_ctx_count(ctx, "duration_ms", 2500, 60000, 1800000);
	uint64_t threshold_ns = rtb_ctx_count(ctx, "os.noise.threshold_ns", 1000, 1000, 1000);
	uint64_t one_cpu_slice = info->cpu_count == 1 ? 200 : 0;
	uint64_t slice_ms = rtb_ctx_count(ctx, "os.noise.slice_ms", one_cpu_slice, one_cpu_slice,
					  one_cpu_slice);
	uint64_t inject_us = rtb_ctx_count(ctx, "os.noise.inject_us", 0, 0, 0);
	int cpus[RTB_CPUS_MAX];
	uint32_t ncpu = rtb_ctx_cpus(ctx, cpus);
	bool per_cpu = rtb_ctx_per_cpu(ctx);

	if (duration_ms < 20 || duration_ms > 86400000u || threshold_ns == 0 ||
	    inject_us > 1000000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "duration_ms must be 20 ms .. 1 day, os.noise.threshold_ns "
				    "positive, os.noise.inject_us at most 1 s");
	struct noise_cpu *c = rtb_port_mem_alloc(sizeof(*c) * ncpu);
	if (c == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the per-CPU state");
	rtb_memset(c, 0, sizeof(*c) * ncpu);
	int rc = RTB_OK;
	uint32_t ready = 0;
	for (; ready < ncpu; ready++) {
		struct rtb_metric ml = {
			.scenario = "os.noise",
			.metric = "loop",
			.title = "Every loop: time between two consecutive counter reads",
			.unit = "ticks"};
		struct rtb_metric mn = {
			.scenario = "os.noise",
			.metric = "noise",
			.title = "Gaps above the threshold: the loop was interrupted",
			.unit = "ticks"};
		rtb_metric_param(&ml, "duration_ms", (int64_t)duration_ms);
		rtb_metric_param(&mn, "duration_ms", (int64_t)duration_ms);
		if (per_cpu) {
			rtb_metric_param(&ml, "cpu", cpus[ready]);
			rtb_metric_param(&mn, "cpu", cpus[ready]);
		}
		c[ready].ctx = ctx;
		c[ready].cpu = cpus[ready];
		c[ready].duration_ms = duration_ms;
		c[ready].threshold_ns = threshold_ns;
		c[ready].slice_ms = slice_ms;
		c[ready].inject_us = inject_us;
		if (rtb_recorder_init_pair(&c[ready].loop, &ml, &c[ready].noise, &mn, 0,
					   ctx->raw_max) != RTB_OK) {
			rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
			break;
		}
	}
	if (rc == RTB_OK) {
		rc = rtb_run_per_cpu(cpus, ncpu, info->prio_max, noise_thread, c, sizeof(*c),
				     noise_tick, NOISE_TICK_NS);
		if (rc != RTB_OK)
			rc = rtb_ctx_fail(ctx, rc,
					  "cannot start a busy loop at priority %d on each CPU: %s",
					  info->prio_max, rtb_port_strerror(rc));
	}
	for (uint32_t i = 0; rc == RTB_OK && i < ncpu; i++) {
		if (noise_results(&c[i], per_cpu) != RTB_OK)
			rc = rtb_ctx_fail(ctx, RTB_E_INVALID, "no loop was measured");
	}
	if (!(info->caps & RTB_CAP_REALTIME) && rc == RTB_OK)
		rtb_emit_log("os.noise", "warning",
			     "no real-time policy: every other thread on the CPU shows as noise");
	for (uint32_t i = 0; i < ready; i++) {
		rtb_recorder_free(&c[i].loop);
		rtb_recorder_free(&c[i].noise);
	}
	rtb_port_mem_free(c);
	return rc;
}

static const struct rtb_option_spec os_noise_options[] = {
	RTB_OPT_LEN("duration_ms", 1u, 864000000u, "how long the scenario measures, in ms"),
	RTB_OPT_N("os.noise.threshold_ns", 1u, 1000000000u,
		  "a gap above the loop's own cost by more than this is noise"),
	RTB_OPT_N("os.noise.slice_ms", 0u, 60000u,
		  "busy slices of this length with pauses between (0: one slice; 200 on a single "
		  "CPU)"),
	RTB_OPT_N("os.noise.inject_us", 0u, 1000000u,
		  "a disturbance injected into the loop on purpose (must show as noise)"),
	RTB_OPT_N("cpu_mask", 0u, UINT64_MAX,
		  "one busy loop on each CPU of this mask (bit N: CPU N; 0: the measurement "
		  "CPU)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_os_noise = {
	.name = "os.noise",
	.ids = {{"os.noise", NULL}},
	.summary = "OS noise: gaps stolen from a top-priority busy loop, time lost per second "
		   "(oslat)",
	.estimate_ms = {2600, 60700, 1818000},
	.deadline_ms = {20000, 120000, 2700000},
	.options = os_noise_options,
	.run = run_noise,
};
