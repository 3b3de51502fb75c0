/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target (libFuzzer) for the core's own input: the command line of
 * rtbench-core (rtb_main) and the scenario options it passes on. The input
 * is split at NUL bytes into arguments. The core runs against the fake port
 * of the unit tests with a small catalog whose scenarios read declared
 * options of every kind (count, choice, flag) and emit records, so the
 * argument parser, the option checks, the option readers and the JSON
 * emitter see arbitrary bytes. Whatever the input, nothing may crash, leak
 * or overflow (AddressSanitizer, UndefinedBehaviorSanitizer), and the exit
 * status is 0, 1 or 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_port.h"
#include "rtb/core.h"

static const struct rtb_option_spec fuzz_options[] = {
	RTB_OPT_N("iterations", 1u, 1000u, "samples"),
	RTB_OPT_WORD("fuzz.kind", "normal|eager|lazy", "a choice"),
	{"fuzz.flag", RTB_OPT_FLAG, 0, 0, NULL, "a flag", false},
	RTB_OPT_N("fuzz.big", 0u, UINT64_MAX, "the whole range"),
	RTB_OPT_END,
};

static int run_reader(struct rtb_ctx *ctx)
{
	static const char *const kinds[] = {"normal", "eager", "lazy"};
	struct rtb_metric m = {.scenario = "fuzz.reader", .metric = "m", .unit = "ticks"};
	struct rtb_recorder r;
	uint64_t n = rtb_ctx_count(ctx, "iterations", 3, 5, 7);
	int kind = rtb_ctx_choice(ctx, "fuzz.kind", kinds, 3);
	bool flag = rtb_ctx_flag(ctx, "fuzz.flag");
	uint64_t big = rtb_ctx_count(ctx, "fuzz.big", 0, 0, 0);
	const char *raw = rtb_ctx_option(ctx, "fuzz.kind");

	if (kind < 0)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "fuzz.kind is %s", raw);
	if (rtb_recorder_init(&r, &m, 1, ctx->raw_max < 64 ? ctx->raw_max : 64) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
	for (uint64_t i = 0; i < n + 1 && i < 1000; i++)
		rtb_recorder_add(&r, big ^ (i * 2654435761u));
	rtb_emit_result(&r);
	rtb_recorder_free(&r);
	rtb_emit_log("fuzz.reader", "info", "kind %d flag %d raw %s", kind, flag ? 1 : 0,
		     raw != NULL ? raw : "(none)");
	return RTB_OK;
}

static int run_plain(struct rtb_ctx *ctx)
{
	(void)ctx;
	return RTB_OK;
}

static const struct rtb_scenario scn_reader = {
	.name = "fuzz.reader",
	.ids = {{"fuzz.reader", "FUZ-P-RDR"}},
	.summary = "reads every kind of option",
	.estimate_ms = {1, 1, 1},
	.deadline_ms = {1000, 1000, 1000},
	.options = fuzz_options,
	.run = run_reader,
};

static const struct rtb_scenario scn_plain = {
	.name = "fuzz.plain",
	.ids = {{"fuzz.plain", NULL}},
	.summary = "declares nothing",
	.estimate_ms = {1, 1, 1},
	.deadline_ms = {1000, 1000, 1000},
	.caps = RTB_CAP_MQ,
	.run = run_plain,
};

static const struct rtb_scenario *const catalog[] = {&scn_reader, NULL, &scn_plain};
const struct rtb_scenario *const *rtb_scenarios = catalog;
const uint32_t rtb_scenario_count = RTB_ARRAY_SIZE(catalog);

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	char *argv[ARGS_MAX + 2];
	int argc = 0;

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "rtbench-core";
	for (size_t i = 0; i <= size && argc < ARGS_MAX;) {
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	argv[argc] = NULL;

	fake_reset();
	fake_counter_step = 3;
	int rc = rtb_main(argc, argv);
	if (rc < 0 || rc > 2)
		abort(); /* the documented exit statuses only */
	free(copy);
	return 0;
}
