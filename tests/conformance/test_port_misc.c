/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port conformance: everything besides threads and synchronisation. Start-up
 * (an unusable CPU is refused), the platform description, the counter and
 * its frequency, error names, memory usage (plausible, and following thread
 * creation, allocation and open handles), fixed-size block pools (count
 * blocks, distinct and writable, given back and taken again; POSIX's are
 * emulated and say so), cache flush, the console, named properties, sleeping until a
 * deadline, and the stop request raised by SIGTERM.
 */
#include "port_test.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

static void test_init_refuses_bad_cpu(void)
{
	struct rtb_port_config cfg = {.cpu = 100000, .lock_memory = false, .realtime = false};

	CHECK(rtb_port_init(&cfg) == RTB_E_INVALID);
	CHECK(strstr(rtb_port_info()->degraded, "100000") != NULL);
}

static void test_info(void)
{
	const struct rtb_port_info *i = rtb_port_info();

	CHECK(strcmp(i->port, "posix") == 0);
	CHECK(i->os != NULL && i->os[0] != '\0');
	CHECK(i->os_release != NULL && i->arch != NULL && i->libc != NULL);
	CHECK(i->counter != NULL && i->counter[0] != '\0');
	CHECK(i->counter_note != NULL && i->counter_note[0] != '\0');
	CHECK(i->irq_source != NULL && i->degraded != NULL);
	CHECK(i->cpu_count >= 1);
	CHECK(i->cpu >= 0 && i->cpu < i->cpu_count);
	CHECK(i->prio_max >= 1);
	CHECK(i->counter_hz > 0);
	CHECK(rtb_port_counter_hz() == i->counter_hz);
	if (i->caps & RTB_CAP_PINNING)
		CHECK(sched_getcpu() == i->cpu);
	if (!(i->caps & RTB_CAP_REALTIME))
		CHECK(strstr(i->degraded, "SCHED_OTHER") != NULL);

	/* every error code has its own name */
	static const int codes[] = {RTB_OK,	    RTB_E_UNSUPPORTED, RTB_E_NOMEM, RTB_E_INVALID,
				    RTB_E_TIMEOUT,  RTB_E_PERM,	       RTB_E_AGAIN, RTB_E_BUSY,
				    RTB_E_DEADLOCK, RTB_E_OS};
	for (size_t a = 0; a < RTB_ARRAY_SIZE(codes); a++) {
		const char *s = rtb_port_strerror(codes[a]);
		CHECK(s != NULL && s[0] != '\0');
		for (size_t b = 0; b < a; b++)
			CHECK(strcmp(s, rtb_port_strerror(codes[b])) != 0);
	}
	CHECK(rtb_port_strerror(-1000) != NULL);
}

