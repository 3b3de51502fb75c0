/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SCHED and RH scenarios on the POSIX port, run in-process: every
 * result is present with a sane count and, under SCHED_FIFO, no invalid
 * sample (every expected switch happened); each workload unit reports its
 * wake-up with and without background threads side by side, and the
 * background threads did run; the Rhealstone table has its six components
 * and a number, and a component the port cannot measure makes the number
 * "not computed" with the reason. Never timing. Needs SCHED_FIFO.
 */
#include <string.h>

#include "capture.h"
#include "check.h"

/* The result of `scenario` whose line also contains `extra` (may be NULL):
 * at least min_count samples, none invalid unless any_invalid, a thread
 * switch in every sample (min > 0). */
static void check_result(const char *out, const char *scenario, const char *extra,
			 long long min_count, bool any_invalid)
{
	char needle[128];
	snprintf(needle, sizeof(needle), "\"scenario\":\"%s\"", scenario);
	const char *r = conf_find(out, "result", needle, extra, NULL);
	if (r == NULL) {
		fprintf(stderr, "no result for %s %s\n", scenario, extra != NULL ? extra : "");
		CHECK(r != NULL);
		return;
	}
	long long count = conf_field(r, "count");
	if (count < min_count || (!any_invalid && conf_field(r, "invalid") != 0))
		fprintf(stderr, "%s %s: count %lld, invalid %lld\n", scenario,
			extra != NULL ? extra : "", count, conf_field(r, "invalid"));
	CHECK(count >= min_count);
	if (!any_invalid)
		CHECK_EQ_U64(conf_field(r, "invalid"), 0);
	CHECK(conf_field(r, "min") > 0);
	CHECK(conf_field(r, "max") >= conf_field(r, "min"));
}

static void test_coop_preempt(void)
{
	int rc;
	char *out = conf_run("sched.coop.switch", NULL, &rc);
	CHECK(rc == RTB_OK);
	check_result(out, "sched.coop.switch", "\"threads\":5", 10000, false);
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", NULL) == NULL);
	free(out);

	out = conf_run("sched.preempt.switch", NULL, &rc);
	CHECK(rc == RTB_OK);
	check_result(out, "sched.preempt.switch", NULL, 10000, false);
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", NULL) == NULL);
	free(out);
}

/* The "background turns" cell of the table row that starts with `workload`. */
static long long background_turns(const char *table, int workload)
{
	char row[32];
	snprintf(row, sizeof(row), "[%d,", workload);
	const char *p = strstr(table, row);
	return p != NULL ? atoll(p + strlen(row)) : -1;
}

static void test_workload(const char *id)
{
	static const char *const opts[] = {"iterations=1000", NULL};
	int rc;
	char *out = conf_run(id, opts, &rc);

	CHECK(rc == RTB_OK);
	/* the same metric twice, without and with the 4 background threads */
	check_result(out, id, "\"params\":{\"workload\":0}", 1000, false);
	check_result(out, id, "\"params\":{\"workload\":4}", 1000, false);
	CHECK_EQ_U64(conf_count(out, "result"), 2);
	const char *t = conf_find(out, "table", "\"name\":\"workload\"", NULL);
	CHECK(t != NULL);
	if (t != NULL) {
		/* parked, the background threads take no turn; running, they do */
		CHECK(background_turns(t, 0) == 0);
		CHECK(background_turns(t, 4) > 0);
	}
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", NULL) == NULL);
	free(out);

	char bad[96];
	snprintf(bad, sizeof(bad), "%s.threads=0", id);
	const char *bad_opts[] = {bad, NULL};
	out = conf_run(id, bad_opts, &rc);
	CHECK(rc == RTB_E_INVALID);
	free(out);
}

static const char *const rh_ids[] = {"rh.task_switch", "rh.preempt",	    "rh.irq_latency",
				     "rh.sem_shuffle", "rh.deadlock_break", "rh.msg_latency"};

static void test_rh(void)
{
	int rc;
	char *out = conf_run("rh.task_switch", NULL, &rc);

	CHECK(rc == RTB_OK);
	for (int i = 0; i < 6; i++) {
		bool irq = strcmp(rh_ids[i], "rh.irq_latency") == 0;
		/* an interrupt may land while another thread runs (counted invalid,
		 * as in irq.latency); every other sample is a switch we caused */
		check_result(out, rh_ids[i], NULL, irq ? 100 : 5000, irq);
	}
	CHECK_EQ_U64(conf_count(out, "result"), 6);
	const char *t = conf_find(out, "table", "\"name\":\"rhealstone\"", NULL);
	CHECK(t != NULL);
	if (t != NULL) {
		for (int i = 0; i < 6; i++) {
			char row[64];
			snprintf(row, sizeof(row), "[\"%s\",", rh_ids[i]);
			CHECK(strstr(t, row) != NULL);
		}
		CHECK(strstr(t, "\"sched.preempt.switch\"") != NULL);
		CHECK(strstr(t, "\"irq.latency\"") != NULL);
		/* the number: a mean and a rate, computed */
		const char *num = strstr(t, "[\"Rhealstone number\"");
		CHECK(num != NULL && strstr(num, "null,null,null") == NULL &&
		      strstr(num, "\"computed\"]") != NULL);
	}
	CHECK(conf_find(out, "log", "Rhealstone number: ", "rhealstones per second", NULL) != NULL);
	free(out);
}

/* A port without an interrupt source: the POSIX port's description is
 * changed for this one run, as a port that clears RTB_CAP_IRQ would be. */
static void test_rh_not_computed(void)
{
	struct rtb_port_info *info = (struct rtb_port_info *)rtb_port_info();
	uint32_t caps = info->caps;
	static const char *const opts[] = {"iterations=1000", NULL};
	int rc;

	info->caps &= ~(uint32_t)RTB_CAP_IRQ;
	char *out = conf_run("rh.task_switch", opts, &rc);
	info->caps = caps;

	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "result", "\"scenario\":\"rh.irq_latency\"", NULL) == NULL);
	CHECK_EQ_U64(conf_count(out, "result"), 5);
	const char *t = conf_find(out, "table", "\"name\":\"rhealstone\"", NULL);
	CHECK(t != NULL);
	if (t != NULL) {
		CHECK(strstr(t, "[\"rh.irq_latency\",\"irq.latency\",null,null,null,null,"
				"\"unsupported: the port has no interrupt source\"]") != NULL);
		const char *num = strstr(t, "[\"Rhealstone number\"");
		CHECK(num != NULL && strstr(num, "null,null,null,null,\"not computed: "
						 "rh.irq_latency: unsupported") != NULL);
	}
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", "Rhealstone number not computed",
			NULL) != NULL);
	free(out);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_coop_preempt();
	test_workload("sched.sem.workload");
	test_workload("sched.mut.workload");
	test_workload("sched.mq.workload");
	test_rh();
	test_rh_not_computed();
	return check_exit();
}
