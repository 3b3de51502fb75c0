/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for conformance and scenario tests on the POSIX port: bring the
 * port up as rtbench-core does, run a scenario in-process with options while
 * capturing the records it writes to standard output, and find records in
 * the captured text.
 */
#ifndef RTB_CONF_CAPTURE_H
#define RTB_CONF_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtb/core.h"

/* Initialise the port (measurement CPU = last CPU) and the timing globals.
 * Returns 0, or CHECK_SKIP when need_realtime and SCHED_FIFO is refused.
 * Memory is not locked when RTB_TEST_NO_MLOCK is set (sanitizer builds). */
int conf_init(bool need_realtime);

/* Run one scenario by run name with "key=value" options (NULL-terminated
 * list, may be NULL) under the quick profile. Returns the captured records
 * (malloc'd, caller frees); *rc receives the scenario's return code. */
char *conf_run(const char *scenario, const char *const *options, int *rc);

/* conf_run() under another profile. */
char *conf_run_profile(const char *scenario, enum rtb_profile profile, const char *const *options,
		       int *rc);

/* The first line of `records` whose "type" is `type` and that contains every
 * needle (NULL-terminated), copied into a static buffer; NULL if none. */
const char *conf_find(const char *records, const char *type, ...);

/* Number of lines of `records` with the given "type". */
int conf_count(const char *records, const char *type);

/* The non-negative integer after the first "key": in `record` (a line, or
 * any text); -1 when record is NULL, the key is missing or its value is not
 * a number (null, a string, ...). */
long long conf_field(const char *record, const char *key);

/* Sum of the counts of a result record's histogram buckets [lo,hi,count];
 * UINT64_MAX when the record has no readable histogram. */
uint64_t conf_bucket_total(const char *record);

#endif
