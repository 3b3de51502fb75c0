# SPDX-License-Identifier: Apache-2.0
# Cortex-M (ARMv7-M): interrupt masking, NVIC, reset, the counter extension
# (cm.h, fw_counter.h), the fault handlers with the firmware's fatal stop
# (fault.c), the counter as time for every firmware port (fw_time.c), the
# contract's CPU calls (cpu.c), and what the shared firmware code
# (ports/common/fw_port.c) needs of the architecture (fw_arch.h).
# Read by rtb_add_firmware (cmake/rtb_firmware.cmake) for every board of it.
set(RTB_ARCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fault.c ${CMAKE_CURRENT_LIST_DIR}/fw_time.c
  ${CMAKE_CURRENT_LIST_DIR}/cpu.c)
