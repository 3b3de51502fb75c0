/* SPDX-License-Identifier: Apache-2.0 */
/*
 * THR: round-robin time slices (THR-B-RR).
 *
 * thr.rr.behavior (THR-B-RR). The controller, raised to relative 2, creates
 * N (default 3) threads at relative 1 under the round-robin policy, sets a
 * common end time and drops to relative 0, blocked until they end. Each
 * thread runs a busy loop that reads the counter until the end time and
 * records the stretches during which it ran: a jump of more than 20 us
 * between two reads means it lost the CPU. The stretches of all threads,
 * merged by time, give the time slices: consecutive stretches of one thread
 * with no other observed thread in between (the gaps inside a slice are
 * other activity: interrupts, other processes, throttling; a slice's length
 * is the time the thread really ran). The run lasts (N x rotations + 1) OS
 * time slices (rotations: 2 quick, 5 standard, 20 endurance), where the OS
 * time slice is what sched_rr_get_interval-like queries report
 * (rtb_port_property "rr_interval_ns", asked from a round-robin thread, or
 * "rr_timeslice_ms"; 100 ms assumed when it says nothing). Verdict
 * (rtb_check_thr_rr): fail if the slices do not follow one cyclic order, if
 * a thread never got a slice while another kept the CPU for more than twice
 * the expected slice, or if complete slices differ by more than 2x (beyond
 * one OS tick, when the tick is known). Negative control: the same threads
 * under FIFO for three slices and two OS ticks, where the first one keeps
 * the CPU until the end time and the others starve; judged against the
 * slices just measured, it must fail. On a port whose FIFO threads are
 * time-sliced too (lacks.policy_fifo) the first thread is a priority above
 * the others instead, the same unfair schedule. Option
 * thr.rr.behavior.policy=fifo runs the platform-under-test threads that way
 * too. The scenario ends with a 1 s sleep, so that an OS that throttles
 * real-time threads per second has refilled the budget the busy threads
 */
#include "thr.h"

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
	rtb_fmt(buf, len, "%llu.%03llu ms", (unsigned long long)(ns / 1000000u),
		(unsigned long long)(ns / 1000u % 1000u));
}

/* ---- THR-B-RR --------------------------------------------------------------- */

#define RR_PRIO 1
#define RR_SETUP_PRIO 2
#define RR_SEGS_MAX 16384u
#define RR_SLICES_MAX 4096u
#define RR_GAP_NS 20000u
#define RR_DEFAULT_SLICE_NS 100000000u
#define RR_TABLE_ROWS 200u
#define RR_COOLDOWN_NS 1000000000u

struct rr_run;

struct rr_thread {
	struct rr_run *run;
	struct rtb_thread *thread;
	uint32_t index;
	struct rtb_thr_rr_segment *segs;
	volatile uint32_t nsegs;
	volatile bool overflow; /* segments lost: the array was full */
};

struct rr_run {
	uint64_t gap_ticks;
	volatile uint64_t end_ticks;
	uint64_t release_ticks;
	uint32_t n;
	struct rtb_sem *done;
	struct rr_thread threads[RTB_THR_RR_THREADS_MAX];
};

static void rr_push(struct rr_thread *t, uint64_t start, uint64_t end)
{
	if (t->nsegs < RR_SEGS_MAX) {
		t->segs[t->nsegs] = (struct rtb_thr_rr_segment){t->index, start, end};
		t->nsegs++;
	} else {
		t->overflow = true;
	}
}

static void rr_main(void *arg)
{
	struct rr_thread *t = arg;
	struct rr_run *run = t->run;
	uint64_t gap = run->gap_ticks, end = run->end_ticks;
	uint64_t start = rtb_port_counter_read(), last = start;

	for (;;) {
		uint64_t now = rtb_port_counter_read();
		if (now - last > gap) {
			rr_push(t, start, last);
			start = now;
		}
		last = now;
		if ((int64_t)(now - end) >= 0 || rtb_port_stop_requested())
			break;
	}
	rr_push(t, start, last);
	rtb_port_sem_signal(run->done);
}

