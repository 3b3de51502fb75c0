# SPDX-License-Identifier: Apache-2.0
"""Building and running the reference benchmarks' images (bench/rtosbench,
bench/thread-metric) for the mps2-an385 board: each RTOS kernel compiled as
rtbench's image compiles it (same compiler and flags, rtbench's kernel
configuration under ports/<rtos>/config, the sources the user's environment
names, never copied here), linked with rtbench's board code
(ports/boards/mps2-an385: vector table, startup, UART, linker script), and run
under rtbench's --deterministic -icount."""

from __future__ import annotations

import concurrent.futures
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "ports" / "boards" / "mps2-an385"
ARCH = ROOT / "ports" / "arch" / "cortex-m"
# CMake's Release build of rtbench's images (cmake/toolchains/arm-none-eabi-cortex-m3.cmake)
CFLAGS = ["-mcpu=cortex-m3", "-mthumb", "--specs=picolibc.specs", "-O3", "-DNDEBUG"]
ICOUNT_SHIFT = 5
ICOUNT = f"shift={ICOUNT_SHIFT},align=off,sleep=off"  # rtbench's --deterministic
COUNTER_HZ = 25_000_000  # the board's dual timer
# one instruction is 2^shift ns of emulated time; one counter tick is 40 ns
INSNS_PER_TICK = (1e9 / COUNTER_HZ) / (1 << ICOUNT_SHIFT)


@dataclass(frozen=True)
class Kernel:
    rtos: str
    lib: Path
    includes: list[str]  # -I flags: the configuration, the kernel's headers, rtb_fw_rtos.h
    defines: list[str]


def sh(cmd: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr}")


def source_path(rtos: str) -> Path:
    """The kernel sources the environment names (as rtbench's own build reads them)."""
    if rtos == "freertos":
        path = Path(os.environ.get("FREERTOS_KERNEL_PATH", ""))
        if not (path / "tasks.c").exists():
            sys.exit("FREERTOS_KERNEL_PATH must name a FreeRTOS-Kernel checkout (V11.1.0)")
        return path
    if rtos == "ucos3":
        path = Path(os.environ.get("UCOS3_PATH", ""))
        if not (path / "uC-OS3" / "Source" / "os_core.c").exists():
            sys.exit("UCOS3_PATH must name the folder holding uC-OS3, uC-CPU and uC-LIB")
        return path
    if rtos == "threadx":
        path = Path(os.environ.get("THREADX_PATH", ""))
        if not (path / "common" / "src").is_dir():
            sys.exit("THREADX_PATH must name a ThreadX checkout")
        return path
    sys.exit(f"unknown RTOS {rtos}")


def _compile_lib(lib: Path, jobs: list[list[str]]) -> None:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(sh, jobs))
    objs = sorted({j[-1] for j in jobs})
    sh(["arm-none-eabi-ar", "rcs", str(lib), *objs])


