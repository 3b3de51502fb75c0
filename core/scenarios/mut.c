/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MUT: mutexes with priority inheritance.
 *
 * mut.behavior.pi (MUT-B-ARC). Controller at relative priority 0, Low (L)
 * at 1, Medium (M) at 2, High (H) at 3. H and M are created first and
 * suspend themselves; L is created last and runs the sequence: L locks the
 * mutex, makes H ready (H preempts, requests the mutex and blocks), makes M
 * ready, spins 100 us, unlocks. H then takes and releases the mutex. M's
 * first action is to record that it ran; it then spins 2 ms, bounded by an
 * explicit end time so an inversion cannot hang the machine. Every event
 * takes the next number of a shared sequence (all threads share one CPU, so
 * the numbers are the order things happened in), and rtb_check_mut_pi()
 * decides: with inheritance L runs at H's priority, so M must not run
 * before H has taken and released the mutex. Run 3 times (10 in standard);
 * any failing run fails the check. Negative control: the same with a mutex
 * without protocol (RTB_MUTEX_NONE), where M runs first; it must be
 * caught. Option mut.behavior.pi.protocol=none runs the platform under test
 * without inheritance, so the verdict is fail. A second check tries a
 * priority-ceiling mutex (RTB_MUTEX_CEILING, ceiling = H's priority): when
 * the port has one, the same sequence must keep M out until H is done (L
 * runs at the ceiling from its lock, so H only runs once L unlocks); when
 * it has none the second verdict is `unsupported`.
 *
 * mut.lock.uncontended / mut.unlock.uncontended (MUT-P-ARN). One thread at
 * priority 0, a mutex with priority inheritance (as real-time code uses;
 * option mut.lock.uncontended.protocol=none|inherit|ceiling). Each
 * iteration: t0; lock; t1;  t2; unlock; t3, each pair the two reads of a
 * timed call (rtb/sample.h). lock = t1 - t0 - overhead, unlock = t3 - t2 -
 * overhead. Cross-check (table "amortised"): one million
 * lock+unlock pairs on one mutex timed as one block, and 256 mutexes locked
 * back to back then unlocked back to back, repeated, each pass timed once.
 *
 * mut.lock.block / mut.unlock.handoff (MUT-P-ARC). MUT-B-ARC in a loop,
 * with L, M and H created once and resumed by the controller each time.
 * Acquisition: t0 in H just before its lock call, t1 in L as its first
 * action after H blocked (L now runs boosted): sample t1 - t0 - overhead.
 * L then makes M ready and takes t2 just before unlocking; H takes t3 right
 * after its lock returns: release = t3 - t2 - overhead. Each iteration's
 * event order goes through rtb_check_mut_pi(): if M ran in between, or H
 * did not block, both samples are invalid and a warning says how many.
 * Option mut.lock.block.protocol=none|inherit (default inherit).
 *
 * H's part of the sequence, the event numbering and the looping form (the
 * L, M and H threads of MUT-P-ARC) are in core/src/mut_pi.c, which
 * rh.deadlock_break reuses.
 */
#include "rtb/mut_pi.h"

/* The timed calls (rtb/sample.h): nothing but the call between the reads. */
RTB_TIMED(timed_lock, int, rtb_port_mutex_lock(m), struct rtb_mutex *m)
RTB_TIMED(timed_unlock, int, rtb_port_mutex_unlock(m), struct rtb_mutex *m)

#define PRIO_L RTB_PI_PRIO_L
#define PRIO_M RTB_PI_PRIO_M
#define PRIO_H RTB_PI_PRIO_H

static const struct rtb_thread_attr attr_h = {.name = "mut-high", .prio = PRIO_H};
static const struct rtb_thread_attr attr_m = {.name = "mut-medium", .prio = PRIO_M};
static const struct rtb_thread_attr attr_l = {.name = "mut-low", .prio = PRIO_L};

static const char *protocol_name(enum rtb_mutex_protocol p)
{
	return p == RTB_MUTEX_INHERIT ? "inherit" : p == RTB_MUTEX_CEILING ? "ceiling" : "none";
}

