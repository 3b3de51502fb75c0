# SPDX-License-Identifier: Apache-2.0
"""The RTOSes rtbench builds firmware images with: one `Rtos` entry each.

A new RTOS port is its folder ports/<name>/ (the contract mapped onto the RTOS,
its configuration header, a port.cmake calling rtb_add_firmware) and one entry
here; the build, boot, monitor, code-path tracing and deterministic mode are the
firmware target's, written once (docs/porting.md).
"""

from __future__ import annotations

from pathlib import Path

from rtbench.targets.firmware.rtos import Rtos, RtosOption
from rtbench.targets.firmware.sources import Release, git_release, version_file, version_macro


def _freertos_release(path: Path) -> Release:
    """A FreeRTOS-Kernel checkout's VERSION file, else git, else
    tskKERNEL_VERSION_NUMBER in include/task.h."""
    return (
        version_file(path)
        or git_release(path)
        or version_macro(path, "include/task.h", r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"')
    )


FREERTOS = Rtos(
    name="freertos",
    display="FreeRTOS",
    source_env="FREERTOS_KERNEL_PATH",
    source_what="a FreeRTOS-Kernel checkout",
    how_to_get=(
        "get it with `git clone --depth 1 -b V11.1.0 https://github.com/FreeRTOS/"
        "FreeRTOS-Kernel` and export FREERTOS_KERNEL_PATH=<that folder>"
    ),
    source_url="https://github.com/FreeRTOS/FreeRTOS-Kernel",
    tested_release="V11.1.0",
    # what a checkout holds that the image needs (kernel, the Cortex-M3 port, heap_4)
    required=(
        "tasks.c",
        "queue.c",
        "include/task.h",
        "portable/GCC/ARM_CM3/port.c",
        "portable/MemMang/heap_4.c",
    ),
    # the kernel files the image is built from (ports/freertos/port.cmake)
    digest_files=(
        "tasks.c",
        "queue.c",
        "list.c",
        "event_groups.c",
        "timers.c",
        "portable/MemMang/heap_4.c",
    ),
    digest_dirs=("include", "portable/GCC/ARM_CM3"),
    # the digest of each release's files as published: computed from `git archive
    # <tag>` of https://github.com/FreeRTOS/FreeRTOS-Kernel (LF line endings) and,
    # for V11.1.0, from a release extract too
    known_digests={
        "V11.0.0": "49467a73a4a7080f331a5abdc2896bd3adbaa2e2d001c4f7623f246a5e71ba40",
        "V11.0.1": "bb35a82aac6e90ce87e7c3ea4c8eb0c720bb0ca26ec6d31664b02271d5c03c9f",
        "V11.1.0": "edbbb421e69ffe013a261676f837136b005aacd198ef47ee64bae5d87ed6720a",
        "V11.2.0": "98ee14a7b5f5b2606a451cd78ee1d6f8346d5becfd172528a3e655db02cd5029",
        "V11.3.0": "61796632ee8e627698fcf7f0a0b87df86d92933820221c1688c4beb144258447",
    },
    read_release=_freertos_release,
    cmake_source_var="FREERTOS_KERNEL_PATH",
    config_header="FreeRTOSConfig.h",
    cmake_config_var="RTB_FREERTOS_CONFIG_DIR",
    config_env="RTBENCH_FREERTOS_CONFIG_DIR",
    image_env="RTBENCH_FREERTOS_IMAGE",
)

RTOSES: dict[str, Rtos] = {r.name: r for r in (FREERTOS,)}

__all__ = ["FREERTOS", "RTOSES", "Rtos", "RtosOption"]
