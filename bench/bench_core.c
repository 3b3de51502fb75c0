/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Benchmarks of the core's own costs, on the POSIX port:
 *
 *  - the recorder: rtb_recorder_add() and rtb_recorder_add_interval() per
 *    sample, with the raw series still filling and with it full, next to the
 *    floor of the same loop that only sums the values;
 *  - the timestamp: back-to-back rtb_port_counter_read() pairs against
 *    back-to-back clock_gettime(CLOCK_MONOTONIC_RAW) pairs (min, median,
 *    and their ratio);
 *  - the emitter: bytes per second of a `result` record whose histogram has
 *    every bucket filled, written to /dev/null, and of the JSON writer alone
 *    into a buffer.
 *
 * Each figure is the median (and minimum) over several repetitions. The
 * measurement thread is pinned to the port's measurement CPU; it runs under
 * SCHED_OTHER unless --realtime is given (a benchmark that spins for seconds
 * should not hold a real-time priority on a shared machine).
 *
 * `--instr WHAT N` runs only N calls of one function (add, add_interval,
 * emit), untimed, for an instruction count under valgrind --tool=callgrind
 * (see bench/run).
 */
#define _GNU_SOURCE 1

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtb/core.h"

enum { SAMPLES = 1000000, REPS = 9, PAIRS = 200000, EMITS = 300 };

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

/* Latency-like values: log-normal around 5000 ticks, a few large outliers. */
static uint64_t latency_like(void)
{
	double u1 = ((double)(rng() >> 11) + 0.5) * 0x1p-53;
	double u2 = ((double)(rng() >> 11) + 0.5) * 0x1p-53;
	double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
	double v = exp(log(5000.0) + 0.5 * z);
	if (rng() % 1000 == 0)
		v *= 50.0;
	return (uint64_t)v;
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ticks_ns(double ticks)
{
	return ticks * 1e9 / (double)rtb_timing.hz;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct figure {
	double median, min;
};

static struct figure summarise(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	struct figure f = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0, v[0]};
	return f;
}

static const struct rtb_metric bench_metric = {
	.scenario = "bench.recorder",
	.metric = "value",
	.unit = "ticks",
};

/* ---- recorder ------------------------------------------------------------ */

static uint64_t *values, *starts, *stops;
static volatile uint64_t sink;

static double loop_floor(void)
{
	uint64_t s = 0;
	uint64_t t0 = rtb_port_counter_read();
	for (uint32_t i = 0; i < SAMPLES; i++) {
		s += values[i];
		__asm__ __volatile__("" : "+r"(s)); /* keep the loop a loop */
	}
	uint64_t t1 = rtb_port_counter_read();
	sink = s;
	return ticks_ns((double)(t1 - t0)) / SAMPLES;
}

static double time_add(struct rtb_recorder *r)
{
	rtb_recorder_reset(r);
	uint64_t t0 = rtb_port_counter_read();
	for (uint32_t i = 0; i < SAMPLES; i++)
		rtb_recorder_add(r, values[i]);
	uint64_t t1 = rtb_port_counter_read();
	return ticks_ns((double)(t1 - t0)) / SAMPLES;
}

static double time_add_interval(struct rtb_recorder *r)
{
	rtb_recorder_reset(r);
	uint64_t t0 = rtb_port_counter_read();
	for (uint32_t i = 0; i < SAMPLES; i++)
		rtb_recorder_add_interval(r, starts[i], stops[i]);
	uint64_t t1 = rtb_port_counter_read();
	return ticks_ns((double)(t1 - t0)) / SAMPLES;
}

static void bench_recorder(void)
{
	struct rtb_recorder filling, full;
	double floor_ns[REPS], a_fill[REPS], a_full[REPS], i_fill[REPS], i_full[REPS];

	/* "filling": every sample is stored; "full": the series holds 1000
	 * samples, so all but the first 1000 adds skip it */
	if (rtb_recorder_init(&filling, &bench_metric, 0, SAMPLES) != RTB_OK ||
	    rtb_recorder_init(&full, &bench_metric, 0, 1000) != RTB_OK) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (int k = 0; k < REPS; k++) {
		floor_ns[k] = loop_floor();
		a_fill[k] = time_add(&filling);
		a_full[k] = time_add(&full);
		i_fill[k] = time_add_interval(&filling);
		i_full[k] = time_add_interval(&full);
	}
	struct figure f = summarise(floor_ns, REPS);
	struct figure af = summarise(a_fill, REPS), au = summarise(a_full, REPS);
	struct figure inf = summarise(i_fill, REPS), inu = summarise(i_full, REPS);

	printf("\n## Recorder (%d samples per repetition, %d repetitions)\n\n", SAMPLES, REPS);
	printf("| operation | ns/sample (median) | ns/sample (min) | vs. loop floor |\n");
	printf("|---|---:|---:|---:|\n");
	printf("| loop floor (sum the values only) | %.2f | %.2f | 1.00 |\n", f.median, f.min);
	printf("| rtb_recorder_add, raw series filling | %.2f | %.2f | %.2f |\n", af.median, af.min,
	       af.median / f.median);
	printf("| rtb_recorder_add, raw series full | %.2f | %.2f | %.2f |\n", au.median, au.min,
	       au.median / f.median);
	printf("| rtb_recorder_add_interval, raw series filling | %.2f | %.2f | %.2f |\n",
	       inf.median, inf.min, inf.median / f.median);
	printf("| rtb_recorder_add_interval, raw series full | %.2f | %.2f | %.2f |\n", inu.median,
	       inu.min, inu.median / f.median);
	printf("\nraw series filling / full (add): %.2f\n", af.median / au.median);
	rtb_recorder_free(&filling);
	rtb_recorder_free(&full);
}

/* ---- timestamps ------------------------------------------------------------ */

static void bench_timestamps(void)
{
	uint64_t *d = malloc(sizeof(uint64_t) * PAIRS);

	for (int i = 0; i < PAIRS; i++) {
		uint64_t a = rtb_port_counter_read();
		uint64_t b = rtb_port_counter_read();
		d[i] = b - a;
	}
	qsort(d, PAIRS, sizeof(uint64_t), cmp_u64);
	double c_min = ticks_ns((double)d[0]), c_med = ticks_ns((double)d[PAIRS / 2]);
	uint64_t c_min_ticks = d[0], c_med_ticks = d[PAIRS / 2];

	for (int i = 0; i < PAIRS; i++) {
		uint64_t a = raw_ns();
		uint64_t b = raw_ns();
		d[i] = b - a;
	}
	qsort(d, PAIRS, sizeof(uint64_t), cmp_u64);
	double g_min = (double)d[0], g_med = (double)d[PAIRS / 2];
	free(d);

	printf("\n## Timestamps (%d back-to-back pairs each)\n\n", PAIRS);
	printf("| timestamp | min ns | median ns |\n|---|---:|---:|\n");
	printf("| rtb_port_counter_read (%s) | %.1f (%llu ticks) | %.1f (%llu ticks) |\n",
	       rtb_port_info()->counter, c_min, (unsigned long long)c_min_ticks, c_med,
	       (unsigned long long)c_med_ticks);
	printf("| clock_gettime(CLOCK_MONOTONIC_RAW) | %.1f | %.1f |\n", g_min, g_med);
	printf("\nclock_gettime / counter read, median: %.2f\n", g_med / c_med);
	printf("calibrated overhead (rtb_timing_measure_overhead): %llu ticks = %.1f ns\n",
	       (unsigned long long)rtb_timing.overhead_ticks,
	       ticks_ns((double)rtb_timing.overhead_ticks));
}

/* ---- emitter --------------------------------------------------------------- */

static uint64_t discarded_bytes;

static int discard(const char *buf, size_t len)
{
	(void)buf;
	discarded_bytes += len;
	return 0;
}

static void fill_every_bucket(struct rtb_recorder *r)
{
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
		rtb_recorder_add(r, rtb_hist_lower(i));
}

static long record_bytes(const struct rtb_recorder *r)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);

	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	rtb_emit_result(r);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	long size = lseek(fileno(tmp), 0, SEEK_END);
	fclose(tmp);
	return size;
}

