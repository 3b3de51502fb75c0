# SPDX-License-Identifier: Apache-2.0
"""Write module_seconds.json from a whole test run's JUnit XML: how long each
test module took, which conftest.py uses to hand the longest modules out first
to the parallel workers (tests/run). The order only changes how soon the run
ends, never what it tests.

    pytest ... --junitxml=build/test-logs/pytest.xml
    python3 tests/python/module_times.py build/test-logs/pytest.xml
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).parent / "module_seconds.json"


def module_seconds(junit: Path) -> dict[str, float]:
    """Seconds per module file name, setup and teardown included."""
    totals: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).getroot().iter("testcase"):
        # classname is the module's dotted path (tests.python.test_x), or with a class
        parts = case.get("classname", "").split(".")
        module = next((p for p in parts if p.startswith("test_")), None)
        if module is not None:
            totals[f"{module}.py"] += float(case.get("time", "0"))
    return {name: round(s, 1) for name, s in sorted(totals.items(), key=lambda kv: -kv[1])}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print("usage: module_times.py JUNIT_XML (a whole run's --junitxml file)", file=sys.stderr)
        return 2
    OUT.write_text(json.dumps(module_seconds(Path(argv[0])), indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
