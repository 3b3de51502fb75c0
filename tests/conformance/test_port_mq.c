/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: message queues. FIFO order and contents, the try
 * variants on a full and an empty queue, size checks, a blocked receiver
 * woken by a send (at once when it outranks the sender) and a blocked
 * sender woken by a receive.
 */
#include "port_test.h"

enum { MSG = 16, DEPTH = 4 };

static struct trace tr;

static void fill(char *msg, int n)
{
	for (int i = 0; i < MSG; i++)
		msg[i] = (char)(n * 31 + i);
}

static void test_fifo_and_try(void)
{
	struct rtb_mq *q;
	char msg[MSG], got[MSG];

	CHECK(rtb_port_mq_create(&q, MSG, DEPTH) == RTB_OK);
	CHECK(rtb_port_mq_tryreceive(q, got, sizeof(got)) == RTB_E_AGAIN);
	for (int i = 0; i < DEPTH; i++) {
		fill(msg, i);
		CHECK((i % 2 ? rtb_port_mq_send(q, msg, sizeof(msg))
			     : rtb_port_mq_trysend(q, msg, sizeof(msg))) == RTB_OK);
	}
	fill(msg, 99);
	CHECK(rtb_port_mq_trysend(q, msg, sizeof(msg)) == RTB_E_AGAIN);
	for (int i = 0; i < DEPTH; i++) {
		char want[MSG];
		fill(want, i);
		memset(got, 0, sizeof(got));
		CHECK((i % 2 ? rtb_port_mq_receive(q, got, sizeof(got))
			     : rtb_port_mq_tryreceive(q, got, sizeof(got))) == RTB_OK);
		CHECK(memcmp(got, want, MSG) == 0);
	}
	CHECK(rtb_port_mq_tryreceive(q, got, sizeof(got)) == RTB_E_AGAIN);

	/* a shorter message arrives with its bytes intact */
	CHECK(rtb_port_mq_send(q, "abc", 3) == RTB_OK);
	memset(got, 'x', sizeof(got));
	CHECK(rtb_port_mq_receive(q, got, sizeof(got)) == RTB_OK);
	CHECK(memcmp(got, "abc", 3) == 0);

	/* interleaved: order kept across wrap-around of the queue */
	int sent = 0, received = 0;
	for (int round = 0; round < 50; round++) {
		for (int k = 0; k < 1 + round % DEPTH && sent - received < DEPTH; k++) {
			fill(msg, sent++);
			CHECK(rtb_port_mq_trysend(q, msg, sizeof(msg)) == RTB_OK);
		}
		while (received < sent - round % 2) {
			char want[MSG];
			fill(want, received++);
			CHECK(rtb_port_mq_tryreceive(q, got, sizeof(got)) == RTB_OK);
			CHECK(memcmp(got, want, MSG) == 0);
		}
	}

	/* size checks */
	char big[MSG + 1] = {0};
	CHECK(rtb_port_mq_send(q, big, sizeof(big)) == RTB_E_INVALID);
	CHECK(rtb_port_mq_trysend(q, big, sizeof(big)) == RTB_E_INVALID);
	CHECK(rtb_port_mq_receive(q, got, MSG - 1) == RTB_E_INVALID);
	CHECK(rtb_port_mq_tryreceive(q, got, MSG - 1) == RTB_E_INVALID);
	CHECK(rtb_port_mq_delete(q) == RTB_OK);

	struct rtb_mq *bad = NULL;
	CHECK(rtb_port_mq_create(&bad, 0, DEPTH) == RTB_E_INVALID);
	CHECK(rtb_port_mq_create(&bad, MSG, 0) == RTB_E_INVALID);
	CHECK(rtb_port_mq_create(NULL, MSG, DEPTH) == RTB_E_INVALID);
	CHECK(rtb_port_mq_delete(NULL) == RTB_E_INVALID);
	/* far beyond any system limit: an error, not a crash */
	int rc = rtb_port_mq_create(&bad, 1u << 30, 1u << 30);
	CHECK(rc != RTB_OK);
	if (rc == RTB_OK)
		rtb_port_mq_delete(bad);

	/* many queues at once, each independent */
	struct rtb_mq *many[16];
	for (int i = 0; i < 16; i++) {
		CHECK(rtb_port_mq_create(&many[i], MSG, DEPTH) == RTB_OK);
		fill(msg, i);
		CHECK(rtb_port_mq_send(many[i], msg, sizeof(msg)) == RTB_OK);
	}
	for (int i = 15; i >= 0; i--) {
		char want[MSG];
		fill(want, i);
		CHECK(rtb_port_mq_receive(many[i], got, sizeof(got)) == RTB_OK);
		CHECK(memcmp(got, want, MSG) == 0);
		CHECK(rtb_port_mq_delete(many[i]) == RTB_OK);
	}
}

