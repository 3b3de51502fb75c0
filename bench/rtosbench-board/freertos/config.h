/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: RTOSBench's type mappings for FreeRTOS (its config.h),
 * built with rtbench's FreeRTOS configuration (ports/freertos/config).
 * FreeRTOS's larger number is the more urgent priority, as RTOSBench's
 * default NO_DECREASE_TASK_PRIO assumes.
 */
#ifndef CONFIG_H_
#define CONFIG_H_

#include <stdint.h>

#include "FreeRTOS.h"
#include "event_groups.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#define BASE_PRIO 10

typedef void no_task_retval_t;
typedef void *no_task_argument_t;
typedef int no_main_retval_t;
typedef int no_main_argument_t;
typedef no_task_retval_t (*no_task_entry_t)(no_task_argument_t);
typedef TaskHandle_t no_task_handle_t;
typedef uint32_t no_time_t;
typedef SemaphoreHandle_t no_sem_t;
typedef SemaphoreHandle_t no_mutex_t;
typedef EventGroupHandle_t no_event_t;
typedef QueueHandle_t no_mq_t;
typedef void (*no_int_handler_t)(int, void *);

#define INITIALIZATION_TASK_RETVAL int
#define INITIALIZATION_TASK_ARG void
#define INITIALIZATION_TASK_NAME main
#define TASK_DEFAULT_RETURN
#define MAIN_DEFAULT_RETURN 0

#include "rb_common.h"

#endif /* CONFIG_H_ */
