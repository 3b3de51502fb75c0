# SPDX-License-Identifier: Apache-2.0
"""The text of `rtbench system`: sections of aligned `key: value` lines, then caveats.

Works on any snapshot dict (a missing fact reads "unknown") and never modifies it.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rtbench.system.parse import format_cpu_list
from rtbench.system.registry import get

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
        return get(snap, *keys)

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
