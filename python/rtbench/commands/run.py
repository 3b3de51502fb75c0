# SPDX-License-Identifier: Apache-2.0
"""`rtbench run`: its options, and the run of each target asked for (one results
directory per target, and their comparison when there are several)."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rtbench import targets
from rtbench.commands import compare as compare_command
from rtbench.commands import store as store_history
from rtbench.errors import StorageError, UsageError
from rtbench.model import catalog
from rtbench.model.options import check_sets
from rtbench.model.results import (
    REPORT_FILE,
    RESULTS_FILE,
    ResultsDocument,
    read_samples,
    write_atomic,
)
from rtbench.report import html as html_report
from rtbench.report import terminal
from rtbench.report.common import short_caveat
from rtbench.run import parallel as runparallel
from rtbench.run import plan as runplan
from rtbench.run import runner
from rtbench.run.cpulock import CpuLock
from rtbench.run.progress import Progress
from rtbench.targets.base import Target
from rtbench.trace import choose as trace_choose
from rtbench.ui import color, err, nonnegative, raw_max

_SET_RE = re.compile(r"^[A-Za-z0-9_.\-]+=.+$")
COMPARISON_DIR = "comparison"  # in a multi-target run's results directory


def add_arguments(run: argparse.ArgumentParser) -> None:
    """Every option of `rtbench run`."""
    run.add_argument(
        "--profile", choices=catalog.PROFILES, default="quick", help="how long to measure"
    )
    run.add_argument(
        "--only",
        nargs="+",
        action="extend",
        default=[],
        metavar="PATTERN",
        help="run only ids or labels matching these shell patterns (sem.*, SEM-P-ARC)",
    )
    run.add_argument("--cpu", type=nonnegative, help="measurement CPU (default: the last one)")
    run.add_argument(
        "--out", type=Path, help="results directory (default: results/<time>-<profile>)"
    )
    run.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="scenario option passed to the core (iterations=1000, ...)",
    )
    run.add_argument(
        "--lift-rt-throttle",
        action="store_true",
        help="lift real-time throttling during the run (restored afterwards)",
    )
    run.add_argument(
        "--no-dma-latency",
        action="store_true",
        help="do not hold /dev/cpu_dma_latency at 0 during the run",
    )
    run.add_argument("--raw-max", type=raw_max, metavar="N", help="raw samples kept per metric")
    run.add_argument(
        "--wait",
        action="store_true",
        help="when another rtbench run measures on the same CPU, wait for it to end",
    )
    run.add_argument(
        "--trace",
        action="store_true",
        help="explain the kept samples: a kernel trace on Linux here, the code path "
        "(functions, instructions) on an emulated RTOS board (docs/tracing.md)",
    )
    run.add_argument(
        "--target",
        dest="targets",
        action="append",
        default=[],
        metavar="T",
        help="the machine to measure: local (default), ssh://[user@]host[:port], qemu:NAME; "
        "repeat for one result directory per target and a comparison (see `rtbench targets`)",
    )
    run.add_argument(
        "--parallel",
        type=runparallel.count,
        default=1,
        metavar="N",
        help="measure up to N targets at the same time; only targets that do not run on "
        "this machine's CPUs (SSH or serial boards, --deterministic emulators) may",
    )
    run.add_argument(
        "--deterministic",
        action="store_true",
        help="emulated targets only: the clock follows executed instructions (QEMU -icount), "
        "so figures count instructions and repeat from run to run (docs/targets.md)",
    )
    run.add_argument(
        "--libc",
        choices=targets.LIBCS,
        default="glibc",
        help="C library of the core built for the target (musl: a static musl build)",
    )
    run.add_argument(
        "--load",
        nargs="?",
        const="all",
        default=None,
        metavar="KINDS",
        help="background load during the run: sched,memory,io,network (default: all four)",
    )
    run.add_argument(
        "--load-on-measurement-cpu",
        action="store_true",
        help="run the load on the measured CPU(s) too, at SCHED_OTHER",
    )
    run.add_argument(
        "--cpus",
        metavar="all|LIST",
        help="timer.periodic.latency and os.noise: one measuring thread on each of these CPUs",
    )
    run.add_argument(
        "--duration",
        metavar="TIME",
        help="how long the timer and noise scenarios measure (60s, 10m, 2h)",
    )
    run.add_argument(
        "--length",
        metavar="TIME",
        help="scale the profile to about this wall time (endurance in 1h, standard in 10m)",
    )
    run.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="EXPR",
        help="a requirement, e.g. timer.periodic.latency:max<=100us (exit status 1 if missed)",
    )
    run.add_argument(
        "--require-file",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help='requirements from a TOML file (require = ["EXPR", ...])',
    )
    run.add_argument(
        "--break",
        dest="break_on_violation",
        action="store_true",
        help="stop the run at the first requirement violation (results are kept)",
    )
    store_history.add_store_options(run)


def _check_sets(sets: Sequence[str]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for item in sets:
        if not _SET_RE.match(item):
            raise UsageError(
                f"--set needs key=value (letters, digits, '.', '_', '-' in the key), not '{item}'."
            )
        key, _, value = item.partition("=")
        pairs.append((key, value))
    return tuple(pairs)


def check_out(out: Path | None, profile: str) -> Path:
    if out is None:
        stamp = dt.datetime.now().strftime("%Y-%m-%dT%H-%M-%S")
        base = Path("results") / f"{stamp}-{profile}"
        candidate, n = base, 2
        while candidate.exists():
            candidate = base.with_name(f"{base.name}-{n}")
            n += 1
        out = candidate
    if out.exists():
        if not out.is_dir():
            raise UsageError(f"--out {out} exists and is not a directory.")
        if (out / RESULTS_FILE).exists():
            raise UsageError(
                f"{out} already holds {RESULTS_FILE}; rtbench never overwrites results, "
                "so choose another --out."
            )
        if not os.access(out, os.W_OK | os.X_OK):
            raise UsageError(f"Cannot write to {out}: permission denied.")
        return out
    ancestor = out.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"Cannot create {out}: {ancestor} is not a directory.")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UsageError(f"Cannot create {out}: {ancestor} is not writable.")
    return out


def _create_out(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".rtbench-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise UsageError(f"Cannot write to {out}: {e.strerror or e}.") from None


def _target_dir(spec: str) -> str:
    """A folder name for one target's results in a multi-target run."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", spec).strip("-") or "target"


