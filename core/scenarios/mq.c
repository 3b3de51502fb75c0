/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MQ: message queues, performance (RTOSBench's message-queue cases).
 *
 * mq.send.no_waiter / mq.receive.available. One thread at relative priority
 * 0 and a queue of depth 8 that nobody waits on. Each iteration:
 *   t0; send one message to the empty queue; t1;  t2; receive it; t3
 * send = t1 - t0 - overhead, receive = t3 - t2 - overhead, each pair the two
 * reads of a timed call (rtb/sample.h). No thread switch.
 * As a cross-check the same calls are also timed amortised (table
 * "amortised"): batches of 8 sends, then 8 receives, each batch timed once.
 *
 * mq.send.unblock / mq.receive.block. The controller, the sender, runs at
 * priority 0; a receiver at priority 1 loops: it counts the call, takes
 * t_wait as its last action before calling receive on the empty queue
 * (depth 8), blocks, and takes t_woken as its first action after receive
 * returns. Each iteration the controller takes t0, sends one message and
 * takes t1 when send returns. The send makes the receiver ready; it
 * preempts the sender, takes t_woken, calls receive again, blocks, and only
 * then does the sender's send return. So one iteration gives:
 *   unblock = t_woken - t0 - overhead (send until the receiver runs)
 *   block   = t1 - t_wait - overhead  (a receive that blocks, until the
 *                                      lower-priority sender runs again)
 * An iteration is valid when, at t1, the receiver has woken exactly once and
 * called receive again exactly once, and t0 <= t_woken <= t_wait <= t1;
 * otherwise both samples are counted invalid and the controller yields until
 * the receiver has taken the message (so the queue never fills and send
 * never blocks the controller).
 *
 * Message size: 4 bytes; option <unit>.bytes=N (mq.send.no_waiter.bytes,
 * mq.send.unblock.bytes) times one size. In the standard and endurance
 * profiles, without the option, both units sweep 4, 64 and 1024 bytes (one
 * metric per size, param `bytes`). A size whose queue the OS refuses to
 * create is logged and listed as unsupported in table "sizes"; when no size
 * can be measured the scenario is unsupported. These are performance tests:
 * no verdict and no negative control.
 */
#include "rtb/core.h"

#define MQ_DEPTH 8u

/* The timed calls (rtb/sample.h): nothing but the call between the reads. */
RTB_TIMED(timed_send, int, rtb_port_mq_send(q, msg, len), struct rtb_mq *q, const void *msg,
	  size_t len)
RTB_TIMED(timed_receive, int, rtb_port_mq_receive(q, msg, len), struct rtb_mq *q, void *msg,
	  size_t len)
#define RECEIVER_PRIO 1
#define EXIT_WAIT_NS 1000000000u

static const uint32_t sweep_bytes[] = {4, 64, 1024};

struct sizes {
	uint32_t bytes[RTB_ARRAY_SIZE(sweep_bytes)];
	int rc[RTB_ARRAY_SIZE(sweep_bytes)]; /* RTB_OK measured, else why refused */
	uint32_t n;
	uint32_t tried; /* bytes[0 .. tried) were attempted, the rest not run */
	uint32_t measured;
};

/* The sizes a unit times: the option `key`, else 4 bytes in quick and the
 * sweep otherwise. False when the option is not a positive byte count. */
static bool sizes_of(const struct rtb_ctx *ctx, const char *key, struct sizes *s)
{
	const char *opt = rtb_ctx_option(ctx, key);
	uint64_t one;

	rtb_memset(s, 0, sizeof(*s));
	if (opt != NULL) {
		if (!rtb_parse_u64(opt, &one) || one == 0 || one > 0xffffffffu)
			return false;
		s->bytes[s->n++] = (uint32_t)one;
	} else if (ctx->profile == RTB_PROFILE_QUICK) {
		s->bytes[s->n++] = sweep_bytes[0];
	} else {
		for (size_t k = 0; k < RTB_ARRAY_SIZE(sweep_bytes); k++)
			s->bytes[s->n++] = sweep_bytes[k];
	}
	return true;
}

/* A queue for messages of `bytes`, with a send and a receive buffer
 * allocated and touched before anything is timed. A queue the OS refuses
 * is logged as an unsupported size. */
static int open_queue(const char *id, uint32_t bytes, struct rtb_mq **q, uint8_t **tx, uint8_t **rx)
{
	int rc = rtb_port_mq_create(q, bytes, MQ_DEPTH);

	if (rc != RTB_OK) {
		rtb_emit_log(id, "warning",
			     "the OS refused a message queue of %" RTB_PRIu32
			     "-byte messages, depth %u (%s): "
			     "this size is recorded as unsupported",
			     bytes, MQ_DEPTH, rtb_port_strerror(rc));
		return rc;
	}
	*tx = rtb_port_mem_alloc(bytes);
	*rx = rtb_port_mem_alloc(bytes);
	if (*tx == NULL || *rx == NULL) {
		rtb_port_mem_free(*tx);
		rtb_port_mem_free(*rx);
		rtb_port_mq_delete(*q);
		return RTB_E_NOMEM;
	}
	for (uint32_t i = 0; i < bytes; i++)
		(*tx)[i] = (uint8_t)(i * 7u + 1u);
	rtb_memset(*rx, 0, bytes);
	return RTB_OK;
}

static void close_queue(struct rtb_mq *q, uint8_t *tx, uint8_t *rx)
{
	rtb_port_mq_delete(q);
	rtb_port_mem_free(tx);
	rtb_port_mem_free(rx);
}

/* Table "sizes": every size of the unit, and whether it was measured,
 * refused by the OS (unsupported) or not run (the time budget ran out
 * first). Returns RTB_OK when at least one was measured, else
 * RTB_E_UNSUPPORTED with the reason. */
static int sizes_finish(struct rtb_ctx *ctx, const char *id, const struct sizes *s)
{
	static const struct rtb_column cols[] = {{"size", "bytes"}, {"status", ""}, {"detail", ""}};
	struct rtb_json *j = rtb_table_begin(id, "sizes", "Message sizes", cols, 3);

	for (uint32_t k = 0; k < s->n; k++) {
		const char *status = "measured", *detail = "";
		if (k >= s->tried) {
			status = "not run";
			detail = rtb_ctx_expired_cause(ctx);
		} else if (s->rc[k] != RTB_OK) {
			status = "unsupported";
			detail = rtb_port_strerror(s->rc[k]);
		}
		rtb_json_arr_begin(j);
		rtb_json_u64(j, s->bytes[k]);
		rtb_json_str(j, status);
		rtb_json_str(j, detail);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
	if (s->measured > 0)
		return RTB_OK;
	return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED,
			    "the OS refused a message queue of %" RTB_PRIu32
			    "-byte messages (%s)%s",
			    s->bytes[0], rtb_port_strerror(s->rc[0]),
			    s->n > 1 ? ", and every other size tried" : "");
}

static void metric_params(struct rtb_metric *m, uint32_t bytes)
{
	rtb_metric_param(m, "bytes", bytes);
	rtb_metric_param(m, "depth", MQ_DEPTH);
}

/* ---- mq.send.no_waiter / mq.receive.available ------------------------------- */

struct amortised {
	uint64_t calls, send_ticks, receive_ticks;
};

/* Batches of MQ_DEPTH sends then MQ_DEPTH receives, each batch timed. */
static int no_waiter_amortised(struct rtb_ctx *ctx, struct rtb_mq *q, const uint8_t *tx,
			       uint8_t *rx, uint32_t bytes, uint64_t calls, struct amortised *a)
{
	uint64_t batches = calls / MQ_DEPTH;
	int rc = RTB_OK;

	rtb_memset(a, 0, sizeof(*a));
	for (uint64_t b = 0; b < batches && rc == RTB_OK; b++) {
		uint64_t t0 = rtb_port_counter_read();
		for (uint32_t k = 0; k < MQ_DEPTH && rc == RTB_OK; k++)
			rc = rtb_port_mq_send(q, tx, bytes);
		uint64_t t1 = rtb_port_counter_read();
		for (uint32_t k = 0; k < MQ_DEPTH && rc == RTB_OK; k++)
			rc = rtb_port_mq_receive(q, rx, bytes);
		uint64_t t2 = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		a->calls += MQ_DEPTH;
		a->send_ticks += t1 - t0;
		a->receive_ticks += t2 - t1;
		if ((b & 255) == 0 &&
		    rtb_ctx_expired_after(ctx, b + 1, batches, "amortised batches"))
			break;
	}
	return rc;
}

static int no_waiter_one_size(struct rtb_ctx *ctx, struct rtb_mq *q, const uint8_t *tx, uint8_t *rx,
			      uint32_t bytes, uint64_t n, uint64_t calls, struct amortised *a)
{
	struct rtb_metric ms = {.scenario = "mq.send.no_waiter",
				.metric = "send",
				.title = "Message queue send, nobody waiting (no switch)",
				.unit = "ticks"};
	struct rtb_metric mr = {.scenario = "mq.receive.available",
				.metric = "receive",
				.title =
					"Message queue receive, message already queued (no switch)",
				.unit = "ticks"};
	struct rtb_recorder rs, rr;
	uint32_t warm = rtb_warmup_for(n);
	char what[48];
	int rc = RTB_OK;

	metric_params(&ms, bytes);
	metric_params(&mr, bytes);
	if (rtb_recorder_init_pair(&rs, &ms, &rr, &mr, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&rs);
	rtb_recorder_timed_calls(&rr);
	rtb_fmt(what, sizeof(what), "iterations (%" RTB_PRIu32 "-byte messages)", bytes);
	for (uint64_t i = 0; i < n + warm; i++) {
		struct rtb_span s, r;
		rc = timed_send(q, tx, bytes, &s);
		if (rc == RTB_OK)
			rc = timed_receive(q, rx, bytes, &r);
		if (rc != RTB_OK)
			break;
		rtb_recorder_add_interval(&rs, s.t0, s.t1);
		rtb_recorder_add_interval(&rr, r.t0, r.t1);
		if ((i & 1023) == 0 && rtb_ctx_expired_after(ctx, i + 1, n + warm, what))
			break;
	}
	if (rc == RTB_OK) {
		rtb_emit_result(&rs);
		rtb_emit_result(&rr);
		rc = no_waiter_amortised(ctx, q, tx, rx, bytes, calls, a);
	}
	if (rc != RTB_OK)
		rtb_ctx_fail(ctx, rc,
			     "message queue operation failed (%" RTB_PRIu32 "-byte messages): %s",
			     bytes, rtb_port_strerror(rc));
	rtb_recorder_free(&rs);
	rtb_recorder_free(&rr);
	return rc;
}

static int run_send_no_waiter(struct rtb_ctx *ctx)
{
	const char *id = "mq.send.no_waiter";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 20000, 1000000, 10000000);
	uint64_t calls = rtb_ctx_count(ctx, "amortised_calls", 100000, 1000000, 10000000);
	struct amortised a[RTB_ARRAY_SIZE(sweep_bytes)];
	struct sizes s;

	if (!sizes_of(ctx, "mq.send.no_waiter.bytes", &s))
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "mq.send.no_waiter.bytes must be a positive byte count");
	for (uint32_t k = 0; k < s.n; k++) {
		if (k > 0 && rtb_ctx_expired_after(ctx, k, s.n, "message sizes"))
			break;
		s.tried = k + 1;
		struct rtb_mq *q;
		uint8_t *tx, *rx;
		rtb_memset(&a[k], 0, sizeof(a[k]));
		s.rc[k] = open_queue(id, s.bytes[k], &q, &tx, &rx);
		if (s.rc[k] != RTB_OK)
			continue; /* refused: an unsupported size */
		int rc = no_waiter_one_size(ctx, q, tx, rx, s.bytes[k], n, calls, &a[k]);
		close_queue(q, tx, rx);
		if (rc != RTB_OK)
			return rc;
		s.measured++;
	}
	if (s.measured > 0) {
		struct rtb_json *j = rtb_amortised_begin(id);
		for (uint32_t k = 0; k < s.n; k++) {
			char op[64];
			if (s.rc[k] != RTB_OK)
				continue;
			rtb_fmt(op, sizeof(op),
				"send (no waiter), %" RTB_PRIu32 " bytes, batches of %u",
				s.bytes[k], MQ_DEPTH);
			rtb_amortised_row(j, op, a[k].calls, a[k].send_ticks);
			rtb_fmt(op, sizeof(op),
				"receive (queued), %" RTB_PRIu32 " bytes, batches of %u",
				s.bytes[k], MQ_DEPTH);
			rtb_amortised_row(j, op, a[k].calls, a[k].receive_ticks);
		}
		rtb_table_end(j);
	}
	return sizes_finish(ctx, id, &s);
}

