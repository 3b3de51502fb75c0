/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MUT scenarios on the POSIX port, run in-process: priority inheritance
 * passes with its negative control caught and fails without a protocol;
 * the performance scenarios report sane counts, with no invalid sample
 * under inheritance and every sample invalid without it.
 */
#include <string.h>

#include "capture.h"
#include "check.h"

static const char *result(const char *out, const char *scenario)
{
	char needle[128];
	snprintf(needle, sizeof(needle), "\"scenario\":\"%s\"", scenario);
	return conf_find(out, "result", needle, NULL);
}

static void test_behavior(void)
{
	int rc;
	char *out = conf_run("mut.behavior.pi", NULL, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"check\":\"priority_inheritance\"",
			"\"outcome\":\"pass\"", "\"control\":{\"outcome\":\"caught\"",
			"PTHREAD_PRIO_INHERIT",
			"observed order: L locks, H ready, H requests, M ready, L unlocks, "
			"H acquires, H releases, M runs",
			NULL) != NULL);
	/* the control shows the inversion */
	CHECK(conf_find(out, "verdict", "\"check\":\"priority_inheritance\"", "M ready, M runs",
			NULL) != NULL);
	if (rtb_port_info()->caps & RTB_CAP_MUTEX_CEILING)
		CHECK(conf_find(out, "verdict", "\"check\":\"priority_ceiling\"",
				"\"outcome\":\"pass\"", "\"control\":{\"outcome\":\"caught\"",
				NULL) != NULL);
	else
		CHECK(conf_find(out, "verdict", "\"check\":\"priority_ceiling\"",
				"\"outcome\":\"unsupported\"", NULL) != NULL);
	CHECK(conf_find(out, "table", "\"name\":\"protocols\"", NULL) != NULL);
	free(out);

	static const char *const none[] = {"mut.behavior.pi.protocol=none", NULL};
	out = conf_run("mut.behavior.pi", none, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"check\":\"priority_inheritance\"",
			"\"outcome\":\"fail\"",
			"\"reason\":\"medium-priority thread ran while the high-priority thread "
			"waited for the mutex held by the low one: no priority inheritance\"",
			"PTHREAD_PRIO_NONE", NULL) != NULL);
	free(out);

	static const char *const bad[] = {"mut.behavior.pi.protocol=sometimes", NULL};
	out = conf_run("mut.behavior.pi", bad, &rc);
	CHECK(rc == RTB_E_INVALID);
	free(out);
}

static void test_performance(void)
{
	int rc;
	char *out = conf_run("mut.lock.uncontended", NULL, &rc);
	CHECK(rc == RTB_OK);
	const char *names[] = {"mut.lock.uncontended", "mut.unlock.uncontended"};
	for (int i = 0; i < 2; i++) {
		const char *r = result(out, names[i]);
		CHECK(r != NULL && strstr(r, "\"protocol\":\"inherit\"") != NULL);
		CHECK(conf_field(r, "count") >= 20000);
		CHECK_EQ_U64(conf_field(r, "invalid"), 0);
	}
	CHECK(conf_find(out, "table", "\"name\":\"amortised\"", "256 mutexes", NULL) != NULL);
	free(out);

	out = conf_run("mut.lock.block", NULL, &rc);
	CHECK(rc == RTB_OK);
	const char *arc[] = {"mut.lock.block", "mut.unlock.handoff"};
	for (int i = 0; i < 2; i++) {
		const char *r = result(out, arc[i]);
		CHECK(r != NULL);
		CHECK(conf_field(r, "count") >= 2000);
		CHECK_EQ_U64(conf_field(r, "invalid"), 0);
		/* a blocking lock and a hand-off both include a thread switch */
		CHECK(conf_field(r, "min") > 0);
	}
	CHECK(conf_find(out, "log", "invalid", NULL) == NULL);
	free(out);

	/* without inheritance M gets in every time: every sample is invalid */
	static const char *const none[] = {"mut.lock.block.protocol=none", "iterations=200", NULL};
	out = conf_run("mut.lock.block", none, &rc);
	CHECK(rc == RTB_OK);
	const char *r = result(out, "mut.lock.block");
	CHECK(conf_field(r, "count") == 0);
	CHECK(conf_field(r, "invalid") >= 200);
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", "no priority inheritance", NULL) !=
	      NULL);
	free(out);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_behavior();
	test_performance();
	return check_exit();
}
