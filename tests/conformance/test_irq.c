/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IRQ scenarios and timer.periodic.latency run in-process on the POSIX
 * port; their records are checked for behaviour, never for timing: results
 * with samples whose histogram adds up, invalid samples classified when the
 * interrupt is forced outside the busy loop, the irq.sustained table
 * consistent on every row with a stated loss-free period, a source that
 * must lose reported as losing, and missed timer periods counted when the
 * interval is too short to keep.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"

static uint64_t stats_count(const char *rec)
{
	long long n = conf_field(strstr(rec, "\"stats\":{"), "count");

	return n >= 0 ? (uint64_t)n : UINT64_MAX;
}

/* A result of `scenario`/`metric` with samples whose histogram adds up. */
static const char *check_result(const char *out, const char *scenario, const char *metric)
{
	char s[96], m[96];
	snprintf(s, sizeof(s), "\"scenario\":\"%s\"", scenario);
	snprintf(m, sizeof(m), "\"metric\":\"%s\"", metric);
	const char *rec = conf_find(out, "result", s, m, NULL);
	CHECK(rec != NULL);
	if (rec == NULL)
		return NULL;
	uint64_t count = stats_count(rec);
	CHECK(count > 0 && count != UINT64_MAX);
	CHECK_EQ_U64(conf_bucket_total(rec), count);
	return rec;
}

/* Rows of a table record: numbers (strings become UINT64_MAX). */
#define ROWS_MAX 256
#define COLS_MAX 12
static int table_rows(const char *rec, uint64_t rows[][COLS_MAX], int *ncols)
{
	const char *p = strstr(rec, "\"rows\":[");
	int n = 0;

	*ncols = 0;
	if (p == NULL)
		return -1;
	p += strlen("\"rows\":[");
	while (*p == '[' && n < ROWS_MAX) {
		int c = 0;
		p++;
		while (*p != ']' && c < COLS_MAX) {
			if (*p == '"') {
				rows[n][c++] = UINT64_MAX;
				p = strchr(p + 1, '"') + 1;
			} else {
				char *end;
				rows[n][c++] = strtoull(p, &end, 10);
				p = end;
			}
			if (*p == ',')
				p++;
		}
		*ncols = c;
		n++;
		p = strchr(p, ']') + 1;
		if (*p == ',')
			p++;
	}
	return n;
}

static uint64_t conditions_value(const char *out, const char *scenario, const char *property)
{
	char s[96];
	snprintf(s, sizeof(s), "\"scenario\":\"%s\"", scenario);
	const char *rec = conf_find(out, "table", s, "\"name\":\"conditions\"", NULL);
	if (rec == NULL)
		return UINT64_MAX;
	char pat[256];
	snprintf(pat, sizeof(pat), "[\"%s\",\"", property);
	const char *p = strstr(rec, pat);
	return p != NULL ? strtoull(p + strlen(pat), NULL, 10) : UINT64_MAX;
}

static void says_source(const char *out, const char *scenario)
{
	char s[96];
	snprintf(s, sizeof(s), "\"scenario\":\"%s\"", scenario);
	CHECK(conf_find(out, "log", s, "interrupt source on the posix port: POSIX timer", NULL) !=
	      NULL);
	CHECK(conf_find(out, "table", s, "[\"interrupt source\",\"POSIX timer", NULL) != NULL);
}

