/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench POSIX port (Linux, glibc or musl).
 *
 * Design. Every scenario thread is a pthread created with an explicit
 * SCHED_FIFO (or SCHED_RR) policy and pinned with its attributes to the
 * measurement CPU (default: the last CPU this process may use), so priority
 * semantics are those of a uniprocessor RTOS. Relative priority 0 maps to
 * native priority 1 and prio_max to native max-2: the two highest native
 * levels stay free for the system's own watchdogs. The thread that calls
 * rtb_port_init() is pinned and raised to relative 0 as well. Memory is
 * locked with mlockall(MCL_CURRENT | MCL_FUTURE), malloc is told never to
 * trim or mmap (so freed memory stays resident), and the stack is prefaulted.
 * Without the privilege for either, the port runs anyway under SCHED_OTHER
 * and says so in info->degraded; priorities are then only recorded.
 *
 * Counter (counter.c): the invariant TSC on x86-64, the ARM generic timer on
 * AArch64 and ARMv7-A, else CLOCK_MONOTONIC_RAW.
 *
 * Threads start through a wrapper that records the kernel thread id and, for
 * threads created suspended, waits on a gate semaphore. Suspend/resume of the
 * calling thread is a per-thread semaphore; suspending another thread is not
 * possible in POSIX (no RTB_CAP_SUSPEND_OTHER). Deleting a live thread is
 * pthread_cancel() + pthread_join(), which works for threads blocked in a
 * semaphore, queue or sleep (cancellation points), not in a mutex.
 *
 * Semaphores are sem_t (Linux futex wake-ups go to the highest-priority
 * real-time waiter first); mutexes are pthread mutexes with
 * PTHREAD_PRIO_NONE / INHERIT / PROTECT; message queues are kernel POSIX
 * queues (mq_open, unlinked at once); event flags are emulated with a
 * priority-inheritance mutex and a condition variable (RTB_CAP_EVT_EMULATED).
 *
 * Interrupts: there is no interrupt controller in user space, so the
 * "interrupt" is a POSIX timer (CLOCK_MONOTONIC, hrtimer based, not
 * synchronised with the tick) whose expiry sends a real-time signal to one
 * thread (SIGEV_THREAD_ID); the handler is the signal handler, and waking a
 * thread from it uses sem_post(), which is async-signal-safe. Periodic mode
 * counts lost expirations with timer_getoverrun().
 *
 * IPC channels (ipc.c): the POSIX services rt-tests measures, one-way
 * wake-ups through a real-time signal (taken by a handler or by sigwait),
 * a System V semaphore or a POSIX message queue. The IPC signals are
 * blocked in the thread that calls rtb_port_init() and so in every thread
 * created after it.
 */
#include "port_posix.h"

#include "error_text.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* An AddressSanitizer build: its allocator replaces malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define RTB_POSIX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RTB_POSIX_ASAN 1
#endif
#endif
#ifndef RTB_POSIX_ASAN
#define RTB_POSIX_ASAN 0
#endif
#if RTB_POSIX_ASAN
/* The sanitizer runtime's count of bytes in live blocks (declared here:
 * not every compiler ships <sanitizer/allocator_interface.h>). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

struct posix_state posix;
static volatile sig_atomic_t stop_requested;
static struct utsname uts;

/* ---- helpers ------------------------------------------------------------- */

const char *rtb_port_strerror(int err)
{
	return rtb_error_text(err, "out of memory or OS objects", "operating system error");
}

void posix_degrade(const char *sentence)
{
	size_t used = strlen(posix.degraded);

	snprintf(posix.degraded + used, sizeof(posix.degraded) - used, "%s%s", used > 0 ? " " : "",
		 sentence);
}

int posix_native_prio(int rel)
{
	if (rel < 0 || rel > posix.info.prio_max)
		return -1;
	return posix.native_min + rel;
}

int posix_relative_prio(int native)
{
	return native - posix.native_min;
}

int posix_pin_attr(pthread_attr_t *attr, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
#if defined(__GLIBC__)
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
#else
	/* musl has no pthread_attr_setaffinity_np; a new thread inherits the
	 * affinity of the thread that creates it, and every rtbench thread
	 * descends from the one rtb_port_init() pinned: only the measurement
	 * CPU can be given (a per-CPU thread elsewhere is refused). */
	(void)attr;
	(void)set;
	return cpu == posix.cpu ? 0 : ENOTSUP;
#endif
}

