/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal test harness for the C tests: CHECK() records a failure with
 * its location and goes on; check_exit() turns the count into the exit
 * status ctest reads (77 = skipped).
 */
#ifndef RTB_CHECK_H
#define RTB_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                                        \
		}                                                                                \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                      \
	do {                                                                                    \
		uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);                    \
		if (check_a_ != check_b_) {                                                     \
			fprintf(stderr,                                                         \
				"%s:%d: CHECK failed: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", \
				__FILE__, __LINE__, #a, #b, check_a_, check_b_);                \
			check_failures++;                                                       \
		}                                                                               \
	} while (0)

#define CHECK_SKIP 77

static inline int check_exit(void)
{
	if (check_failures > 0)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures > 0 ? 1 : 0;
}

#endif
