/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decision of the IPC priority-inheritance stress check (ipc.pi.stress).
 *
 * Groups of three threads (Low, Medium, High) repeat the inversion set-up on
 * one mutex per group: L holds the mutex, M is ready with a bounded busy run
 * to do, H requests the mutex. The scenario counts, per group, what it saw
 * in every iteration and the pure function below decides.
 */
#ifndef RTB_CHECK_IPC_H
#define RTB_CHECK_IPC_H

#include "rtb/core.h"

#define RTB_IPC_PI_GROUPS_MAX 8u

struct rtb_ipc_pi_group {
	uint64_t iterations;	/* H took and released the mutex */
	uint64_t set_up;	/* of those: H called lock while L held the mutex and M
				 * was ready with its busy run still to do */
	uint64_t inversions;	/* M made progress between H's lock call and H holding */
	uint64_t stalls;	/* H waited longer than the stall bound */
	bool stuck;		/* completed no iteration for the stall bound (H may
				 * still be waiting) */
	uint64_t worst_wait_ns; /* longest time from H's lock call to holding */
};

struct rtb_ipc_pi_obs {
	uint32_t ngroups;
	uint64_t stall_bound_ns;
	/* the run was stopped before its planned end (time budget, stop
	 * request): a group that had not completed an iteration yet is not
	 * evidence of a stall */
	bool cut_short;
	/* the controller, above every group, wakes every 10 ms: the most it
	 * woke late. When it too was kept off the CPU for half the stall bound
	 * or more, the machine withheld the CPU from the platform (a busy host,
	 * an emulator), and a stall says nothing of the mutex. */
	uint64_t watch_late_ns;
	struct rtb_ipc_pi_group group[RTB_IPC_PI_GROUPS_MAX];
};

/* Fail, naming the first bad group, when a group stalled (stuck, or H waited
 * longer than the bound), made no progress, or showed an inversion.
 * Inconclusive when there is no group, when a group never had the inversion
 * set up, when a run stopped early left a group without an iteration, or
 * when a group stalled (and none showed an inversion) while the controller
 * itself woke late by half the stall bound or more (watch_late_ns).
 * Pass otherwise. The reason is one sentence. */
enum rtb_outcome rtb_check_ipc_pi(const struct rtb_ipc_pi_obs *o, char *reason, size_t len);

/* One evidence line for group `index`: "group 0: 1200 iterations (1200 set
 * up), 0 inversions, 0 stalls, worst wait 21.400 us". */
void rtb_ipc_pi_group_line(const struct rtb_ipc_pi_group *g, uint32_t index, char *buf, size_t len);

#endif
