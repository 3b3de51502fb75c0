/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The wake-up pair (rtb/wake_pair.h).
 *
 * Priorities (relative): background threads 1, sender 2 (the scenario's
 * controller, raised for the pair's lifetime), receiver 3. The receiver
 * blocks on the object; each sample, the sender:
 *
 *   semaphore: takes t0 and signals the semaphore the receiver waits on;
 *   message:   takes t0 and sends a 4-byte sequence number to the queue the
 *              receiver waits on (depth 4);
 *   mutex:     locks the mutex (priority inheritance), signals the
 *              receiver's private semaphore (the receiver preempts, calls
 *              lock and blocks; the sender now runs boosted), takes t0 and
 *              unlocks;
 *
 * and the receiver takes t1 as the first action after its blocking call
 * returns (for the mutex it then unlocks and waits on its semaphore
 * again). Sample = t1 - t0 - overhead: the call, the receiver made ready,
 * the switch to it. A sample is invalid (counted by cause) when the
 * receiver had not reached its blocking call when the sender acted, when
 * the sender got the CPU back before the receiver ran, or when the message
 * received is not the one sent.
 *
 * Background threads. Each has a private 4 KiB buffer; one turn writes a
 * word into every 64-byte line of it and yields. They are created parked
 * on a gate semaphore; a measurement with the workload on opens the gate
 * (they then take turns whenever the sender sleeps, which it does for
 * gap_ns before every sample), and closes it afterwards: each thread
 * returns to the gate when it sees the park flag, and the sender waits,
 * sleeping, until all have. Their loops also end when the scenario's time
 * is up. Every counter a thread writes is its own.
 */
#include "rtb/wake_pair.h"

#define LINE_BYTES 64
#define QUEUE_DEPTH 4
#define PARK_TIMEOUT_NS 2000000000u

struct background {
	struct rtb_thread *thread;
	struct rtb_wake_pair *pair;
	volatile uint32_t *buf;
	volatile uint64_t turns;
	volatile uint32_t parks; /* returns to the gate after it was opened */
	volatile bool exited;
};

struct rtb_wake_pair {
	const struct rtb_ctx *ctx;
	enum rtb_wake_kind kind;
	struct rtb_sem *sem; /* SEM: the object; MUTEX: the receiver's go signal */
	struct rtb_mutex *mutex;
	struct rtb_mq *mq;
	struct rtb_thread *receiver;
	volatile uint32_t waits; /* receiver: blocking calls made */
	volatile uint32_t wakes; /* receiver: blocking calls returned */
	volatile uint64_t t_woken;
	volatile uint32_t msg_got;
	volatile int rc; /* receiver: first failed call */
	volatile bool stop;
	uint32_t seq;
	struct rtb_wake_invalid invalid;
	bool raised;

	struct rtb_sem *gate;
	volatile bool park;
	volatile bool quit;
	uint32_t nbg;
	uint32_t parks_expected;
	struct background bg[RTB_WAKE_BACKGROUND_MAX];
};

static void receiver_main(void *arg)
{
	struct rtb_wake_pair *p = arg;

	for (;;) {
		uint32_t got = 0;
		int rc;
		if (p->kind == RTB_WAKE_MUTEX) {
			rc = rtb_port_sem_wait(p->sem);
			if (rc == RTB_OK && p->stop)
				break;
			if (rc == RTB_OK) {
				p->waits++;
				rc = rtb_port_mutex_lock(p->mutex);
			}
		} else {
			p->waits++;
			if (p->kind == RTB_WAKE_SEM)
				rc = rtb_port_sem_wait(p->sem);
			else
				rc = rtb_port_mq_receive(p->mq, &got, sizeof(got));
		}
		uint64_t t1 = rtb_port_counter_read();
		if (rc != RTB_OK) {
			/* the sender checks rc once wakes moves */
			p->rc = rc;
			p->wakes++;
			break;
		}
		if (p->kind == RTB_WAKE_MUTEX)
			rtb_port_mutex_unlock(p->mutex);
		if (p->stop)
			break;
		p->t_woken = t1;
		p->msg_got = got;
		p->wakes++;
	}
}