static void test_counter(void)
{
	/* monotonic, and its frequency agrees with the OS clock (gross bound:
	 * a wrong calibration is off by far more than 20 %) */
	uint64_t c0 = rtb_port_counter_read(), n0 = rtb_port_time_ns();
	uint64_t prev = c0;
	for (int i = 0; i < 100000; i++) {
		uint64_t c = rtb_port_counter_read();
		CHECK(c >= prev);
		prev = c;
	}
	rtb_port_sleep_ns(100000000);
	uint64_t c1 = rtb_port_counter_read(), n1 = rtb_port_time_ns();
	double hz = (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
	double want = (double)rtb_port_counter_hz();
	CHECK(hz > want * 0.8 && hz < want * 1.2);
	CHECK(rtb_timing_measure_overhead(1000) < rtb_port_counter_hz() / 1000);
	rtb_port_cpu_relax();
}

static void test_time_and_sleep(void)
{
	uint64_t t0 = rtb_port_time_ns();
	uint64_t deadline = t0 + 5000000;

	CHECK(rtb_port_sleep_until_ns(deadline) == RTB_OK);
	CHECK(rtb_port_time_ns() >= deadline);
	/* a deadline in the past returns at once */
	t0 = rtb_port_time_ns();
	CHECK(rtb_port_sleep_until_ns(t0 - 1000000) == RTB_OK);
	CHECK(rtb_port_time_ns() - t0 < 1000000000u);

	t0 = rtb_port_time_ns();
	CHECK(rtb_port_sleep_ns(3000000) == RTB_OK);
	CHECK(rtb_port_time_ns() - t0 >= 3000000);
	CHECK(rtb_port_sleep_ns(0) == RTB_OK);
	t0 = rtb_port_time_ns();
	CHECK(rtb_port_sleep_ns(1500000000u) == RTB_OK); /* crosses a second */
	CHECK(rtb_port_time_ns() - t0 >= 1500000000u);
}

/* ---- memory --------------------------------------------------------------- */

static void parked_main(void *arg)
{
	rtb_port_sem_wait(arg);
}

static void test_mem_usage(void)
{
	struct rtb_mem_usage u0, u1, u2;

	if (!(rtb_port_info()->caps & RTB_CAP_MEM_USAGE)) {
		CHECK(rtb_port_mem_usage(&u0) == RTB_E_UNSUPPORTED);
		return;
	}
	CHECK(rtb_port_mem_usage(&u0) == RTB_OK);
	CHECK(u0.resident_bytes >= 4096);
	CHECK(u0.resident_bytes < ((uint64_t)1 << 44));
	CHECK(u0.threads >= 1);
	CHECK(u0.handles >= 3); /* standard input, output, error */
	CHECK(u0.heap_used_bytes > 0);
	/* the sanitizer's quarantine keeps freed memory resident: the port must
	 * say so, and only then */
	CHECK(((u0.unreliable & RTB_MEM_RESIDENT_UNRELIABLE) != 0) == UNDER_ASAN);
	CHECK((u0.unreliable & RTB_MEM_HEAP_UNRELIABLE) == 0);
	CHECK((u0.note != NULL) == (u0.unreliable != 0));

	/* a thread more, then one less */
	struct rtb_sem *sem;
	CHECK(rtb_port_sem_create(&sem, 0) == RTB_OK);
	struct rtb_thread *t = spawn("parked", 3, false, parked_main, sem);
	CHECK(rtb_port_mem_usage(&u1) == RTB_OK);
	CHECK(u1.threads == u0.threads + 1);
	rtb_port_sem_signal(sem);
	reap(t);
	CHECK(rtb_port_mem_usage(&u1) == RTB_OK);
	CHECK(u1.threads == u0.threads);
	rtb_port_sem_delete(sem);

	/* an open file is a handle */
	int fd = open("/dev/null", O_RDONLY);
	CHECK(rtb_port_mem_usage(&u1) == RTB_OK);
	CHECK(u1.handles == u0.handles + 1);
	close(fd);
	CHECK(rtb_port_mem_usage(&u1) == RTB_OK);
	CHECK(u1.handles == u0.handles);

	/* 16 MB allocated and touched: heap and resident size follow */
	size_t big = 16u << 20;
	char *p = rtb_port_mem_alloc(big);
	CHECK(p != NULL);
	if (p == NULL)
		return;
	memset(p, 1, big);
	CHECK(rtb_port_mem_usage(&u2) == RTB_OK);
	CHECK(u2.resident_bytes >= u1.resident_bytes + big / 2);
	CHECK(u2.heap_used_bytes >= u1.heap_used_bytes + big);
	rtb_port_mem_free(p);
	CHECK(rtb_port_mem_usage(&u2) == RTB_OK);
	CHECK(u2.heap_used_bytes < u1.heap_used_bytes + big);

	CHECK(rtb_port_mem_alloc((size_t)1 << 62) == NULL);
	rtb_port_mem_free(NULL);
}

static void test_pool(void)
{
	enum { N = 5, BYTES = 100 };
	struct rtb_pool *p;
	void *b[N];

	CHECK(rtb_port_pool_create(NULL, BYTES, N) == RTB_E_INVALID);
	CHECK(rtb_port_pool_create(&p, 0, N) == RTB_E_INVALID);
	CHECK(rtb_port_pool_create(&p, BYTES, 0) == RTB_E_INVALID);
	CHECK(rtb_port_pool_create(&p, BYTES, N) == RTB_OK);
	for (int i = 0; i < N; i++) {
		CHECK(rtb_port_pool_get(p, &b[i]) == RTB_OK);
		CHECK(((uintptr_t)b[i] % sizeof(void *)) == 0);
		memset(b[i], i + 1, BYTES);
	}
	for (int i = 0; i < N; i++) {
		const unsigned char *c = b[i];
		CHECK(c[0] == i + 1 && c[BYTES - 1] == i + 1); /* blocks do not overlap */
	}
	CHECK(rtb_port_pool_put(p, b[0]) == RTB_OK);
	CHECK(rtb_port_pool_get(p, &b[0]) == RTB_OK); /* one back, one out again */
	for (int i = 0; i < N; i++)
		CHECK(rtb_port_pool_put(p, b[i]) == RTB_OK);
	CHECK(rtb_port_pool_delete(p) == RTB_OK);
	CHECK(rtb_port_pool_delete(NULL) == RTB_E_INVALID);
	/* the POSIX port has no native pool: it says what it emulates it with */
	CHECK((rtb_port_info()->caps & RTB_CAP_MEM_POOL) == 0);
	CHECK(strstr(rtb_port_pool_mechanism(), "emulated") != NULL);
}

static void test_cache_flush(void)
{
	static char data[10000];
	uint32_t caps = rtb_port_info()->caps;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)i;
	int rc = rtb_port_cache_flush(data + 3, sizeof(data) - 7);
#if defined(__x86_64__)
	CHECK(caps & RTB_CAP_CACHE_FLUSH);
#endif
	CHECK(rc == ((caps & RTB_CAP_CACHE_FLUSH) ? RTB_OK : RTB_E_UNSUPPORTED));
	if (caps & RTB_CAP_CACHE_FLUSH) {
		CHECK(rtb_port_cache_flush(data, 0) == RTB_OK);
		CHECK(rtb_port_cache_flush(data + 63, 1) == RTB_OK);
	}
	for (size_t i = 0; i < sizeof(data); i++)
		CHECK(data[i] == (char)i); /* contents survive */
}

