/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EVT: event flags, performance (RTOSBench's message-queue cases applied to
 * event flags).
 *
 * Every wait here is for one flag (bit 0, "any") and consumes it (clear on
 * exit), so each wait needs one set. On a port whose event flags are built
 * from a mutex and a condition variable (RTB_CAP_EVT_EMULATED) every result
 * says so in its param `implementation` ("emulated" or "native") and an info
 * log repeats it: the figures then include the emulation's cost.
 *
 * evt.set.no_waiter / evt.wait.available. One thread at relative priority 0
 * and event flags nobody waits for. Each iteration:
 *   t0; set the flag (it was clear); t1;  t2; wait for it with clear (it is
 *   set, so the wait returns at once); t3
 * set = t1 - t0 - overhead, wait = t3 - t2 - overhead, each pair the two
 * reads of a timed call (rtb/sample.h). No thread switch.
 * Cross-check (table "amortised"): set + wait-with-clear pairs, timed as one
 * block; sets back to back with the flag already set after the first; and
 * waits without clear back to back on the set flag.
 *
 * evt.set.unblock / evt.wait.block. The controller, the setter, runs at
 * priority 0; a waiter at priority 1 loops: it counts the call, takes t_wait
 * as its last action before waiting for the clear flag, blocks, and takes
 * t_woken as its first action after the wait returns. Each iteration the
 * controller takes t0, sets the flag and takes t1 when set returns. The set
 * makes the waiter ready; it preempts the setter, takes t_woken, waits
 * again, blocks, and only then does the setter's set return:
 *   unblock = t_woken - t0 - overhead (set until the waiter runs)
 *   block   = t1 - t_wait - overhead  (a wait that blocks, until the
 *                                      lower-priority setter runs again)
 * An iteration is valid when, at t1, the waiter has woken exactly once and
 * waited again exactly once, and t0 <= t_woken <= t_wait <= t1; otherwise
 * both samples are counted invalid and the controller yields until the
 * waiter has consumed the flag and waits again. These are performance tests:
 * no verdict and no negative control.
 */
#include "rtb/core.h"

#define EVT_BIT 0x1u

/* The timed calls (rtb/sample.h): nothing but the call between the reads. */
RTB_TIMED(timed_set, int, rtb_port_evt_set(e, bits), struct rtb_evt *e, uint32_t bits)
RTB_TIMED(timed_wait, int, rtb_port_evt_wait(e, bits, mode, clear, got), struct rtb_evt *e,
	  uint32_t bits, enum rtb_evt_wait mode, bool clear, uint32_t *got)
#define WAITER_PRIO 1
#define EXIT_WAIT_NS 1000000000u

static const char *implementation(void)
{
	return (rtb_port_info()->caps & RTB_CAP_EVT_EMULATED) ? "emulated" : "native";
}

static void metric_params(struct rtb_metric *m)
{
	rtb_metric_param_str(m, "implementation", implementation());
}

static void say_implementation(const char *id)
{
	if (rtb_port_info()->caps & RTB_CAP_EVT_EMULATED)
		rtb_emit_log(id, "info",
			     "the %s port has no native event flags: it builds them from a mutex "
			     "and a condition variable, and these figures include that emulation",
			     rtb_port_info()->port);
	else
		rtb_emit_log(id, "info", "event flags are the OS's own (native)");
}

/* ---- evt.set.no_waiter / evt.wait.available ---------------------------------- */

static int no_waiter_amortised(struct rtb_ctx *ctx, struct rtb_evt *e, uint64_t calls)
{
	uint64_t pair_ticks, set_ticks, wait_ticks;
	uint32_t got;
	int rc = RTB_OK;

	uint64_t t0 = rtb_port_counter_read();
	for (uint64_t i = 0; i < calls && rc == RTB_OK; i++) {
		rc = rtb_port_evt_set(e, EVT_BIT);
		if (rc == RTB_OK)
			rc = rtb_port_evt_wait(e, EVT_BIT, RTB_EVT_ANY, true, &got);
	}
	uint64_t t1 = rtb_port_counter_read();
	for (uint64_t i = 0; i < calls && rc == RTB_OK; i++)
		rc = rtb_port_evt_set(e, EVT_BIT);
	uint64_t t2 = rtb_port_counter_read();
	for (uint64_t i = 0; i < calls && rc == RTB_OK; i++)
		rc = rtb_port_evt_wait(e, EVT_BIT, RTB_EVT_ANY, false, &got);
	uint64_t t3 = rtb_port_counter_read();
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc,
				    "event flag operation failed in the amortised pass: %s",
				    rtb_port_strerror(rc));
	pair_ticks = t1 - t0;
	set_ticks = t2 - t1;
	wait_ticks = t3 - t2;
	struct rtb_json *j = rtb_amortised_begin("evt.set.no_waiter");
	rtb_amortised_row(j, "set + wait with clear (pairs)", calls, pair_ticks);
	rtb_amortised_row(j, "set (no waiter; flag already set)", calls, set_ticks);
	rtb_amortised_row(j, "wait without clear (flag set)", calls, wait_ticks);
	rtb_table_end(j);
	return RTB_OK;
}

