/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: threads are tasks. The port's record holds the task's
 * control block (OS_TCB) and is the task's extension pointer (ExtPtr), so
 * rtb_port_thread_self() is one load; the stack is a second block of the
 * port's allocator. A thread that ends deletes itself (OSTaskDel(NULL)): the
 * kernel forgets it at once, and rtb_port_thread_delete() then only frees
 * the memory; a thread that has not ended is deleted there first.
 */
#include "port_ucos3.h"

#include "rtb/core.h"

struct rtb_thread {
	OS_TCB tcb;
	rtb_thread_fn fn;
	void *arg;
	CPU_STK *stack;
	bool gated; /* created start_suspended, not started yet */
	bool held;  /* suspended by rtb_port_thread_suspend() */
};

/* rtb_port_thread_suspend() of the thread that called rtb_port_init(). */
static bool init_held;

static void entry(void *p)
{
	struct rtb_thread *t = p;

	t->fn(t->arg);
	rtb_port_thread_exit();
}

static void release(struct rtb_thread *t)
{
	if (t->stack != NULL)
		rtb_port_mem_free(t->stack);
	rtb_port_mem_free(t);
}

int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg)
{
	OS_ERR err, suspend_err = OS_ERR_NONE, unlock_err = OS_ERR_NONE;

	if (out == NULL || attr == NULL || fn == NULL || attr->prio < 0 ||
	    attr->prio > UCOS3_PRIO_MAX || (attr->on_cpu && attr->cpu != 0))
		return RTB_E_INVALID;
	if (attr->policy == RTB_POLICY_RR && !UCOS3_HAS_RR)
		return RTB_E_UNSUPPORTED; /* OS_CFG_SCHED_ROUND_ROBIN_EN is 0 */
	size_t bytes = attr->stack_bytes != 0 ? attr->stack_bytes : UCOS3_STACK_BYTES;
	CPU_STK_SIZE words = (CPU_STK_SIZE)((bytes + sizeof(CPU_STK) - 1) / sizeof(CPU_STK));
	if (words < OS_CFG_STK_SIZE_MIN)
		words = OS_CFG_STK_SIZE_MIN;
	struct rtb_thread *t = rtb_port_mem_alloc(sizeof(*t));
	if (t == NULL)
		return RTB_E_NOMEM;
	rtb_memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->arg = arg;
	t->gated = attr->start_suspended;
	t->stack = rtb_port_mem_alloc(words * sizeof(CPU_STK));
	if (t->stack == NULL) {
		release(t);
		return RTB_E_NOMEM;
	}
#if UCOS3_HAS_RR
	OS_TICK quantum = attr->policy == RTB_POLICY_RR ? RTB_UCOS3_RR_QUANTUM_TICKS
							: UCOS3_FIFO_QUANTUM_TICKS;
#else
	OS_TICK quantum = 0;
#endif
	OS_OPT opt = OS_CFG_STAT_TASK_STK_CHK_EN ? (OS_OPT_TASK_STK_CHK | OS_OPT_TASK_STK_CLR)
						 : OS_OPT_TASK_NONE;
	/* A gated thread is suspended before the scheduler may run it. */
	if (t->gated)
		OSSchedLock(&err);
	OSTaskCreate(&t->tcb, (CPU_CHAR *)(attr->name != NULL ? attr->name : "rtb"), entry, t,
		     UCOS3_NATIVE(attr->prio), t->stack, words / 10u, words, 0u, quantum, t, opt,
		     &err);
	if (err == OS_ERR_NONE && t->gated)
		OSTaskSuspend(&t->tcb, &suspend_err);
	if (t->gated)
		OSSchedUnlock(&unlock_err);
	if (err != OS_ERR_NONE) {
		release(t);
		return RTB_E_NOMEM;
	}
	if (suspend_err != OS_ERR_NONE)
		rtb_fw_fatal("OSTaskSuspend of a new task failed, error", suspend_err);
	*out = t;
	return RTB_OK;
}

