# SPDX-License-Identifier: Apache-2.0
"""The parts of the QEMU target that need no emulator: the initramfs writer, the
serial line protocol against a scripted agent, the Debian index handling and
the target's spec. The boots themselves are in test_qemu_boot.py."""

from __future__ import annotations

import gzip
import lzma
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import cli
from rtbench import transport
from rtbench.errors import UsageError
from rtbench.targets.guest import debian, images, initramfs, link
from rtbench.targets.guest import machine as machine_mod
from rtbench.targets.guest.machine import MachineConfig, kvm_usable
from rtbench.targets.guest.target import EMULATED_MESSAGE, emulation_caveats, parse_spec
from rtbench.targets.guest.tuning import GuestTuning, cpu_list
from rtbench.targets.qemu import process as qemu_base
from rtbench.transport import EndOfStream, TargetLost

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

# ---- initramfs ---------------------------------------------------------------------


def test_newc_header_fields_and_padding() -> None:
    data = initramfs.cpio([initramfs.regular("init", b"abc")])
    assert data[:6] == b"070701"
    fields = [int(data[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
    assert fields[1] == stat.S_IFREG | 0o755  # mode
    assert fields[6] == 3  # file size
    assert fields[11] == len("init") + 1  # name size with its NUL
    # header + name padded to 4 bytes, then the data padded to 4 bytes
    assert data[110:115] == b"init\0"
    assert data[116:119] == b"abc" and data[119:120] == b"\0"
    assert data[120:126] == b"070701"
    assert b"TRAILER!!!\0" in data[120:]
    assert len(data) % 4 == 0


def test_archive_round_trips_every_kind_of_entry() -> None:
    entries = [
        initramfs.directory("dev"),
        initramfs.char_device("dev/console", 5, 1),
        initramfs.regular("init", bytes(range(256)) * 3),
        initramfs.symlink("bin/sh", "busybox"),
        initramfs.regular("empty", b""),
    ]
    packed = initramfs.initramfs(entries)
    assert packed[:2] == b"\x1f\x8b"
    back = initramfs.parse(gzip.decompress(packed))
    assert back == entries
    # the same entries give the same bytes (fixed times and owners)
    assert initramfs.initramfs(entries) == packed


def test_archive_refuses_absolute_names_and_data_on_a_directory() -> None:
    with pytest.raises(ValueError, match="relative"):
        initramfs.cpio([initramfs.regular("/init", b"x")])
    with pytest.raises(ValueError, match="only files"):
        initramfs.cpio([initramfs.Entry("dev", stat.S_IFDIR | 0o755, b"x")])


# ---- the line protocol -------------------------------------------------------------


def test_fields_are_percent_encoded_both_ways() -> None:
    raw = b"a b\n%\x00\xff{}"
    field = link.encode(raw)
    assert " " not in field and "\n" not in field
    assert field == "a%20b%0A%25%00%FF{}"
    assert link.decode(field) == raw
    assert link.request_line("run", "--set", "k=v w") == b"#rtb run --set k=v%20w\n"


def test_lines_are_classified_and_noise_is_not_a_record() -> None:
    assert link.classify(b'{"v":1}') == link.Event("record", '{"v":1}')
    assert link.classify(b"#rtb exit -9").code == -9  # type: ignore[union-attr]
    assert link.classify(b"#rtb err no%20such").text == "no such"  # type: ignore[union-attr]
    ready = link.classify(b"#rtb ready 1 6.1.0-rt x86_64")
    assert ready is not None and ready.text == "6.1.0-rt" and ready.data == b"x86_64"
    assert link.classify(b"[    1.23] Freeing unused kernel memory") is None
    assert link.classify(b"#rtb exit notanumber") is None
    assert link.classify(b"#rtbx exit 0") is None


class FakeAgent:
    """A scripted agent at the other end of two pipes: `script` maps a request's
    first word to the lines it answers."""

    def __init__(self, answers: Callable[[list[str]], list[bytes]]) -> None:
        host_read, agent_write = os.pipe()
        agent_read, host_write = os.pipe()
        self.host_reader = os.fdopen(host_read, "rb")
        self.host_writer = os.fdopen(host_write, "wb")
        self._out = os.fdopen(agent_write, "wb")
        self._in = os.fdopen(agent_read, "rb")
        self.requests: list[list[str]] = []
        self._answers = answers
        self._lock = threading.Lock()  # a hang-up never closes the pipe under a write
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def say(self, *lines: bytes) -> None:
        """Answer, unless the agent has hung up (a test may end it while it answers)."""
        with self._lock:
            if self._out.closed:
                return
            try:
                for line in lines:
                    self._out.write(line + b"\n")
                self._out.flush()
            except BrokenPipeError:
                return  # the host end is closed: nobody listens any more

    def _serve(self) -> None:
        for raw in self._in:
            words = [link.decode(w).decode() for w in raw.decode().strip().split(" ")[1:]]
            self.requests.append(words)
            lines = self._answers(words)
            if b"<hang up>" in lines:
                self.say(*lines[: lines.index(b"<hang up>")])
                self.hang_up()
                return
            self.say(*lines)

    def hang_up(self) -> None:
        with self._lock:
            self._out.close()


@pytest.fixture
def agent_factory() -> Iterator[Callable[..., tuple[FakeAgent, link.Link]]]:
    made: list[FakeAgent] = []

    def make(answers: Callable[[list[str]], list[bytes]]) -> tuple[FakeAgent, link.Link]:
        agent = FakeAgent(answers)
        made.append(agent)
        return agent, link.Link(agent.host_reader, agent.host_writer, lambda: "QEMU exited")

    yield make
    for agent in made:
        agent.hang_up()


def _drain(stream: link.LinkStream) -> tuple[list[str], Exception]:
    """Every record line until the stream ends, and how it ended."""
    got: list[str] = []
    for _ in range(100):
        try:
            text = stream.read_line(5.0)
        except (EndOfStream, TargetLost) as e:
            return got, e
        if text is not None:
            got.append(text)
    raise AssertionError("the stream never ended")


def _run_answers(words: list[str]) -> list[bytes]:
    if words[0] == "run":
        return [
            b"[  2.0] a kernel message on the shared line",
            b'{"v":1,"type":"meta"}',
            b"#rtb err warning%3A%20slow",
            b'{"v":1,"type":"end"}',
            b"#rtb exit 0",
        ]
    return []


def test_a_run_gives_its_records_its_error_lines_and_its_status(agent_factory) -> None:  # type: ignore[no-untyped-def]
    agent, line = agent_factory(_run_answers)
    stream = link.LinkStream(line, ["run", "--scenario", "a b"], lambda: None)
    got, end = _drain(stream)
    assert isinstance(end, EndOfStream)
    assert got == ['{"v":1,"type":"meta"}', '{"v":1,"type":"end"}']
    assert stream.wait(1.0) == 0
    assert stream.stderr_tail() == "warning: slow\n"
    assert agent.requests == [["run", "run", "--scenario", "a b"]]
    assert line.noise == 1
    stream.close()
    # the link is free again for the next request
    link.LinkStream(line, ["list"], lambda: None).close()


def test_a_closed_line_is_a_lost_target_not_an_end(agent_factory) -> None:  # type: ignore[no-untyped-def]
    _agent, line = agent_factory(
        lambda w: [b'{"v":1,"type":"meta"}', b"<hang up>"] if w[0] == "run" else []
    )
    stream = link.LinkStream(line, ["run"], lambda: None)
    assert stream.read_line(5.0) == '{"v":1,"type":"meta"}'
    _got, end = _drain(stream)
    assert isinstance(end, TargetLost) and str(end) == "QEMU exited"
    stream.close()
    with pytest.raises(TargetLost):
        link.LinkStream(line, ["run"], lambda: None)


def test_a_kill_the_agent_does_not_answer_ends_the_target(agent_factory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(link, "KILL_ANSWER_S", 0.2)
    _agent, line = agent_factory(lambda w: [])  # never answers
    ended = threading.Event()
    stream = link.LinkStream(line, ["run"], ended.set)
    stream.terminate()
    stream.kill()
    assert ended.wait(5.0)
    stream.close()


def test_a_kill_that_is_answered_does_not_end_the_target(agent_factory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(link, "KILL_ANSWER_S", 0.2)
    _agent, line = agent_factory(lambda w: [b"#rtb exit -9"] if w[0] == "kill" else [])
    ended = threading.Event()
    stream = link.LinkStream(line, ["run"], ended.set)
    stream.kill()
    assert stream.wait(5.0) == -9
    time.sleep(0.5)
    assert not ended.is_set()
    stream.close()


def _files(words: list[str]) -> list[bytes]:
    word, args = words[0], words[1:]
    if word == "read" and args == ["/proc/version"]:
        return [b"#rtb data Linux%20version%206.1%0A", b"#rtb done"]
    if word == "list" and args == ["/sys/kernel"]:
        return [b"#rtb data realtime", b"#rtb data tracing", b"#rtb done"]
    if word == "stat" and args == ["/sys/kernel/realtime"]:
        return [b"#rtb done"]
    if word == "exec" and args[1:] == ["uname", "-m"]:
        return [b"#rtb data aarch64%0A", b"#rtb exit 0"]
    if word == "exec":
        return [b"#rtb err cannot%20run", b"#rtb exit 127"]
    return [b"#rtb fail 2 " + link.encode(args[0] if args else "").encode() + b":%20absent"]


def test_the_source_reads_lists_and_runs_on_the_target(agent_factory) -> None:  # type: ignore[no-untyped-def]
    _agent, line = agent_factory(_files)
    source = link.LinkSource(line)
    assert source.read("/proc/version") == "Linux version 6.1"
    assert source.read("/nope") is None
    assert source.listdir("/sys/kernel") == ["realtime", "tracing"]
    assert source.listdir("/nope") is None
    assert source.exists("/sys/kernel/realtime")
    assert not source.exists("/nope")
    assert source.run(["uname", "-m"]) == "aarch64"
    assert source.run(["systemd-detect-virt"]) is None
    assert source.command(["uname", "-m"]) == (0, b"aarch64\n")
    assert source.command(["chrt", "-m"])[0] == 127


def test_an_agent_that_never_answers_is_a_lost_target(agent_factory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _agent, line = agent_factory(lambda w: [])
    with pytest.raises(TargetLost, match="did not answer"):
        line.reply(link.request_line("read", "/x"), timeout_s=0.3)


# ---- Debian indexes ----------------------------------------------------------------

_INDEX = """\
Package: linux-image-rt-amd64
Version: 6.1.170-1
Depends: linux-image-6.1.0-40-rt-amd64 (= 6.1.170-1)

Package: linux-image-rt-amd64
Version: 6.1.176-1
Depends: linux-image-6.1.0-50-rt-amd64 (= 6.1.176-1)
Description: Linux for 64-bit PCs (PREEMPT_RT)
 a continuation line

Package: linux-image-6.1.0-50-rt-amd64
Version: 6.1.176-1
Filename: pool/main/l/linux-signed-amd64/linux-image-6.1.0-50-rt-amd64_6.1.176-1_amd64.deb
SHA256: abc

Package: linux-image-6.1.0-40-rt-amd64
Version: 6.1.170-1
Filename: pool/old.deb
SHA256: def
"""


def test_the_meta_package_resolves_to_its_current_image_package() -> None:
    stanza = debian.resolve(_INDEX, "linux-image-rt-amd64")
    assert stanza["Package"] == "linux-image-6.1.0-50-rt-amd64"
    assert stanza["SHA256"] == "abc"
    with pytest.raises(debian.PackageError):
        debian.resolve(_INDEX, "linux-image-arm64")


def test_control_paragraphs_keep_continuation_lines() -> None:
    paragraphs = list(debian.stanzas(_INDEX))
    assert len(paragraphs) == 4
    assert paragraphs[1]["Description"].endswith("\na continuation line")


def test_the_signed_release_names_each_index_hash() -> None:
    release = "Origin: Debian\nSHA256:\n 0123 456 main/binary-arm64/Packages.xz\n 9 1 other\n"
    assert debian._index_entry(release, "main/binary-arm64/Packages.xz") == ("0123", 456)
    with pytest.raises(debian.PackageError):
        debian._index_entry(release, "main/binary-armhf/Packages.xz")


def test_no_network_is_one_sentence_and_a_usage_status(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(debian.MIRROR_ENV, "http://127.0.0.1:9/debian")
    with pytest.raises(debian.PackageError) as caught:
        debian.ensure_kernel("linux-image-amd64", "amd64", lambda _t: None)
    assert caught.value.exit_status == 2
    message = str(caught.value)
    assert "\n" not in message and "Cannot download" in message and debian.MIRROR_ENV in message
    assert not list((tmp_path / "rtbench" / "guests").glob("**/*.deb"))


# ---- the target's spec and caveats -------------------------------------------------


def test_spec_options() -> None:
    guest, options = parse_spec("qemu:debian-rt-arm64,cpus=4,memory=1024,append=isolcpus=2,3 x=1")
    assert guest.machine == "aarch64" and guest.rt
    assert (options.cpus, options.memory_mib, options.append) == (4, 1024, "isolcpus=2,3 x=1")
    _guest, options = parse_spec("qemu:debian-amd64,icount=3")
    assert (options.cpus, options.icount, options.accel) == (1, 3, "tcg")


@pytest.mark.parametrize(
    "spec",
    [
        "qemu:debian-sparc",
        "qemu:debian-amd64,cpus=0",
        "qemu:debian-amd64,cpus=two",
        "qemu:debian-amd64,colour=red",
        "qemu:debian-amd64,cpus=2,cpus=3",
        "qemu:debian-amd64,accel=xen",
        "qemu:debian-amd64,icount=3,cpus=2",
        "qemu:debian-amd64,icount=3,accel=kvm",
    ],
)
def test_bad_specs_are_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError):
        parse_spec(spec)


def test_tcg_marks_timing_emulated_and_icount_says_instructions() -> None:
    codes = [c["code"] for c in emulation_caveats("tcg", None)]
    assert codes == ["emulated"]
    assert EMULATED_MESSAGE in emulation_caveats("tcg", None)[0]["message"]
    assert emulation_caveats("kvm", None) == []
    icount = emulation_caveats("tcg", 3)[1]
    assert icount["code"] == "icount" and "8 ns per executed instruction" in icount["message"]


def test_kvm_is_not_used_for_another_architecture() -> None:
    other = "aarch64" if os.uname().machine != "aarch64" else "x86_64"
    assert kvm_usable(other) is not None


def test_the_command_line_keeps_the_console_off_the_protocol_port(tmp_path: Path) -> None:
    config = MachineConfig(
        qemu="qemu-system-x86_64",
        machine=["-M", "pc"],
        kernel=tmp_path / "vmlinux",
        initrd=tmp_path / "initrd",
        append="console=ttyS0 rtb.port=ttyS1",
        cpus=1,
        memory_mib=256,
        accel="tcg",
        icount=3,
        console_port=True,
    )
    argv = config.argv(tmp_path)
    serials = [argv[i + 1] for i, a in enumerate(argv) if a == "-serial"]
    assert serials == ["chardev:con", "chardev:rtb"]  # ttyS0: console file, ttyS1: protocol
    assert "stdio,id=rtb,signal=off" in argv
    assert argv[argv.index("-icount") + 1] == "shift=3,align=off,sleep=off"
    assert "-no-reboot" in argv
    assert f"file,id=con,path={tmp_path / 'console.log'}" in argv


def _sysctl(accept: bool) -> Callable[[list[str]], list[bytes]]:
    value = [b"950000"]

    def answer(words: list[str]) -> list[bytes]:
        if words[:2] == ["read", "/proc/sys/kernel/sched_rt_runtime_us"]:
            return [b"#rtb data " + value[0], b"#rtb done"]
        if words[0] == "exec" and words[2:4] == ["sh", "-c"]:
            if not accept:
                return [b"#rtb err permission%20denied", b"#rtb exit 1"]
            value[0] = words[4].split()[1].encode()
            return [b"#rtb exit 0"]
        return [b"#rtb fail 22 what"]

    return answer


def test_guest_tuning_lifts_rt_throttling_and_puts_it_back(agent_factory) -> None:  # type: ignore[no-untyped-def]
    _agent, line = agent_factory(_sysctl(accept=True))
    source = link.LinkSource(line)
    tuning = GuestTuning(lambda: source, dma_latency=True, lift_rt_throttle=True)
    tuning.apply()
    assert source.read("/proc/sys/kernel/sched_rt_runtime_us") == "-1"
    assert tuning.changes[0]["original"] == 950000 and tuning.changes[0]["applied"] == -1
    assert [s["setting"] for s in tuning.skipped] == ["cpu_dma_latency"]
    tuning.restore()
    tuning.restore()  # idempotent
    assert source.read("/proc/sys/kernel/sched_rt_runtime_us") == "950000"
    assert tuning.changes[0]["restored"] is True


def test_guest_tuning_that_the_guest_refuses_is_skipped(agent_factory) -> None:  # type: ignore[no-untyped-def]
    _agent, line = agent_factory(_sysctl(accept=False))
    tuning = GuestTuning(lambda: link.LinkSource(line), dma_latency=False, lift_rt_throttle=True)
    tuning.apply()
    tuning.restore()
    assert tuning.changes == []
    assert tuning.skipped[0]["setting"] == "sched_rt_runtime_us"


class _Guest:
    """What a guest holds for the serial line's settings: files, priorities, CPUs."""

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.files = {
            "/sys/class/tty/ttyS1/irq": "3",
            "/proc/irq/3/smp_affinity_list": "0-1",
        }
        self.agent_cpus = "0-1"
        self.policy = {1: "SCHED_OTHER 0", 98: "SCHED_FIFO 50"}

    def answer(self, words: list[str]) -> list[bytes]:
        word, args = words[0], words[1:]
        if word == "read" and args[0] == "/proc/1/status":
            text = f"Name:\tinit\nCpus_allowed_list:\t{self.agent_cpus}\n"
            return [b"#rtb data " + link.encode(text).encode(), b"#rtb done"]
        if word == "read":
            found = self.files.get(args[0])
            if found is None:
                return [b"#rtb fail 2 absent"]
            return [b"#rtb data " + link.encode(found).encode(), b"#rtb done"]
        argv = args[1:]
        if self.refuse and argv[:2] != ["chrt", "-p"] and argv[:2] != ["sh", "-c"]:
            return [b"#rtb err not%20permitted", b"#rtb exit 1"]
        out = ""
        if argv[:2] == ["sh", "-c"] and argv[2].startswith("for d in /proc"):
            out = "98 irq/3-ttyS1\n"
        elif argv[:2] == ["sh", "-c"]:
            value, path = argv[2].removeprefix("echo ").split(" > ")
            if self.refuse:
                return [b"#rtb exit 1"]
            self.files[path.strip("'")] = value
        elif argv[:2] == ["chrt", "-p"]:
            out = self.policy[int(argv[2])] + "\n"
        elif argv[0] == "chrt":
            policy = "SCHED_FIFO" if argv[1] == "-f" else "SCHED_OTHER"
            self.policy[int(argv[4])] = f"{policy} {argv[3]}"
        elif argv[:3] == ["taskset", "-p", "-c"]:
            self.agent_cpus = argv[3]
        else:
            return [b"#rtb exit 127"]
        data = [b"#rtb data " + link.encode(out).encode()] if out else []
        return [*data, b"#rtb exit 0"]


def test_cpu_lists_are_written_as_the_kernel_writes_them() -> None:
    assert cpu_list([0]) == "0"
    assert cpu_list([3, 0, 2]) == "0,2-3"
    assert cpu_list([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"


def test_the_serial_line_and_the_agent_are_kept_answering_and_put_back(agent_factory) -> None:  # type: ignore[no-untyped-def]
    guest = _Guest()
    _agent, line = agent_factory(guest.answer)
    source = link.LinkSource(line)
    tuning = GuestTuning(
        lambda: source, dma_latency=False, lift_rt_throttle=False,
        serial_port="ttyS1", cpu=1, cpus=2,
    )  # fmt: skip
    tuning.apply()
    assert tuning.skipped == []
    changed = {c["setting"]: (c["original"], c["applied"]) for c in tuning.changes}
    assert changed == {
        "serial_irq_affinity": ("0-1", "0"),
        "serial_irq_thread_priority": ("SCHED_FIFO 50", "SCHED_FIFO 99"),
        "agent_affinity": ("0-1", "0"),
        "agent_priority": ("SCHED_OTHER 0", "SCHED_FIFO 98"),
    }
    assert guest.files["/proc/irq/3/smp_affinity_list"] == "0"
    assert guest.policy == {1: "SCHED_FIFO 98", 98: "SCHED_FIFO 99"}
    assert guest.agent_cpus == "0"
    tuning.restore()
    tuning.restore()  # idempotent
    assert guest.files["/proc/irq/3/smp_affinity_list"] == "0-1"
    assert guest.policy == {1: "SCHED_OTHER 0", 98: "SCHED_FIFO 50"}
    assert guest.agent_cpus == "0-1"
    assert all(c["restored"] is True for c in tuning.changes)


def test_a_fresh_guest_after_a_lost_one_gets_the_settings_again(agent_factory) -> None:  # type: ignore[no-untyped-def]
    first, second = _Guest(), _Guest()
    sources = [link.LinkSource(agent_factory(g.answer)[1]) for g in (first, second)]
    current = [sources[0]]
    tuning = GuestTuning(
        lambda: current[0], dma_latency=False, lift_rt_throttle=False,
        serial_port="ttyS1", cpu=1, cpus=2,
    )  # fmt: skip
    tuning.apply()
    current[0] = sources[1]  # the first guest was lost; a fresh one booted
    tuning.reapply()
    assert second.policy == {1: "SCHED_FIFO 98", 98: "SCHED_FIFO 99"}
    assert len(tuning.changes) == 4  # this guest's, not both
    tuning.restore()
    assert second.policy == {1: "SCHED_OTHER 0", 98: "SCHED_FIFO 50"}
    assert all(c["restored"] is True for c in tuning.changes)


def test_on_one_cpu_only_the_priorities_are_raised(agent_factory) -> None:  # type: ignore[no-untyped-def]
    guest = _Guest()
    guest.files["/proc/irq/3/smp_affinity_list"] = "0"
    guest.agent_cpus = "0"
    _agent, line = agent_factory(guest.answer)
    tuning = GuestTuning(
        lambda: link.LinkSource(line), dma_latency=False, lift_rt_throttle=False,
        serial_port="ttyS1", cpu=0, cpus=1,
    )  # fmt: skip
    tuning.apply()
    assert [c["setting"] for c in tuning.changes] == [
        "serial_irq_thread_priority",
        "agent_priority",
    ]
    tuning.restore()
    assert guest.policy == {1: "SCHED_OTHER 0", 98: "SCHED_FIFO 50"}


def test_serial_line_settings_the_guest_refuses_are_skipped(agent_factory) -> None:  # type: ignore[no-untyped-def]
    guest = _Guest(refuse=True)
    _agent, line = agent_factory(guest.answer)
    tuning = GuestTuning(
        lambda: link.LinkSource(line), dma_latency=False, lift_rt_throttle=False,
        serial_port="ttyS1", cpu=1, cpus=2,
    )  # fmt: skip
    tuning.apply()
    tuning.restore()
    assert tuning.changes == []
    assert [s["setting"] for s in tuning.skipped] == [
        "serial_irq_affinity",
        "serial_irq_thread_priority",
        "agent_affinity",
        "agent_priority",
    ]
    assert guest.policy == {1: "SCHED_OTHER 0", 98: "SCHED_FIFO 50"}


def test_the_elf_kernel_is_found_inside_a_compressed_image(tmp_path: Path) -> None:
    elf = b"\x7fELF" + bytes(range(200)) * 50
    wrapped = b"MZ setup code" + b"\xfd7zXZ\x00 not a stream" + lzma.compress(elf) + b"tail"
    image = tmp_path / "vmlinuz-6.1.0-test"
    image.write_bytes(wrapped)
    found = images.extract_vmlinux(image)
    assert found == tmp_path / "vmlinux-6.1.0-test" and found.read_bytes() == elf
    other = tmp_path / "vmlinuz-other"
    other.write_bytes(b"MZ" + lzma.compress(b"not an ELF file"))
    assert images.extract_vmlinux(other) is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--target", "qemu:debian-sparc"], "Unknown QEMU guest"),
        (["--target", "qemu:debian-amd64,cpus=x"], "whole number"),
        (["--target", "qemu:debian-arm64", "--libc", "musl"], "glibc core"),
    ],
)
def test_bad_qemu_targets_are_one_sentence_before_anything_boots(
    args: list[str], words: str, tmp_path: Path
) -> None:
    done = cli("run", *args, "--out", str(tmp_path / "out"), cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


class _Stalled:
    """A machine whose emulator used `cpu` seconds of CPU so far."""

    def __init__(self, cpu: float) -> None:
        self.cpu = cpu

    def cpu_seconds(self) -> float:
        return self.cpu


class _Board(qemu_base.QemuBase):
    def __init__(self, deterministic: bool) -> None:
        super().__init__("qemu:test", "test", "qemu-system-arm", "test", "core")
        self.deterministic = deterministic

    def shares_host_cpus(self) -> bool:
        return not self.deterministic


def test_a_deterministic_machine_is_watched_on_its_own_progress(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    board = _Board(deterministic=True)
    machine = _Stalled(7.0)  # CPU time of an emulator that has been running a while
    board.machine = machine  # type: ignore[assignment]
    now = [50_000.0]  # the host's clock, long after it started
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    clock = board.transport().progress_clock()
    assert clock is not None
    start = clock()
    assert start == 0.0
    now[0] += 30.0  # the host's clock moves, the emulator got no CPU
    assert clock() - start == pytest.approx(30.0 / qemu_base.WALL_CAP)
    machine.cpu += 20.0  # then it executes: its CPU time is its progress
    assert clock() - start == pytest.approx(20.0)
    now[0] += 400.0  # and stops: the host's clock, slowed, still ends it
    assert clock() - start == pytest.approx(430.0 / qemu_base.WALL_CAP)
    # a machine measured on the host's clock offers none (the host's clock is used)
    assert _Board(deterministic=False).transport().progress_clock() is None
    assert transport.watchdog_clock(_Board(deterministic=False).transport()) is time.monotonic


def test_the_cpu_time_of_a_running_process_is_read() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.process_time() + 0.3\n"
         "while time.process_time() < end: pass\ntime.sleep(30)"],
    )  # fmt: skip
    try:
        fake = machine_mod.Machine.__new__(machine_mod.Machine)
        fake._process = child
        deadline = time.monotonic() + 20.0
        used = fake.cpu_seconds()
        while (used is None or used < 0.25) and time.monotonic() < deadline:
            time.sleep(0.05)
            used = fake.cpu_seconds()
        assert used is not None and 0.25 <= used < 5.0
    finally:
        child.kill()
        child.wait()
    assert fake.cpu_seconds() is None  # gone: nothing to read
