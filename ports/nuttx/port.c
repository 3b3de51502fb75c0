/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench NuttX port: the port contract on Apache NuttX's own POSIX API, in
 * its flat build for qemu-armv7a (QEMU's virt with one Cortex-A7, the board
 * rtbench calls virt-a7). rtbench is NuttX's application: ports/nuttx/apps
 * compiles the core, the scenarios and this port into libapps.a with NuttX's
 * own compiler flags, and CONFIG_INIT_ENTRYPOINT (rtbench_main, main.c) is
 * the console task of the serial line protocol every firmware port speaks
 * (ports/common/fw_console.c). NuttX owns the board: its GIC driver, its
 * PL011 console driver and its tick on the generic timer's physical timer.
 *
 * Design. Threads are pthreads under SCHED_FIFO or SCHED_RR (the round-robin
 * slice is CONFIG_RR_INTERVAL): relative priority p runs at native
 * NX_PRIO_BASE + p, the runner waits for a run's first tick above every
 * scenario, and the console task, blocked in read() on the console, is the
 * most urgent (port_nuttx.h). A thread created start_suspended waits at a
 * gate semaphore, suspend and resume are a semaphore per thread, deleting a
 * thread is pthread_cancel (asynchronous: it ends wherever it is blocked)
 * and pthread_join. Semaphores, mutexes, message queues and event flags are
 * the POSIX code the Linux port uses too (ports/posix/sync.c): sem_*
 * (signalling semaphores with SEM_PRIO_NONE, NuttX's rule when priority
 * inheritance is configured), pthread mutexes with PTHREAD_PRIO_INHERIT and,
 * built with CONFIG_PRIORITY_PROTECT, PTHREAD_PRIO_PROTECT (the priority
 * ceiling), mq_* (a copy of each message, at most CONFIG_MQ_MAXMSGSIZE
 * bytes) and event flags built from a mutex and a condition variable. Memory
 * is NuttX's heap (malloc, mallinfo). The interrupt source is a hardware
 * timer of the board, the generic timer's virtual timer (NuttX ticks on the
 * physical one), raised from software by a GIC software-generated interrupt
 * when fired with delay 0; both are attached with irq_attach and reach the
 * scenario's handler through NuttX's interrupt dispatch, which switches
 * threads on the way out (irq.c). The counter is the architecture's
 * (ports/arch/cortex-a: CNTVCT, or the PMU's instruction count under QEMU's
 * -icount); time_ns is derived from it, sleeps are clock_nanosleep to the
 * tick at or after the deadline. Of the IPC channels, the POSIX message
 * queue (ipc.c). Not claimed: suspending another thread (NuttX has no
 * pthread suspend), the signal channels (not ported), System V semaphores
 * (NuttX has none), cache flush.
 */
#include "port_nuttx.h"

#include <errno.h>
#include <malloc.h>
#include <nuttx/sched.h>
#include <nuttx/version.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "error_text.h"
#include "fw_console.h"
#include "fw_port.h"
#include "rtb/core.h"

#define CAPS                                                                                     \
	(RTB_CAP_REALTIME | RTB_CAP_MEMORY_LOCKED | RTB_CAP_PINNING | RTB_CAP_POLICY_RR |        \
	 RTB_CAP_MUTEX_INHERIT | CAP_CEILING | RTB_CAP_MQ | RTB_CAP_EVT | RTB_CAP_EVT_EMULATED | \
	 RTB_CAP_IRQ | RTB_CAP_IRQ_PERIODIC | RTB_CAP_MEM_USAGE | RTB_CAP_THREAD_DELETE_LIVE |   \
	 RTB_CAP_IPC_POSIX_MQ)

#if POSIX_HAS_PRIO_CEILING
#define CAP_CEILING RTB_CAP_MUTEX_CEILING
#else
#define CAP_CEILING 0u
#endif

