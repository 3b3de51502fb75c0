/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEM checks: the pure decision behind mem.behavior.leak (MEM-B-LEK).
 *
 * The scenario creates and removes OS objects in a loop and samples the
 * memory in use and the object counts at the end of loops. A leak-free
 * system returns to the same level every loop. This module judges a
 * series of such samples:
 *
 *  - The first warmup_pct % of the samples are a warm-up (allocator caches,
 *    pools and stacks that the OS creates once) and are not judged.
 *  - The rest is cut into `segments` equal segments; each segment's level
 *    is its median (so a short spike, or a sample taken while the OS was
 *    busy, does not move it).
 *  - For each metric: growth = last level - first level; step = the
 *    largest rise between two neighbouring segments.
 *  - A leak is growth that goes on: growth beyond the largest single step
 *    above the metric's tolerance (slow linear growth rises in every
 *    segment, so it is caught once it exceeds about 1.33 x the tolerance
 *    over the run). A single step above the tolerance followed by at least
 *    two flat segments is a one-time increase (a pool or cache the OS grew
 *    once), reported but not a leak; a step into the last segment has no
 *    flat stretch after it and cannot be told from the start of a leak, so
 *    it counts as one.
 *  - A change in the last half of the last segment (the last 1/16 of the
 *    judged samples) does not move that segment's median: it is too short
 *    to be told from a transient and is not judged.
 *  - A metric whose samples are all zero is not available and not judged.
 *  - A metric in `unreliable` (the port says it does not follow the
 *    program's memory in this build, e.g. RSS under AddressSanitizer) gets
 *    its levels computed and shown but is not judged.
 */
#ifndef RTB_CHECK_MEM_H
#define RTB_CHECK_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtb/core.h"

enum rtb_mem_metric {
	RTB_MEM_RESIDENT = 0, /* resident bytes (process RSS, OS heap in use) */
	RTB_MEM_HEAP = 1,     /* allocator bytes in use */
	RTB_MEM_THREADS = 2,  /* OS threads */
	RTB_MEM_HANDLES = 3,  /* open handles */
	RTB_MEM_METRICS = 4,
};

/* "resident", "heap", "threads", "handles" */
const char *rtb_mem_metric_name(enum rtb_mem_metric m);
/* "bytes" or "count" */
const char *rtb_mem_metric_unit(enum rtb_mem_metric m);

struct rtb_mem_sample {
	uint64_t loop;	  /* loops completed when the sample was taken */
	uint64_t time_ns; /* since the measurement started */
	uint64_t value[RTB_MEM_METRICS];
};

struct rtb_mem_params {
	uint32_t warmup_pct; /* samples ignored at the start, in % */
	uint32_t segments;   /* at least 4 */
	uint64_t tolerance[RTB_MEM_METRICS];
	uint32_t unreliable; /* bit m: metric m is shown, not judged */
};

/* The parameters mem.behavior.leak uses (see the .c file for why). */
void rtb_mem_params_default(struct rtb_mem_params *p);

enum rtb_mem_shape {
	RTB_MEM_NOT_JUDGED = 0, /* metric not available */
	RTB_MEM_FLAT = 1,
	RTB_MEM_ONE_STEP = 2,	/* one increase, then flat */
	RTB_MEM_GROWING = 3,	/* a leak */
	RTB_MEM_UNRELIABLE = 4, /* levels computed, not judged (params.unreliable) */
};
const char *rtb_mem_shape_name(enum rtb_mem_shape s);

struct rtb_mem_trend {
	enum rtb_mem_shape shape;
	uint64_t first_level;  /* median of the first judged segment */
	uint64_t last_level;   /* median of the last segment */
	int64_t growth;	       /* last - first */
	int64_t step;	       /* largest rise between neighbouring segments */
	uint32_t step_segment; /* segment the step rises into (1 .. segments-1) */
	uint64_t step_loop;    /* first loop of that segment */
	int64_t growth_beyond_step;
	uint64_t loops;	   /* loops between the two levels' samples */
	int64_t per_kloop; /* growth per 1000 loops */
};

struct rtb_mem_decision {
	enum rtb_outcome outcome;
	char reason[RTB_LINE_MAX];
	size_t samples;	       /* all samples given */
	size_t warmup_samples; /* of which ignored */
	struct rtb_mem_trend trend[RTB_MEM_METRICS];
};

/* Judge n samples (in loop order). scratch: n words. Outcome: pass, fail
 * (some metric grows), or inconclusive (fewer than 2 judged samples per
 * segment, or no metric available). */
void rtb_mem_decide(const struct rtb_mem_sample *s, size_t n, const struct rtb_mem_params *p,
		    uint64_t *scratch, struct rtb_mem_decision *d);

#endif /* RTB_CHECK_MEM_H */
