# SPDX-License-Identifier: Apache-2.0
"""Pure parsers of the texts Linux exposes in /proc and /sys: no I/O, no state.

Every function takes the text of a file (or of a command's output) and returns plain
values; malformed or missing input gives None (or an empty result), never an exception.
The probes read files through a `Source` and hand the texts to these functions, so the
same parsing serves this machine, an SSH board and a QEMU guest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rtbench.system.model import Isolcpus, Limit

# Kernel configuration options the snapshot records.
CONFIG_KEYS = (
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

# Scheduling policy numbers of Linux (include/uapi/linux/sched.h).
POLICY_NAMES = {
    0: "SCHED_OTHER",
    1: "SCHED_FIFO",
    2: "SCHED_RR",
    3: "SCHED_BATCH",
    5: "SCHED_IDLE",
}


def first_int(text: str | None) -> int | None:
    """The leading integer of a sysfs or procfs value ('950000', '170 (us)')."""
    if text is None:
        return None
    try:
        return int(text.split()[0])
    except (ValueError, IndexError):
        return None


def bool01(text: str | None) -> bool | None:
    """A sysfs flag: '1' is True, '0' is False, anything else unknown."""
    if text in ("0", "1"):
        return text == "1"
    return None


def bracketed(text: str | None) -> str | None:
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


def parse_isolcpus(value: str | None, nr_cpus: int | None) -> Isolcpus | None:
    """isolcpus=[flag,...,]cpu-list, flags being nohz, domain, managed_irq."""
    if value is None:
        return None
    flags: list[str] = []
    items = value.split(",")
    while items and items[0] in ("nohz", "domain", "managed_irq"):
        flags.append(items.pop(0))
    return {"flags": flags, "cpus": parse_cpu_list(",".join(items), nr_cpus)}


def parse_kernel_config(text: str) -> dict[str, str]:
    """The options of CONFIG_KEYS set in a kernel .config text."""
    config: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in CONFIG_KEYS:
            config[key] = value.strip('"')
    return config


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
    """(major, minor) of a kernel release string, None if it does not start with one."""
    match = re.match(r"(\d+)\.(\d+)", release or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse_cpuinfo(text: str | None) -> tuple[dict[str, str], list[str] | None]:
    """The fields of the first CPU in /proc/cpuinfo and its feature flags."""
    if text is None:
        return {}, None
    first = text.split("\n\n", 1)[0]
    fields: dict[str, str] = {}
    for line in first.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    flags_text = fields.get("flags") or fields.get("Features")
    return fields, flags_text.split() if flags_text is not None else None


def cpu_model(fields: dict[str, str]) -> str | None:
    """The CPU model name among the fields of /proc/cpuinfo (x86, ARM, RISC-V, POWER)."""
    for key in ("model name", "Model", "Hardware", "cpu", "uarch"):
        if fields.get(key):
            return fields[key]
    return None


def parse_cpu_times(text: str | None, cpu: int) -> list[int] | None:
    """The first eight time counters (user ... steal) of one CPU in /proc/stat."""
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith(f"cpu{cpu} "):
            try:
                return [int(v) for v in line.split()[1:9]]
            except ValueError:
                return None
    return None


def parse_interrupts(text: str | None, cpu: int) -> dict[str, int] | None:
    """Interrupt counts of one CPU in /proc/interrupts, by line label."""
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


@dataclass(frozen=True)
class ProcessTimes:
    """One line of /proc/<pid>/stat: what the load probe needs of it."""

    comm: str
    ticks: int  # user + system time, in clock ticks
    last_cpu: int


def parse_process_stat(text: str) -> ProcessTimes | None:
    """The command name, CPU time and last CPU of a /proc/<pid>/stat line."""
    if ")" not in text:
        return None
    comm = text[text.find("(") + 1 : text.rfind(")")]
    rest = text[text.rfind(")") + 2 :].split()
    try:
        return ProcessTimes(comm, int(rest[11]) + int(rest[12]), int(rest[36]))
    except (ValueError, IndexError):
        return None


def parse_process_policy(text: str | None) -> str | None:
    """The scheduling policy of a /proc/<pid>/stat line (field 41), by name."""
    if text is None or ")" not in text:
        return None
    rest = text[text.rfind(")") + 2 :].split()
    try:
        number = int(rest[38])
    except (ValueError, IndexError):
        return None
    return POLICY_NAMES.get(number, "other")


def parse_loadavg(text: str | None) -> tuple[list[float] | None, int | None, int | None]:
    """/proc/loadavg: the three load averages, runnable and total task counts."""
    if text is None:
        return None, None, None
    fields = text.split()
    try:
        loadavg = [float(v) for v in fields[:3]]
        runnable_text, _, tasks_text = fields[3].partition("/")
        return loadavg, int(runnable_text), int(tasks_text)
    except (ValueError, IndexError):
        return None, None, None


def status_field(text: str | None, name: str) -> str | None:
    """One field of /proc/<pid>/status ('CapEff', 'Uid', 'Cpus_allowed_list')."""
    if text is None:
        return None
    match = re.search(rf"^{re.escape(name)}:\s*(.*)$", text, re.MULTILINE)
    return match.group(1).strip() if match else None


def parse_capabilities(text: str | None) -> int | None:
    """The effective capability mask of a /proc/<pid>/status text."""
    value = status_field(text, "CapEff")
    if value is None or not re.fullmatch(r"[0-9a-fA-F]+", value):
        return None
    return int(value, 16)


def parse_uids(text: str | None) -> tuple[int | None, int | None]:
    """Real and effective user id of a /proc/<pid>/status text."""
    fields = (status_field(text, "Uid") or "").split()
    if len(fields) < 2 or not all(f.isdigit() for f in fields[:2]):
        return None, None
    return int(fields[0]), int(fields[1])


# Rows of /proc/<pid>/limits the snapshot records, by resource name.
LIMIT_ROWS = {
    "rtprio": "Max realtime priority",
    "memlock": "Max locked memory",
    "rttime": "Max realtime timeout",
}


def parse_limits(text: str | None) -> dict[str, Limit | None]:
    """Soft and hard limits of /proc/<pid>/limits, keyed as LIMIT_ROWS."""
    found: dict[str, Limit | None] = dict.fromkeys(LIMIT_ROWS)
    for line in (text or "").splitlines():
        for key, row in LIMIT_ROWS.items():
            if not line.startswith(row):
                continue
            fields = line[len(row) :].split()
            if len(fields) >= 2:
                soft, hard = _limit_value(fields[0]), _limit_value(fields[1])
                if soft is not None and hard is not None:
                    found[key] = {"soft": soft, "hard": hard}
    return found


def _limit_value(text: str) -> int | str | None:
    if text == "unlimited":
        return "unlimited"
    return int(text) if text.isdigit() else None


def parse_fifo_max(text: str | None) -> int | None:
    """The SCHED_FIFO maximum priority in `chrt -m` output ('... : 1/99')."""
    match = re.search(r"SCHED_FIFO[^\n]*?(\d+)\s*/\s*(\d+)", text or "")
    return int(match.group(2)) if match else None


def parse_gnu_libc(text: str | None) -> tuple[str | None, str | None]:
    """'glibc 2.36' (confstr CS_GNU_LIBC_VERSION, getconf) -> ('glibc', '2.36')."""
    if not text:
        return None, None
    name, _, version = text.strip().partition(" ")
    return name, version or None


def parse_musl_version(text: str | None) -> str | None:
    """The version the musl dynamic loader prints when run without arguments."""
    match = re.search(r"Version\s+(\S+)", text or "")
    return match.group(1) if match else None
