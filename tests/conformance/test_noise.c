/* SPDX-License-Identifier: Apache-2.0 */
/*
 * os.noise runs in-process on the POSIX port; its records are checked for
 * behaviour, never for timing: both results (every loop, the gaps above the
 * threshold) with histograms that add up, a summary table whose figures
 * agree with each other and with the results, a known disturbance (the
 * inject_us test hook sleeps inside the measurement) counted as noise at
 * least as long as it lasted, the single-CPU pauses taken and left out of
 * the measured time, and bad options refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"

/* The value of a row of the summary table; -1 when missing. */
static double summary(const char *out, const char *quantity)
{
	const char *rec =
		conf_find(out, "table", "\"scenario\":\"os.noise\"", "\"name\":\"summary\"", NULL);
	char pat[160];

	if (rec == NULL)
		return -1;
	snprintf(pat, sizeof(pat), "[\"%s\",", quantity);
	const char *p = strstr(rec, pat);
	return p != NULL ? strtod(p + strlen(pat), NULL) : -1;
}

static long long count_of(const char *out, const char *metric)
{
	char m[64];
	snprintf(m, sizeof(m), "\"metric\":\"%s\"", metric);
	const char *rec = conf_find(out, "result", "\"scenario\":\"os.noise\"", m, NULL);
	CHECK(rec != NULL);
	if (rec == NULL)
		return -1;
	long long n = conf_field(strstr(rec, "\"stats\":{"), "count");
	CHECK(n >= 0);
	CHECK_EQ_U64(conf_bucket_total(rec), (uint64_t)n);
	CHECK(conf_field(rec, "invalid") == 0);
	return n;
}

static void test_plain(void)
{
	const char *opts[] = {"duration_ms=300", NULL};
	int rc;
	char *out = conf_run("os.noise", opts, &rc);

	CHECK(rc == RTB_OK);
	long long loops = count_of(out, "loop");
	long long gaps = count_of(out, "noise");
	CHECK(loops > 0);
	CHECK(gaps >= 0 && gaps < loops);
	CHECK(summary(out, "loops") == (double)loops);
	CHECK(summary(out, "gaps above the threshold") == (double)gaps);
	double cost = summary(out, "loop cost (smallest gap)");
	double threshold = summary(out, "threshold");
	CHECK(cost > 0);
	CHECK(threshold >= 2 * cost - 1); /* never below twice the loop cost */
	double measured = summary(out, "measured time (warm-up and pauses excluded)");
	CHECK(measured > 0);
	/* every loop took at least the loop's cost */
	CHECK(measured >= cost * (double)loops * 0.9);
	double stolen = summary(out, "time stolen (gaps minus the loop cost)");
	CHECK(stolen >= 0 && stolen <= measured);
	CHECK(summary(out, "longest gap") >= cost);
	CHECK(summary(out, "longest gap began at (from the start)") <= measured);
	CHECK(summary(out, "injected sleeps (test hook)") == 0);
	CHECK(conf_find(out, "log", "\"scenario\":\"os.noise\"", "loop cost ", NULL) != NULL);
	CHECK(conf_find(out, "end", "\"status\":\"ok\"", NULL) != NULL);
	free(out);
}

/* Sleeps inside the measurement must show as gaps at least as long. */
static void test_injected(void)
{
	const char *opts[] = {"duration_ms=450", "os.noise.inject_us=3000", NULL};
	int rc;
	char *out = conf_run("os.noise", opts, &rc);

	CHECK(rc == RTB_OK);
	double injected = summary(out, "injected sleeps (test hook)");
	CHECK(injected >= 1);
	CHECK(summary(out, "gaps above the threshold") >= injected);
	CHECK(summary(out, "longest gap") >= 2900000);
	CHECK(summary(out, "time stolen (gaps minus the loop cost)") >= injected * 2900000);
	CHECK(summary(out, "time stolen per second") > 0);
	free(out);
}

/* Pauses between slices: taken, and not part of the measured time. */
static void test_slices(void)
{
	const char *opts[] = {"duration_ms=300", "os.noise.slice_ms=40", NULL};
	int rc;
	char *out = conf_run("os.noise", opts, &rc);

	CHECK(rc == RTB_OK);
	double pauses = summary(out, "pauses between slices (not measured)");
	CHECK(pauses >= 1);
	CHECK(summary(out, "time in pauses") >= pauses * 900000);
	CHECK(conf_find(out, "log", "paused ", NULL) != NULL);
	free(out);
}

static void test_bad_options(void)
{
	const char *zero[] = {"os.noise.threshold_ns=0", NULL};
	const char *tiny[] = {"duration_ms=1", NULL};
	int rc;

	free(conf_run("os.noise", zero, &rc));
	CHECK(rc == RTB_E_INVALID);
	free(conf_run("os.noise", tiny, &rc));
	CHECK(rc == RTB_E_INVALID);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_plain();
	test_injected();
	test_slices();
	test_bad_options();
	return check_exit();
}
