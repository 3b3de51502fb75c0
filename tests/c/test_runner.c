/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runner with a catalog of fake scenarios defined here: the `end`
 * record's status and reason for each way a scenario can finish, missing
 * capabilities, time budgets and stop requests (and the warning of a loop
 * that stops early), profile-scaled counts and options, verdict settling,
 * the command line (usage errors return 2 with exactly one error log record)
 * and the records of `list` and `run`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "json_mini.h"
#include "rtb/core.h"

/* ---- the test catalog --------------------------------------------------- */

static int calls;
static struct rtb_ctx seen; /* the context of the last scenario run */
static uint64_t seen_iterations, seen_rounds;
static const char *seen_option;

static int run_ok(struct rtb_ctx *ctx)
{
	calls++;
	seen = *ctx;
	seen_iterations = rtb_ctx_count(ctx, "iterations", 10, 20, 30);
	seen_rounds = rtb_ctx_count(ctx, "rounds", 1, 2, 3);
	seen_option = rtb_ctx_option(ctx, "a.b");
	fake_counter += 5000; /* the scenario takes 5000 ticks */
	return RTB_OK;
}

static int run_unsupported(struct rtb_ctx *ctx)
{
	calls++;
	return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "no %s on this system", "widget");
}

static int run_unsupported_silent(struct rtb_ctx *ctx)
{
	(void)ctx;
	calls++;
	return RTB_E_UNSUPPORTED;
}

static int run_error(struct rtb_ctx *ctx)
{
	calls++;
	return rtb_ctx_fail(ctx, RTB_E_OS, "step %d broke: \"%s\"", 3, "quoted");
}

static int run_error_silent(struct rtb_ctx *ctx)
{
	(void)ctx;
	calls++;
	return RTB_E_TIMEOUT;
}

static int run_stop(struct rtb_ctx *ctx)
{
	(void)ctx;
	calls++;
	fake_stop = true;
	return RTB_OK;
}

static int run_stop_error(struct rtb_ctx *ctx)
{
	calls++;
	fake_stop = true;
	return rtb_ctx_fail(ctx, RTB_E_NOMEM, "out of widgets");
}

static bool expired_at_start, expired_before_budget, expired_at_budget, expired_on_stop;

static int run_expire(struct rtb_ctx *ctx)
{
	calls++;
	seen = *ctx;
	uint64_t saved = fake_counter;
	expired_at_start = rtb_ctx_expired(ctx);
	fake_counter = ctx->budget_end_ticks - 1;
	expired_before_budget = rtb_ctx_expired(ctx);
	fake_counter = ctx->budget_end_ticks;
	expired_at_budget = rtb_ctx_expired(ctx);
	fake_counter = saved;
	fake_stop = true;
	expired_on_stop = rtb_ctx_expired(ctx);
	fake_stop = false;
	return RTB_OK;
}

static const struct rtb_option_spec test_options[] = {
	RTB_OPT_LEN("iterations", 1u, 1000u, "iterations"),
	RTB_OPT_N("rounds", 0u, 9u, "rounds"),
	RTB_OPT_WORD("a.b", "c=d|x", "a word with '=' in it"),
	RTB_OPT_WORD("kind", "normal|eager|lazy", "a choice"),
	RTB_OPT_END,
};

#define SCENARIO(var, id, fn, needs)                          \
	static const struct rtb_scenario var = {              \
		.name = id,                                   \
		.ids = {{id, "TST-X"}, {id ".second", NULL}}, \
		.summary = "test scenario " id,               \
		.estimate_ms = {1, 2, 3},                     \
		.deadline_ms = {1000, 20000, 300000},         \
		.caps = needs,                                \
		.options = test_options,                      \
		.run = fn,                                    \
	}

SCENARIO(scn_ok, "test.ok", run_ok, 0);
SCENARIO(scn_unsupported, "test.unsupported", run_unsupported, 0);
SCENARIO(scn_unsupported_silent, "test.unsupported_silent", run_unsupported_silent, 0);
SCENARIO(scn_error, "test.error", run_error, 0);
SCENARIO(scn_error_silent, "test.error_silent", run_error_silent, 0);
SCENARIO(scn_needs_mq, "test.needs_mq", run_ok, RTB_CAP_MQ | RTB_CAP_IRQ);
SCENARIO(scn_needs_rt, "test.needs_rt", run_ok, RTB_CAP_REALTIME | RTB_CAP_MQ);
SCENARIO(scn_needs_ipc, "test.needs_ipc", run_ok, RTB_CAP_IPC_SYSV_SEM);
SCENARIO(scn_stop, "test.stop", run_stop, 0);
SCENARIO(scn_stop_error, "test.stop_error", run_stop_error, 0);
SCENARIO(scn_expire, "test.expire", run_expire, 0);

static int run_undeclared(struct rtb_ctx *ctx)
{
	calls++;
	seen_iterations = rtb_ctx_count(ctx, "not.declared", 1, 2, 3);
	return RTB_OK;
}

SCENARIO(scn_undeclared, "test.undeclared", run_undeclared, 0);

static const struct rtb_scenario *const catalog[] = {
	&scn_ok,	  NULL,
	&scn_unsupported, &scn_unsupported_silent,
	&scn_error,	  &scn_error_silent,
	&scn_needs_mq,	  &scn_needs_rt,
	&scn_stop,	  &scn_stop_error,
	&scn_expire,	  &scn_undeclared,
};
const struct rtb_scenario *const *rtb_scenarios = catalog;
const uint32_t rtb_scenario_count = RTB_ARRAY_SIZE(catalog);

