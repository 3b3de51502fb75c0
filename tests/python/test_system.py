# SPDX-License-Identifier: Apache-2.0
"""Tests of rtbench.system: host snapshot, caveats and the `rtbench system` text."""

from __future__ import annotations

import copy
import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rtbench import system
from snapshots import SECTIONS, assert_all_unknown, codes

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings


@pytest.fixture(scope="module")
def host_snapshot() -> dict[str, Any]:
    return system.snapshot()


# ---------------------------------------------------------------------------------------
# snapshot() on this host
# ---------------------------------------------------------------------------------------


def test_snapshot_is_json_serialisable_and_complete(host_snapshot: dict[str, Any]) -> None:
    text = json.dumps(host_snapshot, allow_nan=False)
    assert json.loads(text) == host_snapshot
    assert set(host_snapshot) == SECTIONS
    assert host_snapshot["snapshot_version"] == system.SNAPSHOT_VERSION
    kernel = host_snapshot["kernel"]
    assert kernel["release"] == os.uname().release
    assert isinstance(kernel["preempt_rt"], bool)
    measured = host_snapshot["measurement_cpu"]
    assert measured["cpu"] == system.default_cpu()
    assert measured["source"] == "default"
    assert measured["usable"] is True
    assert host_snapshot["cpus"]["usable"] == system.usable_cpus()


def test_snapshot_values_match_the_sources(host_snapshot: dict[str, Any]) -> None:
    runtime_file = Path("/proc/sys/kernel/sched_rt_runtime_us")
    if runtime_file.exists():
        runtime = int(runtime_file.read_text())
        throttling = host_snapshot["rt_throttling"]
        # Another process may change it between the two reads; it is rare enough.
        assert throttling["runtime_us"] == runtime
        assert throttling["enabled"] is (runtime != -1)
    assert host_snapshot["privileges"]["euid"] == os.geteuid()
    assert host_snapshot["privileges"]["root"] is (os.geteuid() == 0)
    busy = host_snapshot["load"]["cpu_busy_pct"]
    if busy is not None:
        assert 0.0 <= busy <= 100.0


def test_snapshot_is_fast_enough(host_snapshot: dict[str, Any]) -> None:
    # The budget is 0.5 s on an idle host; this host is shared, so only gross sanity.
    assert 0.0 < host_snapshot["elapsed_s"] < 3.0


def test_snapshot_for_a_given_cpu() -> None:
    cpu = system.usable_cpus()[0]
    snap = system.snapshot(cpu)
    assert snap["measurement_cpu"]["cpu"] == cpu
    assert snap["measurement_cpu"]["source"] == "argument"


def test_snapshot_of_an_unusable_cpu_says_so() -> None:
    cpu = max(system.usable_cpus()) + 1000
    snap = system.snapshot(cpu)
    assert snap["measurement_cpu"]["usable"] is False
    assert "cpu_not_usable" in codes(system.caveats(snap))


def test_snapshot_leaves_this_thread_non_realtime() -> None:
    before = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)
    system.snapshot()
    assert (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) == before


def test_sched_fifo_probe_agrees_with_a_separate_process() -> None:
    allowed, error = system.probe_sched_fifo()
    code = (
        "import os, sys\n"
        "try:\n"
        "    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))\n"
        "except OSError:\n"
        "    sys.exit(1)\n"
    )
    other = subprocess.run([sys.executable, "-c", code], check=False, timeout=30)
    assert allowed is (other.returncode == 0)
    assert (error is None) is allowed


def test_host_caveats_agree_with_the_host(host_snapshot: dict[str, Any]) -> None:
    found = codes(system.caveats(host_snapshot))
    assert ("rt_throttling" in found) is (host_snapshot["rt_throttling"]["enabled"] is True)
    assert ("virtual_machine" in found) is (host_snapshot["virtualization"]["vm"] is True)
    assert ("not_preempt_rt" in found) is (host_snapshot["kernel"]["preempt_rt"] is False)
    isolated = host_snapshot["measurement_cpu"]["isolated"]
    assert ("cpu_not_isolated" in found) is (isolated is False)


