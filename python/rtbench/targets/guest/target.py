# SPDX-License-Identifier: Apache-2.0
"""QEMU guests booting Debian's kernels, as targets (`qemu:NAME[,option=value...]`).

`open` fetches the guest's kernel (targets.guest.debian), builds the agent and
a static core for the guest's architecture, packs them in an initramfs, boots
QEMU and waits for the agent's `ready`. Core runs, system facts and settings
all go through the agent on the guest's serial line (targets.guest.link); the
facts describe the guest, not this machine. `recover` boots a fresh guest.

Options after the name, separated by commas: `cpus=N` (default 2; the
measurement CPU defaults to the last), `memory=MiB` (default 512),
`accel=kvm|tcg` (default: KVM when it works for the guest here, else TCG),
`icount=SHIFT` (deterministic mode: the guest clock advances 2^SHIFT ns per
executed instruction; needs cpus=1; `rtbench run --deterministic` sets it
to DETERMINISTIC_SHIFT when the spec does not), `cpu=CORE` (the emulated core,
QEMU's -cpu: guest.cores lists each architecture's, the first the default;
under TCG only, since KVM runs the host's core; not the measurement CPU, which
is `rtbench run --cpu N`) and `append=...` (extra kernel command line; it takes
the rest of the spec, commas included).

Under TCG every timing figure is emulated: the results carry the caveat
`emulated` (timing is not representative of hardware). Behaviour verdicts
keep their meaning: the guest runs a real Linux kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from rtbench import system
from rtbench.errors import UsageError
from rtbench.targets.base import Say, Tracing
from rtbench.targets.guest import cores, debian, images
from rtbench.targets.guest.machine import MachineConfig, kvm_usable
from rtbench.targets.guest.tuning import GuestTuning
from rtbench.targets.qemu.process import (
    EMULATED_MESSAGE,
    GuestError,
    QemuBase,
    deterministic_info,
    emulation_caveats,
)

DEFAULT_CPUS = 2
DEFAULT_MEMORY_MIB = 512
MAX_CPUS = 16
# --deterministic without icount=: 8 ns per instruction, about a desktop CPU's
# order of magnitude, and an x86 guest then boots in about 3 s.
DETERMINISTIC_SHIFT = 3
# On every guest's command line. QEMU's 8250 sends a byte the moment it is written
# and raises the next interrupt at once; under PREEMPT_RT the line's handler runs in
# a thread, and an interrupt counts as handled only when that thread finished a
# pass since the one before, so a burst of output looks like a stuck line: the
# kernel disables its interrupt ("irq 3: nobody cared ... Disabling IRQ #3") and
# the serial line, rtbench's only way to the agent, goes silent for good.
# `noirqdebug` turns that check off; it changes no scheduling and no interrupt
# path but the check's bookkeeping (docs/targets.md).
GUEST_KERNEL_ARGS = "noirqdebug"


@dataclass(frozen=True)
class QemuOptions:
    """What the spec asked for after the guest's name."""

    cpus: int = DEFAULT_CPUS
    memory_mib: int = DEFAULT_MEMORY_MIB
    accel: str | None = None  # None: KVM when usable, else TCG
    icount: int | None = None
    append: str = ""
    cpus_given: bool = False  # cpus= was in the spec
    cpu_model: str | None = None  # cpu=: the emulated core; None for the guest's default


def _number(key: str, text: str, low: int, high: int) -> int:
    if not re.fullmatch(r"\d+", text) or not low <= int(text) <= high:
        raise UsageError(f"QEMU option {key}={text} must be a whole number from {low} to {high}.")
    return int(text)


def parse_spec(spec: str) -> tuple[images.Guest, QemuOptions]:
    """The guest and options of `qemu:NAME[,key=value...]`, or UsageError."""
    body = spec.removeprefix("qemu:")
    append = ""
    if ",append=" in body:
        body, append = body.split(",append=", 1)
    name, *pairs = body.split(",")
    guest = images.GUESTS.get(name)
    if guest is None:
        known = ", ".join([*(f"qemu:{g}" for g in images.GUESTS), "qemu:freertos-mps2-an385"])
        raise UsageError(f"Unknown QEMU guest '{name}' (use {known}).")
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in ("cpus", "memory", "accel", "icount", "cpu") or key in values:
            raise UsageError(
                f"Unknown or repeated QEMU option '{pair}' (use cpus=N, memory=MiB, "
                "accel=kvm|tcg, icount=SHIFT, cpu=CORE, append=...)."
            )
        values[key] = value
    accel = values.get("accel")
    if accel not in (None, "kvm", "tcg"):
        raise UsageError(f"QEMU option accel={accel} must be kvm or tcg.")
    icount = _number("icount", values["icount"], 0, 10) if "icount" in values else None
    cpus = _number("cpus", values["cpus"], 1, MAX_CPUS) if "cpus" in values else None
    if icount is not None:
        if accel == "kvm":
            raise UsageError("QEMU option icount works only with accel=tcg.")
        if cpus not in (None, 1):
            raise UsageError("QEMU option icount needs cpus=1 (with more, guests hang).")
        cpus = 1
    cpu_model = _cpu_model(guest, values["cpu"]) if "cpu" in values else None
    if cpu_model is not None:
        if accel == "kvm":
            raise UsageError(
                f"QEMU option cpu={cpu_model} chooses an emulated core, and KVM runs the host's: "
                "use accel=tcg or drop cpu=."
            )
        accel = "tcg"
    options = QemuOptions(
        cpus=cpus if cpus is not None else DEFAULT_CPUS,
        memory_mib=_number("memory", values["memory"], 128, 65536)
        if "memory" in values
        else DEFAULT_MEMORY_MIB,
        accel="tcg" if icount is not None else accel,
        icount=icount,
        append=append.strip(),
        cpus_given="cpus" in values,
        cpu_model=cpu_model,
    )
    return guest, options


