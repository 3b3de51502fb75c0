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
from rtbench.trace.codepath.critical import CriticalSections


def _freertos_release(path: Path) -> Release:
    """A FreeRTOS-Kernel checkout's VERSION file, else git, else
    tskKERNEL_VERSION_NUMBER in include/task.h."""
    return (
        version_file(path)
        or git_release(path)
        or version_macro(path, "include/task.h", r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"')
    )


# FreeRTOS V11.1.0's ...FromISR functions that take a critical section (one each)
FROM_ISR_CRITICAL = (
    "xQueueGenericSendFromISR",
    "xQueueGiveFromISR",
    "xQueueReceiveFromISR",
    "xQueuePeekFromISR",
    "xTaskResumeFromISR",
    "xTaskGenericNotifyFromISR",
    "vTaskGenericNotifyGiveFromISR",
    "uxTaskPriorityGetFromISR",
    "uxTaskBasePriorityGetFromISR",
    "xTaskGetApplicationTaskTagFromISR",
    "xEventGroupGetBitsFromISR",
)

FREERTOS = Rtos(
    name="freertos",
    boards=("mps2-an385", "virt-a7"),
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
    digest_dirs=("include",),
    arch_dirs={"armv7m": ("portable/GCC/ARM_CM3",), "armv7l": ("portable/GCC/ARM_CA9",)},
    # the digest of each release's files as published: computed from `git archive
    # <tag>` of https://github.com/FreeRTOS/FreeRTOS-Kernel (LF line endings) and,
    # for V11.1.0, from a release extract too; ARM_CA9's from the V11.1.0 release extract
    known_digests={
        "armv7m": {
            "V11.0.0": "49467a73a4a7080f331a5abdc2896bd3adbaa2e2d001c4f7623f246a5e71ba40",
            "V11.0.1": "bb35a82aac6e90ce87e7c3ea4c8eb0c720bb0ca26ec6d31664b02271d5c03c9f",
            "V11.1.0": "edbbb421e69ffe013a261676f837136b005aacd198ef47ee64bae5d87ed6720a",
            "V11.2.0": "98ee14a7b5f5b2606a451cd78ee1d6f8346d5becfd172528a3e655db02cd5029",
            "V11.3.0": "61796632ee8e627698fcf7f0a0b87df86d92933820221c1688c4beb144258447",
        },
        "armv7l": {"V11.1.0": "47a55324dbbd02e7a0a5c92c54a2b6403d910f227e49a078c59f4dbfe866311f"},
    },
    read_release=_freertos_release,
    cmake_source_var="FREERTOS_KERNEL_PATH",
    config_header="FreeRTOSConfig.h",
    cmake_config_var="RTB_FREERTOS_CONFIG_DIR",
    config_env="RTBENCH_FREERTOS_CONFIG_DIR",
    image_env="RTBENCH_FREERTOS_IMAGE",
    options=(
        RtosOption(
            name="checks",
            values={
                "off": (),
                "on": ("-DRTB_FREERTOS_CONFIG_DIR=ports/freertos/config-checked",),
            },
            default="off",
            help="on: the checked configuration (configASSERT and stack overflow checking) "
            "instead of the production one",
        ),
    ),
    # V11.1.0, portable/GCC/ARM_CM3: taskENTER_CRITICAL() and taskEXIT_CRITICAL() call
    # the port's functions; portDISABLE_INTERRUPTS() and
    # portSET_INTERRUPT_MASK_FROM_ISR() are forced inline (vPortRaiseBASEPRI,
    # ulPortRaiseBASEPRI), once in each function named under `inline`: the tick and
    # PendSV handlers and the ...FromISR functions that take a critical section
    critical_sections=CriticalSections(
        enter=("vPortEnterCritical",),
        exit=("vPortExitCritical",),
        inline=(
            "xPortSysTickHandler",
            "xPortPendSVHandler",
            *FROM_ISR_CRITICAL,
        ),
    ),
    # portable/GCC/ARM_CA9 on virt-a7: the same, but the ...FromISR functions
    # call ulPortSetInterruptMask (the GIC's priority mask), the tick handler
    # sets the mask in its own code, and a switch is a supervisor call with no
    # mask of its own
    critical_sections_on={
        "virt-a7": CriticalSections(
            enter=("vPortEnterCritical",),
            exit=("vPortExitCritical",),
            inline=("FreeRTOS_Tick_Handler", *FROM_ISR_CRITICAL),
        )
    },
)


def _ucos3_release(path: Path) -> Release:
    """uC-OS3's VERSION file (its release tag and commit), else git in uC-OS3, else
    OS_VERSION in uC-OS3/Source/os.h (30802u: v3.08.02)."""
    kernel = path / "uC-OS3"
    found = version_file(kernel) or git_release(kernel)
    if found is not None:
        return Release(found.tag, found.commit, f"uC-OS3/{found.read_from}")
    macro = version_macro(kernel, "Source/os.h", r"#define\s+OS_VERSION\s+(\d+)u")
    tag = macro.tag
    if tag is not None and len(tag) == 5:
        tag = f"v{tag[0]}.{tag[1:3]}.{tag[3:]}"
    return Release(tag, None, "uC-OS3/Source/os.h")


UCOS3 = Rtos(
    name="ucos3",
    boards=("mps2-an385", "virt-a7"),
    display="uC/OS-III",
    source_env="UCOS3_PATH",
    source_what="a folder holding uC-OS3, uC-CPU and uC-LIB side by side",
    how_to_get=(
        "clone https://github.com/weston-embedded/uC-OS3 (tag v3.08.02), uC-CPU (v1.32.01) "
        "and uC-LIB (v1.39.01) into one folder and export UCOS3_PATH=<that folder>"
    ),
    source_url="https://github.com/weston-embedded/uC-OS3",
    tested_release="v3.08.02",
    required=("uC-OS3/Source/os_core.c", "uC-CPU/cpu_core.c", "uC-LIB/lib_def.h"),
    # what ports/ucos3/port.cmake compiles and includes
    digest_files=("uC-CPU/cpu_core.c",),
    digest_dirs=("uC-OS3/Source", "uC-CPU/*", "uC-LIB/*"),
    arch_dirs={
        "armv7m": (
            "uC-OS3/Ports/ARM-Cortex-M/ARMv7-M/*",
            "uC-OS3/Ports/ARM-Cortex-M/ARMv7-M/GNU",
            "uC-CPU/ARM-Cortex-M/ARMv7-M/GNU",
        ),
        "armv7l": (
            "uC-OS3/Ports/ARM-Cortex-A/ARMv7-A/*",
            "uC-OS3/Ports/ARM-Cortex-A/ARMv7-A/GNU",
            "uC-CPU/ARM-Cortex-A/ARMv7-A/GNU",
        ),
    },
    # the digest of the files as published: uC-OS3 v3.08.02 with uC-CPU v1.32.01 and
    # uC-LIB v1.39.01 (the releases upstream's v3.08.02 examples take), from their
    # release extracts
    known_digests={
        "armv7m": {"v3.08.02": "2d15f11b9f8ca45aaef74844f0322ef84eea2405b82f626cbfe141b46ce82ebb"},
        "armv7l": {"v3.08.02": "3c6ac7f5ee61732b291af64171a5ea31fad0a1036e7711384fcec283c8edf38b"},
    },
    read_release=_ucos3_release,
    cmake_source_var="UCOS3_PATH",
    config_header="os_cfg.h",
    cmake_config_var="RTB_UCOS3_CONFIG_DIR",
    config_env="RTBENCH_UCOS3_CONFIG_DIR",
    image_env="RTBENCH_UCOS3_IMAGE",
    # v3.08.02 with uC-CPU v1.32.01, ARMv7-M GNU: CPU_CRITICAL_ENTER() and
    # CPU_CRITICAL_EXIT() (and the kernel's OS_CRITICAL_* built on them) call the
    # assembly functions CPU_SR_Save and CPU_SR_Restore; the PendSV handler, also in
    # assembly, raises BASEPRI itself while it switches tasks
    critical_sections=CriticalSections(
        enter=("CPU_SR_Save",),
        exit=("CPU_SR_Restore",),
        inline=("OS_CPU_PendSVHandler",),
    ),
    # uC-CPU's ARMv7-A GNU port on virt-a7: CPU_CRITICAL_ENTER() is inline
    # (`mrs` of CPSR, `cpsid if`) in every kernel function, and the kernel's
    # assembly masks the same way: each `cpsid` executed in them is one
    critical_sections_on={
        "virt-a7": CriticalSections(enter=(), exit=(), masking=("OS", "CPU_")),
    },
)


def _threadx_release(path: Path) -> Release:
    """A ThreadX checkout's VERSION file, else git, else THREADX_MAJOR/MINOR/PATCH
    in common/inc/tx_api.h."""
    found = version_file(path) or git_release(path)
    if found is not None:
        return found
    parts = [
        version_macro(path, "common/inc/tx_api.h", rf"#define\s+THREADX_{p}_VERSION\s+(\d+)").tag
        for p in ("MAJOR", "MINOR", "PATCH")
    ]
    tag = "v" + ".".join(p for p in parts if p) if all(parts) else None
    return Release(tag, None, "common/inc/tx_api.h")


THREADX = Rtos(
    name="threadx",
    boards=("mps2-an385", "virt-a7"),
    display="ThreadX",
    source_env="THREADX_PATH",
    source_what="an Eclipse ThreadX checkout",
    how_to_get=(
        "get it with `git clone --depth 1 -b v6.4.2_rel https://github.com/eclipse-threadx/"
        "threadx` and export THREADX_PATH=<that folder>"
    ),
    source_url="https://github.com/eclipse-threadx/threadx",
    tested_release="v6.4.2_rel",
    required=(
        "common/inc/tx_api.h",
        "common/src/tx_thread_create.c",
        "ports/cortex_m3/gnu/inc/tx_port.h",
    ),
    # what ports/threadx/port.cmake compiles and includes
    digest_files=(),
    digest_dirs=("common/inc", "common/src"),
    arch_dirs={
        "armv7m": ("ports/cortex_m3/gnu/inc", "ports/cortex_m3/gnu/src"),
        "armv7l": ("ports/cortex_a7/gnu/inc", "ports/cortex_a7/gnu/src"),
    },
    # the digest of the files as published, from the v6.4.2_rel release extract
    known_digests={
        "armv7m": {
            "v6.4.2_rel": "e76ec122dde1d225b02fbe8f5d069810dc3ad697f2718c73612254c5c6e82ad3"
        },
        "armv7l": {
            "v6.4.2_rel": "61cbb42029270edcefff868a85b4f70ddaa86466523aaa198869ec52287d33e0"
        },
    },
    read_release=_threadx_release,
    # TX_DISABLE is inline (`mrs` of PRIMASK, `cpsid i`) in every service and
    # in the port's assembly (PendSV_Handler, __tx_ts_*): each `cpsid i` the
    # path executes in a ThreadX function is one critical section begun
    critical_sections=CriticalSections(
        enter=(), exit=(), masking=("_tx_", "__tx_", "_txe_", "PendSV_Handler")
    ),
    cmake_source_var="THREADX_PATH",
    config_header="tx_user.h",
    cmake_config_var="RTB_THREADX_CONFIG_DIR",
    config_env="RTBENCH_THREADX_CONFIG_DIR",
    image_env="RTBENCH_THREADX_IMAGE",
    options=(
        RtosOption(
            name="sem_prioritize",
            values={
                "off": ("-DRTB_THREADX_SEM_PRIORITIZE=OFF",),
                "on": ("-DRTB_THREADX_SEM_PRIORITIZE=ON",),
            },
            default="off",
            help="on: tx_semaphore_prioritize() before every put, so the most urgent "
            "waiter is released first instead of the one that waited longest",
        ),
    ),
)


def _nuttx_release(path: Path) -> Release:
    """A NuttX release's VERSION file ("nuttx-13.0.0 <commit>"), else git."""
    return version_file(path) or git_release(path) or Release(None, None, "VERSION")


NUTTX = Rtos(
    name="nuttx",
    boards=("virt-a7",),
    display="NuttX",
    source_env="NUTTX_PATH",
    source_what="an Apache NuttX source tree",
    how_to_get=(
        "get it with `git clone --depth 1 -b nuttx-13.0.0 https://github.com/apache/nuttx` "
        "and export NUTTX_PATH=<that folder>"
    ),
    source_url="https://github.com/apache/nuttx",
    tested_release="nuttx-13.0.0",
    # what ports/nuttx/port.cmake configures and builds: the tree's configure
    # script, the board qemu-armv7a and its chip
    required=(
        "tools/configure.sh",
        "sched/semaphore/sem_post.c",
        "boards/arm/qemu/qemu-armv7a/scripts/dramboot.ld",
        "arch/arm/src/qemu/qemu_timer.c",
    ),
    # the kernel's files on every path a scenario measures (the scheduler, the
    # heap, the kernel's headers, the console and timer drivers); NuttX's C
    # library and the rest of the tree are built too but not fingerprinted
    digest_files=(),
    digest_dirs=("sched", "mm", "include/nuttx", "drivers/serial", "drivers/timers"),
    arch_dirs={
        "armv7l": (
            "arch/arm/src/armv7-a",
            "arch/arm/src/qemu",
            "arch/arm/include/armv7-a",
            "boards/arm/qemu/qemu-armv7a",
        ),
    },
    # no published digest of these files is recorded: whether a tree is modified
    # is read from git, or said to be unknown
    known_digests={},
    read_release=_nuttx_release,
    cmake_source_var="NUTTX_PATH",
    config_header="defconfig",
    cmake_config_var="RTB_NUTTX_CONFIG_DIR",
    config_env="RTBENCH_NUTTX_CONFIG_DIR",
    image_env="RTBENCH_NUTTX_IMAGE",
    # NuttX 13.0.0 on ARMv7-A: enter_critical_section() is up_irq_save() in a
    # build of one CPU, an inline `mrs`/`cpsid i` in every kernel function, as
    # are the interrupt entry's and the scheduler's own masks: each `cpsid i`
    # executed in a NuttX function is one critical section begun
    critical_sections=CriticalSections(
        enter=(),
        exit=(),
        masking=(
            "nx",
            "up_",
            "arm_",
            "sem_",
            "pthread_",
            "mq_",
            "sched_",
            "wd_",
            "clock_",
            "irq_",
            "mm_",
            "task_",
            "uart_",
            "pl011_",
            "enter_critical_section",
            "leave_critical_section",
        ),
    ),
    tools=(("kconfig-tweak", "kconfig-frontends-nox"),),
)


RTOSES: dict[str, Rtos] = {r.name: r for r in (FREERTOS, UCOS3, THREADX, NUTTX)}

__all__ = ["FREERTOS", "NUTTX", "RTOSES", "THREADX", "UCOS3", "Rtos", "RtosOption"]
