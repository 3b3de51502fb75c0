# SPDX-License-Identifier: Apache-2.0
"""The FreeRTOS image: the kernel checkout it is built from, the tools it needs,
and its build.

FreeRTOS is a dependency, not part of rtbench: the kernel comes from a
FreeRTOS-Kernel checkout named by FREERTOS_KERNEL_PATH (the release rtbench is
tested with is V11.1.0). `kernel_checkout()` checks it and reads its release
(the checkout's VERSION file, else `git describe`, else the version macro in
include/task.h); `missing()` says in one sentence what this machine lacks.

The checkout's sources are identified by a digest (`kernel_digest`: the
SHA-256 of a `sha256sum` listing of the kernel files the image is built from,
`kernel_files`), and said to be modified or not: in a git checkout by
`git status` of those files, otherwise by comparing the digest with rtbench's
table of release digests (KNOWN_DIGESTS); a release the table lacks is
"unknown whether modified" (docs/targets.md).

`ensure_image` builds the image with the port's CMake build (ports/freertos)
into this user's cache, in a folder keyed by the checkout's path and release
and the FreeRTOSConfig.h folder, and builds it again when the content of a
file it is built from changes (rtbench's sources, the kernel files, the
headers of the configuration folder: `_stamp`) or the ELF is gone.
Concurrent rtbench commands wait for each other (a lock file).

Environment: FREERTOS_KERNEL_PATH (the kernel checkout), RTBENCH_FREERTOS_CONFIG_DIR
(a folder holding a FreeRTOSConfig.h used instead of rtbench's own). Test hook:
RTBENCH_FREERTOS_IMAGE names a prebuilt image used as it is (no build, no checkout
needed).
"""

from __future__ import annotations

