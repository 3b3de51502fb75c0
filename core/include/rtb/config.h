/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Build-time configuration of the core: every size that sets how much memory
 * the core uses, each with a default a port may override.
 *
 * A port overrides a value by defining it before this header is read: in a
 * header named "rtb_port_config.h" on its include path (read first when it
 * exists), or with -D on the compiler's command line. The defaults suit a
 * hosted OS; a microcontroller port lowers the ones its RAM cannot hold.
 *
 * Also here: the printf length modifiers of the fixed-width types, for the
 * core's formatter (rtb_fmt), which checks its format strings like printf.
 */
#ifndef RTB_CONFIG_H
#define RTB_CONFIG_H

#if defined(__has_include)
#if __has_include("rtb_port_config.h")
#include "rtb_port_config.h"
#endif
#endif

/* ---- recorders ----------------------------------------------------------- */

/* Histogram resolution: each power of two above 2^RTB_HIST_SUB_BITS is split
 * into 2^(RTB_HIST_SUB_BITS-1) buckets; (64 - B + 2) << (B - 1) buckets of 8
 * bytes per recorder (7424 buckets, 58 KiB, at 8). */
#ifndef RTB_HIST_SUB_BITS
#define RTB_HIST_SUB_BITS 8
#endif
/* Raw series kept per recorder unless --raw-max says otherwise. */
#ifndef RTB_RAW_DEFAULT
#define RTB_RAW_DEFAULT 20000u
#endif
/* Samples kept whole per metric: the worst, an even spread, the median. */
#ifndef RTB_KEEP_WORST
#define RTB_KEEP_WORST 8u
#endif
#ifndef RTB_KEEP_SPREAD
#define RTB_KEEP_SPREAD 32u /* even, at least 2 */
#endif
#ifndef RTB_KEEP_MEDIAN
#define RTB_KEEP_MEDIAN 3u
#endif

/* ---- records ----------------------------------------------------------- */

/* Bytes of one record buffered before it is written to the console. */
#ifndef RTB_JSON_BUF_BYTES
#define RTB_JSON_BUF_BYTES 4096
#endif
/* Raw values per `samples` record. */
#ifndef RTB_SAMPLES_CHUNK
#define RTB_SAMPLES_CHUNK 2000u
#endif
/* Evidence lines of a verdict and their length (a verdict holds 2 lists). */
#ifndef RTB_EVIDENCE_MAX
#define RTB_EVIDENCE_MAX 16
#endif
#ifndef RTB_LINE_MAX
#define RTB_LINE_MAX 160
#endif

/* ---- threads ----------------------------------------------------------- */

/* Stack of each thread of a thread-switch ring (thr.switch.yield creates up
 * to 1000 of them). */
#ifndef RTB_RING_STACK_BYTES
#define RTB_RING_STACK_BYTES (16 * 1024)
#endif

/* ---- runner ------------------------------------------------------------ */

/* --set key=value options of one run. */
#ifndef RTB_OPTIONS_MAX
#define RTB_OPTIONS_MAX 16
#endif
/* CPUs a per-CPU scenario can measure on. */
#ifndef RTB_CPUS_MAX
#define RTB_CPUS_MAX 64
#endif

/* ---- checks ---------------------------------------------------------------- */

/* A value overridden out of range would otherwise compile, and misbehave at
 * run time (or give a zero-length array, which GCC accepts). */
_Static_assert(RTB_HIST_SUB_BITS >= 1 && RTB_HIST_SUB_BITS <= 24,
	       "RTB_HIST_SUB_BITS must be 1..24: the histogram shifts by RTB_HIST_SUB_BITS - 1 "
	       "and numbers its buckets with 32 bits");
_Static_assert(RTB_RAW_DEFAULT <= 100000000u,
	       "RTB_RAW_DEFAULT must be at most 100000000, the largest --raw-max rtbench-core "
	       "accepts");
_Static_assert(RTB_KEEP_WORST >= 1,
	       "RTB_KEEP_WORST must be at least 1: every metric keeps its maximum sample whole");
_Static_assert(RTB_KEEP_SPREAD >= 2 && RTB_KEEP_SPREAD % 2 == 0,
	       "RTB_KEEP_SPREAD must be even and at least 2: when it is full, every other kept "
	       "sample is dropped and the stride doubles, so half of it must remain");
_Static_assert(RTB_KEEP_MEDIAN >= 1,
	       "RTB_KEEP_MEDIAN must be at least 1: the samples nearest the median are emitted "
	       "for every metric");
_Static_assert(RTB_JSON_BUF_BYTES >= 1, "RTB_JSON_BUF_BYTES must be at least 1 (the record "
					"buffer is flushed whenever it fills)");
_Static_assert(RTB_SAMPLES_CHUNK >= 1,
	       "RTB_SAMPLES_CHUNK must be at least 1: the raw series is split into chunks of it");
_Static_assert(RTB_EVIDENCE_MAX >= 1 && RTB_LINE_MAX >= 1,
	       "RTB_EVIDENCE_MAX and RTB_LINE_MAX must be at least 1: they size every verdict's "
	       "evidence lines");
_Static_assert(RTB_OPTIONS_MAX >= 1,
	       "RTB_OPTIONS_MAX must be at least 1: it sizes the --set options of a run");
_Static_assert(RTB_CPUS_MAX >= 1 && RTB_CPUS_MAX <= 64,
	       "RTB_CPUS_MAX must be 1..64: the cpu_mask option is a 64-bit mask");

/* ---- format length modifiers ---------------------------------------------- */

/* uint32_t is `unsigned int` on Linux but `unsigned long` with newlib and
 * picolibc on 32-bit microcontrollers, so "%u" is wrong for it on one of
 * them. Which one the compiler chose is read from __UINT32_TYPE__ by giving
 * its words values for one #if: "unsigned int" adds up to 1, "long unsigned
 * int" to 3. */
#if !defined(RTB_PRIu32) && defined(__UINT32_TYPE__)
#define unsigned +0
#define int +1
#define long +2
#if (__UINT32_TYPE__) == 3
#define RTB_U32_IS_LONG 1
#endif
#undef unsigned
#undef int
#undef long
#endif
#ifndef RTB_PRIu32
#ifdef RTB_U32_IS_LONG
#define RTB_PRIu32 "lu"
#define RTB_PRId32 "ld"
#define RTB_PRIx32 "lx"
#else
#define RTB_PRIu32 "u"
#define RTB_PRId32 "d"
#define RTB_PRIx32 "x"
#endif
#endif

#endif /* RTB_CONFIG_H */
