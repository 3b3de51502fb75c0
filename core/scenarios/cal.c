/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CAL: calibration.
 *
 * cal.timestamp (CAL-P-TRC): the cost of taking one timestamp, in the shape
 * every sample is taken in (rtb/sample.h): the two counter reads of a timed
 * call around a call of a function that returns at once
 * (rtb_timing_sample()), 30,000 times; a sample is the raw difference (no
 * overhead is subtracted here: this is the overhead). Its minimum is what
 * the runner subtracts from every other timed sample of the run, and the
 * overhead this run's own start-up calibration finds (the same samples).
 * Metric timestamp_inline: two counter reads back to back written inline
 * (rtb_timing_inline_pair()), 30,000 times; its minimum is the inline
 * overhead, subtracted from the samples that still read the counter inline
 * in the scenario's own code (a recorder's shape, rtb_recorder_timed_calls()).
 * Runs at relative priority 0 on the measurement CPU; no other thread.
 *
 * cal.cpu (CAL-P-CPU): processing power and cache effect, so results can be
 * compared across platforms. One thread at relative priority 0.
 *  - Code: a long straight-line block (128 functions of 64 dependent
 *    xor-shift-multiply steps each, about 100 KiB of code, larger than
 *    common L1 instruction caches; no loops, no data-dependent branches)
 *    called through one entry. Timed from a counter read before the call
 *    to one after it: first load (the first execution in this process,
 *    after flushing its lines), cold again (lines flushed before each run),
 *    warm (run right after a previous run).
 *  - Data: one write pass and one read pass (64-bit volatile accesses)
 *    over 16 KiB, timed by counter reads around the pass. "No cache":
 *    consecutive 16 KiB slices of a buffer larger than every cache, each
 *    flushed before its pass (and last touched a whole buffer earlier);
 *    "cached": a 16 KiB buffer passed over again and again (stays in L1).
 *  Cold means flushed with rtb_port_cache_flush() where the port can
 *  (RTB_CAP_CACHE_FLUSH), else evicted by a read and write sweep over the
 *  large buffer; the method used is reported. Ratios (no cache / cached)
 *  use medians.
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
		.title = "Cost of one timestamp (the two reads of a timed call of nothing)",
		.unit = "ticks",
	};
	struct rtb_metric mi = {
		.scenario = id,
		.label = "CAL-P-TRC",
		.metric = "timestamp_inline",
		.title = "Cost of one inline timestamp (two back-to-back counter reads)",
		.unit = "ticks",
	};
	struct rtb_recorder r, ri;

	if (rtb_recorder_init_pair(&r, &m, &ri, &mi, rtb_warmup_for(n), ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	rtb_recorder_timed_calls(&r); /* its shape; nothing is subtracted here */
	for (uint64_t i = 0; i < n + r.warmup_target; i++) {
		struct rtb_span s;
		rtb_timing_sample(&s);
		rtb_recorder_add_span(&r, s.t1 - s.t0, s.t0, s.t1, RTB_SPAN_COUNTER);
	}
	for (uint64_t i = 0; i < n + ri.warmup_target; i++) {
		struct rtb_span s;
		rtb_timing_inline_pair(&s);
		rtb_recorder_add_span(&ri, s.t1 - s.t0, s.t0, s.t1, RTB_SPAN_COUNTER);
	}
	rtb_emit_result(&r);
	rtb_emit_result(&ri);

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
	rtb_json_str(j, "nominal resolution (one tick)");
	uint64_t ps = rtb_timing.hz ? (uint64_t)(1e12 / (double)rtb_timing.hz + 0.5) : 0;
	rtb_fmt(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ps / 1000),
		(unsigned long long)(ps % 1000));
	rtb_json_str(j, buf);
	rtb_json_str(j, "ns");
	rtb_json_arr_end(j);
	/* what the counter really resolves: it may move by several ticks */
	uint64_t step = rtb_timing.step_ticks ? rtb_timing.step_ticks : 1;
	rtb_json_arr_begin(j);
	rtb_json_str(j, "effective resolution (measured step)");
	ps = rtb_timing.hz ? (uint64_t)(1e12 * (double)step / (double)rtb_timing.hz + 0.5) : 0;
	rtb_fmt(buf, sizeof(buf), "%llu.%03llu ns (%llu ticks)", (unsigned long long)(ps / 1000),
		(unsigned long long)(ps % 1000), (unsigned long long)step);
	rtb_json_str(j, buf);
	rtb_json_str(j, "");
	rtb_json_arr_end(j);
	if (info->counter_step_ticks != 0) {
		rtb_json_arr_begin(j);
		rtb_json_str(j, "step declared by the port");
		rtb_fmt(buf, sizeof(buf), "%llu", (unsigned long long)info->counter_step_ticks);
		rtb_json_str(j, buf);
		rtb_json_str(j, "ticks");
		rtb_json_arr_end(j);
	}
	rtb_json_arr_begin(j);
	rtb_json_str(j, "minimum (subtracted as overhead)");
	char ns_buf[32];
	rtb_fmt_ns(ns_buf, sizeof(ns_buf), rtb_ticks_to_ns(r.min));
	rtb_fmt(buf, sizeof(buf), "%s (%llu ticks)", ns_buf, (unsigned long long)r.min);
	rtb_json_str(j, buf);
	rtb_json_str(j, "");
	rtb_json_arr_end(j);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "how the frequency was obtained");
	rtb_json_str(j, info->counter_note);
	rtb_json_str(j, "");
	rtb_json_arr_end(j);
	rtb_table_end(j);
	rtb_recorder_free(&r);
	rtb_recorder_free(&ri);
	return RTB_OK;
}

