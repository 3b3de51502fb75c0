# SPDX-License-Identifier: Apache-2.0
"""CPU facts: which CPUs exist and may be used, isolation, SMT, and everything about the
measurement CPU (isolation, tick, RCU, siblings, frequency, idle states, interrupts)."""

from __future__ import annotations

import re

from rtbench.system import parse
from rtbench.system.model import CpuFacts, IdleState, MeasurementCpu
from rtbench.system.source import Source

SYS_CPU = "/sys/devices/system/cpu"
CGROUP_ISOLATED = "/sys/fs/cgroup/cpuset.cpus.isolated"
X86 = ("x86_64", "i686", "i386")
TSC_FLAGS = ("tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq", "tsc_reliable")
IRQ_AFFINITY = ("/proc/irq/*/effective_affinity_list", "/proc/irq/*/smp_affinity_list")


def prefetch(cpu: int) -> list[str]:
    """The files these probes read, for one batch."""
    paths = [f"{SYS_CPU}/{name}" for name in ("online", "possible", "isolated", "nohz_full")]
    paths += [f"{SYS_CPU}/smt/active", f"{SYS_CPU}/smt/control", CGROUP_ISOLATED]
    paths += ["/proc/cpuinfo", f"{SYS_CPU}/cpu{cpu}/topology/thread_siblings_list"]
    paths += [f"{SYS_CPU}/cpu{cpu}/cpuidle/state[0-9]*/*", *IRQ_AFFINITY]
    return paths


def online_cpus(source: Source) -> list[int] | None:
    return parse.parse_cpu_list(source.read(f"{SYS_CPU}/online"))


def usable_cpus(source: Source) -> list[int]:
    """CPUs that are online and in the affinity mask of a process on the target."""
    affinity = source.affinity()
    online = online_cpus(source)
    if affinity is None:
        return online or [0]
    if online is not None:
        both = set(affinity) & set(online)
        if both:
            return sorted(both)
    return sorted(affinity)


def default_cpu(source: Source) -> int:
    """The measurement CPU used when none is given: the last usable CPU."""
    cpus = usable_cpus(source)
    return cpus[-1] if cpus else 0


def cpus_section(
    source: Source,
    cpu_flags: list[str] | None,
    model: str | None,
    machine: str | None,
    usable: list[int],
) -> CpuFacts:
    online = online_cpus(source)
    possible = parse.parse_cpu_list(source.read(f"{SYS_CPU}/possible"))
    nr = len(possible) if possible else None
    tsc_flags = None
    if cpu_flags is not None and machine in X86:
        tsc_flags = [f for f in TSC_FLAGS if f in cpu_flags]
    return {
        "model": model,
        "online": online,
        "count_online": len(online) if online is not None else None,
        "count_possible": nr,
        "usable": usable,
        "isolated": parse.parse_cpu_list(source.read(f"{SYS_CPU}/isolated"), nr),
        "cgroup_isolated": parse.parse_cpu_list(source.read(CGROUP_ISOLATED), nr),
        "nohz_full": parse.parse_cpu_list(source.read(f"{SYS_CPU}/nohz_full"), nr),
        "smt_active": parse.bool01(source.read(f"{SYS_CPU}/smt/active")),
        "smt_control": source.read(f"{SYS_CPU}/smt/control"),
        "tsc_flags": tsc_flags,
    }


def add_cmdline(cpus: CpuFacts, params: dict[str, str]) -> None:
    """The CPU lists of the kernel command line, as the kernel would read them."""
    nr = cpus["count_possible"]
    if "nohz_full" in params:
        cpus["cmdline_nohz_full"] = _listed(params["nohz_full"], nr)
    if "rcu_nocbs" in params:
        cpus["cmdline_rcu_nocbs"] = _listed(params["rcu_nocbs"], nr)
    if "irqaffinity" in params:
        cpus["cmdline_irqaffinity"] = _listed(params["irqaffinity"], nr)
    cpus["cmdline_isolcpus"] = parse.parse_isolcpus(params.get("isolcpus"), nr)


def _listed(value: str, nr: int | None) -> list[int] | None:
    return parse.parse_cpu_list(value, nr) if value else None


