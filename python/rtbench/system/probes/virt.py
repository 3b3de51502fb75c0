# SPDX-License-Identifier: Apache-2.0
"""Virtualisation facts: is this a virtual machine (and which hypervisor), a container."""

from __future__ import annotations

from rtbench.system.model import Virtualization
from rtbench.system.source import Source

SYSTEMD_CONTAINER = "/run/systemd/container"
HYPERVISOR_TYPE = "/sys/hypervisor/type"
DMI = "/sys/class/dmi/id"
CONTAINER_MARKERS = (("/.dockerenv", "docker"), ("/run/.containerenv", "podman"))
# The device tree of QEMU's generic ARM and RISC-V "virt" boards names it so.
DEVICE_TREE_COMPATIBLE = "/proc/device-tree/compatible"
X86 = ("x86_64", "i686", "i386")


def prefetch() -> list[str]:
    """The files these probes read, for one batch."""
    paths = [SYSTEMD_CONTAINER, HYPERVISOR_TYPE, f"{DMI}/sys_vendor", f"{DMI}/product_name"]
    return [*paths, DEVICE_TREE_COMPATIBLE, *(marker for marker, _name in CONTAINER_MARKERS)]


def container(source: Source) -> str | None:
    named = source.read(SYSTEMD_CONTAINER)
    if named:
        return named
    for marker, name in CONTAINER_MARKERS:
        if source.exists(marker):
            return name
    return None


def virtualization(
    source: Source, cpu_flags: list[str] | None, machine: str | None
) -> Virtualization:
    # The hypervisor CPUID bit is an x86 flag; other CPUs' feature lists never have it.
    flag = "hypervisor" in cpu_flags if cpu_flags is not None and machine in X86 else None
    hv_type = source.read(HYPERVISOR_TYPE)
    board = "qemu" if "dummy-virt" in (source.read(DEVICE_TREE_COMPATIBLE) or "") else None
    # systemd-detect-virt names the hypervisor; it costs ~30 ms, so ask only when the
    # CPU flags do not already say "bare metal".
    detect_vm = source.run(["systemd-detect-virt", "--vm"]) if flag is not False else None
    vm: bool | None = None
    if flag or hv_type or board or (detect_vm not in (None, "none")):
        vm = True
    elif flag is False or detect_vm == "none":
        vm = False
    return {
        "vm": vm,
        "type": detect_vm if detect_vm not in (None, "none") else (hv_type or board),
        "hypervisor_flag": flag,
        "sys_hypervisor_type": hv_type,
        "dmi_vendor": source.read(f"{DMI}/sys_vendor"),
        "dmi_product": source.read(f"{DMI}/product_name"),
        "systemd_detect_virt": detect_vm,
        "container": container(source),
    }
