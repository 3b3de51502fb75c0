/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: event flags. ANY and ALL waits, flags already set,
 * consume-on-exit (clear) versus keep, rtb_port_evt_clear(), a blocked
 * waiter woken by the set that completes its condition (at once when it
 * outranks the setter) and not by one that does not, several waiters woken
 * by one set, and deletion of a thread blocked in a wait.
 */
#include "port_test.h"

static struct trace tr;

struct evt_waiter {
	const char *tag;
	struct rtb_evt *e;
	uint32_t bits;
	enum rtb_evt_wait mode;
	bool clear;
	uint32_t got;
	int rc;
	atomic_int blocked, done;
};

static void evt_main(void *arg)
{
	struct evt_waiter *w = arg;

	atomic_store(&w->blocked, 1);
	w->rc = rtb_port_evt_wait(w->e, w->bits, w->mode, w->clear, &w->got);
	trace_add(&tr, w->tag);
	atomic_store(&w->done, 1);
}

static void test_immediate(void)
{
	struct rtb_evt *e;
	uint32_t got = 0;

	CHECK(rtb_port_evt_create(&e) == RTB_OK);
	CHECK(rtb_port_evt_set(e, 0x5) == RTB_OK);
	/* ANY: returns the requested flags that are set */
	CHECK(rtb_port_evt_wait(e, 0x6, RTB_EVT_ANY, false, &got) == RTB_OK && got == 0x4);
	/* ALL, satisfied, keep */
	CHECK(rtb_port_evt_wait(e, 0x5, RTB_EVT_ALL, false, &got) == RTB_OK && got == 0x5);
	CHECK(rtb_port_evt_wait(e, 0x1, RTB_EVT_ALL, false, &got) == RTB_OK && got == 0x1);
	/* consume: only the requested bits are cleared */
	CHECK(rtb_port_evt_wait(e, 0x1, RTB_EVT_ANY, true, &got) == RTB_OK && got == 0x1);
	CHECK(rtb_port_evt_wait(e, 0x5, RTB_EVT_ANY, false, &got) == RTB_OK && got == 0x4);
	/* clear */
	CHECK(rtb_port_evt_set(e, 0xf0) == RTB_OK);
	CHECK(rtb_port_evt_clear(e, 0x34) == RTB_OK);
	CHECK(rtb_port_evt_wait(e, 0xff, RTB_EVT_ANY, false, &got) == RTB_OK && got == 0xc0);
	/* got may be NULL; all 32 bits usable */
	CHECK(rtb_port_evt_set(e, 0x80000000u) == RTB_OK);
	CHECK(rtb_port_evt_wait(e, 0x80000000u, RTB_EVT_ALL, true, NULL) == RTB_OK);
	CHECK(rtb_port_evt_wait(e, 0, RTB_EVT_ANY, false, &got) == RTB_E_INVALID);
	CHECK(rtb_port_evt_delete(e) == RTB_OK);
	CHECK(rtb_port_evt_create(NULL) == RTB_E_INVALID);
	CHECK(rtb_port_evt_delete(NULL) == RTB_E_INVALID);
}