/* ---- reading the console ------------------------------------------------- */

enum { MAX_LINES = 32 };
static struct jv *lines[MAX_LINES];
static int nlines;

static void drop_lines(void)
{
	for (int i = 0; i < nlines && i < MAX_LINES; i++)
		jv_free(lines[i]);
	nlines = 0;
}

static void read_console(void)
{
	char err[256];

	drop_lines();
	nlines = jv_parse_lines(fake_console != NULL ? fake_console : "", lines, MAX_LINES, err,
				sizeof(err));
	if (nlines < 0) {
		fprintf(stderr, "console output is not JSON Lines: %s\n", err);
		check_failures++;
		nlines = 0;
	}
}

static const char *str_of(int line, const char *path)
{
	return line < nlines ? jv_str(jv_path(lines[line], path)) : NULL;
}

static bool str_is(int line, const char *path, const char *want)
{
	const char *s = str_of(line, path);
	if (s == NULL || strcmp(s, want) != 0) {
		fprintf(stderr, "line %d %s: \"%s\", want \"%s\"\n", line, path, s ? s : "(none)",
			want);
		return false;
	}
	return true;
}

static bool item_is(const struct jv *obj, const char *key, const char *want)
{
	const char *s = jv_str(jv_get(obj, key));
	return s != NULL && strcmp(s, want) == 0;
}

static bool u64_is(int line, const char *path, uint64_t want)
{
	uint64_t v;
	return line < nlines && jv_u64(jv_path(lines[line], path), &v) && v == want;
}

/* ---- rtb_run_scenario ----------------------------------------------------- */

static int run_one(const struct rtb_scenario *s, enum rtb_profile p, const struct rtb_option *opt,
		   uint32_t nopt)
{
	fake_reset();
	calls = 0;
	int rc = rtb_run_scenario(s, p, 77, opt, nopt);
	read_console();
	return rc;
}

