/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Low / Medium / High sequence around a mutex that MUT-B-ARC checks and
 * MUT-P-ARC times (core/scenarios/mut.c), and that rh.deadlock_break times
 * from H's request to H holding the mutex. core/src/mut_pi.c runs its
 * looping form.
 *
 * L locks the mutex and makes H ready; H preempts, requests the mutex and
 * blocks (L now runs at H's priority under inheritance); L makes M ready
 * and unlocks; H takes the mutex and releases it; M runs last. Every event
 * takes the next number of a shared sequence (all threads share one CPU, so
 * the numbers are the order things happened in) and rtb_check_mut_pi()
 * judges the order.
 */
#ifndef RTB_MUT_PI_H
#define RTB_MUT_PI_H

#include "rtb/check_mut.h"

/* Relative priorities (the controller is at 0). */
#define RTB_PI_PRIO_L 1
#define RTB_PI_PRIO_M 2
#define RTB_PI_PRIO_H 3

struct rtb_pi_shared {
	struct rtb_mutex *mutex;
	struct rtb_thread *l, *m, *h;
	struct rtb_mut_pi_obs ev;
	volatile uint32_t seq;
	volatile uint32_t l_done, m_done, h_done;
	volatile int rc;
	volatile bool stop;
	uint64_t m_spin_ticks; /* B only: how long M stays busy */
	uint64_t l_spin_ticks; /* B only: how long L holds the mutex after readying M */
	/* timestamps of one iteration (the looping form) */
	volatile uint64_t t_h_lock;	/* H: just before its lock call */
	volatile uint64_t t_l_run;	/* L: first action after H blocked */
	volatile uint64_t t_l_unlock;	/* L: just before its unlock call */
	volatile uint64_t t_h_acquired; /* H: just after its lock returned */
};

/* Number an event: *event = the next number of the sequence. */
void rtb_pi_mark(struct rtb_pi_shared *sh, uint32_t *event);

/* H's part of the sequence: request the mutex L holds, take it, release
 * it (timestamps t_h_lock and t_h_acquired around the lock call). */
void rtb_pi_h_request_release(struct rtb_pi_shared *sh);

/* The looping form. Start: create a mutex of `protocol` and the L, M, H
 * threads (each suspends itself until the next iteration); sh is zeroed
 * first. On an error nothing is left behind. */
int rtb_pi_loop_start(struct rtb_pi_shared *sh, enum rtb_mutex_protocol protocol);

/* One iteration: resume L and wait until L, H and M are done. True when
 * every thread ran and the order passes rtb_check_mut_pi(): the four
 * timestamps of sh are then one valid sample. False otherwise, with the
 * reason in `reason`; sh->rc tells a failed port call from a bad order. */
bool rtb_pi_loop_once(const struct rtb_ctx *ctx, struct rtb_pi_shared *sh, char *reason,
		      size_t len);

/* End and delete the threads and the mutex; returns the first error a
 * thread met (sh->rc). */
int rtb_pi_loop_stop(struct rtb_pi_shared *sh);

#endif
