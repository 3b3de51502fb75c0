/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The yield ring: n threads of equal priority (relative 1, FIFO) yield in
 * turn; each sample is one switch, from the yield call in one thread to the
 * return from yield in the next. Shared by thr.switch.yield (THR-P-SLS),
 * sched.coop.switch and rh.task_switch; core/src/ring.c says how the ring
 * keeps its order and which samples are invalid.
 */
#ifndef RTB_RING_H
#define RTB_RING_H

#include "rtb/core.h"

/* Highest relative priority the ring uses (the controller, while it creates
 * the ring threads): a port needs prio_max >= RTB_RING_SETUP_PRIO. */
#define RTB_RING_SETUP_PRIO 2

/* Run a ring of n threads for `samples` counted switches plus the warm-up
 * (the first round, and at least 1 %), and record them into r, which this
 * call sets up with metric m (keep m alive while r is used). The calling
 * thread (the scenario's controller, at relative priority 0) stays out of
 * the ring and returns to priority 0.
 *
 * RTB_OK: r holds the samples; the caller emits it and frees it. Warnings
 * (switches out of ring order, fewer samples than asked) have been logged
 * under m->scenario. On an error r holds no memory (rtb_recorder_free() is
 * harmless) and *created says how many ring threads the OS let the ring
 * create (n when creation was not the problem); RTB_E_NOMEM with
 * ctx->reason set when memory for the ring itself was missing. */
int rtb_ring_measure(struct rtb_ctx *ctx, const struct rtb_metric *m, uint32_t n, uint64_t samples,
		     struct rtb_recorder *r, uint32_t *created);

#endif
