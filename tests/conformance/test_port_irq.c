/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: the interrupt source. A single fire runs the handler
 * once, on the target thread, never before the requested delay, and is
 * counted generated = serviced = 1; periodic mode keeps
 * generated = serviced + lost with serviced equal to the handler's own
 * count and generated in line with the elapsed time; a handler wakes a
 * blocked thread through rtb_port_sem_signal_from_irq(); deleting a source
 * while it is periodic stops the handler for good; sources are reusable.
 */
#include "port_test.h"

#include <sys/syscall.h>
#include <unistd.h>

static struct trace tr;

struct probe {
	atomic_int calls;
	_Atomic pid_t tid;
	struct rtb_thread *_Atomic self;
	_Atomic uint64_t at_ns;
	struct rtb_sem *wake; /* signalled from the handler when set */
};

static void probe_handler(void *arg)
{
	struct probe *p = arg;

	atomic_store(&p->at_ns, rtb_port_time_ns());
	atomic_store(&p->tid, (pid_t)syscall(SYS_gettid));
	atomic_store(&p->self, rtb_port_thread_self());
	if (p->wake != NULL) {
		trace_add(&tr, "irq");
		rtb_port_sem_signal_from_irq(p->wake);
	}
	atomic_fetch_add(&p->calls, 1);
}

/* ---- one shot ---------------------------------------------------------------- */

struct target {
	struct rtb_sem *release;
	_Atomic pid_t tid;
	atomic_int ready, done;
	int rc;
};

static void target_main(void *arg)
{
	struct target *t = arg;

	atomic_store(&t->tid, (pid_t)syscall(SYS_gettid));
	atomic_store(&t->ready, 1);
	t->rc = rtb_port_sem_wait(t->release); /* interrupted, must keep waiting */
	atomic_store(&t->done, 1);
}

static void test_fire_once(void)
{
	struct probe p = {0};
	struct rtb_irq *irq;
	struct rtb_irq_counts c;
	int rc;

	/* on the thread that called rtb_port_init() */
	CHECK(rtb_port_irq_create(&irq, NULL, probe_handler, &p) == RTB_OK);
	uint64_t t0 = rtb_port_time_ns();
	CHECK(rtb_port_irq_fire(irq, 0) == RTB_OK);
	CHECK(wait_for(&p.calls, 1, 2000));
	CHECK(atomic_load(&p.tid) == (pid_t)syscall(SYS_gettid));
	CHECK(atomic_load(&p.self) == NULL);
	rtb_port_sleep_ns(2000000);
	CHECK(rtb_port_irq_stop(irq, &c) == RTB_OK);
	CHECK(atomic_load(&p.calls) == 1);
	CHECK(c.generated == 1 && c.serviced == 1 && c.lost == 0);

	/* with a delay: never early */
	atomic_store(&p.calls, 0);
	t0 = rtb_port_time_ns();
	CHECK(rtb_port_irq_fire(irq, 5000000) == RTB_OK);
	CHECK(wait_for(&p.calls, 1, 2000));
	CHECK(atomic_load(&p.at_ns) >= t0 + 5000000);
	CHECK(rtb_port_irq_delete(irq) == RTB_OK);

	/* on another thread, blocked in a semaphore: the handler runs in its
	 * context and the wait resumes afterwards */
	struct target tg = {0};
	memset(&p, 0, sizeof(p));
	CHECK(rtb_port_sem_create(&tg.release, 0) == RTB_OK);
	struct rtb_thread *th = spawn("target", 20, false, target_main, &tg);
	CHECK(atomic_load(&tg.ready) == 1);
	CHECK(rtb_port_irq_create(&irq, th, probe_handler, &p) == RTB_OK);
	CHECK(rtb_port_irq_fire(irq, 0) == RTB_OK);
	CHECK(wait_for(&p.calls, 1, 2000));
	CHECK(atomic_load(&p.tid) == atomic_load(&tg.tid));
	CHECK(atomic_load(&p.self) == th);
	rtb_port_sleep_ns(2000000);
	CHECK(atomic_load(&tg.done) == 0); /* the interrupted wait did not return */
	CHECK(rtb_port_irq_stop(irq, &c) == RTB_OK);
	CHECK(c.generated == 1 && c.serviced == 1 && c.lost == 0);
	CHECK(rtb_port_sem_signal(tg.release) == RTB_OK);
	CHECK(wait_for(&tg.done, 1, 2000));
	CHECK(tg.rc == RTB_OK);
	CHECK(rtb_port_irq_delete(irq) == RTB_OK);
	reap(th);
	rtb_port_sem_delete(tg.release);

	/* a target that has not run yet: created suspended, below the caller */
	struct target gated = {0};
	memset(&p, 0, sizeof(p));
	CHECK(rtb_port_sem_create(&gated.release, 0) == RTB_OK);
	rtb_port_thread_set_priority(NULL, 10);
	th = spawn("gated-target", 5, true, target_main, &gated);
	rc = rtb_port_irq_create(&irq, th, probe_handler, &p);
	CHECK(rc == RTB_OK);
	CHECK(atomic_load(&gated.ready) == 0); /* creating the source did not start it */
	if (rc == RTB_OK) {
		CHECK(rtb_port_irq_fire(irq, 0) == RTB_OK);
		CHECK(wait_for(&p.calls, 1, 2000));
		CHECK(atomic_load(&gated.ready) == 0);
	}
	CHECK(rtb_port_thread_start(th) == RTB_OK);
	CHECK(wait_for(&gated.ready, 1, 2000));
	if (rc == RTB_OK) {
		CHECK(atomic_load(&p.tid) == atomic_load(&gated.tid));
		CHECK(rtb_port_irq_delete(irq) == RTB_OK);
	}
	CHECK(rtb_port_sem_signal(gated.release) == RTB_OK);
	CHECK(wait_for(&gated.done, 1, 2000));
	reap(th);
	rtb_port_sem_delete(gated.release);
	rtb_port_thread_set_priority(NULL, 0);

	CHECK(rtb_port_irq_create(NULL, NULL, probe_handler, &p) == RTB_E_INVALID);
	CHECK(rtb_port_irq_create(&irq, NULL, NULL, &p) == RTB_E_INVALID);
	CHECK(rtb_port_irq_fire(NULL, 0) == RTB_E_INVALID);
	CHECK(rtb_port_irq_delete(NULL) == RTB_E_INVALID);
}

