/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One measuring thread per CPU, for the scenarios that take cpu_mask
 * (timer.periodic.latency, os.noise; after cyclictest -S and oslat).
 *
 * Every thread is created suspended on its CPU (the port's per-thread CPU
 * placement), then all are started, so they measure over the same time.
 * The caller waits on one semaphore that each thread signals when its
 * function returns, waking every tick_ns to let the scenario report
 * progress; the measuring threads themselves never write a record.
 */
#include "rtb/core.h"

struct percpu_slot {
	rtb_thread_fn fn;
	void *arg;
	struct rtb_sem *done;
	volatile bool cancelled;
};

static void percpu_main(void *arg)
{
	struct percpu_slot *slot = arg;

	if (!slot->cancelled)
		slot->fn(slot->arg);
	rtb_port_sem_signal(slot->done);
}

bool rtb_ctx_per_cpu(const struct rtb_ctx *ctx)
{
	return rtb_ctx_count(ctx, "cpu_mask", 0, 0, 0) != 0;
}

uint32_t rtb_ctx_cpus(const struct rtb_ctx *ctx, int cpus[RTB_CPUS_MAX])
{
	uint64_t mask = rtb_ctx_count(ctx, "cpu_mask", 0, 0, 0);
	uint32_t n = 0;

	for (int c = 0; c < RTB_CPUS_MAX && mask != 0; c++) {
		if (mask & (1ull << c))
			cpus[n++] = c;
	}
	if (n == 0)
		cpus[n++] = rtb_port_info()->cpu;
	return n;
}

int rtb_run_per_cpu(const int *cpus, uint32_t n, int prio, rtb_thread_fn fn, void *args,
		    size_t arg_size, void (*tick)(void *args, uint32_t n), uint64_t tick_ns)
{
	struct rtb_thread *threads[RTB_CPUS_MAX];
	struct percpu_slot slots[RTB_CPUS_MAX];
	struct rtb_sem *done = NULL;
	uint32_t made = 0;

	if (n == 0 || n > RTB_CPUS_MAX)
		return RTB_E_INVALID;
	int rc = rtb_port_sem_create(&done, 0);
	if (rc != RTB_OK)
		return rc;
	for (; made < n; made++) {
		struct rtb_thread_attr attr = {.name = "rtb-percpu",
					       .prio = prio,
					       .policy = RTB_POLICY_FIFO,
					       .start_suspended = true,
					       .on_cpu = true,
					       .cpu = cpus[made]};
		slots[made].fn = fn;
		slots[made].arg = (char *)args + (size_t)made * arg_size;
		slots[made].done = done;
		slots[made].cancelled = false;
		rc = rtb_port_thread_create(&threads[made], &attr, percpu_main, &slots[made]);
		if (rc != RTB_OK)
			break;
	}
	if (rc != RTB_OK) {
		for (uint32_t i = 0; i < made; i++)
			slots[i].cancelled = true;
	}
	for (uint32_t i = 0; i < made; i++)
		rtb_port_thread_start(threads[i]);
	for (uint32_t ended = 0; ended < made;) {
		int w = tick != NULL && rc == RTB_OK ? rtb_port_sem_timedwait(done, tick_ns)
						     : rtb_port_sem_wait(done);
		if (w == RTB_OK)
			ended++;
		else if (w == RTB_E_TIMEOUT)
			tick(args, n);
		else
			break; /* the semaphore failed: the watchdog outside ends the run */
	}
	for (uint32_t i = 0; i < made; i++)
		rtb_port_thread_delete(threads[i]);
	rtb_port_sem_delete(done);
	return rc;
}
