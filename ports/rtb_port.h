/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench port contract.
 *
 * This header is the only way the portable core reaches the operating system.
 * A port implements every function declared here (returning RTB_E_UNSUPPORTED
 * where the OS lacks a service, and clearing the matching RTB_CAP_* flag) and
 * supplies a header named "rtb_port_inline.h" on its include path that defines
 *
 *     static inline uint64_t rtb_port_counter_read(void);
 *
 * (the cycle counter read, inlined because its cost is what CAL-P-TRC
 * measures) and the integer macro RTB_PORT_COUNTER_NAME_STR, and that
 * provides the calls on the measured paths of the interrupt hand-off
 * (tm.irq, tm.irq_preempt), so that a port can give them to the core inline
 * instead of behind a call to a wrapper:
 *
 *     int rtb_port_irq_fire_now(struct rtb_irq *irq);
 *     int rtb_port_sem_trywait(struct rtb_sem *s);
 *     int rtb_port_sem_signal_from_irq(struct rtb_sem *s);
 *
 * each either a static inline function there, or declared there and defined
 * by the port's sources. rtb_port_inline.h is read by the core's
 * freestanding build: it may not include the OS's headers, so a port that
 * inlines a kernel call declares the kernel's function itself, with the
 * kernel's exact types (a port source that also includes the kernel's
 * header then has the compiler check that both agree). Their meaning is
 * given below, with the functions of their group.
 *
 * Conventions:
 *  - Every function that can fail returns 0 (RTB_OK) or a negative RTB_E_*
 *    code. Ports translate native errors; they never return errno values.
 *  - Priorities are relative: 0 is the lowest priority a scenario may use and
 *    higher numbers are more urgent, up to rtb_port_info()->prio_max. The
 *    port maps them onto native priorities and keeps a band above prio_max
 *    free for its own watchdog if it needs one.
 *  - Every thread a port creates runs on the measurement CPU given to
 *    rtb_port_init(), so scenarios see uniprocessor scheduling, unless it
 *    was created with rtb_thread_attr.on_cpu (one measuring thread per
 *    CPU, RTB_CAP_PINNING).
 *  - Functions marked "IRQ-safe" may be called from an interrupt handler.
 */
#ifndef RTB_PORT_H
#define RTB_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes ------------------------------------------------------- */

enum rtb_error {
	RTB_OK = 0,
	RTB_E_UNSUPPORTED = -1, /* the OS (or this port) lacks the service */
	RTB_E_NOMEM = -2,	/* out of memory or of OS objects */
	RTB_E_INVALID = -3,	/* bad argument */
	RTB_E_TIMEOUT = -4,	/* a timed wait expired */
	RTB_E_PERM = -5,	/* not permitted (privileges) */
	RTB_E_AGAIN = -6,	/* would block (try variants), count limit */
	RTB_E_BUSY = -7,	/* object in use (delete of a held mutex, ...) */
	RTB_E_DEADLOCK = -8,	/* the OS detected a deadlock */
	RTB_E_OS = -9,		/* any other native failure */
};

/* Short English name of an error code, for log records. */
const char *rtb_port_strerror(int err);

/* ---- capabilities and platform description --------------------------- */

