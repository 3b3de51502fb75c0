/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench ThreadX port: the port contract on Eclipse ThreadX, built with its
 * Cortex-M3 or Cortex-A7 GNU port (port.cmake), on a board of ports/boards/
 * (arch/<arch>/; what differs between them: txp_arch.h in
 * ports/threadx/<arch>/).
 *
 * Design. Threads are ThreadX threads whose control block and stack come in
 * one block of the image's byte pool. ThreadX's priority 0 is the most
 * urgent: relative priority p runs at native TX_MAX_PRIORITIES - 1 - p (from
 * the least urgent level up to native 2), native 1 is above every scenario
 * (the runner waits there, between runs, for the tick a run starts on) and
 * native 0 is the console thread, which runs only when a byte arrives. The
 * FIFO policy is a thread without time slice, the round-robin policy one
 * with RTB_THREADX_RR_SLICE_TICKS (ThreadX slices per thread). A thread created
 * start_suspended is created TX_DONT_START and started with
 * tx_thread_resume; suspend and resume are tx_thread_suspend and
 * tx_thread_resume, with a count of resumes that came first (kept under the
 * interrupt mask, so the check and the suspension are one step); suspending
 * another thread is native. Ending is tx_thread_terminate, reclaiming
 * tx_thread_delete (of a blocked thread too: it is terminated first).
 * Counting semaphores are tx_semaphore_*: ThreadX releases waiters in
 * arrival order unless tx_semaphore_prioritize() comes before the put,
 * which the port does only when built with RTB_THREADX_SEM_PRIORITIZE (the
 * facts say which). A plain put past 0xFFFFFFFF wraps to 0, as ThreadX
 * documents. RTB_MUTEX_INHERIT is a TX_INHERIT mutex (the highest-priority
 * waiter gets it), RTB_MUTEX_NONE a TX_NO_INHERIT mutex (waiters in arrival
 * order); ThreadX has no priority ceiling protocol. Mutexes are recursive.
 * Message queues are tx_queue_* of 1 to 16 words (4 to 64 bytes; a larger
 * message is unsupported), receivers in arrival order. Event flags are
 * native groups of 32 flags. Memory is one ThreadX byte pool in the board's
 * large RAM; the memory scenarios read it with tx_byte_pool_info_get. The
 * contract's fixed-size block pools are ThreadX block pools carved from it.
 * The interrupt source is a board hardware timer (raised from software on a
 * spare interrupt line when fired with delay 0) whose handler calls the
 * scenario's handler directly: on the Cortex-M port an interrupt handler
 * needs no _tx_thread_context_save/restore bracket (both are empty there),
 * and a put from it pends PendSV, which switches once the handler returns;
 * on the Cortex-A port the IRQ entry is that bracket (txp_irq.S).
 * Periodic mode counts an expiry whose interrupt never ran as lost. The
 * counter is the architecture's (fw_counter.h: on the Cortex-M3 a board
 * timer of known frequency extended to 64 bits, the DWT cycle counter not
 * being modelled by QEMU); time_ns is derived from it, sleeps are
 * tx_thread_sleep to the tick at or after the deadline. Not claimed: the
 * priority ceiling, the POSIX IPC channels, cache flush
 * (RTB_FW_CACHE_NOTE).
 */
#include "port_threadx.h"

#include "error_text.h"
#include "fw_console.h"
#include "fw_port.h"
#include "rtb/core.h"
#include "tx_event_flags.h"
#include "tx_mutex.h"
#include "tx_queue.h"
#include "tx_semaphore.h"
#include "tx_thread.h"

#define CAPS                                                                                      \
	(RTB_CAP_REALTIME | RTB_CAP_MEMORY_LOCKED | RTB_CAP_PINNING | RTB_CAP_POLICY_RR |         \
	 RTB_CAP_SUSPEND_OTHER | RTB_CAP_MUTEX_INHERIT | RTB_CAP_MQ | RTB_CAP_EVT | RTB_CAP_IRQ | \
	 RTB_CAP_IRQ_PERIODIC | RTB_CAP_MEM_USAGE | RTB_CAP_THREAD_DELETE_LIVE | RTB_CAP_MEM_POOL)

#define TICK_NS (1000000000ull / TX_TIMER_TICKS_PER_SECOND)

TX_BYTE_POOL txp_pool;

/* A ThreadX port that saves the VFP/NEON unit (a Cortex-A's) says what it
 * saves in the results' os_config (txp_arch.h). */
#ifdef TXP_FPU_CONTEXT
static const struct rtb_port_setting os_settings[] = {
	{"FPU context", TXP_FPU_CONTEXT, TXP_FPU_CONTEXT_FROM},
};
#define TXP_SETTINGS os_settings
#define TXP_NSETTINGS RTB_ARRAY_SIZE(os_settings)
#else
#define TXP_SETTINGS NULL
#define TXP_NSETTINGS 0u
#endif