static void test_blocking(void)
{
	struct evt_waiter w = {.tag = "W", .bits = 0x3, .mode = RTB_EVT_ALL, .clear = true};

	CHECK(rtb_port_evt_create(&w.e) == RTB_OK);

	/* ALL: a partial set does not wake; the completing one does, at once */
	trace_reset(&tr);
	struct rtb_thread *t = spawn("all", 20, false, evt_main, &w);
	CHECK(atomic_load(&w.blocked) == 1 && atomic_load(&w.done) == 0);
	trace_add(&tr, "set1");
	CHECK(rtb_port_evt_set(w.e, 0x1) == RTB_OK);
	trace_add(&tr, "set4");
	CHECK(rtb_port_evt_set(w.e, 0x4) == RTB_OK);
	trace_add(&tr, "set2");
	CHECK(rtb_port_evt_set(w.e, 0x2) == RTB_OK);
	trace_add(&tr, "after");
	CHECK(trace_is(&tr, "set1 set4 set2 W after"));
	CHECK(w.rc == RTB_OK && w.got == 0x3);
	reap(t);

	/* the waiter consumed 0x3 and left 0x4: an ALL wait on 0x5 blocks until 0x1 */
	struct evt_waiter again = {.tag = "A", .e = w.e, .bits = 0x5, .mode = RTB_EVT_ALL};
	trace_reset(&tr);
	t = spawn("again", 20, false, evt_main, &again);
	CHECK(atomic_load(&again.done) == 0);
	rtb_port_sleep_ns(2000000);
	CHECK(atomic_load(&again.done) == 0);
	CHECK(rtb_port_evt_set(w.e, 0x1) == RTB_OK);
	CHECK(atomic_load(&again.done) == 1 && again.got == 0x5);
	reap(t);

	/* ANY: one set wakes every waiter whose condition it meets */
	CHECK(rtb_port_evt_clear(w.e, 0xffffffffu) == RTB_OK);
	struct evt_waiter a = {.tag = "a", .e = w.e, .bits = 0x10, .mode = RTB_EVT_ANY};
	struct evt_waiter b = {.tag = "b", .e = w.e, .bits = 0x30, .mode = RTB_EVT_ANY};
	struct evt_waiter c = {.tag = "c", .e = w.e, .bits = 0x40, .mode = RTB_EVT_ANY};
	trace_reset(&tr);
	struct rtb_thread *ta = spawn("a", 15, false, evt_main, &a);
	struct rtb_thread *tb = spawn("b", 16, false, evt_main, &b);
	struct rtb_thread *tc = spawn("c", 17, false, evt_main, &c);
	CHECK(rtb_port_evt_set(w.e, 0x10) == RTB_OK);
	trace_add(&tr, "M");
	CHECK(trace_is(&tr, "b a M"));
	CHECK(a.got == 0x10 && b.got == 0x10);
	CHECK(atomic_load(&c.done) == 0);
	reap(ta);
	reap(tb);

	/* the blocked waiter c can be deleted; the flags stay usable */
	if (rtb_port_info()->caps & RTB_CAP_THREAD_DELETE_LIVE) {
		reap(tc);
		CHECK(atomic_load(&c.done) == 0);
		uint32_t got = 0;
		CHECK(rtb_port_evt_set(w.e, 0x40) == RTB_OK);
		CHECK(rtb_port_evt_wait(w.e, 0x40, RTB_EVT_ANY, true, &got) == RTB_OK &&
		      got == 0x40);
	} else {
		CHECK(rtb_port_evt_set(w.e, 0x40) == RTB_OK);
		reap(tc);
	}

	/* a lower waiter runs only once the setter blocks */
	struct evt_waiter low = {.tag = "L", .e = w.e, .bits = 0x100, .mode = RTB_EVT_ANY};
	rtb_port_thread_set_priority(NULL, 10);
	trace_reset(&tr);
	t = spawn("low", 5, false, evt_main, &low);
	rtb_port_sleep_ns(2000000); /* let it block */
	CHECK(atomic_load(&low.blocked) == 1);
	CHECK(rtb_port_evt_set(w.e, 0x100) == RTB_OK);
	trace_add(&tr, "M");
	CHECK(wait_for(&low.done, 1, 2000));
	CHECK(trace_is(&tr, "M L"));
	reap(t);
	rtb_port_thread_set_priority(NULL, 0);
	CHECK(rtb_port_evt_delete(w.e) == RTB_OK);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	if (!(rtb_port_info()->caps & RTB_CAP_EVT)) {
		fprintf(stderr, "skipped: no event flags on this port\n");
		return CHECK_SKIP;
	}
	test_immediate();
	test_blocking();
	return check_exit();
}
