/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPC: the rt-tests interprocess-communication latency tools, measured on
 * the port's IPC channels (rtb_port_ipc_*: on POSIX real-time signals,
 * System V semaphores and POSIX message queues). A port without a kind
 * lacks its RTB_CAP_IPC_* bit and the scenario is reported unsupported.
 *
 * ipc.signal.wake (sigwaittest), ipc.sysv_sem.wake (svsematest) and
 * ipc.mq.wake (pmqtest). Three threads on the measurement CPU: the
 * controller (priority 0) only starts the run, waits for its end and
 * cleans up; the receiver (priority 2) and the sender (priority 1, or 2
 * with <id>.sender_priority=equal). Each iteration the receiver sleeps
 * `interval`, releases the sender through a second channel of the same
 * kind (the way back, as rt-tests does: the sender then wakes up through
 * the very code the receiver runs next, so that code is as warm in the
 * caches as in the tool; <id>.release=semaphore uses a port semaphore
 * instead) and waits on the measured channel. The sender, now the running thread,
 * reads the counter (t_post) right before it posts the channel; the receiver, woken, reads the
 * counter (t_woken) right after its wait returns. Sample = t_woken - t_post - overhead. With a
 * lower-priority sender the receiver preempts it inside the post, so the sample is the wake-up path
 * alone; with an equal one (what rt-tests 2.4 does: its sender and receiver share a priority) the
 * receiver runs only once the sender has blocked again, and the sample includes the rest of the
 * post and the sender's way back into its wait. A sample is invalid (counted) when the receiver did
 * not run at the point its mode expects: the sender numbers its posts and records the last one that
 * returned, which tells.
 *
 * ipc.signal.roundtrip (signaltest). Two threads, the initiator and the
 * echo, each the receiver of a signal channel, both at priority 1 (the
 * echo at 2 with .echo_priority=higher). The initiator reads the counter
 * (t0), posts the echo's channel and waits on its own; the echo, woken,
 * posts back and waits again; the initiator reads the counter (t1) when
 * its wait returns. Sample = t1 - t0 - overhead; invalid when the echo did
 * not answer exactly once. Round trips run back to back in bursts of 16,
 * then the initiator sleeps `interval` (10 ms), as signaltest's first
 * thread does. The signal is taken with sigwait (as signaltest does) or
 * with .delivery=handler by a signal handler.
 *
 * Every wait in a measured path is the untimed one (as rt-tests does), so
 * no timeout timer is cancelled on the way back; every such wait is ended
 * by a post. Loops end by count and by the time budget; the controller's
 * own wait is timed, and on a timeout it releases both threads with posts.
 */
#include "rtb/core.h"

/* An option `<id>.<name>`: the profile's value unless given. */
static uint64_t id_count(const struct rtb_ctx *ctx, const char *id, const char *name, uint64_t v)
{
	char key[96];

	rtb_fmt(key, sizeof(key), "%s.%s", id, name);
	return rtb_ctx_count(ctx, key, v, v, v);
}

static int id_choice(const struct rtb_ctx *ctx, const char *id, const char *name,
		     const char *const *words, uint32_t nwords)
{
	char key[96];

	rtb_fmt(key, sizeof(key), "%s.%s", id, name);
	return rtb_ctx_choice(ctx, key, words, nwords);
}

/* Wait for the measuring thread's end: up to the time budget and a second
 * more. */
static bool wait_done(const struct rtb_ctx *ctx, struct rtb_sem *done)
{
	uint64_t now = rtb_port_counter_read();
	uint64_t left = (int64_t)(ctx->budget_end_ticks - now) > 0
				? rtb_ticks_to_ns(ctx->budget_end_ticks - now)
				: 0;

	return rtb_port_sem_timedwait(done, left + 1000000000u) == RTB_OK;
}

/* ---- ipc.*.wake ---------------------------------------------------------------- */