static const struct rtb_option_spec mq_send_no_waiter_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_LEN("amortised_calls", 1u, 10000000000ull,
		    "calls timed back to back for the amortised cross-check"),
	RTB_OPT_N("mq.send.no_waiter.bytes", 1u, 4294967295u,
		  "message size instead of the profile's"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mq_send_no_waiter = {
	.name = "mq.send.no_waiter",
	.ids = {{"mq.send.no_waiter", NULL}, {"mq.receive.available", NULL}},
	.summary = "Message queue send with nobody waiting, receive of a queued message "
		   "(no switch)",
	.estimate_ms = {300, 10000, 100000},
	.deadline_ms = {20000, 120000, 900000},
	.caps = RTB_CAP_MQ,
	.options = mq_send_no_waiter_options,
	.run = run_send_no_waiter,
};

/* ---- mq.send.unblock / mq.receive.block ------------------------------------- */

struct unblock_shared {
	struct rtb_mq *q;
	uint8_t *rx;
	uint32_t bytes;
	volatile uint64_t t_wait;  /* receiver: just before receive */
	volatile uint64_t t_woken; /* receiver: just after receive returned */
	volatile uint32_t waits;   /* receive calls made */
	volatile uint32_t wakes;   /* receive calls returned (not counting the last) */
	volatile uint32_t exited;
	volatile int rc;
	volatile bool stop;
};

static void unblock_receiver_main(void *arg)
{
	struct unblock_shared *sh = arg;

	for (;;) {
		sh->waits++;
		sh->t_wait = rtb_port_counter_read();
		int rc = rtb_port_mq_receive(sh->q, sh->rx, sh->bytes);
		uint64_t t = rtb_port_counter_read();
		if (rc != RTB_OK || sh->stop) {
			sh->rc = rc;
			break;
		}
		sh->t_woken = t;
		sh->wakes++;
	}
	sh->exited = 1;
}

static int unblock_one_size(struct rtb_ctx *ctx, struct unblock_shared *sh, const uint8_t *tx,
			    uint64_t n)
{
	const char *id = "mq.send.unblock";
	struct rtb_metric mu = {.scenario = "mq.send.unblock",
				.metric = "send_unblock",
				.title = "Message queue send until the blocked higher-priority "
					 "receiver runs",
				.unit = "ticks"};
	struct rtb_metric mb = {.scenario = "mq.receive.block",
				.metric = "receive_block",
				.title = "Message queue receive that blocks, until the "
					 "lower-priority sender runs",
				.unit = "ticks"};
	struct rtb_thread_attr attr = {.name = "mq-receiver", .prio = RECEIVER_PRIO};
	struct rtb_recorder ru, rb;
	struct rtb_thread *receiver;
	uint32_t warm = rtb_warmup_for(n);
	uint64_t invalid = 0, done = 0;
	uint32_t bytes = sh->bytes;
	char what[48];
	int rc;

	metric_params(&mu, bytes);
	metric_params(&mb, bytes);
	if (rtb_recorder_init_pair(&ru, &mu, &rb, &mb, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	/* the receiver preempts at once and blocks on the empty queue */
	rc = rtb_port_thread_create(&receiver, &attr, unblock_receiver_main, sh);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the receiver: %s", rtb_port_strerror(rc));
		goto out;
	}
	if (!rtb_wait_count(&sh->waits, 1, EXIT_WAIT_NS))
		rtb_emit_log(id, "warning", "the receiver did not run within a second");

	rtb_fmt(what, sizeof(what), "iterations (%" RTB_PRIu32 "-byte messages)", bytes);
	for (uint64_t i = 0; i < n + warm && sh->rc == RTB_OK; i++) {
		uint32_t wakes = sh->wakes, waits = sh->waits;
		uint64_t t0 = rtb_port_counter_read();
		rc = rtb_port_mq_send(sh->q, tx, bytes);
		uint64_t t1 = rtb_port_counter_read();
		if (rc != RTB_OK)
			break;
		uint32_t wakes1 = sh->wakes, waits1 = sh->waits;
		uint64_t t_woken = sh->t_woken, t_wait = sh->t_wait;
		done = i + 1;
		if (wakes1 == wakes + 1 && waits1 == waits + 1 && t0 <= t_woken &&
		    t_woken <= t_wait && t_wait <= t1) {
			rtb_recorder_add_interval(&ru, t0, t_woken);
			rtb_recorder_add_interval(&rb, t_wait, t1);
		} else {
			rtb_recorder_add_invalid(&ru);
			rtb_recorder_add_invalid(&rb);
			invalid++;
			rtb_ctx_catch_up(ctx, &sh->waits, waits + 1);
		}
		if ((i & 255) == 0 && rtb_ctx_expired_after(ctx, done, n + warm, what))
			break;
	}

	sh->stop = true;
	rtb_port_mq_trysend(sh->q, tx, bytes);
	rtb_wait_count(&sh->exited, 1, EXIT_WAIT_NS);
	rtb_port_thread_delete(receiver);
	if (rc == RTB_OK && sh->rc != RTB_OK)
		rc = sh->rc;
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc,
			     "message queue operation failed (%" RTB_PRIu32 "-byte messages): %s",
			     bytes, rtb_port_strerror(rc));
		goto out;
	}
	if (invalid > 0)
		rtb_emit_log(id, "warning",
			     "%llu of %llu iterations invalid (%" RTB_PRIu32
			     "-byte messages): the receiver did "
			     "not run and block again before send returned",
			     (unsigned long long)invalid, (unsigned long long)done, bytes);
	rtb_emit_result(&ru);
	rtb_emit_result(&rb);
out:
	rtb_recorder_free(&ru);
	rtb_recorder_free(&rb);
	return rc;
}

