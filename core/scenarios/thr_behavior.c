/* SPDX-License-Identifier: Apache-2.0 */
/*
 * THR: scheduler behaviour (THR-B-NEW, THR-B-RR).
 *
 * thr.create.behavior (THR-B-NEW). For each policy (FIFO, then RR) the
 * controller (relative 0, blocked meanwhile) creates a creator thread at
 * relative 2 with that policy. The creator makes one new thread per check,
 * with the same policy, and notes whether the new thread's first
 * instruction has run at three moments: when create returns, after 1 ms of
 * busy work, and when its handover returns (a 2 ms sleep for the lower
 * thread, a yield for the equal one):
 *   lower_waits        new thread at 1: not run before the creator blocks, run then
 *   equal_to_tail      new thread at 2: not run before the creator yields
 *   equal_after_yield  new thread at 2: run by the time the yield returns
 *   higher_preempts    new thread at 3: run before create returns
 * Then it records where a thread whose priority is lowered lands in its new
 * ready queue: it raises itself to 4, creates Y at 2 and X at 3 (neither
 * runs), and drops to 1; either X lowers itself to 2 when it runs (case
 * "running thread lowers itself") or the creator lowered X to 2 while it was
 * still ready (case "ready thread lowered by another"). Whichever of X and Y
 * runs first at priority 2 was at the head. A third case, X created at 1 and
 * raised to 2 while ready, is recorded as a reference (a scheduler that
 * queues raised threads at the tail shows that the observation can tell
 * head from tail). That is an observation, reported in a table, not a
 * verdict.
 * Negative controls, run by the same creator through the same observation
 * code and decision function: an "eager" creation wrapper that hands the
 * CPU to the new thread at once (it sleeps after creating), as an OS that
 * runs every new thread immediately would: lower_waits and equal_to_tail
 * must fail; a "lazy" wrapper that creates the thread suspended and starts
 * it only when the creator blocks, as an OS that never preempts at creation
 * would: equal_after_yield and higher_preempts must fail. The option
 * thr.create.behavior.create=eager|lazy makes the platform-under-test run
 * use the same wrapper, so a conformance test can see the checks fail.
 * Under RR with an OS time slice under 4 ms (an OS that slices at its
 * tick), the busy work is a quarter of the slice and each observation
 * starts after a minimal sleep, so it begins and ends inside one slice. A
 * policy the port lacks has its checks unsupported with the port's reason
 * (lacks.policy_rr, lacks.policy_fifo: an OS with one policy per build).
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
 * used before the next scenario.
 */
#include "rtb/check_thr.h"
#include "rtb/core.h"

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
	rtb_fmt(buf, len, "%llu.%03llu ms", (unsigned long long)(ns / 1000000u),
		(unsigned long long)(ns / 1000u % 1000u));
}

static const char *policy_name(enum rtb_policy p)
{
	return p == RTB_POLICY_RR ? "rr" : "fifo";
}

/* ---- THR-B-NEW ------------------------------------------------------------ */

#define NEW_PRIO 2		 /* the creator */
#define NEW_WORK_NS 1000000u	 /* creator's busy work between create and handover */
#define NEW_SLEEP_NS 2000000u	 /* the creator's blocking call */
#define NEW_WAIT_NS 10000000000u /* bound on one policy's whole run */

enum new_create_kind {
	CREATE_PLATFORM = 0, /* rtb_port_thread_create as is */
	CREATE_EAGER = 1,    /* control: hand the CPU to the new thread at once */
	CREATE_LAZY = 2,     /* control: start the new thread only when the creator blocks */
};

static const char *const create_kind_description[] = {
	"the platform's own thread creation",
	"creation wrapper that hands the CPU to the new thread at once (the creator sleeps "
	"right after creating), as an OS that runs every new thread immediately would",
	"creation wrapper that creates the thread suspended and starts it only when the "
	"creator blocks, as an OS that never preempts at creation would",
};

struct new_env;

struct new_thread {
	struct new_env *env;
	int lower_self_to;	     /* -1, or the priority it lowers itself to */
	volatile uint32_t seq;	     /* order number of its first instruction, 0: not yet */
	volatile uint32_t after_seq; /* order number once it lowered itself */
};

