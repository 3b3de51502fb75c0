# SPDX-License-Identifier: Apache-2.0
"""Every bad input: exit status 2, one line on stderr, no traceback, nothing damaged."""

import argparse
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURES, RunCli, fake_core_env
from rtbench import cli as rtbench_cli
from rtbench.errors import UsageError
from rtbench.run.cpulock import LOCK_DIR_ENV, CpuLock
from rtbench.ui import attach_signed_values


def assert_one_line_error(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].strip()
    # one style everywhere: `rtbench <command>: <sentence>`
    assert re.match(r"^rtbench( [a-z]+)?: \S", lines[0]), lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ("frobnicate",),
        ("run", "--profile", "bogus"),
        ("run", "--only", "no.such.thing*"),
        ("run", "--cpu", "4096"),
        ("run", "--cpu", "one"),
        ("run", "--set", "novalue"),
        ("run", "--set", "=3"),
        ("run", "--raw-max", "-1"),
        ("run", "--set", "nosuchkey=5"),
        ("run", "--set", "iterations=abc"),
        ("run", "--set", "iterations=0"),
        ("run", "--only", "mut.*", "--set", "mut.behavior.pi.protocol=maybe"),
        ("run", "--unknown-flag"),
        ("system", "--cpu", "4096"),
        ("show",),
    ],
)
def test_bad_arguments(run_cli: RunCli, args: tuple[str, ...]) -> None:
    assert_one_line_error(run_cli(*args))


def test_unknown_profile_says_which_exist(run_cli: RunCli) -> None:
    done = run_cli("run", "--profile", "bogus")
    assert "quick" in done.stderr and "bogus" in done.stderr


def test_unknown_pattern_creates_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("run", "--only", "nope", "--out", str(tmp_path / "new"))
    assert_one_line_error(done)
    assert not (tmp_path / "new").exists()
    assert not (tmp_path / "results").exists()