#define NX_STR_(x) #x
#define NX_STR(x) NX_STR_(x)

#ifdef CONFIG_PRIORITY_INHERITANCE
#define NX_INHERITANCE "on"
#else
#define NX_INHERITANCE "off"
#endif
#ifdef CONFIG_PRIORITY_PROTECT
#define NX_PROTECT "on"
#else
#define NX_PROTECT "off"
#endif
#ifdef CONFIG_DEBUG_ASSERTIONS
#define NX_ASSERTS "on"
#else
#define NX_ASSERTS "off"
#endif
#ifdef CONFIG_SCHED_TICKLESS
#define NX_TICKLESS "on"
#else
#define NX_TICKLESS "off"
#endif

static const struct rtb_port_setting os_settings[] = {
	{"tick", NX_STR(CONFIG_USEC_PER_TICK) " us", "CONFIG_USEC_PER_TICK"},
	{"tickless", NX_TICKLESS, "CONFIG_SCHED_TICKLESS"},
	{"round-robin slice", NX_STR(CONFIG_RR_INTERVAL) " ms", "CONFIG_RR_INTERVAL"},
	{"priority inheritance", NX_INHERITANCE, "CONFIG_PRIORITY_INHERITANCE"},
	{"priority protect", NX_PROTECT, "CONFIG_PRIORITY_PROTECT"},
	{"asserts", NX_ASSERTS, "CONFIG_DEBUG_ASSERTIONS"},
};

/* "checked" when the build keeps NuttX's own run-time checks (assertions,
 * debug features, stack checking), "production" otherwise, as the other
 * RTOS ports name theirs: read from the build, never assumed */
#if defined(CONFIG_DEBUG_ASSERTIONS) || defined(CONFIG_DEBUG_FEATURES) || \
	defined(CONFIG_STACK_COLORATION) || defined(CONFIG_STACK_CANARIES)
#define NX_CONFIG_NAME "checked"
#else
#define NX_CONFIG_NAME "production"
#endif

static struct rtb_port_info info = {
	.port = "nuttx",
	.os = "NuttX",
	.os_release = CONFIG_VERSION_STRING,
	.libc = "NuttX libc",
	.arch = BOARD_CPU,
	.counter = RTB_FW_COUNTER_NAME,
	.counter_note = RTB_FW_COUNTER_NOTE,
	.irq_source = "a hardware timer of the board (the ARM generic timer's virtual timer: "
		      "NuttX ticks on the physical one) whose handler, attached with irq_attach, "
		      "calls the scenario's handler from NuttX's interrupt dispatch",
	.irq_name = BOARD_IRQ_NAME,
	.counter_hz = RTB_FW_COUNTER_HZ_BUILT,
	.counter_step_ticks = 0,
	.cpu = 0,
	.cpu_count = BOARD_CPU_COUNT,
	.degraded = "",
	.caps = CAPS,
	.prio_max = NX_PRIO_MAX - NX_PRIO_BASE,
	.os_config = NX_CONFIG_NAME,
	.os_settings = os_settings,
	.os_nsettings = RTB_ARRAY_SIZE(os_settings),
};

const char *rtb_port_strerror(int err)
{
	return rtb_error_text(err, "out of memory or of NuttX objects", "NuttX error");
}

int posix_native_prio(int rel)
{
	if (rel < 0 || rel > info.prio_max)
		return -1;
	return NX_NATIVE(rel);
}

int posix_relative_prio(int native)
{
	return native - NX_PRIO_BASE;
}

int nx_signal_sem_init(sem_t *s, unsigned value)
{
	if (sem_init(s, 0, value) != 0)
		return posix_error(errno);
	sem_setprotocol(s, SEM_PRIO_NONE);
	return RTB_OK;
}

