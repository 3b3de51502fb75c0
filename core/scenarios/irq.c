/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IRQ: interrupts.
 *
 * The interrupt source is the port's (rtb_port_irq_*): something the OS
 * offers that is not synchronised with its clock tick. The meta record's
 * irq_source says what it is, and every scenario here repeats it in a log
 * record and in its "conditions" table. On POSIX it is a POSIX timer whose
 * expiry sends a real-time signal to one thread; the handler is the signal
 * handler, so every figure includes the kernel's signal delivery path.
 *
 * irq.latency (IRQ-P-LAT) and irq.return (IRQ-P-DLT). The controller
 * (priority 0) arms a one-shot interrupt after a pseudo-random delay and
 * releases the busy thread (priority 1), the interrupt's target, which
 * stores the low 32 bits of the counter into a shared word in a tight,
 * time-bounded loop. The handler reads the counter as its first action
 * (t_entry), then the shared word: the last value the interrupted thread
 * stored, extended to 64 bits with t_entry's high bits. Its last action is a
 * second counter read (t_exit). latency = t_entry - last value; return = the
 * first value the busy thread reads after the handler that is later than
 * t_exit, minus t_exit (a value read before the interrupt but stored after
 * it is skipped). Both have the timestamp overhead subtracted; the loop's
 * own period bounds their resolution and is reported. A sample is invalid
 * (counted) when the handler ran while the busy thread was not in its loop,
 * when the last value stored is older than the earliest moment the
 * interrupt could have come, by more than a small allowance (the busy
 * thread was not running then: the handler did not interrupt it), or when
 * no interrupt came in the window.
 *
 * irq.to_thread (IRQ-P-TLT). The handler reads the counter (t_signal) just
 * before rtb_port_sem_signal_from_irq() on a semaphore the highest-priority
 * thread (prio_max) waits on; that thread reads the counter (t_run) as soon
 * as its wait returns. Sample = t_run - t_signal - overhead. The busy
 * thread (priority 1) loops meanwhile and is the interrupt's target; a
 * sample whose interrupt did not land in its loop, or that did not wake the
 * waiting thread exactly once, is invalid.
 *
 * irq.sustained (IRQ-S-SUS). The source fires periodically; the handler
 * only counts. Its target thread (prio_max - 1) just waits. The controller,
 * raised to prio_max so that it can always stop the source, sleeps through
 * each phase, stops the source and reads the port's generated / serviced /
 * lost counts. rtb_irq_search (check_irq.c) chooses the periods: phases of
 * 1,000 interrupts halve the period, then bisect, to find the region; then
 * larger phases confirm the candidate. Every phase run is a row of the
 * "phases" table; the smallest loss-free period at the largest phase size
 * is the result.
 *
 * The one-shot harness behind irq.latency, irq.return and irq.to_thread,
 * and the whole latency/return measurement (shared with rh.irq_latency),
 * are in core/src/irq_oneshot.c; this file adds the wake-up of
 * irq.to_thread, irq.sustained and the "conditions" tables.
 */
#include "rtb/check_irq.h"
#include "rtb/irq_oneshot.h"

static void say_source(const char *id)
{
	const struct rtb_port_info *info = rtb_port_info();

	rtb_emit_log(id, "info", "interrupt source on the %s port: %s", info->port,
		     info->irq_source);
}

/* The rows both "conditions" tables have: the delays, the pause, and the
 * samples tried and lost for want of an interrupt in the loop. */
static void oneshot_condition_rows(struct rtb_json *j, const struct rtb_oneshot_run *run)
{
	rtb_conditions_row(j, "interrupt delay after arming, uniform in", "ns", "%llu..%llu",
			   (unsigned long long)run->o.delay_min_ns,
			   (unsigned long long)run->o.delay_max_ns);
	rtb_conditions_row(j, "pause between samples", "ns", "%llu",
			   (unsigned long long)run->o.gap_ns);
	rtb_conditions_row(j, "samples attempted (with warm-up)", "count", "%llu",
			   (unsigned long long)run->c.attempts);
	rtb_conditions_row(j, "invalid: no interrupt within the window", "count", "%llu",
			   (unsigned long long)run->c.no_irq);
	rtb_conditions_row(j, "invalid: interrupt outside the busy loop", "count", "%llu",
			   (unsigned long long)run->c.outside);
}