unsigned long long posix_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

pid_t posix_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

bool posix_read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return false;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return true;
}

/* ---- init ------------------------------------------------------------------ */

/* SIGTERM from the runner: finish the current step, report, exit. */
static void on_stop(int signo)
{
	(void)signo;
	stop_requested = 1;
}

static int choose_cpu(int wanted)
{
	cpu_set_t allowed;
	int last = -1;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &allowed))
			last = c;
	}
	if (wanted < 0)
		return last;
	if (wanted >= CPU_SETSIZE || !CPU_ISSET(wanted, &allowed))
		return -1;
	return wanted;
}

static void prefault_stack(void)
{
	volatile char block[256 * 1024];

	for (size_t i = 0; i < sizeof(block); i += 4096)
		block[i] = 0;
}

/* Locking everything with MCL_FUTURE under a small RLIMIT_MEMLOCK makes
 * every later mapping (thread stacks, recorders, a library the C library
 * loads on demand) fail once the limit is reached, so lock only when the
 * limit cannot get in the way: CAP_IPC_LOCK, or a large enough limit. */
#define MEMLOCK_NEEDED_BYTES (1024ull * 1024 * 1024)

static bool has_cap_ipc_lock(void)
{
	char line[256];
	bool cap = false;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "CapEff:", 7) == 0) {
			cap = (strtoull(line + 7, NULL, 16) >> 14) & 1u; /* CAP_IPC_LOCK */
			break;
		}
	}
	fclose(f);
	return cap;
}

static void memory_init(const struct rtb_port_config *cfg)
{
	struct rlimit lim;

	if (!cfg->lock_memory) {
		posix_degrade("Memory is not locked (--no-mlock): page faults may add latency.");
		return;
	}
	if (!has_cap_ipc_lock() && getrlimit(RLIMIT_MEMLOCK, &lim) == 0 &&
	    lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < MEMLOCK_NEEDED_BYTES) {
		char msg[256];
		snprintf(msg, sizeof(msg),
			 "Memory is not locked: the locked-memory limit is %llu KiB and "
			 "rtbench-core needs up to 1 GiB (raise RLIMIT_MEMLOCK, grant "
			 "CAP_IPC_LOCK or run as root); page faults may add latency.",
			 (unsigned long long)lim.rlim_cur / 1024);
		posix_degrade(msg);
		return;
	}
#if defined(__GLIBC__)
	/* Keep freed memory resident so later allocations do not fault. musl
	 * has no such setting; MCL_FUTURE still faults in every new mapping
	 * when it is made. */
	mallopt(M_TRIM_THRESHOLD, -1);
	mallopt(M_MMAP_MAX, 0);
#endif
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
		posix_degrade("Memory could not be locked (mlockall failed: raise "
			      "RLIMIT_MEMLOCK or run as root); page faults may add latency.");
		return;
	}
	prefault_stack();
	posix.info.caps |= RTB_CAP_MEMORY_LOCKED;
}

static void scheduling_init(const struct rtb_port_config *cfg)
{
	int max = sched_get_priority_max(SCHED_FIFO);
	int min = sched_get_priority_min(SCHED_FIFO);

	posix.native_min = min;
	posix.info.prio_max = max - 2 - min; /* keep two top levels free */
	if (!cfg->realtime) {
		posix_degrade("Real-time scheduling was switched off (--no-realtime): "
			      "threads run under SCHED_OTHER and priorities are not applied.");
		return;
	}
	struct sched_param sp = {.sched_priority = posix.native_min};
	int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err != 0) {
		posix_degrade("SCHED_FIFO was refused (needs root or CAP_SYS_NICE, or an "
			      "RLIMIT_RTPRIO): threads run under SCHED_OTHER and "
			      "priorities are not applied.");
		return;
	}
	posix.realtime = true;
	posix.info.caps |= RTB_CAP_REALTIME | RTB_CAP_POLICY_RR;
}

