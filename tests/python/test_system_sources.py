# SPDX-License-Identifier: Apache-2.0
"""Tests of where system facts come from: a made-up target through a fake Source, this
machine through CommandSource (a local `sh`, as an SSH target would run it), and the
caveat registry."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from fakesource import FakeSource, process_facts
from rtbench import system
from rtbench.system import checks, registry
from rtbench.system.remote import parse_batch, shell_word
from rtbench.system.source import Prefetched, Uname, matches
from snapshots import STABLE_SECTIONS, assert_all_unknown, codes

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

RT_GUEST_UNAME = Uname(
    "Linux", "debian-rt", "6.1.0-27-rt-arm64", "#1 SMP PREEMPT_RT Debian 6.1.115-1", "aarch64"
)
SYS_CPU = "/sys/devices/system/cpu"


def rt_guest_files() -> dict[str, str | bytes]:
    """An arm64 QEMU guest with a PREEMPT_RT kernel, CPU 1 isolated, throttling off."""
    cpuinfo = "".join(
        f"processor\t: {n}\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd evtstrm cpuid\n"
        "CPU implementer\t: 0x41\n\n"
        for n in (0, 1)
    )
    return {
        "/proc/cmdline": "console=ttyAMA0 isolcpus=domain,managed_irq,1 nohz_full=1 "
        "rcu_nocbs=1 irqaffinity=0 -- quiet",
        "/sys/kernel/realtime": "1\n",
        "/proc/config.gz": gzip.compress(
            b"CONFIG_PREEMPT_RT=y\nCONFIG_HZ=250\nCONFIG_NO_HZ_FULL=y\n"
            b"# CONFIG_PREEMPT is not set\n"
        ),
        "/proc/sys/kernel/sched_rt_runtime_us": "-1\n",
        "/proc/sys/kernel/sched_rt_period_us": "1000000\n",
        f"{SYS_CPU}/online": "0-1\n",
        f"{SYS_CPU}/possible": "0-1\n",
        f"{SYS_CPU}/isolated": "1\n",
        f"{SYS_CPU}/nohz_full": "1\n",
        f"{SYS_CPU}/cpu1/topology/thread_siblings_list": "1\n",
        f"{SYS_CPU}/cpu1/cpuidle/state0/name": "WFI\n",
        f"{SYS_CPU}/cpu1/cpuidle/state0/latency": "1\n",
        f"{SYS_CPU}/cpu1/cpuidle/state0/disable": "0\n",
        "/proc/cpuinfo": cpuinfo,
        "/sys/devices/system/clocksource/clocksource0/current_clocksource": "arch_sys_counter",
        "/sys/devices/system/clocksource/clocksource0/available_clocksource": "arch_sys_counter",
        "/proc/device-tree/compatible": "linux,dummy-virt",
        "/proc/loadavg": "0.10 0.05 0.01 1/60 200\n",
        "/proc/stat": "cpu  110 0 55 3000 0 0 0 0\ncpu0 100 0 50 1000 0 0 0 0\n"
        "cpu1 10 0 5 2000 0 0 0 0\n",
        "/proc/interrupts": "           CPU0       CPU1\n"
        " 11:        500       1000     GICv3  27 Level     arch_timer\n",
        "/proc/1/comm": "init\n",
        "/proc/1/stat": "1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 5 3 0 0 20 0 1 0 1 0 0 0 0 0 0 "
        "0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
        "/sys/kernel/mm/transparent_hugepage/enabled": "always madvise [never]\n",
        "/dev/cpu_dma_latency": (2_000_000_000).to_bytes(4, "little", signed=True),
        "/proc/irq/11/effective_affinity_list": "0\n",
    }


def rt_guest(**changes: Any) -> FakeSource:
    values: dict[str, Any] = {
        "files": rt_guest_files(),
        "uname_value": RT_GUEST_UNAME,
        "facts": process_facts(libc_name="musl", libc_version="1.2.3"),
        "cpus": [0, 1],
        "after": {
            "/proc/stat": "cpu  112 0 55 3018 0 0 0 0\ncpu0 102 0 50 1008 0 0 0 0\n"
            "cpu1 10 0 5 2010 0 0 0 0\n",
            "/proc/interrupts": "           CPU0       CPU1\n"
            " 11:        510       1025     GICv3  27 Level     arch_timer\n",
        },
    }
    values.update(changes)
    return FakeSource(**values)


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key of a snapshot, dotted (maps keyed by CPU or parameter left out)."""
    if not isinstance(value, dict):
        return set()
    found = set()
    for key, child in value.items():
        if key.startswith("cmdline_") and prefix == "cpus.":
            continue  # present only when the parameter is on the command line
        found.add(prefix + key)
        if key not in ("cmdline_params", "governors", "drivers"):
            found |= key_paths(child, f"{prefix}{key}.")
    return found


