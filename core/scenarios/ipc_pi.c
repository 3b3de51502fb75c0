/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPC: priority-inheritance stress (ipc.pi.stress, the rt-tests pi_stress
 * equivalent).
 *
 * Groups (option `groups`, 3 by default, at most 8) of three threads, Low
 * (L) at relative priority 1, Medium (M) at 2 and High (H) at 3, each group
 * with its own mutex (priority inheritance; option
 * ipc.pi.stress.protocol=none takes one without protocol), repeat the
 * classic inversion for the profile's duration (option `duration_ms`: 3 s,
 * 60 s, 1 h). One iteration: L locks the mutex and makes M ready; M
 * preempts L, marks itself as having a busy run to do and makes H ready; H
 * preempts M, notes whether L holds the mutex and M is ready (the inversion
 * is "set up"), reads M's progress counter, takes t0 and calls lock. With
 * inheritance L now runs at H's priority, unlocks, and H holds the mutex
 * (t1) before M runs again; without it M runs its busy run first: up to
 * 1 ms of rtb_spin_ticks() chunks, each counted, bounded by an end time on
 * the counter and cut short once H holds the mutex. H compares M's counter
 * with the value it read before its lock call: a change is an inversion
 * (M made progress while H waited for the mutex held by L). H then unlocks,
 * and M and H each give L a semaphore; L collects both (timed waits) and
 * yields, so the groups' L threads take turns. All threads share the
 * measurement CPU, so on a uniprocessor schedule the groups run one after
 * another and interleave at iteration boundaries.
 *
 * Per group H counts iterations, set-ups, inversions, and stalls (waits
 * longer than the stall bound, option ipc.pi.stress.stall_ms, 1 s), and
 * keeps the worst wait. Each wait t1 - t0 (minus the timestamp overhead)
 * is a sample of the metric `high_wait`; H passes it through a per-group
 * ring to the controller, which alone feeds the recorder (an iteration that
 * was not set up is an invalid sample; a full ring drops the sample and
 * counts it invalid). The controller runs above all groups, at the highest
 * relative priority, and wakes every 10 ms as a watchdog: a group that
 * completes no iteration for the stall bound over at least 5 wake-ups is
 * stuck, and the run ends. rtb_check_ipc_pi() decides from the counts.
 *
 * Negative control: the same groups for 0.5 s (at most the duration) on
 * mutexes without protocol (RTB_MUTEX_NONE), through the same threads,
 * counts and decision: every iteration shows an inversion, so it must come
 * out fail (caught).
 *
 * Bounded everywhere: M's busy run ends on the counter; every semaphore
 * wait is timed and re-checks whether the group is quitting or the run
 * was abandoned; the controller waits for the threads to end for the stall
 * bound and then abandons them. The only unbounded call is H's lock, which
 * returns as soon as L unlocks; L unlocks right after M and H have had
 * their turn. A thread that nevertheless does not end (a platform whose
 * mutex never hands over) is left in place with its objects, and a
 * warning says so.
 */
#include "rtb/check_ipc.h"

#define PRIO_L 1
#define PRIO_M 2
#define PRIO_H 3

#define PI_BURST_NS 1000000u	 /* M's busy run per iteration, at most */
#define PI_CHUNK_NS 10000u	 /* M counts one step of progress per chunk */
#define PI_STEP_NS 10000000u	 /* timed waits re-check quit/abandon this often */
#define PI_WATCH_NS 10000000u	 /* the controller's watchdog period */
#define PI_WATCH_MISSES 5u	 /* wake-ups without progress before "stuck" */
#define PI_RING 2048u		 /* samples in flight per group */
#define PI_WARMUP 10u		 /* first samples run but not counted */
#define PI_CONTROL_MS 500u	 /* the negative control's duration, at most */
#define PI_STALL_MS 1000u	 /* default stall bound */
#define PI_GROUPS 3u		 /* default number of groups */
#define PI_NOT_SET_UP UINT64_MAX /* ring value of an iteration not set up */
#define PI_ABANDON_GRACE_NS 100000000u

static const char *const pi_id = "ipc.pi.stress";

struct pi_run;

/* One group. All its threads share one CPU; every field has one writer
 * (named), except rc, where any error wins. */
