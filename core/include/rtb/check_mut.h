/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decision of the MUT behaviour check (MUT-B-ARC, priority inversion), also
 * used per iteration by MUT-P-ARC to tell valid samples from invalid ones.
 *
 * Three threads: Low (L) holds the mutex, High (H) requests it, Medium (M)
 * is made ready by L while L holds it. The scenario numbers every event in
 * the order it happened (1, 2, ...; 0 = it never happened) and the pure
 * function below decides.
 */
#ifndef RTB_CHECK_MUT_H
#define RTB_CHECK_MUT_H

#include "rtb/core.h"

struct rtb_mut_pi_obs {
	enum rtb_mutex_protocol protocol; /* of the mutex under test */
	uint32_t l_locked;		  /* L's lock returned */
	uint32_t h_ready;		  /* L made H ready */
	uint32_t h_request;		  /* H calls lock */
	uint32_t m_ready;		  /* L made M ready */
	uint32_t l_unlock;		  /* L calls unlock */
	uint32_t h_acquired;		  /* H's lock returned */
	uint32_t h_released;		  /* H's unlock returned */
	uint32_t m_ran;			  /* M's first instruction */
};

/* Pass when M ran only after H had taken and released the mutex. With no
 * protocol or inheritance H must have requested the mutex while L held it
 * (else the inversion was never set up: inconclusive); with a ceiling H may
 * not even run before L unlocks. A missing event is inconclusive. */
enum rtb_outcome rtb_check_mut_pi(const struct rtb_mut_pi_obs *o, char *reason, size_t len);

/* The events in the order they happened, in words ("L locks, H ready, ..."),
 * for evidence lines. Missing events are left out. */
void rtb_mut_pi_order(const struct rtb_mut_pi_obs *o, char *buf, size_t len);

#endif