static struct rtb_port_info info = {
	.port = "threadx",
	.os = "ThreadX",
	.os_release = TXP_VERSION,
	.libc = RTB_BUILD_LIBC,
	RTB_FW_BOARD_INFO(""),
	.caps = CAPS,
	.prio_max = TXP_PRIO_MAX,
	.os_settings = TXP_SETTINGS,
	.os_nsettings = TXP_NSETTINGS,
};

const char *rtb_port_strerror(int err)
{
	return rtb_error_text(err, "out of memory (ThreadX byte pool)", "ThreadX error");
}

int rtb_port_init(const struct rtb_port_config *cfg)
{
	UINT old;

	if (!rtb_fw_port_cpu_ok(&info, cfg))
		return RTB_E_INVALID;
	info.counter_hz = rtb_fw_counter_hz(cfg);
	tx_thread_priority_change(tx_thread_identify(), TXP_NATIVE(0), &old);
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
		return say(buf, len, TX_TIMER_TICKS_PER_SECOND);
	if (rtb_strcmp(key, "timer_resolution_ns") == 0)
		return say(buf, len, TICK_NS);
	if (rtb_strcmp(key, "no_hz") == 0) {
		rtb_fmt(buf, len, "off"); /* the tick runs always */
		return RTB_OK;
	}
	if (rtb_strcmp(key, "thread_stack_bytes") == 0)
		return say(buf, len, TXP_STACK_BYTES);
	if (rtb_strcmp(key, "rt_withheld_ns") == 0)
		return say(buf, len, 0);
	if (rtb_strcmp(key, "rr_interval_ns") == 0) {
		/* the caller's own slice: 0 for a thread of the FIFO policy */
		TX_THREAD *me = tx_thread_identify();
		return say(buf, len, me != TX_NULL ? me->tx_thread_new_time_slice * TICK_NS : 0);
	}
	return rtb_fw_irq_property(key, buf, len);
}

/* ---- counter and time ------------------------------------------------------ */

uint64_t rtb_port_counter_hz(void)
{
	return info.counter_hz;
}

ULONG txp_ticks_ceil_long(uint64_t ns)
{
	uint64_t t = ns / TICK_NS + (ns % TICK_NS != 0);

	return t < TX_WAIT_FOREVER ? (ULONG)t : TX_WAIT_FOREVER - 1;
}

/* tx_thread_sleep(n) ends at the n-th tick interrupt from now, after n - 1
 * to n tick periods. */
static void sleep_ticks(uint64_t n)
{
	tx_thread_sleep(n <= 1 ? 1 : n < TX_WAIT_FOREVER ? (ULONG)n : TX_WAIT_FOREVER - 1);
}

int rtb_port_sleep_until_ns(uint64_t deadline_ns)
{
	/* the whole periods that fit before the deadline, then single ticks
	 * until it has passed */
	for (uint64_t now = rtb_port_time_ns(); now < deadline_ns; now = rtb_port_time_ns())
		sleep_ticks((deadline_ns - now) / TICK_NS);
	return RTB_OK;
}

/* A relative sleep blocks at least once, as tx_thread_sleep() does: one
 * shorter than the time this call takes still waits for the next tick, so
 * its granularity is the tick's (rtb_port_sleep_until_ns() does not wait
 * for a deadline already passed). */
int rtb_port_sleep_ns(uint64_t duration_ns)
{
	uint64_t deadline = rtb_port_time_ns() + duration_ns;

	sleep_ticks(duration_ns / TICK_NS);
	return rtb_port_sleep_until_ns(deadline);
}

/* ---- memory ------------------------------------------------------------------ */

/* The byte pool's memory: the board's large RAM (the linker script's .heap
 * section), handed to tx_application_define() as ThreadX's first unused
 * memory by the low-level init. */
uint8_t txp_heap[BOARD_HEAP_BYTES] __attribute__((section(".heap"), aligned(8)));

void *txp_alloc(size_t bytes)
{
	VOID *p;

	_Static_assert(sizeof(size_t) <= sizeof(ULONG), "a size fits a ULONG");
	if (bytes == 0)
		bytes = 1;
	return tx_byte_allocate(&txp_pool, &p, (ULONG)bytes, TX_NO_WAIT) == TX_SUCCESS ? p : NULL;
}

void txp_free(void *p)
{
	if (p != NULL)
		tx_byte_release(p);
}

void *rtb_port_mem_alloc(size_t bytes)
{
	return txp_alloc(bytes);
}

void rtb_port_mem_free(void *p)
{
	txp_free(p);
}

