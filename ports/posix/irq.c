/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POSIX port: the interrupt source.
 *
 * A POSIX timer on CLOCK_MONOTONIC sends a real-time signal to one thread
 * (SIGEV_THREAD_ID). The signal handler is the interrupt handler. Each
 * source owns one real-time signal number, so up to IRQ_MAX sources exist at
 * once. Loss counting in periodic mode: the kernel keeps one signal pending
 * per timer and counts further expirations as overruns, which the handler
 * reads with timer_getoverrun() (async-signal-safe); so
 * generated = serviced + lost for every expiration up to the last delivered
 * signal.
 *
 * Stopping periodic mode is graceful: rtb_port_irq_stop() asks the handler
 * to disarm the timer itself, right after it has serviced an interrupt and
 * read that signal's overruns, and takes the counts there. Disarming from
 * another thread instead would catch a signal still pending now and then;
 * recent Linux kernels discard the pending signal of a timer that is
 * reprogrammed, and with it the expirations it stood for, which would then
 * be neither serviced nor lost (seen on 6.18). Only if no interrupt arrives within a bound (a
 * long period, a target that cannot run) does the caller disarm it. Then,
 * and for one-shot fires, rtb_port_irq_stop() waits (bounded) until the
 * target thread has no pending signal of this source.
 */
#include "port_posix.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IRQ_MAX 8

struct rtb_irq {
	timer_t timer;
	int signo;
	int slot;
	pid_t target;
	rtb_irq_handler handler;
	void *arg;
	bool periodic;
	uint64_t period_ns;
	_Atomic uint64_t serviced;
	_Atomic uint64_t lost;
	uint64_t generated_once;     /* one-shot fires requested */
	_Atomic bool stop_requested; /* periodic: the handler disarms at its next run */
	_Atomic bool stopped;	     /* the handler has disarmed; final_* are valid */
	uint64_t final_serviced;     /* counts when the handler disarmed */
	uint64_t final_lost;
};

static struct rtb_irq *_Atomic slots[IRQ_MAX];

static int arm(struct rtb_irq *irq, uint64_t first_ns, uint64_t period_ns);

static void on_signal(int signo, siginfo_t *si, void *uc)
{
	struct rtb_irq *irq = si->si_value.sival_ptr;

	(void)uc;
	(void)signo;
	if (irq == NULL)
		return;
	irq->handler(irq->arg);
	if (irq->periodic) {
		int over = timer_getoverrun(irq->timer);
		if (over > 0)
			atomic_fetch_add_explicit(&irq->lost, (uint64_t)over, memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&irq->serviced, 1, memory_order_relaxed);
	if (irq->periodic && atomic_load_explicit(&irq->stop_requested, memory_order_acquire) &&
	    !atomic_load_explicit(&irq->stopped, memory_order_relaxed)) {
		/* timer_settime() and timer_getoverrun() are async-signal-safe */
		arm(irq, 0, 0);
		irq->final_serviced = atomic_load_explicit(&irq->serviced, memory_order_relaxed);
		irq->final_lost = atomic_load_explicit(&irq->lost, memory_order_relaxed);
		atomic_store_explicit(&irq->stopped, true, memory_order_release);
	}
}

int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg)
{
	if (out == NULL || handler == NULL)
		return RTB_E_INVALID;
	struct rtb_irq *irq = calloc(1, sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	irq->handler = handler;
	irq->arg = arg;
	int rc = posix_thread_tid(target, &irq->target);
	if (rc != RTB_OK) {
		free(irq);
		return rc;
	}
	irq->slot = -1;
	for (int i = 0; i < IRQ_MAX; i++) {
		struct rtb_irq *expected = NULL;
		if (atomic_compare_exchange_strong(&slots[i], &expected, irq)) {
			irq->slot = i;
			break;
		}
	}
	if (irq->slot < 0) {
		free(irq);
		return RTB_E_NOMEM;
	}
	irq->signo = SIGRTMIN + 2 + irq->slot;
	if (irq->signo > SIGRTMAX) {
		atomic_store(&slots[irq->slot], NULL);
		free(irq);
		return RTB_E_NOMEM;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(irq->signo, &sa, NULL);

	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = irq->signo;
	sev.sigev_value.sival_ptr = irq;
#ifdef sigev_notify_thread_id
	sev.sigev_notify_thread_id = irq->target; /* musl, glibc from 2.35 */
#else
	sev._sigev_un._tid = irq->target;
#endif
	if (timer_create(CLOCK_MONOTONIC, &sev, &irq->timer) != 0) {
		int err = errno;
		atomic_store(&slots[irq->slot], NULL);
		free(irq);
		return posix_error(err);
	}
	*out = irq;
	return RTB_OK;
}

static int arm(struct rtb_irq *irq, uint64_t first_ns, uint64_t period_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(first_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(first_ns % 1000000000u);
	its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
	return timer_settime(irq->timer, 0, &its, NULL) == 0 ? RTB_OK : posix_error(errno);
}

/* Is signo pending for thread tid? Reads /proc (never from a handler). */
static bool signal_pending(pid_t tid, int signo)
{
	char path[64], line[256];
	bool pending = false;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false; /* thread gone: nothing can be delivered any more */
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "SigPnd:", 7) == 0) {
			unsigned long long mask = strtoull(line + 7, NULL, 16);
			pending = (mask >> (signo - 1)) & 1u;
			break;
		}
	}
	fclose(f);
	return pending;
}