static void rr_probe_main(void *arg)
{
	char *buf = arg;

	if (rtb_port_property("rr_interval_ns", buf, 32) != RTB_OK)
		buf[0] = '\0';
}

/* The OS's own statement of the round-robin time slice, in ns (0 if it
 * says nothing). rr_interval_ns is asked from a round-robin thread: some
 * OSes answer it per thread and give 0 for FIFO threads. */
uint64_t thr_rr_os_slice(char *interval, char *timeslice)
{
	struct rtb_thread *t;
	struct rtb_thread_attr a = {
		.name = "thr-rr-probe", .prio = RR_PRIO, .policy = RTB_POLICY_RR};
	uint64_t v;

	interval[0] = timeslice[0] = '\0';
	if (rtb_port_thread_create(&t, &a, rr_probe_main, interval) == RTB_OK)
		rtb_port_thread_delete(t);
	else
		interval[0] = '\0';
	if (rtb_port_property("rr_timeslice_ms", timeslice, 32) != RTB_OK)
		timeslice[0] = '\0';
	if (rtb_parse_u64(interval, &v) && v > 0)
		return v;
	if (rtb_parse_u64(timeslice, &v) && v > 0)
		return v * 1000000u;
	return 0;
}

static uint64_t tick_ticks(void)
{
	char buf[32];
	uint64_t hz;

	if (rtb_port_property("tick_hz_config", buf, sizeof(buf)) != RTB_OK ||
	    !rtb_parse_u64(buf, &hz) || hz == 0)
		return 0;
	return rtb_ns_to_ticks(1000000000u / hz);
}

/* first_above: thread 0 one priority above the others (and the controller
 * one above it while it sets up), so that it keeps the CPU and the others
 * starve whatever the OS does among equal priorities: the unfair schedule
 * of FIFO on a port whose FIFO threads are time-sliced too. */
static int rr_observe(struct rtb_ctx *ctx, struct rr_run *run, enum rtb_policy policy,
		      bool first_above, uint64_t duration_ns)
{
	uint32_t created = 0;
	int rc;

	for (uint32_t i = 0; i < run->n; i++) {
		run->threads[i].nsegs = 0;
		run->threads[i].overflow = false;
	}
	rc = rtb_port_thread_set_priority(NULL, RR_SETUP_PRIO + (first_above ? 1 : 0));
	for (uint32_t i = 0; i < run->n && rc == RTB_OK; i++) {
		struct rtb_thread_attr a = {.name = "thr-rr",
					    .prio = RR_PRIO + (first_above && i == 0 ? 1 : 0),
					    .policy = policy};
		rc = rtb_port_thread_create(&run->threads[i].thread, &a, rr_main, &run->threads[i]);
		if (rc == RTB_OK)
			created++;
	}
	/* after a failed creation the threads that exist end at once */
	run->release_ticks = rtb_port_counter_read();
	run->end_ticks = run->release_ticks + (rc == RTB_OK ? rtb_ns_to_ticks(duration_ns) : 0);
	/* below the busy threads from here: they run, we wait */
	rtb_port_thread_set_priority(NULL, 0);
	uint32_t ended = 0;
	while (ended < created &&
	       rtb_port_sem_timedwait(run->done, duration_ns + 5000000000u) == RTB_OK)
		ended++;
	for (uint32_t i = 0; i < created; i++)
		rtb_port_thread_delete(run->threads[i].thread);
	if (rc != RTB_OK)
		return rtb_ctx_fail(
			ctx, rc, "could create only %" RTB_PRIu32 " of %" RTB_PRIu32 " threads: %s",
			created, run->n, rtb_port_strerror(rc));
	if (ended < created)
		return rtb_ctx_fail(ctx, RTB_E_TIMEOUT, "the busy threads did not end in time");
	return RTB_OK;
}

