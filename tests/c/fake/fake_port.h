/* SPDX-License-Identifier: Apache-2.0 */
/* Fake port controls for the core's unit tests. */
#ifndef RTB_FAKE_PORT_H
#define RTB_FAKE_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtb_port.h"

extern char *fake_console; /* everything written to the console, NUL-terminated */
extern size_t fake_console_len;
extern uint64_t fake_console_writes;  /* rtb_port_console_write() calls */
extern bool fake_stop;		      /* what rtb_port_stop_requested() answers */
extern uint64_t fake_yields;	      /* rtb_port_thread_yield() calls */
extern void (*fake_yield_hook)(void); /* run by each yield, may be NULL */
extern uint64_t fake_time_ns;	      /* rtb_port_time_ns(); a sleep adds its duration */
extern uint64_t fake_sleeps;	      /* rtb_port_sleep_ns() calls */
extern void (*fake_sleep_hook)(void); /* run by each sleep, may be NULL */
extern uint64_t fake_counter;	      /* next counter value */
extern uint64_t fake_counter_step;    /* added after each counter read */
extern uint64_t fake_counter_quantum; /* > 1: reads move in steps of this */
extern uint64_t fake_counter_jitter;  /* > 0: 0 .. jitter-1 more per read */
extern uint64_t fake_counter_reads;
extern uint64_t fake_counter_step_declared; /* info->counter_step_ticks */
extern int64_t fake_allocs_left;	    /* allocations that succeed, then NULL; -1: all */

extern const char *fake_property_key;	/* one property rtb_port_property() answers */
extern const char *fake_property_value; /* its answer */

void fake_reset(void);
void fake_set_caps(uint32_t caps);
/* The OS configuration rtb_port_info() reports (name NULL, n 0: none). */
void fake_set_os_config(const char *name, const struct rtb_port_setting *settings, uint32_t n);

#endif
