# SPDX-License-Identifier: Apache-2.0
"""Probes: one module per subject, each reading its facts through a Source."""
