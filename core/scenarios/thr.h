/* SPDX-License-Identifier: Apache-2.0 */
/* What the THR behaviour scenarios (thr_new.c, thr_rr.c) share. */
#ifndef RTB_SCENARIOS_THR_H
#define RTB_SCENARIOS_THR_H

#include "rtb/check_thr.h"
#include "rtb/core.h"

/* The OS's own statement of its round-robin time slice, in ns (0 when it
 * says nothing). The port's answers are left in interval
 * ("rr_interval_ns", asked from a round-robin thread) and timeslice
 * ("rr_timeslice_ms"), 32 bytes each, empty when unanswered. */
uint64_t thr_rr_os_slice(char *interval, char *timeslice);

#endif
