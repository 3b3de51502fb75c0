/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: RTOSBench's type mappings for uC/OS-III (its config.h),
 * built with rtbench's uC/OS-III configuration (ports/ucos3/config).
 * uC/OS-III's smaller number is the more urgent priority: a task
 * `decrease_by` levels below another has a number that much larger.
 */
#ifndef CONFIG_H_
#define CONFIG_H_

#include <stdint.h>

#include "os.h"

#define BASE_PRIO 10u
#define NO_DECREASE_TASK_PRIO(prio, decrease_by) ((prio) + (decrease_by))

typedef void no_task_retval_t;
typedef void *no_task_argument_t;
typedef int no_main_retval_t;
typedef int no_main_argument_t;
typedef no_task_retval_t (*no_task_entry_t)(no_task_argument_t);
typedef OS_TCB *no_task_handle_t;
typedef uint32_t no_time_t;
typedef OS_SEM no_sem_t;
typedef OS_MUTEX no_mutex_t;
typedef OS_FLAG_GRP no_event_t;
typedef OS_Q no_mq_t;
typedef void (*no_int_handler_t)(int, void *);

#define INITIALIZATION_TASK_RETVAL int
#define INITIALIZATION_TASK_ARG void
#define INITIALIZATION_TASK_NAME main
#define TASK_DEFAULT_RETURN
#define MAIN_DEFAULT_RETURN 0

#include "rb_common.h"

#endif /* CONFIG_H_ */
