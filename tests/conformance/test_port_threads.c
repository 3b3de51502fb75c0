/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: threads. Every created thread runs on the measurement
 * CPU; a higher-priority thread that is created, started, resumed or raised
 * runs at once; an equal-priority one only after the creator yields; a
 * lower one only once the creator blocks; start_suspended holds a thread
 * until rtb_port_thread_start(); a resume before the suspend is remembered;
 * priorities round-trip and out-of-range ones are refused; threads that
 * ended, never started, or are blocked in a port call can be deleted.
 */
#include "port_test.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static struct trace tr;
static int cpu;

/* ---- pinning -------------------------------------------------------------- */

struct pin_probe {
	atomic_int done;
	int seen_cpu;
	int allowed_cpus;
	bool allowed_is_measurement_cpu;
};

static void pin_main(void *arg)
{
	struct pin_probe *p = arg;
	cpu_set_t set;

	p->seen_cpu = sched_getcpu();
	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0) {
		p->allowed_cpus = CPU_COUNT(&set);
		p->allowed_is_measurement_cpu = CPU_ISSET(cpu, &set);
	}
	atomic_store(&p->done, 1);
}

static void test_pinning(void)
{
	static const int prios[] = {0, 1, 5, 20, 40};
	struct pin_probe probes[RTB_ARRAY_SIZE(prios)];
	struct rtb_thread *t[RTB_ARRAY_SIZE(prios)];

	CHECK(sched_getcpu() == cpu);
	memset(probes, 0, sizeof(probes));
	rtb_port_thread_set_priority(NULL, 10);
	for (size_t i = 0; i < RTB_ARRAY_SIZE(prios); i++)
		t[i] = spawn("pin", prios[i], false, pin_main, &probes[i]);
	for (size_t i = 0; i < RTB_ARRAY_SIZE(prios); i++) {
		CHECK(wait_for(&probes[i].done, 1, 2000));
		CHECK(probes[i].seen_cpu == cpu);
		CHECK(probes[i].allowed_cpus == 1);
		CHECK(probes[i].allowed_is_measurement_cpu);
		reap(t[i]);
	}
	rtb_port_thread_set_priority(NULL, 0);
}

/* ---- priority order --------------------------------------------------------- */

struct tagged {
	const char *tag;
	atomic_int ran;
	struct rtb_thread *handle; /* filled by the creator */
	struct rtb_thread *self;   /* what rtb_port_thread_self() said */
	int prio_seen;
};

static void tag_main(void *arg)
{
	struct tagged *x = arg;

	x->self = rtb_port_thread_self();
	rtb_port_thread_get_priority(NULL, &x->prio_seen);
	trace_add(&tr, x->tag);
	atomic_store(&x->ran, 1);
}