/* The contract's fixed-size block pool: a ThreadX block pool
 * (tx_block_pool_create over storage from the byte pool, taken without
 * waiting), the service Thread-Metric's memory test uses. ThreadX puts a
 * pointer before each block and rounds the block size up to a word. */
struct rtb_pool {
	TX_BLOCK_POOL pool;
	ULONG total;
};

int rtb_port_pool_create(struct rtb_pool **out, size_t block_bytes, uint32_t count)
{
	if (out == NULL || block_bytes == 0 || count == 0 || block_bytes > 0xFFFFu ||
	    count > 0xFFFFu)
		return RTB_E_INVALID;
	size_t block = (block_bytes + sizeof(ALIGN_TYPE) - 1u) & ~(sizeof(ALIGN_TYPE) - 1u);
	size_t storage = count * (block + sizeof(UCHAR *));
	struct rtb_pool *p = txp_alloc(sizeof(*p) + storage);
	if (p == NULL)
		return RTB_E_NOMEM;
	rtb_memset(p, 0, sizeof(*p));
	if (tx_block_pool_create(&p->pool, "rtb-pool", (ULONG)block, p + 1, (ULONG)storage) !=
	    TX_SUCCESS) {
		txp_free(p);
		return RTB_E_OS;
	}
	p->total = p->pool.tx_block_pool_total;
	*out = p;
	return RTB_OK;
}

int rtb_port_pool_delete(struct rtb_pool *p)
{
	if (p == NULL)
		return RTB_E_INVALID;
	if (p->pool.tx_block_pool_available != p->total)
		return RTB_E_BUSY;
	tx_block_pool_delete(&p->pool);
	txp_free(p);
	return RTB_OK;
}

int rtb_port_pool_get(struct rtb_pool *p, void **block)
{
	UINT s = tx_block_allocate(&p->pool, block, TX_NO_WAIT);

	return s == TX_SUCCESS ? RTB_OK : s == TX_NO_MEMORY ? RTB_E_AGAIN : RTB_E_OS;
}

int rtb_port_pool_put(struct rtb_pool *p, void *block)
{
	(void)p; /* ThreadX finds the pool from the pointer before the block */
	return tx_block_release(block) == TX_SUCCESS ? RTB_OK : RTB_E_OS;
}

const char *rtb_port_pool_mechanism(void)
{
	return "tx_block_allocate / tx_block_release (a ThreadX block pool)";
}

int rtb_port_mem_usage(struct rtb_mem_usage *out)
{
	CHAR *name;
	ULONG available, fragments, suspended;
	TX_THREAD *first;
	TX_BYTE_POOL *next;

	rtb_memset(out, 0, sizeof(*out));
	if (tx_byte_pool_info_get(&txp_pool, &name, &available, &fragments, &first, &suspended,
				  &next) != TX_SUCCESS)
		return RTB_E_OS;
	uint64_t used = txp_pool.tx_byte_pool_size - available;
	out->resident_bytes = used;
	out->heap_used_bytes = used;
	out->threads = _tx_thread_created_count;
	out->handles = _tx_semaphore_created_count + _tx_mutex_created_count +
		       _tx_queue_created_count + _tx_event_flags_created_count;
	out->note = "resident and heap: bytes of the ThreadX byte pool in use (its size minus "
		    "tx_byte_pool_info_get's available bytes); threads: ThreadX threads; "
		    "handles: ThreadX semaphores, mutexes, queues and event flag groups";
	return RTB_OK;
}

/* ---- /rtbench/threadx.json ---------------------------------------------------- */

/* A configuration macro as the preprocessor left it: the macro's own name
 * when it is not defined (STR() expands its argument first), its text
 * otherwise ("" for a bare #define). */
struct setting {
	const char *name;
	const char *text;
	bool flag; /* ThreadX tests it with #ifdef: defined is true, whatever its text */
};

#define FLAG(macro)                                                  \
	{                                                            \
		.name = #macro, .text = TXP_STR(macro), .flag = true \
	}
#define VALUE(macro)                                                  \
	{                                                             \
		.name = #macro, .text = TXP_STR(macro), .flag = false \
	}