/* ---- blocking ---------------------------------------------------------------- */

struct peer {
	struct rtb_mq *q;
	char msg[MSG];
	int rc;
	atomic_int blocked, done;
};

static void receiver_main(void *arg)
{
	struct peer *p = arg;

	atomic_store(&p->blocked, 1);
	p->rc = rtb_port_mq_receive(p->q, p->msg, sizeof(p->msg));
	trace_add(&tr, "R");
	atomic_store(&p->done, 1);
}

static void sender_main(void *arg)
{
	struct peer *p = arg;

	atomic_store(&p->blocked, 1);
	p->rc = rtb_port_mq_send(p->q, p->msg, sizeof(p->msg));
	trace_add(&tr, "S");
	atomic_store(&p->done, 1);
}

static void test_blocking(void)
{
	struct peer p = {0};
	char msg[MSG];

	CHECK(rtb_port_mq_create(&p.q, MSG, DEPTH) == RTB_OK);

	/* a higher receiver blocks on the empty queue; the send wakes it at once */
	trace_reset(&tr);
	struct rtb_thread *t = spawn("receiver", 20, false, receiver_main, &p);
	CHECK(atomic_load(&p.blocked) == 1 && atomic_load(&p.done) == 0);
	fill(msg, 7);
	trace_add(&tr, "M0");
	CHECK(rtb_port_mq_send(p.q, msg, sizeof(msg)) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(trace_is(&tr, "M0 R M1"));
	CHECK(p.rc == RTB_OK && memcmp(p.msg, msg, MSG) == 0);
	reap(t);

	/* a higher sender blocks on the full queue; a receive frees a slot */
	for (int i = 0; i < DEPTH; i++) {
		fill(msg, i);
		CHECK(rtb_port_mq_send(p.q, msg, sizeof(msg)) == RTB_OK);
	}
	memset(&p.blocked, 0, sizeof(p.blocked));
	memset(&p.done, 0, sizeof(p.done));
	fill(p.msg, 100);
	trace_reset(&tr);
	t = spawn("sender", 20, false, sender_main, &p);
	CHECK(atomic_load(&p.blocked) == 1 && atomic_load(&p.done) == 0);
	trace_add(&tr, "M0");
	CHECK(rtb_port_mq_receive(p.q, msg, sizeof(msg)) == RTB_OK);
	trace_add(&tr, "M1");
	CHECK(trace_is(&tr, "M0 S M1"));
	CHECK(p.rc == RTB_OK);
	reap(t);
	for (int i = 1; i <= DEPTH; i++) {
		char want[MSG];
		fill(want, i < DEPTH ? i : 100);
		CHECK(rtb_port_mq_tryreceive(p.q, msg, sizeof(msg)) == RTB_OK);
		CHECK(memcmp(msg, want, MSG) == 0);
	}

	/* a lower receiver gets the message once the sender blocks */
	memset(&p.blocked, 0, sizeof(p.blocked));
	memset(&p.done, 0, sizeof(p.done));
	rtb_port_thread_set_priority(NULL, 10);
	t = spawn("receiver-low", 5, false, receiver_main, &p);
	fill(msg, 3);
	CHECK(rtb_port_mq_send(p.q, msg, sizeof(msg)) == RTB_OK);
	CHECK(wait_for(&p.done, 1, 2000));
	CHECK(memcmp(p.msg, msg, MSG) == 0);
	reap(t);
	rtb_port_thread_set_priority(NULL, 0);

	/* a receiver blocked in the queue can be deleted */
	if (rtb_port_info()->caps & RTB_CAP_THREAD_DELETE_LIVE) {
		memset(&p.blocked, 0, sizeof(p.blocked));
		memset(&p.done, 0, sizeof(p.done));
		t = spawn("receiver-deleted", 20, false, receiver_main, &p);
		CHECK(atomic_load(&p.blocked) == 1);
		reap(t);
		CHECK(atomic_load(&p.done) == 0);
		CHECK(rtb_port_mq_trysend(p.q, msg, sizeof(msg)) == RTB_OK);
		CHECK(rtb_port_mq_tryreceive(p.q, msg, sizeof(msg)) == RTB_OK);
	}
	CHECK(rtb_port_mq_delete(p.q) == RTB_OK);
}

int main(void)
{
	int rc = conf_init(true);
	if (rc != 0)
		return rc;
	if (!(rtb_port_info()->caps & RTB_CAP_MQ)) {
		fprintf(stderr, "skipped: no message queues on this port\n");
		return CHECK_SKIP;
	}
	test_fifo_and_try();
	test_blocking();
	return check_exit();
}