static uint32_t rr_merge(const struct rr_run *run, struct rtb_thr_rr_segment *out)
{
	const struct rtb_thr_rr_segment *lists[RTB_THR_RR_THREADS_MAX];
	uint32_t counts[RTB_THR_RR_THREADS_MAX];

	for (uint32_t i = 0; i < run->n; i++) {
		lists[i] = run->threads[i].segs;
		counts[i] = run->threads[i].nsegs;
	}
	return rtb_thr_rr_merge(lists, counts, run->n, out, run->n * RR_SEGS_MAX);
}

static bool rr_overflowed(const struct rr_run *run)
{
	for (uint32_t i = 0; i < run->n; i++) {
		if (run->threads[i].overflow)
			return true;
	}
	return false;
}

/* "0 1 2 0 1 2 ..." for the first slices. */
static void rr_order_text(char *buf, size_t len, const struct rtb_thr_rr_slice *s, uint32_t n)
{
	size_t used = rtb_fmt(buf, len, "turn order:");
	uint32_t i = 0;

	for (; i < n && used + 8 < len; i++)
		used += rtb_fmt(buf + used, len - used, " %" RTB_PRIu32 "", s[i].thread);
	if (i < n)
		rtb_fmt(buf + used, len - used, " ...");
}

static void rr_per_thread_text(char *buf, size_t len, const struct rtb_thr_rr_summary *sum,
			       uint32_t n)
{
	size_t used = rtb_fmt(buf, len, "slices per thread:");

	for (uint32_t i = 0; i < n; i++)
		used += rtb_fmt(buf + used, len - used, " %" RTB_PRIu32 "", sum->per_thread[i]);
}

/* Time inside slices during which the slice's thread did not run. */
static uint64_t rr_gap_ticks(const struct rtb_thr_rr_slice *s, uint32_t n)
{
	uint64_t g = 0;

	for (uint32_t i = 0; i < n; i++)
		g += (s[i].end - s[i].start) - s[i].run_ticks;
	return g;
}

static void rr_summary_lines(struct rtb_verdict *v, bool control,
			     const struct rtb_thr_rr_slice *slices,
			     const struct rtb_thr_rr_summary *sum, uint32_t n)
{
	void (*line)(struct rtb_verdict *, const char *, ...) =
		control ? rtb_verdict_control_evidence : rtb_verdict_evidence;
	char a[32], b[32], c[32], text[RTB_LINE_MAX];

	rr_per_thread_text(text, sizeof(text), sum, n);
	line(v, "%s; every thread got its turn: %s", text, sum->every_thread_ran ? "yes" : "no");
	rr_order_text(text, sizeof(text), slices, sum->nslices);
	line(v, "%s", text);
	if (sum->complete > 0) {
		fmt_ms(a, sizeof(a), rtb_ticks_to_ns(sum->median_ticks));
		fmt_ms(b, sizeof(b), rtb_ticks_to_ns(sum->min_ticks));
		fmt_ms(c, sizeof(c), rtb_ticks_to_ns(sum->max_ticks));
		line(v,
		     "measured slice (time really run): median %s of %u complete slices, min %s, "
		     "max %s",
		     a, sum->complete, b, c);
		fmt_ms(b, sizeof(b), rtb_ticks_to_ns(sum->min_span_ticks));
		fmt_ms(c, sizeof(c), rtb_ticks_to_ns(sum->max_span_ticks));
		line(v,
		     "the same slices on the clock (other activity inside included): min %s, max "
		     "%s",
		     b, c);
	} else {
		line(v, "no complete slice (none ended by a switch to another observed thread)");
	}
}

