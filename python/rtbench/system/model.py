# SPDX-License-Identifier: Apache-2.0
"""The shape of a system snapshot: exactly the JSON that results.json stores as `host`.

The snapshot is JSON all the way down (results, reports and comparisons read it back
from files, where a key may be missing), so it is described by TypedDicts rather than
classes: mypy checks that the probes build every key with the right type, and the value
is already the dict that is written. `null` always means "could not be read". CPU sets
are sorted lists of CPU numbers; resource limits are numbers or "unlimited".

Key order is the order of the stored JSON; do not rename or move keys (reports and
comparisons of stored results read them), add new ones at the end of a section.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

SNAPSHOT_VERSION = 1


class Limit(TypedDict):
    soft: int | str  # a number or "unlimited"
    hard: int | str


class Isolcpus(TypedDict):
    flags: list[str]
    cpus: list[int] | None


class KernelFacts(TypedDict):
    system: str | None
    release: str | None
    version: str | None
    machine: str | None
    preempt_rt: bool | None
    preempt_model: str | None
    preempt_model_source: str | None  # debugfs, cmdline, config, uname
    preempt_dynamic: bool | None
    hz: int | None
    config_no_hz_full: bool | None
    config_rt_group_sched: bool | None
    config_source: str | None
    cmdline: str | None
    cmdline_params: dict[str, str]


class RtThrottling(TypedDict):
    runtime_us: int | None
    period_us: int | None
    enabled: bool | None
    fair_server: bool | None
    fair_server_runtime_ns: int | None
    fair_server_period_ns: int | None
    lifted_for_run: NotRequired[bool]  # set by the runner when it lifted throttling


class CpuFacts(TypedDict):
    model: str | None
    online: list[int] | None
    count_online: int | None
    count_possible: int | None
    usable: list[int]
    isolated: list[int] | None
    cgroup_isolated: list[int] | None
    nohz_full: list[int] | None
    smt_active: bool | None
    smt_control: str | None
    tsc_flags: list[str] | None
    # present only when the parameter is on the kernel command line
    cmdline_nohz_full: NotRequired[list[int] | None]
    cmdline_rcu_nocbs: NotRequired[list[int] | None]
    cmdline_irqaffinity: NotRequired[list[int] | None]
    cmdline_isolcpus: NotRequired[Isolcpus | None]


class IdleState(TypedDict):
    name: str | None
    exit_latency_us: int | None
    disabled: bool | None


class FrequencyKhz(TypedDict):
    current: int | None
    min: int | None
    max: int | None
    hardware_max: int | None


class MeasurementCpu(TypedDict):
    cpu: int
    source: str  # "argument" (--cpu) or "default"
    online: bool | None
    usable: bool
    isolated: bool | None
    isolation_source: str | None  # sysfs, cmdline
    nohz_full: bool | None
    rcu_nocbs: bool | None
    smt_siblings: list[int] | None
    smt_siblings_online: list[int] | None
    governor: str | None
    scaling_driver: str | None
    energy_performance_preference: str | None
    freq_khz: FrequencyKhz
    idle_states: list[IdleState] | None
    irq_lines: int | None


class Frequency(TypedDict):
    governors: dict[str, str | None] | None
    drivers: dict[str, str | None] | None
    boost: bool | None
    intel_pstate_status: str | None
    intel_pstate_no_turbo: bool | None


class CpuIdle(TypedDict):
    driver: str | None
    governor: str | None
    intel_idle_max_cstate: int | None


class Clocksource(TypedDict):
    current: str | None
    available: list[str] | None


class Virtualization(TypedDict):
    vm: bool | None
    type: str | None
    hypervisor_flag: bool | None
    sys_hypervisor_type: str | None
    dmi_vendor: str | None
    dmi_product: str | None
    systemd_detect_virt: str | None
    container: str | None


class Libc(TypedDict):
    name: str | None
    version: str | None


class PythonFacts(TypedDict):
    version: str
    implementation: str


class Privileges(TypedDict):
    uid: int | None
    euid: int | None
    root: bool | None
    cap_sys_nice: bool | None
    cap_ipc_lock: bool | None
    rlimit_rtprio: Limit | None
    rlimit_memlock: Limit | None
    rlimit_rttime: Limit | None
    sched_fifo: bool | None
    sched_fifo_error: str | None
    rt_priority_max: int | None
    process_policy: str | None


class DmaLatency(TypedDict):
    present: bool
    writable: bool
    value_us: int | None


class Memory(TypedDict):
    thp_enabled: str | None
    thp_defrag: str | None
    ksm_run: int | None
    numa_balancing: int | None
    swappiness: int | None


class KernelKnobs(TypedDict):
    timer_migration: int | None
    nmi_watchdog: int | None
    watchdog: int | None
    vm_stat_interval_s: int | None
    timer_slack_ns: int | None


class Tracing(TypedDict):
    current_tracer: str | None
    tracing_on: bool | None


class Irqbalance(TypedDict):
    running: bool | None


class InterruptSource(TypedDict):
    name: str
    per_s: int


class BusyProcess(TypedDict):
    pid: int
    comm: str
    cpu_pct: float
    last_cpu: int


class Load(TypedDict):
    loadavg: list[float] | None
    runnable: int | None
    tasks: int | None
    window_s: float | None
    cpu_busy_pct: float | None
    cpu_steal_pct: float | None
    cpu_interrupts_per_s: int | None
    cpu_interrupt_sources: list[InterruptSource] | None
    busiest: list[BusyProcess] | None


class Snapshot(TypedDict):
    snapshot_version: int
    taken_at: str
    hostname: str | None
    kernel: KernelFacts
    rt_throttling: RtThrottling
    cpus: CpuFacts
    measurement_cpu: MeasurementCpu
    frequency: Frequency
    cpuidle: CpuIdle
    clocksource: Clocksource
    virtualization: Virtualization
    libc: Libc
    python: PythonFacts
    privileges: Privileges
    cpu_dma_latency: DmaLatency
    memory: Memory
    kernel_knobs: KernelKnobs
    tracing: Tracing
    irqbalance: Irqbalance
    load: Load
    elapsed_s: NotRequired[float]