int rtb_port_init(const struct rtb_port_config *cfg)
{
	memset(&posix, 0, sizeof(posix));
	uname(&uts);
	posix.info.port = "posix";
	posix.info.os = uts.sysname;
	snprintf(posix.os_release, sizeof(posix.os_release), "%s %s", uts.release, uts.version);
	posix.info.os_release = posix.os_release;
	posix.info.arch = uts.machine;
#if defined(__GLIBC__)
	snprintf(posix.libc, sizeof(posix.libc), "glibc %s", gnu_get_libc_version());
#elif defined(RTB_BUILD_LIBC)
	/* musl has no version macro nor call: what the build found (CMake). */
	snprintf(posix.libc, sizeof(posix.libc), "%s", RTB_BUILD_LIBC);
#else
	snprintf(posix.libc, sizeof(posix.libc), "non-glibc (musl or other)");
#endif
	posix.info.libc = posix.libc;
	posix.info.irq_name = "POSIX timer signal";
	posix.info.irq_source = "POSIX timer (CLOCK_MONOTONIC) delivering a real-time signal "
				"to one thread; handler = signal handler; wake-up = sem_post";
	posix.info.degraded = posix.degraded;
	posix.info.cpu_count = (int)sysconf(_SC_NPROCESSORS_ONLN);
	posix.main_tid = posix_gettid();
	sem_init(&posix.main_suspend, 0, 0);

	posix.cpu = choose_cpu(cfg->cpu);
	posix.info.cpu = posix.cpu;
	if (posix.cpu < 0) {
		char msg[128];
		snprintf(msg, sizeof(msg), "CPU %d is not online or not allowed for this process.",
			 cfg->cpu);
		posix_degrade(msg);
		posix.info.cpu = cfg->cpu;
		return RTB_E_INVALID;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(posix.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		posix.info.caps |= RTB_CAP_PINNING;
	else
		posix_degrade("Threads could not be pinned to the measurement CPU.");

	/* Before locking: loading the unwinder maps a library. */
	posix_thread_preload();
	memory_init(cfg);
	scheduling_init(cfg);
#if POSIX_HAS_PRIO_CEILING
	posix.info.caps |= RTB_CAP_MUTEX_CEILING;
#endif
	posix.info.caps |= RTB_CAP_MUTEX_INHERIT | RTB_CAP_MQ | RTB_CAP_EVT | RTB_CAP_EVT_EMULATED |
			   RTB_CAP_IRQ | RTB_CAP_IRQ_PERIODIC | RTB_CAP_MEM_USAGE |
			   RTB_CAP_THREAD_DELETE_LIVE;
#if defined(__x86_64__) || defined(__aarch64__)
	posix.info.caps |= RTB_CAP_CACHE_FLUSH;
#endif
	posix_ipc_init();
	posix_counter_init(cfg);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	return RTB_OK;
}

bool rtb_port_stop_requested(void)
{
	return stop_requested != 0;
}

void rtb_port_fini(void)
{
	fflush(stdout);
}

const struct rtb_port_info *rtb_port_info(void)
{
	return &posix.info;
}

uint64_t rtb_port_counter_hz(void)
{
	return posix.info.counter_hz;
}

/* ---- properties ----------------------------------------------------------- */

/* The kernel configuration: /boot/config-<release>, else the kernel's own
 * copy in /proc/config.gz (CONFIG_IKCONFIG_PROC), decompressed by gzip. */
static int config_value(const char *name, char *buf, size_t len)
{
	char path[300], line[256];
	size_t nlen = strlen(name);
	bool piped = false;

	snprintf(path, sizeof(path), "/boot/config-%s", uts.release);
	FILE *f = fopen(path, "r");
	if (f == NULL && access("/proc/config.gz", R_OK) == 0) {
		f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
		piped = f != NULL;
	}
	if (f == NULL)
		return RTB_E_UNSUPPORTED;
	int rc = RTB_E_UNSUPPORTED;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, nlen) == 0 && line[nlen] == '=') {
			snprintf(buf, len, "%s", line + nlen + 1);
			buf[strcspn(buf, "\n")] = '\0';
			rc = RTB_OK;
			break;
		}
	}
	if (piped) {
		while (fgets(line, sizeof(line), f) != NULL)
			; /* drain, so gzip ends normally */
		pclose(f);
	} else {
		fclose(f);
	}
	return rc;
}

