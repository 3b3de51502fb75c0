# SPDX-License-Identifier: Apache-2.0
"""The emulated core of a QEMU guest (`qemu:NAME,cpu=CORE`): the spec, QEMU's
command line, what the result records and `rtbench targets` shows, and how a
guest and an RTOS board on one core are compared under -icount. No boots: the
guests booted for real are in test_qemu_boot.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import cli
from rtbench.compare import groups, model
from rtbench.errors import UsageError
from rtbench.targets.guest import cores, images
from rtbench.targets.guest.machine import MachineConfig
from rtbench.targets.guest.target import QemuTarget, machine_args, parse_spec
from synth import lognormal, write_result

WAKE: tuple[str, str, str | None] = ("sem.signal.unblock", "release", "SEM-P-ARC")


def test_the_armhf_guests_run_on_a_cortex_a15_unless_asked_for_a_cortex_a7() -> None:
    for name in ("debian-armhf", "debian-rt-armhf"):
        guest, options = parse_spec(f"qemu:{name}")
        assert options.cpu_model is None and options.accel is None
        assert machine_args(guest, cores.default_core(guest.deb_arch), None) == [
            "-M", "virt,highmem=off", "-cpu", "cortex-a15",
        ]  # fmt: skip
        guest, options = parse_spec(f"qemu:{name},cpu=cortex-a7,icount=5")
        # an emulated core is TCG's to run: KVM would run the host's
        assert (options.cpu_model, options.accel, options.icount, options.cpus) == (
            "cortex-a7", "tcg", 5, 1,
        )  # fmt: skip


def test_the_command_line_of_a_cortex_a7_guest(tmp_path: Path) -> None:
    guest = images.GUESTS["debian-rt-armhf"]
    config = MachineConfig(
        qemu=guest.qemu,
        machine=machine_args(guest, "cortex-a7", 5),
        kernel=tmp_path / "vmlinuz",
        initrd=tmp_path / "initrd",
        append="console=ttyAMA0",
        cpus=1,
        memory_mib=512,
        accel="tcg",
        icount=5,
        console_port=False,
    )
    argv = config.argv(tmp_path)
    assert argv[0] == "qemu-system-arm"
    assert argv[argv.index("-M") + 1] == "virt,highmem=off"
    assert argv.count("-cpu") == 1 and argv[argv.index("-cpu") + 1] == "cortex-a7"
    assert argv[argv.index("-icount") + 1] == "shift=5,align=off,sleep=off"
    assert argv[argv.index("-smp") + 1] == "1"


def test_arm64_guests_take_their_own_cores() -> None:
    guest, options = parse_spec("qemu:debian-rt-arm64,cpu=cortex-a72")
    assert options.cpu_model == "cortex-a72"
    args = machine_args(guest, "cortex-a72", 3)
    assert args == ["-M", "virt,dtb-randomness=off", "-cpu", "cortex-a72"]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("qemu:debian-armhf,cpu=cortex-a9", "use cpu=cortex-a15 (the default) or cpu=cortex-a7"),
        ("qemu:debian-arm64,cpu=cortex-a7", "not a core the debian-arm64 guest runs on"),
        ("qemu:debian-amd64,cpu=cortex-a7", "use cpu=max (the default)"),
        ("qemu:debian-armhf,cpu=1", "rtbench run --cpu 1"),
        ("qemu:debian-armhf,cpu=cortex-a7,accel=kvm", "KVM runs the host's"),
        ("qemu:debian-armhf,cpu=cortex-a7,cpu=cortex-a15", "Unknown or repeated"),
    ],
)
def test_a_core_the_guest_cannot_run_is_refused(spec: str, words: str) -> None:
    with pytest.raises(UsageError, match=r"\.$") as refused:
        parse_spec(spec)
    assert words in str(refused.value)


def test_the_target_records_its_core_and_whether_it_was_asked_for() -> None:
    asked = QemuTarget("qemu:debian-armhf,cpu=cortex-a7")
    assert asked.cpu_model == "cortex-a7"
    accel, reason = asked._choose_accel()
    assert (accel, reason) == ("tcg", "cpu=cortex-a7 asks for an emulated core")
    described = QemuTarget("qemu:debian-rt-armhf").describe()
    assert (described["cpu"], described["cpu_choice"]) == ("cortex-a15", "default")
    described = asked.describe()
    assert (described["cpu"], described["cpu_choice"]) == ("cortex-a7", "spec")


def test_a_bad_core_is_one_sentence_and_status_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = cli(
        "run", "--target", "qemu:debian-armhf,cpu=cortex-a8", "--out", str(out),
        cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cpu=cortex-a8" in lines[0] and "Traceback" not in done.stderr
    assert not out.exists()


def test_rtbench_targets_names_each_guests_default_core(tmp_path: Path) -> None:
    done = cli("targets", cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("qemu:NAME["))
    assert "cpu=CORE" in line
    assert "armhf guests cpu=cortex-a15 (default)|cortex-a7" in line
    assert "arm64 guests cpu=cortex-a53 (default)|cortex-a57|cortex-a72" in line


# ---- a guest and the RTOSes on one core, compared ----------------------------------


def _info(spec: str, shift: int | None, **machine: str) -> dict[str, Any]:
    return {
        "kind": "qemu",
        "spec": spec,
        **machine,
        "emulator": "qemu-system-arm",
        "emulator_version": "7.2.22",
        "accel": "tcg",
        "emulated": True,
        "icount_shift": shift,
        "deterministic": None if shift is None else {"icount_shift": shift},
    }


def _guest(shift: int | None, cpu: str = "cortex-a7") -> dict[str, Any]:
    spec = f"qemu:debian-rt-armhf,cpu={cpu}"
    return _info(spec, shift, guest="debian-rt-armhf", arch="armv7l", cpu=cpu)


def _board(rtos: str, shift: int | None) -> dict[str, Any]:
    spec = f"qemu:{rtos}-virt-a7"
    return _info(spec, shift, board="virt-a7", arch="armv7l", cpu="cortex-a7")


def _comparison(tmp_path: Path, infos: list[dict[str, Any]]) -> model.Comparison:
    paths = []
    for index, info in enumerate(infos):
        run = {"target": info["spec"], "target_info": info}
        metrics = {WAKE: lognormal(index + 1, 2000, 3000 + 500 * index)}
        paths.append(write_result(tmp_path / f"s{index}", metrics, run=run))
    return model.build(model.load_systems(paths))


def test_linux_and_the_rtoses_on_one_core_under_icount_are_one_group(tmp_path: Path) -> None:
    c = _comparison(tmp_path, [_guest(5), _board("freertos", 5), _board("threadx", 5)])
    assert [g.members for g in c.groups] == [(0, 1, 2)]
    assert c.groups[0].rated and c.groups[0].label.startswith("emulated cortex-a7, -icount shift=5")
    assert all(d is not None for d in c.metrics[0].differences[1:])
    # the same unit, but the guest's figures do not repeat: statistics, not exact
    assert not c.exact_with(1)
    assert any("same emulated core (cortex-a7, -icount shift=5" in n for n in c.notes)
    assert not any("different emulated machines" in w for w in c.warnings)


def test_another_core_or_shift_or_the_wall_clock_is_another_group(tmp_path: Path) -> None:
    infos = [_guest(5, "cortex-a15"), _guest(3), _guest(None), _board("ucos3", 5)]
    c = _comparison(tmp_path, infos)
    assert [g.members for g in c.groups] == [(0,), (1,), (2,), (3,)]
    assert [g.kind for g in c.groups][2] == groups.WALL_CLOCK
    assert all(d is None for d in c.metrics[0].differences[1:])
