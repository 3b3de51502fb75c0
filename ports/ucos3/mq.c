/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: message queues. An OSQ passes pointers (and a size), not
 * copies; the contract's queue copies a message in on send and out on
 * receive, as the other OSes' queues do. So each queue owns an OSMem
 * partition of fixed slots, one message each: a send takes a slot
 * (OSMemGet), copies the message into it and posts the slot (OSQPost); a
 * receive pends (OSQPend), copies the message out and gives the slot back
 * (OSMemPut). The scenarios thus time a copy in each direction plus uC/OS-III's
 * own queue and partition calls.
 *
 * A queue is full when no slot is free. uC/OS-III never blocks a sender
 * (OSQPost says OS_ERR_Q_MAX), so a sender that finds no slot registers as
 * waiting and pends on the queue's semaphore `space`; a receive that gives a
 * slot back posts it while senders wait. The test and the registration are
 * one step with the kernel's interrupts masked, and a post that comes
 * before the pend is counted, so no wake-up is lost; a woken sender tries
 * again (another may have taken the slot). Waiting senders leave highest
 * priority first. The copies are the C library's memcpy, as in the other
 * kernels' queues.
 */
#include <string.h>

#include "port_ucos3.h"

#include "rtb/core.h"

#if UCOS3_HAS_MQ

/* Largest message: a slot is an OSMem block (OS_MEM_SIZE). */
#define MQ_MSG_MAX 1024u

struct rtb_mq {
	OS_Q q;
	OS_MEM slots;
	OS_SEM space;
	uint32_t waiting; /* senders pending on `space` */
	size_t msg_bytes;
	void *storage; /* the slots */
};

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	OS_ERR err;

	if (out == NULL || msg_bytes == 0 || msg_bytes > MQ_MSG_MAX || depth == 0 ||
	    depth > 0xFFFFu)
		return RTB_E_INVALID;
	/* OSMem: a block holds a pointer and is pointer aligned; a partition
	 * has two blocks at least: a queue of depth 1 keeps its second slot
	 * taken for good, so free slots and room in the OSQ stay equal. */
	size_t slot = (msg_bytes + 7u) & ~(size_t)7u;
	uint32_t nslots = depth < 2u ? 2u : depth;
	bool space_created = false;
	struct rtb_mq *m = rtb_port_mem_alloc(sizeof(*m));
	if (m == NULL)
		return RTB_E_NOMEM;
	rtb_memset(m, 0, sizeof(*m));
	m->msg_bytes = msg_bytes;
	m->storage = rtb_port_mem_alloc(slot * nslots);
	if (m->storage == NULL) {
		rtb_port_mem_free(m);
		return RTB_E_NOMEM;
	}
	OSMemCreate(&m->slots, (CPU_CHAR *)"rtb-mq", m->storage, (OS_MEM_QTY)nslots,
		    (OS_MEM_SIZE)slot, &err);
	if (err == OS_ERR_NONE && depth < nslots)
		(void)OSMemGet(&m->slots, &err);
	if (err == OS_ERR_NONE)
		OSSemCreate(&m->space, (CPU_CHAR *)"rtb-mq", 0u, &err);
	space_created = err == OS_ERR_NONE;
	if (err == OS_ERR_NONE)
		OSQCreate(&m->q, (CPU_CHAR *)"rtb-mq", (OS_MSG_QTY)depth, &err);
	if (err != OS_ERR_NONE) {
		if (space_created)
			(void)OSSemDel(&m->space, OS_OPT_DEL_ALWAYS, &err);
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
	rtb_port_mem_free(m->storage);
	rtb_port_mem_free(m);
	return err == OS_ERR_NONE && sem_err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

/* A free slot, or NULL; when NULL and `wait`, the caller is registered as a
 * waiting sender in the same step. */
static void *take_slot(struct rtb_mq *m, bool wait)
{
	OS_ERR err;
	CPU_SR_ALLOC();

	CPU_CRITICAL_ENTER();
	void *slot = OSMemGet(&m->slots, &err);
	if (slot == NULL && wait)
		m->waiting++;
	CPU_CRITICAL_EXIT();
	return slot;
}

static int mq_send(struct rtb_mq *m, const void *msg, size_t len, bool wait)
{
	OS_ERR err;
	void *slot;

	if (m == NULL || len > m->msg_bytes)
		return RTB_E_INVALID;
	while ((slot = take_slot(m, wait)) == NULL) {
		if (!wait)
			return RTB_E_AGAIN;
		(void)OSSemPend(&m->space, 0u, OS_OPT_PEND_BLOCKING, NULL, &err);
		if (err != OS_ERR_NONE)
			return ucos3_pend_error(err);
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

static int mq_receive(struct rtb_mq *m, void *msg, size_t len, OS_OPT opt)
{
	OS_ERR err;
	OS_MSG_SIZE size;

	if (m == NULL || len < m->msg_bytes)
		return RTB_E_INVALID;
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
	if (m->waiting > 0) {
		CPU_SR_ALLOC();
		bool post = false;
		CPU_CRITICAL_ENTER();
		if (m->waiting > 0) {
			m->waiting--;
			post = true;
		}
		CPU_CRITICAL_EXIT();
		if (post)
			(void)OSSemPost(&m->space, OS_OPT_POST_1, &err);
	}
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