static void drain(struct rtb_irq *irq)
{
	/* On the target thread itself a pending signal is delivered on the
	 * way back from the disarming system call; elsewhere wait for it. */
	if (posix_gettid() == irq->target)
		return;
	for (int i = 0; i < 200 && signal_pending(irq->target, irq->signo); i++) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (irq == NULL)
		return RTB_E_INVALID;
	irq->periodic = false;
	irq->generated_once++;
	/* it_value 0 would disarm; one nanosecond means "as soon as possible". */
	return arm(irq, delay_ns > 0 ? delay_ns : 1, 0);
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (irq == NULL || period_ns == 0)
		return RTB_E_INVALID;
	atomic_store(&irq->serviced, 0);
	atomic_store(&irq->lost, 0);
	atomic_store(&irq->stop_requested, false);
	atomic_store(&irq->stopped, false);
	irq->generated_once = 0;
	irq->period_ns = period_ns;
	irq->periodic = true;
	return arm(irq, period_ns, period_ns);
}

/* Ask the handler to disarm at its next run; true if it did in time. */
static bool stop_in_handler(struct rtb_irq *irq)
{
	/* A few periods, at least 20 ms (scheduling noise), at most 1 s. */
	uint64_t wait_ns = irq->period_ns < 250000000u ? 4 * irq->period_ns : 1000000000u;
	wait_ns = wait_ns < 20000000u ? 20000000u : wait_ns;
	unsigned long long end = posix_now_ns() + wait_ns;

	atomic_store_explicit(&irq->stop_requested, true, memory_order_release);
	while (!atomic_load_explicit(&irq->stopped, memory_order_acquire)) {
		if (posix_now_ns() >= end)
			return false;
		/* Sleeping also lets the signal in when the caller is the target. */
		struct timespec pause = {0, 50000};
		nanosleep(&pause, NULL);
	}
	return true;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	int rc = RTB_OK;

	if (irq == NULL)
		return RTB_E_INVALID;
	bool graceful = irq->periodic && stop_in_handler(irq);
	if (!graceful)
		rc = arm(irq, 0, 0);
	drain(irq);
	if (counts != NULL) {
		if (graceful) {
			counts->serviced = irq->final_serviced;
			counts->lost = irq->final_lost;
		} else {
			counts->serviced = atomic_load(&irq->serviced);
			counts->lost = irq->periodic ? atomic_load(&irq->lost) : 0;
		}
		counts->generated =
			irq->periodic ? counts->serviced + counts->lost : irq->generated_once;
		if (!irq->periodic && counts->generated > counts->serviced)
			counts->lost = counts->generated - counts->serviced;
	}
	return rc;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	if (irq == NULL)
		return RTB_E_INVALID;
	arm(irq, 0, 0);
	drain(irq);
	/* Ignoring the signal also discards one still pending, so the handler
	 * can never see this source after it is freed. */
	signal(irq->signo, SIG_IGN);
	timer_delete(irq->timer);
	atomic_store(&slots[irq->slot], NULL);
	free(irq);
	return RTB_OK;
}
