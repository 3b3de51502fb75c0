/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runner: profiles, options, time budgets, running one scenario and
 * framing its records, and the command line used by hosted ports.
 *
 * Each scenario gets a time budget of 80 % of its deadline: long loops stop
 * themselves there (rtb_ctx_expired()) and report what they measured, so the
 * watchdog outside the process, which enforces the full deadline, only fires
 * for a scenario that is really stuck.
 */
#include "rtb/core.h"

static const char *const profile_names[RTB_PROFILE_COUNT] = {"quick", "standard", "endurance"};

const char *rtb_profile_name(enum rtb_profile p)
{
	return (unsigned)p < RTB_PROFILE_COUNT ? profile_names[p] : "?";
}

bool rtb_profile_parse(const char *name, enum rtb_profile *out)
{
	for (unsigned i = 0; i < RTB_PROFILE_COUNT; i++) {
		if (rtb_strcmp(name, profile_names[i]) == 0) {
			*out = (enum rtb_profile)i;
			return true;
		}
	}
	return false;
}

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

const struct rtb_scenario *rtb_scenario_find(const char *name)
{
	for (uint32_t i = 0; i < rtb_scenario_count; i++) {
		if (rtb_scenarios[i] != NULL && rtb_strcmp(rtb_scenarios[i]->name, name) == 0)
			return rtb_scenarios[i];
	}
	return NULL;
}

/* ---- capabilities ------------------------------------------------------ */

static const struct {
	uint32_t bit;
	const char *name;
} cap_names[] = {
	{RTB_CAP_REALTIME, "realtime"},
	{RTB_CAP_MEMORY_LOCKED, "memory_locked"},
	{RTB_CAP_PINNING, "pinning"},
	{RTB_CAP_POLICY_RR, "policy_rr"},
	{RTB_CAP_SUSPEND_OTHER, "suspend_other"},
	{RTB_CAP_MUTEX_INHERIT, "mutex_inherit"},
	{RTB_CAP_MUTEX_CEILING, "mutex_ceiling"},
	{RTB_CAP_MQ, "mq"},
	{RTB_CAP_EVT, "evt"},
	{RTB_CAP_EVT_EMULATED, "evt_emulated"},
	{RTB_CAP_IRQ, "irq"},
	{RTB_CAP_IRQ_PERIODIC, "irq_periodic"},
	{RTB_CAP_MEM_USAGE, "mem_usage"},
	{RTB_CAP_CACHE_FLUSH, "cache_flush"},
	{RTB_CAP_THREAD_DELETE_LIVE, "thread_delete_live"},
	{RTB_CAP_IPC_SIGNAL, "ipc_signal"},
	{RTB_CAP_IPC_SIGWAIT, "ipc_sigwait"},
	{RTB_CAP_IPC_SYSV_SEM, "ipc_sysv_sem"},
	{RTB_CAP_IPC_POSIX_MQ, "ipc_posix_mq"},
};

static void emit_caps(struct rtb_json *j, const char *key, uint32_t caps)
{
	rtb_json_key(j, key);
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(cap_names); i++) {
		if (caps & cap_names[i].bit)
			rtb_json_str(j, cap_names[i].name);
	}
	rtb_json_arr_end(j);
}

/* "os_config": {"name": ..., "settings": [{"name","value","from"}...]}, when
 * the port describes its OS's build-time configuration. */
static void emit_os_config(struct rtb_json *j, const struct rtb_port_info *info)
{
	bool named = info->os_config != NULL && info->os_config[0] != '\0';

	if (!named && (info->os_settings == NULL || info->os_nsettings == 0))
		return;
	rtb_json_key(j, "os_config");
	rtb_json_obj_begin(j);
	if (named)
		rtb_json_kstr(j, "name", info->os_config);
	rtb_json_key(j, "settings");
	rtb_json_arr_begin(j);
	for (uint32_t i = 0; info->os_settings != NULL && i < info->os_nsettings; i++) {
		const struct rtb_port_setting *s = &info->os_settings[i];
		rtb_json_obj_begin(j);
		rtb_json_kstr(j, "name", s->name);
		rtb_json_kstr(j, "value", s->value);
		rtb_json_kstr(j, "from", s->from != NULL ? s->from : "");
		rtb_json_obj_end(j);
	}
	rtb_json_arr_end(j);
	rtb_json_obj_end(j);
}

