/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: counting semaphores, mutexes, message queues and event
 * flags, each a ThreadX object in a block of the byte pool. The POSIX IPC
 * channels are not ThreadX services (ports/common/ipc_none.c).
 *
 * Waiter order, as ThreadX has it: semaphore, queue and TX_NO_INHERIT
 * mutex waiters leave in arrival order; only tx_*_prioritize() before the
 * release puts the most urgent first. TX_INHERIT mutexes do that
 * themselves on every put with more than one waiter. The port calls
 * tx_semaphore_prioritize() before each put only when built with
 * RTB_THREADX_SEM_PRIORITIZE, and never the queue's or the mutex's.
 */
#include <string.h>

#include "port_threadx.h"

#define SEM_MAX 0xFFFFFFFFu /* a ULONG; one put more wraps to 0 */
#define MQ_WORDS_MAX 16u    /* ThreadX messages: 1 to 16 ULONGs */

static int wait_status(UINT rc, ULONG wait)
{
	if (rc == TX_SUCCESS)
		return RTB_OK;
	if (wait == TX_NO_WAIT)
		return RTB_E_AGAIN;
	return wait == TX_WAIT_FOREVER ? RTB_E_OS : RTB_E_TIMEOUT;
}

/* ---- counting semaphores ------------------------------------------------ */

int rtb_port_sem_create(struct rtb_sem **out, uint32_t initial)
{
	if (out == NULL)
		return RTB_E_INVALID;
	TX_SEMAPHORE *s = txp_alloc(sizeof(*s));
	if (s == NULL)
		return RTB_E_NOMEM;
	if (tx_semaphore_create(s, "rtb", initial) != TX_SUCCESS) {
		txp_free(s);
		return RTB_E_OS;
	}
	*out = (struct rtb_sem *)s;
	return RTB_OK;
}

int rtb_port_sem_delete(struct rtb_sem *sem)
{
	TX_SEMAPHORE *s = (TX_SEMAPHORE *)sem;

	tx_semaphore_delete(s);
	txp_free(s);
	return RTB_OK;
}

static int sem_get(struct rtb_sem *sem, ULONG wait)
{
	return wait_status(tx_semaphore_get((TX_SEMAPHORE *)sem, wait), wait);
}

int rtb_port_sem_wait(struct rtb_sem *s)
{
	return sem_get(s, TX_WAIT_FOREVER);
}

#if !TXP_SEM_INLINE /* else rtb_port_inline.h's */
int rtb_port_sem_trywait(struct rtb_sem *s)
{
	return sem_get(s, TX_NO_WAIT);
}
#endif

int rtb_port_sem_timedwait(struct rtb_sem *s, uint64_t timeout_ns)
{
	return sem_get(s, txp_ticks_ceil(timeout_ns));
}

/* One put, the same from a thread and from an interrupt handler (ThreadX
 * tells them apart itself; from a handler the switch waits for PendSV). */
static int sem_put(struct rtb_sem *sem)
{
	TX_SEMAPHORE *s = (TX_SEMAPHORE *)sem;

#if RTB_THREADX_SEM_PRIORITIZE
	tx_semaphore_prioritize(s);
#endif
	return tx_semaphore_put(s) == TX_SUCCESS ? RTB_OK : RTB_E_OS;
}

int rtb_port_sem_signal(struct rtb_sem *s)
{
	return sem_put(s);
}

#if !TXP_SEM_INLINE /* else rtb_port_inline.h's */
int rtb_port_sem_signal_from_irq(struct rtb_sem *s)
{
	return sem_put(s);
}
#endif

int rtb_port_sem_value(struct rtb_sem *s, uint32_t *value)
{
	*value = (uint32_t)((TX_SEMAPHORE *)s)->tx_semaphore_count;
	return RTB_OK;
}

uint64_t rtb_port_sem_max(void)
{
	return SEM_MAX;
}

/* ---- mutexes -------------------------------------------------------------- */

