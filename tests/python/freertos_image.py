# SPDX-License-Identifier: Apache-2.0
"""Build the FreeRTOS image for mps2-an385 and drive it in QEMU over a pipe.

The image speaks the serial line protocol of docs/targets.md on UART0, which
QEMU's ``-serial stdio`` connects to this process's pipes. Used by
tests/python/test_freertos_image.py, and as a script that runs a catalog on
the image and prints one line per scenario::

    python3 tests/python/freertos_image.py [--deterministic N] [--profile quick] [NAME...]

Needs FREERTOS_KERNEL_PATH (a FreeRTOS-Kernel checkout), arm-none-eabi-gcc
with picolibc, cmake and qemu-system-arm. ``missing()`` says which is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BOARD = "mps2-an385"
ELF_NAME = f"rtbench-freertos-{BOARD}.elf"
TOOLCHAIN = ROOT / "cmake" / "toolchains" / "arm-none-eabi-cortex-m3.cmake"


def rtbench_image() -> Path:
    """The image `--target qemu:freertos-mps2-an385` runs (built once, then from
    the cache), for a module fixture; the test is skipped when it cannot be built.
    (Imported here: this file also runs alone, as a script.)"""
    import pytest  # noqa: PLC0415

    from rtbench.targets.firmware import image as fw_image  # noqa: PLC0415
    from rtbench.targets.firmware.rtoses import FREERTOS  # noqa: PLC0415

    why = missing()
    if why is not None:
        pytest.skip(why)
    return fw_image.ensure_image(ROOT, FREERTOS, BOARD, lambda _text: None).path


def missing() -> str | None:
    """One sentence naming what is missing to build and boot the image, or None."""
    kernel = os.environ.get("FREERTOS_KERNEL_PATH", "")
    if not kernel or not (Path(kernel) / "tasks.c").is_file():
        return (
            "FREERTOS_KERNEL_PATH does not name a FreeRTOS-Kernel checkout "
            "(git clone -b V11.1.0 https://github.com/FreeRTOS/FreeRTOS-Kernel)"
        )
    for tool in ("cmake", "arm-none-eabi-gcc", "qemu-system-arm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    gcc = subprocess.run(
        ["arm-none-eabi-gcc", "--specs=picolibc.specs", "-print-file-name=picolibc.specs"],
        capture_output=True,
        text=True,
        check=False,
    )
    if gcc.returncode != 0:
        return "picolibc for arm-none-eabi is not installed (picolibc-arm-none-eabi)"
    return None


def build(build_dir: Path, config_dir: Path | None = None) -> Path:
    """Configure and build the image; returns the ELF's path."""
    args = [
        "cmake",
        "-S",
        str(ROOT),
        "-B",
        str(build_dir),
        "-DRTB_PORT=freertos",
        f"-DRTB_BOARD={BOARD}",
        f"-DFREERTOS_KERNEL_PATH={os.environ['FREERTOS_KERNEL_PATH']}",
        f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}",
        "-DCMAKE_BUILD_TYPE=Release",
    ]
    if config_dir is not None:
        args.append(f"-DRTB_FREERTOS_CONFIG_DIR={config_dir}")
    subprocess.run(args, check=True, capture_output=True, timeout=300)
    subprocess.run(
        ["cmake", "--build", str(build_dir), "-j2"], check=True, capture_output=True, timeout=900
    )
    return build_dir / ELF_NAME


class Lost(Exception):
    """The image stopped answering (hung, crashed, or QEMU ended)."""


@dataclass
class RunResult:
    status: int | None  # the `#rtb exit` status; None when lost
    records: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # decoded `#rtb err` lines
    lost: str = ""  # why, when lost

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("type") == kind]

    def end_status(self, scenario: str) -> str:
        for r in self.of_type("end"):
            if r.get("scope") == "scenario" and r.get("scenario") == scenario:
                return str(r.get("status"))
        return "lost" if self.lost else "missing"


def _decode(text: str) -> str:
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%" and i + 2 < len(text) + 0 and len(text[i + 1 : i + 3]) == 2:
            try:
                out.append(int(text[i + 1 : i + 3], 16))
                i += 3
                continue
            except ValueError:
                pass
        out += text[i].encode()
        i += 1
    return out.decode(errors="replace")


def _encode(arg: str) -> str:
    return "".join(
        c if "!" <= c <= "~" and c != "%" else "".join(f"%{b:02X}" for b in c.encode()) for c in arg
    )