/* ---- console ------------------------------------------------------------------ */

static void test_console(void)
{
	static char big[300000];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);

	fflush(stdout);
	FILE *tmp = tmpfile();
	CHECK(tmp != NULL);
	if (tmp == NULL)
		return;
	int saved = dup(STDOUT_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	int rc1 = rtb_port_console_write("hello\n", 6);
	int rc2 = rtb_port_console_write(big, sizeof(big));
	int rc3 = rtb_port_console_write("", 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	CHECK(rc1 == RTB_OK && rc2 == RTB_OK && rc3 == RTB_OK);

	size_t want = 6 + sizeof(big);
	char *back = malloc(want + 1);
	lseek(fileno(tmp), 0, SEEK_SET);
	ssize_t got = read(fileno(tmp), back, want + 1);
	CHECK(got == (ssize_t)want);
	CHECK(got >= 6 && memcmp(back, "hello\n", 6) == 0);
	CHECK(got == (ssize_t)want && memcmp(back + 6, big, sizeof(big)) == 0);
	free(back);
	fclose(tmp);

	/* a closed output is an error code, not a crash */
	saved = dup(STDOUT_FILENO);
	close(STDOUT_FILENO);
	int rc = rtb_port_console_write("x", 1);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	CHECK(rc < 0);
}

/* ---- properties ---------------------------------------------------------------- */

static void test_properties(void)
{
	static const char *const keys[] = {
		"tick_hz_config",  "no_hz",	     "timer_resolution_ns",
		"rr_timeslice_ms", "rr_interval_ns", "clocksource",
		"preemption",	   "no_such_key",    ""};
	char buf[256], small[4];

	for (size_t i = 0; i < RTB_ARRAY_SIZE(keys); i++) {
		memset(buf, 'X', sizeof(buf));
		int rc = rtb_port_property(keys[i], buf, sizeof(buf));
		CHECK(rc == RTB_OK || rc == RTB_E_UNSUPPORTED);
		if (rc == RTB_OK) {
			CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
			CHECK(buf[0] != '\0');
			fprintf(stderr, "property %s = %s\n", keys[i], buf);
		}
		memset(small, 'X', sizeof(small));
		rc = rtb_port_property(keys[i], small, sizeof(small));
		CHECK(rc == RTB_OK || rc == RTB_E_UNSUPPORTED);
		if (rc == RTB_OK)
			CHECK(memchr(small, '\0', sizeof(small)) != NULL);
		CHECK(rtb_port_property(keys[i], buf, 0) != RTB_OK);
	}
	CHECK(rtb_port_property("no_such_key", buf, sizeof(buf)) == RTB_E_UNSUPPORTED);
	CHECK(rtb_port_property("timer_resolution_ns", buf, sizeof(buf)) == RTB_OK);
	uint64_t res;
	CHECK(rtb_parse_u64(buf, &res) && res > 0 && res <= 10000000);
}

/* ---- stop request ---------------------------------------------------------------- */

static void test_stop_request(void)
{
	CHECK(!rtb_port_stop_requested());
	CHECK(raise(SIGTERM) == 0); /* handled: the process goes on */
	CHECK(rtb_port_stop_requested());
	struct rtb_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.budget_end_ticks = rtb_port_counter_read() + rtb_port_counter_hz() * 3600;
	CHECK(rtb_ctx_expired(&ctx));
}

int main(void)
{
	test_init_refuses_bad_cpu();
	int rc = conf_init(false);
	if (rc != 0)
		return rc;
	test_info();
	test_counter();
	test_time_and_sleep();
	test_mem_usage();
	test_pool();
	test_cache_flush();
	test_console();
	test_properties();
	test_stop_request();
	return check_exit();
}