static void bench_emitter(void)
{
	struct rtb_recorder r;
	double rate[REPS], writer_rate[REPS];

	if (rtb_recorder_init(&r, &bench_metric, 0, 0) != RTB_OK)
		exit(1);
	fill_every_bucket(&r);
	long bytes = record_bytes(&r);

	int devnull = open("/dev/null", O_WRONLY);
	for (int k = 0; k < REPS; k++) {
		fflush(stdout);
		int saved = dup(STDOUT_FILENO);
		dup2(devnull, STDOUT_FILENO);
		uint64_t t0 = raw_ns();
		for (int i = 0; i < EMITS; i++)
			rtb_emit_result(&r);
		uint64_t t1 = raw_ns();
		dup2(saved, STDOUT_FILENO);
		close(saved);
		rate[k] = (double)bytes * EMITS / ((double)(t1 - t0) * 1e-9);
	}
	close(devnull);

	/* the JSON writer alone: the same bucket list into a discarding writer */
	static struct rtb_json j;
	for (int k = 0; k < REPS; k++) {
		discarded_bytes = 0;
		uint64_t t0 = raw_ns();
		for (int i = 0; i < EMITS; i++) {
			memset(&j, 0, sizeof(j));
			j.write = discard;
			rtb_json_init(&j);
			rtb_json_obj_begin(&j);
			rtb_json_key(&j, "buckets");
			rtb_json_arr_begin(&j);
			for (uint32_t b = 0; b < RTB_HIST_BUCKETS; b++) {
				rtb_json_arr_begin(&j);
				rtb_json_u64(&j, rtb_hist_lower(b));
				rtb_json_u64(&j, rtb_hist_upper(b));
				rtb_json_u64(&j, r.hist[b]);
				rtb_json_arr_end(&j);
			}
			rtb_json_arr_end(&j);
			rtb_json_obj_end(&j);
			rtb_json_end_line(&j);
		}
		uint64_t t1 = raw_ns();
		writer_rate[k] = (double)discarded_bytes / ((double)(t1 - t0) * 1e-9);
	}
	struct figure e = summarise(rate, REPS), w = summarise(writer_rate, REPS);
	double per_record_us = (double)bytes / e.median * 1e6;

	printf("\n## Emitter (%d records per repetition)\n\n", EMITS);
	printf("| what | MB/s (median) | MB/s (max) |\n|---|---:|---:|\n");
	printf("| rtb_emit_result, all %u buckets filled, to /dev/null | %.1f | %.1f |\n",
	       RTB_HIST_BUCKETS, e.median / 1e6, rate[REPS - 1] / 1e6);
	printf("| JSON writer alone (the bucket list, into memory) | %.1f | %.1f |\n",
	       w.median / 1e6, writer_rate[REPS - 1] / 1e6);
	printf("\nresult record size: %ld bytes; %.1f us per record\n", bytes, per_record_us);
	rtb_recorder_free(&r);
}

