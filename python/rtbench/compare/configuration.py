# SPDX-License-Identifier: Apache-2.0
"""What differs between the systems of a comparison besides their figures: the
differences the user chose (the target, the OS, the board, the RTOS's
configuration variant), named once as what is compared; warnings for the
differences the user did not choose between systems one clock timed (another
kernel command line or CPU frequency between two runs of one host, another
measurement CPU, a checked and a production image); and the host facts that
differ because the systems differ, kept as details.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtbench.compare import groups as cgroups
from rtbench.model.conditions import LOAD_KEY, load_summary
from rtbench.model.results import ResultsDocument
from rtbench.model.target import TargetView
from rtbench.model.views import first_meta, modified_text, os_settings

if TYPE_CHECKING:
    from rtbench.compare.model import System

# Host facts that change from one moment to the next and say nothing of the setup.
_VOLATILE = (
    "taken_at",
    "elapsed_s",
    "load",
    "measurement_cpu.freq_khz",
    "measurement_cpu.cpu",
    "measurement_cpu.source",
    "cpu_dma_latency.value_us",
    "python",
)
# Host facts compared as a run fact instead ("kernel sources"), so a difference
# is said once.
_AS_RUN_FACTS = (
    "kernel.checkout.digest",
    "kernel.checkout.modified",
    "kernel.checkout.modified_reason",
    "kernel.checkout.files",
)
_HOST_LINES_MAX = 12
_FILES_SHOWN = 8


def _flatten(value: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            if any(path == p or path.startswith(p + ".") for p in _VOLATILE + _AS_RUN_FACTS):
                continue
            out.update(_flatten(v, path))
    else:
        out[prefix] = json.dumps(value, sort_keys=True, default=str)
    return out


_PER_RUN_CONDITION_KEYS = (
    "units",
    "functions",
    "critical_sections",
    # a path trace's map of whose code each function is, and the image it read
    # the symbols of: they follow from the image, whose OS and sources the
    # kernel lines compare
    "attribution",
    "image",
)


def _settings_text(doc: ResultsDocument) -> str:
    changes = sorted(
        f"{c.get('setting')}={c.get('applied')}" for c in doc.settings.get("changes", [])
    )
    return ", ".join(changes) or "none"


def _run_facts(system: System) -> dict[str, str]:
    doc, run = system.doc, system.doc.run
    meta = first_meta(doc)
    counter = doc.calibration.counter if doc.calibration is not None else None
    conditions = dict(run.conditions or {})
    # The load by its summary (first: a run under --load against one without is the
    # point of such a comparison); any other condition of the run as it was stored.
    # A condition's per-unit account (a trace's log sizes, reads, lost events) differs
    # from run to run of one setup, and what the image holds (how many functions) with
    # the code measured, which the kernel lines already name: the setup is the rest.
    # A path trace's table of critical-section functions and its map of whose code
    # each function is belong to the RTOS, which "OS" already compares.
    other_conditions = {
        k: {n: x for n, x in v.items() if n not in _PER_RUN_CONDITION_KEYS}
        if isinstance(v, Mapping)
        else v
        for k, v in conditions.items()
        if k != LOAD_KEY
    }
    return {
        "load": load_summary(conditions) or "none",
        "rtbench version": doc.rtbench_version,
        "results schema": "1",
        "origin": (
            f"imported from {run.source.get('tool')} {run.source.get('version') or ''}".strip()
            if run.source is not None
            else f"rtbench run on target {run.target}"
        ),
        "profile": run.profile,
        "measurement CPU": str(run.cpu),
        "real-time": "yes" if run.realtime else "NO",
        "complete": "yes" if run.complete else "NO (interrupted or partial)",
        "core": str(run.core.get("version")),
        "counter": "-" if counter is None else str(counter.get("name")),
        "scenario options (--set)": json.dumps(dict(run.options.get("set", {})), sort_keys=True),
        "host settings changed": _settings_text(doc),
        "run conditions": json.dumps(other_conditions, sort_keys=True, default=str)
        if other_conditions
        else "none",
        "OS": _os_text(doc),
        "kernel sources": _kernel_sources(doc),
        "port": "-" if meta is None else str(meta.get("port")),
        "C library": "-" if meta is None else str(meta.get("libc")),
    }


def _os_text(doc: ResultsDocument) -> str:
    meta = first_meta(doc)
    if meta is not None:
        return f"{meta['os']} {meta['os_release']}"
    kernel = doc.host.get("kernel")
    if isinstance(kernel, Mapping) and kernel.get("release"):
        parts = (kernel.get("system"), kernel.get("release"), kernel.get("version"))
        return " ".join(str(p) for p in parts if p)
    return "-"


def _kernel_sources(doc: ResultsDocument) -> str:
    """A kernel built from a checkout (FreeRTOS): its release, the digest of its
    files built and whether they are modified; "-" for any other kernel."""
    kernel = doc.host.get("kernel")
    checkout = kernel.get("checkout") if isinstance(kernel, Mapping) else None
    if not isinstance(checkout, Mapping):
        return "-"
    release = checkout.get("tag") or "unknown release"
    digest = checkout.get("digest")
    if not digest:
        return f"{release}, digest not recorded"
    return f"{release} digest {str(digest)[:12]}, {modified_text(checkout.get('modified'))}"


def _kernel_files(doc: ResultsDocument) -> Mapping[str, Any] | None:
    kernel = doc.host.get("kernel")
    checkout = kernel.get("checkout") if isinstance(kernel, Mapping) else None
    files = checkout.get("files") if isinstance(checkout, Mapping) else None
    return files if isinstance(files, Mapping) and files else None


def _kernel_files_differ(
    a: ResultsDocument, b: ResultsDocument, letters: tuple[str, str] = ("A", "B")
) -> str:
    """The kernel source files whose content differs between two firmware results
    (changed, or built by one side only), "" when none or not recorded."""
    fa, fb = _kernel_files(a), _kernel_files(b)
    if fa is None or fb is None:
        return ""
    names = sorted(n for n in set(fa) | set(fb) if fa.get(n) != fb.get(n))

    def label(name: str) -> str:
        only = letters[0] if name in fa else letters[1]
        return name if name in fa and name in fb else f"{name} (only {only})"

    shown = [label(n) for n in names[:_FILES_SHOWN]]
    if len(names) > _FILES_SHOWN:
        shown.append(f"{len(names) - _FILES_SHOWN} more")
    return ", ".join(shown)


def os_config_differences(base: System, system: System) -> list[str]:
    """The OS build-time configuration each image reported (meta os_config) where
    it differs from the baseline's: its kind and each setting. Unknown (a run
    whose meta has none) is not a difference."""
    a_meta, b_meta = first_meta(base.doc), first_meta(system.doc)
    a_config, b_config = (m.get("os_config") if m else None for m in (a_meta, b_meta))
    if not isinstance(a_config, Mapping) or not isinstance(b_config, Mapping):
        return []
    out = []
    letter = system.letter
    if a_config.get("name") != b_config.get("name"):
        out.append(
            f"OS configuration differs: {base.letter} {a_config.get('name') or '?'}, "
            f"{letter} {b_config.get('name') or '?'}."
        )
    a_items = {n: (v, where) for n, v, where in os_settings(a_meta)}
    b_items = {n: (v, where) for n, v, where in os_settings(b_meta)}
    for name in [*a_items, *(n for n in b_items if n not in a_items)]:
        a_value = a_items.get(name, ("not reported", ""))[0]
        b_value, where = b_items.get(name, ("not reported", a_items.get(name, ("", ""))[1]))
        if a_value != b_value:
            source = f" ({where})" if where else ""
            out.append(
                f"OS setting {name}{source} differs: {base.letter} {a_value}, {letter} {b_value}."
            )
    return out


def _shared_sections(
    one: Mapping[str, Any], other: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The flattened host facts of two systems running different operating
    systems, without the kernel's build facts and without the sections only one
    of them has (an RTOS port's own configuration and notes)."""

    def section(key: str) -> str:
        return key.split(".", 1)[0]

    shared = {section(k) for k in one} & {section(k) for k in other} - {"kernel"}
    return (
        {k: v for k, v in one.items() if section(k) in shared},
        {k: v for k, v in other.items() if section(k) in shared},
    )