struct wake_run {
	const struct rtb_ctx *ctx;
	struct rtb_ipc *chan; /* sender -> receiver: the one measured */
	struct rtb_ipc *back; /* receiver -> sender: post the next one */
	struct rtb_sem *go;   /* the way back with .release=semaphore */
	struct rtb_sem *done; /* receiver -> controller: finished */
	struct rtb_recorder rec;
	uint64_t total; /* iterations, warm-up included */
	uint64_t interval_ns;
	bool equal;
	volatile uint64_t t_post;
	volatile uint32_t post_begun;	 /* sender: number of the post it is making */
	volatile uint32_t post_returned; /* sender: number of the last post that returned */
	volatile uint64_t iterations;
	volatile uint64_t misplaced; /* samples invalid by order */
	volatile uint32_t rx_exited, tx_exited;
	volatile bool stop;
	volatile int receiver_rc, sender_rc;
};

static void wake_receiver(void *arg)
{
	struct wake_run *w = arg;

	for (uint64_t i = 0; i < w->total && !w->stop; i++) {
		if (rtb_ctx_expired(w->ctx))
			break;
		rtb_port_sleep_ns(w->interval_ns);
		int rc = w->go != NULL ? rtb_port_sem_signal(w->go) : rtb_port_ipc_post(w->back);
		if (rc == RTB_OK)
			rc = rtb_port_ipc_wait(w->chan);
		uint64_t t_woken = rtb_port_counter_read();
		if (rc != RTB_OK) {
			w->receiver_rc = rc;
			break;
		}
		if (w->stop)
			break; /* released by the controller, not by the sender */
		/* lower sender: preempted inside the post that woke us; equal:
		 * that post has returned */
		uint32_t post = w->post_begun;
		if (w->equal ? w->post_returned == post : w->post_returned != post) {
			rtb_recorder_add_interval(&w->rec, w->t_post, t_woken);
		} else {
			rtb_recorder_add_invalid(&w->rec);
			w->misplaced++;
		}
		w->iterations = i + 1;
	}
	w->rx_exited = 1;
	rtb_port_sem_signal(w->done);
}

static void wake_sender(void *arg)
{
	struct wake_run *w = arg;

	for (;;) {
		int rc = w->go != NULL ? rtb_port_sem_wait(w->go) : rtb_port_ipc_wait(w->back);
		if (rc != RTB_OK || w->stop) {
			w->sender_rc = rc;
			break;
		}
		uint32_t post = w->post_begun + 1;
		w->post_begun = post;
		w->t_post = rtb_port_counter_read();
		rc = rtb_port_ipc_post(w->chan);
		w->post_returned = post;
		if (rc != RTB_OK) {
			w->sender_rc = rc;
			break;
		}
	}
	w->tx_exited = 1;
}

struct wake_def {
	const char *id;
	const char *tool; /* the rt-tests program it mirrors */
	enum rtb_ipc_kind kind;
	const char *title;
};

static void wake_conditions(const struct wake_def *d, const struct wake_run *w, int sender_prio)
{
	const char *mech = rtb_port_ipc_mechanism(d->kind);
	struct rtb_json *j = rtb_conditions_begin(d->id, "How the wake-up was measured");

	rtb_conditions_row(j, "mechanism", "", "%s", mech != NULL ? mech : "?");
	rtb_conditions_row(j, "receiver priority", "", "2 (relative)");
	rtb_conditions_row(j, "sender priority", "", "%d (relative, %s)", sender_prio,
			   w->equal ? "equal to the receiver's" : "below the receiver's");
	rtb_conditions_row(j, "sender released through", "", "%s",
			   w->go != NULL ? "a port semaphore"
					 : "a second channel of the same kind");
	rtb_conditions_row(j, "threads pinned to CPU", "", "%d", rtb_port_info()->cpu);
	rtb_conditions_row(j, "interval", "ns", "%llu", (unsigned long long)w->interval_ns);
	rtb_conditions_row(j, "iterations (with warm-up)", "count", "%llu",
			   (unsigned long long)w->iterations);
	rtb_conditions_row(j, "invalid: receiver ran at the wrong point", "count", "%llu",
			   (unsigned long long)w->misplaced);
	rtb_conditions_row(j, "equivalent", "", "%s", d->tool);
	rtb_table_end(j);
}

