/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the priority-inheritance stress decision with the counts a
 * platform with inheritance, one without, and a stalling one produce. */
#include <string.h>

#include "check.h"
#include "rtb/check_ipc.h"

static char reason[RTB_LINE_MAX];

/* Three groups on a mutex with inheritance: every iteration set up, the
 * medium thread never in between. */
static struct rtb_ipc_pi_obs inherit(void)
{
	struct rtb_ipc_pi_obs o;

	memset(&o, 0, sizeof(o));
	o.ngroups = 3;
	o.stall_bound_ns = 1000000000u;
	for (uint32_t i = 0; i < o.ngroups; i++) {
		o.group[i].iterations = 40000 + i;
		o.group[i].set_up = 40000 + i;
		o.group[i].worst_wait_ns = 35000;
	}
	return o;
}

/* The same on a mutex without protocol: the medium thread's whole busy run
 * lands inside every wait. */
static struct rtb_ipc_pi_obs none(void)
{
	struct rtb_ipc_pi_obs o = inherit();

	for (uint32_t i = 0; i < o.ngroups; i++) {
		o.group[i].iterations = 150;
		o.group[i].set_up = 150;
		o.group[i].inversions = 150;
		o.group[i].worst_wait_ns = 3100000;
	}
	return o;
}

static enum rtb_outcome judge(const struct rtb_ipc_pi_obs *o)
{
	return rtb_check_ipc_pi(o, reason, sizeof(reason));
}

int main(void)
{
	char line[RTB_LINE_MAX];
	struct rtb_ipc_pi_obs o = inherit();

	CHECK(judge(&o) == RTB_PASS);
	CHECK(strstr(reason, "120003 iterations of 3 groups") != NULL);
	CHECK(strstr(reason, "within 1.000 s") != NULL);

	o.ngroups = 1;
	CHECK(judge(&o) == RTB_PASS);
	CHECK(strstr(reason, "40000 iterations of 1 group the") != NULL);

	/* no inheritance: the first group is named */
	o = none();
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 0:") != NULL);
	CHECK(strstr(reason, "in 150 of 150 iterations: no priority inheritance") != NULL);

	/* a single inversion in the last group is enough */
	o = inherit();
	o.group[2].inversions = 1;
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 2:") != NULL);
	CHECK(strstr(reason, "in 1 of 40002 iterations") != NULL);

	/* a high-priority thread that waited past the bound */
	o = inherit();
	o.group[1].stalls = 2;
	o.group[1].worst_wait_ns = 1500000000u;
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 1 stalled") != NULL);
	CHECK(strstr(reason, "longer than 1.000 s") != NULL);
	CHECK(strstr(reason, "worst 1.500 s") != NULL);

	/* ... while the controller, above every group, was kept off the CPU for
	 * half the bound or more: the machine withheld the CPU, not the mutex */
	o.watch_late_ns = 600000000u;
	CHECK(judge(&o) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "group 1 stalled, but the controller") != NULL);
	CHECK(strstr(reason, "kept off the CPU for 600.000 ms") != NULL);
	/* a watchdog late by less says nothing: the stall stands */
	o.watch_late_ns = 400000000u;
	CHECK(judge(&o) == RTB_FAIL);
	/* an inversion elsewhere is behaviour, whatever the machine did */
	o.watch_late_ns = 600000000u;
	o.group[2].inversions = 3;
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 2:") != NULL);

	/* a group the watchdog found stuck, also in a run stopped early */
	o = inherit();
	o.group[2].stuck = true;
	o.cut_short = true;
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 2 stalled: it completed no iteration") != NULL);

	/* the first bad group wins, whatever is wrong with later ones */
	o = none();
	o.group[2].stuck = true;
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 0:") != NULL);

	/* a group that never completed an iteration */
	o = inherit();
	o.group[1].iterations = 0;
	o.group[1].set_up = 0;
	CHECK(judge(&o) == RTB_FAIL);
	CHECK(strstr(reason, "group 1 made no progress") != NULL);
	/* ... is no evidence when the run was stopped early */
	o.cut_short = true;
	CHECK(judge(&o) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "stopped before group 1") != NULL);

	/* the inversion never set up (the threads did not preempt each other) */
	o = inherit();
	o.group[0].set_up = 0;
	CHECK(judge(&o) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "group 0: the high thread never") != NULL);
	/* some iterations set up are enough */
	o.group[0].set_up = 1;
	CHECK(judge(&o) == RTB_PASS);

	/* nothing ran */
	o = inherit();
	o.ngroups = 0;
	CHECK(judge(&o) == RTB_INCONCLUSIVE);
	o.ngroups = RTB_IPC_PI_GROUPS_MAX + 1;
	CHECK(judge(&o) == RTB_INCONCLUSIVE);

	/* evidence lines */
	o = none();
	rtb_ipc_pi_group_line(&o.group[1], 1, line, sizeof(line));
	CHECK(strcmp(line, "group 1: 150 iterations (150 set up), 150 inversions, 0 stalls, "
			   "worst wait 3.100 ms") == 0);
	o.group[1].stuck = true;
	rtb_ipc_pi_group_line(&o.group[1], 1, line, sizeof(line));
	CHECK(strstr(line, ", stuck") != NULL);

	return check_exit();
}
