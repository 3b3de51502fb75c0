# SPDX-License-Identifier: Apache-2.0
"""Caveats about who may run how, and on which kernel: usable CPUs, real-time
privileges, locked memory, PREEMPT_RT, RT throttling, the fair server, CPU isolation
and the tick."""

from __future__ import annotations

from rtbench.system.parse import format_cpu_list
from rtbench.system.registry import Finding, SnapshotDict, caveat, cpu_of, get, usable

# rtbench-core locks all of its memory; below this limit (without CAP_IPC_LOCK) locking
# or later allocations can fail.
MEMLOCK_MIN_BYTES = 128 * 1024 * 1024


@caveat("cpu_not_usable")
def cpu_notusable(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    if cpu is None or get(snap, "measurement_cpu", "usable") is not False:
        return None
    listed = format_cpu_list(usable(snap)) or "none"
    return Finding(
        "warning",
        f"CPU {cpu} is not available to this process (offline or outside its CPU affinity): "
        "the scenarios cannot be pinned to it.",
        f"Choose one of the usable CPUs ({listed}) with --cpu, or widen the affinity "
        "(taskset, cgroup cpuset).",
    )


@caveat("no_realtime_privileges")
def no_realtime(snap: SnapshotDict) -> Finding | None:
    if get(snap, "privileges", "sched_fifo") is not False:
        return None
    error = get(snap, "privileges", "sched_fifo_error")
    reason = f" ({error})" if error else ""
    advice = (
        "Run as root, or grant CAP_SYS_NICE (setcap cap_sys_nice+ep on rtbench-core) or a "
        "real-time priority limit (rtprio 98 in /etc/security/limits.conf)."
    )
    if get(snap, "privileges", "root"):
        advice = (
            "This process is root, so the cgroup it runs in probably has no real-time "
            "budget (cpu.rt_runtime_us is 0 under RT group scheduling): run it from the root "
            "cgroup or give its cgroup a cpu.rt_runtime_us."
        )
    return Finding(
        "warning",
        f"This process cannot use SCHED_FIFO{reason}: scenario threads run under the normal "
        "time-sharing scheduler and every result is marked not real-time.",
        advice,
    )


@caveat("memlock_low")
def memlock(snap: SnapshotDict) -> Finding | None:
    priv = get(snap, "privileges")
    if not isinstance(priv, dict) or priv.get("root") or priv.get("cap_ipc_lock"):
        return None
    soft = get(priv, "rlimit_memlock", "soft")
    if not isinstance(soft, int) or soft >= MEMLOCK_MIN_BYTES:
        return None
    return Finding(
        "warning",
        f"The locked-memory limit is {soft / 1048576:.1f} MiB: rtbench-core locks all of its "
        "memory so that no page fault lands in a measurement, and past this limit locking "
        "fails (page faults then add latency) or later allocations fail.",
        "Raise it (ulimit -l unlimited, or 'memlock unlimited' in /etc/security/limits.conf), "
        "grant CAP_IPC_LOCK, or run as root.",
    )


@caveat("single_cpu")
def single_cpu(snap: SnapshotDict) -> Finding | None:
    if len(usable(snap)) != 1:
        return None
    return Finding(
        "warning",
        "Only one CPU is usable: the watchdog and Python share the measurement CPU with the "
        "scenarios, and a runaway real-time loop is stopped only by RT throttling.",
        "Give rtbench at least two CPUs (check taskset, cgroup cpusets and the VM's CPU "
        "count); on this host keep RT throttling on.",
    )


@caveat("not_preempt_rt")
def not_preempt_rt(snap: SnapshotDict) -> Finding | None:
    if get(snap, "kernel", "preempt_rt") is not False:
        return None
    model = get(snap, "kernel", "preempt_model") or "unknown"
    return Finding(
        "warning",
        f"The kernel is not PREEMPT_RT (preemption model: {model}): interrupt handlers, "
        "softirqs and non-preemptible kernel sections delay real-time threads, so worst cases "
        "will be much higher than on a real-time kernel.",
        "Boot a PREEMPT_RT kernel (CONFIG_PREEMPT_RT=y, e.g. Debian's linux-image-rt-amd64) "
        "to measure real-time behaviour; on this kernel read maxima as those of a "
        "general-purpose configuration.",
    )


@caveat("rt_throttling")
def rt_throttling(snap: SnapshotDict) -> Finding | None:
    if get(snap, "rt_throttling", "lifted_for_run") is True:
        return Finding(
            "info",
            "RT throttling was lifted for the run (sched_rt_runtime_us -1, restored "
            "afterwards): real-time threads were never stopped by it, and a runaway one only "
            "by rtbench's watchdog.",
            "Nothing to do; other real-time and kernel work on the CPU still shows.",
        )
    if get(snap, "rt_throttling", "enabled") is not True:
        return None
    runtime = get(snap, "rt_throttling", "runtime_us")
    period = get(snap, "rt_throttling", "period_us")
    if isinstance(runtime, int) and isinstance(period, int) and period > runtime >= 0:
        budget = f"more than {runtime} µs in a {period} µs period"
        gap = f"about {(period - runtime) / 1000:.0f} ms"
    else:
        budget, gap = "longer than its budget", "tens of milliseconds"
    advice = (
        "Run with `rtbench run --lift-rt-throttle` (restored after the run), or write -1 to "
        "/proc/sys/kernel/sched_rt_runtime_us."
    )
    if len(usable(snap)) == 1:
        advice = (
            "Leave it on here: with one usable CPU it is the only thing that stops a runaway "
            "real-time loop. Keep each busy phase of a scenario well below the budget."
        )
    return Finding(
        "warning",
        f"RT throttling is on: real-time threads that run for {budget} are stopped for the "
        f"rest of the period, which appears as a latency of {gap}.",
        advice,
    )


@caveat("fair_server")
def fair_server(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    if (
        cpu is None
        or get(snap, "rt_throttling", "fair_server") is not True
        or get(snap, "rt_throttling", "fair_server_runtime_ns") == 0
        or get(snap, "measurement_cpu", "isolated") is True
    ):
        return None
    runtime_ns = get(snap, "rt_throttling", "fair_server_runtime_ns")
    period_ns = get(snap, "rt_throttling", "fair_server_period_ns")
    share = "up to 50 ms in every second"
    if isinstance(runtime_ns, int) and isinstance(period_ns, int) and period_ns > 0:
        share = f"up to {runtime_ns / 1e6:.0f} ms in every {period_ns / 1e6:.0f} ms"
    return Finding(
        "warning",
        f"This kernel's fair server runs waiting normal tasks for {share} on a CPU that "
        "real-time threads keep busy, whatever sched_rt_runtime_us says: a real-time thread "
        "that runs without a pause for about a second sees a gap of that length even with "
        "RT throttling lifted.",
        f"Keep other tasks off CPU {cpu} (isolcpus={cpu}) so the fair server has nothing to "
        f"run; setting /sys/kernel/debug/sched/fair_server/cpu{cpu}/runtime to 0 also removes "
        "it, at the risk of starving the system.",
    )


@caveat("cpu_not_isolated")
def not_isolated(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    if cpu is None or get(snap, "measurement_cpu", "isolated") is not False:
        return None
    online = get(snap, "cpus", "online")
    others = [c for c in online if c != cpu] if isinstance(online, list) else []
    params = f"isolcpus={cpu} nohz_full={cpu} rcu_nocbs={cpu}"
    if others:
        params += f" irqaffinity={format_cpu_list(others)}"
    return Finding(
        "warning",
        f"CPU {cpu} is not isolated: the scheduler puts other tasks, kernel threads, timers "
        "and interrupts on it, so expect higher maxima.",
        f"Add {params} to the kernel command line and reboot.",
    )


@caveat("tick_not_stopped")
def tick(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    if (
        cpu is None
        or get(snap, "measurement_cpu", "isolated") is not True
        or get(snap, "measurement_cpu", "nohz_full") is True
    ):
        return None
    hz = get(snap, "kernel", "hz")
    rate = f" ({hz} per second)" if isinstance(hz, int) else ""
    lacks = ""
    if get(snap, "kernel", "config_no_hz_full") is False:
        lacks = "; this kernel is built without CONFIG_NO_HZ_FULL, so it needs one that has it"
    return Finding(
        "info",
        f"CPU {cpu} is isolated but still takes the scheduler tick{rate}, a periodic "
        "interrupt of a few microseconds that shows up in the time series.",
        f"Add nohz_full={cpu} to the kernel command line{lacks}.",
    )
