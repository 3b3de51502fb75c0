# SPDX-License-Identifier: Apache-2.0
"""Caveats about the machine and what else runs on it: SMT, the frequency governor, the
clocksource, virtualisation and steal time, load, idle states, transparent huge pages,
tracing, irqbalance."""

from __future__ import annotations

from rtbench.system.parse import format_cpu_list
from rtbench.system.registry import Finding, SnapshotDict, caveat, cpu_of, get

# Above this share of busy time during the window, another workload shares the CPU.
BUSY_PCT_WARN = 20.0
# Above this share of steal time, the hypervisor is visibly taking the virtual CPU away.
STEAL_PCT_WARN = 1.0
# Idle states with a longer exit latency than this are worth holding off during a run.
IDLE_EXIT_LATENCY_US = 10


@caveat("smt_sibling_online")
def smt(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    siblings = get(snap, "measurement_cpu", "smt_siblings_online")
    if cpu is None or not isinstance(siblings, list) or not siblings:
        return None
    listed = format_cpu_list(siblings)
    return Finding(
        "warning",
        f"CPU {cpu} shares its core with CPU {listed} (SMT): whatever runs there competes for "
        "the same execution units and caches, which adds jitter.",
        f"Take the sibling offline (echo 0 > /sys/devices/system/cpu/cpu{siblings[0]}/online), "
        "boot with nosmt, or isolate the sibling as well and leave it idle.",
    )


@caveat("governor")
def governor(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    governor = get(snap, "measurement_cpu", "governor")
    if cpu is None or not isinstance(governor, str) or governor == "performance":
        return None
    return Finding(
        "warning",
        f"CPU {cpu} uses the '{governor}' frequency governor: its clock speed follows the load, "
        "so the same code path takes different times and samples after an idle period are "
        "slower.",
        f"Select the performance governor for the run: cpupower -c {cpu} frequency-set -g "
        f"performance (or write performance to /sys/devices/system/cpu/cpu{cpu}/cpufreq/"
        "scaling_governor).",
    )


@caveat("clocksource")
def clocksource(snap: SnapshotDict) -> Finding | None:
    current = get(snap, "clocksource", "current")
    machine = get(snap, "kernel", "machine")
    if (
        not isinstance(current, str)
        or machine not in ("x86_64", "i686", "i386")
        or current == "tsc"
    ):
        return None
    if current in ("hpet", "acpi_pm"):
        effect = "every clock read goes to a slow device (around a microsecond each)"
    else:
        effect = "clock reads cost more and timers are less precise than with the TSC"
    available = get(snap, "clocksource", "available")
    offer = "tsc" in available if isinstance(available, list) else False
    advice = "Select the TSC: echo tsc > /sys/devices/system/clocksource/clocksource0/" + (
        "current_clocksource."
        if offer
        else "current_clocksource once the kernel accepts it (it is not offered now: check "
        "constant_tsc and nonstop_tsc in /proc/cpuinfo; tsc=reliable forces it)."
    )
    return Finding(
        "warning",
        f"The clocksource is '{current}', not tsc: {effect}.",
        advice,
    )


@caveat("virtual_machine")
def vm(snap: SnapshotDict) -> Finding | None:
    if get(snap, "virtualization", "vm") is not True:
        return None
    kind = get(snap, "virtualization", "type")
    named = f" ({kind})" if isinstance(kind, str) and kind else ""
    return Finding(
        "warning",
        f"This is a virtual machine{named}: the hypervisor can stop a virtual CPU at any time, "
        "which adds latency spikes of hundreds of microseconds that are not the guest OS's.",
        "Measure on bare metal for results that describe the OS; in a VM, pin each virtual CPU "
        "to a dedicated host CPU and read maxima as the hypervisor's.",
    )


@caveat("cpu_steal")
def steal(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    steal = get(snap, "load", "cpu_steal_pct")
    if cpu is None or not isinstance(steal, (int, float)) or steal < STEAL_PCT_WARN:
        return None
    return Finding(
        "warning",
        f"The hypervisor took {steal:.0f}% of CPU {cpu}'s time during the check (steal time): "
        "the virtual CPU shares a physical one with other work, and each time it is taken "
        "away a measurement stalls.",
        "Give the virtual machine dedicated host CPUs, or run on an idle host.",
    )


@caveat("cpu_busy")
def busy(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    busy = get(snap, "load", "cpu_busy_pct")
    if cpu is None or not isinstance(busy, (int, float)) or busy < BUSY_PCT_WARN:
        return None
    busiest = get(snap, "load", "busiest")
    top = ""
    if isinstance(busiest, list):
        on_cpu = [p for p in busiest if isinstance(p, dict) and p.get("last_cpu") == cpu]
        if on_cpu:
            top = " (" + ", ".join(f"{p['comm']} {p['cpu_pct']:.0f}%" for p in on_cpu) + ")"
    return Finding(
        "warning",
        f"CPU {cpu} was {busy:.0f}% busy during the check{top}: other work on the measurement "
        "CPU delays and preempts the scenarios.",
        "Stop the other work or choose another CPU with --cpu; an isolated CPU stays free.",
    )


@caveat("idle_states")
def idle_states(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    states = get(snap, "measurement_cpu", "idle_states")
    if cpu is None or not isinstance(states, list):
        return None
    latencies: list[int] = [
        s["exit_latency_us"]
        for s in states
        if isinstance(s, dict)
        and s.get("disabled") is not True
        and isinstance(s.get("exit_latency_us"), int)
    ]
    deepest = max(latencies, default=0)
    present = get(snap, "cpu_dma_latency", "present")
    writable = get(snap, "cpu_dma_latency", "writable")
    if deepest <= IDLE_EXIT_LATENCY_US or (present and writable):
        return None
    why = "absent" if not present else "not writable by this user"
    return Finding(
        "info",
        f"CPU {cpu} can enter idle states with exit latencies up to {deepest} µs and "
        f"/dev/cpu_dma_latency is {why}, so a wake-up from idle can add that much.",
        "Run as root so that rtbench holds /dev/cpu_dma_latency at 0 during the run, or boot "
        "with intel_idle.max_cstate=1 processor.max_cstate=1.",
    )


@caveat("thp_always")
def thp(snap: SnapshotDict) -> Finding | None:
    if get(snap, "memory", "thp_enabled") != "always":
        return None
    return Finding(
        "info",
        "Transparent huge pages are set to 'always': khugepaged compacts and collapses memory "
        "in the background, and a page fault can stall while a huge page is assembled.",
        "Set them to madvise: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled "
        "(or transparent_hugepage=madvise on the kernel command line).",
    )


@caveat("tracing_on")
def tracing(snap: SnapshotDict) -> Finding | None:
    tracer = get(snap, "tracing", "current_tracer")
    if (
        not isinstance(tracer, str)
        or tracer == "nop"
        or get(snap, "tracing", "tracing_on") is False
    ):
        return None
    return Finding(
        "info",
        f"The kernel tracer '{tracer}' is active: it adds overhead to every traced event.",
        "Unless you are tracing on purpose, stop it: echo nop > /sys/kernel/tracing/"
        "current_tracer.",
    )


@caveat("irqbalance")
def irqbalance(snap: SnapshotDict) -> Finding | None:
    cpu = cpu_of(snap)
    if cpu is None or get(snap, "irqbalance", "running") is not True:
        return None
    return Finding(
        "info",
        f"irqbalance is running: it moves device interrupts between CPUs during a run, "
        f"possibly onto CPU {cpu}.",
        f"Stop it for the run (systemctl stop irqbalance) and steer interrupts with "
        f"irqaffinity= on the kernel command line, or ban CPU {cpu} in its configuration "
        "(IRQBALANCE_BANNED_CPULIST).",
    )