def _cpu_model(guest: images.Guest, core: str) -> str:
    """The core cpu= names, or UsageError: one the guest's kernels boot on."""
    if core in cores.CORES[guest.deb_arch]:
        return core
    if re.fullmatch(r"\d+", core):
        raise UsageError(
            f"QEMU option cpu= names the emulated core ({cores.listed(guest.deb_arch)}); "
            f"the measurement CPU is chosen with rtbench run --cpu {core}."
        )
    raise UsageError(
        f"QEMU option cpu={core} is not a core the {guest.name} guest runs on "
        f"(use {cores.listed(guest.deb_arch)})."
    )


def machine_args(guest: images.Guest, cpu_model: str, icount: int | None) -> list[str]:
    """QEMU's -M and -cpu arguments for the guest on `cpu_model` ("host" under KVM)."""
    args = list(guest.machine_args)
    args[args.index("-cpu") + 1] = cpu_model
    if icount is not None and guest.deb_arch == "arm64":
        args[1] += ",dtb-randomness=off"  # identical runs need the same DTB
    return args


def ready() -> str | None:
    """None when at least the amd64 guests can run here, else what is missing."""
    missing = images.missing_tools(images.GUESTS["debian-amd64"])
    return f"install {', '.join(missing)}" if missing else None


class QemuTarget(QemuBase):
    """A Debian kernel booted under QEMU, measured through its agent."""

    def __init__(self, spec: str, libc: str = "glibc") -> None:
        if libc != "glibc":
            raise UsageError("QEMU guests run a glibc core; --libc musl is for local and SSH.")
        guest, options = parse_spec(spec)
        super().__init__(
            spec, guest.name, guest.qemu, guest.machine, "/rtbench-core in the guest's initramfs"
        )
        self.guest, self.options = guest, options
        self.kernel: debian.Kernel | None = None
        self.accel = "tcg"
        self.accel_reason = ""
        self._config: MachineConfig | None = None
        self._tuning: GuestTuning | None = None

    def use_deterministic(self) -> None:
        """--deterministic: icount with one CPU (DETERMINISTIC_SHIFT unless the spec
        gave icount=)."""
        if self.options.icount is not None:
            return
        if self.options.accel == "kvm":
            raise UsageError("--deterministic needs TCG, so it cannot be used with accel=kvm.")
        if self.options.cpus_given and self.options.cpus != 1:
            raise UsageError(
                "--deterministic needs one CPU (with more, guests hang under -icount); "
                f"drop cpus={self.options.cpus}."
            )
        self.options = replace(self.options, icount=DETERMINISTIC_SHIFT, cpus=1, accel="tcg")

    def shares_host_cpus(self) -> bool:
        # under -icount the guest's clock follows its instructions, not the host
        return self.options.icount is None

    def tracing(self) -> Tracing | None:
        from rtbench.targets.guest.tracefs import GUEST_BUFFER_KB, guest_tracefs  # noqa: PLC0415
        from rtbench.targets.tracing import KernelTracing  # noqa: PLC0415

        # the agent runs as root, and tracefs is mounted at boot
        return KernelTracing(lambda: guest_tracefs(self), buffer_kb=GUEST_BUFFER_KB)

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        return system.render(snap, cavs)

    # ---- boot -------------------------------------------------------------------

    def open(self, say: Say) -> None:
        missing = images.missing_tools(self.guest)
        if missing:
            raise UsageError(
                f"The {self.guest.name} guest needs {', '.join(missing)} "
                f"(apt-get install {' '.join(missing)})."
            )
        self.kernel = debian.ensure_kernel(self.guest.meta_package, self.guest.deb_arch, say)
        agent = images.build_agent(self.guest, say)
        core = images.guest_core(self.guest, say)
        shell = images.busybox(self.guest, say)
        initrd = images.build_initramfs(self.guest, agent, core, shell)
        image = self.kernel.image
        if self.guest.machine == "x86_64":
            image = images.extract_vmlinux(self.kernel.image) or image
        self.accel, self.accel_reason = self._choose_accel()
        append = " ".join(
            p
            for p in (
                self.guest.console,
                f"rtb.port={self.guest.serial_port}",
                f"rtb.host={self.guest.name}",
                "panic=-1",
                GUEST_KERNEL_ARGS,
                "nokaslr" if self.options.icount is not None else "",
                self.options.append,
            )
            if p
        )
        self._config = self.launch = MachineConfig(
            qemu=self.guest.qemu,
            machine=machine_args(self.guest, self.cpu_model, self.options.icount),
            kernel=image,
            initrd=initrd,
            append=append,
            cpus=self.options.cpus,
            memory_mib=self.options.memory_mib,
            accel=self.accel,
            icount=self.options.icount,
            console_port=self.guest.console_port,
        )
        self._boot(say)

    @property
    def cpu_model(self) -> str:
        """The core QEMU runs: cpu=, else the guest's default; the host's under KVM."""
        if self.accel == "kvm":
            return "host"
        return self.options.cpu_model or cores.default_core(self.guest.deb_arch)

    def _choose_accel(self) -> tuple[str, str]:
        wanted = self.options.accel
        why_not: str | None
        if self.options.cpu_model is not None:
            why_not = f"cpu={self.options.cpu_model} asks for an emulated core"
        elif wanted == "tcg":
            why_not = "accel=tcg was asked for"
        else:
            why_not = kvm_usable(self.guest.machine)
        if wanted == "kvm" and why_not is not None:
            raise UsageError(f"KVM cannot run the {self.guest.name} guest here: {why_not}.")
        if why_not is None:
            return "kvm", "/dev/kvm works for this guest"
        return "tcg", why_not

    def boot_message(self) -> str:
        return (
            f"Booting {self.guest.name} ({self.kernel.package if self.kernel else '?'}, "
            f"{self.cpu_model}, {self.options.cpus} CPU(s), {self.accel.upper()})..."
        )

    # ---- what the runner asks ---------------------------------------------------

    def check_cpu(self, cpu: int | None) -> int:
        count = self.options.cpus
        if cpu is None:
            return count - 1
        if not 0 <= cpu < count:
            raise UsageError(
                f"CPU {cpu} does not exist in the {self.guest.name} guest, which has "
                f"{count} CPU(s) (give more with qemu:{self.guest.name},cpus=N)."
            )
        return cpu

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        # The probes run busybox's sh and tools in the guest, through the agent.
        source = system.CommandSource(self.source().command)
        snap = system.snapshot(cpu, cpu_given=cpu_given, source=source)
        snap["emulation"] = self._emulation()
        return snap

    def _emulation(self) -> dict[str, Any]:
        return {
            "emulator": self.guest.qemu,
            "accel": self.accel,
            "accel_reason": self.accel_reason,
            "icount_shift": self.options.icount,
        }

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return [*emulation_caveats(self.accel, self.options.icount), *system.caveats(snap)]

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> GuestTuning:
        self._tuning = GuestTuning(
            self.source,
            dma_latency,
            lift_rt_throttle,
            serial_port=self.guest.serial_port,
            cpu=cpu,
            cpus=self.options.cpus,
        )
        return self._tuning

    def recover(self, say: Say) -> bool:
        """A fresh guest, with the run's settings made again in it."""
        if not super().recover(say):
            return False
        if self._tuning is not None:
            self._tuning.reapply()
        return True

    def describe(self) -> dict[str, Any]:
        config = self._config
        return {
            "kind": self.kind,
            "spec": self.spec,
            "guest": self.guest.name,
            "arch": self.guest.machine,
            "cpu": self.cpu_model,
            "cpu_choice": "spec" if self.options.cpu_model else "default",
            "libc": "glibc",
            "kernel": self.kernel.describe() if self.kernel else None,
            "kernel_release": self.release,
            "emulator": self.guest.qemu,
            "emulator_version": self.version(),
            "accel": self.accel,
            "accel_reason": self.accel_reason,
            "emulated": self.accel == "tcg",
            "icount_shift": self.options.icount,
            "deterministic": deterministic_info(self.options.icount),
            "cpus": self.options.cpus,
            "memory_mib": self.options.memory_mib,
            "kernel_cmdline": config.append if config else None,
            "boots": self.boots,
        }


__all__ = ["EMULATED_MESSAGE", "GuestError", "QemuTarget", "emulation_caveats", "parse_spec"]
