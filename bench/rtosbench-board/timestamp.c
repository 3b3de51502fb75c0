/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/rtosbench: the cost of RTOSBench's own timestamps on this board, in
 * RTOSBench's terms: one task takes WRITE_T1_COUNTER and WRITE_T2_COUNTER
 * back to back, NB_ITER times, with RTOSBench's macros and the porting
 * layer's no_time_get(). The script subtracts its median from every case,
 * as rtbench subtracts its calibrated timestamp cost (cal.timestamp) from
 * its samples.
 */
#include "porting_layer.h"

#ifndef NB_ITER
#define NB_ITER 1000
#endif

no_task_retval_t timestamp_initialize_test(no_task_argument_t args);
no_task_retval_t task(no_task_argument_t args);

DECLARE_TIME_COUNTERS(no_time_t, ts)

no_main_retval_t main(void)
{
	no_initialize_test(timestamp_initialize_test);
	return MAIN_DEFAULT_RETURN;
}

no_task_retval_t timestamp_initialize_test(no_task_argument_t args)
{
	static char name[4] = "TS";

	(void)args;
	no_create_task(task, name, BASE_PRIO);
	return TASK_DEFAULT_RETURN;
}

no_task_retval_t task(no_task_argument_t args)
{
	DECLARE_TIME_STATS(int64_t)

	(void)args;
	for (int i = 0; i < NB_ITER; i++) {
		WRITE_T1_COUNTER(ts)
		WRITE_T2_COUNTER(ts)
		COMPUTE_TIME_STATS(ts, i)
	}
	REPORT_BENCHMARK_RESULTS("-- timestamp --")
	no_task_suspend_self();
	return TASK_DEFAULT_RETURN;
}
