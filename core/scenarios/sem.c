/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SEM: counting semaphores, performance.
 *
 * sem.create / sem.delete.used / sem.delete.unused (SEM-P-NEW). One thread
 * at relative priority 0. Each iteration creates two semaphores with count
 * 1, each timed around the create call alone (sem.create); the first is used
 * once (P then V, no switch, not timed) and deleted, the delete call timed
 * (sem.delete.used); the second is deleted without ever being used
 * (sem.delete.unused).
 *
 * sem.wait.available / sem.signal.no_waiter (SEM-P-ARN). One thread at
 * relative priority 0, a semaphore with count 1. Each iteration:
 *   t0; wait (count 1 -> 0, never blocks); t1;  t2; signal (no waiter); t3
 * wait = t1 - t0 - overhead, signal = t3 - t2 - overhead, each pair the two
 * reads of a timed call (rtb/sample.h). As a cross-check
 * the same operations are also timed amortised: one million signals on a
 * semaphore (no waiter), then one million waits (count available), each
 * block timed once (table "amortised").
 *
 * sem.wait.block / sem.signal.unblock (SEM-P-ARC). The controller runs at
 * priority 0 and owns W waiter threads (128 by default) at priorities
 * 1..W, distinct while the port has enough levels. Beyond that, waiters
 * share levels (waiter k gets 1 + k mod L for L levels): the result's
 * params say how many distinct levels there were, and among equal
 * priorities the waiter that blocked first must be released first. Waiter
 * threads are created once and reused across rounds (a resume stands in for
 * the creation the classic test does). Each round:
 *   acquisition: for each waiter in turn (lowest priority first), the
 *     controller resumes it (a timed call); the waiter preempts and makes a
 *     timed wait on the zero-count semaphore (t0), blocks; the controller's
 *     resume returns and its timed call reads t1. Sample = t1 - t0 -
 *     overhead (includes the switch back).
 *   release: W times, the controller makes a timed signal (t0); the highest
 *     priority waiter runs and its timed wait returns and reads t1. Sample = t1 - t0 - overhead
 * (includes the switch), also accumulated per number of waiters still blocked before the signal
 *     (table "release_vs_waiters"). The waiter then suspends itself.
 * The first round(s) are the warm-up (at least 1 % of the samples). A
 * sample whose expected switch did not happen (no real-time policy) is
 * counted invalid; a signal that released another waiter than the expected
 * one is counted and reported in a warning (the verdict on that is
 * sem.behavior.release_order's).
 */
#include "rtb/check_sem.h"

/* The timed calls (rtb/sample.h): nothing but the call between the reads. */
RTB_TIMED(timed_create, int, rtb_port_sem_create(out, initial), struct rtb_sem **out,
	  uint32_t initial)
RTB_TIMED(timed_delete, int, rtb_port_sem_delete(s), struct rtb_sem *s)
RTB_TIMED(timed_wait, int, rtb_port_sem_wait(s), struct rtb_sem *s)
RTB_TIMED(timed_signal, int, rtb_port_sem_signal(s), struct rtb_sem *s)
RTB_TIMED(timed_resume, int, rtb_port_thread_resume(t), struct rtb_thread *t)

/* ---- SEM-P-NEW ----------------------------------------------------------- */

static int run_create(struct rtb_ctx *ctx)
{
	uint64_t n = rtb_ctx_count(ctx, "iterations", 2000, 20000, 200000);
	uint32_t warm = rtb_warmup_for(n);
	struct rtb_metric mc = {.scenario = "sem.create",
				.label = "SEM-P-NEW",
				.metric = "create",
				.title = "Semaphore creation",
				.unit = "ticks"};
	struct rtb_metric mu = {.scenario = "sem.delete.used",
				.label = "SEM-P-NEW",
				.metric = "delete_used",
				.title = "Semaphore deletion, after one P/V",
				.unit = "ticks"};
	struct rtb_metric mn = {.scenario = "sem.delete.unused",
				.label = "SEM-P-NEW",
				.metric = "delete_unused",
				.title = "Semaphore deletion, never used",
				.unit = "ticks"};
	struct rtb_recorder rc_, ru, rn;
	int rc;

	/* two creations per iteration */
	rc = rtb_recorder_init(&rc_, &mc, 2 * warm, ctx->raw_max);
	if (rc == RTB_OK) {
		rc = rtb_recorder_init_pair(&ru, &mu, &rn, &mn, warm, ctx->raw_max);
		if (rc != RTB_OK)
			rtb_recorder_free(&rc_);
	}
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&rc_);
	rtb_recorder_timed_calls(&ru);
	rtb_recorder_timed_calls(&rn);

	uint64_t i;
	for (i = 0; i < n + warm && rc == RTB_OK; i++) {
		struct rtb_sem *used, *unused;
		struct rtb_span a, b;
		rc = timed_create(&used, 1, &a);
		if (rc != RTB_OK)
			break;
		rtb_recorder_add_interval(&rc_, a.t0, a.t1);
		rc = timed_create(&unused, 1, &a);
		if (rc != RTB_OK) {
			rtb_port_sem_delete(used);
			break;
		}
		rtb_recorder_add_interval(&rc_, a.t0, a.t1);

		rc = rtb_port_sem_wait(used);
		if (rc == RTB_OK)
			rc = rtb_port_sem_signal(used);
		int rc1 = timed_delete(used, &a);
		int rc2 = timed_delete(unused, &b);
		rc = rc != RTB_OK ? rc : rc1 != RTB_OK ? rc1 : rc2;
		if (rc != RTB_OK)
			break;
		rtb_recorder_add_interval(&ru, a.t0, a.t1);
		rtb_recorder_add_interval(&rn, b.t0, b.t1);
		if ((i & 255) == 0 && rtb_ctx_expired_after(ctx, i + 1, n + warm, "iterations"))
			break;
	}
	if (rc == RTB_OK) {
		rtb_emit_result(&rc_);
		rtb_emit_result(&ru);
		rtb_emit_result(&rn);
	} else {
		rtb_ctx_fail(ctx, rc, "semaphore create/use/delete failed at iteration %llu: %s",
			     (unsigned long long)i, rtb_port_strerror(rc));
	}
	rtb_recorder_free(&rc_);
	rtb_recorder_free(&ru);
	rtb_recorder_free(&rn);
	return rc;
}

