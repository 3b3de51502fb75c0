/* SPDX-License-Identifier: Apache-2.0 */
/*
 * THR scenarios on the POSIX port: the behaviour checks pass with their
 * negative controls caught, and fail when an option makes the platform
 * misbehave like the control; the performance scenarios report results with
 * sane counts. Needs SCHED_FIFO (skipped otherwise).
 */
#include <stdint.h>
#include <string.h>

#include "capture.h"
#include "check.h"

static const char *verdict(const char *out, const char *check)
{
	char needle[96];

	snprintf(needle, sizeof(needle), "\"check\":\"%s\"", check);
	return conf_find(out, "verdict", needle, NULL);
}

static bool verdict_is(const char *out, const char *check, const char *outcome)
{
	char want[64];
	const char *line = verdict(out, check);

	snprintf(want, sizeof(want), "\"outcome\":\"%s\"", outcome);
	if (line == NULL) {
		fprintf(stderr, "no verdict %s\n", check);
		return false;
	}
	if (strstr(line, want) == NULL ||
	    strstr(line, "\"control\":{\"outcome\":\"caught\"") == NULL) {
		fprintf(stderr, "verdict %s is not %s with its control caught:\n%s\n", check,
			outcome, line);
		return false;
	}
	return true;
}

static const char *const new_checks[] = {"lower_waits", "equal_to_tail", "equal_after_yield",
					 "higher_preempts"};

/* expected[i]: outcome of new_checks[i] under both policies */
static void check_create_behavior(const char *option, const char *const expected[4])
{
	const char *opts[] = {option, NULL};
	int rc;
	char *out = conf_run("thr.create.behavior", option != NULL ? opts : NULL, &rc);

	CHECK(rc == RTB_OK);
	CHECK_EQ_U64(conf_count(out, "verdict"), 8);
	for (int p = 0; p < 2; p++) {
		for (int c = 0; c < 4; c++) {
			char check[64];
			snprintf(check, sizeof(check), "%s.%s", p == 0 ? "fifo" : "rr",
				 new_checks[c]);
			CHECK(verdict_is(out, check, expected[c]));
		}
	}
	const char *table = conf_find(out, "table", "\"name\":\"lowered_priority_landing\"", NULL);
	CHECK(table != NULL);
	/* every case was observed: no row says "unknown" */
	CHECK(table != NULL && strstr(table, "\"unknown\"") == NULL);
	CHECK(conf_find(out, "end", "\"status\":\"ok\"", NULL) != NULL);
	free(out);
}

static void test_create_behavior(void)
{
	static const char *const normal[] = {"pass", "pass", "pass", "pass"};
	static const char *const eager[] = {"fail", "fail", "pass", "pass"};
	static const char *const lazy[] = {"pass", "pass", "fail", "fail"};

	check_create_behavior(NULL, normal);
	check_create_behavior("thr.create.behavior.create=eager", eager);
	check_create_behavior("thr.create.behavior.create=lazy", lazy);

	/* A machine that gives the platform no CPU through the creator's first
	 * sleeps (a busy host, an emulator) is not a platform whose lower thread
	 * never runs: the check sleeps again until it has, and says so. */
	check_create_behavior("thr.create.behavior.withhold=3", normal);
	int wrc;
	const char *withhold[] = {"thr.create.behavior.withhold=3", NULL};
	char *wout = conf_run("thr.create.behavior", withhold, &wrc);
	const char *lower = verdict(wout, "fifo.lower_waits");
	CHECK(lower != NULL && strstr(lower, "it had not run") != NULL);
	CHECK(lower != NULL && strstr(lower, "the creator slept again until it had: ") != NULL);
	free(wout);

	int rc;
	const char *bad[] = {"thr.create.behavior.create=sometimes", NULL};
	char *out = conf_run("thr.create.behavior", bad, &rc);
	CHECK(rc == RTB_E_INVALID);
	CHECK_EQ_U64(conf_count(out, "verdict"), 0);
	free(out);
}