def idle_states(source: Source, cpu: int) -> list[IdleState] | None:
    base = f"{SYS_CPU}/cpu{cpu}/cpuidle"
    files = source.read_many([f"{base}/state[0-9]*/*"])
    if files:
        names = {p.split("/")[-2] for p in files}
    else:
        entries = source.listdir(base)
        if entries is None:
            return None
        names = set(entries)
    read = files.get if files else source.read
    states: list[IdleState] = []
    for name in sorted(
        (n for n in names if re.fullmatch(r"state\d+", n)), key=lambda n: int(n[5:])
    ):
        d = f"{base}/{name}"
        states.append(
            {
                "name": read(f"{d}/name"),
                "exit_latency_us": parse.first_int(read(f"{d}/latency")),
                "disabled": parse.bool01(read(f"{d}/disable")),
            }
        )
    return states


def irq_lines_on(source: Source, cpu: int) -> int | None:
    """How many interrupt lines may be delivered to `cpu` (effective affinity)."""
    files = source.read_many(IRQ_AFFINITY) or {}
    if not files and source.listdir("/proc/irq") is None:
        return None
    count = 0
    for irq in {p.split("/")[3] for p in files}:
        text = files.get(f"/proc/irq/{irq}/effective_affinity_list")
        if text is None:
            text = files.get(f"/proc/irq/{irq}/smp_affinity_list")
        cpus = parse.parse_cpu_list(text)
        if cpus and cpu in cpus:
            count += 1
    return count


def measurement_cpu(
    source: Source, cpu: int, how: str, cpus: CpuFacts, params: dict[str, str]
) -> MeasurementCpu:
    online = cpus["online"]
    nr = cpus["count_possible"]
    isolated: bool | None = None
    isolation_source: str | None = None
    if cpus["isolated"] is not None or cpus["cgroup_isolated"] is not None:
        isolated = cpu in (cpus["isolated"] or []) or cpu in (cpus["cgroup_isolated"] or [])
        isolation_source = "sysfs"
    elif "isolcpus" in params:
        iso = parse.parse_isolcpus(params["isolcpus"], nr)
        isolated = iso is not None and iso["cpus"] is not None and cpu in iso["cpus"]
        isolation_source = "cmdline"
    nohz_full: bool | None = None
    if cpus["nohz_full"] is not None:
        nohz_full = cpu in cpus["nohz_full"]
    elif "nohz_full" in params:
        listed = parse.parse_cpu_list(params["nohz_full"], nr)
        nohz_full = listed is not None and cpu in listed
    rcu_nocbs: bool | None = None
    if "rcu_nocbs" in params and not params["rcu_nocbs"]:
        rcu_nocbs = True  # a bare rcu_nocbs offloads every CPU
    elif "rcu_nocbs" in params:
        listed = parse.parse_cpu_list(params["rcu_nocbs"], nr)
        rcu_nocbs = None if listed is None else cpu in listed
    siblings = parse.parse_cpu_list(
        source.read(f"{SYS_CPU}/cpu{cpu}/topology/thread_siblings_list")
    )
    siblings_online = None
    if siblings is not None:
        siblings_online = [s for s in siblings if s != cpu and (online is None or s in online)]
    freq = f"{SYS_CPU}/cpu{cpu}/cpufreq"

    def khz(name: str) -> int | None:
        return parse.first_int(source.read(f"{freq}/{name}"))

    return {
        "cpu": cpu,
        "source": how,
        "online": cpu in online if online is not None else None,
        "usable": cpu in cpus["usable"],
        "isolated": isolated,
        "isolation_source": isolation_source,
        "nohz_full": nohz_full,
        "rcu_nocbs": rcu_nocbs,
        "smt_siblings": siblings,
        "smt_siblings_online": siblings_online,
        "governor": source.read(f"{freq}/scaling_governor"),
        "scaling_driver": source.read(f"{freq}/scaling_driver"),
        "energy_performance_preference": source.read(f"{freq}/energy_performance_preference"),
        "freq_khz": {
            "current": khz("scaling_cur_freq"),
            "min": khz("scaling_min_freq"),
            "max": khz("scaling_max_freq"),
            "hardware_max": khz("cpuinfo_max_freq"),
        },
        "idle_states": idle_states(source, cpu),
        "irq_lines": irq_lines_on(source, cpu),
    }
