# SPDX-License-Identifier: Apache-2.0
"""Kernel facts: release, PREEMPT_RT and the preemption model, tick rate, the command
line, RT throttling and the fair server."""

from __future__ import annotations

import gzip
import zlib

from rtbench.system import parse
from rtbench.system.model import KernelFacts, RtThrottling
from rtbench.system.source import Source, Uname

RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
RT_PERIOD = "/proc/sys/kernel/sched_rt_period_us"
CMDLINE = "/proc/cmdline"
REALTIME = "/sys/kernel/realtime"
PREEMPT_DEBUGFS = "/sys/kernel/debug/sched/preempt"
FAIR_SERVER = "/sys/kernel/debug/sched/fair_server"
CONFIG_GZ = "/proc/config.gz"

# Kernel command-line parameters the snapshot records.
CMDLINE_KEYS = (
    "isolcpus",
    "nohz_full",
    "nohz",
    "rcu_nocbs",
    "rcu_nocb_poll",
    "irqaffinity",
    "preempt",
    "threadirqs",
    "nosmt",
    "idle",
    "intel_idle.max_cstate",
    "processor.max_cstate",
    "intel_pstate",
    "clocksource",
    "tsc",
    "skew_tick",
    "nosoftlockup",
    "nowatchdog",
    "nmi_watchdog",
    "transparent_hugepage",
    "mitigations",
    "rt_group_sched",
)


def prefetch(release: str | None) -> list[str]:
    """The files these probes read, for one batch."""
    paths = [CMDLINE, REALTIME, PREEMPT_DEBUGFS, RT_RUNTIME, RT_PERIOD, FAIR_SERVER]
    paths += [f"{FAIR_SERVER}/cpu[0-9]*/runtime", f"{FAIR_SERVER}/cpu[0-9]*/period"]
    if release:
        paths.append(f"/boot/config-{release}")
    return paths


def read_config(source: Source, release: str | None) -> tuple[dict[str, str] | None, str | None]:
    """The options of the running kernel's configuration and the file they came from."""
    if release:
        boot = f"/boot/config-{release}"
        text = source.read(boot)
        if text is not None:
            return parse.parse_kernel_config(text), boot
    raw = source.read_bytes(CONFIG_GZ)
    if raw is None:
        return None, None
    try:
        text = gzip.decompress(raw).decode("utf-8", errors="replace")
    except (OSError, EOFError, zlib.error):
        return None, None
    return parse.parse_kernel_config(text), CONFIG_GZ


def kernel_facts(
    source: Source,
    uname: Uname,
    params: dict[str, str],
    cmdline: str | None,
    config: dict[str, str] | None,
    config_source: str | None,
) -> KernelFacts:
    version_words = (uname.version or "").split()
    realtime_flag = parse.bool01(source.read(REALTIME))
    preempt_rt: bool | None
    if realtime_flag or "PREEMPT_RT" in version_words:
        preempt_rt = True
    elif config is not None:
        preempt_rt = config.get("CONFIG_PREEMPT_RT") == "y"
    elif uname.version is None:
        preempt_rt = None  # neither the configuration nor uname -v could be read
    else:
        preempt_rt = False  # an RT kernel says so in uname -v
    model, model_source = parse.preempt_model(
        source.read(PREEMPT_DEBUGFS), params, config, uname.version or ""
    )
    hz_text = (config or {}).get("CONFIG_HZ")

    def config_flag(key: str) -> bool | None:
        return None if config is None else config.get(key) == "y"

    return {
        "system": uname.sysname,
        "release": uname.release,
        "version": uname.version,
        "machine": uname.machine,
        "preempt_rt": preempt_rt,
        "preempt_model": model,
        "preempt_model_source": model_source,
        "preempt_dynamic": (
            True if "PREEMPT_DYNAMIC" in version_words else config_flag("CONFIG_PREEMPT_DYNAMIC")
        ),
        "hz": int(hz_text) if hz_text and hz_text.isdigit() else None,
        "config_no_hz_full": config_flag("CONFIG_NO_HZ_FULL"),
        "config_rt_group_sched": config_flag("CONFIG_RT_GROUP_SCHED"),
        "config_source": config_source,
        "cmdline": cmdline,
        "cmdline_params": {k: params[k] for k in CMDLINE_KEYS if k in params},
    }


def rt_throttling(source: Source, release: str | None, cpu: int) -> RtThrottling:
    runtime = parse.first_int(source.read(RT_RUNTIME))
    version = parse.kernel_version_tuple(release)
    fair_server: bool | None = None
    if source.exists(FAIR_SERVER):
        fair_server = True
    elif version is not None:
        fair_server = version >= (6, 12)
    fair_dir = f"{FAIR_SERVER}/cpu{cpu}"
    return {
        "runtime_us": runtime,
        "period_us": parse.first_int(source.read(RT_PERIOD)),
        "enabled": None if runtime is None else runtime != -1,
        "fair_server": fair_server,
        "fair_server_runtime_ns": parse.first_int(source.read(f"{fair_dir}/runtime")),
        "fair_server_period_ns": parse.first_int(source.read(f"{fair_dir}/period")),
    }