# ---------------------------------------------------------------------------------------
# A made-up PREEMPT_RT guest
# ---------------------------------------------------------------------------------------


def test_snapshot_of_a_preempt_rt_guest_with_an_isolated_cpu() -> None:
    snap = system.snapshot(source=rt_guest())
    json.dumps(snap, allow_nan=False)
    kernel = snap["kernel"]
    assert kernel["release"] == "6.1.0-27-rt-arm64"
    assert kernel["machine"] == "aarch64"
    assert kernel["preempt_rt"] is True
    assert kernel["preempt_model"] == "full"
    assert kernel["hz"] == 250
    assert kernel["config_source"] == "/proc/config.gz"
    assert kernel["config_no_hz_full"] is True
    assert snap["hostname"] == "debian-rt"
    assert snap["rt_throttling"]["enabled"] is False
    assert snap["rt_throttling"]["fair_server"] is False  # 6.1 predates it
    assert snap["cpus"]["usable"] == [0, 1]
    assert snap["cpus"]["cmdline_isolcpus"] == {"flags": ["domain", "managed_irq"], "cpus": [1]}
    measured = snap["measurement_cpu"]
    assert measured["cpu"] == 1
    assert measured["source"] == "default"
    assert measured["isolated"] is True
    assert measured["isolation_source"] == "sysfs"
    assert measured["nohz_full"] is True
    assert measured["rcu_nocbs"] is True
    assert measured["smt_siblings_online"] == []
    assert measured["idle_states"] == [{"name": "WFI", "exit_latency_us": 1, "disabled": False}]
    assert measured["irq_lines"] == 0
    assert snap["cpus"]["tsc_flags"] is None  # not an x86 CPU
    assert snap["clocksource"]["current"] == "arch_sys_counter"
    assert snap["virtualization"]["vm"] is True
    assert snap["virtualization"]["type"] == "qemu"
    assert snap["virtualization"]["hypervisor_flag"] is None
    assert snap["libc"] == {"name": "musl", "version": "1.2.3"}
    assert snap["privileges"]["sched_fifo"] is True
    assert snap["privileges"]["rt_priority_max"] == 99
    assert snap["cpu_dma_latency"] == {"present": True, "writable": False, "value_us": 2000000000}
    assert snap["memory"]["thp_enabled"] == "never"
    load = snap["load"]
    assert load["cpu_busy_pct"] == 0.0  # CPU 1 only idled during the window
    assert load["cpu_interrupts_per_s"] == 250  # 25 arch_timer interrupts in 0.1 s
    assert load["loadavg"] == [0.10, 0.05, 0.01]
    found = codes(system.caveats(snap))
    for absent in ("not_preempt_rt", "rt_throttling", "cpu_not_isolated", "tick_not_stopped"):
        assert absent not in found
    assert "clocksource" not in found  # arch_sys_counter is right on ARM
    assert "virtual_machine" in found
    text = system.render(snap, system.caveats(snap))
    assert "PREEMPT_RT:                          yes" in text
    assert "musl 1.2.3" in text


def test_the_same_guest_on_a_standard_kernel_gets_the_caveats() -> None:
    # The negative control of the test above: only the kernel facts change.
    files = rt_guest_files()
    del files["/sys/kernel/realtime"]
    del files[f"{SYS_CPU}/isolated"]
    files["/proc/config.gz"] = gzip.compress(b"CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_HZ=250\n")
    files["/proc/cmdline"] = "console=ttyAMA0"
    files["/proc/sys/kernel/sched_rt_runtime_us"] = "950000\n"
    version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1"
    guest = rt_guest(uname_value=Uname("Linux", "debian", "6.1.0-27-arm64", version, "aarch64"))
    guest.files = files
    snap = system.snapshot(source=guest)
    assert snap["kernel"]["preempt_rt"] is False
    assert snap["kernel"]["preempt_model"] == "voluntary"
    assert snap["rt_throttling"]["enabled"] is True
    assert snap["measurement_cpu"]["isolated"] is None  # neither sysfs nor isolcpus= says
    found = codes(system.caveats(snap))
    assert {"not_preempt_rt", "rt_throttling"} <= found