int rtb_port_thread_start(struct rtb_thread *t)
{
	OS_ERR err;

	if (t == NULL || !t->gated)
		return RTB_E_INVALID;
	t->gated = false;
	OSTaskResume(&t->tcb, &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

struct rtb_thread *rtb_port_thread_self(void)
{
	return OSTCBCurPtr->ExtPtr;
}

void rtb_port_thread_yield(void)
{
#if UCOS3_HAS_RR
	OS_ERR err;

	OSSchedRoundRobinYield(&err); /* OS_ERR_ROUND_ROBIN_1: alone at its priority */
#else
	/* What OSSchedRoundRobinYield() does, which this build lacks: the
	 * caller, at the head of its priority's ready list, goes to its tail. */
	CPU_SR_ALLOC();

	CPU_CRITICAL_ENTER();
	OS_RDY_LIST *list = &OSRdyList[OSPrioCur];
	if (list->HeadPtr != list->TailPtr)
		OS_RdyListMoveHeadToTail(list);
	CPU_CRITICAL_EXIT();
	OSSched();
#endif
}

int rtb_port_thread_suspend_self(void)
{
	OS_ERR err;

	(void)OSTaskSemPend(0u, OS_OPT_PEND_BLOCKING, NULL, &err);
	return ucos3_pend_error(err);
}

int rtb_port_thread_suspend(struct rtb_thread *t)
{
	OS_TCB *tcb = t != NULL ? &t->tcb : ucos3_init_tcb;
	bool *held = t != NULL ? &t->held : &init_held;
	OS_ERR err;

	if (tcb == NULL || tcb == OSTCBCurPtr)
		return RTB_E_INVALID; /* rtb_port_thread_suspend_self() */
	if (*held)
		return RTB_OK;
	OSTaskSuspend(tcb, &err);
	if (err != OS_ERR_NONE)
		return RTB_E_OS;
	*held = true;
	return RTB_OK;
}

int rtb_port_thread_resume(struct rtb_thread *t)
{
	OS_TCB *tcb = t != NULL ? &t->tcb : ucos3_init_tcb;
	bool *held = t != NULL ? &t->held : &init_held;
	OS_ERR err;

	if (tcb == NULL)
		return RTB_E_INVALID;
	if (*held) {
		*held = false;
		OSTaskResume(tcb, &err);
	} else {
		(void)OSTaskSemPost(tcb, OS_OPT_POST_NONE, &err);
	}
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

int rtb_port_thread_set_priority(struct rtb_thread *t, int prio)
{
	OS_ERR err;

	if (prio < 0 || prio > UCOS3_PRIO_MAX)
		return RTB_E_INVALID;
	ucos3_change_prio(t != NULL ? &t->tcb : NULL, UCOS3_NATIVE(prio), &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio)
{
	const OS_TCB *tcb = t != NULL ? &t->tcb : OSTCBCurPtr;

	if (prio == NULL)
		return RTB_E_INVALID;
#if OS_CFG_MUTEX_EN > 0
	/* The base priority, as set: not one raised by priority inheritance. */
	*prio = UCOS3_RELATIVE(tcb->BasePrio);
#else
	*prio = UCOS3_RELATIVE(tcb->Prio);
#endif
	return RTB_OK;
}

void rtb_port_thread_exit(void)
{
	OS_ERR err;

	if (OSTCBCurPtr == ucos3_init_tcb)
		rtb_fw_fatal("the thread that called rtb_port_init() cannot end", 0);
	OSTaskDel(NULL, &err);
	rtb_fw_fatal("OSTaskDel of the calling task returned, error", err);
	for (;;)
		;
}

int rtb_port_thread_delete(struct rtb_thread *t)
{
	OS_ERR err;

	if (t == NULL || &t->tcb == OSTCBCurPtr)
		return RTB_E_INVALID;
	/* A task that ended is in state OS_TASK_STATE_DEL already; one that
	 * ends meanwhile makes OSTaskDel find that state and do nothing. */
	if (t->tcb.TaskState != OS_TASK_STATE_DEL) {
		OSTaskDel(&t->tcb, &err);
		if (err != OS_ERR_NONE && err != OS_ERR_STATE_INVALID)
			return RTB_E_OS;
	}
	release(t);
	return RTB_OK;
}
