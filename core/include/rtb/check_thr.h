/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decisions of the THR behaviour checks (THR-B-NEW, THR-B-RR).
 *
 * Pure functions: observed facts in, outcome and reason out. The scenarios
 * in core/scenarios/thr_new.c and thr_rr.c gather the facts on the platform and on
 * their deliberately broken negative controls and pass both through the same
 * function; tests/c/test_check_thr.c feeds them good and bad observations.
 */
#ifndef RTB_CHECK_THR_H
#define RTB_CHECK_THR_H

#include "rtb/core.h"

/* ---- THR-B-NEW: scheduling of a newly created thread ------------------- */

enum rtb_thr_new_check {
	/* lower priority: does not run before the creator blocks, runs then */
	RTB_THR_NEW_LOWER_WAITS = 0,
	/* equal priority: goes to the tail, does not run before the creator yields */
	RTB_THR_NEW_EQUAL_TO_TAIL = 1,
	/* equal priority: has run once the creator's yield returns */
	RTB_THR_NEW_EQUAL_AFTER_YIELD = 2,
	/* higher priority: runs before the create call returns */
	RTB_THR_NEW_HIGHER_PREEMPTS = 3,
	RTB_THR_NEW_CHECKS = 4,
};

/* The creator blocks (sleeps again and again) until a lower-priority new
 * thread has run; this much time blocked without the thread running is
 * enough to say it does not run while its creator is blocked. A machine
 * that gives the platform no CPU for a while (a busy host, an emulator)
 * can keep it from running during one short sleep, not during this long. */
#define RTB_THR_NEW_DECIDE_NS 100000000u

/* What the creator saw of the new thread. The "handover" is the creator's
 * blocking call for a lower-priority thread, its yield for an equal one. */
struct rtb_thr_new_obs {
	bool created;		   /* the create call succeeded */
	bool ran_at_create_return; /* its first instruction came before create returned */
	bool ran_before_handover;  /* ... before the creator blocked or yielded */
	bool ran_after_handover;   /* ... by the time the block or yield returned */
	/* the block (lower priority): the creator's sleeps, how long it was
	 * blocked in all (measured on the counter) and in its first sleep */
	uint32_t sleeps;
	uint64_t blocked_ns;
	uint64_t first_block_ns;
	/* equal priority under round robin: observations made in all, and how
	 * many of them were discarded because the thread ran during the
	 * creator's busy work after create had returned (where a time slice
	 * ending explains it); the last one is decided */
	uint32_t attempts;
	uint32_t slice_attempts;
};

/* Short identifier of a check ("lower_waits", ...). */
const char *rtb_thr_new_check_name(enum rtb_thr_new_check check);

/* Decide one check. PASS or FAIL; INCONCLUSIVE when the thread could not
 * be created, or when a lower-priority thread did not run while its
 * creator was blocked for less than RTB_THR_NEW_DECIDE_NS in all (too short
 * to decide). The reason is one sentence. */
enum rtb_outcome rtb_check_thr_new(enum rtb_thr_new_check check, const struct rtb_thr_new_obs *obs,
				   char *reason, size_t reason_len);

/* Where a thread whose priority was lowered lands in the ready queue of its
 * new priority, relative to a thread already waiting there. */
enum rtb_thr_landing {
	RTB_THR_LANDING_UNKNOWN = 0,
	RTB_THR_LANDING_HEAD = 1,
	RTB_THR_LANDING_TAIL = 2,
};

/* lowered_seq and waiting_seq are the order numbers (1, 2, ...) at which the
 * lowered thread and the thread already waiting at the new priority next
 * ran; 0 means it was not seen to run. The earlier one was at the head. */
enum rtb_thr_landing rtb_thr_landing_of(uint32_t lowered_seq, uint32_t waiting_seq);
const char *rtb_thr_landing_name(enum rtb_thr_landing landing);

/* ---- THR-B-RR: round-robin time slices ----------------------------------- */

#define RTB_THR_RR_THREADS_MAX 16

/* A stretch of time (counter ticks) during which one thread ran without a
 * gap longer than the observer's threshold. */
struct rtb_thr_rr_segment {
	uint32_t thread;
	uint64_t start;
	uint64_t end;
};

/* Merge per-thread segment lists (each sorted by start) into one list
 * sorted by start. Writes at most cap segments; returns how many. */
uint32_t rtb_thr_rr_merge(const struct rtb_thr_rr_segment *const *lists, const uint32_t *counts,
			  uint32_t nlists, struct rtb_thr_rr_segment *out, uint32_t cap);

/* A time slice: consecutive segments of one thread with no other observed
 * thread in between (a gap inside a slice is other activity of the system:
 * interrupts, other processes, throttling). */
struct rtb_thr_rr_slice {
	uint32_t thread;
	uint64_t start;	    /* first segment's start */
	uint64_t end;	    /* last segment's end */
	uint64_t run_ticks; /* sum of its segments: time the thread really ran */
	bool first;	    /* the thread's first slice after creation */
	bool complete;	    /* ended by a switch to another observed thread */
};

struct rtb_thr_rr_params {
	uint32_t nthreads;	  /* threads observed (2 .. RTB_THR_RR_THREADS_MAX) */
	uint64_t end_ticks;	  /* common end of the busy loops; later segments are ignored */
	uint64_t explained_ticks; /* slice differences up to this are explained by the
				     OS tick granularity; 0 if the tick is unknown */
	uint64_t expected_ticks;  /* the time slice the OS should give (its own
				     statement, or one measured on it); 0 if unknown */
};

struct rtb_thr_rr_summary {
	uint32_t nslices;   /* slices written to the caller's array */
	uint32_t truncated; /* slices that did not fit the caller's array */
	uint32_t ignored;   /* segments that started after end_ticks */
	uint32_t complete;  /* complete slices */
	uint32_t per_thread[RTB_THR_RR_THREADS_MAX]; /* slices before the end */
	bool every_thread_ran;
	bool rotation_ok;	 /* slices follow one fixed cyclic order */
	uint32_t rotation_break; /* index of the first slice out of order */
	uint64_t longest_ticks;	 /* longest slice (run time), complete or not */
	uint32_t longest;	 /* its index */
	uint64_t min_ticks;	 /* over complete slices (run time) */
	uint64_t max_ticks;
	uint64_t min_span_ticks; /* over complete slices: first start to last end, */
	uint64_t max_span_ticks; /* the time other activity took inside included */
	uint64_t median_ticks;
	uint32_t first_complete; /* complete first slices */
	uint64_t first_median_ticks;
	uint32_t later_complete; /* complete later slices */
	uint64_t later_median_ticks;
};

/* Build the slices of one run from its merged segments and decide:
 *   FAIL if the slices do not follow one cyclic order (a thread ran again
 *   while another waited), if a thread never got a slice while another
 *   kept the CPU for more than 2x expected_ticks (and more than
 *   explained_ticks beyond it), or if complete slices differ by more than
 *   2x and by more than explained_ticks;
 *   INCONCLUSIVE if nothing ran, if a thread never got a slice but the run
 *   was too short to prove it was starved, or if no complete later slice
 *   was seen;
 *   PASS otherwise. */
enum rtb_outcome rtb_check_thr_rr(const struct rtb_thr_rr_segment *segs, uint32_t nsegs,
				  const struct rtb_thr_rr_params *params,
				  struct rtb_thr_rr_slice *slices, uint32_t slices_cap,
				  struct rtb_thr_rr_summary *summary, char *reason,
				  size_t reason_len);

#endif /* RTB_CHECK_THR_H */
