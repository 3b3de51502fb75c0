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
 * generated = serviced + lost exactly, once the last pending signal has been
 * delivered. rtb_port_irq_stop() disarms the timer and waits (bounded) until
 * the target thread has no pending signal of this source.
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
	_Atomic uint64_t serviced;
	_Atomic uint64_t lost;
	uint64_t generated_once; /* one-shot fires requested */
};

static struct rtb_irq *_Atomic slots[IRQ_MAX];

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
	sev._sigev_un._tid = irq->target;
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
	irq->generated_once = 0;
	irq->periodic = true;
	return arm(irq, period_ns, period_ns);
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	if (irq == NULL)
		return RTB_E_INVALID;
	int rc = arm(irq, 0, 0);
	drain(irq);
	if (counts != NULL) {
		counts->serviced = atomic_load(&irq->serviced);
		counts->lost = irq->periodic ? atomic_load(&irq->lost) : 0;
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
