/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: counting semaphores (OSSem), mutexes (OSMutex, and an
 * OSSem of count 1 for the lock without a protocol) and event flags
 * (OSFlag). Each object is the kernel's, in a block of the port's allocator
 * cleared before the kernel initialises it.
 */
#include "port_ucos3.h"

#include "rtb/core.h"

/* Largest semaphore count: OSSemPost refuses to go past OS_SEM_CTR's, a
 * 32-bit counter, so every initial count of the contract fits. */
#define SEM_MAX ((uint64_t)(OS_SEM_CTR)-1)
_Static_assert(sizeof(OS_SEM_CTR) >= sizeof(uint32_t), "OS_SEM_CTR holds a uint32_t");

/* ---- counting semaphores ------------------------------------------------ */

struct rtb_sem {
	OS_SEM sem;
};

int rtb_port_sem_create(struct rtb_sem **out, uint32_t initial)
{
	OS_ERR err;

	if (out == NULL)
		return RTB_E_INVALID;
	struct rtb_sem *s = rtb_port_mem_alloc(sizeof(*s));
	if (s == NULL)
		return RTB_E_NOMEM;
	rtb_memset(s, 0, sizeof(*s));
	OSSemCreate(&s->sem, (CPU_CHAR *)"rtb", (OS_SEM_CTR)initial, &err);
	if (err != OS_ERR_NONE) {
		rtb_port_mem_free(s);
		return RTB_E_OS;
	}
	*out = s;
	return RTB_OK;
}

