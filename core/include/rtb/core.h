/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench core API: what scenarios use besides the port contract.
 *
 *  - timing:   counter overhead and tick conversion (rtb_timing_*)
 *  - recorder: exact statistics, log-linear histogram, bounded raw series
 *  - emitter:  JSON Lines records written through rtb_port_console_write()
 *  - runner:   scenario descriptors, profiles, options, deadlines
 *  - building blocks several scenario families share
 *
 * The core is portable C11: it includes no OS header and reaches the OS only
 * through ports/rtb_port.h.
 */
#ifndef RTB_CORE_H
#define RTB_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtb/config.h"
#include "rtb_port.h"
#include "rtb/sample.h"

#define RTB_PROTOCOL_VERSION 1
/* Additions within version 1 that a reader may rely on when present:
 * 1 = `spans` in result records and `clock_pairs` in scenario end records;
 * 2 = `os_config` in the meta record. */
#define RTB_PROTOCOL_MINOR 2
#define RTB_CORE_VERSION "0.1.0"

/* ---- small helpers (no libc in the core) ----------------------------- */

size_t rtb_strlen(const char *s);
int rtb_strcmp(const char *a, const char *b);
bool rtb_str_starts(const char *s, const char *prefix);
void rtb_memset(void *p, int c, size_t n);
void rtb_memcpy(void *dst, const void *src, size_t n);
/* Parse a decimal unsigned integer; false on junk or overflow. */
bool rtb_parse_u64(const char *s, uint64_t *out);
/* Minimal formatter: %s %c %d %i %u %x %% with l/ll/z length modifiers and
 * an optional width for numbers ("%5u", zero-padded with "%03u").
 * Always NUL-terminates; returns the length written (truncated to len-1). */
size_t rtb_vfmt(char *buf, size_t len, const char *fmt, va_list ap);
size_t rtb_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A duration for humans: "850 ns", "52.300 us", "4.000 ms", "1.500 s". */
void rtb_fmt_ns(char *buf, size_t len, uint64_t ns);
/* Sort in place, ascending (heap sort: no recursion, no allocation). */
void rtb_sort_u64(uint64_t *v, size_t n);
double rtb_sqrt(double x);

#define RTB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Each argument may be evaluated twice: never pass a call with an effect
 * (a counter read, a port call). */
#define RTB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RTB_MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- 128-bit accumulator ----------------------------------------------- */

struct rtb_u128 {
	uint64_t lo;
	uint64_t hi;
};
void rtb_u128_add(struct rtb_u128 *acc, uint64_t v);
void rtb_u128_add_square(struct rtb_u128 *acc, uint64_t v);
double rtb_u128_to_double(struct rtb_u128 v);
/* Decimal digits of v into buf (at least 40 bytes). */
void rtb_u128_to_dec(struct rtb_u128 v, char *buf);

/* ---- timing -------------------------------------------------------------- */

struct rtb_timing {
	uint64_t hz; /* counter ticks per second */
	/* Two overheads, one per shape of timestamp code (rtb/sample.h): a
	 * sample subtracts the one its own code has (a recorder's shape). */
	uint64_t overhead_ticks;	/* minimum cost of one timed call of nothing */
	bool overhead_given;		/* true: passed in, false: calibrated here */
	uint64_t inline_overhead_ticks; /* minimum of back-to-back inline read pairs */
	bool inline_overhead_given;	/* true: passed in, false: calibrated here */
	/* The effective resolution: the counter moves in steps of step_ticks
	 * (1 for a counter that can show any tick); see rtb_counter_step. */
	uint64_t step_ticks;
};
extern struct rtb_timing rtb_timing;

/* Minimum over `samples` calibration samples (rtb_timing_sample(): the two
 * reads of a timed call around a call of nothing, rtb/sample.h). */
uint64_t rtb_timing_measure_overhead(uint32_t samples);
/* Minimum over `samples` back-to-back inline counter read pairs
 * (rtb_timing_inline_pair()): the overhead of a sample whose reads are
 * written inline in a scenario's code. */
uint64_t rtb_timing_measure_inline_overhead(uint32_t samples);

/* What the counter's own steps are, measured: the smallest non-zero
 * difference between two reads, and the greatest common divisor of all
 * the non-zero differences seen (reads spaced by varying amounts of work,
 * so that the differences are not all alike). A counter that moves in
 * steps of 20 ticks shows a divisor of 20; one that can show any tick, 1.
 * step_ticks is the divisor, or the port's declared step when the
 * measurement could not see one (no non-zero difference). */
