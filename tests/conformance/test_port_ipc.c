/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: IPC channels (signal, sigwait, System V semaphore,
 * POSIX message queue), for every kind the port claims. Argument checks;
 * posts are counted (kept until a wait takes them, a timed wait on an empty
 * channel times out); the kind's limit gives RTB_E_AGAIN, never a block;
 * deleting a channel discards its pending posts; a higher-priority receiver
 * blocked in a wait runs before the post returns, an equal-priority one
 * only once the poster blocks; the channels of one kind are independent;
 * a kind the port lacks is refused with RTB_E_UNSUPPORTED.
 */
#include "port_test.h"

static const struct {
	enum rtb_ipc_kind kind;
	uint32_t cap;
	const char *name;
} kinds[] = {
	{RTB_IPC_SIGNAL, RTB_CAP_IPC_SIGNAL, "signal"},
	{RTB_IPC_SIGWAIT, RTB_CAP_IPC_SIGWAIT, "sigwait"},
	{RTB_IPC_SYSV_SEM, RTB_CAP_IPC_SYSV_SEM, "sysv_sem"},
	{RTB_IPC_POSIX_MQ, RTB_CAP_IPC_POSIX_MQ, "posix_mq"},
};

static struct trace tr;

#define MS 1000000ull

static void test_arguments(void)
{
	struct rtb_ipc *c = NULL;

	CHECK(rtb_port_ipc_create(NULL, RTB_IPC_SYSV_SEM, NULL) == RTB_E_INVALID);
	CHECK(rtb_port_ipc_create(&c, (enum rtb_ipc_kind)99, NULL) == RTB_E_INVALID);
	CHECK(rtb_port_ipc_delete(NULL) == RTB_E_INVALID);
	CHECK(rtb_port_ipc_post(NULL) == RTB_E_INVALID);
	CHECK(rtb_port_ipc_wait(NULL) == RTB_E_INVALID);
	CHECK(rtb_port_ipc_timedwait(NULL, MS) == RTB_E_INVALID);
	CHECK(rtb_port_ipc_mechanism((enum rtb_ipc_kind)99) == NULL);
	for (size_t k = 0; k < RTB_ARRAY_SIZE(kinds); k++) {
		bool have = (rtb_port_info()->caps & kinds[k].cap) != 0;
		const char *mech = rtb_port_ipc_mechanism(kinds[k].kind);
		CHECK(have == (mech != NULL && mech[0] != '\0'));
		if (!have) {
			CHECK(rtb_port_ipc_create(&c, kinds[k].kind, NULL) == RTB_E_UNSUPPORTED);
			fprintf(stderr, "note: no %s channel on this port\n", kinds[k].name);
		}
	}
}

/* Posts are kept and counted; a wait on an empty channel times out. */
static void test_counting(enum rtb_ipc_kind kind)
{
	struct rtb_ipc *c;

	CHECK(rtb_port_ipc_create(&c, kind, NULL) == RTB_OK);
	CHECK(rtb_port_ipc_timedwait(c, 0) == RTB_E_TIMEOUT);
	CHECK(rtb_port_ipc_timedwait(c, 2 * MS) == RTB_E_TIMEOUT);
	for (int i = 0; i < 3; i++)
		CHECK(rtb_port_ipc_post(c) == RTB_OK);
	CHECK(rtb_port_ipc_wait(c) == RTB_OK);
	CHECK(rtb_port_ipc_timedwait(c, 0) == RTB_OK);
	CHECK(rtb_port_ipc_timedwait(c, 1000 * MS) == RTB_OK);
	CHECK(rtb_port_ipc_timedwait(c, 0) == RTB_E_TIMEOUT);

	/* up to the kind's limit: posts never block; what was accepted is
	 * exactly what the waits take */
	int accepted = 0, rc = RTB_OK;
	while (accepted < 64 && (rc = rtb_port_ipc_post(c)) == RTB_OK)
		accepted++;
	CHECK(rc == RTB_OK || rc == RTB_E_AGAIN);
	if (kind == RTB_IPC_POSIX_MQ)
		CHECK(rc == RTB_E_AGAIN && accepted > 0 && accepted < 64);
	else
		CHECK_EQ_U64(accepted, 64);
	for (int i = 0; i < accepted; i++)
		CHECK(rtb_port_ipc_timedwait(c, 0) == RTB_OK);
	CHECK(rtb_port_ipc_timedwait(c, 0) == RTB_E_TIMEOUT);

	/* pending posts die with the channel */
	CHECK(rtb_port_ipc_post(c) == RTB_OK);
	CHECK(rtb_port_ipc_post(c) == RTB_OK);
	CHECK(rtb_port_ipc_delete(c) == RTB_OK);
	CHECK(rtb_port_ipc_create(&c, kind, NULL) == RTB_OK);
	CHECK(rtb_port_ipc_timedwait(c, 0) == RTB_E_TIMEOUT);
	CHECK(rtb_port_ipc_delete(c) == RTB_OK);
}

