# SPDX-License-Identifier: Apache-2.0
"""What a snapshot means for results: the caveat checks, one module per subject,
registered on import and run in order.

Each caveat is {"code", "severity" ("warning" or "info"), "message" (what it does to
the results), "advice" (what to do)}. A fact the snapshot does not have (None or
missing) never produces a caveat.
"""

from __future__ import annotations

from typing import Any

from rtbench.system import registry
from rtbench.system.checks import host, scheduling

# Caveats of one severity are listed in the order of these modules, then in the order
# their checks are defined there.
CHECK_MODULES = (scheduling, host)


def _in_order() -> list[tuple[str, registry.Check]]:
    rank = {module.__name__: i for i, module in enumerate(CHECK_MODULES)}
    return sorted(registry.registered(), key=lambda item: rank[item[1].__module__])


CHECKS = _in_order()
CAVEAT_CODES = tuple(code for code, _check in CHECKS)


def caveats(snap: dict[str, Any]) -> list[dict[str, str]]:
    """What the snapshot means for results: warnings first, then information."""
    return registry.evaluate(snap, CHECKS)