def test_a_guest_snapshot_has_the_keys_of_a_local_one() -> None:
    guest = system.snapshot(source=rt_guest())
    local = system.snapshot()
    assert key_paths(guest) == key_paths(local)


def test_the_measurement_cpu_and_usable_cpus_come_from_the_target() -> None:
    guest = rt_guest(cpus=[0, 1, 2, 3])  # affinity wider than the online CPUs
    assert system.usable_cpus(guest) == [0, 1]
    assert system.default_cpu(guest) == 1
    snap = system.snapshot(0, source=guest)
    assert snap["measurement_cpu"]["cpu"] == 0
    assert snap["measurement_cpu"]["source"] == "argument"
    assert snap["measurement_cpu"]["isolated"] is False


def test_unknown_process_facts_give_no_privilege_caveat() -> None:
    facts = process_facts(sched_fifo=None, sched_fifo_error="chrt is not installed", euid=None)
    snap = system.snapshot(source=rt_guest(facts=facts))
    assert snap["privileges"]["sched_fifo"] is None
    assert snap["privileges"]["root"] is None
    assert "no_realtime_privileges" not in codes(system.caveats(snap))
    facts = process_facts(sched_fifo=False, sched_fifo_error="Operation not permitted", euid=1000)
    snap = system.snapshot(source=rt_guest(facts=facts))
    assert "no_realtime_privileges" in codes(system.caveats(snap))


def test_prefetched_reads_are_served_from_one_batch() -> None:
    guest = rt_guest()
    cached = Prefetched(guest, ["/proc/cmdline", f"{SYS_CPU}/cpu[0-9]*/topology/*"])
    guest.asked.clear()
    assert cached.read("/proc/cmdline") == guest.files["/proc/cmdline"]
    assert cached.read(f"{SYS_CPU}/cpu1/topology/thread_siblings_list") == "1"
    assert cached.read(f"{SYS_CPU}/cpu7/topology/thread_siblings_list") is None
    assert not cached.exists(f"{SYS_CPU}/cpu7/topology/core_id")
    assert guest.asked == []  # all answered from the batch
    assert cached.read("/proc/loadavg") is not None  # not in the batch: asked
    assert guest.asked == ["/proc/loadavg"]


# ---------------------------------------------------------------------------------------
# CommandSource through a local sh, against LocalSource
# ---------------------------------------------------------------------------------------

STABLE_FILES = (
    "/proc/cmdline",
    "/proc/sys/kernel/osrelease",
    "/proc/sys/kernel/sched_rt_runtime_us",
    "/proc/sys/kernel/sched_rt_period_us",
    "/proc/sys/vm/swappiness",
    f"{SYS_CPU}/online",
    f"{SYS_CPU}/possible",
    f"{SYS_CPU}/cpu0/topology/thread_siblings_list",
    "/sys/devices/system/clocksource/clocksource0/current_clocksource",
    "/sys/devices/system/clocksource/clocksource0/available_clocksource",
    "/sys/kernel/mm/transparent_hugepage/enabled",
)


class Counting:
    """A RunCommand running commands here, counting them."""

    def __init__(self) -> None:
        self.run = system.subprocess_runner(timeout_s=30)
        self.calls: list[Sequence[str]] = []

    def __call__(self, argv: Sequence[str]) -> tuple[int, bytes]:
        self.calls.append(argv)
        return self.run(argv)


@pytest.fixture
def command_source() -> system.CommandSource:
    return system.CommandSource(system.subprocess_runner(timeout_s=30))


def test_command_source_reads_what_the_local_source_reads(
    command_source: system.CommandSource,
) -> None:
    local = system.LocalSource()
    compared = 0
    for path in STABLE_FILES:
        expected = local.read(path)
        assert command_source.read(path) == expected, path
        compared += expected is not None
    assert compared >= 5, "too few of the files exist here to compare"
    patterns = [
        f"{SYS_CPU}/cpu[0-9]*/topology/*",
        "/sys/devices/system/clocksource/*/*_clocksource",
    ]
    batch = command_source.read_many(patterns)
    assert batch is not None and len(batch) > 2
    assert batch == local.read_many(patterns)
    assert command_source.uname() == local.uname()
    assert command_source.affinity() == sorted(os.sched_getaffinity(0))


