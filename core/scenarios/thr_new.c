/* SPDX-License-Identifier: Apache-2.0 */
/*
 * THR: scheduling of a newly created thread (THR-B-NEW).
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
 * The lower thread's handover is not one sleep: the creator sleeps again
 * until the new thread has run, measuring how long it was blocked, and
 * lower_waits fails for "did not run" only after RTB_THR_NEW_DECIDE_NS
 * blocked (a busy host or an emulator can give the platform no CPU during
 * one short sleep); inconclusive when the sleeps ended sooner. Under RR, an
 * equal_to_tail observation where the thread ran during the busy work
 * after create returned (a slice may have ended there) is made again, up
 * to NEW_ATTEMPTS times; the evidence counts them. Option withhold=N: a
 * thread above the creator takes the CPU through its first N sleeps.
 * Under RR with an OS time slice under 4 ms (an OS that slices at its
 * tick), the busy work is a quarter of the slice and each observation
 * starts after a minimal sleep, so it begins and ends inside one slice. A
 * policy the port lacks has its checks unsupported with the port's reason
 * (lacks.policy_rr, lacks.policy_fifo: an OS with one policy per build).
 */
#include "thr.h"

static const char *policy_name(enum rtb_policy p)
{
	return p == RTB_POLICY_RR ? "rr" : "fifo";
}

/* ---- THR-B-NEW ------------------------------------------------------------ */

#define NEW_PRIO 2		 /* the creator */
#define NEW_WORK_NS 1000000u	 /* creator's busy work between create and handover */
#define NEW_SLEEP_NS 2000000u	 /* the creator's blocking call */
#define NEW_SLEEPS_MAX 500u	 /* its sleeps in one block, at most */
#define NEW_ATTEMPTS 3u		 /* observations of equal_to_tail under round robin */
#define NEW_WITHHOLD_MAX 16u	 /* option withhold, at most */
#define NEW_HOG_EXTRA_NS 500000u /* the withholding thread outlasts a sleep by this */
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
	/* option withhold: a thread above the creator keeps the CPU through the
	 * creator's first `withhold` sleeps of the lower_waits observation */
	uint32_t withhold;
	struct rtb_thread *hog;
	volatile uint64_t hog_until; /* counter value its spin ends at */
	volatile bool hog_stop;
	bool hog_missing; /* it could not be created */
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

/* The withholding thread (option withhold): each time it is resumed it
 * spins until hog_until, bounded by that end time on the counter. */
static void new_hog_main(void *arg)
{
	struct new_env *env = arg;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (env->hog_stop)
			return;
		while ((int64_t)(rtb_port_counter_read() - env->hog_until) < 0 &&
		       !rtb_port_stop_requested())
			rtb_port_cpu_relax();
	}
}

/* One sleep of the creator during which the withholding thread holds the
 * CPU: the creator raises itself above it, makes it ready and sleeps; the
 * CPU goes to it, not to the lower thread; the creator, back at its own
 * priority, runs again once the spin ends. */
static void new_withheld_sleep(struct new_env *env)
{
	rtb_port_thread_set_priority(NULL, NEW_PRIO + 2);
	env->hog_until = rtb_port_counter_read() + rtb_ns_to_ticks(NEW_SLEEP_NS + NEW_HOG_EXTRA_NS);
	rtb_port_thread_resume(env->hog);
	rtb_port_sleep_ns(NEW_SLEEP_NS);
	rtb_port_thread_set_priority(NULL, NEW_PRIO);
}

/* The creator's block: it sleeps until the new thread has run, at most
 * RTB_THR_NEW_DECIDE_NS blocked in all (NEW_SLEEPS_MAX sleeps), and notes
 * how long it was really blocked. One short sleep is not enough to decide:
 * a machine that gives the platform no CPU for that long (a busy host, an
 * emulator) keeps the new thread from running in it. */
