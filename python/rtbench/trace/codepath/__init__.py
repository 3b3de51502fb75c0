# SPDX-License-Identifier: Apache-2.0
"""The code path of the kept samples on an emulated board: QEMU's execution log
read against the image's symbols, and its rendering."""
