/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: what every RTOSBench porting layer of rtbench's boards
 * shares (each OS's config.h includes it after its types). The tests are
 * built with NO_VERBOSE_RESULTS, so each keeps every sample (the counter's
 * ticks between its two timestamps) and the report prints them all: the
 * script takes the median. RTOSBench's own verbose report reads an
 * uninitialised index, hence the replacement below; DO_WORKLOAD is
 * RTOSBench's, for a 32-bit long, as its FreeRTOS example defines it.
 */
#ifndef RB_COMMON_H
#define RB_COMMON_H

#include <stdint.h>

#define NO_VERBOSE_RESULTS 1

/* Every sample of one case, in counter ticks, as one block of lines:
 * "RB-BEGIN <name> <count> <counter hz>", the values, "RB-END". */
void rb_report_samples(const char *name, const int64_t *samples, unsigned count);

#define REPORT_BENCHMARK_RESULTS(STR_PTR)                               \
	do {                                                            \
		rb_report_samples(STR_PTR, no_cycles_results, NB_ITER); \
	} while (0);

#define BITSPERLONG 32
#define TOP2BITS(x) ((x & (3L << (BITSPERLONG - 2))) >> (BITSPERLONG - 2))
#define DO_WORKLOAD(i)                                                               \
	do {                                                                         \
		unsigned long x = 9;                                                 \
		unsigned long a = 0L;                                                \
		unsigned long r = 0L;                                                \
		unsigned long e = 0L;                                                \
		int _workload_i_;                                                    \
		for (_workload_i_ = 0; _workload_i_ < BITSPERLONG; _workload_i_++) { \
			r = (r << 2) + TOP2BITS(x);                                  \
			x <<= 2;                                                     \
			a <<= 1;                                                     \
			e = (a << 1) + 1;                                            \
			if (r >= e) {                                                \
				r -= e;                                              \
				a++;                                                 \
			}                                                            \
		}                                                                    \
		_workload_results[i] = a;                                            \
	} while (0);

/* Message queue depth of mq_processing.c (RTOSBench leaves it to the
 * configuration). */
#ifndef QUEUE_DEPTH
#define QUEUE_DEPTH 8
#endif

/* The board's part, the same for every RTOS (rb_board.c): the interrupt
 * RTOSBench's interrupt test raises (the board's second timer interrupt,
 * pended in the NVIC by software, no timer running), its handler, and the
 * console. */
typedef void (*rb_handler_t)(int, void *);
extern rb_handler_t rb_sgi_handler;
void rb_board_init(void);
void rb_sgi_raise(void);

#endif /* RB_COMMON_H */
