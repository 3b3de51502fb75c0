# SPDX-License-Identifier: Apache-2.0
"""Property tests: whatever bytes the core writes or a results file holds, the
record parser and the results loader answer with a record or one documented
error, never another exception; `rtbench show` of a broken file is one sentence
and exit status 2, and leaves the file as it was."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from rtbench import cli
from rtbench.errors import ResultsError
from rtbench.model import records, results

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

REAL_LINES = [
    line
    for name in ("cal-timestamp.jsonl", "sem-wait-block.jsonl", "synthetic-verdicts-tables.jsonl")
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    if line.strip()
]
RESULTS_TEXT = (FIXTURES / "results-quick" / "results.json").read_text(encoding="utf-8")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _parse(line: str) -> None:
    try:
        record = records.parse_line(line)
    except records.RecordError:
        return
    assert isinstance(record, dict)


@SETTINGS
@given(st.text(max_size=300))
def test_any_text_is_a_record_or_a_record_error(text: str) -> None:
    _parse(text)


@SETTINGS
@given(st.sampled_from(REAL_LINES), st.data())
def test_truncated_or_mutated_records(line: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(line)))
    _parse(line[:cut])
    pos = data.draw(st.integers(0, max(len(line) - 1, 0)))
    char = data.draw(st.characters())
    _parse(line[:pos] + char + line[pos + 1 :])


def _replace_somewhere(obj: Any, path: list[int], value: Any) -> Any:
    """obj with one nested value (chosen by `path`) replaced by `value`."""
    if not path or not isinstance(obj, (dict, list)) or not obj:
        return value
    if isinstance(obj, dict):
        keys = sorted(obj)
        key = keys[path[0] % len(keys)]
        return {**obj, key: _replace_somewhere(obj[key], path[1:], value)}
    index = path[0] % len(obj)
    return [*obj[:index], _replace_somewhere(obj[index], path[1:], value), *obj[index + 1 :]]


@SETTINGS
@given(st.lists(st.integers(0, 50), max_size=6), json_values)
def test_structurally_mutated_records(path: list[int], value: Any) -> None:
    for line in REAL_LINES[:6]:
        _parse(json.dumps(_replace_somewhere(json.loads(line), path, value)))


def _load_or_error(path: Path) -> None:
    message = None
    try:
        results.load(path)
    except ResultsError as e:
        message = str(e)
    assert message is None or (message and "\n" not in message)


def _show_is_one_sentence(path: Path) -> None:
    before = path.read_bytes()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = cli.main(["show", str(path)])
    assert path.read_bytes() == before  # nothing stored is touched
    if status != 0:
        assert status == 2
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rtbench show: "), err.getvalue()


@SETTINGS
@given(st.data())
def test_truncated_or_corrupted_results_files(tmp_path: Path, data: st.DataObject) -> None:
    file = tmp_path / "results.json"
    kind = data.draw(st.sampled_from(["truncate", "flip", "garbage"]))
    if kind == "truncate":
        text = RESULTS_TEXT[: data.draw(st.integers(0, len(RESULTS_TEXT)))]
    elif kind == "flip":
        pos = data.draw(st.integers(0, len(RESULTS_TEXT) - 1))
        text = RESULTS_TEXT[:pos] + data.draw(st.characters()) + RESULTS_TEXT[pos + 1 :]
    else:
        text = data.draw(st.text(max_size=200))
    file.write_text(text, encoding="utf-8", errors="surrogatepass")
    _load_or_error(file)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, 200), min_size=1, max_size=7), json_values)
def test_structurally_mutated_results_files(tmp_path: Path, path: list[int], value: Any) -> None:
    file = tmp_path / "results.json"
    mutated = _replace_somewhere(json.loads(RESULTS_TEXT), path, value)
    file.write_text(json.dumps(mutated), encoding="utf-8")
    _load_or_error(file)
    _show_is_one_sentence(file)


def test_show_of_a_broken_file_is_one_sentence(tmp_path: Path) -> None:
    file = tmp_path / "results.json"
    file.write_text(RESULTS_TEXT[: len(RESULTS_TEXT) // 2], encoding="utf-8")
    _show_is_one_sentence(file)