static const struct rtb_option_spec sem_create_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sem_create = {
	.name = "sem.create",
	.ids = {{"sem.create", "SEM-P-NEW"},
		{"sem.delete.used", "SEM-P-NEW"},
		{"sem.delete.unused", "SEM-P-NEW"}},
	.summary = "Semaphore creation, and deletion after one use or never used",
	.estimate_ms = {50, 200, 2000},
	.deadline_ms = {20000, 60000, 300000},
	.options = sem_create_options,
	.run = run_create,
};

/* ---- SEM-P-ARN --------------------------------------------------------- */

static int amortised(struct rtb_ctx *ctx, uint64_t calls)
{
	struct rtb_sem *s;
	uint64_t t0, t1, t2;
	int rc = RTB_OK;

	if (calls > rtb_port_sem_max())
		calls = rtb_port_sem_max();
	if (rtb_port_sem_create(&s, 0) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "cannot create a semaphore");
	t0 = rtb_port_counter_read();
	for (uint64_t i = 0; i < calls && rc == RTB_OK; i++)
		rc = rtb_port_sem_signal(s);
	t1 = rtb_port_counter_read();
	for (uint64_t i = 0; i < calls && rc == RTB_OK; i++)
		rc = rtb_port_sem_wait(s);
	t2 = rtb_port_counter_read();
	rtb_port_sem_delete(s);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "semaphore operation failed: %s",
				    rtb_port_strerror(rc));
	struct rtb_json *j = rtb_amortised_begin("sem.wait.available");
	rtb_amortised_row(j, "wait (count available)", calls, t2 - t1);
	rtb_amortised_row(j, "signal (no waiter)", calls, t1 - t0);
	rtb_table_end(j);
	return RTB_OK;
}

