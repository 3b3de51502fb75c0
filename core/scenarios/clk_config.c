/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CLK: clk.tick.config (CLK-B-CFG), what the OS clock tick is, concluded
 * from the measurements of the clk.tick unit (clk.c: the timed sleeps, the
 * busy-loop run and its analysis, the OS's statement). Takes no timestamp.
 *
 * The 1 us sleep is the wake-up granularity (its 90th percentile says
 * whether it waits for the tick: the sleeps start at points spread over the
 * tick); the periodic disturbance of the busy loops is the candidate tick. The decision
 * (rtb_clk_decide) passes when the measurement agrees with the OS's
 * statement (tick_hz_config, no_hz, timer_resolution_ns) or the OS states
 * nothing, fails when they contradict each other. Negative control: a
 * synthetic loop series with a disturbance of a known period injected (plus
 * noise and random spikes) goes through the same analysis, which must find
 * that period, and through the same decision with an OS statement of
 * another rate, which must fail; synthetic sleeps, bound to a tick or of a
 * finer timer, against a resolution they contradict must fail too. Option
 * clk.tick.config.stated_hz=N
 * replaces the OS's statement, so a platform that misstates its tick can
 * be simulated. Reported: the verdict and a table of what the tick is.
 */
#include "clk.h"

/* Deterministic pseudo-random numbers for the synthetic control. */
static uint64_t lcg(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 33;
}

/* A loop series like a real one: `normal` +- 0.5 %, a disturbance costing
 * normal / 8 every `period` (its instants +- 1 %), and a random spike about
 * every 700 loops. */
static void synth_series(uint64_t *out, size_t n, uint64_t normal, uint64_t period)
{
	uint64_t state = 12345, t = 0, next = period / 2;
	uint64_t noise = normal / 200 + 1;

	for (size_t i = 0; i < n; i++) {
		uint64_t d = normal - noise + lcg(&state) % (2 * noise + 1);
		while (next < t + d) {
			d += normal / 8;
			next += period - period / 100 + lcg(&state) % (period / 50 + 1);
		}
		if (lcg(&state) % 700 == 0)
			d += normal / 4 + lcg(&state) % (normal * 4);
		out[i] = d;
		t += d;
	}
}

static bool far_from(uint64_t a, uint64_t b)
{
	return b == 0 || a * 10 < b * 8 || a * 10 > b * 12;
}

/* Synthetic sleeps of the control, at starts spread as the real ones are
 * (rtb_clk_phase_offset over the tick period). */
#define CTL_SLEEPS 50u
#define CTL_TICK_NS 1000000u /* a 1 ms tick */
#define CTL_PATH_NS 9000u    /* the sleep call's own path */

/* The median and 90th percentile (as the recorder ranks them) of
 * CTL_SLEEPS sleeps of `requested` ns: bound to the tick (each returns at
 * the first tick after its path and the request), or on a finer timer
 * (the request and the path, and every 16th sleep a whole tick late: a
 * few outliers). */
static struct rtb_clk_sleep ctl_sleeps(uint64_t *buf, uint64_t requested, bool tick_bound)
{
	struct rtb_clk_sleep s = {requested, 0, 0};

	for (size_t i = 0; i < CTL_SLEEPS; i++) {
		/* the previous sleep ended at a tick: its path, then the wait */
		uint64_t start = CTL_PATH_NS + rtb_clk_phase_offset(i, CTL_TICK_NS);
		uint64_t end = start + CTL_PATH_NS + requested;
		if (tick_bound)
			buf[i] = (end + CTL_TICK_NS - 1) / CTL_TICK_NS * CTL_TICK_NS - start;
		else
			buf[i] = end - start + (i % 16 == 15 ? CTL_TICK_NS : 0);
	}
	rtb_sort_u64(buf, CTL_SLEEPS);
	s.typical_ns = buf[(CTL_SLEEPS + 1) / 2 - 1];
	s.high_ns = buf[(CTL_SLEEPS * 9 + 9) / 10 - 1];
	return s;
}

/* One decision on synthetic sleeps (1 us and 100 us requests) under a
 * 1 ms tick that was found and is stated, with the stated resolution. */
static void ctl_decide(uint64_t *buf, bool tick_bound, uint64_t resolution_ns,
		       struct rtb_clk_decision *d)
{
	struct rtb_clk_facts f = {
		.periodic = true,
		.period_ns = CTL_TICK_NS,
		.period_tol_ns = CTL_TICK_NS / 64,
		.loop_ns = CLK_LOOP_TARGET_NS,
		.sleep_measured = true,
		.sleeps = 2,
		.stated_hz = 1000000000u / CTL_TICK_NS,
		.nohz = RTB_CLK_NOHZ_PERIODIC,
		.stated_resolution_ns = resolution_ns,
	};
	f.sleep[0] = ctl_sleeps(buf, 1000, tick_bound);
	f.sleep[1] = ctl_sleeps(buf, 100000, tick_bound);
	f.sleep_typical_ns = f.sleep[0].typical_ns;
	f.sleep_high_ns = f.sleep[0].high_ns;
	rtb_clk_decide(&f, d);
}

/* The sleep rules' part of the control: sleeps bound to the tick judged
 * against a stated fine resolution must fail; sleeps of a finer timer
 * against a stated coarse one must fail, and against a fine one must
 * pass, not taken for sleeps bound to the tick. */
static bool sleep_control(uint64_t *buf, struct rtb_verdict *v)
{
	struct rtb_clk_decision d;
	bool caught = true;

	ctl_decide(buf, true, 1000, &d);
	caught = caught && d.outcome == RTB_FAIL;
	rtb_verdict_control_evidence(v, "sleeps bound to a 1 ms tick, stated resolution 1 us: %s",
				     rtb_outcome_name(d.outcome));
	ctl_decide(buf, true, CTL_TICK_NS, &d);
	rtb_verdict_control_evidence(v, "the same, stated resolution 1 ms (matching): %s",
				     rtb_outcome_name(d.outcome));
	ctl_decide(buf, false, CTL_TICK_NS, &d);
	caught = caught && d.outcome == RTB_FAIL;
	rtb_verdict_control_evidence(v,
				     "sleeps of a finer timer (6 %% a tick late), stated "
				     "resolution 1 ms: %s",
				     rtb_outcome_name(d.outcome));
	ctl_decide(buf, false, 1000, &d);
	caught = caught && d.outcome == RTB_PASS && !d.sleep_tick_bound;
	rtb_verdict_control_evidence(v,
				     "the same, stated resolution 1 us (matching): %s, %s the "
				     "tick",
				     rtb_outcome_name(d.outcome),
				     d.sleep_tick_bound ? "taken as bound to" : "not bound to");
	return caught;
}

/* The negative control: a known period injected into a synthetic series
 * must be found, and a contradicting statement must make the decision
 * fail; synthetic sleeps must be told bound to the tick or not
 * (sleep_control). Uses the real run's buffers once its analysis is done. */
static void control(struct tick_run *r, uint64_t stated_period_ns, struct rtb_verdict *v)
{
	char a_buf[32], b_buf[32];
	uint64_t normal = r->a.valid ? r->a.normal_ticks : rtb_ns_to_ticks(CLK_LOOP_TARGET_NS);
	uint64_t period_ns = 3000000;

	if (!far_from(period_ns, stated_period_ns) ||
	    (r->a.periodic && !far_from(period_ns, clk_ns(r->a.period_ticks))))
		period_ns = 7000000;
	uint64_t period = rtb_ns_to_ticks(period_ns);
	size_t n = (size_t)RTB_MIN((uint64_t)r->cap, 60 * period / (normal ? normal : 1) + 1000);
	struct rtb_clk_analysis a;

	rtb_fmt(v->control_description, sizeof(v->control_description),
		"synthetic loops with a disturbance every %llu us, against a stated tick "
		"of 2/3 that period; synthetic sleeps, against a resolution they "
		"contradict",
		(unsigned long long)(period_ns / 1000));
	synth_series(r->loops, n, normal, period);
	rtb_clk_analyse(r->loops, n, 0, r->scratch, NULL, &a);
	clk_fmt_ticks(a_buf, sizeof(a_buf), period);
	uint64_t found_tol = 2 * normal + period / 64;
	bool found = a.periodic && (a.period_ticks > period ? a.period_ticks - period
							    : period - a.period_ticks) <= found_tol;
	if (a.periodic) {
		clk_fmt_ticks(b_buf, sizeof(b_buf), a.period_ticks);
		rtb_verdict_control_evidence(v,
					     "%zu synthetic loops, disturbance every %s injected: "
					     "found every %s (%zu tick loops, %zu other)",
					     n, a_buf, b_buf, a.tick, a.other);
	} else {
		rtb_verdict_control_evidence(
			v, "%zu synthetic loops, disturbance every %s injected: no period found", n,
			a_buf);
	}

	struct rtb_clk_facts f = {
		.periodic = a.periodic,
		.period_ns = clk_ns(a.period_ticks),
		.period_tol_ns = clk_ns(a.tolerance_ticks),
		.loop_ns = clk_ns(a.normal_ticks),
		.stated_hz = 1500000000u / period_ns, /* 2/3 of the injected period */
		.nohz = RTB_CLK_NOHZ_PERIODIC,
	};
	struct rtb_clk_decision d;
	rtb_clk_decide(&f, &d);
	rtb_verdict_control_evidence(v, "stated %llu Hz: %s (%s)", (unsigned long long)f.stated_hz,
				     rtb_outcome_name(d.outcome), d.reason);
	enum rtb_outcome negative = d.outcome;
	f.stated_hz = 1000000000u / period_ns;
	rtb_clk_decide(&f, &d);
	rtb_verdict_control_evidence(v, "stated %llu Hz (matching): %s",
				     (unsigned long long)f.stated_hz, rtb_outcome_name(d.outcome));
	bool sleeps = sleep_control(r->scratch, v);
	v->control =
		found && negative == RTB_FAIL && sleeps ? RTB_CONTROL_CAUGHT : RTB_CONTROL_MISSED;
}

/* One row of the tick table: a property, its value and where it comes from. */
static void config_row(struct rtb_json *j, const char *property, const char *value,
		       const char *source)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, property);
	rtb_json_str(j, value);
	rtb_json_str(j, source);
	rtb_json_arr_end(j);
}