static int run_send_unblock(struct rtb_ctx *ctx)
{
	const char *id = "mq.send.unblock";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 10000, 100000, 1000000);
	struct unblock_shared *sh;
	struct sizes s;
	int rc = RTB_OK;

	if (!sizes_of(ctx, "mq.send.unblock.bytes", &s))
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "mq.send.unblock.bytes must be a positive byte count");
	if (rtb_port_info()->prio_max < RECEIVER_PRIO)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs two priority levels");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	for (uint32_t k = 0; k < s.n; k++) {
		if (k > 0 && rtb_ctx_expired_after(ctx, k, s.n, "message sizes"))
			break;
		s.tried = k + 1;
		uint8_t *tx;
		rtb_memset(sh, 0, sizeof(*sh));
		sh->bytes = s.bytes[k];
		s.rc[k] = open_queue(id, s.bytes[k], &sh->q, &tx, &sh->rx);
		if (s.rc[k] != RTB_OK)
			continue; /* refused: an unsupported size */
		rc = unblock_one_size(ctx, sh, tx, n);
		close_queue(sh->q, tx, sh->rx);
		if (rc != RTB_OK)
			break;
		s.measured++;
	}
	rtb_port_mem_free(sh);
	return rc != RTB_OK ? rc : sizes_finish(ctx, id, &s);
}

static const struct rtb_option_spec mq_send_unblock_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("mq.send.unblock.bytes", 1u, 4294967295u,
		  "message size instead of the profile's"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mq_send_unblock = {
	.name = "mq.send.unblock",
	.ids = {{"mq.send.unblock", NULL}, {"mq.receive.block", NULL}},
	.summary = "Message queue send that wakes a higher-priority receiver, receive that "
		   "blocks",
	.estimate_ms = {100, 4000, 40000},
	.deadline_ms = {20000, 120000, 600000},
	.caps = RTB_CAP_MQ,
	.options = mq_send_unblock_options,
	.run = run_send_unblock,
};