struct pi_group {
	struct pi_run *run;
	struct rtb_mutex *mutex;
	struct rtb_sem *go_l, *go_m, *go_h, *back;
	struct rtb_thread *l, *m, *h;
	volatile bool quit;	    /* L: M and H end when woken */
	volatile bool holding;	    /* L: it holds the mutex */
	volatile bool bursting;	    /* M: ready with its busy run to do */
	volatile bool h_got;	    /* H sets, L clears: H holds or held the mutex */
	volatile uint32_t progress; /* M: chunks of busy run done */
	volatile bool l_ended, m_ended, h_ended;
	volatile int rc;
	/* H's counts */
	volatile uint64_t iterations, set_up, inversions, stalls, worst_wait_ticks, dropped;
	/* samples from H to the controller */
	volatile uint64_t *ring;
	volatile uint32_t head; /* H */
	volatile uint32_t tail; /* controller */
	/* controller only */
	uint64_t seen_iterations, progress_ticks;
	uint32_t misses;
	bool stuck;
};

struct pi_run {
	volatile bool stop;    /* controller: L ends after the current iteration */
	volatile bool abandon; /* controller: every wait gives up */
	uint64_t burst_ticks, chunk_ticks, stall_ticks;
	uint64_t watch_late_ticks; /* the controller's worst late wake-up */
	uint32_t ngroups;
	struct pi_group group[RTB_IPC_PI_GROUPS_MAX];
};

/* What one run (under test, or the control) gave. */
struct pi_outcome {
	struct rtb_ipc_pi_obs obs;
	uint64_t elapsed_ticks;
	uint64_t dropped;
	bool left_threads; /* some thread did not end: objects left in place */
};

static const struct rtb_thread_attr attr_l = {.name = "pi-low", .prio = PRIO_L};
static const struct rtb_thread_attr attr_m = {.name = "pi-medium", .prio = PRIO_M};
static const struct rtb_thread_attr attr_h = {.name = "pi-high", .prio = PRIO_H};

static const char *protocol_name(enum rtb_mutex_protocol p)
{
	return p == RTB_MUTEX_INHERIT ? "inherit" : "none";
}

static void pi_error(struct pi_group *g, int rc)
{
	if (g->rc == RTB_OK)
		g->rc = rc;
}

/* Wait for `s`; false (without a count) once the group quits or the run is
 * abandoned, or on an error. */
static bool pi_take(struct pi_group *g, struct rtb_sem *s)
{
	for (;;) {
		int rc = rtb_port_sem_timedwait(s, PI_STEP_NS);
		if (rc == RTB_OK)
			return true;
		if (rc != RTB_E_TIMEOUT) {
			pi_error(g, rc);
			return false;
		}
		if (g->quit || g->run->abandon)
			return false;
	}
}

/* ---- the three threads ---------------------------------------------------- */

/* One iteration from L's side; false when the group must end. */
static bool pi_low_iteration(struct pi_group *g)
{
	g->h_got = false;
	int rc = rtb_port_mutex_lock(g->mutex);
	if (rc != RTB_OK) {
		pi_error(g, rc);
		return false;
	}
	g->holding = true;
	/* M preempts, makes H ready, H requests the mutex: with inheritance
	 * this call returns as soon as H blocks, L now running at H's
	 * priority; without it once M's busy run is over */
	int src = rtb_port_sem_signal(g->go_m);
	g->holding = false;
	rc = rtb_port_mutex_unlock(g->mutex);
	if (src != RTB_OK || rc != RTB_OK) {
		pi_error(g, src != RTB_OK ? src : rc);
		return false;
	}
	/* M and H each give one when their part is done */
	return pi_take(g, g->back) && pi_take(g, g->back);
}

static void pi_low(void *arg)
{
	struct pi_group *g = arg;

	if (pi_take(g, g->go_l)) {
		while (!g->run->stop && g->rc == RTB_OK && pi_low_iteration(g))
			rtb_port_thread_yield(); /* the other groups' L start theirs */
	}
	g->quit = true;
	rtb_port_sem_signal(g->go_m);
	rtb_port_sem_signal(g->go_h);
	g->l_ended = true;
}

