/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TM: Thread-Metric throughput.
 *
 * Throughput, not latency: each test counts the operations its worker
 * threads complete during fixed periods, and one sample per period is the
 * rate in operations per second (unit "ops_per_s"). No timestamp is taken
 * around an operation. The controller (the thread that runs the scenario)
 * raises itself to the highest priority a scenario may use (prio_max),
 * creates the workers of a test suspended at lower priorities, starts them
 * and sleeps: the workers run only while it sleeps. It wakes every 100 ms
 * to fold the workers' 32-bit counters into 64-bit totals, and at the end of
 * each period reads the totals and the cycle counter: rate = operations in
 * the period / counter time between the two readings. On one CPU, with the
 * controller above every worker, the workers are all preempted while it
 * reads, so the counters it reads are a consistent snapshot. After the last
 * period it raises a stop flag, wakes any worker that waits, waits
 * (bounded) until each has returned, and deletes them.
 *
 * The eight tests run in one process, tm.basic first, so that each test's
 * mean rate divided by tm.basic's, measured minutes apart on the same
 * machine, is reported (table "ratio"): Thread-Metric's way to compare
 * boards of different speeds.
 *
 * What one operation is, and the priorities (relative; controller at
 * prio_max):
 *   tm.basic        one pass of arithmetic over a 1024-word array (1 thread, 1)
 *   tm.coop         one turn: count, then relinquish (yield); 5 threads at 1
 *   tm.preempt      one run of a thread of the chain: 5 threads at 1..5; the
 *                   lowest resumes the next, each resumes the next higher and
 *                   suspends itself, so a pass runs all five, highest first
 *   tm.irq          one hand-off: a thread (1) raises the interrupt
 *                   (rtb_port_irq_fire, delay 0: from software where the
 *                   port can, property "irq_now"), the handler signals a
 *                   semaphore, the thread takes it (without waiting when
 *                   the signal is already there, else bounded)
 *   tm.irq_preempt  one hand-off: a thread (1) raises the interrupt, the
 *                   handler signals the semaphore a thread at 2 waits on, that
 *                   thread runs and waits again, then the raising thread goes
 *                   on (the contract has no resume that is IRQ-safe: a
 *                   semaphore stands for it)
 *   tm.msg          send a 16-byte message to a queue of depth 1 and receive
 *                   it (1 thread, 1)
 *   tm.sync         take and give a semaphore whose count is 1 (1 thread, 1)
 *   tm.mem          take a 128-byte block from a pool of 16 and give it back
 *                   (rtb_port_pool_get/put: the OS's fixed-block pool, or one
 *                   the port emulates over its allocator; 1 thread, 1)
 *
 * Each result says what the test used, in its parameters: tm.irq and
 * tm.irq_preempt "interrupt" (the port's name for a fire with delay 0),
 * tm.mem "allocator" ("block pool": the OS's own, RTB_CAP_MEM_POOL;
 * "emulated pool": the port's allocator behind the pool calls); an info
 * log says it in a sentence.
 *
 * Fairness checks (verdicts), on the counters read at the end of each
 * period (core/src/check_tm.c): tm.coop, every thread within 1 of the
 * others; tm.preempt, every thread of the chain as often as the one below it
 * or once more, all within 1. Negative controls, run after the measured
 * periods through the same threads and decision for 200 ms: for tm.coop,
 * thread 0 relinquishes only every second turn; for tm.preempt, thread 2
 * resumes thread 3 only every second time. Both must fail. Options
 * tm.coop.unfair=1 and tm.preempt.unfair=1 run the measured periods that
 * way, as a platform whose relinquish or resume misbehaves would.
 */
#include "tm.h"

#define TM_PERIOD_MS_MIN 10u
#define TM_PERIOD_MS_MAX 600000u
#define TM_STEP_NS 100000000u	       /* the controller folds counters this often */
#define TM_CONTROL_NS 200000000u       /* length of a negative control's run */
#define TM_COUNTED_NS 200000000u       /* one period of tm.coop's counted run */
#define TM_EXIT_TIMEOUT_NS 2000000000u /* workers' time to return once told to stop */
#define TM_SETUP_NS 100000000u	       /* allowance per test for creating and deleting */

/* ---- the controller --------------------------------------------------------- */

static int tm_spawn(struct tm_run *run, uint32_t i)
{
	static const char *const names[TM_WORKERS_MAX] = {"tm-0", "tm-1", "tm-2", "tm-3", "tm-4"};
	struct tm_worker *w = &run->w[i];
	struct rtb_thread_attr a = {
		.name = names[i], .prio = run->def->prio[i], .start_suspended = true};

	w->run = run;
	w->index = i;
	return rtb_port_thread_create(&w->thread, &a,
				      run->counted ? rtb_tm_coop_counted_main : run->def->fn[i], w);
}

/* Objects and suspended workers of one test; on error, what was created
 * stays recorded in run for tm_teardown(). */
static int tm_setup(struct tm_run *run)
{
	const struct tm_def *def = run->def;
	int rc = RTB_OK;

	if (def->sem_initial >= 0)
		rc = rtb_port_sem_create(&run->sem, (uint32_t)def->sem_initial);
	if (rc == RTB_OK && def->mq)
		rc = rtb_port_mq_create(&run->mq, TM_MSG_BYTES, 1);
	if (rc == RTB_OK && def->pool)
		rc = rtb_port_pool_create(&run->pool, TM_MEM_BYTES, TM_MEM_BLOCKS);
	for (uint32_t i = 0; i < def->nworkers && rc == RTB_OK; i++)
		rc = tm_spawn(run, i);
	/* the thread that raises the interrupt is the one it interrupts */
	if (rc == RTB_OK && def->irq)
		rc = rtb_port_irq_create(&run->irq, run->w[0].thread, rtb_tm_handler, run);
	return rc;
}

/* Stop the workers, wait (bounded) until each has returned, delete all. */
static void tm_teardown(struct tm_run *run)
{
	const struct tm_def *def = run->def;

	run->stop = true;
	for (uint32_t i = 1; def->chain && i < def->nworkers; i++) {
		if (run->w[i].started)
			rtb_port_thread_resume(run->w[i].thread);
	}
	for (uint32_t i = 0; run->sem != NULL && i < def->nworkers; i++)
		rtb_port_sem_signal(run->sem);
	for (uint32_t i = 0; i < def->nworkers; i++) {
		struct tm_worker *w = &run->w[i];
		if (w->started && !rtb_wait_count(&w->done, 1, TM_EXIT_TIMEOUT_NS))
			rtb_emit_log(def->id, "warning",
				     "worker %" RTB_PRIu32 " did not end when told to", i);
	}
	/* no worker can raise the interrupt any more: delete the source */
	for (uint32_t i = 0; i < def->nworkers; i++) {
		if (run->w[i].thread != NULL)
			rtb_port_thread_delete(run->w[i].thread);
		run->w[i].thread = NULL;
		run->w[i].started = false;
	}
	if (run->irq != NULL) {
		rtb_port_irq_stop(run->irq, NULL);
		rtb_port_irq_delete(run->irq);
		run->irq = NULL;
	}
	if (run->sem != NULL)
		rtb_port_sem_delete(run->sem);
	if (run->mq != NULL)
		rtb_port_mq_delete(run->mq);
	if (run->pool != NULL)
		rtb_port_pool_delete(run->pool);
	run->sem = NULL;
	run->mq = NULL;
	run->pool = NULL;
}

static void tm_fold(struct tm_run *run)
{
	for (uint32_t c = 0; c < TM_COUNTERS; c++) {
		uint32_t now = run->raw[c];
		run->total[c] += (uint32_t)(now - run->seen[c]);
		run->seen[c] = now;
	}
}

static uint64_t tm_ops(const struct tm_run *run)
{
	uint64_t ops = 0;

	for (uint32_t c = 0; c < TM_WORKERS_MAX; c++) {
		if (run->def->ops_mask & (1u << c))
			ops += run->total[c];
	}
	return ops;
}

/* Sleep until end_ns, folding the counters every step; false if the time
 * budget ran out, a stop was requested or a worker failed first. */
static bool tm_sleep_until(const struct rtb_ctx *ctx, struct tm_run *run, uint64_t end_ns)
{
	for (;;) {
		uint64_t now = rtb_port_time_ns();
		if (now >= end_ns)
			return true;
		if (rtb_ctx_expired(ctx) || run->err != RTB_OK)
			return false;
		rtb_port_sleep_until_ns(RTB_MIN(end_ns, now + TM_STEP_NS));
		tm_fold(run);
	}
}

/* One run of a test: set up, nperiods periods of period_ns, tear down.
 * Fills run->periods and run->cum for the complete periods. */
static int tm_measure(struct rtb_ctx *ctx, struct tm_run *run, const struct tm_def *def,
		      bool unfair, bool counted, uint32_t nperiods, uint64_t period_ns,
		      const char *what)
{
	rtb_memset(run, 0, sizeof(*run));
	atomic_store(&run->turns_all, 0u);
	run->def = def;
	run->unfair = unfair;
	run->counted = counted;
	run->end_ticks = rtb_port_counter_read() +
			 rtb_ns_to_ticks(period_ns * nperiods + TM_EXIT_TIMEOUT_NS);
	int rc = tm_setup(run);
	for (uint32_t i = 0; i < def->nworkers && rc == RTB_OK; i++) {
		rc = rtb_port_thread_start(run->w[i].thread);
		run->w[i].started = rc == RTB_OK;
	}
	if (rc != RTB_OK) {
		tm_teardown(run);
		return rtb_ctx_fail(ctx, rc, "%s: setup failed: %s", def->id,
				    rtb_port_strerror(rc));
	}

	tm_fold(run);
	uint64_t t_prev = rtb_port_counter_read();
	uint64_t ops_prev = tm_ops(run), handled_prev = 0, lost_prev = 0, bad_prev = 0;
	uint64_t end_ns = rtb_port_time_ns();
	for (uint32_t p = 0; p < nperiods; p++) {
		end_ns += period_ns;
		bool full = tm_sleep_until(ctx, run, end_ns);
		tm_fold(run);
		uint64_t t = rtb_port_counter_read();
		if (!full) {
			if (run->err == RTB_OK)
				rtb_emit_log(def->id, "warning",
					     "%s after %" RTB_PRIu32 " of %" RTB_PRIu32 " %s",
					     rtb_ctx_expired_cause(ctx), p, nperiods, what);
			break;
		}
		struct tm_period *pr = &run->periods[p];
		uint64_t ops = tm_ops(run);
		pr->ops = ops - ops_prev;
		pr->ns = rtb_ticks_to_ns(t - t_prev);
		pr->rate =
			pr->ns > 0 ? (uint64_t)((double)pr->ops * 1e9 / (double)pr->ns + 0.5) : 0;
		pr->handled = run->total[TM_C_HANDLED] - handled_prev;
		pr->lost = run->total[TM_C_LOST] - lost_prev;
		pr->bad = run->total[TM_C_BAD] - bad_prev;
		for (uint32_t i = 0; i < def->nworkers; i++) {
			run->cum[p * def->nworkers + i] = run->total[i];
			if (p < TM_COUNTED_PERIODS)
				run->cum_lost[p * def->nworkers + i] = run->lost[i];
		}
		run->nperiods = p + 1;
		t_prev = t;
		ops_prev = ops;
		handled_prev = run->total[TM_C_HANDLED];
		lost_prev = run->total[TM_C_LOST];
		bad_prev = run->total[TM_C_BAD];
	}
	tm_teardown(run);
	if (run->err != RTB_OK)
		return rtb_ctx_fail(ctx, run->err, "%s: a worker failed: %s", def->id,
				    rtb_port_strerror(run->err));
	return RTB_OK;
}

/* What a period's counters say beyond the operations. */
static void tm_detail(char *buf, size_t len, const struct tm_run *run, uint32_t p)
{
	const struct tm_def *def = run->def;
	const struct tm_period *pr = &run->periods[p];
	char counts[RTB_LINE_MAX];

	buf[0] = '\0';
	if (def->fairness) {
		rtb_tm_counts_text(counts, sizeof(counts), &run->cum[p * def->nworkers],
				   def->nworkers);
		rtb_fmt(buf, len, "turns per thread since the start: %s", counts);
	} else if (def->irq) {
		rtb_fmt(buf, len, "handler ran %llu times; %llu hand-offs not done within 100 ms",
			(unsigned long long)pr->handled, (unsigned long long)pr->lost);
	} else if (def->mq) {
		rtb_fmt(buf, len, "%llu messages received unlike those sent",
			(unsigned long long)pr->bad);
	}
}

/* How a fire with delay 0 raises the interrupt, in a few words: the port's
 * "irq_now_name" where it raises it from software, else its source's name.
 * Static storage: the result records keep the pointer. */
static const char *tm_irq_name(void)
{
	static char name[RTB_LINE_MAX];
	const char *source = rtb_port_info()->irq_name;

	if (rtb_port_property("irq_now_name", name, sizeof(name)) == RTB_OK && name[0] != '\0')
		return name;
	return source != NULL && source[0] != '\0' ? source : "interrupt";
}

static int tm_emit(const struct rtb_ctx *ctx, const struct tm_run *run, uint64_t period_ms,
		   double *mean)
{
	const struct tm_def *def = run->def;
	struct rtb_metric m = {.scenario = def->id,
			       .metric = "throughput",
			       .title = def->title,
			       .unit = "ops_per_s"};
	struct rtb_recorder r;

	rtb_metric_param(&m, "period_ms", (int64_t)period_ms);
	if (def->irq)
		rtb_metric_param_str(&m, "interrupt", tm_irq_name());
	if (def->pool)
		rtb_metric_param_str(&m, "allocator",
				     (rtb_port_info()->caps & RTB_CAP_MEM_POOL) ? "block pool"
										: "emulated pool");
	int rc = rtb_recorder_init(&r, &m, 0, ctx->raw_max);
	if (rc != RTB_OK)
		return rc;
	for (uint32_t p = 0; p < run->nperiods; p++)
		rtb_recorder_add(&r, run->periods[p].rate);
	rtb_emit_result(&r);
	*mean = rtb_recorder_mean(&r);
	rtb_recorder_free(&r);

	static const struct rtb_column cols[] = {{"period", "count"},
						 {"operations", "count"},
						 {"duration", "ns"},
						 {"rate", "ops_per_s"},
						 {"detail", ""}};
	char detail[RTB_LINE_MAX];
	struct rtb_json *j = rtb_table_begin(def->id, "periods",
					     "Operations counted in each period (rate = operations "
					     "/ measured duration)",
					     cols, RTB_ARRAY_SIZE(cols));
	for (uint32_t p = 0; p < run->nperiods; p++) {
		const struct tm_period *pr = &run->periods[p];
		tm_detail(detail, sizeof(detail), run, p);
		rtb_json_arr_begin(j);
		rtb_json_u64(j, p + 1);
		rtb_json_u64(j, pr->ops);
		rtb_json_u64(j, pr->ns);
		rtb_json_u64(j, pr->rate);
		rtb_json_str(j, detail);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
	return RTB_OK;
}

static enum rtb_outcome tm_decide(const struct tm_run *run, uint32_t nperiods, char *reason,
				  size_t len)
{
	const struct tm_def *def = run->def;

	if (def->chain)
		return rtb_check_tm_chain(run->cum, def->nworkers, nperiods, reason, len);
	if (run->counted)
		return rtb_check_tm_coop_counted(run->cum, run->cum_lost, def->nworkers, nperiods,
						 reason, len);
	return rtb_check_tm_coop(run->cum, def->nworkers, nperiods, reason, len);
}

/* Evidence lines of the periods of a run, while room is left (one line is
 * kept for what follows). */
static void tm_period_evidence(struct rtb_verdict *v, const struct tm_run *run, const char *what)
{
	const uint32_t nw = run->def->nworkers;
	char counts[RTB_LINE_MAX], lost[RTB_LINE_MAX];

	for (uint32_t p = 0; p < run->nperiods; p++) {
		if (v->nevidence + 3 >= RTB_EVIDENCE_MAX) {
			rtb_verdict_evidence(v, "(%" RTB_PRIu32 " more %s in table \"periods\")",
					     run->nperiods - p, what);
			break;
		}
		rtb_tm_counts_text(counts, sizeof(counts), &run->cum[p * nw], nw);
		if (!run->counted) {
			rtb_verdict_evidence(v, "end of %s %" RTB_PRIu32 ", turns per thread: %s",
					     what, p + 1, counts);
			continue;
		}
		rtb_tm_counts_text(lost, sizeof(lost), &run->cum_lost[p * nw], nw);
		rtb_verdict_evidence(
			v, "end of %s %" RTB_PRIu32 ", turns per thread: %s; taken away: %s", what,
			p + 1, counts, lost);
	}
}

/* tm.coop whose measured periods drifted apart: does the OS take turns
 * away (a time slice, a preemption that sends the thread to the back)? The
 * same threads run again, counting the turns taken away; if there are
 * some, that run is what is judged (rtb_check_tm_coop_counted). Returns
 * true when the verdict is now the counted run's. */
static bool tm_coop_counted(struct rtb_ctx *ctx, struct tm_run *run, struct rtb_verdict *v,
			    bool unfair_platform)
{
	const struct tm_def *def = run->def;
	char first[RTB_LINE_MAX], why[RTB_LINE_MAX];
	uint64_t taken = 0;

	rtb_fmt(first, sizeof(first), "%s", v->reason);
	int rc = tm_measure(ctx, run, def, unfair_platform, true, TM_COUNTED_PERIODS, TM_COUNTED_NS,
			    "periods of the counted run");
	if (rc != RTB_OK || run->nperiods != TM_COUNTED_PERIODS) {
		v->outcome = RTB_INCONCLUSIVE;
		rtb_fmt(v->reason, sizeof(v->reason),
			"the turns drifted apart and the run that counts the turns taken away "
			"could not run (%s)",
			rc != RTB_OK ? ctx->reason : "cut short");
		ctx->reason[0] = '\0';
		return false;
	}
	for (uint32_t i = 0; i < def->nworkers; i++)
		taken += run->cum_lost[(TM_COUNTED_PERIODS - 1) * def->nworkers + i];
	if (taken == 0) {
		rtb_verdict_evidence(v,
				     "a run of %u x %u ms counting the turns the OS takes away saw "
				     "none: the drift is not the OS's doing",
				     TM_COUNTED_PERIODS, TM_COUNTED_NS / 1000000u);
		return false;
	}
	if (rtb_port_property("lacks.policy_fifo", why, sizeof(why)) != RTB_OK)
		rtb_fmt(why, sizeof(why), "the port does not say why");
	rtb_verdict_evidence(v, "not judged within 1: %s", first);
	rtb_verdict_evidence(v, "the OS gives the CPU to the next thread of the priority without "
				"a relinquish: the thread it leaves loses a turn");
	rtb_verdict_evidence(v, "the port says: %s", why);
	rtb_verdict_evidence(v,
			     "judged instead: %u periods of %u ms where each thread also counts "
			     "the turns taken away from it",
			     TM_COUNTED_PERIODS, TM_COUNTED_NS / 1000000u);
	tm_period_evidence(v, run, "counted period");
	v->outcome = tm_decide(run, run->nperiods, v->reason, sizeof(v->reason));
	return true;
}

/* The fairness verdict of tm.coop or tm.preempt: the measured periods just
 * emitted, then the negative control through the same threads. */
static int tm_fairness(struct rtb_ctx *ctx, struct tm_run *run, struct rtb_verdict *v,
		       bool unfair_platform)
{
	const struct tm_def *def = run->def;
	char counts[RTB_LINE_MAX], reason[RTB_LINE_MAX];
	const char *broken = def->chain ? "thread 2 resumes thread 3 only every second time"
					: "thread 0 relinquishes only every second turn";

	rtb_verdict_init(v, def->id, NULL, "fairness");
	v->outcome = tm_decide(run, run->nperiods, v->reason, sizeof(v->reason));
	if (def->chain)
		rtb_verdict_evidence(v,
				     "%" RTB_PRIu32
				     " threads at relative priorities 1..%" RTB_PRIu32
				     "; thread 0 resumes "
				     "thread 1, each resumes the next higher and suspends itself",
				     def->nworkers, def->nworkers);
	else
		rtb_verdict_evidence(v,
				     "%" RTB_PRIu32
				     " threads at relative priority 1, each counts a turn and "
				     "relinquishes",
				     def->nworkers);
	if (unfair_platform)
		rtb_verdict_evidence(v, "option %s.unfair=1: %s", def->id, broken);
	tm_period_evidence(v, run, "period");
	bool counted = !def->chain && v->outcome == RTB_FAIL &&
		       tm_coop_counted(ctx, run, v, unfair_platform);

	int rc = tm_measure(ctx, run, def, true, counted, 1, TM_CONTROL_NS,
			    "periods of the negative control");
	enum rtb_outcome co = RTB_INCONCLUSIVE;
	if (rc == RTB_OK && run->nperiods == 1) {
		co = tm_decide(run, 1, reason, sizeof(reason));
		rtb_tm_counts_text(counts, sizeof(counts), run->cum, def->nworkers);
		rtb_verdict_control_evidence(v, "after 200 ms, turns per thread: %s", counts);
		if (counted) {
			rtb_tm_counts_text(counts, sizeof(counts), run->cum_lost, def->nworkers);
			rtb_verdict_control_evidence(v, "taken away: %s", counts);
		}
		rtb_verdict_control_evidence(v, "outcome %s: %s", rtb_outcome_name(co), reason);
	} else {
		rtb_verdict_control_evidence(v, "the control could not run: %s",
					     rc != RTB_OK ? ctx->reason : "cut short");
		ctx->reason[0] = '\0';
		rc = RTB_OK;
	}
	rtb_verdict_conclude(v, co, "the same threads%s for 200 ms, where %s",
			     counted ? ", counting the turns taken away," : "", broken);
	return rc;
}

/* ---- the run unit ------------------------------------------------------------- */

struct tm_state {
	struct tm_run run;
	struct rtb_verdict verdict;
	double mean[TM_TESTS]; /* mean rate of each test that reported one */
	bool have[TM_TESTS];
	char first_error[RTB_LINE_MAX];
};

static bool tm_supported(const struct tm_def *def)
{
	return (rtb_port_info()->caps & def->caps) == def->caps;
}

/* Periods that fit the time budget: `periods`, fewer (with a warning), or
 * 0 when not even one does. */
static uint64_t tm_fit(const struct rtb_ctx *ctx, uint64_t periods, uint64_t period_ns,
		       uint32_t ntests)
{
	uint64_t now = rtb_port_counter_read();
	uint64_t left_ns = (int64_t)(ctx->budget_end_ticks - now) > 0
				   ? rtb_ticks_to_ns(ctx->budget_end_ticks - now)
				   : 0;
	uint64_t fixed_ns = ntests * TM_SETUP_NS + 2 * (TM_CONTROL_NS + TM_SETUP_NS) +
			    TM_COUNTED_PERIODS * TM_COUNTED_NS + TM_SETUP_NS;
	uint64_t per_period_ns = ntests * period_ns;

	if (fixed_ns + per_period_ns * periods <= left_ns)
		return periods;
	uint64_t fit = left_ns > fixed_ns ? (left_ns - fixed_ns) / per_period_ns : 0;
	if (fit > 0)
		rtb_emit_log("tm.basic", "warning",
			     "%llu periods per test do not fit the deadline: %llu periods instead",
			     (unsigned long long)periods, (unsigned long long)fit);
	return fit;
}

static void tm_ratio_table(const struct tm_state *st)
{
	static const struct rtb_column cols[] = {
		{"test", ""}, {"mean rate", "ops_per_s"}, {"to tm.basic", "ratio"}};
	struct rtb_json *j = rtb_table_begin("tm.basic", "ratio",
					     "Ratio to tm.basic: each test's mean rate divided by "
					     "tm.basic's, measured in the same run",
					     cols, RTB_ARRAY_SIZE(cols));
	bool base = st->have[TM_BASIC] && st->mean[TM_BASIC] > 0;

	for (uint32_t t = 0; t < TM_TESTS; t++) {
		rtb_json_arr_begin(j);
		rtb_json_str(j, rtb_tm_defs[t].id);
		if (st->have[t])
			rtb_json_u64(j, (uint64_t)(st->mean[t] + 0.5));
		else
			rtb_json_null(j);
		if (st->have[t] && base)
			rtb_json_dbl(j, st->mean[t] / st->mean[TM_BASIC]);
		else
			rtb_json_null(j);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
}

static int run_tm(struct rtb_ctx *ctx)
{
	const struct rtb_port_info *info = rtb_port_info();
	static const char *const flags[] = {"0", "1"};
	int unfair[TM_TESTS] = {0};
	uint64_t periods = rtb_ctx_count(ctx, "periods", 3, 2, 10);
	uint64_t period_ms = rtb_ctx_count(ctx, "period_ms", 2000, 30000, 30000);
	uint32_t ntests = 0;
	int first_rc = RTB_OK;

	unfair[TM_COOP] = rtb_ctx_choice(ctx, "tm.coop.unfair", flags, 2);
	unfair[TM_PREEMPT] = rtb_ctx_choice(ctx, "tm.preempt.unfair", flags, 2);
	if (unfair[TM_COOP] < 0 || unfair[TM_PREEMPT] < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "tm.coop.unfair and tm.preempt.unfair are 0 or 1");
	if (periods < 1 || periods > TM_PERIODS_MAX)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "periods must be 1..%u", TM_PERIODS_MAX);
	if (period_ms < TM_PERIOD_MS_MIN || period_ms > TM_PERIOD_MS_MAX)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "period_ms must be %u..%u",
				    TM_PERIOD_MS_MIN, TM_PERIOD_MS_MAX);
	if (info->prio_max < TM_CHAIN + 1)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED,
				    "needs %d priority levels above the lowest (the chain and the "
				    "controller above it)",
				    TM_CHAIN + 1);
	for (uint32_t t = 0; t < TM_TESTS; t++)
		ntests += tm_supported(&rtb_tm_defs[t]) ? 1 : 0;
	uint64_t period_ns = period_ms * 1000000u;
	periods = tm_fit(ctx, periods, period_ns, ntests);
	if (periods == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "one period of %llu ms per test does not fit the deadline",
				    (unsigned long long)period_ms);

	struct tm_state *st = rtb_port_mem_alloc(sizeof(*st));
	if (st == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rtb_memset(st, 0, sizeof(*st));
	/* Above every worker, so the counters are read while none runs. */
	int rc = rtb_port_thread_set_priority(NULL, info->prio_max);
	if (rc != RTB_OK) {
		rtb_port_mem_free(st);
		return rtb_ctx_fail(ctx, rc, "cannot raise the controller to priority %d: %s",
				    info->prio_max, rtb_port_strerror(rc));
	}
	rtb_emit_log("tm.basic", "info",
		     "%llu periods of %llu ms per test; the controller runs at relative priority "
		     "%d and reads the counters every 100 ms",
		     (unsigned long long)periods, (unsigned long long)period_ms, info->prio_max);
	if (info->caps & RTB_CAP_IRQ) {
		char now[RTB_LINE_MAX];
		rtb_emit_log("tm.irq", "info", "interrupt source on the %s port: %s", info->port,
			     info->irq_source);
		if (rtb_port_property("irq_now", now, sizeof(now)) == RTB_OK)
			rtb_emit_log("tm.irq", "info",
				     "tm.irq and tm.irq_preempt fire it with delay 0: %s", now);
	}
	rtb_emit_log("tm.mem", "info", "blocks of tm.mem on the %s port: %s", info->port,
		     rtb_port_pool_mechanism());

	for (uint32_t t = 0; t < TM_TESTS; t++) {
		const struct tm_def *def = &rtb_tm_defs[t];
		if (!tm_supported(def)) {
			rtb_emit_log(def->id, "warning", "%s not run: %s", def->id, def->needs);
			continue;
		}
		if (rtb_ctx_expired(ctx)) {
			rtb_emit_log(def->id, "warning", "%s not run: %s", def->id,
				     rtb_ctx_expired_cause(ctx));
			continue;
		}
		rc = tm_measure(ctx, &st->run, def, unfair[t] == 1, false, (uint32_t)periods,
				period_ns, "periods");
		if (rc == RTB_OK && st->run.nperiods > 0)
			rc = tm_emit(ctx, &st->run, period_ms, &st->mean[t]);
		if (rc == RTB_OK && st->run.nperiods > 0) {
			st->have[t] = true;
			if (def->fairness)
				rc = tm_fairness(ctx, &st->run, &st->verdict, unfair[t] == 1);
		}
		if (rc != RTB_OK) {
			rtb_emit_log(def->id, "error", "%s", ctx->reason);
			if (first_rc == RTB_OK) {
				first_rc = rc;
				rtb_fmt(st->first_error, sizeof(st->first_error), "%s",
					ctx->reason);
			}
			ctx->reason[0] = '\0';
		}
	}
	tm_ratio_table(st);

	rtb_port_thread_set_priority(NULL, 0);
	if (first_rc != RTB_OK)
		rtb_ctx_fail(ctx, first_rc, "%s", st->first_error);
	rtb_port_mem_free(st);
	return first_rc;
}

static const struct rtb_option_spec tm_basic_options[] = {
	RTB_OPT_LEN("periods", 1u, 64u, "periods measured per test"),
	RTB_OPT_LEN("period_ms", 10u, 600000u, "length of one period, in ms"),
	RTB_OPT_WORD("tm.coop.unfair", "0|1",
		     "1: a cooperative chain where one thread relinquishes only every second turn "
		     "(must fail)"),
	RTB_OPT_WORD("tm.preempt.unfair", "0|1",
		     "1: a preemption chain that skips every second resume (must fail)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_tm_basic = {
	.name = "tm.basic",
	.ids = {{"tm.basic", NULL},
		{"tm.coop", NULL},
		{"tm.preempt", NULL},
		{"tm.irq", NULL},
		{"tm.irq_preempt", NULL},
		{"tm.msg", NULL},
		{"tm.sync", NULL},
		{"tm.mem", NULL}},
	.summary = "Thread-Metric throughput: eight tests in one process, each in operations per "
		   "second and as a ratio to tm.basic",
	.estimate_ms = {49000, 482000, 2403000},
	.deadline_ms = {90000, 720000, 3600000},
	.caps = RTB_CAP_REALTIME,
	.options = tm_basic_options,
	.run = run_tm,
};
