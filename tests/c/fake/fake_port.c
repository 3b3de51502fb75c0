/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fake port for the core's unit tests: the parts of the contract the engine
 * itself uses (counter, console, memory, info, yield, the clock, relative
 * sleeps, cpu_relax). The console is captured in memory so tests can read back every
 * record the emitter wrote; yield and sleep call hooks so tests can script
 * what "another thread" does; a sleep only advances the fake clock.
 */
#include "fake_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t fake_counter;
uint64_t fake_counter_step;
uint64_t fake_counter_quantum;
uint64_t fake_counter_jitter;
uint64_t fake_counter_reads;
uint64_t fake_counter_step_declared;
char *fake_console;
size_t fake_console_len;
uint64_t fake_console_writes;
uint64_t fake_yields;
void (*fake_yield_hook)(void);
uint64_t fake_time_ns;
uint64_t fake_sleeps;
void (*fake_sleep_hook)(void);
const char *fake_property_key;
const char *fake_property_value;
static size_t fake_console_cap;

static struct rtb_port_info info = {
	.port = "fake",
	.os = "test",
	.os_release = "1",
	.libc = "",
	.arch = "test",
	.counter = "fake",
	.counter_note = "scripted",
	.irq_source = "none",
	.irq_name = "",
	.counter_hz = 1000000000u,
	.caps = 0,
	.prio_max = 10,
	.cpu = 0,
	.cpu_count = 1,
	.degraded = "",
};

void fake_reset(void)
{
	fake_counter = 0;
	fake_counter_step = 0;
	fake_counter_quantum = 0;
	fake_counter_jitter = 0;
	fake_counter_reads = 0;
	fake_counter_step_declared = 0;
	fake_console_len = 0;
	fake_console_writes = 0;
	fake_yields = 0;
	fake_yield_hook = NULL;
	fake_time_ns = 0;
	fake_sleeps = 0;
	fake_sleep_hook = NULL;
	fake_stop = false;
	fake_allocs_left = -1;
	fake_property_key = NULL;
	fake_property_value = NULL;
	if (fake_console != NULL)
		fake_console[0] = '\0';
}

void fake_set_caps(uint32_t caps)
{
	info.caps = caps;
}

void fake_set_os_config(const char *name, const struct rtb_port_setting *settings, uint32_t n)
{
	info.os_config = name;
	info.os_settings = settings;
	info.os_nsettings = n;
}

const char *rtb_port_strerror(int err)
{
	return err == RTB_OK ? "ok" : "fake error";
}

int rtb_port_init(const struct rtb_port_config *cfg)
{
	(void)cfg;
	return RTB_OK;
}

void rtb_port_fini(void)
{
}

const struct rtb_port_info *rtb_port_info(void)
{
	info.counter_step_ticks = fake_counter_step_declared;
	return &info;
}

uint64_t rtb_port_counter_hz(void)
{
	return info.counter_hz;
}

int64_t fake_allocs_left = -1;

void *rtb_port_mem_alloc(size_t bytes)
{
	if (fake_allocs_left == 0)
		return NULL;
	if (fake_allocs_left > 0)
		fake_allocs_left--;
	return malloc(bytes);
}

void rtb_port_mem_free(void *p)
{
	free(p);
}

bool fake_stop;

bool rtb_port_stop_requested(void)
{
	return fake_stop;
}

void rtb_port_thread_yield(void)
{
	fake_yields++;
	if (fake_yield_hook != NULL)
		fake_yield_hook();
}

void rtb_port_cpu_relax(void)
{
}

uint64_t rtb_port_time_ns(void)
{
	return fake_time_ns;
}

int rtb_port_sleep_ns(uint64_t duration_ns)
{
	fake_sleeps++;
	fake_time_ns += duration_ns;
	if (fake_sleep_hook != NULL)
		fake_sleep_hook();
	return RTB_OK;
}

int rtb_port_console_write(const char *buf, size_t len)
{
	fake_console_writes++;
	if (fake_console_len + len + 1 > fake_console_cap) {
		size_t cap = (fake_console_len + len + 1) * 2;
		char *p = realloc(fake_console, cap);
		if (p == NULL)
			return RTB_E_NOMEM;
		fake_console = p;
		fake_console_cap = cap;
	}
	memcpy(fake_console + fake_console_len, buf, len);
	fake_console_len += len;
	fake_console[fake_console_len] = '\0';
	return RTB_OK;
}

int rtb_port_property(const char *key, char *buf, size_t len)
{
	if (len > 0)
		buf[0] = '\0';
	if (fake_property_key == NULL || strcmp(key, fake_property_key) != 0)
		return RTB_E_UNSUPPORTED;
	snprintf(buf, len, "%s", fake_property_value != NULL ? fake_property_value : "");
	return RTB_OK;
}

int rtb_port_console_read(char *buf, size_t len)
{
	/* The fake console is write-only. */
	(void)buf;
	(void)len;
	return RTB_E_UNSUPPORTED;
}
