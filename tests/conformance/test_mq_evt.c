/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MQ and EVT scenarios on the POSIX port, run in-process: every id
 * reports a result with sane counts, its params and no invalid sample
 * under real-time scheduling; the message size option, the standard
 * profile's size sweep and a size the OS refuses (unsupported, said in a
 * log and the "sizes" table); event flag results say whether the flags are
 * emulated. Behaviour only: no timing is asserted.
 */
#include <string.h>

#include "capture.h"
#include "check.h"

/* The result of `scenario` whose params start with `params` ("" for any). */
static const char *result(const char *out, const char *scenario, const char *params)
{
	char id[128], p[128];
	snprintf(id, sizeof(id), "\"scenario\":\"%s\"", scenario);
	snprintf(p, sizeof(p), "\"params\":{%s", params);
	return conf_find(out, "result", id, p, NULL);
}

/* A result with at least `min_count` samples, none invalid, sane bounds. */
static void check_result(const char *out, const char *scenario, const char *params,
			 long long min_count)
{
	const char *r = result(out, scenario, params);
	CHECK(r != NULL);
	if (r == NULL) {
		fprintf(stderr, "no result for %s {%s\n", scenario, params);
		return;
	}
	CHECK(conf_field(r, "count") >= min_count);
	CHECK_EQ_U64(conf_field(r, "invalid"), 0);
	CHECK(conf_field(r, "min") >= 0);
	CHECK(conf_field(r, "max") >= conf_field(r, "min"));
}

static void check_ok(const char *out, int rc, const char *unit)
{
	char id[128];
	snprintf(id, sizeof(id), "\"scenario\":\"%s\"", unit);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "end", id, "\"status\":\"ok\"", NULL) != NULL);
}

static void test_mq_quick(void)
{
	int rc;
	char *out = conf_run("mq.send.no_waiter", NULL, &rc);
	check_ok(out, rc, "mq.send.no_waiter");
	check_result(out, "mq.send.no_waiter", "\"bytes\":4,\"depth\":8", 20000);
	check_result(out, "mq.receive.available", "\"bytes\":4,\"depth\":8", 20000);
	CHECK(conf_count(out, "result") == 2);
	CHECK(conf_find(out, "table", "\"name\":\"amortised\"", "send (no waiter), 4 bytes",
			"receive (queued), 4 bytes", NULL) != NULL);
	CHECK(conf_find(out, "table", "\"name\":\"sizes\"", "\"rows\":[[4,\"measured\",\"\"]]",
			NULL) != NULL);
	free(out);

	out = conf_run("mq.send.unblock", NULL, &rc);
	check_ok(out, rc, "mq.send.unblock");
	check_result(out, "mq.send.unblock", "\"bytes\":4,\"depth\":8", 10000);
	check_result(out, "mq.receive.block", "\"bytes\":4,\"depth\":8", 10000);
	CHECK(conf_count(out, "result") == 2);
	CHECK(conf_find(out, "log", "invalid", NULL) == NULL);
	free(out);
}

static void test_mq_options(void)
{
	int rc;
	static const char *const one[] = {"mq.send.no_waiter.bytes=64", "mq.send.unblock.bytes=64",
					  "iterations=500", "amortised_calls=800", NULL};
	char *out = conf_run("mq.send.no_waiter", one, &rc);
	check_ok(out, rc, "mq.send.no_waiter");
	check_result(out, "mq.send.no_waiter", "\"bytes\":64", 500);
	check_result(out, "mq.receive.available", "\"bytes\":64", 500);
	CHECK(conf_count(out, "result") == 2);
	CHECK(conf_find(out, "table", "\"name\":\"amortised\"",
			"\"send (no waiter), 64 bytes, "
			"batches of 8\",800,",
			NULL) != NULL);
	free(out);
	out = conf_run("mq.send.unblock", one, &rc);
	check_ok(out, rc, "mq.send.unblock");
	check_result(out, "mq.send.unblock", "\"bytes\":64", 500);
	check_result(out, "mq.receive.block", "\"bytes\":64", 500);
	CHECK(conf_count(out, "result") == 2);
	free(out);

	/* far beyond any limit: refused by the OS, so unsupported, and said */
	static const char *const huge[] = {"mq.send.unblock.bytes=67108864", NULL};
	out = conf_run("mq.send.unblock", huge, &rc);
	CHECK(rc == RTB_E_UNSUPPORTED);
	CHECK(conf_find(out, "end", "\"status\":\"unsupported\"", "67108864-byte", NULL) != NULL);
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", "recorded as unsupported", NULL) !=
	      NULL);
	CHECK(conf_find(out, "table", "\"name\":\"sizes\"", "[67108864,\"unsupported\",", NULL) !=
	      NULL);
	CHECK(conf_count(out, "result") == 0);
	free(out);

	static const char *const bad[] = {"mq.send.no_waiter.bytes=0", NULL};
	out = conf_run("mq.send.no_waiter", bad, &rc);
	CHECK(rc == RTB_E_INVALID);
	CHECK(conf_find(out, "end", "\"status\":\"error\"", NULL) != NULL);
	free(out);
}

