/* SPDX-License-Identifier: Apache-2.0 */
/*
 * THR: thread switch by yield (THR-P-SLS).
 *
 * thr.switch.yield. n threads of equal priority (relative 1, FIFO) form a
 * ring: each one, in turn, writes the ring's "last yielder" mark, takes
 * t_yield as its last action and yields; the thread that runs next takes t1
 * as its first action after its own yield returned. Sample = t1 - t_yield
 * of the thread that yielded - overhead, so one sample is one switch from a
 * yield call in one thread to the return from yield in the next. One metric
 * per n (2, 10, 128, 1000; 10000 in standard and endurance where the OS can
 * create that many threads).
 *
 * The ring itself is core/src/ring.c (shared with sched.coop.switch and
 * rh.task_switch): the controller stays out of it at relative priority 0,
 * the threads learn their order when they first run, a switch to another
 * thread than the expected successor (or a yield that did not switch) is
 * counted invalid, and the first round (cold caches) is the warm-up.
 */
#include "rtb/ring.h"

/* Run one ring of n threads and emit its result. *created receives how
 * many threads could be created (n on success). */
static int ring_run(struct rtb_ctx *ctx, uint32_t n, uint64_t samples, uint32_t *created)
{
	struct rtb_recorder r;
	struct rtb_metric m = {
		.scenario = "thr.switch.yield",
		.label = "THR-P-SLS",
		.metric = "switch",
		.title = "Yield in one thread until the return from yield in the next "
			 "(equal priority, FIFO)",
		.unit = "ticks",
	};
	rtb_metric_param(&m, "threads", n);
	int rc = rtb_ring_measure(ctx, &m, n, samples, &r, created);

	if (rc == RTB_OK)
		rtb_emit_result(&r);
	rtb_recorder_free(&r);
	return rc;
}

static int run_switch_yield(struct rtb_ctx *ctx)
{
	static const uint32_t sizes[] = {2, 10, 128, 1000, 10000};
	const struct rtb_port_info *info = rtb_port_info();
	uint64_t samples = rtb_ctx_count(ctx, "iterations", 20000, 100000, 1000000);
	uint64_t only = rtb_ctx_count(ctx, "threads", 0, 0, 0);
	/* the 10,000-thread ring is "where the OS allows": optional */
	uint32_t nsizes = ctx->profile == RTB_PROFILE_QUICK ? 4 : 5;

	if (info->prio_max < RTB_RING_SETUP_PRIO)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	if (rtb_ctx_option(ctx, "threads") != NULL && (only < 2 || only > 100000))
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "threads must be 2..100000");
	if (samples == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "iterations must be at least 1");
	for (uint32_t s = 0; s < (only != 0 ? 1 : nsizes); s++) {
		uint32_t n = only != 0 ? (uint32_t)only : sizes[s];
		uint32_t created = 0;
		if (rtb_ctx_expired(ctx)) {
			rtb_emit_log("thr.switch.yield", "warning",
				     "%s before the ring of %" RTB_PRIu32 " threads",
				     rtb_ctx_expired_cause(ctx), n);
			break;
		}
		int rc = ring_run(ctx, n, samples, &created);
		if (rc == RTB_OK)
			continue;
		bool optional = only == 0 && n > 1000;
		if (optional && created < n && (rc == RTB_E_NOMEM || rc == RTB_E_AGAIN)) {
			rtb_emit_log("thr.switch.yield", "warning",
				     "the OS could create only %" RTB_PRIu32 " of %" RTB_PRIu32
				     " threads (the port "
				     "said: %s): no result for the ring of %" RTB_PRIu32 " threads",
				     created, n, rtb_port_strerror(rc), n);
			ctx->reason[0] = '\0';
			continue;
		}
		if (created < n)
			return rtb_ctx_fail(ctx, rc,
					    "could create only %" RTB_PRIu32 " of %" RTB_PRIu32
					    " ring threads: %s",
					    created, n, rtb_port_strerror(rc));
		return rc;
	}
	return RTB_OK;
}

static const struct rtb_option_spec thr_switch_yield_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("threads", 2u, 100000u,
		  "one ring of this many threads instead of the profile's set"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_thr_switch_yield = {
	.name = "thr.switch.yield",
	.ids = {{"thr.switch.yield", "THR-P-SLS"}},
	.summary = "Thread switch by yield in a ring of n equal-priority threads",
	.estimate_ms = {400, 3000, 20000},
	.deadline_ms = {30000, 180000, 1800000},
	.options = thr_switch_yield_options,
	.run = run_switch_yield,
};