static void test_end_records(void)
{
	fake_set_caps(RTB_CAP_MQ | RTB_CAP_IRQ | RTB_CAP_REALTIME);
	rtb_timing.hz = 1000000000u;

	CHECK(run_one(&scn_ok, RTB_PROFILE_QUICK, NULL, 0) == RTB_OK);
	CHECK(calls == 1);
	CHECK(nlines == 1);
	CHECK(str_is(0, "type", "end"));
	CHECK(str_is(0, "scenario", "test.ok"));
	CHECK(str_is(0, "scope", "scenario"));
	CHECK(str_is(0, "status", "ok"));
	CHECK(jv_get(lines[0], "reason") == NULL);
	CHECK(u64_is(0, "elapsed_ns", 5000));
	CHECK(seen.scenario == &scn_ok);
	CHECK(seen.profile == RTB_PROFILE_QUICK);
	CHECK(seen.raw_max == 77);
	CHECK(seen.reason[0] == '\0');

	CHECK(run_one(&scn_unsupported, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_UNSUPPORTED);
	CHECK(calls == 1);
	CHECK(str_is(0, "status", "unsupported"));
	CHECK(str_is(0, "reason", "no widget on this system"));

	CHECK(run_one(&scn_unsupported_silent, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_UNSUPPORTED);
	CHECK(str_is(0, "status", "unsupported"));
	CHECK(str_is(0, "reason", "not supported on this port"));

	CHECK(run_one(&scn_error, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_OS);
	CHECK(str_is(0, "status", "error"));
	CHECK(str_is(0, "reason", "step 3 broke: \"quoted\""));

	CHECK(run_one(&scn_error_silent, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_TIMEOUT);
	CHECK(str_is(0, "status", "error"));
	CHECK(str_is(0, "reason", "failed: fake error"));

	/* a stop request during a scenario that finished normally */
	CHECK(run_one(&scn_stop, RTB_PROFILE_QUICK, NULL, 0) == RTB_OK);
	CHECK(str_is(0, "status", "stopped"));
	CHECK(str_of(0, "reason") != NULL && strstr(str_of(0, "reason"), "stopped early") != NULL);
	/* ... but an error stays an error */
	CHECK(run_one(&scn_stop_error, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_NOMEM);
	CHECK(str_is(0, "status", "error"));
	CHECK(str_is(0, "reason", "out of widgets"));
	fake_stop = false;

	/* every capability present: the scenario runs */
	CHECK(run_one(&scn_needs_rt, RTB_PROFILE_QUICK, NULL, 0) == RTB_OK);
	CHECK(calls == 1);
	CHECK(str_is(0, "status", "ok"));
}

static void test_missing_caps(void)
{
	rtb_timing.hz = 1000000000u;

	fake_set_caps(RTB_CAP_MQ); /* IRQ missing */
	CHECK(run_one(&scn_needs_mq, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_UNSUPPORTED);
	CHECK(calls == 0);
	CHECK(nlines == 1);
	CHECK(str_is(0, "status", "unsupported"));
	CHECK(str_is(0, "reason", "needs the 'irq' service, which the fake port lacks"));
	CHECK(u64_is(0, "elapsed_ns", 0));

	fake_set_caps(0); /* the first missing one is named */
	CHECK(run_one(&scn_needs_mq, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_UNSUPPORTED);
	CHECK(str_is(0, "reason", "needs the 'mq' service, which the fake port lacks"));

	fake_set_caps(RTB_CAP_MQ); /* no real-time policy: its own sentence */
	CHECK(run_one(&scn_needs_rt, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_UNSUPPORTED);
	CHECK(calls == 0);
	CHECK(str_is(0, "reason",
		     "needs a real-time scheduling policy, which this run does not have"));

	fake_set_caps(RTB_CAP_REALTIME | RTB_CAP_IPC_SIGNAL | RTB_CAP_IPC_POSIX_MQ);
	CHECK(run_one(&scn_needs_ipc, RTB_PROFILE_QUICK, NULL, 0) == RTB_E_UNSUPPORTED);
	CHECK(calls == 0);
	CHECK(str_is(0, "reason", "needs the 'ipc_sysv_sem' service, which the fake port lacks"));

	/* the port says why it lacks the service (property lacks.<cap>), and the
	 * reason carries it (run_one would reset the fake's answer: the
	 * scenario is run here directly) */
	fake_set_caps(RTB_CAP_MQ);
	fake_reset();
	fake_property_key = "lacks.irq";
	fake_property_value = "IRQ_TIMER is 0 in this build";
	calls = 0;
	CHECK(rtb_run_scenario(&scn_needs_mq, RTB_PROFILE_QUICK, 77, NULL, 0) == RTB_E_UNSUPPORTED);
	read_console();
	CHECK(calls == 0);
	CHECK(str_is(0, "reason",
		     "needs the 'irq' service, which the fake port lacks: IRQ_TIMER is 0 in this "
		     "build"));
	char why[64];
	CHECK(rtb_port_lacks("irq", why, sizeof(why)) == why);
	CHECK(strcmp(why, "IRQ_TIMER is 0 in this build") == 0);
	CHECK(rtb_port_lacks("mq", why, sizeof(why)) == NULL);
	fake_reset();
	fake_set_caps(0);
}

static void test_budget_and_expiry(void)
{
	static const struct {
		uint64_t hz;
		enum rtb_profile profile;
		uint64_t budget_ticks;
	} cases[] = {
		{1000000000u, RTB_PROFILE_QUICK, 800000000u},	     /* 80 % of 1 s */
		{2500000000u, RTB_PROFILE_QUICK, 2000000000u},	     /* 0.8 s at 2.5 GHz */
		{24000000u, RTB_PROFILE_STANDARD, 384000000u},	     /* 16 s at 24 MHz */
		{2500000000u, RTB_PROFILE_ENDURANCE, 600000000000u}, /* 240 s */
	};

	for (size_t i = 0; i < RTB_ARRAY_SIZE(cases); i++) {
		rtb_timing.hz = cases[i].hz;
		fake_reset();
		fake_counter = 123456789;
		calls = 0;
		CHECK(rtb_run_scenario(&scn_expire, cases[i].profile, 0, NULL, 0) == RTB_OK);
		CHECK(calls == 1);
		CHECK_EQ_U64(seen.start_ticks, 123456789);
		CHECK_EQ_U64(seen.budget_end_ticks - seen.start_ticks, cases[i].budget_ticks);
		CHECK(!expired_at_start);
		CHECK(!expired_before_budget);
		CHECK(expired_at_budget);
		CHECK(expired_on_stop);
	}

	/* the budget end compares correctly across a counter wrap-around */
	rtb_timing.hz = 1000000000u;
	fake_reset();
	fake_counter = UINT64_MAX - 100;
	CHECK(rtb_run_scenario(&scn_expire, RTB_PROFILE_QUICK, 0, NULL, 0) == RTB_OK);
	CHECK(seen.budget_end_ticks < seen.start_ticks);
	CHECK(!expired_at_start);
	CHECK(!expired_before_budget);
	CHECK(expired_at_budget);
}

/* A loop's end test: false before the budget, then true with one warning
 * that says why the loop stopped and where. */
static void test_expired_after(void)
{
	struct rtb_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.scenario = &scn_ok;
	ctx.budget_end_ticks = 1000;
	fake_reset();
	fake_counter = 999;
	CHECK(!rtb_ctx_expired_after(&ctx, 7, 10, "iterations"));
	read_console();
	CHECK(nlines == 0);

	fake_reset();
	fake_counter = 1000;
	CHECK(strcmp(rtb_ctx_expired_cause(&ctx), "time budget reached") == 0);
	CHECK(rtb_ctx_expired_after(&ctx, 7, 10, "iterations"));
	read_console();
	CHECK(nlines == 1);
	CHECK(str_is(0, "type", "log"));
	CHECK(str_is(0, "scenario", "test.ok"));
	CHECK(str_is(0, "level", "warning"));
	CHECK(str_is(0, "message", "time budget reached after 7 of 10 iterations"));

	fake_reset();
	fake_counter = 5;
	fake_stop = true;
	CHECK(strcmp(rtb_ctx_expired_cause(&ctx), "stop requested") == 0);
	CHECK(rtb_ctx_expired_after(&ctx, 1, 2, "blocks of 16 bytes"));
	read_console();
	CHECK(nlines == 1);
	CHECK(str_is(0, "message", "stop requested after 1 of 2 blocks of 16 bytes"));
	fake_reset();
}

/* ---- contexts: counts, options, settle ----------------------------------- */

static volatile uint32_t settle_counter;
static uint32_t settle_bump_after;

static void settle_hook(void)
{
	if (fake_yields >= settle_bump_after)
		settle_counter++;
}

static void test_ctx(void)
{
	struct rtb_option opts[] = {
		{"iterations", "42"},
		{"rounds", "many"},
		{"empty", ""},
		{"f1", "1"},
		{"f2", "true"},
		{"f3", "yes"},
		{"f4", "on"},
		{"f5", "0"},
		{"f6", "no"},
		{"f7", "TRUE"},
		{"max", "18446744073709551615"},
		{"kind", "lazy"},
		{"kind_bad", "Lazy"},
	};
	static const char *const kinds[] = {"normal", "eager", "lazy"};
	struct rtb_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.options = opts;
	ctx.noptions = RTB_ARRAY_SIZE(opts);
	for (int p = 0; p < RTB_PROFILE_COUNT; p++) {
		ctx.profile = (enum rtb_profile)p;
		uint64_t want = p == 0 ? 10 : p == 1 ? 20 : 30;
		CHECK_EQ_U64(rtb_ctx_count(&ctx, "iterations", 10, 20, 30), 42);
		CHECK_EQ_U64(rtb_ctx_count(&ctx, "rounds", 10, 20, 30), want); /* not a number */
		CHECK_EQ_U64(rtb_ctx_count(&ctx, "empty", 10, 20, 30), want);
		CHECK_EQ_U64(rtb_ctx_count(&ctx, "absent", 10, 20, 30), want);
		CHECK_EQ_U64(rtb_ctx_count(&ctx, NULL, 10, 20, 30), want);
		CHECK_EQ_U64(rtb_ctx_count(&ctx, "max", 10, 20, 30), UINT64_MAX);
	}
	CHECK(strcmp(rtb_ctx_option(&ctx, "rounds"), "many") == 0);
	CHECK(rtb_ctx_option(&ctx, "iteration") == NULL); /* exact keys only */
	CHECK(rtb_ctx_option(&ctx, "iterationsx") == NULL);
	CHECK(rtb_ctx_flag(&ctx, "f1") && rtb_ctx_flag(&ctx, "f2") && rtb_ctx_flag(&ctx, "f3") &&
	      rtb_ctx_flag(&ctx, "f4"));
	CHECK(!rtb_ctx_flag(&ctx, "f5") && !rtb_ctx_flag(&ctx, "f6") && !rtb_ctx_flag(&ctx, "f7"));
	CHECK(!rtb_ctx_flag(&ctx, "absent"));
	CHECK(rtb_ctx_choice(&ctx, "kind", kinds, 3) == 2);
	CHECK(rtb_ctx_choice(&ctx, "kind", kinds, 2) == -1); /* "lazy" not offered */
	CHECK(rtb_ctx_choice(&ctx, "kind_bad", kinds, 3) == -1);
	CHECK(rtb_ctx_choice(&ctx, "empty", kinds, 3) == -1);
	CHECK(rtb_ctx_choice(&ctx, "absent", kinds, 3) == 0); /* the default */
	ctx.noptions = 0;
	CHECK_EQ_U64(rtb_ctx_count(&ctx, "iterations", 10, 20, 30), 30);

	/* rtb_ctx_fail */
	CHECK(rtb_ctx_fail(&ctx, RTB_E_BUSY, "code %d", 7) == RTB_E_BUSY);
	CHECK(strcmp(ctx.reason, "code 7") == 0);

	/* rtb_ctx_settle: already there, reached by yielding, never reached */
	fake_reset();
	ctx.budget_end_ticks = 1000000;
	settle_counter = 5;
	CHECK(rtb_ctx_settle(&ctx, &settle_counter, 5));
	CHECK_EQ_U64(fake_yields, 0);

	fake_reset();
	fake_yield_hook = settle_hook;
	settle_bump_after = 3;
	settle_counter = 0;
	CHECK(!rtb_ctx_settle(&ctx, &settle_counter, 1)); /* the sample is invalid */
	CHECK_EQ_U64(settle_counter, 1);
	CHECK_EQ_U64(fake_yields, 3);

	fake_reset();
	fake_counter_step = 1000; /* time passes while yielding */
	settle_counter = 0;
	CHECK(!rtb_ctx_settle(&ctx, &settle_counter, 1));
	CHECK(fake_counter >= ctx.budget_end_ticks);
	CHECK(fake_yields > 0 && fake_yields <= 1000);

	/* gone past (the other thread ran twice): invalid at once, no waiting
	 * for a value that will not come back */
	fake_reset();
	settle_counter = 7;
	CHECK(!rtb_ctx_settle(&ctx, &settle_counter, 5));
	CHECK_EQ_U64(fake_yields, 0);

	fake_reset();
	fake_stop = true; /* a stop request also ends the wait */
	CHECK(!rtb_ctx_settle(&ctx, &settle_counter, 1));
	CHECK_EQ_U64(fake_yields, 0);
	fake_reset();
}

/* ---- verdict settling ------------------------------------------------------ */

static void test_settle_verdicts(void)
{
	struct rtb_verdict v;

	rtb_verdict_init(&v, "x.behavior", "X-B", "order");
	v.outcome = RTB_PASS;
	v.control = RTB_CONTROL_CAUGHT;
	rtb_verdict_reason(&v, "in priority order");
	rtb_verdict_settle(&v);
	CHECK(v.outcome == RTB_PASS);
	CHECK(strcmp(v.reason, "in priority order") == 0);

	v.control = RTB_CONTROL_MISSED;
	rtb_verdict_settle(&v);
	CHECK(v.outcome == RTB_INCONCLUSIVE);
	CHECK(strcmp(v.reason, "in priority order (negative control was not caught, so a pass "
			       "proves nothing)") == 0);

	rtb_verdict_init(&v, "x.behavior", "X-B", "order");
	v.outcome = RTB_PASS;
	rtb_verdict_reason(&v, "fine");
	rtb_verdict_settle(&v); /* control not run */
	CHECK(v.outcome == RTB_INCONCLUSIVE);
	CHECK(strstr(v.reason, "fine (negative control could not run") == v.reason);

	/* a failure stays a failure whatever the control did */
	static const enum rtb_control controls[] = {RTB_CONTROL_NOT_RUN, RTB_CONTROL_CAUGHT,
						    RTB_CONTROL_MISSED};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(controls); i++) {
		rtb_verdict_init(&v, "x", NULL, "c");
		v.outcome = RTB_FAIL;
		v.control = controls[i];
		rtb_verdict_reason(&v, "woke the wrong thread");
		rtb_verdict_settle(&v);
		CHECK(v.outcome == RTB_FAIL);
		CHECK(strcmp(v.reason, "woke the wrong thread") == 0);
		v.outcome = RTB_UNSUPPORTED;
		rtb_verdict_settle(&v);
		CHECK(v.outcome == RTB_UNSUPPORTED);
	}

	/* the control's own outcome decides whether it was caught */
	CHECK(rtb_control_of(RTB_FAIL) == RTB_CONTROL_CAUGHT);
	CHECK(rtb_control_of(RTB_PASS) == RTB_CONTROL_MISSED);
	CHECK(rtb_control_of(RTB_INCONCLUSIVE) == RTB_CONTROL_NOT_RUN);
	CHECK(rtb_control_of(RTB_UNSUPPORTED) == RTB_CONTROL_NOT_RUN);

	/* a reason near the line limit is cut, never overrun */
	rtb_verdict_init(&v, "x", NULL, "c");
	v.outcome = RTB_PASS;
	v.control = RTB_CONTROL_MISSED;
	memset(v.reason, 'r', sizeof(v.reason) - 1);
	v.reason[sizeof(v.reason) - 1] = '\0';
	rtb_verdict_settle(&v);
	CHECK(v.outcome == RTB_INCONCLUSIVE);
	CHECK(strlen(v.reason) == RTB_LINE_MAX - 1);
}

/* ---- the command line ----------------------------------------------------- */

static int main_with(const char *const *args, uint64_t counter_step)
{
	static char storage[40][128];
	static char *argv[41];
	int argc = 0;

	for (; args[argc] != NULL; argc++) {
		snprintf(storage[argc], sizeof(storage[argc]), "%s", args[argc]);
		argv[argc] = storage[argc];
	}
	argv[argc] = NULL;
	fake_reset();
	fake_counter_step = counter_step;
	calls = 0;
	int rc = rtb_main(argc, argv);
	read_console();
	return rc;
}

static void check_usage_error(const char *const *args, const char *message)
{
	int rc = main_with(args, 0);

	CHECK(rc == 2);
	CHECK(calls == 0);
	CHECK(nlines == 1);
	if (nlines == 1) {
		CHECK(str_is(0, "type", "log"));
		CHECK(str_is(0, "level", "error"));
		CHECK(jv_get(lines[0], "scenario") == NULL);
		CHECK(str_is(0, "message", message));
	}
}

static void test_usage_errors(void)
{
	static const char *const none[] = {"rtbench-core", NULL};
	static const char *const verb[] = {"rtbench-core", "frobnicate", NULL};
	static const char *const scenario[] = {"rtbench-core", "run",	    "--scenario", "test.ok",
					       "--scenario",   "test.nope", NULL};
	static const char *const profile[] = {"rtbench-core", "run", "--profile", "fast", NULL};
	static const char *const integer[] = {"rtbench-core", "run", "--raw-max", "12x", NULL};
	static const char *const negative[] = {"rtbench-core", "run", "--cpu", "-1", NULL};
	static const char *const cpu_big[] = {"rtbench-core", "run", "--cpu", "4097", NULL};
	static const char *const huge[] = {"rtbench-core", "run", "--overhead-ticks",
					   "18446744073709551616", NULL};
	static const char *const hz[] = {"rtbench-core", "run", "--counter-hz", "", NULL};
	static const char *const raw_big[] = {"rtbench-core", "run", "--raw-max", "100000001",
					      NULL};
	static const char *const set_noeq[] = {"rtbench-core", "run", "--set", "novalue", NULL};
	static const char *const set_nokey[] = {"rtbench-core", "run", "--set", "=v", NULL};
	static const char *const missing[] = {"rtbench-core", "run", "--scenario", NULL};
	static const char *const unknown[] = {"rtbench-core", "run", "--bogus", "1", NULL};

	check_usage_error(none, "usage: rtbench-core list|run [options]");
	check_usage_error(verb, "usage: rtbench-core list|run [options]");
	check_usage_error(scenario, "unknown scenario 'test.nope'");
	check_usage_error(profile, "unknown profile 'fast'");
	check_usage_error(integer, "--raw-max needs a non-negative integer");
	check_usage_error(negative, "--cpu needs a non-negative integer");
	check_usage_error(cpu_big, "--cpu is at most 4096");
	check_usage_error(huge, "--overhead-ticks needs a non-negative integer");
	check_usage_error(hz, "--counter-hz needs a non-negative integer");
	check_usage_error(raw_big, "--raw-max is at most 100000000");
	check_usage_error(set_noeq, "--set needs key=value");
	check_usage_error(set_nokey, "--set needs key=value");
	check_usage_error(missing, "--scenario needs a value");
	check_usage_error(unknown, "unknown option '--bogus'");

	/* more --set options than the runner holds */
	const char *many[4 + 2 * (RTB_OPTIONS_MAX + 1)];
	static char keys[RTB_OPTIONS_MAX + 1][16];
	int n = 0;
	many[n++] = "rtbench-core";
	many[n++] = "run";
	for (int i = 0; i <= RTB_OPTIONS_MAX; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d=v", i);
		many[n++] = "--set";
		many[n++] = keys[i];
	}
	many[n] = NULL;
	check_usage_error(many, "at most 16 --set options are allowed");
}

static void test_run_command(void)
{
	static const char *const run[] = {"rtbench-core",
					  "run",
					  "--profile",
					  "standard",
					  "--scenario",
					  "test.ok",
					  "--scenario",
					  "test.error",
					  "--set",
					  "iterations=7",
					  "--set",
					  "a.b=c=d",
					  "--raw-max",
					  "123",
					  "--overhead-ticks",
					  "9",
					  "--overhead-inline-ticks",
					  "8",
					  "--no-realtime",
					  "--no-mlock",
					  NULL};

	fake_set_caps(0);
	int rc = main_with(run, 0);
	CHECK(rc == 0);
	CHECK(calls == 2);
	CHECK(nlines == 4);
	CHECK(str_is(0, "type", "meta"));
	CHECK(str_is(0, "tool", "rtbench-core"));
	CHECK(str_is(0, "port", "fake"));
	CHECK(str_is(0, "profile", "standard"));
	CHECK(str_is(0, "overhead_source", "given"));
	CHECK(u64_is(0, "overhead_ticks", 9));
	CHECK(str_is(0, "overhead_inline_source", "given"));
	CHECK(u64_is(0, "overhead_inline_ticks", 8));
	CHECK(u64_is(0, "raw_max", 123));
	CHECK(u64_is(0, "counter.hz", 1000000000u));
	CHECK(str_is(0, "options.iterations", "7"));
	const struct jv *o = nlines > 0 ? jv_get(lines[0], "options") : NULL;
	CHECK(o != NULL && o->n == 2 && strcmp(o->keys[1], "a.b") == 0 &&
	      strcmp(o->items[1].text, "c=d") == 0);
	CHECK(jv_get(lines[0], "scenario") == NULL);
	CHECK(jv_get(lines[0], "os_config") == NULL); /* the fake says nothing of it */
	CHECK(str_is(1, "type", "end"));
	CHECK(str_is(1, "scenario", "test.ok"));
	CHECK(str_is(1, "status", "ok"));
	CHECK(str_is(2, "scenario", "test.error"));
	CHECK(str_is(2, "status", "error"));
	CHECK(str_is(3, "type", "end"));
	CHECK(str_is(3, "scope", "run"));
	CHECK(str_is(3, "status", "complete"));
	CHECK(jv_get(lines[3], "scenario") == NULL);
	/* what the scenario saw */
	CHECK(seen.profile == RTB_PROFILE_STANDARD);
	CHECK(seen.raw_max == 123);
	CHECK(seen.noptions == 2);
	CHECK_EQ_U64(seen_iterations, 7);
	CHECK_EQ_U64(seen_rounds, 2);
	CHECK(seen_option != NULL && strcmp(seen_option, "c=d") == 0);
	CHECK_EQ_U64(rtb_timing.overhead_ticks, 9);
	CHECK_EQ_U64(rtb_timing.inline_overhead_ticks, 8);

	/* calibrated overhead: the scripted counter advances 3 per read */
	static const char *const calibrated[] = {"rtbench-core", "run", "--scenario", "test.ok",
						 NULL};
	rc = main_with(calibrated, 3);
	CHECK(rc == 0);
	CHECK(str_is(0, "overhead_source", "calibrated"));
	CHECK(u64_is(0, "overhead_ticks", 3));
	CHECK(str_is(0, "overhead_inline_source", "calibrated"));
	CHECK(u64_is(0, "overhead_inline_ticks", 3));
	CHECK(str_is(0, "profile", "quick"));
	CHECK(u64_is(0, "raw_max", RTB_RAW_DEFAULT));
	CHECK(seen_iterations == 10);

	/* the OS configuration the port reads from its build, in order */
	static const struct rtb_port_setting settings[] = {
		{"tick", "1000 Hz", "TICK_HZ"},
		{"asserts", "off", "ASSERT"},
	};
	fake_set_os_config("production", settings, RTB_ARRAY_SIZE(settings));
	rc = main_with(calibrated, 0);
	fake_set_os_config(NULL, NULL, 0);
	CHECK(rc == 0);
	CHECK(str_is(0, "os_config.name", "production"));
	const struct jv *cfg = nlines > 0 ? jv_path(lines[0], "os_config.settings") : NULL;
	CHECK(cfg != NULL && cfg->type == JV_ARR && cfg->n == 2);
	if (cfg != NULL && cfg->type == JV_ARR && cfg->n == 2) {
		CHECK(item_is(&cfg->items[0], "name", "tick"));
		CHECK(item_is(&cfg->items[0], "value", "1000 Hz"));
		CHECK(item_is(&cfg->items[0], "from", "TICK_HZ"));
		CHECK(item_is(&cfg->items[1], "name", "asserts"));
		CHECK(item_is(&cfg->items[1], "value", "off"));
	}

	/* a stop request ends the run after the current scenario */
	static const char *const stopping[] = {"rtbench-core", "run",	  "--scenario", "test.stop",
					       "--scenario",   "test.ok", NULL};
	rc = main_with(stopping, 0);
	CHECK(rc == 0);
	CHECK(calls == 1);
	CHECK(nlines == 3);
	CHECK(str_is(1, "status", "stopped"));
	CHECK(str_is(2, "scope", "run"));
}

static void test_list_command(void)
{
	static const char *const list[] = {"rtbench-core", "list", NULL};

	fake_set_caps(RTB_CAP_MQ);
	int rc = main_with(list, 0);
	CHECK(rc == 0);
	CHECK(calls == 0);
	/* meta + one catalog record per non-NULL entry, no end record */
	CHECK(nlines == 1 + (int)RTB_ARRAY_SIZE(catalog) - 1);
	CHECK(str_is(0, "type", "meta"));
	int found = 0;
	for (int i = 1; i < nlines; i++) {
		CHECK(str_is(i, "type", "catalog"));
		const char *name = str_of(i, "scenario");
		if (name == NULL)
			continue;
		if (strcmp(name, "test.needs_mq") == 0) {
			found++;
			const struct jv *needs = jv_get(lines[i], "needs");
			CHECK(needs != NULL && needs->n == 2 &&
			      strcmp(needs->items[0].text, "mq") == 0 &&
			      strcmp(needs->items[1].text, "irq") == 0);
			CHECK(jv_get(lines[i], "supported") != NULL &&
			      !jv_get(lines[i], "supported")->b);
		}
		if (strcmp(name, "test.ok") == 0) {
			found++;
			CHECK(jv_get(lines[i], "supported") != NULL &&
			      jv_get(lines[i], "supported")->b);
			const struct jv *ids = jv_get(lines[i], "ids");
			CHECK(ids != NULL && ids->n == 2);
			if (ids != NULL && ids->n == 2) {
				CHECK(strcmp(jv_str(jv_get(&ids->items[0], "id")), "test.ok") == 0);
				CHECK(strcmp(jv_str(jv_get(&ids->items[0], "label")), "TST-X") ==
				      0);
				CHECK(jv_get(&ids->items[1], "label") != NULL &&
				      jv_get(&ids->items[1], "label")->type == JV_NULL);
			}
			CHECK(u64_is(i, "estimate_ms.standard", 2));
			const struct jv *opts = jv_get(lines[i], "options");
			CHECK(opts != NULL && opts->n == 4);
			if (opts != NULL && opts->n == 4) {
				CHECK(strcmp(jv_str(jv_get(&opts->items[0], "key")),
					     "iterations") == 0);
				CHECK(strcmp(jv_str(jv_get(&opts->items[0], "kind")), "count") ==
				      0);
				CHECK(strcmp(jv_str(jv_get(&opts->items[3], "choices")),
					     "normal|eager|lazy") == 0);
			}
			CHECK(u64_is(i, "deadline_ms.endurance", 300000));
			CHECK(str_is(i, "summary", "test scenario test.ok"));
		}
	}
	CHECK(found == 2);
	fake_set_caps(0);
}

/* Options are declared: a bad value of a declared one ends the scenario
 * with `error` before it runs; reading an undeclared one is reported. */
static void test_declared_options(void)
{
	char why[96];
	const struct rtb_option_spec *it = rtb_option_find(&scn_ok, "iterations");
	const struct rtb_option_spec *kind = rtb_option_find(&scn_ok, "kind");

	CHECK(it != NULL && kind != NULL && rtb_option_find(&scn_ok, "iteration") == NULL);
	CHECK(rtb_option_valid(it, "1000", why, sizeof(why)));
	CHECK(!rtb_option_valid(it, "0", why, sizeof(why)) && strstr(why, "1..1000") != NULL);
	CHECK(!rtb_option_valid(it, "abc", why, sizeof(why)) && strstr(why, "whole") != NULL);
	CHECK(!rtb_option_valid(it, "", why, sizeof(why)));
	CHECK(rtb_option_valid(kind, "lazy", why, sizeof(why)));
	CHECK(rtb_option_valid(kind, "normal", why, sizeof(why)));
	CHECK(!rtb_option_valid(kind, "laz", why, sizeof(why)));
	CHECK(!rtb_option_valid(kind, "lazyy", why, sizeof(why)));
	CHECK(!rtb_option_valid(kind, "", why, sizeof(why)));
	struct rtb_option_spec flag = {"f", RTB_OPT_FLAG, 0, 0, NULL, "a flag", false};
	CHECK(rtb_option_valid(&flag, "yes", why, sizeof(why)));
	CHECK(!rtb_option_valid(&flag, "maybe", why, sizeof(why)));

	fake_set_caps(0);
	const struct rtb_option bad[] = {{"iterations", "0"}, {"unrelated.key", "5"}};
	CHECK(run_one(&scn_ok, RTB_PROFILE_QUICK, bad, 2) == RTB_E_INVALID);
	CHECK(calls == 0);
	CHECK(str_is(nlines - 1, "status", "error"));
	CHECK(strstr(str_of(nlines - 1, "reason"), "option iterations=0: outside 1..1000") != NULL);

	CHECK(run_one(&scn_undeclared, RTB_PROFILE_QUICK, NULL, 0) == RTB_OK);
	CHECK(calls == 1);
	CHECK(nlines == 2);
	CHECK(str_is(0, "level", "error"));
	CHECK(strstr(str_of(0, "message"), "reads option 'not.declared', which it does not "
					   "declare") != NULL);
}

/* --length-ppm scales the profile's value of length options only, keeps it
 * within the option's range, never touches a value the user gave, is
 * recorded in the run's header, and does not outlive its command. */
static uint64_t iterations_at(const char *profile, const char *ppm, const char *set)
{
	const char *args[12] = {"rtbench-core", "run",	     "--scenario",
				"test.ok",	"--profile", profile};
	int n = 6;
	if (ppm != NULL) {
		args[n++] = "--length-ppm";
		args[n++] = ppm;
	}
	if (set != NULL) {
		args[n++] = "--set";
		args[n++] = set;
	}
	args[n] = NULL;
	seen_iterations = 0;
	CHECK(main_with(args, 0) == 0);
	CHECK(u64_is(0, "length_ppm", ppm != NULL ? strtoull(ppm, NULL, 10) : 1000000u));
	return seen_iterations;
}

static void test_length_scale(void)
{
	CHECK_EQ_U64(iterations_at("standard", "500000", NULL), 10);
	CHECK_EQ_U64(seen_rounds, 2); /* not a length option */
	CHECK_EQ_U64(iterations_at("endurance", "2000000", NULL), 60);
	CHECK_EQ_U64(iterations_at("endurance", "100000000", NULL), 1000); /* the option's max */
	CHECK_EQ_U64(iterations_at("quick", "1", NULL), 1);		   /* never below one */
	CHECK_EQ_U64(iterations_at("standard", "500000", "iterations=7"), 7);
	CHECK_EQ_U64(iterations_at("standard", NULL, NULL), 20); /* reset for the next run */

	static const char *const zero[] = {"rtbench-core", "run", "--scenario", "test.ok",
					   "--length-ppm", "0",	  NULL};
	check_usage_error(zero, "--length-ppm is between 1 and 1000000000");

	/* deadlines follow the scale, never below the quick profile's */
	rtb_length_ppm = 500000;
	CHECK_EQ_U64(rtb_scaled_deadline_ms(&scn_ok, RTB_PROFILE_ENDURANCE), 150000);
	rtb_length_ppm = 1000;
	CHECK_EQ_U64(rtb_scaled_deadline_ms(&scn_ok, RTB_PROFILE_ENDURANCE), 1000);
	CHECK_EQ_U64(rtb_scaled_deadline_ms(&scn_ok, RTB_PROFILE_QUICK), 1000);
	rtb_length_ppm = 2000000;
	CHECK_EQ_U64(rtb_scaled_deadline_ms(&scn_ok, RTB_PROFILE_QUICK), 2000);
	CHECK_EQ_U64(rtb_scaled_deadline_ms(&scn_ok, RTB_PROFILE_STANDARD), 40000);
	rtb_length_ppm = RTB_LENGTH_PPM_ONE;
	CHECK_EQ_U64(rtb_scaled_deadline_ms(&scn_ok, RTB_PROFILE_STANDARD), 20000);

	/* the catalog says which options the scale applies to */
	static const char *const list[] = {"rtbench-core", "list", NULL};
	CHECK(main_with(list, 0) == 0);
	bool found = false;
	for (int i = 0; i < nlines; i++) {
		const struct jv *opts = jv_get(lines[i], "options");
		if (!str_is(i, "scenario", "test.ok") || opts == NULL || opts->n < 2)
			continue;
		const struct jv *it = &opts->items[0], *rounds = &opts->items[1];
		found = strcmp(jv_str(jv_get(it, "key")), "iterations") == 0 &&
			jv_get(it, "length") != NULL && jv_get(it, "length")->b &&
			jv_get(rounds, "length") == NULL;
	}
	CHECK(found);
}

static void test_lookup(void)
{
	enum rtb_profile p;

	CHECK(rtb_scenario_find("test.ok") == &scn_ok);
	CHECK(rtb_scenario_find("test.expire") == &scn_expire); /* past the NULL entry */
	CHECK(rtb_scenario_find("test.ok.second") == NULL);	/* ids are not run names */
	CHECK(rtb_scenario_find("") == NULL);
	CHECK(rtb_profile_parse("quick", &p) && p == RTB_PROFILE_QUICK);
	CHECK(rtb_profile_parse("standard", &p) && p == RTB_PROFILE_STANDARD);
	CHECK(rtb_profile_parse("endurance", &p) && p == RTB_PROFILE_ENDURANCE);
	CHECK(!rtb_profile_parse("Quick", &p));
	CHECK(!rtb_profile_parse("", &p));
	CHECK(strcmp(rtb_profile_name(RTB_PROFILE_ENDURANCE), "endurance") == 0);
	CHECK(strcmp(rtb_profile_name((enum rtb_profile)7), "?") == 0);
}

int main(void)
{
	fake_reset();
	test_lookup();
	test_declared_options();
	test_end_records();
	test_missing_caps();
	test_budget_and_expiry();
	test_expired_after();
	test_ctx();
	test_settle_verdicts();
	test_usage_errors();
	test_run_command();
	test_list_command();
	test_length_scale();
	drop_lines();
	return check_exit();
}