/* The option `key`: inherit (default), none, or also ceiling. */
static bool parse_protocol(const struct rtb_ctx *ctx, const char *key, bool ceiling_ok,
			   enum rtb_mutex_protocol *out)
{
	static const char *const words[] = {"inherit", "none", "ceiling"};
	static const enum rtb_mutex_protocol protocols[] = {RTB_MUTEX_INHERIT, RTB_MUTEX_NONE,
							    RTB_MUTEX_CEILING};
	int k = rtb_ctx_choice(ctx, key, words, ceiling_ok ? 3 : 2);

	*out = protocols[k < 0 ? 0 : k];
	return k >= 0;
}

/* ---- MUT-B-ARC ---------------------------------------------------------- */

static void b_high(void *arg)
{
	struct rtb_pi_shared *sh = arg;

	rtb_port_thread_suspend_self();
	if (!sh->stop)
		rtb_pi_h_request_release(sh);
	sh->h_done++;
}

static void b_medium(void *arg)
{
	struct rtb_pi_shared *sh = arg;

	rtb_port_thread_suspend_self();
	if (!sh->stop) {
		rtb_pi_mark(sh, &sh->ev.m_ran);
		rtb_spin_ticks(sh->m_spin_ticks);
	}
	sh->m_done++;
}

static void b_low(void *arg)
{
	struct rtb_pi_shared *sh = arg;
	int rc = rtb_port_mutex_lock(sh->mutex);

	if (rc == RTB_OK) {
		rtb_pi_mark(sh, &sh->ev.l_locked);
		rtb_pi_mark(sh, &sh->ev.h_ready);
		rtb_port_thread_resume(sh->h);
		rtb_pi_mark(sh, &sh->ev.m_ready);
		rtb_port_thread_resume(sh->m);
		rtb_spin_ticks(sh->l_spin_ticks);
		rtb_pi_mark(sh, &sh->ev.l_unlock);
		rtb_port_mutex_unlock(sh->mutex);
	} else {
		sh->rc = rc;
	}
	sh->l_done++;
}

/* One run of the L/M/H sequence on a fresh mutex of the given protocol. */
static int b_run(struct rtb_pi_shared *sh, enum rtb_mutex_protocol protocol,
		 struct rtb_mut_pi_obs *obs)
{
	uint64_t m_spin = sh->m_spin_ticks, l_spin = sh->l_spin_ticks;
	int rc;

	rtb_memset(sh, 0, sizeof(*sh));
	sh->m_spin_ticks = m_spin;
	sh->l_spin_ticks = l_spin;
	sh->ev.protocol = protocol;
	rc = rtb_port_mutex_create(&sh->mutex, protocol, PRIO_H);
	if (rc != RTB_OK)
		return rc;
	rc = rtb_port_thread_create(&sh->h, &attr_h, b_high, sh);
	if (rc == RTB_OK) {
		rc = rtb_port_thread_create(&sh->m, &attr_m, b_medium, sh);
		if (rc == RTB_OK) {
			rc = rtb_port_thread_create(&sh->l, &attr_l, b_low, sh);
			if (rc == RTB_OK) {
				rtb_wait_count(&sh->l_done, 1, 5000000000u);
				rtb_port_thread_delete(sh->l);
			}
			/* if L failed, H and M are still suspended: let them end */
			if (sh->m_done == 0 && !rtb_wait_count(&sh->m_done, 1, 1000000000u)) {
				sh->stop = true;
				rtb_port_thread_resume(sh->m);
			}
			rtb_port_thread_delete(sh->m);
		}
		if (sh->h_done == 0 && !rtb_wait_count(&sh->h_done, 1, 1000000000u)) {
			sh->stop = true;
			rtb_port_thread_resume(sh->h);
		}
		rtb_port_thread_delete(sh->h);
	}
	rtb_port_mutex_delete(sh->mutex);
	*obs = sh->ev;
	return rc != RTB_OK ? rc : sh->rc;
}

struct b_summary {
	enum rtb_outcome outcome;
	uint32_t runs, passed, failed;
	char reason[RTB_LINE_MAX];
	char order[RTB_LINE_MAX];      /* first run's order, or the first failing one's */
	struct rtb_mut_pi_obs obs[16]; /* raw observations, to judge them again */
};