static int run_wait_available(struct rtb_ctx *ctx)
{
	uint64_t n = rtb_ctx_count(ctx, "iterations", 20000, 1000000, 10000000);
	struct rtb_metric mw = {.scenario = "sem.wait.available",
				.label = "SEM-P-ARN",
				.metric = "wait",
				.title = "Semaphore wait, count available (no switch)",
				.unit = "ticks"};
	struct rtb_metric ms = {.scenario = "sem.signal.no_waiter",
				.label = "SEM-P-ARN",
				.metric = "signal",
				.title = "Semaphore signal, no waiter (no switch)",
				.unit = "ticks"};
	struct rtb_recorder rw, rs;
	struct rtb_sem *s;
	int rc = RTB_OK;
	uint32_t warm = rtb_warmup_for(n);

	if (rtb_recorder_init_pair(&rw, &mw, &rs, &ms, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&rw);
	rtb_recorder_timed_calls(&rs);
	rc = rtb_port_sem_create(&s, 1);
	if (rc != RTB_OK) {
		rtb_recorder_free(&rw);
		rtb_recorder_free(&rs);
		return rtb_ctx_fail(ctx, rc, "cannot create a semaphore: %s",
				    rtb_port_strerror(rc));
	}
	for (uint64_t i = 0; i < n + warm && rc == RTB_OK; i++) {
		struct rtb_span w, g;
		rc = timed_wait(s, &w);
		if (rc == RTB_OK)
			rc = timed_signal(s, &g);
		if (rc != RTB_OK)
			break;
		rtb_recorder_add_interval(&rw, w.t0, w.t1);
		rtb_recorder_add_interval(&rs, g.t0, g.t1);
		if ((i & 1023) == 0 && rtb_ctx_expired_after(ctx, i + 1, n + warm, "iterations"))
			break;
	}
	rtb_port_sem_delete(s);
	if (rc == RTB_OK) {
		rtb_emit_result(&rw);
		rtb_emit_result(&rs);
		rc = amortised(ctx,
			       rtb_ctx_count(ctx, "amortised_calls", 1000000, 1000000, 10000000));
	} else {
		rtb_ctx_fail(ctx, rc, "semaphore operation failed: %s", rtb_port_strerror(rc));
	}
	rtb_recorder_free(&rw);
	rtb_recorder_free(&rs);
	return rc;
}

static const struct rtb_option_spec sem_wait_available_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_LEN("amortised_calls", 1u, 10000000000ull,
		    "calls timed back to back for the amortised cross-check"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sem_wait_available = {
	.name = "sem.wait.available",
	.ids = {{"sem.wait.available", "SEM-P-ARN"}, {"sem.signal.no_waiter", "SEM-P-ARN"}},
	.summary = "Uncontended semaphore wait and signal (no thread switch)",
	.estimate_ms = {100, 1000, 8000},
	.deadline_ms = {20000, 60000, 300000},
	.options = sem_wait_available_options,
	.run = run_wait_available,
};

/* ---- SEM-P-ARC ----------------------------------------------------------- */

#define BLOCK_WAITERS_MAX 1024

struct block_waiter {
	struct rtb_thread *thread;
	struct block_shared *shared;
	uint32_t index;
	int prio;
};

struct block_shared {
	struct rtb_sem *sem;
	volatile uint64_t t_woken;     /* waiter: the end of its timed wait */
	volatile uint32_t woken_index; /* which waiter woke */
	volatile uint32_t waits;       /* wait calls made */
	volatile uint32_t wakes;       /* wait calls returned */
	volatile bool stop;
	struct block_waiter waiters[BLOCK_WAITERS_MAX];
	int prio[BLOCK_WAITERS_MAX];	      /* by blocking order (= waiter index) */
	uint32_t expected[BLOCK_WAITERS_MAX]; /* release order the check expects */
	struct block_acquire *acquire;	      /* by waiter, allocated for the waiters */
};

/* One acquisition: the start of the waiter's timed wait (stored once it
 * returned; none yet: UINT64_MAX), the controller's reading when it ran
 * again, and whether the waiter ran at once and stayed blocked. */
struct block_acquire {
	volatile uint64_t t_wait;
	uint64_t t_back;
	bool blocked;
};

static void block_waiter_main(void *arg)
{
	struct block_waiter *w = arg;
	struct block_shared *sh = w->shared;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (sh->stop)
			return;
		sh->waits++;
		struct rtb_span span;
		timed_wait(sh->sem, &span);
		sh->t_woken = span.t1;
		sh->acquire[w->index].t_wait = span.t0;
		sh->woken_index = w->index;
		sh->wakes++;
	}
}

struct per_blocked {
	uint64_t count, min, max, sum;
};

static void block_table(const struct per_blocked *pb, uint32_t nwaiters)
{
	static const struct rtb_column cols[] = {{"waiters_blocked", "count"},
						 {"samples", "count"},
						 {"min", "ticks"},
						 {"mean", "ticks"},
						 {"max", "ticks"}};
	struct rtb_json *j = rtb_table_begin(
		"sem.signal.unblock", "release_vs_waiters",
		"Release time against the number of waiters still blocked", cols, 5);
	for (uint32_t b = nwaiters; b >= 1; b--) {
		if (pb[b].count == 0)
			continue;
		rtb_json_arr_begin(j);
		rtb_json_u64(j, b);
		rtb_json_u64(j, pb[b].count);
		rtb_json_u64(j, pb[b].min);
		rtb_json_dbl(j, (double)pb[b].sum / (double)pb[b].count);
		rtb_json_u64(j, pb[b].max);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
}

static void per_blocked_add(struct per_blocked *p, uint64_t t0, uint64_t t1)
{
	uint64_t d = t1 - t0;

	d = d > rtb_timing.overhead_ticks ? d - rtb_timing.overhead_ticks : 0;
	p->count++;
	p->sum += d;
	p->min = RTB_MIN(p->min, d);
	p->max = RTB_MAX(p->max, d);
}

/* One round: block every waiter, then release them all. Returns the number
 * of releases that did not wake the expected waiter. */
static uint32_t block_round(struct rtb_ctx *ctx, struct block_shared *sh, uint32_t nw,
			    struct rtb_recorder *ra, struct rtb_recorder *rr,
			    struct per_blocked *pb)
{
	uint32_t misordered = 0;

	/* acquisition, lowest priority first: the waiter's timed wait starts
	 * the sample, the controller's timed resume (returning once the waiter
	 * blocked) ends it; the waiter stores its start only when it returns,
	 * in the release below, so the samples are added after it */
	for (uint32_t k = 0; k < nw; k++) {
		uint32_t before = sh->waits, wakes = sh->wakes;
		struct rtb_span span;
		sh->acquire[k].t_wait = UINT64_MAX;
		timed_resume(sh->waiters[k].thread, &span);
		sh->acquire[k].t_back = span.t1;
		/* valid if the waiter ran at once and is still blocked */
		sh->acquire[k].blocked =
			rtb_ctx_settle(ctx, &sh->waits, before + 1) && sh->wakes == wakes;
	}
	/* release: one signal per blocked waiter, from the controller's timed
	 * signal to the end of the woken waiter's timed wait */
	for (uint32_t i = 0; i < nw; i++) {
		uint32_t before = sh->wakes;
		bool counted = rr->warmup_count >= rr->warmup_target;
		struct rtb_span span;
		timed_signal(sh->sem, &span);
		uint64_t t0 = span.t0;
		if (rtb_ctx_settle(ctx, &sh->wakes, before + 1)) {
			rtb_recorder_add_interval(rr, t0, sh->t_woken);
			if (counted)
				per_blocked_add(&pb[nw - i], t0, sh->t_woken);
			if (sh->woken_index != sh->expected[i])
				misordered++;
		} else {
			rtb_recorder_add_invalid(rr);
		}
	}
	for (uint32_t k = 0; k < nw; k++) {
		struct block_acquire *a = &sh->acquire[k];
		if (a->blocked && a->t_wait != UINT64_MAX)
			rtb_recorder_add_interval(ra, a->t_wait, a->t_back);
		else
			rtb_recorder_add_invalid(ra);
	}
	return misordered;
}

static int run_wait_block(struct rtb_ctx *ctx)
{
	const char *id = "sem.wait.block";
	const struct rtb_port_info *info = rtb_port_info();
	uint64_t nw = rtb_ctx_count(ctx, "waiters", 128, 1000, 1000);
	uint64_t rounds = rtb_ctx_count(ctx, "rounds", 20, 200, 20000);
	struct block_shared *sh = NULL;
	struct per_blocked *pb = NULL;
	struct rtb_recorder ra, rr;
	uint64_t misordered = 0;
	uint32_t created = 0;
	int rc;

	if (nw < 1 || nw > BLOCK_WAITERS_MAX || rounds < 1)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "waiters must be 1..%d, rounds at least 1",
				    BLOCK_WAITERS_MAX);
	if (info->prio_max < 1)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least two priority levels");
	uint32_t levels = (uint32_t)RTB_MIN(nw, (uint64_t)info->prio_max);
	rtb_note_thread_memory(id, nw);
	struct rtb_metric ma = {.scenario = "sem.wait.block",
				.label = "SEM-P-ARC",
				.metric = "acquire",
				.title = "Semaphore wait that blocks, until the lower thread runs",
				.unit = "ticks"};
	struct rtb_metric mr = {.scenario = "sem.signal.unblock",
				.label = "SEM-P-ARC",
				.metric = "release",
				.title = "Semaphore signal until the highest waiter runs",
				.unit = "ticks"};
	rtb_metric_param(&ma, "waiters", (int64_t)nw);
	rtb_metric_param(&mr, "waiters", (int64_t)nw);
	rtb_metric_param(&ma, "priority_levels", levels);
	rtb_metric_param(&mr, "priority_levels", levels);
	if (levels < nw)
		rtb_emit_log(id, "info",
			     "%llu waiters share %" RTB_PRIu32
			     " priority levels (the port has no more above "
			     "the controller): waiter k blocks at level 1 + k mod %" RTB_PRIu32
			     ", so up to "
			     "%llu waiters share a level, and among equal priorities the one that "
			     "blocked first is released first",
			     (unsigned long long)nw, levels, levels,
			     (unsigned long long)((nw + levels - 1) / levels));

	/* whole rounds of warm-up, at least 1 % of the samples */
	uint64_t warm_rounds = (rtb_warmup_for(rounds * nw) + nw - 1) / nw;
	uint32_t warm = (uint32_t)(warm_rounds * nw);
	sh = rtb_port_mem_alloc(sizeof(*sh));
	pb = rtb_port_mem_alloc(sizeof(*pb) * (nw + 1));
	struct block_acquire *acquire = rtb_port_mem_alloc(sizeof(*acquire) * nw);
	if (sh == NULL || pb == NULL || acquire == NULL) {
		rtb_port_mem_free(sh);
		rtb_port_mem_free(pb);
		rtb_port_mem_free(acquire);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	}
	rtb_memset(sh, 0, sizeof(*sh));
	sh->acquire = acquire;
	for (uint64_t b = 0; b <= nw; b++) {
		pb[b].count = pb[b].max = pb[b].sum = 0;
		pb[b].min = UINT64_MAX;
	}
	rc = rtb_recorder_init_pair(&ra, &ma, &rr, &mr, warm, ctx->raw_max);
	if (rc != RTB_OK) {
		rtb_port_mem_free(sh);
		rtb_port_mem_free(pb);
		rtb_port_mem_free(acquire);
		return rtb_ctx_fail(ctx, rc, "no memory for the recorders");
	}
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&ra);
	rtb_recorder_timed_calls(&rr);
	rc = rtb_port_sem_create(&sh->sem, 0);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create a semaphore: %s", rtb_port_strerror(rc));
		goto out;
	}

	for (uint32_t k = 0; k < nw; k++) {
		struct block_waiter *w = &sh->waiters[k];
		w->shared = sh;
		w->index = k;
		w->prio = 1 + (int)(k % levels);
		sh->prio[k] = w->prio;
		struct rtb_thread_attr a = {.name = "sem-waiter", .prio = w->prio};
		rc = rtb_port_thread_create(&w->thread, &a, block_waiter_main, w);
		if (rc != RTB_OK) {
			rtb_ctx_fail(ctx, rc, "could not create waiter %" RTB_PRIu32 ": %s", k,
				     rtb_port_strerror(rc));
			break;
		}
		created++;
	}
	rtb_sem_release_expected(sh->prio, (uint32_t)nw, sh->expected);

	for (uint64_t round = 0; rc == RTB_OK && round < rounds + warm_rounds; round++) {
		misordered += block_round(ctx, sh, (uint32_t)nw, &ra, &rr, pb);
		if (rtb_ctx_expired_after(ctx, round + 1, rounds + warm_rounds, "rounds"))
			break;
	}

	/* free any waiter a lost wake-up left blocked, then stop them all */
	for (uint32_t i = 0; i < created && sh->wakes < sh->waits; i++) {
		uint32_t before = sh->wakes;
		rtb_port_sem_signal(sh->sem);
		rtb_ctx_settle(ctx, &sh->wakes, before + 1);
	}
	sh->stop = true;
	for (uint32_t k = 0; k < created; k++) {
		rtb_port_thread_resume(sh->waiters[k].thread);
		rtb_port_thread_delete(sh->waiters[k].thread);
	}
	rtb_port_sem_delete(sh->sem);
	if (rc == RTB_OK) {
		if (misordered > 0)
			rtb_emit_log(
				"sem.signal.unblock", "warning",
				"%llu signals released another waiter than the highest-priority "
				"one that blocked first (see sem.behavior.release_order)",
				(unsigned long long)misordered);
		rtb_emit_result(&ra);
		rtb_emit_result(&rr);
		block_table(pb, (uint32_t)nw);
	}
out:
	rtb_recorder_free(&ra);
	rtb_recorder_free(&rr);
	rtb_port_mem_free(sh);
	rtb_port_mem_free(pb);
	rtb_port_mem_free(acquire);
	return rc;
}

static const struct rtb_option_spec sem_wait_block_options[] = {
	RTB_OPT_N("waiters", 1u, 1024u, "blocked waiters"),
	RTB_OPT_LEN("rounds", 1u, 10000000000ull, "rounds of blocking and releasing every waiter"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sem_wait_block = {
	.name = "sem.wait.block",
	.ids = {{"sem.wait.block", "SEM-P-ARC"}, {"sem.signal.unblock", "SEM-P-ARC"}},
	.summary = "Contended semaphore: blocking wait and signal that wakes the highest waiter",
	.estimate_ms = {100, 500, 15000},
	.deadline_ms = {60000, 180000, 3600000},
	.options = sem_wait_block_options,
	.run = run_wait_block,
};
