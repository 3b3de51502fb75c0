/* SPDX-License-Identifier: Apache-2.0 */
/* POSIX port: threads (design notes in port.c). */
#include "port_posix.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_STACK_BYTES (64 * 1024)

size_t posix_default_stack_bytes(void)
{
	return DEFAULT_STACK_BYTES < (size_t)PTHREAD_STACK_MIN ? (size_t)PTHREAD_STACK_MIN
							       : DEFAULT_STACK_BYTES;
}

enum thread_state { T_CREATED, T_RUNNING, T_EXITED };

struct rtb_thread {
	pthread_t handle;
	_Atomic pid_t tid;
	rtb_thread_fn fn;
	void *arg;
	bool gated;
	_Atomic bool deleted;
	_Atomic int state;
	sem_t gate;
	sem_t suspend;
};

static __thread struct rtb_thread *self;

static void *thread_main(void *p)
{
	struct rtb_thread *t = p;

	self = t;
	atomic_store(&t->tid, posix_gettid());
	/* Deleted before it ever ran: end here, never enter fn. */
	pthread_testcancel();
	if (t->gated) {
		while (sem_wait(&t->gate) != 0 && errno == EINTR)
			;
		if (atomic_load(&t->deleted)) {
			atomic_store(&t->state, T_EXITED);
			return NULL;
		}
	}
	atomic_store(&t->state, T_RUNNING);
	t->fn(t->arg);
	atomic_store(&t->state, T_EXITED);
	return NULL;
}

static void *preload_main(void *p)
{
	(void)p;
	pthread_exit(NULL);
}

void posix_thread_preload(void)
{
	/* glibc loads the unwinder on the first pthread_exit()/cancel; do it
	 * now so no scenario pays for a dlopen inside a timed section. */
	pthread_t th;

	if (pthread_create(&th, NULL, preload_main, NULL) == 0)
		pthread_join(th, NULL);
}

int posix_thread_tid(struct rtb_thread *t, pid_t *tid)
{
	if (t == NULL) {
		*tid = posix.main_tid;
		return RTB_OK;
	}
	/* A thread records its id as its first action. One below the caller's
	 * priority (or created suspended and never run) gets there only once
	 * the caller blocks, so after a few yields sleep in 1 ms steps (at most
	 * a second). A suspended thread stops at its gate, never in its fn. */
	for (int i = 0; i < 1000 && atomic_load(&t->tid) == 0; i++) {
		struct timespec ms = {0, 1000000};
		if (i < 10)
			sched_yield();
		else
			nanosleep(&ms, NULL);
	}
	*tid = atomic_load(&t->tid);
	return *tid != 0 ? RTB_OK : RTB_E_INVALID;
}

int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg)
{
	struct rtb_thread *t;
	pthread_attr_t pa;
	int err;

	if (out == NULL || attr == NULL || fn == NULL)
		return RTB_E_INVALID;
	int native = posix_native_prio(attr->prio);
	if (native < 0)
		return RTB_E_INVALID;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return RTB_E_NOMEM;
	t->fn = fn;
	t->arg = arg;
	t->gated = attr->start_suspended;
	sem_init(&t->gate, 0, 0);
	sem_init(&t->suspend, 0, 0);

	size_t stack = attr->stack_bytes != 0 ? attr->stack_bytes : DEFAULT_STACK_BYTES;
	if (stack < (size_t)PTHREAD_STACK_MIN)
		stack = (size_t)PTHREAD_STACK_MIN;
	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, stack);
	int pin = posix_pin_attr(&pa, attr->on_cpu ? attr->cpu : posix.cpu);
	if (pin != 0) {
		pthread_attr_destroy(&pa);
		sem_destroy(&t->gate);
		sem_destroy(&t->suspend);
		free(t);
		return pin == ENOTSUP ? RTB_E_UNSUPPORTED : RTB_E_INVALID;
	}
	pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
	if (posix.realtime) {
		struct sched_param sp = {.sched_priority = native};
		pthread_attr_setschedpolicy(&pa,
					    attr->policy == RTB_POLICY_RR ? SCHED_RR : SCHED_FIFO);
		pthread_attr_setschedparam(&pa, &sp);
	} else {
		struct sched_param sp = {.sched_priority = 0};
		pthread_attr_setschedpolicy(&pa, SCHED_OTHER);
		pthread_attr_setschedparam(&pa, &sp);
	}
	*out = t; /* visible before the thread can run (it may preempt us) */
	err = pthread_create(&t->handle, &pa, thread_main, t);
	pthread_attr_destroy(&pa);
	if (err != 0) {
		*out = NULL;
		sem_destroy(&t->gate);
		sem_destroy(&t->suspend);
		free(t);
		return posix_error(err);
	}
	return RTB_OK;
}

int rtb_port_thread_start(struct rtb_thread *t)
{
	if (t == NULL || !t->gated)
		return RTB_E_INVALID;
	return sem_post(&t->gate) == 0 ? RTB_OK : posix_error(errno);
}

struct rtb_thread *rtb_port_thread_self(void)
{
	return self;
}

void rtb_port_thread_yield(void)
{
	sched_yield();
}

static sem_t *suspend_sem(struct rtb_thread *t)
{
	return t != NULL ? &t->suspend : &posix.main_suspend;
}

int rtb_port_thread_suspend_self(void)
{
	sem_t *s = suspend_sem(self);

	while (sem_wait(s) != 0) {
		if (errno != EINTR)
			return posix_error(errno);
	}
	return RTB_OK;
}

int rtb_port_thread_suspend(struct rtb_thread *t)
{
	(void)t;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_thread_resume(struct rtb_thread *t)
{
	return sem_post(suspend_sem(t)) == 0 ? RTB_OK : posix_error(errno);
}

int rtb_port_thread_set_priority(struct rtb_thread *t, int prio)
{
	int native = posix_native_prio(prio);

	if (native < 0)
		return RTB_E_INVALID;
	if (!posix.realtime)
		return RTB_OK; /* recorded nowhere: SCHED_OTHER has no priorities */
	pthread_t th = t != NULL ? t->handle : pthread_self();
	return posix_error(pthread_setschedprio(th, native));
}

int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio)
{
	struct sched_param sp;
	int policy;
	pthread_t th = t != NULL ? t->handle : pthread_self();
	int err = pthread_getschedparam(th, &policy, &sp);

	if (err != 0)
		return posix_error(err);
	*prio = policy == SCHED_OTHER ? 0 : posix_relative_prio(sp.sched_priority);
	return RTB_OK;
}

void rtb_port_thread_exit(void)
{
	if (self != NULL)
		atomic_store(&self->state, T_EXITED);
	pthread_exit(NULL);
}

int rtb_port_thread_delete(struct rtb_thread *t)
{
	if (t == NULL)
		return RTB_E_INVALID;
	if (t->gated && atomic_load(&t->state) == T_CREATED) {
		/* Never started: let it pass its gate and return at once. */
		atomic_store(&t->deleted, true);
		sem_post(&t->gate);
	} else if (atomic_load(&t->state) != T_EXITED) {
		pthread_cancel(t->handle);
	}
	int err = pthread_join(t->handle, NULL);
	if (err != 0)
		return posix_error(err);
	sem_destroy(&t->gate);
	sem_destroy(&t->suspend);
	free(t);
	return RTB_OK;
}