static int run_set_no_waiter(struct rtb_ctx *ctx)
{
	const char *id = "evt.set.no_waiter";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 20000, 1000000, 10000000);
	struct rtb_metric ms = {.scenario = "evt.set.no_waiter",
				.metric = "set",
				.title = "Event flag set, nobody waiting (no switch)",
				.unit = "ticks"};
	struct rtb_metric mw = {.scenario = "evt.wait.available",
				.metric = "wait",
				.title = "Event flag wait with clear, flag already set (no switch)",
				.unit = "ticks"};
	struct rtb_recorder rs, rw;
	uint32_t warm = rtb_warmup_for(n);
	struct rtb_evt *e;
	uint32_t got;
	int rc;

	metric_params(&ms);
	metric_params(&mw);
	say_implementation(id);
	rc = rtb_port_evt_create(&e);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "cannot create event flags: %s",
				    rtb_port_strerror(rc));
	if (rtb_recorder_init_pair(&rs, &ms, &rw, &mw, warm, ctx->raw_max) != RTB_OK) {
		rtb_port_evt_delete(e);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	}
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&rs);
	rtb_recorder_timed_calls(&rw);
	for (uint64_t i = 0; i < n + warm; i++) {
		struct rtb_span s, w;
		rc = timed_set(e, EVT_BIT, &s);
		if (rc == RTB_OK)
			rc = timed_wait(e, EVT_BIT, RTB_EVT_ANY, true, &got, &w);
		if (rc != RTB_OK)
			break;
		rtb_recorder_add_interval(&rs, s.t0, s.t1);
		rtb_recorder_add_interval(&rw, w.t0, w.t1);
		if ((i & 1023) == 0 && rtb_ctx_expired_after(ctx, i + 1, n + warm, "iterations"))
			break;
	}
	if (rc == RTB_OK) {
		rtb_emit_result(&rs);
		rtb_emit_result(&rw);
		rc = no_waiter_amortised(
			ctx, e, rtb_ctx_count(ctx, "amortised_calls", 1000000, 1000000, 10000000));
	} else {
		rtb_ctx_fail(ctx, rc, "event flag operation failed: %s", rtb_port_strerror(rc));
	}
	rtb_port_evt_delete(e);
	rtb_recorder_free(&rs);
	rtb_recorder_free(&rw);
	return rc;
}