/* Several channels of one kind at once, each with its own count. */
static void test_independent(enum rtb_ipc_kind kind)
{
	struct rtb_ipc *c[8];
	int n = 0;

	for (; n < 8; n++) {
		if (rtb_port_ipc_create(&c[n], kind, NULL) != RTB_OK)
			break;
	}
	CHECK(n >= 2);
	for (int i = 0; i < n; i++) {
		for (int k = 0; k <= i % 3; k++)
			CHECK(rtb_port_ipc_post(c[i]) == RTB_OK);
	}
	for (int i = n - 1; i >= 0; i--) {
		for (int k = 0; k <= i % 3; k++)
			CHECK(rtb_port_ipc_timedwait(c[i], 0) == RTB_OK);
		CHECK(rtb_port_ipc_timedwait(c[i], 0) == RTB_E_TIMEOUT);
		CHECK(rtb_port_ipc_delete(c[i]) == RTB_OK);
	}
}

struct peer {
	struct rtb_ipc *c;
	int rc;
	atomic_int blocked, done;
};

static void receiver_main(void *arg)
{
	struct peer *p = arg;

	atomic_store(&p->blocked, 1);
	p->rc = rtb_port_ipc_wait(p->c);
	trace_add(&tr, "R");
	atomic_store(&p->done, 1);
}

/* A receiver thread at prio blocks in a wait; the caller (priority 10)
 * posts: the trace must read `want`. */
static void wake(enum rtb_ipc_kind kind, int prio, const char *want)
{
	struct peer p = {0};

	trace_reset(&tr);
	rtb_port_thread_set_priority(NULL, 10);
	struct rtb_thread *t = spawn("ipc-receiver", prio, true, receiver_main, &p);
	/* created suspended: the channel names it before it runs */
	CHECK(rtb_port_ipc_create(&p.c, kind, t) == RTB_OK);
	CHECK(rtb_port_thread_start(t) == RTB_OK);
	if (prio <= 10)
		CHECK(wait_for(&p.blocked, 1, 2000));
	CHECK(atomic_load(&p.blocked) == 1 && atomic_load(&p.done) == 0);
	trace_add(&tr, "M0");
	CHECK(rtb_port_ipc_post(p.c) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(wait_for(&p.done, 1, 2000));
	CHECK(trace_is(&tr, want));
	CHECK(p.rc == RTB_OK);
	reap(t);
	CHECK(rtb_port_ipc_delete(p.c) == RTB_OK);
	rtb_port_thread_set_priority(NULL, 0);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	test_arguments();
	for (size_t k = 0; k < RTB_ARRAY_SIZE(kinds); k++) {
		if (!(rtb_port_info()->caps & kinds[k].cap))
			continue;
		fprintf(stderr, "kind %s\n", kinds[k].name);
		test_counting(kinds[k].kind);
		test_independent(kinds[k].kind);
		wake(kinds[k].kind, 20, "M0 R M1");
		wake(kinds[k].kind, 10, "M0 M1 R");
	}
	return check_exit();
}
