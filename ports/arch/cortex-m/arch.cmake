# SPDX-License-Identifier: Apache-2.0
# Cortex-M (ARMv7-M): interrupt masking, NVIC, reset, the counter extension
# (cm.h), the fault handlers with the firmware's fatal stop (fault.c),
# the counter as time for every firmware port (fw_time.c), and what every
# firmware port shares: the board facts of its port info and the counts of its
# interrupt source (fw_port.c).
# Read by rtb_add_firmware (cmake/rtb_firmware.cmake) for every board of it.
set(RTB_ARCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fault.c ${CMAKE_CURRENT_LIST_DIR}/fw_time.c
  ${CMAKE_CURRENT_LIST_DIR}/fw_port.c)