struct rtb_counter_step {
	uint64_t step_ticks;	 /* the effective step (>= 1) */
	uint64_t gcd_ticks;	 /* measured divisor of the differences, 0 if none seen */
	uint64_t min_diff_ticks; /* smallest non-zero difference, 0 if none seen */
	uint64_t declared_ticks; /* the port's counter_step_ticks, 0 if none */
	uint64_t diffs;		 /* non-zero differences seen */
	bool agrees;		 /* no declaration, or the measured divisor is a multiple of it */
};
void rtb_counter_step_measure(uint32_t samples, struct rtb_counter_step *out);
/* The greatest common divisor (0 and x give x). */
uint64_t rtb_gcd_u64(uint64_t a, uint64_t b);
uint64_t rtb_ticks_to_ns(uint64_t ticks);
uint64_t rtb_ns_to_ticks(uint64_t ns);

/* ---- recorder ------------------------------------------------------------ */

/* Log-linear histogram over the whole uint64 range: values below 2^SUB_BITS
 * have a bucket each; above, each power of two is split into 2^(SUB_BITS-1)
 * equal buckets, so a bucket's width is at most 1/128 of its lower bound
 * (relative error under 0.8 %). No value is ever out of range: the last
 * bucket ends at UINT64_MAX. */
#define RTB_HIST_BUCKETS ((64 - RTB_HIST_SUB_BITS + 2) << (RTB_HIST_SUB_BITS - 1))
uint32_t rtb_hist_index(uint64_t v);
uint64_t rtb_hist_lower(uint32_t index);
uint64_t rtb_hist_upper(uint32_t index); /* inclusive */

#define RTB_PARAMS_MAX 4

struct rtb_param {
	const char *key;
	const char *str; /* string value, or NULL for the integer */
	int64_t num;
};

/* What a recorder measures. Strings are not copied: keep them alive. */
struct rtb_metric {
	const char *scenario; /* catalog id, e.g. "sem.wait.block" */
	const char *label;    /* classic label, e.g. "SEM-P-ARC", or NULL */
	const char *metric;   /* short name within the scenario, e.g. "acquire" */
	const char *title;    /* one line for humans */
	const char *unit;     /* "ticks", "ns", "count", "bytes", ... */
	struct rtb_param params[RTB_PARAMS_MAX];
	uint32_t nparams;
};

/* What a kept sample's start and stop are read from. */
enum rtb_span_clock {
	RTB_SPAN_NONE = 0,    /* the scenario had only the difference */
	RTB_SPAN_COUNTER = 1, /* rtb_port_counter_read() ticks */
	RTB_SPAN_TIME_NS = 2, /* rtb_port_time_ns() nanoseconds */
};

/* One sample kept whole: its value, its index (0-based, after warm-up) and
 * the start and stop readings it was computed from, so that what the OS did
 * during it can be looked up afterwards (a kernel trace on the same clock). */
struct rtb_kept_sample {
	uint64_t value;
	uint64_t index;
	uint64_t start;
	uint64_t stop;
	uint8_t clock; /* enum rtb_span_clock */
};

/* The worst RTB_KEEP_WORST samples of every metric are kept (a min-heap:
 * one comparison per sample once full), and RTB_KEEP_SPREAD samples spread
 * evenly over the run (every stride-th, the stride doubling when full),
 * from which the RTB_KEEP_MEDIAN closest to the median are emitted for
 * contrast. All of it after the sample is taken, never inside it. */

struct rtb_recorder {
	struct rtb_metric m;
	uint32_t warmup_target; /* samples to run but not count */
	uint32_t raw_max;	/* raw series capacity */
	uint64_t origin_ticks;	/* when recording started, for max_at */

	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t max_index;
	uint64_t max_at_ticks;
	struct rtb_u128 sum;
	struct rtb_u128 sum_sq;
	uint64_t clamped;
	uint64_t invalid;

	uint64_t warmup_count;
	uint64_t warmup_first;
	uint64_t warmup_min;
	uint64_t warmup_max;
	struct rtb_u128 warmup_sum;

