/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RH: Rhealstone (Kar and Porter, 1989).
 *
 * One run unit measures the six components one after the other, each a
 * timed sample per occurrence with the timestamp overhead subtracted, and
 * computes the Rhealstone number from their means (rtb_rhealstone(): the
 * mean of the six means, and rhealstones per second = 1e6 / that mean in
 * microseconds). Each component reuses the measurement code of the rtbench
 * scenario whose definition it matches:
 *
 * rh.task_switch: two threads of equal priority (relative 1) yield in turn;
 *   from the yield call in one to the return from yield in the other. The
 *   yield ring of thr.switch.yield with 2 threads (core/src/ring.c).
 * rh.preempt: a low thread (2, the controller) signals the semaphore a
 *   high thread (3) waits on; from before the signal until the high thread
 *   runs. The wake-up pair of sched.preempt.switch (core/src/wake_pair.c),
 *   same configuration.
 * rh.irq_latency: from the interrupted thread's last write (busy thread at
 *   1) to the handler's first instruction. irq.latency's measurement
 *   (core/src/irq_oneshot.c); needs the port's interrupt source.
 * rh.sem_shuffle: two threads of equal priority (1: the controller A and a
 *   peer B) share a binary semaphore. Each round A takes it and yields; B
 *   runs, requests it and blocks; A takes t0 and releases it (B becomes
 *   ready but does not preempt an equal priority) and yields; B takes t1
 *   as soon as its wait returns, releases the semaphore and yields. Sample
 *   = t1 - t0 - overhead: the release, the hand-over and the switch to the
 *   waiting thread. As in Rhealstone the threads have equal priority (with
 *   a higher-priority waiter this would be rh.preempt again). A round
 *   where B was not blocked when A released, or did not run before A went
 *   on, is invalid. No rtbench scenario matches it exactly.
 * rh.deadlock_break: the L/M/H sequence of mut.lock.block and
 *   mut.unlock.handoff (core/src/mut_pi.c) with a priority-inheritance
 *   mutex, from H's lock request (t_h_lock) until H holds the mutex
 *   (t_h_acquired): the switch to the boosted holder L, L's remaining work
 *   (making M ready), its unlock and the hand-over to H. An iteration
 *   whose event order is not the inheritance one is invalid.
 * rh.msg_latency: a low thread (2) sends a 4-byte message to a high thread
 *   (3) blocked on an empty queue; from before the send until the receiver
 *   runs. The wake-up pair of sched.mq.workload, with no pause and no
 *   background thread (as mq.send.unblock).
 *
 * A component the port cannot measure (no interrupt source, no
 * priority-inheritance mutex, no message queue) is reported unsupported in
 * a warning and in the table, and the number is then "not computed" with
 * the reason; it is never computed from fewer components. The table
 * "rhealstone" has one row per component (the matching scenario, samples,
 * invalid samples, mean in ns) and a last row for the number.
 */
#include "rtb/irq_oneshot.h"
#include "rtb/mut_pi.h"
#include "rtb/rhealstone.h"
#include "rtb/ring.h"
#include "rtb/wake_pair.h"

#define SHUFFLE_PRIO 1

struct component {
	struct rtb_rh_component rh; /* id, missing, count, mean_ns */
	const char *matches;	    /* the rtbench scenario it reuses */
	const char *metric;
	const char *title;
	uint64_t invalid;
	char why[RTB_LINE_MAX]; /* when not measured */
	int (*measure)(struct rtb_ctx *ctx, struct component *c);
};

static uint64_t rh_count(const struct rtb_ctx *ctx)
{
	return rtb_ctx_count(ctx, "iterations", 5000, 100000, 1000000);
}

static struct rtb_metric metric_of(const struct component *c)
{
	struct rtb_metric m = {
		.scenario = c->rh.id, .metric = c->metric, .title = c->title, .unit = "ticks"};
	return m;
}

