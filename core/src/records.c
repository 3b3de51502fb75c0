/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The records the runner writes itself (docs/protocol.md): `meta` (the
 * port, the build, the counter and the session's settings), `catalog` (one
 * per compiled-in unit, for `list`) and `end` (one per scenario and one per
 * run, with the clock pairs that map the counter onto the port's clock).
 */
#include "runner.h"

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
	{RTB_CAP_MEM_POOL, "mem_pool"},
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

const char *rtb_caps_first_missing(uint32_t needed, uint32_t have)
{
	for (uint32_t i = 0; i < RTB_ARRAY_SIZE(cap_names); i++) {
		if ((needed & cap_names[i].bit) && !(have & cap_names[i].bit))
			return cap_names[i].name;
	}
	return NULL;
}

/* ---- end ------------------------------------------------------------------ */

#define CLOCK_PAIR_TRIES 8u

struct rtb_clock_pair rtb_clock_pair_read(void)
{
	struct rtb_clock_pair best = {0, 0, UINT64_MAX};

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

static void emit_clock_pair(struct rtb_json *j, const struct rtb_clock_pair *p)
{
	rtb_json_obj_begin(j);
	rtb_json_ku64(j, "counter", p->counter);
	rtb_json_ku64(j, "time_ns", p->time_ns);
	rtb_json_ku64(j, "error_ticks", p->error_ticks);
	rtb_json_obj_end(j);
}

void rtb_emit_end(const char *scope, const char *scenario, const char *status, const char *reason,
		  uint64_t elapsed_ticks, const struct rtb_clock_pair *first)
{
	struct rtb_json *j = rtb_record_begin("end", scenario);

	rtb_json_kstr(j, "scope", scope);
	rtb_json_kstr(j, "status", status);
	if (reason != NULL && reason[0] != '\0')
		rtb_json_kstr(j, "reason", reason);
	rtb_json_ku64(j, "elapsed_ns", rtb_ticks_to_ns(elapsed_ticks));
	if (first != NULL && first->error_ticks != UINT64_MAX) {
		struct rtb_clock_pair last = rtb_clock_pair_read();
		rtb_json_key(j, "clock_pairs");
		rtb_json_arr_begin(j);
		emit_clock_pair(j, first);
		if (last.error_ticks != UINT64_MAX)
			emit_clock_pair(j, &last);
		rtb_json_arr_end(j);
	}
	rtb_record_end(j);
}

/* ---- meta and catalog ---------------------------------------------------- */

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

void rtb_emit_meta(const struct rtb_args *a, const struct rtb_counter_step *step)
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
	rtb_json_ku64(j, "overhead_inline_ticks", rtb_timing.inline_overhead_ticks);
	rtb_json_kstr(j, "overhead_inline_source",
		      rtb_timing.inline_overhead_given ? "given" : "calibrated");
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

void rtb_emit_catalog(void)
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
			rtb_json_ku64(j, rtb_profile_name((enum rtb_profile)p), s->estimate_ms[p]);
		rtb_json_obj_end(j);
		rtb_json_key(j, "deadline_ms");
		rtb_json_obj_begin(j);
		for (unsigned p = 0; p < RTB_PROFILE_COUNT; p++)
			rtb_json_ku64(j, rtb_profile_name((enum rtb_profile)p), s->deadline_ms[p]);
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
		const char *missing = rtb_caps_first_missing(s->caps, info->caps);
		rtb_json_kbool(j, "supported", missing == NULL);
		rtb_record_end(j);
	}
}