static void test_priority_order(void)
{
	struct tagged high = {.tag = "H"}, equal = {.tag = "E"}, low = {.tag = "L"};

	CHECK(rtb_port_thread_set_priority(NULL, 10) == RTB_OK);
	CHECK(rtb_port_thread_self() == NULL);

	/* higher: runs before create returns */
	trace_reset(&tr);
	trace_add(&tr, "M0");
	high.handle = spawn("high", 20, false, tag_main, &high);
	trace_add(&tr, "M1");
	CHECK(trace_is(&tr, "M0 H M1"));
	CHECK(high.self == high.handle);
	CHECK(high.prio_seen == 20);
	reap(high.handle);

	/* equal: only after the creator yields */
	trace_reset(&tr);
	equal.handle = spawn("equal", 10, false, tag_main, &equal);
	trace_add(&tr, "M0");
	spin_ns(1000000);
	trace_add(&tr, "M1");
	rtb_port_thread_yield();
	trace_add(&tr, "M2");
	CHECK(trace_is(&tr, "M0 M1 E M2"));
	reap(equal.handle);

	/* lower: not even after a yield, only once the creator blocks */
	trace_reset(&tr);
	low.handle = spawn("low", 5, false, tag_main, &low);
	trace_add(&tr, "M0");
	spin_ns(1000000);
	rtb_port_thread_yield();
	trace_add(&tr, "M1");
	CHECK(atomic_load(&low.ran) == 0);
	CHECK(wait_for(&low.ran, 1, 2000));
	CHECK(trace_is(&tr, "M0 M1 L"));
	CHECK(low.prio_seen == 5);
	reap(low.handle);

	/* raising a ready lower thread above the caller runs it at once */
	struct tagged raised = {.tag = "R"};
	trace_reset(&tr);
	raised.handle = spawn("raised", 5, false, tag_main, &raised);
	trace_add(&tr, "M0");
	CHECK(rtb_port_thread_set_priority(raised.handle, 30) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(trace_is(&tr, "M0 R M1"));
	reap(raised.handle);

	/* lowering the caller below a ready thread runs that thread at once */
	struct tagged waiting = {.tag = "W"};
	trace_reset(&tr);
	waiting.handle = spawn("waiting", 7, false, tag_main, &waiting);
	trace_add(&tr, "M0");
	CHECK(rtb_port_thread_set_priority(NULL, 3) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(trace_is(&tr, "M0 W M1"));
	reap(waiting.handle);
	rtb_port_thread_set_priority(NULL, 0);
}

/* ---- start_suspended ------------------------------------------------------ */

static void test_start_suspended(void)
{
	struct tagged high = {.tag = "S"}, low = {.tag = "s"};

	rtb_port_thread_set_priority(NULL, 10);
	trace_reset(&tr);
	high.handle = spawn("gated-high", 20, true, tag_main, &high);
	low.handle = spawn("gated-low", 5, true, tag_main, &low);
	rtb_port_thread_yield();
	rtb_port_sleep_ns(5000000); /* the CPU is free, yet neither may run */
	CHECK(atomic_load(&high.ran) == 0);
	CHECK(atomic_load(&low.ran) == 0);
	trace_add(&tr, "M0");
	CHECK(rtb_port_thread_start(high.handle) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(rtb_port_thread_start(low.handle) == RTB_OK);
	trace_add(&tr, "M2");
	CHECK(wait_for(&low.ran, 1, 2000));
	CHECK(trace_is(&tr, "M0 S M1 M2 s"));
	reap(high.handle);
	reap(low.handle);

	/* start of a thread that was not created suspended */
	struct tagged plain = {.tag = "P"};
	plain.handle = spawn("plain", 20, false, tag_main, &plain);
	CHECK(rtb_port_thread_start(plain.handle) == RTB_E_INVALID);
	reap(plain.handle);
	rtb_port_thread_set_priority(NULL, 0);
}

/* ---- suspend and resume --------------------------------------------------- */

struct sleeper {
	atomic_int stage;
	int rc;
};

static void sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	trace_add(&tr, "T1");
	atomic_store(&s->stage, 1);
	s->rc = rtb_port_thread_suspend_self();
	trace_add(&tr, "T2");
	atomic_store(&s->stage, 2);
}

static void test_suspend_resume(void)
{
	struct sleeper s = {0};

	rtb_port_thread_set_priority(NULL, 10);

	/* a higher thread suspends itself; resume runs it at once */
	trace_reset(&tr);
	struct rtb_thread *t = spawn("sleeper", 20, false, sleeper_main, &s);
	trace_add(&tr, "M1");
	CHECK(atomic_load(&s.stage) == 1);
	CHECK(rtb_port_thread_resume(t) == RTB_OK);
	trace_add(&tr, "M2");
	CHECK(trace_is(&tr, "T1 M1 T2 M2"));
	CHECK(s.rc == RTB_OK);
	reap(t);

	/* a resume that comes before the suspend is remembered */
	struct sleeper early = {0};
	trace_reset(&tr);
	t = spawn("early", 5, false, sleeper_main, &early);
	CHECK(rtb_port_thread_resume(t) == RTB_OK);
	CHECK(atomic_load(&early.stage) == 0);
	CHECK(wait_for(&early.stage, 2, 2000));
	CHECK(trace_is(&tr, "T1 T2"));
	if (atomic_load(&early.stage) < 2)
		rtb_port_thread_resume(t);
	reap(t);

	/* the same for the thread that called rtb_port_init() */
	CHECK(rtb_port_thread_resume(NULL) == RTB_OK);
	CHECK(rtb_port_thread_suspend_self() == RTB_OK);

	/* suspending another thread: supported only with the capability */
	struct sleeper other = {0};
	t = spawn("other", 20, false, sleeper_main, &other);
	int rc = rtb_port_thread_suspend(t);
	if (rtb_port_info()->caps & RTB_CAP_SUSPEND_OTHER)
		CHECK(rc == RTB_OK);
	else
		CHECK(rc == RTB_E_UNSUPPORTED);
	rtb_port_thread_resume(t);
	CHECK(wait_for(&other.stage, 2, 2000));
	reap(t);
	rtb_port_thread_set_priority(NULL, 0);
}

/* ---- priorities ------------------------------------------------------------- */

static void parked_main(void *arg)
{
	rtb_port_sem_wait(arg);
}

static void test_priorities(void)
{
	int pmax = rtb_port_info()->prio_max, p = -1;
	struct rtb_sem *sem;

	CHECK(pmax >= 8);
	CHECK(rtb_port_sem_create(&sem, 0) == RTB_OK);
	rtb_port_thread_set_priority(NULL, pmax);
	struct rtb_thread *t = spawn("parked", 3, false, parked_main, sem);
	CHECK(rtb_port_thread_get_priority(t, &p) == RTB_OK && p == 3);
	int values[] = {0, 1, 7, pmax / 2, pmax - 1, pmax};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(values); i++) {
		CHECK(rtb_port_thread_set_priority(t, values[i]) == RTB_OK);
		CHECK(rtb_port_thread_get_priority(t, &p) == RTB_OK && p == values[i]);
	}
	CHECK(rtb_port_thread_set_priority(t, 4) == RTB_OK);
	CHECK(rtb_port_thread_set_priority(t, -1) == RTB_E_INVALID);
	CHECK(rtb_port_thread_set_priority(t, pmax + 1) == RTB_E_INVALID);
	CHECK(rtb_port_thread_set_priority(t, 100000) == RTB_E_INVALID);
	CHECK(rtb_port_thread_get_priority(t, &p) == RTB_OK && p == 4);

	/* the caller */
	CHECK(rtb_port_thread_set_priority(NULL, 12) == RTB_OK);
	CHECK(rtb_port_thread_get_priority(NULL, &p) == RTB_OK && p == 12);
	CHECK(rtb_port_thread_set_priority(NULL, -1) == RTB_E_INVALID);
	CHECK(rtb_port_thread_get_priority(NULL, &p) == RTB_OK && p == 12);

	/* creation with a bad priority or no function */
	struct rtb_thread *bad = NULL;
	struct rtb_thread_attr attr = {.name = "bad", .prio = -1};
	CHECK(rtb_port_thread_create(&bad, &attr, parked_main, sem) == RTB_E_INVALID);
	attr.prio = pmax + 1;
	CHECK(rtb_port_thread_create(&bad, &attr, parked_main, sem) == RTB_E_INVALID);
	attr.prio = 1;
	CHECK(rtb_port_thread_create(&bad, &attr, NULL, sem) == RTB_E_INVALID);
	CHECK(rtb_port_thread_create(&bad, NULL, parked_main, sem) == RTB_E_INVALID);

	rtb_port_sem_signal(sem);
	reap(t);
	rtb_port_sem_delete(sem);
	rtb_port_thread_set_priority(NULL, 0);
}

/* ---- exit and delete -------------------------------------------------------- */

struct ender {
	atomic_int before, after;
	struct rtb_sem *sem;
};

static void exit_main(void *arg)
{
	struct ender *e = arg;

	atomic_store(&e->before, 1);
	rtb_port_thread_exit();
	atomic_store(&e->after, 1); /* never reached */
}

static void block_main(void *arg)
{
	struct ender *e = arg;

	atomic_store(&e->before, 1);
	rtb_port_sem_wait(e->sem);
	atomic_store(&e->after, 1);
}

static void never_main(void *arg)
{
	struct ender *e = arg;

	atomic_store(&e->before, 1);
}

static void test_exit_delete(void)
{
	rtb_port_thread_set_priority(NULL, 10);

	/* exit in the middle of the function */
	struct ender ex = {0};
	struct rtb_thread *t = spawn("exits", 20, false, exit_main, &ex);
	CHECK(atomic_load(&ex.before) == 1);
	CHECK(atomic_load(&ex.after) == 0);
	reap(t);

	/* an ended thread (returned from its function), higher and lower */
	struct ender done = {0};
	t = spawn("returns", 20, false, never_main, &done);
	CHECK(atomic_load(&done.before) == 1);
	reap(t);
	struct ender later = {0};
	t = spawn("returns-later", 5, false, never_main, &later);
	CHECK(wait_for(&later.before, 1, 2000));
	reap(t);

	/* never started: deleting it must not let it enter its function */
	struct ender never_high = {0}, never_low = {0};
	t = spawn("never-high", 20, true, never_main, &never_high);
	reap(t);
	t = spawn("never-low", 5, true, never_main, &never_low);
	reap(t);
	rtb_port_sleep_ns(2000000);
	CHECK(atomic_load(&never_high.before) == 0);
	CHECK(atomic_load(&never_low.before) == 0);

	/* blocked in a semaphore wait */
	if (!(rtb_port_info()->caps & RTB_CAP_THREAD_DELETE_LIVE)) {
		rtb_port_thread_set_priority(NULL, 0);
		return;
	}
	struct ender blocked = {0};
	CHECK(rtb_port_sem_create(&blocked.sem, 0) == RTB_OK);
	t = spawn("blocked", 20, false, block_main, &blocked);
	CHECK(atomic_load(&blocked.before) == 1);
	reap(t);
	CHECK(atomic_load(&blocked.after) == 0);
	/* the semaphore is intact and no longer has a waiter */
	uint32_t value = 99;
	CHECK(rtb_port_sem_signal(blocked.sem) == RTB_OK);
	CHECK(rtb_port_sem_value(blocked.sem, &value) == RTB_OK && value == 1);
	CHECK(rtb_port_sem_trywait(blocked.sem) == RTB_OK);
	rtb_port_sem_delete(blocked.sem);

	/* blocked lower-priority thread (it ran once main blocked) */
	struct ender blocked_low = {0};
	CHECK(rtb_port_sem_create(&blocked_low.sem, 0) == RTB_OK);
	t = spawn("blocked-low", 5, false, block_main, &blocked_low);
	CHECK(wait_for(&blocked_low.before, 1, 2000));
	reap(t);
	CHECK(atomic_load(&blocked_low.after) == 0);
	rtb_port_sem_delete(blocked_low.sem);

	/* suspended in suspend_self */
	struct sleeper s = {0};
	trace_reset(&tr);
	t = spawn("suspended", 20, false, sleeper_main, &s);
	CHECK(atomic_load(&s.stage) == 1);
	reap(t);
	CHECK(atomic_load(&s.stage) == 1);

	CHECK(rtb_port_thread_delete(NULL) == RTB_E_INVALID);
	rtb_port_thread_set_priority(NULL, 0);
}

/* ---- many threads ---------------------------------------------------------- */

static void test_many_threads(void)
{
	enum { N = 64 };
	struct rtb_thread *t[N];
	struct ender e[N];
	struct rtb_sem *sem;

	/* more threads than the scenarios use at once, created and reclaimed
	 * twice: nothing leaks that would make the second round fail */
	CHECK(rtb_port_sem_create(&sem, 0) == RTB_OK);
	for (int round = 0; round < 2; round++) {
		memset(e, 0, sizeof(e));
		for (int i = 0; i < N; i++) {
			e[i].sem = sem;
			t[i] = spawn("many", 1 + i % 30, false, block_main, &e[i]);
		}
		for (int i = 0; i < N; i++)
			CHECK(rtb_port_sem_signal(sem) == RTB_OK);
		for (int i = 0; i < N; i++) {
			CHECK(wait_for(&e[i].after, 1, 2000));
			reap(t[i]);
		}
	}
	rtb_port_sem_delete(sem);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	if (!(rtb_port_info()->caps & RTB_CAP_PINNING)) {
		fprintf(stderr, "skipped: threads cannot be pinned here\n");
		return CHECK_SKIP;
	}
	cpu = rtb_port_info()->cpu;
	test_pinning();
	test_priority_order();
	test_start_suspended();
	test_suspend_resume();
	test_priorities();
	test_exit_delete();
	test_many_threads();
	return check_exit();
}
