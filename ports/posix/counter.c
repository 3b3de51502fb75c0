/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POSIX port: choosing the counter behind rtb_port_counter_read() (the read
 * itself is inlined, see rtb_port_inline.h), its frequency, and the note the
 * meta record carries about both.
 *
 * x86-64: the TSC, used only when CPUID reports it invariant and the kernel
 * still lists it as a clocksource; its frequency is measured against
 * CLOCK_MONOTONIC_RAW over 100 ms with bracketed reads.
 *
 * AArch64 and 32-bit ARMv7-A/ARMv8-A: the virtual count of the ARM generic
 * timer (CNTVCT_EL0, or CNTVCT through MRRC on 32-bit ARM). The first read is
 * made with SIGILL caught, because the timer is optional on ARMv7 (Cortex-A8
 * and A9 have none) and a kernel may deny user access to it; the previous
 * SIGILL disposition is restored at once. The frequency register
 * (CNTFRQ) is set by firmware, which sometimes leaves it wrong, so the
 * counter is also timed against CLOCK_MONOTONIC_RAW over 100 ms: CNTFRQ is
 * used when the two agree within 1 %, the measured rate otherwise, and the
 * note says which.
 *
 * Anywhere else, or when the CPU counter is refused, CLOCK_MONOTONIC_RAW in
 * nanoseconds through an out-of-line call.
 */
#include "port_posix.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int rtb_posix_counter_use_fallback;

uint64_t rtb_posix_counter_fallback(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || RTB_POSIX_GENERIC_TIMER
/* One (counter, raw ns) pair whose reads are as close together as possible. */
static void bracketed_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best_width = UINT64_MAX;

	for (int i = 0; i < 16; i++) {
		uint64_t a = rtb_port_counter_read();
		uint64_t t = rtb_posix_counter_fallback();
		uint64_t b = rtb_port_counter_read();
		if (b - a < best_width) {
			best_width = b - a;
			*ticks = a + (b - a) / 2;
			*ns = t;
		}
	}
}

/* Counter ticks per second of CLOCK_MONOTONIC_RAW over 100 ms; 0 when the
 * counter did not move forward. */
static uint64_t measure_hz(void)
{
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
	struct timespec pause = {0, 100 * 1000 * 1000};

	bracketed_pair(&t0, &n0);
	nanosleep(&pause, NULL);
	bracketed_pair(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 0;
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0) + 0.5);
}
#endif

#if defined(__x86_64__)
static bool tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return false;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d & (1u << 8)) != 0;
}

static bool tsc_listed_by_kernel(void)
{
	char buf[512];

	if (!posix_read_file("/sys/devices/system/clocksource/clocksource0/available_clocksource",
			     buf, sizeof(buf)))
		return true; /* cannot tell; CPUID already vouched for it */
	return strstr(buf, "tsc") != NULL;
}

static void counter_choose(const struct rtb_port_config *cfg)
{
	if (!tsc_invariant()) {
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "TSC refused: CPUID does not report an invariant TSC; using "
			 "CLOCK_MONOTONIC_RAW (a system call or vDSO read per timestamp)");
		return;
	}
	if (!tsc_listed_by_kernel()) {
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "TSC refused: the kernel marked it unstable (not in "
			 "available_clocksource); using CLOCK_MONOTONIC_RAW");
		return;
	}
	rtb_posix_counter_use_fallback = 0;
	posix.info.counter = "tsc";
	if (cfg->counter_hz != 0) {
		posix.info.counter_hz = cfg->counter_hz;
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "invariant TSC read with LFENCE;RDTSC;LFENCE; frequency given "
			 "by the caller (measured earlier in this run)");
	} else {
		posix.info.counter_hz = measure_hz();
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "invariant TSC read with LFENCE;RDTSC;LFENCE; frequency "
			 "measured against CLOCK_MONOTONIC_RAW over 100 ms");
	}
}

#elif RTB_POSIX_GENERIC_TIMER

