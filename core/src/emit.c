/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The emitter: turns recorders, verdicts and logs into the versioned JSON
 * Lines records of docs/protocol.md. Records are emitted from one thread at
 * a time (the scenario's controlling thread), never from a timed path.
 */
#include "rtb/core.h"

static struct rtb_json record_writer;

struct rtb_json *rtb_record_begin(const char *type, const char *scenario)
{
	struct rtb_json *j = &record_writer;

	rtb_json_init(j);
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "v", RTB_PROTOCOL_VERSION);
	rtb_json_kstr(j, "type", type);
	if (scenario != NULL)
		rtb_json_kstr(j, "scenario", scenario);
	return j;
}

void rtb_record_end(struct rtb_json *j)
{
	rtb_json_obj_end(j);
	rtb_json_end_line(j);
}

static void emit_metric_head(struct rtb_json *j, const struct rtb_metric *m)
{
	if (m->label != NULL)
		rtb_json_kstr(j, "label", m->label);
	rtb_json_kstr(j, "metric", m->metric);
	if (m->title != NULL)
		rtb_json_kstr(j, "title", m->title);
	rtb_json_kstr(j, "unit", m->unit);
	rtb_json_key(j, "params");
	rtb_json_obj_begin(j);
	for (uint32_t i = 0; i < m->nparams; i++) {
		if (m->params[i].str != NULL)
			rtb_json_kstr(j, m->params[i].key, m->params[i].str);
		else
			rtb_json_ki64(j, m->params[i].key, m->params[i].num);
	}
	rtb_json_obj_end(j);
}

static const struct {
	const char *key;
	double q;
	uint64_t min_count;
} percentiles[] = {
	{"p50", 0.50, 1},	{"p90", 0.90, 10},	   {"p99", 0.99, 100},
	{"p99_9", 0.999, 1000}, {"p99_99", 0.9999, 10000},
};

static void emit_stats(struct rtb_json *j, const struct rtb_recorder *r)
{
	rtb_json_key(j, "stats");
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "count", r->count);
	if (r->count > 0) {
		rtb_json_ku64(j, "min", r->min);
		rtb_json_ku64(j, "max", r->max);
		rtb_json_kdbl(j, "mean", rtb_recorder_mean(r));
		rtb_json_kdbl(j, "stddev", rtb_recorder_stddev(r));
		for (uint32_t i = 0; i < RTB_ARRAY_SIZE(percentiles); i++) {
			rtb_json_key(j, percentiles[i].key);
			if (r->count >= percentiles[i].min_count)
				rtb_json_u64(j, rtb_recorder_percentile(r, percentiles[i].q));
			else
				rtb_json_null(j);
		}
		rtb_json_ku64(j, "max_index", r->max_index);
		rtb_json_ku64(j, "max_at_ticks", r->max_at_ticks);
	}
	rtb_json_key(j, "sum");
	rtb_json_u128(j, r->sum);
	rtb_json_key(j, "sum_sq");
	rtb_json_u128(j, r->sum_sq);
	rtb_json_ku64(j, "clamped", r->clamped);
	rtb_json_obj_end(j);

	rtb_json_key(j, "discarded");
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "warmup", r->warmup_count);
	rtb_json_ku64(j, "invalid", r->invalid);
	rtb_json_obj_end(j);

	rtb_json_key(j, "warmup");
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "count", r->warmup_count);
	if (r->warmup_count > 0) {
		rtb_json_ku64(j, "first", r->warmup_first);
		rtb_json_ku64(j, "min", r->warmup_min);
		rtb_json_ku64(j, "max", r->warmup_max);
		rtb_json_kdbl(j, "mean",
			      rtb_u128_to_double(r->warmup_sum) / (double)r->warmup_count);
	}
	rtb_json_obj_end(j);
}

static void bucket(struct rtb_json *j, uint64_t lower, uint64_t upper, uint64_t count)
{
	rtb_json_arr_begin(j);
	rtb_json_u64(j, lower);
	rtb_json_u64(j, upper);
	rtb_json_u64(j, count);
	rtb_json_arr_end(j);
}

