/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The yield ring (rtb/ring.h).
 *
 * n threads of equal priority (relative 1, FIFO) form a ring: each one, in
 * turn, writes the ring's "last yielder" mark, takes t_yield as its last
 * action and yields; the thread that runs next takes t1 as its first action
 * after its own yield returned. Sample = t1 - t_yield of the thread that
 * yielded - overhead.
 *
 * Ring order. Yield sends the caller to the tail of its ready queue, so the
 * threads run in a fixed cyclic order, the order in which they first ran.
 * Each thread learns its predecessor when it first runs (the leader, the
 * first to run, on its first return from yield). A return whose last yielder
 * is not the predecessor, or is the thread itself (the yield did not
 * switch), is counted invalid, never kept.
 *
 * Preemption among equal priorities. On an OS that time-slices them (for
 * all threads, as FreeRTOS built with time slicing does), the end of a slice
 * can stop a thread anywhere in the loop. A thread marks its t_yield not
 * taken (RING_UNTAKEN) before it names itself the last yielder, so a
 * successor that runs before the t_yield is taken does not pair its t1 with
 * the previous round's; and a t_yield taken after the successor's t1 (the
 * successor stopped between its t1 and its reads, the predecessor ran
 * again) is not a switch either. Both are counted invalid. Everything added
 * comes before t_yield is taken: the timed path is unchanged.
 *
 * The controller stays out of the ring: it creates the threads suspended
 * while raised to relative 2 (so none runs early), starts them, drops to
 * relative 0 (below the ring) and waits, blocked, until every ring thread
 * has ended. The leader ends the ring after its quota of samples by setting
 * a stop flag; each thread leaves the ring when it sees the flag. Every
 * thread also stops the ring when the scenario's time budget is used up.
 * Samples are kept per thread in memory allocated before the ring starts and
 * are added to the recorder afterwards, in the order they were taken; the
 * first round (every thread's first switch: cold caches) is the warm-up.
 */
#include "rtb/ring.h"

#define RING_PRIO 1
#define RING_NONE UINT32_MAX
#define SAMPLE_INVALID UINT64_MAX
#define RING_UNTAKEN UINT64_MAX /* t_yield: not taken since this member last ran */

struct ring;

struct ring_sample {
	uint64_t ticks; /* t1 - t_yield, or SAMPLE_INVALID */
	uint64_t t1;	/* when it was taken */
};

struct ring_member {
	struct rtb_thread *thread;
	struct ring *ring;
	uint32_t index;
	uint32_t pred;		     /* member expected to yield to this one */
	volatile uint64_t t_yield;   /* taken just before this member's yield */
	struct ring_sample *samples; /* this member's share of ring->samples */
	uint32_t nsamples;
	bool leader;
};

struct ring {
	const struct rtb_ctx *ctx;
	struct ring_member *members;
	uint32_t *entry_order; /* members in the order they first ran */
	struct ring_sample *samples;
	uint32_t n;
	uint32_t rounds;	   /* samples the leader takes */
	uint32_t cap;		   /* samples room per member */
	volatile uint32_t from;	   /* member that yielded last */
	volatile uint32_t entered; /* members that have run */
	volatile bool stop;
	volatile bool overflow;
	struct rtb_sem *done;
};

static void ring_main(void *arg)
{
	struct ring_member *me = arg;
	struct ring *rg = me->ring;
	uint32_t k = rg->entered;

	rg->entered = k + 1;
	rg->entry_order[k] = me->index;
	me->leader = k == 0;
	me->pred = rg->from; /* RING_NONE for the leader: learnt on its first return */
	while (!rg->stop) {
		me->t_yield = RING_UNTAKEN;
		rg->from = me->index;
		me->t_yield = rtb_port_counter_read();
		rtb_port_thread_yield();
		uint64_t t1 = rtb_port_counter_read();
		uint32_t from = rg->from;
		if (rg->stop)
			break;
		if (me->pred == RING_NONE && from != me->index)
			me->pred = from;
		uint64_t v = SAMPLE_INVALID;
		if (from == me->pred && from != me->index) {
			uint64_t t_yield = rg->members[from].t_yield;
			/* taken, and before t1 (wrap-safe) */
			if (t_yield != RING_UNTAKEN && (int64_t)(t1 - t_yield) >= 0)
				v = t1 - t_yield;
		}
		if (me->nsamples < rg->cap) {
			me->samples[me->nsamples].ticks = v;
			me->samples[me->nsamples].t1 = t1;
			me->nsamples++;
		} else {
			rg->overflow = true;
			rg->stop = true;
		}
		if ((me->leader && me->nsamples >= rg->rounds) || rtb_ctx_expired(rg->ctx))
			rg->stop = true;
	}
	rtb_port_sem_signal(rg->done);
}

/* Feed the recorder in the order the samples were taken: round by round,
 * in ring order starting with the leader. The recorder stamps a new maximum
 * with the time it is added; put back the time it was taken. */
static void ring_record(const struct ring *rg, struct rtb_recorder *r)
{
	uint32_t entered = RTB_MIN(rg->entered, rg->n);

	for (uint32_t k = 0; k < rg->cap; k++) {
		for (uint32_t i = 0; i < entered; i++) {
			const struct ring_member *m = &rg->members[rg->entry_order[i]];
			if (k >= m->nsamples)
				continue;
			const struct ring_sample *s = &m->samples[k];
			if (s->ticks == SAMPLE_INVALID) {
				rtb_recorder_add_invalid(r);
				continue;
			}
			uint64_t before = r->count;
			rtb_recorder_add_interval(r, s->t1 - s->ticks, s->t1);
			if (r->count > before && r->max_index == before)
				r->max_at_ticks = s->t1 - r->origin_ticks;
		}
	}
}

static void ring_free(struct ring *rg)
{
	if (rg->done != NULL)
		rtb_port_sem_delete(rg->done);
	rtb_port_mem_free(rg->members);
	rtb_port_mem_free(rg->entry_order);
	rtb_port_mem_free(rg->samples);
}

static int ring_alloc(struct ring *rg, uint32_t n, uint32_t rounds)
{
	rg->n = n;
	rg->rounds = rounds;
	rg->cap = rounds + 1;
	rg->from = RING_NONE;
	rg->members = rtb_port_mem_alloc(sizeof(*rg->members) * n);
	rg->entry_order = rtb_port_mem_alloc(sizeof(*rg->entry_order) * n);
	rg->samples = rtb_port_mem_alloc(sizeof(*rg->samples) * (size_t)n * rg->cap);
	if (rg->members == NULL || rg->entry_order == NULL || rg->samples == NULL)
		return RTB_E_NOMEM;
	/* touch everything now: no page fault inside the ring */
	rtb_memset(rg->members, 0, sizeof(*rg->members) * n);
	rtb_memset(rg->entry_order, 0, sizeof(*rg->entry_order) * n);
	rtb_memset(rg->samples, 0, sizeof(*rg->samples) * (size_t)n * rg->cap);
	for (uint32_t i = 0; i < n; i++) {
		rg->members[i].ring = rg;
		rg->members[i].index = i;
		rg->members[i].pred = RING_NONE;
		rg->members[i].samples = &rg->samples[(size_t)i * rg->cap];
	}
	return rtb_port_sem_create(&rg->done, 0);
}

static void ring_warnings(const struct rtb_ctx *ctx, const char *id, const struct ring *rg,
			  const struct rtb_recorder *r, uint64_t samples, uint64_t warm)
{
	uint32_t n = rg->n;

	if (rg->entered != n)
		rtb_emit_log(id, "warning",
			     "ring of %" RTB_PRIu32 " threads: only %" RTB_PRIu32 " ever ran", n,
			     rg->entered);
	if (rg->overflow)
		rtb_emit_log(id, "warning",
			     "ring of %" RTB_PRIu32
			     " threads: a thread returned from yield more often "
			     "than the ring order allows (no real-time policy, or a time "
			     "slice ended inside a switch?)",
			     n);
	if (r->count + r->warmup_count + r->invalid < samples + warm)
		rtb_emit_log(id, "warning",
			     "ring of %" RTB_PRIu32 " threads took %llu of %llu samples (%s)", n,
			     (unsigned long long)r->count, (unsigned long long)samples,
			     rtb_ctx_expired(ctx)
				     ? rtb_ctx_expired_cause(ctx)
				     : "threads ran out of ring order, so the leader's "
				       "quota ended the ring early");
	if (r->invalid > 0)
		rtb_emit_log(id, "warning",
			     "ring of %" RTB_PRIu32
			     " threads: %llu switches went to a thread other "
			     "than the expected successor, or a time slice ended inside "
			     "one (counted invalid)",
			     n, (unsigned long long)r->invalid);
}

int rtb_ring_measure(struct rtb_ctx *ctx, const struct rtb_metric *m, uint32_t n, uint64_t samples,
		     struct rtb_recorder *r, uint32_t *created)
{
	struct ring rg;
	/* the first round (each thread's first switch) is the warm-up */
	uint64_t warm = RTB_MAX((uint64_t)rtb_warmup_for(samples), (uint64_t)n);
	/* the leader takes `rounds` samples, the others one fewer */
	uint64_t rounds = (samples + warm + n - 1 + n - 1) / n;
	int rc;

	*created = 0;
	rtb_memset(r, 0, sizeof(*r));
	if (rounds > UINT32_MAX - 1 || warm > UINT32_MAX)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "too many samples");
	rtb_memset(&rg, 0, sizeof(rg));
	rg.ctx = ctx;
	rc = ring_alloc(&rg, n, (uint32_t)rounds);
	if (rc == RTB_OK)
		rc = rtb_recorder_init(r, m, (uint32_t)warm, ctx->raw_max);
	if (rc != RTB_OK) {
		ring_free(&rg);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM,
				    "no memory for a ring of %" RTB_PRIu32 " threads", n);
	}

	rc = rtb_port_thread_set_priority(NULL, RTB_RING_SETUP_PRIO);
	for (uint32_t i = 0; i < n && rc == RTB_OK; i++) {
		struct rtb_thread_attr a = {.name = "thr-ring",
					    .prio = RING_PRIO,
					    .policy = RTB_POLICY_FIFO,
					    .stack_bytes = RTB_RING_STACK_BYTES,
					    .start_suspended = true};
		rc = rtb_port_thread_create(&rg.members[i].thread, &a, ring_main, &rg.members[i]);
		if (rc == RTB_OK)
			(*created)++;
	}
	if (rc == RTB_OK) {
		for (uint32_t i = 0; i < n; i++)
			rtb_port_thread_start(rg.members[i].thread);
		/* dropping below the ring lets it run; we are back when it is done */
		rtb_port_thread_set_priority(NULL, 0);
		uint32_t ended = 0;
		while (ended < n) {
			uint64_t left = ctx->budget_end_ticks - rtb_port_counter_read();
			uint64_t wait_ns =
				rtb_ticks_to_ns((int64_t)left > 0 ? left : 0) + 2000000000u;
			if (rtb_port_sem_timedwait(rg.done, wait_ns) != RTB_OK)
				break;
			ended++;
		}
		if (ended < n) {
			rg.stop = true;
			rtb_emit_log(m->scenario, "warning",
				     "ring of %" RTB_PRIu32 " threads: only %" RTB_PRIu32
				     " ended in time",
				     n, ended);
		}
	} else {
		rtb_port_thread_set_priority(NULL, 0);
	}
	for (uint32_t i = 0; i < *created; i++)
		rtb_port_thread_delete(rg.members[i].thread);

	if (rc == RTB_OK) {
		ring_record(&rg, r);
		ring_warnings(ctx, m->scenario, &rg, r, samples, warm);
	} else {
		rtb_recorder_free(r);
	}
	ring_free(&rg);
	return rc;
}