static const struct rtb_option_spec cal_timestamp_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_cal_timestamp = {
	.name = "cal.timestamp",
	.ids = {{"cal.timestamp", "CAL-P-TRC"}},
	.summary = "Cost of taking a timestamp, as a timed call and inline; each minimum is "
		   "subtracted from the samples of its shape",
	.estimate_ms = {50, 50, 200},
	.deadline_ms = {10000, 10000, 20000},
	.options = cal_timestamp_options,
	.run = run_timestamp,
};

/* ---- cal.cpu ------------------------------------------------------------------ */

/* One step of the block: a dependent xor-shift-multiply the compiler cannot
 * fold into its neighbours. Each function gets its own odd multiplier so
 * that no two functions are identical (and merged). */
#define CPU_STEP(k)   \
	x ^= x >> 15; \
	x *= 0x2c1b3c6du + 2u * (k);
#define CPU_STEP4(k) CPU_STEP(k) CPU_STEP(k) CPU_STEP(k) CPU_STEP(k)
#define CPU_STEP16(k) CPU_STEP4(k) CPU_STEP4(k) CPU_STEP4(k) CPU_STEP4(k)
#define CPU_STEP64(k) CPU_STEP16(k) CPU_STEP16(k) CPU_STEP16(k) CPU_STEP16(k)
#define CPU_FN(k)                                                           \
	static __attribute__((noinline)) uint32_t cpu_block_##k(uint32_t x) \
	{                                                                   \
		CPU_STEP64(k)                                               \
		return x;                                                   \
	}
