/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: message queues. An OSQ passes a pointer and a size per
 * message, not a copy; the contract's queue copies a message in on send and
 * out on receive, as the other OSes' queues do. The port does what a
 * uC/OS-III user does:
 *
 * - a message of up to a pointer's size (4 bytes here: every queue of the
 *   quick profile and of RTOSBench's cases) travels inside the pointer
 *   OSQPost carries: a send packs it into the pointer and posts it, a
 *   receive pends and unpacks it. No copy besides the kernel's own OS_MSG;
 *   the scenarios time uC/OS-III's queue and nothing else of the port's.
 * - a larger message is copied: each such queue owns an OSMem partition of
 *   fixed slots, one message each; a send takes a slot (OSMemGet), copies
 *   the message into it and posts the slot; a receive pends, copies the
 *   message out and gives the slot back (OSMemPut). The facts
 *   (ucos3_mq_note, port_ucos3.h) say so.
 *
 * A queue is full when the OSQ holds `depth` messages (a copying queue: when
 * no slot is free). uC/OS-III never blocks a sender (OSQPost says
 * OS_ERR_Q_MAX), so a sender that finds it full registers as waiting and
 * pends on the queue's semaphore `space`; a receive posts it while senders
 * wait. The test and the registration are one step with the kernel's
 * interrupts masked, and a post that comes before the pend is counted, so
 * no wake-up is lost; a woken sender tries again (another may have filled
 * the queue). Waiting senders leave highest priority first. All of this is
 * off the path of a send to a queue with room: that send is one OSQPost.
 */
#include <string.h>

#include "port_ucos3.h"

#include "rtb/core.h"

#if UCOS3_HAS_MQ

/* Largest message: a slot is an OSMem block (OS_MEM_SIZE). */
#define MQ_MSG_MAX 1024u
/* Largest message that travels inside the pointer. */
#define MQ_IN_POINTER UCOS3_MQ_IN_POINTER_BYTES
_Static_assert(MQ_IN_POINTER == sizeof(void *), "a message inside the pointer fills it");

struct rtb_mq {
	OS_Q q;
	/* sizeof(void *) when messages are a pointer's size (they travel inside
	 * it), else SIZE_MAX: a send or receive of this length takes the short
	 * path, one test for the queue's kind and the call's length */
	size_t fast_len;
	OS_SEM space;
	uint32_t waiting; /* senders pending on `space` */
	size_t msg_bytes;
	void *storage; /* the slots; NULL: messages travel inside the pointer */
	OS_MEM slots;
};

/* A message of up to a pointer's size as the pointer that carries it, its
 * bytes in order and zeros after them; and back. */
union word {
	void *p;
	uint8_t b[MQ_IN_POINTER];
};

static inline void *pack(const void *msg, size_t len)
{
	union word w;

	if (len == MQ_IN_POINTER) {
		memcpy(&w.p, msg, MQ_IN_POINTER); /* one load */
		return w.p;
	}
	w.p = NULL;
	for (size_t i = 0; i < len; i++)
		w.b[i] = ((const uint8_t *)msg)[i];
	return w.p;
}

static inline void unpack(void *msg, void *p, size_t msg_bytes)
{
	union word w = {.p = p};

	if (msg_bytes == MQ_IN_POINTER) {
		memcpy(msg, &w.p, MQ_IN_POINTER); /* one store */
		return;
	}
	for (size_t i = 0; i < msg_bytes; i++)
		((uint8_t *)msg)[i] = w.b[i];
}

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	OS_ERR err = OS_ERR_NONE;

	if (out == NULL || msg_bytes == 0 || msg_bytes > MQ_MSG_MAX || depth == 0 ||
	    depth > 0xFFFFu)
		return RTB_E_INVALID;
	bool copied = msg_bytes > MQ_IN_POINTER;
	bool space_created = false;
	struct rtb_mq *m = rtb_port_mem_alloc(sizeof(*m));
	if (m == NULL)
		return RTB_E_NOMEM;
	rtb_memset(m, 0, sizeof(*m));
	m->msg_bytes = msg_bytes;
	m->fast_len = msg_bytes == MQ_IN_POINTER ? MQ_IN_POINTER : SIZE_MAX;
	if (copied) {
		/* OSMem: a block holds a pointer and is pointer aligned; a
		 * partition has two blocks at least: a queue of depth 1 keeps
		 * its second slot taken for good, so free slots and room in
		 * the OSQ stay equal. */
		size_t slot = (msg_bytes + 7u) & ~(size_t)7u;
		uint32_t nslots = depth < 2u ? 2u : depth;
		m->storage = rtb_port_mem_alloc(slot * nslots);
		if (m->storage == NULL) {
			rtb_port_mem_free(m);
			return RTB_E_NOMEM;
		}
		OSMemCreate(&m->slots, (CPU_CHAR *)"rtb-mq", m->storage, (OS_MEM_QTY)nslots,
			    (OS_MEM_SIZE)slot, &err);
		if (err == OS_ERR_NONE && depth < nslots)
			(void)OSMemGet(&m->slots, &err);
	}
	if (err == OS_ERR_NONE)
		OSSemCreate(&m->space, (CPU_CHAR *)"rtb-mq", 0u, &err);
	space_created = err == OS_ERR_NONE;
	if (err == OS_ERR_NONE)
		OSQCreate(&m->q, (CPU_CHAR *)"rtb-mq", (OS_MSG_QTY)depth, &err);
	if (err != OS_ERR_NONE) {
		if (space_created)
			(void)OSSemDel(&m->space, OS_OPT_DEL_ALWAYS, &err);
		if (m->storage != NULL)
			rtb_port_mem_free(m->storage);
		rtb_port_mem_free(m);
		return RTB_E_OS;
	}
	*out = m;
	return RTB_OK;
}