static void config_table(const char *id, const struct os_statement *os,
			 const struct rtb_clk_decision *d, const struct sleep_stats *st,
			 const struct tick_run *r)
{
	static const struct rtb_column cols[] = {{"property", ""}, {"value", ""}, {"source", ""}};
	char buf[64];
	struct rtb_json *j =
		rtb_table_begin(id, "tick", "What the OS clock tick is (CLK-B-CFG)", cols, 3);

	if (d->tick_period_ns != 0)
		rtb_fmt_ns(buf, sizeof(buf), d->tick_period_ns);
	else if (d->tickless)
		rtb_fmt(buf, sizeof(buf), "tickless / high-resolution timers");
	else
		rtb_fmt(buf, sizeof(buf), "not determined (see the verdict)");
	config_row(j, "tick period", buf, "concluded (measurement and OS statement)");

	if (r->a.periodic)
		clk_fmt_ticks(buf, sizeof(buf), r->a.period_ticks);
	else
		rtb_fmt(buf, sizeof(buf), "none found");
	config_row(j, "periodic disturbance of a busy loop", buf, "measured");

	if (st->measured) {
		char high[32];
		rtb_fmt_ns(high, sizeof(high), st->high_ns[CLK_SLEEP_1US]);
		rtb_fmt_ns(buf, sizeof(buf), st->median_ns[CLK_SLEEP_1US]);
		rtb_fmt(buf + rtb_strlen(buf), sizeof(buf) - rtb_strlen(buf), ", up to %s", high);
	} else {
		rtb_fmt(buf, sizeof(buf), "not measured");
	}
	config_row(j, "sleep granularity (1 us sleep: median, 90th percentile)", buf,
		   d->sleep_tick_bound ? "measured: wake-ups follow the tick"
				       : "measured: wake-ups do not wait for a tick");

	if (os->hz != 0)
		rtb_fmt(buf, sizeof(buf), "%llu Hz", (unsigned long long)os->hz);
	else
		rtb_fmt(buf, sizeof(buf), "not stated");
	config_row(j, "configured tick rate", buf,
		   os->hz_from_option ? "option clk.tick.config.stated_hz" : "OS (tick_hz_config)");

	config_row(j, "dynamic ticks", os->nohz_text[0] != '\0' ? os->nohz_text : "not stated",
		   "OS (no_hz)");

	if (os->resolution_ns != 0)
		rtb_fmt_ns(buf, sizeof(buf), os->resolution_ns);
	else
		rtb_fmt(buf, sizeof(buf), "not stated");
	config_row(j, "timer resolution", buf, "OS (timer_resolution_ns)");

	config_row(j, "clock period adaptable",
		   os->os_hz != 0 ? "yes, by OS configuration (build time)"
				  : "unknown (the OS does not state its tick configuration)",
		   "OS");
	rtb_table_end(j);
}