enum rtb_cap {
	RTB_CAP_REALTIME = 1u << 0,	       /* fixed-priority preemptive policy granted */
	RTB_CAP_MEMORY_LOCKED = 1u << 1,       /* memory locked and prefaulted */
	RTB_CAP_PINNING = 1u << 2,	       /* threads pinned to the measurement CPU */
	RTB_CAP_POLICY_RR = 1u << 3,	       /* round-robin policy available */
	RTB_CAP_SUSPEND_OTHER = 1u << 4,       /* rtb_port_thread_suspend() of another thread */
	RTB_CAP_MUTEX_INHERIT = 1u << 5,       /* priority inheritance protocol */
	RTB_CAP_MUTEX_CEILING = 1u << 6,       /* priority ceiling protocol */
	RTB_CAP_MQ = 1u << 7,		       /* message queues */
	RTB_CAP_EVT = 1u << 8,		       /* event flags (native or emulated) */
	RTB_CAP_EVT_EMULATED = 1u << 9,	       /* event flags built from mutex + condvar */
	RTB_CAP_IRQ = 1u << 10,		       /* interrupt source */
	RTB_CAP_IRQ_PERIODIC = 1u << 11,       /* periodic interrupt with loss counting */
	RTB_CAP_MEM_USAGE = 1u << 12,	       /* rtb_port_mem_usage() */
	RTB_CAP_CACHE_FLUSH = 1u << 13,	       /* rtb_port_cache_flush() flushes lines */
	RTB_CAP_THREAD_DELETE_LIVE = 1u << 14, /* delete a thread blocked in a port call */
	RTB_CAP_IPC_SIGNAL = 1u << 15,	       /* IPC channel: signal taken by a handler */
	RTB_CAP_IPC_SIGWAIT = 1u << 16,	       /* IPC channel: blocked signal, sigwait */
	RTB_CAP_IPC_SYSV_SEM = 1u << 17,       /* IPC channel: System V semaphore */
	RTB_CAP_IPC_POSIX_MQ = 1u << 18,       /* IPC channel: POSIX message queue */
	RTB_CAP_MEM_POOL = 1u << 19,	       /* fixed-size block pools of the OS itself */
};

/* One setting of the OS's build-time configuration that changes what is
 * measured (its paths or its behaviour), as the port reads it from the
 * build: name "time slicing", value "on", from "configUSE_TIME_SLICING". */
struct rtb_port_setting {
	const char *name;  /* short, for people: "tick", "asserts" */
	const char *value; /* "1000 Hz", "on", "off", "method 2" */
	const char *from;  /* where it is set: the macro, option or file */
};

struct rtb_port_info {
	const char *port;	  /* "posix", "template", ... */
	const char *os;		  /* "Linux", "FreeRTOS", ... */
	const char *os_release;	  /* kernel or OS version string */
	const char *libc;	  /* "glibc 2.36", "musl", "" */
	const char *arch;	  /* "x86_64", "aarch64", ... */
	const char *counter;	  /* "tsc", "cntvct", "clock_monotonic_raw" */
	const char *counter_note; /* why this counter, how hz was obtained */
	const char *irq_source;	  /* what the interrupt source really is */
	/* A short name of it for titles ("POSIX timer signal", "hardware timer
	 * interrupt"); NULL or "" when the port says nothing more than
	 * "interrupt". */
	const char *irq_name;
	uint64_t counter_hz; /* counter ticks per second (measured or known) */
	/* The counter's known step: it moves by multiples of this many ticks
	 * (a timer clocked slower than counter_hz says); 0 when not known. The
	 * core measures the step anyway and reports both. */
	uint64_t counter_step_ticks;
	uint32_t caps;	      /* RTB_CAP_* bits */
	int prio_max;	      /* highest relative priority (lowest is 0) */
	int cpu;	      /* measurement CPU */
	int cpu_count;	      /* CPUs online */
	const char *degraded; /* "" or a sentence: what is not as requested */
	/* The OS's build-time configuration, for an OS configured when it is
	 * built (an RTOS's kernel configuration header): a name saying what
	 * kind it is ("production": the kernel's own run-time checks off,
	 * "checked": on) and the settings that change figures or behaviour,
	 * read from the build, never assumed. NULL / 0 when there is none or
	 * the port does not say (the meta record then has no os_config). */
	const char *os_config;
	const struct rtb_port_setting *os_settings;
	uint32_t os_nsettings;
};

struct rtb_port_config {
	int cpu;	     /* measurement CPU, -1: the port's default (last CPU) */
	bool lock_memory;    /* lock and prefault memory (default true) */
	bool realtime;	     /* use the real-time policy (default true) */
	uint64_t counter_hz; /* 0: measure; else trust this value */
};