def test_command_source_process_facts_match_this_process(
    command_source: system.CommandSource,
) -> None:
    remote, local = command_source.process(), system.LocalSource().process()
    for name in ("uid", "euid", "cap_eff", "rlimit_rtprio", "rlimit_memlock", "rlimit_rttime"):
        assert getattr(remote, name) == getattr(local, name), name
    assert (remote.policy, remote.libc_name, remote.libc_version) == (
        local.policy,
        local.libc_name,
        local.libc_version,
    )
    if shutil.which("chrt"):
        assert remote.sched_fifo == local.sched_fifo
        assert remote.fifo_priority_max == local.fifo_priority_max
    else:
        assert remote.sched_fifo is None
        assert remote.sched_fifo_error is not None


def test_command_source_snapshot_matches_the_local_one_in_few_round_trips() -> None:
    counting = Counting()
    remote = system.snapshot(source=system.CommandSource(counting))
    local = system.snapshot()
    for snap in (remote, local):
        snap["measurement_cpu"]["freq_khz"].pop("current")  # changes by itself
        if not shutil.which("chrt"):  # then the command source cannot try SCHED_FIFO
            snap.pop("privileges")
    for section in STABLE_SECTIONS:
        assert remote.get(section) == local.get(section), section
    assert remote["load"]["window_s"] >= system.LOAD_WINDOW_S * 0.9
    assert remote["load"]["cpu_busy_pct"] is not None
    # Batched: a fixed number of commands, whatever the number of files.
    assert len(counting.calls) <= 12, [c[:3] for c in counting.calls]


def test_command_source_quotes_paths(tmp_path: Path, command_source: system.CommandSource) -> None:
    odd = tmp_path / "a b'c$(false)"
    odd.write_text("value\n")
    assert command_source.read(str(odd)) == "value"
    pattern = str(tmp_path / "a b*")
    assert command_source.read_many([pattern]) == {str(odd): "value"}
    assert shell_word("/x/a b/[0-9]*") == "'/x/a b/'[0-9]*"


def test_command_source_through_a_shell_that_splits_the_command_again(tmp_path: Path) -> None:
    # As `ssh HOST -- COMMAND` does: the argv travels as one string and is split again.
    source = system.CommandSource(system.subprocess_runner(["sh", "-c"], 30, join=True))
    odd = tmp_path / "x y'z"
    odd.write_text("value\n")
    assert source.read(str(odd)) == "value"
    assert source.uname() == system.LocalSource().uname()
    assert source.process().rlimit_memlock == system.LocalSource().process().rlimit_memlock
    sample = source.sample(["/proc/stat"], 0.01)
    assert sample is not None
    assert sample.window_s > 0
    assert sample.before["/proc/stat"] is not None


# The applets a minimal guest (an initramfs around BusyBox) offers CommandSource.
BUSYBOX_APPLETS = ("sh", "head", "cat", "ls", "test", "[", "uname", "date", "sleep", "timeout")


