# SPDX-License-Identifier: Apache-2.0
"""A firmware image: an RTOS's sources as the user gave them, rtbench's port of
that RTOS and the board, built with CMake (cmake/rtb_firmware.cmake).

`sources(rtos)` checks the folder the RTOS's variable names, reads its release
and fingerprints it (targets.firmware.sources); `missing()` says in one sentence
what this machine lacks. `ensure_image` builds the image into this user's cache,
in a folder keyed by the RTOS, the board, the sources' path and release, the
configuration folder and the build options, and builds it again when the content
of a file it is built from changes (rtbench's sources, the RTOS's files, the
headers of a configuration folder given instead of rtbench's own) or the ELF is
gone. Concurrent rtbench commands wait for each other (a lock file).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rtbench import build
from rtbench.errors import BuildError, UsageError
from rtbench.targets.firmware import variant
from rtbench.targets.firmware.boards import BOARDS
from rtbench.targets.firmware.rtos import Rtos
from rtbench.targets.firmware.sources import SourceCheckout, files_built, identify

_TOOLS = (
    ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
    ("cmake", "cmake"),
)


def _sources_problem(rtos: Rtos, text: str | None) -> str | None:
    if not text:
        return (
            f"{rtos.source_env} is not set, so there is no {rtos.display} kernel to "
            f"build; {rtos.how_to_get}"
        )
    path = Path(text)
    lacking = [f for f in rtos.required if not (path / f).is_file()]
    if lacking:
        return (
            f"{rtos.source_env}={text} is not {rtos.source_what} (it has no "
            f"{lacking[0]}); {rtos.how_to_get}"
        )
    return None


def read_sources(rtos: Rtos, path: Path, arch: str | None) -> SourceCheckout:
    """The release and fingerprint of `rtos`'s sources at `path`, as an image for
    the architecture `arch` is built from them (None: the files of every core
    alone, whose digest no release table holds)."""
    release = rtos.read_release(path)
    checkout = SourceCheckout(path, release.tag, release.commit, release.read_from)
    files = files_built(path, rtos.digest_files, rtos.built_dirs(arch))
    return identify(checkout, files, rtos.display, rtos.known_digests.get(arch or "", {}))


def sources(rtos: Rtos, arch: str) -> SourceCheckout:
    """The sources `rtos.source_env` names, or UsageError saying how to get them."""
    text = os.environ.get(rtos.source_env, "").strip()
    problem = _sources_problem(rtos, text)
    if problem is not None:
        raise UsageError(problem + ".")
    return read_sources(rtos, Path(text).resolve(), arch)


def _picolibc_missing() -> bool:
    if shutil.which("arm-none-eabi-gcc") is None:
        return False  # the compiler is named first
    return not Path(build.compiler_file("arm-none-eabi-gcc", "picolibc.specs")).is_absolute()


def missing(root: Path, rtos: Rtos, emulator: str | None) -> str | None:
    """None when `rtos`'s image can be built and booted here, else one phrase
    saying what is missing and how to get it. `emulator`: the emulator binary
    to look for (None: a test hook replaces it)."""
    if os.environ.get(rtos.image_env):
        image = Path(os.environ[rtos.image_env])
        problem = None if image.is_file() else f"{rtos.image_env}={image} is not a file"
    else:
        problem = _sources_problem(rtos, os.environ.get(rtos.source_env, "").strip())
        if problem is None and not (root / "ports" / rtos.name).is_dir():
            problem = f"this rtbench ({root}) has no {rtos.display} port (ports/{rtos.name})"
        if problem is None:
            packages = [pkg for tool, pkg in (*_TOOLS, *rtos.tools) if shutil.which(tool) is None]
            if not packages and _picolibc_missing():
                packages.append("picolibc-arm-none-eabi")
            if packages:
                problem = f"the image is built with {', '.join(packages)} (apt-get install " + (
                    " ".join(packages) + ")"
                )
    if problem is None and emulator is not None and shutil.which(emulator) is None:
        problem = f"{emulator} is not installed (apt-get install qemu-system-arm)"
    return problem


def config_dir(rtos: Rtos) -> Path | None:
    """The configuration folder `rtos.config_env` names instead of rtbench's own."""
    text = os.environ.get(rtos.config_env, "").strip()
    if not text:
        return None
    folder = Path(text).resolve()
    if not (folder / rtos.config_header).is_file():
        raise UsageError(f"{rtos.config_env}={text} holds no {rtos.config_header}.")
    return folder


def _cache_root() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "rtbench" / "firmware"


def build_dir(
    root: Path,
    rtos: Rtos,
    checkout: SourceCheckout,
    config: Path | None,
    board: str,
    extra: Sequence[str] = (),
) -> Path:
    """This user's build folder for one RTOS, sources, release, configuration,
    board and set of build options."""
    key = "\0".join(
        [
            str(root),
            rtos.name,
            str(checkout.path),
            checkout.tag or "",
            checkout.commit or "",
            str(config or ""),
            *extra,
        ]
    )
    return _cache_root() / f"{rtos.name}-{board}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def stamp(root: Path, rtos: Rtos, path: Path, config: Path | None, arch: str) -> str:
    """What the image is built from, by content: rtbench's sources, the RTOS's files
    for the architecture and every header of the configuration folder given instead
    of rtbench's own (a build.file_manifest)."""
    files = [path / n for n in files_built(path, rtos.digest_files, rtos.built_dirs(arch))]
    if config is not None:
        files += sorted(p for p in config.rglob("*.h") if p.is_file())
    return build.source_stamp(root) + build.file_manifest(files)