static const struct rtb_option_spec evt_set_no_waiter_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_LEN("amortised_calls", 1u, 10000000000ull,
		    "calls timed back to back for the amortised cross-check"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_evt_set_no_waiter = {
	.name = "evt.set.no_waiter",
	.ids = {{"evt.set.no_waiter", NULL}, {"evt.wait.available", NULL}},
	.summary = "Event flag set with nobody waiting, wait for a flag already set (no switch)",
	.estimate_ms = {200, 1500, 12000},
	.deadline_ms = {20000, 60000, 300000},
	.caps = RTB_CAP_EVT,
	.options = evt_set_no_waiter_options,
	.run = run_set_no_waiter,
};

/* ---- evt.set.unblock / evt.wait.block ---------------------------------------- */

struct unblock_shared {
	struct rtb_evt *e;
	volatile uint64_t t_wait;  /* waiter: just before the wait */
	volatile uint64_t t_woken; /* waiter: just after the wait returned */
	volatile uint32_t waits;   /* wait calls made */
	volatile uint32_t wakes;   /* wait calls returned (not counting the last) */
	volatile uint32_t exited;
	volatile int rc;
	volatile bool stop;
};

static void unblock_waiter_main(void *arg)
{
	struct unblock_shared *sh = arg;
	uint32_t got;

	for (;;) {
		sh->waits++;
		sh->t_wait = rtb_port_counter_read();
		int rc = rtb_port_evt_wait(sh->e, EVT_BIT, RTB_EVT_ANY, true, &got);
		uint64_t t = rtb_port_counter_read();
		if (rc != RTB_OK || sh->stop) {
			sh->rc = rc;
			break;
		}
		sh->t_woken = t;
		sh->wakes++;
	}
	sh->exited = 1;
}

static int run_set_unblock(struct rtb_ctx *ctx)
{
	const char *id = "evt.set.unblock";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 10000, 100000, 1000000);
	struct rtb_metric mu = {
		.scenario = "evt.set.unblock",
		.metric = "set_unblock",
		.title = "Event flag set until the blocked higher-priority waiter runs",
		.unit = "ticks"};
	struct rtb_metric mb = {.scenario = "evt.wait.block",
				.metric = "wait_block",
				.title = "Event flag wait that blocks, until the lower-priority "
					 "setter runs",
				.unit = "ticks"};
	struct rtb_thread_attr attr = {.name = "evt-waiter", .prio = WAITER_PRIO};
	struct rtb_recorder ru, rb;
	struct rtb_thread *waiter;
	struct unblock_shared *sh;
	uint32_t warm = rtb_warmup_for(n);
	uint64_t invalid = 0, done = 0;
	int rc;

	if (rtb_port_info()->prio_max < WAITER_PRIO)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs two priority levels");
	metric_params(&mu);
	metric_params(&mb);
	say_implementation(id);
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rtb_memset(sh, 0, sizeof(*sh));
	if (rtb_recorder_init_pair(&ru, &mu, &rb, &mb, warm, ctx->raw_max) != RTB_OK) {
		rtb_port_mem_free(sh);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	}
	rc = rtb_port_evt_create(&sh->e);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create event flags: %s", rtb_port_strerror(rc));
		goto free_rec;
	}
	/* the waiter preempts at once and blocks on the clear flag */
	rc = rtb_port_thread_create(&waiter, &attr, unblock_waiter_main, sh);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the waiter: %s", rtb_port_strerror(rc));
		goto free_evt;
	}
	if (!rtb_wait_count(&sh->waits, 1, EXIT_WAIT_NS))
		rtb_emit_log(id, "warning", "the waiter did not run within a second");

	for (uint64_t i = 0; i < n + warm && sh->rc == RTB_OK; i++) {
		uint32_t wakes = sh->wakes, waits = sh->waits;
		uint64_t t0 = rtb_port_counter_read();
		rc = rtb_port_evt_set(sh->e, EVT_BIT);
		uint64_t t1 = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		uint32_t wakes1 = sh->wakes, waits1 = sh->waits;
		uint64_t t_woken = sh->t_woken, t_wait = sh->t_wait;
		done = i + 1;
		if (wakes1 == wakes + 1 && waits1 == waits + 1 && t0 <= t_woken &&
		    t_woken <= t_wait && t_wait <= t1) {
			rtb_recorder_add_interval(&ru, t0, t_woken);
			rtb_recorder_add_interval(&rb, t_wait, t1);
		} else {
			rtb_recorder_add_invalid(&ru);
			rtb_recorder_add_invalid(&rb);
			invalid++;
			rtb_ctx_catch_up(ctx, &sh->waits, waits + 1);
		}
		if ((i & 255) == 0 && rtb_ctx_expired_after(ctx, done, n + warm, "iterations"))
			break;
	}

	sh->stop = true;
	rtb_port_evt_set(sh->e, EVT_BIT);
	rtb_wait_count(&sh->exited, 1, EXIT_WAIT_NS);
	rtb_port_thread_delete(waiter);
	if (rc == RTB_OK && sh->rc != RTB_OK)
		rc = sh->rc;
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "event flag operation failed: %s", rtb_port_strerror(rc));
		goto free_evt;
	}
	if (invalid > 0)
		rtb_emit_log(id, "warning",
			     "%llu of %llu iterations invalid: the waiter did not run and block "
			     "again before set returned",
			     (unsigned long long)invalid, (unsigned long long)done);
	rtb_emit_result(&ru);
	rtb_emit_result(&rb);
free_evt:
	rtb_port_evt_delete(sh->e);
free_rec:
	rtb_recorder_free(&ru);
	rtb_recorder_free(&rb);
	rtb_port_mem_free(sh);
	return rc;
}

static const struct rtb_option_spec evt_set_unblock_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_evt_set_unblock = {
	.name = "evt.set.unblock",
	.ids = {{"evt.set.unblock", NULL}, {"evt.wait.block", NULL}},
	.summary = "Event flag set that wakes a higher-priority waiter, wait that blocks",
	.estimate_ms = {100, 2000, 20000},
	.deadline_ms = {20000, 60000, 300000},
	.caps = RTB_CAP_EVT,
	.options = evt_set_unblock_options,
	.run = run_set_unblock,
};
