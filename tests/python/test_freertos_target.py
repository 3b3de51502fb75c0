# SPDX-License-Identifier: Apache-2.0
"""The `qemu:freertos-mps2-an385` target against a stand-in for QEMU and the image
(fake_freertos.py, started through RTBENCH_FIRMWARE_QEMU): what it needs, what it
refuses, what it records, deterministic mode, and a lost image. The real image
is exercised in test_freertos_image.py."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, RunCli, read_results
from rtbench import targets
from rtbench.errors import UsageError
from rtbench.model.results import RESULTS_FILE
from rtbench.paths import ROOT
from rtbench.targets.firmware import image as fw_image
from rtbench.targets.firmware import sources as fw_sources
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS
from rtbench.targets.qemu.process import GuestError
from target_kinds import refusal, why_not_usable

FAKE = Path(__file__).parent / "fake_freertos.py"
SPEC = "qemu:freertos-mps2-an385"


def _checkout(
    folder: Path, version: str | None = "V11.1.0 dbf70559b27d39c1fdb68dfb9a32140b6a6777a0"
) -> Path:
    """A folder that looks like a FreeRTOS-Kernel checkout (the files the build needs)."""
    for name in (
        "tasks.c",
        "queue.c",
        "include/task.h",
        "portable/GCC/ARM_CM3/port.c",
        "portable/MemMang/heap_4.c",
    ):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("")
    (folder / "include" / "task.h").write_text('#define tskKERNEL_VERSION_NUMBER "V10.9.9"\n')
    if version is not None:
        (folder / "VERSION").write_text(version + "\n")
    return folder


@pytest.fixture
def fake_env(core_binary: Path, tmp_path: Path) -> dict[str, str]:
    """The environment that boots the stand-in instead of QEMU and the image."""
    image = tmp_path / "image.elf"
    image.write_bytes(b"\x7fELF")
    kernel = _checkout(tmp_path / "FreeRTOS-Kernel")
    return {
        fw_target.EMULATOR_ENV: f"{sys.executable} {FAKE}",
        FREERTOS.image_env: str(image),
        FREERTOS.source_env: str(kernel),
        "FAKE_FREERTOS_CORE": str(core_binary),
        "FAKE_FREERTOS_LOG": str(tmp_path / "starts.jsonl"),
    }


def _starts(env: dict[str, str]) -> list[list[str]]:
    path = Path(env["FAKE_FREERTOS_LOG"])
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---- what it needs ---------------------------------------------------------------


def test_without_the_kernel_the_kind_is_not_ready_and_says_how_to_get_it(
    run_cli: RunCli, tmp_path: Path
) -> None:
    env = {FREERTOS.source_env: ""}
    why_not = why_not_usable(run_cli, "freertos", env)
    assert "FREERTOS_KERNEL_PATH is not set" in why_not
    assert "https://github.com/FreeRTOS/FreeRTOS-Kernel" in why_not
    assert "V11.1.0" in why_not
    done = run_cli("run", "--target", SPEC, "--out", str(tmp_path / "r"), env=env)
    assert "FREERTOS_KERNEL_PATH is not set" in refusal(done)
    assert not (tmp_path / "r").exists()


def test_a_folder_that_is_not_a_kernel_checkout_is_named(run_cli: RunCli, tmp_path: Path) -> None:
    env = {FREERTOS.source_env: str(tmp_path)}
    done = run_cli("run", "--target", SPEC, "--out", str(tmp_path / "r"), env=env)
    assert f"{tmp_path} is not a FreeRTOS-Kernel checkout (it has no tasks.c)" in refusal(done)


def test_a_missing_emulator_is_named_with_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FREERTOS.image_env, str(_checkout(tmp_path) / "tasks.c"))
    monkeypatch.delenv(fw_target.EMULATOR_ENV, raising=False)
    assert fw_image.missing(Path("/"), FREERTOS, "no-such-qemu-system-arm") == (
        "no-such-qemu-system-arm is not installed (apt-get install qemu-system-arm)"
    )
    assert fw_image.missing(Path("/"), FREERTOS, sys.executable) is None


def test_the_kernel_release_comes_from_version_then_the_header(tmp_path: Path) -> None:
    with_version = FREERTOS.read_release(_checkout(tmp_path / "a"))
    assert (with_version.tag, with_version.read_from) == ("V11.1.0", "VERSION")
    assert with_version.commit == "dbf70559b27d39c1fdb68dfb9a32140b6a6777a0"
    bare = FREERTOS.read_release(_checkout(tmp_path / "b", version=None))
    assert (bare.tag, bare.commit, bare.read_from) == ("V10.9.9", None, "include/task.h")


def test_the_build_folder_is_keyed_by_checkout_release_and_configuration(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    a = fw_sources.SourceCheckout(tmp_path / "k", "V11.1.0", "abc", "VERSION")
    b = fw_sources.SourceCheckout(tmp_path / "k", "V11.0.0", "def", "VERSION")
    folder = fw_image.build_dir(root, FREERTOS, a, None, "mps2-an385")
    assert folder == fw_image.build_dir(root, FREERTOS, a, None, "mps2-an385")
    assert folder != fw_image.build_dir(root, FREERTOS, b, None, "mps2-an385")
    assert folder != fw_image.build_dir(root, FREERTOS, a, tmp_path / "cfg", "mps2-an385")


def test_checks_on_builds_the_checked_configuration_in_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fw_target.parse_spec(SPEC)[2:4] == (fw_target.DETERMINISTIC_SHIFT, ())  # exact
    assert fw_target.parse_spec(SPEC + ",checks=off,icount=off")[2:4] == (None, ())
    assert fw_target.parse_spec(SPEC + ",checks=on,icount=3")[2:4] == (3, (("checks", "on"),))
    monkeypatch.delenv(FREERTOS.config_env, raising=False)
    assert fw_image.chosen_config(ROOT, FREERTOS, ()) == (None, [])  # the production one
    checked, extra = fw_image.chosen_config(ROOT, FREERTOS, (("checks", "on"),))
    assert checked == ROOT / "ports" / "freertos" / "config-checked" and extra == []
    assert checked is not None and (checked / "FreeRTOSConfig.h").is_file()
    kernel = fw_sources.SourceCheckout(tmp_path / "k", "V11.1.0", "abc", "VERSION")
    production_dir = fw_image.build_dir(ROOT, FREERTOS, kernel, None, "mps2-an385")
    assert production_dir != fw_image.build_dir(ROOT, FREERTOS, kernel, checked, "mps2-an385")
    # a folder of one's own and checks=on are two configurations: refused
    (tmp_path / "FreeRTOSConfig.h").write_text("")
    monkeypatch.setenv(FREERTOS.config_env, str(tmp_path))
    assert fw_image.chosen_config(ROOT, FREERTOS, ())[0] == tmp_path.resolve()
    with pytest.raises(UsageError, match="give one of them"):
        fw_image.chosen_config(ROOT, FREERTOS, (("checks", "on"),))


# ---- what it refuses ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("qemu:freertos-lm3s6965", "Unknown FreeRTOS board"),
        ("qemu:freertos-mps2-an385,cpus=2", "it takes icount=SHIFT"),
        ("qemu:freertos-mps2-an385,icount=11", "from 0 to 10"),
        ("qemu:freertos-mps2-an385,icount=on", "must be off or a whole number"),
        ("qemu:freertos-mps2-an385,icount=3,icount=4", "Unknown or repeated"),
        ("qemu:freertos-mps2-an385,checks=yes", "must be off or on"),
        ("qemu:freertos-mps2-an385,checks=on,checks=off", "Unknown or repeated"),
    ],
)
def test_bad_specs_are_one_sentence(spec: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        targets.parse(spec)


def test_the_board_has_one_cpu() -> None:
    target = targets.parse(SPEC)
    assert target.check_cpu(None) == 0
    assert target.check_cpu(0) == 0
    with pytest.raises(UsageError, match=r"^CPU 1 does not exist on the mps2-an385 board"):
        target.check_cpu(1)


def test_cpu_1_on_the_command_line_is_a_usage_error(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    done = run_cli(
        "run", "--target", SPEC, "--cpu", "1", "--out", str(tmp_path / "r"), env=fake_env
    )
    assert done.returncode == 2
    assert "CPU 1 does not exist on the mps2-an385 board, which has one CPU (0)." in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r" / RESULTS_FILE).exists()


def test_deterministic_is_refused_for_local_and_ssh(run_cli: RunCli, tmp_path: Path) -> None:
    for spec in ("local", "ssh://root@board.invalid"):
        done = run_cli("run", "--target", spec, "--deterministic", "--out", str(tmp_path / "r"))
        assert "--deterministic needs an emulated target" in refusal(done)
        assert not (tmp_path / "r").exists()


def test_deterministic_sets_icount_on_debian_guests_too() -> None:
    target = targets.parse("qemu:debian-amd64", deterministic=True)
    info = target.describe()
    assert info["icount_shift"] == 3 and info["cpus"] == 1
    assert info["deterministic"]["qemu_option"] == "shift=3,align=off,sleep=off"
    assert targets.parse("qemu:debian-amd64").describe()["deterministic"] is None
    with pytest.raises(UsageError, match="needs one CPU"):
        targets.parse("qemu:debian-amd64,cpus=2", deterministic=True)
    given = targets.parse("qemu:debian-amd64,icount=4", deterministic=True)
    assert given.describe()["icount_shift"] == 4


# ---- a run on the stand-in -----------------------------------------------------------


def test_a_run_records_the_image_its_kernel_and_no_settings(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = run_cli(
        "run",
        "--target",
        SPEC + ",icount=off",
        "--only",
        "sem.wait.block",
        "--out",
        str(out),
        env=fake_env,
    )
    assert done.returncode == 0, done.stderr
    data = read_results(out)
    info = data["run"]["target_info"]
    assert info["icount_choice"] == "off"
    assert info["os"] == "FreeRTOS" and info["board"] == "mps2-an385"
    assert info["freertos_kernel"]["tag"] == "V11.1.0"
    assert info["freertos_kernel"]["commit"] == "dbf70559b27d39c1fdb68dfb9a32140b6a6777a0"
    assert info["emulated"] is True and info["deterministic"] is None
    host = data["host"]
    assert host["kernel"]["system"] == "FreeRTOS" and host["kernel"]["release"] == "V11.1.0"
    assert host["freertos"]["config"]["configTICK_RATE_HZ"] == 1000
    assert host["cpus"]["model"] == "cortex-m3"
    assert data["settings"]["changes"] == []
    assert [s["setting"] for s in data["settings"]["skipped"]] == ["cpu_dma_latency"]
    statuses = {s["name"]: s["status"] for s in data["scenarios"]}
    assert statuses == {"cal.timestamp": "ok", "sem.wait.block": "ok"}
    # the stand-in checkout's files are not V11.1.0's: its sources are modified
    kernel = info["freertos_kernel"]
    digest = fw_sources.digest(
        Path(kernel["path"]),
        fw_sources.files_built(
            Path(kernel["path"]), FREERTOS.digest_files, FREERTOS.built_dirs("armv7m")
        ),
    )
    assert kernel["digest"] == digest != FREERTOS.known_digests["armv7m"]["V11.1.0"]
    assert kernel["modified"] is True
    assert host["kernel"]["checkout"] == kernel
    said = f"kernel checkout V11.1.0 dbf70559b27d, sources {digest[:12]} modified"
    assert said in done.stdout
    shown = run_cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    assert said in shown.stdout
    assert said in (out / "report.html").read_text()
    assert "DETERMINISTIC" not in done.stdout
    (argv,) = _starts(fake_env)
    assert "-icount" not in argv  # the negative control of the test below
    assert argv[argv.index("-M") + 1] == "mps2-an385" and "-no-reboot" in argv


PRODUCTION_LINE = (
    "FreeRTOS V11.1.0, production configuration: tick 1000 Hz, preemption on, time slicing "
    "on, optimised task selection off, tickless idle off, run-time stats off, asserts off, "
    "stack check off"
)


def _words(text: str) -> str:
    return " ".join(text.split())


def test_every_report_shows_the_configuration_the_image_reports(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    env = {**fake_env, "FAKE_FREERTOS_CONFIG": "production"}
    done = run_cli("run", "--target", SPEC, "--only", "sem.wait.block", "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    data = read_results(out)  # os_config is valid against the schema
    meta = next(s["meta"] for s in data["scenarios"] if s.get("meta"))
    assert meta["os_config"]["name"] == "production"
    assert PRODUCTION_LINE in _words(done.stdout)  # the first screen, wrapped, not cut
    shown = run_cli("show", str(out))
    assert PRODUCTION_LINE in _words(shown.stdout)
    details = run_cli("show", str(out), "--details")
    assert "asserts off (configASSERT)" in _words(details.stdout)
    html = (out / "report.html").read_text()
    assert "production configuration: tick 1000 Hz" in html
    assert "asserts off, stack check off" in html
    markdown = run_cli("show", str(out), "--format", "markdown")
    assert "production configuration: tick 1000 Hz" in markdown.stdout


def test_compare_lists_the_os_configuration_differences(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    outs = []
    for kind, spec in (("production", SPEC), ("checked", SPEC + ",checks=on")):
        out = tmp_path / kind
        env = {**fake_env, "FAKE_FREERTOS_CONFIG": kind}
        done = run_cli(
            "run", "--target", spec, "--only", "cal.timestamp", "--out", str(out), env=env
        )
        assert done.returncode == 0, done.stderr
        outs.append(str(out))
    done = run_cli("compare", *outs)
    assert done.returncode == 0, done.stderr
    text = _words(done.stdout)
    assert "Configuration differences" in text
    assert "OS configuration differs: A production, B checked." in text
    assert "OS setting asserts (configASSERT) differs: A off, B on." in text
    assert (
        "OS setting stack check (configCHECK_FOR_STACK_OVERFLOW) differs: A off, B method 2."
        in text
    )
    assert "OS setting time slicing" not in text  # the same in both: no difference


def test_deterministic_runs_the_board_on_instructions_and_says_so(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = run_cli(
        "run", "--target", SPEC, "--deterministic", "--only", "sem.wait.block",
        "--out", str(out), env=fake_env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (argv,) = _starts(fake_env)
    assert argv[argv.index("-icount") + 1] == "shift=5,align=off,sleep=off"
    data = read_results(out)
    assert data["run"]["target_info"]["deterministic"] == {
        "icount_shift": 5,
        "ns_per_instruction": 32,
        "qemu_option": "shift=5,align=off,sleep=off",
    }
    assert "icount" in [c["code"] for c in data["caveats"]]
    assert "DETERMINISTIC (-icount shift=5)" in done.stdout
    assert "DETERMINISTIC" in (out / "report.html").read_text()


def test_a_crashed_image_loses_one_unit_and_the_next_runs_in_a_fresh_boot(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    env = {**fake_env, "FAKE_FREERTOS_MODE": "crash:sem.wait.block"}
    done = run_cli(
        "run", "--target", SPEC, "--only", "sem.wait.block", "sem.wait.available",
        "--out", str(out), env=env,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    statuses = {s["name"]: s["status"] for s in read_results(out)["scenarios"]}
    assert statuses["sem.wait.block"] == "lost"
    assert statuses["sem.wait.available"] == "ok"
    assert len(_starts(env)) == 2
    assert read_results(out)["run"]["target_info"]["boots"] == 2


def test_a_hung_image_is_ended_by_the_watchdog_and_the_run_goes_on(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    env = {
        **fake_env,
        "FAKE_FREERTOS_MODE": "hang:sem.wait.block",
        "RTBENCH_DEADLINE_SCALE": "0.0001",
    }
    done = run_cli(
        "run", "--target", SPEC, "--only", "sem.wait.block", "sem.wait.available",
        "--out", str(out), env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    scenarios = {s["name"]: s for s in read_results(out)["scenarios"]}
    assert scenarios["sem.wait.block"]["status"] == "lost"
    assert "did not answer a kill" in scenarios["sem.wait.block"]["reason"]
    assert scenarios["sem.wait.available"]["status"] in ("ok", "timeout")
    assert len(_starts(env)) == 2


def _target(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> fw_target.FirmwareTarget:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    target = targets.parse(SPEC)
    assert isinstance(target, fw_target.FirmwareTarget)
    target.boot_timeout_s = 2.0
    return target


def test_an_image_that_never_says_ready_is_one_sentence(
    fake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _target({**fake_env, "FAKE_FREERTOS_MODE": "noboot"}, monkeypatch)
    try:
        with pytest.raises(GuestError, match=r"did not boot \(no answer within 2 s\)"):
            target.open(lambda _text: None)
        assert target.machine is None
    finally:
        target.close()


def test_an_image_of_another_board_is_refused(
    fake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _target({**fake_env, "FAKE_FREERTOS_MODE": "wrong"}, monkeypatch)
    try:
        with pytest.raises(GuestError, match="says it is cortex-m0, not mps2-an385"):
            target.open(lambda _text: None)
    finally:
        target.close()


def test_system_describes_the_image(run_cli: RunCli, fake_env: dict[str, str]) -> None:
    done = run_cli("system", "--target", SPEC, env=fake_env)
    assert done.returncode == 0, done.stderr
    assert "FreeRTOS V11.1.0 (GCC/ARM_CM3)" in done.stdout
    assert re.search(r"configUSE_PREEMPTION:\s+1\n", done.stdout)
    assert "V11.1.0 dbf70559b27d39c1fdb68dfb9a32140b6a6777a0" in done.stdout
    assert re.search(
        r"kernel sources:\s+digest [0-9a-f]{64}, modified \(the digest differs from "
        r"FreeRTOS V11.1.0's\)\n",
        done.stdout,
    )


# ---- this machine and the board in one run ------------------------------------------


def test_two_targets_are_measured_and_compared(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "both"
    done = run_cli(
        "run", "--target", "local", "--target", SPEC, "--only", "cal.timestamp",
        "--out", str(out), env=fake_env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    local, board = out / "local", out / "qemu-freertos-mps2-an385"
    assert read_results(local)["run"]["target"] == "local"
    assert read_results(board)["run"]["target"] == SPEC
    cmp = out / "comparison"
    assert f"comparison: {cmp / 'comparison.html'}" in done.stdout
    assert "rtbench compare: 2 results, baseline A" in done.stdout
    markdown = (cmp / "comparison.md").read_text()
    assert f"**A**: {local}," in markdown and f"**B**: {board}," in markdown
    # the targets are what is compared, named once, not a configuration warning
    assert f"- target: A local, B {SPEC}, -icount shift=5." in markdown
    assert "origin differs" not in markdown
    rows = list(csv.DictReader((cmp / "comparison.csv").read_text().splitlines()))
    # cal.timestamp's overheads (a timed call's and an inline pair's), each once
    # per system
    by_metric: dict[str, list[tuple[str, str, str]]] = {}
    for r in rows:
        by_metric.setdefault(r["metric"], []).append((r["scenario"], r["system"], r["path"]))
    assert len(by_metric) == 2, by_metric
    for metric, found in by_metric.items():
        assert found == [("cal.timestamp", "A", str(local)), ("cal.timestamp", "B", str(board))], (
            metric
        )
    # this machine's clock and the board's instructions: shown, never tested
    assert {r["outcome"] for r in rows if r["system"] == "A"} == {"baseline"}
    assert {r["outcome"] for r in rows if r["system"] == "B"} == {"not compared"}
    assert str(board) in (cmp / "comparison.html").read_text()


def test_two_targets_never_overwrite_an_earlier_run(
    run_cli: RunCli, fake_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "both"
    (out / "local").mkdir(parents=True)
    stored = (FIXTURES / "results-quick" / RESULTS_FILE).read_bytes()
    (out / "local" / RESULTS_FILE).write_bytes(stored)
    done = run_cli(
        "run", "--target", SPEC, "--target", "local", "--only", "cal.timestamp",
        "--out", str(out), env=fake_env,
    )  # fmt: skip
    assert f"{out / 'local'} already holds {RESULTS_FILE}" in refusal(done)
    assert (out / "local" / RESULTS_FILE).read_bytes() == stored
    assert sorted(p.name for p in out.iterdir()) == ["local"]  # the board did not run either
    assert _starts(fake_env) == []
    # nor over the comparison of an earlier run
    (out / "local" / RESULTS_FILE).unlink()
    (out / "comparison").mkdir()
    (out / "comparison" / "comparison.html").write_text("kept")
    done = run_cli(
        "run", "--target", SPEC, "--target", "local", "--only", "cal.timestamp",
        "--out", str(out), env=fake_env,
    )  # fmt: skip
    assert f"{out / 'comparison'} already holds a comparison" in refusal(done)
    assert (out / "comparison" / "comparison.html").read_text() == "kept"
    assert _starts(fake_env) == []