static int run_wake(struct rtb_ctx *ctx, const struct wake_def *d)
{
	static const char *const modes[] = {"lower", "equal"};
	static const char *const releases[] = {"channel", "semaphore"};
	struct rtb_thread *rx = NULL, *tx = NULL;
	struct wake_run *w;
	int rc;

	if (rtb_port_info()->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs three priority levels");
	int mode = id_choice(ctx, d->id, "sender_priority", modes, RTB_ARRAY_SIZE(modes));
	int release = id_choice(ctx, d->id, "release", releases, RTB_ARRAY_SIZE(releases));
	if (mode < 0 || release < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "%s.sender_priority is lower or equal, %s.release channel or "
				    "semaphore",
				    d->id, d->id);
	uint64_t n = rtb_ctx_count(ctx, "iterations", 1000, 20000, 1000000);
	uint64_t interval = id_count(ctx, d->id, "interval_ns", 1000000);
	if (n < 1 || interval > 1000000000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "needs at least one iteration and an interval of at most 1 s");
	w = rtb_port_mem_alloc(sizeof(*w));
	if (w == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rtb_memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->equal = mode == 1;
	w->interval_ns = interval;
	uint32_t warm = rtb_warmup_for(n);
	w->total = n + warm;
	int sender_prio = w->equal ? 2 : 1;

	struct rtb_metric m = {
		.scenario = d->id, .metric = "wake", .title = d->title, .unit = "ticks"};
	rtb_metric_param(&m, "interval_ns", (int64_t)interval);
	rtb_metric_param_str(&m, "sender_priority", modes[mode]);
	rtb_metric_param_str(&m, "release", releases[release]);
	rc = rtb_recorder_init(&w->rec, &m, warm, ctx->raw_max);
	if (rc != RTB_OK) {
		rtb_port_mem_free(w);
		return rtb_ctx_fail(ctx, rc, "no memory for the recorder");
	}
	rc = rtb_port_sem_create(&w->done, 0);
	struct rtb_thread_attr ra = {.name = "ipc-receiver", .prio = 2, .start_suspended = true};
	struct rtb_thread_attr sa = {
		.name = "ipc-sender", .prio = sender_prio, .start_suspended = true};
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&rx, &ra, wake_receiver, w);
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&tx, &sa, wake_sender, w);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the semaphore and threads: %s",
			     rtb_port_strerror(rc));
		goto out;
	}
	rc = rtb_port_ipc_create(&w->chan, d->kind, rx);
	if (rc == RTB_OK && release == 0)
		rc = rtb_port_ipc_create(&w->back, d->kind, tx);
	if (rc == RTB_OK && release == 1)
		rc = rtb_port_sem_create(&w->go, 0);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the channels: %s", rtb_port_strerror(rc));
		goto out;
	}
	/* Each runs at once (above the controller) and blocks: the sender on
	 * the way back, then the receiver in its first interval. */
	rtb_port_thread_start(tx);
	rtb_port_thread_start(rx);
	bool finished = wait_done(ctx, w->done);
	w->stop = true;
	if (!finished)
		rtb_port_ipc_post(w->chan); /* release a receiver still waiting */
	if (w->go != NULL)
		rtb_port_sem_signal(w->go);
	else
		rtb_port_ipc_post(w->back);
	bool rx_ended = rtb_wait_count(&w->rx_exited, 1, 2000000000u);
	if (!rx_ended || !rtb_wait_count(&w->tx_exited, 1, 2000000000u)) {
		/* A thread still blocked in the OS cannot be reclaimed safely:
		 * leave it, with what it uses, to the end of the process. */
		return rtb_ctx_fail(ctx, RTB_E_OS, "the %s did not end after its release",
				    rx_ended ? "sender" : "receiver");
	}
	rtb_port_thread_delete(rx);
	rtb_port_thread_delete(tx);
	rx = tx = NULL;
	if (!finished || w->receiver_rc != RTB_OK) {
		rc = w->receiver_rc != RTB_OK ? w->receiver_rc : RTB_E_TIMEOUT;
		rtb_ctx_fail(ctx, rc, "the receiver stopped after %llu iterations: %s",
			     (unsigned long long)w->iterations, rtb_port_strerror(rc));
		goto out;
	}
	if (w->sender_rc != RTB_OK) {
		rc = w->sender_rc;
		rtb_ctx_fail(ctx, rc, "posting failed: %s", rtb_port_strerror(rc));
		goto out;
	}
	if (w->iterations < w->total)
		rtb_ctx_expired_after(ctx, w->iterations, w->total, "iterations");
	rtb_emit_log(d->id, "info", "%s, measured like %s: sender priority %s",
		     rtb_port_ipc_mechanism(d->kind), d->tool, modes[mode]);
	if (w->misplaced > 0)
		rtb_emit_log(d->id, "warning",
			     "%llu samples invalid: the receiver did not run where a %s sender "
			     "lets it (no real-time policy, or another thread on the CPU)",
			     (unsigned long long)w->misplaced, modes[mode]);
	rtb_emit_result(&w->rec);
	wake_conditions(d, w, sender_prio);
