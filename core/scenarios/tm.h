/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TM (Thread-Metric): what core/scenarios/tm.c (the controller) and
 * core/scenarios/tm_workers.c (the threads and the interrupt handler of
 * each test) share. The design is described at the top of tm.c.
 */
#ifndef RTB_SCENARIO_TM_H
#define RTB_SCENARIO_TM_H

#include <stdatomic.h>

#include "rtb/check_tm.h"

#define TM_WORKERS_MAX 5
#define TM_CHAIN 5
#define TM_BASIC_WORDS 1024u
#define TM_MSG_BYTES 16u
#define TM_MEM_BYTES 128u
#define TM_MEM_BLOCKS 16u /* blocks of tm.mem's pool (the original's pool is 2 KiB) */
#define TM_PERIODS_MAX 64u
#define TM_HANDOFF_TIMEOUT_NS 100000000u /* an interrupt hand-off not done by then is lost */
#define TM_CHECK_BITS 8u		 /* workers test their own end time every 256 turns */
#define TM_CHECK_MASK ((1u << TM_CHECK_BITS) - 1u)
#define TM_COUNTED_PERIODS 3u /* periods of tm.coop's counted run */

enum tm_test {
	TM_BASIC,
	TM_COOP,
	TM_PREEMPT,
	TM_IRQ,
	TM_IRQ_PREEMPT,
	TM_MSG,
	TM_SYNC,
	TM_MEM,
	TM_TESTS
};

/* Counters the workers and the handler write; the controller folds them. */
enum tm_counter {
	TM_C_HANDLED = TM_WORKERS_MAX, /* handler invocations */
	TM_C_LOST,		       /* hand-offs not done within TM_HANDOFF_TIMEOUT_NS */
	TM_C_BAD,		       /* messages received unlike those sent */
	TM_COUNTERS,
};

struct tm_run;

struct tm_worker {
	struct tm_run *run;
	struct rtb_thread *thread;
	uint32_t index;
	bool started;
	volatile uint32_t done; /* 1 once its function has returned */
};

struct tm_def {
	const char *id;
	const char *title;
	uint32_t nworkers;
	rtb_thread_fn fn[TM_WORKERS_MAX];
	int prio[TM_WORKERS_MAX];
	uint32_t ops_mask; /* counters whose sum is the operations */
	int sem_initial;   /* -1: no semaphore */
	bool mq, irq, pool, chain, fairness;
	uint32_t caps; /* RTB_CAP_* beyond the scenario's */
	const char *needs;
};

struct tm_period {
	uint64_t ops, ns, rate, handled, lost, bad;
};

struct tm_run {
	const struct tm_def *def;
	bool unfair;
	/* tm.coop's counted run: each thread also counts the turns the OS took
	 * away from it (rtb_tm_coop_counted_main) */
	bool counted;
	_Atomic uint32_t turns_all;		/* every thread's turns, in the counted run */
	volatile uint32_t lost[TM_WORKERS_MAX]; /* turns taken away, per thread */
	struct tm_worker w[TM_WORKERS_MAX];
	struct rtb_sem *sem;
	struct rtb_mq *mq;
	struct rtb_irq *irq;
	struct rtb_pool *pool;
	volatile bool stop;
	volatile uint64_t end_ticks; /* the workers' own bound */
	volatile int err;	     /* first error a worker met */
	volatile uint32_t raw[TM_COUNTERS];
	uint32_t seen[TM_COUNTERS];
	uint64_t total[TM_COUNTERS];
	uint32_t nperiods; /* complete periods measured */
	struct tm_period periods[TM_PERIODS_MAX];
	uint64_t cum[TM_PERIODS_MAX * TM_WORKERS_MAX]; /* per-thread totals at period ends */
	uint64_t cum_lost[TM_COUNTED_PERIODS * TM_WORKERS_MAX]; /* lost[] at period ends */
	volatile uint32_t words[TM_BASIC_WORDS];
};

/* The eight tests, in run order (tm_workers.c). */
extern const struct tm_def rtb_tm_defs[TM_TESTS];

/* tm.coop's thread in the counted run: a turn as coop's, and the turns the
 * OS took away from the thread counted in run->lost (see tm_workers.c). */
void rtb_tm_coop_counted_main(void *arg);

/* The interrupt handler of tm.irq and tm.irq_preempt (arg: the struct tm_run):
 * counts, and signals run->sem. */
void rtb_tm_handler(void *arg);

#endif /* RTB_SCENARIO_TM_H */