/* ---- IRQ-P-LAT and IRQ-P-DLT ---------------------------------------------- */

static void lat_conditions(const struct rtb_irq_latency_report *rep)
{
	struct rtb_json *j =
		rtb_conditions_begin("irq.latency", "How irq.latency and irq.return were measured");

	char a[32], b[32], c[32];

	/* durations as times, never raw counter ticks */
	rtb_fmt_ns(a, sizeof(a), rtb_ticks_to_ns(rep->loop_ticks));
	rtb_fmt_ns(b, sizeof(b), rtb_ticks_to_ns(rep->tolerance_ticks));
	rtb_fmt_ns(c, sizeof(c), rtb_ticks_to_ns(rep->not_running_max_ticks));
	rtb_conditions_row(j, "interrupt source", "", "%s", rtb_port_info()->irq_source);
	rtb_conditions_row(j, "busy loop period (resolution of both metrics)", "", "%s", a);
	rtb_conditions_row(j, "was-running check: last write may precede the due time by up to", "",
			   "%s", b);
	oneshot_condition_rows(j, &rep->run);
	rtb_conditions_row(j,
			   "invalid (latency): busy thread not running when the interrupt was due",
			   "count", "%llu", (unsigned long long)rep->not_running);
	rtb_conditions_row(j, "largest handler entry after the due time among those", "", "%s", c);
	rtb_conditions_row(j, "invalid (return): no new value before the loop ended", "count",
			   "%llu", (unsigned long long)rep->no_return);
	rtb_table_end(j);
}

/* "What (the port's interrupt source): how", so that a reader of a POSIX
 * result sees that the "interrupt" is a timer signal. Titles are not copied:
 * `buf` must outlive the result record. */
static void irq_title(char *buf, const char *what, const char *how)
{
	const char *name = rtb_port_info()->irq_name;

	if (name != NULL && name[0] != '\0')
		rtb_fmt(buf, RTB_LINE_MAX, "%s (%s): %s", what, name, how);
	else
		rtb_fmt(buf, RTB_LINE_MAX, "%s: %s", what, how);
}

static int run_latency(struct rtb_ctx *ctx)
{
	const char *id = "irq.latency";
	char lat_title[RTB_LINE_MAX], ret_title[RTB_LINE_MAX];
	irq_title(lat_title, "Interrupt latency",
		  "interrupted thread's last write to handler entry");
	irq_title(ret_title, "Interrupt return",
		  "handler exit to the interrupted thread's next write");
	struct rtb_metric ml = {.scenario = "irq.latency",
				.label = "IRQ-P-LAT",
				.metric = "latency",
				.title = lat_title,
				.unit = "ticks"};
	struct rtb_metric mr = {.scenario = "irq.return",
				.label = "IRQ-P-DLT",
				.metric = "return",
				.title = ret_title,
				.unit = "ticks"};
	struct rtb_oneshot_opts o;
	struct rtb_irq_latency_report rep;
	struct rtb_recorder rl, rr;
	int rc = rtb_oneshot_options(ctx, id, &o);

	if (rc != RTB_OK)
		return rc;
	say_source(id);
	rc = rtb_recorder_init_pair(&rl, &ml, &rr, &mr, rtb_warmup_for(o.iterations), ctx->raw_max);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "setup failed: %s", rtb_port_strerror(rc));
	rc = rtb_irq_latency_measure(ctx, &o, &rl, &rr, &rep);
	if (rc == RTB_OK) {
		rtb_emit_result(&rl);
		rtb_emit_result(&rr);
		lat_conditions(&rep);
	}
	rtb_recorder_free(&rl);
	rtb_recorder_free(&rr);
	return rc;
}

