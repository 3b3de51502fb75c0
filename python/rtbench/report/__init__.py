# SPDX-License-Identifier: Apache-2.0
"""Reports: pure functions from a results document to text (terminal, HTML)."""