#define CPU_FN8(a)   \
	CPU_FN(a##0) \
	CPU_FN(a##1) CPU_FN(a##2) CPU_FN(a##3) CPU_FN(a##4) CPU_FN(a##5) CPU_FN(a##6) CPU_FN(a##7)
#define CPU_REF(k) cpu_block_##k,
#define CPU_REF8(a)   \
	CPU_REF(a##0) \
	CPU_REF(a##1) \
	CPU_REF(a##2) CPU_REF(a##3) CPU_REF(a##4) CPU_REF(a##5) CPU_REF(a##6) CPU_REF(a##7)
#define CPU_CALL(k) x = cpu_block_##k(x);
#define CPU_CALL8(a)   \
	CPU_CALL(a##0) \
	CPU_CALL(a##1) \
	CPU_CALL(a##2) CPU_CALL(a##3) CPU_CALL(a##4) CPU_CALL(a##5) CPU_CALL(a##6) CPU_CALL(a##7)
#define CPU_FUNCTIONS 128u
#define CPU_STEPS (CPU_FUNCTIONS * 64u)
#define CPU_STEP_BYTES_GUESS 16u

CPU_FN8(1)
CPU_FN8(2)
CPU_FN8(3)
CPU_FN8(4)
CPU_FN8(5)
CPU_FN8(6)
CPU_FN8(7)
CPU_FN8(8)
CPU_FN8(9)
CPU_FN8(10)
CPU_FN8(11)
CPU_FN8(12)
CPU_FN8(13)
CPU_FN8(14)
CPU_FN8(15)
CPU_FN8(16)

static uint32_t (*const cpu_blocks[CPU_FUNCTIONS])(uint32_t) = {
	CPU_REF8(1) CPU_REF8(2) CPU_REF8(3) CPU_REF8(4) CPU_REF8(5) CPU_REF8(6) CPU_REF8(7)
		CPU_REF8(8) CPU_REF8(9) CPU_REF8(10) CPU_REF8(11) CPU_REF8(12) CPU_REF8(13)
			CPU_REF8(14) CPU_REF8(15) CPU_REF8(16)};

/* The whole block: every function once, in order. */
static __attribute__((noinline)) uint32_t cpu_block_run(uint32_t x)
{
	CPU_CALL8(1)
	CPU_CALL8(2)
	CPU_CALL8(3)
	CPU_CALL8(4)
	CPU_CALL8(5)
	CPU_CALL8(6)
	CPU_CALL8(7)
	CPU_CALL8(8)
	CPU_CALL8(9)
	CPU_CALL8(10)
	CPU_CALL8(11)
	CPU_CALL8(12)
	CPU_CALL8(13)
	CPU_CALL8(14)
	CPU_CALL8(15)
	CPU_CALL8(16)
	return x;
}

/* Called through a volatile pointer, so the compiler neither inlines the
 * block nor computes its result ahead. */
static uint32_t (*volatile cpu_entry)(uint32_t) = cpu_block_run;
static volatile uint64_t cpu_sink;

/* Where the block's code lies: from the lowest to the highest function
 * address plus one function's average size; an estimate from the step
 * count if the functions are not laid out together. */
static void block_range(uintptr_t *start, size_t *bytes, bool *measured)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (uint32_t i = 0; i < CPU_FUNCTIONS; i++) {
		uintptr_t a = (uintptr_t)cpu_blocks[i];
		lo = RTB_MIN(lo, a);
		hi = RTB_MAX(hi, a);
	}
	size_t span = (size_t)(hi - lo) / (CPU_FUNCTIONS - 1) * CPU_FUNCTIONS;
	*measured = hi > lo && span < 16u * 1024 * 1024;
	*start = lo;
	*bytes = *measured ? span : (size_t)CPU_STEPS * CPU_STEP_BYTES_GUESS;
}

static __attribute__((noinline)) void write_pass(volatile uint64_t *p, size_t words, uint64_t v)
{
	for (size_t i = 0; i < words; i++)
		p[i] = v + i;
}

static __attribute__((noinline)) uint64_t read_pass(const volatile uint64_t *p, size_t words)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < words; i++)
		sum += p[i];
	return sum;
}

struct cpu_setup {
	bool flush; /* rtb_port_cache_flush() available */
	uint64_t *big;
	size_t big_bytes;
	uint64_t *small;
	size_t pass_bytes;
	uintptr_t code;
	size_t code_bytes;
	bool code_measured;
	uint64_t cache_max; /* largest cache the port reports, 0: unknown */
};

/* Make code or data cold: flush its lines, or sweep the large buffer. */
static void make_cold(const struct cpu_setup *su, const void *p, size_t bytes)
{
	if (su->flush && rtb_port_cache_flush(p, bytes) == RTB_OK)
		return;
	size_t words = su->big_bytes / sizeof(uint64_t);
	cpu_sink += read_pass(su->big, words);
	write_pass(su->big, words, cpu_sink);
}

static int cpu_recorder(struct rtb_ctx *ctx, struct rtb_recorder *r, const char *metric,
			const char *title, size_t bytes, uint64_t samples, uint32_t warmup)
{
	struct rtb_metric m = {.scenario = "cal.cpu",
			       .label = "CAL-P-CPU",
			       .metric = metric,
			       .title = title,
			       .unit = "ticks"};
	rtb_metric_param(&m, "bytes", (int64_t)bytes);
	if (rtb_recorder_init(r, &m, warmup, (uint32_t)RTB_MIN((uint64_t)ctx->raw_max, samples)) !=
	    RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	return RTB_OK;
}

enum cpu_metric {
	CPU_FIRST,
	CPU_CODE_COLD,
	CPU_CODE_WARM,
	CPU_WRITE_COLD,
	CPU_WRITE_WARM,
	CPU_READ_COLD,
	CPU_READ_WARM,
	CPU_METRICS
};

static int cpu_measure(struct rtb_ctx *ctx, const struct cpu_setup *su, struct rtb_recorder *r)
{
	uint64_t runs = rtb_ctx_count(ctx, "iterations", 50, 500, 5000);
	uint64_t passes = rtb_ctx_count(ctx, "cal.cpu.passes", 1000, 10000, 100000);
	size_t slices = su->big_bytes / su->pass_bytes;
	size_t words = su->pass_bytes / sizeof(uint64_t);
	const void *code = (const void *)su->code;
	int rc = RTB_OK;

	static const struct {
		const char *metric, *title;
	} names[CPU_METRICS] = {
		{"code.first_load", "Straight-line code block, first execution (caches flushed)"},
		{"code.cold",
		 "Straight-line code block, cold again (pages mapped, caches flushed)"},
		{"code.warm", "Straight-line code block, warm (run again at once)"},
		{"data.write.no_cache", "Write pass over 16 KiB not in any cache"},
		{"data.write.cached", "Write pass over 16 KiB in the L1 cache"},
		{"data.read.no_cache", "Read pass over 16 KiB not in any cache"},
		{"data.read.cached", "Read pass over 16 KiB in the L1 cache"},
	};
	uint64_t counts[CPU_METRICS] = {1, runs, runs, slices, passes, slices, passes};
	for (int k = 0; k < CPU_METRICS && rc == RTB_OK; k++) {
		bool code_metric = k <= CPU_CODE_WARM;
		bool warm = k == CPU_CODE_WARM || k == CPU_WRITE_WARM || k == CPU_READ_WARM;
		rc = cpu_recorder(ctx, &r[k], names[k].metric, names[k].title,
				  code_metric ? su->code_bytes : su->pass_bytes, counts[k],
				  warm ? rtb_warmup_for(counts[k]) : 0);
		if (rc != RTB_OK) {
			while (k-- > 0)
				rtb_recorder_free(&r[k]);
			return rc;
		}
	}

	/* code: the first run in this process, then cold, then warm */
	uint32_t x = (uint32_t)rtb_port_counter_read();
	make_cold(su, code, su->code_bytes);
	uint64_t t0 = rtb_port_counter_read();
	x = cpu_entry(x);
	uint64_t t1 = rtb_port_counter_read();
	rtb_recorder_add_interval(&r[CPU_FIRST], t0, t1);
	for (uint64_t i = 0; i < runs && !rtb_ctx_expired(ctx); i++) {
		make_cold(su, code, su->code_bytes);
		t0 = rtb_port_counter_read();
		x = cpu_entry(x);
		t1 = rtb_port_counter_read();
		rtb_recorder_add_interval(&r[CPU_CODE_COLD], t0, t1);
	}
	x = cpu_entry(x);
	for (uint64_t i = 0; i < runs + r[CPU_CODE_WARM].warmup_target; i++) {
		t0 = rtb_port_counter_read();
		x = cpu_entry(x);
		t1 = rtb_port_counter_read();
		rtb_recorder_add_interval(&r[CPU_CODE_WARM], t0, t1);
	}
	cpu_sink += x;

	/* data, no cache: every slice of the large buffer in turn, writes then
	 * reads; each slice was last touched a whole buffer ago */
	for (size_t s = 0; s < slices && !rtb_ctx_expired(ctx); s++) {
		uint64_t *p = su->big + s * words;
		if (su->flush)
			rtb_port_cache_flush(p, su->pass_bytes);
		t0 = rtb_port_counter_read();
		write_pass(p, words, s);
		t1 = rtb_port_counter_read();
		rtb_recorder_add_interval(&r[CPU_WRITE_COLD], t0, t1);
	}
	for (size_t s = 0; s < slices && !rtb_ctx_expired(ctx); s++) {
		uint64_t *p = su->big + s * words;
		if (su->flush)
			rtb_port_cache_flush(p, su->pass_bytes);
		t0 = rtb_port_counter_read();
		cpu_sink += read_pass(p, words);
		t1 = rtb_port_counter_read();
		rtb_recorder_add_interval(&r[CPU_READ_COLD], t0, t1);
	}
	/* data, cached: the small buffer over and over */
	write_pass(su->small, words, 1);
	for (uint64_t i = 0; i < passes + r[CPU_WRITE_WARM].warmup_target; i++) {
		t0 = rtb_port_counter_read();
		write_pass(su->small, words, i);
		t1 = rtb_port_counter_read();
		rtb_recorder_add_interval(&r[CPU_WRITE_WARM], t0, t1);
	}
	for (uint64_t i = 0; i < passes + r[CPU_READ_WARM].warmup_target; i++) {
		t0 = rtb_port_counter_read();
		cpu_sink += read_pass(su->small, words);
		t1 = rtb_port_counter_read();
		rtb_recorder_add_interval(&r[CPU_READ_WARM], t0, t1);
	}
	return RTB_OK;
}

static void ratio_row(struct rtb_json *j, const char *what, uint64_t no_cache, uint64_t cached,
		      double *sum, int *n)
{
	double ratio = cached > 0 ? (double)no_cache / (double)cached : 0.0;

	rtb_json_arr_begin(j);
	rtb_json_str(j, what);
	rtb_json_u64(j, no_cache);
	rtb_json_u64(j, cached);
	rtb_json_dbl(j, ratio);
	rtb_json_arr_end(j);
	if (sum != NULL && cached > 0) {
		*sum += ratio;
		(*n)++;
	}
}

static void text_row(struct rtb_json *j, const char *what, const char *value)
{
	rtb_json_arr_begin(j);
	rtb_json_str(j, what);
	rtb_json_str(j, value);
	rtb_json_arr_end(j);
}

static void cpu_tables(const struct cpu_setup *su, const struct rtb_recorder *r)
{
	static const struct rtb_column cols[] = {
		{"test", ""}, {"no_cache", "ticks"}, {"cached", "ticks"}, {"ratio", "ratio"}};
	double sum = 0;
	int n = 0;
	uint64_t med[CPU_METRICS];

	for (int k = 0; k < CPU_METRICS; k++)
		med[k] = rtb_recorder_percentile(&r[k], 0.5);
	struct rtb_json *j = rtb_table_begin(
		"cal.cpu", "cache_effect",
		"Cache effect: medians without and with the cache, and their ratio (CAL-P-CPU)",
		cols, 4);
	ratio_row(j, "code (straight-line block), cold again / warm", med[CPU_CODE_COLD],
		  med[CPU_CODE_WARM], &sum, &n);
	ratio_row(j, "data write pass", med[CPU_WRITE_COLD], med[CPU_WRITE_WARM], &sum, &n);
	ratio_row(j, "data read pass", med[CPU_READ_COLD], med[CPU_READ_WARM], &sum, &n);
	ratio_row(j, "code first load / warm (not in the average)", r[CPU_FIRST].max,
		  med[CPU_CODE_WARM], NULL, NULL);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "average cache effect (code, write, read)");
	rtb_json_null(j);
	rtb_json_null(j);
	rtb_json_dbl(j, n > 0 ? sum / n : 0.0);
	rtb_json_arr_end(j);
	rtb_table_end(j);

	static const struct rtb_column mcols[] = {{"property", ""}, {"value", ""}};
	char buf[RTB_LINE_MAX];
	j = rtb_table_begin("cal.cpu", "method", "How cal.cpu made caches cold", mcols, 2);
	if (su->flush)
		rtb_fmt(buf, sizeof(buf), "cache lines flushed (rtb_port_cache_flush)");
	else
		rtb_fmt(buf, sizeof(buf),
			"no cache flush on this port: evicted by a read and write sweep over %zu "
			"bytes",
			su->big_bytes);
	text_row(j, "cold method", buf);
	rtb_fmt(buf, sizeof(buf), "%zu bytes (%s), %u functions of 64 steps", su->code_bytes,
		su->code_measured ? "span of the functions' addresses" : "estimated",
		CPU_FUNCTIONS);
	text_row(j, "code block", buf);
	text_row(j, "first load",
		 (rtb_port_info()->caps & RTB_CAP_MEMORY_LOCKED)
			 ? "first execution in this process; its pages were already mapped "
			   "(memory locked and prefaulted), so no page faults, only cold caches"
			 : "first execution in this process; memory is not locked, so page faults "
			   "may add to it");
	rtb_fmt(buf, sizeof(buf), "%zu bytes, in %zu-byte slices", su->big_bytes, su->pass_bytes);
	text_row(j, "no-cache buffer", buf);
	if (su->cache_max != 0)
		rtb_fmt(buf, sizeof(buf), "%llu bytes (port)", (unsigned long long)su->cache_max);
	else
		rtb_fmt(buf, sizeof(buf), "not stated by the port");
	text_row(j, "largest cache", buf);
	rtb_fmt(buf, sizeof(buf), "%zu bytes, passed over repeatedly", su->pass_bytes);
	text_row(j, "cached buffer", buf);
	rtb_table_end(j);
}

static int run_cpu(struct rtb_ctx *ctx)
{
	struct cpu_setup su;
	struct rtb_recorder r[CPU_METRICS];
	char prop[32];
	uint64_t v;

	rtb_memset(&su, 0, sizeof(su));
	su.flush = (rtb_port_info()->caps & RTB_CAP_CACHE_FLUSH) != 0;
	su.pass_bytes = 16 * 1024;
	if (rtb_port_property("cache_bytes_max", prop, sizeof(prop)) == RTB_OK &&
	    rtb_parse_u64(prop, &v))
		su.cache_max = v;
	uint64_t want = RTB_MAX((uint64_t)64 * 1024 * 1024, 2 * su.cache_max);
	want = rtb_ctx_count(ctx, "cal.cpu.big_bytes", want, want, want);
	for (; want >= 4 * su.pass_bytes; want /= 2) {
		want -= want % su.pass_bytes;
		su.big = rtb_port_mem_alloc((size_t)want);
		if (su.big != NULL)
			break;
	}
	su.small = rtb_port_mem_alloc(su.pass_bytes);
	if (su.big == NULL || su.small == NULL) {
		if (su.big != NULL)
			rtb_port_mem_free(su.big);
		if (su.small != NULL)
			rtb_port_mem_free(su.small);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the data buffers");
	}
	su.big_bytes = (size_t)want;
	if (su.cache_max != 0 && su.big_bytes < 2 * su.cache_max)
		rtb_emit_log("cal.cpu", "warning",
			     "the no-cache buffer (%zu bytes) is not much larger than the largest "
			     "cache (%llu bytes): no-cache figures may be partly cached",
			     su.big_bytes, (unsigned long long)su.cache_max);
	/* fault the buffers in before anything is timed */
	write_pass(su.big, su.big_bytes / sizeof(uint64_t), 0);
	write_pass(su.small, su.pass_bytes / sizeof(uint64_t), 0);
	block_range(&su.code, &su.code_bytes, &su.code_measured);

	int rc = cpu_measure(ctx, &su, r);
	if (rc == RTB_OK) {
		for (int k = 0; k < CPU_METRICS; k++)
			rtb_emit_result(&r[k]);
		cpu_tables(&su, r);
		for (int k = 0; k < CPU_METRICS; k++)
			rtb_recorder_free(&r[k]);
	}
	rtb_port_mem_free(su.big);
	rtb_port_mem_free(su.small);
	return rc;
}

static const struct rtb_option_spec cal_cpu_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000u, "cold/warm runs of the code block"),
	RTB_OPT_LEN("cal.cpu.passes", 1u, 10000000000ull, "passes over the small buffer"),
	RTB_OPT_N("cal.cpu.big_bytes", 4096u, 68719476736ull,
		  "size of the buffer larger than the caches"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_cal_cpu = {
	.name = "cal.cpu",
	.ids = {{"cal.cpu", "CAL-P-CPU"}},
	.summary = "Processing power and cache effect: straight-line code and data passes, "
		   "cold and warm",
	.estimate_ms = {300, 1500, 10000},
	.deadline_ms = {20000, 60000, 120000},
	.options = cal_cpu_options,
	.run = run_cpu,
};
