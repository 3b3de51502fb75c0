/* SPDX-License-Identifier: Apache-2.0 */
/* Decision of the MUT behaviour check (see rtb/check_mut.h). */
#include "rtb/check_mut.h"

struct event {
	const char *name;
	uint32_t seq;
};

static uint32_t events(const struct rtb_mut_pi_obs *o, struct event *e)
{
	const struct event all[] = {
		{"L locks", o->l_locked},      {"H ready", o->h_ready},
		{"H requests", o->h_request},  {"M ready", o->m_ready},
		{"L unlocks", o->l_unlock},    {"H acquires", o->h_acquired},
		{"H releases", o->h_released}, {"M runs", o->m_ran},
	};
	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(all); i++)
		e[i] = all[i];
	return RTB_ARRAY_SIZE(all);
}

enum rtb_outcome rtb_check_mut_pi(const struct rtb_mut_pi_obs *o, char *reason, size_t len)
{
	struct event e[8];
	uint32_t n = events(o, e);

	for (uint32_t i = 0; i < n; i++) {
		if (e[i].seq == 0) {
			rtb_fmt(reason, len, "event '%s' never happened, so the order is unknown",
				e[i].name);
			return RTB_INCONCLUSIVE;
		}
	}
	if (!(o->l_locked < o->h_ready && o->h_ready < o->m_ready && o->m_ready < o->l_unlock)) {
		rtb_fmt(reason, len,
			"the low-priority thread did not make H and M ready while holding the "
			"mutex: the inversion was not set up");
		return RTB_INCONCLUSIVE;
	}
	if (o->h_acquired < o->l_unlock) {
		rtb_fmt(reason, len,
			"the high-priority thread acquired the mutex while the low one still held "
			"it: no mutual exclusion");
		return RTB_FAIL;
	}
	bool ceiling = o->protocol == RTB_MUTEX_CEILING;
	if (!ceiling && o->h_request > o->l_unlock) {
		rtb_fmt(reason, len,
			"the high-priority thread did not run when made ready, so it never waited "
			"for the mutex: the inversion was not set up");
		return RTB_INCONCLUSIVE;
	}
	if (o->m_ran < o->h_acquired) {
		if (ceiling)
			rtb_fmt(reason, len,
				"medium-priority thread ran while the low one held the mutex the "
				"high-priority thread needed: the ceiling did not raise the "
				"holder");
		else
			rtb_fmt(reason, len,
				"medium-priority thread ran while the high-priority thread waited "
				"for the mutex held by the low one: no priority inheritance");
		return RTB_FAIL;
	}
	if (o->m_ran < o->h_released) {
		rtb_fmt(reason, len,
			"medium-priority thread ran while the high-priority thread held the mutex");
		return RTB_FAIL;
	}
	rtb_fmt(reason, len,
		"the medium-priority thread ran only after the high-priority thread had taken and "
		"released the mutex");
	return RTB_PASS;
}

void rtb_mut_pi_order(const struct rtb_mut_pi_obs *o, char *buf, size_t len)
{
	struct event e[8];
	uint32_t n = events(o, e);
	size_t pos = 0;
	uint32_t prev = 0;

	buf[0] = '\0';
	/* n is small: pick the next event in order each time */
	for (uint32_t k = 0; k < n; k++) {
		int best = -1;
		for (uint32_t i = 0; i < n; i++) {
			if (e[i].seq > prev && (best < 0 || e[i].seq < e[best].seq))
				best = (int)i;
		}
		if (best < 0)
			break;
		prev = e[best].seq;
		if (pos < len)
			pos += rtb_fmt(buf + pos, len - pos, "%s%s", pos > 0 ? ", " : "",
				       e[best].name);
	}
}