static int run_rr_behavior(struct rtb_ctx *ctx)
{
	const char *id = "thr.rr.behavior";
	static const char *const policies[] = {"rr", "fifo"};
	int policy = rtb_ctx_choice(ctx, "thr.rr.behavior.policy", policies, 2);
	enum rtb_policy platform = policy == 1 ? RTB_POLICY_FIFO : RTB_POLICY_RR;
	uint64_t n = rtb_ctx_count(ctx, "threads", 3, 3, 3);
	uint64_t rotations = rtb_ctx_count(ctx, "thr.rr.behavior.rotations", 2, 5, 20);
	char interval[32], timeslice[32], no_fifo[RTB_LINE_MAX];
	/* the port's FIFO threads share the CPU among equal priorities: the
	 * unfair schedules come from a priority above instead */
	const char *fifo_lack = rtb_port_lacks("policy_fifo", no_fifo, sizeof(no_fifo));
	struct rr_run *run = NULL;
	struct rtb_thr_rr_segment *merged = NULL;
	struct rtb_thr_rr_slice *slices = NULL;
	int rc = RTB_OK;

	if (policy < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "thr.rr.behavior.policy must be rr or fifo");
	if (n < 2 || n > RTB_THR_RR_THREADS_MAX)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "threads must be 2..%d",
				    RTB_THR_RR_THREADS_MAX);
	if (rotations < 1 || rotations > 1000)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "rotations must be 1..1000");
	if (rtb_port_info()->prio_max < RR_SETUP_PRIO + (fifo_lack != NULL ? 1 : 0))
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least %d priority levels",
				    RR_SETUP_PRIO + (fifo_lack != NULL ? 2 : 1));

	uint64_t os_slice_ns = thr_rr_os_slice(interval, timeslice);
	uint64_t plan_slice_ns = os_slice_ns != 0 ? os_slice_ns : RR_DEFAULT_SLICE_NS;
	uint64_t duration_ns =
		rtb_ctx_count(ctx, "thr.rr.behavior.duration_ms", 0, 0, 0) * 1000000u;
	if (duration_ns == 0)
		duration_ns = plan_slice_ns * (n * rotations + 1);
	/* three slices and two OS ticks: the check explains a difference of up
	 * to one tick, a whole slice on an OS that slices at the tick, and the
	 * other tick is room for time the threads are off the CPU */
	uint64_t tick = tick_ticks();
	uint64_t control_ns = plan_slice_ns * 3 + (tick != 0 ? 2 * rtb_ticks_to_ns(tick) : 0);
	/* both runs must fit the time budget with room to spare */
	uint64_t now = rtb_port_counter_read();
	uint64_t budget_ns = (int64_t)(ctx->budget_end_ticks - now) > 0
				     ? rtb_ticks_to_ns(ctx->budget_end_ticks - now)
				     : 0;
	if (duration_ns + control_ns > budget_ns / 2) {
		uint64_t scale_ns = budget_ns / 2;
		control_ns = RTB_MIN(control_ns, scale_ns / 4);
		duration_ns = scale_ns - control_ns;
		rtb_emit_log(id, "warning",
			     "run shortened to %llu ms to fit the deadline; later slices may not "
			     "be seen",
			     (unsigned long long)(duration_ns / 1000000u));
	}

	run = rtb_port_mem_alloc(sizeof(*run));
	if (run == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the observation");
	rtb_memset(run, 0, sizeof(*run));
	run->n = (uint32_t)n;
	run->gap_ticks = rtb_ns_to_ticks(RR_GAP_NS);
	for (uint32_t i = 0; i < run->n && rc == RTB_OK; i++) {
		run->threads[i].run = run;
		run->threads[i].index = i;
		run->threads[i].segs =
			rtb_port_mem_alloc(sizeof(struct rtb_thr_rr_segment) * RR_SEGS_MAX);
		if (run->threads[i].segs == NULL)
			rc = RTB_E_NOMEM;
		else
			rtb_memset(run->threads[i].segs, 0,
				   sizeof(struct rtb_thr_rr_segment) * RR_SEGS_MAX);
	}
	if (rc == RTB_OK) {
		merged = rtb_port_mem_alloc(sizeof(*merged) * RR_SEGS_MAX * run->n);
		slices = rtb_port_mem_alloc(sizeof(*slices) * RR_SLICES_MAX);
		if (merged == NULL || slices == NULL)
			rc = RTB_E_NOMEM;
	}
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&run->done, 0);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "no memory for the observation");
		goto out;
	}

	struct rtb_thr_rr_params params = {.nthreads = run->n,
					   .explained_ticks = tick,
					   .expected_ticks = rtb_ns_to_ticks(os_slice_ns)};
	struct rtb_thr_rr_summary sum, csum;
	struct rtb_verdict v;
	char a[32], b[32], reason[RTB_LINE_MAX];

	/* the platform under test */
	rc = rr_observe(ctx, run, platform, platform == RTB_POLICY_FIFO && fifo_lack != NULL,
			duration_ns);
	if (rc != RTB_OK)
		goto out;
	bool overflow = rr_overflowed(run);
	uint32_t nsegs = rr_merge(run, merged);
	params.end_ticks = run->end_ticks;
	uint64_t release = run->release_ticks;
	rtb_verdict_init(&v, id, "THR-B-RR", "fairness");
	v.outcome = rtb_check_thr_rr(merged, nsegs, &params, slices, RR_SLICES_MAX, &sum, v.reason,
				     sizeof(v.reason));
	if (overflow && v.outcome == RTB_PASS) {
		v.outcome = RTB_INCONCLUSIVE;
		rtb_verdict_reason(&v,
				   "too many interruptions to record every stretch of "
				   "running (more than %u per thread)",
				   RR_SEGS_MAX);
	}
	fmt_ms(a, sizeof(a), duration_ns);
	rtb_verdict_evidence(
		&v,
		"%" RTB_PRIu32 " threads at relative priority %d under %s, each busy until a "
		"common end time %s after release",
		run->n, RR_PRIO, platform == RTB_POLICY_RR ? "round robin" : "FIFO", a);
	if (platform == RTB_POLICY_FIFO && fifo_lack != NULL)
		rtb_verdict_evidence(&v, "first thread a priority above the others: %s", fifo_lack);
	if (os_slice_ns != 0) {
		fmt_ms(b, sizeof(b), os_slice_ns);
		rtb_verdict_evidence(&v,
				     "OS time slice: %s (rr_interval_ns %s, rr_timeslice_ms %s)", b,
				     interval[0] ? interval : "not reported",
				     timeslice[0] ? timeslice : "not reported");
	} else {
		rtb_verdict_evidence(&v, "the OS does not report its time slice; the run length "
					 "assumes 100 ms");
	}
	rr_summary_lines(&v, false, slices, &sum, run->n);
	if (sum.first_complete > 0 && sum.later_complete > 0) {
		fmt_ms(a, sizeof(a), rtb_ticks_to_ns(sum.first_median_ticks));
		fmt_ms(b, sizeof(b), rtb_ticks_to_ns(sum.later_median_ticks));
		rtb_verdict_evidence(&v,
				     "first slice after creation: median %s (%" RTB_PRIu32
				     " slices); later "
				     "slices: median %s (%" RTB_PRIu32 " slices)",
				     a, sum.first_complete, b, sum.later_complete);
	}
	if (os_slice_ns != 0 && sum.complete > 0) {
		uint64_t measured_ns = rtb_ticks_to_ns(sum.median_ticks);
		uint64_t pct = measured_ns * 100u / os_slice_ns;
		rtb_verdict_evidence(&v, "measured median slice is %llu%% of the OS's stated slice",
				     (unsigned long long)pct);
	}
	fmt_ms(a, sizeof(a), rtb_ticks_to_ns(rr_gap_ticks(slices, sum.nslices)));
	rtb_verdict_evidence(
		&v,
		"inside slices the thread was off the CPU for %s in total (interrupts, "
		"other processes, throttling): not counted as slice time",
		a);
	if (params.explained_ticks != 0) {
		fmt_ms(a, sizeof(a), rtb_ticks_to_ns(params.explained_ticks));
		rtb_verdict_evidence(&v, "differences up to one OS tick (%s) are explained", a);
	}
	if (sum.truncated > 0 || overflow)
		rtb_verdict_evidence(&v,
				     "%" RTB_PRIu32 " slices beyond the first %u not analysed%s",
				     sum.truncated, RR_SLICES_MAX,
				     overflow ? "; some stretches were not recorded" : "");

	static const struct rtb_column cols[] = {{"slice", "count"}, {"thread", "count"},
						 {"start", "ticks"}, {"run", "ticks"},
						 {"span", "ticks"},  {"kind", ""}};
	struct rtb_json *j = rtb_table_begin(id, "slices",
					     "Observed time slices (start since release; run = "
					     "time the thread really ran; span = wall time)",
					     cols, RTB_ARRAY_SIZE(cols));
	for (uint32_t i = 0; i < sum.nslices && i < RR_TABLE_ROWS; i++) {
		const struct rtb_thr_rr_slice *s = &slices[i];
		rtb_json_arr_begin(j);
		rtb_json_u64(j, i);
		rtb_json_u64(j, s->thread);
		rtb_json_u64(j, s->start - release);
		rtb_json_u64(j, s->run_ticks);
		rtb_json_u64(j, s->end - s->start);
		rtb_json_str(j, !s->complete ? "cut by the end of the run"
				: s->first   ? "first"
					     : "later");
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);

	/* negative control: the same threads under FIFO, judged against the
	 * slices this platform just gave (or the OS's statement) */
	rc = rr_observe(ctx, run, RTB_POLICY_FIFO, fifo_lack != NULL, control_ns);
	if (rc == RTB_OK) {
		nsegs = rr_merge(run, merged);
		params.end_ticks = run->end_ticks;
		if (sum.complete > 0)
			params.expected_ticks = sum.median_ticks;
		enum rtb_outcome co =
			rtb_check_thr_rr(merged, nsegs, &params, slices, RR_SLICES_MAX, &csum,
					 reason, sizeof(reason));
		rr_summary_lines(&v, true, slices, &csum, run->n);
		rtb_verdict_control_evidence(&v, "outcome %s: %s", rtb_outcome_name(co), reason);
		fmt_ms(a, sizeof(a), control_ns);
		if (fifo_lack != NULL)
			rtb_verdict_conclude(
				&v, co,
				"the same %" RTB_PRIu32
				" threads for %s, the first a priority above the others "
				"(FIFO threads share the CPU here), where it keeps the CPU "
				"and the others starve",
				run->n, a);
		else
			rtb_verdict_conclude(
				&v, co,
				"the same %" RTB_PRIu32
				" threads under FIFO for %s, where the first one keeps the "
				"CPU and the others starve",
				run->n, a);
	} else {
		rtb_verdict_conclude(&v, RTB_INCONCLUSIVE, "FIFO threads could not be run: %s",
				     ctx->reason);
		ctx->reason[0] = '\0';
		rc = RTB_OK;
	}
	/* the busy threads used up this second's real-time budget where the OS
	 * throttles real-time threads (Linux: 95 % per second by default); let
	 * it refill so the next scenario does not start with a stall */
	if (!rtb_port_stop_requested())
		rtb_port_sleep_ns(RR_COOLDOWN_NS);

