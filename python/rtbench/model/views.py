# SPDX-License-Identifier: Apache-2.0
"""Views of what a results document holds that several readers share (the
report, the comparison, the store and the targets' own descriptions): its
verdicts, the first metadata record and the OS settings it reports, whether a
kernel's sources were modified."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rtbench.model.results import ResultsDocument, ScenarioOutcome


@dataclass(frozen=True)
class VerdictView:
    """A `verdict` record as reports show it."""

    scenario: str
    label: str | None
    check: str
    outcome: str  # pass / fail / unsupported / inconclusive
    reason: str
    evidence: tuple[str, ...]
    control_outcome: str  # caught / missed / not_run
    control_description: str
    control_evidence: tuple[str, ...]

    @property
    def control_sentence(self) -> str:
        what = self.control_description or "no description"
        if self.control_outcome == "caught":
            return f"negative control caught ({what})"
        if self.control_outcome == "missed":
            return f"negative control MISSED: the check did not see the planted failure ({what})"
        return f"negative control not run ({what})"


def verdicts(outcome: ScenarioOutcome) -> list[VerdictView]:
    out: list[VerdictView] = []
    for r in outcome.of_type("verdict"):
        control = r["control"]
        out.append(
            VerdictView(
                scenario=str(r["scenario"]),
                label=r.get("label"),
                check=str(r["check"]),
                outcome=str(r["outcome"]),
                reason=str(r["reason"]),
                evidence=tuple(str(e) for e in r["evidence"]),
                control_outcome=str(control["outcome"]),
                control_description=str(control.get("description") or ""),
                control_evidence=tuple(str(e) for e in control["evidence"]),
            )
        )
    return out


def modified_text(modified: Any) -> str:
    """How a kernel's sources compare with its release: "modified", "unmodified",
    or "unknown whether modified"."""
    return {True: "modified", False: "unmodified"}.get(modified, "unknown whether modified")


def first_meta(doc: ResultsDocument) -> Mapping[str, Any] | None:
    for outcome in doc.scenarios:
        if outcome.meta is not None:
            return outcome.meta
    return None


def os_settings(meta: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
    """The OS's build-time settings the meta record reports (os_config: the
    image read them from its own build), as (name, value, where set)."""
    config = (meta or {}).get("os_config")
    settings = config.get("settings") if isinstance(config, Mapping) else None
    if not isinstance(settings, list):
        return []
    return [
        (str(s.get("name")), str(s.get("value")), str(s.get("from") or ""))
        for s in settings
        if isinstance(s, Mapping) and s.get("name") is not None
    ]
