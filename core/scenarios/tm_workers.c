/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TM (Thread-Metric): the worker threads and the interrupt handler of each
 * test, and the table that describes the tests. The controller that runs
 * them, and the design, are in tm.c.
 */
#include "tm.h"

/* ---- workers -------------------------------------------------------------- */

static bool tm_should_stop(struct tm_run *run, uint32_t turns)
{
	if (run->stop)
		return true;
	return (turns & TM_CHECK_MASK) == 0 && rtb_port_counter_read() >= run->end_ticks;
}

/* Is count n one at which the end is checked (n & TM_CHECK_MASK zero)? With
 * one shift: GCC masks and compares, one instruction more a turn. */
static inline bool tm_check_due(uint32_t n)
{
	return (n << (32u - TM_CHECK_BITS)) == 0;
}

static void tm_fail(struct tm_run *run, int rc)
{
	if (run->err == RTB_OK)
		run->err = rc;
}

static void basic_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;

	for (uint32_t n = 1;; n++) {
		for (uint32_t i = 0; i < TM_BASIC_WORDS; i++)
			run->words[i] = (run->words[i] + n) ^ run->words[i];
		run->raw[w->index] = n;
		if (tm_should_stop(run, n))
			break;
	}
	w->done = 1;
}

static void coop_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;

	for (uint32_t n = 1;; n++) {
		run->raw[w->index] = n;
		if (tm_should_stop(run, n))
			break;
		/* the unfair variant: thread 0 relinquishes every second turn */
		if (!(run->unfair && w->index == 0 && (n & 1u) != 0))
			rtb_port_thread_yield();
	}
	w->done = 1;
}

/*
 * coop_main, and the turns the OS takes away. Where the OS gives the CPU to
 * the next thread of the priority without a relinquish (a time slice ends,
 * or, in FreeRTOS, a higher-priority thread blocks and the next one of the
 * priority is chosen), the thread it left loses its place: the others have
 * one more turn each before it counts again. Each thread takes a number
 * from one shared counter per turn, so it sees how many turns the others
 * had since its own last one (rtb_tm_turn_lost() says whether it lost its
 * place); it counts at most one turn taken away per turn, so a thread whose
 * relinquish does nothing still has far more turns than the others.
 */
void rtb_tm_coop_counted_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;
	const uint32_t nw = run->def->nworkers;
	uint32_t last = 0;

	for (uint32_t n = 1;; n++) {
		uint32_t ticket =
			atomic_fetch_add_explicit(&run->turns_all, 1u, memory_order_relaxed);
		if (n > 1 && rtb_tm_turn_lost(ticket - last - 1, nw))
			run->lost[w->index]++;
		last = ticket;
		run->raw[w->index] = n;
		if (tm_should_stop(run, n))
			break;
		if (!(run->unfair && w->index == 0 && (n & 1u) != 0))
			rtb_port_thread_yield();
	}
	w->done = 1;
}

static void chain_low_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;

	for (uint32_t n = 1;; n++) {
		int rc = rtb_port_thread_resume(run->w[1].thread);
		if (rc != RTB_OK) {
			/* once the run is stopping, the thread above may already have
			 * ended (an RTOS may refuse to resume an ended thread) */
			if (!run->stop)
				tm_fail(run, rc);
			break;
		}
		run->raw[0] = n;
		if (tm_should_stop(run, n))
			break;
	}
	w->done = 1;
}

static void chain_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;
	uint32_t k = w->index;

	for (uint32_t n = 1;; n++) {
		int rc = rtb_port_thread_suspend_self();
		if (rc != RTB_OK || run->stop) {
			if (rc != RTB_OK)
				tm_fail(run, rc);
			break;
		}
		/* the unfair variant: thread 2 resumes thread 3 every second time */
		if (k + 1 < TM_CHAIN && !(run->unfair && k == 2 && (n & 1u) != 0))
			rc = rtb_port_thread_resume(run->w[k + 1].thread);
		if (rc != RTB_OK) {
			if (!run->stop) /* as in chain_low_main */
				tm_fail(run, rc);
			break;
		}
		run->raw[k] = n;
	}
	w->done = 1;
}

void rtb_tm_handler(void *arg)
{
	struct tm_run *run = arg;

	run->raw[TM_C_HANDLED]++;
	int rc = rtb_port_sem_signal_from_irq(run->sem);
	if (rc != RTB_OK)
		tm_fail(run, rc);
}

/* What became of a turn of tm.irq's thread that did not take the semaphore
 * at once. */
enum irq_late_end {
	IRQ_TOOK, /* the hand-off is done */
	IRQ_LOST, /* not within TM_HANDOFF_TIMEOUT_NS: counted, raise again */
	IRQ_END,  /* the run stops, or a call failed (run->err) */
};