static void emit_histogram(struct rtb_json *j, const struct rtb_recorder *r)
{
	/* Never finer than the counter's step: a tick-valued histogram's narrow
	 * buckets are merged into step-aligned ones (a counter that moves by 20
	 * ticks has no values in between to show). */
	uint64_t step = rtb_strcmp(r->m.unit, "ticks") == 0 && rtb_timing.step_ticks > 1
				? rtb_timing.step_ticks
				: 1;
	uint64_t lo = 0, hi = 0, count = 0;

	rtb_json_key(j, "histogram");
	rtb_json_obj_begin(j);
	rtb_json_kstr(j, "scheme", "log-linear");
	rtb_json_ku64(j, "sub_bucket_bits", RTB_HIST_SUB_BITS);
	rtb_json_ku64(j, "min_width", step);
	rtb_json_key(j, "buckets");
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++) {
		if (r->hist[i] == 0)
			continue;
		uint64_t l = rtb_hist_lower(i), u = rtb_hist_upper(i);
		if (u - l + 1 < step) {
			/* a narrow bucket: widened to whole steps (it may straddle
			 * two, when it is not aligned) */
			l -= l % step;
			u = (u / step + 1) * step - 1;
		}
		if (count > 0 && l <= hi) {
			/* overlaps the pending bin: one bucket */
			hi = RTB_MAX(hi, u);
			count += r->hist[i];
			continue;
		}
		if (count > 0)
			bucket(j, lo, hi, count);
		lo = l;
		hi = u;
		count = r->hist[i];
	}
	if (count > 0)
		bucket(j, lo, hi, count);
	rtb_json_arr_end(j);
	rtb_json_obj_end(j);
}

static const char *span_clock_name(uint8_t clock)
{
	switch (clock) {
	case RTB_SPAN_COUNTER:
		return "counter";
	case RTB_SPAN_TIME_NS:
		return "time_ns";
	default:
		return "none";
	}
}

static void emit_kept(struct rtb_json *j, const char *key, const struct rtb_kept_sample *k,
		      uint32_t n)
{
	rtb_json_key(j, key);
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < n; i++) {
		rtb_json_obj_begin(j);
		rtb_json_ku64(j, "index", k[i].index);
		rtb_json_ku64(j, "value", k[i].value);
		rtb_json_kstr(j, "clock", span_clock_name(k[i].clock));
		if (k[i].clock != RTB_SPAN_NONE) {
			rtb_json_ku64(j, "start", k[i].start);
			rtb_json_ku64(j, "stop", k[i].stop);
		}
		rtb_json_obj_end(j);
	}
	rtb_json_arr_end(j);
}

/* The worst samples and a few near the median, with their readings. */
static void emit_spans(struct rtb_json *j, const struct rtb_recorder *r)
{
	struct rtb_kept_sample worst[RTB_KEEP_WORST];
	struct rtb_kept_sample near[RTB_KEEP_MEDIAN];
	uint32_t nw = rtb_recorder_worst(r, worst, RTB_KEEP_WORST);
	uint32_t nm = rtb_recorder_near(r, rtb_recorder_percentile(r, 0.5), near, RTB_KEEP_MEDIAN);

	rtb_json_key(j, "spans");
	rtb_json_obj_begin(j);
	emit_kept(j, "worst", worst, nw);
	emit_kept(j, "median", near, nm);
	rtb_json_ku64(j, "spread_stride", r->spread_stride);
	rtb_json_obj_end(j);
}

