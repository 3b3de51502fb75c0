/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: counting semaphores. Counts and the try variant, the
 * count limit, timed waits (time out no earlier than asked, succeed when
 * signalled), blocking waits woken by a signal (a higher waiter runs at
 * once), and the release order: with waiters of distinct priorities that
 * blocked in an order unrelated to their priorities, each signal releases
 * the highest.
 */
#include "port_test.h"

static struct trace tr;

static void test_counts(void)
{
	struct rtb_sem *s;
	uint32_t v = 99;

	CHECK(rtb_port_sem_create(&s, 3) == RTB_OK);
	CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == 3);
	CHECK(rtb_port_sem_trywait(s) == RTB_OK);
	CHECK(rtb_port_sem_wait(s) == RTB_OK);
	CHECK(rtb_port_sem_timedwait(s, 1000000) == RTB_OK);
	CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == 0);
	CHECK(rtb_port_sem_trywait(s) == RTB_E_AGAIN);
	CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == 0);
	CHECK(rtb_port_sem_signal(s) == RTB_OK);
	CHECK(rtb_port_sem_signal_from_irq(s) == RTB_OK); /* IRQ-safe, also from a thread */
	CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == 2);
	CHECK(rtb_port_sem_wait(s) == RTB_OK);
	CHECK(rtb_port_sem_trywait(s) == RTB_OK);
	CHECK(rtb_port_sem_trywait(s) == RTB_E_AGAIN);
	for (int i = 0; i < 100000; i++)
		rtb_port_sem_signal(s);
	CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == 100000);
	CHECK(rtb_port_sem_delete(s) == RTB_OK);

	/* the count limit */
	uint64_t max = rtb_port_sem_max();
	CHECK(max >= 32767);
	if (max < UINT32_MAX) {
		CHECK(rtb_port_sem_create(&s, (uint32_t)max + 1) == RTB_E_INVALID);
		CHECK(rtb_port_sem_create(&s, (uint32_t)max) == RTB_OK);
		CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == max);
		CHECK(rtb_port_sem_signal(s) == RTB_E_AGAIN);
		CHECK(rtb_port_sem_value(s, &v) == RTB_OK && v == max);
		CHECK(rtb_port_sem_delete(s) == RTB_OK);
	}
	CHECK(rtb_port_sem_create(NULL, 0) == RTB_E_INVALID);
	CHECK(rtb_port_sem_delete(NULL) == RTB_E_INVALID);
}

/* ---- timed waits ----------------------------------------------------------- */

struct signaller {
	struct rtb_sem *sem;
	atomic_int done;
};

static void signal_main(void *arg)
{
	struct signaller *s = arg;

	trace_add(&tr, "signal");
	rtb_port_sem_signal(s->sem);
	atomic_store(&s->done, 1);
}

static void test_timed_wait(void)
{
	struct rtb_sem *s;

	CHECK(rtb_port_sem_create(&s, 0) == RTB_OK);
	static const uint64_t timeouts_ns[] = {0, 1000, 2000000, 20000000};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(timeouts_ns); i++) {
		uint64_t t0 = rtb_port_time_ns();
		CHECK(rtb_port_sem_timedwait(s, timeouts_ns[i]) == RTB_E_TIMEOUT);
		uint64_t waited = rtb_port_time_ns() - t0;
		CHECK(waited >= timeouts_ns[i]);	      /* never early */
		CHECK(waited < timeouts_ns[i] + 2000000000u); /* gross sanity only */
	}

	/* a lower thread signals once the waiter blocks: woken, not timed out */
	struct signaller sig = {.sem = s};
	rtb_port_thread_set_priority(NULL, 10);
	trace_reset(&tr);
	struct rtb_thread *t = spawn("signaller", 5, false, signal_main, &sig);
	trace_add(&tr, "wait");
	uint64_t t0 = rtb_port_time_ns();
	CHECK(rtb_port_sem_timedwait(s, 5000000000u) == RTB_OK);
	CHECK(rtb_port_time_ns() - t0 < 5000000000u);
	trace_add(&tr, "woken");
	CHECK(trace_is(&tr, "wait signal woken"));
	CHECK(wait_for(&sig.done, 1, 2000));
	reap(t);

	/* the longest timeouts mean "practically forever", not "already over" */
	static const uint64_t long_ns[] = {UINT64_MAX, UINT64_MAX - 999999999u, 1ull << 63};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(long_ns); i++) {
		atomic_store(&sig.done, 0);
		trace_reset(&tr);
		t = spawn("signaller", 5, false, signal_main, &sig);
		trace_add(&tr, "wait");
		CHECK(rtb_port_sem_timedwait(s, long_ns[i]) == RTB_OK);
		trace_add(&tr, "woken");
		CHECK(trace_is(&tr, "wait signal woken"));
		CHECK(wait_for(&sig.done, 1, 2000));
		reap(t);
		while (rtb_port_sem_trywait(s) == RTB_OK) /* leave no count behind */
			;
	}
	rtb_port_thread_set_priority(NULL, 0);
	CHECK(rtb_port_sem_delete(s) == RTB_OK);
}