static const char *first_missing_cap(uint32_t needed, uint32_t have)
{
	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(cap_names); i++) {
		if ((needed & cap_names[i].bit) && !(have & cap_names[i].bit))
			return cap_names[i].name;
	}
	return NULL;
}

/* ---- running ------------------------------------------------------------- */

/* A counter reading and a rtb_port_time_ns() reading taken together: the
 * counter midway between two reads around the clock read, from the tightest
 * of a few tries (error_ticks: half that pair's spread). Lets a reader map
 * kept samples of either clock onto the other (and onto a trace clock). */
struct clock_pair {
	uint64_t counter;
	uint64_t time_ns;
	uint64_t error_ticks;
};

#define CLOCK_PAIR_TRIES 8u

static struct clock_pair clock_pair_read(void)
{
	struct clock_pair best = {0, 0, UINT64_MAX};

	for (uint32_t i = 0; i < CLOCK_PAIR_TRIES; i++) {
		uint64_t a = rtb_port_counter_read();
		uint64_t t = rtb_port_time_ns();
		uint64_t b = rtb_port_counter_read();
		if (b < a)
			continue;
		if ((b - a) / 2 < best.error_ticks) {
			best.counter = a + (b - a) / 2;
			best.time_ns = t;
			best.error_ticks = (b - a) / 2;
		}
	}
	return best;
}

static void emit_clock_pair(struct rtb_json *j, const struct clock_pair *p)
{
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "counter", p->counter);
	rtb_json_ku64(j, "time_ns", p->time_ns);
	rtb_json_ku64(j, "error_ticks", p->error_ticks);
	rtb_json_obj_end(j);
}

static void emit_end_pairs(const char *scope, const char *scenario, const char *status,
			   const char *reason, uint64_t elapsed_ticks,
			   const struct clock_pair *first)
{
	struct rtb_json *j = rtb_record_begin("end", scenario);

	rtb_json_kstr(j, "scope", scope);
	rtb_json_kstr(j, "status", status);
	if (reason != NULL && reason[0] != '\0')
		rtb_json_kstr(j, "reason", reason);
	rtb_json_ku64(j, "elapsed_ns", rtb_ticks_to_ns(elapsed_ticks));
	if (first != NULL && first->error_ticks != UINT64_MAX) {
		struct clock_pair last = clock_pair_read();
		rtb_json_key(j, "clock_pairs");
		rtb_json_arr_begin(j);
		emit_clock_pair(j, first);
		if (last.error_ticks != UINT64_MAX)
			emit_clock_pair(j, &last);
		rtb_json_arr_end(j);
	}
	rtb_record_end(j);
}

static void emit_end(const char *scope, const char *scenario, const char *status,
		     const char *reason, uint64_t elapsed_ticks)
{
	emit_end_pairs(scope, scenario, status, reason, elapsed_ticks, NULL);
}

uint64_t rtb_deadline_override_ms;

