/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench template port: a stub that compiles and links against the whole
 * contract but offers no service. Copy this folder to start a new port.
 *
 * Design (fill in for a real port): say how threads and relative
 * priorities map onto the OS's tasks, which counter the timestamps use and
 * how its frequency is known, what the interrupt source is (a hardware timer
 * whose ISR calls the handler, for instance) and how a handler wakes a
 * thread, and which services are native or emulated.
 */
#include "rtb_port.h"

volatile uint64_t rtb_template_counter;

static const struct rtb_port_info info = {
	.port = "template",
	.os = "none",
	.os_release = "",
	.libc = "",
	.arch = "unknown",
	.counter = "none",
	.counter_note = "the template port has no counter",
	.irq_source = "none",
	.irq_name = "",
	.counter_hz = 1000000000u,
	.caps = 0,
	.prio_max = 0,
	.cpu = 0,
	.cpu_count = 1,
	.degraded = "The template port offers no service.",
};

const char *rtb_port_strerror(int err)
{
	return err == RTB_OK ? "ok" : "not supported";
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
	return &info;
}

int rtb_port_property(const char *key, char *buf, size_t len)
{
	(void)key;
	(void)buf;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

uint64_t rtb_port_counter_hz(void)
{
	return info.counter_hz;
}

uint64_t rtb_port_time_ns(void)
{
	return rtb_template_counter;
}

int rtb_port_sleep_until_ns(uint64_t deadline_ns)
{
	(void)deadline_ns;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sleep_ns(uint64_t duration_ns)
{
	(void)duration_ns;
	return RTB_E_UNSUPPORTED;
}

void rtb_port_cpu_relax(void)
{
}

int rtb_port_thread_create(struct rtb_thread **out, const struct rtb_thread_attr *attr,
			   rtb_thread_fn fn, void *arg)
{
	(void)out;
	(void)attr;
	(void)fn;
	(void)arg;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_thread_start(struct rtb_thread *t)
{
	(void)t;
	return RTB_E_UNSUPPORTED;
}

struct rtb_thread *rtb_port_thread_self(void)
{
	return 0;
}

void rtb_port_thread_yield(void)
{
}

int rtb_port_thread_suspend_self(void)
{
	return RTB_E_UNSUPPORTED;
}

int rtb_port_thread_suspend(struct rtb_thread *t)
{
	(void)t;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_thread_resume(struct rtb_thread *t)
{
	(void)t;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_thread_set_priority(struct rtb_thread *t, int prio)
{
	(void)t;
	(void)prio;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_thread_get_priority(struct rtb_thread *t, int *prio)
{
	(void)t;
	(void)prio;
	return RTB_E_UNSUPPORTED;
}

void rtb_port_thread_exit(void)
{
	for (;;) {
	}
}

int rtb_port_thread_delete(struct rtb_thread *t)
{
	(void)t;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_create(struct rtb_sem **out, uint32_t initial)
{
	(void)out;
	(void)initial;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_delete(struct rtb_sem *s)
{
	(void)s;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_wait(struct rtb_sem *s)
{
	(void)s;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_trywait(struct rtb_sem *s)
{
	(void)s;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_timedwait(struct rtb_sem *s, uint64_t timeout_ns)
{
	(void)s;
	(void)timeout_ns;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_signal(struct rtb_sem *s)
{
	(void)s;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_signal_from_irq(struct rtb_sem *s)
{
	(void)s;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_sem_value(struct rtb_sem *s, uint32_t *value)
{
	(void)s;
	(void)value;
	return RTB_E_UNSUPPORTED;
}

uint64_t rtb_port_sem_max(void)
{
	return 0;
}

int rtb_port_mutex_create(struct rtb_mutex **out, enum rtb_mutex_protocol protocol, int ceiling)
{
	(void)out;
	(void)protocol;
	(void)ceiling;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mutex_delete(struct rtb_mutex *m)
{
	(void)m;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mutex_lock(struct rtb_mutex *m)
{
	(void)m;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mutex_trylock(struct rtb_mutex *m)
{
	(void)m;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mutex_unlock(struct rtb_mutex *m)
{
	(void)m;
	return RTB_E_UNSUPPORTED;
}

const char *rtb_port_mutex_mechanism(enum rtb_mutex_protocol protocol)
{
	(void)protocol;
	return "none";
}

int rtb_port_mq_create(struct rtb_mq **out, size_t msg_bytes, uint32_t depth)
{
	(void)out;
	(void)msg_bytes;
	(void)depth;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_delete(struct rtb_mq *q)
{
	(void)q;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_send(struct rtb_mq *q, const void *msg, size_t len)
{
	(void)q;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_trysend(struct rtb_mq *q, const void *msg, size_t len)
{
	(void)q;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_receive(struct rtb_mq *q, void *msg, size_t len)
{
	(void)q;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_mq_tryreceive(struct rtb_mq *q, void *msg, size_t len)
{
	(void)q;
	(void)msg;
	(void)len;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_create(struct rtb_evt **out)
{
	(void)out;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_delete(struct rtb_evt *e)
{
	(void)e;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_set(struct rtb_evt *e, uint32_t bits)
{
	(void)e;
	(void)bits;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_clear(struct rtb_evt *e, uint32_t bits)
{
	(void)e;
	(void)bits;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_evt_wait(struct rtb_evt *e, uint32_t bits, enum rtb_evt_wait mode, bool clear,
		      uint32_t *got)
{
	(void)e;
	(void)bits;
	(void)mode;
	(void)clear;
	(void)got;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_irq_create(struct rtb_irq **out, struct rtb_thread *target, rtb_irq_handler handler,
			void *arg)
{
	(void)out;
	(void)target;
	(void)handler;
	(void)arg;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_irq_delete(struct rtb_irq *irq)
{
	(void)irq;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_irq_fire(struct rtb_irq *irq, uint64_t delay_ns)
{
	(void)irq;
	(void)delay_ns;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_irq_start_periodic(struct rtb_irq *irq, uint64_t period_ns)
{
	(void)irq;
	(void)period_ns;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_irq_stop(struct rtb_irq *irq, struct rtb_irq_counts *counts)
{
	(void)irq;
	(void)counts;
	return RTB_E_UNSUPPORTED;
}

void *rtb_port_mem_alloc(size_t bytes)
{
	(void)bytes;
	return 0;
}

void rtb_port_mem_free(void *p)
{
	(void)p;
}

/* The fixed-block pool: an OS that has one implements rtb_port_pool_* with
 * it and sets RTB_CAP_MEM_POOL; this template emulates it over
 * rtb_port_mem_alloc() (ports/common/pool_alloc.c, linked in port.cmake). */
const char *rtb_port_pool_mechanism(void)
{
	return "emulated over rtb_port_mem_alloc (the template has no OS)";
}

int rtb_port_mem_usage(struct rtb_mem_usage *out)
{
	(void)out;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_cache_flush(const void *p, size_t bytes)
{
	(void)p;
	(void)bytes;
	return RTB_E_UNSUPPORTED;
}

bool rtb_port_stop_requested(void)
{
	return false;
}

int rtb_port_console_write(const char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return RTB_OK;
}

int rtb_port_console_read(char *buf, size_t len)
{
	/* A template: a firmware port reads its UART receive buffer here. */
	(void)buf;
	(void)len;
	return RTB_E_UNSUPPORTED;
}
