/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The wake-up pair: a low-priority sender makes a blocked high-priority
 * receiver ready (semaphore signal, message send, or mutex unlock with the
 * receiver waiting for the mutex), and each sample is the time from just
 * before that call until the receiver runs. Optional background threads
 * below the pair keep yielding while the sender pauses between samples.
 * Used by sched.preempt.switch, sched.*.workload, rh.preempt and
 * rh.msg_latency; core/src/wake_pair.c says where each timestamp is taken.
 */
#ifndef RTB_WAKE_PAIR_H
#define RTB_WAKE_PAIR_H

#include "rtb/core.h"

enum rtb_wake_kind {
	RTB_WAKE_SEM = 0,   /* sender signals the semaphore the receiver waits on */
	RTB_WAKE_MUTEX = 1, /* sender unlocks the mutex the receiver waits for (inheritance) */
	RTB_WAKE_MQ = 2,    /* sender sends a 4-byte message to the blocked receiver */
};

/* Relative priorities: background threads, sender (the calling thread, the
 * scenario's controller, raised while the pair exists), receiver. A port
 * needs prio_max >= RTB_WAKE_PRIO_HIGH. */
#define RTB_WAKE_PRIO_BACKGROUND 1
#define RTB_WAKE_PRIO_LOW 2
#define RTB_WAKE_PRIO_HIGH 3

#define RTB_WAKE_BACKGROUND_MAX 64
#define RTB_WAKE_BACKGROUND_BYTES 4096 /* each background thread writes this much per turn */
#define RTB_WAKE_MSG_BYTES 4

struct rtb_wake_pair;

/* Why samples were invalid, by cause. */
struct rtb_wake_invalid {
	uint64_t not_blocked; /* the receiver was not blocked when the sender acted */
	uint64_t not_woken;   /* the receiver did not run before the sender went on */
	uint64_t wrong_msg;   /* the receiver got another message than the one sent */
};

/* Create the objects, raise the caller to RTB_WAKE_PRIO_LOW, create the
 * receiver (it blocks at once) and `background` threads (parked until a
 * measurement with the workload on). RTB_E_UNSUPPORTED when the port lacks
 * the object kind; on any error nothing is left and the caller is back at
 * priority 0. */
int rtb_wake_pair_create(const struct rtb_ctx *ctx, enum rtb_wake_kind kind, uint32_t background,
			 struct rtb_wake_pair **out);

/* Take up to `count` samples into r, the background threads running
 * (workload) or parked; the sender sleeps gap_ns before each sample (0: no
 * pause). Stops early, without a log, when the scenario's time is up;
 * *done says how many samples were taken (valid or not). Returns RTB_OK or
 * the error of a port call (r keeps what was taken). */
int rtb_wake_pair_measure(struct rtb_ctx *ctx, struct rtb_wake_pair *p, bool workload,
			  uint64_t count, uint64_t gap_ns, struct rtb_recorder *r, uint64_t *done);

/* Turns the background threads have taken (one turn = write the buffer,
 * yield) since the pair was created. */
uint64_t rtb_wake_pair_background_turns(const struct rtb_wake_pair *p);

/* Invalid samples so far, by cause. */
struct rtb_wake_invalid rtb_wake_pair_invalid(const struct rtb_wake_pair *p);

/* End every thread, delete every object, put the caller back at priority
 * 0. Harmless on NULL. */
void rtb_wake_pair_delete(struct rtb_wake_pair *p);

#endif
