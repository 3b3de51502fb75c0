# SPDX-License-Identifier: Apache-2.0
"""Building rtbench-core with CMake, for this host or for a target.

`ensure_core(root, announce)` builds the core for this host in `build/host`.
With `arch` (a `uname -m` value), `libc` or `static`, it builds for a target
in `build/<arch>-<libc>[-static]`, with a cross compiler or musl-gcc named by
a toolchain file in `cmake/toolchains/` (see docs/builds.md).

The build is skipped when nothing it depends on changed: a stamp lists the
SHA-256 of the content of every file in core/, ports/, cmake/ and
CMakeLists.txt (`file_manifest`), and the binary must exist. A file whose
content changed while its modification time did not move past the last build
(copied with its old time, say) would be missed by make, which compares times:
then the build folder is emptied and built from scratch (`cached_build`).
Concurrent rtbench commands wait for each other (a lock file) instead of
building the same tree twice. In a checkout this user cannot write to, an
up-to-date build there is used as it is; otherwise the core is built in this
user's cache
(`~/.cache/rtbench/build-<hash of the checkout path>/<folder>`).

Test hook: the environment variable RTBENCH_CORE names a core binary to use
instead of building one. For a target build it must be an ELF executable of
the target's architecture (and static when a static core is asked for).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rtbench import elf
from rtbench.errors import BuildError, UsageError

CORE_ENV = "RTBENCH_CORE"
BUILD_SUBDIR = Path("build") / "host"
STAMP_NAME = ".rtbench-stamp"  # beside a build: what it was built from
# beside a build: what its last attempt was started from (its time: when)
INPUTS_NAME = ".rtbench-inputs"
LIBCS = ("glibc", "musl")

# `uname -m` spellings -> the architecture rtbench builds for.
_ARCH_ALIASES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "aarch64",
    # 32-bit ARM, hard-float, ARMv7-A or later (an ARMv8 CPU in 32-bit mode
    # says armv8l and runs ARMv7 code).
    "armv7l": "armv7l",
    "armv7": "armv7l",
    "armv7hl": "armv7l",
    "armv8l": "armv7l",
    "armhf": "armv7l",
}


@dataclass(frozen=True)
class Toolchain:
    """How to compile for one architecture with one C library on this host."""

    compiler: str  # the command CMake is given
    file: str | None  # cmake/toolchains/<file>, None: the host's default compiler
    packages: str  # the Debian packages that provide it


# (architecture, C library) -> cross toolchain, used when the architecture
# is not this host's.
_CROSS = {
    ("aarch64", "glibc"): Toolchain(
        "aarch64-linux-gnu-gcc",
        "aarch64-linux-gnu.cmake",
        "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
    ),
    ("armv7l", "glibc"): Toolchain(
        "arm-linux-gnueabihf-gcc",
        "arm-linux-gnueabihf.cmake",
        "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross",
    ),
    ("x86_64", "glibc"): Toolchain(
        "x86_64-linux-gnu-gcc",
        "x86_64-linux-gnu.cmake",
        "gcc-x86-64-linux-gnu libc6-dev-amd64-cross",
    ),
}
_MUSL = Toolchain("musl-gcc", "musl.cmake", "musl-tools")
_NATIVE = Toolchain("cc", None, "build-essential")


def target_arch(uname_m: str) -> str:
    """The architecture rtbench builds for a machine whose `uname -m` is this
    (x86_64, aarch64 or armv7l); UsageError for one it cannot build for."""
    arch = _ARCH_ALIASES.get(uname_m.strip().lower())
    if arch is None:
        known = ", ".join(sorted(set(_ARCH_ALIASES.values())))
        raise UsageError(
            f"rtbench cannot build its core for the architecture '{uname_m.strip()}' "
            f"(it builds for {known})."
        )
    return arch


def host_arch() -> str | None:
    """This machine's architecture as target_arch() names it; None if it has
    no such name."""
    return _ARCH_ALIASES.get(platform.machine().lower())


@dataclass(frozen=True)
class BuildSpec:
    """One kind of core: architecture, C library, static or not."""

    arch: str
    libc: str
    static: bool

    @property
    def folder(self) -> str:
        return f"{self.arch}-{self.libc}" + ("-static" if self.static else "")

    def describe(self) -> str:
        return ("static " if self.static else "") + f"{self.arch} {self.libc}"

    def toolchain(self) -> Toolchain:
        native = self.arch == host_arch()
        if self.libc == "musl":
            if not native:
                raise UsageError(
                    f"A musl core for {self.arch} can only be built on an {self.arch} "
                    "machine (Debian's musl-tools has no cross compiler); use the "
                    "default C library (glibc) for this target."
                )
            return _MUSL
        if native:
            return _NATIVE
        return _CROSS[(self.arch, self.libc)]


def _inputs(root: Path) -> list[Path]:
    files: list[Path] = []
    for folder in ("core", "ports", "cmake"):
        base = root / folder
        if base.is_dir():
            files.extend(p for p in base.rglob("*") if p.is_file())
    cmakelists = root / "CMakeLists.txt"
    if cmakelists.is_file():
        files.append(cmakelists)
    return sorted(files)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's content, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def file_manifest(paths: Iterable[Path]) -> str:
    """One line per file, as `sha256sum` prints it: the SHA-256 of its content,
    two spaces, its absolute path. A stamp made of such lines lets
    `cached_build` see which files changed."""
    return "".join(f"{file_sha256(p)}  {p.absolute()}\n" for p in paths)


def source_stamp(root: Path) -> str:
    """What a build of rtbench depends on: the content of every file in core/,
    ports/, cmake/ and CMakeLists.txt (`file_manifest`; about 1 MB to read)."""
    return file_manifest(_inputs(root))


_MANIFEST_LINE = re.compile(r"([0-9a-f]{64})  (/.*)")


def _missed_by_times(before: str, now: str, started_ns: int) -> bool:
    """Whether a build tool that compares modification times could miss a change
    between the stamp `before` (of the attempt started at `started_ns`) and
    `now`: a file whose content changed but whose time is not later than that
    start, a file gone, or a change in a line that names no file."""
    old: dict[str, str] = {}
    new: dict[str, str] = {}
    other_old: list[str] = []
    other_new: list[str] = []
    for text, files, other in ((before, old, other_old), (now, new, other_new)):
        for line in text.splitlines():
            match = _MANIFEST_LINE.fullmatch(line)
            if match is None:
                other.append(line)
            else:
                files[match.group(2)] = match.group(1)
    if other_old != other_new or not set(old) <= set(new):
        return True
    for path, digest in new.items():
        if old.get(path) == digest:
            continue
        try:
            if Path(path).stat().st_mtime_ns <= started_ns:
                return True
        except OSError:
            return True
    return False


def _empty(folder: Path, keep: tuple[str, ...]) -> None:
    for entry in folder.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _writable(build_dir: Path) -> bool:
    """Can this process create or update the build in `build_dir`?"""
    probe = build_dir
    while not probe.exists():
        probe = probe.parent
    return os.access(probe, os.W_OK | os.X_OK)


def _up_to_date(root: Path, build_dir: Path) -> Path | None:
    binary = build_dir / "rtbench-core"
    stamp_file = build_dir / STAMP_NAME
    try:
        usable = binary.is_file() and os.access(binary, os.X_OK)
        if usable and stamp_file.read_text() == source_stamp(root):
            return binary
    except OSError:
        pass
    return None


def cached_build(
    folder: Path,
    product: Path,
    stamp: Callable[[], str],
    steps: Callable[[], list[list[str]]],
    announce: Callable[[], None],
    what: str,
    timeout: float | None = None,
    check: Callable[[Path], None] | None = None,
) -> Path:
    """`product`, built in `folder` by the commands `steps()` gives, unless the
    stamp kept there says it was built from what `stamp()` describes now.

    Concurrent callers wait for each other (a lock file in `folder`). `steps()`
    may refuse with an error of its own before `announce()` says a build
    starts; the commands' output goes to `folder/build.log`, which every
    BuildError names (`what` names the product: "Building {what} failed").
    `check(log_file)` may refuse the product before the stamp is written.

    The stamp of each attempt is kept beside the build (INPUTS_NAME, written as
    the attempt starts). When the next stamp differs in a way a build tool that
    compares modification times could miss (`_missed_by_times`: the stamp is a
    `file_manifest`), the folder is emptied first, so the build starts afresh."""
    stamp_file = folder / STAMP_NAME
    inputs_file = folder / INPUTS_NAME
    log_file = folder / "build.log"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BuildError(f"Cannot create the build folder {folder}: {e.strerror}.") from None
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        current = stamp()
        if product.is_file() and stamp_file.is_file() and stamp_file.read_text() == current:
            return product
        commands = steps()
        announce()
        stamp_file.unlink(missing_ok=True)
        try:
            last = inputs_file.read_text()
            last_ns = inputs_file.stat().st_mtime_ns
        except OSError:
            last = None  # never built here by this rtbench: the tool's own view
        if last is not None and _missed_by_times(last, current, last_ns):
            _empty(folder, (".lock",))
        inputs_file.write_text(current)
        with log_file.open("w") as log:
            for command in commands:
                log.write("$ " + " ".join(command) + "\n")
                log.flush()
                try:
                    done = subprocess.run(
                        command, stdout=log, stderr=subprocess.STDOUT, timeout=timeout, check=False
                    )
                except FileNotFoundError:
                    raise BuildError(
                        f"{command[0]} is not installed; install cmake and a C compiler "
                        "(apt-get install cmake build-essential)."
                    ) from None
                except (OSError, subprocess.TimeoutExpired) as e:
                    raise BuildError(f"Building {what} failed ({e}); see {log_file}.") from None
                if done.returncode != 0:
                    raise BuildError(f"Building {what} failed; see {log_file}.")
        if not product.is_file():
            raise BuildError(f"The build did not produce {product}; see {log_file}.")
        if check is not None:
            check(log_file)
        stamp_file.write_text(current)
        return product


def user_build_dir(root: Path, folder: str = "host") -> Path:
    """This user's build folder for a checkout it cannot write to."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return Path(cache) / "rtbench" / f"build-{tag}" / folder