# ---------------------------------------------------------------------------------------
# snapshot() against a fake tree
# ---------------------------------------------------------------------------------------


def write(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def test_snapshot_of_an_empty_tree_is_all_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(system, "ROOT", str(tmp_path))
    snap = system.snapshot()
    assert snap["cpu_dma_latency"] == {"present": False, "writable": False, "value_us": None}
    assert_all_unknown(
        snap,
        facts=(
            "rt_throttling.runtime_us", "rt_throttling.enabled", "kernel.cmdline", "cpus.online",
            "measurement_cpu.isolated", "measurement_cpu.governor", "clocksource.current",
            "virtualization.vm", "memory.thp_enabled", "load.cpu_busy_pct",
        ),
        caveats=("rt_throttling", "cpu_not_isolated", "governor", "virtual_machine", "thp_always"),
    )  # fmt: skip


def test_snapshot_reads_a_fake_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = os.uname().release
    write(tmp_path, f"/boot/config-{release}", "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_HZ=1000\n")
    write(
        tmp_path,
        "/proc/cmdline",
        "BOOT_IMAGE=/vmlinuz isolcpus=nohz,domain,1 nohz_full=1 rcu_nocbs=1 "
        'preempt=full quiet acpi="a b" -- isolcpus=0',
    )
    write(tmp_path, "/proc/sys/kernel/sched_rt_runtime_us", "-1\n")
    write(tmp_path, "/proc/sys/kernel/sched_rt_period_us", "1000000\n")
    cpu_dir = "/sys/devices/system/cpu"
    write(tmp_path, f"{cpu_dir}/online", "0-3\n")
    write(tmp_path, f"{cpu_dir}/possible", "0-3\n")
    write(tmp_path, f"{cpu_dir}/isolated", "1\n")
    write(tmp_path, f"{cpu_dir}/nohz_full", "1\n")
    write(tmp_path, f"{cpu_dir}/cpu1/topology/thread_siblings_list", "1,3\n")
    write(tmp_path, f"{cpu_dir}/cpu1/cpufreq/scaling_governor", "powersave\n")
    write(tmp_path, f"{cpu_dir}/cpu1/cpuidle/state0/name", "POLL\n")
    write(tmp_path, f"{cpu_dir}/cpu1/cpuidle/state0/latency", "0\n")
    write(tmp_path, f"{cpu_dir}/cpu1/cpuidle/state1/name", "C6\n")
    write(tmp_path, f"{cpu_dir}/cpu1/cpuidle/state1/latency", "170\n")
    write(tmp_path, f"{cpu_dir}/cpu1/cpuidle/state1/disable", "0\n")
    clocksource = "/sys/devices/system/clocksource/clocksource0"
    write(tmp_path, f"{clocksource}/current_clocksource", "hpet\n")
    write(tmp_path, f"{clocksource}/available_clocksource", "tsc hpet acpi_pm\n")
    write(tmp_path, "/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n")
    write(tmp_path, "/proc/irq/5/effective_affinity_list", "1\n")
    write(tmp_path, "/proc/irq/6/effective_affinity_list", "0\n")
    write(tmp_path, "/proc/1/comm", "irqbalance\n")
    monkeypatch.setattr(system, "ROOT", str(tmp_path))

    snap = system.snapshot(1)
    json.dumps(snap)
    kernel = snap["kernel"]
    assert kernel["preempt_model"] == "full"
    assert kernel["preempt_model_source"] == "cmdline"
    assert kernel["hz"] == 1000
    assert kernel["cmdline_params"]["isolcpus"] == "nohz,domain,1"
    assert kernel["cmdline_params"]["rcu_nocbs"] == "1"
    assert snap["cpus"]["cmdline_isolcpus"] == {"flags": ["nohz", "domain"], "cpus": [1]}
    assert snap["rt_throttling"]["enabled"] is False
    assert snap["cpus"]["online"] == [0, 1, 2, 3]
    measured = snap["measurement_cpu"]
    assert measured["isolated"] is True
    assert measured["nohz_full"] is True
    assert measured["rcu_nocbs"] is True
    assert measured["smt_siblings_online"] == [3]
    assert measured["governor"] == "powersave"
    assert measured["irq_lines"] == 1
    assert [s["exit_latency_us"] for s in measured["idle_states"]] == [0, 170]
    assert snap["clocksource"] == {"current": "hpet", "available": ["tsc", "hpet", "acpi_pm"]}
    assert snap["memory"]["thp_enabled"] == "always"
    assert snap["irqbalance"]["running"] is True

    found = codes(system.caveats(snap))
    assert "rt_throttling" not in found
    assert "cpu_not_isolated" not in found
    assert "tick_not_stopped" not in found
    for code in ("smt_sibling_online", "governor", "thp_always", "irqbalance"):
        assert code in found
    if os.uname().machine == "x86_64":
        assert "clocksource" in found


def test_kernel_config_from_proc_config_gz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "proc" / "config.gz"
    target.parent.mkdir(parents=True)
    with gzip.open(target, "wt") as f:
        f.write("# comment\nCONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_HZ=300\n")
    monkeypatch.setattr(system, "ROOT", str(tmp_path))
    snap = system.snapshot()
    assert snap["kernel"]["config_source"] == "/proc/config.gz"
    assert snap["kernel"]["preempt_rt"] is True
    assert snap["kernel"]["hz"] == 300
    assert "not_preempt_rt" not in codes(system.caveats(snap))


# ---------------------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "nr", "expected"),
    [
        ("0-3,5", None, [0, 1, 2, 3, 5]),
        ("7", None, [7]),
        ("", None, []),
        ("(null)", None, []),
        ("0-7:2/4", None, [0, 1, 4, 5]),
        ("2-N", 4, [2, 3]),
        ("all", 3, [0, 1, 2]),
        ("all", None, None),
        ("3-1", None, None),
        ("x", None, None),
        ("0-7:3/2", None, None),
        (None, None, None),
    ],
)
def test_parse_cpu_list(text: str | None, nr: int | None, expected: list[int] | None) -> None:
    assert system.parse_cpu_list(text, nr) == expected