def test_command_source_on_busybox_alone(tmp_path: Path) -> None:
    busybox = shutil.which("busybox")
    if busybox is None:
        pytest.skip("busybox is not installed (scripts/bootstrap.sh installs it for tests)")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for applet in BUSYBOX_APPLETS:
        (bin_dir / applet).symlink_to(busybox)

    def run(argv: Sequence[str]) -> tuple[int, bytes]:
        done = subprocess.run(
            [str(bin_dir / argv[0]), *argv[1:]] if (bin_dir / argv[0]).exists() else argv,
            env={"PATH": str(bin_dir)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )
        return done.returncode, done.stdout

    source = system.CommandSource(run)
    local = system.LocalSource()
    for path in STABLE_FILES:
        assert source.read(path) == local.read(path), path
    assert source.uname() == local.uname()
    assert source.affinity() == local.affinity()
    facts = source.process()
    assert (facts.euid, facts.cap_eff, facts.rlimit_memlock) == (
        os.geteuid(),
        local.process().cap_eff,
        local.process().rlimit_memlock,
    )
    # Debian's BusyBox has no chrt: SCHED_FIFO cannot be tried, and the snapshot says so.
    assert facts.sched_fifo is None
    assert "chrt" in (facts.sched_fifo_error or "")
    snap = system.snapshot(source=source)
    assert snap["kernel"] == system.snapshot()["kernel"]
    # BusyBox's date has no nanoseconds: the window is timed with /proc/uptime.
    assert snap["load"]["window_s"] is not None
    assert snap["load"]["window_s"] >= 0.05
    assert snap["load"]["cpu_busy_pct"] is not None


def test_command_source_missing_and_unreadable(
    tmp_path: Path, command_source: system.CommandSource
) -> None:
    assert command_source.read(str(tmp_path / "missing")) is None
    assert not command_source.exists(str(tmp_path / "missing"))
    assert command_source.read(str(tmp_path)) is None  # a directory
    assert command_source.exists(str(tmp_path))
    (tmp_path / "empty").write_text("")
    assert command_source.read(str(tmp_path / "empty")) == ""
    assert command_source.read_many([str(tmp_path / "nothing*")]) == {}
    assert command_source.listdir(str(tmp_path)) == ["empty"]
    assert command_source.listdir(str(tmp_path / "missing")) is None
    assert command_source.run(["rtbench-no-such-command"]) is None
    assert command_source.run(["echo", "hello"]) == "hello"
    assert command_source.read_bytes(str(tmp_path / "missing")) is None


def test_a_dead_channel_gives_an_all_unknown_snapshot() -> None:
    calls: list[Sequence[str]] = []

    def dead(argv: Sequence[str]) -> tuple[int, bytes]:
        calls.append(argv)
        return 255, b""  # what ssh returns when the connection is gone

    snap = system.snapshot(1, source=system.CommandSource(dead))
    assert len(calls) == 1  # the first batch failed: nothing more was asked
    text = assert_all_unknown(
        snap,
        facts=(
            "kernel.release", "kernel.preempt_rt", "rt_throttling.enabled",
            "privileges.sched_fifo", "load.window_s", "load.cpu_busy_pct",
        ),
        caveats=("not_preempt_rt", "rt_throttling", "no_realtime_privileges", "cpu_busy"),
    )  # fmt: skip
    assert "unknown" in text


def test_subprocess_runner_bounds_the_wait_and_leaves_nothing_behind(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # the background sleep does not hold the output pipe: only killing the group ends it
    script = f"sleep 30 >/dev/null & echo $! > {pid_file}; wait"
    status, out = system.subprocess_runner(timeout_s=1.0)(["sh", "-c", script])
    assert (status, out) == (124, b"")
    pid = int(pid_file.read_text())
    for _ in range(100):  # the killed sleep is reaped by init: wait for that, boundedly
        stat = Path(f"/proc/{pid}/stat")
        if not stat.exists() or stat.read_text().split(") ")[1].startswith("Z"):
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the background sleep {pid} survived the timeout")
    assert system.subprocess_runner()(["rtbench-no-such-command"])[0] == 127
    assert system.subprocess_runner()(["sh", "-c", "echo hi; exit 3"]) == (3, b"hi\n")


def test_parse_batch() -> None:
    text = "\n".join(
        [
            "M - /proc/irq",
            "==> /dev/null <==",
            "",
            "==> /a <==",
            "one",
            "two",
            "",
            "==> /b <==",
            "",
            "M + :section",
            "hello",
            "M end",
            "",
        ]
    )
    files, complete = parse_batch(text, "M")
    assert complete
    assert files == {"/proc/irq": None, "/a": "one\ntwo", "/b": "", ":section": "hello"}
    files, complete = parse_batch("==> /a <==\npartial", "M")
    assert not complete
    assert files == {"/a": "partial"}


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("/proc/12/stat", "/proc/[0-9]*/stat", True),
        ("/proc/self/stat", "/proc/[0-9]*/stat", False),
        ("/a/b/c", "/a/*", False),
        ("/c/cpu1/cpuidle/state10/name", "/c/cpu1/cpuidle/state[0-9]*/*", True),
        ("/x/bb", "/x/[!a]b", True),
        ("/x/ab", "/x/[!a]b", False),
        ("/x/a/b", "/x/a?b", False),
        ("/x/a", "/x/a", True),
    ],
)
def test_glob_matching_never_crosses_a_slash(path: str, pattern: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


# ---------------------------------------------------------------------------------------
# The caveat registry
# ---------------------------------------------------------------------------------------


def test_caveat_codes_come_from_the_registry() -> None:
    registered = [code for code, _check in registry.registered()]
    assert len(set(registered)) == len(registered)
    assert set(system.CAVEAT_CODES) == set(registered)
    modules = {module.__name__ for module in checks.CHECK_MODULES}
    assert {check.__module__ for _code, check in registry.registered()} <= modules


def test_a_code_cannot_be_registered_twice() -> None:
    before = registry.registered()
    with pytest.raises(ValueError, match="registered twice"):
        registry.caveat(system.CAVEAT_CODES[0])(lambda _snap: None)
    assert registry.registered() == before


def test_every_caveat_code_is_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "system.md").read_text(encoding="utf-8")
    missing = [code for code in system.CAVEAT_CODES if f"`{code}`" not in docs]
    assert not missing, f"docs/system.md does not describe {missing}"