static void test_latency(void)
{
	const char *opts[] = {"iterations=300", NULL};
	int rc;
	char *out = conf_run("irq.latency", opts, &rc);

	CHECK(rc == RTB_OK);
	check_result(out, "irq.latency", "latency");
	check_result(out, "irq.return", "return");
	says_source(out, "irq.latency");
	CHECK(conditions_value(out, "irq.latency", "samples attempted (with warm-up)") == 310);
	CHECK(conf_find(out, "end", "\"status\":\"ok\"", NULL) != NULL);
	free(out);

	/* An interrupt due at once lands before the busy loop starts: every
	 * sample must be classified invalid, none may slip into the result. */
	const char *early[] = {"iterations=50", "irq.latency.delay_min_ns=1",
			       "irq.latency.delay_max_ns=1", NULL};
	out = conf_run("irq.latency", early, &rc);
	CHECK(rc == RTB_OK);
	const char *rec = conf_find(out, "result", "\"metric\":\"latency\"", NULL);
	CHECK(rec != NULL && stats_count(rec) == 0);
	CHECK(rec != NULL && strstr(rec, "\"invalid\":60") != NULL);
	CHECK_EQ_U64(
		conditions_value(out, "irq.latency", "invalid: interrupt outside the busy loop"),
		60);
	free(out);
}

static void test_to_thread(void)
{
	const char *opts[] = {"iterations=300", NULL};
	int rc;
	char *out = conf_run("irq.to_thread", opts, &rc);

	CHECK(rc == RTB_OK);
	check_result(out, "irq.to_thread", "to_thread");
	says_source(out, "irq.to_thread");
	CHECK(conf_find(out, "end", "\"status\":\"ok\"", NULL) != NULL);
	free(out);

	const char *early[] = {"iterations=50", "irq.to_thread.delay_min_ns=1",
			       "irq.to_thread.delay_max_ns=1", NULL};
	out = conf_run("irq.to_thread", early, &rc);
	CHECK(rc == RTB_OK);
	const char *rec = conf_find(out, "result", "\"metric\":\"to_thread\"", NULL);
	CHECK(rec != NULL && stats_count(rec) == 0);
	CHECK_EQ_U64(
		conditions_value(out, "irq.to_thread", "invalid: interrupt outside the busy loop"),
		60);
	free(out);
}

/* Every phase row: generated == serviced + lost; returns rows seen and
 * copies them to *out_rows. */
static int check_phases_rows(const char *out, uint64_t *lost_total, uint64_t (**out_rows)[COLS_MAX])
{
	static uint64_t rows[ROWS_MAX][COLS_MAX];
	int ncols;
	const char *rec = conf_find(out, "table", "\"scenario\":\"irq.sustained\"",
				    "\"name\":\"phases\"", NULL);
	CHECK(rec != NULL);
	if (rec == NULL)
		return 0;
	CHECK(strstr(rec,
		     "{\"name\":\"period\",\"unit\":\"ns\"},{\"name\":\"phase\",\"unit\":"
		     "\"count\"},{\"name\":\"generated\",\"unit\":\"count\"},{\"name\":"
		     "\"serviced\",\"unit\":\"count\"},{\"name\":\"lost\",\"unit\":\"count\"}") !=
	      NULL);
	int n = table_rows(rec, rows, &ncols);
	CHECK(n > 0);
	CHECK(ncols >= 5);
	*lost_total = 0;
	for (int i = 0; i < n; i++) {
		CHECK(rows[i][0] > 0);
		CHECK(rows[i][2] > 0);
		CHECK_EQ_U64(rows[i][2], rows[i][3] + rows[i][4]);
		*lost_total += rows[i][4];
	}
	if (out_rows != NULL)
		*out_rows = rows;
	return n;
}

static int check_phases(const char *out, uint64_t *lost_total)
{
	return check_phases_rows(out, lost_total, NULL);
}

