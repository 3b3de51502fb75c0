/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: the interrupt source, one of the board's hardware timers
 * per source (board.h). The board's handler, at the most urgent
 * kernel-aware priority (RTB_FW_IRQ_PRIO, rtb_fw_rtos.h), clears the timer
 * and calls rtb_fw_timer_isr(), which tells the kernel it runs in an
 * interrupt (OSIntEnter), calls the scenario's handler and leaves through
 * OSIntExit(): a post the handler made (rtb_port_sem_signal_from_irq) has
 * readied a task, and OSIntExit() switches to it when it outranks the
 * interrupted one. The target thread is not used: on one CPU the interrupt
 * preempts whatever runs.
 *
 * Periodic mode: the timer reloads itself every period (the board makes the
 * period exact). The expiries are counted from the counter when the source
 * stops: whole periods since the start, so generated is exact whatever the
 * handler saw, and lost = generated - serviced (the timer's single pending
 * bit cannot hold more than one expiry while the interrupt is masked or
 * still running). The handler itself only notes, from the counter at its
 * entry and end, whether the next expiry was already due when it ended (or
 * all but): the interrupt is then taken again at once, and no task runs in
 * between. When
 * that goes on for IRQ_STORM_NS, the period is shorter than the interrupt's
 * own path and the source would hold the CPU for good (PendSV, which
 * switches tasks, has the lowest priority): the port stops the timer, and
 * the expiries it would have raised until rtb_port_irq_stop() count as
 * lost, so that the scenario that chose the period can end.
 */
#include "port_ucos3.h"

#include "rtb/core.h"

/* Longest delay or period: 60 s, well within the 32-bit timers at 25 MHz
 * (171 s). */
#define IRQ_MAX_NS 60000000000ull
/* How long an interrupt may be taken back to back before the port stops
 * its source: 20 ticks of the OS. Back to back: the next expiry is due
 * before, or within IRQ_STORM_SLACK_NS of, the handler's last counter read;
 * the slack covers the path the counter reads do not (the board's handler
 * before, the exception's return after: some 40 instructions). */
#define IRQ_STORM_NS 20000000ull
#define IRQ_STORM_SLACK_NS 2000ull

struct rtb_irq {
	unsigned timer;
	rtb_irq_handler handler;
	void *arg;
	bool periodic;
	uint64_t period_ticks;
	uint64_t start_ticks; /* periodic: the counter when the timer started */
	uint64_t next_due;    /* periodic: the first expiry not yet behind the handler */
	uint64_t storm_since; /* periodic: back to back since then, when storm */
	bool storm;
	bool halted;	/* periodic: stopped by the port (a storm) */
	uint64_t fired; /* one-shot fires asked for */
	volatile uint64_t serviced;
};

static struct rtb_irq *volatile sources[BOARD_TIMERS];

/* At the end of a periodic interrupt: was the next expiry due already? */
static void storm_check(struct rtb_irq *irq, uint64_t entered)
{
	uint64_t now = rtb_port_counter_read();

	while (irq->next_due <= entered)
		irq->next_due += irq->period_ticks;
	if (irq->next_due > now + IRQ_STORM_SLACK_NS * BOARD_COUNTER_HZ / 1000000000ull) {
		irq->storm = false;
		return;
	}
	if (!irq->storm) {
		irq->storm = true;
		irq->storm_since = now;
	} else if (now - irq->storm_since >= IRQ_STORM_NS * BOARD_COUNTER_HZ / 1000000000ull) {
		board_timer_stop(irq->timer);
		irq->halted = true;
	}
}

void rtb_fw_timer_isr(unsigned n)
{
	struct rtb_irq *irq = n < BOARD_TIMERS ? sources[n] : NULL;
	uint64_t entered = irq != NULL && irq->periodic ? rtb_port_counter_read() : 0;

	ucos3_isr_enter();
	if (irq != NULL) {
		irq->handler(irq->arg);
		irq->serviced++;
	}
	OSIntExit();
	if (irq != NULL && irq->periodic)
		storm_check(irq, entered);
}

int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg)
{
	CPU_SR_ALLOC();

	(void)target;
	if (out == NULL || handler == NULL)
		return RTB_E_INVALID;
	struct rtb_irq *irq = rtb_port_mem_alloc(sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	rtb_memset(irq, 0, sizeof(*irq));
	irq->handler = handler;
	irq->arg = arg;
	unsigned n;
	CPU_CRITICAL_ENTER();
	for (n = 0; n < BOARD_TIMERS; n++) {
		if (sources[n] == NULL) {
			sources[n] = irq;
			break;
		}
	}
	CPU_CRITICAL_EXIT();
	if (n == BOARD_TIMERS) {
		rtb_port_mem_free(irq);
		return RTB_E_NOMEM; /* every timer of the board is in use */
	}
	irq->timer = n;
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	CPU_SR_ALLOC();

	if (irq == NULL)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	CPU_CRITICAL_ENTER();
	sources[irq->timer] = NULL;
	CPU_CRITICAL_EXIT();
	rtb_port_mem_free(irq);
	return RTB_OK;
}

/* A duration in ticks of the board's timers (at least one). */
static uint32_t timer_ticks(uint64_t ns)
{
	uint64_t ticks = ns * BOARD_COUNTER_HZ / 1000000000ull;

	return ticks == 0 ? 1u : ticks > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)ticks;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (irq == NULL || delay_ns > IRQ_MAX_NS)
		return RTB_E_INVALID;
	if (irq->periodic) {
		board_timer_stop(irq->timer);
		irq->periodic = false;
	}
	irq->fired++;
	board_timer_start(irq->timer, timer_ticks(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (irq == NULL || period_ns == 0 || period_ns > IRQ_MAX_NS)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	irq->period_ticks = timer_ticks(period_ns);
	irq->serviced = 0;
	irq->storm = false;
	irq->halted = false;
	irq->next_due = UINT64_MAX; /* until the start is known, below */
	irq->periodic = true;
	board_timer_start(irq->timer, (uint32_t)irq->period_ticks, 1);
	/* read once the timer runs: a start a few ticks early would count an
	 * expiry that has not happened yet */
	irq->start_ticks = rtb_port_counter_read();
	irq->next_due = irq->start_ticks + irq->period_ticks;
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	CPU_SR_ALLOC();

	if (irq == NULL)
		return RTB_E_INVALID;
	/* read before the timer stops, for the same reason */
	uint64_t stopped = rtb_port_counter_read();
	board_timer_stop(irq->timer);
	if (counts != NULL) {
		CPU_CRITICAL_ENTER();
		uint64_t serviced = irq->serviced;
		CPU_CRITICAL_EXIT();
		uint64_t generated = irq->fired;
		if (irq->periodic) {
			generated = (stopped - irq->start_ticks) / irq->period_ticks;
			if (generated < serviced)
				generated = serviced; /* an expiry in the last ticks before */
		}
		counts->serviced = serviced;
		counts->generated = generated;
		counts->lost = generated - serviced;
	}
	irq->periodic = false;
	return RTB_OK;
}
