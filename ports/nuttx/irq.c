/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NuttX port: the interrupt source (fw_irq.h, fw_port.h), the board's
 * timer functions (board.h) on the generic timer's virtual timer, and its
 * software line, a GIC software-generated interrupt (board_soft_raise of
 * virt-a7's board.h). NuttX owns the GIC and ticks on the physical timer
 * (its qemu-armv7a arm_timer.c), so the board's own device code
 * (ports/boards/virt-a7/board.c) is not linked: the port attaches its two
 * handlers with irq_attach and enables the timer's line with
 * up_enable_irq (a software-generated interrupt is always enabled). NuttX's
 * IRQ entry acknowledges the GIC, calls the handler and switches threads on
 * the way out when the handler made a more urgent one ready: that is the
 * bracket around the scenario's handler, which needs nothing more.
 *
 * The source itself, the table of the board's timers, the dispatch,
 * periodic mode and the counts: the same for every firmware port
 * (fw_port.h).
 */
#include <arch/irq.h>
#include <nuttx/arch.h>
#include <nuttx/irq.h>
#include <stdlib.h>

#include "fw_port.h"
#include "port_nuttx.h"

/* GIC_IRQ_VTM of NuttX's armv7-a gic.h: the virtual timer's PPI */
#define NX_TIMER_IRQ 27

static uint64_t timer_cval, timer_period;
static bool timer_periodic;

_Static_assert(BOARD_TIMERS == 1, "one timer, one software interrupt");
_Static_assert(BOARD_SOFT_IRQ(0) < 16, "a software-generated interrupt is an SGI");

/* ---- the board's timer (board.h) on the virtual timer -------------------- */

void board_timer_start(unsigned n, uint32_t ticks, int periodic)
{
	(void)n;
	if (ticks == 0)
		ticks = 1;
	ca_cntv_ctl_set(0);
	timer_periodic = periodic != 0;
	timer_period = ticks;
	timer_cval = ca_cntvct() + ticks;
	ca_cntv_cval_set(timer_cval);
	ca_cntv_ctl_set(CA_TIMER_CTL_ENABLE);
}

void board_timer_stop(unsigned n)
{
	(void)n;
	ca_cntv_ctl_set(0);
}

int board_timer_expired(unsigned n)
{
	(void)n;
	return (ca_cntv_ctl() & CA_TIMER_CTL_ISTATUS) != 0;
}

/* The next deadline one period after the last one (not after the
 * handler's start), or the timer off after a one-shot. */
static int timer_handler(int irq, void *context, void *arg)
{
	(void)irq;
	(void)context;
	(void)arg;
	if (timer_periodic) {
		timer_cval += timer_period;
		ca_cntv_cval_set(timer_cval);
	} else {
		ca_cntv_ctl_set(0);
	}
	rtb_fw_irq_dispatch(0);
	return 0;
}

RTB_FW_SOFT_ISRS(rtb_fw_irq_dispatch_soft)

static int soft_handler(int irq, void *context, void *arg)
{
	(void)irq;
	(void)context;
	(void)arg;
	rtb_fw_soft0_isr();
	return 0;
}

void nx_irq_init(void)
{
	ca_cntv_ctl_set(0);
	irq_attach(BOARD_SOFT_IRQ(0), soft_handler, NULL);
	irq_attach(NX_TIMER_IRQ, timer_handler, NULL);
	up_enable_irq(NX_TIMER_IRQ);
}

/* ---- the contract ----------------------------------------------------------- */

int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg)
{
	(void)target; /* one CPU: the interrupt preempts whatever runs */
	if (out == NULL || handler == NULL)
		return RTB_E_INVALID;
	struct rtb_irq *irq = malloc(sizeof(*irq));
	if (irq == NULL)
		return RTB_E_NOMEM;
	*irq = (struct rtb_irq){.handler = handler, .arg = arg};
	irqstate_t flags = enter_critical_section();
	bool claimed = rtb_fw_irq_claim(irq);
	leave_critical_section(flags);
	if (!claimed) {
		free(irq);
		return RTB_E_NOMEM; /* every timer of the board has a source */
	}
	*out = irq;
	return RTB_OK;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	board_timer_stop(irq->timer);
	irqstate_t flags = enter_critical_section();
	rtb_fw_irq_release(irq);
	leave_critical_section(flags);
	free(irq);
	return RTB_OK;
}

/* A fire with a delay: the board's timer, stopped first whatever its mode.
 * Out of line, so that the fire with delay 0 stays a leaf. */
static __attribute__((noinline)) int fire_later(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
	board_timer_stop(irq->timer);
	irq->count.periodic = false;
	irq->count.timer_on = true;
	irq->count.fired++;
	board_timer_start(irq->timer, rtb_fw_timer_ticks(delay_ns), 0);
	return RTB_OK;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	if (delay_ns != 0)
		return fire_later(irq, delay_ns);
	return rtb_fw_irq_fire_now(irq);
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	if (period_ns == 0 || period_ns > RTB_FW_IRQ_MAX_NS)
		return RTB_E_INVALID;
	rtb_fw_irq_start_periodic(&irq->count, irq->timer, period_ns);
	return RTB_OK;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	rtb_fw_irq_stop(&irq->count, irq->timer, counts);
	return RTB_OK;
}
