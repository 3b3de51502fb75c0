# SPDX-License-Identifier: Apache-2.0
# virt-a7: QEMU's virt machine with one Cortex-A7 (ARMv7-A, GICv2, generic timer).
# Read by rtb_add_firmware (cmake/rtb_firmware.cmake) for every RTOS port.
set(RTB_BOARD_ARCH cortex-a)
set(RTB_BOARD_CPU cortex-a7)
set(RTB_BOARD_SOURCES ${CMAKE_CURRENT_LIST_DIR}/board.c ${CMAKE_CURRENT_LIST_DIR}/startup.c)
set(RTB_BOARD_LINKER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/virt-a7.ld)
