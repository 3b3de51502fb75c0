# SPDX-License-Identifier: Apache-2.0
"""Linux guests under QEMU: Debian kernels, the initramfs, the agent, the machine."""