/* CLK-B-CFG's verdict and table from the same run. It runs last: its control
 * reuses the run's buffers. */
void rtb_clk_config_report(const struct os_statement *os_in, const struct sleep_stats *st_in,
			   struct tick_run *rp)
{
	const char *id = "clk.tick.config";
	const struct os_statement os = *os_in;
	const struct sleep_stats st = *st_in;
	struct tick_run r = *rp;
	struct rtb_verdict v;
	char a_buf[32], b_buf[32], c_buf[32];

	rtb_verdict_init(&v, id, "CLK-B-CFG", "tick_config");
	struct rtb_clk_facts f = {
		.periodic = r.a.periodic,
		.period_ns = clk_ns(r.a.period_ticks),
		.period_tol_ns = clk_ns(r.a.tolerance_ticks),
		.loop_ns = clk_ns(r.a.normal_ticks),
		.span_ns = clk_ns(r.a.span_ticks),
		.hole_ns = clk_ns(r.a.hole_ticks),
		.holes = r.a.holes,
		.sleep_measured = st.measured,
		.sleep_typical_ns = st.median_ns[CLK_SLEEP_1US],
		.sleep_high_ns = st.high_ns[CLK_SLEEP_1US],
		.sleeps = 0,
		.stated_hz = os.hz,
		.nohz = os.nohz,
		.stated_resolution_ns = os.resolution_ns,
	};
	for (size_t k = 0; k < CLK_SLEEPS; k++) {
		if (st.count[k] == 0 || f.sleeps == RTB_CLK_SLEEPS_MAX)
			continue;
		f.sleep[f.sleeps].requested_ns = rtb_clk_sleep_requests_ns[k];
		f.sleep[f.sleeps].typical_ns = st.median_ns[k];
		f.sleep[f.sleeps].high_ns = st.high_ns[k];
		f.sleeps++;
	}
	struct rtb_clk_decision d;
	if (r.a.valid) {
		rtb_clk_decide(&f, &d);
	} else {
		rtb_memset(&d, 0, sizeof(d));
		d.outcome = RTB_INCONCLUSIVE;
		rtb_fmt(d.reason, sizeof(d.reason), "only %zu busy loops ran: too few to judge",
			r.n);
	}
	v.outcome = d.outcome;
	rtb_fmt(v.reason, sizeof(v.reason), "%s", d.reason);