static int unsupported(struct component *c, const char *why)
{
	rtb_fmt(c->why, sizeof(c->why), "unsupported: %s", why);
	return RTB_E_UNSUPPORTED;
}

/* Emit the component's result and keep what the number needs. */
static void finish(struct component *c, const struct rtb_recorder *r)
{
	rtb_emit_result(r);
	c->rh.count = r->count;
	c->invalid = r->invalid;
	c->rh.mean_ns = r->count > 0 && rtb_timing.hz > 0
				? rtb_recorder_mean(r) * 1e9 / (double)rtb_timing.hz
				: 0.0;
}

/* ---- rh.task_switch --------------------------------------------------------- */

static int measure_task_switch(struct rtb_ctx *ctx, struct component *c)
{
	struct rtb_metric m = metric_of(c);
	struct rtb_recorder r;
	uint32_t created = 0;

	rtb_metric_param(&m, "threads", 2);
	int rc = rtb_ring_measure(ctx, &m, 2, rh_count(ctx), &r, &created);
	if (rc == RTB_OK)
		finish(c, &r);
	else if (ctx->reason[0] == '\0')
		rtb_ctx_fail(ctx, rc, "could create only %" RTB_PRIu32 " of 2 threads: %s", created,
			     rtb_port_strerror(rc));
	rtb_recorder_free(&r);
	return rc;
}

/* ---- rh.preempt and rh.msg_latency: the wake-up pair ------------------------- */