out:
	if (run->done != NULL)
		rtb_port_sem_delete(run->done);
	for (uint32_t i = 0; i < run->n; i++)
		rtb_port_mem_free(run->threads[i].segs);
	rtb_port_mem_free(run);
	rtb_port_mem_free(merged);
	rtb_port_mem_free(slices);
	return rc;
}

static const struct rtb_option_spec thr_rr_behavior_options[] = {
	RTB_OPT_WORD("thr.rr.behavior.policy", "rr|fifo",
		     "policy of the busy threads (fifo: a platform without round-robin)"),
	RTB_OPT_N("threads", 3u, 64u, "busy threads"),
	RTB_OPT_N("thr.rr.behavior.rotations", 1u, 1000000u, "rotations to observe"),
	RTB_OPT_N("thr.rr.behavior.duration_ms", 0u, 864000000u,
		  "how long to observe (0: until the rotations are done)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_thr_rr_behavior = {
	.name = "thr.rr.behavior",
	.ids = {{"thr.rr.behavior", "THR-B-RR"}},
	.summary = "Round-robin fairness and time-slice length among busy equal-priority threads",
	.estimate_ms = {2000, 3000, 8000},
	.deadline_ms = {30000, 60000, 300000},
	.caps = RTB_CAP_REALTIME | RTB_CAP_POLICY_RR,
	.options = thr_rr_behavior_options,
	.run = run_rr_behavior,
};