/* Busy for at most burst_ticks, in counted chunks, until H holds the mutex. */
static void pi_burst(struct pi_group *g)
{
	uint64_t end = rtb_port_counter_read() + g->run->burst_ticks;

	while (!g->h_got && (int64_t)(rtb_port_counter_read() - end) < 0) {
		rtb_spin_ticks(g->run->chunk_ticks);
		g->progress++;
	}
}

static void pi_medium(void *arg)
{
	struct pi_group *g = arg;

	while (pi_take(g, g->go_m) && !g->quit) {
		g->bursting = true;
		int rc = rtb_port_sem_signal(g->go_h); /* H preempts and requests the mutex */
		if (rc == RTB_OK) {
			pi_burst(g);
		} else {
			pi_error(g, rc);
			rtb_port_sem_signal(g->back); /* H's share: H will not come */
		}
		g->bursting = false;
		rtb_port_sem_signal(g->back);
	}
	g->m_ended = true;
}

static void pi_account(struct pi_group *g, bool set_up, bool inverted, uint64_t wait_ticks)
{
	g->iterations++;
	if (set_up)
		g->set_up++;
	if (inverted)
		g->inversions++;
	if (wait_ticks > g->run->stall_ticks)
		g->stalls++;
	if (wait_ticks > g->worst_wait_ticks)
		g->worst_wait_ticks = wait_ticks;
	uint32_t head = g->head;
	if (head - g->tail >= PI_RING) {
		g->dropped++;
		return;
	}
	g->ring[head % PI_RING] = set_up ? wait_ticks : PI_NOT_SET_UP;
	g->head = head + 1;
}

static void pi_high(void *arg)
{
	struct pi_group *g = arg;

	while (pi_take(g, g->go_h) && !g->quit) {
		bool set_up = g->holding && g->bursting;
		uint32_t before = g->progress;
		uint64_t t0 = rtb_port_counter_read();
		int rc = rtb_port_mutex_lock(g->mutex);
		uint64_t t1 = rtb_port_counter_read();
		bool inverted = g->progress != before;
		g->h_got = true;
		if (rc == RTB_OK) {
			pi_account(g, set_up, inverted, t1 - t0);
			rc = rtb_port_mutex_unlock(g->mutex);
		}
		if (rc != RTB_OK)
			pi_error(g, rc);
		rtb_port_sem_signal(g->back);
	}
	g->h_ended = true;
}

/* ---- one run of all groups -------------------------------------------------- */

static bool pi_group_ended(const struct pi_group *g)
{
	return (g->l == NULL || g->l_ended) && (g->m == NULL || g->m_ended) &&
	       (g->h == NULL || g->h_ended);
}

static bool pi_wait_ended(struct pi_run *run, uint64_t timeout_ns)
{
	uint64_t end = rtb_port_time_ns() + timeout_ns;

	for (;;) {
		bool all = true;
		for (uint32_t i = 0; i < run->ngroups; i++)
			all = all && pi_group_ended(&run->group[i]);
		if (all)
			return true;
		if (rtb_port_time_ns() >= end)
			return false;
		rtb_port_sleep_ns(1000000);
	}
}

static int pi_group_create(struct pi_group *g, enum rtb_mutex_protocol protocol)
{
	int rc = rtb_port_mutex_create(&g->mutex, protocol, PRIO_H);

	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&g->go_l, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&g->go_m, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&g->go_h, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&g->back, 0);
	/* the controller outranks them: none runs before it waits */
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&g->m, &attr_m, pi_medium, g);
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&g->h, &attr_h, pi_high, g);
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&g->l, &attr_l, pi_low, g);
	return rc;
}

/* Delete what a group created; false (nothing deleted) while one of its
 * threads has not ended. */
