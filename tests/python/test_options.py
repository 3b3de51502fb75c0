# SPDX-License-Identifier: Apache-2.0
"""Declared scenario options: what each kind accepts, and the check of --set."""

from dataclasses import dataclass

import pytest

from rtbench.errors import UsageError
from rtbench.model.options import OptionSpec, check_sets, render

COUNT = OptionSpec.from_json(
    {"key": "iterations", "kind": "count", "min": 1, "max": 100, "help": "n"}
)
WORD = OptionSpec.from_json({"key": "p", "kind": "choice", "choices": "inherit|none", "help": "w"})
FLAG = OptionSpec.from_json({"key": "f", "kind": "flag", "help": "f"})


@dataclass(frozen=True)
class Unit:
    name: str
    options: tuple[OptionSpec, ...]


def test_each_kind_accepts_what_it_says() -> None:
    assert COUNT.problem("1") is None and COUNT.problem("100") is None
    assert COUNT.problem("0") is not None and COUNT.problem("101") is not None
    assert COUNT.problem("-1") is not None and COUNT.problem("1e3") is not None
    assert COUNT.problem("") is not None
    assert WORD.problem("none") is None and WORD.problem("None") is not None
    assert WORD.problem("") is not None
    assert FLAG.problem("yes") is None and FLAG.problem("maybe") is not None
    assert COUNT.accepts() == "1..100" and WORD.accepts() == "inherit|none"


def test_sets_are_checked_against_every_unit_that_declares_the_key() -> None:
    wide = OptionSpec("iterations", "count", "n", 1, 1000)
    units = [Unit("a", (COUNT, WORD)), Unit("b", (wide, FLAG))]
    check_sets([("iterations", "50"), ("p", "none"), ("f", "on")], units)
    with pytest.raises(UsageError, match="for a"):
        check_sets([("iterations", "500")], units)  # b accepts it, a does not
    with pytest.raises(UsageError, match="valid keys: f, iterations, p"):
        check_sets([("nope", "1")], units)
    with pytest.raises(UsageError, match="no selected scenario"):
        check_sets([("f", "1")], [Unit("a", (COUNT,))])


def test_render_lists_units_with_options() -> None:
    text = render([Unit("a", (COUNT, WORD)), Unit("empty", ())])
    assert "a\n  iterations" in text and "inherit|none" in text
    assert "empty" not in text