static const struct rtb_option_spec irq_latency_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("irq.latency.delay_min_ns", 1u, 1000000000u,
		  "shortest delay before an interrupt"),
	RTB_OPT_N("irq.latency.delay_max_ns", 1u, 1000000000u, "longest delay before an interrupt"),
	RTB_OPT_N("irq.latency.gap_ns", 0u, 1000000000u, "pause between samples"),
	RTB_OPT_N("irq.latency.early_ns", 0u, 1000000000u,
		  "how early the waiting side must be ready"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_irq_latency = {
	.name = "irq.latency",
	.ids = {{"irq.latency", "IRQ-P-LAT"}, {"irq.return", "IRQ-P-DLT"}},
	.summary = "Interrupt latency (interrupted thread to handler) and return (handler "
		   "back to the thread)",
	.estimate_ms = {500, 25000, 250000},
	.deadline_ms = {30000, 120000, 900000},
	.caps = RTB_CAP_IRQ,
	.options = irq_latency_options,
	.run = run_latency,
};

/* ---- IRQ-P-TLT ------------------------------------------------------------- */

struct tlt_shared {
	struct rtb_oneshot_sync sync;
	struct rtb_sem *wake;
	int h_rc;			/* handler: what the wake call returned */
	volatile uint64_t t_signal;	/* handler: just before the wake call */
	volatile uint64_t t_run;	/* woken thread: first action */
	volatile uint32_t woken;	/* woken thread: wake-ups */
	volatile uint32_t woken_before; /* controller: woken when the sample began */
};

static void tlt_handler(void *arg)
{
	struct tlt_shared *sh = arg;

	sh->sync.h_spinning = atomic_load_explicit(&sh->sync.spinning, memory_order_relaxed);
	uint64_t t = rtb_port_counter_read();
	/* The woken thread may run before this call returns: it does not
	 * need t_signal, the controller reads it afterwards. */
	sh->h_rc = rtb_port_sem_signal_from_irq(sh->wake);
	sh->t_signal = t;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&sh->sync.handled, 1, memory_order_relaxed);
}

static void tlt_high_main(void *arg)
{
	struct tlt_shared *sh = arg;

	for (;;) {
		int rc = rtb_port_sem_wait(sh->wake);
		uint64_t t = rtb_port_counter_read();
		if (rc != RTB_OK || sh->sync.stop)
			return;
		sh->t_run = t;
		sh->woken++;
	}
}