static bool pi_group_delete(struct pi_group *g)
{
	if (!pi_group_ended(g))
		return false;
	struct rtb_thread *threads[] = {g->l, g->m, g->h};
	for (uint32_t k = 0; k < RTB_ARRAY_SIZE(threads); k++) {
		if (threads[k] != NULL)
			rtb_port_thread_delete(threads[k]);
	}
	struct rtb_sem *sems[] = {g->go_l, g->go_m, g->go_h, g->back};
	for (uint32_t k = 0; k < RTB_ARRAY_SIZE(sems); k++) {
		if (sems[k] != NULL)
			rtb_port_sem_delete(sems[k]);
	}
	if (g->mutex != NULL)
		rtb_port_mutex_delete(g->mutex);
	g->l = g->m = g->h = NULL;
	g->go_l = g->go_m = g->go_h = g->back = NULL;
	g->mutex = NULL;
	return true;
}

/* Move the samples H left in the rings into the recorder (NULL: drop). */
static void pi_drain(struct pi_run *run, struct rtb_recorder *rec)
{
	for (uint32_t i = 0; i < run->ngroups; i++) {
		struct pi_group *g = &run->group[i];
		uint32_t head = g->head;
		while (g->tail != head) {
			uint64_t v = g->ring[g->tail % PI_RING];
			if (rec != NULL && v == PI_NOT_SET_UP)
				rtb_recorder_add_invalid(rec);
			else if (rec != NULL)
				rtb_recorder_add_ticks(rec, v);
			g->tail = g->tail + 1;
		}
	}
}

static void pi_progress(struct pi_run *run, uint64_t elapsed_ticks, uint64_t total_ticks)
{
	uint64_t iterations = 0, inversions = 0;
	char msg[RTB_LINE_MAX];

	for (uint32_t i = 0; i < run->ngroups; i++) {
		iterations += run->group[i].iterations;
		inversions += run->group[i].inversions;
	}
	rtb_fmt(msg, sizeof(msg), "%llu iterations in %u groups, %llu inversions",
		(unsigned long long)iterations, (unsigned)run->ngroups,
		(unsigned long long)inversions);
	rtb_emit_progress(pi_id, (double)elapsed_ticks / (double)total_ticks, msg);
}

/* The controller's watchdog loop, until the duration is over, a group is
 * stuck or fails, or the budget ends. Returns true when cut short by the
 * budget or a stop request. */
static bool pi_watch(struct rtb_ctx *ctx, struct pi_run *run, uint64_t duration_ms,
		     struct rtb_recorder *rec, bool progress, uint64_t *elapsed_ticks)
{
	uint64_t start = rtb_port_counter_read(), now = start;
	uint64_t total = rtb_ns_to_ticks(duration_ms * 1000000u);
	bool long_run = duration_ms > 600000u;
	uint64_t every = rtb_ns_to_ticks(long_run ? 30000000000ull : 5000000000ull);
	uint64_t next_progress = start + every;
	bool cut = false;

	for (uint32_t i = 0; i < run->ngroups; i++)
		run->group[i].progress_ticks = start;
	for (uint32_t i = 0; i < run->ngroups; i++)
		rtb_port_sem_signal(run->group[i].go_l);
	for (;;) {
		uint64_t before = rtb_port_counter_read();
		rtb_port_sleep_ns(PI_WATCH_NS);
		now = rtb_port_counter_read();
		uint64_t slept = now - before, asked = rtb_ns_to_ticks(PI_WATCH_NS);
		if (slept > asked && slept - asked > run->watch_late_ticks)
			run->watch_late_ticks = slept - asked;
		pi_drain(run, rec);
		bool end = false;
		for (uint32_t i = 0; i < run->ngroups; i++) {
			struct pi_group *g = &run->group[i];
			uint64_t n = g->iterations;
			if (n != g->seen_iterations) {
				g->seen_iterations = n;
				g->progress_ticks = now;
				g->misses = 0;
			} else if (++g->misses >= PI_WATCH_MISSES &&
				   now - g->progress_ticks > run->stall_ticks) {
				g->stuck = true;
				end = true;
			}
			if (g->rc != RTB_OK)
				end = true;
		}
		if (end || now - start >= total)
			break;
		if (rtb_ctx_expired_after(ctx, rtb_ticks_to_ns(now - start) / 1000000u, duration_ms,
					  "ms")) {
			cut = true;
			break;
		}
		if (progress && (int64_t)(now - next_progress) >= 0) {
			pi_progress(run, now - start, total);
			next_progress = now + every;
		}
	}
	*elapsed_ticks = now - start;
	return cut;
}