int rtb_port_init(const struct rtb_port_config *cfg)
{
	struct sched_param sp = {.sched_priority = NX_NATIVE(0)};

	if (!rtb_fw_port_cpu_ok(&info, cfg))
		return RTB_E_INVALID;
	info.counter_hz = rtb_fw_counter_hz(cfg);
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	return RTB_OK;
}

void rtb_port_fini(void)
{
}

const struct rtb_port_info *rtb_port_info(void)
{
	return &info;
}

static int say(char *buf, size_t len, unsigned long long v)
{
	rtb_fmt(buf, len, "%llu", v);
	return RTB_OK;
}

int rtb_port_property(const char *key, char *buf, size_t len)
{
	if (rtb_strcmp(key, "tick_hz_config") == 0)
		return say(buf, len, 1000000ull / CONFIG_USEC_PER_TICK);
	if (rtb_strcmp(key, "timer_resolution_ns") == 0)
		return say(buf, len, NX_TICK_NS);
	if (rtb_strcmp(key, "no_hz") == 0) {
		rtb_fmt(buf, len, "%s", NX_TICKLESS);
		return RTB_OK;
	}
	if (rtb_strcmp(key, "thread_stack_bytes") == 0)
		return say(buf, len, NX_STACK_BYTES);
	if (rtb_strcmp(key, "rt_withheld_ns") == 0)
		return say(buf, len, 0);
	if (rtb_strcmp(key, "rr_interval_ns") == 0) {
		/* the caller's own slice: 0 for a thread of the FIFO policy */
		struct sched_param sp;
		int policy = SCHED_FIFO;
		pthread_getschedparam(pthread_self(), &policy, &sp);
		return say(buf, len, policy == SCHED_RR ? CONFIG_RR_INTERVAL * 1000000ull : 0ull);
	}
	if (rtb_strcmp(key, "lacks.suspend_other") == 0) {
		rtb_fmt(buf, len, "NuttX has no call that suspends another pthread");
		return RTB_OK;
	}
	return rtb_fw_irq_property(key, buf, len);
}

/* ---- counter and time ------------------------------------------------------ */

uint64_t rtb_port_counter_hz(void)
{
	return info.counter_hz;
}

/* The deadline is on the counter's time (rtb_port_time_ns), which restarts
 * with every run: it becomes a deadline of NuttX's monotonic clock (the
 * generic timer's count, which the counter follows), slept to with
 * clock_nanosleep(TIMER_ABSTIME), which wakes at the first tick at or after
 * it (a relative nanosleep adds a tick, so that it never ends early), again
 * until the counter has passed it. */