static void tlt_busy_main(void *arg)
{
	struct tlt_shared *sh = arg;
	struct rtb_oneshot_sync *s = &sh->sync;

	for (;;) {
		if (rtb_port_sem_wait(s->go) != RTB_OK || s->stop)
			return;
		uint64_t end = s->loop_end, max_iters = s->loop_max_iters;
		uint32_t before = sh->woken_before;

		atomic_store_explicit(&s->spinning, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		for (uint64_t n = 0; n < max_iters; n++) {
			if (atomic_load_explicit(&s->handled, memory_order_relaxed) &&
			    sh->woken != before)
				break;
			if (rtb_port_counter_read() >= end)
				break;
		}
		atomic_signal_fence(memory_order_seq_cst);
		atomic_store_explicit(&s->spinning, 0, memory_order_relaxed);
		rtb_port_sem_signal(s->done);
	}
}

static void tlt_conditions(const struct rtb_oneshot_run *run, int high_prio, uint64_t no_wake)
{
	struct rtb_json *j =
		rtb_conditions_begin("irq.to_thread", "How irq.to_thread was measured");

	rtb_conditions_row(j, "interrupt source", "", "%s", rtb_port_info()->irq_source);
	rtb_conditions_row(j, "woken thread priority (highest a scenario may use)", "", "%d",
			   high_prio);
	rtb_conditions_row(j, "interrupted (busy) thread priority", "", "1");
	oneshot_condition_rows(j, run);
	rtb_conditions_row(j, "invalid: the waiting thread did not run exactly once", "count",
			   "%llu", (unsigned long long)no_wake);
	rtb_table_end(j);
}

static int run_to_thread(struct rtb_ctx *ctx)
{
	const char *id = "irq.to_thread";
	const struct rtb_port_info *info = rtb_port_info();
	char title[RTB_LINE_MAX];
	irq_title(title, "Interrupt to thread",
		  "wake call in the handler until the woken highest-priority thread runs");
	struct rtb_metric m = {.scenario = id,
			       .label = "IRQ-P-TLT",
			       .metric = "to_thread",
			       .title = title,
			       .unit = "ticks"};
	struct rtb_oneshot_run run = {.seed = rtb_oneshot_seed()};
	uint64_t no_wake = 0; /* the waiting thread did not run exactly once */
	struct rtb_recorder r;
	struct tlt_shared *sh = NULL;
	struct rtb_thread *busy = NULL, *high = NULL;
	int rc;

	if (info->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	rc = rtb_oneshot_options(ctx, id, &run.o);
	if (rc != RTB_OK)
		return rc;
	uint32_t warm = rtb_warmup_for(run.o.iterations);
	say_source(id);
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rtb_memset(sh, 0, sizeof(*sh));
	run.sync = &sh->sync;
	rc = rtb_recorder_init(&r, &m, warm, ctx->raw_max);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&sh->sync.go, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&sh->sync.done, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&sh->wake, 0);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "setup failed: %s", rtb_port_strerror(rc));
		goto out;
	}
	struct rtb_thread_attr ha = {.name = "irq-woken", .prio = info->prio_max};
	struct rtb_thread_attr ba = {.name = "irq-busy", .prio = 1};
	rc = rtb_port_thread_create(&high, &ha, tlt_high_main, sh);
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&busy, &ba, tlt_busy_main, sh);
	if (rc == RTB_OK)
		rc = rtb_port_irq_create(&run.irq, busy, tlt_handler, sh);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the threads or the interrupt source: %s",
			     rtb_port_strerror(rc));
		goto out;
	}
	run.window_ticks = rtb_ns_to_ticks(run.o.window_ns);

	for (uint64_t i = 0; i < run.o.iterations + warm; i++) {
		if (rtb_ctx_expired_after(ctx, i, run.o.iterations + warm, "samples"))
			break;
		uint32_t woken_before = sh->woken;
		sh->woken_before = woken_before;
		uint64_t due;
		bool in_loop;
		rc = rtb_oneshot_sample(ctx, &run, &due, &in_loop);
		if (rc != RTB_OK)
			break;
		if (!in_loop) {
			rtb_recorder_add_invalid(&r);
		} else if (sh->h_rc != RTB_OK || sh->woken != woken_before + 1) {
			no_wake++;
			rtb_recorder_add_invalid(&r);
		} else {
			rtb_recorder_add_interval(&r, sh->t_signal, sh->t_run);
		}
		if (run.o.gap_ns > 0)
			rtb_port_sleep_ns(run.o.gap_ns);
	}
	if (rc == RTB_OK) {
		rtb_emit_result(&r);
		tlt_conditions(&run, info->prio_max, no_wake);
	}

out:
	rtb_oneshot_teardown(&sh->sync, run.irq, busy);
	if (high != NULL) {
		rtb_port_sem_signal(sh->wake);
		rtb_port_thread_delete(high);
	}
	if (sh->wake != NULL)
		rtb_port_sem_delete(sh->wake);
	rtb_recorder_free(&r);
	rtb_port_mem_free(sh);
	return rc;
}