def run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """`rtbench run` as the command line asked it; the exit status."""
    specs = list(args.targets) or ["local"]
    if len(set(specs)) != len(specs):
        raise UsageError("Each --target may be given once.")
    chosen = [
        targets.parse(spec, libc=args.libc, deterministic=args.deterministic) for spec in specs
    ]
    refused = runparallel.refusal(chosen, args.parallel)
    if refused is not None:
        raise UsageError(refused)
    runplan.precheck(args, chosen)
    if args.trace:
        for target in chosen:
            trace_choose.prepare(target)
    sets = _check_sets(args.sets)
    scale = runner.deadline_scale()
    out = check_out(args.out, args.profile)
    asked = _Asked(args, argv, sets, scale)
    if len(chosen) == 1:
        return _run_on(chosen[0], asked, out)
    folders = [out / _target_dir(t.spec) for t in chosen]
    for folder in folders:
        check_out(folder, args.profile)  # never over what an earlier run stored there
    if (out / COMPARISON_DIR / compare_command.HTML_FILE).exists():
        raise UsageError(
            f"{out / COMPARISON_DIR} already holds a comparison; rtbench never overwrites "
            "results, so choose another --out."
        )
    statuses: list[int] = []
    if args.parallel > 1:
        where = dict(zip((t.spec for t in chosen), folders, strict=True))
        err(f"rtbench run: {len(chosen)} targets, up to {args.parallel} at a time")
        ran = runparallel.run_all(
            chosen, args.parallel, lambda t, console: _run_on(t, asked, where[t.spec], console)
        )
        statuses = [130 if s is None else s for s in ran]
    else:
        for target, folder in zip(chosen, folders, strict=True):
            err(f"rtbench run: target {target.spec}")
            status = _run_on(target, asked, folder)
            statuses.append(status)
            if status == 130:
                break
    done = [folder for folder in folders if (folder / RESULTS_FILE).is_file()]
    if len(done) > 1:
        # one system per target, the first target's the baseline
        compare_command.compare(
            [[folder] for folder in done], out=out / COMPARISON_DIR, color=color(sys.stdout)
        )
    return 130 if 130 in statuses else max(statuses)


@dataclass(frozen=True)
class _Asked:
    """What `rtbench run` was asked, checked, for every target alike."""

    args: argparse.Namespace
    argv: Sequence[str]
    sets: tuple[tuple[str, str], ...]
    scale: float


def _run_on(
    target: Target, asked: _Asked, out: Path, console: runparallel.Console | None = None
) -> int:
    con = console or runparallel.plain_console()
    try:
        target.open(con.err)
        return _run_opened(target, asked, out, con)
    finally:
        target.close()
        store_history.store_after_run(asked.args, out)  # whatever was measured, once stored