def test_format_cpu_list_round_trips() -> None:
    assert system.format_cpu_list([5, 0, 1, 2, 7, 8]) == "0-2,5,7-8"
    assert system.format_cpu_list([]) == ""
    assert system.parse_cpu_list(system.format_cpu_list([1, 3, 4, 5])) == [1, 3, 4, 5]


def test_parse_cmdline_stops_at_init_arguments() -> None:
    params = system.parse_cmdline('root=/dev/sda1 quiet isolcpus=2 x="a b" -- nohz_full=3')
    assert params == {"root": "/dev/sda1", "quiet": "", "isolcpus": "2", "x": "a b"}
    assert system.parse_cmdline(None) == {}


def test_parse_isolcpus() -> None:
    assert system.parse_isolcpus("managed_irq,domain,2-3", 4) == {
        "flags": ["managed_irq", "domain"],
        "cpus": [2, 3],
    }
    single = system.parse_isolcpus("1", 4)
    assert single is not None
    assert single["flags"] == []
    assert single["cpus"] == [1]
    assert system.parse_isolcpus(None, 4) is None


@pytest.mark.parametrize(
    ("debugfs", "params", "config", "uname_version", "expected"),
    [
        ("none voluntary (full) lazy", {}, None, "#1 SMP", ("full", "debugfs")),
        (None, {"preempt": "voluntary"}, None, "#1 SMP PREEMPT_DYNAMIC", ("voluntary", "cmdline")),
        # preempt= means nothing to a kernel without PREEMPT_DYNAMIC
        (None, {"preempt": "full"}, {"CONFIG_PREEMPT_NONE": "y"}, "#1 SMP", ("none", "config")),
        (None, {}, {"CONFIG_PREEMPT_NONE": "y"}, "#1 SMP PREEMPT_DYNAMIC", ("none", "config")),
        (None, {}, {"CONFIG_PREEMPT_RT": "y"}, "#1 SMP", ("full", "config")),
        (None, {}, None, "#1 SMP PREEMPT_RT Mon", ("full", "uname")),
        (None, {}, None, "#1 SMP PREEMPT Mon", ("full", "uname")),
        (None, {}, None, "#1 SMP PREEMPT_DYNAMIC Mon", (None, None)),
        (None, {}, None, "#1 SMP Mon", (None, None)),
    ],
)
def test_preempt_model(
    debugfs: str | None,
    params: dict[str, str],
    config: dict[str, str] | None,
    uname_version: str,
    expected: tuple[str | None, str | None],
) -> None:
    assert system.preempt_model(debugfs, params, config, uname_version) == expected