/* ---- instruction-count mode --------------------------------------------- */

static int instr(const char *what, uint32_t n)
{
	struct rtb_recorder r;

	if (rtb_recorder_init(&r, &bench_metric, 0, n) != RTB_OK)
		return 1;
	if (strcmp(what, "add") == 0) {
		for (uint32_t i = 0; i < n; i++)
			rtb_recorder_add(&r, values[i % SAMPLES]);
	} else if (strcmp(what, "add_interval") == 0) {
		for (uint32_t i = 0; i < n; i++)
			rtb_recorder_add_interval(&r, starts[i % SAMPLES], stops[i % SAMPLES]);
	} else if (strcmp(what, "emit") == 0) {
		fill_every_bucket(&r);
		int devnull = open("/dev/null", O_WRONLY);
		fflush(stdout);
		dup2(devnull, STDOUT_FILENO);
		for (uint32_t i = 0; i < n; i++)
			rtb_emit_result(&r);
		close(devnull);
	} else {
		fprintf(stderr, "--instr takes add, add_interval or emit\n");
		return 2;
	}
	rtb_recorder_free(&r);
	return 0;
}

int main(int argc, char **argv)
{
	struct rtb_port_config cfg = {.cpu = -1, .lock_memory = true, .realtime = false};
	const char *instr_what = NULL;
	uint32_t instr_n = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--realtime") == 0) {
			cfg.realtime = true;
		} else if (strcmp(argv[i], "--instr") == 0 && i + 2 < argc) {
			instr_what = argv[++i];
			instr_n = (uint32_t)strtoul(argv[++i], NULL, 10);
			cfg.lock_memory = false;
		} else {
			fprintf(stderr,
				"usage: %s [--realtime] [--instr add|add_interval|emit N]\n",
				argv[0]);
			return 2;
		}
	}
	if (rtb_port_init(&cfg) != RTB_OK) {
		fprintf(stderr, "port init failed: %s\n", rtb_port_info()->degraded);
		return 1;
	}
	rtb_timing.hz = rtb_port_counter_hz();
	rtb_timing.overhead_ticks = rtb_timing_measure_overhead(30000);

	values = malloc(sizeof(uint64_t) * SAMPLES);
	starts = malloc(sizeof(uint64_t) * SAMPLES);
	stops = malloc(sizeof(uint64_t) * SAMPLES);
	uint64_t t = 1000000;
	for (uint32_t i = 0; i < SAMPLES; i++) {
		values[i] = latency_like();
		starts[i] = t;
		stops[i] = t + rtb_timing.overhead_ticks + values[i];
		t += 2 * values[i];
	}
	if (instr_what != NULL)
		return instr(instr_what, instr_n);

	const struct rtb_port_info *info = rtb_port_info();
	printf("# rtbench core benchmarks\n\n");
	printf("- port: %s, %s %s, %s\n", info->port, info->os, info->os_release, info->libc);
	printf("- counter: %s at %llu Hz\n", info->counter, (unsigned long long)info->counter_hz);
	printf("- measurement CPU: %d of %d, %s, memory %s\n", info->cpu, info->cpu_count,
	       (info->caps & RTB_CAP_REALTIME) ? "SCHED_FIFO" : "SCHED_OTHER",
	       (info->caps & RTB_CAP_MEMORY_LOCKED) ? "locked" : "not locked");
	bench_timestamps();
	bench_recorder();
	bench_emitter();
	free(values);
	free(starts);
	free(stops);
	rtb_port_fini();
	return 0;
}