/* Run the groups on mutexes of `protocol` for duration_ms (the controller
 * already outranks them). Errors of the port are returned; the counts go
 * to *out. When out->left_threads, `run` is still in use and must not be
 * freed. */
static int pi_run(struct rtb_ctx *ctx, struct pi_run *run, uint32_t ngroups,
		  enum rtb_mutex_protocol protocol, uint64_t duration_ms, struct rtb_recorder *rec,
		  bool progress, struct pi_outcome *out)
{
	uint64_t stall_ticks = run->stall_ticks;
	int rc = RTB_OK;

	rtb_memset(out, 0, sizeof(*out));
	run->watch_late_ticks = 0;
	for (uint32_t i = 0; i < RTB_IPC_PI_GROUPS_MAX; i++) {
		volatile uint64_t *ring = run->group[i].ring;
		rtb_memset(&run->group[i], 0, sizeof(run->group[i]));
		run->group[i].ring = ring;
		run->group[i].run = run;
	}
	run->stop = false;
	run->abandon = false;
	run->ngroups = 0;
	for (uint32_t i = 0; i < ngroups && rc == RTB_OK; i++) {
		run->ngroups = i + 1;
		rc = pi_group_create(&run->group[i], protocol);
	}

	bool cut = false;
	if (rc == RTB_OK)
		cut = pi_watch(ctx, run, duration_ms, rec, progress, &out->elapsed_ticks);

	/* end: L threads finish their iteration and tell M and H */
	run->stop = true;
	for (uint32_t i = 0; i < run->ngroups; i++) {
		/* an L that never started (setup failed) quits at once */
		if (rc != RTB_OK)
			run->group[i].quit = true;
	}
	if (!pi_wait_ended(run, rc == RTB_OK ? rtb_ticks_to_ns(stall_ticks) : PI_STEP_NS * 3)) {
		run->abandon = true;
		pi_wait_ended(run, PI_ABANDON_GRACE_NS);
	}
	pi_drain(run, rec);

	out->obs.ngroups = rc == RTB_OK ? ngroups : 0;
	out->obs.stall_bound_ns = rtb_ticks_to_ns(stall_ticks);
	out->obs.cut_short = cut;
	out->obs.watch_late_ns = rtb_ticks_to_ns(run->watch_late_ticks);
	for (uint32_t i = 0; i < run->ngroups; i++) {
		struct pi_group *g = &run->group[i];
		struct rtb_ipc_pi_group *o = &out->obs.group[i];
		if (rc == RTB_OK && g->rc != RTB_OK)
			rc = g->rc;
		if (!pi_group_ended(g))
			g->stuck = true; /* its iteration did not end within the bound */
		o->iterations = g->iterations;
		o->set_up = g->set_up;
		o->inversions = g->inversions;
		o->stalls = g->stalls;
		o->stuck = g->stuck;
		o->worst_wait_ns = rtb_ticks_to_ns(g->worst_wait_ticks);
		out->dropped += g->dropped;
		if (!pi_group_delete(g))
			out->left_threads = true;
	}
	if (rec != NULL) {
		for (uint64_t k = 0; k < out->dropped; k++)
			rtb_recorder_add_invalid(rec);
	}
	return rc;
}

/* ---- verdict ------------------------------------------------------------------ */

static uint64_t pi_total(const struct rtb_ipc_pi_obs *o, bool inversions)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < o->ngroups; i++)
		n += inversions ? o->group[i].inversions : o->group[i].iterations;
	return n;
}

static void pi_group_lines(struct rtb_verdict *v, const struct rtb_ipc_pi_obs *o, bool control)
{
	char line[RTB_LINE_MAX];

	for (uint32_t i = 0; i < o->ngroups; i++) {
		rtb_ipc_pi_group_line(&o->group[i], i, line, sizeof(line));
		if (control)
			rtb_verdict_control_evidence(v, "%s", line);
		else
			rtb_verdict_evidence(v, "%s", line);
	}
	if (!control && o->ngroups > 0) {
		rtb_fmt_ns(line, sizeof(line), o->watch_late_ns);
		rtb_verdict_evidence(
			v,
			"the controller's 10 ms watchdog woke at most %s late (the CPU "
			"withheld from the platform, as a busy host does)",
			line);
	}
}