#if defined(__aarch64__)
#define TIMER_REGS "CNTVCT_EL0 after ISB; CNTFRQ_EL0"
static uint64_t read_cntfrq(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}
#else
#define TIMER_REGS "CNTVCT (MRRC p15) after ISB; CNTFRQ"
static uint64_t read_cntfrq(void)
{
	uint32_t v;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(v));
	return v;
}
#endif

static sigjmp_buf probe_env;

static void probe_trap(int signo)
{
	(void)signo;
	siglongjmp(probe_env, 1);
}

/* Read CNTFRQ and the counter once with SIGILL caught: false when either
 * traps (no generic timer, or user access disabled by the kernel). */
static bool generic_timer_readable(uint64_t *frq)
{
	struct sigaction trap, previous;
	volatile bool readable = false;
	volatile uint64_t v = 0;

	memset(&trap, 0, sizeof(trap));
	trap.sa_handler = probe_trap;
	sigemptyset(&trap.sa_mask);
	if (sigaction(SIGILL, &trap, &previous) != 0)
		return false;
	if (sigsetjmp(probe_env, 1) == 0) {
		*frq = read_cntfrq();
		rtb_posix_counter_use_fallback = 0;
		v = rtb_port_counter_read();
		readable = true;
	}
	rtb_posix_counter_use_fallback = 1;
	sigaction(SIGILL, &previous, NULL);
	(void)v;
	return readable;
}

static void counter_choose(const struct rtb_port_config *cfg)
{
	uint64_t frq = 0;

	if (!generic_timer_readable(&frq)) {
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "ARM generic timer not readable from user space (reading CNTVCT "
			 "raised SIGILL: the CPU has no generic timer, or the kernel keeps "
			 "user access off); using CLOCK_MONOTONIC_RAW");
		return;
	}
	rtb_posix_counter_use_fallback = 0;
	if (cfg->counter_hz != 0) {
		posix.info.counter = "cntvct";
		posix.info.counter_hz = cfg->counter_hz;
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "ARM generic timer: " TIMER_REGS " says %llu Hz; frequency given by "
			 "the caller (measured earlier in this run)",
			 (unsigned long long)frq);
		return;
	}
	uint64_t measured = measure_hz();
	if (measured == 0) {
		rtb_posix_counter_use_fallback = 1;
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "ARM generic timer refused: its virtual count did not advance over "
			 "100 ms; using CLOCK_MONOTONIC_RAW");
		return;
	}
	posix.info.counter = "cntvct";
	uint64_t diff = measured > frq ? measured - frq : frq - measured;
	if (frq != 0 && diff <= frq / 100) {
		posix.info.counter_hz = frq;
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "ARM generic timer: " TIMER_REGS " = %llu Hz, confirmed within 1 %% "
			 "against CLOCK_MONOTONIC_RAW over 100 ms (%llu Hz)",
			 (unsigned long long)frq, (unsigned long long)measured);
	} else {
		posix.info.counter_hz = measured;
		snprintf(posix.counter_note, sizeof(posix.counter_note),
			 "ARM generic timer: " TIMER_REGS " = %llu Hz disagrees with the rate "
			 "measured against CLOCK_MONOTONIC_RAW over 100 ms; using the "
			 "measured %llu Hz (firmware set CNTFRQ wrong)",
			 (unsigned long long)frq, (unsigned long long)measured);
	}
}

#else

static void counter_choose(const struct rtb_port_config *cfg)
{
	(void)cfg;
	snprintf(posix.counter_note, sizeof(posix.counter_note),
		 "no CPU counter supported on this architecture; CLOCK_MONOTONIC_RAW");
}

#endif

void posix_counter_init(const struct rtb_port_config *cfg)
{
	posix.info.counter = "clock_monotonic_raw";
	posix.info.counter_hz = 1000000000u;
	rtb_posix_counter_use_fallback = 1;
	counter_choose(cfg);
	posix.info.counter_note = posix.counter_note;
}