static void background_main(void *arg)
{
	struct background *b = arg;
	struct rtb_wake_pair *p = b->pair;

	for (;;) {
		if (rtb_port_sem_wait(p->gate) != RTB_OK || p->quit)
			break;
		while (!p->park && !p->quit && !rtb_ctx_expired(p->ctx)) {
			for (uint32_t i = 0; i < RTB_WAKE_BACKGROUND_BYTES / sizeof(uint32_t);
			     i += LINE_BYTES / sizeof(uint32_t))
				b->buf[i] += 1;
			b->turns++;
			rtb_port_thread_yield();
		}
		b->parks++;
		if (p->quit)
			break;
	}
	b->exited = true;
}

static uint32_t parks_total(const struct rtb_wake_pair *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nbg; i++)
		n += p->bg[i].parks;
	return n;
}

static bool all_exited(const struct rtb_wake_pair *p)
{
	for (uint32_t i = 0; i < p->nbg; i++) {
		if (!p->bg[i].exited)
			return false;
	}
	return true;
}

/* Sleep in steps until every background thread is back at the gate (or
 * gone); false after the timeout. */
static bool background_wait(const struct rtb_wake_pair *p, bool exited)
{
	uint64_t end = rtb_port_time_ns() + PARK_TIMEOUT_NS;

	while (exited ? !all_exited(p) : parks_total(p) < p->parks_expected) {
		if (rtb_port_time_ns() >= end)
			return false;
		rtb_port_sleep_ns(100000);
	}
	return true;
}

void rtb_wake_pair_delete(struct rtb_wake_pair *p)
{
	if (p == NULL)
		return;
	if (p->receiver != NULL) {
		p->stop = true;
		if (p->kind == RTB_WAKE_MQ) {
			uint32_t last = 0;
			rtb_port_mq_trysend(p->mq, &last, sizeof(last));
		} else {
			rtb_port_sem_signal(p->sem);
		}
		rtb_port_thread_delete(p->receiver);
	}
	if (p->nbg > 0) {
		p->quit = true;
		p->park = true;
		for (uint32_t i = 0; i < p->nbg; i++)
			rtb_port_sem_signal(p->gate);
		if (!background_wait(p, true))
			rtb_emit_log(p->ctx->scenario != NULL ? p->ctx->scenario->name : NULL,
				     "warning", "a background thread did not end in time");
		for (uint32_t i = 0; i < p->nbg; i++)
			rtb_port_thread_delete(p->bg[i].thread);
	}
	if (p->raised)
		rtb_port_thread_set_priority(NULL, 0);
	for (uint32_t i = 0; i < RTB_WAKE_BACKGROUND_MAX; i++)
		rtb_port_mem_free((void *)p->bg[i].buf);
	if (p->gate != NULL)
		rtb_port_sem_delete(p->gate);
	if (p->sem != NULL)
		rtb_port_sem_delete(p->sem);
	if (p->mutex != NULL)
		rtb_port_mutex_delete(p->mutex);
	if (p->mq != NULL)
		rtb_port_mq_delete(p->mq);
	rtb_port_mem_free(p);
}

int rtb_wake_pair_create(const struct rtb_ctx *ctx, enum rtb_wake_kind kind, uint32_t background,
			 struct rtb_wake_pair **out)
{
	struct rtb_wake_pair *p;
	int rc;

	*out = NULL;
	if (background > RTB_WAKE_BACKGROUND_MAX)
		return RTB_E_INVALID;
	p = rtb_port_mem_alloc(sizeof(*p));
	if (p == NULL)
		return RTB_E_NOMEM;
	rtb_memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->kind = kind;
	rc = rtb_port_sem_create(&p->sem, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&p->gate, 0);
	if (rc == RTB_OK && kind == RTB_WAKE_MUTEX)
		rc = rtb_port_mutex_create(&p->mutex, RTB_MUTEX_INHERIT, 0);
	if (rc == RTB_OK && kind == RTB_WAKE_MQ)
		rc = rtb_port_mq_create(&p->mq, RTB_WAKE_MSG_BYTES, QUEUE_DEPTH);
	for (uint32_t i = 0; i < background && rc == RTB_OK; i++) {
		p->bg[i].pair = p;
		p->bg[i].buf = rtb_port_mem_alloc(RTB_WAKE_BACKGROUND_BYTES);
		if (p->bg[i].buf == NULL)
			rc = RTB_E_NOMEM;
		else
			rtb_memset((void *)p->bg[i].buf, 0, RTB_WAKE_BACKGROUND_BYTES);
	}
	if (rc == RTB_OK) {
		rc = rtb_port_thread_set_priority(NULL, RTB_WAKE_PRIO_LOW);
		p->raised = rc == RTB_OK;
	}
	if (rc == RTB_OK) {
		/* it runs at once and blocks (or, for the mutex, waits its turn) */
		struct rtb_thread_attr a = {.name = "wake-receiver", .prio = RTB_WAKE_PRIO_HIGH};
		rc = rtb_port_thread_create(&p->receiver, &a, receiver_main, p);
	}
	for (uint32_t i = 0; i < background && rc == RTB_OK; i++) {
		struct rtb_thread_attr a = {.name = "wake-background",
					    .prio = RTB_WAKE_PRIO_BACKGROUND};
		rc = rtb_port_thread_create(&p->bg[i].thread, &a, background_main, &p->bg[i]);
		if (rc == RTB_OK)
			p->nbg++;
	}
	if (rc != RTB_OK) {
		rtb_wake_pair_delete(p);
		return rc;
	}
	*out = p;
	return RTB_OK;
}