/* Size of the largest CPU cache of the measurement CPU, from sysfs. */
static int cache_bytes_max(char *buf, size_t len)
{
	unsigned long long best = 0;

	for (int i = 0; i < 16; i++) {
		char path[128], v[32];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
			 posix.cpu, i);
		if (!posix_read_file(path, v, sizeof(v)))
			break;
		char *end;
		unsigned long long n = strtoull(v, &end, 10);
		if (*end == 'K')
			n *= 1024;
		else if (*end == 'M')
			n *= 1024 * 1024;
		if (n > best)
			best = n;
	}
	if (best == 0)
		return RTB_E_UNSUPPORTED;
	snprintf(buf, len, "%llu", best);
	return RTB_OK;
}

/* How long the kernel takes the CPU away from a real-time thread that runs
 * without a pause: RT throttling (sched_rt_period_us - sched_rt_runtime_us)
 * or the fair server's runtime (kernels from 6.12), whichever is longer. */
static int rt_withheld_ns(char *buf, size_t len)
{
	char v[32], path[128];
	unsigned long long best = 0;

	if (posix_read_file("/proc/sys/kernel/sched_rt_runtime_us", v, sizeof(v))) {
		long long runtime = strtoll(v, NULL, 10);
		if (runtime >= 0 &&
		    posix_read_file("/proc/sys/kernel/sched_rt_period_us", v, sizeof(v))) {
			long long period = strtoll(v, NULL, 10);
			if (period > runtime)
				best = (unsigned long long)(period - runtime) * 1000u;
		}
	}
	snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime",
		 posix.cpu);
	if (posix_read_file(path, v, sizeof(v))) {
		unsigned long long fair = strtoull(v, NULL, 10);
		if (fair > best)
			best = fair;
	}
	if (best == 0)
		return RTB_E_UNSUPPORTED;
	snprintf(buf, len, "%llu", best);
	return RTB_OK;
}

int rtb_port_property(const char *key, char *buf, size_t len)
{
	if (len == 0)
		return RTB_E_INVALID;
	if (strcmp(key, "tick_hz_config") == 0)
		return config_value("CONFIG_HZ", buf, len);
	if (strcmp(key, "no_hz") == 0) {
		char v[32];
		if (config_value("CONFIG_NO_HZ_FULL", v, sizeof(v)) == RTB_OK)
			snprintf(buf, len, "full");
		else if (config_value("CONFIG_NO_HZ_IDLE", v, sizeof(v)) == RTB_OK)
			snprintf(buf, len, "idle");
		else if (config_value("CONFIG_HZ_PERIODIC", v, sizeof(v)) == RTB_OK)
			snprintf(buf, len, "periodic");
		else
			return RTB_E_UNSUPPORTED;
		return RTB_OK;
	}
	if (strcmp(key, "timer_resolution_ns") == 0) {
		struct timespec res;
		if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
			return RTB_E_OS;
		snprintf(buf, len, "%lld", (long long)res.tv_sec * 1000000000ll + res.tv_nsec);
		return RTB_OK;
	}
	if (strcmp(key, "rr_timeslice_ms") == 0)
		return posix_read_file("/proc/sys/kernel/sched_rr_timeslice_ms", buf, len)
			       ? RTB_OK
			       : RTB_E_UNSUPPORTED;
	if (strcmp(key, "rr_interval_ns") == 0) {
		struct timespec ts;
		if (sched_rr_get_interval(0, &ts) != 0)
			return RTB_E_OS;
		snprintf(buf, len, "%lld", (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec);
		return RTB_OK;
	}
	if (strcmp(key, "cache_bytes_max") == 0)
		return cache_bytes_max(buf, len);
	if (strcmp(key, "clocksource") == 0)
		return posix_read_file(
			       "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			       buf, len)
			       ? RTB_OK
			       : RTB_E_UNSUPPORTED;
	if (strcmp(key, "thread_stack_bytes") == 0) {
		snprintf(buf, len, "%llu", (unsigned long long)posix_default_stack_bytes());
		return RTB_OK;
	}
	if (strcmp(key, "rt_withheld_ns") == 0)
		return rt_withheld_ns(buf, len);
	if (strcmp(key, "preemption") == 0) {
		char mode[128];
		if (posix_read_file("/sys/kernel/debug/sched/preempt", mode, sizeof(mode)))
			snprintf(buf, len, "%s", mode);
		else
			snprintf(buf, len, "%s", uts.version);
		return RTB_OK;
	}
	return RTB_E_UNSUPPORTED;
}

/* ---- time ------------------------------------------------------------------ */

uint64_t rtb_port_time_ns(void)
{
	return posix_now_ns();
}

int rtb_port_sleep_until_ns(uint64_t deadline_ns)
{
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u),
			      (long)(deadline_ns % 1000000000u)};
	int err;

	do {
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	} while (err == EINTR);
	return posix_error(err);
}

