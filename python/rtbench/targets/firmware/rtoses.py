# SPDX-License-Identifier: Apache-2.0
"""The RTOSes rtbench builds firmware images with: one `Rtos` entry each.

A new RTOS port is its folder ports/<name>/ (the contract mapped onto the RTOS,
its configuration header, a port.cmake calling rtb_add_firmware, its manifest
port.json) and one entry here, which reads the manifest and adds what only
Python knows; the build, boot, monitor, code-path tracing and deterministic mode are the
firmware target's, written once (docs/porting.md).
"""

from __future__ import annotations

from pathlib import Path

from rtbench.targets.firmware.rtos import Rtos, RtosOption, from_manifest
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

FREERTOS = from_manifest(
    "freertos",
    read_release=_freertos_release,
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


UCOS3 = from_manifest(
    "ucos3",
    read_release=_ucos3_release,
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


THREADX = from_manifest(
    "threadx",
    read_release=_threadx_release,
    # TX_DISABLE is inline (`mrs` of PRIMASK, `cpsid i`) in every service and
    # in the port's assembly (PendSV_Handler, __tx_ts_*): each `cpsid i` the
    # path executes in a ThreadX function is one critical section begun
    critical_sections=CriticalSections(
        enter=(), exit=(), masking=("_tx_", "__tx_", "_txe_", "PendSV_Handler")
    ),
)


def _nuttx_release(path: Path) -> Release:
    """A NuttX release's VERSION file ("nuttx-13.0.0 <commit>"), else git."""
    return version_file(path) or git_release(path) or Release(None, None, "VERSION")


NUTTX = from_manifest(
    "nuttx",
    read_release=_nuttx_release,
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
)


RTOSES: dict[str, Rtos] = {r.name: r for r in (FREERTOS, UCOS3, THREADX, NUTTX)}

__all__ = ["FREERTOS", "NUTTX", "RTOSES", "THREADX", "UCOS3", "Rtos", "RtosOption"]
