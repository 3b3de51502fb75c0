/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one-shot interrupt harness: a busy thread spins while the port's
 * interrupt source fires once after a pseudo-random delay, and the handler
 * interrupts it. irq.latency / irq.return and irq.to_thread are built on it
 * (core/scenarios/irq.c), and rh.irq_latency reuses the whole latency
 * measurement (rtb_irq_latency_measure()). core/src/irq_oneshot.c says
 * where each timestamp is taken and which samples are invalid.
 */
#ifndef RTB_IRQ_ONESHOT_H
#define RTB_IRQ_ONESHOT_H

#include <stdatomic.h>

#include "rtb/core.h"

/* Delay and gap options shared by the one-shot scenarios. */
struct rtb_oneshot_opts {
	uint64_t iterations;
	uint64_t delay_min_ns;
	uint64_t delay_max_ns;
	uint64_t gap_ns;
	uint64_t window_ns;
	uint64_t early_ns; /* latency: allowed stop before the due time */
};

#define RTB_ONESHOT_DELAY_MAX_NS 100000000u /* 100 ms: keeps busy loops short */
#define RTB_ONESHOT_WINDOW_NS 20000000u	    /* how late an interrupt may be and still count */

/* iterations, and <id>.delay_min_ns, <id>.delay_max_ns, <id>.gap_ns,
 * <id>.early_ns with their defaults; RTB_E_INVALID (reason set) when they do
 * not make sense. */
int rtb_oneshot_options(struct rtb_ctx *ctx, const char *id, struct rtb_oneshot_opts *o);

/*
 * Between the busy thread and the handler that interrupts it (the same
 * thread on POSIX, an interrupt on the same CPU on an RTOS), ordering only
 * needs compiler barriers: atomic_signal_fence.
 */
struct rtb_oneshot_sync {
	struct rtb_sem *go;		  /* controller to busy thread: run the loop */
	struct rtb_sem *done;		  /* busy thread to controller: loop left */
	_Atomic uint32_t spinning;	  /* busy: 1 while inside its loop */
	_Atomic uint32_t handled;	  /* handler: its last store */
	uint32_t h_spinning;		  /* handler: spinning at entry */
	volatile uint64_t loop_end;	  /* controller: the loop's explicit end time */
	volatile uint64_t loop_max_iters; /* controller: and its iteration bound */
	volatile bool stop;
};

/* Samples tried, and those without an interrupt in the busy loop. */
struct rtb_oneshot_counts {
	uint64_t attempts;
	uint64_t no_irq;  /* no interrupt within the window */
	uint64_t outside; /* handler ran while the busy thread was not in its loop */
};

struct rtb_oneshot_run {
	struct rtb_oneshot_sync *sync;
	struct rtb_irq *irq;
	struct rtb_oneshot_opts o;
	uint64_t seed; /* rtb_oneshot_seed() */
	uint64_t window_ticks;
	struct rtb_oneshot_counts c;
};

/* A seed for the pseudo-random delays (never 0). */
uint64_t rtb_oneshot_seed(void);

/* One sample: arm the interrupt after a random delay, release the busy
 * thread into a loop that ends the window after that delay, and wait until
 * it is back. *due is when the interrupt was due (counter ticks); *in_loop
 * says whether it came during the loop (otherwise the sample is invalid and
 * counted as such in run->c). */
int rtb_oneshot_sample(struct rtb_ctx *ctx, struct rtb_oneshot_run *run, uint64_t *due,
		       bool *in_loop);

/* Stop the source, end the busy thread, delete what was created (any of
 * them may be NULL). */
void rtb_oneshot_teardown(struct rtb_oneshot_sync *s, struct rtb_irq *irq, struct rtb_thread *busy);

/* What the latency measurement saw besides its samples. */
struct rtb_irq_latency_report {
	struct rtb_oneshot_run run;	/* options and counts of the one-shot harness */
	uint64_t loop_ticks;		/* busy loop period: resolution of both metrics */
	uint64_t tolerance_ticks;	/* allowed age of the last write at the due time */
	uint64_t not_running;		/* last value older than the earliest due time */
	uint64_t not_running_max_ticks; /* their largest handler entry after the due time */
	uint64_t no_return;		/* loop ended before a value after the handler */
};

/* irq.latency's measurement: interrupt latency into rl and, when rr is not
 * NULL, interrupt return into rr (both set up by the caller, with the
 * warm-up it wants: o->iterations + rl's warm-up samples are attempted).
 * The busy thread runs at relative priority 1. Returns RTB_OK (rep filled),
 * or an error with ctx->reason set; everything it created is gone. */
int rtb_irq_latency_measure(struct rtb_ctx *ctx, const struct rtb_oneshot_opts *o,
			    struct rtb_recorder *rl, struct rtb_recorder *rr,
			    struct rtb_irq_latency_report *rep);

#endif
