# SPDX-License-Identifier: Apache-2.0
"""What each firmware image costs in memory, beside what it does to the figures:
the image's text, data and bss and the RTOS kernel's code (recorded by the firmware
target as `run.target_info.code_size`), each system against the baseline, and the
kernel functions whose size changed most."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rtbench.model.target import TargetView

if TYPE_CHECKING:
    from rtbench.compare.model import System

FUNCTIONS_SHOWN = 4


def _size(system: System) -> Mapping[str, Any] | None:
    return TargetView.of(system.doc).image_size


def _change(base: int, value: int) -> str:
    delta = value - base
    if delta == 0:
        return "same"
    percent = f", {delta / base:+.1%}" if base else ""
    return f"{delta:+,} B{percent}"


def _functions(base: Mapping[str, int], other: Mapping[str, int]) -> str:
    changed = [
        (name, int(other.get(name, 0)) - int(base.get(name, 0)))
        for name in set(base) | set(other)
        if int(other.get(name, 0)) != int(base.get(name, 0))
    ]
    changed.sort(key=lambda item: (-abs(item[1]), item[0]))
    shown = [f"{name} {delta:+,} B" for name, delta in changed[:FUNCTIONS_SHOWN]]
    if len(changed) > FUNCTIONS_SHOWN:
        shown.append(f"+{len(changed) - FUNCTIONS_SHOWN} more")
    return "; ".join(shown)


def lines(systems: Sequence[System]) -> list[str]:
    """One line per firmware image: its sizes, and for each system after the
    baseline the differences (bytes and per cent) and the kernel functions that
    changed most. Nothing when no system is a firmware image."""
    sizes = [_size(s) for s in systems]
    if all(size is None for size in sizes):
        return []
    out: list[str] = []
    base = sizes[0]
    for index, (system, size) in enumerate(zip(systems, sizes, strict=True)):
        if size is None:
            out.append(f"Code size of {system.letter}: not recorded (not a firmware image).")
            continue
        image = size["image"]
        kernel = size.get("kernel_text")
        text = (
            f"Code size of {system.letter}: text {image['text']:,} B, data {image['data']:,} B, "
            f"bss {image['bss']:,} B; kernel code "
            + (f"{kernel:,} B" if isinstance(kernel, int) else "not known")
        )
        if index > 0 and base is not None:
            base_image = base["image"]
            text += f" (text {_change(int(base_image['text']), int(image['text']))}"
            base_kernel = base.get("kernel_text")
            if isinstance(kernel, int) and isinstance(base_kernel, int):
                text += f", kernel code {_change(base_kernel, kernel)}"
            text += " against A)"
            changed = _functions(
                base.get("kernel_functions") or {}, size.get("kernel_functions") or {}
            )
            if changed and size.get("kernel_functions") and base.get("kernel_functions"):
                text += f"; kernel functions: {changed}"
        out.append(text + ".")
    return out
