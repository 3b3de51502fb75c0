/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Rhealstone number from its six component means (rtb/rhealstone.h).
 * Pure: no port call, unit-tested with good and incomplete inputs.
 */
#include "rtb/rhealstone.h"

/* Why component c cannot enter the number, or NULL when it can. */
static const char *unusable(const struct rtb_rh_component *c)
{
	if (c->missing != NULL)
		return c->missing[0] != '\0' ? c->missing : "not measured";
	if (c->count == 0)
		return "no valid sample";
	if (!(c->mean_ns >= 0.0))
		return "no mean";
	return NULL;
}

void rtb_rhealstone(const struct rtb_rh_component *c, uint32_t n, struct rtb_rh_number *out)
{
	uint32_t bad = 0;
	const struct rtb_rh_component *first = NULL;
	double sum = 0.0;

	rtb_memset(out, 0, sizeof(*out));
	if (n != RTB_RH_COMPONENTS) {
		rtb_fmt(out->reason, sizeof(out->reason),
			"not computed: needs the %u components, got %" RTB_PRIu32 "",
			RTB_RH_COMPONENTS, n);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (unusable(&c[i]) != NULL) {
			if (bad++ == 0)
				first = &c[i];
			continue;
		}
		sum += c[i].mean_ns;
	}
	if (bad > 0) {
		if (bad == 1)
			rtb_fmt(out->reason, sizeof(out->reason), "not computed: %s: %s", first->id,
				unusable(first));
		else
			rtb_fmt(out->reason, sizeof(out->reason),
				"not computed: %" RTB_PRIu32 " of %" RTB_PRIu32
				" components missing, first %s: %s",
				bad, n, first->id, unusable(first));
		return;
	}
	double mean = sum / (double)n;
	if (!(mean > 0.0)) {
		rtb_fmt(out->reason, sizeof(out->reason),
			"not computed: the mean of the components is zero (below the timestamp "
			"resolution)");
		return;
	}
	out->computed = true;
	out->mean_ns = mean;
	out->per_second = 1e9 / mean;
}