int rtb_run_scenario(const struct rtb_scenario *s, enum rtb_profile profile, uint32_t raw_max,
		     const struct rtb_option *options, uint32_t noptions)
{
	const struct rtb_port_info *info = rtb_port_info();
	struct rtb_ctx ctx;
	const char *missing = first_missing_cap(s->caps, info->caps);

	rtb_memset(&ctx, 0, sizeof(ctx));
	ctx.scenario = s;
	ctx.profile = profile;
	ctx.raw_max = raw_max;
	ctx.options = options;
	ctx.noptions = noptions;
	ctx.start_ticks = rtb_port_counter_read();
	uint64_t deadline_ms = rtb_scaled_deadline_ms(s, profile);
	if (rtb_deadline_override_ms > deadline_ms)
		deadline_ms = rtb_deadline_override_ms;
	uint64_t budget_ms = deadline_ms * 8 / 10;
	ctx.budget_end_ticks = ctx.start_ticks + rtb_ns_to_ticks(budget_ms * 1000000u);

	/* values of the options this scenario declares (the controller checks
	 * them first; this holds for any controller, a board's console too) */
	for (uint32_t i = 0; i < noptions; i++) {
		const struct rtb_option_spec *spec = rtb_option_find(s, options[i].key);
		char why[96];
		if (spec != NULL && !rtb_option_valid(spec, options[i].value, why, sizeof(why))) {
			rtb_fmt(ctx.reason, sizeof(ctx.reason), "option %s=%s: %s", options[i].key,
				options[i].value, why);
			emit_end("scenario", s->name, "error", ctx.reason, 0);
			return RTB_E_INVALID;
		}
	}
	if (missing != NULL) {
		if (rtb_strcmp(missing, "realtime") == 0)
			rtb_fmt(ctx.reason, sizeof(ctx.reason),
				"needs a real-time scheduling policy, which this run does not "
				"have");
		else {
			char why[RTB_LINE_MAX];
			const char *lack = rtb_port_lacks(missing, why, sizeof(why));
			rtb_fmt(ctx.reason, sizeof(ctx.reason),
				"needs the '%s' service, which the %s port lacks%s%s", missing,
				info->port, lack != NULL ? ": " : "", lack != NULL ? lack : "");
		}
		emit_end("scenario", s->name, "unsupported", ctx.reason, 0);
		return RTB_E_UNSUPPORTED;
	}
	struct clock_pair first = clock_pair_read();
	int rc = s->run(&ctx);
	uint64_t elapsed = rtb_port_counter_read() - ctx.start_ticks;
	if (rc == RTB_OK && rtb_port_stop_requested()) {
		emit_end_pairs("scenario", s->name, "stopped",
			       "stopped early on request; results cover the time it ran", elapsed,
			       &first);
	} else if (rc == RTB_OK) {
		emit_end_pairs("scenario", s->name, "ok", NULL, elapsed, &first);
	} else if (rc == RTB_E_UNSUPPORTED) {
		emit_end_pairs("scenario", s->name, "unsupported",
			       ctx.reason[0] != '\0' ? ctx.reason : "not supported on this port",
			       elapsed, &first);
	} else {
		if (ctx.reason[0] == '\0')
			rtb_fmt(ctx.reason, sizeof(ctx.reason), "failed: %s",
				rtb_port_strerror(rc));
		emit_end_pairs("scenario", s->name, "error", ctx.reason, elapsed, &first);
	}
	return rc;
}

/* ---- command line -------------------------------------------------------- */

#define SCENARIOS_MAX 128

struct args {
	bool list;
	enum rtb_profile profile;
	const char *scenarios[SCENARIOS_MAX];
	uint32_t nscenarios;
	struct rtb_option options[RTB_OPTIONS_MAX];
	uint32_t noptions;
	struct rtb_port_config port;
	uint64_t overhead_ticks;
	bool overhead_given;
	uint32_t raw_max;
	char error[RTB_LINE_MAX];
};

static bool parse_u64_arg(struct args *a, const char *flag, const char *value, uint64_t *out)
{
	if (value == NULL || !rtb_parse_u64(value, out)) {
		rtb_fmt(a->error, sizeof(a->error), "%s needs a non-negative integer", flag);
		return false;
	}
	return true;
}

