# SPDX-License-Identifier: Apache-2.0
"""The QEMU guests rtbench knows, and what each boots: kernel, initramfs.

A guest is a Debian kernel flavour on one emulated machine. Its initramfs holds
the guest agent as /init and the static rtbench-core, both built for the guest's
architecture (the agent with Debian's cross compiler, the core by
`build.ensure_core`). Images are cached by the hash of what they hold, so a
second run boots at once.

Test hook: RTBENCH_GUEST_CORE names a static core for the guest's architecture
to use instead of building one.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rtbench import build
from rtbench.errors import BuildError, UsageError
from rtbench.paths import ROOT
from rtbench.targets.guest import debian, initramfs
from rtbench.targets.guest.cores import default_core

GUEST_CORE_ENV = "RTBENCH_GUEST_CORE"
# The agent's sources: its own, and the serial line protocol's part it shares
# with the FreeRTOS image (ports/common, also its include folder)
AGENT_COMMON = Path("ports") / "common"
AGENT_SOURCES = (
    Path("ports") / "posix" / "guest" / "agent.c",
    AGENT_COMMON / "serial_proto.c",
    AGENT_COMMON / "serial_proto.h",
)
_XZ_MAGIC = b"\xfd7zXZ\x00"
_ELF_MAGIC = b"\x7fELF"
# busybox applets linked in /bin: what the system probes and --trace's scripts
# (trace.kernel.shell_tracefs) may run on a target
APPLETS = (
    "sh",
    "cat",
    "ls",
    "test",
    "[",
    "uname",
    "date",
    "sleep",
    "printf",
    "echo",
    "chrt",
    "timeout",
    "taskset",
    "grep",
    "head",
    "tail",
    "ps",
    "dmesg",
    "mount",
    "umount",
    "mkdir",
    "rmdir",
    "gzip",
    "id",
    "true",
)


@dataclass(frozen=True)
class Guest:
    """One guest: a Debian kernel flavour on an emulated machine."""

    name: str
    meta_package: str  # the Debian kernel meta-package
    deb_arch: str  # Debian architecture of the kernel package
    machine: str  # what `uname -m` says in the guest (and the core's build arch)
    qemu: str  # the QEMU system emulator
    machine_args: tuple[str, ...]  # with the default core after -cpu (guest.cores)
    cross_cc: str  # the C compiler that builds the agent
    serial_port: str  # the guest's device for the protocol
    console: str  # the kernel console arguments
    rt: bool

    @property
    def console_port(self) -> bool:
        return self.serial_port != self.console.removeprefix("console=").split()[0]


def _guest(name: str, meta: str, arch: str, rt: bool) -> Guest:
    if arch == "amd64":
        return Guest(
            name,
            meta,
            arch,
            "x86_64",
            "qemu-system-x86_64",
            ("-M", "pc", "-cpu", default_core(arch)),
            "gcc" if build_host_machine() == "x86_64" else "x86_64-linux-gnu-gcc",
            "ttyS1",
            # the TSC is the core's counter; QEMU's is stable even when the kernel doubts it
            "console=ttyS0 loglevel=4 tsc=reliable",
            rt,
        )
    if arch == "arm64":
        return Guest(
            name,
            meta,
            arch,
            "aarch64",
            "qemu-system-aarch64",
            ("-M", "virt", "-cpu", default_core(arch)),
            "aarch64-linux-gnu-gcc",
            "ttyAMA0",
            "console=ttyAMA0 quiet loglevel=0",
            rt,
        )
    return Guest(
        name,
        meta,
        arch,
        "armv7l",
        "qemu-system-arm",
        ("-M", "virt,highmem=off", "-cpu", default_core(arch)),
        "arm-linux-gnueabihf-gcc",
        "ttyAMA0",
        "console=ttyAMA0 quiet loglevel=0",
        rt,
    )


def build_host_machine() -> str:
    return os.uname().machine


GUESTS: dict[str, Guest] = {
    g.name: g
    for g in (
        _guest("debian-amd64", "linux-image-amd64", "amd64", False),
        _guest("debian-rt-amd64", "linux-image-rt-amd64", "amd64", True),
        _guest("debian-arm64", "linux-image-arm64", "arm64", False),
        _guest("debian-rt-arm64", "linux-image-rt-arm64", "arm64", True),
        _guest("debian-armhf", "linux-image-armmp", "armhf", False),
        _guest("debian-rt-armhf", "linux-image-rt-armmp", "armhf", True),
    )
}


def missing_tools(guest: Guest) -> list[str]:
    """The programs this guest needs that this machine lacks (Debian package names)."""
    missing: list[str] = []
    packages = {
        "qemu-system-x86_64": "qemu-system-x86",
        "qemu-system-aarch64": "qemu-system-arm",
        "qemu-system-arm": "qemu-system-arm",
        "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu",
        "arm-linux-gnueabihf-gcc": "gcc-arm-linux-gnueabihf",
        "x86_64-linux-gnu-gcc": "gcc-x86-64-linux-gnu",
        "gcc": "gcc",
        "dpkg-deb": "dpkg",
        "gpgv": "gpgv",
    }
    for tool in (guest.qemu, guest.cross_cc, "dpkg-deb", "gpgv"):
        if shutil.which(tool) is None:
            missing.append(packages.get(tool, tool))
    return missing


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:16]


def build_agent(guest: Guest, say: Callable[[str], None]) -> Path:
    """The static guest agent for the guest's architecture (cached by source hash)."""
    sources = [ROOT / path for path in AGENT_SOURCES]
    digest = _digest(*(path.read_bytes() for path in sources))
    out = debian.cache_dir() / "agents" / f"agent-{guest.machine}-{digest}"
    if out.is_file():
        return out
    if shutil.which(guest.cross_cc) is None:
        raise BuildError(
            f"{guest.cross_cc} is not installed; the {guest.name} guest needs it "
            "(see `rtbench targets`)."
        )
    say(f"Building the guest agent for {guest.machine}...")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    flags = ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-static", f"-I{ROOT / AGENT_COMMON}"]
    compiled = [str(path) for path in sources if path.suffix == ".c"]
    done = subprocess.run(
        [guest.cross_cc, *flags, "-o", str(tmp), *compiled],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        tail = done.stderr.strip().splitlines()
        raise BuildError(f"Building the guest agent failed ({tail[-1] if tail else 'no message'}).")
    tmp.replace(out)
    return out


def guest_core(guest: Guest, say: Callable[[str], None]) -> Path:
    """A static rtbench-core for the guest's architecture."""
    override = os.environ.get(GUEST_CORE_ENV)
    if override:
        path = Path(override)
        if not path.is_file():
            raise UsageError(f"{GUEST_CORE_ENV}={override} is not a file.")
        return path
    return build.ensure_core(ROOT, say, arch=guest.machine, libc="glibc", static=True)


def busybox(guest: Guest, say: Callable[[str], None]) -> Path:
    """Debian's static busybox for the guest's architecture: the shell and the small
    tools the system probes run on the target (sh, cat, ls, uname, ...)."""
    folder = debian.ensure_package("busybox-static", guest.deb_arch, say)
    binary = folder / "bin" / "busybox"
    if not binary.is_file():
        raise BuildError("Debian's busybox-static package holds no /bin/busybox.")
    return binary


def build_initramfs(guest: Guest, agent: Path, core: Path, shell: Path) -> Path:
    """The gzip newc initramfs: the agent as /init, the core, busybox and its applets
    in /bin (cached by the hash of what it holds)."""
    agent_bytes = agent.read_bytes()
    core_bytes = core.read_bytes()
    shell_bytes = shell.read_bytes()
    digest = _digest(agent_bytes, core_bytes, shell_bytes, " ".join(APPLETS).encode())
    out = debian.cache_dir() / "initramfs" / f"{guest.machine}-{digest}.gz"
    if out.is_file():
        return out
    entries = [
        initramfs.directory("dev"),
        initramfs.char_device("dev/console", 5, 1),
        initramfs.char_device("dev/null", 1, 3, 0o666),
        initramfs.directory("proc"),
        initramfs.directory("sys"),
        initramfs.directory("tmp", 0o1777),
        initramfs.directory("root", 0o700),
        initramfs.regular("init", agent_bytes),
        initramfs.regular("rtbench-core", core_bytes),
        initramfs.directory("bin"),
        initramfs.regular("bin/busybox", shell_bytes),
        *(initramfs.symlink(f"bin/{name}", "busybox") for name in APPLETS),
        # the agent is also the chrt and getconf the probes need (busybox has neither)
        initramfs.symlink("bin/chrt", "/init"),
        initramfs.symlink("bin/getconf", "/init"),
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    tmp.write_bytes(initramfs.initramfs(entries))
    tmp.replace(out)
    return out


def extract_vmlinux(bzimage: Path) -> Path | None:
    """The uncompressed ELF kernel inside an x86 bzImage (xz-compressed in Debian's),
    which QEMU boots directly through its PVH entry: the BIOS and the kernel's
    decompression take several seconds under TCG. None when it cannot be found."""
    out = bzimage.with_name("vmlinux-" + bzimage.name.removeprefix("vmlinuz-"))
    if out.is_file():
        return out
    data = bzimage.read_bytes()
    start = data.find(_XZ_MAGIC)
    while start >= 0:
        try:
            elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[start:])
        except lzma.LZMAError:
            elf = b""
        if elf.startswith(_ELF_MAGIC):
            tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
            tmp.write_bytes(elf)
            tmp.replace(out)
            return out
        start = data.find(_XZ_MAGIC, start + 1)
    return None