/* The fire failed (rc), or the signal was not there yet (RTB_E_AGAIN): the
 * interrupt comes a little later where it is not raised from software (a
 * POSIX timer signal), so wait for it, bounded. Out of line: not the
 * measured path where the take finds the signal. */
static __attribute__((noinline)) enum irq_late_end irq_late(struct tm_run *run, int rc)
{
	if (rc == RTB_E_AGAIN)
		rc = rtb_port_sem_timedwait(run->sem, TM_HANDOFF_TIMEOUT_NS);
	if (run->stop)
		return IRQ_END;
	if (rc == RTB_OK)
		return IRQ_TOOK;
	if (rc == RTB_E_TIMEOUT) {
		run->raw[TM_C_LOST]++;
		return IRQ_LOST;
	}
	tm_fail(run, rc);
	return IRQ_END;
}

/*
 * Where the interrupt is taken at once (raised from software), the handler's
 * signal is there before the fire returns, and the take does not wait: the
 * same semaphore service as a wait that finds the count, without turning a
 * timeout into ticks each time. The fire and the take are the port's inline
 * ones where it has them (rtb_port_inline.h), and the loop does what the
 * definition asks: raise, take, count. Like the end time, the stop flag is
 * read every TM_CHECK_MASK + 1 hand-offs (the controller waits for the
 * worker's end, tm_teardown), and after every turn that was not one.
 */
static void irq_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;
	struct rtb_irq *irq = run->irq;
	struct rtb_sem *sem = run->sem;
	uint32_t n = 0;

	for (;;) {
		int rc = rtb_port_irq_fire_now(irq);
		if (rc == RTB_OK)
			rc = rtb_port_sem_trywait(sem);
		if (rc != RTB_OK) {
			enum irq_late_end end = irq_late(run, rc);
			if (end == IRQ_END)
				break;
			if (end == IRQ_LOST) {
				if (tm_should_stop(run, 0))
					break;
				continue;
			}
		}
		run->raw[0] = ++n;
		if (tm_check_due(n) && tm_should_stop(run, 0))
			break;
	}
	w->done = 1;
}

/* tm.irq_preempt's raise after which the woken thread has not run: the
 * interrupt comes a little later where it is not raised from software (a
 * POSIX timer signal). Wait for the run, bounded; false if it did not come
 * or the run stops. Out of line: not the measured path. */
static __attribute__((noinline)) bool irqp_late(struct tm_run *run, uint32_t before)
{
	uint64_t end = rtb_port_counter_read() + rtb_ns_to_ticks(TM_HANDOFF_TIMEOUT_NS);

	while (run->raw[1] == before && !run->stop && rtb_port_counter_read() < end)
		rtb_port_cpu_relax();
	return run->raw[1] != before;
}

/* Where the interrupt is taken at once, the handler and the woken thread
 * have run before the fire returns. The stop flag and the end time are read
 * as in irq_main. */
static void irqp_low_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;
	struct rtb_irq *irq = run->irq;
	uint32_t n = 0;

	for (;;) {
		uint32_t before = run->raw[1];
		int rc = rtb_port_irq_fire_now(irq);
		if (rc != RTB_OK) {
			tm_fail(run, rc);
			break;
		}
		if (run->raw[1] == before && !irqp_late(run, before)) {
			if (run->stop)
				break;
			run->raw[TM_C_LOST]++;
			if (tm_should_stop(run, 0))
				break;
			continue;
		}
		run->raw[0] = ++n;
		if (tm_check_due(n) && tm_should_stop(run, 0))
			break;
	}
	w->done = 1;
}

static void irqp_high_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;

	for (uint32_t n = 1;; n++) {
		int rc = rtb_port_sem_wait(run->sem);
		if (rc != RTB_OK || run->stop) {
			if (rc != RTB_OK)
				tm_fail(run, rc);
			break;
		}
		run->raw[1] = n;
	}
	w->done = 1;
}

static void msg_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;
	uint32_t out[TM_MSG_BYTES / 4], in[TM_MSG_BYTES / 4];

	for (uint32_t n = 1;; n++) {
		for (uint32_t k = 0; k < TM_MSG_BYTES / 4; k++)
			out[k] = n ^ (k * 0x9e3779b9u);
		int rc = rtb_port_mq_send(run->mq, out, TM_MSG_BYTES);
		if (rc == RTB_OK)
			rc = rtb_port_mq_receive(run->mq, in, TM_MSG_BYTES);
		if (rc != RTB_OK) {
			tm_fail(run, rc);
			break;
		}
		for (uint32_t k = 0; k < TM_MSG_BYTES / 4; k++) {
			if (in[k] != out[k]) {
				run->raw[TM_C_BAD]++;
				break;
			}
		}
		run->raw[0] = n;
		if (tm_should_stop(run, n))
			break;
	}
	w->done = 1;
}

