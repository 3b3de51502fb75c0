/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every firmware port shares, on every board and architecture, written
 * once (the architecture's part comes from its fw_arch.h):
 *
 * - the board's facts in the port's rtb_port_info (its CPU, its counter,
 *   its interrupt source), set by RTB_FW_BOARD_INFO in the port's
 *   initializer and by rtb_fw_port_info_init() from rtb_port_init();
 * - the interrupt source (struct rtb_irq: one board timer per source, and
 *   the board's spare interrupt line BOARD_SOFT_IRQ(n) beside timer n): the
 *   table of which source each timer serves, the dispatch from timer n's
 *   interrupt and from its software line's to the scenario's handler,
 *   periodic mode, and the counts: the one-shot requests, the interrupts
 *   served, and a periodic source's expiries, counted from the counter. The
 *   port's rtb_port_irq_*() map the contract onto it with its OS's allocator
 *   and critical section, and its rtb_fw_timer_isr() and software line
 *   handlers are rtb_fw_irq_dispatch() and rtb_fw_irq_dispatch_soft() where the OS
 *   needs nothing around the scenario's handler, else its own bracket
 *   around them;
 * - a fire with delay 0 (fw_irq.h: rtb_fw_irq_fire_now, which the ports'
 *   rtb_port_inline.h give the core as rtb_port_irq_fire_now): the firing
 *   thread raises the source's software line, and the line's handler
 *   (the port's rtb_fw_soft<n>_isr) runs the one-shot path.
 *
 * Periodic mode: the timer reloads itself every period (the board makes the
 * period exact). The expiries are counted from the counter when the source
 * stops: whole periods since the start, so generated is exact whatever the
 * handler saw, and lost = generated - serviced (the timer's single pending
 * bit cannot hold more than one expiry while the interrupt is masked or
 * still running). The handler itself notes, as its last action, whether the
 * next interrupt follows it at once: the timer has expired again since the
 * board's handler cleared it (the interrupt is pending again), or expires
 * within the few instructions left to the handler's exit. Then no task runs
 * in between. When that goes on for RTB_FW_IRQ_STORM_NS, the period is
 * shorter than the interrupt's own path and the source would hold the CPU
 * for good (the exception that switches tasks has the lowest priority): the
 * source's timer is stopped, and the expiries it would have raised until
 * the source stops count as lost, so that the scenario that chose the
 * period can end.
 *
 * The handler of timer n hands a periodic interrupt to rtb_fw_irq_periodic();
 * its one-shot path is the source's look-up, the scenario's handler, then
 * count.serviced++, the few instructions the latency scenarios measure:
 * inline (rtb_fw_irq_dispatch), never a call more. The handler of software
 * line n (rtb_fw_irq_dispatch_soft) is that one-shot path alone.
 */
#ifndef RTB_FW_PORT_H
#define RTB_FW_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "fw_arch.h"
#include "fw_irq.h"
#include "rtb_port.h"

/* ---- the board's facts ---------------------------------------------------- */

/* The members of struct rtb_port_info that are the board's, for the port's
 * initializer. `bracket` is what the RTOS wraps around the scenario's
 * handler, as words between commas (", bracketed by X/Y,"), or "". */
#define RTB_FW_BOARD_INFO(bracket)                                                              \
	.arch = BOARD_CPU, .counter = RTB_FW_COUNTER_NAME, .counter_note = RTB_FW_COUNTER_NOTE, \
	.irq_source = BOARD_IRQ_SOURCE " whose interrupt handler" bracket                       \
				       " calls the scenario's handler",                         \
	.irq_name = BOARD_IRQ_NAME, .counter_hz = RTB_FW_COUNTER_HZ_BUILT,                      \
	.counter_step_ticks = 0, .cpu = 0, .cpu_count = BOARD_CPU_COUNT, .degraded = ""

/* The board's part of rtb_port_init(), inline: a run's timeline starts on
 * a tick boundary before rtb_port_init(), so its instructions count in every
 * figure under QEMU's -icount.
 *
 * Is the CPU asked for the board's? If not, info->degraded says why. */
static inline bool rtb_fw_port_cpu_ok(struct rtb_port_info *info, const struct rtb_port_config *cfg)
{
	if (cfg != NULL && cfg->cpu > 0) {
		info->degraded = "the board has one CPU, 0";
		return false;
	}
	info->degraded = "";
	return true;
}

/* The counter's frequency: the one given, else the board's. */
static inline uint64_t rtb_fw_counter_hz(const struct rtb_port_config *cfg)
{
	return cfg != NULL && cfg->counter_hz != 0 ? cfg->counter_hz : RTB_FW_COUNTER_HZ;
}

/* ---- the interrupt source's counts ---------------------------------------- */

/* How long an interrupt may be taken back to back before its timer is
 * stopped: 20 ms, 20 ticks of every port's OS. Back to back: when the
 * handler ends, the timer has already expired again (pending: the board's
 * handler cleared it on entry, so this is exact up to the check, wherever
 * in the handler the expiry fell), or its next expiry is due within
 * RTB_FW_IRQ_STORM_SLACK_NS of the check's counter read. The slack covers
 * only the path from that read to the exception's return (the flag's read,
 * the sums, the returns: some 30 instructions, 1 us under -icount shift=5):
 * an expiry after the flag's read is seen through the slack alone. */
#define RTB_FW_IRQ_STORM_NS 20000000ull
#define RTB_FW_IRQ_STORM_SLACK_NS 2000ull

/* The longest delay or period: 60 s, within the boards' 32-bit timer
 * periods (171 s at 25 MHz, 68 s at 62.5 MHz), and ns * BOARD_TIMER_HZ
 * within 64 bits. */
#define RTB_FW_IRQ_MAX_NS 60000000000ull

/* A duration in ticks of the board's timers: at least one, at most 32 bits. */
static inline uint32_t rtb_fw_timer_ticks(uint64_t ns)
{
	uint64_t t = ns * BOARD_TIMER_HZ / 1000000000ull;

	return t == 0 ? 1u : t > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)t;
}

/* Timer n periodic every period_ns (at most RTB_FW_IRQ_MAX_NS, checked by
 * the caller), the counts from zero. A one-shot fire stays with the port:
 * it sets periodic false and counts one more in fired. */
void rtb_fw_irq_start_periodic(struct rtb_fw_irq_count *c, unsigned n, uint64_t period_ns);
/* Stop timer n; the counts, when asked for. (A fire with delay 0 is taken
 * before it returns, unless the caller masks interrupts: nothing of it is
 * left to withdraw.) */
void rtb_fw_irq_stop(struct rtb_fw_irq_count *c, unsigned n, struct rtb_irq_counts *counts);

/* The handler of timer n when periodic: the scenario's handler, the
 * interrupt counted, and the storm check. For a port whose RTOS needs
 * nothing around the handler; one that brackets it counts the interrupt
 * served inside its bracket and calls rtb_fw_irq_served() last. */
void rtb_fw_irq_periodic(struct rtb_fw_irq_count *c, unsigned n, rtb_irq_handler handler,
			 void *arg);
/* Last thing in the handler of timer n when periodic: does the next
 * interrupt follow at once, leaving no instruction to the tasks (above)? */
static inline void rtb_fw_irq_served(struct rtb_fw_irq_count *c, unsigned n)
{
	uint64_t now = rtb_port_counter_read();
	/* read after the counter: an expiry between the two is seen here */
	bool pending = board_timer_expired(n) != 0;

	while (c->next_due <= now)
		c->next_due += c->period_ticks;
	if (!pending && c->next_due > now + RTB_FW_NS_TO_COUNTER(RTB_FW_IRQ_STORM_SLACK_NS)) {
		c->storm = false;
		return;
	}
	if (!c->storm) {
		c->storm = true;
		c->storm_since = now;
	} else if (now - c->storm_since >= RTB_FW_NS_TO_COUNTER(RTB_FW_IRQ_STORM_NS)) {
		board_timer_stop(n);
		c->halted = true;
	}
}

/* rtb_port_property() of every firmware port, for the keys of the interrupt
 * source ("irq_now", "irq_now_name"); RTB_E_UNSUPPORTED for any other. */
int rtb_fw_irq_property(const char *key, char *buf, size_t len);

/* ---- the interrupt sources ------------------------------------------------ */

/* The source each board timer serves, NULL for none: written by the port's
 * create and delete under its OS's critical section (rtb_fw_irq_claim,
 * rtb_fw_irq_release), read by the timers' handlers and the software
 * lines', indexed with the board's own n (0 .. BOARD_TIMERS - 1). */
extern struct rtb_irq *volatile rtb_fw_irq_sources[BOARD_TIMERS];

/* With the port's critical section held: the first free timer for irq
 * (irq->timer); false when every timer has a source. */
static inline bool rtb_fw_irq_claim(struct rtb_irq *irq)
{
	unsigned n = 0;

	while (n < BOARD_TIMERS && rtb_fw_irq_sources[n] != NULL)
		n++;
	if (n == BOARD_TIMERS)
		return false;
	rtb_fw_irq_sources[n] = irq;
	irq->timer = n;
	irq->soft_word = RTB_FW_SOFT_WORD(n);
	return true;
}

/* With the port's critical section held: irq's timer serves no source. The
 * port stops the timer first (board_timer_stop). */
static inline void rtb_fw_irq_release(struct rtb_irq *irq)
{
	rtb_fw_irq_sources[irq->timer] = NULL;
}

/* The handler of timer n for an RTOS that needs nothing around the
 * scenario's handler: the port's rtb_fw_timer_isr() is this alone. */
static inline void rtb_fw_irq_dispatch(unsigned n)
{
	struct rtb_irq *irq = rtb_fw_irq_sources[n];

	if (irq == NULL)
		return;
	if (irq->count.periodic) {
		rtb_fw_irq_periodic(&irq->count, n, irq->handler, irq->arg);
		return;
	}
	irq->handler(irq->arg);
	irq->count.serviced++;
}

/* The handler of source n's software line, for an RTOS that needs nothing
 * around the scenario's handler: the port's rtb_fw_soft<n>_isr() is this
 * alone (RTB_FW_SOFT_ISRS, below). Only a fire with delay 0 raises the line, and that fire took the
 * source out of periodic mode: the one-shot path, without the test. */
static inline void rtb_fw_irq_dispatch_soft(unsigned n)
{
	struct rtb_irq *irq = rtb_fw_irq_sources[n];

	if (irq == NULL)
		return;
	irq->handler(irq->arg);
	irq->count.serviced++;
}

/* The handlers of the board's software lines (board.h: rtb_fw_soft0_isr(),
 * and rtb_fw_soft1_isr() on a board with two sources), for the port's
 * irq.c: each is body(n) with its own n, a constant, so that the source's
 * look-up is one load. */
#if BOARD_TIMERS == 1
#define RTB_FW_SOFT_ISRS(body)      \
	void rtb_fw_soft0_isr(void) \
	{                           \
		body(0);            \
	}
#elif BOARD_TIMERS == 2
#define RTB_FW_SOFT_ISRS(body)      \
	void rtb_fw_soft0_isr(void) \
	{                           \
		body(0);            \
	}                           \
	void rtb_fw_soft1_isr(void) \
	{                           \
		body(1);            \
	}
#else
#error "RTB_FW_SOFT_ISRS knows boards of one and two interrupt sources"
#endif

#endif /* RTB_FW_PORT_H */