# Run facts the user chooses between when comparing systems: named once in the
# header ("what is compared") when systems differ in target or OS, not warned of.
_CHOSEN = ("origin", "OS", "kernel sources", "port", "C library", "counter")


@dataclass(frozen=True)
class Configuration:
    """The differences between the systems, sorted by what they mean: `compared`,
    the differences chosen (target, OS, board, configuration), named once;
    `warnings`, differences nobody chose between systems timed by one clock;
    `details`, facts that differ because the systems or their machines differ."""

    compared: tuple[str, ...]
    warnings: tuple[str, ...]
    details: tuple[str, ...]


def _target_text(system: System) -> str:
    target = TargetView.of(system.doc)
    parts = [str(system.doc.run.target)]
    shift = target.icount_shift
    if target.emulated:
        parts.append(f"-icount shift={shift}" if shift is not None else "no -icount")
    return ", ".join(parts)


def _os_config_name(system: System) -> str:
    meta = first_meta(system.doc)
    config = meta.get("os_config") if meta else None
    return str(config.get("name") or "-") if isinstance(config, Mapping) else "-"


def _chosen(system: System, other: System) -> bool:
    """Whether two systems differ in what a user chooses: target or OS."""
    a, b = system.doc.run, other.doc.run
    return a.target != b.target or _os_text(system.doc) != _os_text(other.doc)