static int measure_pair(struct rtb_ctx *ctx, struct component *c, enum rtb_wake_kind kind)
{
	struct rtb_metric m = metric_of(c);
	uint64_t n = rh_count(ctx), done = 0;
	uint32_t warm = rtb_warmup_for(n);
	struct rtb_wake_pair *p;
	struct rtb_recorder r;

	if (rtb_recorder_init(&r, &m, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorder");
	int rc = rtb_wake_pair_create(ctx, kind, 0, &p);
	if (rc == RTB_OK) {
		rc = rtb_wake_pair_measure(ctx, p, false, n + warm, 0, &r, &done);
		struct rtb_wake_invalid v = rtb_wake_pair_invalid(p);
		rtb_wake_pair_delete(p);
		if (rc == RTB_OK && v.not_blocked + v.not_woken + v.wrong_msg > 0)
			rtb_emit_log(c->rh.id, "warning",
				     "invalid samples: %llu with the receiver not blocked, %llu "
				     "with the sender going on before it ran, %llu with another "
				     "message received",
				     (unsigned long long)v.not_blocked,
				     (unsigned long long)v.not_woken,
				     (unsigned long long)v.wrong_msg);
	}
	if (rc == RTB_OK) {
		if (done < n + warm)
			rtb_ctx_expired_after(ctx, done, n + warm, "samples");
		finish(c, &r);
	} else if (ctx->reason[0] == '\0') {
		rtb_ctx_fail(ctx, rc, "the wake-up pair failed: %s", rtb_port_strerror(rc));
	}
	rtb_recorder_free(&r);
	return rc;
}

static int measure_preempt(struct rtb_ctx *ctx, struct component *c)
{
	return measure_pair(ctx, c, RTB_WAKE_SEM);
}

static int measure_msg(struct rtb_ctx *ctx, struct component *c)
{
	if (!(rtb_port_info()->caps & RTB_CAP_MQ))
		return unsupported(c, "the port has no message queue");
	return measure_pair(ctx, c, RTB_WAKE_MQ);
}

/* ---- rh.irq_latency ------------------------------------------------------------ */

static int measure_irq(struct rtb_ctx *ctx, struct component *c)
{
	struct rtb_metric m = metric_of(c);
	struct rtb_oneshot_opts o;
	struct rtb_irq_latency_report rep;
	struct rtb_recorder r;

	if (!(rtb_port_info()->caps & RTB_CAP_IRQ))
		return unsupported(c, "the port has no interrupt source");
	int rc = rtb_oneshot_options(ctx, c->rh.id, &o);
	if (rc != RTB_OK)
		return rc;
	o.iterations = rtb_ctx_count(ctx, "iterations", 1000, 20000, 100000);
	if (rtb_recorder_init(&r, &m, rtb_warmup_for(o.iterations), ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorder");
	rc = rtb_irq_latency_measure(ctx, &o, &r, NULL, &rep);
	if (rc == RTB_OK) {
		rtb_emit_log(c->rh.id, "info", "interrupt source on the %s port: %s",
			     rtb_port_info()->port, rtb_port_info()->irq_source);
		if (r.invalid > 0)
			rtb_emit_log(
				c->rh.id, "info",
				"invalid samples: %llu without an interrupt in the window, "
				"%llu with it outside the busy loop, %llu with the busy thread "
				"not running when it was due (busy loop period %llu ticks)",
				(unsigned long long)rep.run.c.no_irq,
				(unsigned long long)rep.run.c.outside,
				(unsigned long long)rep.not_running,
				(unsigned long long)rep.loop_ticks);
		finish(c, &r);
	}
	rtb_recorder_free(&r);
	return rc;
}

/* ---- rh.sem_shuffle -------------------------------------------------------------- */

struct shuffle {
	struct rtb_sem *sem;
	volatile uint32_t waits; /* B: wait calls made */
	volatile uint32_t acqs;	 /* B: wait calls returned */
	volatile uint64_t t_acq; /* B: just after its wait returned */
	volatile bool stop;
	volatile uint32_t exited;
	volatile int rc;
};

static void shuffle_peer(void *arg)
{
	struct shuffle *sh = arg;

	while (!sh->stop) {
		sh->waits++;
		int rc = rtb_port_sem_wait(sh->sem);
		uint64_t t = rtb_port_counter_read();
		if (rc != RTB_OK) {
			sh->rc = rc;
			sh->acqs++;
			break;
		}
		sh->t_acq = t;
		sh->acqs++;
		rtb_port_sem_signal(sh->sem);
		rtb_port_thread_yield();
	}
	sh->exited = 1;
}

/* The rounds, the controller being A. *not_blocked and *not_run count the
 * invalid rounds by cause. */
static int shuffle_rounds(struct rtb_ctx *ctx, struct shuffle *sh, uint64_t total,
			  struct rtb_recorder *r, uint64_t *not_blocked, uint64_t *not_run)
{
	int rc = RTB_OK;

	for (uint64_t i = 0; i < total; i++) {
		uint32_t k = sh->acqs;
		rc = rtb_port_sem_wait(sh->sem);
		if (rc != RTB_OK)
			break;
		rtb_port_thread_yield(); /* B requests the semaphore and blocks */
		bool ready = sh->waits == k + 1 && sh->acqs == k;
		uint64_t t0 = rtb_port_counter_read();
		rc = rtb_port_sem_signal(sh->sem);
		if (rc != RTB_OK)
			break;
		rtb_port_thread_yield(); /* B returns from its wait */
		bool got = rtb_ctx_settle(ctx, &sh->acqs, k + 1);
		if (sh->rc != RTB_OK) {
			rc = sh->rc;
			break;
		}
		if (!ready) {
			(*not_blocked)++;
			rtb_recorder_add_invalid(r);
		} else if (!got) {
			(*not_run)++;
			rtb_recorder_add_invalid(r);
		} else {
			rtb_recorder_add_interval(r, t0, sh->t_acq);
		}
		if ((i & 255) == 0 && rtb_ctx_expired_after(ctx, i + 1, total, "rounds"))
			break;
	}
	return rc;
}

static int measure_shuffle(struct rtb_ctx *ctx, struct component *c)
{
	struct rtb_metric m = metric_of(c);
	uint64_t n = rh_count(ctx), not_blocked = 0, not_run = 0;
	uint32_t warm = rtb_warmup_for(n);
	struct rtb_thread *peer = NULL;
	struct rtb_recorder r;
	struct shuffle *sh;
	int rc;

	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL || rtb_recorder_init(&r, &m, warm, ctx->raw_max) != RTB_OK) {
		rtb_port_mem_free(sh);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	}
	rtb_memset(sh, 0, sizeof(*sh));
	rc = rtb_port_sem_create(&sh->sem, 1);
	if (rc == RTB_OK)
		rc = rtb_port_thread_set_priority(NULL, SHUFFLE_PRIO);
	if (rc == RTB_OK) {
		/* equal priority: B first runs when A yields */
		struct rtb_thread_attr a = {.name = "rh-shuffle", .prio = SHUFFLE_PRIO};
		rc = rtb_port_thread_create(&peer, &a, shuffle_peer, sh);
	}
	if (rc == RTB_OK)
		rc = shuffle_rounds(ctx, sh, n + warm, &r, &not_blocked, &not_run);
	else
		rtb_ctx_fail(ctx, rc, "semaphore shuffle setup failed: %s", rtb_port_strerror(rc));
	if (peer != NULL) {
		/* B is ready (it yielded) or, out of order, waiting: let it end */
		sh->stop = true;
		rtb_port_sem_signal(sh->sem);
		rtb_port_thread_set_priority(NULL, 0);
		if (!rtb_wait_count(&sh->exited, 1, 1000000000u))
			rtb_emit_log(c->rh.id, "warning", "the shuffle peer did not end in time");
		rtb_port_thread_delete(peer);
	}
	rtb_port_thread_set_priority(NULL, 0);
	if (sh->sem != NULL)
		rtb_port_sem_delete(sh->sem);
	if (rc == RTB_OK) {
		if (not_blocked + not_run > 0)
			rtb_emit_log(
				c->rh.id, "warning",
				"invalid rounds: %llu with the peer not blocked when the "
				"semaphore was released, %llu with the peer not run before the "
				"releasing thread went on (no real-time policy, or a time "
				"slice ended inside a round?)",
				(unsigned long long)not_blocked, (unsigned long long)not_run);
		finish(c, &r);
	} else if (ctx->reason[0] == '\0') {
		rtb_ctx_fail(ctx, rc, "semaphore shuffle failed: %s", rtb_port_strerror(rc));
	}
	rtb_recorder_free(&r);
	rtb_port_mem_free(sh);
	return rc;
}

/* ---- rh.deadlock_break ------------------------------------------------------------ */

static int measure_deadlock(struct rtb_ctx *ctx, struct component *c)
{
	struct rtb_metric m = metric_of(c);
	uint64_t n = rh_count(ctx), invalid = 0;
	uint32_t warm = rtb_warmup_for(n);
	char first[RTB_LINE_MAX] = "";
	struct rtb_pi_shared *sh;
	struct rtb_recorder r;

	if (!(rtb_port_info()->caps & RTB_CAP_MUTEX_INHERIT))
		return unsupported(c, "the port has no priority-inheritance mutex");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL || rtb_recorder_init(&r, &m, warm, ctx->raw_max) != RTB_OK) {
		rtb_port_mem_free(sh);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	}
	int rc = rtb_pi_loop_start(sh, RTB_MUTEX_INHERIT);
	if (rc == RTB_OK) {
		for (uint64_t i = 0; i < n + warm && sh->rc == RTB_OK; i++) {
			char reason[RTB_LINE_MAX];
			if (rtb_pi_loop_once(ctx, sh, reason, sizeof(reason))) {
				rtb_recorder_add_interval(&r, sh->t_h_lock, sh->t_h_acquired);
			} else {
				rtb_recorder_add_invalid(&r);
				if (invalid++ == 0)
					rtb_fmt(first, sizeof(first), "%s", reason);
			}
			if ((i & 255) == 0 &&
			    rtb_ctx_expired_after(ctx, i + 1, n + warm, "iterations"))
				break;
		}
		rc = rtb_pi_loop_stop(sh);
	}
	if (rc == RTB_OK) {
		if (invalid > 0)
			rtb_emit_log(c->rh.id, "warning", "%llu iterations invalid; first: %s",
				     (unsigned long long)invalid, first);
		finish(c, &r);
	} else {
		rtb_ctx_fail(ctx, rc, "the mutex sequence failed: %s", rtb_port_strerror(rc));
	}
	rtb_recorder_free(&r);
	rtb_port_mem_free(sh);
	return rc;
}

/* ---- the unit -------------------------------------------------------------------- */

static void rh_table(const struct component *c, uint32_t n, const struct rtb_rh_number *num)
{
	static const struct rtb_column cols[] = {
		{"component", ""},    {"rtbench scenario", ""}, {"samples", "count"},
		{"invalid", "count"}, {"mean", "ns"},		{"rhealstones per second", "1/s"},
		{"status", ""}};
	struct rtb_json *j = rtb_table_begin("rh.task_switch", "rhealstone",
					     "Rhealstone components and number (mean of the six "
					     "means)",
					     cols, RTB_ARRAY_SIZE(cols));

	for (uint32_t i = 0; i < n; i++) {
		rtb_json_arr_begin(j);
		rtb_json_str(j, c[i].rh.id);
		rtb_json_str(j, c[i].matches);
		if (c[i].rh.missing == NULL) {
			rtb_json_u64(j, c[i].rh.count);
			rtb_json_u64(j, c[i].invalid);
			if (c[i].rh.count > 0)
				rtb_json_dbl(j, c[i].rh.mean_ns);
			else
				rtb_json_null(j);
		} else {
			rtb_json_null(j);
			rtb_json_null(j);
			rtb_json_null(j);
		}
		rtb_json_null(j);
		rtb_json_str(j, c[i].rh.missing == NULL
					? (c[i].rh.count > 0 ? "measured" : "no valid sample")
					: c[i].rh.missing);
		rtb_json_arr_end(j);
	}
	rtb_json_arr_begin(j);
	rtb_json_str(j, "Rhealstone number");
	rtb_json_str(j, "mean of the six means");
	rtb_json_null(j);
	rtb_json_null(j);
	if (num->computed) {
		rtb_json_dbl(j, num->mean_ns);
		rtb_json_dbl(j, num->per_second);
		rtb_json_str(j, "computed");
	} else {
		rtb_json_null(j);
		rtb_json_null(j);
		rtb_json_str(j, num->reason);
	}
	rtb_json_arr_end(j);
	rtb_table_end(j);
}

static int run_rh(struct rtb_ctx *ctx)
{
	struct component c[RTB_RH_COMPONENTS] = {
		{.rh.id = "rh.task_switch",
		 .matches = "thr.switch.yield, 2 threads",
		 .metric = "switch",
		 .title = "Yield in one of two equal-priority threads until the other runs",
		 .measure = measure_task_switch},
		{.rh.id = "rh.preempt",
		 .matches = "sched.preempt.switch",
		 .metric = "switch",
		 .title = "Semaphore signal in a low thread until the high waiting thread runs",
		 .measure = measure_preempt},
		{.rh.id = "rh.irq_latency",
		 .matches = "irq.latency",
		 .metric = "latency",
		 .title = "Interrupted thread's last write to the handler's first instruction",
		 .measure = measure_irq},
		{.rh.id = "rh.sem_shuffle",
		 .matches = "none (equal-priority hand-over)",
		 .metric = "shuffle",
		 .title = "Semaphore release until the equal-priority waiter has it",
		 .measure = measure_shuffle},
		{.rh.id = "rh.deadlock_break",
		 .matches = "mut.lock.block + mut.unlock.handoff",
		 .metric = "break",
		 .title = "High thread's request of a mutex a low one holds until it holds it "
			  "(inheritance)",
		 .measure = measure_deadlock},
		{.rh.id = "rh.msg_latency",
		 .matches = "mq.send.unblock",
		 .metric = "message",
		 .title = "Message send in a low thread until the high blocked receiver runs",
		 .measure = measure_msg},
	};
	struct rtb_rh_number num;
	int first_rc = RTB_OK;
	const char *first_id = NULL;
	char first_reason[RTB_LINE_MAX] = "";

	if (rtb_port_info()->prio_max < RTB_WAKE_PRIO_HIGH)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least four priority levels");
	if (rh_count(ctx) == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "iterations must be at least 1");
	for (uint32_t i = 0; i < RTB_RH_COMPONENTS; i++) {
		struct component *k = &c[i];
		if (rtb_ctx_expired(ctx)) {
			rtb_fmt(k->why, sizeof(k->why), "not measured: %s",
				rtb_ctx_expired_cause(ctx));
			k->rh.missing = k->why;
			continue;
		}
		ctx->reason[0] = '\0';
		int rc = k->measure(ctx, k);
		if (rc == RTB_OK)
			continue;
		if (rc != RTB_E_UNSUPPORTED || k->why[0] == '\0')
			rtb_fmt(k->why, sizeof(k->why), "failed: %s",
				ctx->reason[0] != '\0' ? ctx->reason : rtb_port_strerror(rc));
		k->rh.missing = k->why;
		rtb_emit_log(k->rh.id, rc == RTB_E_UNSUPPORTED ? "warning" : "error", "%s: %s",
			     k->rh.id, k->why);
		if (rc != RTB_E_UNSUPPORTED && first_rc == RTB_OK) {
			first_rc = rc;
			first_id = k->rh.id;
			rtb_fmt(first_reason, sizeof(first_reason), "%s", k->why);
		}
	}
	struct rtb_rh_component parts[RTB_RH_COMPONENTS];
	for (uint32_t i = 0; i < RTB_RH_COMPONENTS; i++)
		parts[i] = c[i].rh;
	rtb_rhealstone(parts, RTB_RH_COMPONENTS, &num);
	rh_table(c, RTB_RH_COMPONENTS, &num);
	if (num.computed) {
		char mean[32];
		rtb_fmt_ns(mean, sizeof(mean), (uint64_t)(num.mean_ns + 0.5));
		rtb_emit_log("rh.task_switch", "info",
			     "Rhealstone number: %s (mean of the six means), %llu rhealstones "
			     "per second",
			     mean, (unsigned long long)(num.per_second + 0.5));
	} else {
		rtb_emit_log("rh.task_switch", "warning", "Rhealstone number %s", num.reason);
	}
	ctx->reason[0] = '\0';
	if (first_rc != RTB_OK)
		return rtb_ctx_fail(ctx, first_rc, "%s %s", first_id, first_reason);
	return RTB_OK;
}

static const struct rtb_option_spec rh_task_switch_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("rh.irq_latency.delay_min_ns", 1u, 1000000000u,
		  "shortest delay before an interrupt"),
	RTB_OPT_N("rh.irq_latency.delay_max_ns", 1u, 1000000000u,
		  "longest delay before an interrupt"),
	RTB_OPT_N("rh.irq_latency.gap_ns", 0u, 1000000000u, "pause between samples"),
	RTB_OPT_N("rh.irq_latency.early_ns", 0u, 1000000000u,
		  "how early the waiting side must be ready"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_rh_task_switch = {
	.name = "rh.task_switch",
	.ids = {{"rh.task_switch", NULL},
		{"rh.preempt", NULL},
		{"rh.irq_latency", NULL},
		{"rh.sem_shuffle", NULL},
		{"rh.deadlock_break", NULL},
		{"rh.msg_latency", NULL}},
	.summary = "Rhealstone: the six components and their mean, the Rhealstone number",
	.estimate_ms = {1500, 18000, 60000},
	.deadline_ms = {60000, 180000, 1800000},
	.options = rh_task_switch_options,
	.run = run_rh,
};
