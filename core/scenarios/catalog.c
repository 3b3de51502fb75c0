/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiled-in scenario catalog, in the order a full run executes it:
 * calibration first (its minimum is the overhead every later scenario
 * subtracts), then the clock tick, threads, synchronisation, interrupts and
 * memory.
 */
#include "rtb/core.h"

#define RTB_SCN(name) extern const struct rtb_scenario name

RTB_SCN(rtb_scn_cal_timestamp);
RTB_SCN(rtb_scn_cal_cpu);
RTB_SCN(rtb_scn_clk_tick);
RTB_SCN(rtb_scn_thr_create_behavior);
RTB_SCN(rtb_scn_thr_rr_behavior);
RTB_SCN(rtb_scn_thr_switch_yield);
RTB_SCN(rtb_scn_thr_create_never_run);
RTB_SCN(rtb_scn_thr_create_run_terminate);
RTB_SCN(rtb_scn_thr_create_run_block);
RTB_SCN(rtb_scn_sem_behavior_lock);
RTB_SCN(rtb_scn_sem_behavior_release_order);
RTB_SCN(rtb_scn_sem_create);
RTB_SCN(rtb_scn_sem_wait_available);
RTB_SCN(rtb_scn_sem_wait_block);
RTB_SCN(rtb_scn_mut_behavior_pi);
RTB_SCN(rtb_scn_mut_lock_uncontended);
RTB_SCN(rtb_scn_mut_lock_block);
RTB_SCN(rtb_scn_mq_send_no_waiter);
RTB_SCN(rtb_scn_mq_send_unblock);
RTB_SCN(rtb_scn_evt_set_no_waiter);
RTB_SCN(rtb_scn_evt_set_unblock);
RTB_SCN(rtb_scn_irq_latency);
RTB_SCN(rtb_scn_irq_to_thread);
RTB_SCN(rtb_scn_irq_sustained);
RTB_SCN(rtb_scn_timer_periodic_latency);
RTB_SCN(rtb_scn_mem_alloc);
RTB_SCN(rtb_scn_mem_behavior_leak);
RTB_SCN(rtb_scn_sched_coop_switch);
RTB_SCN(rtb_scn_sched_preempt_switch);
RTB_SCN(rtb_scn_sched_sem_workload);
RTB_SCN(rtb_scn_sched_mut_workload);
RTB_SCN(rtb_scn_sched_mq_workload);
RTB_SCN(rtb_scn_rh_task_switch);
RTB_SCN(rtb_scn_ipc_pi_stress);
RTB_SCN(rtb_scn_tm_basic);
RTB_SCN(rtb_scn_os_noise);
RTB_SCN(rtb_scn_ipc_signal_roundtrip);
RTB_SCN(rtb_scn_ipc_signal_wake);
RTB_SCN(rtb_scn_ipc_sysv_sem_wake);
RTB_SCN(rtb_scn_ipc_mq_wake);

static const struct rtb_scenario *const all[] = {
	&rtb_scn_cal_timestamp,
	&rtb_scn_cal_cpu,
	&rtb_scn_clk_tick,
	&rtb_scn_thr_create_behavior,
	&rtb_scn_thr_rr_behavior,
	&rtb_scn_thr_switch_yield,
	&rtb_scn_thr_create_never_run,
	&rtb_scn_thr_create_run_terminate,
	&rtb_scn_thr_create_run_block,
	&rtb_scn_sem_behavior_lock,
	&rtb_scn_sem_behavior_release_order,
	&rtb_scn_sem_create,
	&rtb_scn_sem_wait_available,
	&rtb_scn_sem_wait_block,
	&rtb_scn_mut_behavior_pi,
	&rtb_scn_mut_lock_uncontended,
	&rtb_scn_mut_lock_block,
	&rtb_scn_mq_send_no_waiter,
	&rtb_scn_mq_send_unblock,
	&rtb_scn_evt_set_no_waiter,
	&rtb_scn_evt_set_unblock,
	&rtb_scn_irq_latency,
	&rtb_scn_irq_to_thread,
	&rtb_scn_irq_sustained,
	&rtb_scn_timer_periodic_latency,
	&rtb_scn_mem_alloc,
	&rtb_scn_mem_behavior_leak,
	&rtb_scn_sched_coop_switch,
	&rtb_scn_sched_preempt_switch,
	&rtb_scn_sched_sem_workload,
	&rtb_scn_sched_mut_workload,
	&rtb_scn_sched_mq_workload,
	&rtb_scn_rh_task_switch,
	&rtb_scn_ipc_pi_stress,
	&rtb_scn_tm_basic,
	&rtb_scn_os_noise,
	&rtb_scn_ipc_signal_roundtrip,
	&rtb_scn_ipc_signal_wake,
	&rtb_scn_ipc_sysv_sem_wake,
	&rtb_scn_ipc_mq_wake,
};

const struct rtb_scenario *const *rtb_scenarios = all;
const uint32_t rtb_scenario_count = RTB_ARRAY_SIZE(all);
