# SPDX-License-Identifier: Apache-2.0
"""An RTOS on an emulated board, as a target: `qemu:<rtos>-<board>[,icount=SHIFT,...]`.

`open` builds the RTOS's image (targets.firmware.image: rtbench's port built
against the sources the RTOS's variable names), boots it under QEMU and waits
for its `ready` line. The image speaks the serial line protocol on the board's
first UART: each scenario is one `#rtb run` of the core inside the image, whose
records come back on the line, and the same watchdog, `lost` handling and
recovery as for Debian guests apply (a hung or crashed image ends QEMU, the
unit is `lost`, and the next one runs in a fresh boot).

The board has one CPU (0). System facts come from the image's
`/rtbench/<rtos>.json` (the RTOS's release and configuration, the board, CPU and
counter) and from the sources (their tag, commit and digest). The image holds
no settings a run would change. Every figure is emulated (TCG); with
`icount=SHIFT`, and by default (shift DETERMINISTIC_SHIFT, as `rtbench run
--deterministic`), the board's clock follows executed instructions, so figures
count instructions and repeat from run to run; `icount=off` keeps the host's
wall clock (figures of the emulator on this host, never rated by compare).
`--trace` follows the code path of the kept samples in QEMU's execution log.

Written once for every RTOS: what differs is an `Rtos` (targets.firmware.rtoses).
Test hook: RTBENCH_FIRMWARE_QEMU names a command (split like a shell would)
started instead of the board's emulator, with the same arguments.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shlex
from typing import Any

from rtbench.errors import UsageError
from rtbench.model.views import modified_text
from rtbench.paths import ROOT
from rtbench.system.model import SNAPSHOT_VERSION
from rtbench.targets.base import Say, Tracing
from rtbench.targets.firmware import image as firmware_image
from rtbench.targets.firmware import size, variant
from rtbench.targets.firmware.boards import BOARDS, Board, BoardLaunch
from rtbench.targets.firmware.rtos import Rtos
from rtbench.targets.firmware.rtoses import RTOSES
from rtbench.targets.qemu.exec_log import ExecLog, Firmware
from rtbench.targets.qemu.process import (
    GuestError,
    QemuBase,
    deterministic_info,
    emulation_caveats,
)
from rtbench.transport import TargetLost

EMULATOR_ENV = "RTBENCH_FIRMWARE_QEMU"
BOOT_TIMEOUT_S = 60.0
# --deterministic without icount=: 2^5 = 32 ns per instruction, the power of two
# nearest the 40 ns cycle of the board's 25 MHz Cortex-M3 (about one instruction
# a cycle), so the RTOS tick and the scenarios' timers keep their proportions to
# the code; one 40 ns tick of the board's counter is then 1.25 instructions.
DETERMINISTIC_SHIFT = 5
MAX_SHIFT = 10


def split_name(spec: str) -> tuple[Rtos, Board] | None:
    """The RTOS and board `qemu:<rtos>-<board>[,...]` names, None when it names none."""
    name = spec.removeprefix("qemu:").split(",", 1)[0]
    for rtos in RTOSES.values():
        if name.startswith(rtos.name + "-"):
            board_name = name.removeprefix(rtos.name + "-")
            board = BOARDS.get(board_name) if board_name in rtos.boards else None
            return (rtos, board) if board is not None else None
    return None


def names(rtos: Rtos) -> str:
    """`qemu:freertos-mps2-an385` for each board."""
    return ", ".join(f"qemu:{rtos.name}-{b}" for b in rtos.boards)


Settings = tuple[tuple[str, str], ...]


def parse_spec(spec: str) -> tuple[Rtos, Board, int | None, Settings, Settings]:
    """The RTOS, board, icount shift, build options and configuration settings of
    `qemu:<rtos>-<board>[,icount=SHIFT][,OPTION=VALUE...][,config=KEY=VALUE;...]`,
    or UsageError."""
    name, *pairs = spec.removeprefix("qemu:").split(",")
    found = split_name(spec)
    if found is None:
        rtos = next((r for r in RTOSES.values() if name.startswith(r.name + "-")), None)
        known = names(rtos) if rtos else ", ".join(names(r) for r in RTOSES.values())
        what = f"{rtos.display} board" if rtos else "RTOS or board"
        raise UsageError(f"Unknown {what} in '{spec}' (use {known}).")
    rtos, board = found
    allowed = {"icount": None, "config": None, **{o.name: o for o in rtos.options}}
    takes = ", ".join(
        [
            "icount=SHIFT|off",
            *(f"{o.name}={'|'.join(o.values)}" for o in rtos.options),
            "config=KEY=VALUE;...",
        ]
    )
    values: dict[str, str] = {}
    for pair in _split_options(pairs):
        key, sep, value = pair.partition("=")
        if key not in allowed or not sep or key in values:
            raise UsageError(f"Unknown or repeated option '{pair}' for {name} (it takes {takes}).")
        values[key] = value
    # Exact by default: an emulated board's wall clock measures the emulator on
    # this host, not the RTOS, so without icount= the clock follows instructions
    # (DETERMINISTIC_SHIFT); icount=off asks for the host's wall clock.
    icount: int | None = DETERMINISTIC_SHIFT
    if "icount" in values:
        value = values.pop("icount")
        if value == "off":
            icount = None
        elif not re.fullmatch(r"\d+", value) or int(value) > MAX_SHIFT:
            raise UsageError(
                f"The option icount={value} must be off or a whole number from 0 to {MAX_SHIFT}."
            )
        else:
            icount = int(value)
    options: list[tuple[str, str]] = []
    for option in rtos.options:
        value = values.get(option.name, option.default)
        if value not in option.values:
            raise UsageError(
                f"The option {option.name}={value} must be {' or '.join(option.values)} "
                f"({option.help})."
            )
        if value != option.default:
            options.append((option.name, value))
    settings = variant.parse(rtos, values["config"]) if "config" in values else ()
    return rtos, board, icount, tuple(options), settings


def _split_options(pairs: list[str]) -> list[str]:
    """The spec's options: a `config=` list may itself hold commas in a value's
    expression, so everything after `config=` up to the next known option is one."""
    out: list[str] = []
    for pair in pairs:
        if out and out[-1].startswith("config=") and not re.match(r"[a-z_]+=", pair):
            out[-1] += "," + pair
        else:
            out.append(pair)
    return out


def _emulator(board: Board) -> tuple[str, ...]:
    hook = os.environ.get(EMULATOR_ENV, "").strip()
    return tuple(shlex.split(hook)) if hook else (board.qemu,)


def ready(rtos: Rtos) -> str | None:
    """None when `rtos`'s image can be built and booted here, else what is missing
    and how to get it."""
    board = next(iter(BOARDS.values()))
    hooked = bool(os.environ.get(EMULATOR_ENV, "").strip())
    return firmware_image.missing(ROOT, rtos, None if hooked else board.qemu)


class NoTuning:
    """The Tuning of a firmware image: nothing to change (see targets.base.Tuning)."""

    def __init__(self, display: str, dma_latency: bool, lift_rt_throttle: bool) -> None:
        self._skipped: list[dict[str, str]] = []
        if dma_latency:
            self._skipped.append(
                {
                    "setting": "cpu_dma_latency",
                    "reason": f"nothing to hold on {display}: the image has no CPU idle "
                    "states or power management a run would have to keep off",
                }
            )
        if lift_rt_throttle:
            self._skipped.append(
                {
                    "setting": "sched_rt_runtime_us",
                    "reason": f"{display} has no real-time throttling: its highest-priority "
                    "ready task always runs",
                }
            )

    @property
    def changes(self) -> list[dict[str, Any]]:
        return []

    @property
    def skipped(self) -> list[dict[str, str]]:
        return self._skipped

    def apply(self) -> None:
        return None

    def restore(self) -> None:
        return None


class FirmwareTarget(QemuBase):
    """An RTOS's image on an emulated board, measured over its UART."""

    noun = "image"

    def __init__(self, spec: str, libc: str = "glibc") -> None:
        rtos, board, icount, options, settings = parse_spec(spec)
        if libc != "glibc":
            raise UsageError(
                f"--libc chooses the C library of a Linux core; the {rtos.display} image is "
                "built with picolibc."
            )
        super().__init__(
            spec,
            f"{rtos.name}-{board.name}",
            board.qemu,
            board.name,
            f"the {rtos.display} image ({rtos.image_name(board.name)})",
        )
        self.rtos = rtos
        self.board = board
        self.icount = icount
        # how the clock was chosen, as the result records it: "default" (exact,
        # DETERMINISTIC_SHIFT), "given" (icount=SHIFT) or "off" (icount=off)
        given = re.search(r"(^|,)icount=([^,]*)", spec)
        self.icount_choice = (
            "default" if given is None else ("off" if given.group(2) == "off" else "given")
        )
        self.options = options
        self.settings = settings
        self.boot_timeout_s = BOOT_TIMEOUT_S
        self.image: firmware_image.Image | None = None
        self.code_size: dict[str, Any] | None = None
        self._exec_log = False

    def use_exec_log(self) -> None:
        """--trace: boot with a monitor socket, so the execution log can be switched."""
        self._exec_log = True

    def exec_log(self) -> ExecLog:
        """The execution log of the running image (after `open`)."""
        assert self.image is not None
        board = self.board
        assert board.counter_reads is not None  # tracing() refuses a board without
        return ExecLog(
            lambda: self.machine.folder if self.machine is not None else None,
            board.counter_reads,
            Firmware(
                self.image.path,
                board.nm,
                board.vector_table,
                self.rtos.critical_sections_for(board.name),
                self.rtos.name,
                self.image.sources.path if self.image.sources is not None else None,
                ROOT,
            ),
            self.icount,
        )

    def shares_host_cpus(self) -> bool:
        # under -icount the board's counters follow its instructions, not the host
        return self.icount is None

    def tracing(self) -> Tracing | None:
        from rtbench.targets.tracing import CodePathTracing  # noqa: PLC0415

        if self.board.counter_reads is None:
            raise UsageError(
                f"--trace is not available on {self.board.name} yet: {self.board.no_trace}."
            )
        return CodePathTracing(self.use_exec_log, self.exec_log)

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        lines = [render(snap)]
        lines += [f"  {c.get('severity', 'info')}: {c.get('message', '')}\n" for c in cavs]
        return "".join(lines)

    def use_deterministic(self) -> None:
        """--deterministic: -icount with DETERMINISTIC_SHIFT unless the spec gave one."""
        if self.icount is None:
            self.icount = DETERMINISTIC_SHIFT

    def open(self, say: Say) -> None:
        emulator = _emulator(self.board)
        hooked = emulator != (self.board.qemu,)
        problem = firmware_image.missing(ROOT, self.rtos, None if hooked else self.board.qemu)
        if problem is not None:
            raise UsageError(f"The {self.spec} target cannot be used here: {problem}.")
        self.image = firmware_image.ensure_image(
            ROOT, self.rtos, self.board.name, say, self.options, self.settings
        )
        self.code_size = size.measure(self.image.path, self.rtos.kernel_libraries)
        self.launch = BoardLaunch(
            emulator, self.board, self.image.path, self.icount, monitor=self._exec_log
        )
        self._boot(say)

    def boot_message(self) -> str:
        mode = (
            f", deterministic: -icount shift={self.icount}"
            if self.icount is not None
            else ", wall clock (icount=off)"
        )
        return f"Booting {self.rtos.display} on {self.board.name} (QEMU, TCG{mode})..."

    # ---- what the runner asks ---------------------------------------------------

    def check_cpu(self, cpu: int | None) -> int:
        if cpu not in (None, 0):
            raise UsageError(
                f"CPU {cpu} does not exist on the {self.board.name} board, which has one CPU (0)."
            )
        return 0

    def facts(self) -> dict[str, Any]:
        """The image's own description of itself (the RTOS's facts path), or GuestError."""
        path = self.rtos.facts_path
        try:
            text = self.source().read(path)
        except TargetLost as e:
            raise GuestError(f"The {self.name} image did not answer ({e}).") from None
        if text is None:
            raise GuestError(f"The {self.name} image could not give {path}.")
        try:
            data = json.loads(text)
        except ValueError:
            raise GuestError(f"The {self.name} image's {path} is not JSON.") from None
        if not isinstance(data, dict):
            raise GuestError(f"The {self.name} image's {path} is not a JSON object.")
        return data

    def _sources(self) -> dict[str, Any] | None:
        if self.image is None or self.image.sources is None:
            return None
        return self.image.sources.describe()

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        facts = self.facts()
        display = self.rtos.display
        release = str(facts.get("kernel") or self.release or "")
        return {
            "snapshot_version": SNAPSHOT_VERSION,
            "taken_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "hostname": str(facts.get("board") or self.board.name),
            "kernel": {
                "system": display,
                "release": release.removeprefix(display + " ").strip() or None,
                "machine": self.board.arch,
                "port": facts.get("port"),
                "checkout": self._sources(),
            },
            "cpus": {
                "model": str(facts.get("cpu") or self.board.cpu),
                "count_online": 1,
                "online": [0],
                "hz": facts.get("cpu_hz"),
            },
            "measurement_cpu": {"cpu": cpu, "chosen_by": "argument" if cpu_given else "default"},
            "counter": facts.get("counter"),
            self.rtos.name: facts,
            "emulation": self._emulation(),
            # the Python that runs rtbench (on the controller, whatever the target)
            "python": {
                "version": platform.python_version(),
                "implementation": platform.python_implementation(),
            },
        }

    def _emulation(self) -> dict[str, Any]:
        return {
            "emulator": self.board.qemu,
            "accel": "tcg",
            "accel_reason": "an emulated RTOS board (TCG): no host CPU runs its code",
            "icount_shift": self.icount,
        }

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return emulation_caveats("tcg", self.icount)

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> NoTuning:
        return NoTuning(self.rtos.display, dma_latency, lift_rt_throttle)

    def describe(self) -> dict[str, Any]:
        image = self.image
        name = self.rtos.name
        return {
            "kind": self.kind,
            "spec": self.spec,
            "os": self.rtos.display,
            "os_release": self.release,
            "board": self.board.name,
            "cpu": self.board.cpu,
            "arch": self.board.arch,
            f"{name}_kernel": self._sources(),
            f"{name}_config_dir": str(image.config_dir) if image and image.config_dir else None,
            "build_options": {
                **dict(self.options),
                **(
                    {"config": ";".join(f"{k}={v}" for k, v in self.settings)}
                    if self.settings
                    else {}
                ),
            },
            "image": str(image.path) if image else None,
            "code_size": self.code_size,
            "emulator": self.board.qemu,
            "emulator_version": self.version(),
            "accel": "tcg",
            "emulated": True,
            "icount_shift": self.icount,
            "icount_choice": self.icount_choice,
            "deterministic": deterministic_info(self.icount),
            "cpus": 1,
            "boots": self.boots,
        }