/* The control's evidence; returns its outcome as the verdict counts it. */
static enum rtb_outcome pi_control(struct rtb_verdict *v, const struct pi_outcome *ctl, bool ran,
				   const char *why_not)
{
	char reason[RTB_LINE_MAX], elapsed[32];

	if (!ran) {
		rtb_verdict_control_evidence(v, "not run: %s", why_not);
		return RTB_INCONCLUSIVE;
	}
	enum rtb_outcome co = rtb_check_ipc_pi(&ctl->obs, reason, sizeof(reason));
	rtb_fmt_ns(elapsed, sizeof(elapsed), rtb_ticks_to_ns(ctl->elapsed_ticks));
	rtb_verdict_control_evidence(v, "%s after %s: %llu iterations, %llu inversions",
				     rtb_outcome_name(co), elapsed,
				     (unsigned long long)pi_total(&ctl->obs, false),
				     (unsigned long long)pi_total(&ctl->obs, true));
	rtb_verdict_control_evidence(v, "%s", reason);
	pi_group_lines(v, &ctl->obs, true);
	/* stopped early before showing anything: that proves nothing */
	if (ctl->obs.cut_short && pi_total(&ctl->obs, true) == 0)
		return RTB_INCONCLUSIVE;
	return co;
}

static void pi_table_rows(struct rtb_json *j, const char *run, const struct rtb_ipc_pi_obs *o)
{
	for (uint32_t i = 0; i < o->ngroups; i++) {
		const struct rtb_ipc_pi_group *g = &o->group[i];
		rtb_json_arr_begin(j);
		rtb_json_str(j, run);
		rtb_json_u64(j, i);
		rtb_json_u64(j, g->iterations);
		rtb_json_u64(j, g->set_up);
		rtb_json_u64(j, g->inversions);
		rtb_json_u64(j, g->stalls);
		rtb_json_str(j, g->stuck ? "yes" : "no");
		rtb_json_u64(j, g->worst_wait_ns);
		rtb_json_arr_end(j);
	}
}

static void pi_table(const struct pi_outcome *main_run, const struct pi_outcome *ctl, bool ctl_ran)
{
	static const struct rtb_column cols[] = {
		{"run", ""},	     {"group", "count"},      {"iterations", "count"},
		{"set_up", "count"}, {"inversions", "count"}, {"stalls", "count"},
		{"stuck", ""},	     {"worst_wait", "ns"},
	};
	struct rtb_json *j = rtb_table_begin(pi_id, "groups",
					     "Inversion groups: iterations, inversions and stalls",
					     cols, RTB_ARRAY_SIZE(cols));
	pi_table_rows(j, "under test", &main_run->obs);
	if (ctl_ran)
		pi_table_rows(j, "control (no protocol)", &ctl->obs);
	rtb_table_end(j);
}

/* ---- the scenario ---------------------------------------------------------------- */

struct pi_options {
	enum rtb_mutex_protocol protocol;
	uint64_t duration_ms, stall_ms;
	uint32_t groups;
};

static int pi_options(struct rtb_ctx *ctx, struct pi_options *o)
{
	static const char *const words[] = {"inherit", "none"};
	int k = rtb_ctx_choice(ctx, "ipc.pi.stress.protocol", words, 2);
	uint64_t groups = rtb_ctx_count(ctx, "groups", PI_GROUPS, PI_GROUPS, PI_GROUPS);

	if (k < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "ipc.pi.stress.protocol must be inherit or none");
	o->protocol = k == 0 ? RTB_MUTEX_INHERIT : RTB_MUTEX_NONE;
	o->duration_ms = rtb_ctx_count(ctx, "duration_ms", 3000, 60000, 3600000);
	o->stall_ms =
		rtb_ctx_count(ctx, "ipc.pi.stress.stall_ms", PI_STALL_MS, PI_STALL_MS, PI_STALL_MS);
	if (groups < 1 || groups > RTB_IPC_PI_GROUPS_MAX)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "groups must be 1..%u",
				    (unsigned)RTB_IPC_PI_GROUPS_MAX);
	o->groups = (uint32_t)groups;
	if (o->duration_ms < 1 || o->duration_ms > 86400000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "duration_ms must be 1 .. 86400000");
	/* above what every group's busy run can add to a wait without
	 * inheritance, so the control shows inversions, not stalls */
	if (o->stall_ms < 20 || o->stall_ms > 600000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "ipc.pi.stress.stall_ms must be 20 .. 600000");
	if (rtb_port_info()->prio_max < PRIO_H + 1)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs %d priority levels", PRIO_H + 2);
	return RTB_OK;
}

