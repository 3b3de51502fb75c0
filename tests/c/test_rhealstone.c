/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the Rhealstone number: computed from six measured
 * components, and "not computed" with the reason whenever one is missing,
 * has no valid sample, or the inputs are not the six components. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "rtb/rhealstone.h"

static void six(struct rtb_rh_component *c)
{
	static const char *const ids[RTB_RH_COMPONENTS] = {"rh.task_switch",	"rh.preempt",
							   "rh.irq_latency",	"rh.sem_shuffle",
							   "rh.deadlock_break", "rh.msg_latency"};
	/* 1, 2, ..., 6 us */
	for (int i = 0; i < RTB_RH_COMPONENTS; i++) {
		c[i] = (struct rtb_rh_component){
			.id = ids[i], .missing = NULL, .count = 1000, .mean_ns = 1000.0 * (i + 1)};
	}
}

static void test_all_measured(void)
{
	struct rtb_rh_component c[RTB_RH_COMPONENTS];
	struct rtb_rh_number n;

	six(c);
	rtb_rhealstone(c, RTB_RH_COMPONENTS, &n);
	CHECK(n.computed);
	CHECK(fabs(n.mean_ns - 3500.0) < 1e-9);
	/* 3.5 us: 1e6 / 3.5 rhealstones per second */
	CHECK(fabs(n.per_second - 1e6 / 3.5) < 1e-6);
	CHECK(n.reason[0] == '\0');
}

static void test_one_unsupported(void)
{
	struct rtb_rh_component c[RTB_RH_COMPONENTS];
	struct rtb_rh_number n;

	six(c);
	c[2].missing = "unsupported: the port has no interrupt source";
	rtb_rhealstone(c, RTB_RH_COMPONENTS, &n);
	CHECK(!n.computed);
	CHECK(n.mean_ns == 0.0 && n.per_second == 0.0);
	CHECK(strstr(n.reason, "not computed") != NULL);
	CHECK(strstr(n.reason, "rh.irq_latency") != NULL);
	CHECK(strstr(n.reason, "no interrupt source") != NULL);
}

static void test_several_missing(void)
{
	struct rtb_rh_component c[RTB_RH_COMPONENTS];
	struct rtb_rh_number n;

	six(c);
	c[3].count = 0; /* every sample invalid */
	c[5].missing = "";
	rtb_rhealstone(c, RTB_RH_COMPONENTS, &n);
	CHECK(!n.computed);
	CHECK(strstr(n.reason, "2 of 6") != NULL);
	CHECK(strstr(n.reason, "rh.sem_shuffle: no valid sample") != NULL);

	six(c);
	c[5].missing = "";
	rtb_rhealstone(c, RTB_RH_COMPONENTS, &n);
	CHECK(!n.computed);
	CHECK(strstr(n.reason, "rh.msg_latency: not measured") != NULL);
}

static void test_not_six(void)
{
	struct rtb_rh_component c[RTB_RH_COMPONENTS];
	struct rtb_rh_number n;

	six(c);
	/* five good components are not a Rhealstone number */
	rtb_rhealstone(c, RTB_RH_COMPONENTS - 1, &n);
	CHECK(!n.computed);
	CHECK(strstr(n.reason, "got 5") != NULL);
}

static void test_zero_or_nan(void)
{
	struct rtb_rh_component c[RTB_RH_COMPONENTS];
	struct rtb_rh_number n;

	six(c);
	for (int i = 0; i < RTB_RH_COMPONENTS; i++)
		c[i].mean_ns = 0.0;
	rtb_rhealstone(c, RTB_RH_COMPONENTS, &n);
	CHECK(!n.computed);
	CHECK(strstr(n.reason, "zero") != NULL);

	six(c);
	c[0].mean_ns = NAN;
	rtb_rhealstone(c, RTB_RH_COMPONENTS, &n);
	CHECK(!n.computed);
	CHECK(strstr(n.reason, "rh.task_switch") != NULL);
}

int main(void)
{
	test_all_measured();
	test_one_unsupported();
	test_several_missing();
	test_not_six();
	test_zero_or_nan();
	return check_exit();
}