/* Bring the port up: pin the calling thread to the measurement CPU, give it
 * relative priority 0 under the real-time policy, lock memory, calibrate the
 * counter. Privilege failures degrade (see info->degraded) rather than fail;
 * an unusable CPU returns RTB_E_INVALID. */
int rtb_port_init(const struct rtb_port_config *cfg);
void rtb_port_fini(void);
const struct rtb_port_info *rtb_port_info(void);

/* Ask the OS for a named property (e.g. "tick_hz_config", "hrtimers";
 * "rt_withheld_ns": how long the OS takes the CPU away from a real-time
 * thread that runs without a pause, e.g. Linux RT throttling;
 * "thread_stack_bytes": the stack of a thread created with stack_bytes 0).
 * "lacks.<cap>", <cap> a capability's name as the meta record's caps spell
 * it ("policy_rr"): a sentence saying why the port does not claim it and
 * what decides that ("configUSE_TIME_SLICING is 0 in this image's
 * FreeRTOSConfig.h"), which the core puts in the unsupported reason.
 * "irq_now" and "irq_now_name": how a fire with delay 0 raises the
 * interrupt, when that is not the source of irq_source (a sentence, and a
 * few words for titles: "software-pended interrupt").
 * "lacks.policy_fifo" is answered only by a port whose RTB_POLICY_FIFO
 * threads do not keep equal priorities first come, first served (the OS
 * time-slices every thread of a priority); the FIFO checks are then
 * unsupported with that sentence.
 * Writes a NUL-terminated string; RTB_E_UNSUPPORTED if unknown. */
int rtb_port_property(const char *key, char *buf, size_t len);

/* ---- counter and time ------------------------------------------------- */

/* rtb_port_counter_read() comes from rtb_port_inline.h. */
uint64_t rtb_port_counter_hz(void);

/* OS monotonic time in nanoseconds (the clock sleeps and timers use). */
uint64_t rtb_port_time_ns(void);

/* Sleep until the OS monotonic clock reaches deadline_ns. */
int rtb_port_sleep_until_ns(uint64_t deadline_ns);

/* Sleep for a relative duration (0: give up the CPU until the next tick or
 * the OS's minimal sleep). */
int rtb_port_sleep_ns(uint64_t duration_ns);

/* Spin-friendly pause instruction. IRQ-safe. */
void rtb_port_cpu_relax(void);

/* ---- threads ----------------------------------------------------------- */

struct rtb_thread;
typedef void (*rtb_thread_fn)(void *arg);

enum rtb_policy { RTB_POLICY_FIFO = 0, RTB_POLICY_RR = 1 };

struct rtb_thread_attr {
	const char *name; /* may be NULL */
	int prio;	  /* relative priority, 0 .. prio_max */
	enum rtb_policy policy;
	size_t stack_bytes;   /* 0: port default */
	bool start_suspended; /* create but do not run before rtb_port_thread_start() */
	/* Run on CPU `cpu` instead of the measurement CPU (the per-CPU
	 * scenarios). A port without RTB_CAP_PINNING, or a CPU that is not
	 * online or allowed, fails the create with RTB_E_UNSUPPORTED or
	 * RTB_E_INVALID; false (a zeroed attr) keeps the measurement CPU. */
	bool on_cpu;
	int cpu;
};

/* Create a thread. Unless start_suspended, a thread of higher priority than
 * the creator runs before this call returns. */
int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg);
/* Let a thread created with start_suspended run. */
int rtb_port_thread_start(struct rtb_thread *t);
/* The calling thread. NULL for the thread that called rtb_port_init(). */
struct rtb_thread *rtb_port_thread_self(void);
/* Go to the tail of the ready queue of the caller's priority. */
void rtb_port_thread_yield(void);
/* Block the caller until rtb_port_thread_resume(). */
int rtb_port_thread_suspend_self(void);
/* Suspend another thread (RTB_CAP_SUSPEND_OTHER). */
int rtb_port_thread_suspend(struct rtb_thread *t);
/* Make a suspended thread ready. A resume that comes first is remembered. */
int rtb_port_thread_resume(struct rtb_thread *t);
/* Change a priority; t == NULL means the caller. */
int rtb_port_thread_set_priority(struct rtb_thread *t, int prio);
int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio);
/* End the calling thread (never returns). */
void rtb_port_thread_exit(void);
/* Reclaim a thread: one that has ended, that was never started, or (with
 * RTB_CAP_THREAD_DELETE_LIVE) that is blocked in a port call. Returns when
 * its resources are released. */