/* The control runs for PI_CONTROL_MS, or the duration if shorter. */
static uint64_t pi_control_ms(const struct pi_options *o)
{
	return RTB_MIN(o->duration_ms, (uint64_t)PI_CONTROL_MS);
}

static void pi_emit_verdict(struct rtb_verdict *v, const struct pi_options *opt,
			    const struct pi_outcome *main_run, const struct pi_outcome *ctl,
			    bool ctl_ran, const char *ctl_why_not)
{
	char elapsed[32], burst[32];

	rtb_verdict_init(v, pi_id, NULL, "priority_inheritance_stress");
	v->outcome = rtb_check_ipc_pi(&main_run->obs, v->reason, sizeof(v->reason));
	rtb_verdict_evidence(v, "mechanism: %s", rtb_port_mutex_mechanism(opt->protocol));
	rtb_verdict_evidence(v, "priorities: L %d, M %d, H %d in every group; watchdog %d", PRIO_L,
			     PRIO_M, PRIO_H, rtb_port_info()->prio_max);
	rtb_fmt_ns(elapsed, sizeof(elapsed), rtb_ticks_to_ns(main_run->elapsed_ticks));
	rtb_fmt_ns(burst, sizeof(burst), PI_BURST_NS);
	rtb_verdict_evidence(v,
			     "groups: %u, ran %s (planned %llu ms): %llu iterations; M's busy run "
			     "%s at most, stall bound %llu ms",
			     (unsigned)opt->groups, elapsed, (unsigned long long)opt->duration_ms,
			     (unsigned long long)pi_total(&main_run->obs, false), burst,
			     (unsigned long long)opt->stall_ms);
	pi_group_lines(v, &main_run->obs, false);
	if (main_run->obs.cut_short)
		rtb_verdict_evidence(v, "stopped before the planned duration (time budget or "
					"stop request); judged on what ran");
	enum rtb_outcome co = pi_control(v, ctl, ctl_ran, ctl_why_not);
	rtb_verdict_conclude(v, co, "the same groups on mutexes without protocol (%s) for %llu ms",
			     rtb_port_mutex_mechanism(RTB_MUTEX_NONE),
			     (unsigned long long)pi_control_ms(opt));
}