/* `runs` runs; any fail fails, else any inconclusive is inconclusive. */
static int b_check(struct rtb_pi_shared *sh, enum rtb_mutex_protocol protocol, uint32_t runs,
		   struct b_summary *s)
{
	rtb_memset(s, 0, sizeof(*s));
	s->outcome = RTB_PASS;
	for (uint32_t i = 0; i < runs && i < RTB_ARRAY_SIZE(s->obs); i++) {
		struct rtb_mut_pi_obs *o = &s->obs[i];
		char reason[RTB_LINE_MAX];
		int rc = b_run(sh, protocol, o);
		if (rc != RTB_OK)
			return rc;
		enum rtb_outcome out = rtb_check_mut_pi(o, reason, sizeof(reason));
		s->runs++;
		if (out == RTB_PASS)
			s->passed++;
		if (out == RTB_FAIL)
			s->failed++;
		bool worse = (out == RTB_FAIL && s->outcome != RTB_FAIL) ||
			     (out == RTB_INCONCLUSIVE && s->outcome == RTB_PASS);
		if (i == 0 || worse) {
			rtb_fmt(s->reason, sizeof(s->reason), "%s", reason);
			rtb_mut_pi_order(o, s->order, sizeof(s->order));
		}
		if (worse)
			s->outcome = out;
	}
	return RTB_OK;
}

/* Judge the control's observations again as if they came from `as`. */
static enum rtb_outcome b_rejudge(const struct b_summary *s, enum rtb_mutex_protocol as,
				  char *reason, size_t len)
{
	enum rtb_outcome worst = RTB_PASS;

	for (uint32_t i = 0; i < s->runs; i++) {
		struct rtb_mut_pi_obs o = s->obs[i];
		char r[RTB_LINE_MAX];
		o.protocol = as;
		enum rtb_outcome out = rtb_check_mut_pi(&o, r, sizeof(r));
		bool worse = (out == RTB_FAIL && worst != RTB_FAIL) ||
			     (out == RTB_INCONCLUSIVE && worst == RTB_PASS);
		if (i == 0 || worse)
			rtb_fmt(reason, len, "%s", r);
		if (worse)
			worst = out;
	}
	return worst;
}

/* The control's evidence, judged as `judged_as`; then the verdict is
 * emitted. */
static void b_conclude(struct rtb_verdict *v, const struct b_summary *ctl,
		       enum rtb_mutex_protocol judged_as)
{
	char reason[RTB_LINE_MAX];
	enum rtb_outcome co = b_rejudge(ctl, judged_as, reason, sizeof(reason));

	rtb_verdict_control_evidence(v, "%s: %s", rtb_outcome_name(co), reason);
	rtb_verdict_control_evidence(v, "observed order: %s", ctl->order);
	rtb_verdict_control_evidence(v,
				     "%" RTB_PRIu32 " of %" RTB_PRIu32 " runs showed the inversion",
				     ctl->failed, ctl->runs);
	rtb_verdict_conclude(v, co, "the same sequence with a mutex without protocol (%s)",
			     rtb_port_mutex_mechanism(RTB_MUTEX_NONE));
}

static void b_evidence(struct rtb_verdict *v, enum rtb_mutex_protocol p, const struct b_summary *s)
{
	rtb_verdict_evidence(v, "mechanism: %s", rtb_port_mutex_mechanism(p));
	rtb_verdict_evidence(v, "priorities: L %d, M %d, H %d (controller 0)", PRIO_L, PRIO_M,
			     PRIO_H);
	rtb_verdict_evidence(v, "observed order: %s", s->order);
	rtb_verdict_evidence(v,
			     "%" RTB_PRIu32 " of %" RTB_PRIu32
			     " runs kept M out until H had released the mutex",
			     s->passed, s->runs);
}

static void b_protocol_row(struct rtb_json *j, enum rtb_mutex_protocol p, const char *available,
			   const char *outcome)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, protocol_name(p));
	rtb_json_str(j, rtb_port_mutex_mechanism(p));
	rtb_json_str(j, available);
	rtb_json_str(j, outcome);
	rtb_json_arr_end(j);
}

