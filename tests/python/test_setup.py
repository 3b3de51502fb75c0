# SPDX-License-Identifier: Apache-2.0
"""Pinned dependencies and the core build stamp."""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from rtbench import build
from rtbench.errors import UsageError
from rtbench.paths import ROOT

REQ = ROOT / "requirements"


def pins(name: str) -> dict[str, tuple[str, frozenset[str]]]:
    text = (REQ / name).read_text()
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for raw in re.split(r"\n(?=[A-Za-z])", text):
        block = raw.strip()
        if not block or block.startswith("#"):
            continue
        first = block.split()[0]
        assert "==" in first, f"{name}: {first} is not pinned with =="
        package, version = first.split("==")
        hashes = frozenset(re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
        assert hashes, f"{name}: {package} has no sha256 hash"
        out[package.lower()] = (version, hashes)
    return out


def test_every_requirement_is_pinned_with_hashes() -> None:
    runtime = pins("runtime.txt")
    dev = pins("dev.txt")
    assert "jsonschema" in runtime
    assert {"pytest", "ruff", "mypy", "types-jsonschema"} <= set(dev)


def test_dev_set_contains_the_runtime_set_unchanged() -> None:
    runtime = pins("runtime.txt")
    dev = pins("dev.txt")
    for package, pinned in runtime.items():
        assert dev.get(package) == pinned, package


def test_optional_sets_agree_with_the_runtime_and_dev_sets() -> None:
    runtime, dev = pins("runtime.txt"), pins("dev.txt")
    for name in ("serial.txt", "labgrid.txt"):
        for package, pinned in pins(name).items():
            assert runtime.get(package, pinned) == pinned, f"{name}: {package}"
    # the dev set takes labgrid's set whole; labgrid's fork of pyserial owns the
    # files pyserial would, so the two never share an environment
    for package, pinned in pins("labgrid.txt").items():
        assert dev.get(package) == pinned, package
    assert "pyserial-labgrid" in dev and "pyserial" not in dev


def test_stamp_changes_when_a_source_changes(tmp_path: Path) -> None:
    for part in ("core", "ports"):
        shutil.copytree(ROOT / part, tmp_path / part)
    shutil.copy2(ROOT / "CMakeLists.txt", tmp_path / "CMakeLists.txt")
    first = build.source_stamp(tmp_path)
    assert build.source_stamp(tmp_path) == first
    source = next((tmp_path / "core").rglob("*.c"))
    source.write_text(source.read_text() + "\n")
    assert build.source_stamp(tmp_path) != first


def test_core_override_must_be_executable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "core"
    plain.write_text("")
    monkeypatch.setenv(build.CORE_ENV, str(plain))
    with pytest.raises(UsageError):
        build.ensure_core(ROOT, lambda _t: None)
    plain.chmod(0o755)
    assert build.ensure_core(ROOT, lambda _t: None) == plain


CROSS_TOOLS = (
    "aarch64-linux-gnu-gcc",
    "arm-linux-gnueabihf-gcc",
    "musl-gcc",
    "qemu-aarch64-static",
)
QEMU_TOOLS = ("qemu-system-x86_64", "qemu-system-aarch64", "gpgv")
# what the SSH target's tests (ip), the background load's (stress-ng, hackbench), the
# RFC 2217 serial tests (ser2net) and the NuttX image's build (kconfig-tweak) need
OTHER_DEV_TOOLS = (
    "ip", "stress-ng", "hackbench", "babeltrace2", "arm-none-eabi-gcc", "ser2net",
    "kconfig-tweak",
)  # fmt: skip
# the build tools, the dev set's clang and busybox, and what the bootstrap runs itself
BASE_TOOLS = (
    "python3", "cmake", "cc", "make", "clang-format", "clang-14", "busybox", "cat", "dirname",
)  # fmt: skip


def _provide(bin_dir: Path, *tools: str) -> None:
    """Put `tools` on the PATH of _missing_packages (as /bin/true)."""
    for tool in tools:
        (bin_dir / tool).unlink(missing_ok=True)
        (bin_dir / tool).symlink_to("/bin/true")


def _path_with(tmp_path: Path, *tools: str) -> Path:
    """A folder holding only `tools`, for the PATH of _missing_packages."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _provide(bin_dir, *tools)
    return bin_dir


def _missing_packages(bin_dir: Path, want: str, hosttype: str | None = None) -> str:
    """The packages the bootstrap's `rtb_missing_packages WANT` names with only
    bin_dir on PATH, on a host of HOSTTYPE (by default bash's own)."""
    script = f'. "{ROOT}/scripts/bootstrap.sh"; rtb_missing_packages {want}'
    if hosttype is not None:
        script = f"HOSTTYPE={hosttype}; {script}"
    done = subprocess.run(
        ["/bin/bash", "-c", script],
        env={"PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.stdout.strip()


def _bootstrap_tree(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the bootstrap with a fake venv python that logs its calls."""
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    shutil.copytree(ROOT / "requirements", tmp_path / "requirements")
    log = tmp_path / "python-calls.log"
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    site = tmp_path / "site"
    site.mkdir()
    fake.write_text(
        f'#!/bin/sh\necho "$*" >> "{log}"\ncase "$1" in -c) echo "{site}" ;; esac\nexit 0\n'
    )
    fake.chmod(0o755)
    return log, site


def _bootstrap(tmp_path: Path, want: str) -> subprocess.CompletedProcess[str]:
    script = f'. "{tmp_path}/scripts/bootstrap.sh"; rtb_bootstrap {want}'
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs the build tools installed")
def test_bootstrap_installs_once_then_starts_at_once(tmp_path: Path) -> None:
    log, site = _bootstrap_tree(tmp_path)
    first = _bootstrap(tmp_path, "runtime")
    assert first.returncode == 0, first.stderr
    calls = log.read_text()
    assert "-m pip install --require-hashes" in calls
    assert "requirements/runtime.txt" in calls
    assert (site / "rtbench-source.pth").read_text().strip() == str(tmp_path / "python")

    log.unlink()
    again = _bootstrap(tmp_path, "runtime")
    assert again.returncode == 0, again.stderr
    assert not log.exists(), "an unchanged installation must not call pip"

    with (tmp_path / "requirements" / "runtime.txt").open("a") as f:
        f.write("# changed\n")
    changed = _bootstrap(tmp_path, "runtime")
    assert changed.returncode == 0, changed.stderr
    assert "requirements/runtime.txt" in log.read_text()


def test_bootstrap_wants_chromium_for_the_tests_only(tmp_path: Path) -> None:
    """The dev set names Debian's chromium and chromium-driver when they are
    missing (the browser tests need them); the runtime set never does."""
    bin_dir = _path_with(tmp_path, *BASE_TOOLS, *OTHER_DEV_TOOLS, *CROSS_TOOLS, *QEMU_TOOLS)
    assert _missing_packages(bin_dir, "runtime") == ""
    assert _missing_packages(bin_dir, "dev") == "chromium chromium-driver"
    (bin_dir / "clang-14").unlink()  # the fuzz step's compiler too
    assert _missing_packages(bin_dir, "dev") == (
        "clang-14 libclang-rt-14-dev chromium chromium-driver"
    )
    _provide(bin_dir, "clang-14", "chromium")
    assert _missing_packages(bin_dir, "dev") == "chromium-driver"
    _provide(bin_dir, "chromedriver")
    assert _missing_packages(bin_dir, "dev") == ""


def test_bootstrap_wants_the_target_toolchains_for_the_tests_only(tmp_path: Path) -> None:
    """The dev set names the cross compilers, musl-tools and qemu-user-static
    on an x86-64 host when they are missing; the runtime set never does, and
    on another host (HOSTTYPE) the x86-64-only cross packages are not named."""
    bin_dir = _path_with(
        tmp_path, *BASE_TOOLS, *OTHER_DEV_TOOLS, "chromium", "chromedriver", *QEMU_TOOLS
    )
    assert _missing_packages(bin_dir, "runtime", "x86_64") == ""
    assert _missing_packages(bin_dir, "dev", "x86_64") == (
        "gcc-aarch64-linux-gnu libc6-dev-arm64-cross "
        "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross musl-tools qemu-user-static"
    )
    assert _missing_packages(bin_dir, "dev", "aarch64") == "musl-tools"
    _provide(bin_dir, *CROSS_TOOLS)
    assert _missing_packages(bin_dir, "dev", "x86_64") == ""


def test_bootstrap_wants_qemu_and_gpgv_for_the_tests_only(tmp_path: Path) -> None:
    """The dev set names the emulators and gpgv of the QEMU guests when they are
    missing; the runtime set never does."""
    bin_dir = _path_with(
        tmp_path, *BASE_TOOLS, *OTHER_DEV_TOOLS, "chromium", "chromedriver", *CROSS_TOOLS
    )
    assert _missing_packages(bin_dir, "runtime", "x86_64") == ""
    assert _missing_packages(bin_dir, "dev", "x86_64") == "qemu-system-x86 qemu-system-arm gpgv"
    _provide(bin_dir, "qemu-system-x86_64")
    assert _missing_packages(bin_dir, "dev", "x86_64") == "qemu-system-arm gpgv"
    _provide(bin_dir, "qemu-system-aarch64", "gpgv")
    assert _missing_packages(bin_dir, "dev", "x86_64") == ""


def test_bootstrap_wants_ser2net_for_the_tests_only(tmp_path: Path) -> None:
    """The dev set names ser2net when it is neither on PATH nor where Debian puts it
    (/usr/sbin, not on a user's PATH); the runtime set never does."""
    others = [t for t in OTHER_DEV_TOOLS if t != "ser2net"]
    bin_dir = _path_with(
        tmp_path, *BASE_TOOLS, *others, "chromium", "chromedriver", *CROSS_TOOLS, *QEMU_TOOLS
    )
    assert _missing_packages(bin_dir, "runtime", "x86_64") == ""
    named = _missing_packages(bin_dir, "dev", "x86_64")
    assert named == ("" if Path("/usr/sbin/ser2net").exists() else "ser2net")
    _provide(bin_dir, "ser2net")
    assert _missing_packages(bin_dir, "dev", "x86_64") == ""


def test_bootstrap_wants_kconfig_tools_for_the_tests_only(tmp_path: Path) -> None:
    """The dev set names kconfig-frontends-nox (NuttX's configure runs
    kconfig-tweak) when kconfig-tweak is not on PATH; the runtime set never does."""
    others = [t for t in OTHER_DEV_TOOLS if t != "kconfig-tweak"]
    bin_dir = _path_with(
        tmp_path, *BASE_TOOLS, *others, "chromium", "chromedriver", *CROSS_TOOLS, *QEMU_TOOLS
    )
    assert _missing_packages(bin_dir, "runtime", "x86_64") == ""
    assert _missing_packages(bin_dir, "dev", "x86_64") == "kconfig-frontends-nox"
    _provide(bin_dir, "kconfig-tweak")
    assert _missing_packages(bin_dir, "dev", "x86_64") == ""


def test_read_only_checkout_uses_its_own_up_to_date_build(
    core_binary: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # As another user sees a root-owned checkout: the build folder is not writable.
    monkeypatch.delenv(build.CORE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(build, "_writable", lambda _path: False)
    assert build.ensure_core(ROOT, lambda _text: None) == ROOT / build.BUILD_SUBDIR / "rtbench-core"
    assert not (tmp_path / "rtbench").exists()
    # stale there: this user's own build folder, in its cache, one per checkout
    mine = build.user_build_dir(ROOT)
    assert mine.is_relative_to(tmp_path / "rtbench")
    assert build.user_build_dir(ROOT / "elsewhere") != mine


def test_bootstrap_wants_iproute2_for_the_ssh_tests_only(tmp_path: Path) -> None:
    """The SSH target's tests make a network namespace with `ip`: the dev set names
    iproute2 when it is missing, the runtime set never does."""
    bin_dir = _path_with(
        tmp_path, *BASE_TOOLS, "chromium", "chromedriver", "stress-ng", "hackbench",
        *CROSS_TOOLS, *QEMU_TOOLS,
    )  # fmt: skip
    assert "iproute2" in _missing_packages(bin_dir, "dev", "x86_64").split()
    assert _missing_packages(bin_dir, "runtime", "x86_64") == ""
    _provide(bin_dir, "ip")
    assert "iproute2" not in _missing_packages(bin_dir, "dev", "x86_64").split()


NOBODY = 65534


def test_bootstrap_as_a_non_root_user_names_the_missing_packages() -> None:
    """A user who cannot install packages gets one sentence naming them, exit 2, and
    apt-get is never tried. Run as a real non-root user (nobody) when the tests run as
    root; the missing tool is faked by leaving it out of PATH."""
    work = Path(tempfile.mkdtemp(prefix="rtbench-nonroot-"))
    try:
        shutil.copytree(ROOT / "scripts", work / "scripts")
        shutil.copytree(ROOT / "requirements", work / "requirements")
        bin_dir = work / "bin"
        bin_dir.mkdir()
        tools = ("python3", "cc", "make", "dirname", "id", "mkdir", "flock", "cat", "xargs")
        for tool in tools:
            # the system's tools, which every user can run (not this test's venv)
            real = shutil.which(tool, path="/usr/bin:/bin")
            assert real is not None, tool
            (bin_dir / tool).symlink_to(real)
        # cmake is missing; apt-get, if it were tried, would leave a trace
        tried = work / "apt-get-was-called"
        (bin_dir / "apt-get").write_text(f'#!/bin/sh\n: > "{tried}"\nexit 1\n')
        (bin_dir / "apt-get").chmod(0o755)
        command = ["/bin/bash", "-c", f'. "{work}/scripts/bootstrap.sh"; rtb_bootstrap runtime']
        if os.geteuid() == 0:
            for path in (work, *work.rglob("*")):
                os.lchown(path, NOBODY, NOBODY)
            setpriv = shutil.which("setpriv")
            assert setpriv is not None, "setpriv (util-linux) runs the check as nobody"
            command = [
                setpriv,
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                *command,
            ]
        done = subprocess.run(
            command,
            env={"PATH": str(bin_dir), "HOME": str(work)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith("rtbench needs these packages, which are missing: cmake;")
        assert "sudo apt-get install cmake" in lines[0] and lines[0].endswith(".")
        assert "Traceback" not in done.stderr and "unbound variable" not in done.stderr
        assert not tried.exists()
        assert not (work / ".venv").exists()
    finally:
        shutil.rmtree(work, ignore_errors=True)
