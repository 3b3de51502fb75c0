/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runner: profiles, finding a unit in the catalog, running one scenario
 * and framing its records, and rtb_main(), the command line hosted ports and
 * firmware consoles call. Its parts: args.c parses the command line, ctx.c
 * is the context a scenario reads its options and time budget from, and
 * records.c writes the runner's own records (meta, catalog, end).
 *
 * Each scenario gets a time budget of 80 % of its deadline: long loops stop
 * themselves there (rtb_ctx_expired()) and report what they measured, so the
 * watchdog outside the process, which enforces the full deadline, only fires
 * for a scenario that is really stuck.
 */
#include "runner.h"

static const char *const profile_names[RTB_PROFILE_COUNT] = {"quick", "standard", "endurance"};

const char *rtb_profile_name(enum rtb_profile p)
{
	return (unsigned)p < RTB_PROFILE_COUNT ? profile_names[p] : "?";
}

bool rtb_profile_parse(const char *name, enum rtb_profile *out)
{
	for (unsigned i = 0; i < RTB_PROFILE_COUNT; i++) {
		if (rtb_strcmp(name, profile_names[i]) == 0) {
			*out = (enum rtb_profile)i;
			return true;
		}
	}
	return false;
}

const struct rtb_scenario *rtb_scenario_find(const char *name)
{
	for (uint32_t i = 0; i < rtb_scenario_count; i++) {
		if (rtb_scenarios[i] != NULL && rtb_strcmp(rtb_scenarios[i]->name, name) == 0)
			return rtb_scenarios[i];
	}
	return NULL;
}

/* ---- running ------------------------------------------------------------- */

uint64_t rtb_deadline_override_ms;

int rtb_run_scenario(const struct rtb_scenario *s, enum rtb_profile profile, uint32_t raw_max,
		     const struct rtb_option *options, uint32_t noptions)
{
	const struct rtb_port_info *info = rtb_port_info();
	struct rtb_ctx ctx;
	const char *missing = rtb_caps_first_missing(s->caps, info->caps);

	rtb_memset(&ctx, 0, sizeof(ctx));
	ctx.scenario = s;
	ctx.profile = profile;
	ctx.raw_max = raw_max;
	ctx.options = options;
	ctx.noptions = noptions;
	ctx.start_ticks = rtb_port_counter_read();
	uint64_t deadline_ms = rtb_scaled_deadline_ms(s, profile);
	if (rtb_deadline_override_ms > deadline_ms)
		deadline_ms = rtb_deadline_override_ms;
	uint64_t budget_ms = deadline_ms * 8 / 10;
	ctx.budget_end_ticks = ctx.start_ticks + rtb_ns_to_ticks(budget_ms * 1000000u);

	/* values of the options this scenario declares (the controller checks
	 * them first; this holds for any controller, a board's console too) */
	for (uint32_t i = 0; i < noptions; i++) {
		const struct rtb_option_spec *spec = rtb_option_find(s, options[i].key);
		char why[96];
		if (spec != NULL && !rtb_option_valid(spec, options[i].value, why, sizeof(why))) {
			rtb_fmt(ctx.reason, sizeof(ctx.reason), "option %s=%s: %s", options[i].key,
				options[i].value, why);
			rtb_emit_end("scenario", s->name, "error", ctx.reason, 0, NULL);
			return RTB_E_INVALID;
		}
	}
	if (missing != NULL) {
		if (rtb_strcmp(missing, "realtime") == 0)
			rtb_fmt(ctx.reason, sizeof(ctx.reason),
				"needs a real-time scheduling policy, which this run does not "
				"have");
		else {
			char why[RTB_LINE_MAX];
			const char *lack = rtb_port_lacks(missing, why, sizeof(why));
			rtb_fmt(ctx.reason, sizeof(ctx.reason),
				"needs the '%s' service, which the %s port lacks%s%s", missing,
				info->port, lack != NULL ? ": " : "", lack != NULL ? lack : "");
		}
		rtb_emit_end("scenario", s->name, "unsupported", ctx.reason, 0, NULL);
		return RTB_E_UNSUPPORTED;
	}
	struct rtb_clock_pair first = rtb_clock_pair_read();
	int rc = s->run(&ctx);
	uint64_t elapsed = rtb_port_counter_read() - ctx.start_ticks;
	if (rc == RTB_OK && rtb_port_stop_requested()) {
		rtb_emit_end("scenario", s->name, "stopped",
			     "stopped early on request; results cover the time it ran", elapsed,
			     &first);
	} else if (rc == RTB_OK) {
		rtb_emit_end("scenario", s->name, "ok", NULL, elapsed, &first);
	} else if (rc == RTB_E_UNSUPPORTED) {
		rtb_emit_end("scenario", s->name, "unsupported",
			     ctx.reason[0] != '\0' ? ctx.reason : "not supported on this port",
			     elapsed, &first);
	} else {
		if (ctx.reason[0] == '\0')
			rtb_fmt(ctx.reason, sizeof(ctx.reason), "failed: %s",
				rtb_port_strerror(rc));
		rtb_emit_end("scenario", s->name, "error", ctx.reason, elapsed, &first);
	}
	return rc;
}