static int run_behavior_pi(struct rtb_ctx *ctx)
{
	const char *id = "mut.behavior.pi";
	static const struct rtb_column cols[] = {
		{"protocol", ""}, {"mechanism", ""}, {"available", ""}, {"outcome", ""}};
	uint64_t runs = rtb_ctx_count(ctx, "runs", 3, 10, 10);
	enum rtb_mutex_protocol protocol;
	struct rtb_pi_shared *sh;
	struct b_summary *main_s, *ctl_s, *ceil_s;
	struct rtb_verdict *v;
	int rc, ceil_rc = RTB_E_UNSUPPORTED;

	if (!parse_protocol(ctx, "mut.behavior.pi.protocol", false, &protocol))
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "mut.behavior.pi.protocol must be inherit or none");
	if (runs < 1 || runs > RTB_ARRAY_SIZE(main_s->obs))
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "runs must be 1..%u",
				    (unsigned)RTB_ARRAY_SIZE(main_s->obs));
	if (rtb_port_info()->prio_max < PRIO_H)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs %d priority levels", PRIO_H + 1);
	sh = rtb_port_mem_alloc(sizeof(*sh));
	main_s = rtb_port_mem_alloc(sizeof(*main_s));
	ctl_s = rtb_port_mem_alloc(sizeof(*ctl_s));
	ceil_s = rtb_port_mem_alloc(sizeof(*ceil_s));
	v = rtb_port_mem_alloc(sizeof(*v));
	if (sh == NULL || main_s == NULL || ctl_s == NULL || ceil_s == NULL || v == NULL) {
		rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
		goto out;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	sh->m_spin_ticks = rtb_ns_to_ticks(2000000);
	sh->l_spin_ticks = rtb_ns_to_ticks(100000);

	rc = b_check(sh, protocol, (uint32_t)runs, main_s);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "the %s mutex run failed: %s", protocol_name(protocol),
			     rtb_port_strerror(rc));
		goto out;
	}
	rc = b_check(sh, RTB_MUTEX_NONE, (uint32_t)runs, ctl_s);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "the control run failed: %s", rtb_port_strerror(rc));
		goto out;
	}
	/* does the port have a ceiling protocol at all? */
	struct rtb_mutex *probe;
	ceil_rc = rtb_port_mutex_create(&probe, RTB_MUTEX_CEILING, PRIO_H);
	if (ceil_rc == RTB_OK) {
		rtb_port_mutex_delete(probe);
		ceil_rc = b_check(sh, RTB_MUTEX_CEILING, (uint32_t)runs, ceil_s);
	}

	rtb_verdict_init(v, id, "MUT-B-ARC", "priority_inheritance");
	v->outcome = main_s->outcome;
	rtb_fmt(v->reason, sizeof(v->reason), "%s", main_s->reason);
	b_evidence(v, protocol, main_s);
	rtb_verdict_evidence(v, "priority ceiling: %s",
			     ceil_rc == RTB_OK ? "available (see check priority_ceiling)"
			     : ceil_rc == RTB_E_UNSUPPORTED ? "not available on this port"
							    : rtb_port_strerror(ceil_rc));
	b_conclude(v, ctl_s, protocol);
	char main_outcome[16];
	rtb_fmt(main_outcome, sizeof(main_outcome), "%s", rtb_outcome_name(v->outcome));

	rtb_verdict_init(v, id, "MUT-B-ARC", "priority_ceiling");
	if (ceil_rc == RTB_OK) {
		v->outcome = ceil_s->outcome;
		rtb_fmt(v->reason, sizeof(v->reason), "%s", ceil_s->reason);
		b_evidence(v, RTB_MUTEX_CEILING, ceil_s);
		rtb_verdict_evidence(v, "ceiling: priority %d (H's)", PRIO_H);
		b_conclude(v, ctl_s, RTB_MUTEX_CEILING);
	} else {
		v->outcome = RTB_UNSUPPORTED;
		rtb_fmt(v->reason, sizeof(v->reason),
			"no priority-ceiling mutex: creating one returned %s",
			rtb_port_strerror(ceil_rc));
		rtb_verdict_conclude(v, RTB_UNSUPPORTED,
				     "not run: there is no ceiling mutex to check");
	}

	struct rtb_json *j =
		rtb_table_begin(id, "protocols", "Mutex protocols and their outcome", cols, 4);
	b_protocol_row(j, protocol, "yes", main_outcome);
	b_protocol_row(j, RTB_MUTEX_CEILING, ceil_rc == RTB_OK ? "yes" : "no",
		       rtb_outcome_name(v->outcome));
	b_protocol_row(j, RTB_MUTEX_NONE, "yes",
		       ctl_s->outcome == RTB_FAIL ? "inversion shown (negative control)"
						  : "no inversion shown (negative control)");
	rtb_table_end(j);
	rc = RTB_OK;
