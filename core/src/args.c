/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command line of rtbench-core (rtb_main): `list` or `run` and their
 * flags, parsed into struct rtb_args, with one sentence for the first error.
 * No OS call: a firmware console hands its command lines to rtb_main() the
 * same way.
 */
#include "runner.h"

static bool parse_u64_arg(struct rtb_args *a, const char *flag, const char *value, uint64_t *out)
{
	if (value == NULL || !rtb_parse_u64(value, out)) {
		rtb_fmt(a->error, sizeof(a->error), "%s needs a non-negative integer", flag);
		return false;
	}
	return true;
}

bool rtb_args_parse(struct rtb_args *a, int argc, char **argv)
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
			if (a->nscenarios == RTB_ARGS_SCENARIOS_MAX) {
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
		} else if (rtb_strcmp(flag, "--overhead-inline-ticks") == 0) {
			if (!parse_u64_arg(a, flag, value, &a->inline_overhead_ticks))
				return false;
			a->inline_overhead_given = true;
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
