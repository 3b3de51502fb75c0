# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: the repository, a built core, a way to run the CLI and to read
the results a run wrote."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rtbench import build, system, targets
from rtbench import cli as rtbench_cli
from rtbench.model import records
from rtbench.model.results import RESULTS_FILE
from rtbench.paths import ROOT

FIXTURES = Path(__file__).parent / "fixtures"
FAKECORE = Path(__file__).parent / "fakecore.py"

RunCli = Callable[..., subprocess.CompletedProcess[str]]


def read_jsonl(name: str) -> list[dict[str, Any]]:
    """The records of a fixture file."""
    with (FIXTURES / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_results(out: Path) -> dict[str, Any]:
    """The results document a run wrote in `out`, checked against the schema."""
    data = json.loads((out / RESULTS_FILE).read_text())
    records.validate(data, "results")
    assert isinstance(data, dict)
    return data


HOST_GROUP = "host-settings"
# seconds each module took in a whole run (tests/python/module_times.py writes it)
MODULE_SECONDS = Path(__file__).parent / "module_seconds.json"


def _module(item: pytest.Item) -> str:
    return Path(item.nodeid.split("::", 1)[0]).name


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The groups pytest-xdist's `--dist loadgroup` hands out whole (tests/run):
    every module is one group, so its module fixtures (a booted guest, a traced
    board run) are built once; the modules marked host_settings together are one
    more, run in turn on one worker. The host group goes first, then the other
    modules from the longest to the shortest as last measured (modules not
    measured yet after them, in their order), so that no long module starts
    last. Runs before xdist's own hook, which reads the marks."""
    seconds: dict[str, float] = (
        json.loads(MODULE_SECONDS.read_text()) if MODULE_SECONDS.is_file() else {}
    )
    host = [i for i in items if i.get_closest_marker("host_settings") is not None]
    rest = [i for i in items if i.get_closest_marker("host_settings") is None]
    for item in host:
        item.add_marker(pytest.mark.xdist_group(HOST_GROUP))
    for item in rest:
        item.add_marker(pytest.mark.xdist_group(_module(item)))
    # a stable sort keeps each module's tests in their order
    rest.sort(key=lambda item: -seconds.get(_module(item), 0.0))
    items[:] = host + rest


# The modules marked host_settings read or change this machine's real-time
# settings (a run that lifts RT throttling, this machine's tracefs, an SSH
# target in a network namespace of this machine, a lab coordinator). Under
# `--dist loadgroup` they run in turn on one worker; each also holds a lock
# while it runs, shared by every pytest on this machine that has the same
# temporary folder's parent (workers of one run, or runs started by hand beside
# it), so no two of them change the settings at the same time.
@pytest.fixture(scope="module", autouse=True)
def _host_settings_one_at_a_time(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    if request.node.get_closest_marker("host_settings") is None:
        yield
        return
    # the workers' temporary folders share this parent
    lock_path = tmp_path_factory.getbasetemp().parent / "rtbench-host-settings.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def _isolated_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every run the tests start stores its history in a temporary database, never
    in the user's data folder (RTBENCH_STORE, inherited by the CLI's processes)."""
    data = tmp_path_factory.mktemp("xdg-data")
    os.environ["XDG_DATA_HOME"] = str(data)
    os.environ["RTBENCH_STORE"] = str(data / "rtbench" / "store.sqlite")


@pytest.fixture(scope="session")
def core_binary() -> Path:
    """rtbench-core built for this host (built once per session when needed)."""
    os.environ.pop(build.CORE_ENV, None)
    return build.ensure_core(ROOT, lambda _text: None)


@pytest.fixture(scope="session")
def measurement_cpu() -> int:
    return system.default_cpu()


def cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run `python -m rtbench ARGS` in `cwd`; returns the completed process."""
    full_env = dict(os.environ)
    full_env.pop(build.CORE_ENV, None)
    full_env.pop("RTBENCH_DEADLINE_SCALE", None)
    full_env["PYTHONPATH"] = str(ROOT / "python")
    full_env["NO_COLOR"] = "1"
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "rtbench", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def run_cli(core_binary: Path, tmp_path: Path) -> RunCli:
    """Run `python -m rtbench ARGS` in a scratch folder; returns the completed process."""

    def run(
        *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        # each test's runs lock their measurement CPU among themselves only
        return cli(
            *args, cwd=tmp_path, env={"RTBENCH_LOCK_DIR": str(tmp_path), **(env or {})},
            timeout=timeout,
        )  # fmt: skip

    return run


@dataclass(frozen=True)
class QuickRun:
    """`rtbench run --profile quick` of this host, done once per test session."""

    out: Path
    done: subprocess.CompletedProcess[str]


@pytest.fixture(scope="session")
def quick_run(core_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> QuickRun:
    folder = tmp_path_factory.mktemp("quick")
    out = folder / "quick"
    done = cli(
        "run", "--profile", "quick", "--out", str(out), cwd=folder, timeout=900,
        env={"RTBENCH_LOCK_DIR": str(folder)},
    )  # fmt: skip
    return QuickRun(out, done)


def fake_core_env(core_binary: Path, mode: str, target: str = "") -> dict[str, str]:
    """Environment that makes rtbench use the misbehaving fake core."""
    return {
        build.CORE_ENV: str(FAKECORE),
        "FAKECORE_REAL": str(core_binary),
        "FAKECORE_MODE": mode,
        "FAKECORE_TARGET": target,
    }


@dataclass(frozen=True)
class _BoardTarget:
    """A target of a kind that --trace cannot trace (only what the CLI reads before
    any target is opened)."""

    spec: str
    kind: str = "board"
    runs_here: bool = False

    def tracing(self) -> None:
        return None


def run_with_untraceable_kind(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """`rtbench ARGS` run here, with a target kind `board:NAME` registered for the test:
    every target rtbench has can be traced, so this one stands for a kind that cannot.
    (exit status, standard output, standard error)."""
    kind = targets.Kind(
        name="board",
        syntax="board:NAME",
        summary="a kind --trace cannot trace",
        needs="nothing",
        ready=lambda: None,
        make=lambda spec, _libc: _BoardTarget(spec),  # type: ignore[arg-type,return-value]
    )
    monkeypatch.setitem(targets.KINDS, "board", kind)
    status = rtbench_cli.main(list(args))
    said = capsys.readouterr()
    return status, said.out, said.err