int rtb_port_mutex_create(struct rtb_mutex **out, enum rtb_mutex_protocol protocol, int ceiling)
{
	(void)ceiling;
	if (out == NULL)
		return RTB_E_INVALID;
	if (protocol == RTB_MUTEX_CEILING)
		return RTB_E_UNSUPPORTED; /* ThreadX has no priority ceiling protocol */
	if (protocol != RTB_MUTEX_INHERIT && protocol != RTB_MUTEX_NONE)
		return RTB_E_INVALID;
	TX_MUTEX *m = txp_alloc(sizeof(*m));
	if (m == NULL)
		return RTB_E_NOMEM;
	if (tx_mutex_create(m, "rtb", protocol == RTB_MUTEX_INHERIT ? TX_INHERIT : TX_NO_INHERIT) !=
	    TX_SUCCESS) {
		txp_free(m);
		return RTB_E_OS;
	}
	*out = (struct rtb_mutex *)m;
	return RTB_OK;
}

int rtb_port_mutex_delete(struct rtb_mutex *mutex)
{
	TX_MUTEX *m = (TX_MUTEX *)mutex;

	/* tx_mutex_delete would take a held mutex from its owner */
	if (m->tx_mutex_owner != TX_NULL)
		return RTB_E_BUSY;
	tx_mutex_delete(m);
	txp_free(m);
	return RTB_OK;
}

int rtb_port_mutex_lock(struct rtb_mutex *m)
{
	return wait_status(tx_mutex_get((TX_MUTEX *)m, TX_WAIT_FOREVER), TX_WAIT_FOREVER);
}

int rtb_port_mutex_trylock(struct rtb_mutex *m)
{
	return wait_status(tx_mutex_get((TX_MUTEX *)m, TX_NO_WAIT), TX_NO_WAIT);
}

int rtb_port_mutex_unlock(struct rtb_mutex *m)
{
	UINT rc = tx_mutex_put((TX_MUTEX *)m);

	return rc == TX_SUCCESS ? RTB_OK : rc == TX_NOT_OWNED ? RTB_E_PERM : RTB_E_OS;
}

const char *rtb_port_mutex_mechanism(enum rtb_mutex_protocol protocol)
{
	switch (protocol) {
	case RTB_MUTEX_INHERIT:
		return "tx_mutex_create(TX_INHERIT) (ThreadX priority inheritance)";
	case RTB_MUTEX_NONE:
		return "tx_mutex_create(TX_NO_INHERIT) (owner, no inheritance, waiters in "
		       "arrival order)";
	default:
		return "none: ThreadX has no priority ceiling protocol";
	}
}

/* ---- message queues -------------------------------------------------------- */

struct rtb_mq {
	TX_QUEUE q;
	/* msg_bytes when it is a whole number of ULONGs, else SIZE_MAX: a send
	 * or receive of this length from an aligned buffer goes as it is */
	size_t direct_len;
	size_t msg_bytes;
	UINT words;
	ULONG storage[]; /* depth * words */
};

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	if (out == NULL || msg_bytes == 0 || depth == 0)
		return RTB_E_INVALID;
	/* ThreadX's messages are 1 to 16 ULONGs: 64 bytes at most */
	if (msg_bytes > MQ_WORDS_MAX * sizeof(ULONG))
		return RTB_E_UNSUPPORTED;
	UINT words = (UINT)((msg_bytes + sizeof(ULONG) - 1) / sizeof(ULONG));
	if (depth > 0x7FFFFFFFu / sizeof(ULONG) / words)
		return RTB_E_INVALID;
	ULONG storage = (ULONG)(depth * words * sizeof(ULONG));
	struct rtb_mq *m = txp_alloc(sizeof(*m) + storage);
	if (m == NULL)
		return RTB_E_NOMEM;
	m->msg_bytes = msg_bytes;
	m->words = words;
	m->direct_len = msg_bytes == words * sizeof(ULONG) ? msg_bytes : SIZE_MAX;
	if (tx_queue_create(&m->q, "rtb", words, m->storage, storage) != TX_SUCCESS) {
		txp_free(m);
		return RTB_E_OS;
	}
	*out = m;
	return RTB_OK;
}

int rtb_port_mq_delete(struct rtb_mq *m)
{
	tx_queue_delete(&m->q);
	txp_free(m);
	return RTB_OK;
}

/* ThreadX copies whole ULONGs: a message of a whole number of words at an
 * aligned address goes as it is (one tx_queue_send or tx_queue_receive, as a
 * ThreadX user writes it), any other through a zero-padded copy, out of
 * that path. */
static inline bool direct(const struct rtb_mq *m, const void *msg, size_t len)
{
	/* one test of both: the length, and the address's low bits */
	return ((len - m->direct_len) | ((uintptr_t)msg & (sizeof(ULONG) - 1))) == 0;
}