out:
	rtb_port_mem_free(sh);
	rtb_port_mem_free(main_s);
	rtb_port_mem_free(ctl_s);
	rtb_port_mem_free(ceil_s);
	rtb_port_mem_free(v);
	return rc;
}

static const struct rtb_option_spec mut_behavior_pi_options[] = {
	RTB_OPT_N("runs", 1u, 1000000u, "repetitions of the L/M/H sequence"),
	RTB_OPT_WORD("mut.behavior.pi.protocol", "inherit|none",
		     "mutex protocol under test (none: a platform without inheritance)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mut_behavior_pi = {
	.name = "mut.behavior.pi",
	.ids = {{"mut.behavior.pi", "MUT-B-ARC"}},
	.summary = "Priority inheritance keeps a medium thread out while a high one waits",
	.estimate_ms = {100, 300, 300},
	.deadline_ms = {30000, 30000, 30000},
	.caps = RTB_CAP_REALTIME | RTB_CAP_MUTEX_INHERIT,
	.options = mut_behavior_pi_options,
	.run = run_behavior_pi,
};

/* ---- MUT-P-ARN ------------------------------------------------------------ */

#define AMORTISED_MUTEXES 256u

static int uncontended_amortised(struct rtb_ctx *ctx, enum rtb_mutex_protocol protocol, int ceiling,
				 uint64_t calls)
{
	struct rtb_mutex **many = rtb_port_mem_alloc(sizeof(*many) * AMORTISED_MUTEXES);
	uint64_t pair_ticks = 0, lock_ticks = 0, unlock_ticks = 0;
	uint64_t reps = calls / AMORTISED_MUTEXES;
	uint32_t created = 0;
	int rc = RTB_OK;

	if (many == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	for (; created < AMORTISED_MUTEXES && rc == RTB_OK; created++)
		rc = rtb_port_mutex_create(&many[created], protocol, ceiling);
	if (rc != RTB_OK)
		created--;
	if (rc == RTB_OK) {
		struct rtb_mutex *m = many[0];
		uint64_t t0 = rtb_port_counter_read();
		for (uint64_t i = 0; i < calls && rc == RTB_OK; i++) {
			rc = rtb_port_mutex_lock(m);
			if (rc == RTB_OK)
				rc = rtb_port_mutex_unlock(m);
		}
		pair_ticks = rtb_port_counter_read() - t0;
	}
	for (uint64_t r = 0; r < reps && rc == RTB_OK; r++) {
		uint64_t t0 = rtb_port_counter_read();
		for (uint32_t k = 0; k < AMORTISED_MUTEXES && rc == RTB_OK; k++)
			rc = rtb_port_mutex_lock(many[k]);
		uint64_t t1 = rtb_port_counter_read();
		for (uint32_t k = AMORTISED_MUTEXES; k > 0 && rc == RTB_OK; k--)
			rc = rtb_port_mutex_unlock(many[k - 1]);
		uint64_t t2 = rtb_port_counter_read();
		lock_ticks += t1 - t0;
		unlock_ticks += t2 - t1;
	}
	for (uint32_t k = 0; k < created; k++)
		rtb_port_mutex_delete(many[k]);
	rtb_port_mem_free(many);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "mutex operation failed in the amortised pass: %s",
				    rtb_port_strerror(rc));
	struct rtb_json *j = rtb_amortised_begin("mut.lock.uncontended");
	rtb_amortised_row(j, "lock + unlock, one mutex", calls, pair_ticks);
	rtb_amortised_row(j, "lock, 256 mutexes in turn", reps * AMORTISED_MUTEXES, lock_ticks);
	rtb_amortised_row(j, "unlock, 256 mutexes in turn", reps * AMORTISED_MUTEXES, unlock_ticks);
	rtb_table_end(j);
	return RTB_OK;
}

static int run_lock_uncontended(struct rtb_ctx *ctx)
{
	uint64_t n = rtb_ctx_count(ctx, "iterations", 20000, 1000000, 10000000);
	uint32_t warm = rtb_warmup_for(n);
	enum rtb_mutex_protocol protocol;
	struct rtb_recorder rl, ru;
	struct rtb_mutex *m;
	int rc;

	if (!parse_protocol(ctx, "mut.lock.uncontended.protocol", true, &protocol))
		return rtb_ctx_fail(
			ctx, RTB_E_INVALID,
			"mut.lock.uncontended.protocol must be inherit, none or ceiling");
	int ceiling = rtb_port_info()->prio_max;
	struct rtb_metric ml = {.scenario = "mut.lock.uncontended",
				.label = "MUT-P-ARN",
				.metric = "lock",
				.title = "Mutex lock, not contended (no switch)",
				.unit = "ticks"};
	struct rtb_metric mu = {.scenario = "mut.unlock.uncontended",
				.label = "MUT-P-ARN",
				.metric = "unlock",
				.title = "Mutex unlock, no waiter (no switch)",
				.unit = "ticks"};
	rtb_metric_param_str(&ml, "protocol", protocol_name(protocol));
	rtb_metric_param_str(&mu, "protocol", protocol_name(protocol));
	rc = rtb_port_mutex_create(&m, protocol, ceiling);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "cannot create a mutex (%s): %s",
				    protocol_name(protocol), rtb_port_strerror(rc));
	rc = rtb_recorder_init_pair(&rl, &ml, &ru, &mu, warm, ctx->raw_max);
	if (rc != RTB_OK) {
		rtb_port_mutex_delete(m);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	}
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&rl);
	rtb_recorder_timed_calls(&ru);
	for (uint64_t i = 0; i < n + warm; i++) {
		struct rtb_span l, u;
		rc = timed_lock(m, &l);
		if (rc == RTB_OK)
			rc = timed_unlock(m, &u);
		if (rc != RTB_OK)
			break;
		rtb_recorder_add_interval(&rl, l.t0, l.t1);
		rtb_recorder_add_interval(&ru, u.t0, u.t1);
		if ((i & 1023) == 0 && rtb_ctx_expired_after(ctx, i + 1, n + warm, "iterations"))
			break;
	}
	rtb_port_mutex_delete(m);
	if (rc == RTB_OK) {
		rtb_emit_result(&rl);
		rtb_emit_result(&ru);
		rc = uncontended_amortised(
			ctx, protocol, ceiling,
			rtb_ctx_count(ctx, "amortised_calls", 1000000, 1000000, 10000000));
	} else {
		rtb_ctx_fail(ctx, rc, "mutex operation failed: %s", rtb_port_strerror(rc));
	}
	rtb_recorder_free(&rl);
	rtb_recorder_free(&ru);
	return rc;
}

