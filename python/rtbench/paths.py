# SPDX-License-Identifier: Apache-2.0
"""Where rtbench finds its own files."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "schema" / "rtbench.schema.json"
