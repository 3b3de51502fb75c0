/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCHED: scheduling (the RTOSBench scheduling and "workload" cases).
 *
 * sched.coop.switch. Cooperative switch: 5 threads of equal priority
 * (relative 1, FIFO) yield in turn (RTOSBench's round robin). Sample = from
 * the yield call in one thread to the return from yield in the next: the
 * yield ring of thr.switch.yield (core/src/ring.c) with 5 threads; the
 * controller stays out of it at 0. A switch to another thread than the
 * expected successor is invalid.
 *
 * sched.preempt.switch. Preemptive switch: a low thread (relative 2, the
 * controller raised) signals the semaphore a high thread (3) waits on;
 * t0 just before the signal call, t1 in the high thread as soon as its
 * wait returns; sample = t1 - t0 - overhead. Back-to-back samples, no
 * pause. The wake-up pair of core/src/wake_pair.c, semaphore kind.
 *
 * sched.sem.workload, sched.mut.workload, sched.mq.workload. The same pair
 * for a semaphore wake-up (as sem.signal.unblock with one waiter), a mutex
 * hand-off (the low thread holds a priority-inheritance mutex the high one
 * is blocked on; t0 before the unlock, t1 when the high thread's lock
 * returns: as mut.unlock.handoff, without the medium thread) and a queue
 * wake-up (t0 before sending a 4-byte message to the blocked high
 * receiver, t1 when its receive returns). As in RTOSBench, the low thread
 * pauses before every sample (sleep, 100 us by default) and background
 * threads below the pair (relative 1; 4 by default) take turns during
 * that pause: each writes its private 4 KiB buffer and yields. They never
 * preempt the pair, so the difference they make is indirect: caches and
 * TLB refilled by other threads, a ready queue that is not empty, the
 * wake-up arriving while another thread runs. Each unit reports the same
 * metric twice, param `workload` = 0 (background threads parked on a
 * semaphore) and = N (running), measured in the same process by the same
 * code, in alternating blocks so that drift of the host affects both
 * alike; the table "workload" puts them side by side with the number of
 * background turns taken.
 *
 * Every sample whose expected switch did not happen (the high thread not
 * blocked when the low one acted, or not run before the low one went on,
 * or another message received) is counted invalid; a warning says why.
 */
#include "rtb/ring.h"
#include "rtb/wake_pair.h"

#define COOP_THREADS 5
#define WORKLOAD_BLOCKS 10 /* blocks per variant, alternating */
#define GAP_MAX_NS 10000000u

static void warn_invalid(const char *id, const struct rtb_wake_pair *p)
{
	struct rtb_wake_invalid v = rtb_wake_pair_invalid(p);

	if (v.not_blocked + v.not_woken + v.wrong_msg == 0)
		return;
	rtb_emit_log(id, "warning",
		     "invalid samples: %llu with the high thread not blocked when the low one "
		     "acted, %llu with the low thread going on before the high one ran, %llu "
		     "with another message received (no real-time policy?)",
		     (unsigned long long)v.not_blocked, (unsigned long long)v.not_woken,
		     (unsigned long long)v.wrong_msg);
}

static int pair_fail(struct rtb_ctx *ctx, int rc, const char *what)
{
	if (rc == RTB_E_UNSUPPORTED)
		return rtb_ctx_fail(ctx, rc, "the port has no %s", what);
	if (ctx->reason[0] != '\0')
		return rc;
	return rtb_ctx_fail(ctx, rc, "the %s pair failed: %s", what, rtb_port_strerror(rc));
}

/* ---- sched.coop.switch ---------------------------------------------------- */

static int run_coop(struct rtb_ctx *ctx)
{
	uint64_t samples = rtb_ctx_count(ctx, "iterations", 10000, 100000, 1000000);
	struct rtb_metric m = {.scenario = "sched.coop.switch",
			       .metric = "switch",
			       .title = "Yield in one of 5 equal-priority threads until the next "
					"returns from yield",
			       .unit = "ticks"};
	struct rtb_recorder r;
	uint32_t created = 0;

	if (rtb_port_info()->prio_max < RTB_RING_SETUP_PRIO)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	if (samples == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "iterations must be at least 1");
	rtb_metric_param(&m, "threads", COOP_THREADS);
	int rc = rtb_ring_measure(ctx, &m, COOP_THREADS, samples, &r, &created);
	if (rc == RTB_OK)
		rtb_emit_result(&r);
	else if (ctx->reason[0] == '\0')
		rtb_ctx_fail(ctx, rc, "could create only %" RTB_PRIu32 " of %u threads: %s",
			     created, COOP_THREADS, rtb_port_strerror(rc));
	rtb_recorder_free(&r);
	return rc;
}

static const struct rtb_option_spec sched_coop_switch_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sched_coop_switch = {
	.name = "sched.coop.switch",
	.ids = {{"sched.coop.switch", NULL}},
	.summary = "Cooperative switch: 5 equal-priority threads yielding in turn",
	.estimate_ms = {100, 1000, 10000},
	.deadline_ms = {30000, 120000, 600000},
	.options = sched_coop_switch_options,
	.run = run_coop,
};

/* ---- sched.preempt.switch ------------------------------------------------- */

static int run_preempt(struct rtb_ctx *ctx)
{
	const char *id = "sched.preempt.switch";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 10000, 100000, 1000000);
	struct rtb_metric m = {.scenario = id,
			       .metric = "switch",
			       .title = "Semaphore signal in a low thread until the high waiting "
					"thread runs",
			       .unit = "ticks"};
	struct rtb_wake_pair *p;
	struct rtb_recorder r;
	uint64_t done = 0;
	int rc;

	if (rtb_port_info()->prio_max < RTB_WAKE_PRIO_HIGH)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least four priority levels");
	if (n == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "iterations must be at least 1");
	uint32_t warm = rtb_warmup_for(n);
	if (rtb_recorder_init(&r, &m, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorder");
	rc = rtb_wake_pair_create(ctx, RTB_WAKE_SEM, 0, &p);
	if (rc == RTB_OK) {
		rc = rtb_wake_pair_measure(ctx, p, false, n + warm, 0, &r, &done);
		if (rc == RTB_OK && done < n + warm)
			rtb_ctx_expired_after(ctx, done, n + warm, "samples");
		if (rc == RTB_OK)
			warn_invalid(id, p);
		rtb_wake_pair_delete(p);
	}
	if (rc == RTB_OK)
		rtb_emit_result(&r);
	else
		pair_fail(ctx, rc, "semaphore");
	rtb_recorder_free(&r);
	return rc;
}

static const struct rtb_option_spec sched_preempt_switch_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sched_preempt_switch = {
	.name = "sched.preempt.switch",
	.ids = {{"sched.preempt.switch", NULL}},
	.summary = "Preemptive switch: a low thread signals a high one's semaphore",
	.estimate_ms = {150, 3000, 30000},
	.deadline_ms = {30000, 120000, 600000},
	.options = sched_preempt_switch_options,
	.run = run_preempt,
};

/* ---- sched.*.workload ------------------------------------------------------ */

struct workload_case {
	const char *id;
	enum rtb_wake_kind kind;
	const char *object; /* for messages */
	const char *title;
};

static const struct workload_case wl_sem = {
	"sched.sem.workload", RTB_WAKE_SEM, "semaphore",
	"Semaphore signal in a low thread until the high waiting thread runs, after a pause"};
static const struct workload_case wl_mut = {
	"sched.mut.workload", RTB_WAKE_MUTEX, "priority-inheritance mutex",
	"Mutex unlock by the low holder until the high waiting thread runs, after a pause"};
static const struct workload_case wl_mq = {
	"sched.mq.workload", RTB_WAKE_MQ, "message queue",
	"Message send in a low thread until the high blocked receiver runs, after a pause"};

static void workload_table(const char *id, const struct rtb_recorder *r, const uint32_t *threads,
			   const uint64_t *turns)
{
	static const struct rtb_column cols[] = {{"workload threads", "count"},
						 {"background turns", "count"},
						 {"samples", "count"},
						 {"invalid", "count"},
						 {"mean", "ticks"},
						 {"p99", "ticks"},
						 {"max", "ticks"}};
	struct rtb_json *j = rtb_table_begin(id, "workload",
					     "The same wake-up without and with background threads",
					     cols, RTB_ARRAY_SIZE(cols));

	for (uint32_t v = 0; v < 2; v++) {
		rtb_json_arr_begin(j);
		rtb_json_u64(j, threads[v]);
		rtb_json_u64(j, turns[v]);
		rtb_json_u64(j, r[v].count);
		rtb_json_u64(j, r[v].invalid);
		if (r[v].count > 0) {
			rtb_json_dbl(j, rtb_recorder_mean(&r[v]));
			if (r[v].count >= 100)
				rtb_json_u64(j, rtb_recorder_percentile(&r[v], 0.99));
			else
				rtb_json_null(j);
			rtb_json_u64(j, r[v].max);
		} else {
			rtb_json_null(j);
			rtb_json_null(j);
			rtb_json_null(j);
		}
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
}

/* Alternate blocks of the two variants until each has n + warm samples. */
static int workload_blocks(struct rtb_ctx *ctx, struct rtb_wake_pair *p, uint64_t total,
			   uint64_t gap_ns, struct rtb_recorder *r, uint64_t *turns)
{
	uint64_t block = (total + WORKLOAD_BLOCKS - 1) / WORKLOAD_BLOCKS;
	uint64_t taken[2] = {0, 0};
	int rc = RTB_OK;

	while (rc == RTB_OK && (taken[0] < total || taken[1] < total)) {
		for (uint32_t v = 0; v < 2 && rc == RTB_OK; v++) {
			uint64_t want = RTB_MIN(block, total - taken[v]), done = 0;
			uint64_t before = rtb_wake_pair_background_turns(p);
			rc = rtb_wake_pair_measure(ctx, p, v == 1, want, gap_ns, &r[v], &done);
			taken[v] += done;
			turns[v] += rtb_wake_pair_background_turns(p) - before;
		}
		if (rc == RTB_OK && rtb_ctx_expired_after(ctx, taken[0] + taken[1], 2 * total,
							  "samples (both variants)"))
			break;
	}
	return rc;
}

static int run_workload(struct rtb_ctx *ctx, const struct workload_case *c)
{
	char key[96];
	uint64_t n = rtb_ctx_count(ctx, "iterations", 1000, 20000, 200000);
	uint64_t nbg, gap_ns;
	struct rtb_metric m[2];
	struct rtb_recorder r[2];
	struct rtb_wake_pair *p;
	uint64_t turns[2] = {0, 0};
	int rc;

	rtb_fmt(key, sizeof(key), "%s.threads", c->id);
	nbg = rtb_ctx_count(ctx, key, 4, 4, 4);
	rtb_fmt(key, sizeof(key), "%s.gap_ns", c->id);
	gap_ns = rtb_ctx_count(ctx, key, 100000, 100000, 100000);
	if (rtb_port_info()->prio_max < RTB_WAKE_PRIO_HIGH)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least four priority levels");
	if (n == 0 || nbg < 1 || nbg > RTB_WAKE_BACKGROUND_MAX || gap_ns > GAP_MAX_NS)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "iterations must be at least 1, %s.threads 1..%u and "
				    "%s.gap_ns at most %u",
				    c->id, RTB_WAKE_BACKGROUND_MAX, c->id, GAP_MAX_NS);
	uint32_t threads[2] = {0, (uint32_t)nbg};
	for (uint32_t v = 0; v < 2; v++) {
		m[v] = (struct rtb_metric){
			.scenario = c->id, .metric = "wake", .title = c->title, .unit = "ticks"};
		rtb_metric_param(&m[v], "workload", threads[v]);
	}
	uint32_t warm = rtb_warmup_for(n);
	if (rtb_recorder_init_pair(&r[0], &m[0], &r[1], &m[1], warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	rc = rtb_wake_pair_create(ctx, c->kind, (uint32_t)nbg, &p);
	if (rc == RTB_OK) {
		rtb_emit_log(c->id, "info",
			     "pair: low thread (the sender, priority %d) and high thread (%d); "
			     "workload: %llu background threads at %d, each writing %u bytes "
			     "then yielding; the low thread sleeps %llu ns before each sample; "
			     "the two variants alternate in %u blocks each",
			     RTB_WAKE_PRIO_LOW, RTB_WAKE_PRIO_HIGH, (unsigned long long)nbg,
			     RTB_WAKE_PRIO_BACKGROUND, RTB_WAKE_BACKGROUND_BYTES,
			     (unsigned long long)gap_ns, WORKLOAD_BLOCKS);
		rc = workload_blocks(ctx, p, n + warm, gap_ns, r, turns);
		if (rc == RTB_OK) {
			warn_invalid(c->id, p);
			if (gap_ns > 0 && turns[1] == 0)
				rtb_emit_log(c->id, "warning",
					     "the background threads never ran during the "
					     "pauses: the workload variant had no workload");
		}
		rtb_wake_pair_delete(p);
	}
	if (rc == RTB_OK) {
		rtb_emit_result(&r[0]);
		rtb_emit_result(&r[1]);
		workload_table(c->id, r, threads, turns);
	} else {
		pair_fail(ctx, rc, c->object);
	}
	rtb_recorder_free(&r[0]);
	rtb_recorder_free(&r[1]);
	return rc;
}

static int run_sem_workload(struct rtb_ctx *ctx)
{
	return run_workload(ctx, &wl_sem);
}

static int run_mut_workload(struct rtb_ctx *ctx)
{
	return run_workload(ctx, &wl_mut);
}

static int run_mq_workload(struct rtb_ctx *ctx)
{
	return run_workload(ctx, &wl_mq);
}

static const struct rtb_option_spec sched_sem_workload_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("sched.sem.workload.threads", 1u, 64u, "background threads that keep yielding"),
	RTB_OPT_N("sched.sem.workload.gap_ns", 0u, 1000000000u,
		  "sleep of the low thread before each sample, in ns"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sched_sem_workload = {
	.name = "sched.sem.workload",
	.ids = {{"sched.sem.workload", NULL}},
	.summary = "Semaphore wake-up without and with background threads yielding",
	.estimate_ms = {700, 8000, 80000},
	.deadline_ms = {30000, 120000, 600000},
	.options = sched_sem_workload_options,
	.run = run_sem_workload,
};

static const struct rtb_option_spec sched_mut_workload_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("sched.mut.workload.threads", 1u, 64u, "background threads that keep yielding"),
	RTB_OPT_N("sched.mut.workload.gap_ns", 0u, 1000000000u,
		  "sleep of the low thread before each sample, in ns"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sched_mut_workload = {
	.name = "sched.mut.workload",
	.ids = {{"sched.mut.workload", NULL}},
	.summary = "Mutex hand-off without and with background threads yielding",
	.estimate_ms = {700, 8000, 80000},
	.deadline_ms = {30000, 120000, 600000},
	.caps = RTB_CAP_MUTEX_INHERIT,
	.options = sched_mut_workload_options,
	.run = run_mut_workload,
};

static const struct rtb_option_spec sched_mq_workload_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("sched.mq.workload.threads", 1u, 64u, "background threads that keep yielding"),
	RTB_OPT_N("sched.mq.workload.gap_ns", 0u, 1000000000u,
		  "sleep of the low thread before each sample, in ns"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sched_mq_workload = {
	.name = "sched.mq.workload",
	.ids = {{"sched.mq.workload", NULL}},
	.summary = "Message queue wake-up without and with background threads yielding",
	.estimate_ms = {700, 8000, 80000},
	.deadline_ms = {30000, 120000, 600000},
	.caps = RTB_CAP_MQ,
	.options = sched_mq_workload_options,
	.run = run_mq_workload,
};
