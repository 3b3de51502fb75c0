# SPDX-License-Identifier: Apache-2.0
"""The target a run measured, as the readers of results see it.

Targets write their description into `run.target_info` (`Target.describe()`):
a mapping whose common keys the schema defines, and whose other keys are each
kind's own. Everything that reads a stored result (reports, comparisons, the
history store) reads it through `TargetView`, so a key is looked up in one
place: whether the machine was emulated, the board an image ran on, the
deterministic mode's icount shift, the user's choice of wall-clock emulation,
the image's code size, the source checkout of a kernel built from sources and
the configuration folder an RTOS image was built with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rtbench.model.results import ResultsDocument


@dataclass(frozen=True)
class TargetView:
    """A typed reading of one run's `target_info` (empty for a local run or an
    imported result: every property then says "not known")."""

    info: Mapping[str, Any]

    @classmethod
    def of(cls, doc: ResultsDocument) -> TargetView:
        return cls(doc.run.target_info or {})

    def _text(self, key: str) -> str | None:
        value = self.info.get(key)
        return str(value) if value not in (None, "") else None

    @property
    def emulated(self) -> bool:
        """An emulated machine (a QEMU guest or board)."""
        return bool(self.info.get("emulated"))

    @property
    def board(self) -> str | None:
        """The board a firmware image ran on (`mps2-an385`), None for other targets."""
        return self._text("board")

    @property
    def is_board(self) -> bool:
        return self.board is not None

    @property
    def arch(self) -> str | None:
        return self._text("arch")

    @property
    def core(self) -> str | None:
        """The emulated core (QEMU's -cpu: `cortex-a7`), None when not recorded or
        when the guest ran on the host's own core (KVM: `host`)."""
        found = self._text("cpu")
        return None if found == "host" else found

    @property
    def hostname(self) -> str | None:
        return self._text("hostname")

    @property
    def libc(self) -> str | None:
        return self._text("libc")

    @property
    def os(self) -> str | None:
        return self._text("os")

    @property
    def os_release(self) -> str | None:
        return self._text("os_release")

    @property
    def deterministic(self) -> Mapping[str, Any] | None:
        """The deterministic mode's record (QEMU -icount), None when the run was not."""
        found = self.info.get("deterministic")
        if isinstance(found, Mapping) and isinstance(found.get("icount_shift"), int):
            return found
        return None

    @property
    def icount_shift(self) -> int | None:
        """The icount shift of a deterministic run (2^shift ns an instruction)."""
        found = self.deterministic
        return None if found is None else int(found["icount_shift"])

    @property
    def wall_clock_chosen(self) -> bool:
        """The user asked for wall-clock emulation of a board that measures exactly
        by default (`icount=off`)."""
        return self.info.get("icount_choice") == "off"

    @property
    def image_size(self) -> Mapping[str, Any] | None:
        """The image's code size record (`code_size`, with its `image` sections),
        None when the target built no image."""
        size = self.info.get("code_size")
        if not isinstance(size, Mapping) or not isinstance(size.get("image"), Mapping):
            return None
        return size

    def machine(self) -> dict[str, str | None]:
        """What identifies an emulated machine, by name: the board, the
        architecture, the emulator and its version (None where not recorded)."""
        return {
            "board": self.board,
            "architecture": self.arch,
            "emulator": self._text("emulator"),
            "emulator version": self._text("emulator_version"),
        }

    @property
    def kernel_source(self) -> Mapping[str, Any] | None:
        """The checkout a kernel was built from (`<rtos>_kernel`), None for none."""
        for key, value in self.info.items():
            if key.endswith("_kernel") and isinstance(value, Mapping):
                return value
        return None

    @property
    def config_dir(self) -> str | None:
        """The configuration folder an RTOS image was built with instead of rtbench's
        own (`<rtos>_config_dir`), None for rtbench's."""
        for key, value in self.info.items():
            if key.endswith("_config_dir") and value:
                return str(value)
        return None