int rtb_port_thread_delete(struct rtb_thread *t);

/* ---- counting semaphores ---------------------------------------------- */

struct rtb_sem;
/* Waiters are released highest priority first where the OS does so. */
int rtb_port_sem_create(struct rtb_sem **out, uint32_t initial);
int rtb_port_sem_delete(struct rtb_sem *s);
int rtb_port_sem_wait(struct rtb_sem *s);
/* rtb_port_sem_trywait(s), from rtb_port_inline.h: RTB_E_AGAIN when zero. */
int rtb_port_sem_timedwait(struct rtb_sem *s, uint64_t timeout_ns);
int rtb_port_sem_signal(struct rtb_sem *s);
/* rtb_port_sem_signal_from_irq(s), from rtb_port_inline.h: a signal,
 * IRQ-safe. */
int rtb_port_sem_value(struct rtb_sem *s, uint32_t *value);
/* Largest count the OS allows. */
uint64_t rtb_port_sem_max(void);

/* ---- mutexes ------------------------------------------------------------ */

struct rtb_mutex;
enum rtb_mutex_protocol {
	RTB_MUTEX_NONE = 0,
	RTB_MUTEX_INHERIT = 1,
	RTB_MUTEX_CEILING = 2,
};
/* ceiling: relative priority, used with RTB_MUTEX_CEILING only. Returns
 * RTB_E_UNSUPPORTED when the OS lacks the protocol; never a silent
 * fallback to another protocol. */
int rtb_port_mutex_create(struct rtb_mutex **out, enum rtb_mutex_protocol protocol, int ceiling);
int rtb_port_mutex_delete(struct rtb_mutex *m);
int rtb_port_mutex_lock(struct rtb_mutex *m);
int rtb_port_mutex_trylock(struct rtb_mutex *m);
int rtb_port_mutex_unlock(struct rtb_mutex *m);
/* The native mechanism, e.g. "PTHREAD_PRIO_INHERIT". */
const char *rtb_port_mutex_mechanism(enum rtb_mutex_protocol protocol);

/* ---- message queues ----------------------------------------------------- */

struct rtb_mq;
int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth);
int rtb_port_mq_delete(struct rtb_mq *q);
int rtb_port_mq_send(struct rtb_mq *q, const void *msg, size_t len);	/* blocks when full */
int rtb_port_mq_trysend(struct rtb_mq *q, const void *msg, size_t len); /* RTB_E_AGAIN */
int rtb_port_mq_receive(struct rtb_mq *q, void *msg, size_t len);	/* blocks when empty */
int rtb_port_mq_tryreceive(struct rtb_mq *q, void *msg, size_t len);	/* RTB_E_AGAIN */

/* ---- event flags -------------------------------------------------------- */

struct rtb_evt;
enum rtb_evt_wait { RTB_EVT_ANY = 0, RTB_EVT_ALL = 1 };
int rtb_port_evt_create(struct rtb_evt **out);
int rtb_port_evt_delete(struct rtb_evt *e);
int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits);
int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits);
/* Wait until the bits are set (any or all); with clear, consume them.
 * *got receives the flags that satisfied the wait. */
int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got);

/* ---- IPC channels ------------------------------------------------------- */

