/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IPC scenarios (rt-tests equivalents) run in-process on the POSIX
 * port; their records are checked for behaviour, never for timing: a
 * `wake` or `roundtrip` result whose samples all count (no invalid sample
 * on a real-time host: the receiver always ran where its priority says),
 * a histogram that adds up, a conditions table naming the mechanism and
 * the priorities, every variant (an equal-priority sender, a higher echo,
 * a signal handler instead of sigwait), and a bad option refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"

/* Run `scenario` with options; check a clean result of `metric` with
 * `samples` valid samples, and a conditions table containing `condition`. */
static void check_run(const char *scenario, const char *metric, const char *const *opts,
		      long long samples, const char *condition)
{
	char s[96], m[96];
	int rc;
	char *out = conf_run(scenario, opts, &rc);

	fprintf(stderr, "%s %s\n", scenario, opts[1] != NULL ? opts[1] : "");
	CHECK(rc == RTB_OK);
	snprintf(s, sizeof(s), "\"scenario\":\"%s\"", scenario);
	snprintf(m, sizeof(m), "\"metric\":\"%s\"", metric);
	const char *rec = conf_find(out, "result", s, m, NULL);
	CHECK(rec != NULL);
	if (rec != NULL) {
		const char *stats = strstr(rec, "\"stats\":{");
		CHECK(conf_field(stats, "count") == samples);
		CHECK(conf_field(rec, "invalid") == 0);
		CHECK(conf_field(stats, "min") > 0);
		CHECK_EQ_U64(conf_bucket_total(rec), (uint64_t)conf_field(stats, "count"));
	}
	CHECK(conf_find(out, "table", s, "\"name\":\"conditions\"", condition, NULL) != NULL);
	CHECK(conf_find(out, "end", s, "\"status\":\"ok\"", NULL) != NULL);
	CHECK(conf_find(out, "log", s, "\"level\":\"warning\"", NULL) == NULL);
	free(out);
}

static void test_wake(void)
{
	static const struct {
		const char *id, *mechanism;
	} ids[] = {
		{"ipc.signal.wake", "sigwaitinfo"},
		{"ipc.sysv_sem.wake", "System V semaphore"},
		{"ipc.mq.wake", "POSIX message queue"},
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		char interval[96], equal[96], release[96];
		snprintf(interval, sizeof(interval), "%s.interval_ns=100000", ids[i].id);
		snprintf(equal, sizeof(equal), "%s.sender_priority=equal", ids[i].id);
		const char *lower[] = {"iterations=200", interval, NULL};
		check_run(ids[i].id, "wake", lower, 200, ids[i].mechanism);
		check_run(ids[i].id, "wake", lower, 200,
			  "[\"sender priority\",\"1 (relative, below the receiver's)\"");
		check_run(ids[i].id, "wake", lower, 200,
			  "[\"sender released through\",\"a second channel of the same kind\"");
		const char *same[] = {"iterations=100", equal, interval, NULL};
		check_run(ids[i].id, "wake", same, 100,
			  "[\"sender priority\",\"2 (relative, equal to the receiver's)\"");
		snprintf(release, sizeof(release), "%s.release=semaphore", ids[i].id);
		const char *sem[] = {"iterations=100", release, interval, NULL};
		check_run(ids[i].id, "wake", sem, 100,
			  "[\"sender released through\",\"a port semaphore\"");
	}

	const char *bad[] = {"iterations=10", "ipc.mq.wake.sender_priority=higher", NULL};
	int rc;
	char *out = conf_run("ipc.mq.wake", bad, &rc);
	CHECK(rc == RTB_E_INVALID);
	CHECK(conf_find(out, "end", "\"status\":\"error\"", "sender_priority", NULL) != NULL);
	free(out);
}

static void test_roundtrip(void)
{
	const char *id = "ipc.signal.roundtrip";
	const char *plain[] = {"iterations=160", "ipc.signal.roundtrip.interval_ns=1000000", NULL};
	check_run(id, "roundtrip", plain, 160, "[\"echo priority\",\"1 (relative)\"");
	const char *higher[] = {"iterations=160", "ipc.signal.roundtrip.echo_priority=higher",
				"ipc.signal.roundtrip.interval_ns=1000000", NULL};
	check_run(id, "roundtrip", higher, 160, "[\"echo priority\",\"2 (relative)\"");
	const char *handler[] = {"iterations=100", "ipc.signal.roundtrip.delivery=handler",
				 "ipc.signal.roundtrip.burst=5", NULL};
	check_run(id, "roundtrip", handler, 100, "sigsuspend");
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_wake();
	test_roundtrip();
	return check_exit();
}