int rtb_port_sleep_ns(uint64_t duration_ns)
{
	struct timespec ts = {(time_t)(duration_ns / 1000000000u),
			      (long)(duration_ns % 1000000000u)};
	int err;

	while ((err = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) == EINTR)
		;
	return posix_error(err);
}

void rtb_port_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__) || RTB_POSIX_GENERIC_TIMER
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* ---- memory -------------------------------------------------------------- */

void *rtb_port_mem_alloc(size_t bytes)
{
	return malloc(bytes);
}

void rtb_port_mem_free(void *p)
{
	free(p);
}

/* POSIX has no fixed-block pool: the contract's pool is emulated over malloc
 * (ports/common/pool_alloc.c), RTB_CAP_MEM_POOL clear. */
const char *rtb_port_pool_mechanism(void)
{
	return "emulated: POSIX has no fixed-block pool; each block is a malloc / free of "
	       "the C library";
}

static uint64_t status_field(const char *name)
{
	char line[256];
	size_t nlen = strlen(name);
	uint64_t v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, nlen) == 0 && line[nlen] == ':') {
			v = strtoull(line + nlen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

int rtb_port_mem_usage(struct rtb_mem_usage *out)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return RTB_E_UNSUPPORTED;
	if (fscanf(f, "%llu %llu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	memset(out, 0, sizeof(*out));
	out->resident_bytes = resident * (uint64_t)page;
#if RTB_POSIX_ASAN
	/* malloc is the sanitizer's: freed blocks wait in its quarantine and
	 * every thread ever created leaves bookkeeping behind, so resident
	 * memory grows with the loop count whatever the program frees. Its
	 * own count of live blocks is exact. */
	out->heap_used_bytes = __sanitizer_get_current_allocated_bytes();
	out->unreliable = RTB_MEM_RESIDENT_UNRELIABLE;
	out->note = "AddressSanitizer build: resident memory follows the sanitizer's quarantine, "
		    "not the program (not judged); heap in use counts live blocks";
#elif defined(__GLIBC__)
	struct mallinfo2 mi = mallinfo2();
	out->heap_used_bytes = mi.uordblks + mi.hblkhd;
#endif
	out->threads = status_field("Threads");
	out->handles = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] != '.')
				out->handles++;
		}
		closedir(d);
		if (out->handles > 0)
			out->handles--; /* the directory stream itself */
	}
	return RTB_OK;
}

int rtb_port_cache_flush(const void *p, size_t bytes)
{
#if defined(__x86_64__)
	const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
	const char *end = (const char *)p + bytes;
	for (; c < end; c += 64)
		__asm__ __volatile__("clflush (%0)" ::"r"(c) : "memory");
	__asm__ __volatile__("mfence" ::: "memory");
	return RTB_OK;
#elif defined(__aarch64__)
	const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
	const char *end = (const char *)p + bytes;
	for (; c < end; c += 64)
		__asm__ __volatile__("dc civac, %0" ::"r"(c) : "memory");
	__asm__ __volatile__("dsb ish" ::: "memory");
	return RTB_OK;
#else
	(void)p;
	(void)bytes;
	return RTB_E_UNSUPPORTED;
#endif
}

/* ---- console --------------------------------------------------------------- */

int rtb_port_console_write(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return posix_error(errno);
		}
		buf += n;
		len -= (size_t)n;
	}
	return RTB_OK;
}

int rtb_port_console_read(char *buf, size_t len)
{
	/* Commands come on the command line here, not on the console. */
	(void)buf;
	(void)len;
	return RTB_E_UNSUPPORTED;
}
