# SPDX-License-Identifier: Apache-2.0
"""The kernel trace: tracefs reached here or by shell scripts elsewhere, the events
read back, the clock map, and the explanation of the worst samples."""
