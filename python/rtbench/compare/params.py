# SPDX-License-Identifier: Apache-2.0
"""Matching a metric across operating systems whose ports set its parameters apart.

Metrics are matched by scenario, metric and parameters. A few parameters are
the port's, not the user's: `sem.wait.block` spreads its waiters over as many
priority levels as the port has (`priority_levels` 29 on FreeRTOS, 60 on
uC/OS-III), so the same measurement on two RTOSes carries two keys and would
never meet. Between a system whose OS differs from the baseline's and the
baseline, a metric the baseline measured and the other did not is therefore
matched with the other's one metric of the same scenario and name, with the
same parameter names, that the baseline did not measure, when there is exactly
one on each side; the row then says which parameters differ. Systems of the
baseline's OS are matched by their exact keys, as always.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

Key = tuple[str, str, str]  # scenario, metric, params (canonical JSON)
T = TypeVar("T")


def _params(key: Key) -> dict[str, Any]:
    found = json.loads(key[2]) if key[2] else {}
    return found if isinstance(found, dict) else {}


def _measured(runs: Sequence[Any]) -> bool:
    return any(m is not None for m in runs)


def merge(
    order: list[Key], per_run: dict[Key, list[list[T | None]]], differ: Sequence[bool]
) -> dict[Key, dict[int, str]]:
    """Move each differing-OS system's (index i with `differ[i]`) lone counterpart of
    a baseline metric onto the baseline's key, in place (a key nobody holds any more
    leaves `order`); returns, per key, per system, the sentence naming the
    parameters that differ."""
    notes: dict[Key, dict[int, str]] = {}
    for i, other_os in enumerate(differ):
        if not other_os:
            continue
        for key in list(order):
            runs = per_run.get(key)
            if runs is None or not _measured(runs[0]) or _measured(runs[i]):
                continue
            same_name = [k for k in order if k[:2] == key[:2] and k != key]
            theirs = [
                k for k in same_name if _measured(per_run[k][i]) and not _measured(per_run[k][0])
            ]
            ours = [
                k
                for k in (key, *same_name)
                if _measured(per_run[k][0]) and not _measured(per_run[k][i])
            ]
            if len(theirs) != 1 or ours != [key]:
                continue
            found = theirs[0]
            mine, other = _params(key), _params(found)
            if set(mine) != set(other):
                continue
            runs[i], per_run[found][i] = per_run[found][i], [None] * len(per_run[found][i])
            if not any(_measured(r) for r in per_run[found]):
                order.remove(found)
                del per_run[found]
            notes.setdefault(key, {})[i] = _sentence(i, mine, other)
    return notes


def _sentence(index: int, base: dict[str, Any], other: dict[str, Any]) -> str:
    letter = chr(ord("A") + index)
    names = [k for k in base if base[k] != other.get(k)]
    theirs = ", ".join(f"{k}={other[k]}" for k in names)
    ours = ", ".join(f"{k}={base[k]}" for k in names)
    return f"{letter} measured it with {theirs}, A with {ours}: the parameters differ"