def test_kernel_version_tuple() -> None:
    assert system.kernel_version_tuple("6.18.44-fc-v595") == (6, 18)
    assert system.kernel_version_tuple("garbage") is None
    assert system.kernel_version_tuple(None) is None


# ---------------------------------------------------------------------------------------
# usable_cpus / default_cpu
# ---------------------------------------------------------------------------------------


def test_usable_cpus_are_the_online_cpus_of_the_affinity() -> None:
    usable = system.usable_cpus()
    affinity = os.sched_getaffinity(0)
    assert usable == sorted(usable)
    assert set(usable) <= affinity
    online = system.parse_cpu_list(Path("/sys/devices/system/cpu/online").read_text())
    assert online is not None
    assert set(usable) == affinity & set(online)


def test_default_cpu_is_the_last_usable_cpu() -> None:
    assert system.default_cpu() == max(system.usable_cpus())


def test_usable_cpus_follow_the_affinity() -> None:
    original = os.sched_getaffinity(0)
    first = min(original)
    try:
        os.sched_setaffinity(0, {first})
        assert system.usable_cpus() == [first]
        assert system.default_cpu() == first
    finally:
        os.sched_setaffinity(0, original)


# ---------------------------------------------------------------------------------------
# caveats() on crafted snapshots
# ---------------------------------------------------------------------------------------


def clean_snapshot() -> dict[str, Any]:
    """A host with nothing to complain about."""
    return {
        "kernel": {
            "machine": "x86_64",
            "release": "6.12.0-rt",
            "preempt_rt": True,
            "preempt_model": "full",
            "hz": 1000,
            "config_no_hz_full": True,
        },
        "rt_throttling": {
            "runtime_us": -1,
            "period_us": 1000000,
            "enabled": False,
            "fair_server": True,
            "fair_server_runtime_ns": 50000000,
            "fair_server_period_ns": 1000000000,
        },
        "cpus": {"online": [0, 1, 2, 3], "usable": [0, 1, 2, 3]},
        "measurement_cpu": {
            "cpu": 3,
            "usable": True,
            "isolated": True,
            "nohz_full": True,
            "smt_siblings_online": [],
            "governor": "performance",
            "idle_states": [
                {"name": "POLL", "exit_latency_us": 0, "disabled": False},
                {"name": "C6", "exit_latency_us": 170, "disabled": False},
            ],
        },
        "clocksource": {"current": "tsc", "available": ["tsc", "hpet"]},
        "virtualization": {"vm": False, "type": None},
        "privileges": {
            "root": False,
            "cap_ipc_lock": False,
            "sched_fifo": True,
            "sched_fifo_error": None,
            "rlimit_memlock": {"soft": "unlimited", "hard": "unlimited"},
        },
        "cpu_dma_latency": {"present": True, "writable": True, "value_us": 2000000000},
        "memory": {"thp_enabled": "madvise"},
        "tracing": {"current_tracer": "nop", "tracing_on": True},
        "irqbalance": {"running": False},
        "load": {
            "cpu_busy_pct": 0.5,
            "cpu_steal_pct": 0.0,
            "busiest": [{"pid": 9, "comm": "sshd", "cpu_pct": 2.0, "last_cpu": 0}],
        },
    }