def kernel(rtos: str, out: Path) -> Kernel:
    """The RTOS kernel as a library in `out`, built once, as ports/<rtos>/port.cmake
    builds it."""
    src = source_path(rtos)
    out.mkdir(parents=True, exist_ok=True)
    port = ROOT / "ports" / rtos
    if rtos == "freertos":
        kport = src / "portable" / "GCC" / "ARM_CM3"
        inc = [f"-I{port / 'config'}", f"-I{src / 'include'}", f"-I{kport}", f"-I{BOARD}"]
        files = [src / n for n in ("tasks.c", "queue.c", "list.c", "event_groups.c", "timers.c")]
        files += [kport / "port.c", src / "portable" / "MemMang" / "heap_4.c"]
        defines: list[str] = []
    elif rtos == "ucos3":
        os3, cpu = src / "uC-OS3", src / "uC-CPU"
        oport = os3 / "Ports" / "ARM-Cortex-M" / "ARMv7-M"
        cport = cpu / "ARM-Cortex-M" / "ARMv7-M" / "GNU"
        inc = [f"-I{port / 'config'}", f"-I{os3 / 'Source'}", f"-I{oport / 'GNU'}", f"-I{cpu}",
               f"-I{cport}", f"-I{src / 'uC-LIB'}"]  # fmt: skip
        names = ["os_cfg_app", "os_core", "os_flag", "os_mem", "os_msg", "os_mutex",
                 "os_prio", "os_q", "os_sem", "os_stat", "os_task", "os_tick", "os_time",
                 "os_tmr", "os_var"]  # fmt: skip
        files = [os3 / "Source" / f"{n}.c" for n in names]
        files += [oport / "os_cpu_c.c", oport / "GNU" / "os_cpu_a.S", cpu / "cpu_core.c",
                  cport / "cpu_a.s"]  # fmt: skip
        defines = []
    else:
        sys.exit(f"no kernel build for {rtos} here")
    lib = out / f"lib{rtos}.a"
    if not lib.exists():
        objdir = out / f"{rtos}-kernel"
        objdir.mkdir(parents=True, exist_ok=True)
        jobs = []
        for f in files:
            std = ["-std=c11"] if f.suffix == ".c" else []
            jobs.append(["arm-none-eabi-gcc", *CFLAGS, *std, *defines, *inc, "-c", str(f),
                         "-o", str(objdir / (f.name + ".o"))])  # fmt: skip
        _compile_lib(lib, jobs)
    # the port's folder and its Cortex-M part (ucos3_arch.h, txp_arch.h)
    return Kernel(rtos, lib, [*inc, f"-I{port}", f"-I{port / 'cortex-m'}"], defines)


def link(
    k: Kernel,
    elf: Path,
    sources: list[Path],
    includes: list[str],
    defines: list[str],
    own: Sequence[Path] = (),
) -> Path:
    """An image of `sources` (third-party, their own warnings) and `own` (rtbench's
    files, -Wall -Wextra -Werror) with the board's code and the kernel."""
    inc = [*includes, f"-I{BOARD}", f"-I{ARCH}", *k.includes]
    base = ["arm-none-eabi-gcc", *CFLAGS, "-std=gnu11", *k.defines, *defines, *inc]
    elf.parent.mkdir(parents=True, exist_ok=True)
    objs = []
    jobs = []
    for src in [*sources, *own, BOARD / "startup.c", BOARD / "board.c"]:
        obj = elf.parent / (src.name + ".o")
        warn = ["-Wall", "-Wextra", "-Werror"] if src in own else ["-w"]
        jobs.append([*base, *warn, "-c", str(src), "-o", str(obj)])
        objs.append(str(obj))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(sh, jobs))
    sh(["arm-none-eabi-gcc", *CFLAGS, "-nostartfiles", f"-T{BOARD / 'mps2-an385.ld'}",
        "-Wl,--gc-sections", *objs, str(k.lib), "-o", str(elf)])  # fmt: skip
    return elf


def qemu_command(elf: Path, extra: Sequence[str] = ()) -> list[str]:
    return [
        "qemu-system-arm", "-M", "mps2-an385", "-cpu", "cortex-m3", "-nographic", "-no-reboot",
        "-monitor", "none", "-kernel", str(elf), "-chardev", "stdio,id=rtb,signal=off",
        "-serial", "chardev:rtb", "-icount", ICOUNT, *extra,
    ]  # fmt: skip


def run(
    elf: Path, done: Callable[[str], bool], timeout: float, extra: Sequence[str] = ()
) -> tuple[str, float]:
    """The image's console output until `done(text)` or the timeout (wall seconds)
    or its end, and the wall time (`extra`: more QEMU arguments)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        qemu_command(elf, extra), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    text = ""
    try:
        while not done(text) and time.monotonic() - start < timeout:
            if not sel.select(1.0):
                if proc.poll() is not None:
                    break
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            text += chunk.decode(errors="replace")
    finally:
        proc.kill()
        proc.wait()
    return text, time.monotonic() - start