static int __attribute__((noipa))
send_padded(struct rtb_mq *m, const void *msg, size_t len, ULONG wait)
{
	ULONG buf[MQ_WORDS_MAX];

	if (len > m->msg_bytes)
		return RTB_E_INVALID;
	memset(buf, 0, m->words * sizeof(ULONG));
	memcpy(buf, msg, len);
	return wait_status(tx_queue_send(&m->q, buf, wait), wait);
}

static int __attribute__((noipa))
receive_padded(struct rtb_mq *m, void *msg, size_t len, ULONG wait)
{
	ULONG buf[MQ_WORDS_MAX];

	if (len >= m->words * sizeof(ULONG) && ((uintptr_t)msg & (sizeof(ULONG) - 1)) == 0)
		return wait_status(tx_queue_receive(&m->q, msg, wait), wait);
	int rc = wait_status(tx_queue_receive(&m->q, buf, wait), wait);
	if (rc == RTB_OK)
		memcpy(msg, buf, len < m->msg_bytes ? len : m->msg_bytes);
	return rc;
}

static inline int mq_send(struct rtb_mq *m, const void *msg, size_t len, ULONG wait)
{
	if (__builtin_expect(direct(m, msg, len), 1))
		return wait_status(tx_queue_send(&m->q, (VOID *)(uintptr_t)msg, wait), wait);
	return send_padded(m, msg, len, wait);
}

static inline int mq_receive(struct rtb_mq *m, void *msg, size_t len, ULONG wait)
{
	if (__builtin_expect(direct(m, msg, len), 1))
		return wait_status(tx_queue_receive(&m->q, msg, wait), wait);
	return receive_padded(m, msg, len, wait);
}

int rtb_port_mq_send(struct rtb_mq *m, const void *msg, size_t len)
{
	return mq_send(m, msg, len, TX_WAIT_FOREVER);
}

int rtb_port_mq_trysend(struct rtb_mq *m, const void *msg, size_t len)
{
	return mq_send(m, msg, len, TX_NO_WAIT);
}

int rtb_port_mq_receive(struct rtb_mq *m, void *msg, size_t len)
{
	return mq_receive(m, msg, len, TX_WAIT_FOREVER);
}

int rtb_port_mq_tryreceive(struct rtb_mq *m, void *msg, size_t len)
{
	return mq_receive(m, msg, len, TX_NO_WAIT);
}

/* ---- event flags -------------------------------------------------------------- */

int rtb_port_evt_create(struct rtb_evt **out)
{
	if (out == NULL)
		return RTB_E_INVALID;
	TX_EVENT_FLAGS_GROUP *e = txp_alloc(sizeof(*e));
	if (e == NULL)
		return RTB_E_NOMEM;
	if (tx_event_flags_create(e, "rtb") != TX_SUCCESS) {
		txp_free(e);
		return RTB_E_OS;
	}
	*out = (struct rtb_evt *)e;
	return RTB_OK;
}

int rtb_port_evt_delete(struct rtb_evt *evt)
{
	TX_EVENT_FLAGS_GROUP *e = (TX_EVENT_FLAGS_GROUP *)evt;

	tx_event_flags_delete(e);
	txp_free(e);
	return RTB_OK;
}

int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits)
{
	return tx_event_flags_set((TX_EVENT_FLAGS_GROUP *)e, bits, TX_OR) == TX_SUCCESS ? RTB_OK
											: RTB_E_OS;
}

int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits)
{
	return tx_event_flags_set((TX_EVENT_FLAGS_GROUP *)e, ~(ULONG)bits, TX_AND) == TX_SUCCESS
		       ? RTB_OK
		       : RTB_E_OS;
}

int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got)
{
	ULONG actual = 0;

	if (bits == 0)
		return RTB_E_INVALID;
	UINT option = mode == RTB_EVT_ALL ? (clear ? TX_AND_CLEAR : TX_AND)
					  : (clear ? TX_OR_CLEAR : TX_OR);
	UINT rc = tx_event_flags_get((TX_EVENT_FLAGS_GROUP *)e, bits, option, &actual,
				     TX_WAIT_FOREVER);
	if (got != NULL)
		*got = (uint32_t)actual;
	return wait_status(rc, TX_WAIT_FOREVER);
}
