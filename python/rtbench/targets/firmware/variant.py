# SPDX-License-Identifier: Apache-2.0
"""Configuration variants of a firmware image from the command line:
`--target qemu:freertos-mps2-an385,config=configUSE_TIME_SLICING=0;configTICK_RATE_HZ=500`.

Each setting is a macro of the RTOS's configuration: the image is built with
rtbench's configuration folder (or the one the RTOS's variable names) copied
into the build folder and its main header ending with `#undef KEY` /
`#define KEY VALUE` for each setting, so the variant is exactly that
configuration with those settings changed. A setting the RTOS does not know
(no header of its sources or of the configuration mentions the macro) is refused
before anything is built; a variant that does not build is refused in one
sentence with the compiler's first error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rtbench.errors import UsageError
from rtbench.targets.firmware.rtos import Rtos
from rtbench.targets.firmware.sources import files_built

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VALUE = re.compile(r"[A-Za-z0-9_ ().+\-*/<>|&~xX]+")
MARK = "/* ---- rtbench: settings of this variant (--target ...,config=) ---- */"


def parse(rtos: Rtos, text: str) -> tuple[tuple[str, str], ...]:
    """The settings of `config=KEY=VALUE[;KEY=VALUE...]`, in order, or UsageError."""
    settings: dict[str, str] = {}
    for item in text.split(";"):
        key, sep, value = item.strip().partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not _KEY.fullmatch(key) or not value or not _VALUE.fullmatch(value):
            raise UsageError(
                f"The {rtos.display} setting '{item}' is not KEY=VALUE with a macro name and "
                "a number or an expression (config=configUSE_TIME_SLICING=0;...)."
            )
        if key in settings:
            raise UsageError(f"The {rtos.display} setting {key} is given twice in config=.")
        settings[key] = value
    return tuple(settings.items())


def check_known(
    rtos: Rtos, sources: Path, config: Path, settings: Sequence[tuple[str, str]], arch: str
) -> None:
    """UsageError for a setting no header of the RTOS's sources for `arch` or of the
    configuration names."""
    built = files_built(sources, rtos.digest_files, rtos.built_dirs(arch))
    headers = [sources / n for n in built]
    headers += sorted(config.glob("*.h"))
    text = "\n".join(
        p.read_text(errors="replace") for p in headers if p.suffix == ".h" and p.is_file()
    )
    for key, _value in settings:
        if re.search(rf"\b{re.escape(key)}\b", text) is None:
            raise UsageError(
                f"{rtos.display} has no setting {key}: no header of its sources or of the "
                f"configuration ({config}) names it."
            )


def write_folder(rtos: Rtos, base: Path, folder: Path, settings: Sequence[tuple[str, str]]) -> Path:
    """`base` (a configuration folder) copied to `folder`, its main header ending with
    the settings; returns `folder`."""
    wanted: dict[str, bytes] = {p.name: p.read_bytes() for p in base.iterdir() if p.is_file()}
    lines = [wanted[rtos.config_header].decode(errors="replace").rstrip("\n"), "", MARK]
    for key, value in settings:
        lines += [f"#undef {key}", f"#define {key} {value}"]
    wanted[rtos.config_header] = ("\n".join(lines) + "\n").encode()
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if old.name not in wanted and old.is_file():
            old.unlink()
    for name, content in wanted.items():
        path = folder / name
        # written only when it changed, so the build sees new times only then
        if not path.is_file() or path.read_bytes() != content:
            path.write_bytes(content)
    return folder


def first_error(log: Path) -> str:
    """The compiler's first error line in a build log, for a one-sentence refusal."""
    try:
        for line in log.read_text(errors="replace").splitlines():
            if "error:" in line or "Error:" in line:
                return line.strip()[:300]
    except OSError:
        pass
    return "see the build log"