static void sync_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;

	for (uint32_t n = 1;; n++) {
		int rc = rtb_port_sem_wait(run->sem);
		if (rc == RTB_OK)
			rc = rtb_port_sem_signal(run->sem);
		if (rc != RTB_OK) {
			tm_fail(run, rc);
			break;
		}
		run->raw[0] = n;
		if (tm_should_stop(run, n))
			break;
	}
	w->done = 1;
}

static void mem_main(void *arg)
{
	struct tm_worker *w = arg;
	struct tm_run *run = w->run;

	for (uint32_t n = 1;; n++) {
		void *p;
		int rc = rtb_port_pool_get(run->pool, &p);
		if (rc == RTB_OK)
			rc = rtb_port_pool_put(run->pool, p);
		if (rc != RTB_OK) {
			tm_fail(run, rc);
			break;
		}
		run->raw[0] = n;
		if (tm_should_stop(run, n))
			break;
	}
	w->done = 1;
}

const struct tm_def rtb_tm_defs[TM_TESTS] = {
	[TM_BASIC] = {.id = "tm.basic",
		      .title = "Thread-Metric basic processing: passes over a 1024-word array per "
			       "second",
		      .nworkers = 1,
		      .fn = {basic_main},
		      .prio = {1},
		      .ops_mask = 1u << 0,
		      .sem_initial = -1},
	[TM_COOP] = {.id = "tm.coop",
		     .title = "Thread-Metric cooperative scheduling: turns of 5 equal-priority "
			      "threads relinquishing in turn, per second",
		     .nworkers = 5,
		     .fn = {coop_main, coop_main, coop_main, coop_main, coop_main},
		     .prio = {1, 1, 1, 1, 1},
		     .ops_mask = 0x1fu,
		     .sem_initial = -1,
		     .fairness = true},
	[TM_PREEMPT] = {.id = "tm.preempt",
			.title = "Thread-Metric preemptive scheduling: thread runs of a resume and "
				 "suspend chain over 5 priorities, per second",
			.nworkers = TM_CHAIN,
			.fn = {chain_low_main, chain_main, chain_main, chain_main, chain_main},
			.prio = {1, 2, 3, 4, 5},
			.ops_mask = 0x1fu,
			.sem_initial = -1,
			.chain = true,
			.fairness = true},
	[TM_IRQ] = {.id = "tm.irq",
		    .title = "Thread-Metric interrupt processing: interrupt handler to thread "
			     "hand-offs through a semaphore, per second",
		    .nworkers = 1,
		    .fn = {irq_main},
		    .prio = {1},
		    .ops_mask = 1u << 0,
		    .sem_initial = 0,
		    .irq = true,
		    .caps = RTB_CAP_IRQ,
		    .needs = "the port has no interrupt source"},
	[TM_IRQ_PREEMPT] = {.id = "tm.irq_preempt",
			    .title = "Thread-Metric interrupt preemption processing: interrupt "
				     "handler wake-ups of a higher-priority thread, per second",
			    .nworkers = 2,
			    .fn = {irqp_low_main, irqp_high_main},
			    .prio = {1, 2},
			    .ops_mask = 1u << 1,
			    .sem_initial = 0,
			    .irq = true,
			    .caps = RTB_CAP_IRQ,
			    .needs = "the port has no interrupt source"},
	[TM_MSG] = {.id = "tm.msg",
		    .title = "Thread-Metric message processing: 16-byte send and receive pairs "
			     "per second",
		    .nworkers = 1,
		    .fn = {msg_main},
		    .prio = {1},
		    .ops_mask = 1u << 0,
		    .sem_initial = -1,
		    .mq = true,
		    .caps = RTB_CAP_MQ,
		    .needs = "the port has no message queues"},
	[TM_SYNC] = {.id = "tm.sync",
		     .title = "Thread-Metric synchronization processing: semaphore get and put "
			      "pairs per second",
		     .nworkers = 1,
		     .fn = {sync_main},
		     .prio = {1},
		     .ops_mask = 1u << 0,
		     .sem_initial = 1},
	[TM_MEM] = {.id = "tm.mem",
		    .title = "Thread-Metric memory allocation: 128-byte allocate and free pairs "
			     "per second",
		    .nworkers = 1,
		    .fn = {mem_main},
		    .prio = {1},
		    .ops_mask = 1u << 0,
		    .sem_initial = -1,
		    .pool = true},
};
