/* SPDX-License-Identifier: Apache-2.0 */
/* NuttX port: threads, pthreads under SCHED_FIFO or SCHED_RR (design notes
 * in port.c). */
#include <errno.h>
#include <stdlib.h>

#include "port_nuttx.h"

enum thread_state { T_CREATED, T_RUNNING, T_EXITED };

struct rtb_thread {
	pthread_t handle;
	rtb_thread_fn fn;
	void *arg;
	bool gated;
	volatile bool deleted;
	volatile int state;
	sem_t gate;
	sem_t suspend;
};

static pthread_key_t self_key;
static sem_t main_suspend; /* suspend_self() of the thread that called rtb_port_init() */

void nx_thread_init(void)
{
	pthread_key_create(&self_key, NULL);
	nx_signal_sem_init(&main_suspend, 0);
}

static void *thread_main(void *p)
{
	struct rtb_thread *t = p;

	pthread_setspecific(self_key, t);
	/* a delete ends the thread wherever it is blocked, in a call that is
	 * not a cancellation point too (a mutex's lock) */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	if (t->gated) {
		while (sem_wait(&t->gate) != 0 && errno == EINTR)
			;
		if (t->deleted) {
			t->state = T_EXITED;
			return NULL;
		}
	}
	t->state = T_RUNNING;
	t->fn(t->arg);
	t->state = T_EXITED;
	return NULL;
}

static void thread_free(struct rtb_thread *t)
{
	sem_destroy(&t->gate);
	sem_destroy(&t->suspend);
	free(t);
}

int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg)
{
	pthread_attr_t pa;
	struct sched_param sp;

	if (out == NULL || attr == NULL || fn == NULL)
		return RTB_E_INVALID;
	if (attr->on_cpu && attr->cpu != 0)
		return RTB_E_INVALID; /* one CPU */
	int native = posix_native_prio(attr->prio);
	if (native < 0)
		return RTB_E_INVALID;
	struct rtb_thread *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return RTB_E_NOMEM;
	t->fn = fn;
	t->arg = arg;
	t->gated = attr->start_suspended;
	nx_signal_sem_init(&t->gate, 0);
	nx_signal_sem_init(&t->suspend, 0);

	size_t stack = attr->stack_bytes != 0 ? attr->stack_bytes : NX_STACK_BYTES;
	if (stack < PTHREAD_STACK_MIN)
		stack = PTHREAD_STACK_MIN;
	pthread_attr_init(&pa);
	pthread_attr_setstacksize(&pa, stack);
	pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&pa, attr->policy == RTB_POLICY_RR ? SCHED_RR : SCHED_FIFO);
	sp.sched_priority = native;
	pthread_attr_setschedparam(&pa, &sp);
	*out = t; /* visible before the thread can run (it may preempt us) */
	int err = pthread_create(&t->handle, &pa, thread_main, t);
	pthread_attr_destroy(&pa);
	if (err != 0) {
		*out = NULL;
		thread_free(t);
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
	return pthread_getspecific(self_key);
}

void rtb_port_thread_yield(void)
{
	sched_yield();
}

static sem_t *suspend_sem(struct rtb_thread *t)
{
	return t != NULL ? &t->suspend : &main_suspend;
}

int rtb_port_thread_suspend_self(void)
{
	sem_t *s = suspend_sem(rtb_port_thread_self());

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
	return posix_error(pthread_setschedprio(t != NULL ? t->handle : pthread_self(), native));
}

int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio)
{
	struct sched_param sp;
	int policy;
	int err = pthread_getschedparam(t != NULL ? t->handle : pthread_self(), &policy, &sp);

	if (err != 0)
		return posix_error(err);
	*prio = posix_relative_prio(sp.sched_priority);
	return RTB_OK;
}

void rtb_port_thread_exit(void)
{
	struct rtb_thread *self = rtb_port_thread_self();

	if (self != NULL)
		self->state = T_EXITED;
	pthread_exit(NULL);
}

int rtb_port_thread_delete(struct rtb_thread *t)
{
	if (t == NULL)
		return RTB_E_INVALID;
	if (t->gated && t->state == T_CREATED) {
		/* never started: let it pass its gate and return at once */
		t->deleted = true;
		sem_post(&t->gate);
	} else if (t->state != T_EXITED) {
		pthread_cancel(t->handle);
	}
	int err = pthread_join(t->handle, NULL);
	if (err != 0)
		return posix_error(err);
	thread_free(t);
	return RTB_OK;
}
