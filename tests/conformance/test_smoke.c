/* SPDX-License-Identifier: Apache-2.0 */
/* Smoke test of the scenario harness: cal.timestamp runs and reports. */
#include "capture.h"
#include "check.h"

int main(void)
{
	int rc = conf_init(false);
	if (rc != 0)
		return rc;
	char *out = conf_run("cal.timestamp", NULL, &rc);
	CHECK(rc == RTB_OK);
	CHECK(conf_find(out, "result", "\"scenario\":\"cal.timestamp\"", NULL) != NULL);
	CHECK(conf_find(out, "end", "\"status\":\"ok\"", NULL) != NULL);
	free(out);
	return check_exit();
}
