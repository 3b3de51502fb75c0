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
from rtbench.targets.local import LocalTarget
from rtbench.targets.ssh import SshTarget
from rtbench.targets.ssh_link import ssh_ready


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
    syntax="qemu:NAME[,cpus=N,memory=MiB,accel=kvm|tcg,icount=SHIFT,append=...]",
    summary="a Debian kernel booted under QEMU: debian-amd64, debian-rt-amd64, "
    "debian-arm64, debian-rt-arm64, debian-armhf, debian-rt-armhf",
    needs="qemu-system-x86 / qemu-system-arm, the cross compilers gcc-aarch64-linux-gnu and "
    "gcc-arm-linux-gnueabihf for ARM guests, gpgv, and the network on first use of a guest",
    module="qemu",
    target_class="QemuTarget",
)
KINDS["freertos"] = _emulated(
    name="freertos",
    syntax="qemu:freertos-mps2-an385[,icount=SHIFT,checks=on|off]",
    summary="FreeRTOS on an emulated Cortex-M3 board (QEMU's mps2-an385); checks=on: the "
    "checked kernel configuration (asserts, stack checking) instead of the production one",
    needs="a FreeRTOS-Kernel checkout in FREERTOS_KERNEL_PATH (https://github.com/FreeRTOS/"
    "FreeRTOS-Kernel, tag V11.1.0), gcc-arm-none-eabi, picolibc-arm-none-eabi, cmake and "
    "qemu-system-arm",
    module="freertos",
    target_class="FreeRtosTarget",
)

LIBCS = ("glibc", "musl")
FREERTOS_PREFIX = "qemu:freertos-"


def register(kind: Kind) -> None:
    """Add a kind of target (each target module registers itself)."""
    KINDS[kind.name] = kind


def kind_of(spec: str) -> str:
    """The kind named by a --target value: `local`, `ssh://...` -> ssh, `qemu:NAME` -> qemu,
    `qemu:freertos-BOARD` -> freertos."""
    if spec == "local":
        return "local"
    if spec.startswith(FREERTOS_PREFIX):
        return "freertos"
    if "://" in spec:
        return spec.split("://", 1)[0]
    if ":" in spec:
        return spec.split(":", 1)[0]
    return spec


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
