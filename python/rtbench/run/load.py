# SPDX-License-Identifier: Apache-2.0
"""--load: a background load beside the measurement, as a run hook.

Kinds (`--load KINDS`, comma-separated; `--load` alone is all four):

    sched    scheduler load: rt-tests' hackbench (tasks passing messages over
             pipes), or stress-ng's context-switch stressor when hackbench is
             missing
    memory   memory and cache pressure: stress-ng --vm and --cache
    io       file I/O: stress-ng --hdd in a scratch directory under the results
    network  loopback network traffic: stress-ng --sock

The load runs on the CPUs the run does not measure on. When every CPU is
measured (`--cpus all`), or with `--load-on-measurement-cpu`, it runs on the
measured CPUs too, under SCHED_OTHER, below the measuring threads' real-time
priority. It starts before the first unit, runs through every unit, and is
stopped and reaped on every exit path: each tool runs in a process group of
its own, which gets SIGTERM, then SIGKILL after a grace period. What ran (kinds,
tools, versions, command lines, CPUs, intensity) is stored as
run.conditions["load"].
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from rtbench.errors import RtbenchError, UsageError
from rtbench.model.catalog import CoreScenario
from rtbench.model.conditions import LOAD_KEY
from rtbench.model.results import ScenarioOutcome
from rtbench.run.hooks import HookContext

KINDS = ("sched", "memory", "io", "network")
KEY = LOAD_KEY  # where the load describes itself in run.conditions
START_CHECK_S = 0.5  # a tool that exits this soon did not start
STOP_GRACE_S = 3.0
GROUP_GONE_S = 5.0  # the longest wait for killed workers to be reaped
HACKBENCH_LOOPS = 1_000_000_000  # runs until stopped
HACKBENCH_GROUPS = 2
HACKBENCH_FDS = 10
VM_BYTES = "5%"  # of the memory available, per vm worker
HDD_BYTES = "64M"  # per hdd worker, rewritten over and over
NICE = 19  # the load's niceness (SCHED_OTHER)
TOOL_AT = 6  # where the tool is in a command line: taskset -c CPUS nice -n 19 TOOL


def parse_kinds(text: str | None) -> tuple[str, ...]:
    """`--load` (None or "all") or a list like `sched,io`."""
    if text is None or text.strip() in ("", "all"):
        return KINDS
    kinds: list[str] = []
    for part in text.split(","):
        kind = part.strip()
        if kind not in KINDS:
            raise UsageError(
                f"--load: unknown load kind '{kind}' (use {', '.join(KINDS)}, or all)."
            )
        if kind not in kinds:
            kinds.append(kind)
    return tuple(kinds)


@dataclass(frozen=True)
class Tools:
    """The load tools found on this system (absolute paths or None)."""

    stress_ng: str | None
    hackbench: str | None
    taskset: str | None

    @classmethod
    def find(cls) -> Tools:
        return cls(shutil.which("stress-ng"), shutil.which("hackbench"), shutil.which("taskset"))


def check_tools(kinds: Sequence[str], tools: Tools) -> None:
    """UsageError (one sentence) when a tool the kinds need is missing."""
    if tools.taskset is None:
        raise UsageError(
            "--load needs taskset (Debian package util-linux) to place the load on its CPUs."
        )
    needs_stress = any(k != "sched" for k in kinds) or (
        "sched" in kinds and tools.hackbench is None
    )
    if needs_stress and tools.stress_ng is None:
        raise UsageError(
            "--load needs stress-ng (Debian package stress-ng; rt-tests adds hackbench): "
            "install it with `apt-get install stress-ng rt-tests`."
        )


def _version(argv: Sequence[str], package: str) -> str | None:
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=10.0, check=False)
        first = (done.stdout or done.stderr).strip().splitlines()
        if done.returncode == 0 and first:
            return first[0]
    except (OSError, subprocess.TimeoutExpired):
        pass
    try:
        done = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", package],
            capture_output=True,
            text=True,
            timeout=10.0,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip():
            return f"{package} {done.stdout.strip()}"
    except (OSError, subprocess.TimeoutExpired):
        pass
    return None


@dataclass
class _Job:
    tool: str
    kinds: tuple[str, ...]
    argv: list[str]
    proc: subprocess.Popen[bytes] | None = None
    log: IO[bytes] | None = None
    ended: str | None = None  # why it ended before the run did


@dataclass
class LoadHook:
    """The background load of a run (rtbench.run.hooks.RunHook)."""

    kinds: tuple[str, ...]
    measured_cpus: tuple[int, ...]
    usable_cpus: tuple[int, ...]
    on_measurement_cpu: bool = False
    tools: Tools = field(default_factory=Tools.find)
    key: str = KEY
    _jobs: list[_Job] = field(default_factory=list)
    _scratch: Path | None = None
    _cpus: tuple[int, ...] = ()
    _shares: bool = False
    _versions: dict[str, str | None] = field(default_factory=dict)
    _ctx: HookContext | None = None
    _stopped: bool = False

    # ---- planning -----------------------------------------------------------

    def plan(self, scratch: Path) -> list[_Job]:
        """The command lines the kinds need, on the load CPUs."""
        others = tuple(c for c in self.usable_cpus if c not in self.measured_cpus)
        self._shares = self.on_measurement_cpu or not others
        self._cpus = tuple(sorted(set(self.usable_cpus))) if self._shares else others
        cpus = ",".join(str(c) for c in self._cpus)
        n = len(self._cpus)
        assert self.tools.taskset is not None
        # nice 19: below rtbench's own controller too, which must keep reading the
        # core's records on time (the watchdog counts); idle CPU time is the load's
        pin = [self.tools.taskset, "-c", cpus, "nice", "-n", str(NICE)]
        jobs: list[_Job] = []
        stress: list[str] = []
        if "sched" in self.kinds and self.tools.hackbench is not None:
            argv = [*pin, self.tools.hackbench, "--pipe", "-g", str(HACKBENCH_GROUPS)]
            argv += ["-f", str(HACKBENCH_FDS), "-l", str(HACKBENCH_LOOPS)]
            jobs.append(_Job("hackbench", ("sched",), argv))
        elif "sched" in self.kinds:
            stress += ["--switch", str(n)]
        if "memory" in self.kinds:
            stress += ["--vm", str(n), "--vm-bytes", VM_BYTES, "--cache", str(n)]
        if "io" in self.kinds:
            stress += ["--hdd", "1", "--hdd-bytes", HDD_BYTES]
        if "network" in self.kinds:
            stress += ["--sock", str(n)]
        if stress:
            assert self.tools.stress_ng is not None
            argv = [*pin, self.tools.stress_ng, *stress, "--taskset", cpus]
            argv += ["--temp-path", str(scratch), "--timeout", "0"]
            kinds = tuple(k for k in self.kinds if k != "sched" or self.tools.hackbench is None)
            jobs.append(_Job("stress-ng", kinds, argv))
        return jobs

    # ---- the hook -----------------------------------------------------------

    def start(self, ctx: HookContext) -> None:
        self._ctx = ctx
        check_tools(self.kinds, self.tools)
        self._scratch = Path(tempfile.mkdtemp(prefix="rtbench-load-", dir=ctx.out_dir))
        atexit.register(self.stop)
        self._jobs = self.plan(self._scratch)
        for job in self._jobs:
            package = "stress-ng" if job.tool == "stress-ng" else "rt-tests"
            self._versions[job.tool] = _version([job.argv[TOOL_AT], "--version"], package)
        try:
            for job in self._jobs:
                job.log = (ctx.out_dir / f"load-{job.tool}.log").open("wb")
                job.proc = subprocess.Popen(
                    job.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=job.log,
                    stderr=subprocess.STDOUT,
                    process_group=0,  # its own group: stopped as a whole, no terminal signals
                )
            time.sleep(START_CHECK_S)
            for job in self._jobs:
                assert job.proc is not None
                code = job.proc.poll()
                if code is not None:
                    raise RtbenchError(
                        f"The {job.tool} load exited at once with status {code} "
                        f"(its output is in {ctx.out_dir / f'load-{job.tool}.log'})."
                    )
        except OSError as e:
            self.stop()
            raise RtbenchError(f"Cannot start the load: {e.strerror or e}.") from None
        except RtbenchError:
            self.stop()
            raise
        where = ",".join(str(c) for c in self._cpus)
        ctx.info(
            f"Load: {', '.join(self.kinds)} on CPU(s) {where}"
            + (" (SCHED_OTHER, beside the measurement)" if self._shares else "")
            + " with "
            + " and ".join(j.tool for j in self._jobs)
            + "."
        )

    def before_unit(self, unit: CoreScenario) -> list[str]:
        return []

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome:
        for job in self._jobs:
            if job.proc is not None and job.ended is None:
                code = job.proc.poll()
                if code is not None:
                    job.ended = f"exited with status {code} during {unit.name}"
                    if self._ctx is not None:
                        self._ctx.warn(
                            f"The {job.tool} load {job.ended}; later scenarios ran without it."
                        )
        return outcome

    def stop(self) -> None:
        """Stop and reap every load process; idempotent, never raises."""
        if self._stopped:
            return
        self._stopped = True
        try:
            atexit.unregister(self.stop)
            running = [j for j in self._jobs if j.proc is not None]
            for job in running:
                _signal_group(job, signal.SIGTERM)
            deadline = time.monotonic() + STOP_GRACE_S
            for job in running:
                assert job.proc is not None
                with contextlib.suppress(subprocess.TimeoutExpired):
                    job.proc.wait(max(deadline - time.monotonic(), 0.01))
            for job in running:
                # the group's other members (workers) too, even when the leader is gone
                _signal_group(job, signal.SIGKILL)
                assert job.proc is not None
                with contextlib.suppress(subprocess.TimeoutExpired):
                    job.proc.wait(5.0)
            # the workers the leader did not reap are reparented and reaped by
            # the system; wait (bounded) until every group is empty
            until = time.monotonic() + GROUP_GONE_S
            while time.monotonic() < until and any(_group_alive(j) for j in running):
                for job in running:
                    _signal_group(job, signal.SIGKILL)
                time.sleep(0.05)
            for job in self._jobs:
                if job.log is not None:
                    job.log.close()
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
        except Exception:
            pass

    def describe(self) -> dict[str, Any]:
        return {
            "kinds": list(self.kinds),
            "cpus": list(self._cpus),
            "on_measurement_cpu": self._shares,
            "policy": "SCHED_OTHER",
            "nice": NICE,
            "tools": [
                {
                    "tool": j.tool,
                    "kinds": list(j.kinds),
                    "version": self._versions.get(j.tool),
                    "command_line": j.argv,
                    # the process (and group) id, for checking that nothing is left
                    "pid": None if j.proc is None else j.proc.pid,
                    **({"ended": j.ended} if j.ended else {}),
                }
                for j in self._jobs
            ],
            "intensity": self.intensity(),
        }

    def intensity(self) -> dict[str, Any]:
        n = len(self._cpus)
        out: dict[str, Any] = {}
        if "sched" in self.kinds:
            if self.tools.hackbench is not None:
                tasks = HACKBENCH_GROUPS * HACKBENCH_FDS * 2
                out["sched"] = f"hackbench: {HACKBENCH_GROUPS} groups, {tasks} tasks over pipes"
            else:
                out["sched"] = f"stress-ng switch: {n} workers"
        if "memory" in self.kinds:
            out["memory"] = f"stress-ng vm: {n} workers of {VM_BYTES}; cache: {n} workers"
        if "io" in self.kinds:
            out["io"] = f"stress-ng hdd: 1 worker writing {HDD_BYTES}"
        if "network" in self.kinds:
            out["network"] = f"stress-ng sock: {n} loopback pairs"
        return out


def _group_alive(job: _Job) -> bool:
    if job.proc is None:
        return False
    try:
        os.killpg(job.proc.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(job: _Job, signo: int) -> None:
    if job.proc is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(job.proc.pid, signo)