int rtb_port_sleep_until_ns(uint64_t deadline_ns)
{
	for (uint64_t now = rtb_port_time_ns(); now < deadline_ns; now = rtb_port_time_ns()) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t at = (uint64_t)ts.tv_nsec + (deadline_ns - now);
		ts.tv_sec += (time_t)(at / 1000000000u);
		ts.tv_nsec = (long)(at % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return RTB_OK;
}

/* A relative sleep blocks at least once, as nanosleep() does: one shorter
 * than a tick still waits for a tick. */
int rtb_port_sleep_ns(uint64_t duration_ns)
{
	uint64_t deadline = rtb_port_time_ns() + duration_ns;
	struct timespec ts = {.tv_sec = (time_t)(duration_ns / 1000000000u),
			      .tv_nsec = (long)(duration_ns % 1000000000u)};

	nanosleep(&ts, NULL);
	return rtb_port_sleep_until_ns(deadline);
}

void rtb_port_cpu_relax(void)
{
	__asm volatile("nop");
}

int rtb_port_cache_flush(const void *p, size_t bytes)
{
	(void)p;
	(void)bytes;
	return RTB_E_UNSUPPORTED;
}

/* ---- memory ------------------------------------------------------------------ */

void *rtb_port_mem_alloc(size_t bytes)
{
	return malloc(bytes != 0 ? bytes : 1);
}

void rtb_port_mem_free(void *p)
{
	free(p);
}

static void count_thread(FAR struct tcb_s *tcb, FAR void *arg)
{
	(void)tcb;
	(*(uint64_t *)arg)++;
}

int rtb_port_mem_usage(struct rtb_mem_usage *out)
{
	struct mallinfo mi = mallinfo();
	uint64_t threads = 0;

	rtb_memset(out, 0, sizeof(*out));
	nxsched_foreach(count_thread, &threads);
	out->resident_bytes = (uint64_t)mi.uordblks;
	out->heap_used_bytes = (uint64_t)mi.uordblks;
	out->threads = threads;
	out->note = "resident and heap: bytes of NuttX's heap in use (mallinfo's uordblks); "
		    "threads: NuttX tasks and threads, the idle thread included";
	return RTB_OK;
}

/* ---- /rtbench/nuttx.json ------------------------------------------------------ */

static const struct rtb_fw_cfg config[] = {
	RTB_FW_CFG(CONFIG_USEC_PER_TICK),
	RTB_FW_CFG(CONFIG_RR_INTERVAL),
	RTB_FW_CFG(CONFIG_MQ_MAXMSGSIZE),
	RTB_FW_CFG(CONFIG_PREALLOC_MQ_MSGS),
	RTB_FW_CFG(CONFIG_SEM_PREALLOCHOLDERS),
	RTB_FW_CFG(CONFIG_ARCH_INTERRUPTSTACK),
	RTB_FW_CFG(CONFIG_RAM_SIZE),
};

/* The console's hook (fw_console.h): NuttX's release, the board, the heap,
 * the configuration that changes the paths, and how each service is
 * provided, keyed like the core's capabilities (docs/porting.md). */
size_t rtb_fw_os_facts(char *buf, size_t len)
{
	size_t n = rtb_fmt(buf, len,
			   "{\"kernel\":\"NuttX " CONFIG_VERSION_STRING "\",\"port\":\"flat build, "
			   "board qemu-armv7a\",");
	n += rtb_fw_facts_board(buf + n, len - n);
	n += rtb_fmt(buf + n, len - n,
		     ",\"heap\":{\"scheme\":\"NuttX mm_heap (malloc)\"},\"config\":{"
		     "\"CONFIG_PRIORITY_INHERITANCE\":\"%s\",\"CONFIG_PRIORITY_PROTECT\":\"%s\","
		     "\"CONFIG_DEBUG_ASSERTIONS\":\"%s\",\"CONFIG_SCHED_TICKLESS\":\"%s\",",
		     NX_INHERITANCE, NX_PROTECT, NX_ASSERTS, NX_TICKLESS);
	n += rtb_fw_facts_config(buf + n, len - n, config, RTB_ARRAY_SIZE(config));
	n += rtb_fmt(buf + n, len - n,
		     "},\"notes\":{\"mutex_inherit\":\"a pthread mutex with "
		     "PTHREAD_PRIO_INHERIT\",\"mutex_ceiling\":\"a pthread mutex with "
		     "PTHREAD_PRIO_PROTECT\",\"policy_rr\":\"SCHED_RR, a slice of "
		     "CONFIG_RR_INTERVAL ms\",\"mq\":\"mq_send/mq_receive copy each message\","
		     "\"memory\":\"malloc/free of NuttX's heap\"},"
		     "\"emulated\":{\"evt\":\"a pthread mutex and condition variable\","
		     "\"mem_pool\":\"malloc/free of one block each\"},"
		     "\"unsupported\":{\"suspend_other\":\"NuttX has no call that suspends "
		     "another pthread\",\"ipc\":\"the signal channels are not ported; NuttX "
		     "has no System V semaphores\","
		     "\"cache_flush\":\"not ported to NuttX yet\"}}");
	return n < len ? n : len - 1;
}

const char *rtb_port_pool_mechanism(void)
{
	return "malloc / free of one block each (NuttX's heap; its memory pools are not ported)";
}