def _compared_lines(systems: Sequence[System]) -> list[str]:
    """One line per chosen fact in which some systems differ: every system's value."""
    facts = [_run_facts(s) for s in systems]
    named = {
        "target": [_target_text(s) for s in systems],
        **{n: [f[n] for f in facts] for n in ("OS", "kernel sources", "port", "C library")},
        "OS configuration": [_os_config_name(s) for s in systems],
        "counter": [f["counter"] for f in facts],
    }
    out = []
    for name, values in named.items():
        if len({v for v in values if v != "-"}) > 1:
            shown = ", ".join(f"{s.letter} {v}" for s, v in zip(systems, values, strict=True))
            out.append(f"{name}: {shown}.")
    return out


def configuration(
    systems: Sequence[System], groups: Sequence[cgroups.Group] | None = None
) -> Configuration:
    """The differences between the systems. Each system is set against the first
    system of its comparable group (the baseline for its group, and the baseline
    for another group's first system). Of two systems timed by one clock, every
    difference they did not choose is a warning; of two timed by different
    clocks, the facts of their setups and hosts are details."""
    groups = cgroups.of(systems) if groups is None else groups
    warnings: list[str] = []
    details: list[str] = []
    for system in systems:
        warnings.extend(_runs_differ(system))
        if not system.doc.run.realtime:
            warnings.append(
                f"{system.letter} ran NOT REAL-TIME: its figures do not show the system."
            )
        if system.doc.run.source is not None:
            warnings.append(
                f"{system.letter} is imported from {system.doc.run.source.get('tool')}: "
                "its figures were measured by another tool, with its own method and resolution."
            )
    chose = False
    for index, system in enumerate(systems[1:], start=1):
        group = cgroups.group_of(groups, index)
        ref = group.members[0] if group.members[0] != index else 0
        base = systems[ref]
        same_clock = cgroups.comparable(groups, ref, index) or len(groups) == 1
        chosen = _chosen(base, system)
        other_os = _os_text(base.doc).split(" ")[0] != _os_text(system.doc).split(" ")[0]
        chose = chose or chosen
        for kind, line in _pair_lines(base, system):
            if (kind == "chosen" and chosen) or (kind == "config" and other_os):
                continue
            (warnings if same_clock else details).append(line)
    compared = _compared_lines(systems) if chose else []
    return Configuration(tuple(compared), tuple(warnings), tuple(details))


def configuration_warnings(systems: Sequence[System]) -> list[str]:
    """The differences between the systems that call for a warning (`configuration`)."""
    return list(configuration(systems).warnings)