struct new_env {
	enum rtb_policy policy;
	enum new_create_kind platform;
	uint64_t work_ns;  /* the creator's busy work between create and handover */
	uint64_t slice_ns; /* the OS's round-robin slice when work_ns was cut to it */
	volatile uint32_t seq;
	struct rtb_thread *pending; /* lazy wrapper: created, not started */
	int error;		    /* first port error */
	struct rtb_thr_new_obs real[RTB_THR_NEW_CHECKS];
	struct rtb_thr_new_obs control[RTB_THR_NEW_CHECKS];
	uint32_t land_x[3]; /* order numbers per landing case */
	uint32_t land_y[3];
	struct rtb_sem *done;
};

static void new_main(void *arg)
{
	struct new_thread *t = arg;

	t->seq = ++t->env->seq;
	if (t->lower_self_to >= 0) {
		rtb_port_thread_set_priority(NULL, t->lower_self_to);
		t->after_seq = ++t->env->seq;
	}
}

static int new_create(struct new_env *env, enum new_create_kind kind, struct rtb_thread **out,
		      int prio, struct new_thread *t)
{
	struct rtb_thread_attr a = {.name = "thr-new",
				    .prio = prio,
				    .policy = env->policy,
				    .start_suspended = kind == CREATE_LAZY};
	int rc = rtb_port_thread_create(out, &a, new_main, t);

	if (rc != RTB_OK)
		return rc;
	if (kind == CREATE_LAZY)
		env->pending = *out;
	else if (kind == CREATE_EAGER)
		rtb_port_sleep_ns(NEW_SLEEP_NS);
	return RTB_OK;
}

static void new_block(struct new_env *env)
{
	if (env->pending != NULL) {
		rtb_port_thread_start(env->pending);
		env->pending = NULL;
	}
	rtb_port_sleep_ns(NEW_SLEEP_NS);
}

static struct rtb_thr_new_obs new_observe(struct new_env *env, enum new_create_kind kind,
					  enum rtb_thr_new_check check)
{
	struct rtb_thr_new_obs o = {0};
	struct new_thread t = {.env = env, .lower_self_to = -1};
	struct rtb_thread *th = NULL;
	int prio = check == RTB_THR_NEW_LOWER_WAITS	  ? NEW_PRIO - 1
		   : check == RTB_THR_NEW_HIGHER_PREEMPTS ? NEW_PRIO + 1
							  : NEW_PRIO;
	bool equal = check == RTB_THR_NEW_EQUAL_TO_TAIL || check == RTB_THR_NEW_EQUAL_AFTER_YIELD;

	env->pending = NULL;
	/* a short slice: start one (a minimal sleep ends at the next tick, where
	 * an OS that slices at the tick begins a slice), so the busy work ends
	 * inside it */
	if (env->slice_ns != 0)
		rtb_port_sleep_ns(0);
	int rc = new_create(env, kind, &th, prio, &t);
	if (rc != RTB_OK) {
		if (env->error == RTB_OK)
			env->error = rc;
		return o;
	}
	o.created = true;
	o.ran_at_create_return = t.seq != 0;
	rtb_spin_ticks(rtb_ns_to_ticks(env->work_ns));
	o.ran_before_handover = t.seq != 0;
	if (equal)
		rtb_port_thread_yield();
	else
		new_block(env);
	o.ran_after_handover = t.seq != 0;
	rtb_port_thread_delete(th);
	env->pending = NULL;
	return o;
}

enum landing_case {
	LAND_SELF_LOWERED = 0,	/* running thread lowers itself */
	LAND_OTHER_LOWERED = 1, /* ready thread lowered by another */
	LAND_OTHER_RAISED = 2,	/* ready thread raised by another (reference) */
};

static const char *const landing_case_text[3] = {
	"running thread lowers itself",
	"ready thread lowered by another",
	"ready thread raised by another (reference)",
};

/* The creator, raised above everything, creates Y at NEW_PRIO and then X
 * one level above (lowering cases) or below (raising case); neither runs.
 * X's priority becomes NEW_PRIO: X lowers itself when it runs, or the
 * creator changes it while X is ready. The creator then drops below both
 * and is back once both have run. */