	struct rtb_kept_sample worst[RTB_KEEP_WORST]; /* min-heap on value */
	uint32_t nworst;
	struct rtb_kept_sample spread[RTB_KEEP_SPREAD]; /* ascending index */
	uint32_t nspread;
	uint64_t spread_stride;

	uint64_t *hist; /* RTB_HIST_BUCKETS counters */
	uint64_t *raw;	/* raw_max values */
	uint32_t raw_len;
	/* The shape of the samples' timestamp code, which says which overhead
	 * they subtract: false (the default), reads written inline
	 * (rtb_timing.inline_overhead_ticks); true, the two reads of timed
	 * calls (RTB_TIMED, rtb_timing.overhead_ticks). */
	bool timed_calls;
};

/* Allocate buckets and raw series through the port (before any timed path)
 * and touch them so no page fault lands in a measurement. */
int rtb_recorder_init(struct rtb_recorder *r, const struct rtb_metric *m, uint32_t warmup,
		      uint32_t raw_max);
/* The two recorders of a scenario that times two operations per iteration,
 * with the same warm-up and raw series size: both are set up, or (error)
 * neither holds memory, and rtb_recorder_free() on either is harmless. */
int rtb_recorder_init_pair(struct rtb_recorder *a, const struct rtb_metric *ma,
			   struct rtb_recorder *b, const struct rtb_metric *mb, uint32_t warmup,
			   uint32_t raw_max);
/* Say that r's samples are the two reads of timed calls (RTB_TIMED,
 * rtb/sample.h), so they subtract the timed-call overhead; call after init,
 * before the first sample. Without it a recorder's samples are inline reads
 * and subtract the inline overhead. */
void rtb_recorder_timed_calls(struct rtb_recorder *r);
/* The overhead r's samples subtract (by its shape), in ticks. */
uint64_t rtb_recorder_overhead(const struct rtb_recorder *r);
/* Free the buffers; harmless on a recorder already freed or whose init
 * failed. */
void rtb_recorder_free(struct rtb_recorder *r);
/* Forget all samples, keep configuration and buffers. */
void rtb_recorder_reset(struct rtb_recorder *r);
/* Add one value (already in the metric's unit). */
void rtb_recorder_add(struct rtb_recorder *r, uint64_t value);
/* Add one value with the start and stop readings it came from (clock says
 * which clock); the recorder keeps them for the worst and median samples. */
void rtb_recorder_add_span(struct rtb_recorder *r, uint64_t value, uint64_t start, uint64_t stop,
			   enum rtb_span_clock clock);
/* Add t_stop - t_start - overhead, clamped at zero (and counted); the
 * counter readings are kept with the sample. */
void rtb_recorder_add_interval(struct rtb_recorder *r, uint64_t t_start, uint64_t t_stop);
/* Like rtb_recorder_add_interval() for a scenario that has only the
 * difference (ticks - overhead, clamped): no start or stop is kept. */
void rtb_recorder_add_ticks(struct rtb_recorder *r, uint64_t ticks);
/* The kept worst samples, largest first (ties: earliest first); returns
 * how many were written to out (at most n). */
uint32_t rtb_recorder_worst(const struct rtb_recorder *r, struct rtb_kept_sample *out, uint32_t n);
/* Up to n of the spread samples closest to `median` (nearest first, ties:
 * earliest first); returns how many. */
uint32_t rtb_recorder_near(const struct rtb_recorder *r, uint64_t median,
			   struct rtb_kept_sample *out, uint32_t n);
/* Count a sample that was taken but is not valid (disturbed, lost, ...). */
void rtb_recorder_add_invalid(struct rtb_recorder *r);
/* Percentile q in [0,1] from the histogram, clamped to [min, max]. */
uint64_t rtb_recorder_percentile(const struct rtb_recorder *r, double q);
double rtb_recorder_mean(const struct rtb_recorder *r);
/* Sample standard deviation, computed from the exact sums; valid while the
 * squared deviations from the mean add up to less than 2^128. */
double rtb_recorder_stddev(const struct rtb_recorder *r);
/* Warm-up size for n iterations: 1 %, at least 10 (never more than n/2). */
uint32_t rtb_warmup_for(uint64_t n);

/* Convenience for building metrics. */
void rtb_metric_param(struct rtb_metric *m, const char *key, int64_t value);
void rtb_metric_param_str(struct rtb_metric *m, const char *key, const char *value);

/* ---- JSON writer and emitter -------------------------------------------- */

