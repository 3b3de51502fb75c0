# SPDX-License-Identifier: Apache-2.0
"""Targets reached over SSH: the link, the core's output stream, the remote
machine's real-time settings and its tracefs."""