static void new_landing(struct new_env *env, enum landing_case lc)
{
	struct new_thread x = {.env = env,
			       .lower_self_to = lc == LAND_SELF_LOWERED ? NEW_PRIO : -1};
	struct new_thread y = {.env = env, .lower_self_to = -1};
	struct rtb_thread *tx = NULL, *ty = NULL;
	struct rtb_thread_attr a = {.name = "thr-land", .policy = env->policy};
	int rc;

	rtb_port_thread_set_priority(NULL, NEW_PRIO + 2);
	a.prio = NEW_PRIO;
	rc = rtb_port_thread_create(&ty, &a, new_main, &y);
	a.prio = lc == LAND_OTHER_RAISED ? NEW_PRIO - 1 : NEW_PRIO + 1;
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&tx, &a, new_main, &x);
	if (rc == RTB_OK && lc != LAND_SELF_LOWERED)
		rc = rtb_port_thread_set_priority(tx, NEW_PRIO);
	if (rc != RTB_OK && env->error == RTB_OK)
		env->error = rc;
	rtb_port_thread_set_priority(NULL, NEW_PRIO - 1);
	/* both have run (or failed) when we get the CPU back */
	rtb_port_thread_set_priority(NULL, NEW_PRIO);
	if (tx != NULL)
		rtb_port_thread_delete(tx);
	if (ty != NULL)
		rtb_port_thread_delete(ty);
	env->land_x[lc] = lc == LAND_SELF_LOWERED ? x.after_seq : x.seq;
	env->land_y[lc] = y.seq;
}

static enum new_create_kind new_control_kind(enum rtb_thr_new_check c)
{
	return c == RTB_THR_NEW_LOWER_WAITS || c == RTB_THR_NEW_EQUAL_TO_TAIL ? CREATE_EAGER
									      : CREATE_LAZY;
}

static void new_creator_main(void *arg)
{
	struct new_env *env = arg;

	for (int c = 0; c < RTB_THR_NEW_CHECKS; c++) {
		enum rtb_thr_new_check check = (enum rtb_thr_new_check)c;
		env->real[c] = new_observe(env, env->platform, check);
		env->control[c] = new_observe(env, new_control_kind(check), check);
	}
	for (int lc = 0; lc < 3; lc++)
		new_landing(env, (enum landing_case)lc);
	rtb_port_sem_signal(env->done);
}

static const char *ran_text(bool ran)
{
	return ran ? "had run" : "had not run";
}

static void new_obs_lines(struct rtb_verdict *v, bool control, enum rtb_thr_new_check c,
			  const struct rtb_thr_new_obs *o, uint64_t work_ns)
{
	void (*line)(struct rtb_verdict *, const char *, ...) =
		control ? rtb_verdict_control_evidence : rtb_verdict_evidence;
	bool equal = c == RTB_THR_NEW_EQUAL_TO_TAIL || c == RTB_THR_NEW_EQUAL_AFTER_YIELD;
	char work[32];

	if (!o->created) {
		line(v, "the new thread could not be created");
		return;
	}
	line(v, "when create returned, the new thread %s", ran_text(o->ran_at_create_return));
	rtb_fmt_ns(work, sizeof(work), work_ns);
	line(v, "after %s of busy work by the creator, it %s", work,
	     ran_text(o->ran_before_handover));
	line(v, "when the creator's %s returned, it %s", equal ? "yield" : "2 ms sleep",
	     ran_text(o->ran_after_handover));
}

