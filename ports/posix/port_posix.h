/* SPDX-License-Identifier: Apache-2.0 */
/* POSIX port: state shared between the port's files. */
#ifndef RTB_PORT_POSIX_H
#define RTB_PORT_POSIX_H

#define _GNU_SOURCE 1

#ifdef __NuttX__
#include <nuttx/config.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <sys/types.h>

#include "posix_error.h"
#include "rtb_port.h"

/* Priority-ceiling mutexes (PTHREAD_PRIO_PROTECT): glibc has them, and NuttX
 * built with CONFIG_PRIORITY_PROTECT; musl declares
 * pthread_mutexattr_setprioceiling() but does not implement it. */
#if defined(__GLIBC__) || (defined(__NuttX__) && defined(CONFIG_PRIORITY_PROTECT))
#define POSIX_HAS_PRIO_CEILING 1
#else
#define POSIX_HAS_PRIO_CEILING 0
#endif

struct posix_state {
	struct rtb_port_info info;
	int cpu;
	bool realtime;	    /* SCHED_FIFO/RR granted */
	int native_min;	    /* native priority of relative 0 */
	pid_t main_tid;	    /* thread that called rtb_port_init() */
	sem_t main_suspend; /* suspend_self() of the main thread */
	char os_release[160];
	char libc[64];
	char counter_note[256];
	char degraded[512];
};

extern struct posix_state posix;

/* Append a sentence to posix.degraded. */
void posix_degrade(const char *sentence);
/* Native priority of a relative one; -1 if out of range. */
int posix_native_prio(int rel);
int posix_relative_prio(int native);
/* Pin a thread attribute / the calling thread to the measurement CPU. */
/* Pin a thread to `cpu` (the measurement CPU unless the attr says on_cpu). */
int posix_pin_attr(pthread_attr_t *attr, int cpu);
/* Stack size of a thread created without one (rtb_thread_attr.stack_bytes 0). */
size_t posix_default_stack_bytes(void);
/* Nanoseconds of CLOCK_MONOTONIC. */
unsigned long long posix_now_ns(void);
/* Kernel thread id of the caller. */
pid_t posix_gettid(void);

/* Read a small text file into buf, trailing newlines and spaces removed;
 * false when it cannot be opened. */
bool posix_read_file(const char *path, char *buf, size_t len);

/* counter.c: choose the counter (posix.info.counter, counter_hz,
 * counter_note) and set rtb_posix_counter_use_fallback. */
void posix_counter_init(const struct rtb_port_config *cfg);

/* thread.c */
int posix_thread_tid(struct rtb_thread *t, pid_t *tid);
void posix_thread_preload(void);

/* ipc.c: block the IPC signals in the calling thread (inherited by every
 * thread created later), probe the IPC services, set the RTB_CAP_IPC_*
 * bits. */
void posix_ipc_init(void);

#endif