static void test_rr_behavior(void)
{
	int rc;
	char *out = conf_run("thr.rr.behavior", NULL, &rc);

	CHECK(rc == RTB_OK);
	CHECK(verdict_is(out, "fairness", "pass"));
	const char *table = conf_find(out, "table", "\"name\":\"slices\"", NULL);
	CHECK(table != NULL && strstr(table, "\"first\"") != NULL &&
	      strstr(table, "\"later\"") != NULL);
	free(out);

	const char *fifo[] = {"thr.rr.behavior.policy=fifo", NULL};
	out = conf_run("thr.rr.behavior", fifo, &rc);
	CHECK(rc == RTB_OK);
	CHECK(verdict_is(out, "fairness", "fail"));
	CHECK(strstr(verdict(out, "fairness"), "never got a time slice") != NULL);
	free(out);
}

/* A result of `scenario`/`metric` (and `param` if not NULL) took `n`
 * samples (at least n when not exact), with plausible values. Every
 * iteration is accounted for: valid, or counted invalid; a host that
 * stalls the measurement CPU (a virtual machine's steal time) can spoil a
 * few, never silently and never many. */
static void check_result(const char *out, const char *scenario, const char *metric,
			 const char *param, uint64_t n, bool exact)
{
	char s[96], m[64];

	snprintf(s, sizeof(s), "\"scenario\":\"%s\"", scenario);
	snprintf(m, sizeof(m), "\"metric\":\"%s\"", metric);
	const char *line = conf_find(out, "result", s, m, param != NULL ? param : s, NULL);
	if (line == NULL) {
		fprintf(stderr, "no result %s %s %s\n", scenario, metric, param ? param : "");
		CHECK(false);
		return;
	}
	long long count = conf_field(line, "count"), invalid = conf_field(line, "invalid");
	long long min = conf_field(line, "min"), max = conf_field(line, "max");
	long long p50 = conf_field(line, "p50");
	/* a second is far beyond any thread operation: gross sanity only */
	long long second = (long long)rtb_timing.hz;

	if (exact)
		CHECK_EQ_U64(count + invalid, n);
	else
		CHECK(count >= (long long)n);
	CHECK(invalid * 20 <= (long long)n);
	CHECK(min > 0 && min <= p50 && p50 <= max);
	CHECK(p50 < second);
	CHECK(conf_field(line, "warmup") >= 10);
}

static void test_switch_yield(void)
{
	const char *opts[] = {"threads=10", "iterations=2000", NULL};
	int rc;
	char *out = conf_run("thr.switch.yield", opts, &rc);

	CHECK(rc == RTB_OK);
	CHECK_EQ_U64(conf_count(out, "result"), 1);
	check_result(out, "thr.switch.yield", "switch", "\"threads\":10", 2000, false);
	free(out);

	const char *two[] = {"threads=2", "iterations=500", NULL};
	out = conf_run("thr.switch.yield", two, &rc);
	CHECK(rc == RTB_OK);
	check_result(out, "thr.switch.yield", "switch", "\"threads\":2", 500, false);
	free(out);

	const char *bad[] = {"threads=1", NULL};
	out = conf_run("thr.switch.yield", bad, &rc);
	CHECK(rc == RTB_E_INVALID);
	free(out);
}

static void test_create_delete(void)
{
	static const char *const ids[] = {"thr.create.never_run", "thr.create.run_terminate",
					  "thr.create.run_block"};
	const char *opts[] = {"iterations=200", NULL};

	for (unsigned i = 0; i < 3; i++) {
		int rc;
		char *out = conf_run(ids[i], opts, &rc);
		CHECK(rc == RTB_OK);
		CHECK_EQ_U64(conf_count(out, "result"), 2);
		check_result(out, ids[i], "create", NULL, 200, true);
		check_result(out, ids[i], "delete", NULL, 200, true);
		free(out);
	}
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_create_behavior();
	test_rr_behavior();
	test_switch_yield();
	test_create_delete();
	return check_exit();
}