#define RTB_JSON_DEPTH 16

struct rtb_json {
	char buf[RTB_JSON_BUF_BYTES];
	size_t len;
	uint32_t depth;
	bool first[RTB_JSON_DEPTH];
	bool after_key;
	int (*write)(const char *buf, size_t len); /* default: console */
};

void rtb_json_init(struct rtb_json *j);
void rtb_json_flush(struct rtb_json *j);
/* Terminate a JSON Lines record: newline, flush, reset for the next one. */
void rtb_json_end_line(struct rtb_json *j);
void rtb_json_obj_begin(struct rtb_json *j);
void rtb_json_obj_end(struct rtb_json *j);
void rtb_json_arr_begin(struct rtb_json *j);
void rtb_json_arr_end(struct rtb_json *j);
void rtb_json_key(struct rtb_json *j, const char *key);
void rtb_json_str(struct rtb_json *j, const char *s);
void rtb_json_u64(struct rtb_json *j, uint64_t v);
void rtb_json_i64(struct rtb_json *j, int64_t v);
void rtb_json_u128(struct rtb_json *j, struct rtb_u128 v);
void rtb_json_dbl(struct rtb_json *j, double v); /* 3 decimals; null if not finite */
void rtb_json_bool(struct rtb_json *j, bool v);
void rtb_json_null(struct rtb_json *j);
/* key + value shorthands */
void rtb_json_kstr(struct rtb_json *j, const char *key, const char *s);
void rtb_json_ku64(struct rtb_json *j, const char *key, uint64_t v);
void rtb_json_ki64(struct rtb_json *j, const char *key, int64_t v);
void rtb_json_kdbl(struct rtb_json *j, const char *key, double v);
void rtb_json_kbool(struct rtb_json *j, const char *key, bool v);

/* Start a record: {"v":1,"type":<type>,"scenario":<id or omitted>, ...
 * Finish it with rtb_record_end(), which writes the newline and flushes. */
struct rtb_json *rtb_record_begin(const char *type, const char *scenario);
void rtb_record_end(struct rtb_json *j);

/* Emit a `result` record and its `samples` chunks. */
void rtb_emit_result(const struct rtb_recorder *r);
/* Emit a `table` record: call rtb_table_begin(), then for each row
 * rtb_json_arr_begin(), one value per column, rtb_json_arr_end(); finish
 * with rtb_table_end(). Units: "ticks", "ns", "count", "" (text), ... */
struct rtb_column {
	const char *name;
	const char *unit;
};
struct rtb_json *rtb_table_begin(const char *scenario, const char *name, const char *title,
				 const struct rtb_column *columns, uint32_t ncolumns);
void rtb_table_end(struct rtb_json *j);
/* A "how it was measured" table: three text columns property, value,
 * unit. rtb_conditions_begin() opens it; rtb_conditions_row() adds a row
 * whose value is formatted. */
