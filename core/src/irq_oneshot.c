/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one-shot interrupt harness (rtb/irq_oneshot.h) and the interrupt
 * latency measurement built on it.
 *
 * The interrupt source is the port's (rtb_port_irq_*): something the OS
 * offers that is not synchronised with its clock tick. Each sample arms a
 * one-shot interrupt after a pseudo-random delay and releases a busy thread
 * (relative priority 1), the interrupt's target, into a loop bounded by an
 * explicit end time (the delay plus a window) and an iteration count. A
 * sample is invalid (counted in rtb_oneshot_counts) when no interrupt came
 * in the window, or when the handler ran while the busy thread was not in
 * its loop.
 *
 * Latency (irq.latency, IRQ-P-LAT, and rh.irq_latency) and return
 * (irq.return, IRQ-P-DLT). The busy thread stores the low 32 bits of the
 * counter into a shared word in a tight loop. The handler reads the counter
 * as its first action (t_entry), then the shared word: the last value the
 * interrupted thread stored, extended to 64 bits with t_entry's high bits.
 * Its last action is a second counter read (t_exit). latency = t_entry -
 * last value; return = the first value the busy thread reads after the
 * handler that is later than t_exit, minus t_exit (a value read before the
 * interrupt but stored after it is skipped). Both have the timestamp
 * overhead subtracted; the loop's own period bounds their resolution. A
 * latency sample is also invalid when the last value stored is older than
 * the earliest moment the interrupt could have come, by more than a small
 * allowance (the busy thread was not running then: the handler did not
 * interrupt it); a return sample when the loop ended before a new value.
 */
#include "rtb/irq_oneshot.h"

/* xorshift64: delays that follow no pattern of the OS or of the loop. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static uint64_t rng_between(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return hi > lo ? lo + rng_next(state) % (hi - lo + 1) : lo;
}

uint64_t rtb_oneshot_seed(void)
{
	uint64_t s = rtb_port_counter_read() * 0x9e3779b97f4a7c15ull;

	return s != 0 ? s : 0x2545f4914f6cdd1dull;
}

int rtb_oneshot_options(struct rtb_ctx *ctx, const char *id, struct rtb_oneshot_opts *o)
{
	char key[96];

	o->iterations = rtb_ctx_count(ctx, "iterations", 2000, 100000, 1000000);
	rtb_fmt(key, sizeof(key), "%s.delay_min_ns", id);
	o->delay_min_ns = rtb_ctx_count(ctx, key, 20000, 20000, 20000);
	rtb_fmt(key, sizeof(key), "%s.delay_max_ns", id);
	o->delay_max_ns = rtb_ctx_count(ctx, key, 100000, 100000, 100000);
	rtb_fmt(key, sizeof(key), "%s.gap_ns", id);
	o->gap_ns = rtb_ctx_count(ctx, key, 100000, 100000, 100000);
	rtb_fmt(key, sizeof(key), "%s.early_ns", id);
	o->early_ns = rtb_ctx_count(ctx, key, 5000, 5000, 5000);
	o->window_ns = RTB_ONESHOT_WINDOW_NS;
	if (o->iterations == 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "iterations must be at least 1");
	if (o->delay_min_ns == 0 || o->delay_max_ns < o->delay_min_ns ||
	    o->delay_max_ns > RTB_ONESHOT_DELAY_MAX_NS)
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "%s.delay_min_ns / delay_max_ns must satisfy "
				    "0 < min <= max <= %u",
				    id, RTB_ONESHOT_DELAY_MAX_NS);
	if (o->gap_ns > 1000000000u)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "%s.gap_ns is at most 1 s", id);
	return RTB_OK;
}

int rtb_oneshot_sample(struct rtb_ctx *ctx, struct rtb_oneshot_run *run, uint64_t *due,
		       bool *in_loop)
{
	struct rtb_oneshot_sync *s = run->sync;
	uint64_t delay = rng_between(&run->seed, run->o.delay_min_ns, run->o.delay_max_ns);
	uint64_t delay_ticks = rtb_ns_to_ticks(delay);

	atomic_store_explicit(&s->handled, 0, memory_order_relaxed);
	s->h_spinning = 0;
	run->c.attempts++;

	uint64_t t_arm = rtb_port_counter_read();
	s->loop_end = t_arm + delay_ticks + run->window_ticks;
	s->loop_max_iters = (delay_ticks + run->window_ticks) * 4 + 1000000u;
	int rc = rtb_port_irq_fire(run->irq, delay);
	if (rc != RTB_OK)
		return rtb_ctx_fail(ctx, rc, "arming the interrupt failed: %s",
				    rtb_port_strerror(rc));
	rtb_port_sem_signal(s->go);
	rc = rtb_port_sem_timedwait(s->done, delay + run->o.window_ns + 1000000000u);
	if (rc != RTB_OK) {
		rtb_port_irq_stop(run->irq, NULL);
		return rtb_ctx_fail(ctx, rc, "the busy thread did not come back from its loop");
	}
	*due = t_arm + delay_ticks;
	*in_loop = false;
	if (!atomic_load_explicit(&s->handled, memory_order_relaxed)) {
		/* disarm, and let a late one arrive before the next sample */
		rtb_port_irq_stop(run->irq, NULL);
		run->c.no_irq++;
	} else if (!s->h_spinning) {
		run->c.outside++;
	} else {
		*in_loop = true;
	}
	return RTB_OK;
}