/* ---- blocking wait woken by a signal ---------------------------------------- */

struct waiter {
	const char *tag;
	struct rtb_sem *sem;
	atomic_int blocked, woken;
	int rc;
};

static void wait_main(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->blocked, 1);
	w->rc = rtb_port_sem_wait(w->sem);
	trace_add(&tr, w->tag);
	atomic_store(&w->woken, 1);
}

static void test_wake(void)
{
	struct waiter w = {.tag = "W"};

	CHECK(rtb_port_sem_create(&w.sem, 0) == RTB_OK);
	trace_reset(&tr);
	struct rtb_thread *t = spawn("waiter", 20, false, wait_main, &w);
	CHECK(atomic_load(&w.blocked) == 1);
	CHECK(atomic_load(&w.woken) == 0);
	trace_add(&tr, "M0");
	CHECK(rtb_port_sem_signal(w.sem) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(trace_is(&tr, "M0 W M1")); /* the higher waiter ran at once */
	CHECK(w.rc == RTB_OK);
	reap(t);
	CHECK(rtb_port_sem_delete(w.sem) == RTB_OK);
}

/* ---- release order --------------------------------------------------------- */

static void test_release_order(void)
{
	/* blocking order unrelated to priority */
	static const int prios[] = {3, 9, 5, 12, 7, 1, 10};
	static const char *const tags[] = {"3", "9", "5", "12", "7", "1", "10"};
	enum { N = RTB_ARRAY_SIZE(prios) };
	struct waiter w[N];
	struct rtb_thread *t[N];
	struct rtb_sem *sem;

	CHECK(rtb_port_sem_create(&sem, 0) == RTB_OK);
	/* the controller stays below every waiter, so each blocks at once */
	rtb_port_thread_set_priority(NULL, 0);
	memset(w, 0, sizeof(w));
	trace_reset(&tr);
	for (int i = 0; i < N; i++) {
		w[i].tag = tags[i];
		w[i].sem = sem;
		t[i] = spawn("release", prios[i], false, wait_main, &w[i]);
		CHECK(atomic_load(&w[i].blocked) == 1);
	}
	for (int i = 0; i < N; i++) {
		CHECK(rtb_port_sem_signal(sem) == RTB_OK);
		/* exactly one more waiter has run */
		int woken = 0;
		for (int k = 0; k < N; k++)
			woken += atomic_load(&w[k].woken);
		CHECK(woken == i + 1);
	}
	CHECK(trace_is(&tr, "12 10 9 7 5 3 1"));
	for (int i = 0; i < N; i++)
		reap(t[i]);

	/* signals given while the controller outranks every waiter: the count
	 * builds up, and the waiters then run in priority order */
	memset(w, 0, sizeof(w));
	trace_reset(&tr);
	for (int i = 0; i < N; i++) {
		w[i].tag = tags[i];
		w[i].sem = sem;
		t[i] = spawn("release", prios[i], false, wait_main, &w[i]);
	}
	rtb_port_thread_set_priority(NULL, 20);
	for (int i = 0; i < N; i++)
		CHECK(rtb_port_sem_signal(sem) == RTB_OK);
	CHECK(trace_is(&tr, ""));
	rtb_port_thread_set_priority(NULL, 0);
	CHECK(trace_is(&tr, "12 10 9 7 5 3 1"));
	for (int i = 0; i < N; i++)
		reap(t[i]);
	CHECK(rtb_port_sem_delete(sem) == RTB_OK);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_counts();
	test_timed_wait();
	test_wake();
	test_release_order();
	return check_exit();
}