/* One sample. */
static int pair_sample(struct rtb_ctx *ctx, struct rtb_wake_pair *p, struct rtb_recorder *r)
{
	uint32_t before = p->wakes;
	uint32_t msg = 0;
	uint64_t t0;
	bool ready;
	int rc;

	if (p->rc != RTB_OK)
		return p->rc;
	switch (p->kind) {
	case RTB_WAKE_SEM:
		ready = rtb_ctx_settle(ctx, &p->waits, before + 1);
		t0 = rtb_port_counter_read();
		rc = rtb_port_sem_signal(p->sem);
		break;
	case RTB_WAKE_MQ:
		ready = rtb_ctx_settle(ctx, &p->waits, before + 1);
		msg = ++p->seq;
		t0 = rtb_port_counter_read();
		rc = rtb_port_mq_send(p->mq, &msg, sizeof(msg));
		break;
	default:
		rc = rtb_port_mutex_lock(p->mutex);
		if (rc != RTB_OK)
			return rc;
		rc = rtb_port_sem_signal(p->sem);
		if (rc != RTB_OK) {
			rtb_port_mutex_unlock(p->mutex);
			return rc;
		}
		/* with real-time scheduling the receiver is now blocked on the
		 * mutex and we run boosted */
		ready = rtb_ctx_settle(ctx, &p->waits, before + 1) && p->wakes == before;
		t0 = rtb_port_counter_read();
		rc = rtb_port_mutex_unlock(p->mutex);
		break;
	}
	if (rc != RTB_OK)
		return rc;
	bool woke = rtb_ctx_settle(ctx, &p->wakes, before + 1);
	if (p->rc != RTB_OK)
		return p->rc;
	if (!ready) {
		p->invalid.not_blocked++;
		rtb_recorder_add_invalid(r);
	} else if (!woke) {
		p->invalid.not_woken++;
		rtb_recorder_add_invalid(r);
	} else if (p->kind == RTB_WAKE_MQ && p->msg_got != msg) {
		p->invalid.wrong_msg++;
		rtb_recorder_add_invalid(r);
	} else {
		rtb_recorder_add_interval(r, t0, p->t_woken);
	}
	return RTB_OK;
}

int rtb_wake_pair_measure(struct rtb_ctx *ctx, struct rtb_wake_pair *p, bool workload,
			  uint64_t count, uint64_t gap_ns, struct rtb_recorder *r, uint64_t *done)
{
	bool opened = workload && p->nbg > 0;
	int rc = RTB_OK;

	*done = 0;
	if (opened) {
		p->park = false;
		for (uint32_t i = 0; i < p->nbg; i++)
			rtb_port_sem_signal(p->gate);
		p->parks_expected += p->nbg;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (gap_ns > 0)
			rtb_port_sleep_ns(gap_ns);
		rc = pair_sample(ctx, p, r);
		if (rc != RTB_OK)
			break;
		*done = i + 1;
		if ((gap_ns > 0 || (i & 63) == 0) && rtb_ctx_expired(ctx))
			break;
	}
	if (opened) {
		p->park = true;
		if (!background_wait(p, false)) {
			rtb_ctx_fail(ctx, RTB_E_TIMEOUT,
				     "the background threads did not return to their gate");
			return rc != RTB_OK ? rc : RTB_E_TIMEOUT;
		}
	}
	return rc;
}

uint64_t rtb_wake_pair_background_turns(const struct rtb_wake_pair *p)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->nbg; i++)
		n += p->bg[i].turns;
	return n;
}

struct rtb_wake_invalid rtb_wake_pair_invalid(const struct rtb_wake_pair *p)
{
	return p->invalid;
}