static void new_emit_verdicts(const struct new_env *env, const char *unsupported)
{
	static const char *const checks[2][RTB_THR_NEW_CHECKS] = {
		{"fifo.lower_waits", "fifo.equal_to_tail", "fifo.equal_after_yield",
		 "fifo.higher_preempts"},
		{"rr.lower_waits", "rr.equal_to_tail", "rr.equal_after_yield",
		 "rr.higher_preempts"},
	};
	static const int offsets[RTB_THR_NEW_CHECKS] = {-1, 0, 0, 1};
	struct rtb_verdict v;
	const char *pol = env->policy == RTB_POLICY_RR ? "RR" : "FIFO";

	for (int c = 0; c < RTB_THR_NEW_CHECKS; c++) {
		enum rtb_thr_new_check check = (enum rtb_thr_new_check)c;
		rtb_verdict_init(&v, "thr.create.behavior", "THR-B-NEW",
				 checks[env->policy == RTB_POLICY_RR][c]);
		if (unsupported != NULL) {
			v.outcome = RTB_UNSUPPORTED;
			rtb_verdict_reason(&v, "%s", unsupported);
			rtb_verdict_conclude(&v, RTB_UNSUPPORTED, "not run: %s", unsupported);
			continue;
		}
		v.outcome = rtb_check_thr_new(check, &env->real[c], v.reason, sizeof(v.reason));
		rtb_verdict_evidence(&v, "creator at relative priority %d (%s), new thread at %d",
				     NEW_PRIO, pol, NEW_PRIO + offsets[c]);
		if (env->slice_ns != 0) {
			char slice[32], work[32];
			rtb_fmt_ns(slice, sizeof(slice), env->slice_ns);
			rtb_fmt_ns(work, sizeof(work), env->work_ns);
			rtb_verdict_evidence(&v,
					     "the OS's round-robin time slice is %s: the creator's "
					     "busy work is %s, begun just after a minimal sleep so "
					     "that it ends inside the slice it began in",
					     slice, work);
		}
		if (env->platform != CREATE_PLATFORM)
			rtb_verdict_evidence(&v,
					     "platform run forced to use %s creation (option "
					     "thr.create.behavior.create)",
					     env->platform == CREATE_EAGER ? "eager" : "lazy");
		new_obs_lines(&v, false, check, &env->real[c], env->work_ns);

		enum new_create_kind ck = new_control_kind(check);
		char why[RTB_LINE_MAX];
		enum rtb_outcome co = rtb_check_thr_new(check, &env->control[c], why, sizeof(why));
		new_obs_lines(&v, true, check, &env->control[c], env->work_ns);
		rtb_verdict_control_evidence(&v, "outcome %s: %s", rtb_outcome_name(co), why);
		rtb_verdict_conclude(&v, co, "%s", create_kind_description[ck]);
	}
}

static void landing_row(struct rtb_json *j, const struct new_env *env, enum landing_case lc,
			const char *unsupported)
{
	enum rtb_thr_landing l = rtb_thr_landing_of(env->land_x[lc], env->land_y[lc]);

	rtb_json_arr_begin(j);
	rtb_json_str(j, env->policy == RTB_POLICY_RR ? "RR" : "FIFO");
	rtb_json_str(j, landing_case_text[lc]);
	if (unsupported != NULL) {
		rtb_json_str(j, "unsupported");
		rtb_json_str(j, unsupported);
	} else {
		rtb_json_str(j, rtb_thr_landing_name(l));
		rtb_json_str(j, l == RTB_THR_LANDING_HEAD ? "the reprioritised thread ran first"
				: l == RTB_THR_LANDING_TAIL
					? "the thread already waiting ran first"
					: "not observed (a thread did not run)");
	}
	rtb_json_arr_end(j);
}

static int new_run_policy(struct rtb_ctx *ctx, struct new_env *env)
{
	struct rtb_thread *creator = NULL;
	struct rtb_thread_attr a = {.name = "thr-creator", .prio = NEW_PRIO, .policy = env->policy};
	int rc = rtb_port_sem_create(&env->done, 0);

	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "cannot create a semaphore: %s",
				    rtb_port_strerror(rc));
	/* the creator outranks us: it runs now, and we wait below it */
	rc = rtb_port_thread_create(&creator, &a, new_creator_main, env);
	if (rc == RTB_OK) {
		rc = rtb_port_sem_timedwait(env->done, NEW_WAIT_NS);
		rtb_port_thread_delete(creator);
		if (rc != RTB_OK)
			rtb_ctx_fail(ctx, rc, "the %s creator thread did not finish in time",
				     policy_name(env->policy));
	} else {
		rtb_ctx_fail(ctx, rc, "cannot create the creator thread: %s",
			     rtb_port_strerror(rc));
	}
	rtb_port_sem_delete(env->done);
	if (rc == RTB_OK && env->error != RTB_OK)
		rtb_emit_log("thr.create.behavior", "warning",
			     "%s: a thread could not be created or reprioritised: %s",
			     policy_name(env->policy), rtb_port_strerror(env->error));
	return rc;
}

static uint64_t rr_os_slice(char *interval, char *timeslice);

/* Why the port cannot run `policy` as the contract says, in buf; NULL when it
 * can. FIFO: the port answers "lacks.policy_fifo" (its OS time-slices every
 * thread of a priority); round-robin: no RTB_CAP_POLICY_RR. */
