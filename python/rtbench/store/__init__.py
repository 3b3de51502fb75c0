# SPDX-License-Identifier: Apache-2.0
"""The results store: every run's summaries in one SQLite database, for history.

`db` opens and fills the database (the result folders stay the source of
truth; the database can be made again from them), `extract` reads what is
stored from a results document (testbed, version under test, summaries,
verdicts), `detect` finds where a series changed, `history` is the command
line of `rtbench store` and `rtbench history`, `page` its HTML page.
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_ENV = "RTBENCH_STORE"
STORE_FILE = "store.sqlite"


def default_path() -> Path:
    """$RTBENCH_STORE, else $XDG_DATA_HOME/rtbench/store.sqlite (~/.local/share by default)."""
    chosen = os.environ.get(STORE_ENV)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rtbench" / STORE_FILE