class Image:
    """One boot of the image in QEMU, spoken to over the serial pipe."""

    def __init__(self, elf: Path, icount_shift: int | None = None) -> None:
        cmd = [
            "qemu-system-arm",
            "-M",
            BOARD,
            "-cpu",
            "cortex-m3",
            "-nographic",
            "-no-reboot",
            "-monitor",
            "none",
            "-kernel",
            str(elf),
            "-serial",
            "stdio",
        ]
        if icount_shift is not None:
            cmd += ["-icount", f"shift={icount_shift},align=off,sleep=off"]
        # as rtbench does (targets.guest.machine): QEMU's output goes to a file,
        # so the UART never waits on this process and -icount figures do not
        # follow the host's load
        self._dir = tempfile.TemporaryDirectory(prefix="rtb-frt-")
        out_path = Path(self._dir.name) / "serial.out"
        with out_path.open("wb") as out:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL
            )
        self.out = out_path.open("rb")
        self.buf = b""
        self.ready = self.read_line(30.0)
        if not self.ready.startswith("#rtb ready 1 "):
            raise Lost(f"no ready line after boot: {self.ready!r}")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError as exc:
            raise Lost("QEMU ended") from exc

    def read_line(self, timeout: float) -> str:
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            chunk = self.out.read(65536)
            if chunk:
                self.buf += chunk
                continue
            if self.proc.poll() is not None:
                chunk = self.out.read(65536)  # written before it ended
                if not chunk:
                    raise Lost(f"QEMU ended with status {self.proc.returncode}")
                self.buf += chunk
                continue
            if time.monotonic() > end:
                raise Lost(f"no answer within {timeout:.0f} s")
            time.sleep(0.002)
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace").rstrip("\r")

    def run(self, args: list[str], timeout: float) -> RunResult:
        """`#rtb run ARGS`: records until `#rtb exit`, at most timeout seconds."""
        self.send("#rtb run " + " ".join(_encode(a) for a in args))
        res = RunResult(status=None)
        end = time.monotonic() + timeout
        try:
            while True:
                line = self.read_line(max(0.1, end - time.monotonic()))
                if line.startswith("{"):
                    res.records.append(json.loads(line))
                elif line.startswith("#rtb err "):
                    res.errors.append(_decode(line[9:]))
                elif line.startswith("#rtb exit "):
                    res.status = int(line.split()[2])
                    return res
                elif line.startswith("#rtb fail "):
                    res.errors.append(_decode(line[10:]))
        except Lost as exc:
            res.lost = str(exc)
            return res

    def request(self, line: str, timeout: float = 10.0) -> list[str]:
        """A short request: its answer lines up to `#rtb done` or `#rtb fail`."""
        self.send(line)
        out = []
        while True:
            got = self.read_line(timeout)
            out.append(got)
            if got.startswith(("#rtb done", "#rtb fail", "#rtb ready")):
                return out

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("#rtb off")
                self.proc.wait(timeout=5)
            except (Lost, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.out.close()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self._dir.cleanup()


def catalog(image: Image) -> list[dict[str, Any]]:
    res = image.run(["list", "--cpu", "0"], 60.0)
    if res.status != 0:
        raise Lost(f"list failed: {res.lost or res.errors}")
    return res.of_type("catalog")


def run_catalog(
    elf: Path,
    names: list[str] | None = None,
    profile: str = "quick",
    icount_shift: int | None = None,
    say: Any = None,
) -> dict[str, RunResult]:
    """Every scenario (or those named) in turn, a fresh boot after a lost one."""
    image = Image(elf, icount_shift)
    results: dict[str, RunResult] = {}
    try:
        entries = catalog(image)
        for entry in entries:
            name = str(entry["scenario"])
            if names and name not in names:
                continue
            deadline_s = float(entry["deadline_ms"][profile]) / 1000.0
            args = ["run", "--profile", profile, "--scenario", name, "--cpu", "0"]
            res = image.run(args, deadline_s * 3 + 30.0)
            results[name] = res
            if say is not None:
                say(name, res)
            if res.lost:
                image.close()
                image = Image(elf, icount_shift)
    finally:
        image.close()
    return results


def summary(name: str, res: RunResult) -> str:
    verdicts = ", ".join(
        f"{v.get('check')}={v.get('outcome')}/control={v.get('control', {}).get('outcome')}"
        for v in res.of_type("verdict")
    )
    end = res.end_status(name)
    reason = ""
    for r in res.of_type("end"):
        if r.get("scenario") == name and r.get("reason"):
            reason = str(r["reason"])
    text = f"{name:32s} {end:12s} {verdicts}"
    if reason:
        text += f"  [{reason}]"
    if res.lost:
        text += f"  LOST: {res.lost}"
    if res.errors:
        text += f"  err: {res.errors[:2]}"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--deterministic", type=int, metavar="SHIFT", default=None)
    parser.add_argument("--elf", type=Path, default=None)
    parser.add_argument("--build-dir", type=Path, default=ROOT / "build" / "freertos")
    parser.add_argument("--save", type=Path, default=None, help="write NAME.jsonl records here")
    args = parser.parse_args()
    why = missing()
    if why is not None and args.elf is None:
        print(f"cannot build the image: {why}", file=sys.stderr)
        return 2
    elf = args.elf or build(args.build_dir)

    def say(name: str, res: RunResult) -> None:
        print(summary(name, res), flush=True)
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps(r) for r in res.records] + [f"# err {e}" for e in res.errors]
            (args.save / f"{name}.jsonl").write_text("\n".join(lines) + "\n")

    run_catalog(elf, args.names, args.profile, args.deterministic, say=say)
    return 0


if __name__ == "__main__":
    sys.exit(main())
