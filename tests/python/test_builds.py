# SPDX-License-Identifier: Apache-2.0
"""Cores built for targets: the architecture names, the toolchain checks, the
ELF facts, the build cache (kept by its stamp; the FreeRTOS image's too), and
(marked slow: a cross build takes about a minute, cached in build/ afterwards)
static AArch64, ARMv7 and musl cores that really run and say in their meta
record how they were built and which counter they read."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench import build, elf
from rtbench.errors import BuildError, UsageError
from rtbench.model import records
from rtbench.paths import ROOT
from rtbench.report.common import core_build

X86_64 = platform.machine() == "x86_64"
# architecture -> (cross compiler, QEMU user-mode emulator)
CROSS = {
    "aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64-static"),
    "armv7l": ("arm-linux-gnueabihf-gcc", "qemu-arm-static"),
}


def _quiet(_text: str) -> None:
    pass


@pytest.mark.parametrize(
    ("uname_m", "arch"),
    [
        ("x86_64", "x86_64"),
        ("amd64", "x86_64"),
        ("aarch64", "aarch64"),
        ("arm64", "aarch64"),
        ("armv7l", "armv7l"),
        ("armv7", "armv7l"),
        ("armv8l", "armv7l"),
        ("ARMV7L\n", "armv7l"),
    ],
)
def test_target_arch_names(uname_m: str, arch: str) -> None:
    assert build.target_arch(uname_m) == arch


@pytest.mark.parametrize("uname_m", ["mips", "i686", "armv6l", "aarch64_be", ""])
def test_an_architecture_rtbench_cannot_build_for_is_a_usage_error(uname_m: str) -> None:
    with pytest.raises(UsageError) as caught:
        build.target_arch(uname_m)
    message = str(caught.value)
    assert message.endswith(".") and "\n" not in message
    assert "x86_64" in message and "aarch64" in message and "armv7l" in message


def test_an_unknown_c_library_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="Unknown C library 'bionic'"):
        build.ensure_core(ROOT, _quiet, "aarch64", libc="bionic")


@pytest.mark.skipif(not X86_64, reason="the refusal is of a musl cross build from x86-64")
def test_a_musl_cross_build_is_refused_in_one_sentence() -> None:
    with pytest.raises(UsageError, match="musl core for aarch64 can only be built on an aarch64"):
        build.ensure_core(ROOT, _quiet, "aarch64", libc="musl", static=True)


def _source_copy(tmp_path: Path) -> Path:
    """A checkout with nothing built, so ensure_core must check its toolchain."""
    root = tmp_path / "checkout"
    for part in ("core", "ports", "cmake"):
        shutil.copytree(ROOT / part, root / part)
    shutil.copy2(ROOT / "CMakeLists.txt", root / "CMakeLists.txt")
    return root


@pytest.mark.skipif(not X86_64, reason="names the packages of the cross compilers for x86-64")
def test_a_missing_cross_compiler_names_the_debian_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _source_copy(tmp_path)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.delenv(build.CORE_ENV, raising=False)
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(BuildError) as caught:
        build.ensure_core(root, _quiet, "aarch64", static=True)
    assert "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross" in str(caught.value)
    with pytest.raises(BuildError) as caught:
        build.ensure_core(root, _quiet, "armv7l", static=True)
    assert "apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross" in str(caught.value)
    with pytest.raises(BuildError, match="apt-get install musl-tools"):
        build.ensure_core(root, _quiet, libc="musl", static=True)
    assert not (root / "build" / "aarch64-glibc-static" / "rtbench-core").exists()

    # A compiler without its C library (installed without recommends).
    fake = empty / "aarch64-linux-gnu-gcc"
    fake.write_text('#!/bin/sh\necho "${1#-print-file-name=}"\n')
    fake.chmod(0o755)
    with pytest.raises(BuildError, match=r"needs the C library .*libc6-dev-arm64-cross"):
        build.ensure_core(root, _quiet, "aarch64", static=True)


@pytest.mark.skipif(shutil.which(CROSS["aarch64"][0]) is None, reason="no AArch64 cross compiler")
def test_an_installed_cross_compiler_passes_the_check() -> None:
    """The control of the test above: the same check with the compiler there."""
    spec = build.BuildSpec("aarch64", "glibc", True)
    if spec.arch == build.host_arch():
        pytest.skip("AArch64 is this host's own architecture")
    assert build._check_toolchain(spec).compiler == CROSS["aarch64"][0]


def test_elf_facts_of_a_file_that_is_not_elf(tmp_path: Path) -> None:
    text = tmp_path / "text"
    text.write_text("#!/bin/sh\n")
    assert elf.read_facts(text) is None
    cut = tmp_path / "cut"
    cut.write_bytes((ROOT / "build" / "host" / "rtbench-core").read_bytes()[:40])
    assert elf.read_facts(cut) is None
    assert elf.read_facts(tmp_path / "absent") is None


def test_elf_facts_of_the_host_core(core_binary: Path) -> None:
    facts = elf.read_facts(core_binary)
    assert facts is not None
    assert facts.arch == build.host_arch()
    assert facts.static is False  # the host build links the C library dynamically


def test_a_core_override_must_suit_the_target(
    core_binary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(build.CORE_ENV, str(core_binary))
    assert build.ensure_core(ROOT, _quiet) == core_binary
    here = build.host_arch()
    assert here is not None
    assert build.ensure_core(ROOT, _quiet, here) == core_binary
    other = "armv7l" if here != "armv7l" else "aarch64"
    with pytest.raises(UsageError, match=f"built for {here}, but a {other} core is needed"):
        build.ensure_core(ROOT, _quiet, other)
    with pytest.raises(UsageError, match="linked dynamically, but a static core is needed"):
        build.ensure_core(ROOT, _quiet, here, static=True)


# ---- built and run (slow) ----------------------------------------------------


def _records(out: str) -> list[dict[str, Any]]:
    return [records.parse_line(line) for line in out.splitlines() if line.strip()]


def _target_core(arch: str, libc: str = "glibc") -> Path:
    try:
        return build.ensure_core(ROOT, _quiet, arch, libc=libc, static=True)
    except BuildError as e:
        pytest.skip(str(e))


def _emulated(emulator: str, core: Path, *args: str, cpu: str = "") -> list[dict[str, Any]]:
    command = [emulator, *(["-cpu", cpu] if cpu else []), str(core), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return _records(done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("arch", sorted(CROSS))
def test_a_static_arm_core_runs_under_qemu_and_says_what_it_is(arch: str) -> None:
    compiler, emulator = CROSS[arch]
    if arch == build.host_arch() or shutil.which(compiler) is None:
        pytest.skip(f"needs the cross compiler {compiler} on another architecture")
    core = _target_core(arch)
    assert core == ROOT / "build" / f"{arch}-glibc-static" / "rtbench-core"
    facts = elf.read_facts(core)
    assert facts is not None and facts.arch == arch and facts.static
    if shutil.which(emulator) is None:
        pytest.skip(f"needs QEMU user-mode emulation ({emulator}, package qemu-user-static)")

    listed = _emulated(emulator, core, "list", "--no-mlock")
    assert listed[0]["type"] == "meta"
    assert any(r["type"] == "catalog" and r["scenario"] == "cal.timestamp" for r in listed)

    recs = _emulated(
        emulator, core, "run", "--scenario", "cal.timestamp", "--profile", "quick", "--no-mlock"
    )
    meta = recs[0]
    assert meta["type"] == "meta"
    assert meta["arch"] == arch  # uname -m as QEMU reports it for the guest
    built = meta["build"]
    assert built["arch"] == arch and built["static"] is True
    assert built["libc"].startswith("glibc ") and built["compiler"].startswith("gcc ")
    assert meta["libc"].startswith("glibc ")
    results = [r for r in recs if r["type"] == "result" and r["scenario"] == "cal.timestamp"]
    assert results and results[0]["stats"]["count"] > 0
    assert recs[-1]["type"] == "end"
    counter = meta["counter"]
    if arch == "aarch64":
        # QEMU lets user space read the generic timer on AArch64.
        assert counter["name"] == "cntvct", counter["note"]
        assert "CNTFRQ_EL0" in counter["note"]
    else:
        assert counter["name"] in ("cntvct", "clock_monotonic_raw")
        assert counter["note"]


@pytest.mark.slow
def test_an_armv7_cpu_without_a_generic_timer_falls_back_to_the_os_clock() -> None:
    """A Cortex-A8 has no generic timer: reading CNTVCT raises SIGILL, which
    the probe catches; the core carries on with CLOCK_MONOTONIC_RAW and says
    why (without the probe it would die of SIGILL)."""
    compiler, emulator = CROSS["armv7l"]
    if shutil.which(compiler) is None or shutil.which(emulator) is None:
        pytest.skip(f"needs {compiler} and {emulator}")
    core = _target_core("armv7l")
    recs = _emulated(
        emulator,
        core,
        *("run", "--scenario", "cal.timestamp", "--profile", "quick", "--no-mlock"),
        cpu="cortex-a8",
    )
    counter = recs[0]["counter"]
    assert counter["name"] == "clock_monotonic_raw"
    assert "SIGILL" in counter["note"]
    assert counter["hz"] == 1_000_000_000
    assert recs[-1]["type"] == "end"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("musl-gcc") is None, reason="needs musl-gcc (musl-tools)")
def test_a_musl_core_runs_scenarios_here_and_its_results_say_musl(
    run_cli: RunCli, tmp_path: Path
) -> None:
    core = _target_core(build.host_arch() or "x86_64", libc="musl")
    facts = elf.read_facts(core)
    assert facts is not None and facts.static
    out = tmp_path / "musl"
    only = ("cal.timestamp", "sem.behavior.release_order", "mut.behavior.pi")
    done = run_cli(
        "run", "--profile", "quick", "--out", str(out), "--only", *only,
        env={build.CORE_ENV: str(core)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads((out / "results.json").read_text())
    records.validate(doc, "results")
    metas = [s["meta"] for s in doc["scenarios"] if s["meta"] is not None]
    assert metas
    for meta in metas:
        assert meta["libc"] == "musl"
        assert meta["build"]["libc"] == "musl" and meta["build"]["static"] is True
        # musl has no priority-ceiling mutexes: the port does not claim them
        assert "mutex_ceiling" not in meta["caps"]
    assert {s["status"] for s in doc["scenarios"]} == {"ok"}
    outcomes = {
        r["check"]: r["outcome"]
        for s in doc["scenarios"]
        for r in s["records"]
        if r["type"] == "verdict"
    }
    assert outcomes["release_order"] == "pass"
    assert outcomes["priority_inheritance"] == "pass"
    assert outcomes["priority_ceiling"] == "unsupported"  # said, not faked
    shown = run_cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    assert "core: static " in shown.stdout and ", musl" in shown.stdout


@pytest.mark.parametrize(
    ("build_facts", "line"),
    [
        (
            {"compiler": "gcc 12.2.0", "arch": "aarch64", "libc": "glibc 2.36", "static": True},
            "static aarch64, gcc 12.2.0, glibc 2.36",
        ),
        (
            {"compiler": "gcc 12.2.0", "arch": "x86_64", "libc": "musl", "static": False},
            "dynamic x86_64, gcc 12.2.0, musl",
        ),
        # a core from before the build facts: only what it said
        ({"compiler": "12.2.0", "type": "Release", "flags": "-O3"}, "12.2.0"),
        ({}, None),
    ],
)
def test_the_core_line_says_only_what_the_meta_record_says(
    build_facts: dict[str, Any], line: str | None
) -> None:
    assert core_build({"build": build_facts}) == line
    assert core_build({}) is None
    assert core_build(None) is None


def _product_script(product: Path, text: str) -> list[str]:
    """A build step that writes `text` into `product`, as a compiler writes its output."""
    return ["sh", "-c", 'printf %s "$1" > "$2"', "step", text, str(product)]


def test_a_cached_build_runs_again_only_when_its_stamp_changes(tmp_path: Path) -> None:
    folder = tmp_path / "build"
    product = folder / "out"
    said: list[str] = []
    stamp = {"now": "one"}

    def build_it(text: str) -> Path:
        return build.cached_build(
            folder,
            product,
            lambda: stamp["now"],
            lambda: [_product_script(product, text)],
            lambda: said.append(text),
            "the product",
        )

    assert build_it("first") == product
    assert product.read_text() == "first"
    assert build_it("second") == product  # same stamp: not built again
    assert product.read_text() == "first"
    assert said == ["first"]
    stamp["now"] = "two"
    build_it("third")
    assert product.read_text() == "third"
    assert said == ["first", "third"]
    assert "$ sh -c" in (folder / "build.log").read_text()
    product.unlink()  # gone: built again under the same stamp
    build_it("fourth")
    assert product.read_text() == "fourth"


def test_a_failed_or_refused_cached_build_keeps_no_stamp(tmp_path: Path) -> None:
    folder = tmp_path / "build"
    product = folder / "out"

    def refuse(log_file: Path) -> None:
        raise BuildError(f"not the product; see {log_file}")

    with pytest.raises(BuildError, match=r"Building the product failed; see .*build\.log"):
        build.cached_build(
            folder, product, lambda: "s", lambda: [["false"]], lambda: None, "the product"
        )
    with pytest.raises(BuildError, match="did not produce"):
        build.cached_build(folder, product, lambda: "s", lambda: [], lambda: None, "the product")
    with pytest.raises(BuildError, match="not the product"):
        build.cached_build(
            folder,
            product,
            lambda: "s",
            lambda: [_product_script(product, "x")],
            lambda: None,
            "the product",
            check=refuse,
        )
    assert not (folder / build.STAMP_NAME).exists()
    with pytest.raises(BuildError, match="no-such-tool-here is not installed"):
        build.cached_build(
            folder,
            product,
            lambda: "s",
            lambda: [["no-such-tool-here"]],
            lambda: None,
            "the product",
        )
