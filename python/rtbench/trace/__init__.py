# SPDX-License-Identifier: Apache-2.0
"""Kernel tracing of a run (`rtbench run --trace`) and its exports (docs/tracing.md)."""