void rtb_emit_result(const struct rtb_recorder *r)
{
	const struct rtb_metric *m = &r->m;
	uint32_t chunks = (r->raw_len + RTB_SAMPLES_CHUNK - 1) / RTB_SAMPLES_CHUNK;
	struct rtb_json *j = rtb_record_begin("result", m->scenario);

	emit_metric_head(j, m);
	if (rtb_strcmp(m->unit, "ticks") == 0) {
		rtb_json_ku64(j, "overhead_ticks", rtb_recorder_overhead(r));
		rtb_json_kstr(j, "overhead_shape", r->timed_calls ? "call" : "inline");
	}
	emit_stats(j, r);
	emit_histogram(j, r);
	rtb_json_key(j, "raw");
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "count", r->raw_len);
	rtb_json_ku64(j, "capacity", r->raw_max);
	rtb_json_ku64(j, "chunks", chunks);
	rtb_json_obj_end(j);
	if (r->count > 0)
		emit_spans(j, r);
	rtb_record_end(j);

	for (uint32_t c = 0; c < chunks; c++) {
		uint32_t first = c * RTB_SAMPLES_CHUNK;
		uint32_t end = RTB_MIN(first + RTB_SAMPLES_CHUNK, r->raw_len);
		j = rtb_record_begin("samples", m->scenario);
		rtb_json_kstr(j, "metric", m->metric);
		rtb_json_key(j, "params");
		rtb_json_obj_begin(j);
		for (uint32_t i = 0; i < m->nparams; i++) {
			if (m->params[i].str != NULL)
				rtb_json_kstr(j, m->params[i].key, m->params[i].str);
			else
				rtb_json_ki64(j, m->params[i].key, m->params[i].num);
		}
		rtb_json_obj_end(j);
		rtb_json_ku64(j, "chunk", c);
		rtb_json_ku64(j, "first_index", first);
		rtb_json_key(j, "values");
		rtb_json_arr_begin(j);
		for (uint32_t i = first; i < end; i++)
			rtb_json_u64(j, r->raw[i]);
		rtb_json_arr_end(j);
		rtb_record_end(j);
	}
}

struct rtb_json *rtb_table_begin(const char *scenario, const char *name, const char *title,
				 const struct rtb_column *columns, uint32_t ncolumns)
{
	struct rtb_json *j = rtb_record_begin("table", scenario);

	rtb_json_kstr(j, "name", name);
	rtb_json_kstr(j, "title", title);
	rtb_json_key(j, "columns");
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < ncolumns; i++) {
		rtb_json_obj_begin(j);
		rtb_json_kstr(j, "name", columns[i].name);
		rtb_json_kstr(j, "unit", columns[i].unit);
		rtb_json_obj_end(j);
	}
	rtb_json_arr_end(j);
	rtb_json_key(j, "rows");
	rtb_json_arr_begin(j);
	return j;
}

void rtb_table_end(struct rtb_json *j)
{
	rtb_json_arr_end(j);
	rtb_record_end(j);
}

struct rtb_json *rtb_conditions_begin(const char *scenario, const char *title)
{
	static const struct rtb_column cols[] = {{"property", ""}, {"value", ""}, {"unit", ""}};

	return rtb_table_begin(scenario, "conditions", title, cols, RTB_ARRAY_SIZE(cols));
}