static void test_sustained(void)
{
	const char *opts[] = {"irq.sustained.start_period_ns=200000",
			      "irq.sustained.min_period_ns=20000",
			      "irq.sustained.search_phase=200",
			      "irq.sustained.confirm_phase=1000",
			      "irq.sustained.backoffs=2",
			      NULL};
	uint64_t lost;
	int rc;
	char *out = conf_run("irq.sustained", opts, &rc);

	CHECK(rc == RTB_OK);
	uint64_t(*rows)[COLS_MAX] = NULL;
	int n = check_phases_rows(out, &lost, &rows);
	CHECK(n >= 2);
	says_source(out, "irq.sustained");
	/* What is stated agrees with the table: the answer is at the largest
	 * phase size in the table; a loss-free period is a row of that
	 * period and size without loss, and no shorter period of that size
	 * was loss-free; "not found" means every phase of that size lost
	 * interrupts (a noisy host may lose even at the longest period
	 * tried, which the scenario must then say). */
	uint64_t largest = 0;
	for (int i = 0; i < n && rows != NULL; i++)
		largest = rows[i][1] > largest ? rows[i][1] : largest;
	const char *res =
		conf_find(out, "result", "\"metric\":\"min_period\"", "\"unit\":\"ns\"", NULL);
	if (res != NULL) {
		uint64_t period = (uint64_t)conf_field(strstr(res, "\"stats\":{"), "min");
		uint64_t phase = (uint64_t)conf_field(res, "phase");
		CHECK(period >= 20000 && period <= 5000000);
		CHECK_EQ_U64(phase, largest);
		char title[96];
		snprintf(title, sizeof(title), "(phases of %llu interrupts)",
			 (unsigned long long)phase);
		CHECK(strstr(res, title) != NULL);
		/* conf_find reuses one buffer: `res` is not valid after this */
		CHECK(conf_find(out, "log", "smallest loss-free period: ", NULL) != NULL);
		bool row_found = false;
		for (int i = 0; i < n && rows != NULL; i++) {
			if (rows[i][0] == period && rows[i][1] == phase && rows[i][4] == 0)
				row_found = true;
			if (rows[i][1] == phase && rows[i][4] == 0)
				CHECK(rows[i][0] >= period);
		}
		CHECK(row_found);
	} else {
		char said[96];
		snprintf(said, sizeof(said), "not found at %llu interrupts",
			 (unsigned long long)largest);
		CHECK(conf_find(out, "log", said, NULL) != NULL);
		for (int i = 0; i < n && rows != NULL; i++) {
			if (rows[i][1] == largest)
				CHECK(rows[i][4] > 0);
		}
	}
	free(out);

	/* Negative control: 200 ns is far beyond what signal delivery can
	 * keep up with, so the phase must report lost interrupts and no
	 * loss-free period. */
	const char *flood[] = {"irq.sustained.start_period_ns=200",
			       "irq.sustained.min_period_ns=200", "irq.sustained.max_period_ns=200",
			       "irq.sustained.search_phase=1000", NULL};
	out = conf_run("irq.sustained", flood, &rc);
	CHECK(rc == RTB_OK);
	CHECK_EQ_U64(check_phases(out, &lost), 1);
	CHECK(lost > 0);
	CHECK(conf_find(out, "result", "\"metric\":\"min_period\"", NULL) == NULL);
	CHECK(conf_find(out, "log", "not found at 1000 interrupts", NULL) != NULL);
	free(out);
}

/* The "periods" row: interval, periods, wakes, missed, ... */
static bool timer_periods(const char *out, uint64_t row[COLS_MAX])
{
	static uint64_t rows[ROWS_MAX][COLS_MAX];
	int ncols;
	const char *rec = conf_find(out, "table", "\"scenario\":\"timer.periodic.latency\"",
				    "\"name\":\"periods\"", NULL);
	CHECK(rec != NULL);
	if (rec == NULL || table_rows(rec, rows, &ncols) != 1 || ncols < 4)
		return false;
	CHECK(strstr(rec, "{\"name\":\"missed\",\"unit\":\"count\"}") != NULL);
	memcpy(row, rows[0], sizeof(rows[0]));
	return true;
}