Mutation = Callable[[dict[str, Any]], None]


def mutate(**changes: Any) -> Mutation:
    """Set dotted keys: mutate(**{"kernel.preempt_rt": False})."""

    def apply(snap: dict[str, Any]) -> None:
        for dotted, value in changes.items():
            *parents, last = dotted.split(".")
            node = snap
            for key in parents:
                node = node[key]
            node[last] = value

    return apply


# For each caveat: a change to the clean snapshot that must produce it.
PRODUCES: dict[str, Mutation] = {
    "cpu_not_usable": mutate(**{"measurement_cpu.usable": False}),
    "no_realtime_privileges": mutate(
        **{"privileges.sched_fifo": False, "privileges.sched_fifo_error": "Operation not permitted"}
    ),
    "memlock_low": mutate(**{"privileges.rlimit_memlock": {"soft": 8 << 20, "hard": 8 << 20}}),
    "single_cpu": mutate(**{"cpus.usable": [3]}),
    "not_preempt_rt": mutate(**{"kernel.preempt_rt": False, "kernel.preempt_model": "none"}),
    "rt_throttling": mutate(**{"rt_throttling.enabled": True, "rt_throttling.runtime_us": 950000}),
    "fair_server": mutate(**{"measurement_cpu.isolated": False}),
    "cpu_not_isolated": mutate(**{"measurement_cpu.isolated": False}),
    "tick_not_stopped": mutate(**{"measurement_cpu.nohz_full": False}),
    "smt_sibling_online": mutate(**{"measurement_cpu.smt_siblings_online": [7]}),
    "governor": mutate(**{"measurement_cpu.governor": "schedutil"}),
    "clocksource": mutate(**{"clocksource.current": "hpet"}),
    "virtual_machine": mutate(**{"virtualization.vm": True, "virtualization.type": "kvm"}),
    "cpu_steal": mutate(**{"load.cpu_steal_pct": 12.5}),
    "cpu_busy": mutate(**{"load.cpu_busy_pct": 97.0}),
    "idle_states": mutate(**{"cpu_dma_latency.writable": False}),
    "thp_always": mutate(**{"memory.thp_enabled": "always"}),
    "tracing_on": mutate(**{"tracing.current_tracer": "function"}),
    "irqbalance": mutate(**{"irqbalance.running": True}),
}

