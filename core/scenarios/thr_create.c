/* SPDX-License-Identifier: Apache-2.0 */
/*
 * THR: thread creation and deletion (THR-P-NEW).
 *
 * thr.create.never_run (1). The controller raises itself to relative 2 and
 * creates a thread at relative 1 (lower), which therefore does not run:
 *   t0; create; t1; t2; delete; t3
 * creation = t1 - t0, deletion = t3 - t2 (each minus the overhead). The
 * thread's function marks that it ran; a pair of samples whose thread ran is
 * counted invalid in both metrics.
 *
 * thr.create.run_terminate (2). The controller stays at relative 0 and
 * creates a thread at relative 1 (higher), which runs at once:
 *   creator: t0; create ......................... t_back (create returned)
 *   new:            t_first; mark; t_exit; exit
 * creation = t_first - t0 (create call to the new thread's first
 * instruction); deletion = t_back - t_exit (the new thread's exit call until
 * the creator runs again). The exited thread is then reclaimed with
 * rtb_port_thread_delete(), untimed. A sample whose thread had not run and
 * reached its exit call by the time create returned is invalid.
 *
 * thr.create.run_block (3). The controller raises itself to relative 1 and
 * creates a thread at relative 2, which runs at once, takes t_first, lowers
 * itself to relative 0 (below the creator, which therefore runs again) and,
 * once it gets the CPU back, blocks. The creator then sleeps (untimed) in
 * 100 us steps until the thread says it is about to block (at most 100 ms),
 * and 100 us more so it gets there, and deletes it:
 *   t2; delete; t3
 * creation = t_first - t0 as in (2); deletion = t3 - t2. A sample is invalid
 * when the thread had not lowered itself by the time create returned, or had
 * not reached its blocking call after the creator's sleeps. Deleting a
 * blocked thread needs RTB_CAP_THREAD_DELETE_LIVE.
 */
#include "rtb/core.h"

struct create_shared {
	volatile uint64_t t_first;  /* first instruction of the new thread */
	volatile uint64_t t_exit;   /* just before its exit call */
	volatile uint32_t entered;  /* new threads that ran */
	volatile uint32_t exiting;  /* ... that reached their exit call */
	volatile uint32_t lowered;  /* ... that lowered their priority */
	volatile uint32_t blocking; /* ... that reached their blocking call */
	int lower_to;
};

struct create_metrics {
	struct rtb_recorder create;
	struct rtb_recorder del;
	struct rtb_metric mc;
	struct rtb_metric md;
};

static int metrics_init(struct rtb_ctx *ctx, struct create_metrics *cm, const char *id,
			const char *create_title, const char *delete_title, uint64_t n)
{
	uint32_t warm = rtb_warmup_for(n);

	cm->mc = (struct rtb_metric){.scenario = id,
				     .label = "THR-P-NEW",
				     .metric = "create",
				     .title = create_title,
				     .unit = "ticks"};
	cm->md = (struct rtb_metric){.scenario = id,
				     .label = "THR-P-NEW",
				     .metric = "delete",
				     .title = delete_title,
				     .unit = "ticks"};
	if (rtb_recorder_init_pair(&cm->create, &cm->mc, &cm->del, &cm->md, warm, ctx->raw_max) !=
	    RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	return RTB_OK;
}

/* One pair's samples, or both invalid when the pair did not schedule as
 * the scenario expects. */
static void metrics_add(struct create_metrics *cm, bool valid, uint64_t create_t0,
			uint64_t create_t1, uint64_t delete_t0, uint64_t delete_t1)
{
	if (valid) {
		rtb_recorder_add_interval(&cm->create, create_t0, create_t1);
		rtb_recorder_add_interval(&cm->del, delete_t0, delete_t1);
	} else {
		rtb_recorder_add_invalid(&cm->create);
		rtb_recorder_add_invalid(&cm->del);
	}
}

/* The loop's end test, every 64 pairs (pairs done so far: i + 1). */
static bool metrics_expired(struct rtb_ctx *ctx, uint64_t i, uint64_t total)
{
	return (i & 63) == 0 && rtb_ctx_expired_after(ctx, i + 1, total, "create/delete pairs");
}

/* Emit the results when the loop ended without error (rc), free the
 * recorders, and return rc. */
static int metrics_finish(struct rtb_ctx *ctx, struct create_metrics *cm, uint64_t pairs, int rc)
{
	if (rc == RTB_OK) {
		if (cm->create.invalid > 0)
			rtb_emit_log(cm->mc.scenario, "warning",
				     "%llu pairs did not schedule as expected (counted invalid)",
				     (unsigned long long)cm->create.invalid);
		rtb_emit_result(&cm->create);
		rtb_emit_result(&cm->del);
	}
	rtb_recorder_free(&cm->create);
	rtb_recorder_free(&cm->del);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "create or delete failed after %llu pairs: %s",
				    (unsigned long long)pairs, rtb_port_strerror(rc));
	return RTB_OK;
}

