/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run context a scenario sees (struct rtb_ctx): its options (declared,
 * checked, read by key, scaled by the run's length), its time budget and
 * the end tests on it (the budget is set by rtb_run_scenario()), and its
 * failure reason.
 */
#include "runner.h"

const struct rtb_option_spec *rtb_option_find(const struct rtb_scenario *s, const char *key)
{
	for (const struct rtb_option_spec *o = s != NULL ? s->options : NULL; o != NULL && o->key;
	     o++) {
		if (rtb_strcmp(o->key, key) == 0)
			return o;
	}
	return NULL;
}

static bool is_word_of(const char *choices, const char *value)
{
	size_t n = rtb_strlen(value);

	for (const char *c = choices; c != NULL && *c != '\0';) {
		size_t k = 0;
		while (c[k] != '\0' && c[k] != '|')
			k++;
		if (k == n && n > 0) {
			size_t i = 0;
			while (i < n && c[i] == value[i])
				i++;
			if (i == n)
				return true;
		}
		c += k;
		if (*c == '|')
			c++;
	}
	return false;
}

bool rtb_option_valid(const struct rtb_option_spec *spec, const char *value, char *why, size_t len)
{
	uint64_t v;

	switch (spec->kind) {
	case RTB_OPT_COUNT:
		if (!rtb_parse_u64(value, &v)) {
			rtb_fmt(why, len, "not a whole number");
			return false;
		}
		if (v < spec->min || v > spec->max) {
			rtb_fmt(why, len, "outside %llu..%llu", (unsigned long long)spec->min,
				(unsigned long long)spec->max);
			return false;
		}
		return true;
	case RTB_OPT_CHOICE:
		if (!is_word_of(spec->choices, value)) {
			rtb_fmt(why, len, "not one of %s", spec->choices);
			return false;
		}
		return true;
	default:
		if (!is_word_of("1|0|true|false|yes|no|on|off", value)) {
			rtb_fmt(why, len, "not 1/0, true/false, yes/no or on/off");
			return false;
		}
		return true;
	}
}

/* Reading an option the scenario does not declare is a defect of the
 * scenario: it is said once per key, so tests see it. */
static char said[8][64];
static uint32_t nsaid;

void rtb_ctx_undeclared_reset(void)
{
	nsaid = 0;
}

static void check_declared(const struct rtb_ctx *ctx, const char *key)
{
	if (ctx->scenario == NULL || rtb_option_find(ctx->scenario, key) != NULL)
		return;
	for (uint32_t i = 0; i < nsaid; i++) {
		if (rtb_strcmp(said[i], key) == 0)
			return;
	}
	if (nsaid < RTB_ARRAY_SIZE(said))
		rtb_fmt(said[nsaid++], sizeof(said[0]), "%s", key);
	rtb_emit_log(ctx->scenario->name, "error",
		     "scenario %s reads option '%s', which it does not declare",
		     ctx->scenario->name, key);
}

const char *rtb_ctx_option(const struct rtb_ctx *ctx, const char *key)
{
	check_declared(ctx, key);
	for (uint32_t i = 0; i < ctx->noptions; i++) {
		if (rtb_strcmp(ctx->options[i].key, key) == 0)
			return ctx->options[i].value;
	}
	return NULL;
}

bool rtb_ctx_flag(const struct rtb_ctx *ctx, const char *key)
{
	const char *v = rtb_ctx_option(ctx, key);

	return v != NULL && (rtb_strcmp(v, "1") == 0 || rtb_strcmp(v, "true") == 0 ||
			     rtb_strcmp(v, "yes") == 0 || rtb_strcmp(v, "on") == 0);
}

int rtb_ctx_choice(const struct rtb_ctx *ctx, const char *key, const char *const *words,
		   uint32_t nwords)
{
	const char *v = rtb_ctx_option(ctx, key);

	if (v == NULL)
		return 0;
	for (uint32_t i = 0; i < nwords; i++) {
		if (rtb_strcmp(v, words[i]) == 0)
			return (int)i;
	}
	return -1;
}

uint32_t rtb_length_ppm = RTB_LENGTH_PPM_ONE;

/* v * ppm / 10^6 without overflow for any v a count option allows, kept
 * within the option's range and never below one. */
static uint64_t scale_length(uint64_t v, uint32_t ppm, const struct rtb_option_spec *spec)
{
	uint64_t out =
		v / RTB_LENGTH_PPM_ONE * ppm + v % RTB_LENGTH_PPM_ONE * ppm / RTB_LENGTH_PPM_ONE;
	if (out < 1)
		out = 1;
	if (out < spec->min)
		out = spec->min;
	if (out > spec->max)
		out = spec->max;
	return out;
}

uint64_t rtb_scaled_deadline_ms(const struct rtb_scenario *s, enum rtb_profile profile)
{
	uint64_t ms = (uint64_t)s->deadline_ms[profile];
	if (rtb_length_ppm == RTB_LENGTH_PPM_ONE)
		return ms;
	uint64_t scaled =
		ms / 1000000u * rtb_length_ppm + ms % 1000000u * rtb_length_ppm / 1000000u;
	if (rtb_length_ppm < RTB_LENGTH_PPM_ONE) {
		/* never below what the shortest profile allows: set-up and
		 * behaviour checks do not get shorter with the scale */
		uint64_t floor = (uint64_t)s->deadline_ms[RTB_PROFILE_QUICK];
		if (floor > ms)
			floor = ms;
		return scaled > floor ? scaled : floor;
	}
	return scaled;
}

uint64_t rtb_ctx_count(const struct rtb_ctx *ctx, const char *key, uint64_t quick,
		       uint64_t standard, uint64_t endurance)
{
	uint64_t v;
	const char *opt = key != NULL ? rtb_ctx_option(ctx, key) : NULL;

	if (opt != NULL && rtb_parse_u64(opt, &v))
		return v;
	switch (ctx->profile) {
	case RTB_PROFILE_QUICK:
		v = quick;
		break;
	case RTB_PROFILE_STANDARD:
		v = standard;
		break;
	default:
		v = endurance;
		break;
	}
	const struct rtb_option_spec *spec =
		key != NULL && ctx->scenario != NULL ? rtb_option_find(ctx->scenario, key) : NULL;
	if (spec == NULL || !spec->length || rtb_length_ppm == RTB_LENGTH_PPM_ONE || v == 0)
		return v;
	return scale_length(v, rtb_length_ppm, spec);
}

bool rtb_ctx_expired(const struct rtb_ctx *ctx)
{
	return (int64_t)(rtb_port_counter_read() - ctx->budget_end_ticks) >= 0 ||
	       rtb_port_stop_requested();
}

const char *rtb_ctx_expired_cause(const struct rtb_ctx *ctx)
{
	if (rtb_port_stop_requested())
		return "stop requested";
	if ((int64_t)(rtb_port_counter_read() - ctx->budget_end_ticks) >= 0)
		return "time budget reached";
	return "not expired";
}

bool rtb_ctx_expired_after(const struct rtb_ctx *ctx, uint64_t done, uint64_t total,
			   const char *what)
{
	if (!rtb_ctx_expired(ctx))
		return false;
	rtb_emit_log(ctx->scenario != NULL ? ctx->scenario->name : NULL, "warning",
		     "%s after %llu of %llu %s", rtb_ctx_expired_cause(ctx),
		     (unsigned long long)done, (unsigned long long)total, what);
	return true;
}

bool rtb_ctx_settle(const struct rtb_ctx *ctx, volatile uint32_t *counter, uint32_t want)
{
	if (*counter == want)
		return true;
	/* until reached or passed (wrap-safe): a counter that went past want
	 * (the other thread ran twice, preempted by a time slice) will not come
	 * back to it, and waiting would only use up the budget */
	while ((int32_t)(*counter - want) < 0 && !rtb_ctx_expired(ctx))
		rtb_port_thread_yield();
	return false;
}

void rtb_ctx_catch_up(const struct rtb_ctx *ctx, volatile uint32_t *counter, uint32_t want)
{
	while ((int32_t)(*counter - want) < 0 && !rtb_ctx_expired(ctx))
		rtb_port_thread_yield();
}

int rtb_ctx_fail(struct rtb_ctx *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtb_vfmt(ctx->reason, sizeof(ctx->reason), fmt, ap);
	va_end(ap);
	return code;
}
