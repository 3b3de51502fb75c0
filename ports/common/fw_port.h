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
 *   interrupt (and from its software line's) to the scenario's handler,
 *   periodic mode, and the counts: the one-shot requests, the interrupts
 *   served, and a periodic source's expiries, counted from the counter. The
 *   port's rtb_port_irq_*() map the contract onto it with its OS's allocator
 *   and critical section, and its rtb_fw_timer_isr() is rtb_fw_irq_dispatch()
 *   where the OS needs nothing around the scenario's handler, else its own
 *   bracket around it;
 * - a fire with delay 0 (rtb_fw_irq_fire_now): the firing thread raises the
 *   source's software line (the architecture's rtb_fw_soft_raise: set pending
 *   in the NVIC, a software-generated interrupt of the GIC), the way an RTOS application
 *   raises an interrupt from software (Thread-Metric's interrupt tests trap
 *   with SVC for the same purpose), so the handler runs before the fire
 *   returns; no timer is stopped or started on that path. A fire with a
 *   delay, and periodic mode, keep the board's timer: there the hardware
 *   event is the point (latency from an expiry, sustained rates).
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
 * inline (rtb_fw_irq_dispatch), never a call more.
 */
#ifndef RTB_FW_PORT_H
#define RTB_FW_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "fw_arch.h"
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

struct rtb_fw_irq_count {
	bool periodic;
	uint64_t fired; /* one-shot fires asked for */
	volatile uint64_t serviced;
	uint64_t period_ticks; /* periodic: the timer's period, in counter ticks */
	uint64_t start_ticks;  /* periodic: the counter when the timer started */
	uint64_t next_due;     /* periodic: the first expiry after the last check */
	uint64_t storm_since;  /* periodic: back to back since then, when storm */
	bool storm;
	bool halted; /* periodic: the timer stopped by the storm check */
	bool armed;  /* one-shot: a fire with a delay started the timer */
};

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

/* The contract's interrupt source on every firmware port: board timer
 * `timer`, the scenario's handler and its argument, the counts. */
struct rtb_irq {
	unsigned timer;
	rtb_irq_handler handler;
	void *arg;
	struct rtb_fw_irq_count count;
	uint32_t soft_word; /* what raises its software line (RTB_FW_SOFT_WORD) */
};

/* The source each board timer serves, NULL for none: written by the port's
 * create and delete under its OS's critical section (rtb_fw_irq_claim,
 * rtb_fw_irq_release), read by the timers' handlers. */
extern struct rtb_irq *volatile rtb_fw_irq_sources[BOARD_TIMERS];

/* The source of timer n, or NULL. A macro: as an inline function, its NULL
 * return reads to GCC as the unlikely case, and in a handler that brackets
 * the scenario's (uC/OS-III's) the one-shot path was laid out one branch
 * longer. */
#define RTB_FW_IRQ_SOURCE(n) ((n) < BOARD_TIMERS ? rtb_fw_irq_sources[n] : NULL)

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

/* Stop the timer of a source that a delayed fire armed or that is
 * periodic: out of line, so that a fire with delay 0 on a source whose timer
 * is idle (the usual case) makes no call. */
void rtb_fw_irq_disarm(struct rtb_irq *irq);

/* A fire with delay 0: stop the source's timer if a delayed fire or periodic
 * mode may still raise it (the contract: this fire replaces those), count
 * the request, and raise the source's software line. Inline, a leaf: these
 * few instructions are what tm.irq measures of the raise. */
static inline int rtb_fw_irq_fire_now(struct rtb_irq *irq)
{
	if (__builtin_expect(irq->count.armed | irq->count.periodic, 0))
		rtb_fw_irq_disarm(irq);
	irq->count.fired++;
	rtb_fw_soft_raise(irq->soft_word);
	return RTB_OK;
}

/* The handler of timer n for an RTOS that needs nothing around the
 * scenario's handler: the port's rtb_fw_timer_isr() is this alone. */
static inline void rtb_fw_irq_dispatch(unsigned n)
{
	struct rtb_irq *irq = RTB_FW_IRQ_SOURCE(n);

	if (irq == NULL)
		return;
	if (irq->count.periodic) {
		rtb_fw_irq_periodic(&irq->count, n, irq->handler, irq->arg);
		return;
	}
	irq->handler(irq->arg);
	irq->count.serviced++;
}

#endif /* RTB_FW_PORT_H */
