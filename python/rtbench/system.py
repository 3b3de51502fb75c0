# SPDX-License-Identifier: Apache-2.0
"""What the host does to real-time results: a snapshot, the caveats it implies, a report.

`snapshot()` reads everything on a Linux host that changes how a real-time measurement
comes out (kernel preemption model, RT throttling, CPU isolation, SMT, frequency
governor, idle states, clocksource, virtualisation, privileges, memory settings, load on
the measurement CPU). Every value is plain JSON; a source that cannot be read is `None`,
never an exception. The whole snapshot takes about 0.2 s, most of it a 0.1 s window in
which the load on the measurement CPU is sampled.

`caveats()` turns a snapshot into sentences that say what each finding does to the
results and what to do about it; `render()` is the text of `rtbench system`.
"""

from __future__ import annotations

import contextlib
import datetime
import gzip
import os
import platform
import re
import resource
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

SNAPSHOT_VERSION = 1

# Every path below is read through _path(), so tests can point ROOT at a fake tree.
ROOT = "/"

SYS_CPU = "/sys/devices/system/cpu"
RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
RT_PERIOD = "/proc/sys/kernel/sched_rt_period_us"
CPU_DMA_LATENCY = "/dev/cpu_dma_latency"

# Sampling window for the load, interrupt and steal figures of the measurement CPU.
LOAD_WINDOW_S = 0.1
# Above this share of busy time during the window, another workload shares the CPU.
BUSY_PCT_WARN = 20.0
# Above this share of steal time, the hypervisor is visibly taking the virtual CPU away.
STEAL_PCT_WARN = 1.0
# rtbench-core locks all of its memory; below this limit (without CAP_IPC_LOCK) locking
# or later allocations can fail.
MEMLOCK_MIN_BYTES = 128 * 1024 * 1024
# Idle states with a longer exit latency than this are worth holding off during a run.
IDLE_EXIT_LATENCY_US = 10
# Processes scanned for the "busiest" list; above this the scan is skipped (cost).
MAX_PROCESS_SCAN = 4096

CAP_IPC_LOCK = 14
CAP_SYS_NICE = 23