static bool parse_args(struct args *a, int argc, char **argv)
{
	rtb_memset(a, 0, sizeof(*a));
	rtb_length_ppm = RTB_LENGTH_PPM_ONE;
	a->profile = RTB_PROFILE_QUICK;
	a->port.cpu = -1;
	a->port.lock_memory = true;
	a->port.realtime = true;
	a->raw_max = RTB_RAW_DEFAULT;
	if (argc < 2 || (rtb_strcmp(argv[1], "list") != 0 && rtb_strcmp(argv[1], "run") != 0)) {
		rtb_fmt(a->error, sizeof(a->error), "usage: %s list|run [options]",
			argc > 0 ? argv[0] : "rtbench-core");
		return false;
	}
	a->list = rtb_strcmp(argv[1], "list") == 0;
	for (int i = 2; i < argc; i++) {
		const char *flag = argv[i];
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;
		if (rtb_strcmp(flag, "--no-realtime") == 0) {
			a->port.realtime = false;
			continue;
		}
		if (rtb_strcmp(flag, "--no-mlock") == 0) {
			a->port.lock_memory = false;
			continue;
		}
		i++; /* every other flag takes a value */
		if (value == NULL) {
			rtb_fmt(a->error, sizeof(a->error), "%s needs a value", flag);
			return false;
		}
		if (rtb_strcmp(flag, "--profile") == 0) {
			if (!rtb_profile_parse(value, &a->profile)) {
				rtb_fmt(a->error, sizeof(a->error), "unknown profile '%s'", value);
				return false;
			}
		} else if (rtb_strcmp(flag, "--scenario") == 0) {
			if (a->nscenarios == SCENARIOS_MAX) {
				rtb_fmt(a->error, sizeof(a->error), "too many scenarios");
				return false;
			}
			a->scenarios[a->nscenarios++] = value;
		} else if (rtb_strcmp(flag, "--cpu") == 0) {
			if (!parse_u64_arg(a, flag, value, &n))
				return false;
			if (n > 4096) {
				rtb_fmt(a->error, sizeof(a->error), "--cpu is at most 4096");
				return false;
			}
			a->port.cpu = (int)n;
		} else if (rtb_strcmp(flag, "--raw-max") == 0) {
			if (!parse_u64_arg(a, flag, value, &n))
				return false;
			if (n > 100000000u) {
				rtb_fmt(a->error, sizeof(a->error),
					"--raw-max is at most 100000000");
				return false;
			}
			a->raw_max = (uint32_t)n;
		} else if (rtb_strcmp(flag, "--overhead-ticks") == 0) {
			if (!parse_u64_arg(a, flag, value, &a->overhead_ticks))
				return false;
			a->overhead_given = true;
		} else if (rtb_strcmp(flag, "--deadline-ms") == 0) {
			if (!parse_u64_arg(a, flag, value, &rtb_deadline_override_ms))
				return false;
			if (rtb_deadline_override_ms > 1000000000000ull) {
				rtb_fmt(a->error, sizeof(a->error), "--deadline-ms is too large");
				return false;
			}
		} else if (rtb_strcmp(flag, "--length-ppm") == 0) {
			if (!parse_u64_arg(a, flag, value, &n))
				return false;
			if (n < 1 || n > 1000u * RTB_LENGTH_PPM_ONE) {
				rtb_fmt(a->error, sizeof(a->error),
					"--length-ppm is between 1 and 1000000000");
				return false;
			}
			rtb_length_ppm = (uint32_t)n;
		} else if (rtb_strcmp(flag, "--counter-hz") == 0) {
			if (!parse_u64_arg(a, flag, value, &a->port.counter_hz))
				return false;
		} else if (rtb_strcmp(flag, "--set") == 0) {
			char *eq = argv[i];
			while (*eq != '\0' && *eq != '=')
				eq++;
			if (*eq != '=' || eq == argv[i]) {
				rtb_fmt(a->error, sizeof(a->error), "--set needs key=value");
				return false;
			}
			if (a->noptions == RTB_OPTIONS_MAX) {
				rtb_fmt(a->error, sizeof(a->error),
					"at most %u --set options are allowed", RTB_OPTIONS_MAX);
				return false;
			}
			*eq = '\0';
			a->options[a->noptions].key = argv[i];
			a->options[a->noptions].value = eq + 1;
			a->noptions++;
		} else {
			rtb_fmt(a->error, sizeof(a->error), "unknown option '%s'", flag);
			return false;
		}
	}
	for (uint32_t k = 0; k < a->nscenarios; k++) {
		if (rtb_scenario_find(a->scenarios[k]) == NULL) {
			rtb_fmt(a->error, sizeof(a->error), "unknown scenario '%s'",
				a->scenarios[k]);
			return false;
		}
	}
	return true;
}

/* Build facts the compiler knows (no OS header needed): its name and
 * version, and the architecture it generated code for, named as `uname -m`
 * names it on Linux. RTB_BUILD_LIBC and RTB_BUILD_STATIC come from the build
 * system (CMake reads the C library's version macros; see cmake/). */
#if defined(__clang__)
#define RTB_COMPILER __VERSION__ /* "Debian Clang 14.0.6", names itself */
#elif defined(__GNUC__)
#define RTB_COMPILER "gcc " __VERSION__
#elif defined(__VERSION__)
#define RTB_COMPILER __VERSION__
#else
#define RTB_COMPILER ""
#endif

#define RTB_STR_(x) #x
#define RTB_STR(x) RTB_STR_(x)
#if defined(__x86_64__)
#define RTB_BUILD_ARCH "x86_64"
#elif defined(__aarch64__)
#define RTB_BUILD_ARCH "aarch64"
#elif defined(__i386__)
#define RTB_BUILD_ARCH "i686"
#elif defined(__arm__) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define RTB_BUILD_ARCH "armv" RTB_STR(__ARM_ARCH) "-m" /* a Cortex-M microcontroller */
#elif defined(__arm__) && defined(__ARM_ARCH)
#define RTB_BUILD_ARCH "armv" RTB_STR(__ARM_ARCH) "l"
#elif defined(__riscv) && defined(__riscv_xlen)
#define RTB_BUILD_ARCH "riscv" RTB_STR(__riscv_xlen)
#else
#define RTB_BUILD_ARCH "unknown"
#endif