# Changes that look close to a caveat's trigger but must not produce it.
DOES_NOT_PRODUCE: list[tuple[str, Mutation]] = [
    ("cpu_not_usable", mutate(**{"measurement_cpu.usable": None})),
    ("no_realtime_privileges", mutate(**{"privileges.sched_fifo": None})),
    (
        "memlock_low",
        mutate(**{"privileges.rlimit_memlock": {"soft": 8 << 20}, "privileges.root": True}),
    ),
    (
        "memlock_low",
        mutate(**{"privileges.rlimit_memlock": {"soft": 8 << 20}, "privileges.cap_ipc_lock": True}),
    ),
    ("memlock_low", mutate(**{"privileges.rlimit_memlock": {"soft": 1 << 30}})),
    ("single_cpu", mutate(**{"cpus.usable": [2, 3]})),
    ("not_preempt_rt", mutate(**{"kernel.preempt_rt": None})),
    ("rt_throttling", mutate(**{"rt_throttling.enabled": None})),
    (
        "fair_server",
        mutate(**{"measurement_cpu.isolated": False, "rt_throttling.fair_server": False}),
    ),
    (
        "fair_server",
        mutate(**{"measurement_cpu.isolated": False, "rt_throttling.fair_server_runtime_ns": 0}),
    ),
    ("cpu_not_isolated", mutate(**{"measurement_cpu.isolated": None})),
    ("tick_not_stopped", mutate(**{"measurement_cpu.isolated": False})),
    ("smt_sibling_online", mutate(**{"measurement_cpu.smt_siblings_online": None})),
    ("governor", mutate(**{"measurement_cpu.governor": None})),
    (
        "clocksource",
        mutate(**{"clocksource.current": "arch_sys_counter", "kernel.machine": "aarch64"}),
    ),
    ("virtual_machine", mutate(**{"virtualization.vm": None})),
    ("cpu_steal", mutate(**{"load.cpu_steal_pct": 0.4})),
    ("cpu_busy", mutate(**{"load.cpu_busy_pct": 5.0})),
    (
        "idle_states",
        mutate(
            **{
                "cpu_dma_latency.writable": False,
                "measurement_cpu.idle_states": [
                    {"name": "POLL", "exit_latency_us": 0, "disabled": False},
                    {"name": "C6", "exit_latency_us": 170, "disabled": True},
                ],
            }
        ),
    ),
    ("thp_always", mutate(**{"memory.thp_enabled": "never"})),
    ("tracing_on", mutate(**{"tracing.current_tracer": "function", "tracing.tracing_on": False})),
    ("irqbalance", mutate(**{"irqbalance.running": None})),
]


def test_clean_snapshot_has_no_caveats() -> None:
    assert system.caveats(clean_snapshot()) == []


def test_every_caveat_code_is_exercised() -> None:
    assert set(PRODUCES) == set(system.CAVEAT_CODES)
    assert {code for code, _ in DOES_NOT_PRODUCE} == set(system.CAVEAT_CODES)


@pytest.mark.parametrize("code", list(PRODUCES))
def test_caveat_appears(code: str) -> None:
    snap = clean_snapshot()
    PRODUCES[code](snap)
    found = system.caveats(snap)
    assert code in codes(found)
    cav = next(c for c in found if c["code"] == code)
    assert set(cav) == {"code", "severity", "message", "advice"}
    assert cav["severity"] in ("warning", "info")
    assert cav["message"].endswith(".")
    assert cav["advice"].endswith(".")


@pytest.mark.parametrize(("code", "change"), DOES_NOT_PRODUCE)
def test_caveat_does_not_appear(code: str, change: Mutation) -> None:
    snap = clean_snapshot()
    change(snap)
    assert code not in codes(system.caveats(snap))


def test_no_facts_no_caveats() -> None:
    assert system.caveats({}) == []


def test_warnings_come_before_notes() -> None:
    snap = clean_snapshot()
    for change in PRODUCES.values():
        change(snap)
    severities = [c["severity"] for c in system.caveats(snap)]
    assert "info" in severities
    assert "warning" in severities
    assert severities == sorted(severities, key=lambda s: s != "warning")


def test_rt_throttling_caveat_explains_the_gap_and_the_cure() -> None:
    snap = clean_snapshot()
    PRODUCES["rt_throttling"](snap)
    cav = next(c for c in system.caveats(snap) if c["code"] == "rt_throttling")
    assert "about 50 ms" in cav["message"]
    assert "--lift-rt-throttle" in cav["advice"]
    assert "sched_rt_runtime_us" in cav["advice"]


def test_rt_throttling_lifted_for_the_run_is_not_a_warning() -> None:
    snap = clean_snapshot()
    PRODUCES["rt_throttling"](snap)
    snap["rt_throttling"]["lifted_for_run"] = True
    cav = next(c for c in system.caveats(snap) if c["code"] == "rt_throttling")
    assert cav["severity"] == "info"
    assert "lifted for the run" in cav["message"]
    assert "--lift-rt-throttle" not in cav["advice"]