/* Stop the source, end the busy thread, delete what was created. */
void rtb_oneshot_teardown(struct rtb_oneshot_sync *s, struct rtb_irq *irq, struct rtb_thread *busy)
{
	if (irq != NULL) {
		rtb_port_irq_stop(irq, NULL);
		rtb_port_irq_delete(irq);
	}
	s->stop = true;
	if (busy != NULL) {
		rtb_port_sem_signal(s->go);
		rtb_port_thread_delete(busy);
	}
	if (s->go != NULL)
		rtb_port_sem_delete(s->go);
	if (s->done != NULL)
		rtb_port_sem_delete(s->done);
}

/* ---- latency and return ---------------------------------------------------- */

/*
 * The shared word holds 32 bits so that storing it is one indivisible write
 * on every CPU; the handler extends it with t_entry's high bits, exact for
 * gaps below 2^32 ticks (over a second at GHz counters; the loop is bounded
 * far below).
 */
struct lat_shared {
	struct rtb_oneshot_sync sync;
	_Atomic uint32_t last_lo;    /* busy: low bits of the latest counter value */
	uint32_t h_last_lo;	     /* handler: last_lo at entry */
	volatile uint64_t h_entry;   /* handler: first counter read */
	volatile uint64_t h_exit;    /* handler: last counter read */
	volatile uint64_t ret_value; /* busy: first value > h_exit, 0 if none */
	volatile uint64_t loop_first, loop_last, loop_iters;
};

static void lat_handler(void *arg)
{
	struct lat_shared *sh = arg;
	uint64_t t_entry = rtb_port_counter_read();

	sh->h_last_lo = atomic_load_explicit(&sh->last_lo, memory_order_relaxed);
	sh->sync.h_spinning = atomic_load_explicit(&sh->sync.spinning, memory_order_relaxed);
	sh->h_entry = t_entry;
	uint64_t t_exit = rtb_port_counter_read();
	sh->h_exit = t_exit;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&sh->sync.handled, 1, memory_order_relaxed);
}