out:
	if (rx != NULL)
		rtb_port_thread_delete(rx);
	if (tx != NULL)
		rtb_port_thread_delete(tx);
	if (w->chan != NULL)
		rtb_port_ipc_delete(w->chan);
	if (w->back != NULL)
		rtb_port_ipc_delete(w->back);
	if (w->go != NULL)
		rtb_port_sem_delete(w->go);
	if (w->done != NULL)
		rtb_port_sem_delete(w->done);
	rtb_recorder_free(&w->rec);
	rtb_port_mem_free(w);
	return rc;
}

static const struct wake_def def_signal_wake = {
	.id = "ipc.signal.wake",
	.tool = "sigwaittest",
	.kind = RTB_IPC_SIGWAIT,
	.title = "Signal to a thread blocked in sigwait: from the send until the receiver runs",
};
static const struct wake_def def_sysv_wake = {
	.id = "ipc.sysv_sem.wake",
	.tool = "svsematest",
	.kind = RTB_IPC_SYSV_SEM,
	.title = "System V semaphore: from the sender's +1 until the blocked receiver runs",
};
static const struct wake_def def_mq_wake = {
	.id = "ipc.mq.wake",
	.tool = "pmqtest",
	.kind = RTB_IPC_POSIX_MQ,
	.title = "POSIX message queue: from the send until the blocked receiver runs",
};

static int run_signal_wake(struct rtb_ctx *ctx)
{
	return run_wake(ctx, &def_signal_wake);
}

static int run_sysv_wake(struct rtb_ctx *ctx)
{
	return run_wake(ctx, &def_sysv_wake);
}

static int run_mq_wake(struct rtb_ctx *ctx)
{
	return run_wake(ctx, &def_mq_wake);
}