@dataclass(frozen=True)
class Image:
    """A built image and what it was built from."""

    path: Path
    sources: SourceCheckout | None  # None: given by the test hook without sources
    config_dir: Path | None
    options: tuple[tuple[str, str], ...] = ()  # the build options chosen (name, value)
    settings: tuple[tuple[str, str], ...] = ()  # configuration macros a variant changes


def ensure_image(
    root: Path,
    rtos: Rtos,
    board: str,
    say: Callable[[str], None],
    options: Sequence[tuple[str, str]] = (),
    settings: Sequence[tuple[str, str]] = (),
) -> Image:
    """The path of an up-to-date image of `rtos` for `board`, building it when needed
    (`options`: the build options the spec chose, as (name, value); `settings`: the
    configuration macros a variant changes, targets.firmware.variant)."""
    arch = BOARDS[board].arch
    given = os.environ.get(rtos.image_env)
    if given:
        path = Path(given)
        if not path.is_file():
            raise UsageError(f"{rtos.image_env}={given} is not a file.")
        text = os.environ.get(rtos.source_env, "").strip()
        checkout = None
        if text and _sources_problem(rtos, text) is None:
            checkout = read_sources(rtos, Path(text), arch)
        return Image(path, checkout, None, tuple(options))
    checkout = sources(rtos, arch)
    problem = missing(root, rtos, None)
    if problem is not None:
        raise UsageError(f"The {rtos.display} image cannot be built: {problem}.")
    config, extra = chosen_config(root, rtos, options)
    folder = build_dir(
        root, rtos, checkout, config, board, [*extra, *(f"{k}={v}" for k, v in settings)]
    )
    if settings:
        base = config or root / "ports" / rtos.name / "config"
        variant.check_known(rtos, checkout.path, base, settings, arch)
        # beside the build folder, not in it: a build that starts afresh
        # empties its folder (rtbench.build), after this was written
        config = variant.write_folder(
            rtos, base, folder.with_name(folder.name + "-config"), settings
        )

    def steps() -> list[list[str]]:
        configure = [
            "cmake",
            "-S",
            str(root),
            "-B",
            str(folder),
            f"-DRTB_PORT={rtos.name}",
            f"-DRTB_BOARD={board}",
            f"-D{rtos.cmake_source_var}={checkout.path}",
            f"-DCMAKE_TOOLCHAIN_FILE={root / 'cmake' / 'toolchains' / BOARDS[board].toolchain}",
            "-DCMAKE_BUILD_TYPE=Release",
        ]
        if config is not None:
            configure.append(f"-D{rtos.cmake_config_var}={config}")
        configure += extra
        return [configure, ["cmake", "--build", str(folder), "-j", "2"]]

    chosen = "".join(f", {name}={value}" for name, value in options)
    chosen += "".join(f", {key}={value}" for key, value in settings)
    try:
        elf = build.cached_build(
            folder,
            folder / rtos.image_name(board),
            lambda: stamp(root, rtos, checkout.path, config, arch),
            steps,
            lambda: say(
                f"Building the {rtos.display} image for {board} "
                f"({rtos.display} {checkout.tag or '?'}{chosen})..."
            ),
            f"the {rtos.display} image",
            timeout=900,
        )
    except BuildError as e:
        if not settings:
            raise
        given = ";".join(f"{k}={v}" for k, v in settings)
        raise UsageError(
            f"The {rtos.display} image with config={given} does not build "
            f"({variant.first_error(folder / 'build.log')}); see {folder / 'build.log'}."
        ) from e
    return Image(elf, checkout, config, tuple(options), tuple(settings))


def chosen_config(
    root: Path, rtos: Rtos, options: Sequence[tuple[str, str]]
) -> tuple[Path | None, list[str]]:
    """The configuration folder to build with (None: rtbench's default one) and the
    other CMake arguments of the build options: the folder the RTOS's variable names,
    or one of rtbench's that an option chooses (FreeRTOS's checks=on); both is
    UsageError."""
    config = config_dir(rtos)
    extra = _option_args(root, rtos, options)
    folder_arg = f"-D{rtos.cmake_config_var}="
    chosen = [a.removeprefix(folder_arg) for a in extra if a.startswith(folder_arg)]
    if not chosen:
        return config, extra
    if config is not None:
        named = ", ".join(f"{n}={v}" for n, v in options)
        raise UsageError(
            f"{named} builds one of rtbench's {rtos.display} configurations and "
            f"{rtos.config_env}={config} names another: give one of them."
        )
    return Path(chosen[0]).resolve(), [a for a in extra if not a.startswith(folder_arg)]


def _option_args(root: Path, rtos: Rtos, options: Sequence[tuple[str, str]]) -> list[str]:
    """The CMake arguments of the build options chosen; a relative path in one is
    under rtbench's root."""
    by_name = {o.name: o for o in rtos.options}
    args: list[str] = []
    for name, value in options:
        for given in by_name[name].values[value]:
            key, sep, text = given.partition("=")
            relative = sep and text and not text.startswith("/") and "/" in text
            args.append(f"{key}={root / text}" if relative else given)
    return args
