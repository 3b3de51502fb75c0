# SPDX-License-Identifier: Apache-2.0
"""Data files shipped with rtbench (read with importlib.resources)."""
