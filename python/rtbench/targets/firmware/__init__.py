# SPDX-License-Identifier: Apache-2.0
"""RTOSes on emulated boards (`qemu:<rtos>-<board>`): one firmware target for every
RTOS and board. `rtoses` lists the RTOSes, `boards` the boards, `image` builds an
image from an RTOS's sources, `target` boots and measures it."""
