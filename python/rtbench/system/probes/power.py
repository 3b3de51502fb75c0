# SPDX-License-Identifier: Apache-2.0
"""Frequency, idle and clock facts: governors and scaling drivers, boost, the idle
driver and governor, the clocksource."""

from __future__ import annotations

from rtbench.system import parse
from rtbench.system.model import Clocksource, CpuIdle, Frequency
from rtbench.system.source import Source

SYS_CPU = "/sys/devices/system/cpu"
CLOCKSOURCE = "/sys/devices/system/clocksource/clocksource0"
INTEL_IDLE_MAX_CSTATE = "/sys/module/intel_idle/parameters/max_cstate"


def prefetch(cpu: int) -> list[str]:
    """The files these probes read, for one batch."""
    freq = f"{SYS_CPU}/cpu{cpu}/cpufreq"
    return [
        f"{SYS_CPU}/cpu[0-9]*/cpufreq/scaling_governor",
        f"{SYS_CPU}/cpu[0-9]*/cpufreq/scaling_driver",
        *(
            f"{freq}/{name}"
            for name in (
                "energy_performance_preference",
                "scaling_cur_freq",
                "scaling_min_freq",
                "scaling_max_freq",
                "cpuinfo_max_freq",
            )
        ),
        f"{SYS_CPU}/cpufreq/boost",
        f"{SYS_CPU}/intel_pstate/status",
        f"{SYS_CPU}/intel_pstate/no_turbo",
        f"{SYS_CPU}/cpuidle/current_driver",
        f"{SYS_CPU}/cpuidle/current_governor",
        f"{SYS_CPU}/cpuidle/current_governor_ro",
        INTEL_IDLE_MAX_CSTATE,
        f"{CLOCKSOURCE}/current_clocksource",
        f"{CLOCKSOURCE}/available_clocksource",
    ]


def frequency(source: Source, online: list[int] | None) -> Frequency:
    governors: dict[str, str | None] | None = None
    drivers: dict[str, str | None] | None = None
    if online:
        governors = {
            str(c): source.read(f"{SYS_CPU}/cpu{c}/cpufreq/scaling_governor") for c in online
        }
        drivers = {str(c): source.read(f"{SYS_CPU}/cpu{c}/cpufreq/scaling_driver") for c in online}
        if not any(governors.values()):
            governors = None
        if not any(drivers.values()):
            drivers = None
    return {
        "governors": governors,
        "drivers": drivers,
        "boost": parse.bool01(source.read(f"{SYS_CPU}/cpufreq/boost")),
        "intel_pstate_status": source.read(f"{SYS_CPU}/intel_pstate/status"),
        "intel_pstate_no_turbo": parse.bool01(source.read(f"{SYS_CPU}/intel_pstate/no_turbo")),
    }


def cpuidle(source: Source) -> CpuIdle:
    return {
        "driver": source.read(f"{SYS_CPU}/cpuidle/current_driver"),
        "governor": source.read(f"{SYS_CPU}/cpuidle/current_governor")
        or source.read(f"{SYS_CPU}/cpuidle/current_governor_ro"),
        "intel_idle_max_cstate": parse.first_int(source.read(INTEL_IDLE_MAX_CSTATE)),
    }


def clocksource(source: Source) -> Clocksource:
    available = source.read(f"{CLOCKSOURCE}/available_clocksource")
    return {
        "current": source.read(f"{CLOCKSOURCE}/current_clocksource"),
        "available": available.split() if available is not None else None,
    }