static void lat_busy_main(void *arg)
{
	struct lat_shared *sh = arg;
	struct rtb_oneshot_sync *s = &sh->sync;

	for (;;) {
		if (rtb_port_sem_wait(s->go) != RTB_OK || s->stop)
			return;
		uint64_t end = s->loop_end, max_iters = s->loop_max_iters;
		uint64_t v = rtb_port_counter_read(), first = v, ret = 0, n;

		atomic_store_explicit(&sh->last_lo, (uint32_t)v, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		atomic_store_explicit(&s->spinning, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		for (n = 0; n < max_iters; n++) {
			v = rtb_port_counter_read();
			atomic_store_explicit(&sh->last_lo, (uint32_t)v, memory_order_relaxed);
			if (atomic_load_explicit(&s->handled, memory_order_relaxed)) {
				atomic_signal_fence(memory_order_seq_cst);
				/* A value read before the interrupt may be stored
				 * after it: only a later one is the return. */
				if (v > sh->h_exit) {
					ret = v;
					break;
				}
			}
			if (v >= end)
				break;
		}
		atomic_signal_fence(memory_order_seq_cst);
		atomic_store_explicit(&s->spinning, 0, memory_order_relaxed);
		sh->ret_value = ret;
		sh->loop_first = first;
		sh->loop_last = v;
		sh->loop_iters = n;
		rtb_port_sem_signal(s->done);
	}
}

/* Let the busy thread spin for `ns` without interrupt; its mean period. */
static int lat_loop_period(struct lat_shared *sh, uint64_t ns, uint64_t *period_ticks)
{
	sh->sync.loop_end = rtb_port_counter_read() + rtb_ns_to_ticks(ns);
	sh->sync.loop_max_iters = rtb_ns_to_ticks(ns) * 4 + 1000000u;
	rtb_port_sem_signal(sh->sync.go);
	int rc = rtb_port_sem_timedwait(sh->sync.done, ns + 1000000000u);
	if (rc != RTB_OK)
		return rc;
	uint64_t iters = sh->loop_iters > 0 ? sh->loop_iters : 1;
	*period_ticks = (sh->loop_last - sh->loop_first + iters - 1) / iters;
	return RTB_OK;
}

/* Judge one sample whose interrupt came during the busy loop. */
static void lat_judge(const struct lat_shared *sh, uint64_t due, struct rtb_recorder *rl,
		      struct rtb_recorder *rr, struct rtb_irq_latency_report *rep)
{
	uint64_t entry = sh->h_entry;
	uint64_t last = entry - (uint32_t)((uint32_t)entry - sh->h_last_lo);

	if (last + rep->tolerance_ticks < due) {
		rep->not_running++;
		if (entry > due)
			rep->not_running_max_ticks =
				RTB_MAX(rep->not_running_max_ticks, entry - due);
		rtb_recorder_add_invalid(rl);
	} else {
		rtb_recorder_add_interval(rl, last, entry);
	}
	if (sh->ret_value != 0) {
		if (rr != NULL)
			rtb_recorder_add_interval(rr, sh->h_exit, sh->ret_value);
	} else {
		rep->no_return++;
		if (rr != NULL)
			rtb_recorder_add_invalid(rr);
	}
}

int rtb_irq_latency_measure(struct rtb_ctx *ctx, const struct rtb_oneshot_opts *o,
			    struct rtb_recorder *rl, struct rtb_recorder *rr,
			    struct rtb_irq_latency_report *rep)
{
	struct rtb_oneshot_run *run = &rep->run;
	struct lat_shared *sh = NULL;
	struct rtb_thread *busy = NULL;
	uint64_t total = o->iterations + rl->warmup_target;
	int rc;

	rtb_memset(rep, 0, sizeof(*rep));
	run->o = *o;
	run->seed = rtb_oneshot_seed();
	sh = rtb_port_mem_alloc(sizeof(*sh));
	if (sh == NULL)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	rtb_memset(sh, 0, sizeof(*sh));
	run->sync = &sh->sync;
	rc = rtb_port_sem_create(&sh->sync.go, 0);
	if (rc == RTB_OK)
		rc = rtb_port_sem_create(&sh->sync.done, 0);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "setup failed: %s", rtb_port_strerror(rc));
		goto out;
	}
	struct rtb_thread_attr ba = {.name = "irq-busy", .prio = 1};
	rc = rtb_port_thread_create(&busy, &ba, lat_busy_main, sh);
	if (rc == RTB_OK)
		rc = rtb_port_irq_create(&run->irq, busy, lat_handler, sh);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the busy thread or the interrupt source: %s",
			     rtb_port_strerror(rc));
		goto out;
	}
	rc = lat_loop_period(sh, 2000000, &rep->loop_ticks);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "the busy thread did not come back from its loop");
		goto out;
	}
	/* The last value precedes the interrupt by up to two iterations (read,
	 * interrupt, store), and on a virtual machine the hypervisor may stop
	 * the guest a little before the interrupt is due (its timer path runs
	 * early): only a gap beyond early_ns means another thread ran. */
	rep->tolerance_ticks = RTB_MAX(4 * rep->loop_ticks + 1, rtb_ns_to_ticks(o->early_ns));
	run->window_ticks = rtb_ns_to_ticks(o->window_ns);

	for (uint64_t i = 0; i < total; i++) {
		if (rtb_ctx_expired_after(ctx, i, total, "samples"))
			break;
		uint64_t due;
		bool in_loop;
		rc = rtb_oneshot_sample(ctx, run, &due, &in_loop);
		if (rc != RTB_OK)
			break;
		if (!in_loop) {
			rtb_recorder_add_invalid(rl);
			if (rr != NULL)
				rtb_recorder_add_invalid(rr);
		} else {
			lat_judge(sh, due, rl, rr, rep);
		}
		if (o->gap_ns > 0)
			rtb_port_sleep_ns(o->gap_ns);
	}

out:
	rtb_oneshot_teardown(&sh->sync, run->irq, busy);
	run->sync = NULL;
	run->irq = NULL;
	rtb_port_mem_free(sh);
	return rc;
}