/* ---- periodic ------------------------------------------------------------------ */

static void test_periodic(void)
{
	struct probe p = {0};
	struct rtb_irq *irq;
	struct rtb_irq_counts c;

	if (!(rtb_port_info()->caps & RTB_CAP_IRQ_PERIODIC))
		return;
	CHECK(rtb_port_irq_create(&irq, NULL, probe_handler, &p) == RTB_OK);
	CHECK(rtb_port_irq_start_periodic(irq, 0) == RTB_E_INVALID);
	for (int run = 0; run < 2; run++) {
		atomic_store(&p.calls, 0);
		uint64_t t0 = rtb_port_time_ns();
		CHECK(rtb_port_irq_start_periodic(irq, 1000000) == RTB_OK);
		rtb_port_sleep_ns(50000000);
		CHECK(rtb_port_irq_stop(irq, &c) == RTB_OK);
		uint64_t elapsed_ms = (rtb_port_time_ns() - t0) / 1000000;
		fprintf(stderr,
			"periodic 1 ms for %llu ms: generated %llu serviced %llu lost %llu\n",
			(unsigned long long)elapsed_ms, (unsigned long long)c.generated,
			(unsigned long long)c.serviced, (unsigned long long)c.lost);
		CHECK(c.generated == c.serviced + c.lost);
		CHECK(c.serviced > 0);
		CHECK(c.serviced == (uint64_t)atomic_load(&p.calls));
		/* every period of the elapsed time was counted, lost or not
		 * (gross bounds: the timer neither stops nor runs fast) */
		CHECK(c.generated <= elapsed_ms + 2);
		CHECK(c.generated >= elapsed_ms / 3);
		/* stopped means stopped */
		int calls = atomic_load(&p.calls);
		rtb_port_sleep_ns(5000000);
		CHECK(atomic_load(&p.calls) == calls);
	}
	CHECK(rtb_port_irq_delete(irq) == RTB_OK);
}

/* ---- waking a thread from the handler --------------------------------------- */

struct woken {
	struct rtb_sem *sem;
	atomic_int done;
};

