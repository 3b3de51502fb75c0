/* SPDX-License-Identifier: Apache-2.0 */
/* ThreadX port: what its files share. */
#ifndef RTB_PORT_THREADX_H
#define RTB_PORT_THREADX_H

#include "board.h"
#include "rtb_port.h"
#include "tx_api.h"
#include "txp_arch.h"

/* The port's settings, for a tx_user.h that does not set them (see
 * config/tx_user.h). */
#ifndef RTB_THREADX_SEM_PRIORITIZE
#define RTB_THREADX_SEM_PRIORITIZE 0
#endif
#ifndef RTB_THREADX_RR_SLICE_TICKS
#define RTB_THREADX_RR_SLICE_TICKS 10
#endif

#if TX_MAX_PRIORITIES < 8
#error "rtbench's ThreadX port needs TX_MAX_PRIORITIES of at least 8"
#endif
#ifdef TX_NO_TIMER
#error "rtbench's ThreadX port needs ThreadX's timer (sleeps, timeouts, time slices): undefine TX_NO_TIMER"
#endif
#if RTB_THREADX_RR_SLICE_TICKS < 1
#error "RTB_THREADX_RR_SLICE_TICKS must be at least one tick"
#endif

/* ThreadX's release, "6.4.2". */
#define TXP_STR_(x) #x
#define TXP_STR(x) TXP_STR_(x)
#define TXP_VERSION                    \
	TXP_STR(THREADX_MAJOR_VERSION) \
	"." TXP_STR(THREADX_MINOR_VERSION) "." TXP_STR(THREADX_PATCH_VERSION)

/* Priorities. ThreadX's 0 is the most urgent. The console thread has 0,
 * native 1 is above the scenarios' range (the runner has it only while it
 * waits for the tick a run starts on, between runs), and relative priority
 * p runs at native TX_MAX_PRIORITIES - 1 - p, from the least urgent level
 * up to native 2. */
#define TXP_PRIO_CONSOLE 0u
#define TXP_PRIO_TICK_WAIT 1u
#define TXP_PRIO_MAX (TX_MAX_PRIORITIES - 3)
#define TXP_NATIVE(p) ((UINT)(TX_MAX_PRIORITIES - 1 - (p)))
#define TXP_RELATIVE(n) ((int)(TX_MAX_PRIORITIES - 1) - (int)(n))

/* Default stack of a scenario's thread, and the runner's. */
#define TXP_STACK_BYTES 8192u
#define TXP_RUNNER_STACK_BYTES 65536u

/* The byte pool every allocation of the image comes from: thread records
 * and stacks, kernel objects, the core's buffers. */
extern TX_BYTE_POOL txp_pool;
void *txp_alloc(size_t bytes);
void txp_free(void *p);

/* A duration in ticks, rounded up (at least 1 for a non-zero duration, at
 * most one short of TX_WAIT_FOREVER). A duration that fits 32 bits (4.29 s)
 * is converted inline with the core's 32-bit arithmetic (a division by a
 * constant: a multiply); only a longer one goes through the 64-bit division
 * of txp_ticks_ceil_long(). */
#define TXP_TICK_NS (1000000000u / TX_TIMER_TICKS_PER_SECOND)
_Static_assert(TXP_TICK_NS >= 2u, "a duration of 2^32 - 1 ns converts without overflow");
ULONG txp_ticks_ceil_long(uint64_t ns);
static inline ULONG txp_ticks_ceil(uint64_t ns)
{
	if (ns > 0xFFFFFFFFu)
		return txp_ticks_ceil_long(ns);
	uint32_t n = (uint32_t)ns;
	return (ULONG)(n / TXP_TICK_NS + (n % TXP_TICK_NS != 0u));
}
/* The console (console.c, on ports/common/fw_console.c): its objects and
 * threads, then the board. From tx_application_define(). */
void txp_console_start(void);

#endif /* RTB_PORT_THREADX_H */
