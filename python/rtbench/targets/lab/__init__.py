# SPDX-License-Identifier: Apache-2.0
"""Boards in a labgrid lab (`labgrid:PLACE`): the target and the labgrid-client
calls it makes."""
