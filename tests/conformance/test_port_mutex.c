/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: mutexes. Every protocol creates (or is refused as
 * unsupported, never silently replaced), bad ceilings and protocols are
 * refused, trylock of a held mutex says RTB_E_AGAIN, a held mutex cannot be
 * deleted. The priority protocols are observed, not trusted: a low thread L
 * holds the mutex, a high thread H blocks on it, a medium thread M is ready
 * and never blocks. With inheritance (or a ceiling at H's level) L runs
 * before M, so H gets the mutex before M runs; with no protocol M runs
 * first: the unbounded inversion, which must be visible (it is this test's
 * negative control).
 */
#include "port_test.h"

static struct trace tr;

static void test_create(void)
{
	int pmax = rtb_port_info()->prio_max;
	uint32_t caps = rtb_port_info()->caps;
	struct rtb_mutex *m;

	CHECK(rtb_port_mutex_create(&m, RTB_MUTEX_NONE, 0) == RTB_OK);
	CHECK(rtb_port_mutex_lock(m) == RTB_OK);
	CHECK(rtb_port_mutex_unlock(m) == RTB_OK);
	CHECK(rtb_port_mutex_delete(m) == RTB_OK);

	int rc = rtb_port_mutex_create(&m, RTB_MUTEX_INHERIT, 0);
	CHECK(rc == ((caps & RTB_CAP_MUTEX_INHERIT) ? RTB_OK : RTB_E_UNSUPPORTED));
	if (rc == RTB_OK) {
		CHECK(rtb_port_mutex_lock(m) == RTB_OK);
		CHECK(rtb_port_mutex_unlock(m) == RTB_OK);
		CHECK(rtb_port_mutex_delete(m) == RTB_OK);
	}

	rc = rtb_port_mutex_create(&m, RTB_MUTEX_CEILING, pmax);
	CHECK(rc == ((caps & RTB_CAP_MUTEX_CEILING) ? RTB_OK : RTB_E_UNSUPPORTED));
	if (rc == RTB_OK) {
		CHECK(rtb_port_mutex_lock(m) == RTB_OK);
		CHECK(rtb_port_mutex_unlock(m) == RTB_OK);
		CHECK(rtb_port_mutex_delete(m) == RTB_OK);
		CHECK(rtb_port_mutex_create(&m, RTB_MUTEX_CEILING, -1) == RTB_E_INVALID);
		CHECK(rtb_port_mutex_create(&m, RTB_MUTEX_CEILING, pmax + 1) == RTB_E_INVALID);
	}
	CHECK(rtb_port_mutex_create(&m, (enum rtb_mutex_protocol)3, 0) == RTB_E_INVALID);
	CHECK(rtb_port_mutex_create(NULL, RTB_MUTEX_NONE, 0) == RTB_E_INVALID);
	CHECK(rtb_port_mutex_delete(NULL) == RTB_E_INVALID);

	const char *a = rtb_port_mutex_mechanism(RTB_MUTEX_NONE);
	const char *b = rtb_port_mutex_mechanism(RTB_MUTEX_INHERIT);
	const char *c = rtb_port_mutex_mechanism(RTB_MUTEX_CEILING);
	CHECK(a != NULL && b != NULL && c != NULL && a[0] && b[0] && c[0]);
	CHECK(strcmp(a, b) != 0 && strcmp(b, c) != 0 && strcmp(a, c) != 0);
}

/* ---- trylock, delete while held ----------------------------------------------- */

struct trier {
	struct rtb_mutex *m;
	int first, second;
	atomic_int done;
};

static void try_main(void *arg)
{
	struct trier *t = arg;

	t->first = rtb_port_mutex_trylock(t->m);
	if (t->first == RTB_OK)
		rtb_port_mutex_unlock(t->m);
	atomic_store(&t->done, 1);
}

static void test_trylock(void)
{
	static const enum rtb_mutex_protocol protocols[] = {RTB_MUTEX_NONE, RTB_MUTEX_INHERIT,
							    RTB_MUTEX_CEILING};

	for (size_t i = 0; i < RTB_ARRAY_SIZE(protocols); i++) {
		struct trier t = {0};
		if (rtb_port_mutex_create(&t.m, protocols[i], rtb_port_info()->prio_max) != RTB_OK)
			continue;
		CHECK(rtb_port_mutex_lock(t.m) == RTB_OK);
		struct rtb_thread *th = spawn("trier", 20, false, try_main, &t);
		CHECK(wait_for(&t.done, 1, 2000));
		CHECK(t.first == RTB_E_AGAIN);
		reap(th);
		CHECK(rtb_port_mutex_delete(t.m) == RTB_E_BUSY); /* still held */
		CHECK(rtb_port_mutex_unlock(t.m) == RTB_OK);
		memset(&t.done, 0, sizeof(t.done));
		th = spawn("trier", 20, false, try_main, &t);
		CHECK(wait_for(&t.done, 1, 2000));
		CHECK(t.first == RTB_OK);
		reap(th);
		CHECK(rtb_port_mutex_trylock(t.m) == RTB_OK);
		CHECK(rtb_port_mutex_unlock(t.m) == RTB_OK);
		CHECK(rtb_port_mutex_delete(t.m) == RTB_OK);
	}
}

/* ---- priority inversion ------------------------------------------------------ */

struct inversion {
	struct rtb_mutex *m;
	struct rtb_sem *locked; /* L -> controller: L holds the mutex */
	struct rtb_sem *done;	/* H and M -> controller */
};

static void low_main(void *arg)
{
	struct inversion *x = arg;

	rtb_port_mutex_lock(x->m);
	rtb_port_sem_signal(x->locked); /* the controller preempts here */
	trace_add(&tr, "L-unlock");
	rtb_port_mutex_unlock(x->m);
	trace_add(&tr, "L-end");
}

static void high_main(void *arg)
{
	struct inversion *x = arg;

	trace_add(&tr, "H-lock");
	rtb_port_mutex_lock(x->m);
	trace_add(&tr, "H-got");
	rtb_port_mutex_unlock(x->m);
	rtb_port_sem_signal(x->done);
}

static void medium_main(void *arg)
{
	struct inversion *x = arg;

	trace_add(&tr, "M");
	rtb_port_sem_signal(x->done);
}

/* Run the L/M/H pattern on a mutex of the given protocol. Returns true if
 * H got the mutex before M ran (no inversion); *ok is false if the pattern
 * could not complete. */
static bool no_inversion(enum rtb_mutex_protocol protocol, bool *ok)
{
	struct inversion x;
	enum { LOW = 2, MEDIUM = 5, HIGH = 8, CONTROLLER = 9 };

	*ok = false;
	if (rtb_port_mutex_create(&x.m, protocol, HIGH) != RTB_OK)
		return false;
	CHECK(rtb_port_sem_create(&x.locked, 0) == RTB_OK);
	CHECK(rtb_port_sem_create(&x.done, 0) == RTB_OK);
	rtb_port_thread_set_priority(NULL, CONTROLLER);
	trace_reset(&tr);

	struct rtb_thread *l = spawn("L", LOW, false, low_main, &x);
	if (rtb_port_sem_timedwait(x.locked, 2000000000u) != RTB_OK) {
		fprintf(stderr, "L never took the mutex\n");
		return false;
	}
	struct rtb_thread *h = spawn("H", HIGH, false, high_main, &x);
	struct rtb_thread *m = spawn("M", MEDIUM, false, medium_main, &x);
	/* nothing ran yet: the controller outranks all three */
	CHECK(trace_is(&tr, ""));
	if (rtb_port_sem_timedwait(x.done, 2000000000u) != RTB_OK ||
	    rtb_port_sem_timedwait(x.done, 2000000000u) != RTB_OK) {
		/* H may be stuck in the mutex, which cannot be cancelled:
		 * leave the threads to the end of the process */
		fprintf(stderr, "the L/M/H pattern did not complete\n");
		return false;
	}
	reap(h);
	reap(m);
	reap(l);
	bool in_order = trace_pos(&tr, "H-got") >= 0 && trace_pos(&tr, "M") >= 0 &&
			trace_pos(&tr, "H-got") < trace_pos(&tr, "M");
	fprintf(stderr, "%s: %s\n", rtb_port_mutex_mechanism(protocol), tr.text);
	rtb_port_sem_delete(x.locked);
	rtb_port_sem_delete(x.done);
	rtb_port_mutex_delete(x.m);
	rtb_port_thread_set_priority(NULL, 0);
	*ok = true;
	return in_order;
}

static void test_inversion(void)
{
	uint32_t caps = rtb_port_info()->caps;
	bool ok;

	/* negative control: without a protocol the inversion shows */
	bool none = no_inversion(RTB_MUTEX_NONE, &ok);
	CHECK(ok);
	CHECK(!none);
	CHECK(trace_is(&tr, "H-lock M L-unlock H-got L-end"));

	if (caps & RTB_CAP_MUTEX_INHERIT) {
		bool inherit = no_inversion(RTB_MUTEX_INHERIT, &ok);
		CHECK(ok);
		CHECK(inherit);
		CHECK(trace_is(&tr, "H-lock L-unlock H-got M L-end"));
	}
	if (caps & RTB_CAP_MUTEX_CEILING) {
		/* L runs at the ceiling (H's level) from the moment it locks.
		 * Whether H tries the lock before L releases it depends on where
		 * the OS queues a thread among equals (Linux puts a thread whose
		 * priority was just set at the head, POSIX says the tail); either
		 * way M must not run before H has the mutex. */
		bool ceiling = no_inversion(RTB_MUTEX_CEILING, &ok);
		CHECK(ok);
		CHECK(ceiling);
		CHECK(trace_pos(&tr, "L-unlock") < trace_pos(&tr, "M"));
	}
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_create();
	test_trylock();
	test_inversion();
	return check_exit();
}