static void new_block(struct new_env *env, const struct new_thread *t, struct rtb_thr_new_obs *o,
		      uint32_t withhold)
{
	if (env->pending != NULL) {
		rtb_port_thread_start(env->pending);
		env->pending = NULL;
	}
	do {
		uint64_t t0 = rtb_port_counter_read();
		if (o->sleeps < withhold && env->hog != NULL)
			new_withheld_sleep(env);
		else
			rtb_port_sleep_ns(NEW_SLEEP_NS);
		o->blocked_ns += rtb_ticks_to_ns(rtb_port_counter_read() - t0);
		if (++o->sleeps == 1)
			o->first_block_ns = o->blocked_ns;
	} while (t->seq == 0 && o->blocked_ns < RTB_THR_NEW_DECIDE_NS &&
		 o->sleeps < NEW_SLEEPS_MAX && !rtb_port_stop_requested());
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
		new_block(env, &t, &o,
			  kind == env->platform && check == RTB_THR_NEW_LOWER_WAITS ? env->withhold
										    : 0);
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

/* Under round robin an equal-priority thread may run during the creator's
 * busy work because the creator's time slice ended there, not because
 * creation put it first. A thread put at the head runs at once (before
 * create returns) or at the same point every time; a slice ends at one
 * point by chance: such an observation is made again, up to NEW_ATTEMPTS
 * times, and the last one is decided (the evidence counts the others). */
static struct rtb_thr_new_obs new_observe_decided(struct new_env *env, enum new_create_kind kind,
						  enum rtb_thr_new_check check)
{
	struct rtb_thr_new_obs o;
	uint32_t attempts = 0, slice_attempts = 0;

	for (;;) {
		o = new_observe(env, kind, check);
		attempts++;
		bool slice_may_have_ended = env->policy == RTB_POLICY_RR &&
					    check == RTB_THR_NEW_EQUAL_TO_TAIL && o.created &&
					    o.ran_before_handover && !o.ran_at_create_return;
		if (!slice_may_have_ended || attempts >= NEW_ATTEMPTS)
			break;
		slice_attempts++;
	}
	o.attempts = attempts;
	o.slice_attempts = slice_attempts;
	return o;
}

static enum new_create_kind new_control_kind(enum rtb_thr_new_check c)
{
	return c == RTB_THR_NEW_LOWER_WAITS || c == RTB_THR_NEW_EQUAL_TO_TAIL ? CREATE_EAGER
									      : CREATE_LAZY;
}

static void new_creator_main(void *arg)
{
	struct new_env *env = arg;
	struct rtb_thread_attr hog = {
		.name = "thr-withhold", .prio = NEW_PRIO + 1, .policy = env->policy};

	/* it runs at once (it outranks us) and suspends itself */
	if (env->withhold > 0 && rtb_port_thread_create(&env->hog, &hog, new_hog_main, env) != 0) {
		env->hog = NULL;
		env->hog_missing = true;
	}

	for (int c = 0; c < RTB_THR_NEW_CHECKS; c++) {
		enum rtb_thr_new_check check = (enum rtb_thr_new_check)c;
		env->real[c] = new_observe_decided(env, env->platform, check);
		env->control[c] = new_observe_decided(env, new_control_kind(check), check);
	}
	for (int lc = 0; lc < 3; lc++)
		new_landing(env, (enum landing_case)lc);
	if (env->hog != NULL) {
		env->hog_stop = true;
		rtb_port_thread_resume(env->hog);
	}
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
	if (o->slice_attempts > 0)
		line(v,
		     "observed %" RTB_PRIu32 " times: in the %" RTB_PRIu32
		     " before this one it ran during the creator's busy work after create had "
		     "returned, where the end of a round-robin time slice explains it",
		     o->attempts, o->slice_attempts);
	if (equal) {
		line(v, "when the creator's yield returned, it %s",
		     ran_text(o->ran_after_handover));
		return;
	}
	if (o->sleeps == 0)
		return;
	char first[32], all[32];
	rtb_fmt_ns(first, sizeof(first), o->first_block_ns);
	rtb_fmt_ns(all, sizeof(all), o->blocked_ns);
	if (o->sleeps == 1) {
		line(v, "when the creator's 2 ms sleep returned (blocked %s), it %s", first,
		     ran_text(o->ran_after_handover));
		return;
	}
	line(v, "when the creator's first 2 ms sleep returned (blocked %s), it had not run", first);
	line(v,
	     "the creator slept again until it had: %" RTB_PRIu32
	     " sleeps, %s blocked in all; it %s",
	     o->sleeps, all, ran_text(o->ran_after_handover));
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
		if (env->withhold > 0 && check == RTB_THR_NEW_LOWER_WAITS)
			rtb_verdict_evidence(&v,
					     "withhold=%" RTB_PRIu32
					     ": a thread above the creator kept "
					     "the CPU through its first %" RTB_PRIu32
					     " sleeps, as a busy host would%s",
					     env->withhold, env->withhold,
					     env->hog_missing ? " (it could not be created)" : "");
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
	if (env->hog != NULL)
		rtb_port_thread_delete(env->hog);
	env->hog = NULL;
	rtb_port_sem_delete(env->done);
	if (rc == RTB_OK && env->error != RTB_OK)
		rtb_emit_log("thr.create.behavior", "warning",
			     "%s: a thread could not be created or reprioritised: %s",
			     policy_name(env->policy), rtb_port_strerror(env->error));
	return rc;
}

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
	uint64_t slice = env->policy == RTB_POLICY_RR ? thr_rr_os_slice(interval, timeslice) : 0;

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
	uint64_t withhold = rtb_ctx_count(ctx, "thr.create.behavior.withhold", 0, 0, 0);
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
		env->withhold = (uint32_t)withhold;
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
	RTB_OPT_N("thr.create.behavior.withhold", 0u, NEW_WITHHOLD_MAX,
		  "a thread above the creator keeps the CPU through the creator's first N "
		  "sleeps while a lower-priority new thread waits (what a busy or emulated "
		  "machine does to the platform): the check must still decide"),
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
