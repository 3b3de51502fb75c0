# SPDX-License-Identifier: Apache-2.0
"""Building rtbench-core for this host with CMake.

The build is skipped when nothing it depends on changed: a stamp holds a hash
of the paths, modification times and sizes of core/, ports/ and
CMakeLists.txt, and the binary must exist. Concurrent rtbench commands wait
for each other (a lock file) instead of building the same tree twice. In a
checkout this user cannot write to, an up-to-date build there is used as it
is; otherwise the core is built in this user's cache
(`~/.cache/rtbench/build-<hash of the checkout path>/host`).

Test hook: the environment variable RTBENCH_CORE names a core binary to use
instead of building one.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from rtbench.errors import BuildError, UsageError

CORE_ENV = "RTBENCH_CORE"
BUILD_SUBDIR = Path("build") / "host"


def _inputs(root: Path) -> list[Path]:
    files: list[Path] = []
    for folder in ("core", "ports"):
        base = root / folder
        if base.is_dir():
            files.extend(p for p in base.rglob("*") if p.is_file())
    cmakelists = root / "CMakeLists.txt"
    if cmakelists.is_file():
        files.append(cmakelists)
    return sorted(files)


def source_stamp(root: Path) -> str:
    """A hash of what the host build depends on (paths, mtimes, sizes)."""
    digest = hashlib.sha256()
    for path in _inputs(root):
        st = path.stat()
        digest.update(f"{path.relative_to(root)}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return digest.hexdigest()


def _writable(build_dir: Path) -> bool:
    """Can this process create or update the build in `build_dir`?"""
    probe = build_dir
    while not probe.exists():
        probe = probe.parent
    return os.access(probe, os.W_OK | os.X_OK)


def _up_to_date(root: Path, build_dir: Path) -> Path | None:
    binary = build_dir / "rtbench-core"
    stamp_file = build_dir / ".rtbench-stamp"
    try:
        usable = binary.is_file() and os.access(binary, os.X_OK)
        if usable and stamp_file.read_text() == source_stamp(root):
            return binary
    except OSError:
        pass
    return None


def user_build_dir(root: Path) -> Path:
    """This user's build folder for a checkout it cannot write to."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return Path(cache) / "rtbench" / f"build-{tag}" / "host"


def ensure_core(root: Path, announce: Callable[[str], None]) -> Path:
    """The path of an up-to-date rtbench-core, building it when needed."""
    override = os.environ.get(CORE_ENV)
    if override:
        path = Path(override)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise UsageError(f"{CORE_ENV}={override} is not an executable file.")
        return path

    build_dir = root / BUILD_SUBDIR
    if not _writable(build_dir):
        # A checkout this user cannot write to (installed read-only, or another
        # user's): its own up-to-date build is used as it is, else one of this
        # user's own.
        ready = _up_to_date(root, build_dir)
        if ready is not None:
            return ready
        build_dir = user_build_dir(root)
    binary = build_dir / "rtbench-core"
    stamp_file = build_dir / ".rtbench-stamp"
    log_file = build_dir / "build.log"
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BuildError(f"Cannot create the build folder {build_dir}: {e.strerror}.") from None
    with (build_dir / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = source_stamp(root)
        if binary.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
            return binary
        announce("Building rtbench-core...")
        stamp_file.unlink(missing_ok=True)
        jobs = str(max(os.cpu_count() or 1, 1))
        steps = [
            ["cmake", "-S", str(root), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"],
            ["cmake", "--build", str(build_dir), "--target", "rtbench-core", "-j", jobs],
        ]
        with log_file.open("w") as log:
            for step in steps:
                log.write("$ " + " ".join(step) + "\n")
                log.flush()
                try:
                    done = subprocess.run(step, stdout=log, stderr=subprocess.STDOUT, check=False)
                except FileNotFoundError:
                    raise BuildError(
                        "cmake is not installed; install cmake and a C compiler "
                        "(apt-get install cmake build-essential)."
                    ) from None
                if done.returncode != 0:
                    raise BuildError(f"Building rtbench-core failed; see {log_file}.")
        if not binary.is_file():
            raise BuildError(f"The build did not produce {binary}; see {log_file}.")
        stamp_file.write_text(stamp)
        return binary
