/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Time on a Cortex-A board, the same for every firmware port: the counter
 * ca.h reads, chosen when the image starts.
 *
 * The generic timer's virtual count (CNTVCT) always runs, at CNTFRQ; under
 * QEMU's -icount it moves by 2^shift ns per instruction (2 counts at
 * shift 5), and an instruction's figure is a multiple of that. The PMU's
 * event 0x08 (instructions retired) counts exactly one per instruction,
 * but QEMU counts it only under -icount. So: event counter 0 is set on it,
 * and if it moves across a short wait on CNTVCT, the run is deterministic
 * and the counter is that one, at 10^9 / 2^shift ticks a second (the
 * instruction's ns, measured against CNTVCT and rounded to a power of two);
 * else CNTVCT. PMCEID0 (which events exist) is not read: it is undefined on
 * QEMU's ARMv7 cores.
 *
 * rtb_fw_os_counter_restart (the console's hook in fw_console.h) sets the
 * PMU counter back to zero between runs, so every timestamp of a run comes
 * from one epoch; CNTVCT cannot be reset from a non-secure kernel (CNTVOFF
 * is the hypervisor's) and needs no reset: it is 64 bits, and runs where it
 * is chosen are not deterministic anyway.
 */
#include <stdint.h>

#include "fw_arch.h"
#include "rtb/core.h"
#include "rtb_port.h"

struct ca_counter_state ca_counter_state;
char ca_counter_name[24];
char ca_counter_note[320];

#define PMCR_E 0x1u /* counters enabled */
#define PMCR_P 0x2u /* event counters reset */
#define PMU_INST_RETIRED 0x08u
#define CALIBRATION_TICKS 4096u /* of CNTVCT: 65 us at 62.5 MHz */

static inline uint64_t cntvct(void)
{
	uint32_t low, high;

	__asm volatile("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(low), "=r"(high)::"memory");
	return ((uint64_t)high << 32) | low;
}

static inline uint32_t cntfrq(void)
{
	uint32_t hz;

	__asm volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(hz));
	return hz;
}

static inline uint32_t pmu_count(void)
{
	uint32_t n;

	__asm volatile("isb\n\tmrc p15, 0, %0, c9, c13, 2" : "=r"(n)::"memory");
	return n;
}

static void pmu_reset(void)
{
	__asm volatile("mcr p15, 0, %0, c9, c12, 0\n\tisb" ::"r"(PMCR_E | PMCR_P) : "memory");
}

void ca_counter_start(void)
{
	uint32_t m = ca_irq_save();

	__asm volatile("mcr p15, 0, %0, c9, c12, 5" ::"r"(0u)); /* PMSELR: counter 0 */
	__asm volatile("mcr p15, 0, %0, c9, c13, 1" ::"r"(PMU_INST_RETIRED)); /* PMXEVTYPER */
	__asm volatile("mcr p15, 0, %0, c9, c12, 1" ::"r"(1u));		      /* PMCNTENSET */
	pmu_reset();

	uint32_t hz = cntfrq();
	uint64_t t0 = cntvct();
	uint32_t i0 = pmu_count();
	uint64_t t1;
	do
		t1 = cntvct();
	while (t1 - t0 < CALIBRATION_TICKS);
	uint32_t instructions = pmu_count() - i0;

	ca_counter_state = (struct ca_counter_state){0};
	if (instructions == 0) {
		ca_counter_state.hz = hz;
		ca_counter_state.tick_ns = (1000000000u + hz / 2) / hz;
		rtb_fmt(ca_counter_name, sizeof(ca_counter_name), "cntvct");
		rtb_fmt(ca_counter_note, sizeof(ca_counter_note),
			"the ARM generic timer's virtual count (CNTVCT, 64 bits) at CNTFRQ; the "
			"PMU's instructions-retired event, used instead under QEMU's -icount, "
			"did not count");
	} else {
		/* ns per instruction: elapsed ns over instructions, to the nearest
		 * power of two (QEMU's 2^shift) */
		uint64_t ns = (t1 - t0) * 1000000000ull / hz;
		uint32_t shift = 0;
		while (shift < 20 && ((uint64_t)instructions << (shift + 1)) <= ns + ns / 3)
			shift++;
		ca_counter_state.pmu = 1;
		ca_counter_state.tick_ns = 1u << shift;
		ca_counter_state.hz = (1000000000u + (1u << shift) / 2) >> shift;
		rtb_fmt(ca_counter_name, sizeof(ca_counter_name), "pmu-instructions");
		rtb_fmt(ca_counter_note, sizeof(ca_counter_note),
			"the PMU's instructions-retired event (0x08), one tick per instruction "
			"(QEMU's -icount: %lu ns each, measured against CNTVCT), extended to 64 "
			"bits by counting wraps: figures are instruction counts",
			(unsigned long)ca_counter_state.tick_ns);
	}
	pmu_reset();
	ca_irq_restore(m);
}

void rtb_fw_os_counter_restart(void);

void rtb_fw_os_counter_restart(void)
{
	uint32_t m = ca_irq_save();

	if (ca_counter_state.pmu) {
		pmu_reset();
		ca_counter_state.last = 0;
		ca_counter_state.high = 0;
	}
	ca_irq_restore(m);
}

uint64_t rtb_port_time_ns(void)
{
	uint64_t c = rtb_port_counter_read();
	uint64_t hz = ca_counter_state.hz;

	return (c / hz) * 1000000000ull + (c % hz) * 1000000000ull / hz;
}
