/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: threads. A port thread is one block of the byte pool: its
 * record, which begins with the ThreadX control block, then its stack. A
 * thread is recognised as the port's by its entry function (the console
 * and runner threads are not, so rtb_port_thread_self() is NULL there).
 *
 * Suspend and resume are ThreadX's own, plus a count of resumes that came
 * while the thread was not suspended, so that such a resume is remembered
 * as the contract asks. The count is read and the thread suspended with
 * interrupts masked: no other thread and no handler can run between the
 * two. ThreadX's Cortex-M port takes the pended switch (PendSV) when the
 * mask is lifted (inside the service, which opens the mask for that, or at
 * the port's restore); its Cortex-A port switches inside the service
 * (_tx_thread_system_return), the mask saved with the thread's context.
 */
#include "port_threadx.h"

#include "fw_arch.h"
#include "rtb/core.h"

struct rtb_thread {
	TX_THREAD tx; /* first: the record is found from tx_thread_identify() */
	rtb_thread_fn fn;
	void *arg;
	uint32_t resumes; /* resumes not yet consumed; under the interrupt mask */
	bool started;	  /* false while created TX_DONT_START and not started */
	char name[16];
};

#define RECORD_BYTES ((sizeof(struct rtb_thread) + 7u) & ~(size_t)7u)

static void trampoline(ULONG arg)
{
	struct rtb_thread *t = (struct rtb_thread *)(uintptr_t)arg;

	TXP_THREAD_START();
	t->fn(t->arg);
	rtb_port_thread_exit();
}

int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg)
{
	if (out == NULL || attr == NULL || fn == NULL || attr->prio < 0 ||
	    attr->prio > TXP_PRIO_MAX)
		return RTB_E_INVALID;
	if (attr->on_cpu && attr->cpu != 0)
		return RTB_E_INVALID;
	size_t stack = attr->stack_bytes != 0 ? attr->stack_bytes : TXP_STACK_BYTES;
	if (stack < TX_MINIMUM_STACK)
		stack = TX_MINIMUM_STACK;
	stack = (stack + 7u) & ~(size_t)7u;
	struct rtb_thread *t = txp_alloc(RECORD_BYTES + stack);
	if (t == NULL)
		return RTB_E_NOMEM;
	rtb_memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->arg = arg;
	t->started = !attr->start_suspended;
	rtb_fmt(t->name, sizeof(t->name), "%s", attr->name != NULL ? attr->name : "rtb");
	/* Complete before the create: a more urgent thread runs inside it. */
	*out = t;
	UINT native = TXP_NATIVE(attr->prio);
	UINT rc = tx_thread_create(&t->tx, t->name, trampoline, (ULONG)(uintptr_t)t,
				   (uint8_t *)t + RECORD_BYTES, (ULONG)stack, native, native,
				   attr->policy == RTB_POLICY_RR ? RTB_THREADX_RR_SLICE_TICKS
								 : TX_NO_TIME_SLICE,
				   attr->start_suspended ? TX_DONT_START : TX_AUTO_START);
	if (rc != TX_SUCCESS) {
		*out = NULL;
		txp_free(t);
		return RTB_E_OS;
	}
	return RTB_OK;
}

int rtb_port_thread_start(struct rtb_thread *t)
{
	if (t == NULL || t->started)
		return RTB_E_INVALID;
	uint32_t m = rtb_fw_irq_save();
	t->started = true;
	UINT rc = tx_thread_resume(&t->tx);
	rtb_fw_irq_restore(m);
	return rc == TX_SUCCESS ? RTB_OK : RTB_E_OS;
}

static struct rtb_thread *record_of(TX_THREAD *tx)
{
	if (tx == TX_NULL || tx->tx_thread_entry != trampoline)
		return NULL;
	return (struct rtb_thread *)(void *)tx;
}

struct rtb_thread *rtb_port_thread_self(void)
{
	return record_of(tx_thread_identify());
}

void rtb_port_thread_yield(void)
{
	tx_thread_relinquish();
}

int rtb_port_thread_suspend_self(void)
{
	struct rtb_thread *t = rtb_port_thread_self();

	if (t == NULL)
		return RTB_E_INVALID; /* nobody could resume it */
	uint32_t m = rtb_fw_irq_save();
	if (t->resumes > 0) {
		t->resumes--;
	} else if (tx_thread_suspend(&t->tx) != TX_SUCCESS) {
		rtb_fw_irq_restore(m);
		return RTB_E_OS;
	}
	rtb_fw_irq_restore(m);
	return RTB_OK;
}

int rtb_port_thread_suspend(struct rtb_thread *t)
{
	if (t == NULL)
		return RTB_E_INVALID;
	return tx_thread_suspend(&t->tx) == TX_SUCCESS ? RTB_OK : RTB_E_OS;
}

int rtb_port_thread_resume(struct rtb_thread *t)
{
	UINT rc = TX_SUCCESS;

	if (t == NULL)
		return RTB_E_INVALID;
	uint32_t m = rtb_fw_irq_save();
	/* Suspended (or to be, once its current wait ends: a delayed
	 * suspension), and started: resume it. Otherwise remember. */
	if (t->started &&
	    (t->tx.tx_thread_state == TX_SUSPENDED || t->tx.tx_thread_delayed_suspend != TX_FALSE))
		rc = tx_thread_resume(&t->tx);
	else
		t->resumes++;
	rtb_fw_irq_restore(m);
	return rc == TX_SUCCESS || rc == TX_SUSPEND_LIFTED ? RTB_OK : RTB_E_OS;
}

static TX_THREAD *tx_of(struct rtb_thread *t)
{
	return t != NULL ? &t->tx : tx_thread_identify();
}

int rtb_port_thread_set_priority(struct rtb_thread *t, int prio)
{
	UINT old;

	if (prio < 0 || prio > TXP_PRIO_MAX)
		return RTB_E_INVALID;
	return tx_thread_priority_change(tx_of(t), TXP_NATIVE(prio), &old) == TX_SUCCESS ? RTB_OK
											 : RTB_E_OS;
}

int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio)
{
	/* The priority as set, not one raised by priority inheritance. */
	int p = TXP_RELATIVE(tx_of(t)->tx_thread_user_priority);

	*prio = p < 0 ? 0 : p > TXP_PRIO_MAX ? TXP_PRIO_MAX : p;
	return RTB_OK;
}

void rtb_port_thread_exit(void)
{
	tx_thread_terminate(tx_thread_identify());
	for (;;) /* not reached: a terminated thread never runs again */
		rtb_fw_fatal("a terminated ThreadX thread ran", 0);
}

int rtb_port_thread_delete(struct rtb_thread *t)
{
	if (t == NULL || &t->tx == tx_thread_identify())
		return RTB_E_INVALID;
	/* A thread blocked in a port call, or never started, is terminated
	 * first (ThreadX takes it off any wait and releases its mutexes). */
	if (t->tx.tx_thread_state != TX_COMPLETED && t->tx.tx_thread_state != TX_TERMINATED)
		tx_thread_terminate(&t->tx);
	if (tx_thread_delete(&t->tx) != TX_SUCCESS)
		return RTB_E_BUSY;
	txp_free(t);
	return RTB_OK;
}