/* The standard profile sweeps 4, 64 and 1024 bytes: each size is measured,
 * or listed as refused by the OS with a warning (a host whose message size
 * limit is below 1024 bytes). */
static void check_sweep(const char *out, const char *const ids[2])
{
	static const unsigned sizes[] = {4, 64, 1024};
	int measured = 0;

	for (int k = 0; k < 3; k++) {
		char row[64], params[64];
		snprintf(row, sizeof(row), "[%u,\"measured\",\"\"]", sizes[k]);
		snprintf(params, sizeof(params), "\"bytes\":%u,", sizes[k]);
		if (conf_find(out, "table", "\"name\":\"sizes\"", row, NULL) != NULL) {
			measured++;
			check_result(out, ids[0], params, 200);
			check_result(out, ids[1], params, 200);
		} else {
			snprintf(row, sizeof(row), "[%u,\"unsupported\",", sizes[k]);
			CHECK(conf_find(out, "table", "\"name\":\"sizes\"", row, NULL) != NULL);
			CHECK(conf_find(out, "log", "recorded as unsupported", NULL) != NULL);
			CHECK(result(out, ids[0], params) == NULL);
		}
	}
	CHECK(conf_count(out, "result") == 2 * measured);
	/* 4 and 64 bytes are far below any system's limit */
	CHECK(measured >= 2);
}

static void test_mq_sweep(void)
{
	static const char *const small[] = {"iterations=200", "amortised_calls=800", NULL};
	static const char *const arn[] = {"mq.send.no_waiter", "mq.receive.available"};
	static const char *const blk[] = {"mq.send.unblock", "mq.receive.block"};
	int rc;

	char *out = conf_run_profile("mq.send.no_waiter", RTB_PROFILE_STANDARD, small, &rc);
	check_ok(out, rc, "mq.send.no_waiter");
	check_sweep(out, arn);
	CHECK(conf_find(out, "table", "\"name\":\"amortised\"", "send (no waiter), 4 bytes",
			"send (no waiter), 64 bytes", NULL) != NULL);
	free(out);

	out = conf_run_profile("mq.send.unblock", RTB_PROFILE_STANDARD, small, &rc);
	check_ok(out, rc, "mq.send.unblock");
	check_sweep(out, blk);
	free(out);
}

static void test_evt(void)
{
	const char *impl = (rtb_port_info()->caps & RTB_CAP_EVT_EMULATED)
				   ? "\"implementation\":\"emulated\""
				   : "\"implementation\":\"native\"";
	int rc;

	char *out = conf_run("evt.set.no_waiter", NULL, &rc);
	check_ok(out, rc, "evt.set.no_waiter");
	check_result(out, "evt.set.no_waiter", impl, 20000);
	check_result(out, "evt.wait.available", impl, 20000);
	CHECK(conf_count(out, "result") == 2);
	CHECK(conf_find(out, "table", "\"name\":\"amortised\"", "set + wait with clear (pairs)",
			NULL) != NULL);
	free(out);

	out = conf_run("evt.set.unblock", NULL, &rc);
	check_ok(out, rc, "evt.set.unblock");
	check_result(out, "evt.set.unblock", impl, 10000);
	check_result(out, "evt.wait.block", impl, 10000);
	CHECK(conf_count(out, "result") == 2);
	if (rtb_port_info()->caps & RTB_CAP_EVT_EMULATED)
		CHECK(conf_find(out, "log", "\"level\":\"info\"", "mutex and a condition variable",
				NULL) != NULL);
	CHECK(conf_find(out, "log", "invalid", NULL) == NULL);
	free(out);
}

/* Every unit names the service it needs, so a port without it reports the
 * unit unsupported instead of running it. */
static void test_caps(void)
{
	static const struct {
		const char *unit;
		uint32_t cap;
	} units[] = {{"mq.send.no_waiter", RTB_CAP_MQ},
		     {"mq.send.unblock", RTB_CAP_MQ},
		     {"evt.set.no_waiter", RTB_CAP_EVT},
		     {"evt.set.unblock", RTB_CAP_EVT}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		const struct rtb_scenario *s = rtb_scenario_find(units[i].unit);
		CHECK(s != NULL && (s->caps & units[i].cap) != 0);
	}
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_caps();
	if (rtb_port_info()->caps & RTB_CAP_MQ) {
		test_mq_quick();
		test_mq_options();
		test_mq_sweep();
	}
	if (rtb_port_info()->caps & RTB_CAP_EVT)
		test_evt();
	return check_exit();
}
