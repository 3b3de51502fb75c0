/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decisions of the SEM behaviour checks (SEM-B-LCK, SEM-B-REL).
 *
 * Each decision is a pure function: the facts a scenario observed go in, an
 * outcome and a one-line reason come out. The scenarios run the platform's
 * semaphore and a deliberately broken one (the negative control) through the
 * same observation code and the same function, and the unit tests feed it
 * good and misbehaving observations.
 */
#ifndef RTB_CHECK_SEM_H
#define RTB_CHECK_SEM_H

#include "rtb/core.h"

/* "No waiter": a signal that released nobody. */
#define RTB_SEM_NONE UINT32_MAX

/* SEM-B-LCK: one run of the lock sequence against one semaphore. A helper
 * thread of higher priority than the signaller makes every wait (P) call. */
struct rtb_sem_lock_obs {
	bool helper_ran;	      /* the helper ran every time it was made ready */
	uint32_t waits_positive;      /* waits made on a positive count */
	uint32_t waits_positive_done; /* of those, how many returned without blocking */
	uint32_t value_after_waits;   /* count read after the first waits (expect 0) */
	bool zero_wait_blocked;	      /* a wait on count 0 had not returned before the V */
	bool released_in_signal;      /* that waiter ran before the V call returned */
	bool released;		      /* that waiter returned at all after the V */
	uint32_t value_after_release; /* count read after it returned (expect 0) */
	uint32_t signals;	      /* V calls made with no waiter, from count 0 */
	uint32_t value_after_signals; /* count read after them (expect `signals`) */
};

/* Pass when P blocks only on a zero count, V with no waiter increments the
 * count, and V with a blocked higher-priority waiter switches to it before
 * returning. Writes the reason (at most len bytes, NUL-terminated). */
enum rtb_outcome rtb_check_sem_lock(const struct rtb_sem_lock_obs *o, char *reason, size_t len);

/* SEM-B-REL: waiters blocked one by one on a zero-count semaphore, then one
 * V per waiter. Waiters are named by their arrival index: 0 blocked first. */
struct rtb_sem_release_obs {
	uint32_t nwaiters;
	const int *prio;	  /* prio[a]: priority of the waiter that blocked a-th */
	uint32_t blocked;	  /* waiters seen blocked before the first V */
	const uint32_t *released; /* released[i]: arrival index the i-th V released,
				     or RTB_SEM_NONE */
	uint32_t nsignals;	  /* V calls made (normally nwaiters) */
	uint32_t extra_wakes;	  /* wake-ups beyond one per V */
};

/* The order a priority-ordered semaphore releases the waiters in: highest
 * priority first, equal priorities in arrival order (the one that waited
 * longest first). Writes n arrival indices into order. */
void rtb_sem_release_expected(const int *prio, uint32_t n, uint32_t *order);

/* Pass when every V released the highest-priority waiter still blocked (the
 * longest-waiting one among equals) and exactly one waiter per V. Released
 * in arrival order while priorities differ, the reason says FIFO. */
enum rtb_outcome rtb_check_sem_release(const struct rtb_sem_release_obs *o, char *reason,
				       size_t len);

#endif
