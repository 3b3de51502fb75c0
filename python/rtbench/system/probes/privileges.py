# SPDX-License-Identifier: Apache-2.0
"""Privilege facts: may a process on the target use SCHED_FIFO and lock its memory, its
capabilities and limits, the C library, and the state of /dev/cpu_dma_latency."""

from __future__ import annotations

from typing import Literal

from rtbench.system.model import DmaLatency, Libc, Privileges
from rtbench.system.source import ProcessFacts, Source

CAP_IPC_LOCK = 14
CAP_SYS_NICE = 23
CPU_DMA_LATENCY = "/dev/cpu_dma_latency"
# Machines (uname -m) whose byte order is big-endian; every other one is little-endian.
BIG_ENDIAN = ("s390", "s390x", "ppc", "ppc64", "mips", "mips64", "sparc64", "m68k", "armeb")


def privileges(facts: ProcessFacts) -> Privileges:
    caps = facts.cap_eff
    root = None if facts.euid is None else facts.euid == 0
    cap_sys_nice = bool(caps >> CAP_SYS_NICE & 1) if caps is not None else None
    prio_max: int | None = None
    if facts.sched_fifo:
        prio_max = facts.fifo_priority_max
        rtprio = facts.rlimit_rtprio
        if prio_max is not None and not root and not cap_sys_nice and rtprio is not None:
            soft = rtprio["soft"]
            if isinstance(soft, int):
                prio_max = min(prio_max, soft)
    return {
        "uid": facts.uid,
        "euid": facts.euid,
        "root": root,
        "cap_sys_nice": cap_sys_nice,
        "cap_ipc_lock": bool(caps >> CAP_IPC_LOCK & 1) if caps is not None else None,
        "rlimit_rtprio": facts.rlimit_rtprio,
        "rlimit_memlock": facts.rlimit_memlock,
        "rlimit_rttime": facts.rlimit_rttime,
        "sched_fifo": facts.sched_fifo,
        "sched_fifo_error": facts.sched_fifo_error,
        "rt_priority_max": prio_max,
        "process_policy": facts.policy,
    }


def libc(facts: ProcessFacts) -> Libc:
    return {"name": facts.libc_name, "version": facts.libc_version}


def cpu_dma_latency(source: Source, machine: str | None) -> DmaLatency:
    """The CPU latency request in force. Reading opens the file, which adds a request at
    the default value (changing nothing); it goes away with the close."""
    present = source.exists(CPU_DMA_LATENCY)
    value: int | None = None
    if present:
        raw = source.read_bytes(CPU_DMA_LATENCY)
        if raw is not None and len(raw) >= 4:
            # the kernel writes a signed 32-bit number in the target's byte order
            order: Literal["little", "big"] = (
                "big" if machine in BIG_ENDIAN or (machine or "").endswith("_be") else "little"
            )
            value = int.from_bytes(raw[:4], order, signed=True)
    return {
        "present": present,
        "writable": source.writable(CPU_DMA_LATENCY) if present else False,
        "value_us": value,
    }
