# SPDX-License-Identifier: Apache-2.0
"""The `rtbench` command line: run, list, system, show, compare, import, targets.

Bad input is one sentence on the error stream and exit status 2; nothing
already stored is touched before every input has been checked.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO

from rtbench import __version__, build, system, targets
from rtbench.compare import command as compare_command
from rtbench.errors import RtbenchError, StorageError, UsageError
from rtbench.importers import import_file
from rtbench.model import catalog
from rtbench.model.options import check_sets
from rtbench.model.options import render as render_options
from rtbench.model.results import (
    REPORT_FILE,
    RESULTS_FILE,
    ResultsDocument,
    load,
    read_samples,
    write_atomic,
)
from rtbench.paths import ROOT
from rtbench.report import formats, terminal
from rtbench.report import html as html_report
from rtbench.report.common import short_caveat
from rtbench.run import plan as runplan
from rtbench.run import runner
from rtbench.run.cpulock import CpuLock
from rtbench.run.progress import Progress
from rtbench.targets.base import Target
from rtbench.trace import choose as trace_choose
from rtbench.trace.export import command as trace_command
from rtbench.transport import LocalProcess

_SET_RE = re.compile(r"^[A-Za-z0-9_.\-]+=.+$")
_SIGNED = re.compile(r"^-\.?\d")  # a value such as -5s, -1,2 or -.5
RAW_MAX_LIMIT = 100_000_000  # the core's bound on --raw-max
COMPARISON_DIR = "comparison"  # in a multi-target run's results directory


class _Parser(argparse.ArgumentParser):
    """argparse with one-sentence errors (raised, so main prints them)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(_usage_sentence(self.prog, message))


def _usage_sentence(prog: str, message: str) -> str:
    match = re.match(r"argument (\S+?)(?:/\S+)?: invalid choice: '([^']*)'", message)
    if match and match.group(1) == "--profile":
        return f"{prog}: unknown profile '{match.group(2)}' (use quick, standard or endurance)."
    if match and match.group(1).startswith(("command", "{run,")):
        return (
            f"{prog}: unknown command '{match.group(2)}' "
            "(use run, list, system, show, compare, import or targets)."
        )
    text = message[0].upper() + message[1:] if message else "Invalid arguments"
    return f"{prog}: {text.rstrip('.')}."


def _color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _width(stream: TextIO) -> int:
    """Columns for one-line summaries: the terminal's, or 120 off a terminal."""
    if stream.isatty():
        return min(max(shutil.get_terminal_size((100, 24)).columns, 60), 200)
    return 120


def _nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return value


def _raw_max(text: str) -> int:
    value = _nonnegative(text)
    if value > RAW_MAX_LIMIT:
        raise argparse.ArgumentTypeError(
            f"'{text}' is more than the core keeps ({RAW_MAX_LIMIT:,})"
        )
    return value


def _option_named(parser: argparse.ArgumentParser, word: str) -> argparse.Action | None:
    """The option a word names, whole or abbreviated as argparse allows (`--dur`)."""
    if word in parser._option_string_actions:
        return parser._option_string_actions[word]
    if not word.startswith("--") or "=" in word:
        return None
    found = {id(a): a for o, a in parser._option_string_actions.items() if o.startswith(word)}
    return next(iter(found.values())) if len(found) == 1 else None