def test_rt_throttling_advice_on_a_single_cpu_is_to_keep_it() -> None:
    snap = clean_snapshot()
    PRODUCES["rt_throttling"](snap)
    PRODUCES["single_cpu"](snap)
    cav = next(c for c in system.caveats(snap) if c["code"] == "rt_throttling")
    assert "--lift-rt-throttle" not in cav["advice"]
    assert "runaway" in cav["advice"]


def test_not_isolated_advice_names_the_cpu_and_the_others() -> None:
    snap = clean_snapshot()
    PRODUCES["cpu_not_isolated"](snap)
    cav = next(c for c in system.caveats(snap) if c["code"] == "cpu_not_isolated")
    assert cav["message"].startswith("CPU 3 is not isolated")
    assert "isolcpus=3 nohz_full=3 rcu_nocbs=3 irqaffinity=0-2" in cav["advice"]


def test_busy_caveat_names_the_process_on_the_measurement_cpu() -> None:
    snap = clean_snapshot()
    PRODUCES["cpu_busy"](snap)
    snap["load"]["busiest"] = [
        {"pid": 10, "comm": "stress", "cpu_pct": 95.0, "last_cpu": 3},
        {"pid": 11, "comm": "make", "cpu_pct": 90.0, "last_cpu": 0},
    ]
    cav = next(c for c in system.caveats(snap) if c["code"] == "cpu_busy")
    assert "stress 95%" in cav["message"]
    assert "make" not in cav["message"]


def test_root_without_sched_fifo_points_at_the_cgroup() -> None:
    snap = clean_snapshot()
    PRODUCES["no_realtime_privileges"](snap)
    snap["privileges"]["root"] = True
    cav = next(c for c in system.caveats(snap) if c["code"] == "no_realtime_privileges")
    assert "rt_runtime_us" in cav["advice"]


# ---------------------------------------------------------------------------------------
# render()
# ---------------------------------------------------------------------------------------


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("code", list(PRODUCES))
def test_render_shows_each_caveat_with_its_advice(code: str) -> None:
    snap = clean_snapshot()
    PRODUCES[code](snap)
    cavs = system.caveats(snap)
    text = flat(system.render(snap, cavs))
    for cav in cavs:
        assert flat(cav["message"]) in text
        assert flat(cav["advice"]) in text


def test_render_has_sections_and_aligned_values(host_snapshot: dict[str, Any]) -> None:
    text = system.render(host_snapshot, system.caveats(host_snapshot))
    lines = text.splitlines()
    for title in ("Kernel", "CPUs", "Privileges and limits", "Memory and background work"):
        assert title in lines
    assert any(line.startswith("Measurement CPU ") for line in lines)
    key_lines = [
        line
        for line in lines
        if line.startswith("  ")
        and not line.startswith("   ")
        and not line.lstrip().startswith(("warning:", "info:"))
    ]
    assert len(key_lines) > 20
    columns = {len(line) - len(line.split(":", 1)[1].lstrip()) for line in key_lines}
    assert len(columns) == 1
    assert all(len(line) <= 100 for line in lines)


def test_render_without_caveats_and_without_facts() -> None:
    text = system.render({}, [])
    assert "Caveats: none." in text
    assert "unknown" in text


def test_render_does_not_modify_the_snapshot() -> None:
    snap = clean_snapshot()
    PRODUCES["cpu_busy"](snap)
    before = copy.deepcopy(snap)
    system.render(snap, system.caveats(snap))
    assert snap == before


def test_measurement_cpu_says_whether_it_was_chosen() -> None:
    cpu = system.default_cpu()
    snap = system.snapshot(cpu, cpu_given=False)
    assert snap["measurement_cpu"]["source"] == "default"
    text = system.render(snap, [])
    assert f"Measurement CPU {cpu} (default: the last usable CPU)" in text
    assert "command-line parameters of interest" in text
    chosen = system.snapshot(cpu, cpu_given=True)
    assert f"Measurement CPU {cpu} (chosen with --cpu)" in system.render(chosen, [])