_CMDLINE_KEYS = (
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

_CONFIG_KEYS = (
    "CONFIG_PREEMPT_NONE",
    "CONFIG_PREEMPT_VOLUNTARY",
    "CONFIG_PREEMPT",
    "CONFIG_PREEMPT_LAZY",
    "CONFIG_PREEMPT_RT",
    "CONFIG_PREEMPT_DYNAMIC",
    "CONFIG_HZ",
    "CONFIG_NO_HZ_FULL",
    "CONFIG_RT_GROUP_SCHED",
    "CONFIG_RCU_NOCB_CPU",
)

_POLICY_NAMES = {
    os.SCHED_OTHER: "SCHED_OTHER",
    os.SCHED_FIFO: "SCHED_FIFO",
    os.SCHED_RR: "SCHED_RR",
    os.SCHED_BATCH: "SCHED_BATCH",
    os.SCHED_IDLE: "SCHED_IDLE",
}


# ---------------------------------------------------------------------------------------
# Reading sources
# ---------------------------------------------------------------------------------------


def _path(path: str) -> Path:
    if ROOT in ("", "/"):
        return Path(path)
    return Path(ROOT) / path.lstrip("/")


def _read(path: str) -> str | None:
    try:
        return _path(path).read_text(encoding="utf-8", errors="replace").strip()
    except (OSError, ValueError):
        return None


def _names(path: str) -> list[str] | None:
    """Entries of a directory, None when it cannot be listed."""
    try:
        return [entry.name for entry in _path(path).iterdir()]
    except OSError:
        return None


def _read_int(path: str) -> int | None:
    text = _read(path)
    if text is None:
        return None
    try:
        return int(text.split()[0])
    except (ValueError, IndexError):
        return None


def _exists(path: str) -> bool:
    return _path(path).exists()


def _bracketed(text: str | None) -> str | None:
    """The selected word of a sysfs choice list such as 'always [madvise] never'."""
    if text is None:
        return None
    match = re.search(r"\[([^\]]+)\]", text)
    if match:
        return match.group(1)
    return text or None


def _cpu_number(text: str, last: int | None) -> int | None:
    if text == "N":
        return last
    return int(text) if text.isdigit() else None


def parse_cpu_list(text: str | None, nr_cpus: int | None = None) -> list[int] | None:
    """Parse a kernel CPU list ('0-3,5', '0-7:2/4', 'N', 'all'); None if malformed."""
    if text is None:
        return None
    text = text.strip()
    if text in ("", "(null)"):
        return []
    cpus: set[int] = set()
    last = nr_cpus - 1 if nr_cpus else None
    for item in text.split(","):
        part = item.strip()
        if part == "all":
            if last is None:
                return None
            cpus.update(range(last + 1))
            continue
        span, _, stride = part.partition(":")
        stride_used, stride_group = 1, 1
        if stride:
            used, _, group = stride.partition("/")
            if not (used.isdigit() and group.isdigit()):
                return None
            stride_used, stride_group = int(used), int(group)
            if stride_used == 0 or stride_group < stride_used:
                return None
        first_text, _, end_text = span.partition("-")
        first = _cpu_number(first_text, last)
        end = _cpu_number(end_text or first_text, last)
        if first is None or end is None or end < first:
            return None
        for value in range(first, end + 1):
            if (value - first) % stride_group < stride_used:
                cpus.add(value)
    return sorted(cpus)


def format_cpu_list(cpus: Iterable[int]) -> str:
    """Format CPUs as the kernel does: [0, 1, 2, 5] -> '0-2,5'."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def parse_cmdline(cmdline: str | None) -> dict[str, str]:
    """Kernel parameters of a command line; arguments after '--' belong to init."""
    params: dict[str, str] = {}
    if not cmdline:
        return params
    for word in re.findall(r'(?:[^\s"]|"[^"]*")+', cmdline):
        if word == "--":
            break
        key, _, value = word.partition("=")
        params[key] = value.replace('"', "")
    return params


def parse_isolcpus(value: str | None, nr_cpus: int | None) -> dict[str, Any] | None:
    """isolcpus=[flag,...,]cpu-list, flags being nohz, domain, managed_irq."""
    if value is None:
        return None
    flags: list[str] = []
    items = value.split(",")
    while items and items[0] in ("nohz", "domain", "managed_irq"):
        flags.append(items.pop(0))
    return {"flags": flags, "cpus": parse_cpu_list(",".join(items), nr_cpus)}


def parse_kernel_config(text: str) -> dict[str, str]:
    config: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in _CONFIG_KEYS:
            config[key] = value.strip('"')
    return config


def _kernel_config(release: str) -> tuple[dict[str, str] | None, str | None]:
    boot = f"/boot/config-{release}"
    text = _read(boot)
    if text is not None:
        return parse_kernel_config(text), boot
    try:
        with gzip.open(_path("/proc/config.gz"), "rt", encoding="utf-8") as f:
            return parse_kernel_config(f.read()), "/proc/config.gz"
    except (OSError, EOFError, ValueError):
        return None, None


def preempt_model(
    debugfs: str | None,
    params: dict[str, str],
    config: dict[str, str] | None,
    uname_version: str,
) -> tuple[str | None, str | None]:
    """The preemption model in effect and where it was learnt.

    Models are the kernel's names: none, voluntary, full, lazy. The debugfs file shows
    the current choice of a PREEMPT_DYNAMIC kernel ('none voluntary (full) lazy'); the
    `preempt=` parameter selects it at boot; otherwise the kernel configuration gives
    the (boot) default, and `uname -v` is the last resort.
    """
    if debugfs:
        match = re.search(r"\((\w+)\)", debugfs)
        if match:
            return match.group(1), "debugfs"
    words = uname_version.split()
    dynamic = "PREEMPT_DYNAMIC" in words or (config or {}).get("CONFIG_PREEMPT_DYNAMIC") == "y"
    if dynamic and params.get("preempt") in ("none", "voluntary", "full", "lazy"):
        return params["preempt"], "cmdline"
    if config:
        for key, model in (
            ("CONFIG_PREEMPT_LAZY", "lazy"),
            ("CONFIG_PREEMPT", "full"),
            ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"),
            ("CONFIG_PREEMPT_NONE", "none"),
        ):
            if config.get(key) == "y":
                return model, "config"
        if config.get("CONFIG_PREEMPT_RT") == "y":
            return "full", "config"
    if "PREEMPT_LAZY" in words:
        return "lazy", "uname"
    if "PREEMPT_RT" in words or "PREEMPT" in words:
        return "full", "uname"
    return None, None


def kernel_version_tuple(release: str | None) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", release or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


# ---------------------------------------------------------------------------------------
# CPUs
# ---------------------------------------------------------------------------------------


def _online_cpus() -> list[int] | None:
    return parse_cpu_list(_read(f"{SYS_CPU}/online"))


def usable_cpus() -> list[int]:
    """CPUs that are online and in this process's affinity mask, ascending."""
    try:
        affinity = set(os.sched_getaffinity(0))
    except OSError:
        affinity = set(range(os.cpu_count() or 1))
    online = _online_cpus()
    if online is not None:
        both = affinity & set(online)
        if both:
            return sorted(both)
    return sorted(affinity)


def default_cpu() -> int:
    """The measurement CPU used when none is given: the last usable CPU."""
    cpus = usable_cpus()
    return cpus[-1] if cpus else 0


def _cpuinfo() -> tuple[str | None, list[str] | None]:
    """CPU model name and the flags of the first CPU in /proc/cpuinfo."""
    text = _read("/proc/cpuinfo")
    if text is None:
        return None, None
    first = text.split("\n\n", 1)[0]
    fields: dict[str, str] = {}
    for line in first.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    model = (
        fields.get("model name")
        or fields.get("Model")
        or fields.get("Hardware")
        or fields.get("cpu")
        or fields.get("uarch")
        or platform.processor()
        or None
    )
    flags_text = fields.get("flags") or fields.get("Features")
    return model, flags_text.split() if flags_text is not None else None


def _cpus_section(cpu_flags: list[str] | None, model: str | None) -> dict[str, Any]:
    online = _online_cpus()
    possible = parse_cpu_list(_read(f"{SYS_CPU}/possible"))
    nr = len(possible) if possible else None
    isolated = parse_cpu_list(_read(f"{SYS_CPU}/isolated"), nr)
    cgroup_isolated = parse_cpu_list(_read("/sys/fs/cgroup/cpuset.cpus.isolated"), nr)
    nohz_full = parse_cpu_list(_read(f"{SYS_CPU}/nohz_full"), nr)
    tsc_flags = None
    if cpu_flags is not None and platform.machine() in ("x86_64", "i686", "i386"):
        wanted = ("tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq", "tsc_reliable")
        tsc_flags = [f for f in wanted if f in cpu_flags]
    return {
        "model": model,
        "online": online,
        "count_online": len(online) if online is not None else None,
        "count_possible": nr,
        "usable": usable_cpus(),
        "isolated": isolated,
        "cgroup_isolated": cgroup_isolated,
        "nohz_full": nohz_full,
        "smt_active": _bool01(_read(f"{SYS_CPU}/smt/active")),
        "smt_control": _read(f"{SYS_CPU}/smt/control"),
        "tsc_flags": tsc_flags,
    }


def _bool01(text: str | None) -> bool | None:
    if text in ("0", "1"):
        return text == "1"
    return None


def _idle_states(cpu: int) -> list[dict[str, Any]] | None:
    entries = _names(f"{SYS_CPU}/cpu{cpu}/cpuidle")
    if entries is None:
        return None
    names = sorted((n for n in entries if re.fullmatch(r"state\d+", n)), key=lambda n: int(n[5:]))
    states = []
    for name in names:
        d = f"{SYS_CPU}/cpu{cpu}/cpuidle/{name}"
        states.append(
            {
                "name": _read(f"{d}/name"),
                "exit_latency_us": _read_int(f"{d}/latency"),
                "disabled": _bool01(_read(f"{d}/disable")),
            }
        )
    return states


def _irq_lines_on(cpu: int) -> int | None:
    """How many interrupt lines may be delivered to `cpu` (effective affinity)."""
    entries = _names("/proc/irq")
    if entries is None:
        return None
    irqs = [n for n in entries if n.isdigit()]
    count = 0
    for irq in irqs:
        text = _read(f"/proc/irq/{irq}/effective_affinity_list")
        if text is None:
            text = _read(f"/proc/irq/{irq}/smp_affinity_list")
        cpus = parse_cpu_list(text)
        if cpus and cpu in cpus:
            count += 1
    return count


def _measurement_cpu(
    cpu: int, source: str, cpus: dict[str, Any], params: dict[str, str]
) -> dict[str, Any]:
    online = cpus["online"]
    nr = cpus["count_possible"]
    isolated: bool | None = None
    isolation_source: str | None = None
    if cpus["isolated"] is not None or cpus["cgroup_isolated"] is not None:
        isolated = cpu in (cpus["isolated"] or []) or cpu in (cpus["cgroup_isolated"] or [])
        isolation_source = "sysfs"
    elif "isolcpus" in params:
        iso = parse_isolcpus(params["isolcpus"], nr)
        isolated = iso is not None and iso["cpus"] is not None and cpu in iso["cpus"]
        isolation_source = "cmdline"
    nohz_full: bool | None = None
    if cpus["nohz_full"] is not None:
        nohz_full = cpu in cpus["nohz_full"]
    elif "nohz_full" in params:
        listed = parse_cpu_list(params["nohz_full"], nr)
        nohz_full = listed is not None and cpu in listed
    rcu_nocbs: bool | None = None
    if "rcu_nocbs" in params and not params["rcu_nocbs"]:
        rcu_nocbs = True  # a bare rcu_nocbs offloads every CPU
    elif "rcu_nocbs" in params:
        listed = parse_cpu_list(params["rcu_nocbs"], nr)
        rcu_nocbs = None if listed is None else cpu in listed
    siblings = parse_cpu_list(_read(f"{SYS_CPU}/cpu{cpu}/topology/thread_siblings_list"))
    siblings_online = None
    if siblings is not None:
        siblings_online = [s for s in siblings if s != cpu and (online is None or s in online)]
    freq = f"{SYS_CPU}/cpu{cpu}/cpufreq"
    return {
        "cpu": cpu,
        "source": source,
        "online": cpu in online if online is not None else None,
        "usable": cpu in cpus["usable"],
        "isolated": isolated,
        "isolation_source": isolation_source,
        "nohz_full": nohz_full,
        "rcu_nocbs": rcu_nocbs,
        "smt_siblings": siblings,
        "smt_siblings_online": siblings_online,
        "governor": _read(f"{freq}/scaling_governor"),
        "scaling_driver": _read(f"{freq}/scaling_driver"),
        "energy_performance_preference": _read(f"{freq}/energy_performance_preference"),
        "freq_khz": {
            "current": _read_int(f"{freq}/scaling_cur_freq"),
            "min": _read_int(f"{freq}/scaling_min_freq"),
            "max": _read_int(f"{freq}/scaling_max_freq"),
            "hardware_max": _read_int(f"{freq}/cpuinfo_max_freq"),
        },
        "idle_states": _idle_states(cpu),
        "irq_lines": _irq_lines_on(cpu),
    }


def _frequency_section(online: list[int] | None) -> dict[str, Any]:
    governors: dict[str, str | None] | None = None
    drivers: dict[str, str | None] | None = None
    if online:
        governors = {str(c): _read(f"{SYS_CPU}/cpu{c}/cpufreq/scaling_governor") for c in online}
        drivers = {str(c): _read(f"{SYS_CPU}/cpu{c}/cpufreq/scaling_driver") for c in online}
        if not any(governors.values()):
            governors = None
        if not any(drivers.values()):
            drivers = None
    return {
        "governors": governors,
        "drivers": drivers,
        "boost": _bool01(_read(f"{SYS_CPU}/cpufreq/boost")),
        "intel_pstate_status": _read(f"{SYS_CPU}/intel_pstate/status"),
        "intel_pstate_no_turbo": _bool01(_read(f"{SYS_CPU}/intel_pstate/no_turbo")),
    }


# ---------------------------------------------------------------------------------------
# Virtualisation, C library, privileges
# ---------------------------------------------------------------------------------------


def _run(argv: list[str]) -> str | None:
    """Output of a short helper command, or None (missing, failed to start, too slow)."""
    if ROOT not in ("", "/") and not argv[0].startswith(ROOT):
        return None  # a fake tree under test: do not ask the real host
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=1.0,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or done.stderr.strip() or None


def _container() -> str | None:
    named = _read("/run/systemd/container")
    if named:
        return named
    if _exists("/.dockerenv"):
        return "docker"
    if _exists("/run/.containerenv"):
        return "podman"
    return None


def _virtualization(cpu_flags: list[str] | None) -> dict[str, Any]:
    flag = "hypervisor" in cpu_flags if cpu_flags is not None else None
    hv_type = _read("/sys/hypervisor/type")
    # systemd-detect-virt names the hypervisor; it costs ~30 ms, so ask only when the
    # CPU flags do not already say "bare metal".
    detect_vm = _run(["systemd-detect-virt", "--vm"]) if flag is not False else None
    detect_container = _container()
    vm: bool | None = None
    if flag or hv_type or (detect_vm not in (None, "none")):
        vm = True
    elif flag is False or detect_vm == "none":
        vm = False
    return {
        "vm": vm,
        "type": detect_vm if detect_vm not in (None, "none") else hv_type,
        "hypervisor_flag": flag,
        "sys_hypervisor_type": hv_type,
        "dmi_vendor": _read("/sys/class/dmi/id/sys_vendor"),
        "dmi_product": _read("/sys/class/dmi/id/product_name"),
        "systemd_detect_virt": detect_vm,
        "container": detect_container,
    }


def _libc() -> dict[str, str | None]:
    try:
        gnu = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        gnu = None
    if gnu:
        name, _, version = gnu.partition(" ")
        return {"name": name, "version": version or None}
    name, version = platform.libc_ver()
    if name:
        return {"name": name, "version": version or None}
    for loader in sorted(_path("/lib").glob("ld-musl-*.so.1")):
        out = _run([str(loader)]) or ""
        match = re.search(r"Version\s+(\S+)", out)
        return {"name": "musl", "version": match.group(1) if match else None}
    return {"name": None, "version": None}


def _rlimit(which: int) -> dict[str, int | str] | None:
    try:
        soft, hard = resource.getrlimit(which)
    except (OSError, ValueError):
        return None

    def show(value: int) -> int | str:
        return "unlimited" if value == resource.RLIM_INFINITY else value

    return {"soft": show(soft), "hard": show(hard)}


def _capabilities() -> int | None:
    text = _read("/proc/self/status")
    if text is None:
        return None
    match = re.search(r"^CapEff:\s*([0-9a-fA-F]+)", text, re.MULTILINE)
    return int(match.group(1), 16) if match else None


def probe_sched_fifo() -> tuple[bool, str | None]:
    """Try SCHED_FIFO priority 1 on a short-lived thread, then put the thread back.

    The policy is per thread on Linux, so this process's own threads never change.
    """
    outcome: list[tuple[bool, str | None]] = []

    def probe() -> None:
        try:
            policy = os.sched_getscheduler(0)
            param = os.sched_getparam(0)
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        except OSError as exc:
            outcome.append((False, exc.strerror or str(exc)))
            return
        try:
            outcome.append((os.sched_getscheduler(0) == os.SCHED_FIFO, None))
        finally:
            with contextlib.suppress(OSError):  # the thread ends now anyway
                os.sched_setscheduler(0, policy, param)

    thread = threading.Thread(target=probe, name="rtbench-fifo-probe", daemon=True)
    thread.start()
    thread.join(2.0)
    if not outcome:
        return False, "the probe thread did not finish"
    return outcome[0]


def _privileges() -> dict[str, Any]:
    caps = _capabilities()
    root = os.geteuid() == 0
    fifo, error = probe_sched_fifo()
    rtprio = _rlimit(resource.RLIMIT_RTPRIO)
    cap_sys_nice = bool(caps >> CAP_SYS_NICE & 1) if caps is not None else None
    prio_max: int | None = None
    if fifo:
        prio_max = os.sched_get_priority_max(os.SCHED_FIFO)
        if not root and not cap_sys_nice and rtprio is not None:
            soft = rtprio["soft"]
            if isinstance(soft, int):
                prio_max = min(prio_max, soft)
    try:
        policy: str | None = _POLICY_NAMES.get(os.sched_getscheduler(0), "other")
    except OSError:
        policy = None
    return {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "root": root,
        "cap_sys_nice": cap_sys_nice,
        "cap_ipc_lock": bool(caps >> CAP_IPC_LOCK & 1) if caps is not None else None,
        "rlimit_rtprio": rtprio,
        "rlimit_memlock": _rlimit(resource.RLIMIT_MEMLOCK),
        "rlimit_rttime": _rlimit(resource.RLIMIT_RTTIME),
        "sched_fifo": fifo,
        "sched_fifo_error": error,
        "rt_priority_max": prio_max,
        "process_policy": policy,
    }


def _cpu_dma_latency() -> dict[str, Any]:
    path = _path(CPU_DMA_LATENCY)
    present = path.exists()
    value: int | None = None
    if present:
        try:
            # Opening adds a request at the default value, which changes nothing; it
            # goes away with the close.
            with path.open("rb") as f:
                raw = f.read(4)
            if len(raw) == 4:
                value = int.from_bytes(raw, sys.byteorder, signed=True)
        except OSError:
            value = None
    return {
        "present": present,
        "writable": os.access(path, os.W_OK) if present else False,
        "value_us": value,
    }


# ---------------------------------------------------------------------------------------
# Load on the measurement CPU
# ---------------------------------------------------------------------------------------


def _cpu_times(cpu: int) -> list[int] | None:
    text = _read("/proc/stat")
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith(f"cpu{cpu} "):
            try:
                return [int(v) for v in line.split()[1:9]]
            except ValueError:
                return None
    return None


def _interrupt_counts(cpu: int) -> dict[str, int] | None:
    text = _read("/proc/interrupts")
    if text is None:
        return None
    lines = text.splitlines()
    if not lines:
        return None
    header = lines[0].split()
    if f"CPU{cpu}" not in header:
        return None
    column, ncols = header.index(f"CPU{cpu}"), len(header)
    counts: dict[str, int] = {}
    for line in lines[1:]:
        name, sep, rest = line.partition(":")
        fields = rest.split()
        if not sep or len(fields) < ncols or not all(f.isdigit() for f in fields[:ncols]):
            continue
        label = name.strip()
        description = " ".join(fields[ncols:])
        if label.isdigit() and description:
            label = f"{label} {description.split()[-1]}"
        elif description:
            label = f"{label} ({description})"
        counts[label] = counts.get(label, 0) + int(fields[column])
    return counts


def _process_times() -> dict[int, tuple[str, int, int]] | None:
    """pid -> (command name, user+system ticks, CPU it last ran on)."""
    entries = _names("/proc")
    if entries is None:
        return None
    pids = [int(n) for n in entries if n.isdigit()]
    if len(pids) > MAX_PROCESS_SCAN:
        return None
    times: dict[int, tuple[str, int, int]] = {}
    for pid in pids:
        text = _read(f"/proc/{pid}/stat")
        if text is None or ")" not in text:
            continue
        comm = text[text.find("(") + 1 : text.rfind(")")]
        rest = text[text.rfind(")") + 2 :].split()
        try:
            times[pid] = (comm, int(rest[11]) + int(rest[12]), int(rest[36]))
        except (ValueError, IndexError):
            continue
    return times


def _load(cpu: int) -> dict[str, Any]:
    loadavg_text = _read("/proc/loadavg")
    loadavg: list[float] | None = None
    runnable = tasks = None
    if loadavg_text is not None:
        fields = loadavg_text.split()
        try:
            loadavg = [float(v) for v in fields[:3]]
            runnable_text, _, tasks_text = fields[3].partition("/")
            runnable, tasks = int(runnable_text), int(tasks_text)
        except (ValueError, IndexError):
            pass
    times0, irqs0, procs0 = _cpu_times(cpu), _interrupt_counts(cpu), _process_times()
    start = time.monotonic()
    time.sleep(LOAD_WINDOW_S)
    times1, irqs1, procs1 = _cpu_times(cpu), _interrupt_counts(cpu), _process_times()
    window = time.monotonic() - start

    busy_pct = steal_pct = None
    if times0 is not None and times1 is not None:
        delta = [b - a for a, b in zip(times0, times1, strict=False)]
        total = sum(delta)
        if total > 0 and len(delta) >= 8:
            user, nice, system, _idle, _iowait, irq, softirq, steal = delta[:8]
            busy_pct = round(100.0 * (user + nice + system + irq + softirq) / total, 1)
            steal_pct = round(100.0 * steal / total, 1)

    irq_rate = None
    irq_sources = None
    if irqs0 is not None and irqs1 is not None:
        deltas = {k: irqs1[k] - irqs0.get(k, 0) for k in irqs1}
        irq_rate = round(sum(deltas.values()) / window)
        top = sorted(((v, k) for k, v in deltas.items() if v > 0), reverse=True)[:4]
        irq_sources = [{"name": k, "per_s": round(v / window)} for v, k in top]

    busiest = None
    if procs0 is not None and procs1 is not None:
        hz = os.sysconf("SC_CLK_TCK")
        rows = []
        for pid, (comm, ticks, last_cpu) in procs1.items():
            if pid == os.getpid() or pid not in procs0:
                continue
            pct = 100.0 * (ticks - procs0[pid][1]) / hz / window
            if pct >= 1.0:
                rows.append((pct, pid, comm, last_cpu))
        rows.sort(reverse=True)
        busiest = [
            {"pid": pid, "comm": comm, "cpu_pct": round(pct, 1), "last_cpu": last_cpu}
            for pct, pid, comm, last_cpu in rows[:3]
        ]

    return {
        "loadavg": loadavg,
        "runnable": runnable,
        "tasks": tasks,
        "window_s": round(window, 3),
        "cpu_busy_pct": busy_pct,
        "cpu_steal_pct": steal_pct,
        "cpu_interrupts_per_s": irq_rate,
        "cpu_interrupt_sources": irq_sources,
        "busiest": busiest,
    }


# ---------------------------------------------------------------------------------------
# The snapshot
# ---------------------------------------------------------------------------------------


def snapshot(cpu: int | None = None, cpu_given: bool | None = None) -> dict[str, Any]:
    """Everything on this host that affects real-time results, as JSON-ready data.

    `cpu` is the measurement CPU (default: `default_cpu()`); `cpu_given` says whether the
    user chose it (`--cpu`), which defaults to whether `cpu` was passed. Values that
    cannot be read are None; nothing here raises for a missing or unreadable source.
    Nothing on the host is changed (the SCHED_FIFO probe runs on a thread that ends at
    once).
    """
    started = time.monotonic()
    uname = os.uname()
    given = cpu is not None if cpu_given is None else cpu_given
    source = "argument" if given else "default"
    measured = cpu if cpu is not None else default_cpu()

    cmdline = _read("/proc/cmdline")
    params = parse_cmdline(cmdline)
    config, config_source = _kernel_config(uname.release)
    realtime_flag = _bool01(_read("/sys/kernel/realtime"))
    preempt_rt: bool | None
    if realtime_flag or "PREEMPT_RT" in uname.version.split():
        preempt_rt = True
    elif config is not None:
        preempt_rt = config.get("CONFIG_PREEMPT_RT") == "y"
    else:
        preempt_rt = False  # an RT kernel says so in uname -v
    model, model_source = preempt_model(
        _read("/sys/kernel/debug/sched/preempt"), params, config, uname.version
    )
    hz_text = (config or {}).get("CONFIG_HZ")

    def config_flag(key: str) -> bool | None:
        return None if config is None else config.get(key) == "y"

    version = kernel_version_tuple(uname.release)
    runtime = _read_int(RT_RUNTIME)
    fair_dir = f"/sys/kernel/debug/sched/fair_server/cpu{measured}"
    fair_server: bool | None = None
    if _exists("/sys/kernel/debug/sched/fair_server"):
        fair_server = True
    elif version is not None:
        fair_server = version >= (6, 12)

    model_name, cpu_flags = _cpuinfo()
    cpus = _cpus_section(cpu_flags, model_name)
    nr = cpus["count_possible"]
    for key in ("nohz_full", "rcu_nocbs", "irqaffinity"):
        if key in params:
            cpus[f"cmdline_{key}"] = parse_cpu_list(params[key], nr) if params[key] else None
    cpus["cmdline_isolcpus"] = parse_isolcpus(params.get("isolcpus"), nr)

    available = _read("/sys/devices/system/clocksource/clocksource0/available_clocksource")
    load = _load(measured)
    snap: dict[str, Any] = {
        "snapshot_version": SNAPSHOT_VERSION,
        "taken_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "hostname": socket.gethostname(),
        "kernel": {
            "system": uname.sysname,
            "release": uname.release,
            "version": uname.version,
            "machine": uname.machine,
            "preempt_rt": preempt_rt,
            "preempt_model": model,
            "preempt_model_source": model_source,
            "preempt_dynamic": (
                True
                if "PREEMPT_DYNAMIC" in uname.version.split()
                else config_flag("CONFIG_PREEMPT_DYNAMIC")
            ),
            "hz": int(hz_text) if hz_text and hz_text.isdigit() else None,
            "config_no_hz_full": config_flag("CONFIG_NO_HZ_FULL"),
            "config_rt_group_sched": config_flag("CONFIG_RT_GROUP_SCHED"),
            "config_source": config_source,
            "cmdline": cmdline,
            "cmdline_params": {k: params[k] for k in _CMDLINE_KEYS if k in params},
        },
        "rt_throttling": {
            "runtime_us": runtime,
            "period_us": _read_int(RT_PERIOD),
            "enabled": None if runtime is None else runtime != -1,
            "fair_server": fair_server,
            "fair_server_runtime_ns": _read_int(f"{fair_dir}/runtime"),
            "fair_server_period_ns": _read_int(f"{fair_dir}/period"),
        },
        "cpus": cpus,
        "measurement_cpu": _measurement_cpu(measured, source, cpus, params),
        "frequency": _frequency_section(cpus["online"]),
        "cpuidle": {
            "driver": _read(f"{SYS_CPU}/cpuidle/current_driver"),
            "governor": _read(f"{SYS_CPU}/cpuidle/current_governor")
            or _read(f"{SYS_CPU}/cpuidle/current_governor_ro"),
            "intel_idle_max_cstate": _read_int("/sys/module/intel_idle/parameters/max_cstate"),
        },
        "clocksource": {
            "current": _read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            "available": available.split() if available is not None else None,
        },
        "virtualization": _virtualization(cpu_flags),
        "libc": _libc(),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "privileges": _privileges(),
        "cpu_dma_latency": _cpu_dma_latency(),
        "memory": {
            "thp_enabled": _bracketed(_read("/sys/kernel/mm/transparent_hugepage/enabled")),
            "thp_defrag": _bracketed(_read("/sys/kernel/mm/transparent_hugepage/defrag")),
            "ksm_run": _read_int("/sys/kernel/mm/ksm/run"),
            "numa_balancing": _read_int("/proc/sys/kernel/numa_balancing"),
            "swappiness": _read_int("/proc/sys/vm/swappiness"),
        },
        "kernel_knobs": {
            "timer_migration": _read_int("/proc/sys/kernel/timer_migration"),
            "nmi_watchdog": _read_int("/proc/sys/kernel/nmi_watchdog"),
            "watchdog": _read_int("/proc/sys/kernel/watchdog"),
            "vm_stat_interval_s": _read_int("/proc/sys/vm/stat_interval"),
            "timer_slack_ns": _read_int("/proc/self/timerslack_ns"),
        },
        "tracing": _tracing(),
        "irqbalance": {"running": _process_running("irqbalance")},
        "load": load,
    }
    snap["elapsed_s"] = round(time.monotonic() - started, 3)
    return snap


def _tracing() -> dict[str, Any]:
    for base in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        tracer = _read(f"{base}/current_tracer")
        if tracer is not None:
            return {"current_tracer": tracer, "tracing_on": _bool01(_read(f"{base}/tracing_on"))}
    return {"current_tracer": None, "tracing_on": None}


def _process_running(name: str) -> bool | None:
    pids = [n for n in _names("/proc") or [] if n.isdigit()]
    if not pids:
        return None
    return any(_read(f"/proc/{pid}/comm") == name for pid in pids)


# ---------------------------------------------------------------------------------------
# Caveats
# ---------------------------------------------------------------------------------------


def _get(snap: dict[str, Any], *keys: str) -> Any:
    value: Any = snap
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _caveat(code: str, severity: str, message: str, advice: str) -> dict[str, str]:
    return {"code": code, "severity": severity, "message": message, "advice": advice}


def _cpu_of(snap: dict[str, Any]) -> int | None:
    cpu = _get(snap, "measurement_cpu", "cpu")
    return cpu if isinstance(cpu, int) else None


def _usable(snap: dict[str, Any]) -> list[int]:
    usable = _get(snap, "cpus", "usable")
    return [c for c in usable if isinstance(c, int)] if isinstance(usable, list) else []


def _check_cpu_not_usable(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    if cpu is None or _get(snap, "measurement_cpu", "usable") is not False:
        return None
    usable = format_cpu_list(_usable(snap)) or "none"
    return _caveat(
        "cpu_not_usable",
        "warning",
        f"CPU {cpu} is not available to this process (offline or outside its CPU affinity): "
        "the scenarios cannot be pinned to it.",
        f"Choose one of the usable CPUs ({usable}) with --cpu, or widen the affinity "
        "(taskset, cgroup cpuset).",
    )


def _check_single_cpu(snap: dict[str, Any]) -> dict[str, str] | None:
    if len(_usable(snap)) != 1:
        return None
    return _caveat(
        "single_cpu",
        "warning",
        "Only one CPU is usable: the watchdog and Python share the measurement CPU with the "
        "scenarios, and a runaway real-time loop is stopped only by RT throttling.",
        "Give rtbench at least two CPUs (check taskset, cgroup cpusets and the VM's CPU "
        "count); on this host keep RT throttling on.",
    )


def _check_no_realtime(snap: dict[str, Any]) -> dict[str, str] | None:
    if _get(snap, "privileges", "sched_fifo") is not False:
        return None
    error = _get(snap, "privileges", "sched_fifo_error")
    reason = f" ({error})" if error else ""
    advice = (
        "Run as root, or grant CAP_SYS_NICE (setcap cap_sys_nice+ep on rtbench-core) or a "
        "real-time priority limit (rtprio 98 in /etc/security/limits.conf)."
    )
    if _get(snap, "privileges", "root"):
        advice = (
            "This process is root, so the cgroup it runs in probably has no real-time "
            "budget (cpu.rt_runtime_us is 0 under RT group scheduling): run it from the root "
            "cgroup or give its cgroup a cpu.rt_runtime_us."
        )
    return _caveat(
        "no_realtime_privileges",
        "warning",
        f"This process cannot use SCHED_FIFO{reason}: scenario threads run under the normal "
        "time-sharing scheduler and every result is marked not real-time.",
        advice,
    )


def _check_memlock(snap: dict[str, Any]) -> dict[str, str] | None:
    priv = _get(snap, "privileges")
    if not isinstance(priv, dict) or priv.get("root") or priv.get("cap_ipc_lock"):
        return None
    soft = _get(priv, "rlimit_memlock", "soft")
    if not isinstance(soft, int) or soft >= MEMLOCK_MIN_BYTES:
        return None
    return _caveat(
        "memlock_low",
        "warning",
        f"The locked-memory limit is {soft / 1048576:.1f} MiB: rtbench-core locks all of its "
        "memory so that no page fault lands in a measurement, and past this limit locking "
        "fails (page faults then add latency) or later allocations fail.",
        "Raise it (ulimit -l unlimited, or 'memlock unlimited' in /etc/security/limits.conf), "
        "grant CAP_IPC_LOCK, or run as root.",
    )


def _check_not_preempt_rt(snap: dict[str, Any]) -> dict[str, str] | None:
    if _get(snap, "kernel", "preempt_rt") is not False:
        return None
    model = _get(snap, "kernel", "preempt_model") or "unknown"
    return _caveat(
        "not_preempt_rt",
        "warning",
        f"The kernel is not PREEMPT_RT (preemption model: {model}): interrupt handlers, "
        "softirqs and non-preemptible kernel sections delay real-time threads, so worst cases "
        "will be much higher than on a real-time kernel.",
        "Boot a PREEMPT_RT kernel (CONFIG_PREEMPT_RT=y, e.g. Debian's linux-image-rt-amd64) "
        "to measure real-time behaviour; on this kernel read maxima as those of a "
        "general-purpose configuration.",
    )


def _check_rt_throttling(snap: dict[str, Any]) -> dict[str, str] | None:
    if _get(snap, "rt_throttling", "lifted_for_run") is True:
        return _caveat(
            "rt_throttling",
            "info",
            "RT throttling was lifted for the run (sched_rt_runtime_us -1, restored "
            "afterwards): real-time threads were never stopped by it, and a runaway one only "
            "by rtbench's watchdog.",
            "Nothing to do; other real-time and kernel work on the CPU still shows.",
        )
    if _get(snap, "rt_throttling", "enabled") is not True:
        return None
    runtime = _get(snap, "rt_throttling", "runtime_us")
    period = _get(snap, "rt_throttling", "period_us")
    if isinstance(runtime, int) and isinstance(period, int) and period > runtime >= 0:
        budget = f"more than {runtime} µs in a {period} µs period"
        gap = f"about {(period - runtime) / 1000:.0f} ms"
    else:
        budget, gap = "longer than its budget", "tens of milliseconds"
    advice = (
        "Run with `rtbench run --lift-rt-throttle` (restored after the run), or write -1 to "
        "/proc/sys/kernel/sched_rt_runtime_us."
    )
    if len(_usable(snap)) == 1:
        advice = (
            "Leave it on here: with one usable CPU it is the only thing that stops a runaway "
            "real-time loop. Keep each busy phase of a scenario well below the budget."
        )
    return _caveat(
        "rt_throttling",
        "warning",
        f"RT throttling is on: real-time threads that run for {budget} are stopped for the "
        f"rest of the period, which appears as a latency of {gap}.",
        advice,
    )


def _check_fair_server(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    if (
        cpu is None
        or _get(snap, "rt_throttling", "fair_server") is not True
        or _get(snap, "rt_throttling", "fair_server_runtime_ns") == 0
        or _get(snap, "measurement_cpu", "isolated") is True
    ):
        return None
    runtime_ns = _get(snap, "rt_throttling", "fair_server_runtime_ns")
    period_ns = _get(snap, "rt_throttling", "fair_server_period_ns")
    share = "up to 50 ms in every second"
    if isinstance(runtime_ns, int) and isinstance(period_ns, int) and period_ns > 0:
        share = f"up to {runtime_ns / 1e6:.0f} ms in every {period_ns / 1e6:.0f} ms"
    return _caveat(
        "fair_server",
        "warning",
        f"This kernel's fair server runs waiting normal tasks for {share} on a CPU that "
        "real-time threads keep busy, whatever sched_rt_runtime_us says: a real-time thread "
        "that runs without a pause for about a second sees a gap of that length even with "
        "RT throttling lifted.",
        f"Keep other tasks off CPU {cpu} (isolcpus={cpu}) so the fair server has nothing to "
        f"run; setting /sys/kernel/debug/sched/fair_server/cpu{cpu}/runtime to 0 also removes "
        "it, at the risk of starving the system.",
    )


def _check_not_isolated(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    if cpu is None or _get(snap, "measurement_cpu", "isolated") is not False:
        return None
    online = _get(snap, "cpus", "online")
    others = [c for c in online if c != cpu] if isinstance(online, list) else []
    params = f"isolcpus={cpu} nohz_full={cpu} rcu_nocbs={cpu}"
    if others:
        params += f" irqaffinity={format_cpu_list(others)}"
    return _caveat(
        "cpu_not_isolated",
        "warning",
        f"CPU {cpu} is not isolated: the scheduler puts other tasks, kernel threads, timers "
        "and interrupts on it, so expect higher maxima.",
        f"Add {params} to the kernel command line and reboot.",
    )


def _check_tick(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    if (
        cpu is None
        or _get(snap, "measurement_cpu", "isolated") is not True
        or _get(snap, "measurement_cpu", "nohz_full") is True
    ):
        return None
    hz = _get(snap, "kernel", "hz")
    rate = f" ({hz} per second)" if isinstance(hz, int) else ""
    lacks = ""
    if _get(snap, "kernel", "config_no_hz_full") is False:
        lacks = "; this kernel is built without CONFIG_NO_HZ_FULL, so it needs one that has it"
    return _caveat(
        "tick_not_stopped",
        "info",
        f"CPU {cpu} is isolated but still takes the scheduler tick{rate}, a periodic "
        "interrupt of a few microseconds that shows up in the time series.",
        f"Add nohz_full={cpu} to the kernel command line{lacks}.",
    )


def _check_smt(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    siblings = _get(snap, "measurement_cpu", "smt_siblings_online")
    if cpu is None or not isinstance(siblings, list) or not siblings:
        return None
    listed = format_cpu_list(siblings)
    return _caveat(
        "smt_sibling_online",
        "warning",
        f"CPU {cpu} shares its core with CPU {listed} (SMT): whatever runs there competes for "
        "the same execution units and caches, which adds jitter.",
        f"Take the sibling offline (echo 0 > /sys/devices/system/cpu/cpu{siblings[0]}/online), "
        "boot with nosmt, or isolate the sibling as well and leave it idle.",
    )


def _check_governor(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    governor = _get(snap, "measurement_cpu", "governor")
    if cpu is None or not isinstance(governor, str) or governor == "performance":
        return None
    return _caveat(
        "governor",
        "warning",
        f"CPU {cpu} uses the '{governor}' frequency governor: its clock speed follows the load, "
        "so the same code path takes different times and samples after an idle period are "
        "slower.",
        f"Select the performance governor for the run: cpupower -c {cpu} frequency-set -g "
        f"performance (or write performance to /sys/devices/system/cpu/cpu{cpu}/cpufreq/"
        "scaling_governor).",
    )


def _check_clocksource(snap: dict[str, Any]) -> dict[str, str] | None:
    current = _get(snap, "clocksource", "current")
    machine = _get(snap, "kernel", "machine")
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
    available = _get(snap, "clocksource", "available")
    offer = "tsc" in available if isinstance(available, list) else False
    advice = "Select the TSC: echo tsc > /sys/devices/system/clocksource/clocksource0/" + (
        "current_clocksource."
        if offer
        else "current_clocksource once the kernel accepts it (it is not offered now: check "
        "constant_tsc and nonstop_tsc in /proc/cpuinfo; tsc=reliable forces it)."
    )
    return _caveat(
        "clocksource",
        "warning",
        f"The clocksource is '{current}', not tsc: {effect}.",
        advice,
    )


def _check_vm(snap: dict[str, Any]) -> dict[str, str] | None:
    if _get(snap, "virtualization", "vm") is not True:
        return None
    kind = _get(snap, "virtualization", "type")
    named = f" ({kind})" if isinstance(kind, str) and kind else ""
    return _caveat(
        "virtual_machine",
        "warning",
        f"This is a virtual machine{named}: the hypervisor can stop a virtual CPU at any time, "
        "which adds latency spikes of hundreds of microseconds that are not the guest OS's.",
        "Measure on bare metal for results that describe the OS; in a VM, pin each virtual CPU "
        "to a dedicated host CPU and read maxima as the hypervisor's.",
    )


def _check_steal(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    steal = _get(snap, "load", "cpu_steal_pct")
    if cpu is None or not isinstance(steal, (int, float)) or steal < STEAL_PCT_WARN:
        return None
    return _caveat(
        "cpu_steal",
        "warning",
        f"The hypervisor took {steal:.0f}% of CPU {cpu}'s time during the check (steal time): "
        "the virtual CPU shares a physical one with other work, and each time it is taken "
        "away a measurement stalls.",
        "Give the virtual machine dedicated host CPUs, or run on an idle host.",
    )


def _check_busy(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    busy = _get(snap, "load", "cpu_busy_pct")
    if cpu is None or not isinstance(busy, (int, float)) or busy < BUSY_PCT_WARN:
        return None
    busiest = _get(snap, "load", "busiest")
    top = ""
    if isinstance(busiest, list):
        on_cpu = [p for p in busiest if isinstance(p, dict) and p.get("last_cpu") == cpu]
        if on_cpu:
            top = " (" + ", ".join(f"{p['comm']} {p['cpu_pct']:.0f}%" for p in on_cpu) + ")"
    return _caveat(
        "cpu_busy",
        "warning",
        f"CPU {cpu} was {busy:.0f}% busy during the check{top}: other work on the measurement "
        "CPU delays and preempts the scenarios.",
        "Stop the other work or choose another CPU with --cpu; an isolated CPU stays free.",
    )


def _check_idle_states(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    states = _get(snap, "measurement_cpu", "idle_states")
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
    present = _get(snap, "cpu_dma_latency", "present")
    writable = _get(snap, "cpu_dma_latency", "writable")
    if deepest <= IDLE_EXIT_LATENCY_US or (present and writable):
        return None
    why = "absent" if not present else "not writable by this user"
    return _caveat(
        "idle_states",
        "info",
        f"CPU {cpu} can enter idle states with exit latencies up to {deepest} µs and "
        f"/dev/cpu_dma_latency is {why}, so a wake-up from idle can add that much.",
        "Run as root so that rtbench holds /dev/cpu_dma_latency at 0 during the run, or boot "
        "with intel_idle.max_cstate=1 processor.max_cstate=1.",
    )


def _check_thp(snap: dict[str, Any]) -> dict[str, str] | None:
    if _get(snap, "memory", "thp_enabled") != "always":
        return None
    return _caveat(
        "thp_always",
        "info",
        "Transparent huge pages are set to 'always': khugepaged compacts and collapses memory "
        "in the background, and a page fault can stall while a huge page is assembled.",
        "Set them to madvise: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled "
        "(or transparent_hugepage=madvise on the kernel command line).",
    )


def _check_tracing(snap: dict[str, Any]) -> dict[str, str] | None:
    tracer = _get(snap, "tracing", "current_tracer")
    if (
        not isinstance(tracer, str)
        or tracer == "nop"
        or _get(snap, "tracing", "tracing_on") is False
    ):
        return None
    return _caveat(
        "tracing_on",
        "info",
        f"The kernel tracer '{tracer}' is active: it adds overhead to every traced event.",
        "Unless you are tracing on purpose, stop it: echo nop > /sys/kernel/tracing/"
        "current_tracer.",
    )


def _check_irqbalance(snap: dict[str, Any]) -> dict[str, str] | None:
    cpu = _cpu_of(snap)
    if cpu is None or _get(snap, "irqbalance", "running") is not True:
        return None
    return _caveat(
        "irqbalance",
        "info",
        f"irqbalance is running: it moves device interrupts between CPUs during a run, "
        f"possibly onto CPU {cpu}.",
        f"Stop it for the run (systemctl stop irqbalance) and steer interrupts with "
        f"irqaffinity= on the kernel command line, or ban CPU {cpu} in its configuration "
        "(IRQBALANCE_BANNED_CPULIST).",
    )


_CHECKS: tuple[Callable[[dict[str, Any]], dict[str, str] | None], ...] = (
    _check_cpu_not_usable,
    _check_no_realtime,
    _check_memlock,
    _check_single_cpu,
    _check_not_preempt_rt,
    _check_rt_throttling,
    _check_fair_server,
    _check_not_isolated,
    _check_tick,
    _check_smt,
    _check_governor,
    _check_clocksource,
    _check_vm,
    _check_steal,
    _check_busy,
    _check_idle_states,
    _check_thp,
    _check_tracing,
    _check_irqbalance,
)

CAVEAT_CODES = (
    "cpu_not_usable",
    "no_realtime_privileges",
    "memlock_low",
    "single_cpu",
    "not_preempt_rt",
    "rt_throttling",
    "fair_server",
    "cpu_not_isolated",
    "tick_not_stopped",
    "smt_sibling_online",
    "governor",
    "clocksource",
    "virtual_machine",
    "cpu_steal",
    "cpu_busy",
    "idle_states",
    "thp_always",
    "tracing_on",
    "irqbalance",
)


def caveats(snap: dict[str, Any]) -> list[dict[str, str]]:
    """What the snapshot means for results: warnings first, then information.

    Each caveat is {"code", "severity" ("warning" or "info"), "message" (what it does to
    the results), "advice" (what to do)}. A fact the snapshot does not have (None or
    missing) never produces a caveat.
    """
    found = [c for c in (check(snap) for check in _CHECKS) if c is not None]
    return sorted(found, key=lambda c: c["severity"] != "warning")


# ---------------------------------------------------------------------------------------
# Text report
# ---------------------------------------------------------------------------------------


_CPU_SOURCE = {"argument": "chosen with --cpu", "default": "default: the last usable CPU"}


def _show(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if value and all(isinstance(v, int) for v in value):
            return format_cpu_list(value)
        return " ".join(str(v) for v in value) if value else "none"
    return str(value)


def _limit(value: Any, unit: str = "") -> str:
    if not isinstance(value, dict):
        return "unknown"
    soft, hard = value.get("soft"), value.get("hard")

    def one(v: Any) -> str:
        if isinstance(v, int) and unit == "bytes":
            return f"{v / 1048576:g} MiB"
        return _show(v)

    return one(soft) if soft == hard else f"{one(soft)} (hard {one(hard)})"


def _sections(snap: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    def g(*keys: str) -> Any:
        return _get(snap, *keys)

    cpu = g("measurement_cpu", "cpu")
    src = g("measurement_cpu", "source")
    model = g("kernel", "preempt_model")
    model_text = _show(model)
    origin = {
        "debugfs": "current setting, from debugfs",
        "cmdline": "chosen with preempt= at boot",
        "config": "kernel configuration default",
        "uname": "from uname -v",
    }.get(str(g("kernel", "preempt_model_source")))
    if model is not None and origin:
        model_text += f" ({origin})"
    if g("kernel", "preempt_dynamic"):
        model_text += "; PREEMPT_DYNAMIC kernel"
    runtime, period = g("rt_throttling", "runtime_us"), g("rt_throttling", "period_us")
    if g("rt_throttling", "enabled") is True:
        throttle = f"on ({runtime} µs per {period} µs)"
    elif g("rt_throttling", "enabled") is False:
        throttle = "off (sched_rt_runtime_us is -1)"
    else:
        throttle = "unknown"
    fair = _show(g("rt_throttling", "fair_server"))
    if g("rt_throttling", "fair_server_runtime_ns") is not None:
        fair += f" ({g('rt_throttling', 'fair_server_runtime_ns')} ns per "
        fair += f"{g('rt_throttling', 'fair_server_period_ns')} ns)"
    params = g("kernel", "cmdline_params")
    params_text = (
        " ".join(f"{k}={v}" if v else k for k, v in params.items())
        if isinstance(params, dict) and params
        else "none of interest"
    )

    freq = g("measurement_cpu", "freq_khz")
    freq_text = "unknown"
    if isinstance(freq, dict) and freq.get("current") is not None:
        freq_text = f"{freq['current'] / 1000:.0f} MHz (range {_show(freq.get('min'))}-"
        freq_text += f"{_show(freq.get('max'))} kHz)"
    states = g("measurement_cpu", "idle_states")
    states_text = "none listed"
    if isinstance(states, list) and states:
        states_text = ", ".join(
            f"{s.get('name')} {_show(s.get('exit_latency_us'))} µs"
            + (" (disabled)" if s.get("disabled") else "")
            for s in states
            if isinstance(s, dict)
        )
    elif states is None:
        states_text = "unknown"

    dma = g("cpu_dma_latency", "value_us")
    dma_text = "absent" if g("cpu_dma_latency", "present") is False else _show(dma)
    if isinstance(dma, int):
        dma_text = f"{dma} µs" + (" (no request)" if dma >= 2_000_000_000 else "")

    vm = g("virtualization", "vm")
    vm_text = _show(vm)
    if vm and g("virtualization", "type"):
        vm_text += f" ({g('virtualization', 'type')})"
    container = g("virtualization", "container")

    fifo = _show(g("privileges", "sched_fifo"))
    if g("privileges", "sched_fifo_error"):
        fifo += f" ({g('privileges', 'sched_fifo_error')})"
    if g("privileges", "rt_priority_max") is not None:
        fifo += f", priorities up to {g('privileges', 'rt_priority_max')}"

    load = g("load", "loadavg")
    load_text = " ".join(f"{v:.2f}" for v in load) if isinstance(load, list) else "unknown"
    busiest = g("load", "busiest")
    busiest_text = "none above 1%"
    if isinstance(busiest, list) and busiest:
        busiest_text = ", ".join(
            f"{p.get('comm')} ({p.get('pid')}) {p.get('cpu_pct')}% on CPU {p.get('last_cpu')}"
            for p in busiest
            if isinstance(p, dict)
        )
    elif busiest is None:
        busiest_text = "unknown"
    sources = g("load", "cpu_interrupt_sources")
    irq_text = _show(g("load", "cpu_interrupts_per_s"))
    if isinstance(sources, list) and sources:
        irq_text += " (" + ", ".join(f"{s.get('name')} {s.get('per_s')}" for s in sources) + ")"
    window_ms = g("load", "window_s")
    window = f" over {window_ms * 1000:.0f} ms" if isinstance(window_ms, (int, float)) else ""
    libc = g("libc", "name")
    libc_text = f"{libc} {g('libc', 'version') or ''}".strip() if libc else "unknown"

    def pct(value: Any) -> str:
        return f"{value}%" if value is not None else "unknown"

    return [
        (
            "Kernel",
            [
                ("release", _show(g("kernel", "release"))),
                ("version", _show(g("kernel", "version"))),
                ("architecture", _show(g("kernel", "machine"))),
                ("PREEMPT_RT", _show(g("kernel", "preempt_rt"))),
                ("preemption model", model_text),
                ("tick rate", f"{g('kernel', 'hz')} Hz" if g("kernel", "hz") else "unknown"),
                ("RT throttling", throttle),
                ("fair server", fair),
                ("command-line parameters of interest", params_text),
                ("C library", libc_text),
            ],
        ),
        (
            "CPUs",
            [
                ("model", _show(g("cpus", "model"))),
                ("online", _show(g("cpus", "online"))),
                ("usable by rtbench", _show(g("cpus", "usable"))),
                ("isolated", _show(g("cpus", "isolated"))),
                ("nohz_full", _show(g("cpus", "nohz_full"))),
                ("SMT active", _show(g("cpus", "smt_active"))),
                ("clocksource", _show(g("clocksource", "current"))),
                ("clocksources offered", _show(g("clocksource", "available"))),
                ("TSC flags", _show(g("cpus", "tsc_flags"))),
                ("virtual machine", vm_text),
                ("container", _show(container) if container else "no"),
            ],
        ),
        (
            f"Measurement CPU {_show(cpu)} ({_CPU_SOURCE.get(str(src), _show(src))})",
            [
                ("usable", _show(g("measurement_cpu", "usable"))),
                ("isolated", _show(g("measurement_cpu", "isolated"))),
                ("nohz_full", _show(g("measurement_cpu", "nohz_full"))),
                ("rcu_nocbs", _show(g("measurement_cpu", "rcu_nocbs"))),
                ("SMT siblings online", _show(g("measurement_cpu", "smt_siblings_online"))),
                ("frequency governor", _show(g("measurement_cpu", "governor"))),
                ("scaling driver", _show(g("measurement_cpu", "scaling_driver"))),
                ("frequency", freq_text),
                ("idle driver", _show(g("cpuidle", "driver"))),
                ("idle states", states_text),
                ("interrupt lines", _show(g("measurement_cpu", "irq_lines"))),
                ("busy" + window, pct(g("load", "cpu_busy_pct"))),
                ("steal" + window, pct(g("load", "cpu_steal_pct"))),
                ("interrupts per second", irq_text),
            ],
        ),
        (
            "Privileges and limits",
            [
                (
                    "user",
                    f"uid {_show(g('privileges', 'euid'))}"
                    + (" (root)" if g("privileges", "root") else ""),
                ),
                ("SCHED_FIFO", fifo),
                ("CAP_SYS_NICE", _show(g("privileges", "cap_sys_nice"))),
                ("CAP_IPC_LOCK", _show(g("privileges", "cap_ipc_lock"))),
                ("RLIMIT_RTPRIO", _limit(g("privileges", "rlimit_rtprio"))),
                ("RLIMIT_MEMLOCK", _limit(g("privileges", "rlimit_memlock"), "bytes")),
                ("/dev/cpu_dma_latency", dma_text),
            ],
        ),
        (
            "Memory and background work",
            [
                ("transparent hugepages", _show(g("memory", "thp_enabled"))),
                ("THP defrag", _show(g("memory", "thp_defrag"))),
                ("KSM", _show(g("memory", "ksm_run"))),
                ("irqbalance running", _show(g("irqbalance", "running"))),
                ("kernel tracer", _show(g("tracing", "current_tracer"))),
                ("load average", load_text),
                ("busiest processes", busiest_text),
            ],
        ),
    ]


def render(snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
    """The text of `rtbench system`: sections of aligned key: value lines, then caveats."""
    sections = _sections(snap)
    width = max(len(key) for _, rows in sections for key, _ in rows) + 1
    out: list[str] = []
    for title, rows in sections:
        out.append(title)
        for key, value in rows:
            label = f"{key}:".ljust(width)
            lines = textwrap.wrap(
                value, 100 - width - 3, break_on_hyphens=False, break_long_words=False
            ) or [""]
            out.append(f"  {label} {lines[0]}")
            out.extend(" " * (width + 3) + line for line in lines[1:])
        out.append("")
    warnings = sum(1 for c in cavs if c.get("severity") == "warning")
    if not cavs:
        out.append("Caveats: none.")
    else:
        out.append(f"Caveats ({warnings} warnings, {len(cavs) - warnings} notes)")
        for cav in cavs:
            head = f"  {cav.get('severity', 'info')}: "
            out.extend(
                textwrap.wrap(
                    cav.get("message", ""),
                    100,
                    initial_indent=head,
                    subsequent_indent=" " * len(head),
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
            out.extend(
                textwrap.wrap(
                    cav.get("advice", ""),
                    100,
                    initial_indent=" " * len(head) + "-> ",
                    subsequent_indent=" " * (len(head) + 3),
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
    elapsed = snap.get("elapsed_s")
    if isinstance(elapsed, (int, float)):
        out.append("")
        out.append(f"(checked in {elapsed:.2f} s)")
    return "\n".join(out) + "\n"