def _spec(arch: str | None, libc: str, static: bool) -> BuildSpec | None:
    """The target build asked for; None for the host's own build."""
    if libc not in LIBCS:
        raise UsageError(f"Unknown C library '{libc}' (choose {' or '.join(LIBCS)}).")
    if arch is None and libc == "glibc" and not static:
        return None
    if arch is not None:
        chosen = target_arch(arch)
    else:
        here = host_arch()
        if here is None:
            raise UsageError(
                f"rtbench cannot build a {libc} or static core for this machine's "
                f"architecture '{platform.machine()}'."
            )
        chosen = here
    return BuildSpec(chosen, libc, static)


def _checked_override(path: Path, spec: BuildSpec | None) -> Path:
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise UsageError(f"{CORE_ENV}={path} is not an executable file.")
    if spec is None:
        return path
    facts = elf.read_facts(path)
    if facts is None or facts.arch != spec.arch:
        found = "not an ELF executable" if facts is None else f"built for {facts.arch}"
        raise UsageError(f"{CORE_ENV}={path} is {found}, but a {spec.arch} core is needed.")
    if spec.static and not facts.static:
        raise UsageError(f"{CORE_ENV}={path} is linked dynamically, but a static core is needed.")
    return path


def compiler_file(compiler: str, name: str) -> str:
    """Where `compiler` finds the file `name` of its C library or specs
    (-print-file-name): a path when it has it, the bare name when not, and ""
    when the compiler cannot be asked."""
    try:
        return subprocess.run(
            [compiler, f"-print-file-name={name}"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _check_toolchain(spec: BuildSpec) -> Toolchain:
    """The toolchain of a target build, BuildError naming the Debian packages
    to install when its compiler or C library is missing."""
    tc = spec.toolchain()
    what = f"A {spec.describe()} core"
    if shutil.which(tc.compiler) is None:
        raise BuildError(
            f"{what} is built with {tc.compiler}, which is not installed; "
            f"install it with: apt-get install {tc.packages}"
        )
    library = "libc.a" if spec.static else "libc.so"
    found = compiler_file(tc.compiler, library)
    if not found or not Path(found).is_absolute() or not Path(found).exists():
        raise BuildError(
            f"{what} needs the C library of {tc.compiler} ({library}), which is not "
            f"installed; install it with: apt-get install {tc.packages}"
        )
    return tc


def _configure_args(root: Path, build_dir: Path, spec: BuildSpec | None) -> list[str]:
    args = ["cmake", "-S", str(root), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"]
    if spec is None:
        return args
    tc = _check_toolchain(spec)
    if tc.file is not None:
        args.append(f"-DCMAKE_TOOLCHAIN_FILE={root / 'cmake' / 'toolchains' / tc.file}")
    args.append(f"-DRTB_STATIC={'ON' if spec.static else 'OFF'}")
    # The template port and the tests are checks of the host build.
    args.append("-DRTB_TEMPLATE=OFF")
    return args


def ensure_core(
    root: Path,
    announce: Callable[[str], None],
    arch: str | None = None,
    libc: str = "glibc",
    static: bool = False,
) -> Path:
    """The path of an up-to-date rtbench-core, building it when needed.

    Without arguments: the core for this host, in build/host. `arch` (a
    `uname -m` value), `libc` ("glibc" or "musl") and `static` ask for a core
    for a target, built in build/<arch>-<libc>[-static]."""
    spec = _spec(arch, libc, static)
    override = os.environ.get(CORE_ENV)
    if override:
        return _checked_override(Path(override), spec)

    folder = "host" if spec is None else spec.folder
    build_dir = root / "build" / folder
    if not _writable(build_dir):
        # A checkout this user cannot write to (installed read-only, or another
        # user's): its own up-to-date build is used as it is, else one of this
        # user's own.
        ready = _up_to_date(root, build_dir)
        if ready is not None:
            return ready
        build_dir = user_build_dir(root, folder)
    binary = build_dir / "rtbench-core"
    jobs = str(max(os.cpu_count() or 1, 1))

    def steps() -> list[list[str]]:
        return [
            _configure_args(root, build_dir, spec),
            ["cmake", "--build", str(build_dir), "--target", "rtbench-core", "-j", jobs],
        ]

    def announce_build() -> None:
        announce(
            "Building rtbench-core..."
            if spec is None
            else f"Building rtbench-core ({spec.describe()})..."
        )

    def check(log_file: Path) -> None:
        if spec is None:
            return
        facts = elf.read_facts(binary)
        if facts is None or facts.arch != spec.arch or facts.static != spec.static:
            raise BuildError(
                f"The build produced {binary}, which is not a {spec.describe()} "
                f"executable; see {log_file}."
            )

    return cached_build(
        build_dir,
        binary,
        lambda: source_stamp(root),
        steps,
        announce_build,
        "rtbench-core",
        check=check,
    )
