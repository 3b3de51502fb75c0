/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CAL: calibration.
 *
 * cal.timestamp (CAL-P-TRC): the cost of taking one timestamp. Two counter
 * reads back to back, 30,000 times; a sample is the raw difference (no
 * overhead is subtracted here: this is the overhead). Its minimum is what
 * the runner subtracts from every other timed sample of the run. Runs at
 * relative priority 0 on the measurement CPU; no other thread.
 */
#include "rtb/core.h"

static int run_timestamp(struct rtb_ctx *ctx)
{
	const char *id = "cal.timestamp";
	uint64_t n = rtb_ctx_count(ctx, "iterations", 30000, 30000, 300000);
	struct rtb_metric m = {
		.scenario = id,
		.label = "CAL-P-TRC",
		.metric = "timestamp",
		.title = "Cost of one timestamp (two back-to-back counter reads)",
		.unit = "ticks",
	};
	struct rtb_recorder r;

	if (rtb_recorder_init(&r, &m, rtb_warmup_for(n), ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorder");
	for (uint64_t i = 0; i < n + r.warmup_target; i++) {
		uint64_t t0 = rtb_port_counter_read();
		uint64_t t1 = rtb_port_counter_read();
		rtb_recorder_add(&r, t1 - t0);
	}
	rtb_emit_result(&r);

	const struct rtb_port_info *info = rtb_port_info();
	static const struct rtb_column cols[] = {{"property", ""}, {"value", ""}, {"unit", ""}};
	char buf[64];
	struct rtb_json *j = rtb_table_begin(id, "counter", "Timestamp counter", cols, 3);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "counter");
	rtb_json_str(j, info->counter);
	rtb_json_str(j, "");
	rtb_json_arr_end(j);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "frequency");
	rtb_fmt(buf, sizeof(buf), "%llu", (unsigned long long)rtb_timing.hz);
	rtb_json_str(j, buf);
	rtb_json_str(j, "Hz");
	rtb_json_arr_end(j);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "resolution");
	uint64_t ps = rtb_timing.hz ? (uint64_t)(1e12 / (double)rtb_timing.hz + 0.5) : 0;
	rtb_fmt(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ps / 1000),
		(unsigned long long)(ps % 1000));
	rtb_json_str(j, buf);
	rtb_json_str(j, "ns per tick");
	rtb_json_arr_end(j);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "minimum (subtracted as overhead)");
	rtb_fmt(buf, sizeof(buf), "%llu", (unsigned long long)r.min);
	rtb_json_str(j, buf);
	rtb_json_str(j, "ticks");
	rtb_json_arr_end(j);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "how the frequency was obtained");
	rtb_json_str(j, info->counter_note);
	rtb_json_str(j, "");
	rtb_json_arr_end(j);
	rtb_table_end(j);
	rtb_recorder_free(&r);
	return RTB_OK;
}

const struct rtb_scenario rtb_scn_cal_timestamp = {
	.name = "cal.timestamp",
	.ids = {{"cal.timestamp", "CAL-P-TRC"}},
	.summary = "Cost of taking a timestamp; its minimum is subtracted from every sample",
	.estimate_ms = {50, 50, 200},
	.deadline_ms = {10000, 10000, 20000},
	.run = run_timestamp,
};
