# SPDX-License-Identifier: Apache-2.0
"""Targets: the machines rtbench can evaluate (see targets.base.Target).

`parse(spec)` turns what the user wrote after `--target` into a Target, or
raises UsageError with one sentence. Each kind lives in its own module and is
listed in KINDS with what it needs; `available()` says which kinds can be used
on this machine now, for `rtbench targets`.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from rtbench.errors import UsageError
from rtbench.targets.base import Deterministic, Target
from rtbench.targets.firmware.boards import BOARDS
from rtbench.targets.firmware.rtos import Rtos
from rtbench.targets.firmware.rtoses import RTOSES
from rtbench.targets.guest import cores as guest_cores
from rtbench.targets.local import LocalTarget
from rtbench.targets.ssh.link import ssh_ready
from rtbench.targets.ssh.target import SshTarget


@dataclass(frozen=True)
class Kind:
    """One kind of target: how it is written, what it needs, how it is made."""

    name: str
    syntax: str
    summary: str
    needs: str
    ready: Callable[[], str | None]  # None when usable here, else why not
    make: Callable[[str, str], Target]  # (spec, libc) -> Target


def _local_ready() -> str | None:
    return None if shutil.which("cmake") else "cmake is not installed"


KINDS: dict[str, Kind] = {
    "local": Kind(
        name="local",
        syntax="local",
        summary="this machine (the default)",
        needs="cmake and a C compiler; root for real-time priority",
        ready=_local_ready,
        make=lambda spec, libc: LocalTarget(spec, libc=libc),
    ),
    "ssh": Kind(
        name="ssh",
        syntax="ssh://[user@]host[:port]",
        summary="a Linux machine reached with the system's OpenSSH client",
        needs="ssh (openssh-client) and a key the target accepts without a prompt; "
        "root on the target for real-time priority and its settings",
        ready=ssh_ready,
        make=lambda spec, libc: SshTarget(spec, libc=libc),
    ),
}


def _emulated(
    name: str, syntax: str, summary: str, needs: str, module: str, target_class: str
) -> Kind:
    """A kind whose module, rtbench.targets.<module> with its `ready()` and its
    <target_class>, loads only when the kind is used (QEMU's modules are large)."""

    def loaded() -> ModuleType:
        return importlib.import_module(f"rtbench.targets.{module}")

    def ready() -> str | None:
        reason: str | None = loaded().ready()
        return reason

    def make(spec: str, libc: str) -> Target:
        target: Target = getattr(loaded(), target_class)(spec, libc=libc)
        return target

    return Kind(name, syntax, summary, needs, ready, make)


KINDS["qemu"] = _emulated(
    name="qemu",
    syntax="qemu:NAME[,cpus=N,memory=MiB,accel=kvm|tcg,icount=SHIFT,cpu=CORE,append=...]",
    summary="a Debian kernel booted under QEMU: debian-amd64, debian-rt-amd64, "
    "debian-arm64, debian-rt-arm64, debian-armhf, debian-rt-armhf; the emulated core: "
    + guest_cores.summary(),
    needs="qemu-system-x86 / qemu-system-arm, the cross compilers gcc-aarch64-linux-gnu and "
    "gcc-arm-linux-gnueabihf for ARM guests, gpgv, and the network on first use of a guest",
    module="guest.target",
    target_class="QemuTarget",
)


def _firmware(rtos: Rtos) -> Kind:
    """The kind of `qemu:<rtos>-<board>`: one firmware target for every RTOS, loaded
    only when used."""

    def loaded() -> ModuleType:
        return importlib.import_module("rtbench.targets.firmware.target")

    def make(spec: str, libc: str) -> Target:
        target: Target = loaded().FirmwareTarget(spec, libc=libc)
        return target

    def ready() -> str | None:
        reason: str | None = loaded().ready(rtos)
        return reason

    boards = "|".join(rtos.boards)
    options = "".join(f",{o.name}={'|'.join(o.values)}" for o in rtos.options)
    return Kind(
        name=rtos.name,
        syntax=f"qemu:{rtos.name}-{boards}[,icount=SHIFT|off{options}]",
        summary=f"{rtos.display} on an emulated "
        + " or ".join(BOARDS[b].summary for b in rtos.boards)
        + " (exact by default: -icount shift=5; icount=off for the host's wall clock)",
        needs=f"{rtos.source_what} in {rtos.source_env} ({rtos.source_url}, tag "
        f"{rtos.tested_release}), "
        + ", ".join(
            ["gcc-arm-none-eabi", "picolibc-arm-none-eabi", "cmake"]
            + [package for _, package in rtos.tools]
        )
        + " and qemu-system-arm",
        ready=ready,
        make=make,
    )


for _rtos in RTOSES.values():
    KINDS[_rtos.name] = _firmware(_rtos)

KINDS["serial"] = _emulated(
    name="serial",
    syntax="serial:DEVICE[,baud=N]",
    summary="a board on this machine's serial port (or a pyserial URL), flashed with an "
    "rtbench image (docs/porting.md)",
    needs="pyserial (.venv/bin/python -m pip install --require-hashes -r "
    "requirements/serial.txt) and read-write access to the port",
    module="firmware.serial",
    target_class="SerialTarget",
)

KINDS["labgrid"] = _emulated(
    name="labgrid",
    syntax="labgrid:PLACE|tags:KEY=VALUE,...[,coordinator=HOST:PORT,wait=S]",
    summary="a board in a shared lab, reserved and acquired through a labgrid coordinator "
    "(LG_COORDINATOR), reached over SSH or a serial port (docs/labs.md)",
    needs="labgrid (.venv/bin/python -m pip install --require-hashes -r "
    "requirements/labgrid.txt) and a coordinator; what the SSH or serial kind needs",
    module="lab.target",
    target_class="LabgridTarget",
)

LIBCS = ("glibc", "musl")


def register(kind: Kind) -> None:
    """Add a kind of target (each target module registers itself)."""
    KINDS[kind.name] = kind


def kind_of(spec: str) -> str:
    """The kind named by a --target value: `local`, `ssh://...` -> ssh, `qemu:NAME` -> qemu,
    `qemu:<rtos>-BOARD` -> the RTOS (freertos, ...), `serial:DEVICE-OR-URL` -> serial."""
    if spec == "local":
        return "local"
    for rtos in RTOSES.values():
        if spec.startswith(f"qemu:{rtos.name}-"):
            return rtos.name
    # the kind is what comes before the first colon: `ssh://...` is ssh, and
    # `serial:rfc2217://host:port` is serial (its device is a pyserial URL)
    return spec.split(":", 1)[0]


def parse(spec: str, libc: str = "glibc", deterministic: bool = False) -> Target:
    """The Target for a --target value, or UsageError in one sentence.
    `deterministic`: --deterministic, which only emulated targets can do."""
    if libc not in LIBCS:
        raise UsageError(f"Unknown C library '{libc}' (use {' or '.join(LIBCS)}).")
    kind = KINDS.get(kind_of(spec))
    if kind is None:
        known = ", ".join(k.syntax for k in KINDS.values())
        raise UsageError(f"Unknown target '{spec}' (use {known}; see `rtbench targets`).")
    target = kind.make(spec, libc)
    if deterministic:
        if not isinstance(target, Deterministic):
            raise UsageError(
                f"--deterministic needs an emulated target (qemu:...) whose clock can follow "
                f"executed instructions, so it cannot be used with {spec}."
            )
        target.use_deterministic()
    return target


def available() -> list[tuple[Kind, str | None]]:
    """Every kind, with None when it can be used here or the reason it cannot."""
    return [(kind, kind.ready()) for kind in KINDS.values()]


__all__ = ["KINDS", "LIBCS", "Kind", "Target", "available", "kind_of", "parse", "register"]