static const char *new_policy_missing(enum rtb_policy policy, char *buf, size_t len)
{
	char why[RTB_LINE_MAX];
	const char *lack;

	if (policy == RTB_POLICY_FIFO) {
		lack = rtb_port_lacks("policy_fifo", why, sizeof(why));
		if (lack == NULL)
			return NULL;
		rtb_fmt(buf, len, "no FIFO policy among equal priorities: %s", lack);
		return buf;
	}
	if (rtb_port_info()->caps & RTB_CAP_POLICY_RR)
		return NULL;
	lack = rtb_port_lacks("policy_rr", why, sizeof(why));
	rtb_fmt(buf, len, "the port has no round-robin policy%s%s", lack != NULL ? ": " : "",
		lack != NULL ? lack : "");
	return buf;
}

/* The creator's busy work under `policy`: NEW_WORK_NS, or a quarter of the
 * OS's round-robin slice when that is shorter than 4 x NEW_WORK_NS (an OS
 * that slices at its tick), so that an equal-priority thread cannot take
 * the CPU at the end of the creator's slice before it yields. */
static void new_work(struct new_env *env)
{
	char interval[32], timeslice[32];
	uint64_t slice = env->policy == RTB_POLICY_RR ? rr_os_slice(interval, timeslice) : 0;

	env->work_ns = NEW_WORK_NS;
	env->slice_ns = 0;
	if (slice != 0 && slice / 4 < NEW_WORK_NS) {
		env->work_ns = slice / 4;
		env->slice_ns = slice;
	}
}

static int run_create_behavior(struct rtb_ctx *ctx)
{
	struct new_env *envs; /* [0] FIFO, [1] round robin */
	const struct rtb_port_info *info = rtb_port_info();
	static const char *const creations[] = {"normal", "eager", "lazy"}; /* new_create_kind */
	int creation = rtb_ctx_choice(ctx, "thr.create.behavior.create", creations, 3);
	char missing_text[2][RTB_LINE_MAX];
	const char *missing[2];
	int rc = RTB_OK;

	if (creation < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "thr.create.behavior.create must be normal, eager or lazy");
	if (info->prio_max < NEW_PRIO + 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least five priority levels");
	envs = rtb_port_mem_alloc(2 * sizeof(*envs));
	if (envs == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	for (int p = 0; p < 2; p++) {
		struct new_env *env = &envs[p];
		rtb_memset(env, 0, sizeof(*env));
		env->policy = p == 0 ? RTB_POLICY_FIFO : RTB_POLICY_RR;
		env->platform = (enum new_create_kind)creation;
		missing[p] =
			new_policy_missing(env->policy, missing_text[p], sizeof(missing_text[p]));
		if (missing[p] != NULL) {
			new_emit_verdicts(env, missing[p]);
			continue;
		}
		new_work(env);
		rc = new_run_policy(ctx, env);
		if (rc != RTB_OK) {
			rtb_port_mem_free(envs);
			return rc;
		}
		new_emit_verdicts(env, NULL);
	}

	static const struct rtb_column cols[] = {
		{"policy", ""}, {"case", ""}, {"landing", ""}, {"observed", ""}};
	struct rtb_json *j =
		rtb_table_begin("thr.create.behavior", "lowered_priority_landing",
				"Where a thread whose priority is lowered lands in its new ready "
				"queue, next to a thread already waiting there (observation)",
				cols, RTB_ARRAY_SIZE(cols));
	for (int p = 0; p < 2; p++) {
		for (int lc = 0; lc < 3; lc++)
			landing_row(j, &envs[p], (enum landing_case)lc, missing[p]);
	}
	rtb_table_end(j);
	rtb_port_mem_free(envs);
	return RTB_OK;
}

static const struct rtb_option_spec thr_create_behavior_options[] = {
	RTB_OPT_WORD("thr.create.behavior.create", "normal|eager|lazy",
		     "thread creation under test (eager/lazy: a platform that runs new threads too "
		     "soon/late)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_thr_create_behavior = {
	.name = "thr.create.behavior",
	.ids = {{"thr.create.behavior", "THR-B-NEW"}},
	.summary = "Where a new thread goes in the ready queue; where a lowered thread lands",
	.estimate_ms = {100, 100, 100},
	.deadline_ms = {30000, 30000, 30000},
	.caps = RTB_CAP_REALTIME,
	.options = thr_create_behavior_options,
	.run = run_create_behavior,
};

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
static uint64_t rr_os_slice(char *interval, char *timeslice)
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

	uint64_t os_slice_ns = rr_os_slice(interval, timeslice);
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
