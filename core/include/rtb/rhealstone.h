/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Rhealstone number (Kar and Porter, 1989): the mean of the six
 * component means (task switch, preemption, interrupt latency, semaphore
 * shuffle, deadlock break, intertask message), also given as rhealstones
 * per second = 1 / that mean in seconds. Computed only from all six: a
 * component that was not measured makes the number "not computed", with
 * the reason, never a number from fewer parts.
 */
#ifndef RTB_RHEALSTONE_H
#define RTB_RHEALSTONE_H

#include "rtb/core.h"

#define RTB_RH_COMPONENTS 6

struct rtb_rh_component {
	const char *id;	     /* "rh.task_switch", ... */
	const char *missing; /* NULL when measured, else why not */
	uint64_t count;	     /* valid samples */
	double mean_ns;	     /* their mean */
};

struct rtb_rh_number {
	bool computed;
	double mean_ns;		   /* mean of the component means */
	double per_second;	   /* 1e9 / mean_ns */
	char reason[RTB_LINE_MAX]; /* why not computed ("" when computed) */
};

/* Decide and compute from n components (RTB_RH_COMPONENTS expected). */
void rtb_rhealstone(const struct rtb_rh_component *c, uint32_t n, struct rtb_rh_number *out);

#endif