static const struct rtb_option_spec irq_to_thread_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("irq.to_thread.delay_min_ns", 1u, 1000000000u,
		  "shortest delay before an interrupt"),
	RTB_OPT_N("irq.to_thread.delay_max_ns", 1u, 1000000000u,
		  "longest delay before an interrupt"),
	RTB_OPT_N("irq.to_thread.gap_ns", 0u, 1000000000u, "pause between samples"),
	RTB_OPT_N("irq.to_thread.early_ns", 0u, 1000000000u,
		  "how early the waiting side must be ready"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_irq_to_thread = {
	.name = "irq.to_thread",
	.ids = {{"irq.to_thread", "IRQ-P-TLT"}},
	.summary = "Wake-up from an interrupt handler until the highest-priority thread runs",
	.estimate_ms = {500, 25000, 250000},
	.deadline_ms = {30000, 120000, 900000},
	.caps = RTB_CAP_IRQ | RTB_CAP_REALTIME,
	.options = irq_to_thread_options,
	.run = run_to_thread,
};

/* ---- IRQ-S-SUS ------------------------------------------------------------- */

struct sus_shared {
	struct rtb_sem *quit;
	volatile uint32_t handled; /* handler invocations (the port counts them too) */
	volatile bool stop;
};

static void sus_handler(void *arg)
{
	struct sus_shared *sh = arg;

	sh->handled++;
}

static void sus_target_main(void *arg)
{
	struct sus_shared *sh = arg;

	while (!sh->stop)
		rtb_port_sem_timedwait(sh->quit, 100000000u);
}

struct sus_row {
	uint64_t period_ns;
	uint64_t requested;
	struct rtb_irq_counts counts;
	const char *stage;
};

static const char *profile_phase_note(const struct rtb_ctx *ctx)
{
	return ctx->profile == RTB_PROFILE_QUICK ? " (quick profile: smaller phases)" : "";
}

static void sus_tables(const struct rtb_ctx *ctx, const struct rtb_irq_search *s,
		       const struct sus_row *rows, uint32_t nrows, int target_prio)
{
	static const struct rtb_column cols[] = {
		{"period", "ns"},      {"phase", "count"}, {"generated", "count"},
		{"serviced", "count"}, {"lost", "count"},  {"stage", ""},
	};
	char title[RTB_LINE_MAX];

	rtb_fmt(title, sizeof(title), "Periodic interrupt phases, shorter and shorter periods%s",
		profile_phase_note(ctx));
	struct rtb_json *j = rtb_table_begin("irq.sustained", "phases", title, cols, 6);
	for (uint32_t i = 0; i < nrows; i++) {
		rtb_json_arr_begin(j);
		rtb_json_u64(j, rows[i].period_ns);
		rtb_json_u64(j, rows[i].requested);
		rtb_json_u64(j, rows[i].counts.generated);
		rtb_json_u64(j, rows[i].counts.serviced);
		rtb_json_u64(j, rows[i].counts.lost);
		rtb_json_str(j, rows[i].stage);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);

	j = rtb_conditions_begin("irq.sustained", "How irq.sustained was measured");
	rtb_conditions_row(j, "interrupt source", "", "%s", rtb_port_info()->irq_source);
	rtb_conditions_row(j, "handler", "", "counts the interrupt, nothing else");
	rtb_conditions_row(
		j, "interrupted thread", "",
		"waits on a semaphore at priority %d; the controller that stops the source "
		"runs at %d",
		target_prio, target_prio + 1);
	for (uint32_t k = 0; k < s->cfg.nlevels; k++)
		rtb_conditions_row(j, k == 0 ? "phase size, search" : "phase size, confirmation",
				   "count", "%llu", (unsigned long long)s->cfg.counts[k]);
	rtb_conditions_row(j, "periods tried between", "ns", "%llu..%llu",
			   (unsigned long long)s->cfg.min_period_ns,
			   (unsigned long long)s->cfg.max_period_ns);
	rtb_conditions_row(j, "search resolution", "", "1/%" RTB_PRIu32 " of the period",
			   s->cfg.resolution_div);
	rtb_table_end(j);
}

static void sus_result(const struct rtb_ctx *ctx, const struct rtb_irq_search *s)
{
	const char *id = "irq.sustained";
	char title[RTB_LINE_MAX];
	struct rtb_irq_headline h;
	char at[96] = "";

	rtb_irq_search_headline(s, &h);
	if (h.phase_count == 0) {
		rtb_emit_log(id, "warning", "no phase ran: no result");
		return;
	}
	if (s->aborted)
		rtb_emit_log(id, "warning",
			     "the search was cut short (time budget or stop request); a longer "
			     "run may find a smaller period");
	if (!h.found) {
		if (h.smaller_found)
			rtb_fmt(at, sizeof(at),
				"; phases of %llu interrupts were loss-free at %llu ns",
				(unsigned long long)h.smaller_count,
				(unsigned long long)h.smaller_period_ns);
		rtb_emit_log(id, "warning",
			     "smallest loss-free period: not found at %llu interrupts%s; every "
			     "phase of that size lost interrupts, up to %llu ns%s%s",
			     (unsigned long long)h.phase_count, profile_phase_note(ctx),
			     (unsigned long long)h.lossy_up_to_ns, at,
			     s->aborted ? " (the search was cut short)" : "");
		return;
	}
	uint64_t hz = 1000000000u / h.period_ns;
	rtb_emit_log(id, "info",
		     "smallest loss-free period: %llu ns (%llu interrupts/s), no interrupt lost "
		     "in a phase of %llu%s%s",
		     (unsigned long long)h.period_ns, (unsigned long long)hz,
		     (unsigned long long)h.phase_count, profile_phase_note(ctx),
		     h.at_floor ? "; that is the smallest period tried, the limit is lower" : "");

	/* the phase size goes with the figure everywhere it is shown */
	rtb_fmt(title, sizeof(title),
		"Smallest loss-free interrupt period (phases of %llu interrupts)",
		(unsigned long long)h.phase_count);
	struct rtb_metric m = {.scenario = id,
			       .label = "IRQ-S-SUS",
			       .metric = "min_period",
			       .title = title,
			       .unit = "ns"};
	struct rtb_recorder r;
	rtb_metric_param(&m, "phase", (int64_t)h.phase_count);
	rtb_metric_param_str(&m, "bound", h.at_floor ? "below_range" : "found");
	if (rtb_recorder_init(&r, &m, 0, ctx->raw_max) != RTB_OK) {
		rtb_emit_log(id, "error", "no memory for the result record");
		return;
	}
	rtb_recorder_add(&r, h.period_ns);
	rtb_emit_result(&r);
	rtb_recorder_free(&r);
}

/* After each phase, so that a run that is killed still shows what it did;
 * the fraction is of the time budget, an upper bound on the run. */
static void sus_progress(const struct rtb_ctx *ctx, const struct sus_row *row, uint32_t n)
{
	char msg[RTB_LINE_MAX];
	uint64_t used = rtb_port_counter_read() - ctx->start_ticks;
	uint64_t budget = ctx->budget_end_ticks - ctx->start_ticks;

	rtb_fmt(msg, sizeof(msg),
		"phase %" RTB_PRIu32
		" (%s): %llu interrupts at %llu ns: generated %llu, serviced %llu, "
		"lost %llu",
		n, row->stage, (unsigned long long)row->requested,
		(unsigned long long)row->period_ns, (unsigned long long)row->counts.generated,
		(unsigned long long)row->counts.serviced, (unsigned long long)row->counts.lost);
	rtb_emit_progress("irq.sustained", budget > 0 ? (double)used / (double)budget : 0.0, msg);
}

/* Run one phase; false if it was cut short (time budget, stop request). */
static bool sus_phase(struct rtb_ctx *ctx, struct rtb_irq *irq, struct sus_row *row, int *rc)
{
	uint64_t start = rtb_port_time_ns();
	uint64_t end = start + row->period_ns * row->requested + row->period_ns / 2;
	bool complete = true;

	*rc = rtb_port_irq_start_periodic(irq, row->period_ns);
	if (*rc != RTB_OK)
		return false;
	for (uint64_t now = start; now < end; now = rtb_port_time_ns()) {
		if (rtb_ctx_expired(ctx)) {
			complete = false;
			break;
		}
		rtb_port_sleep_until_ns(RTB_MIN(end, now + 100000000u));
	}
	*rc = rtb_port_irq_stop(irq, &row->counts);
	return complete && *rc == RTB_OK;
}

static int run_sustained(struct rtb_ctx *ctx)
{
	const char *id = "irq.sustained";
	const struct rtb_port_info *info = rtb_port_info();
	struct rtb_irq_search_config cfg = {
		.start_period_ns =
			rtb_ctx_count(ctx, "irq.sustained.start_period_ns", 100000, 100000, 100000),
		.min_period_ns =
			rtb_ctx_count(ctx, "irq.sustained.min_period_ns", 1000, 1000, 1000),
		.max_period_ns = rtb_ctx_count(ctx, "irq.sustained.max_period_ns", 5000000, 5000000,
					       5000000),
		.resolution_div = 16,
		.max_backoffs = (uint32_t)rtb_ctx_count(ctx, "irq.sustained.backoffs", 3, 6, 3),
	};
	uint64_t sizes[3] = {
		rtb_ctx_count(ctx, "irq.sustained.search_phase", 1000, 1000, 1000),
		rtb_ctx_count(ctx, "irq.sustained.confirm_phase", 10000, 1000000, 1000000),
		rtb_ctx_count(ctx, "irq.sustained.long_phase", 0, 0, 100000000),
	};
	struct rtb_irq_search s;
	struct sus_row *rows = NULL;
	uint32_t nrows = 0;
	struct sus_shared *sh = NULL;
	struct rtb_thread *target = NULL;
	struct rtb_irq *irq = NULL;
	bool raised = false;
	int rc = RTB_OK;

	for (uint32_t k = 0; k < 3; k++) {
		if (sizes[k] > 0)
			cfg.counts[cfg.nlevels++] = sizes[k];
	}
	if (cfg.nlevels == 0 || sizes[0] == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "irq.sustained.search_phase must be > 0");
	if (cfg.max_period_ns > 1000000000u || cfg.min_period_ns == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "irq.sustained periods must be within 1 ns .. 1 s");
	if (info->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	rtb_irq_search_init(&s, &cfg);
	say_source(id);
	rtb_emit_log(id, "info",
		     "the handler only counts, so the limit found is the OS's own interrupt "
		     "path on this port%s",
		     rtb_strcmp(info->port, "posix") == 0
			     ? ": POSIX timer expiry, signal delivery to the thread, signal "
			       "handler and return (signal delivery throughput)"
			     : "");
	if (ctx->profile == RTB_PROFILE_QUICK)
		rtb_emit_log(id, "info",
			     "quick profile: phases of %llu and %llu interrupts instead of 1,000 "
			     "and 1,000,000",
			     (unsigned long long)sizes[0], (unsigned long long)sizes[1]);

	rows = rtb_port_mem_alloc(sizeof(*rows) * (RTB_IRQ_SEARCH_STEPS_MAX + 1));
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (rows == NULL || sh == NULL) {
		rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
		goto out;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	rc = rtb_port_sem_create(&sh->quit, 0);
	/* Created while it outranks the controller, the target has started
	 * (and is known to the OS) before the source is bound to it. */
	struct rtb_thread_attr ta = {.name = "irq-target", .prio = info->prio_max - 1};
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&target, &ta, sus_target_main, sh);
	if (rc == RTB_OK)
		rc = rtb_port_irq_create(&irq, target, sus_handler, sh);
	if (rc == RTB_OK) {
		/* The controller outranks the target so it can always stop the
		 * source, however busy the target is with interrupts. */
		rc = rtb_port_thread_set_priority(NULL, info->prio_max);
		raised = rc == RTB_OK;
	}
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "setup failed: %s", rtb_port_strerror(rc));
		goto out;
	}

	uint64_t period, count;
	while (rtb_irq_search_next(&s, &period, &count) && nrows <= RTB_IRQ_SEARCH_STEPS_MAX) {
		uint64_t left_ns = rtb_ticks_to_ns(ctx->budget_end_ticks - rtb_port_counter_read());
		if (rtb_ctx_expired(ctx) || period * count > left_ns) {
			rtb_emit_log(id, "warning",
				     "%s before a phase of %llu interrupts at %llu ns: search "
				     "ended there",
				     rtb_port_stop_requested() ? "stop requested"
							       : "not enough time left",
				     (unsigned long long)count, (unsigned long long)period);
			rtb_irq_search_abort(&s);
			break;
		}
		struct sus_row *row = &rows[nrows++];
		row->period_ns = period;
		row->requested = count;
		row->stage = nrows == 1 ? "start" : rtb_irq_stage_name(s.stage);
		bool complete = sus_phase(ctx, irq, row, &rc);
		if (rc != RTB_OK) {
			rtb_ctx_fail(ctx, rc, "the periodic interrupt failed at %llu ns: %s",
				     (unsigned long long)period, rtb_port_strerror(rc));
			break;
		}
		if (!complete) {
			rtb_emit_log(id, "warning",
				     "%s during a phase at %llu ns; that row is incomplete",
				     rtb_ctx_expired_cause(ctx), (unsigned long long)period);
			rtb_irq_search_abort(&s);
			break;
		}
		rtb_irq_search_record(&s, row->counts.generated, row->counts.lost);
		sus_progress(ctx, row, nrows);
	}
	if (rc == RTB_OK) {
		sus_tables(ctx, &s, rows, nrows, info->prio_max - 1);
		sus_result(ctx, &s);
	}

out:
	if (irq != NULL) {
		rtb_port_irq_stop(irq, NULL);
		rtb_port_irq_delete(irq);
	}
	/* Back below the target, so that it runs and ends on its own when
	 * told to, rather than being deleted while it waits. */
	if (raised)
		rtb_port_thread_set_priority(NULL, 0);
	if (target != NULL) {
		sh->stop = true;
		rtb_port_sem_signal(sh->quit);
		rtb_port_thread_delete(target);
	}
	if (sh != NULL && sh->quit != NULL)
		rtb_port_sem_delete(sh->quit);
	rtb_port_mem_free(sh);
	rtb_port_mem_free(rows);
	return rc;
}