static void emit_meta(const struct args *a, const struct rtb_counter_step *step)
{
	const struct rtb_port_info *info = rtb_port_info();
	struct rtb_json *j = rtb_record_begin("meta", NULL);

	rtb_json_kstr(j, "tool", "rtbench-core");
	rtb_json_ku64(j, "protocol_minor", RTB_PROTOCOL_MINOR);
	rtb_json_kstr(j, "core_version", RTB_CORE_VERSION);
	rtb_json_kstr(j, "port", info->port);
	rtb_json_kstr(j, "os", info->os);
	rtb_json_kstr(j, "os_release", info->os_release);
	rtb_json_kstr(j, "libc", info->libc);
	rtb_json_kstr(j, "arch", info->arch);
	rtb_json_key(j, "build");
	rtb_json_obj_begin(j);
	if (RTB_COMPILER[0] != '\0')
		rtb_json_kstr(j, "compiler", RTB_COMPILER);
	rtb_json_kstr(j, "arch", RTB_BUILD_ARCH);
#ifdef RTB_BUILD_LIBC
	rtb_json_kstr(j, "libc", RTB_BUILD_LIBC);
#endif
#ifdef RTB_BUILD_STATIC
	rtb_json_kbool(j, "static", RTB_BUILD_STATIC != 0);
#endif
#ifdef RTB_BUILD_TYPE
	rtb_json_kstr(j, "type", RTB_BUILD_TYPE);
#endif
#ifdef RTB_BUILD_FLAGS
	rtb_json_kstr(j, "flags", RTB_BUILD_FLAGS);
#endif
	rtb_json_obj_end(j);
	rtb_json_key(j, "counter");
	rtb_json_obj_begin(j);
	rtb_json_kstr(j, "name", info->counter);
	rtb_json_ku64(j, "hz", rtb_timing.hz);
	rtb_json_kdbl(j, "ns_per_tick", rtb_timing.hz ? 1e9 / (double)rtb_timing.hz : 0.0);
	rtb_json_kstr(j, "note", info->counter_note);
	/* nominal resolution (one tick) and effective resolution (the step the
	 * counter really moves by), side by side */
	rtb_json_ku64(j, "step_ticks", step->step_ticks);
	rtb_json_kdbl(j, "step_ns",
		      rtb_timing.hz ? 1e9 * (double)step->step_ticks / (double)rtb_timing.hz : 0.0);
	rtb_json_ku64(j, "step_gcd_ticks", step->gcd_ticks);
	rtb_json_ku64(j, "min_diff_ticks", step->min_diff_ticks);
	rtb_json_ku64(j, "declared_step_ticks", step->declared_ticks);
	rtb_json_ku64(j, "step_diffs", step->diffs);
	rtb_json_obj_end(j);
	rtb_json_ku64(j, "overhead_ticks", rtb_timing.overhead_ticks);
	rtb_json_kstr(j, "overhead_source", rtb_timing.overhead_given ? "given" : "calibrated");
	rtb_json_kstr(j, "profile", rtb_profile_name(a->profile));
	rtb_json_ki64(j, "cpu", info->cpu);
	rtb_json_ki64(j, "cpu_count", info->cpu_count);
	rtb_json_ki64(j, "prio_max", info->prio_max);
	rtb_json_kbool(j, "realtime", (info->caps & RTB_CAP_REALTIME) != 0);
	rtb_json_kbool(j, "memory_locked", (info->caps & RTB_CAP_MEMORY_LOCKED) != 0);
	rtb_json_kstr(j, "irq_source", info->irq_source);
	rtb_json_kstr(j, "degraded", info->degraded);
	emit_caps(j, "caps", info->caps);
	emit_os_config(j, info);
	rtb_json_ku64(j, "raw_max", a->raw_max);
	rtb_json_ku64(j, "length_ppm", rtb_length_ppm);
	rtb_json_key(j, "options");
	rtb_json_obj_begin(j);
	for (uint32_t i = 0; i < a->noptions; i++)
		rtb_json_kstr(j, a->options[i].key, a->options[i].value);
	rtb_json_obj_end(j);
	rtb_record_end(j);
}