static const struct rtb_option_spec mut_lock_uncontended_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_LEN("amortised_calls", 1u, 10000000000ull,
		    "calls timed back to back for the amortised cross-check"),
	RTB_OPT_WORD("mut.lock.uncontended.protocol", "inherit|none|ceiling", "mutex protocol"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mut_lock_uncontended = {
	.name = "mut.lock.uncontended",
	.ids = {{"mut.lock.uncontended", "MUT-P-ARN"}, {"mut.unlock.uncontended", "MUT-P-ARN"}},
	.summary = "Uncontended mutex lock and unlock (priority inheritance, no switch)",
	.estimate_ms = {100, 1000, 8000},
	.deadline_ms = {20000, 60000, 300000},
	.options = mut_lock_uncontended_options,
	.run = run_lock_uncontended,
};

/* ---- MUT-P-ARC ------------------------------------------------------------ */

static int run_lock_block(struct rtb_ctx *ctx)
{
	const char *id = "mut.lock.block";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 2000, 50000, 1000000);
	uint32_t warm = rtb_warmup_for(n);
	enum rtb_mutex_protocol protocol;
	struct rtb_recorder ra, rr;
	struct rtb_pi_shared *sh;
	uint64_t invalid = 0, done = 0;
	char first_reason[RTB_LINE_MAX] = "";
	int rc;

	if (!parse_protocol(ctx, "mut.lock.block.protocol", false, &protocol))
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "mut.lock.block.protocol must be inherit or none");
	if (rtb_port_info()->prio_max < PRIO_H)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs %d priority levels", PRIO_H + 1);
	struct rtb_metric ma = {.scenario = "mut.lock.block",
				.label = "MUT-P-ARC",
				.metric = "acquire",
				.title = "Mutex lock that blocks, until the boosted holder runs",
				.unit = "ticks"};
	struct rtb_metric mr = {.scenario = "mut.unlock.handoff",
				.label = "MUT-P-ARC",
				.metric = "release",
				.title =
					"Mutex unlock by the boosted holder, until the waiter runs",
				.unit = "ticks"};
	rtb_metric_param_str(&ma, "protocol", protocol_name(protocol));
	rtb_metric_param_str(&mr, "protocol", protocol_name(protocol));
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rc = rtb_recorder_init_pair(&ra, &ma, &rr, &mr, warm, ctx->raw_max);
	if (rc != RTB_OK) {
		rtb_port_mem_free(sh);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	}
	rc = rtb_pi_loop_start(sh, protocol);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the mutex (%s) or the threads: %s",
			     protocol_name(protocol), rtb_port_strerror(rc));
		goto free_rec;
	}

	for (uint64_t i = 0; i < n + warm && sh->rc == RTB_OK; i++) {
		char reason[RTB_LINE_MAX];
		if (rtb_pi_loop_once(ctx, sh, reason, sizeof(reason))) {
			rtb_recorder_add_interval(&ra, sh->t_h_lock, sh->t_l_run);
			rtb_recorder_add_interval(&rr, sh->t_l_unlock, sh->t_h_acquired);
		} else {
			rtb_recorder_add_invalid(&ra);
			rtb_recorder_add_invalid(&rr);
			if (invalid++ == 0)
				rtb_fmt(first_reason, sizeof(first_reason), "%s", reason);
		}
		done = i + 1;
		if ((i & 255) == 0 && rtb_ctx_expired_after(ctx, done, n + warm, "iterations"))
			break;
	}

	rc = rtb_pi_loop_stop(sh);
	if (rc == RTB_OK) {
		if (invalid > 0)
			rtb_emit_log(
				id, "warning",
				"%llu of %llu iterations invalid (both samples discarded); first: "
				"%s",
				(unsigned long long)invalid, (unsigned long long)done,
				first_reason);
		rtb_emit_result(&ra);
		rtb_emit_result(&rr);
	} else {
		rtb_ctx_fail(ctx, rc, "mutex operation failed: %s", rtb_port_strerror(rc));
	}
free_rec:
	rtb_recorder_free(&ra);
	rtb_recorder_free(&rr);
	rtb_port_mem_free(sh);
	return rc;
}

static const struct rtb_option_spec mut_lock_block_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_WORD("mut.lock.block.protocol", "inherit|none", "mutex protocol"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mut_lock_block = {
	.name = "mut.lock.block",
	.ids = {{"mut.lock.block", "MUT-P-ARC"}, {"mut.unlock.handoff", "MUT-P-ARC"}},
	.summary = "Contended mutex with inheritance: blocking lock and hand-off on unlock",
	.estimate_ms = {100, 1000, 20000},
	.deadline_ms = {30000, 120000, 1800000},
	.caps = RTB_CAP_MUTEX_INHERIT,
	.options = mut_lock_block_options,
	.run = run_lock_block,
};
