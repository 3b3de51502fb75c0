# SPDX-License-Identifier: Apache-2.0
"""Targets: the machines rtbench can evaluate (see targets.base.Target).

`parse(spec)` turns what the user wrote after `--target` into a Target, or
raises UsageError with one sentence. Each kind lives in its own module and is
listed in KINDS with what it needs; `available()` says which kinds can be used
on this machine now, for `rtbench targets`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass

from rtbench.errors import UsageError
from rtbench.targets.base import Target
from rtbench.targets.local import LocalTarget


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
}

LIBCS = ("glibc", "musl")


def register(kind: Kind) -> None:
    """Add a kind of target (each target module registers itself)."""
    KINDS[kind.name] = kind


def kind_of(spec: str) -> str:
    """The kind named by a --target value: `local`, `ssh://...` -> ssh, `qemu:NAME` -> qemu."""
    if spec == "local":
        return "local"
    if "://" in spec:
        return spec.split("://", 1)[0]
    if ":" in spec:
        return spec.split(":", 1)[0]
    return spec


def parse(spec: str, libc: str = "glibc") -> Target:
    """The Target for a --target value, or UsageError in one sentence."""
    if libc not in LIBCS:
        raise UsageError(f"Unknown C library '{libc}' (use {' or '.join(LIBCS)}).")
    kind = KINDS.get(kind_of(spec))
    if kind is None:
        known = ", ".join(k.syntax for k in KINDS.values())
        raise UsageError(f"Unknown target '{spec}' (use {known}; see `rtbench targets`).")
    return kind.make(spec, libc)


def available() -> list[tuple[Kind, str | None]]:
    """Every kind, with None when it can be used here or the reason it cannot."""
    return [(kind, kind.ready()) for kind in KINDS.values()]


__all__ = ["KINDS", "LIBCS", "Kind", "Target", "available", "kind_of", "parse", "register"]