def test_out_that_is_a_file(run_cli: RunCli, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("keep me")
    assert_one_line_error(run_cli("run", "--out", str(target)))
    assert target.read_text() == "keep me"


def test_out_under_a_file(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert_one_line_error(run_cli("run", "--out", str(tmp_path / "file" / "sub")))


def test_unwritable_out(run_cli: RunCli) -> None:
    # Not even root can create folders in /proc.
    assert_one_line_error(run_cli("run", "--out", "/proc/rtbench-results"))


def test_existing_results_are_never_overwritten(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "old"
    out.mkdir()
    original = (FIXTURES / "results-quick" / "results.json").read_bytes()
    (out / "results.json").write_bytes(original)
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()}
    done = run_cli("run", "--out", str(out))
    assert_one_line_error(done)
    assert "already holds" in done.stderr
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.iterdir()}
    assert after == before


def test_bad_deadline_scale_hook(run_cli: RunCli) -> None:
    assert_one_line_error(run_cli("run", env={"RTBENCH_DEADLINE_SCALE": "fast"}))


def test_core_override_must_exist(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("list", env={"RTBENCH_CORE": str(tmp_path / "none")}))


def _stored(tmp_path: Path, text: str) -> Path:
    out = tmp_path / "stored"
    out.mkdir()
    (out / "results.json").write_text(text)
    return out


def _fixture_data() -> dict[str, object]:
    data = json.loads((FIXTURES / "results-quick" / "results.json").read_text())
    assert isinstance(data, dict)
    return data


def test_show_missing_directory(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("show", str(tmp_path / "nothing")))


def test_show_directory_without_results(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("show", str(tmp_path)))


def test_show_not_json(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("show", str(_stored(tmp_path, "hello, world"))))


def test_show_truncated(run_cli: RunCli, tmp_path: Path) -> None:
    text = (FIXTURES / "results-quick" / "results.json").read_text()
    done = run_cli("show", str(_stored(tmp_path, text[: len(text) // 2])))
    assert_one_line_error(done)
    assert "truncated" in done.stderr


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [("schema_version", 99, "version 99"), ("protocol_version", 2, "protocol version 2")],
    ids=["wrong_schema_version", "other_protocol_version"],
)
def test_show_a_version_it_does_not_read(
    run_cli: RunCli, tmp_path: Path, field: str, value: int, words: str
) -> None:
    data = _fixture_data()
    data[field] = value
    done = run_cli("show", str(_stored(tmp_path, json.dumps(data))))
    assert_one_line_error(done)
    assert words in done.stderr


def test_show_schema_invalid(run_cli: RunCli, tmp_path: Path) -> None:
    data = _fixture_data()
    del data["run"]
    assert_one_line_error(run_cli("show", str(_stored(tmp_path, json.dumps(data)))))


def test_show_other_json(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("show", str(_stored(tmp_path, "[1, 2, 3]"))))


def test_show_unreadable(run_cli: RunCli, tmp_path: Path) -> None:
    # A directory named results.json cannot be read as a file, even by root.
    out = tmp_path / "stored"
    (out / "results.json").mkdir(parents=True)
    assert_one_line_error(run_cli("show", str(out)))


def test_show_good_fixture(run_cli: RunCli) -> None:
    done = run_cli("show", str(FIXTURES / "results-quick"))
    assert done.returncode == 0, done.stderr
    assert "sem.signal.unblock release" in done.stdout
    assert done.stderr == ""


def test_nothing_implemented_is_refused(run_cli: RunCli, core_binary: Path, tmp_path: Path) -> None:
    # A build without sem.create: asking only for it would measure nothing.
    env = fake_core_env(core_binary, "hide", "sem.create")
    done = run_cli("run", "--only", "sem.create", "--out", str(tmp_path / "r"), env=env)
    assert_one_line_error(done)
    assert "nothing would be measured" in done.stderr
    assert not (tmp_path / "r").exists()


def test_second_run_on_the_same_cpu_is_refused(
    run_cli: RunCli, measurement_cpu: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locks = tmp_path / "locks"
    locks.mkdir()
    monkeypatch.setenv(LOCK_DIR_ENV, str(locks))
    holder = CpuLock(measurement_cpu)
    holder.acquire()
    try:
        out = tmp_path / "second"
        args = ("run", "--cpu", str(measurement_cpu), "--only", "cal.timestamp")
        done = run_cli(*args, "--out", str(out), env={LOCK_DIR_ENV: str(locks)})
        assert_one_line_error(done)
        expected = f"CPU {measurement_cpu} is in use by another rtbench run (process {os.getpid()})"
        assert expected in done.stderr
        assert not out.exists()
    finally:
        holder.release()
    # released, the lock can be taken again (by this process or the next run)
    with CpuLock(measurement_cpu) as again:
        again.acquire()


def test_no_command_prints_the_usage(run_cli: RunCli) -> None:
    done = run_cli()
    assert done.returncode == 2
    assert done.stderr.startswith("usage: rtbench")
    assert "Traceback" not in done.stderr


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 96 KiB file system: room for results.json, not for raw samples."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_full_disk_is_one_sentence_and_keeps_what_was_stored(
    run_cli: RunCli, tiny_disk: Path
) -> None:
    out = tiny_disk / "r"
    done = run_cli("run", "--only", "sem.wait.available", "--out", str(out))
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("rtbench run: ") and "No space left on device" in last
    assert "what was stored before is intact" in last
    data = json.loads((out / "results.json").read_text())
    assert data["run"]["complete"] is False
    assert data["scenarios"], "what ran before the disk filled is stored"


def test_unknown_option_names_the_valid_keys(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("run", "--only", "sem.*", "--set", "nosuchkey=5", "--out", str(tmp_path / "r"))
    assert_one_line_error(done)
    assert "nosuchkey" in done.stderr and "waiters" in done.stderr
    assert not (tmp_path / "r").exists()


def test_list_options_describes_every_declared_option(run_cli: RunCli) -> None:
    done = run_cli("list", "--options")
    assert done.returncode == 0, done.stderr
    assert "mut.behavior.pi.protocol" in done.stdout and "inherit|none" in done.stdout
    assert "iterations" in done.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("run", "--duration", "-5s"), "--duration '-5s' must be a positive duration"),
        (("run", "--duration=-5s"), "--duration '-5s' must be a positive duration"),
        (("run", "--dur", "-5s"), "--duration '-5s' must be a positive duration"),
        (("run", "--duration", "-0.5s"), "--duration '-0.5s' must be a positive duration"),
        (("run", "--duration", "0s"), "--duration '0s' must be a positive duration"),
        (("run", "--length", "-1h"), "--length '-1h' must be a positive duration"),
        (("run", "--length=-1h"), "--length '-1h' must be a positive duration"),
        (("run", "--length", "0m"), "--length '0m' must be a positive duration"),
        (("run", "--cpu", "-1x"), "'-1x' is not a whole number"),
        (("system", "--cpu", "-1x"), "'-1x' is not a whole number"),
        (("run", "--raw-max", "-5k"), "'-5k' is not a whole number"),
        (("run", "--raw-max", "200000000"), "'200000000' is more than the core keeps"),
        (("run", "--cpus", "-1,2"), "--cpus '-1,2' is not 'all' or a list"),
        (("run", "--cpus", "-1-2"), "--cpus '-1-2' is not 'all' or a list"),
        (("compare", "ONE", "ONE", "--min-change", "-5%"), "'-5%' is not between 0 and 100"),
        (("run", "--require", "timer.periodic.latency:max<=-5us"), "-5us is no limit"),
        (("run", "--require", "timer.periodic.latency:p99<0ns"), "could never be met"),
        (("run", "--require", "missed_periods>=-1"), "a count, never below 0"),
        (("run", "--require", "late_wakes<0"), "could never be met"),
        (("run", "--target", "ssh://root@127.0.0.1:0"), "names port 0"),
    ],
)
def test_bad_numbers_are_one_sentence_that_names_them(
    run_cli: RunCli, tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    one = FIXTURES / "results-quick"
    if args[0] == "run":  # should a value pass unchecked, the run stays short
        args = (*args, "--only", "timer.periodic.latency", "--out", str(tmp_path / "r"))
    done = run_cli(*(str(one) if a == "ONE" else a for a in args))
    assert_one_line_error(done)
    assert says in done.stderr
    assert not (tmp_path / "r").exists()


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command's parser, with the words that name it (`trace export`)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _commands(sub, (*path, name))


def test_every_option_takes_a_value_that_starts_with_minus_and_a_digit() -> None:
    # argparse reads '-5x' as an option of its own unless the word is a plain negative
    # number; every option that takes one value must get it and check it instead.
    parser = rtbench_cli.build_parser()
    given: dict[tuple[str, ...], list[str]] = {
        ("compare",): ["A"],
        ("show",): ["A"],
        ("import",): ["A"],
        ("trace", "export"): ["A", "--format", "ctf"],
    }
    checked = []
    for words, sub in _commands(parser):
        for action in sub._actions:
            if not action.option_strings or action.nargs is not None:
                continue
            option = action.option_strings[-1]
            argv = [*words, *given.get(words, []), option, "-5x"]
            said = ""
            try:
                args = parser.parse_args(attach_signed_values(parser, argv))
            except UsageError as e:
                said = str(e)  # the option's own check refused the value
            else:
                assert "-5x" in str(getattr(args, action.dest)), (words, option)
            assert "expected one argument" not in said, (words, option)
            checked.append(option)
    assert {"--duration", "--length", "--cpu", "--raw-max", "--cpus", "--min-change"} <= set(
        checked
    )