def _pair_lines(base: System, system: System) -> list[tuple[str, str]]:
    """Every difference of version, setup and host between a system and the one it
    is set against, each as ("chosen" | "config" | "setup" | "host", sentence)."""
    out: list[tuple[str, str]] = []
    a, b = base.letter, system.letter
    base_facts = _run_facts(base)
    base_host = _flatten(base.doc.host)
    base_caveats = {c.get("code") for c in base.doc.caveats if c.get("severity") == "warning"}
    base_hz = base.doc.calibration.counter.get("hz") if base.doc.calibration else None
    facts = _run_facts(system)
    for name, value in facts.items():
        # "-" is unknown (an imported result has no core, counter or port): not a difference.
        if value != base_facts[name] and "-" not in (value, base_facts[name]):
            kind = "chosen" if name in _CHOSEN else "setup"
            out.append((kind, f"{name} differs: {a} {base_facts[name]}, {b} {value}."))
    # Two ports are two operating systems: "OS", "kernel sources" and "port"
    # already say so, and the kernels' files and build facts have nothing in
    # common to compare line by line.
    other_os = (
        "-" not in (facts["port"], base_facts["port"]) and (facts["port"] != base_facts["port"])
    ) or facts["OS"].split(" ")[0] != base_facts["OS"].split(" ")[0]
    files = None if other_os else _kernel_files_differ(base.doc, system.doc, (a, b))
    if files:
        out.append(("chosen", f"kernel files that differ between {a} and {b}: {files}."))
    # a checked image against a production one of the same RTOS changes the figures
    # however deliberately it was chosen: warned of unless the OSes differ anyway
    out.extend(("config", line) for line in os_config_differences(base, system))
    hz = system.doc.calibration.counter.get("hz") if system.doc.calibration else None
    if base_hz and hz and abs(float(hz) / float(base_hz) - 1.0) > 0.01:
        out.append(
            (
                "chosen",
                f"counter frequency differs: {a} {float(base_hz) / 1e6:,.1f} MHz, "
                f"{b} {float(hz) / 1e6:,.1f} MHz.",
            )
        )
    host = _flatten(system.doc.host)
    compared = base_host
    if other_os:  # each OS's own facts (its kernel, its port's notes) stay its own
        host, compared = _shared_sections(host, base_host)
    differing = sorted(k for k in set(compared) & set(host) if compared[k] != host[k])
    unknown = len(set(compared) ^ set(host))
    for k in differing[:_HOST_LINES_MAX]:
        out.append(
            (
                "host",
                f"host {k} differs: {a} {_short(base_host.get(k))}, {b} {_short(host.get(k))}.",
            )
        )
    if len(differing) > _HOST_LINES_MAX:
        out.append(
            (
                "host",
                f"... and {len(differing) - _HOST_LINES_MAX} more host facts differ "
                f"between {a} and {b} (see results.json).",
            )
        )
    if unknown:
        out.append(
            (
                "host",
                f"{unknown} host facts are recorded in only one of {a} and {b}, "
                "so they cannot be compared.",
            )
        )
    caveats = {c.get("code") for c in system.doc.caveats if c.get("severity") == "warning"}
    if caveats != base_caveats:
        only_a = sorted(str(c) for c in base_caveats - caveats)
        only_b = sorted(str(c) for c in caveats - base_caveats)
        parts = []
        if only_a:
            parts.append(f"only {a}: " + ", ".join(only_a))
        if only_b:
            parts.append(f"only {b}: " + ", ".join(only_b))
        out.append(("host", f"caveats differ ({'; '.join(parts)})."))
    return out


# Facts that may differ between runs of one configuration without making them
# different configurations.
_PER_RUN_FACTS = ("complete",)


def _runs_differ(system: System) -> list[str]:
    """The setup facts in which the runs given as one system differ: such runs are
    not one configuration, and their spread is not run-to-run variance."""
    if not system.more:
        return []
    runs = system.runs()
    facts = [_run_facts(r) for r in runs]
    out = []
    for name, first in facts[0].items():
        values = [f[name] for f in facts]
        if name in _PER_RUN_FACTS or all(v == first for v in values):
            continue
        shown = ", ".join(
            f"{_short(v, 24)} ({r.path.name})" for v, r in zip(values, runs, strict=True)
        )
        out.append(f"{system.letter}'s runs differ in {name}: {shown}.")
    return out


def _short(value: str | None, width: int = 40) -> str:
    if value is None:
        return "(absent)"
    text = value.strip('"')
    return text if len(text) <= width else text[: width - 1] + "…"
