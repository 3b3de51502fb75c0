# SPDX-License-Identifier: Apache-2.0
"""rtbench: evaluate how an operating system behaves and performs for real-time work."""

__version__ = "0.1.0"