def _run_opened(target: Target, asked: _Asked, out: Path, con: runparallel.Console) -> int:
    args, argv, sets, scale = asked.args, asked.argv, asked.sets, asked.scale
    cpu = target.check_cpu(args.cpu)
    transport = target.transport()
    _meta, core_catalog = runner.query_catalog(transport, cpu)
    selection, unmatched = catalog.select(core_catalog, args.only)
    if unmatched:
        raise UsageError(f"No scenario id or label matches '{unmatched[0]}' (see `rtbench list`).")
    # the calibration runs in every run and gets the same options
    calibration = [u for u in core_catalog if u.name == runner.CALIBRATION]
    check_sets(sets, [*selection.units, *calibration])
    if args.only and not selection.units:
        raise UsageError(
            "None of the selected ids is implemented in this build, so nothing would be "
            "measured (see `rtbench list`)."
        )

    plan = runplan.prepare(args, core_catalog, selection, cpu, target.runs_here)
    trace_hooks = trace_choose.hooks(target, (cpu, *plan.measure.cpus)) if args.trace else []

    locks: list[CpuLock] = []  # held until this function returns
    if target.runs_here:
        # Two runs measuring on one CPU of this machine would disturb each other.
        locks = [CpuLock(c) for c in sorted({cpu, *plan.measure.cpus})]
        for lock in locks:  # every measured CPU
            lock.acquire(wait=args.wait, say=con.err)
    _create_out(out)
    snap = target.snapshot(cpu, cpu_given=args.cpu is not None)
    cavs = target.caveats(snap)
    for c in cavs:
        if args.lift_rt_throttle and c.get("code") == "rt_throttling":
            continue  # lifted for the run; the runner warns if that does not take
        if c.get("severity") == "warning":
            # What is wrong in a few words, and what to do; `rtbench system` and the
            # report have the whole text.
            con.warn(f"{short_caveat(c, 200)}. {c.get('advice', '')}".strip(". "))

    progress = Progress(con.stderr, interactive=con.interactive)
    ui = runner.Ui(
        warn=lambda text: progress.message(
            ("\x1b[33mwarning:\x1b[0m " if con.color_err else "warning: ") + text
        ),
        info=progress.message,
    )
    options = runner.RunOptions(
        profile=args.profile,
        patterns=tuple(args.only),
        cpu=cpu,
        out_dir=out,
        sets=sets,
        lift_rt_throttle=args.lift_rt_throttle,
        dma_latency=not args.no_dma_latency,
        raw_max=args.raw_max,
        deadline_scale=scale * (trace_choose.deadline_factor(target) if args.trace else 1.0),
        command_line=("rtbench", *argv),
        measure=plan.measure,
    )
    count = sum(1 for u in selection.units if u.name != runner.CALIBRATION)
    where = "" if target.runs_here else f"target {target.spec}, "
    progress.message(
        f"rtbench run: {where}profile {args.profile}, CPU {cpu}, the calibration and {count} "
        f"more scenario(s); results in {out}"
    )
    run = runner.Run(
        options,
        target,
        core_catalog,
        selection,
        snap,
        cavs,
        ui,
        progress,
        out.name,
        hooks=(*plan.hooks, *trace_hooks),
        should_stop=plan.should_stop,
        stop=con.stop,
    )
    doc = run.execute()
    failure = run.storage_failure
    if failure is None:
        try:
            doc = runplan.judge(plan, doc, out)
        except OSError as e:
            failure = f"cannot write {RESULTS_FILE} in {out}: {e.strerror or e}"
    if failure is None:
        try:
            _write_html(out, doc)
        except OSError as e:
            failure = f"cannot write {REPORT_FILE} in {out}: {e.strerror or e}"
    con.stdout.write(
        terminal.render(doc, color=con.color_out, location=str(out), width=con.width_out)
    )
    con.stdout.flush()
    if failure is not None:
        raise StorageError(
            f"{failure[0].upper()}{failure[1:]}; the run stopped there, what was stored "
            f"before is intact in {out}, and host settings were restored."
        )
    status = runner.exit_status(doc)
    if status == 130:
        con.err(f"Interrupted; what was measured is in {out}.")
    elif run.target_gone is not None:
        con.err(f"rtbench run: {run.target_gone}; what was measured is in {out}.")
    return status


def _write_html(out: Path, doc: ResultsDocument) -> None:
    series = {sf.path: read_samples(out, sf) for s in doc.scenarios for sf in s.samples}
    write_atomic(out / REPORT_FILE, html_report.render(doc, series))
