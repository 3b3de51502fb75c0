/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench uC/OS-III port: the port contract on uC/OS-III (v3.08), on one
 * board (boards/<board>/) of a Cortex-M or a Cortex-A (arch/<arch>/; the
 * kernel ports ARM-Cortex-M/ARMv7-M or ARM-Cortex-A/ARMv7-A, port.cmake,
 * and what differs between them: ucos3_arch.h in ports/ucos3/<arch>/).
 *
 * Design. Threads are uC/OS-III tasks (OSTaskCreate), their control block
 * and stack from the port's allocator. uC/OS-III's lower number is the more
 * urgent: relative priority p runs at native (OS_CFG_PRIO_MAX - 2) - p, so
 * relative 0 sits just above the idle task and prio_max =
 * OS_CFG_PRIO_MAX - 4 at native 2; native 1 is the console task, which runs
 * only when a byte arrives, and native 0 stays free. A thread created
 * start_suspended is created with the scheduler locked and suspended
 * (OSTaskSuspend) before it can run; rtb_port_thread_start() is
 * OSTaskResume(). Suspending oneself pends on the task's own semaphore
 * (OSTaskSemPend), so a resume that comes first (OSTaskSemPost) is kept;
 * suspending another task is OSTaskSuspend() and its resume OSTaskResume().
 * A thread ends with OSTaskDel(self); rtb_port_thread_delete() deletes one
 * that has not (blocked in a pend, ready, suspended) and frees its memory.
 * Equal priorities run first come, first served: round-robin is built in
 * (OS_CFG_SCHED_ROUND_ROBIN_EN) and enabled, RTB_POLICY_RR threads get a
 * quantum of RTB_UCOS3_RR_QUANTUM_TICKS and RTB_POLICY_FIFO threads one of
 * 2^32 - 1 ticks, which never runs out; a yield is OSSchedRoundRobinYield()
 * (built without round-robin, the port rotates the ready list the same way
 * and claims no RTB_CAP_POLICY_RR). After a task changes its own priority
 * the port sets OSPrioCur back to it: uC/OS-III 3.08.02 leaves it stale
 * until the next switch, and yields, slices and queues for it
 * (ucos3_change_prio). Counting semaphores are OSSem (waiters
 * leave highest priority first, equal priorities in arrival order);
 * RTB_MUTEX_INHERIT is an OSMutex, which always inherits; RTB_MUTEX_NONE,
 * the negative control of MUT-B-ARC, is an OSSem of count 1 (no owner, no
 * inheritance); uC/OS-III has no priority ceiling protocol, so
 * RTB_MUTEX_CEILING is unsupported. Event flags are native OSFlag groups
 * (32 flags). Message queues are OSQ, which pass pointers: the port copies
 * each message into a slot of the queue's own OSMem partition and posts the
 * slot, the receiver copies it out and gives the slot back, so a send and a
 * receive each copy the message as on the other OSes; a send to a full queue
 * (no free slot) blocks on a semaphore a receive posts. Memory: uC/OS-III
 * has no general heap; rtb_port_mem_alloc() takes blocks of size classes
 * (8 per doubling) from OSMem partitions carved on demand from the board's
 * heap section, blocks over 56 KiB (beyond OS_MEM_SIZE) from free lists of
 * the port's own (mem.c); the contract's fixed-size block pools are OSMem
 * partitions of their own. The interrupt source is a board hardware timer
 * (raised from software on a spare interrupt line when fired with delay 0)
 * whose handler, bracketed by OSIntEnter()/OSIntExit(), calls the
 * scenario's handler; a post there wakes a task when OSIntExit() switches.
 * Periodic mode counts lost interrupts from the counter, and stops a source
 * whose handler takes the whole period for 20 ms (an interrupt storm would
 * starve every task). The counter is the architecture's (fw_counter.h: on
 * the Cortex-M3 a board timer of known frequency extended to 64 bits, the
 * DWT cycle counter not being modelled by QEMU); time_ns is derived from
 * it, and sleeps are OSTimeDly to the first tick at or after the deadline.
 * The tick runs at OS_CFG_TICK_RATE_HZ (UCOS3_TICK_START: SysTick on a
 * Cortex-M, the board's timer on a Cortex-A). Not claimed: the priority
 * ceiling protocol, the POSIX IPC channels, cache flush (RTB_FW_CACHE_NOTE).
 */
#include "port_ucos3.h"

#include "error_text.h"
#include "fw_console.h"
#include "fw_port.h"
#include "rtb/core.h"

#define CAPS_BASE                                                                              \
	(RTB_CAP_REALTIME | RTB_CAP_MEMORY_LOCKED | RTB_CAP_PINNING | RTB_CAP_SUSPEND_OTHER |  \
	 RTB_CAP_IRQ | RTB_CAP_IRQ_PERIODIC | RTB_CAP_MEM_USAGE | RTB_CAP_THREAD_DELETE_LIVE | \
	 RTB_CAP_MEM_POOL)
#define CAPS                                                                     \
	(CAPS_BASE | (UCOS3_HAS_MUTEX ? RTB_CAP_MUTEX_INHERIT : 0u) |            \
	 (UCOS3_HAS_MQ ? RTB_CAP_MQ : 0u) | (UCOS3_HAS_EVT ? RTB_CAP_EVT : 0u) | \
	 (UCOS3_HAS_RR ? RTB_CAP_POLICY_RR : 0u))

#define TICK_NS (1000000000ull / OS_CFG_TICK_RATE_HZ)

OS_TCB *ucos3_init_tcb;

/* A kernel port that saves the VFP/NEON unit (a Cortex-A's) says what it
 * saves in the results' os_config (ucos3_arch.h). */
#ifdef UCOS3_FPU_CONTEXT
static const struct rtb_port_setting settings[] = {
	{"FPU context", UCOS3_FPU_CONTEXT, UCOS3_FPU_CONTEXT_FROM},
};
#define UCOS3_SETTINGS settings
#define UCOS3_NSETTINGS RTB_ARRAY_SIZE(settings)
#else
#define UCOS3_SETTINGS NULL
#define UCOS3_NSETTINGS 0u
#endif

static struct rtb_port_info info = {
	.port = "ucos3",
	.os = "uC/OS-III",
	.os_release = "",
	.libc = RTB_BUILD_LIBC,
	RTB_FW_BOARD_INFO(UCOS3_ISR_BRACKET),
	.caps = CAPS,
	.prio_max = UCOS3_PRIO_MAX,
	.os_settings = UCOS3_SETTINGS,
	.os_nsettings = UCOS3_NSETTINGS,
};

const char *ucos3_release(void)
{
	static char release[16];

	if (release[0] == '\0')
		rtb_fmt(release, sizeof(release), "V%u.%02u.%02u", OS_VERSION / 10000u,
			OS_VERSION / 100u % 100u, OS_VERSION % 100u);
	return release;
}

const char *rtb_port_strerror(int err)
{
	return rtb_error_text(err, "out of memory (heap section, partitions or kernel objects)",
			      "uC/OS-III error");
}

int rtb_port_init(const struct rtb_port_config *cfg)
{
	OS_ERR err;

	if (!rtb_fw_port_cpu_ok(&info, cfg))
		return RTB_E_INVALID;
	info.os_release = ucos3_release();
	info.counter_hz = rtb_fw_counter_hz(cfg);
	ucos3_init_tcb = OSTCBCurPtr;
	ucos3_change_prio(NULL, UCOS3_NATIVE(0), &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

void rtb_port_fini(void)
{
}

const struct rtb_port_info *rtb_port_info(void)
{
	return &info;
}

int rtb_port_property(const char *key, char *buf, size_t len)
{
	if (rtb_strcmp(key, "tick_hz_config") == 0) {
		rtb_fmt(buf, len, "%lu", (unsigned long)OS_CFG_TICK_RATE_HZ);
		return RTB_OK;
	}
	if (rtb_strcmp(key, "timer_resolution_ns") == 0) {
		rtb_fmt(buf, len, "%llu", (unsigned long long)TICK_NS);
		return RTB_OK;
	}
	if (rtb_strcmp(key, "no_hz") == 0) {
		rtb_fmt(buf, len, "off"); /* OS_CFG_DYN_TICK_EN 0 (port_ucos3.h) */
		return RTB_OK;
	}
	if (rtb_strcmp(key, "thread_stack_bytes") == 0) {
		rtb_fmt(buf, len, "%lu", (unsigned long)UCOS3_STACK_BYTES);
		return RTB_OK;
	}
	if (rtb_strcmp(key, "rt_withheld_ns") == 0) {
		rtb_fmt(buf, len, "0");
		return RTB_OK;
	}
#if UCOS3_HAS_RR
	if (rtb_strcmp(key, "rr_interval_ns") == 0) {
		rtb_fmt(buf, len, "%llu",
			(unsigned long long)(RTB_UCOS3_RR_QUANTUM_TICKS * TICK_NS));
		return RTB_OK;
	}
#endif
	return rtb_fw_irq_property(key, buf, len);
}

/* ---- counter and time ------------------------------------------------------ */

uint64_t rtb_port_counter_hz(void)
{
	return info.counter_hz;
}

OS_TICK ucos3_timeout_ticks_long(uint64_t ns)
{
	uint64_t ticks = ns / TICK_NS + (ns % TICK_NS != 0) + 1;

	return ticks > 0xFFFFFFFFull ? (OS_TICK)0xFFFFFFFFu : (OS_TICK)ticks;
}

void ucos3_change_prio(OS_TCB *tcb, OS_PRIO prio, OS_ERR *err)
{
	CPU_SR_ALLOC();

	OSTaskChangePrio(tcb, prio, err);
	CPU_CRITICAL_ENTER();
	OSPrioCur = OSTCBCurPtr->Prio;
	CPU_CRITICAL_EXIT();
}

int ucos3_pend_failure(OS_ERR err)
{
	switch (err) {
	case OS_ERR_NONE:
		return RTB_OK;
	case OS_ERR_PEND_WOULD_BLOCK:
		return RTB_E_AGAIN;
	case OS_ERR_TIMEOUT:
		return RTB_E_TIMEOUT;
	case OS_ERR_SCHED_LOCKED:
	case OS_ERR_PEND_ISR:
		return RTB_E_PERM;
	default:
		return RTB_E_OS;
	}
}

/* Sleeps end on a tick. OSTimeDly(n) ends on the n-th tick from now, after
 * n - 1 to n tick periods: the port asks for the whole periods that fit
 * before the deadline (at least one), and again while the deadline is
 * ahead, so the sleep ends on the first tick at or after it. */
int rtb_port_sleep_until_ns(uint64_t deadline_ns)
{
	OS_ERR err;

	for (uint64_t now = rtb_port_time_ns(); now < deadline_ns; now = rtb_port_time_ns()) {
		uint64_t periods = (deadline_ns - now) / TICK_NS;
		OSTimeDly(periods == 0		    ? 1u
			  : periods > 0xFFFFFFFEull ? (OS_TICK)0xFFFFFFFEu
						    : (OS_TICK)periods,
			  OS_OPT_TIME_DLY, &err);
		if (err != OS_ERR_NONE)
			return RTB_E_OS;
	}
	return RTB_OK;
}

int rtb_port_sleep_ns(uint64_t duration_ns)
{
	OS_ERR err;

	if (duration_ns != 0)
		return rtb_port_sleep_until_ns(rtb_port_time_ns() + duration_ns);
	OSTimeDly(1u, OS_OPT_TIME_DLY, &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

/* ---- kernel hooks and interrupts ---------------------------------------------- */

void ucos3_isr_enter(void)
{
	CPU_SR_ALLOC();

	CPU_CRITICAL_ENTER();
	OSIntEnter();
	CPU_CRITICAL_EXIT();
}

/* The tick hook (OS_AppTimeTickHookPtr), in the tick's handler: a counter
 * read every tick keeps its 64-bit extension current (it must be read at
 * least once per wrap of its 32-bit source). */
static void tick_hook(void)
{
	(void)rtb_port_counter_read();
}

/* The kernel's start, from main(): uC/CPU and the kernel initialised, the
 * hooks and the round-robin setting in place, the console's tasks created;
 * then OSStart(), which does not return. */
void ucos3_start(void)
{
	OS_ERR err;

	CPU_Init();
	OSInit(&err);
	if (err != OS_ERR_NONE)
		rtb_fw_fatal("OSInit failed, error", err);
	UCOS3_ARCH_INIT();
	OS_AppTimeTickHookPtr = tick_hook;
#if UCOS3_HAS_RR
	OSSchedRoundRobinCfg(DEF_TRUE, RTB_UCOS3_RR_QUANTUM_TICKS, &err);
	if (err != OS_ERR_NONE)
		rtb_fw_fatal("OSSchedRoundRobinCfg failed, error", err);
#endif
	ucos3_console_start();
	OSStart(&err);
	rtb_fw_fatal("OSStart returned, error", err);
}