/* ---- (1) never run ------------------------------------------------------- */

static void never_run_main(void *arg)
{
	struct create_shared *sh = arg;

	sh->entered++;
}

static int run_never_run(struct rtb_ctx *ctx)
{
	const char *id = "thr.create.never_run";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 2000, 20000, 200000);
	struct create_shared *sh;
	struct create_metrics cm;
	int rc;

	if (rtb_port_info()->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rc = metrics_init(ctx, &cm, id, "Create a lower-priority thread (it does not run)",
			  "Delete that thread before it ever ran", n);
	if (rc != RTB_OK) {
		rtb_port_mem_free(sh);
		return rc;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	rtb_port_thread_set_priority(NULL, 2);
	uint64_t i, total = n + cm.create.warmup_target;
	for (i = 0; i < total && rc == RTB_OK; i++) {
		struct rtb_thread_attr a = {.name = "thr-new", .prio = 1};
		struct rtb_thread *t;
		uint32_t before = sh->entered;
		uint64_t t0 = rtb_port_counter_read();
		rc = rtb_port_thread_create(&t, &a, never_run_main, sh);
		uint64_t t1 = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		uint64_t t2 = rtb_port_counter_read();
		rc = rtb_port_thread_delete(t);
		uint64_t t3 = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		metrics_add(&cm, sh->entered == before, t0, t1, t2, t3);
		if (metrics_expired(ctx, i, total)) {
			i++;
			break;
		}
	}
	rtb_port_thread_set_priority(NULL, 0);
	rc = metrics_finish(ctx, &cm, i, rc);
	rtb_port_mem_free(sh);
	return rc;
}

static const struct rtb_option_spec thr_create_never_run_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_thr_create_never_run = {
	.name = "thr.create.never_run",
	.ids = {{"thr.create.never_run", "THR-P-NEW"}},
	.summary = "Create a lower-priority thread and delete it before it ever runs",
	.estimate_ms = {100, 600, 6000},
	.deadline_ms = {30000, 120000, 900000},
	.options = thr_create_never_run_options,
	.run = run_never_run,
};

/* ---- (2) run and terminate ------------------------------------------------ */

static void run_terminate_main(void *arg)
{
	struct create_shared *sh = arg;
	uint64_t t = rtb_port_counter_read();

	sh->t_first = t;
	sh->entered++;
	sh->exiting++;
	sh->t_exit = rtb_port_counter_read();
	rtb_port_thread_exit();
}

static int run_run_terminate(struct rtb_ctx *ctx)
{
	const char *id = "thr.create.run_terminate";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 2000, 20000, 200000);
	struct create_shared *sh;
	struct create_metrics cm;
	int rc;

	if (rtb_port_info()->prio_max < 1)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least two priority levels");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rc = metrics_init(ctx, &cm, id,
			  "Create a higher-priority thread: create call until its first "
			  "instruction",
			  "That thread's exit call until its creator runs again", n);
	if (rc != RTB_OK) {
		rtb_port_mem_free(sh);
		return rc;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	uint64_t i, total = n + cm.create.warmup_target;
	for (i = 0; i < total && rc == RTB_OK; i++) {
		struct rtb_thread_attr a = {.name = "thr-new", .prio = 1};
		struct rtb_thread *t;
		uint32_t before = sh->exiting;
		uint64_t t0 = rtb_port_counter_read();
		rc = rtb_port_thread_create(&t, &a, run_terminate_main, sh);
		uint64_t t_back = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		bool valid = rtb_ctx_settle(ctx, &sh->exiting, before + 1);
		metrics_add(&cm, valid, t0, sh->t_first, sh->t_exit, t_back);
		rc = rtb_port_thread_delete(t);
		if (rc == RTB_OK && metrics_expired(ctx, i, total)) {
			i++;
			break;
		}
	}
	rc = metrics_finish(ctx, &cm, i, rc);
	rtb_port_mem_free(sh);
	return rc;
}

