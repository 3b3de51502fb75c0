/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SEM scenarios on the POSIX port, run in-process: the behaviour checks
 * pass with their negative control caught, and fail when the option makes
 * the semaphore under test misbehave; the performance scenarios report
 * sane counts and no invalid sample under real-time scheduling.
 */
#include <string.h>

#include "capture.h"
#include "check.h"

/* A result of `scenario` with at least `min_count` samples and none invalid. */
static void check_result(const char *out, const char *scenario, long long min_count)
{
	char needle[128];
	snprintf(needle, sizeof(needle), "\"scenario\":\"%s\"", scenario);
	const char *r = conf_find(out, "result", needle, NULL);
	CHECK(r != NULL);
	if (r == NULL) {
		fprintf(stderr, "no result for %s\n", scenario);
		return;
	}
	CHECK(conf_field(r, "count") >= min_count);
	CHECK_EQ_U64(conf_field(r, "invalid"), 0);
	CHECK(conf_field(r, "min") >= 0);
	CHECK(conf_field(r, "max") >= conf_field(r, "min"));
}

static void test_lock(void)
{
	int rc;
	char *out = conf_run("sem.behavior.lock", NULL, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"check\":\"lock\"", "\"outcome\":\"pass\"",
			"\"control\":{\"outcome\":\"caught\"", "no immediate switch",
			NULL) != NULL);
	CHECK(conf_find(out, "verdict", "maximum count: ", NULL) != NULL);
	CHECK(conf_find(out, "table", "\"name\":\"limits\"", NULL) != NULL);
	free(out);

	static const char *const deferred[] = {"sem.behavior.lock.semaphore=deferred", NULL};
	out = conf_run("sem.behavior.lock", deferred, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(
		      out, "verdict", "\"outcome\":\"fail\"",
		      "\"reason\":\"V returned before the higher-priority waiter it released ran: "
		      "no immediate switch\"",
		      NULL) != NULL);
	free(out);

	static const char *const bad[] = {"sem.behavior.lock.semaphore=maybe", NULL};
	out = conf_run("sem.behavior.lock", bad, &rc);
	CHECK(rc == RTB_E_INVALID);
	CHECK(conf_find(out, "end", "\"status\":\"error\"", NULL) != NULL);
	free(out);
}

static void test_release_order(void)
{
	int rc;
	char *out = conf_run("sem.behavior.release_order", NULL, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"check\":\"release_order\"", "\"outcome\":\"pass\"",
			"\"control\":{\"outcome\":\"caught\"",
			"lowest first, block order (priority): 1 2 3 4 5 6 7 8",
			"lowest first, wake order (priority): 8 7 6 5 4 3 2 1", NULL) != NULL);
	free(out);

	static const char *const fifo[] = {"sem.behavior.release_order.semaphore=fifo", NULL};
	out = conf_run("sem.behavior.release_order", fifo, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"outcome\":\"fail\"", "(FIFO), not by priority",
			"wake order (priority): 1 2 3 4 5 6 7 8", NULL) != NULL);
	free(out);
}

static void test_performance(void)
{
	int rc;
	char *out = conf_run("sem.create", NULL, &rc);
	CHECK(rc == RTB_OK);
	check_result(out, "sem.create", 4000);
	check_result(out, "sem.delete.used", 2000);
	check_result(out, "sem.delete.unused", 2000);
	free(out);

	out = conf_run("sem.wait.available", NULL, &rc);
	CHECK(rc == RTB_OK);
	check_result(out, "sem.wait.available", 20000);
	check_result(out, "sem.signal.no_waiter", 20000);
	CHECK(conf_find(out, "table", "\"name\":\"amortised\"", NULL) != NULL);
	free(out);

	out = conf_run("sem.wait.block", NULL, &rc);
	CHECK(rc == RTB_OK);
	check_result(out, "sem.wait.block", 20 * 128);
	check_result(out, "sem.signal.unblock", 20 * 128);
	/* 128 waiters on the port's 96 levels: said in the params and a log */
	CHECK(conf_find(out, "result", "\"waiters\":128", "\"priority_levels\":", NULL) != NULL);
	if (rtb_port_info()->prio_max < 128)
		CHECK(conf_find(out, "log", "share", NULL) != NULL);
	/* release order among shared levels must be the expected one */
	CHECK(conf_find(out, "log", "released another waiter", NULL) == NULL);
	const char *t = conf_find(out, "table", "\"name\":\"release_vs_waiters\"", NULL);
	CHECK(t != NULL && strstr(t, "[128,20,") != NULL && strstr(t, "[1,20,") != NULL);
	free(out);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_lock();
	test_release_order();
	test_performance();
	return check_exit();
}
