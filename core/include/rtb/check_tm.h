/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decisions of the Thread-Metric fairness checks (tm.coop, tm.preempt).
 *
 * Pure functions: observed facts in, outcome and reason out. The scenario
 * in core/scenarios/tm.c reads the run counters of its threads at the end of
 * every measurement period (while they are all preempted by the
 * controller) and passes them, and those of its deliberately unfair
 * negative controls, through the same function; tests/c/test_check_tm.c
 * feeds them good and bad observations.
 *
 * Counters are cumulative since the threads started: counts[p * nthreads + i]
 * is how many times thread i had run at the end of period p.
 */
#ifndef RTB_CHECK_TM_H
#define RTB_CHECK_TM_H

#include "rtb/core.h"

#define RTB_TM_THREADS_MAX 8

/* Turns each thread must have completed (at the end of the last period)
 * before a check can judge fairness. */
#define RTB_TM_MIN_TURNS 2u

/* tm.coop: threads of equal priority that each count one turn and then
 * relinquish to the next. At the end of every period every thread's
 * counter must be within 1 of every other's.
 *   FAIL if, in some period, two counters are more than 1 apart;
 *   INCONCLUSIVE if the observation is malformed (fewer than 2 threads,
 *   more than RTB_TM_THREADS_MAX, no period) or if some thread completed
 *   fewer than RTB_TM_MIN_TURNS turns by the end;
 *   PASS otherwise. The reason is one sentence. */
enum rtb_outcome rtb_check_tm_coop(const uint64_t *counts, uint32_t nthreads, uint32_t nperiods,
				   char *reason, size_t reason_len);

/* tm.coop where the OS takes turns away: where it gives the CPU to the next
 * thread of the priority without a relinquish (time slicing; in FreeRTOS
 * also a higher-priority thread that blocks), the thread it left loses its
 * place and falls one turn behind for good, so the counters drift apart
 * with no fault in the relinquish. lost[p * nthreads + i] is how many turns
 * thread i had been seen to lose that way by the end of period p (the
 * threads count them: core/scenarios/tm_workers.c). Every thread's counter
 * plus its lost turns must be within 2 of every other's: 1 for the round in
 * progress, 1 for a thread that lost its place and has not had a turn
 * since, the turn that shows it the loss.
 *   INCONCLUSIVE as for rtb_check_tm_coop, and when the lost turns are
 *   more than an eighth of the turns of the thread with the fewest (turns
 *   taken away so often that two may fall in the same rounds, where one
 *   goes unseen);
 *   FAIL if, in some period, two counters with their lost turns added are
 *   more than 2 apart;
 *   PASS otherwise. */
enum rtb_outcome rtb_check_tm_coop_counted(const uint64_t *counts, const uint64_t *lost,
					   uint32_t nthreads, uint32_t nperiods, char *reason,
					   size_t reason_len);

/* Did a thread of tm.coop's counted run lose its place since its own last
 * turn? others_turns: the turns the other threads had in between. They have
 * n - 1 when the threads take turns (fewer when one of them lost its
 * place), 2 (n - 1) when this thread lost its place; 2 (n - 1) - 1 or more
 * counts as lost (another thread may have lost its place in the same two
 * rounds). A thread 0 that relinquishes every second turn gives the others
 * n turns, below the mark with 4 threads or more (tm.coop has 5). */
static inline bool rtb_tm_turn_lost(uint32_t others_turns, uint32_t nthreads)
{
	return nthreads >= 2 && others_turns >= 2 * (nthreads - 1) - 1;
}

/* tm.preempt: a chain of threads of distinct priorities; thread 0 is the
 * lowest and resumes thread 1, each resumes the next higher one and then
 * suspends itself, so a full pass runs every thread once, the highest
 * first. At the end of every period every thread of the chain must have
 * run as often as the thread below it or once more (the pass in progress
 * has reached the higher ones first), and the highest at most once more
 * than the lowest.
 *   FAIL if, in some period, a thread ran more often than the thread
 *   above it, or the counters are more than 1 apart;
 *   INCONCLUSIVE as for rtb_check_tm_coop;
 *   PASS otherwise. */
enum rtb_outcome rtb_check_tm_chain(const uint64_t *counts, uint32_t nthreads, uint32_t nperiods,
				    char *reason, size_t reason_len);

/* "12 12 11 11 11": the counters of one period, for evidence lines. */
void rtb_tm_counts_text(char *buf, size_t len, const uint64_t *counts, uint32_t nthreads);

#endif /* RTB_CHECK_TM_H */