import dataclasses
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
# The kernel files the image is built from (ports/freertos/port.cmake): the
# sources it compiles, and every .c and .h file in include/ and in the kernel
# port folder of the board's core.
KERNEL_SOURCES = (
    "tasks.c",
    "queue.c",
    "list.c",
    "event_groups.c",
    "timers.c",
    "portable/MemMang/heap_4.c",
)
KERNEL_HEADER_DIRS = ("include", "portable/GCC/ARM_CM3")
# kernel_digest() of each release's files as published: computed from
# `git archive <tag>` of https://github.com/FreeRTOS/FreeRTOS-Kernel (LF line
# endings) and, for V11.1.0, from a release extract too.
KNOWN_DIGESTS = {
    "V11.0.0": "49467a73a4a7080f331a5abdc2896bd3adbaa2e2d001c4f7623f246a5e71ba40",
    "V11.0.1": "bb35a82aac6e90ce87e7c3ea4c8eb0c720bb0ca26ec6d31664b02271d5c03c9f",
    "V11.1.0": "edbbb421e69ffe013a261676f837136b005aacd198ef47ee64bae5d87ed6720a",
    "V11.2.0": "98ee14a7b5f5b2606a451cd78ee1d6f8346d5becfd172528a3e655db02cd5029",
    "V11.3.0": "61796632ee8e627698fcf7f0a0b87df86d92933820221c1688c4beb144258447",
}
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
    digest: str | None = None  # kernel_digest() of the files built
    modified: bool | None = None  # None: unknown
    modified_reason: str = ""  # how `modified` was decided, one phrase

    def describe(self) -> dict[str, str | bool | None]:
        return {
            "path": str(self.path),
            "tag": self.tag,
            "commit": self.commit,
            "read_from": self.source,
            "digest": self.digest,
            "modified": self.modified,
            "modified_reason": self.modified_reason,
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


def _git_output(path: Path, *args: str) -> str | None:
    """What `git -C path ARGS` prints, None when `path` is no git checkout or git fails."""
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
    return done.stdout if done.returncode == 0 else None


def _git(path: Path, *args: str) -> str | None:
    out = _git_output(path, *args)
    return (out.strip() or None) if out is not None else None


def kernel_files(path: Path) -> list[str]:
    """The kernel files the image is built from, relative to the checkout, in byte
    order: KERNEL_SOURCES and every .c and .h file under KERNEL_HEADER_DIRS (those
    that exist: a checkout that lacks one does not build)."""
    names = {n for n in KERNEL_SOURCES if (path / n).is_file()}
    for folder in KERNEL_HEADER_DIRS:
        base = path / folder
        if base.is_dir():
            names.update(
                p.relative_to(path).as_posix()
                for p in base.rglob("*")
                if p.suffix in (".c", ".h") and p.is_file()
            )
    return sorted(names, key=lambda n: n.encode())


def kernel_digest(path: Path, files: list[str]) -> str:
    """The SHA-256 of the `sha256sum` listing of `files` (relative to `path`):
    one line `<sha256 of the content>  <relative path>` per file, in byte order,
    as `LC_ALL=C sort | xargs sha256sum | sha256sum` computes it."""
    listing = "".join(f"{build.file_sha256(path / name)}  {name}\n" for name in files)
    return hashlib.sha256(listing.encode()).hexdigest()


def _modified_in_git(path: Path, files: list[str]) -> tuple[bool | None, str]:
    """Tracked changes to the files built, against the checkout's commit."""
    status = _git_output(path, "status", "--porcelain", "--untracked-files=no", "--", *files)
    if status is None:
        return None, "unknown whether modified: git status failed"
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    if not changed:
        return False, "no tracked changes to the files built (git status)"
    stat = _git(path, "diff", "--shortstat", "HEAD", "--", *files)
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return True, f"tracked changes to {shown} (git status{': ' + stat if stat else ''})"


def _modified_from_table(tag: str | None, digest: str) -> tuple[bool | None, str]:
    """An extract's digest against the release's known digest."""
    known = KNOWN_DIGESTS.get(tag or "")
    if known is None:
        return None, (
            f"unknown whether modified: rtbench knows no digest of FreeRTOS {tag or '(no release)'}"
        )
    if known == digest:
        return False, f"the digest is FreeRTOS {tag}'s"
    return True, f"the digest differs from FreeRTOS {tag}'s"


def identify_sources(kernel: KernelCheckout) -> KernelCheckout:
    """`kernel` with the digest of the files built and whether they are modified:
    git status in a git checkout whose release was read from git, otherwise the
    digest against KNOWN_DIGESTS."""
    files = kernel_files(kernel.path)
    digest = kernel_digest(kernel.path, files)
    if kernel.source == "git":
        modified, reason = _modified_in_git(kernel.path, files)
    else:
        modified, reason = _modified_from_table(kernel.tag, digest)
    return dataclasses.replace(kernel, digest=digest, modified=modified, modified_reason=reason)


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
    return identify_sources(read_release(Path(text).resolve()))


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


def _config_dir() -> Path | None:
    text = os.environ.get(CONFIG_ENV, "").strip()
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


def _stamp(root: Path, kernel: Path, config: Path | None) -> str:
    """What the image is built from, by content: rtbench's sources, the kernel
    files (`kernel_files`) and every header of the configuration folder given
    instead of rtbench's own (a build.file_manifest)."""
    files = [kernel / n for n in kernel_files(kernel)]
    if config is not None:
        files += sorted(p for p in config.rglob("*.h") if p.is_file())
    return build.source_stamp(root) + build.file_manifest(files)


def image_name(board: str) -> str:
    return f"rtbench-freertos-{board}.elf"


@dataclass(frozen=True)
class Image:
    """A built image and what it was built from."""

    path: Path
    kernel: KernelCheckout | None  # None: given by the test hook
    config_dir: Path | None


def ensure_image(root: Path, board: str, say: Callable[[str], None]) -> Image:
    """The path of an up-to-date image for `board`, building it when needed."""
    given = os.environ.get(IMAGE_ENV)
    if given:
        path = Path(given)
        if not path.is_file():
            raise UsageError(f"{IMAGE_ENV}={given} is not a file.")
        text = os.environ.get(KERNEL_ENV, "").strip()
        kernel = None
        if text and _checkout_problem(text) is None:
            kernel = identify_sources(read_release(Path(text)))
        return Image(path, kernel, None)
    kernel = kernel_checkout()
    problem = missing(root, None)
    if problem is not None:
        raise UsageError(f"The FreeRTOS image cannot be built: {problem}.")
    config = _config_dir()
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
        lambda: _stamp(root, kernel.path, config),
        steps,
        lambda: say(f"Building the FreeRTOS image for {board} (FreeRTOS {kernel.tag or '?'})..."),
        "the FreeRTOS image",
        timeout=900,
    )
    return Image(elf, kernel, config)
