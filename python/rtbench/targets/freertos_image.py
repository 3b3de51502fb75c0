# SPDX-License-Identifier: Apache-2.0
"""The FreeRTOS image: the kernel checkout it is built from, the tools it needs,
and its build.

FreeRTOS is a dependency, not part of rtbench: the kernel comes from a
FreeRTOS-Kernel checkout named by FREERTOS_KERNEL_PATH (the release rtbench is
tested with is V11.1.0). `kernel_checkout()` checks it and reads its release
(the checkout's VERSION file, else `git describe`, else the version macro in
include/task.h); `missing()` says in one sentence what this machine lacks.

`ensure_image` builds the image with the port's CMake build (ports/freertos)
into this user's cache, in a folder keyed by the checkout's path and release
and the FreeRTOSConfig.h folder, and builds it again when rtbench's own
sources change (the stamp build.ensure_core keeps), the configuration changes
or the ELF is gone. Concurrent rtbench commands wait for each other (a lock
file). The configuration is rtbench's production one (ports/freertos/config),
its checked one with `checks=True` (ports/freertos/config-checked: the
target option checks=on), or the folder RTBENCH_FREERTOS_CONFIG_DIR names.

Environment: FREERTOS_KERNEL_PATH (the kernel checkout), RTBENCH_FREERTOS_CONFIG_DIR
(a folder holding a FreeRTOSConfig.h used instead of rtbench's own). Test hook:
RTBENCH_FREERTOS_IMAGE names a prebuilt image used as it is (no build, no checkout
needed).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rtbench import build
from rtbench.errors import UsageError

KERNEL_ENV = "FREERTOS_KERNEL_PATH"
CONFIG_ENV = "RTBENCH_FREERTOS_CONFIG_DIR"
IMAGE_ENV = "RTBENCH_FREERTOS_IMAGE"
TOOLCHAIN_FILE = "arm-none-eabi-cortex-m3.cmake"
KERNEL_REPO = "https://github.com/FreeRTOS/FreeRTOS-Kernel"
KERNEL_TAG = "V11.1.0"
HOW_TO_GET = (
    f"get it with `git clone --depth 1 -b {KERNEL_TAG} {KERNEL_REPO}` and "
    f"export {KERNEL_ENV}=<that folder>"
)
# What a checkout holds that the image needs (kernel, the Cortex-M3 port, heap_4).
_KERNEL_FILES = (
    "tasks.c",
    "queue.c",
    "include/task.h",
    "portable/GCC/ARM_CM3/port.c",
    "portable/MemMang/heap_4.c",
)
_TOOLS = (
    ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
    ("cmake", "cmake"),
)


@dataclass(frozen=True)
class KernelCheckout:
    """A FreeRTOS-Kernel checkout and the release it holds."""

    path: Path
    tag: str | None  # "V11.1.0"
    commit: str | None
    source: str  # where tag/commit were read: "VERSION", "git", "include/task.h"

    def describe(self) -> dict[str, str | None]:
        return {
            "path": str(self.path),
            "tag": self.tag,
            "commit": self.commit,
            "read_from": self.source,
        }


def _checkout_problem(text: str | None) -> str | None:
    if not text:
        return f"{KERNEL_ENV} is not set, so there is no FreeRTOS kernel to build; {HOW_TO_GET}"
    path = Path(text)
    lacking = [f for f in _KERNEL_FILES if not (path / f).is_file()]
    if lacking:
        return (
            f"{KERNEL_ENV}={text} is not a FreeRTOS-Kernel checkout (it has no "
            f"{lacking[0]}); {HOW_TO_GET}"
        )
    return None


def _git(path: Path, *args: str) -> str | None:
    if shutil.which("git") is None or not (path / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(path), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def read_release(path: Path) -> KernelCheckout:
    """The release of the checkout at `path`: its VERSION file ("TAG COMMIT"), else
    git, else tskKERNEL_VERSION_NUMBER in include/task.h."""
    try:
        words = (path / "VERSION").read_text(errors="replace").split()
    except OSError:
        words = []
    if words:
        commit = words[1] if len(words) > 1 and re.fullmatch(r"[0-9a-f]{7,40}", words[1]) else None
        return KernelCheckout(path, words[0], commit, "VERSION")
    described = _git(path, "describe", "--tags", "--always")
    if described is not None:
        return KernelCheckout(path, described, _git(path, "rev-parse", "HEAD"), "git")
    tag = None
    try:
        header = (path / "include" / "task.h").read_text(errors="replace")
        match = re.search(r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"', header)
        tag = match.group(1) if match else None
    except OSError:
        pass
    return KernelCheckout(path, tag, None, "include/task.h")


def kernel_checkout() -> KernelCheckout:
    """The checkout FREERTOS_KERNEL_PATH names, or UsageError saying how to get one."""
    text = os.environ.get(KERNEL_ENV, "").strip()
    problem = _checkout_problem(text)
    if problem is not None:
        raise UsageError(problem + ".")
    return read_release(Path(text).resolve())


def _picolibc_missing() -> bool:
    if shutil.which("arm-none-eabi-gcc") is None:
        return False  # the compiler is named first
    return not Path(build.compiler_file("arm-none-eabi-gcc", "picolibc.specs")).is_absolute()


def missing(root: Path, emulator: str | None) -> str | None:
    """None when the FreeRTOS image can be built and booted here, else one phrase
    saying what is missing and how to get it. `emulator`: the emulator binary
    to look for (None: a test hook replaces it)."""
    if os.environ.get(IMAGE_ENV):
        image = Path(os.environ[IMAGE_ENV])
        problem = None if image.is_file() else f"{IMAGE_ENV}={image} is not a file"
    else:
        problem = _checkout_problem(os.environ.get(KERNEL_ENV, "").strip())
        if problem is None and not (root / "ports" / "freertos").is_dir():
            problem = f"this rtbench ({root}) has no FreeRTOS port (ports/freertos)"
        if problem is None:
            packages = [pkg for tool, pkg in _TOOLS if shutil.which(tool) is None]
            if not packages and _picolibc_missing():
                packages.append("picolibc-arm-none-eabi")
            if packages:
                problem = f"the image is built with {', '.join(packages)} (apt-get install " + (
                    " ".join(packages) + ")"
                )
    if problem is None and emulator is not None and shutil.which(emulator) is None:
        problem = f"{emulator} is not installed (apt-get install qemu-system-arm)"
    return problem


CHECKED_CONFIG = Path("ports") / "freertos" / "config-checked"


def config_dir(root: Path, checks: bool) -> Path | None:
    """The FreeRTOSConfig.h folder to build with: RTBENCH_FREERTOS_CONFIG_DIR's,
    rtbench's checked one (checks), or None for rtbench's production one (the
    port's default); UsageError when both a folder and checks are asked for."""
    text = os.environ.get(CONFIG_ENV, "").strip()
    if text and checks:
        raise UsageError(
            f"checks=on builds rtbench's checked configuration ({CHECKED_CONFIG}) and "
            f"{CONFIG_ENV}={text} names another: give one of them."
        )
    if checks:
        return (root / CHECKED_CONFIG).resolve()
    if not text:
        return None
    folder = Path(text).resolve()
    if not (folder / "FreeRTOSConfig.h").is_file():
        raise UsageError(f"{CONFIG_ENV}={text} holds no FreeRTOSConfig.h.")
    return folder


def _cache_root() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "rtbench" / "freertos"


def build_dir(root: Path, kernel: KernelCheckout, config: Path | None, board: str) -> Path:
    """This user's build folder for one checkout, release, configuration and board."""
    key = "\0".join(
        [str(root), str(kernel.path), kernel.tag or "", kernel.commit or "", str(config or "")]
    )
    return _cache_root() / f"{board}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _stamp(root: Path, config: Path | None) -> str:
    """What the image depends on besides the checkout: rtbench's sources and the
    configuration header given instead of rtbench's own."""
    text = build.source_stamp(root)
    if config is not None:
        st = (config / "FreeRTOSConfig.h").stat()
        text += f"\nconfig\0{st.st_mtime_ns}\0{st.st_size}"
    return text


def image_name(board: str) -> str:
    return f"rtbench-freertos-{board}.elf"


@dataclass(frozen=True)
class Image:
    """A built image and what it was built from."""

    path: Path
    kernel: KernelCheckout | None  # None: given by the test hook
    config_dir: Path | None


def ensure_image(
    root: Path, board: str, say: Callable[[str], None], *, checks: bool = False
) -> Image:
    """The path of an up-to-date image for `board`, building it when needed
    (checks: with rtbench's checked configuration)."""
    given = os.environ.get(IMAGE_ENV)
    if given:
        path = Path(given)
        if not path.is_file():
            raise UsageError(f"{IMAGE_ENV}={given} is not a file.")
        text = os.environ.get(KERNEL_ENV, "").strip()
        kernel = read_release(Path(text)) if text and _checkout_problem(text) is None else None
        return Image(path, kernel, None)
    kernel = kernel_checkout()
    problem = missing(root, None)
    if problem is not None:
        raise UsageError(f"The FreeRTOS image cannot be built: {problem}.")
    config = config_dir(root, checks)
    folder = build_dir(root, kernel, config, board)

    def steps() -> list[list[str]]:
        configure = [
            "cmake",
            "-S",
            str(root),
            "-B",
            str(folder),
            "-DRTB_PORT=freertos",
            f"-DRTB_BOARD={board}",
            f"-DFREERTOS_KERNEL_PATH={kernel.path}",
            f"-DCMAKE_TOOLCHAIN_FILE={root / 'cmake' / 'toolchains' / TOOLCHAIN_FILE}",
            "-DCMAKE_BUILD_TYPE=Release",
        ]
        if config is not None:
            configure.append(f"-DRTB_FREERTOS_CONFIG_DIR={config}")
        return [configure, ["cmake", "--build", str(folder), "-j", "2"]]

    elf = build.cached_build(
        folder,
        folder / image_name(board),
        lambda: _stamp(root, config),
        steps,
        lambda: say(
            f"Building the FreeRTOS image for {board} (FreeRTOS {kernel.tag or '?'}"
            f"{', checked configuration' if checks else ''})..."
        ),
        "the FreeRTOS image",
        timeout=900,
    )
    return Image(elf, kernel, config)