static const struct setting settings[] = {
	VALUE(TX_MAX_PRIORITIES),
	VALUE(TX_TIMER_TICKS_PER_SECOND),
	VALUE(TX_MINIMUM_STACK),
	FLAG(TX_TIMER_PROCESS_IN_ISR),
	FLAG(TX_NO_TIMER),
	FLAG(TX_ENABLE_WFI),
	FLAG(TX_LOW_POWER),
	FLAG(TX_DISABLE_ERROR_CHECKING),
	FLAG(TX_DISABLE_PREEMPTION_THRESHOLD),
	FLAG(TX_DISABLE_NOTIFY_CALLBACKS),
	FLAG(TX_NOT_INTERRUPTABLE),
	FLAG(TX_INLINE_THREAD_RESUME_SUSPEND),
	FLAG(TX_REACTIVATE_INLINE),
	FLAG(TX_DISABLE_REDUNDANT_CLEARING),
	FLAG(TX_DISABLE_INLINE),
	FLAG(TX_PORT_USE_BASEPRI),
	FLAG(TX_MISRA_ENABLE),
	FLAG(TX_DISABLE_STACK_FILLING),
	FLAG(TX_ENABLE_STACK_CHECKING),
	FLAG(TX_ENABLE_EVENT_TRACE),
	FLAG(TX_ENABLE_EXECUTION_CHANGE_NOTIFY),
	FLAG(TX_EXECUTION_PROFILE_ENABLE),
	FLAG(TX_THREAD_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_SEMAPHORE_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_MUTEX_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_QUEUE_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_EVENT_FLAGS_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_BYTE_POOL_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_BLOCK_POOL_ENABLE_PERFORMANCE_INFO),
	FLAG(TX_TIMER_ENABLE_PERFORMANCE_INFO),
	VALUE(RTB_THREADX_SEM_PRIORITIZE),
	VALUE(RTB_THREADX_RR_SLICE_TICKS),
};

/* The setting as JSON: false when not defined, true for a defined flag, a
 * number for a number (suffixes and parentheses dropped), else a string. */
static size_t setting_json(char *buf, size_t len, const struct setting *s)
{
	const char *t = s->text;
	unsigned long long v = 0;
	bool digits = false;

	if (rtb_strcmp(t, s->name) == 0)
		return rtb_fmt(buf, len, "false");
	if (s->flag)
		return rtb_fmt(buf, len, "true");
	while (*t == '(')
		t++;
	for (; *t >= '0' && *t <= '9'; t++, digits = true)
		v = v * 10u + (unsigned)(*t - '0');
	while (*t == 'u' || *t == 'U' || *t == 'l' || *t == 'L' || *t == ')')
		t++;
	if (digits && *t == '\0')
		return rtb_fmt(buf, len, "%llu", v);
	return rtb_fmt(buf, len, "\"%s\"", s->text);
}

/* The console's hook (fw_console.h): /rtbench/threadx.json, ThreadX's release,
 * its port, the board, the byte pool, how semaphore waiters are released in
 * this build, and every configuration setting that changes a figure. */
size_t rtb_fw_os_facts(char *buf, size_t len)
{
	size_t n = rtb_fmt(buf, len, "{\"kernel\":\"ThreadX %s\",\"port\":\"" TXP_KERNEL_PORT "\",",
			   TXP_VERSION);
	n += rtb_fw_facts_board(buf + n, len - n);
	n += rtb_fmt(
		buf + n, len - n,
		",\"heap\":{\"scheme\":\"tx_byte_pool\",\"total_bytes\":%lu},"
		"\"semaphore_wake_order\":\"%s\",\"config\":{",
		(unsigned long)BOARD_HEAP_BYTES,
		RTB_THREADX_SEM_PRIORITIZE
			? "priority: tx_semaphore_prioritize() before every tx_semaphore_put()"
			: "arrival (FIFO): tx_semaphore_put() alone; tx_semaphore_prioritize() "
			  "before the put would release the most urgent waiter first");
	for (size_t i = 0; i < RTB_ARRAY_SIZE(settings) && n < len; i++) {
		n += rtb_fmt(buf + n, len - n, "%s\"%s\":", i ? "," : "", settings[i].name);
		if (n < len)
			n += setting_json(buf + n, len - n, &settings[i]);
	}
	/* How each service is provided, keyed like the core's capabilities
	 * (docs/porting.md): notes on native ones, and why one is missing. */
	if (n < len)
		n += rtb_fmt(buf + n, len - n,
			     "},\"notes\":{\"mutex_inherit\":\"a TX_INHERIT mutex\","
			     "\"mutex_none\":\"a TX_NO_INHERIT mutex (waiters in arrival "
			     "order)\",\"policy_rr\":\"a time slice per thread\","
			     "\"suspend_other\":\"tx_thread_suspend\",\"evt\":\"event flags "
			     "groups, 32 flags\",\"mq\":\"tx_queue copies each message (1 to "
			     "16 words: 4 to 64 bytes) into the queue and out again\","
			     "\"memory\":\"one tx_byte_pool, a general heap\"},"
			     "\"unsupported\":{\"mutex_ceiling\":\"ThreadX has no priority "
			     "ceiling protocol\",\"ipc\":\"signals, System V semaphores and "
			     "POSIX message queues are POSIX services, not ThreadX ones\","
			     "\"cache_flush\":\"" RTB_FW_CACHE_NOTE "\"}}");
	return n < len ? n : len - 1;
}