static int run_pi_stress(struct rtb_ctx *ctx)
{
	struct pi_options opt = {.protocol = RTB_MUTEX_INHERIT};
	struct rtb_recorder rec;
	struct pi_outcome *outs = NULL;
	struct rtb_verdict *v = NULL;
	struct pi_run *run = NULL;
	volatile uint64_t *rings = NULL;
	bool raised = false, rec_ok = false, left = false, ctl_ran = false;
	const char *why_not = "";
	int rc = pi_options(ctx, &opt);

	if (rc != RTB_OK)
		return rc;
	struct rtb_metric m = {.scenario = pi_id,
			       .metric = "high_wait",
			       .title = "PI mutex under stress: high thread's lock call until it "
					"holds the mutex",
			       .unit = "ticks"};
	rtb_metric_param_str(&m, "protocol", protocol_name(opt.protocol));
	rtb_metric_param(&m, "groups", opt.groups);
	size_t ring_bytes = sizeof(uint64_t) * PI_RING * RTB_IPC_PI_GROUPS_MAX;
	run = rtb_port_mem_alloc(sizeof(*run));
	rings = rtb_port_mem_alloc(ring_bytes);
	outs = rtb_port_mem_alloc(2 * sizeof(*outs));
	v = rtb_port_mem_alloc(sizeof(*v));
	if (run == NULL || rings == NULL || outs == NULL || v == NULL) {
		rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
		goto out;
	}
	rc = rtb_recorder_init(&rec, &m, PI_WARMUP, ctx->raw_max);
	if (rc != RTB_OK) {
		rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorder");
		goto out;
	}
	rec_ok = true;
	rtb_memset(run, 0, sizeof(*run));
	rtb_memset((void *)rings, 0, ring_bytes); /* touched before any timed path */
	for (uint32_t i = 0; i < RTB_IPC_PI_GROUPS_MAX; i++)
		run->group[i].ring = rings + (size_t)i * PI_RING;
	run->burst_ticks = rtb_ns_to_ticks(PI_BURST_NS);
	run->chunk_ticks = rtb_ns_to_ticks(PI_CHUNK_NS);
	run->stall_ticks = rtb_ns_to_ticks(opt.stall_ms * 1000000u);

	/* the controller outranks every group: it is their watchdog */
	rc = rtb_port_thread_set_priority(NULL, rtb_port_info()->prio_max);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot raise the controller to priority %d: %s",
			     rtb_port_info()->prio_max, rtb_port_strerror(rc));
		goto out;
	}
	raised = true;

	rc = pi_run(ctx, run, opt.groups, opt.protocol, opt.duration_ms, &rec,
		    opt.duration_ms >= 10000u, &outs[0]);
	left = outs[0].left_threads;
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "a mutex or semaphore operation failed: %s",
			     rtb_port_strerror(rc));
		goto out;
	}
	if (left) {
		why_not = "threads of the run under test did not end";
	} else if (rtb_ctx_expired(ctx)) {
		why_not = rtb_ctx_expired_cause(ctx);
	} else {
		rc = pi_run(ctx, run, opt.groups, RTB_MUTEX_NONE, pi_control_ms(&opt), NULL, false,
			    &outs[1]);
		left = outs[1].left_threads;
		if (rc != RTB_OK) {
			rtb_ctx_fail(ctx, rc, "the control run failed: %s", rtb_port_strerror(rc));
			goto out;
		}
		ctl_ran = true;
	}
	rtb_port_thread_set_priority(NULL, 0);
	raised = false;

	pi_emit_verdict(v, &opt, &outs[0], &outs[1], ctl_ran, why_not);
	rtb_emit_result(&rec);
	pi_table(&outs[0], &outs[1], ctl_ran);
	if (outs[0].dropped > 0)
		rtb_emit_log(pi_id, "warning",
			     "%llu wait samples did not fit the hand-over ring (the watchdog "
			     "was held off): counted invalid",
			     (unsigned long long)outs[0].dropped);
out:
	if (raised)
		rtb_port_thread_set_priority(NULL, 0);
	if (rec_ok)
		rtb_recorder_free(&rec);
	if (left) {
		/* a thread blocked for good still refers to run and rings */
		rtb_emit_log(pi_id, "warning",
			     "some threads did not end (blocked in the platform); they and their "
			     "objects are left in place");
	} else {
		rtb_port_mem_free(run);
		rtb_port_mem_free((void *)rings);
	}
	rtb_port_mem_free(outs);
	rtb_port_mem_free(v);
	return rc;
}

static const struct rtb_option_spec ipc_pi_stress_options[] = {
	RTB_OPT_WORD("ipc.pi.stress.protocol", "inherit|none",
		     "mutex protocol of the groups (none: a platform without inheritance)"),
	RTB_OPT_N("groups", 1u, 8u, "low/medium/high thread groups"),
	RTB_OPT_LEN("duration_ms", 1u, 864000000u, "how long the scenario measures, in ms"),
	RTB_OPT_N("ipc.pi.stress.stall_ms", 1u, 3600000u,
		  "a high thread waiting longer than this is a stall"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_ipc_pi_stress = {
	.name = "ipc.pi.stress",
	.ids = {{"ipc.pi.stress", NULL}},
	.summary = "Groups of low/medium/high threads hammering priority-inheritance mutexes",
	.estimate_ms = {3600, 60600, 3600600},
	.deadline_ms = {30000, 120000, 4800000},
	.caps = RTB_CAP_REALTIME | RTB_CAP_MUTEX_INHERIT,
	.options = ipc_pi_stress_options,
	.run = run_pi_stress,
};