int rtb_port_sem_delete(struct rtb_sem *s)
{
	OS_ERR err;

	if (s == NULL)
		return RTB_E_INVALID;
	/* Waiters, if any, are made ready with OS_ERR_OBJ_DEL. */
	(void)OSSemDel(&s->sem, OS_OPT_DEL_ALWAYS, &err);
	rtb_port_mem_free(s);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

static int sem_pend(struct rtb_sem *s, OS_TICK ticks, OS_OPT opt)
{
	OS_ERR err;

	(void)OSSemPend(&s->sem, ticks, opt, NULL, &err);
	return ucos3_pend_error(err);
}

int rtb_port_sem_wait(struct rtb_sem *s)
{
	return sem_pend(s, 0u, OS_OPT_PEND_BLOCKING);
}

int rtb_port_sem_trywait(struct rtb_sem *s)
{
	return sem_pend(s, 0u, OS_OPT_PEND_NON_BLOCKING);
}

int rtb_port_sem_timedwait(struct rtb_sem *s, uint64_t timeout_ns)
{
	if (timeout_ns == 0) {
		int rc = sem_pend(s, 0u, OS_OPT_PEND_NON_BLOCKING);
		return rc == RTB_E_AGAIN ? RTB_E_TIMEOUT : rc;
	}
	return sem_pend(s, ucos3_timeout_ticks(timeout_ns), OS_OPT_PEND_BLOCKING);
}

/* The same call from a task and from an interrupt handler: in a handler
 * (OSIntNestingCtr > 0) OSSemPost only readies the waiter, and OSIntExit()
 * switches to it. */
int rtb_port_sem_signal(struct rtb_sem *s)
{
	OS_ERR err;

	(void)OSSemPost(&s->sem, OS_OPT_POST_1, &err);
	return err == OS_ERR_NONE ? RTB_OK : err == OS_ERR_SEM_OVF ? RTB_E_AGAIN : RTB_E_OS;
}

int rtb_port_sem_signal_from_irq(struct rtb_sem *s)
{
	return rtb_port_sem_signal(s);
}

int rtb_port_sem_value(struct rtb_sem *s, uint32_t *value)
{
	if (s == NULL || value == NULL)
		return RTB_E_INVALID;
	*value = (uint32_t)s->sem.Ctr;
	return RTB_OK;
}

uint64_t rtb_port_sem_max(void)
{
	return SEM_MAX;
}

/* ---- mutexes -------------------------------------------------------------- */

/* RTB_MUTEX_INHERIT: an OSMutex (uC/OS-III's mutexes always inherit).
 * RTB_MUTEX_NONE: an OSSem of count 1, a lock with no owner and no
 * protocol, the negative control of MUT-B-ARC. */
struct rtb_mutex {
	union { /* first: its address is the mutex's, no offset to add */
#if UCOS3_HAS_MUTEX
		OS_MUTEX mutex;
#endif
		OS_SEM sem;
	} u;
	bool inherit;
};

int rtb_port_mutex_create(struct rtb_mutex **out, enum rtb_mutex_protocol protocol, int ceiling)
{
	OS_ERR err;

	(void)ceiling;
	if (out == NULL || (protocol != RTB_MUTEX_NONE && protocol != RTB_MUTEX_INHERIT &&
			    protocol != RTB_MUTEX_CEILING))
		return RTB_E_INVALID;
	if (protocol == RTB_MUTEX_CEILING)
		return RTB_E_UNSUPPORTED; /* uC/OS-III has no priority ceiling protocol */
	if (protocol == RTB_MUTEX_INHERIT && !UCOS3_HAS_MUTEX)
		return RTB_E_UNSUPPORTED; /* OS_CFG_MUTEX_EN (or _DEL_EN) is 0 */
	struct rtb_mutex *m = rtb_port_mem_alloc(sizeof(*m));
	if (m == NULL)
		return RTB_E_NOMEM;
	rtb_memset(m, 0, sizeof(*m));
	m->inherit = protocol == RTB_MUTEX_INHERIT;
#if UCOS3_HAS_MUTEX
	if (m->inherit)
		OSMutexCreate(&m->u.mutex, (CPU_CHAR *)"rtb", &err);
	else
#endif
		OSSemCreate(&m->u.sem, (CPU_CHAR *)"rtb", 1u, &err);
	if (err != OS_ERR_NONE) {
		rtb_port_mem_free(m);
		return RTB_E_OS;
	}
	*out = m;
	return RTB_OK;
}

int rtb_port_mutex_delete(struct rtb_mutex *m)
{
	OS_ERR err;

	if (m == NULL)
		return RTB_E_INVALID;
#if UCOS3_HAS_MUTEX
	if (m->inherit) {
		if (m->u.mutex.OwnerTCBPtr != NULL)
			return RTB_E_BUSY;
		(void)OSMutexDel(&m->u.mutex, OS_OPT_DEL_ALWAYS, &err);
	} else
#endif
	{
		if (m->u.sem.Ctr == 0)
			return RTB_E_BUSY;
		(void)OSSemDel(&m->u.sem, OS_OPT_DEL_ALWAYS, &err);
	}
	rtb_port_mem_free(m);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

#if UCOS3_HAS_MUTEX
/* OSMutexPend failed. OS_ERR_MUTEX_OWNER: the caller holds it already;
 * uC/OS-III nests, the contract's mutex does not: undo the nesting. */
static int __attribute__((noinline)) mutex_pend_failure(struct rtb_mutex *m, OS_ERR err)
{
	if (err == OS_ERR_MUTEX_OWNER) {
		OSMutexPost(&m->u.mutex, OS_OPT_POST_NONE, &err);
		return RTB_E_DEADLOCK;
	}
	return ucos3_pend_failure(err);
}
#endif

/* The kind test is the one thing the port adds to the kernel's pend: a
 * load and a branch. */
static inline int mutex_pend(struct rtb_mutex *m, OS_OPT opt)
{
	OS_ERR err;

#if UCOS3_HAS_MUTEX
	if (m->inherit) {
		OSMutexPend(&m->u.mutex, 0u, opt, NULL, &err);
		return err == OS_ERR_NONE ? RTB_OK : mutex_pend_failure(m, err);
	}
#endif
	(void)OSSemPend(&m->u.sem, 0u, opt, NULL, &err);
	return ucos3_pend_error(err);
}

int rtb_port_mutex_lock(struct rtb_mutex *m)
{
	return mutex_pend(m, OS_OPT_PEND_BLOCKING);
}

int rtb_port_mutex_trylock(struct rtb_mutex *m)
{
	return mutex_pend(m, OS_OPT_PEND_NON_BLOCKING);
}

/* The lock without a protocol: a semaphore of count 1, where a second
 * unlock would count it up to 2. Only the holder unlocks, so nobody posts
 * between the test and the post. */
static inline int unlock_plain(struct rtb_mutex *m)
{
	OS_ERR err;

	if (m->u.sem.Ctr != 0)
		return RTB_E_PERM;
	(void)OSSemPost(&m->u.sem, OS_OPT_POST_1, &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

int rtb_port_mutex_unlock(struct rtb_mutex *m)
{
#if UCOS3_HAS_MUTEX
	if (m->inherit) {
		OS_ERR err;
		OSMutexPost(&m->u.mutex, OS_OPT_POST_NONE, &err);
		return err == OS_ERR_NONE ? RTB_OK : RTB_E_PERM; /* OS_ERR_MUTEX_NOT_OWNER */
	}
#endif
	return unlock_plain(m);
}

const char *rtb_port_mutex_mechanism(enum rtb_mutex_protocol protocol)
{
	switch (protocol) {
	case RTB_MUTEX_INHERIT:
		return UCOS3_HAS_MUTEX ? "OSMutex (uC/OS-III priority inheritance)"
				       : "none: OS_CFG_MUTEX_EN is 0 in this build (no OSMutex)";
	case RTB_MUTEX_NONE:
		return "OSSem of count 1 (no owner, no inheritance)";
	default:
		return "none: uC/OS-III has no priority ceiling protocol";
	}
}

/* ---- event flags -------------------------------------------------------------- */

#if UCOS3_HAS_EVT

struct rtb_evt {
	OS_FLAG_GRP grp;
};

int rtb_port_evt_create(struct rtb_evt **out)
{
	OS_ERR err;

	if (out == NULL)
		return RTB_E_INVALID;
	struct rtb_evt *e = rtb_port_mem_alloc(sizeof(*e));
	if (e == NULL)
		return RTB_E_NOMEM;
	rtb_memset(e, 0, sizeof(*e));
	OSFlagCreate(&e->grp, (CPU_CHAR *)"rtb", (OS_FLAGS)0, &err);
	if (err != OS_ERR_NONE) {
		rtb_port_mem_free(e);
		return RTB_E_OS;
	}
	*out = e;
	return RTB_OK;
}

int rtb_port_evt_delete(struct rtb_evt *e)
{
	OS_ERR err;

	if (e == NULL)
		return RTB_E_INVALID;
	(void)OSFlagDel(&e->grp, OS_OPT_DEL_ALWAYS, &err);
	rtb_port_mem_free(e);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

static int evt_post(struct rtb_evt *e, uint32_t bits, OS_OPT opt)
{
	OS_ERR err;

	(void)OSFlagPost(&e->grp, (OS_FLAGS)bits, opt, &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits)
{
	return evt_post(e, bits, OS_OPT_POST_FLAG_SET);
}

int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits)
{
	return evt_post(e, bits, OS_OPT_POST_FLAG_CLR);
}

int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got)
{
	OS_ERR err;

	if (bits == 0)
		return RTB_E_INVALID;
	OS_OPT opt = (mode == RTB_EVT_ALL ? OS_OPT_PEND_FLAG_SET_ALL : OS_OPT_PEND_FLAG_SET_ANY) |
		     (clear ? OS_OPT_PEND_FLAG_CONSUME : 0u) | OS_OPT_PEND_BLOCKING;
	/* The flags that satisfied the wait: those of `bits` set at the time. */
	OS_FLAGS ready = OSFlagPend(&e->grp, (OS_FLAGS)bits, 0u, opt, NULL, &err);
	if (err != OS_ERR_NONE)
		return ucos3_pend_failure(err);
	if (got != NULL)
		*got = (uint32_t)ready;
	return RTB_OK;
}

#else /* OS_CFG_FLAG_EN or OS_CFG_FLAG_DEL_EN is 0: no event flags */

int rtb_port_evt_create(struct rtb_evt **out)
{
	(void)out;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_delete(struct rtb_evt *e)
{
	(void)e;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits)
{
	(void)e;
	(void)bits;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits)
{
	(void)e;
	(void)bits;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got)
{
	(void)e;
	(void)bits;
	(void)mode;
	(void)clear;
	(void)got;
	return RTB_E_UNSUPPORTED;
}

#endif
