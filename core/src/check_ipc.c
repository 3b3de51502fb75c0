/* SPDX-License-Identifier: Apache-2.0 */
/* Decision of the IPC priority-inheritance stress check (see rtb/check_ipc.h). */
#include "rtb/check_ipc.h"

enum rtb_outcome rtb_check_ipc_pi(const struct rtb_ipc_pi_obs *o, char *reason, size_t len)
{
	char bound[32], worst[32];
	uint64_t total = 0;

	if (o->ngroups == 0 || o->ngroups > RTB_IPC_PI_GROUPS_MAX) {
		rtb_fmt(reason, len, "no group of threads ran, so nothing was observed");
		return RTB_INCONCLUSIVE;
	}
	rtb_fmt_ns(bound, sizeof(bound), o->stall_bound_ns);
	/* a stall while the controller, above every group, was kept off the CPU
	 * as long: the machine's, not the mutex's; inversions still decide */
	bool withheld = o->watch_late_ns * 2 >= o->stall_bound_ns;
	uint32_t withheld_stall = UINT32_MAX;
	for (uint32_t i = 0; i < o->ngroups; i++) {
		const struct rtb_ipc_pi_group *g = &o->group[i];

		rtb_fmt_ns(worst, sizeof(worst), g->worst_wait_ns);
		if (g->inversions > 0) {
			rtb_fmt(reason, len,
				"group %u: the medium thread ran while the high one waited for the "
				"mutex the "
				"low one held, in %llu of %llu iterations: no priority inheritance",
				(unsigned)i, (unsigned long long)g->inversions,
				(unsigned long long)g->iterations);
			return RTB_FAIL;
		}
		if ((g->stuck || g->stalls > 0) && withheld) {
			if (withheld_stall == UINT32_MAX)
				withheld_stall = i;
			continue;
		}
		if (g->stuck) {
			rtb_fmt(reason, len,
				"group %u stalled: it completed no iteration for longer than the "
				"stall bound (%s) after %llu iterations",
				(unsigned)i, bound, (unsigned long long)g->iterations);
			return RTB_FAIL;
		}
		if (g->stalls > 0) {
			rtb_fmt(reason, len,
				"group %u stalled: the high-priority thread waited longer than %s "
				"for "
				"the mutex in %llu of %llu iterations (worst %s)",
				(unsigned)i, bound, (unsigned long long)g->stalls,
				(unsigned long long)g->iterations, worst);
			return RTB_FAIL;
		}
		if (g->iterations == 0 && !o->cut_short) {
			rtb_fmt(reason, len,
				"group %u made no progress: the high-priority thread never got the "
				"mutex",
				(unsigned)i);
			return RTB_FAIL;
		}
		total += g->iterations;
	}
	if (withheld_stall != UINT32_MAX) {
		char late[32];
		rtb_fmt_ns(late, sizeof(late), o->watch_late_ns);
		rtb_fmt(reason, len,
			"group %u stalled, but the controller, above every group, was itself kept "
			"off the CPU for %s: the machine withheld the CPU, so the stall says "
			"nothing of the mutex",
			(unsigned)withheld_stall, late);
		return RTB_INCONCLUSIVE;
	}
	for (uint32_t i = 0; i < o->ngroups; i++) {
		const struct rtb_ipc_pi_group *g = &o->group[i];

		if (g->iterations == 0) {
			rtb_fmt(reason, len,
				"the run was stopped before group %u completed an iteration",
				(unsigned)i);
			return RTB_INCONCLUSIVE;
		}
		if (g->set_up == 0) {
			rtb_fmt(reason, len,
				"group %u: the high thread never requested the mutex while the low "
				"one held "
				"it and the medium one was ready: the inversion was not set up",
				(unsigned)i);
			return RTB_INCONCLUSIVE;
		}
	}
	rtb_fmt(reason, len,
		"in %llu iterations of %u group%s the medium thread never ran while the high one "
		"waited for the mutex, and every wait ended within %s",
		(unsigned long long)total, (unsigned)o->ngroups, o->ngroups == 1 ? "" : "s", bound);
	return RTB_PASS;
}

void rtb_ipc_pi_group_line(const struct rtb_ipc_pi_group *g, uint32_t index, char *buf, size_t len)
{
	char worst[32];

	rtb_fmt_ns(worst, sizeof(worst), g->worst_wait_ns);
	rtb_fmt(buf, len,
		"group %u: %llu iterations (%llu set up), %llu inversions, %llu stalls, worst "
		"wait %s%s",
		(unsigned)index, (unsigned long long)g->iterations, (unsigned long long)g->set_up,
		(unsigned long long)g->inversions, (unsigned long long)g->stalls, worst,
		g->stuck ? ", stuck" : "");
}