	rtb_verdict_evidence(&v, "OS states: tick %s%s, dynamic ticks %s, timer resolution %s ns",
			     os.os_hz != 0 ? os.hz_text : "not stated", os.os_hz != 0 ? " Hz" : "",
			     os.nohz_text[0] != '\0' ? os.nohz_text : "not stated",
			     os.res_text[0] != '\0' ? os.res_text : "not stated");
	if (os.hz_from_option)
		rtb_verdict_evidence(&v,
				     "the stated rate %llu Hz comes from the option "
				     "clk.tick.config.stated_hz, not from the OS",
				     (unsigned long long)os.hz);
	clk_fmt_ticks(a_buf, sizeof(a_buf), r.a.normal_ticks);
	clk_fmt_ticks(b_buf, sizeof(b_buf), r.a.span_ticks);
	clk_fmt_ticks(c_buf, sizeof(c_buf), r.a.threshold_ticks);
	rtb_verdict_evidence(&v,
			     "busy loop at %s priority: %zu loops of %s over %s; %zu disturbed "
			     "(above %s)",
			     r.raised ? "top" : "normal", r.a.loops, a_buf, b_buf, r.a.disturbed,
			     c_buf);
	if (r.a.holes > 0) {
		clk_fmt_ticks(a_buf, sizeof(a_buf), r.a.hole_ticks);
		clk_fmt_ticks(b_buf, sizeof(b_buf), r.a.span_ticks - r.a.hole_ticks);
		rtb_verdict_evidence(&v,
				     "the CPU was taken away %zu times for %s in all (loops of 9 "
				     "normal loops or more): the period is judged over the %s the "
				     "loop ran",
				     r.a.holes, a_buf, b_buf);
	}
	if (r.a.periodic) {
		clk_fmt_ticks(a_buf, sizeof(a_buf), r.a.period_ticks);
		clk_fmt_ticks(b_buf, sizeof(b_buf), r.a.tick_excess_typical_ticks);
		rtb_verdict_evidence(&v,
				     "periodic disturbance every %s (%zu of %zu expected pairs), "
				     "costing %s typically",
				     a_buf, r.a.period_pairs, r.a.expected_pairs, b_buf);
	} else {
		rtb_verdict_evidence(&v, "no periodic disturbance among the %zu disturbed loops",
				     r.a.disturbed);
	}
	if (st.measured) {
		rtb_fmt_ns(a_buf, sizeof(a_buf), st.phase_period_ns);
		rtb_verdict_evidence(&v, "sleeps started at points spread over %s (%s)", a_buf,
				     os.hz != 0 ? "the stated tick" : "no tick stated");
	}
	for (size_t k = 0; k < CLK_SLEEPS && st.measured; k++) {
		char d_buf[32];
		rtb_fmt_ns(a_buf, sizeof(a_buf), rtb_clk_sleep_requests_ns[k]);
		rtb_fmt_ns(b_buf, sizeof(b_buf), st.median_ns[k]);
		rtb_fmt_ns(c_buf, sizeof(c_buf), st.min_ns[k]);
		rtb_fmt_ns(d_buf, sizeof(d_buf), st.high_ns[k]);
		rtb_verdict_evidence(
			&v, "sleep(%s): median %s, 90th percentile %s, min %s over %llu sleeps",
			a_buf, b_buf, d_buf, c_buf, (unsigned long long)st.count[k]);
	}
	if (d.tick_period_ns != 0) {
		rtb_fmt_ns(a_buf, sizeof(a_buf), d.tick_period_ns);
		rtb_verdict_evidence(&v, "tick period: %s (%llu Hz)%s", a_buf,
				     (unsigned long long)((1000000000u + d.tick_period_ns / 2) /
							  d.tick_period_ns),
				     d.sleep_tick_bound ? "; short sleeps wait for it"
							: "; short sleeps do not wait for it");
	} else if (d.tickless) {
		rtb_verdict_evidence(&v, "tick period: none found (tickless / high-resolution "
					 "timers)");
	} else {
		rtb_verdict_evidence(&v, "tick period: not determined (the periodic disturbance "
					 "found is not the stated tick)");
	}
	rtb_verdict_evidence(&v, "clock period adaptable: %s",
			     os.os_hz != 0
				     ? "yes, by OS configuration (build time)"
				     : "unknown (the OS does not state its tick configuration)");
	if (r.cut)
		rtb_verdict_evidence(&v, "the busy-loop run was cut short after %zu loops", r.n);

	control(&r, os.hz != 0 ? 1000000000u / os.hz : 0, &v);
	rtb_verdict_settle(&v);
	rtb_emit_verdict(&v);
	config_table(id, &os, &d, &st, &r);
}
