# SPDX-License-Identifier: Apache-2.0
"""QEMU itself, shared by the Linux guests and the RTOS boards: the process and
its monitor, and the execution log the code-path tracer reads."""
