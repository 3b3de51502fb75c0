/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE 1
#include "capture.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* Sanitizer builds: AddressSanitizer reports a false stack-buffer-underflow
 * when a thread ended by pthread_cancel() or pthread_exit() tears down its
 * alternate signal stack (google/sanitizers#1399), which is how the port
 * deletes live threads; and a failed huge allocation must return NULL, as
 * the port contract says, rather than abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "use_sigaltstack=0:allocator_may_return_null=1";
}

int conf_init(bool need_realtime)
{
	struct rtb_port_config cfg = {
		.cpu = -1,
		.lock_memory = getenv("RTB_TEST_NO_MLOCK") == NULL,
		.realtime = true,
	};

	if (rtb_port_init(&cfg) != RTB_OK) {
		fprintf(stderr, "port init failed: %s\n", rtb_port_info()->degraded);
		exit(1);
	}
	rtb_timing.hz = rtb_port_counter_hz();
	rtb_timing.overhead_ticks = rtb_timing_measure_overhead(30000);
	if (need_realtime && !(rtb_port_info()->caps & RTB_CAP_REALTIME)) {
		fprintf(stderr, "skipped: needs SCHED_FIFO (%s)\n", rtb_port_info()->degraded);
		return CHECK_SKIP;
	}
	return 0;
}

char *conf_run(const char *scenario, const char *const *options, int *rc)
{
	return conf_run_profile(scenario, RTB_PROFILE_QUICK, options, rc);
}

char *conf_run_profile(const char *scenario, enum rtb_profile profile, const char *const *options,
		       int *rc)
{
	static struct rtb_option opts[RTB_OPTIONS_MAX];
	static char storage[RTB_OPTIONS_MAX][256];
	uint32_t n = 0;

	for (; options != NULL && options[n] != NULL && n < RTB_OPTIONS_MAX; n++) {
		snprintf(storage[n], sizeof(storage[n]), "%s", options[n]);
		char *eq = strchr(storage[n], '=');
		if (eq == NULL) {
			fprintf(stderr, "option without '=': %s\n", options[n]);
			exit(1);
		}
		*eq = '\0';
		opts[n].key = storage[n];
		opts[n].value = eq + 1;
	}
	const struct rtb_scenario *s = rtb_scenario_find(scenario);
	if (s == NULL) {
		fprintf(stderr, "no scenario named %s in this build\n", scenario);
		exit(1);
	}

	fflush(stdout);
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	int result = rtb_run_scenario(s, profile, 2000, opts, n);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	if (rc != NULL)
		*rc = result;

	long size = ftell(tmp);
	if (size < 0)
		size = lseek(fileno(tmp), 0, SEEK_END);
	char *text = malloc((size_t)size + 1);
	lseek(fileno(tmp), 0, SEEK_SET);
	size_t got = fread(text, 1, (size_t)size, tmp);
	text[got] = '\0';
	fclose(tmp);
	/* every option a scenario reads must be declared in its descriptor */
	const char *undeclared = strstr(text, "which it does not declare");
	if (undeclared != NULL) {
		const char *line = undeclared;
		while (line > text && line[-1] != '\n')
			line--;
		fprintf(stderr, "%.*s\n", (int)strcspn(line, "\n"), line);
		exit(1);
	}
	return text;
}

static bool line_has_type(const char *line, size_t len, const char *type)
{
	char want[64];
	snprintf(want, sizeof(want), "\"type\":\"%s\"", type);
	return memmem(line, len, want, strlen(want)) != NULL;
}

const char *conf_find(const char *records, const char *type, ...)
{
	static char found[1 << 16];
	const char *line = records;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		if (line_has_type(line, len, type)) {
			bool all = true;
			va_list ap;
			va_start(ap, type);
			for (const char *needle = va_arg(ap, const char *); needle != NULL;
			     needle = va_arg(ap, const char *)) {
				if (memmem(line, len, needle, strlen(needle)) == NULL) {
					all = false;
					break;
				}
			}
			va_end(ap);
			if (all) {
				size_t n = len < sizeof(found) - 1 ? len : sizeof(found) - 1;
				memcpy(found, line, n);
				found[n] = '\0';
				return found;
			}
		}
		line = end != NULL ? end + 1 : NULL;
	}
	return NULL;
}

int conf_count(const char *records, const char *type)
{
	int n = 0;
	const char *line = records;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		if (line_has_type(line, len, type))
			n++;
		line = end != NULL ? end + 1 : NULL;
	}
	return n;
}

long long conf_field(const char *record, const char *key)
{
	char want[96];

	snprintf(want, sizeof(want), "\"%s\":", key);
	const char *p = record != NULL ? strstr(record, want) : NULL;
	if (p == NULL)
		return -1;
	p += strlen(want);
	if (*p < '0' || *p > '9')
		return -1;
	return strtoll(p, NULL, 10);
}

uint64_t conf_bucket_total(const char *record)
{
	const char *p = strstr(record, "\"buckets\":[");
	uint64_t total = 0;

	if (p == NULL)
		return UINT64_MAX;
	p += strlen("\"buckets\":[");
	while (*p == '[') {
		unsigned long long lo, hi, n;
		if (sscanf(p, "[%llu,%llu,%llu]", &lo, &hi, &n) != 3)
			return UINT64_MAX;
		total += n;
		p = strchr(p, ']') + 1;
		if (*p == ',')
			p++;
	}
	return total;
}