static const struct rtb_option_spec ipc_signal_wake_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured wake-ups"),
	RTB_OPT_WORD("ipc.signal.wake.sender_priority", "lower|equal",
		     "sender's priority relative to the receiver"),
	RTB_OPT_WORD("ipc.signal.wake.release", "channel|semaphore",
		     "how the receiver releases the sender for the next round"),
	RTB_OPT_N("ipc.signal.wake.interval_ns", 0u, 1000000000u, "pause between wake-ups"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_ipc_signal_wake = {
	.name = "ipc.signal.wake",
	.ids = {{"ipc.signal.wake", NULL}},
	.summary = "Wake-up of a thread waiting in sigwait by a signal from a lower one "
		   "(sigwaittest)",
	.estimate_ms = {1100, 21000, 1060000},
	.deadline_ms = {20000, 60000, 2400000},
	.caps = RTB_CAP_IPC_SIGWAIT,
	.options = ipc_signal_wake_options,
	.run = run_signal_wake,
};

static const struct rtb_option_spec ipc_sysv_sem_wake_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured wake-ups"),
	RTB_OPT_WORD("ipc.sysv_sem.wake.sender_priority", "lower|equal",
		     "sender's priority relative to the receiver"),
	RTB_OPT_WORD("ipc.sysv_sem.wake.release", "channel|semaphore",
		     "how the receiver releases the sender for the next round"),
	RTB_OPT_N("ipc.sysv_sem.wake.interval_ns", 0u, 1000000000u, "pause between wake-ups"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_ipc_sysv_sem_wake = {
	.name = "ipc.sysv_sem.wake",
	.ids = {{"ipc.sysv_sem.wake", NULL}},
	.summary = "Wake-up of a thread blocked on a System V semaphore (svsematest)",
	.estimate_ms = {1100, 21000, 1060000},
	.deadline_ms = {20000, 60000, 2400000},
	.caps = RTB_CAP_IPC_SYSV_SEM,
	.options = ipc_sysv_sem_wake_options,
	.run = run_sysv_wake,
};

static const struct rtb_option_spec ipc_mq_wake_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured wake-ups"),
	RTB_OPT_WORD("ipc.mq.wake.sender_priority", "lower|equal",
		     "sender's priority relative to the receiver"),
	RTB_OPT_WORD("ipc.mq.wake.release", "channel|semaphore",
		     "how the receiver releases the sender for the next round"),
	RTB_OPT_N("ipc.mq.wake.interval_ns", 0u, 1000000000u, "pause between wake-ups"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_ipc_mq_wake = {
	.name = "ipc.mq.wake",
	.ids = {{"ipc.mq.wake", NULL}},
	.summary = "Wake-up of a thread blocked on a POSIX message queue (pmqtest)",
	.estimate_ms = {1100, 21000, 1060000},
	.deadline_ms = {20000, 60000, 2400000},
	.caps = RTB_CAP_IPC_POSIX_MQ,
	.options = ipc_mq_wake_options,
	.run = run_mq_wake,
};

/* ---- ipc.signal.roundtrip ---------------------------------------------------------- */

struct trip_run {
	const struct rtb_ctx *ctx;
	struct rtb_ipc *to_echo, *to_init;
	struct rtb_sem *done;
	struct rtb_recorder rec;
	uint64_t total;
	uint64_t burst;
	uint64_t interval_ns;
	volatile uint32_t echoes;
	volatile uint64_t iterations;
	volatile uint64_t unanswered;
	volatile uint32_t init_exited, echo_exited;
	volatile bool stop;
	volatile int init_rc, echo_rc;
};

static void trip_initiator(void *arg)
{
	struct trip_run *r = arg;

	for (uint64_t i = 0; i < r->total; i++) {
		if (i % r->burst == 0) {
			if (rtb_ctx_expired(r->ctx))
				break;
			rtb_port_sleep_ns(r->interval_ns);
		}
		uint32_t before = r->echoes;
		uint64_t t0 = rtb_port_counter_read();
		int rc = rtb_port_ipc_post(r->to_echo);
		if (rc == RTB_OK)
			rc = rtb_port_ipc_wait(r->to_init);
		uint64_t t1 = rtb_port_counter_read();
		if (rc != RTB_OK) {
			r->init_rc = rc;
			break;
		}
		if (r->echoes == before + 1) {
			rtb_recorder_add_interval(&r->rec, t0, t1);
		} else {
			rtb_recorder_add_invalid(&r->rec);
			r->unanswered++;
		}
		r->iterations = i + 1;
	}
	r->init_exited = 1;
	rtb_port_sem_signal(r->done);
}

static void trip_echo(void *arg)
{
	struct trip_run *r = arg;

	for (;;) {
		int rc = rtb_port_ipc_wait(r->to_echo);
		if (rc != RTB_OK || r->stop) {
			r->echo_rc = rc;
			break;
		}
		r->echoes++;
		rc = rtb_port_ipc_post(r->to_init);
		if (rc != RTB_OK) {
			r->echo_rc = rc;
			break;
		}
	}
	r->echo_exited = 1;
}

static void trip_conditions(const struct trip_run *r, enum rtb_ipc_kind kind, int echo_prio)
{
	const char *mech = rtb_port_ipc_mechanism(kind);
	struct rtb_json *j =
		rtb_conditions_begin("ipc.signal.roundtrip", "How the round trip was measured");

	rtb_conditions_row(j, "mechanism", "", "%s", mech != NULL ? mech : "?");
	rtb_conditions_row(j, "initiator priority", "", "1 (relative)");
	rtb_conditions_row(j, "echo priority", "", "%d (relative)", echo_prio);
	rtb_conditions_row(j, "threads pinned to CPU", "", "%d", rtb_port_info()->cpu);
	rtb_conditions_row(j, "round trips per burst", "count", "%llu",
			   (unsigned long long)r->burst);
	rtb_conditions_row(j, "pause between bursts", "ns", "%llu",
			   (unsigned long long)r->interval_ns);
	rtb_conditions_row(j, "round trips (with warm-up)", "count", "%llu",
			   (unsigned long long)r->iterations);
	rtb_conditions_row(j, "invalid: not answered exactly once", "count", "%llu",
			   (unsigned long long)r->unanswered);
	rtb_conditions_row(j, "equivalent", "", "signaltest");
	rtb_table_end(j);
}

static int run_roundtrip(struct rtb_ctx *ctx)
{
	static const char *const prios[] = {"equal", "higher"};
	static const char *const deliveries[] = {"sigwait", "handler"};
	const char *id = "ipc.signal.roundtrip";
	struct rtb_thread *ti = NULL, *te = NULL;
	struct trip_run *r;
	int rc;

	int prio_mode = id_choice(ctx, id, "echo_priority", prios, RTB_ARRAY_SIZE(prios));
	int delivery = id_choice(ctx, id, "delivery", deliveries, RTB_ARRAY_SIZE(deliveries));
	if (prio_mode < 0 || delivery < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "%s.echo_priority is equal or higher, %s.delivery sigwait or "
				    "handler",
				    id, id);
	enum rtb_ipc_kind kind = delivery == 1 ? RTB_IPC_SIGNAL : RTB_IPC_SIGWAIT;
	if (rtb_port_ipc_mechanism(kind) == NULL)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED,
				    "the %s port has no signal channel with a %s",
				    rtb_port_info()->port, delivery == 1 ? "handler" : "sigwait");
	if (rtb_port_info()->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs three priority levels");
	uint64_t n = rtb_ctx_count(ctx, "iterations", 1600, 20000, 1000000);
	uint64_t burst = id_count(ctx, id, "burst", 16);
	uint64_t interval = id_count(ctx, id, "interval_ns", 10000000);
	if (n < 1 || burst < 1 || interval > 1000000000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "needs at least one round trip, bursts of at least one and a "
				    "pause of at most 1 s");
	r = rtb_port_mem_alloc(sizeof(*r));
	if (r == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rtb_memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->burst = burst;
	r->interval_ns = interval;
	uint32_t warm = rtb_warmup_for(n);
	r->total = n + warm;
	int echo_prio = prio_mode == 1 ? 2 : 1;

	struct rtb_metric m = {.scenario = id,
			       .metric = "roundtrip",
			       .title = "Signal bounced to another thread and back",
			       .unit = "ticks"};
	rtb_metric_param_str(&m, "delivery", deliveries[delivery]);
	rtb_metric_param_str(&m, "echo_priority", prios[prio_mode]);
	rtb_metric_param(&m, "burst", (int64_t)burst);
	rc = rtb_recorder_init(&r->rec, &m, warm, ctx->raw_max);
	if (rc != RTB_OK) {
		rtb_port_mem_free(r);
		return rtb_ctx_fail(ctx, rc, "no memory for the recorder");
	}
	rc = rtb_port_sem_create(&r->done, 0);
	struct rtb_thread_attr ia = {.name = "ipc-initiator", .prio = 1, .start_suspended = true};
	struct rtb_thread_attr ea = {
		.name = "ipc-echo", .prio = echo_prio, .start_suspended = true};
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&ti, &ia, trip_initiator, r);
	if (rc == RTB_OK)
		rc = rtb_port_thread_create(&te, &ea, trip_echo, r);
	if (rc == RTB_OK)
		rc = rtb_port_ipc_create(&r->to_echo, kind, te);
	if (rc == RTB_OK)
		rc = rtb_port_ipc_create(&r->to_init, kind, ti);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the threads and channels: %s",
			     rtb_port_strerror(rc));
		goto out;
	}
	rtb_port_thread_start(te); /* runs at once and waits */
	rtb_port_thread_start(ti);
	bool finished = wait_done(ctx, r->done);
	r->stop = true;
	if (!finished)
		rtb_port_ipc_post(r->to_init);
	rtb_port_ipc_post(r->to_echo);
	if (!rtb_wait_count(&r->init_exited, 1, 2000000000u) ||
	    !rtb_wait_count(&r->echo_exited, 1, 2000000000u)) {
		/* See run_wake(): leave a thread blocked in the OS alone. */
		return rtb_ctx_fail(ctx, RTB_E_OS, "a thread did not end after its release");
	}
	rtb_port_thread_delete(ti);
	rtb_port_thread_delete(te);
	ti = te = NULL;
	if (!finished || r->init_rc != RTB_OK || r->echo_rc != RTB_OK) {
		rc = r->init_rc != RTB_OK   ? r->init_rc
		     : r->echo_rc != RTB_OK ? r->echo_rc
					    : RTB_E_TIMEOUT;
		rtb_ctx_fail(ctx, rc, "the round trips stopped after %llu: %s",
			     (unsigned long long)r->iterations, rtb_port_strerror(rc));
		goto out;
	}
	if (r->iterations < r->total)
		rtb_ctx_expired_after(ctx, r->iterations, r->total, "round trips");
	rtb_emit_log(id, "info", "%s, measured like signaltest: echo priority %s",
		     rtb_port_ipc_mechanism(kind), prios[prio_mode]);
	if (r->unanswered > 0)
		rtb_emit_log(id, "warning",
			     "%llu round trips invalid: the echo did not answer exactly once",
			     (unsigned long long)r->unanswered);
	rtb_emit_result(&r->rec);
	trip_conditions(r, kind, echo_prio);
out:
	if (ti != NULL)
		rtb_port_thread_delete(ti);
	if (te != NULL)
		rtb_port_thread_delete(te);
	if (r->to_echo != NULL)
		rtb_port_ipc_delete(r->to_echo);
	if (r->to_init != NULL)
		rtb_port_ipc_delete(r->to_init);
	if (r->done != NULL)
		rtb_port_sem_delete(r->done);
	rtb_recorder_free(&r->rec);
	rtb_port_mem_free(r);
	return rc;
}

static const struct rtb_option_spec ipc_signal_roundtrip_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured round trips"),
	RTB_OPT_WORD("ipc.signal.roundtrip.echo_priority", "equal|higher",
		     "priority of the thread that bounces the signal back"),
	RTB_OPT_WORD("ipc.signal.roundtrip.delivery", "sigwait|handler",
		     "how the signal is received"),
	RTB_OPT_N("ipc.signal.roundtrip.burst", 1u, 1000000u, "round trips per burst"),
	RTB_OPT_N("ipc.signal.roundtrip.interval_ns", 0u, 1000000000u, "pause between bursts"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_ipc_signal_roundtrip = {
	.name = "ipc.signal.roundtrip",
	.ids = {{"ipc.signal.roundtrip", NULL}},
	.summary = "A signal bounced between two threads and back (signaltest)",
	.estimate_ms = {1100, 13000, 640000},
	.deadline_ms = {20000, 60000, 1800000},
	.caps = RTB_CAP_IPC_SIGWAIT,
	.options = ipc_signal_roundtrip_options,
	.run = run_roundtrip,
};
