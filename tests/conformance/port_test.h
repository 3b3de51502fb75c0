/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the port conformance tests: an ordered trace of events from
 * several threads (every thread runs on the measurement CPU, so the order of
 * appends is the order things happened), thread creation with a check, and
 * bounded waits that block the caller so lower-priority threads can run.
 */
#ifndef RTB_PORT_TEST_H
#define RTB_PORT_TEST_H

#define _GNU_SOURCE 1

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "check.h"

struct trace {
	char text[1024];
	atomic_size_t len;
};

static inline void trace_reset(struct trace *t)
{
	memset(t->text, 0, sizeof(t->text));
	atomic_store(&t->len, 0);
}

/* Append a tag (async-signal-safe: usable from an interrupt handler). */
static inline void trace_add(struct trace *t, const char *tag)
{
	size_t n = strlen(tag) + 1;
	size_t at = atomic_fetch_add(&t->len, n);

	if (at + n < sizeof(t->text)) {
		memcpy(t->text + at, tag, n - 1);
		t->text[at + n - 1] = ' ';
	}
}

/* Does the trace read exactly `want` (tags separated by single spaces)? */
static inline bool trace_is(struct trace *t, const char *want)
{
	char got[sizeof(t->text)];
	size_t n = atomic_load(&t->len);

	if (n >= sizeof(got))
		n = sizeof(got) - 1;
	memcpy(got, t->text, n);
	got[n] = '\0';
	if (n > 0 && got[n - 1] == ' ')
		got[n - 1] = '\0';
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "trace: \"%s\", want \"%s\"\n", got, want);
		return false;
	}
	return true;
}

/* Position of a tag in the trace, or -1. */
static inline int trace_pos(struct trace *t, const char *tag)
{
	char needle[64];
	snprintf(needle, sizeof(needle), "%s ", tag);
	if (strncmp(t->text, needle, strlen(needle)) == 0)
		return 0;
	snprintf(needle, sizeof(needle), " %s ", tag);
	const char *p = strstr(t->text, needle);
	return p != NULL ? (int)(p - t->text) + 1 : -1;
}

static inline struct rtb_thread *spawn(const char *name, int prio, bool suspended, rtb_thread_fn fn,
				       void *arg)
{
	struct rtb_thread *t = NULL;
	struct rtb_thread_attr attr = {
		.name = name,
		.prio = prio,
		.policy = RTB_POLICY_FIFO,
		.stack_bytes = 0,
		.start_suspended = suspended,
	};
	int rc = rtb_port_thread_create(&t, &attr, fn, arg);

	if (rc != RTB_OK) {
		fprintf(stderr, "cannot create thread %s: %s\n", name, rtb_port_strerror(rc));
		check_failures++;
		exit(check_exit());
	}
	return t;
}

static inline void reap(struct rtb_thread *t)
{
	int rc = rtb_port_thread_delete(t);
	if (rc != RTB_OK) {
		fprintf(stderr, "thread delete failed: %s\n", rtb_port_strerror(rc));
		check_failures++;
	}
}

/* Block in 1 ms sleeps until *flag >= value, at most timeout_ms. */
static inline bool wait_for(atomic_int *flag, int value, unsigned timeout_ms)
{
	for (unsigned i = 0; i < timeout_ms; i++) {
		if (atomic_load(flag) >= value)
			return true;
		rtb_port_sleep_ns(1000000);
	}
	return atomic_load(flag) >= value;
}

/* Stay on the CPU (no blocking call) for ns nanoseconds. */
static inline void spin_ns(uint64_t ns)
{
	uint64_t end = rtb_port_time_ns() + ns;

	while (rtb_port_time_ns() < end)
		rtb_port_cpu_relax();
}

#endif