/* ---- session and command line ------------------------------------------ */

void rtb_session_reset(void)
{
	rtb_ctx_undeclared_reset();
	rtb_deadline_override_ms = 0;
	rtb_length_ppm = RTB_LENGTH_PPM_ONE;
	rtb_memset(&rtb_timing, 0, sizeof(rtb_timing));
}

int rtb_main(int argc, char **argv)
{
	static struct rtb_args a;

	rtb_session_reset();
	if (!rtb_args_parse(&a, argc, argv)) {
		rtb_emit_log(NULL, "error", "%s", a.error);
		return 2;
	}
	int rc = rtb_port_init(&a.port);
	if (rc != RTB_OK) {
		rtb_emit_log(NULL, "error", "the port could not start: %s%s%s",
			     rtb_port_strerror(rc), rtb_port_info()->degraded[0] ? ": " : "",
			     rtb_port_info()->degraded);
		return rc == RTB_E_INVALID ? 2 : 1;
	}
	rtb_timing.hz = rtb_port_counter_hz();
	if (a.overhead_given) {
		rtb_timing.overhead_ticks = a.overhead_ticks;
		rtb_timing.overhead_given = true;
	} else {
		rtb_timing.overhead_ticks = rtb_timing_measure_overhead(30000);
		rtb_timing.overhead_given = false;
	}
	if (a.inline_overhead_given) {
		rtb_timing.inline_overhead_ticks = a.inline_overhead_ticks;
		rtb_timing.inline_overhead_given = true;
	} else {
		rtb_timing.inline_overhead_ticks = rtb_timing_measure_inline_overhead(30000);
		rtb_timing.inline_overhead_given = false;
	}
	static struct rtb_counter_step step;
	rtb_counter_step_measure(20000, &step);
	rtb_timing.step_ticks = step.step_ticks;
	rtb_emit_meta(&a, &step);
	if (!step.agrees)
		rtb_emit_log(NULL, "warning",
			     "the port declares a counter step of %llu ticks, but the differences "
			     "measured are multiples of %llu only",
			     (unsigned long long)step.declared_ticks,
			     (unsigned long long)step.gcd_ticks);
	if (a.list) {
		rtb_emit_catalog();
	} else {
		uint64_t t0 = rtb_port_counter_read();
		for (uint32_t i = 0; i < a.nscenarios && !rtb_port_stop_requested(); i++)
			rtb_run_scenario(rtb_scenario_find(a.scenarios[i]), a.profile, a.raw_max,
					 a.options, a.noptions);
		rtb_emit_end("run", NULL, "complete", NULL, rtb_port_counter_read() - t0, NULL);
	}
	rtb_port_fini();
	return 0;
}