static const struct rtb_option_spec thr_create_run_terminate_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_thr_create_run_terminate = {
	.name = "thr.create.run_terminate",
	.ids = {{"thr.create.run_terminate", "THR-P-NEW"}},
	.summary = "Create a higher-priority thread that runs at once and terminates itself",
	.estimate_ms = {100, 600, 6000},
	.deadline_ms = {30000, 120000, 900000},
	.options = thr_create_run_terminate_options,
	.run = run_run_terminate,
};

/* ---- (3) run and block ------------------------------------------------------ */

#define BLOCK_SETTLE_NS 100000u
#define BLOCK_SETTLE_TRIES 1000u /* 100 ms at most */

static void run_block_main(void *arg)
{
	struct create_shared *sh = arg;
	uint64_t t = rtb_port_counter_read();

	sh->t_first = t;
	sh->entered++;
	if (rtb_port_thread_set_priority(NULL, sh->lower_to) == RTB_OK)
		sh->lowered++;
	sh->blocking++;
	rtb_port_thread_suspend_self(); /* deleted here, never resumed */
}

static int run_run_block(struct rtb_ctx *ctx)
{
	const char *id = "thr.create.run_block";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 1000, 10000, 100000);
	struct create_shared *sh;
	struct create_metrics cm;
	int rc;

	if (rtb_port_info()->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rc = metrics_init(ctx, &cm, id,
			  "Create a higher-priority thread: create call until its first "
			  "instruction",
			  "Delete that thread, blocked after lowering its priority below the "
			  "creator's",
			  n);
	if (rc != RTB_OK) {
		rtb_port_mem_free(sh);
		return rc;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	sh->lower_to = 0;
	rtb_port_thread_set_priority(NULL, 1);
	uint64_t i, total = n + cm.create.warmup_target;
	for (i = 0; i < total && rc == RTB_OK; i++) {
		struct rtb_thread_attr a = {.name = "thr-new", .prio = 2};
		struct rtb_thread *t;
		uint32_t before = sh->entered;
		uint64_t t0 = rtb_port_counter_read();
		rc = rtb_port_thread_create(&t, &a, run_block_main, sh);
		if (rc != RTB_OK)
			break;
		/* the new thread ran before create returned; lowering its
		 * priority handed the CPU back to us */
		bool ran = sh->entered == before + 1;
		/* Let it reach its blocking call: sleep until it says it is
		 * about to block (bounded), then once more so it gets there. */
		for (uint32_t k = 0; k < BLOCK_SETTLE_TRIES && sh->blocking != before + 1; k++)
			rtb_port_sleep_ns(BLOCK_SETTLE_NS);
		rtb_port_sleep_ns(BLOCK_SETTLE_NS);
		bool blocked = sh->lowered == before + 1 && sh->blocking == before + 1;
		uint64_t t2 = rtb_port_counter_read();
		rc = rtb_port_thread_delete(t);
		uint64_t t3 = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		metrics_add(&cm, ran && blocked, t0, sh->t_first, t2, t3);
		/* a thread deleted before it lowered itself leaves the counters
		 * behind: resynchronise them */
		sh->entered = sh->lowered = sh->blocking = before + 1;
		if (metrics_expired(ctx, i, total)) {
			i++;
			break;
		}
	}
	rtb_port_thread_set_priority(NULL, 0);
	rc = metrics_finish(ctx, &cm, i, rc);
	rtb_port_mem_free(sh);
	return rc;
}

static const struct rtb_option_spec thr_create_run_block_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_thr_create_run_block = {
	.name = "thr.create.run_block",
	.ids = {{"thr.create.run_block", "THR-P-NEW"}},
	.summary = "Create a higher-priority thread that lowers itself and blocks; delete it",
	.estimate_ms = {200, 1600, 16000},
	.deadline_ms = {30000, 120000, 900000},
	.caps = RTB_CAP_THREAD_DELETE_LIVE,
	.options = thr_create_run_block_options,
	.run = run_run_block,
};