def _facts(snap: dict[str, Any]) -> dict[str, Any]:
    """The image's facts in a snapshot: stored under its RTOS's name."""
    system = str((snap.get("kernel") or {}).get("system") or "")
    for rtos in RTOSES.values():
        if rtos.display == system and isinstance(snap.get(rtos.name), dict):
            facts: dict[str, Any] = snap[rtos.name]
            return facts
    return {}


def render(snap: dict[str, Any]) -> str:
    """`rtbench system` of an image: the RTOS, its sources, board, counter and configuration."""
    kernel = snap.get("kernel") or {}
    facts = _facts(snap)
    checkout = kernel.get("checkout") or {}
    counter = snap.get("counter") or {}
    rows = [
        (
            "system",
            f"{kernel.get('system') or '?'} {kernel.get('release') or '?'} "
            f"({kernel.get('port') or '?'})",
        ),
        (
            "kernel checkout",
            f"{checkout.get('tag') or '?'} {checkout.get('commit') or ''} "
            f"({checkout.get('path') or 'not known'})".replace("  ", " "),
        ),
    ]
    rows.append(
        (
            "kernel sources",
            f"digest {checkout.get('digest') or 'not known'}, "
            f"{modified_text(checkout.get('modified'))}"
            + (f" ({checkout['modified_reason']})" if checkout.get("modified_reason") else ""),
        )
    )
    rows += [
        ("board", f"{snap.get('hostname')}, {(snap.get('cpus') or {}).get('model')}"),
        (
            "counter",
            f"{counter.get('name', '?')} at {counter.get('hz', '?')} Hz, "
            f"{counter.get('bits', '?')} bits",
        ),
        ("heap", json.dumps(facts.get("heap"), sort_keys=True)),
    ]
    config = facts.get("config") or {}
    rows += [(str(k), str(v)) for k, v in config.items()]
    width = max(len(k) for k, _ in rows) + 1
    return "\n".join(f"  {(k + ':').ljust(width)} {v}" for k, v in rows) + "\n"