static void woken_main(void *arg)
{
	struct woken *w = arg;

	rtb_port_sem_wait(w->sem);
	trace_add(&tr, "thread");
	atomic_store(&w->done, 1);
}

static void test_wake_from_irq(void)
{
	struct woken w = {0};
	struct probe p = {0};
	struct rtb_irq *irq;

	CHECK(rtb_port_sem_create(&w.sem, 0) == RTB_OK);
	p.wake = w.sem;
	trace_reset(&tr);
	struct rtb_thread *t = spawn("woken", 20, false, woken_main, &w);
	CHECK(rtb_port_irq_create(&irq, NULL, probe_handler, &p) == RTB_OK);
	trace_add(&tr, "fire");
	CHECK(rtb_port_irq_fire(irq, 1000000) == RTB_OK);
	CHECK(wait_for(&w.done, 1, 2000));
	CHECK(trace_is(&tr, "fire irq thread"));
	CHECK(rtb_port_irq_delete(irq) == RTB_OK);
	reap(t);

	/* periodic: every interrupt wakes the thread once */
	if (rtb_port_info()->caps & RTB_CAP_IRQ_PERIODIC) {
		struct rtb_irq_counts c;
		uint32_t left = 0;
		CHECK(rtb_port_irq_create(&irq, NULL, probe_handler, &p) == RTB_OK);
		CHECK(rtb_port_irq_start_periodic(irq, 2000000) == RTB_OK);
		rtb_port_sleep_ns(20000000);
		CHECK(rtb_port_irq_stop(irq, &c) == RTB_OK);
		CHECK(rtb_port_sem_value(w.sem, &left) == RTB_OK);
		CHECK(left == c.serviced); /* nobody waits: each signal is counted */
		CHECK(rtb_port_irq_delete(irq) == RTB_OK);
	}
	rtb_port_sem_delete(w.sem);
}

/* ---- delete while periodic, reuse ----------------------------------------- */

static void test_delete_and_reuse(void)
{
	struct probe p = {0};
	struct rtb_irq *irq;

	if (rtb_port_info()->caps & RTB_CAP_IRQ_PERIODIC) {
		for (int i = 0; i < 5; i++) {
			atomic_store(&p.calls, 0);
			CHECK(rtb_port_irq_create(&irq, NULL, probe_handler, &p) == RTB_OK);
			CHECK(rtb_port_irq_start_periodic(irq, 100000) == RTB_OK);
			rtb_port_sleep_ns(3000000);
			CHECK(rtb_port_irq_delete(irq) == RTB_OK); /* not stopped first */
			int calls = atomic_load(&p.calls);
			CHECK(calls > 0);
			rtb_port_sleep_ns(5000000);
			CHECK(atomic_load(&p.calls) == calls);
		}
	}

	/* as many sources as the port allows, then all reusable again */
	struct rtb_irq *many[32];
	struct probe probes[32];
	int n = 0, rc = RTB_OK;
	memset(probes, 0, sizeof(probes));
	while (n < 32 &&
	       (rc = rtb_port_irq_create(&many[n], NULL, probe_handler, &probes[n])) == RTB_OK)
		n++;
	CHECK(n >= 2);
	if (n < 32)
		CHECK(rc == RTB_E_NOMEM);
	for (int i = 0; i < n; i++)
		CHECK(rtb_port_irq_fire(many[i], 0) == RTB_OK);
	for (int i = 0; i < n; i++) {
		CHECK(wait_for(&probes[i].calls, 1, 2000));
		CHECK(atomic_load(&probes[i].calls) == 1); /* each source its own handler */
	}
	for (int i = 0; i < n; i++)
		CHECK(rtb_port_irq_delete(many[i]) == RTB_OK);
	for (int i = 0; i < n; i++)
		CHECK(rtb_port_irq_create(&many[i], NULL, probe_handler, &probes[i]) == RTB_OK);
	for (int i = 0; i < n; i++)
		CHECK(rtb_port_irq_delete(many[i]) == RTB_OK);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	if (!(rtb_port_info()->caps & RTB_CAP_IRQ)) {
		fprintf(stderr, "skipped: no interrupt source on this port\n");
		return CHECK_SKIP;
	}
	test_fire_once();
	test_periodic();
	test_wake_from_irq();
	test_delete_and_reuse();
	return check_exit();
}