void rtb_conditions_row(struct rtb_json *j, const char *property, const char *unit, const char *fmt,
			...)
{
	char value[RTB_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	rtb_vfmt(value, sizeof(value), fmt, ap);
	va_end(ap);
	rtb_json_arr_begin(j);
	rtb_json_str(j, property);
	rtb_json_str(j, value);
	rtb_json_str(j, unit);
	rtb_json_arr_end(j);
}

void rtb_emit_log(const char *scenario, const char *level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	rtb_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct rtb_json *j = rtb_record_begin("log", scenario);
	rtb_json_kstr(j, "level", level);
	rtb_json_kstr(j, "message", msg);
	rtb_record_end(j);
}

void rtb_emit_progress(const char *scenario, double fraction, const char *message)
{
	struct rtb_json *j = rtb_record_begin("log", scenario);

	rtb_json_kstr(j, "level", "progress");
	rtb_json_kstr(j, "message", message);
	rtb_json_kdbl(j, "progress", fraction < 0 ? 0 : fraction > 1 ? 1 : fraction);
	rtb_record_end(j);
}

/* ---- verdicts ------------------------------------------------------------ */

const char *rtb_outcome_name(enum rtb_outcome o)
{
	switch (o) {
	case RTB_PASS:
		return "pass";
	case RTB_FAIL:
		return "fail";
	case RTB_UNSUPPORTED:
		return "unsupported";
	case RTB_INCONCLUSIVE:
		return "inconclusive";
	}
	return "inconclusive";
}

const char *rtb_control_name(enum rtb_control c)
{
	switch (c) {
	case RTB_CONTROL_NOT_RUN:
		return "not_run";
	case RTB_CONTROL_CAUGHT:
		return "caught";
	case RTB_CONTROL_MISSED:
		return "missed";
	}
	return "not_run";
}

enum rtb_control rtb_control_of(enum rtb_outcome control_outcome)
{
	if (control_outcome == RTB_FAIL)
		return RTB_CONTROL_CAUGHT;
	return control_outcome == RTB_PASS ? RTB_CONTROL_MISSED : RTB_CONTROL_NOT_RUN;
}

void rtb_verdict_init(struct rtb_verdict *v, const char *scenario, const char *label,
		      const char *check)
{
	rtb_memset(v, 0, sizeof(*v));
	v->scenario = scenario;
	v->label = label;
	v->check = check;
	v->outcome = RTB_INCONCLUSIVE;
	v->control = RTB_CONTROL_NOT_RUN;
}

void rtb_verdict_reason(struct rtb_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtb_vfmt(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
}

void rtb_verdict_evidence(struct rtb_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nevidence >= RTB_EVIDENCE_MAX)
		return;
	va_start(ap, fmt);
	rtb_vfmt(v->evidence[v->nevidence++], RTB_LINE_MAX, fmt, ap);
	va_end(ap);
}

void rtb_verdict_control_evidence(struct rtb_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->ncontrol_evidence >= RTB_EVIDENCE_MAX)
		return;
	va_start(ap, fmt);
	rtb_vfmt(v->control_evidence[v->ncontrol_evidence++], RTB_LINE_MAX, fmt, ap);
	va_end(ap);
}

void rtb_verdict_settle(struct rtb_verdict *v)
{
	if (v->outcome != RTB_PASS || v->control == RTB_CONTROL_CAUGHT)
		return;
	v->outcome = RTB_INCONCLUSIVE;
	char why[RTB_LINE_MAX];
	rtb_fmt(why, sizeof(why), "%s (negative control %s, so a pass proves nothing)", v->reason,
		v->control == RTB_CONTROL_MISSED ? "was not caught" : "could not run");
	rtb_memcpy(v->reason, why, sizeof(v->reason));
}

static void emit_lines(struct rtb_json *j, const char *key, const char lines[][RTB_LINE_MAX],
		       uint32_t n)
{
	rtb_json_key(j, key);
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < n; i++)
		rtb_json_str(j, lines[i]);
	rtb_json_arr_end(j);
}

void rtb_emit_verdict(const struct rtb_verdict *v)
{
	struct rtb_json *j = rtb_record_begin("verdict", v->scenario);

	if (v->label != NULL)
		rtb_json_kstr(j, "label", v->label);
	rtb_json_kstr(j, "check", v->check);
	rtb_json_kstr(j, "outcome", rtb_outcome_name(v->outcome));
	rtb_json_kstr(j, "reason", v->reason);
	emit_lines(j, "evidence", v->evidence, v->nevidence);
	rtb_json_key(j, "control");
	rtb_json_obj_begin(j);
	rtb_json_kstr(j, "outcome", rtb_control_name(v->control));
	rtb_json_kstr(j, "description", v->control_description);
	emit_lines(j, "evidence", v->control_evidence, v->ncontrol_evidence);
	rtb_json_obj_end(j);
	rtb_record_end(j);
}

void rtb_verdict_conclude(struct rtb_verdict *v, enum rtb_outcome control, const char *fmt, ...)
{
	va_list ap;

	v->control = rtb_control_of(control);
	va_start(ap, fmt);
	rtb_vfmt(v->control_description, sizeof(v->control_description), fmt, ap);
	va_end(ap);
	rtb_verdict_settle(v);
	rtb_emit_verdict(v);
}