/* A one-way wake-up from one thread to another through one of the POSIX
 * interprocess communication services the rt-tests tools measure
 * (signaltest, sigwaittest, svsematest, pmqtest). These services are POSIX
 * by nature: a port that lacks a kind clears its RTB_CAP_IPC_* bit and
 * rtb_port_ipc_create() returns RTB_E_UNSUPPORTED for it.
 *
 * A channel counts like a semaphore: each post lets one wait return, and a
 * post made while nobody waits is kept for the next wait, up to a limit of
 * the kind (then the post fails with RTB_E_AGAIN). A channel has one
 * receiver, named at creation: only that thread may wait on it (signals
 * are directed to it). rtb_port_thread_delete() of a thread blocked in a
 * wait is not guaranteed to work (a System V semaphore wait is not a POSIX
 * cancellation point): release it with a post instead. */
enum rtb_ipc_kind {
	RTB_IPC_SIGNAL = 0,   /* a signal to the receiver, run by a handler while it sleeps */
	RTB_IPC_SIGWAIT = 1,  /* a blocked signal to the receiver, taken with sigwait */
	RTB_IPC_SYSV_SEM = 2, /* a System V semaphore: +1 per post, -1 per wait */
	RTB_IPC_POSIX_MQ = 3, /* a POSIX message queue: one small message per post */
};
#define RTB_IPC_KINDS 4

struct rtb_ipc;
/* receiver: the thread that will wait (NULL: the thread that called
 * rtb_port_init()). */
int rtb_port_ipc_create(struct rtb_ipc **out, enum rtb_ipc_kind kind, struct rtb_thread *receiver);
/* Delete a channel nobody waits on; posts still pending are discarded. */
int rtb_port_ipc_delete(struct rtb_ipc *c);
/* Never blocks. RTB_E_AGAIN when the channel already holds its limit. */
int rtb_port_ipc_post(struct rtb_ipc *c);
/* Receiver only: take one post, blocking until there is one. */
int rtb_port_ipc_wait(struct rtb_ipc *c);
/* As rtb_port_ipc_wait(), at most timeout_ns (0: do not block);
 * RTB_E_TIMEOUT when no post came. */
int rtb_port_ipc_timedwait(struct rtb_ipc *c, uint64_t timeout_ns);
/* The native mechanism of a kind, e.g. "System V semaphore (semop)";
 * NULL when the port lacks it. */
const char *rtb_port_ipc_mechanism(enum rtb_ipc_kind kind);

/* ---- interrupt source ---------------------------------------------------- */

struct rtb_irq;
/* The handler runs in interrupt context: it may only call IRQ-safe
 * functions and rtb_port_counter_read(). */
typedef void (*rtb_irq_handler)(void *arg);

struct rtb_irq_counts {
	uint64_t generated; /* events the source produced */
	uint64_t serviced;  /* handler invocations */
	uint64_t lost;	    /* generated but never seen by the handler */
};

/* Create an interrupt source whose handler interrupts `target` (NULL: the
 * thread that called rtb_port_init()). Not synchronised with the OS tick. */
int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg);
int rtb_port_irq_delete(struct rtb_irq *irq);
/* Raise the interrupt once, after delay_ns. delay_ns 0 asks for it as soon
 * as possible, from software: where the platform lets a thread raise an
 * interrupt itself (a firmware port sets a spare interrupt line pending in
 * the interrupt controller), it does, and the handler has run when the call
 * returns unless the caller masks it; rtb_port_property("irq_now") then
 * says how. Otherwise the source's own event comes at once (the POSIX port
 * arms its timer for the next moment). A delay above 0 is always the
 * source's event (a hardware timer's expiry on a board). A fire replaces a
 * delayed one not yet raised. */
int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns);
/* rtb_port_irq_fire_now(irq), from rtb_port_inline.h: the same as
 * rtb_port_irq_fire(irq, 0), for a source rtb_port_irq_create() returned.
 * Where the platform raises the interrupt from software in a few
 * instructions, inline, so that a loop that raises it makes no call. */
/* Raise it every period_ns until stopped, counting losses. */
int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns);
/* Stop periodic mode; fills the counts since start (may be NULL). */
int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts);

/* ---- memory -------------------------------------------------------------- */

void *rtb_port_mem_alloc(size_t bytes); /* NULL on failure */
void rtb_port_mem_free(void *p);

