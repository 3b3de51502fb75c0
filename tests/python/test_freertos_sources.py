# SPDX-License-Identifier: Apache-2.0
"""What the FreeRTOS image is built from, by content: the stamp that decides a
rebuild (a kernel file or configuration header changed with its size and time
kept), a rebuild from scratch when make would miss such a change, the kernel's
digest as docs/rtos-targets.md defines it, and whether the sources are modified (an
extract against the table of release digests, a git checkout by git status).
The real image is built in test_freertos_image.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rtbench import build
from rtbench.targets.firmware import image as fw_image
from rtbench.targets.firmware import sources as fw_sources
from rtbench.targets.firmware.rtoses import FREERTOS, THREADX, UCOS3

ROOT = Path(__file__).resolve().parents[2]
TARGETS_DOC = ROOT / "docs" / "rtos-targets.md"


def _documented_command() -> str:
    """The shell command docs/rtos-targets.md gives to reproduce the digest: the
    indented lines after "Reproduce it with"."""
    lines = TARGETS_DOC.read_text().split("Reproduce it with", 1)[1].splitlines()[1:]
    block = []
    for line in lines:
        if line.startswith("    "):
            block.append(line)
        elif block:
            break
    return "\n".join(block)


def _kernel(folder: Path, version: str | None = "V11.1.0 dbf70559b27d") -> Path:
    """A small kernel checkout: the files the image is built from, and some it is not."""
    files = {
        **{name: f"/* {name} */\n" for name in FREERTOS.digest_files},
        "include/task.h": '#define tskKERNEL_VERSION_NUMBER "V11.1.0"\n',
        "include/FreeRTOS.h": "/* FreeRTOS.h */\n",
        "include/CMakeLists.txt": "# not read by the compiler\n",
        "portable/GCC/ARM_CM3/port.c": "/* port.c */\n",
        "portable/GCC/ARM_CM3/portmacro.h": "/* portmacro.h */\n",
        "portable/GCC/ARM_CM4F/port.c": "/* another core's port */\n",
        "portable/GCC/ARM_CA9/port.c": "/* the Cortex-A port */\n",
        "croutine.c": "/* not built */\n",
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    if version is not None:
        (folder / "VERSION").write_text(version + "\n")
    return folder


def _rewrite_keeping_size_and_time(path: Path, old: str, new: str) -> None:
    assert len(old) == len(new)
    st = path.stat()
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def _rtbench_sources(folder: Path) -> Path:
    for part in ("core", "ports", "cmake"):
        shutil.copytree(ROOT / part, folder / part)
    shutil.copy2(ROOT / "CMakeLists.txt", folder / "CMakeLists.txt")
    return folder


# ---- the stamp ---------------------------------------------------------------------


def test_the_stamp_follows_the_content_of_kernel_and_configuration(tmp_path: Path) -> None:
    root = _rtbench_sources(tmp_path / "rtbench")
    kernel = _kernel(tmp_path / "kernel")
    config = tmp_path / "config"
    config.mkdir()
    (config / "FreeRTOSConfig.h").write_text("#define configTICK_RATE_HZ 1000\n")
    (config / "board_extra.h").write_text("#define EXTRA 1\n")
    first = fw_image.stamp(root, FREERTOS, kernel, config, "armv7m")
    assert fw_image.stamp(root, FREERTOS, kernel, config, "armv7m") == first

    _rewrite_keeping_size_and_time(kernel / "queue.c", "queue", "QUEUE")
    after_kernel = fw_image.stamp(root, FREERTOS, kernel, config, "armv7m")
    assert after_kernel != first
    _rewrite_keeping_size_and_time(kernel / "include" / "FreeRTOS.h", "FreeRTOS", "freertos")
    after_header = fw_image.stamp(root, FREERTOS, kernel, config, "armv7m")
    assert after_header != after_kernel
    _rewrite_keeping_size_and_time(config / "FreeRTOSConfig.h", "1000", "2000")
    after_config = fw_image.stamp(root, FREERTOS, kernel, config, "armv7m")
    assert after_config != after_header
    _rewrite_keeping_size_and_time(config / "board_extra.h", "1", "2")
    assert fw_image.stamp(root, FREERTOS, kernel, config, "armv7m") != after_config

    # files the image is not built from do not count
    unchanged = fw_image.stamp(root, FREERTOS, kernel, config, "armv7m")
    (kernel / "croutine.c").write_text("/* changed, still not built */\n")
    (kernel / "portable" / "GCC" / "ARM_CM4F" / "port.c").write_text("/* changed */\n")
    assert fw_image.stamp(root, FREERTOS, kernel, config, "armv7m") == unchanged


def test_the_core_stamp_follows_content_not_times(tmp_path: Path) -> None:
    root = _rtbench_sources(tmp_path)
    first = build.source_stamp(root)
    source = root / "core" / "src" / "runner.c"
    text = source.read_text()
    assert "int " in text
    _rewrite_keeping_size_and_time(source, "int ", "int\t")
    assert build.source_stamp(root) != first


def _make_like(source: Path, product: Path) -> list[str]:
    """A build step that, like make, copies `source` to `product` only when the
    product is missing or older than the source."""
    script = '[ -e "$2" ] && [ ! "$1" -nt "$2" ] || cp "$1" "$2"'
    return ["sh", "-c", script, "step", str(source), str(product)]


def test_a_change_make_would_miss_rebuilds_from_scratch(tmp_path: Path) -> None:
    source = tmp_path / "src" / "queue.c"
    source.parent.mkdir()
    source.write_text("one\n")
    folder = tmp_path / "build"
    product = folder / "image"
    leftover = folder / "object.o"

    def build_it() -> str:
        build.cached_build(
            folder,
            product,
            lambda: build.file_manifest([source]),
            lambda: [_make_like(source, product)],
            lambda: None,
            "the image",
        )
        return product.read_text()

    assert build_it() == "one\n"
    leftover.write_text("built from one\n")
    # an ordinary edit: a later time, which make sees; the folder is kept
    source.write_text("two\n")
    later = product.stat().st_mtime_ns + 2_000_000_000
    os.utime(source, ns=(later, later))
    assert build_it() == "two\n"
    assert leftover.exists()
    # the same size and an old time (copied in with its time): make would keep
    # the old product, so the folder is emptied first
    _rewrite_keeping_size_and_time(source, "two", "TWO")
    earlier = product.stat().st_mtime_ns - 100 * 10**9
    os.utime(source, ns=(earlier, earlier))
    assert build_it() == "TWO\n"
    assert not leftover.exists()


# ---- the digest and whether the sources are modified ------------------------------------


def test_the_digest_is_the_one_the_documented_command_computes(tmp_path: Path) -> None:
    kernel = _kernel(tmp_path / "kernel")
    files = fw_sources.files_built(kernel, FREERTOS.digest_files, FREERTOS.built_dirs("armv7m"))
    assert files == sorted(files, key=str.encode)
    assert "include/CMakeLists.txt" not in files and "croutine.c" not in files
    assert "portable/GCC/ARM_CM3/portmacro.h" in files
    assert "portable/GCC/ARM_CM4F/port.c" not in files
    shell = subprocess.run(
        ["bash", "-c", _documented_command()],
        cwd=tmp_path,
        env={**os.environ, FREERTOS.source_env: str(kernel)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shell[1:] == ["-"]
    assert fw_sources.digest(kernel, files) == shell[0]


def test_each_architecture_digests_its_own_port(tmp_path: Path) -> None:
    """An image for the Cortex-A7 board is built from ARM_CA9, one for the Cortex-M3
    from ARM_CM3: each digest and stamp follows its own port folder alone."""
    root = _rtbench_sources(tmp_path / "rtbench")
    kernel = _kernel(tmp_path / "kernel")
    m3 = fw_sources.files_built(kernel, FREERTOS.digest_files, FREERTOS.built_dirs("armv7m"))
    a7 = fw_sources.files_built(kernel, FREERTOS.digest_files, FREERTOS.built_dirs("armv7l"))
    assert "portable/GCC/ARM_CA9/port.c" in a7 and "portable/GCC/ARM_CM3/port.c" not in a7
    assert "portable/GCC/ARM_CM3/port.c" in m3 and "portable/GCC/ARM_CA9/port.c" not in m3
    stamps = {a: fw_image.stamp(root, FREERTOS, kernel, None, a) for a in ("armv7m", "armv7l")}
    _rewrite_keeping_size_and_time(kernel / "portable/GCC/ARM_CA9/port.c", "Cortex", "CORTEX")
    assert fw_image.stamp(root, FREERTOS, kernel, None, "armv7l") != stamps["armv7l"]
    assert fw_image.stamp(root, FREERTOS, kernel, None, "armv7m") == stamps["armv7m"]
    # the release table is per architecture: the Cortex-A7 files have their own digest
    found = fw_image.read_sources(FREERTOS, kernel, "armv7l")
    assert found.modified is True  # a stand-in, not the release's files
    assert "differs from FreeRTOS V11.1.0's" in found.modified_reason
    unknown = fw_image.read_sources(FREERTOS, kernel, None)
    assert unknown.modified is None  # no board known: no table to hold it against


@pytest.mark.parametrize("arch", ["armv7m", "armv7l"])
def test_the_release_tables_hold_the_tested_releases(arch: str) -> None:
    """Every RTOS's tested release, for every architecture its port runs on, is in
    its table, and the sources the tests are given are those releases unmodified."""
    for rtos in (FREERTOS, UCOS3, THREADX):
        assert rtos.tested_release in rtos.known_digests[arch], (rtos.name, arch)
        given = os.environ.get(rtos.source_env, "")
        if not given or rtos.read_release(Path(given)).tag != rtos.tested_release:
            continue
        found = fw_image.read_sources(rtos, Path(given), arch)
        assert found.digest == rtos.known_digests[arch][rtos.tested_release], (rtos.name, arch)
        assert found.modified is False


def test_the_release_table_holds_v11_1_0_as_published() -> None:
    given = os.environ.get(FREERTOS.source_env, "")
    path = Path(given)
    if not given or not (path / "VERSION").is_file():
        pytest.skip("FREERTOS_KERNEL_PATH names no release extract (a folder with VERSION)")
    kernel = fw_image.read_sources(FREERTOS, path, "armv7m")
    if kernel.tag != "V11.1.0":
        pytest.skip(f"FREERTOS_KERNEL_PATH holds {kernel.tag}, not V11.1.0")
    assert kernel.digest == FREERTOS.known_digests["armv7m"]["V11.1.0"]
    assert kernel.modified is False


def test_an_extract_is_modified_when_its_digest_is_not_the_releases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel = _kernel(tmp_path / "kernel")
    digest = fw_sources.digest(
        kernel, fw_sources.files_built(kernel, FREERTOS.digest_files, FREERTOS.built_dirs("armv7m"))
    )
    monkeypatch.setitem(FREERTOS.known_digests["armv7m"], "V11.1.0", digest)
    found = fw_image.read_sources(FREERTOS, kernel, "armv7m")
    assert (found.source, found.digest, found.modified) == ("VERSION", digest, False)
    assert found.describe()["modified"] is False

    _rewrite_keeping_size_and_time(kernel / "queue.c", "queue", "QUEUE")
    edited = fw_image.read_sources(FREERTOS, kernel, "armv7m")
    assert edited.modified is True and edited.digest != digest
    assert "differs from FreeRTOS V11.1.0's" in edited.modified_reason

    (kernel / "VERSION").write_text("V9.9.9\n")
    unknown = fw_image.read_sources(FREERTOS, kernel, "armv7m")
    assert unknown.modified is None
    assert unknown.modified_reason.startswith("unknown whether modified")
    # no VERSION and no git: the release of include/task.h against the table
    (kernel / "VERSION").unlink()
    header = fw_image.read_sources(FREERTOS, kernel, "armv7m")
    assert (header.source, header.tag, header.modified) == ("include/task.h", "V11.1.0", True)


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=rtbench", "-c", "user.email=rtbench@invalid",
         *args],
        check=True,
        capture_output=True,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_checkout_is_modified_by_tracked_changes_to_the_files_built(
    tmp_path: Path,
) -> None:
    kernel = _kernel(tmp_path / "kernel", version=None)
    _git(kernel, "init", "-q")
    _git(kernel, "add", ".")
    _git(kernel, "commit", "-q", "-m", "release")
    _git(kernel, "tag", "V11.1.0")
    clean = fw_image.read_sources(FREERTOS, kernel, "armv7m")
    assert (clean.source, clean.tag, clean.modified) == ("git", "V11.1.0", False)
    # neither an untracked file nor a change to a file not built is a modification
    (kernel / "include" / "scratch.h").write_text("/* untracked */\n")
    (kernel / "croutine.c").write_text("/* edited, not built */\n")
    assert fw_image.read_sources(FREERTOS, kernel, "armv7m").modified is False

    _rewrite_keeping_size_and_time(kernel / "queue.c", "queue", "QUEUE")
    edited = fw_image.read_sources(FREERTOS, kernel, "armv7m")
    assert edited.modified is True
    assert "queue.c" in edited.modified_reason and "croutine.c" not in edited.modified_reason
    assert edited.digest != clean.digest