static const struct rtb_option_spec irq_sustained_options[] = {
	RTB_OPT_N("irq.sustained.start_period_ns", 1u, 1000000000u, "first period tried"),
	RTB_OPT_N("irq.sustained.min_period_ns", 1u, 1000000000u, "never below this period"),
	RTB_OPT_N("irq.sustained.max_period_ns", 1u, 1000000000u, "never above this period"),
	RTB_OPT_N("irq.sustained.backoffs", 0u, 1000u, "back-offs per confirmation level"),
	RTB_OPT_N("irq.sustained.search_phase", 1u, 10000000000ull, "interrupts per search phase"),
	RTB_OPT_LEN("irq.sustained.confirm_phase", 0u, 10000000000ull,
		    "interrupts per confirmation phase (0: none)"),
	RTB_OPT_LEN("irq.sustained.long_phase", 0u, 10000000000ull,
		    "interrupts per long phase (0: none)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_irq_sustained = {
	.name = "irq.sustained",
	.ids = {{"irq.sustained", "IRQ-S-SUS"}},
	.summary = "Maximum sustained interrupt frequency: smallest period without lost "
		   "interrupts",
	.estimate_ms = {5000, 300000, 3600000},
	.deadline_ms = {60000, 900000, 14400000},
	.caps = RTB_CAP_IRQ | RTB_CAP_IRQ_PERIODIC | RTB_CAP_REALTIME,
	.options = irq_sustained_options,
	.run = run_sustained,
};