def attach_signed_values(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """`--duration -5s` as `--duration=-5s`, for every option of every command that
    takes one value. argparse reads a word that starts with '-' as an option unless it
    looks like a plain negative number ('-5', but not '-5s' or '-1,2'), and then says
    only "expected one argument"; attached, the value reaches the option's own check,
    which says what is wrong with it."""
    out: list[str] = []
    current = parser
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            return [*out, *argv[index:]]
        action = _option_named(current, word)
        following = argv[index + 1] if index + 1 < len(argv) else ""
        if action is not None and action.nargs is None and _SIGNED.match(following):
            out.append(f"{word}={following}")
            index += 2
            continue
        for sub in current._actions:
            if isinstance(sub, argparse._SubParsersAction) and word in sub.choices:
                current = sub.choices[word]  # the command's own options from here on
        out.append(word)
        index += 1
    return out


def build_parser() -> _Parser:
    parser = _Parser(
        prog="rtbench",
        description="Evaluate how this system behaves and performs for real-time work.",
    )
    parser.add_argument("--version", action="version", version=f"rtbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)

    run = sub.add_parser("run", help="run the scenarios and write a results directory")
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
    run.add_argument("--cpu", type=_nonnegative, help="measurement CPU (default: the last one)")
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
    run.add_argument("--raw-max", type=_raw_max, metavar="N", help="raw samples kept per metric")
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
    runplan.add_arguments(run)

    lst = sub.add_parser("list", help="show the scenario catalog")
    lst.add_argument("--json", action="store_true", help="machine-readable output")
    lst.add_argument(
        "--options", action="store_true", help="the options each scenario takes (--set)"
    )

    sysp = sub.add_parser("system", help="describe this host and what may disturb measurements")
    sysp.add_argument("--json", action="store_true", help="machine-readable output")
    sysp.add_argument("--cpu", type=_nonnegative, help="measurement CPU to check")
    sysp.add_argument(
        "--target", default="local", metavar="T", help="the machine to describe (default: local)"
    )

    show = sub.add_parser("show", help="print the report of a stored run")
    show.add_argument("path", type=Path, metavar="DIR", help="results directory or results.json")
    show.add_argument(
        "--details",
        action="store_true",
        help="every statistic, verdict evidence and table (default: the one-screen summary)",
    )
    show.add_argument(
        "--format",
        choices=formats.FORMATS,
        default=None,
        help="text (default), markdown, csv, json",
    )
    show.add_argument(
        "--reference",
        action="store_true",
        help="add the published figures (QNX, CE7, Linux-rt, Android; 2011-2012)",
    )

    compare_command.add_parser(sub)
    trace_command.add_parser(sub)

    tgt = sub.add_parser(
        "targets", help="the kinds of target rtbench can measure, and what each needs"
    )
    tgt.add_argument("--json", action="store_true", help="machine-readable output")

    imp = sub.add_parser(
        "import", help="turn a cyclictest or oslat --json file into a results directory"
    )
    imp.add_argument("file", type=Path, metavar="FILE", help="cyclictest or oslat JSON output")
    imp.add_argument(
        "--out", type=Path, help="results directory to create (default: results/<file>-imported)"
    )
    return parser


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _warn(text: str) -> None:
    prefix = "\x1b[33mwarning:\x1b[0m" if _color(sys.stderr) else "warning:"
    _err(f"{prefix} {text}")


def _styled(command: str | None, message: str) -> str:
    """Every error in one style: `rtbench <command>: <sentence>`."""
    if message.startswith("rtbench"):
        return message
    prog = f"rtbench {command}" if command else "rtbench"
    return f"{prog}: {message}"


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    command: str | None = None
    parser = build_parser()
    if not args_list:
        sys.stderr.write(parser.format_usage())
        _err("rtbench: a command is needed; `rtbench --help` says what each one does.")
        return 2
    try:
        args = parser.parse_args(attach_signed_values(parser, args_list))
        command = args.command
        if args.command == "run":
            return cmd_run(args, args_list)
        if args.command == "list":
            return cmd_list(args)
        if args.command == "system":
            return cmd_system(args)
        if args.command == "compare":
            return compare_command.run(args, _color(sys.stdout))
        if args.command == "import":
            return cmd_import(args)
        if args.command == "targets":
            return cmd_targets(args)
        if args.command == "trace":
            return trace_command.run(args)
        return cmd_show(args)
    except RtbenchError as e:
        _err(_styled(command, str(e)))
        return e.exit_status
    except KeyboardInterrupt:
        _err("Interrupted.")
        return 130
    except BrokenPipeError:
        return 1


# ---- helpers shared by commands --------------------------------------------


def _core(announce: bool = True) -> Path:
    return build.ensure_core(ROOT, _err if announce else (lambda _text: None))


# ---- run -----------------------------------------------------------------


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


def _check_out(out: Path | None, profile: str) -> Path:
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


def cmd_run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    specs = list(args.targets) or ["local"]
    if len(set(specs)) != len(specs):
        raise UsageError("Each --target may be given once.")
    chosen = [
        targets.parse(spec, libc=args.libc, deterministic=args.deterministic) for spec in specs
    ]
    runplan.precheck(args, chosen)
    if args.trace:
        for target in chosen:
            trace_choose.prepare(target)
    sets = _check_sets(args.sets)
    scale = runner.deadline_scale()
    out = _check_out(args.out, args.profile)
    asked = _Asked(args, argv, sets, scale)
    if len(chosen) == 1:
        return _run_on(chosen[0], asked, out)
    folders = [out / _target_dir(t.spec) for t in chosen]
    for folder in folders:
        _check_out(folder, args.profile)  # never over what an earlier run stored there
    if (out / COMPARISON_DIR / compare_command.HTML_FILE).exists():
        raise UsageError(
            f"{out / COMPARISON_DIR} already holds a comparison; rtbench never overwrites "
            "results, so choose another --out."
        )
    statuses: list[int] = []
    done: list[Path] = []
    for target, folder in zip(chosen, folders, strict=True):
        _err(f"rtbench run: target {target.spec}")
        status = _run_on(target, asked, folder)
        statuses.append(status)
        if (folder / RESULTS_FILE).is_file():
            done.append(folder)
        if status == 130:
            break
    if len(done) > 1:
        # one system per target, the first target's the baseline
        compare_command.compare(
            [[folder] for folder in done], out=out / COMPARISON_DIR, color=_color(sys.stdout)
        )
    return 130 if 130 in statuses else max(statuses)


@dataclass(frozen=True)
class _Asked:
    """What `rtbench run` was asked, checked, for every target alike."""

    args: argparse.Namespace
    argv: Sequence[str]
    sets: tuple[tuple[str, str], ...]
    scale: float


def _run_on(target: Target, asked: _Asked, out: Path) -> int:
    try:
        target.open(_err)
        return _run_opened(target, asked, out)
    finally:
        target.close()


def _run_opened(target: Target, asked: _Asked, out: Path) -> int:
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
            lock.acquire(wait=args.wait, say=_err)
    _create_out(out)
    snap = target.snapshot(cpu, cpu_given=args.cpu is not None)
    cavs = target.caveats(snap)
    for c in cavs:
        if args.lift_rt_throttle and c.get("code") == "rt_throttling":
            continue  # lifted for the run; the runner warns if that does not take
        if c.get("severity") == "warning":
            # What is wrong in a few words, and what to do; `rtbench system` and the
            # report have the whole text.
            _warn(f"{short_caveat(c, 200)}. {c.get('advice', '')}".strip(". "))

    progress = Progress(sys.stderr, interactive=sys.stderr.isatty())
    ui = runner.Ui(
        warn=lambda text: progress.message(
            ("\x1b[33mwarning:\x1b[0m " if _color(sys.stderr) else "warning: ") + text
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
    sys.stdout.write(
        terminal.render(doc, color=_color(sys.stdout), location=str(out), width=_width(sys.stdout))
    )
    sys.stdout.flush()
    if failure is not None:
        raise StorageError(
            f"{failure[0].upper()}{failure[1:]}; the run stopped there, what was stored "
            f"before is intact in {out}, and host settings were restored."
        )
    status = runner.exit_status(doc)
    if status == 130:
        _err(f"Interrupted; what was measured is in {out}.")
    elif run.target_gone is not None:
        _err(f"rtbench run: {run.target_gone}; what was measured is in {out}.")
    return status


def _write_html(out: Path, doc: ResultsDocument) -> None:
    series = {sf.path: read_samples(out, sf) for s in doc.scenarios for sf in s.samples}
    write_atomic(out / REPORT_FILE, html_report.render(doc, series))


# ---- list, system, show ------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    core = _core()
    transport = LocalProcess(core)
    _meta, core_catalog = runner.query_catalog(transport, system.default_cpu())
    listed = catalog.merged(core_catalog)
    if args.options:
        sys.stdout.write(render_options(core_catalog))
        return 0
    if args.json:
        sys.stdout.write(json.dumps(catalog.to_json(listed), indent=1) + "\n")
    else:
        sys.stdout.write(catalog.render(listed))
    return 0


def cmd_system(args: argparse.Namespace) -> int:
    target = targets.parse(args.target)
    try:
        target.open(_err)
        cpu = target.check_cpu(args.cpu)
        snap = target.snapshot(cpu, cpu_given=args.cpu is not None)
        cavs = target.caveats(snap)
    finally:
        target.close()
    if args.json:
        data: dict[str, Any] = {"snapshot": snap, "caveats": cavs}
        sys.stdout.write(json.dumps(data, indent=1, default=str) + "\n")
    else:
        text = target.render_snapshot(snap, cavs)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    doc = load(args.path)
    location = args.path if args.path.is_dir() else args.path.parent
    if args.format is None and not args.reference:
        sys.stdout.write(
            terminal.render(
                doc,
                color=_color(sys.stdout),
                location=str(location),
                details=args.details,
                width=_width(sys.stdout),
            )
        )
        return 0
    if args.reference and args.format == "csv":
        raise UsageError("--reference works with --format text, markdown or json, not csv.")
    data = formats.render(
        doc,
        args.format or "text",
        location=str(location),
        with_reference=args.reference,
        details=args.details,
    )
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


def cmd_targets(args: argparse.Namespace) -> int:
    rows = targets.available()
    if args.json:
        data = [
            {
                "kind": kind.name,
                "syntax": kind.syntax,
                "summary": kind.summary,
                "needs": kind.needs,
                "usable": why is None,
                "why_not": why,
            }
            for kind, why in rows
        ]
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return 0
    width = max(len(kind.syntax) for kind, _ in rows)
    for kind, why in rows:
        state = "ready" if why is None else f"not usable here: {why}"
        sys.stdout.write(f"{kind.syntax:<{width}}  {kind.summary} ({state})\n")
        sys.stdout.write(f"{'':<{width}}  needs: {kind.needs}\n")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    out = args.out
    if out is None:
        out = Path("results") / f"{args.file.stem}-imported"
    out = _check_out(out, "imported")
    doc = import_file(args.file, out)
    sys.stdout.write(
        f"imported {args.file} ({doc.run.source and doc.run.source.get('tool')}) into {out}\n"
    )
    return 0
