/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the runner's files (runner.c, args.c, ctx.c, records.c): what
 * one of them defines and another uses. Not part of the core's API: scenarios
 * and ports use rtb/core.h only.
 */
#ifndef RTB_RUNNER_H
#define RTB_RUNNER_H

#include "rtb/core.h"

/* ---- command line (args.c) ----------------------------------------------- */

#define RTB_ARGS_SCENARIOS_MAX 128

struct rtb_args {
	bool list;
	enum rtb_profile profile;
	const char *scenarios[RTB_ARGS_SCENARIOS_MAX];
	uint32_t nscenarios;
	struct rtb_option options[RTB_OPTIONS_MAX];
	uint32_t noptions;
	struct rtb_port_config port;
	uint64_t overhead_ticks;
	bool overhead_given;
	uint64_t inline_overhead_ticks;
	bool inline_overhead_given;
	uint32_t raw_max;
	char error[RTB_LINE_MAX];
};

/* `list|run [options]` into a; false, with the first problem in a->error,
 * on bad input. Also sets rtb_length_ppm and rtb_deadline_override_ms. The
 * values of --set point into argv, which must outlive a. */
bool rtb_args_parse(struct rtb_args *a, int argc, char **argv);

/* ---- run context (ctx.c) ------------------------------------------------- */

/* Forget which undeclared option reads were already reported. */
void rtb_ctx_undeclared_reset(void);

/* ---- records (records.c) ------------------------------------------------- */

/* A counter reading and a rtb_port_time_ns() reading taken together: the
 * counter midway between two reads around the clock read, from the tightest
 * of a few tries (error_ticks: half that pair's spread; UINT64_MAX when no
 * try gave a pair). Lets a reader map kept samples of either clock onto the
 * other (and onto a trace clock). */
struct rtb_clock_pair {
	uint64_t counter;
	uint64_t time_ns;
	uint64_t error_ticks;
};

struct rtb_clock_pair rtb_clock_pair_read(void);
/* The record name of the first capability in `needed` that `have` lacks;
 * NULL when none is missing. */
const char *rtb_caps_first_missing(uint32_t needed, uint32_t have);
/* An `end` record of scope "scenario" or "run". With `first` (the pair read
 * when the scenario started), a second pair is read now and both are
 * written as clock_pairs. */
void rtb_emit_end(const char *scope, const char *scenario, const char *status, const char *reason,
		  uint64_t elapsed_ticks, const struct rtb_clock_pair *first);
void rtb_emit_meta(const struct rtb_args *a, const struct rtb_counter_step *step);
/* One `catalog` record per compiled-in unit. */
void rtb_emit_catalog(void);

#endif /* RTB_RUNNER_H */