static void test_timer(void)
{
	uint64_t row[COLS_MAX];
	const char *opts[] = {"iterations=300", NULL};
	int rc;
	char *out = conf_run("timer.periodic.latency", opts, &rc);

	CHECK(rc == RTB_OK);
	const char *rec = check_result(out, "timer.periodic.latency", "latency");
	CHECK(rec != NULL && strstr(rec, "\"unit\":\"ns\"") != NULL);
	CHECK(rec != NULL && strstr(rec, "\"interval_ns\":1000000") != NULL);
	if (timer_periods(out, row)) {
		CHECK_EQ_U64(row[0], 1000000);
		CHECK(row[1] >= 300);		       /* every grid period accounted */
		CHECK_EQ_U64(row[1], row[2] + row[3]); /* woken or missed */
	}
	CHECK(conf_find(out, "log", "\"message\":\"missed ", NULL) != NULL);
	free(out);

	/* A 1 us interval cannot be kept by sleeping: misses must be counted
	 * and reported, and the grid still covers every period. */
	const char *fast[] = {"timer.periodic.latency.interval_ns=1000", "iterations=20000", NULL};
	out = conf_run("timer.periodic.latency", fast, &rc);
	CHECK(rc == RTB_OK);
	if (timer_periods(out, row)) {
		CHECK_EQ_U64(row[0], 1000);
		CHECK(row[3] > 0);
		CHECK_EQ_U64(row[1], row[2] + row[3]);
		CHECK(row[1] >= 20000);
	}
	CHECK(conf_find(out, "log", "\"level\":\"warning\"", "\"message\":\"missed ", NULL) !=
	      NULL);
	free(out);
}

/* cpu_mask: one measuring thread per CPU, each with its own result (param
 * "cpu") and periods row; a CPU that does not exist fails the scenario. */
static void test_timer_per_cpu(void)
{
	const struct rtb_port_info *info = rtb_port_info();
	char mask[64], needle[32];
	int rc;

	if (!(info->caps & RTB_CAP_PINNING) || info->cpu_count < 2) {
		printf("skip: per-CPU timer needs two CPUs and thread placement\n");
		return;
	}
	snprintf(mask, sizeof(mask), "cpu_mask=%d", (1 << 0) | (1 << info->cpu));
	const char *opts[] = {"iterations=200", mask, NULL};
	char *out = conf_run("timer.periodic.latency", opts, &rc);
	CHECK(rc == RTB_OK);
	CHECK_EQ_U64((uint64_t)conf_count(out, "result"), info->cpu == 0 ? 1 : 2);
	snprintf(needle, sizeof(needle), "\"cpu\":%d}", info->cpu);
	CHECK(conf_find(out, "result", "\"metric\":\"latency\"", needle, NULL) != NULL);
	CHECK(conf_find(out, "table", "\"name\":\"periods\"", "{\"name\":\"cpu\"", NULL) != NULL);
	free(out);

	/* a CPU beyond any machine's: the thread cannot be placed */
	const char *bad[] = {"iterations=50", "cpu_mask=9223372036854775808", NULL};
	out = conf_run("timer.periodic.latency", bad, &rc);
	CHECK(rc != RTB_OK);
	CHECK(conf_count(out, "result") == 0);
	free(out);
}

/* break_ns: a limit no wake-up can meet (1 ns) stops the loop at its first
 * measured sample; without it the same run measures every period. */
static void test_timer_break(void)
{
	int rc;
	const char *opts[] = {"iterations=2000", "break_ns=1", NULL};
	char *out = conf_run("timer.periodic.latency", opts, &rc);

	CHECK(rc == RTB_OK);
	const char *rec = check_result(out, "timer.periodic.latency", "latency");
	CHECK(rec != NULL && conf_field(strstr(rec, "\"stats\":{"), "count") == 1);
	CHECK(conf_find(out, "log", "break_ns", NULL) != NULL);
	free(out);
	const char *control[] = {"iterations=300", NULL};
	out = conf_run("timer.periodic.latency", control, &rc);
	rec = check_result(out, "timer.periodic.latency", "latency");
	CHECK(rec != NULL && conf_field(strstr(rec, "\"stats\":{"), "count") > 1);
	CHECK(conf_find(out, "log", "break_ns", NULL) == NULL);
	free(out);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_latency();
	test_to_thread();
	test_sustained();
	test_timer();
	test_timer_per_cpu();
	test_timer_break();
	return check_exit();
}
