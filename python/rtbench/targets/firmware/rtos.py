# SPDX-License-Identifier: Apache-2.0
"""What rtbench knows of one RTOS it builds firmware images with (an `Rtos`).

An RTOS is a dependency, never part of rtbench: its sources come from a folder the
user names in an environment variable. Everything the firmware target does is
written once for every RTOS (targets.firmware); an `Rtos` holds only what differs:
where its sources come from and how to recognise, date and fingerprint them, its
port folder and configuration header, the build options a target spec may
choose, and the functions its kernel enters critical sections with.

The facts CMake, the Python package and CI share (the sources' variable, the
release tested, the files a sources folder must hold, the digests of the
releases as published, the configuration folder, the build options) are the
port's manifest, ports/<name>/port.json, read by `from_manifest`; what only
Python needs (how to read the release from the sources, the critical-section
functions for `--trace`) is given beside it. Adding an RTOS is its port folder
with its manifest, and one entry in targets.firmware.rtoses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench.paths import ROOT
from rtbench.targets.firmware.sources import Release
from rtbench.trace.codepath.critical import CriticalSections


@dataclass(frozen=True)
class RtosOption:
    """A build option a target spec may give (`qemu:freertos-mps2-an385,checks=on`):
    its values, each with the CMake arguments it adds (relative paths are under
    rtbench's root), the default, and one phrase saying what it chooses."""

    name: str
    values: Mapping[str, tuple[str, ...]]
    default: str
    help: str


@dataclass(frozen=True)
class Rtos:
    """One RTOS rtbench builds images with (see the module's docstring)."""

    name: str  # "freertos": the port folder ports/<name>, the spec qemu:<name>-<board>
    display: str  # "FreeRTOS"
    source_env: str  # FREERTOS_KERNEL_PATH: the folder holding its sources
    source_what: str  # "a FreeRTOS-Kernel checkout"
    how_to_get: str  # one phrase: how a user gets the sources
    source_url: str  # where they are published
    tested_release: str  # the release rtbench is tested with
    required: tuple[str, ...]  # files the sources folder must hold
    digest_files: tuple[str, ...]  # files the image compiles, relative to the folder
    digest_dirs: tuple[str, ...]  # folders whose .c, .h and .S files it reads, on every core
    # the RTOS's own port folders for each architecture (a board's `arch`)
    arch_dirs: Mapping[str, tuple[str, ...]]
    # architecture -> release tag -> the digest of the files an image for that
    # architecture is built from, as published
    known_digests: Mapping[str, Mapping[str, str]]
    read_release: Callable[[Path], Release]  # VERSION file, git, a version macro
    cmake_source_var: str  # the port.cmake variable naming the sources folder
    config_header: str  # "FreeRTOSConfig.h": what a configuration folder must hold
    cmake_config_var: str  # RTB_FREERTOS_CONFIG_DIR
    config_env: str  # RTBENCH_FREERTOS_CONFIG_DIR: a folder used instead of rtbench's own
    image_env: str  # RTBENCH_FREERTOS_IMAGE: test hook, a prebuilt image used as it is
    options: tuple[RtosOption, ...] = field(default_factory=tuple)
    # the functions its kernel masks interrupts with, by which `--trace` counts the
    # critical sections on a path (trace.codepath.critical); None: not counted
    critical_sections: CriticalSections | None = None
    # the table on a board whose kernel port masks otherwise, by board name
    critical_sections_on: Mapping[str, CriticalSections | None] = field(default_factory=dict)
    # the boards (targets.firmware.boards) its port runs on
    boards: tuple[str, ...] = ("mps2-an385",)
    # programs its build needs beyond the compiler and CMake: (program, Debian package)
    tools: tuple[tuple[str, str], ...] = ()
    # the archives its kernel is built as, when not the one lib<name>_kernel.a
    kernel_archives: tuple[str, ...] = ()

    def built_dirs(self, arch: str | None) -> tuple[str, ...]:
        """The folders an image for `arch` reads: every core's, then the
        architecture's port (none when the architecture is not known)."""
        return (*self.digest_dirs, *self.arch_dirs.get(arch or "", ()))

    @property
    def facts_path(self) -> str:
        """What the image answers `#rtb read` with: its release, board and configuration."""
        return f"/rtbench/{self.name}.json"

    def critical_sections_for(self, board: str) -> CriticalSections | None:
        """The critical-section table of its kernel port on `board`."""
        return self.critical_sections_on.get(board, self.critical_sections)

    @property
    def kernel_libraries(self) -> tuple[str, ...]:
        """The archives the image's kernel code comes from, by file name: the
        manifest's `kernel_libraries`, else the one port.cmake builds,
        lib<name>_kernel.a."""
        return self.kernel_archives or (f"lib{self.name}_kernel.a",)

    def image_name(self, board: str) -> str:
        return f"rtbench-{self.name}-{board}.elf"


def manifest_path(name: str) -> Path:
    """ports/<name>/port.json."""
    return ROOT / "ports" / name / "port.json"


def from_manifest(
    name: str,
    read_release: Callable[[Path], Release],
    critical_sections: CriticalSections | None = None,
    critical_sections_on: Mapping[str, CriticalSections | None] | None = None,
) -> Rtos:
    """The `Rtos` its port's manifest describes, with what only Python knows."""
    data: dict[str, Any] = json.loads(manifest_path(name).read_text(encoding="utf-8"))
    sources, digest, config = data["sources"], data["digest"], data["config"]
    return Rtos(
        name=data["name"],
        display=data["display"],
        boards=tuple(data["boards"]),
        source_env=sources["env"],
        source_what=sources["what"],
        how_to_get=sources["how_to_get"],
        source_url=sources["url"],
        tested_release=sources["tested_release"],
        required=tuple(sources["required"]),
        cmake_source_var=sources["cmake_var"],
        digest_files=tuple(digest["files"]),
        digest_dirs=tuple(digest["dirs"]),
        arch_dirs={arch: tuple(dirs) for arch, dirs in digest["arch_dirs"].items()},
        known_digests={arch: dict(tags) for arch, tags in digest["known"].items()},
        config_header=config["header"],
        cmake_config_var=config["cmake_var"],
        config_env=config["env"],
        image_env=data["image_env"],
        tools=tuple((tool["program"], tool["debian"]) for tool in data.get("tools", ())),
        kernel_archives=tuple(data.get("kernel_libraries", ())),
        options=tuple(
            RtosOption(
                name=o["name"],
                values={value: tuple(args) for value, args in o["values"].items()},
                default=o["default"],
                help=o["help"],
            )
            for o in data["options"]
        ),
        read_release=read_release,
        critical_sections=critical_sections,
        critical_sections_on=dict(critical_sections_on or {}),
    )
