# SPDX-License-Identifier: Apache-2.0
"""Tests of rtbench.tuning.HostTuning against stand-in files (and once on the real host)."""

from __future__ import annotations

import atexit
import os
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from rtbench import tuning
from rtbench.tuning import HostTuning

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

DEFAULT_LATENCY_US = 2_000_000_000


@pytest.fixture
def dma_file(tmp_path: Path) -> Path:
    path = tmp_path / "cpu_dma_latency"
    path.write_bytes(struct.pack("i", DEFAULT_LATENCY_US))
    return path


@pytest.fixture
def rt_file(tmp_path: Path) -> Path:
    path = tmp_path / "sched_rt_runtime_us"
    path.write_text("950000\n")
    return path


def latency(path: Path) -> int:
    value: int = struct.unpack("i", path.read_bytes()[:4])[0]
    return value


def open_fds_on(path: Path) -> int:
    """How many of this process's descriptors refer to `path`."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            if fd.readlink() == path:
                count += 1
        except OSError:
            continue
    return count


def make(dma: Path, rt: Path, *, dma_on: bool = True, rt_on: bool = True) -> HostTuning:
    return HostTuning(
        cpu_dma_latency=dma_on,
        lift_rt_throttle=rt_on,
        cpu_dma_latency_path=dma,
        rt_runtime_path=rt,
    )


def change(t: HostTuning, setting: str) -> dict[str, object]:
    return next(c for c in t.changes if c["setting"] == setting)


# ---------------------------------------------------------------------------------------
# Both settings applied and restored
# ---------------------------------------------------------------------------------------


def test_apply_and_restore_both(dma_file: Path, rt_file: Path) -> None:
    t = make(dma_file, rt_file)
    t.apply()
    assert latency(dma_file) == 0
    assert open_fds_on(dma_file) == 1  # held open for the whole run
    assert rt_file.read_text().strip() == "-1"
    assert change(t, "cpu_dma_latency") == {
        "setting": "cpu_dma_latency",
        "original": DEFAULT_LATENCY_US,
        "applied": 0,
        "restored": False,
        "note": change(t, "cpu_dma_latency")["note"],
    }
    assert change(t, "sched_rt_runtime_us")["original"] == 950000
    assert change(t, "sched_rt_runtime_us")["applied"] == -1
    assert t.skipped == []

    t.restore()
    assert open_fds_on(dma_file) == 0
    assert rt_file.read_text().strip() == "950000"
    assert all(c["restored"] is True for c in t.changes)


def test_context_manager(dma_file: Path, rt_file: Path) -> None:
    with make(dma_file, rt_file) as t:
        assert isinstance(t, HostTuning)
        assert rt_file.read_text().strip() == "-1"
        assert open_fds_on(dma_file) == 1
    assert rt_file.read_text().strip() == "950000"
    assert open_fds_on(dma_file) == 0


def test_context_manager_restores_on_an_exception(dma_file: Path, rt_file: Path) -> None:
    with pytest.raises(RuntimeError), make(dma_file, rt_file):
        raise RuntimeError("scenario crashed")
    assert rt_file.read_text().strip() == "950000"
    assert open_fds_on(dma_file) == 0


def test_defaults_hold_latency_but_leave_throttling(
    dma_file: Path, rt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = HostTuning(cpu_dma_latency_path=dma_file, rt_runtime_path=rt_file)
    assert t.lift_rt_throttle is False
    with t:
        assert rt_file.read_text().strip() == "950000"
        assert latency(dma_file) == 0
    assert [c["setting"] for c in t.changes] == ["cpu_dma_latency"]


def test_nothing_requested_changes_nothing(dma_file: Path, rt_file: Path) -> None:
    with make(dma_file, rt_file, dma_on=False, rt_on=False) as t:
        assert latency(dma_file) == DEFAULT_LATENCY_US
        assert rt_file.read_text().strip() == "950000"
    assert t.changes == []
    assert t.skipped == []


# ---------------------------------------------------------------------------------------
# Idempotence
# ---------------------------------------------------------------------------------------


def test_apply_twice_applies_once(dma_file: Path, rt_file: Path) -> None:
    t = make(dma_file, rt_file)
    t.apply()
    t.apply()
    assert len(t.changes) == 2
    assert open_fds_on(dma_file) == 1
    # The second apply must not have read -1 as the original.
    assert change(t, "sched_rt_runtime_us")["original"] == 950000
    t.restore()
    assert rt_file.read_text().strip() == "950000"


def test_restore_twice_is_harmless(dma_file: Path, rt_file: Path) -> None:
    t = make(dma_file, rt_file)
    t.apply()
    t.restore()
    rt_file.write_text("900000\n")  # someone else changes it after the run
    t.restore()
    assert rt_file.read_text().strip() == "900000"
    assert open_fds_on(dma_file) == 0


def test_restore_without_apply_does_nothing(dma_file: Path, rt_file: Path) -> None:
    t = make(dma_file, rt_file)
    t.restore()
    assert rt_file.read_text().strip() == "950000"
    assert t.changes == []


# ---------------------------------------------------------------------------------------
# Missing files, no permission, odd contents: skipped, never raised
# ---------------------------------------------------------------------------------------


def test_absent_files_are_skipped(tmp_path: Path) -> None:
    t = make(tmp_path / "no_dma", tmp_path / "no_rt")
    t.apply()
    t.restore()
    assert t.changes == []
    assert {s["setting"] for s in t.skipped} == {"cpu_dma_latency", "sched_rt_runtime_us"}
    assert all("does not exist" in s["reason"] for s in t.skipped)


def test_no_permission_is_skipped(
    dma_file: Path, rt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root ignores file modes, so refuse the writes at the system call instead.
    real_open = os.open

    def refuse_writes(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    def refuse_runtime(self: HostTuning, value: int) -> None:
        raise PermissionError(13, "Permission denied", str(self.rt_runtime_path))

    monkeypatch.setattr(os, "open", refuse_writes)
    monkeypatch.setattr(HostTuning, "_write_rt_runtime", refuse_runtime)
    t = make(dma_file, rt_file)
    t.apply()
    monkeypatch.undo()
    t.restore()
    assert t.changes == []
    assert [s["setting"] for s in t.skipped] == ["sched_rt_runtime_us", "cpu_dma_latency"]
    assert all("no permission" in s["reason"] for s in t.skipped)
    assert latency(dma_file) == DEFAULT_LATENCY_US
    assert rt_file.read_text().strip() == "950000"


def test_throttling_already_lifted_is_left_alone(dma_file: Path, rt_file: Path) -> None:
    rt_file.write_text("-1\n")
    with make(dma_file, rt_file, dma_on=False) as t:
        pass
    assert t.changes == []
    assert t.skipped[0]["setting"] == "sched_rt_runtime_us"
    assert "already" in t.skipped[0]["reason"]
    assert rt_file.read_text().strip() == "-1"


def test_unreadable_runtime_is_skipped(dma_file: Path, rt_file: Path) -> None:
    rt_file.write_text("garbage\n")
    with make(dma_file, rt_file, dma_on=False) as t:
        pass
    assert t.changes == []
    assert "number" in t.skipped[0]["reason"]
    assert rt_file.read_text() == "garbage\n"


# ---------------------------------------------------------------------------------------
# Partial apply, failures during restore
# ---------------------------------------------------------------------------------------


def test_first_applied_second_fails_restore_puts_first_back(tmp_path: Path, rt_file: Path) -> None:
    not_a_device = tmp_path / "dir"
    not_a_device.mkdir()
    t = make(not_a_device, rt_file)
    t.apply()
    assert rt_file.read_text().strip() == "-1"
    assert [c["setting"] for c in t.changes] == ["sched_rt_runtime_us"]
    assert [s["setting"] for s in t.skipped] == ["cpu_dma_latency"]
    t.restore()
    assert rt_file.read_text().strip() == "950000"
    assert change(t, "sched_rt_runtime_us")["restored"] is True


def test_latency_held_when_throttling_fails(tmp_path: Path, dma_file: Path) -> None:
    t = make(dma_file, tmp_path / "absent" / "sched_rt_runtime_us")
    t.apply()
    assert open_fds_on(dma_file) == 1
    assert [s["setting"] for s in t.skipped] == ["sched_rt_runtime_us"]
    t.restore()
    assert open_fds_on(dma_file) == 0


def test_interrupt_during_apply_restores_what_was_applied(
    dma_file: Path, rt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: HostTuning) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(HostTuning, "_hold_cpu_dma_latency", interrupted)
    with pytest.raises(KeyboardInterrupt), make(dma_file, rt_file):
        pytest.fail("the body must not run")
    assert rt_file.read_text().strip() == "950000"


def test_failed_restore_is_recorded_and_retried(
    dma_file: Path, rt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = make(dma_file, rt_file)
    t.apply()
    real = HostTuning._write_rt_runtime

    def failing(self: HostTuning, value: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(HostTuning, "_write_rt_runtime", failing)
    t.restore()  # must not raise
    rt = change(t, "sched_rt_runtime_us")
    assert rt["restored"] is False
    assert "could not write 950000 back" in str(rt["note"])
    assert open_fds_on(dma_file) == 0  # the other setting is restored regardless

    monkeypatch.setattr(HostTuning, "_write_rt_runtime", real)
    t.restore()
    assert change(t, "sched_rt_runtime_us")["restored"] is True
    assert rt_file.read_text().strip() == "950000"


def test_forked_child_does_not_restore(
    dma_file: Path, rt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = make(dma_file, rt_file)
    t.apply()
    parent = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: parent + 1)
    t.restore()
    assert rt_file.read_text().strip() == "-1"
    monkeypatch.undo()
    t.restore()
    assert rt_file.read_text().strip() == "950000"


# ---------------------------------------------------------------------------------------
# atexit as the last resort
# ---------------------------------------------------------------------------------------


def test_atexit_hook_registered_while_throttling_is_lifted(
    dma_file: Path, rt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered: list[Callable[[], None]] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", registered.remove)
    t = make(dma_file, rt_file)
    t.apply()
    assert registered == [t.restore]
    registered[0]()  # what the interpreter would do at exit
    assert rt_file.read_text().strip() == "950000"
    assert registered == []


def test_no_atexit_hook_without_a_change(
    tmp_path: Path, dma_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered: list[Callable[[], None]] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", registered.remove)
    with make(dma_file, tmp_path / "absent"):
        assert registered == []


# ---------------------------------------------------------------------------------------
# The real host
# ---------------------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="changing host settings needs root")
def test_real_host_settings_are_put_back() -> None:
    runtime = Path(tuning.RT_RUNTIME_PATH)
    dma = Path(tuning.CPU_DMA_LATENCY_PATH)
    if not runtime.exists():
        pytest.skip(f"{runtime} does not exist")
    before = runtime.read_text()
    with HostTuning(lift_rt_throttle=True) as t:
        pass
    assert runtime.read_text() == before
    # Other processes may change the values concurrently, so check the records, not the
    # live values, for what happened during the run.
    for c in t.changes:
        assert c["restored"] is True
    if dma.exists():
        assert open_fds_on(dma) == 0
