# SPDX-License-Identifier: Apache-2.0
"""How a change of a stored series reads: which changes began since a date, the
line that says where one began and between which versions, and its kind (a
confirmed change or a possible one). The history command and the history page
say changes alike through these."""

from __future__ import annotations

from rtbench.store.detect import Change, Point, Series


def since_start(p: Point, since: str | None) -> bool:
    """Whether a run started on or after `since` (every run when None)."""
    return not since or p.started[: len(since)] >= since


def shown_changes(s: Series, since: str | None) -> list[Change]:
    """The changes that began in a run started since `since`."""
    return [c for c in s.changes if since_start(s.points[c.index], since)]


def _between(s: Series, index: int) -> str:
    before, after = s.points[index - 1], s.points[index]
    if before.version != after.version:
        return f"between {before.version} and {after.version}"
    return f"between runs {before.label} and {after.label} (both {after.version})"


def change_line(s: Series, c: Change) -> str:
    began = s.points[c.index]
    return (
        f"{c.direction}{'' if c.confirmed else '?'} from run {began.label} "
        f"({began.started[:10]}), {_between(s, c.index)}: {c.how}"
    )


def change_kind(c: Change) -> str:
    return "change" if c.confirmed else "possible change"
