/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tight samples: a timed call with nothing of the scenario between its two
 * counter reads.
 *
 * A sample is t1 - t0 - overhead. For the subtraction to remove exactly the
 * timestamp code, the code between the two reads must be the same in every
 * sample and in the calibration that measures the overhead. Written inline
 * in a scenario's loop it is not: the compiler schedules loop bookkeeping,
 * argument set-up, result handling and register moves that keep t0 across
 * the call between the reads, differently in each loop.
 *
 * RTB_TIMED(name, type, call, params...) defines
 *
 *     static type name(params..., struct rtb_span *span);
 *
 * a small function, never inlined, that reads t0, makes `call` (an
 * expression on the params, usually one port call with them in order), reads
 * t1, and only then stores both into *span and returns the call's result.
 * Its parameters arrive in the registers the call takes them in, so nothing
 * has to be moved between the reads, and the result stays in its return
 * register across the second read. Between the two reads there is the end of
 * the first read, the call instruction, what the callee runs, and the start
 * of the second read. The calibration (rtb_timing_sample(), cal.timestamp)
 * is the same function around the call of a function that returns at once
 * (rtb_timing_nothing(), in its own file so the compiler cannot see that it
 * leaves registers alone), so the overhead it measures is this code plus
 * that function's return (one `bx lr` on Thumb-2): a sample is the
 * operation's cost beyond the call of a function that does nothing.
 *
 * A sample that ends in another thread (a switch) takes t0 with one timed
 * call and t1 with the woken thread's own timed call (its t1): the code
 * between is again the end of one read, the call, and the start of the other.
 */
#ifndef RTB_SAMPLE_H
#define RTB_SAMPLE_H

#include <stdint.h>

#include "rtb_port.h"
#include "rtb_port_inline.h"

/* The two readings of one timed call. */
struct rtb_span {
	uint64_t t0, t1;
};

/* Never inlined, cloned or specialised for its callers' arguments, and its
 * callers assume nothing of what it leaves in registers: it keeps its shape
 * at every call site. */
#if defined(__GNUC__) && !defined(__clang__)
#define RTB_SAMPLER __attribute__((noipa))
#else
#define RTB_SAMPLER __attribute__((noinline))
#endif

/* Nothing may be moved across it by the compiler (memory and code order). */
#define RTB_SAMPLE_FENCE() __asm__ __volatile__("" ::: "memory")

#define RTB_TIMED(name, type, call, ...)                                 \
	static RTB_SAMPLER type name(__VA_ARGS__, struct rtb_span *span) \
	{                                                                \
		uint64_t t0_ = rtb_port_counter_read();                  \
		RTB_SAMPLE_FENCE();                                      \
		type r_ = (call);                                        \
		RTB_SAMPLE_FENCE();                                      \
		uint64_t t1_ = rtb_port_counter_read();                  \
		span->t0 = t0_;                                          \
		span->t1 = t1_;                                          \
		return r_;                                               \
	}

/* The same for a call that returns nothing. */
#define RTB_TIMED_VOID(name, call, ...)                                  \
	static RTB_SAMPLER void name(__VA_ARGS__, struct rtb_span *span) \
	{                                                                \
		uint64_t t0_ = rtb_port_counter_read();                  \
		RTB_SAMPLE_FENCE();                                      \
		(call);                                                  \
		RTB_SAMPLE_FENCE();                                      \
		uint64_t t1_ = rtb_port_counter_read();                  \
		span->t0 = t0_;                                          \
		span->t1 = t1_;                                          \
	}

/* Returns its argument and does nothing else: the call the calibration times
 * (core/src/timing_nothing.c; never inlined into a caller). */
int rtb_timing_nothing(int value);

/* One calibration sample: RTB_TIMED around rtb_timing_nothing(). */
void rtb_timing_sample(struct rtb_span *span);

/* One sample of the inline shape: two counter reads back to back, written
 * where they are used (inlined into the caller's loop), the shape of the
 * samples that still read the counter inline; its minimum is the inline
 * overhead (rtb_timing.inline_overhead_ticks). */
static inline void rtb_timing_inline_pair(struct rtb_span *span)
{
	uint64_t t0 = rtb_port_counter_read();
	uint64_t t1 = rtb_port_counter_read();
	span->t0 = t0;
	span->t1 = t1;
}

#endif /* RTB_SAMPLE_H */
