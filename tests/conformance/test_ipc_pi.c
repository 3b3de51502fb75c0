/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ipc.pi.stress on the POSIX port, run in-process for a short time: with
 * priority inheritance it passes with its negative control caught; with
 * ipc.pi.stress.protocol=none it fails on inversions. The stall bound is
 * raised far above anything a loaded host adds, so the test judges
 * inversions (an order of events), never timing.
 */
#include <string.h>

#include "capture.h"
#include "check.h"

static void test_inherit(void)
{
	static const char *const opts[] = {"duration_ms=500", "ipc.pi.stress.stall_ms=30000", NULL};
	int rc;
	char *out = conf_run("ipc.pi.stress", opts, &rc);

	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"check\":\"priority_inheritance_stress\"",
			"\"outcome\":\"pass\"", "\"control\":{\"outcome\":\"caught\"",
			"PTHREAD_PRIO_INHERIT", "group 2: ", NULL) != NULL);
	/* every group of the control showed the inversion, none stalled */
	const char *v = conf_find(out, "verdict", NULL);
	CHECK(v != NULL && strstr(v, "no priority inheritance") != NULL);
	CHECK(v != NULL && strstr(v, "stuck") == NULL);
	/* the waits were timed */
	const char *r = conf_find(out, "result", "\"metric\":\"high_wait\"",
				  "\"protocol\":\"inherit\"", NULL);
	CHECK(r != NULL);
	CHECK(conf_field(r, "count") > 0);
	CHECK(conf_find(out, "table", "\"name\":\"groups\"", "control (no protocol)", NULL) !=
	      NULL);
	free(out);
}

static void test_none(void)
{
	static const char *const opts[] = {"duration_ms=500", "ipc.pi.stress.stall_ms=30000",
					   "ipc.pi.stress.protocol=none", "groups=2", NULL};
	int rc;
	char *out = conf_run("ipc.pi.stress", opts, &rc);

	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "verdict", "\"outcome\":\"fail\"",
			"\"reason\":\"group 0: the medium thread ran while the high one waited",
			"no priority inheritance", "PTHREAD_PRIO_NONE", NULL) != NULL);
	CHECK(conf_find(out, "result", "\"protocol\":\"none\"", "\"groups\":2", NULL) != NULL);
	free(out);
}

static void test_bad_options(void)
{
	static const char *const bad[][2] = {
		{"ipc.pi.stress.protocol=ceiling", NULL},
		{"groups=0", NULL},
		{"groups=9", NULL},
		{"ipc.pi.stress.stall_ms=5", NULL},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc;
		char *out = conf_run("ipc.pi.stress", bad[i], &rc);
		CHECK(rc == RTB_E_INVALID);
		CHECK(conf_find(out, "verdict", NULL) == NULL);
		free(out);
	}
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_inherit();
	test_none();
	test_bad_options();
	return check_exit();
}
