/* SPDX-License-Identifier: Apache-2.0 */
/* POSIX port: semaphores, mutexes, message queues, event flags. */
#include "port_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mqueue.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct timespec abs_after(clockid_t clock, uint64_t ns)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	/* whole seconds apart, so that ns near UINT64_MAX cannot overflow */
	uint64_t rest = ns % 1000000000u + (uint64_t)ts.tv_nsec;
	ts.tv_sec += (time_t)(ns / 1000000000u + rest / 1000000000u);
	ts.tv_nsec = (long)(rest % 1000000000u);
	return ts;
}

/* ---- semaphores ------------------------------------------------------------ */

struct rtb_sem {
	sem_t sem;
};

int rtb_port_sem_create(struct rtb_sem **out, uint32_t initial)
{
	if (out == NULL || initial > SEM_VALUE_MAX)
		return RTB_E_INVALID;
	struct rtb_sem *s = malloc(sizeof(*s));
	if (s == NULL)
		return RTB_E_NOMEM;
	if (sem_init(&s->sem, 0, initial) != 0) {
		int err = errno;
		free(s);
		return posix_error(err);
	}
#ifdef SEM_PRIO_NONE
	/* NuttX with priority inheritance: a semaphore that signals, rather than
	 * guards a resource, has no holder to boost (NuttX's documented rule) */
	sem_setprotocol(&s->sem, SEM_PRIO_NONE);
#endif
	*out = s;
	return RTB_OK;
}

int rtb_port_sem_delete(struct rtb_sem *s)
{
	if (s == NULL)
		return RTB_E_INVALID;
	sem_destroy(&s->sem);
	free(s);
	return RTB_OK;
}