static void emit_catalog(void)
{
	const struct rtb_port_info *info = rtb_port_info();

	for (uint32_t i = 0; i < rtb_scenario_count; i++) {
		const struct rtb_scenario *s = rtb_scenarios[i];
		if (s == NULL)
			continue;
		struct rtb_json *j = rtb_record_begin("catalog", s->name);
		rtb_json_key(j, "ids");
		rtb_json_arr_begin(j);
		for (uint32_t k = 0; k < RTB_SCENARIO_IDS_MAX && s->ids[k].id != NULL; k++) {
			rtb_json_obj_begin(j);
			rtb_json_kstr(j, "id", s->ids[k].id);
			rtb_json_kstr(j, "label", s->ids[k].label);
			rtb_json_obj_end(j);
		}
		rtb_json_arr_end(j);
		rtb_json_kstr(j, "summary", s->summary);
		rtb_json_key(j, "estimate_ms");
		rtb_json_obj_begin(j);
		for (unsigned p = 0; p < RTB_PROFILE_COUNT; p++)
			rtb_json_ku64(j, profile_names[p], s->estimate_ms[p]);
		rtb_json_obj_end(j);
		rtb_json_key(j, "deadline_ms");
		rtb_json_obj_begin(j);
		for (unsigned p = 0; p < RTB_PROFILE_COUNT; p++)
			rtb_json_ku64(j, profile_names[p], s->deadline_ms[p]);
		rtb_json_obj_end(j);
		emit_caps(j, "needs", s->caps);
		rtb_json_key(j, "options");
		rtb_json_arr_begin(j);
		for (const struct rtb_option_spec *o = s->options; o != NULL && o->key; o++) {
			static const char *const kinds[] = {"count", "choice", "flag"};
			rtb_json_obj_begin(j);
			rtb_json_kstr(j, "key", o->key);
			rtb_json_kstr(j, "kind", kinds[o->kind]);
			if (o->kind == RTB_OPT_COUNT) {
				rtb_json_ku64(j, "min", o->min);
				rtb_json_ku64(j, "max", o->max);
				if (o->length)
					rtb_json_kbool(j, "length", true);
			}
			if (o->kind == RTB_OPT_CHOICE)
				rtb_json_kstr(j, "choices", o->choices);
			rtb_json_kstr(j, "help", o->help);
			rtb_json_obj_end(j);
		}
		rtb_json_arr_end(j);
		const char *missing = first_missing_cap(s->caps, info->caps);
		rtb_json_kbool(j, "supported", missing == NULL);
		rtb_record_end(j);
	}
}

void rtb_session_reset(void)
{
	nsaid = 0;
	rtb_deadline_override_ms = 0;
	rtb_length_ppm = RTB_LENGTH_PPM_ONE;
	rtb_memset(&rtb_timing, 0, sizeof(rtb_timing));
}

int rtb_main(int argc, char **argv)
{
	static struct args a;

	rtb_session_reset();
	if (!parse_args(&a, argc, argv)) {
		rtb_emit_log(NULL, "error", "%s", a.error);
		return 2;
	}
	int rc = rtb_port_init(&a.port);
	if (rc != RTB_OK) {
		rtb_emit_log(NULL, "error", "the port could not start: %s%s%s",
			     rtb_port_strerror(rc), rtb_port_info()->degraded[0] ? ": " : "",
			     rtb_port_info()->degraded);
		return rc == RTB_E_INVALID ? 2 : 1;
	}
	rtb_timing.hz = rtb_port_counter_hz();
	if (a.overhead_given) {
		rtb_timing.overhead_ticks = a.overhead_ticks;
		rtb_timing.overhead_given = true;
	} else {
		rtb_timing.overhead_ticks = rtb_timing_measure_overhead(30000);
		rtb_timing.overhead_given = false;
	}
	static struct rtb_counter_step step;
	rtb_counter_step_measure(20000, &step);
	rtb_timing.step_ticks = step.step_ticks;
	emit_meta(&a, &step);
	if (!step.agrees)
		rtb_emit_log(NULL, "warning",
			     "the port declares a counter step of %llu ticks, but the differences "
			     "measured are multiples of %llu only",
			     (unsigned long long)step.declared_ticks,
			     (unsigned long long)step.gcd_ticks);
	if (a.list) {
		emit_catalog();
	} else {
		uint64_t t0 = rtb_port_counter_read();
		for (uint32_t i = 0; i < a.nscenarios && !rtb_port_stop_requested(); i++)
			rtb_run_scenario(rtb_scenario_find(a.scenarios[i]), a.profile, a.raw_max,
					 a.options, a.noptions);
		emit_end("run", NULL, "complete", NULL, rtb_port_counter_read() - t0);
	}
	rtb_port_fini();
	return 0;
}