/* A figure of struct rtb_mem_usage that the port reports but that does not
 * follow the program's use of memory in this build, so MEM-B-LEK must not
 * judge it (it still shows it). */
enum rtb_mem_usage_flag {
	/* Resident memory grows for the build's own reasons: an instrumented
	 * allocator (AddressSanitizer keeps freed blocks in a quarantine and
	 * per-thread bookkeeping for every thread ever created), ... */
	RTB_MEM_RESIDENT_UNRELIABLE = 1u << 0,
	RTB_MEM_HEAP_UNRELIABLE = 1u << 1,
};

struct rtb_mem_usage {
	uint64_t resident_bytes;  /* process RSS, or OS heap in use on an RTOS */
	uint64_t heap_used_bytes; /* allocator's bytes in use; 0: not available */
	uint64_t threads;	  /* OS threads of the process */
	uint64_t handles;	  /* open handles (file descriptors, ...) */
	uint32_t unreliable;	  /* RTB_MEM_*_UNRELIABLE flags */
	/* One sentence saying why the flagged figures are not judged and where
	 * heap_used_bytes comes from when that differs from the default
	 * allocator; NULL when there is nothing to say. Static storage. */
	const char *note;
};
int rtb_port_mem_usage(struct rtb_mem_usage *out);

/* ---- fixed-size block pools ------------------------------------------------ */

/* A pool of `count` blocks of `block_bytes` each, for a scenario that takes
 * and gives back blocks of one size (Thread-Metric's memory test), as an
 * RTOS application does with its fixed-block pools. A port whose OS has them
 * (ThreadX tx_block_pool_*, uC/OS-III OSMem) uses them and sets
 * RTB_CAP_MEM_POOL: the blocks are reserved at creation. One whose OS has
 * none emulates the pool over its allocator (ports/common/pool_alloc.c: a
 * get is rtb_port_mem_alloc() of block_bytes, a put rtb_port_mem_free(),
 * nothing reserved or counted) and clears it. The caller never holds more
 * than `count` blocks and gives them all back before the delete. Blocks
 * are aligned at least to a pointer's size. */
struct rtb_pool;
int rtb_port_pool_create(struct rtb_pool **out, size_t block_bytes, uint32_t count);
/* Delete a pool whose blocks are all back (a native pool that sees one
 * still out answers RTB_E_BUSY). */
int rtb_port_pool_delete(struct rtb_pool *p);
/* Take a block without waiting: RTB_E_AGAIN when a native pool's `count`
 * are all taken, RTB_E_NOMEM when an emulated pool's allocator fails. */
int rtb_port_pool_get(struct rtb_pool *p, void **block);
/* Give back a block taken from p. */
int rtb_port_pool_put(struct rtb_pool *p, void *block);
/* The native mechanism, e.g. "tx_block_allocate / tx_block_release (a
 * ThreadX block pool)", or what an emulated pool is built on. */
const char *rtb_port_pool_mechanism(void);

/* Write back and invalidate the data cache lines of a range
 * (RTB_CAP_CACHE_FLUSH); RTB_E_UNSUPPORTED otherwise. */
int rtb_port_cache_flush(const void *p, size_t bytes);

/* ---- stop requests ------------------------------------------------------- */

/* True once the host asked the run to stop early (SIGTERM on POSIX, a
 * console command on an RTOS). Scenarios then finish their current step and
 * report what they measured. IRQ-safe. */
bool rtb_port_stop_requested(void);

/* ---- console ------------------------------------------------------------- */

/* Write bytes to the results stream (stdout, a serial line, ...). */
int rtb_port_console_write(const char *buf, size_t len);

/* Read up to len bytes the host sent on the console, without blocking:
 * returns how many were read (0: none waiting), or RTB_E_UNSUPPORTED when
 * the port's console is write-only or the port takes its commands another
 * way (a hosted port gets its command line from the OS). A firmware port
 * reads its console protocol with it (commands, stop requests). */
int rtb_port_console_read(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#include "rtb_port_inline.h"

#endif /* RTB_PORT_H */