int rtb_port_mq_delete(struct rtb_mq *m)
{
	OS_ERR err, sem_err;

	if (m == NULL)
		return RTB_E_INVALID;
	(void)OSQDel(&m->q, OS_OPT_DEL_ALWAYS, &err);
	(void)OSSemDel(&m->space, OS_OPT_DEL_ALWAYS, &sem_err);
	/* A partition is never deleted in uC/OS-III: its memory goes. */
	if (m->storage != NULL)
		rtb_port_mem_free(m->storage);
	rtb_port_mem_free(m);
	return err == OS_ERR_NONE && sem_err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

/* ---- waiting for room ---------------------------------------------------------- */

/* Whether the queue has no room for a send: no free slot (a copying queue)
 * or `depth` messages in the OSQ. With the kernel's interrupts masked. */
static bool full(const struct rtb_mq *m)
{
	if (m->storage != NULL)
		return m->slots.NbrFree == 0u;
	return m->q.MsgQ.NbrEntries >= m->q.MsgQ.NbrEntriesSize;
}

/* After a send found the queue full: when `wait`, pend until a receive
 * makes room (RTB_OK: try again), else RTB_E_AGAIN. The test and the
 * registration are one step: a receive after the test sees the sender. */
static int wait_room(struct rtb_mq *m, bool wait)
{
	OS_ERR err;
	bool registered = false;
	CPU_SR_ALLOC();

	if (!wait)
		return RTB_E_AGAIN;
	CPU_CRITICAL_ENTER();
	if (full(m)) {
		m->waiting++;
		registered = true;
	}
	CPU_CRITICAL_EXIT();
	if (!registered)
		return RTB_OK; /* a receive made room meanwhile */
	(void)OSSemPend(&m->space, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
	return ucos3_pend_error(err);
}

/* After a receive made room while senders wait: wake the most urgent. */
static void __attribute__((noinline)) wake_sender(struct rtb_mq *m)
{
	OS_ERR err;
	bool post = false;
	CPU_SR_ALLOC();

	CPU_CRITICAL_ENTER();
	if (m->waiting > 0) {
		m->waiting--;
		post = true;
	}
	CPU_CRITICAL_EXIT();
	if (post)
		(void)OSSemPost(&m->space, OS_OPT_POST_1, &err);
}

/* ---- messages copied through the partition ----------------------------------- */

static inline int send_copy(struct rtb_mq *m, const void *msg, size_t len, bool wait)
{
	OS_ERR err;
	void *slot;

	while ((slot = OSMemGet(&m->slots, &err)) == NULL) {
		int rc = wait_room(m, wait);
		if (rc != RTB_OK)
			return rc;
	}
	memcpy(slot, msg, len);
	OSQPost(&m->q, slot, (OS_MSG_SIZE)len, OS_OPT_POST_FIFO, &err);
	if (err != OS_ERR_NONE) {
		/* OS_ERR_MSG_POOL_EMPTY: the kernel's OS_MSG pool, shared by every
		 * queue (OS_CFG_MSG_POOL_SIZE), is used up */
		OS_ERR put_err;
		OSMemPut(&m->slots, slot, &put_err);
		return RTB_E_NOMEM;
	}
	return RTB_OK;
}

static inline int receive_copy(struct rtb_mq *m, void *msg, OS_OPT opt)
{
	OS_ERR err;
	OS_MSG_SIZE size;

	void *slot = OSQPend(&m->q, 0u, opt, &size, NULL, &err);
	if (err != OS_ERR_NONE)
		return ucos3_pend_error(err);
	/* a shorter message reads as if padded with zeros, as from a queue of
	 * fixed-size messages */
	memcpy(msg, slot, size);
	if (size < m->msg_bytes)
		memset((uint8_t *)msg + size, 0, m->msg_bytes - size);
	OSMemPut(&m->slots, slot, &err);
	/* A sender registered before the slot came back sees waiting > 0 here. */
	if (m->waiting > 0)
		wake_sender(m);
	return RTB_OK;
}

/* ---- messages inside the pointer ------------------------------------------------ */

/* OSQPost failed: full (wait for room and post again), or the kernel's
 * OS_MSG pool is used up. */
static int __attribute__((noinline))
send_again(struct rtb_mq *m, void *word, size_t len, bool wait, OS_ERR err)
{
	while (err == OS_ERR_Q_MAX) {
		int rc = wait_room(m, wait);
		if (rc != RTB_OK)
			return rc;
		OSQPost(&m->q, word, (OS_MSG_SIZE)len, OS_OPT_POST_FIFO, &err);
	}
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_NOMEM; /* OS_ERR_MSG_POOL_EMPTY */
}

/* Every send but one of a whole pointer's size: a wrong length, a copying
 * queue, a shorter message. */
static int __attribute__((noinline))
send_other(struct rtb_mq *m, const void *msg, size_t len, bool wait)
{
	OS_ERR err;

	if (len > m->msg_bytes)
		return RTB_E_INVALID;
	if (m->storage != NULL)
		return send_copy(m, msg, len, wait);
	void *word = pack(msg, len);
	OSQPost(&m->q, word, (OS_MSG_SIZE)len, OS_OPT_POST_FIFO, &err);
	return err == OS_ERR_NONE ? RTB_OK : send_again(m, word, len, wait, err);
}

static int __attribute__((noinline))
receive_other(struct rtb_mq *m, void *msg, size_t len, OS_OPT opt)
{
	OS_ERR err;
	OS_MSG_SIZE size;

	if (len < m->msg_bytes)
		return RTB_E_INVALID;
	if (m->storage != NULL)
		return receive_copy(m, msg, opt);
	void *word = OSQPend(&m->q, 0u, opt, &size, NULL, &err);
	if (err != OS_ERR_NONE)
		return ucos3_pend_failure(err);
	unpack(msg, word, m->msg_bytes);
	if (m->waiting > 0)
		wake_sender(m);
	return RTB_OK;
}

/* A message of a pointer's size: what a uC/OS-III user writes, one OSQPost
 * of the value as the pointer, one OSQPend. */
static inline int mq_send(struct rtb_mq *m, const void *msg, size_t len, bool wait)
{
	OS_ERR err;
	void *word;

	if (len != m->fast_len)
		return send_other(m, msg, len, wait);
	memcpy(&word, msg, sizeof(word)); /* one load */
	OSQPost(&m->q, word, (OS_MSG_SIZE)sizeof(word), OS_OPT_POST_FIFO, &err);
	return err == OS_ERR_NONE ? RTB_OK : send_again(m, word, sizeof(word), wait, err);
}

static inline int mq_receive(struct rtb_mq *m, void *msg, size_t len, OS_OPT opt)
{
	OS_ERR err;
	OS_MSG_SIZE size;

	if (len != m->fast_len)
		return receive_other(m, msg, len, opt);
	void *word = OSQPend(&m->q, 0u, opt, &size, NULL, &err);
	if (err != OS_ERR_NONE)
		return ucos3_pend_failure(err);
	memcpy(msg, &word, sizeof(word)); /* one store */
	if (m->waiting > 0)
		wake_sender(m);
	return RTB_OK;
}

int rtb_port_mq_send(struct rtb_mq *m, const void *msg, size_t len)
{
	return mq_send(m, msg, len, true);
}

int rtb_port_mq_trysend(struct rtb_mq *m, const void *msg, size_t len)
{
	return mq_send(m, msg, len, false);
}

int rtb_port_mq_receive(struct rtb_mq *m, void *msg, size_t len)
{
	return mq_receive(m, msg, len, OS_OPT_PEND_BLOCKING);
}

int rtb_port_mq_tryreceive(struct rtb_mq *m, void *msg, size_t len)
{
	return mq_receive(m, msg, len, OS_OPT_PEND_NON_BLOCKING);
}

#else /* OS_CFG_Q_EN or OS_CFG_Q_DEL_EN is 0: no message queues */

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	(void)out;
	(void)msg_bytes;
	(void)depth;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_delete(struct rtb_mq *m)
{
	(void)m;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_send(struct rtb_mq *m, const void *msg, size_t len)
{
	(void)m;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_trysend(struct rtb_mq *m, const void *msg, size_t len)
{
	(void)m;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_receive(struct rtb_mq *m, void *msg, size_t len)
{
	(void)m;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_tryreceive(struct rtb_mq *m, void *msg, size_t len)
{
	(void)m;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

#endif