struct rtb_json *rtb_conditions_begin(const char *scenario, const char *title);
void rtb_conditions_row(struct rtb_json *j, const char *property, const char *unit, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));
/* Emit a `log` record. level: "debug", "info", "warning", "error". */
void rtb_emit_log(const char *scenario, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Emit a `log` record carrying progress (0..1) of a long scenario. */
void rtb_emit_progress(const char *scenario, double fraction, const char *message);

/* ---- behaviour verdicts ------------------------------------------------- */

enum rtb_outcome {
	RTB_PASS = 0,
	RTB_FAIL = 1,
	RTB_UNSUPPORTED = 2,
	RTB_INCONCLUSIVE = 3,
};
const char *rtb_outcome_name(enum rtb_outcome o);

enum rtb_control {
	RTB_CONTROL_NOT_RUN = 0, /* no control could be built (say why) */
	RTB_CONTROL_CAUGHT = 1,	 /* the broken variant was detected as failing */
	RTB_CONTROL_MISSED = 2,	 /* the broken variant passed: the test is blind */
};
const char *rtb_control_name(enum rtb_control c);
/* What the negative control's own outcome (the broken variant judged by the
 * same decision) makes it: fail is caught, pass is missed, anything else
 * (inconclusive, unsupported) not run. */
enum rtb_control rtb_control_of(enum rtb_outcome control_outcome);

struct rtb_verdict {
	const char *scenario; /* catalog id */
	const char *label;    /* classic label */
	const char *check;    /* name of the check within the scenario */
	enum rtb_outcome outcome;
	char reason[RTB_LINE_MAX];
	char evidence[RTB_EVIDENCE_MAX][RTB_LINE_MAX];
	uint32_t nevidence;
	enum rtb_control control;
	char control_description[RTB_LINE_MAX];
	char control_evidence[RTB_EVIDENCE_MAX][RTB_LINE_MAX];
	uint32_t ncontrol_evidence;
};

void rtb_verdict_init(struct rtb_verdict *v, const char *scenario, const char *label,
		      const char *check);
void rtb_verdict_reason(struct rtb_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rtb_verdict_evidence(struct rtb_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rtb_verdict_control_evidence(struct rtb_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Combine the check's raw outcome with its control: a PASS whose control
 * was missed or not run becomes INCONCLUSIVE. */
void rtb_verdict_settle(struct rtb_verdict *v);
void rtb_emit_verdict(const struct rtb_verdict *v);
/* The end of every behaviour check, once the check's outcome, reason and
 * evidence and its control's evidence are in v: `control` is the negative
 * control's own outcome (the broken variant judged by the same decision;
 * RTB_INCONCLUSIVE or RTB_UNSUPPORTED when it could not run), recorded as
 * caught, missed or not run (rtb_control_of()); fmt describes the broken
 * variant. The verdict is settled against its control (rtb_verdict_settle())
 * and emitted. */
void rtb_verdict_conclude(struct rtb_verdict *v, enum rtb_outcome control, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- profiles, options, scenarios --------------------------------------- */

enum rtb_profile {
	RTB_PROFILE_QUICK = 0,
	RTB_PROFILE_STANDARD = 1,
	RTB_PROFILE_ENDURANCE = 2,
	RTB_PROFILE_COUNT = 3,
};
const char *rtb_profile_name(enum rtb_profile p);
bool rtb_profile_parse(const char *name, enum rtb_profile *out);

struct rtb_option {
	const char *key; /* "iterations", "sem.behavior.release_order.fifo", ... */
	const char *value;
};

struct rtb_scenario;

struct rtb_ctx {
	const struct rtb_scenario *scenario;
	enum rtb_profile profile;
	uint32_t raw_max;
	uint64_t start_ticks;
	uint64_t budget_end_ticks; /* stop long loops here, before the watchdog */
	const struct rtb_option *options;
	uint32_t noptions;
	char reason[RTB_LINE_MAX]; /* why unsupported / error */
};

/* Profile-scaled count: the option `key` if given, else the profile's,
 * multiplied by rtb_length_ppm when `key` is declared with RTB_OPT_LEN. */
uint64_t rtb_ctx_count(const struct rtb_ctx *ctx, const char *key, uint64_t quick,
		       uint64_t standard, uint64_t endurance);
/* Option lookups (exact key). */
const char *rtb_ctx_option(const struct rtb_ctx *ctx, const char *key);
bool rtb_ctx_flag(const struct rtb_ctx *ctx, const char *key);
/* An option whose value is one of a few words: the index of its value in
 * words[0 .. nwords), 0 (the first word is the default) when the option is
 * not given, -1 when its value is none of them. */
int rtb_ctx_choice(const struct rtb_ctx *ctx, const char *key, const char *const *words,
		   uint32_t nwords);
/* True once the scenario's time budget is used up, or the host asked the
 * run to stop (rtb_port_stop_requested()). */
bool rtb_ctx_expired(const struct rtb_ctx *ctx);
/* Why rtb_ctx_expired() is true: "stop requested" or "time budget reached"
 * (for a warning that says where a scenario stopped). */
const char *rtb_ctx_expired_cause(const struct rtb_ctx *ctx);
/* The end test of a bounded measurement loop: rtb_ctx_expired(), and when
 * true a warning for the scenario "<cause> after <done> of <total> <what>"
 * ("time budget reached after 812 of 20200 iterations"). Call it between
 * timed sections, every iteration or every 2^k-th. */
bool rtb_ctx_expired_after(const struct rtb_ctx *ctx, uint64_t done, uint64_t total,
			   const char *what);
/* The "did the switch happen?" check: true if *counter already equals want.
 * Otherwise yield until it reaches or passes it (or the budget ends) and
 * return false: the sample that expected the switch is then invalid. */
bool rtb_ctx_settle(const struct rtb_ctx *ctx, volatile uint32_t *counter, uint32_t want);
/* After an invalid sample: yield until *counter reaches want or has gone
 * past it (wrap-safe), or the budget ends, so the next sample starts with
 * the other thread where it should be. */
void rtb_ctx_catch_up(const struct rtb_ctx *ctx, volatile uint32_t *counter, uint32_t want);
/* An info log saying what `threads` threads of the port's default stack
 * need ("1000 threads: 62.5 MiB of stacks at 64 KiB each"), when the port
 * says its stack size (property thread_stack_bytes). */
void rtb_note_thread_memory(const char *scenario, uint64_t threads);
/* The port's sentence for why it lacks `what`, a capability's name as the
 * meta record spells it ("policy_rr"; rtb_port_property "lacks.<what>"),
 * written to buf; NULL when the port gives none. */
const char *rtb_port_lacks(const char *what, char *buf, size_t len);
/* Set ctx->reason and return code (for `return rtb_ctx_fail(ctx, RTB_E_..)`). */
int rtb_ctx_fail(struct rtb_ctx *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct rtb_scenario_id {
	const char *id;	   /* catalog id */
	const char *label; /* classic label or NULL */
};

/* An option a scenario reads (rtb_ctx_count / _choice / _flag / _option):
 * declared in its descriptor, listed by `rtbench-core list`, checked
 * before the run (unknown keys and bad values are refused), and reading
 * an undeclared one is reported as an error of the scenario. */
enum rtb_option_kind {
	RTB_OPT_COUNT = 0,  /* a whole number within [min, max] */
	RTB_OPT_CHOICE = 1, /* one of `choices`, "a|b|c" (the first is the default) */
	RTB_OPT_FLAG = 2,   /* 1/0, true/false, yes/no, on/off */
};

struct rtb_option_spec {
	const char *key;
	enum rtb_option_kind kind;
	uint64_t min, max;   /* RTB_OPT_COUNT */
	const char *choices; /* RTB_OPT_CHOICE */
	const char *help;    /* one line */
	bool length;	     /* RTB_OPT_COUNT that sets how long the scenario runs
			      * (iterations, duration, rounds): the run's length
			      * scale multiplies the profile's value of it */
};

#define RTB_OPT_N(k, lo, hi, h)                                  \
	{                                                        \
		(k), RTB_OPT_COUNT, (lo), (hi), NULL, (h), false \
	}
/* A count that sets the scenario's length (see rtb_length_ppm). */
#define RTB_OPT_LEN(k, lo, hi, h)                               \
	{                                                       \
		(k), RTB_OPT_COUNT, (lo), (hi), NULL, (h), true \
	}
#define RTB_OPT_WORD(k, words, h)                              \
	{                                                      \
		(k), RTB_OPT_CHOICE, 0, 0, (words), (h), false \
	}
#define RTB_OPT_END                                          \
	{                                                    \
		NULL, RTB_OPT_COUNT, 0, 0, NULL, NULL, false \
	}

/* Is `value` a valid value of `spec`? On false, `why` says why (one clause). */
bool rtb_option_valid(const struct rtb_option_spec *spec, const char *value, char *why, size_t len);
/* The scenario's declaration of `key`, or NULL. */
const struct rtb_option_spec *rtb_option_find(const struct rtb_scenario *s, const char *key);

#define RTB_SCENARIO_IDS_MAX 8

struct rtb_scenario {
	const char *name; /* run unit name: the first catalog id it covers */
	struct rtb_scenario_id ids[RTB_SCENARIO_IDS_MAX]; /* ids it reports */
	const char *summary;
	uint32_t estimate_ms[RTB_PROFILE_COUNT]; /* typical run time */
	uint32_t deadline_ms[RTB_PROFILE_COUNT]; /* watchdog limit */
	uint32_t caps;				 /* RTB_CAP_* it needs */
	const struct rtb_option_spec *options;	 /* ends with RTB_OPT_END; may be NULL */
	/* Returns RTB_OK, RTB_E_UNSUPPORTED (reason set) or another error. */
	int (*run)(struct rtb_ctx *ctx);
};

/* The compiled-in catalog (core/scenarios/catalog.c). Entries may be NULL
 * (an image built with a reduced catalog): skip them. */
extern const struct rtb_scenario *const *rtb_scenarios;
extern const uint32_t rtb_scenario_count;
const struct rtb_scenario *rtb_scenario_find(const char *name);

/* Deadline of the scenarios run by rtb_main() when the controller moved it
 * (--deadline-ms, e.g. for a longer duration_ms); 0: the catalog's. The
 * time budget is 80 % of it. */
extern uint64_t rtb_deadline_override_ms;
/* The run's length scale in parts per million (`--length-ppm`, default
 * 1000000): rtb_ctx_count() multiplies the profile's value of every option
 * declared with RTB_OPT_LEN by it (a value the user gives is taken as it is),
 * and the scenario's deadline with it (rtb_scaled_deadline_ms). */
#define RTB_LENGTH_PPM_ONE 1000000u
extern uint32_t rtb_length_ppm;
/* The scenario's deadline in the profile under rtb_length_ppm: scaled with
 * it, but never below the quick profile's (nor above the profile's own when
 * the scale is below one). The core's time budget is 80 % of it. */
uint64_t rtb_scaled_deadline_ms(const struct rtb_scenario *s, enum rtb_profile profile);

/* Run one scenario and emit its records and its `end` record. */
int rtb_run_scenario(const struct rtb_scenario *s, enum rtb_profile profile, uint32_t raw_max,
		     const struct rtb_option *options, uint32_t noptions);

/* Command-line entry used by hosted ports:
 *   list
 *   run --profile P --scenario NAME [...] [--cpu N] [--raw-max N]
 *       [--overhead-ticks N] [--counter-hz N] [--set key=value ...]
 *       [--deadline-ms N] [--no-realtime] [--no-mlock]
 * Returns the process exit status (0 ok, 2 bad usage, 1 failure). */
int rtb_main(int argc, char **argv);

/* Session API. rtb_main() may be called again and again in one process (a
 * firmware image runs one command line after another, as its console asks):
 * each call starts with rtb_session_reset(), which puts every piece of the
 * core's state that outlives a call back to its initial value (timing
 * calibration, deadline override, length scale, said-once logs), and ends
 * with rtb_port_fini(). A port that drives the core itself without
 * rtb_main() calls it before each run. */
void rtb_session_reset(void);

/* ---- scenario building blocks (never on a timed path) ------------------- */

/* One measuring thread per CPU (option cpu_mask: bit N is CPU N). */
/* The CPUs a per-CPU scenario measures on: those of option cpu_mask, or
 * only the measurement CPU when it is absent or 0. Returns how many. */
uint32_t rtb_ctx_cpus(const struct rtb_ctx *ctx, int cpus[RTB_CPUS_MAX]);
/* True when the scenario was given cpu_mask (its metrics then carry a "cpu"
 * parameter). */
bool rtb_ctx_per_cpu(const struct rtb_ctx *ctx);
/* Run fn(args + i * arg_size) in one thread per CPU, cpus[i], at priority
 * prio, all started together, and wait until every one has returned. While
 * waiting, the calling thread calls tick(args, n) every tick_ns (a progress
 * record, never a measurement) when tick is not NULL. Returns RTB_OK, or the
 * error of the first thread that could not be created (then none runs fn).
 * The threads must end by themselves (rtb_ctx_expired()). */
int rtb_run_per_cpu(const int *cpus, uint32_t n, int prio, rtb_thread_fn fn, void *args,
		    size_t arg_size, void (*tick)(void *args, uint32_t n), uint64_t tick_ns);

/* Sleep in steps of 100 us until *counter reaches want; false once
 * timeout_ns has passed. For a controller waiting on threads that may not
 * run as expected. */
bool rtb_wait_count(volatile uint32_t *counter, uint32_t want, uint64_t timeout_ns);
/* Keep the CPU busy for `ticks` counter ticks (a thread that must hold the
 * CPU while others are ready), bounded by the counter alone. */
void rtb_spin_ticks(uint64_t ticks);
/* The "amortised" cross-check table of an uncontended-operation scenario:
 * the same operations timed once over many back-to-back calls. Add rows with
 * rtb_amortised_row() (operation, calls, total ticks, ticks per call: null
 * without calls), finish with rtb_table_end(). */
struct rtb_json *rtb_amortised_begin(const char *scenario);
void rtb_amortised_row(struct rtb_json *j, const char *operation, uint64_t calls, uint64_t ticks);

#endif /* RTB_CORE_H */