int rtb_port_sem_wait(struct rtb_sem *s)
{
	while (sem_wait(&s->sem) != 0) {
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_sem_trywait(struct rtb_sem *s)
{
	while (sem_trywait(&s->sem) != 0) {
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_sem_timedwait(struct rtb_sem *s, uint64_t timeout_ns)
{
#if defined(__GLIBC__)
	struct timespec ts = abs_after(CLOCK_MONOTONIC, timeout_ns);

	while (sem_clockwait(&s->sem, CLOCK_MONOTONIC, &ts) != 0) {
#else
	/* musl has no sem_clockwait: the deadline is on CLOCK_REALTIME, which
	 * a change of the wall clock during the wait would move. */
	struct timespec ts = abs_after(CLOCK_REALTIME, timeout_ns);

	while (sem_timedwait(&s->sem, &ts) != 0) {
#endif
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_sem_signal(struct rtb_sem *s)
{
	if (sem_post(&s->sem) != 0)
		return errno == EOVERFLOW ? RTB_E_AGAIN : posix_error(errno);
	return RTB_OK;
}

int rtb_port_sem_signal_from_irq(struct rtb_sem *s)
{
	/* sem_post() is async-signal-safe (POSIX.1-2008, signal-safety(7)). */
	return sem_post(&s->sem) == 0 ? RTB_OK : RTB_E_AGAIN;
}

int rtb_port_sem_value(struct rtb_sem *s, uint32_t *value)
{
	int v;

	if (sem_getvalue(&s->sem, &v) != 0)
		return posix_error(errno);
	*value = v < 0 ? 0 : (uint32_t)v;
	return RTB_OK;
}

uint64_t rtb_port_sem_max(void)
{
	return SEM_VALUE_MAX;
}

/* ---- mutexes ---------------------------------------------------------------- */

struct rtb_mutex {
	pthread_mutex_t m;
};

static const int native_protocol[] = {PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT,
				      PTHREAD_PRIO_PROTECT};

int rtb_port_mutex_create(struct rtb_mutex **out, enum rtb_mutex_protocol protocol, int ceiling)
{
	pthread_mutexattr_t attr;
	int err;

	if (out == NULL || (unsigned)protocol > RTB_MUTEX_CEILING)
		return RTB_E_INVALID;
	struct rtb_mutex *m = malloc(sizeof(*m));
	if (m == NULL)
		return RTB_E_NOMEM;
	pthread_mutexattr_init(&attr);
	err = pthread_mutexattr_setprotocol(&attr, native_protocol[protocol]);
	if (err == 0 && protocol == RTB_MUTEX_CEILING) {
#if POSIX_HAS_PRIO_CEILING
		int native = posix_native_prio(ceiling);
		err = native < 0 ? EINVAL : pthread_mutexattr_setprioceiling(&attr, native);
#else
		(void)ceiling;
		err = ENOTSUP;
#endif
	}
	if (err == 0)
		err = pthread_mutex_init(&m->m, &attr);
	pthread_mutexattr_destroy(&attr);
	if (err != 0) {
		free(m);
		return posix_error(err);
	}
	*out = m;
	return RTB_OK;
}

int rtb_port_mutex_delete(struct rtb_mutex *m)
{
	if (m == NULL)
		return RTB_E_INVALID;
	int err = pthread_mutex_destroy(&m->m);
	if (err != 0)
		return posix_error(err);
	free(m);
	return RTB_OK;
}

int rtb_port_mutex_lock(struct rtb_mutex *m)
{
	return posix_error(pthread_mutex_lock(&m->m));
}

int rtb_port_mutex_trylock(struct rtb_mutex *m)
{
	int err = pthread_mutex_trylock(&m->m);

	return err == EBUSY ? RTB_E_AGAIN : posix_error(err);
}

int rtb_port_mutex_unlock(struct rtb_mutex *m)
{
	return posix_error(pthread_mutex_unlock(&m->m));
}

const char *rtb_port_mutex_mechanism(enum rtb_mutex_protocol protocol)
{
	switch (protocol) {
	case RTB_MUTEX_INHERIT:
#ifdef __NuttX__
		return "pthread mutex, PTHREAD_PRIO_INHERIT (NuttX semaphore holders)";
#else
		return "pthread mutex, PTHREAD_PRIO_INHERIT (kernel PI futex)";
#endif
	case RTB_MUTEX_CEILING:
		return "pthread mutex, PTHREAD_PRIO_PROTECT";
	default:
		return "pthread mutex, PTHREAD_PRIO_NONE";
	}
}

/* ---- message queues ---------------------------------------------------------- */

struct rtb_mq {
	mqd_t q;
	size_t msg_bytes;
};

static atomic_uint mq_serial;

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	char name[64];
	struct mq_attr attr = {.mq_maxmsg = depth, .mq_msgsize = (long)msg_bytes};

	if (out == NULL || msg_bytes == 0 || depth == 0)
		return RTB_E_INVALID;
	struct rtb_mq *q = malloc(sizeof(*q));
	if (q == NULL)
		return RTB_E_NOMEM;
	snprintf(name, sizeof(name), "/rtbench-%d-%u", (int)getpid(),
		 atomic_fetch_add(&mq_serial, 1));
	q->q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
	if (q->q == (mqd_t)-1) {
		int err = errno;
		free(q);
		return posix_error(err);
	}
	mq_unlink(name); /* nothing left behind, whatever happens next */
	q->msg_bytes = msg_bytes;
	*out = q;
	return RTB_OK;
}

int rtb_port_mq_delete(struct rtb_mq *q)
{
	if (q == NULL)
		return RTB_E_INVALID;
	mq_close(q->q);
	free(q);
	return RTB_OK;
}

int rtb_port_mq_send(struct rtb_mq *q, const void *msg, size_t len)
{
	if (len > q->msg_bytes)
		return RTB_E_INVALID;
	while (mq_send(q->q, msg, len, 0) != 0) {
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_mq_trysend(struct rtb_mq *q, const void *msg, size_t len)
{
	struct timespec past = {0, 0}; /* an expired deadline: never blocks */

	if (len > q->msg_bytes)
		return RTB_E_INVALID;
	while (mq_timedsend(q->q, msg, len, 0, &past) != 0) {
		if (errno == ETIMEDOUT)
			return RTB_E_AGAIN;
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_mq_receive(struct rtb_mq *q, void *msg, size_t len)
{
	if (len < q->msg_bytes)
		return RTB_E_INVALID;
	while (mq_receive(q->q, msg, len, NULL) < 0) {
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_mq_tryreceive(struct rtb_mq *q, void *msg, size_t len)
{
	struct timespec past = {0, 0};

	if (len < q->msg_bytes)
		return RTB_E_INVALID;
	while (mq_timedreceive(q->q, msg, len, NULL, &past) < 0) {
		if (errno == ETIMEDOUT)
			return RTB_E_AGAIN;
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

/* ---- event flags (emulated) -------------------------------------------------- */

struct rtb_evt {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	uint32_t bits;
};

int rtb_port_evt_create(struct rtb_evt **out)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	if (out == NULL)
		return RTB_E_INVALID;
	struct rtb_evt *e = calloc(1, sizeof(*e));
	if (e == NULL)
		return RTB_E_NOMEM;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&e->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->changed, &ca);
	pthread_condattr_destroy(&ca);
	*out = e;
	return RTB_OK;
}

int rtb_port_evt_delete(struct rtb_evt *e)
{
	if (e == NULL)
		return RTB_E_INVALID;
	pthread_cond_destroy(&e->changed);
	pthread_mutex_destroy(&e->lock);
	free(e);
	return RTB_OK;
}

int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits)
{
	pthread_mutex_lock(&e->lock);
	e->bits |= bits;
	pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
	return RTB_OK;
}

int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits)
{
	pthread_mutex_lock(&e->lock);
	e->bits &= ~bits;
	pthread_mutex_unlock(&e->lock);
	return RTB_OK;
}

static bool evt_satisfied(uint32_t have, uint32_t want, enum rtb_evt_wait mode)
{
	return mode == RTB_EVT_ALL ? (have & want) == want : (have & want) != 0;
}

static void unlock_on_cancel(void *m)
{
	pthread_mutex_unlock(m);
}

int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got)
{
	if (bits == 0)
		return RTB_E_INVALID;
	pthread_mutex_lock(&e->lock);
	pthread_cleanup_push(unlock_on_cancel, &e->lock);
	while (!evt_satisfied(e->bits, bits, mode))
		pthread_cond_wait(&e->changed, &e->lock);
	if (got != NULL)
		*got = e->bits & bits;
	if (clear)
		e->bits &= ~bits;
	pthread_cleanup_pop(1);
	return RTB_OK;
}
