/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the MUT behaviour decision with the event orders a correct
 * and a broken mutex produce. */
#include <string.h>

#include "check.h"
#include "rtb/check_mut.h"

static char reason[RTB_LINE_MAX];

/* Priority inheritance: M stays out until H is done. */
static struct rtb_mut_pi_obs inherit(void)
{
	struct rtb_mut_pi_obs o = {
		.protocol = RTB_MUTEX_INHERIT,
		.l_locked = 1,
		.h_ready = 2,
		.h_request = 3,
		.m_ready = 4,
		.l_unlock = 5,
		.h_acquired = 6,
		.h_released = 7,
		.m_ran = 8,
	};
	return o;
}

/* No protocol: M preempts L as soon as it is ready. */
static struct rtb_mut_pi_obs none(void)
{
	struct rtb_mut_pi_obs o = {
		.protocol = RTB_MUTEX_NONE,
		.l_locked = 1,
		.h_ready = 2,
		.h_request = 3,
		.m_ready = 4,
		.m_ran = 5,
		.l_unlock = 6,
		.h_acquired = 7,
		.h_released = 8,
	};
	return o;
}

/* Priority ceiling: L runs at the ceiling, H only runs once L unlocks. */
static struct rtb_mut_pi_obs ceiling(void)
{
	struct rtb_mut_pi_obs o = {
		.protocol = RTB_MUTEX_CEILING,
		.l_locked = 1,
		.h_ready = 2,
		.m_ready = 3,
		.l_unlock = 4,
		.h_request = 5,
		.h_acquired = 6,
		.h_released = 7,
		.m_ran = 8,
	};
	return o;
}

int main(void)
{
	char order[256];
	struct rtb_mut_pi_obs o = inherit();

	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_PASS);
	rtb_mut_pi_order(&o, order, sizeof(order));
	CHECK(strcmp(order, "L locks, H ready, H requests, M ready, L unlocks, H acquires, "
			    "H releases, M runs") == 0);

	o = none();
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "medium-priority thread ran while the high-priority thread waited") !=
	      NULL);
	CHECK(strstr(reason, "no priority inheritance") != NULL);
	rtb_mut_pi_order(&o, order, sizeof(order));
	CHECK(strstr(order, "M ready, M runs, L unlocks") != NULL);

	/* the same inversion reported against a mutex that claimed inheritance */
	o.protocol = RTB_MUTEX_INHERIT;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_FAIL);

	o = ceiling();
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_PASS);
	/* with inheritance, H not running when made ready means nothing was tested */
	o.protocol = RTB_MUTEX_INHERIT;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	/* a ceiling that does not raise L lets M in */
	o = ceiling();
	o.m_ran = 4;
	o.l_unlock = 5;
	o.h_request = 6;
	o.h_acquired = 7;
	o.h_released = 8;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "ceiling") != NULL);

	/* M between H's acquire and release */
	o = inherit();
	o.m_ran = 7;
	o.h_released = 8;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "held the mutex") != NULL);

	/* H acquired while L still held the mutex */
	o = inherit();
	o.h_acquired = 5;
	o.l_unlock = 6;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_FAIL);
	CHECK(strstr(reason, "mutual exclusion") != NULL);

	/* a thread that never ran */
	o = inherit();
	o.m_ran = 0;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_INCONCLUSIVE);
	CHECK(strstr(reason, "M runs") != NULL);
	rtb_mut_pi_order(&o, order, sizeof(order));
	CHECK(strstr(order, "M runs") == NULL);

	/* M made ready only after L unlocked: the inversion was not set up */
	o = inherit();
	o.m_ready = 6;
	o.l_unlock = 4;
	o.h_acquired = 5;
	CHECK(rtb_check_mut_pi(&o, reason, sizeof(reason)) == RTB_INCONCLUSIVE);

	return check_exit();
}
